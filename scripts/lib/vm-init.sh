#!/bin/sh
# Guest-side init for scripts/softroce-vm. Not meant to be run on a host.
#
# Stage 1 runs as /init of the generated initramfs (busybox only): it loads
# the virtio/9p/overlay modules shipped in the initramfs, builds the root file
# system (host / over 9p, read-only, under an overlay whose writable layer is
# a tmpfs) and switch_roots into it, re-running this file as stage 2 with the
# host's own /bin/sh. Stage 2 brings up eth0 and Soft-RoCE (rxe0), mounts the
# read-write shares and runs the command described by the host in config.sh.
#
# Both stages must stay POSIX sh: stage 1 runs under busybox ash, stage 2
# under whatever /bin/sh the host has (dash on Debian). Stage 2 still runs
# its plumbing (mount, ip, ...) from a copy of busybox: static and in RAM, it
# starts far faster under emulation than dynamically linked tools read over
# 9p. Only modprobe (kmod) and rdma (iproute2) come from the host.

# Where stage 1 leaves things for stage 2; /run is a tmpfs in the new root.
VM_DIR=/run/softroce-vm
# The host's per-run directory (config.sh in, status out) is mounted here.
RUN_DIR=$VM_DIR/host
NINEP_OPTS=trans=virtio,version=9p2000.L,msize=512000

log() {
	read -r up _ 2>/dev/null </proc/uptime
	echo "softroce-vm(guest) ${up:+[$up] }$*" >/dev/console
}

# Any failure before the command ran: tell the host why, then power off so
# the host notices at once instead of waiting for its timeout.
die() {
	log "error: $*"
	if [ -d "$RUN_DIR" ]; then
		echo "$*" >"$RUN_DIR/error" 2>/dev/null
	fi
	halt_now
}

halt_now() {
	sync
	# -f: there is no init system to ask; this is the init.
	"$VM_DIR/busybox" poweroff -f 2>/dev/null || poweroff -f
	# If even that failed, exiting PID 1 panics the kernel, and with
	# panic=-1 plus qemu's -no-reboot the VM ends anyway.
	exit 1
}

stage1() {
	PATH=/bin
	export PATH
	/bin/busybox --install -s /bin
	mkdir -p /proc /sys /dev /lower /rw /newroot
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev
	# The kernel console is only a log file on the host, but keep it terse
	# unless the host asked for a verbose boot.
	if grep -qw quiet /proc/cmdline; then
		dmesg -n 1
	fi

	log "stage 1: loading modules"
	# modules/order was computed on the host from modules.dep, so it is
	# already dependency-ordered; modules built into the kernel are absent.
	while read -r mod; do
		insmod "/modules/$mod.ko" || die "insmod $mod failed"
	done </modules/order

	log "stage 1: mounting the host root"
	mount -t 9p -o "$NINEP_OPTS,ro,cache=loose" hostroot /lower ||
		die "cannot mount the host root (9p tag hostroot)"
	mount -t tmpfs -o mode=0755 tmpfs /rw
	mkdir /rw/upper /rw/work
	mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work \
		overlay /newroot || die "cannot mount the overlay root"

	# Mounted now rather than in stage 2 so that stage 2 can find itself,
	# busybox and the run directory under it.
	mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /newroot/run
	mkdir -p "/newroot$RUN_DIR"
	cp /init "/newroot$VM_DIR/init"
	cp /bin/busybox "/newroot$VM_DIR/busybox"
	mkdir "/newroot$VM_DIR/bin"
	for applet in cat dmesg grep hostname ip mkdir mount mv sleep sync; do
		ln -s ../busybox "/newroot$VM_DIR/bin/$applet"
	done
	mount -t 9p -o "$NINEP_OPTS,cache=none" jrdma-run "/newroot$RUN_DIR" ||
		die "cannot mount the run directory (9p tag jrdma-run)"

	log "stage 1: switching root"
	umount /proc /sys /dev
	exec switch_root /newroot /bin/sh "$VM_DIR/init" stage2
	die "switch_root failed"
}

# Called from config.sh for every read-write share, parents first.
share() {
	mkdir -p "$2" 2>/dev/null
	# cache=mmap: like cache=none (writes reach the host at once), but
	# shared writable mmap works, which the JVM and test code may need.
	mount -t 9p -o "$NINEP_OPTS,cache=mmap" "$1" "$2" ||
		die "cannot mount share $2 (9p tag $1)"
}

