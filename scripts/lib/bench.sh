# shellcheck shell=bash source-path=SCRIPTDIR disable=SC2034
# What the measuring scripts (scripts/bench, bench-blocks, bench-nio, bench-endpoint, profile) share: their common
# options, the lines of env.txt that describe the host and the guest, the order of turns, and the boot of the one VM
# they measure in. The including script sets root and defines usage; the variables set here are its own (hence
# SC2034 off). Sourcing this also brings tool_copy, netty_copy and report (tool-copy.sh) and the listener waits
# (await-listener.sh).

# shellcheck source=tool-copy.sh
. "$root/scripts/lib/tool-copy.sh"
# shellcheck source=await-listener.sh
. "$root/scripts/lib/await-listener.sh"

# The bed: the guest's address on qemu's user network, and the vCPUs the two sides are pinned to. Multi-threaded
# TCG gives each vCPU its own host thread, so each side busy-polls on a CPU of its own and a round trip takes
# microseconds, not the guest timer ticks of single-threaded TCG. Each process is pinned: a JVM whose threads run on
# both vCPUs can crash there in JIT code another vCPU patched (see scripts/softroce-vm).
server_ip=10.0.2.15 server_cpu=1 client_cpu=0

# bench_options NAME DEFAULT_RESULTS TAKES ARGS...: parses the options into quick, rounds (default $bench_rounds,
# else 3), results, docs, build, timeout (default $bench_timeout, else 3600), report_only and guest (--guest: the
# script runs inside the VM), or exits 2 on a usage error. --results, --docs, --no-build, --timeout, --guest and
# --help are every script's; TAKES lists which of --quick, --rounds and --report-only the script takes too. An
# option of the script's own, always one with a value, goes to its function bench_option, called with the arguments
# left (OPTION VALUE ...), which sets it and returns 0, or returns 1 for an option it does not know.
bench_options() {
  local name=$1
  results=$2
  bench_takes=$3
  shift 3
  quick=0 rounds=${bench_rounds:-3} docs="$root/docs" build=1 timeout=${bench_timeout:-3600} guest=0 report_only=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --quick|--rounds|--report-only)
        case " $bench_takes " in *" $1 "*) ;; *) bench_unknown_option "$name" "$1" ;; esac
        case "$1" in
          --quick) quick=1 ;;
          --rounds) rounds=$2; shift ;;
          --report-only) report_only=1 ;;
        esac ;;
      --results) results=$2; shift ;;
      --docs) docs=$2; shift ;;
      --no-build) build=0 ;;
      --timeout) timeout=$2; shift ;;
      --guest) guest=1 ;;   # inside the VM: run the measurements into --results
      -h|--help) usage; exit 0 ;;
      *)
        if declare -F bench_option >/dev/null && bench_option "$@"; then
          shift
        else
          bench_unknown_option "$name" "$1"
        fi ;;
    esac
    shift
  done
  case "$rounds" in ''|*[!0-9]*|0) echo "$name: --rounds needs a positive number" >&2; exit 2 ;; esac
}

bench_unknown_option() { # name option
  echo "$1: unknown option '$2'" >&2
  usage >&2
  exit 2
}

# bench_tool_copy [PACKAGE...]: on the host, tool_copy (tool-copy.sh) into $results, which becomes absolute.
# shellcheck disable=SC2120  # the packages are optional
bench_tool_copy() {
  tool_copy "$root" "$results" "$build" "$@"
  results=$RESULTS_DIR
}

# bench_env KEY...: the lines of env.txt for the KEYs, in the order given (the reports show them as found).
#   on the host:  host_cpu, host_cores, host_load, jrdma (version and commit), date
#   in the guest: guest, guest_cpu, guest_cores, placement, kernel, device, jdk, perftest:PROGRAM (the version of
#                 perftest's PROGRAM), wall:START (the minutes since START, in seconds since the epoch)
bench_env() {
  local key
  for key in "$@"; do
    case "$key" in
      host_cpu) echo "host_cpu=$(bench_cpu_model)" ;;
      host_cores) echo "host_cores=$(nproc)" ;;
      host_load) echo "host_load=$(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) when the run started" ;;
      jrdma) echo "jrdma=$(sed -n 's:.*<version>\(.*\)</version>.*:\1:p' "$root/pom.xml" | head -n 1) ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown))" ;;
      date) echo "date=$(date -u +%Y-%m-%d)" ;;
      guest) echo "guest=qemu TCG (no KVM), $(nproc) vCPUs, $(bench_guest_memory)" ;;
      guest_cpu) echo "guest_cpu=$(bench_cpu_model)" ;;
      guest_cores) echo "guest_cores=$(nproc)" ;;
      placement) echo "placement=multi-threaded TCG (one host thread per vCPU); server pinned to vCPU $server_cpu, client to vCPU $client_cpu (taskset), both busy-polling" ;;
      kernel) echo "kernel=$(uname -r)" ;;
      device) echo "device=rxe0 (rdma_rxe, Soft-RoCE, RoCE v2 over eth0, MTU $(bench_rxe_mtu))" ;;
      jdk) echo "jdk=$(java -version 2>&1 | head -n 1)" ;;
      perftest:*) echo "perftest=$("${key#perftest:}" --version 2>&1 | sed -n 's/^Version: //p')" ;;
      wall:*) echo "wall=$(( ($(date +%s) - ${key#wall:}) / 60 )) min in the VM" ;;
      *) echo "bench_env: no line '$key'" >&2; return 1 ;;
    esac
  done
}

