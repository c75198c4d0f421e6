# Sourced by the scripts: jrdma_host_device prints the RDMA device to use on this machine, or nothing.
# $JRDMA_DEVICE wins; else the first device `ibv_devinfo -l` lists.
jrdma_host_device() {
  if [ -n "${JRDMA_DEVICE:-}" ]; then echo "$JRDMA_DEVICE"; return 0; fi
  command -v ibv_devinfo >/dev/null 2>&1 || return 0
  # Output: "N HCAs found:" then one indented device name a line.
  ibv_devinfo -l 2>/dev/null | awk 'NR > 1 && NF == 1 { print $1; exit }'
}
