#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# rdma_rxe -> rxc on the wire: rdma_rxe (initial namespace, it cannot live
# elsewhere in 6.1) sends real RC traffic to an rxc device in namespace
# "far", and rxc must accept every packet as well-formed, ICRC included.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=interop
IP=/usr/sbin/ip
A=veth6 B=veth7 A_IP=10.79.0.1 B_IP=10.79.0.2 XDEV=${DEV_TYPE}5

if [ "$DEV_TYPE" != rxc ]; then
	skip "rxe to rxc packets" "only meaningful with rxc"
	exit 0
fi

counter() {	# counter NAME: a port counter of $XDEV
	rdma statistic show link "$XDEV/1" | tr ' ' '\n' |
		awk -v n="$1" 'prev == n { print; exit } { prev = $0 }'
}

# rdma_rxe binds UDP/4791 in the initial namespace when it loads: free it.
run "rdma link delete $DEV" 30 rdma link delete "$DEV"
modprobe crc32_generic 2>/dev/null || modprobe crc32-pclmul 2>/dev/null || true
run "modprobe rdma_rxe" 60 modprobe rdma_rxe
out=$(rdma link add "$DEV" type rxc netdev "$NETDEV" 2>&1) && rc=0 || rc=$?
check "rxc cannot take rdma_rxe's port: EADDRINUSE" \
	sh -c "[ $rc -ne 0 ] && echo '$out' | grep -q 'Address already in use'"
run "create namespace far" 30 $IP netns add far
run "create $A/$B" 30 $IP link add "$A" type veth peer name "$B" netns far
run "address $A" 30 $IP addr add "$A_IP/24" dev "$A"
run "$A up" 30 $IP link set "$A" up
run "address $B" 30 $IP -n far addr add "$B_IP/24" dev "$B"
run "$B up" 30 $IP -n far link set "$B" up
run "rxe9 on $A" 30 rdma link add rxe9 type rxe netdev "$A"
run "$XDEV on $B inside far" 30 \
	$IP netns exec far rdma link add "$XDEV" type rxc netdev "$B"
check "$XDEV port active" wait_for 20 sh -c \
	"ibv_devinfo -d $XDEV | grep -q PORT_ACTIVE"

# rdma_rxe's client talks RC to an rxc server; both must finish, with
# every packet well-formed.
if netns_traffic_gated; then
	skip "rdma_rxe to rxc RC traffic" "$NETNS_TRAFFIC_REASON"
else
	$IP netns exec far timeout 90 ibv_rc_pingpong -d "$XDEV" -g 1 \
		-n 10 -s 4096 -c >"$RESULTS/interop-srv.log" 2>&1 &
	spid=$!
	sleep 2
	run "rdma_rxe client to $XDEV server" 60 ibv_rc_pingpong -d rxe9 \
		-g 1 -n 10 -s 4096 -c "$B_IP"
	srv=0
	wait "$spid" || srv=$?
	check "$XDEV server finished" test "$srv" = 0
	check "$XDEV received rdma_rxe's packets" test "$(counter rcv_packets)" -gt 0
	check "no ICRC errors on rdma_rxe's packets" test "$(counter rcv_icrc_errors)" = 0
	check "no malformed packets" test "$(counter rcv_malformed)" = 0
	check "no truncated packets" test "$(counter rcv_truncated)" = 0
fi

run "delete namespace far" 60 $IP netns delete far
run "rmmod rdma_rxe" 60 rmmod rdma_rxe
run "re-create $DEV" 60 rdma link add "$DEV" type rxc netdev "$NETDEV"
check "$DEV port active" wait_for 20 port_active
