# shellcheck shell=bash
# Waits for a server to listen on a port, for at most 300 s each (a cold JVM in the emulated VM is slow); each
# returns 1 when nothing did.
#   await_listener PORT:       something listens on TCP port PORT (IPv4 or IPv6)
#   await_rdma_listener PORT:  an RDMA CM id listens on PORT (an rsocket, a jrdma-endpoint or UCX listener): such a
#                              listener has no kernel TCP socket
#   await_any_listener PORT:   either
await_listener() { await_port tcp_listening "$1"; }
await_rdma_listener() { await_port rdma_listening "$1"; }
await_any_listener() { await_port any_listening "$1"; }

tcp_listening() { grep -q "$(printf ':%04X ' "$1").* 0A " /proc/net/tcp /proc/net/tcp6 2>/dev/null; }
rdma_listening() { rdma res show cm_id 2>/dev/null | grep -q "state LISTEN .*src-addr [^ ]*:$1 "; }
any_listening() { tcp_listening "$1" || rdma_listening "$1"; }

await_port() { # check port: runs CHECK PORT every 0.2 s until it succeeds, 1500 times at most
  local _
  for _ in $(seq 1 1500); do
    if "$1" "$2"; then return 0; fi
    sleep 0.2
  done
  return 1
}