bench_cpu_model() { sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1; }
bench_guest_memory() { awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo; }
bench_rxe_mtu() { ibv_devinfo -d rxe0 | sed -n 's/.*active_mtu:[[:space:]]*//p' | head -n 1; }

# rstream_warmup KIND SIZE N: the untimed iterations both sides of jrdma rstream run first in a case of KIND (lat: N
# iterations of one SIZE-byte transfer each way; bw: N transfers each way in one iteration): for latency as many as
# the timed ones, at most 64 MiB each way, as the JIT compiles the loop while it runs; for bandwidth 1. rstream has
# no warm-up and needs none.
rstream_warmup() {
  local cap=$(( 64 * 1048576 / $2 ))
  if [ "$1" = lat ]; then echo $(( $3 < cap ? $3 : cap )); else echo 1; fi
}

# rstream_commands IMPL KIND SIZE N WARMUP PORT JAR [JAVA_OPTION...]: sets the arrays rstream_server and
# rstream_client to the two sides' command lines (not pinned) of rstream's test in a case of KIND (as rstream_warmup),
# IMPL c-rdma (rstream), c-tcp (rstream -T s), java-rdma (jrdma rstream from JAR over jrdma-nio, WARMUP untimed
# iterations first) or java-tcp (jrdma rstream -T s), the server on $server_ip:PORT; the JAVA_OPTIONs go to the JVM
# before -jar.
rstream_commands() {
  local impl=$1 kind=$2 size=$3 n=$4 warmup=$5 port=$6 jar=$7 args
  shift 7
  if [ "$kind" = lat ]; then args=(-S "$size" -C 1 -I "$n"); else args=(-S "$size" -C "$n" -I 1); fi
  case "$impl" in
    c-rdma) rstream_server=(rstream "${args[@]}" -p "$port") ;;
    c-tcp) rstream_server=(rstream "${args[@]}" -T s -p "$port") ;;
    java-*) rstream_server=(java --enable-native-access=ALL-UNNAMED "$@" -jar "$jar" rstream "${args[@]}"
                           --warmup "$warmup" -p "$port")
            [ "$impl" = java-tcp ] && rstream_server+=(-T s) ;;
    *) echo "rstream_commands: no implementation '$impl'" >&2; return 1 ;;
  esac
  rstream_client=("${rstream_server[@]}" -s "$server_ip")
  rstream_server+=(-b "$server_ip")
}

# The longest one process of a run may take, in seconds.
bench_run_secs=900

# bench_alone NAME WHAT OUT COMMAND...: runs COMMAND pinned to $client_cpu (stdout to OUT, stderr to OUT.err) for at
# most $bench_run_secs; a failure is told on stderr as NAME: WHAT.
bench_alone() {
  local name=$1 what=$2 out=$3
  shift 3
  timeout "$bench_run_secs" taskset -c "$client_cpu" "$@" >"$out" 2>"$out.err" \
    || echo "$name: $what failed (exit $?)" >&2
}

# bench_pair NAME WHAT OUT SERVER-COMMAND... -- CLIENT-COMMAND...: runs the server pinned to $server_cpu (output to
# OUT.server), waits for it to listen on $port (a TCP socket or an RDMA CM id), then the client pinned to
# $client_cpu (bench_alone), each for at most $bench_run_secs; a failure is told on stderr as NAME: WHAT.
bench_pair() {
  local name=$1 what=$2 out=$3
  shift 3
  local -a server=() client=()
  while [ "$1" != -- ]; do server+=("$1"); shift; done
  shift
  client=("$@")
  timeout "$bench_run_secs" taskset -c "$server_cpu" "${server[@]}" >"$out.server" 2>&1 &
  local spid=$!
  if await_any_listener "$port"; then
    bench_alone "$name" "$what" "$out" "${client[@]}"
  else
    echo "$name: $what: the server did not listen" >&2
  fi
  wait "$spid" || echo "$name: $what: the server failed" >&2
}

# bench_order LIST ROUND: who takes turns in what order in round ROUND (from 1): LIST moved on by one place a round,
# so that no one always runs after the same other.
bench_order() {
  local order=$1 _
  for _ in $(seq 2 "$2"); do order="${order#* } ${order%% *}"; done
  echo "$order"
}

# bench_in_vm SCRIPT GUEST_ARGS...: on the host, with the tool copied to $results (bench_tool_copy) and the host's
# lines of env.txt written there, runs scripts/SCRIPT --guest --results $results in one multi-threaded TCG VM, with
# --rounds $rounds and --quick when the script takes them (and --quick was given), then GUEST_ARGS.
bench_in_vm() {
  local script=$1
  shift
  local args=(--guest --results "$results") share=()
  case " $bench_takes " in *" --rounds "*) args+=(--rounds "$rounds") ;; esac
  [ "$quick" = 1 ] && args+=(--quick)
  case "$results" in "$root"/*) ;; *) share=(--share "$results") ;; esac
  "$root/scripts/softroce-vm" --tcg multi --timeout "$timeout" "${share[@]}" -- "$root/scripts/$script" "${args[@]}" "$@"
}
