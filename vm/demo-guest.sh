#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Guest side of vm/demo.sh: bring up one soft-RoCE device on a veth pair,
# show it with the standard tools, run RC traffic through it, count a
# batch of unsignaled writes with a completion counter, show the port
# statistics, then take it down again.
set -euo pipefail
. "$RXC_REPO/tests/guest/lib.sh"
IP=/usr/sbin/ip	# by full path: never a busybox applet
show() { echo; echo "\$ $*"; "$@"; }

[ "$DEV_TYPE" = rxe ] && { modprobe crc32_generic 2>/dev/null || true; }
show modprobe "$DRV_MOD"
# A network that exists only inside this VM.
show $IP link add "$NETDEV" type veth peer name veth1
show $IP addr add "$IPADDR/24" dev "$NETDEV"
show $IP link set "$NETDEV" up
show $IP link set veth1 up
show rdma link add "$DEV" type "$DEV_TYPE" netdev "$NETDEV"
wait_for 20 port_active || echo "(port not active yet)"
show rdma link show
show ibv_devices
show ibv_devinfo -d "$DEV"

# Use it: two processes exchange 100 RC messages of 4 KiB, every buffer
# checked (-c), over the device's IPv4 GID.
show $IP link set lo up
gid=$(gid_index || echo 1)
ibv_rc_pingpong -d "$DEV" -g "$gid" -n 100 -s 4096 -c >/tmp/demo-srv.log 2>&1 &
server=$!
wait_for 20 sh -c "ss -Hltn | grep -q ':18515 '" || echo "(server not listening yet)"
show ibv_rc_pingpong -d "$DEV" -g "$gid" -n 100 -s 4096 -c 127.0.0.1
wait "$server"
echo "server side:"; cat /tmp/demo-srv.log

# The headline feature: RDMA writes that are never signaled, counted by a
# completion counter attached to the QP; the example polls the counter's
# value in its own mapped page.  While it holds the counter, debugfs
# lists it with the QP it counts (ops 0x10: RDMA_WRITE).
if [ "$DEV_TYPE" = rxc ]; then
	echo
	echo "\$ unsignaled_writes -d $DEV -g $gid -n 1000 -H"
	echo "\$ cat /sys/kernel/debug/rdma_rxc/$DEV/comp_cntrs   # while it holds"
	listing=$(mktemp)
	held_unsignaled_writes "$RXC_REPO/build/userspace/examples" "$DEV" \
		"$gid" 1000 "$listing" || echo "(unsignaled_writes failed)"
	cat "$listing"
fi
show rdma statistic show link "$DEV/1"
show rdma link delete "$DEV"
show rmmod "$DRV_MOD"
echo; echo "demo: done"
