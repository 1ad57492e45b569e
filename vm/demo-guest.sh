#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Guest side of vm/demo.sh: bring up one soft-RoCE device on a veth pair,
# show it with the standard tools, then take it down again.
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
show rdma link delete "$DEV"
show rmmod "$DRV_MOD"
echo; echo "demo: done"
