#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Guest side of vm/demo.sh: bring up one soft-RoCE device on a veth pair,
# show it with the standard tools, run RC traffic through it, then take it
# down again.
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
srv=$!
wait_for 20 sh -c "ss -Hltn | grep -q ':18515 '" || echo "(server not listening yet)"
show ibv_rc_pingpong -d "$DEV" -g "$gid" -n 100 -s 4096 -c 127.0.0.1
wait "$srv"
echo "server side:"; cat /tmp/demo-srv.log
show rdma statistic show link "$DEV/1"
show rdma link delete "$DEV"
show rmmod "$DRV_MOD"
echo; echo "demo: done"