# Starts dockerd for --docker and waits until it answers. Images and
# containers need a file system that overlayfs accepts as an upper layer,
# which the root (itself an overlay) is not: /var/lib/docker gets its own
# tmpfs, or the ext4 disk of --docker-disk/--docker-snapshot. Containers use the host network (no bridge, no iptables), so no
# netfilter modules are needed and they see rxe0 as they are.
start_dockerd() {
	mount -t cgroup2 -o nsdelegate cgroup2 /sys/fs/cgroup || die "cannot mount cgroup2"
	mkdir -p /var/lib/docker
	if [ "$DOCKER_DISK" = true ]; then
		modprobe -a virtio_blk ext4 || die "modprobe virtio_blk ext4 failed"
		until [ -b /dev/vda ]; do
			sleep 0.1
		done
		mount -t ext4 /dev/vda /var/lib/docker || die "cannot mount the Docker disk"
	else
		mount -t tmpfs -o mode=0711 tmpfs /var/lib/docker || die "cannot mount /var/lib/docker"
	fi
	# containerd first, waited for without a deadline: dockerd starting it itself gives up after a
	# fixed time, which a busy emulated machine can exceed. The VM's --timeout bounds the wait.
	log "stage 2: starting containerd and dockerd"
	containerd --root /var/lib/docker/containerd >/run/containerd.log 2>&1 &
	containerd_pid=$!
	until ctr version >/dev/null 2>&1; do
		kill -0 "$containerd_pid" 2>/dev/null || die "containerd stopped: $(tail -n 5 /run/containerd.log)"
		sleep 0.2
	done
	dockerd --containerd=/run/containerd/containerd.sock --iptables=false --ip6tables=false \
		--bridge=none --storage-driver=overlay2 --log-level=warn >/run/dockerd.log 2>&1 &
	dockerd_pid=$!
	until docker version >/dev/null 2>&1; do
		kill -0 "$dockerd_pid" 2>/dev/null || die "dockerd stopped: $(tail -n 5 /run/dockerd.log)"
		sleep 0.2
	done
	log "stage 2: dockerd ready"
}

# Stops dockerd and containerd and unmounts the storage, so that a --docker-disk is left clean.
stop_dockerd() {
	for pid in "$dockerd_pid" "$containerd_pid"; do
		kill "$pid" 2>/dev/null
		tries=0
		while kill -0 "$pid" 2>/dev/null && [ "$tries" -lt 300 ]; do
			tries=$((tries + 1))
			sleep 0.1
		done
	done
	umount /var/lib/docker 2>/dev/null
}

# Prints the /dev node of the virtio-serial port the host named $1. The
# name arrives asynchronously after the driver binds, hence the polling.
find_port() {
	tries=0
	while [ "$tries" -lt 50 ]; do
		for f in /sys/class/virtio-ports/*/name; do
			[ -r "$f" ] || continue
			if [ "$(cat "$f")" = "$1" ]; then
				dev=${f%/name}
				echo "/dev/${dev##*/}"
				return 0
			fi
		done
		sleep 0.1
		tries=$((tries + 1))
	done
	return 1
}

stage2() {
	PATH=$VM_DIR/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	export PATH
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev
	mkdir -p /dev/pts /dev/shm
	mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
	mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm
	# The host's /tmp is deliberately hidden: a fresh, fast, private one.
	mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp
	if grep -qw quiet /proc/cmdline; then
		dmesg -n 1
	fi

	[ -r "$RUN_DIR/config.sh" ] || die "no config.sh in the run directory"

	log "stage 2: loading modules"
	# One modprobe: each run has to read the module indexes over 9p.
	modprobe -a virtio_console virtio_net rdma_rxe ib_uverbs rdma_ucm ||
		die "modprobe failed"
	# Defines CWD, VM_HOSTNAME, NICS, ROUTES, ROUTER, DOCKER, DOCKER_DISK, calls share() and leaves the env(1)
	# arguments (-i, NAME=VALUE..., COMMAND, ARGS...) in "$@".
	log "stage 2: mounting shares"
	# shellcheck source=/dev/null
	. "$RUN_DIR/config.sh"

	ip link set lo up
	i=0
	for nic in $NICS; do
		ip addr add "${nic%@*}" dev "eth$i" || die "no eth$i for $nic"
		ip link set "eth$i" up
		i=$((i + 1))
	done
	for route in $ROUTES; do
		ip route add "${route%@*}" via "${route#*@}" || die "cannot add the route $route"
	done
	if [ "$ROUTER" = true ]; then
		echo 1 >/proc/sys/net/ipv4/ip_forward || die "cannot switch IPv4 forwarding on"
	else
		log "stage 2: adding rxe0"
		rdma link add rxe0 type rxe netdev eth0 || die "rdma link add rxe0 failed"
		tries=0
		until grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state 2>/dev/null; do
			tries=$((tries + 1))
			[ "$tries" -le 100 ] || die "rxe0 port 1 did not become ACTIVE within 10 s"
			sleep 0.1
		done
	fi

	log "stage 2: finding the output ports"
	out=$(find_port org.jrdma.stdout) || die "no virtio-serial port for stdout"
	err=$(find_port org.jrdma.stderr) || die "no virtio-serial port for stderr"

	hostname "$VM_HOSTNAME" 2>/dev/null
	[ "$DOCKER" = true ] && start_dockerd
	cd "$CWD" || die "cannot cd to $CWD"
	ulimit -l unlimited || die "ulimit -l unlimited failed"

	log "stage 2: running the command"
	# The host takes this file's mtime as "guest ready".
	: >"$RUN_DIR/started"
	env "$@" </dev/null >"$out" 2>"$err"
	status=$?
	log "stage 2: the command exited $status"
	# The host sees only the status: a command killed by a signal says which, and an out-of-memory kill in the
	# guest is shown as the kernel told it (its console is quiet and not kept).
	if [ "$status" -gt 128 ]; then
		echo "softroce-vm(guest): the command was killed by signal $((status - 128))" >"$err"
	fi
	dmesg | grep -iE 'invoked oom-killer|out of memory|oom-kill:|killed process' >"$err"
	[ "$DOCKER" = true ] && stop_dockerd
	# Written then renamed so the host never reads a half-written status.
	echo "$status" >"$RUN_DIR/status.tmp" && mv "$RUN_DIR/status.tmp" "$RUN_DIR/status"
	halt_now
}

case "${1:-}" in
stage2) stage2 ;;
*) stage1 ;;
esac
