# shellcheck shell=bash
# await_listener PORT: waits until something listens on TCP port PORT (IPv4 or IPv6), for at most 300 s (a cold
# JVM in the emulated VM is slow). Returns 1 when nothing did.
await_listener() {
  local hex i
  hex=$(printf ':%04X ' "$1")
  for i in $(seq 1 1500); do
    if grep -q "$hex.* 0A " /proc/net/tcp /proc/net/tcp6 2>/dev/null; then return 0; fi
    sleep 0.2
  done
  return 1
}

# await_rdma_listener PORT: waits until an RDMA CM id listens on PORT (an rsocket, a jrdma-endpoint listener), for
# at most 300 s: such a listener has no kernel TCP socket.
await_rdma_listener() {
  local i
  for i in $(seq 1 1500); do
    if rdma res show cm_id 2>/dev/null | grep -q "state LISTEN .*src-addr [^ ]*:$1 "; then return 0; fi
    sleep 0.2
  done
  return 1
}
