#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Device attributes as userspace sees them: the device is listed, its port
# is an active RoCE port and its limits are usable.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=device

if ! dev_exists; then
	skip "attributes" "no $DEV device"
	exit 0
fi

run "ibv_devices lists $DEV" 30 sh -c "ibv_devices | grep -qw $DEV"
run "rdma link shows $DEV ACTIVE on $NETDEV" 30 \
	sh -c "rdma link show $DEV/1 | grep -q 'state ACTIVE.*netdev $NETDEV'"

info=$(timeout $((30 * SLOW)) ibv_devinfo -v -d "$DEV" 2>&1) || true
echo "$info"
# has REGEX NAME: one test per expected line of ibv_devinfo -v
has() { check "$2" grep -Eq "$1" <<<"$info"; }
has '^hca_id:[[:space:]]+'"$DEV"'$' "ibv_devinfo -v -d $DEV"
has 'transport:[[:space:]]+InfiniBand' "transport InfiniBand"
has 'state:[[:space:]]+PORT_ACTIVE' "port state PORT_ACTIVE"
has 'link_layer:[[:space:]]+Ethernet' "link_layer Ethernet"
has 'phys_state:[[:space:]]+LINK_UP' "phys_state LINK_UP"
has 'phys_port_cnt:[[:space:]]+1$' "one port"
has 'node_guid:[[:space:]]+[0-9a-f:]*[1-9a-f]' "node_guid not zero"
has "GID\\[ *$GID_INDEX\\]:[[:space:]]+::ffff:$IPADDR" "GID[$GID_INDEX] is ::ffff:$IPADDR"

# The ICRC takes the fastest CRC-32 the kernel has: the crypto API's
# crc32-pclmul where the CPU has PCLMULQDQ and the kernel the module
# (check.sh boots 6.12's guest on such a CPU), crc32_le() elsewhere.
if [ "$DEV_TYPE" = rxc ]; then
	want=crc32_le
	if grep -qw pclmulqdq /proc/cpuinfo &&
		modinfo crc32-pclmul >/dev/null 2>&1; then
		want=crc32-pclmul
	fi
	got=$(dmesg | sed -n 's/.*rdma_rxc: ICRC by //p' | tail -n 1)
	check "the ICRC by $want (is ${got:-not logged})" test "$got" = "$want"
fi

# attr NAME MIN: the attribute is at least MIN (sane, not just non-zero).
attr() {
	local v
	v=$(sed -n "s/^[[:space:]]*$1:[[:space:]]*\\([0-9]*\\).*/\\1/p" <<<"$info" | head -n 1)
	check "$1 >= $2 (is ${v:-missing})" test "${v:-0}" -ge "$2"
}
attr max_qp 64
attr max_qp_wr 1024
attr max_cq 64
attr max_cqe 1024
attr max_mr 64
attr max_pd 64
attr max_sge 4
attr max_srq 1
attr max_ah 1
attr max_mtu 1024
attr active_mtu 256

# ib_mad (loaded with the connection manager) creates the GSI QP, QP1, on
# every RoCE port: the kernel QP path must give it one.
run "modprobe rdma_ucm" 60 modprobe rdma_ucm
check "$DEV has its GSI QP" \
	sh -c "rdma resource show qp link $DEV/1 | grep -Eq 'lqpn 1 .*type GSI'"
check "ib_mad opened $DEV without errors" \
	sh -c "! dmesg | grep -E \"ib_mad.*Couldn't\""

# The kernel memory a user has the driver allocate is charged to the
# user's memory cgroup.  qp_hog creates QPs with 4096-deep queues and
# moves each to RTS (about 2 MiB of rings and copies each): in a group
# limited to 32 MiB it gets ENOMEM after a few, and nothing is killed;
# outside it, all 40 exist.
hog=${RXC_REPO:-/nonexistent}/build/tests/tools/qp_hog
cg=/sys/fs/cgroup
memcg_ready() {
	mountpoint -q "$cg" || mount -t cgroup2 none "$cg" || return 1
	grep -qw memory "$cg/cgroup.controllers" &&
		echo +memory >"$cg/cgroup.subtree_control"
}
# hog_in DIR: qp_hog's last line, run as a member of cgroup DIR.
hog_in() {
	# shellcheck disable=SC2016 # $$ is the inner shell's, on purpose
	timeout -k 5 $((300 * SLOW)) sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" "$3" 40 4096' \
		- "$1" "$hog" "$DEV" | tail -n 1
}
if [ "$DEV_TYPE" != rxc ]; then
	skip "memory cgroup charges" "rdma_rxe does not charge its rings"
elif [ ! -x "$hog" ]; then
	skip "memory cgroup charges" "qp_hog not built: $hog"
elif ! memcg_ready; then
	skip "memory cgroup charges" "no cgroup v2 memory controller"
else
	mkdir -p "$cg/rxc-hog"
	echo 32M >"$cg/rxc-hog/memory.max"
	got=$(hog_in "$cg/rxc-hog")
	echo "in 32 MiB: $got"
	check "QPs in a 32 MiB memory cgroup stop with ENOMEM (12)" \
		test "${got#created=* }" = errno=12
	check "and nothing in the group is OOM-killed" \
		grep -qx 'oom_kill 0' "$cg/rxc-hog/memory.events"
	got=$(hog_in "$cg")
	echo "unlimited: $got"
	check "the same 40 QPs are created outside the group" \
		test "$got" = "created=40 errno=0"
	rmdir "$cg/rxc-hog"
fi
