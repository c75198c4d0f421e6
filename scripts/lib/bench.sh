# shellcheck shell=bash
# What the measuring scripts share: the options of scripts/bench, bench-blocks, bench-nio, bench-endpoint and profile;
# the side-by-side benchmarks' (bench-nio, bench-endpoint) guest lines of env.txt, and the boot of the one VM they
# measure in. The including script sets root and defines usage.

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

# bench_guest_env SERVER_CPU CLIENT_CPU: the guest's lines of env.txt, inside the VM.
bench_guest_env() {
  echo "guest=qemu TCG (no KVM), $(nproc) vCPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
  echo "placement=multi-threaded TCG (one host thread per vCPU); server pinned to vCPU $1, client to vCPU $2 (taskset), both busy-polling"
  echo "kernel=$(uname -r)"
  echo "device=rxe0 (rdma_rxe, Soft-RoCE, RoCE v2 over eth0, MTU $(ibv_devinfo -d rxe0 | sed -n 's/.*active_mtu:[[:space:]]*//p' | head -n 1))"
  echo "jdk=$(java -version 2>&1 | head -n 1)"
}

# bench_in_vm SCRIPT GUEST_ARGS...: on the host, with the tool copied (tool_copy) to $results: writes the host's
# lines of env.txt, then runs scripts/SCRIPT --guest --results $results GUEST_ARGS... in one multi-threaded TCG VM.
bench_in_vm() {
  local script=$1
  shift
  {
    echo "host_cores=$(nproc)"
    echo "jrdma=$(sed -n 's:.*<version>\(.*\)</version>.*:\1:p' "$root/pom.xml" | head -n 1) ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown))"
    echo "date=$(date -u +%Y-%m-%d)"
  } >"$results/env.txt"
  local share=()
  case "$results" in "$root"/*) ;; *) share=(--share "$results") ;; esac
  "$root/scripts/softroce-vm" --tcg multi --timeout "$timeout" "${share[@]}" -- \
    "$root/scripts/$script" --guest --results "$results" "$@"
}
