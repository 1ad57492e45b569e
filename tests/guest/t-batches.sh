#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# rxc's send batches where the kernel segments them before the driver.
#
# Before a netdev that cannot carry a UDP fraglist GSO packet
# (virtio-net, every physical NIC), a pass's packets leave as one such
# packet, and the output path's software segmentation hands them to the
# driver one by one (net/rxc_xmit.c, "Batches").  A veth carries the
# batch whole, so rxc sends it nothing batched; with its tx-gso-list
# turned off it takes the wire's path.  Here it does, both ends, so that
# every kernel in the matrix, the debug kernel's KASAN included, watches
# the segmentation of packets rxc built itself: 64 KiB SENDs, RDMA
# WRITEs and the read responses of RDMA READs, at path MTU 1024 (1500-byte
# veth) and 4096 (9000-byte veth), over IPv4 and IPv6 (a part of that
# matrix on 6.12 and the debug kernel), each byte checked on the far side
# (rc_xfer).  The port counters must show batches sent
# (sent_batched), none failed (send_errors) and no ICRC error received.
#
# rxc only: rdma_rxe 6.1 has no namespace support.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=batches
PAIR_LOGS=$RESULTS/batches
IP=/usr/sbin/ip
count=$(by_kernel 50 10)
CLI_IP6=fd77::1 SRV_IP6=fd77::2

skip_unless_peer_xfer "batches segmented before a veth" && exit 0
if ! command -v ethtool >/dev/null; then
	skip "batches segmented before a veth" "no ethtool"
	exit 0
fi
mkdir -p "$PAIR_LOGS"

# gso_list on|off: whether both ends of the veth pair take fraglist GSO.
gso_list() {
	ethtool -K veth0 tx-gso-list "$1" &&
		"${SRV[@]}" ethtool -K veth1 tx-gso-list "$1"
}
cleanup() {
	ethtool -K veth0 tx-gso-list on 2>/dev/null || true
	$IP link set veth0 mtu 1500 2>/dev/null || true
	$IP addr del "$CLI_IP6/64" dev veth0 2>/dev/null || true
	peer_cleanup
	# veth1 is home again (peer_cleanup), as the next groups expect it.
	ethtool -K veth1 tx-gso-list on 2>/dev/null || true
	$IP link set veth1 mtu 1500 2>/dev/null || true
}
trap cleanup EXIT
peer_up
PORT=19300

run "$CLI_IP6 on veth0" 30 $IP addr add "$CLI_IP6/64" dev veth0 nodad
run "$SRV_IP6 on veth1" 30 $IP -n "$PEER_NS" addr add "$SRV_IP6/64" dev veth1 nodad
check "$CLI_DEV has a GID for $CLI_IP6" wait_for 20 gid_index_of "$CLI_DEV" "$CLI_IP6"
check "$SRV_DEV has a GID for $SRV_IP6" wait_for 20 gid_index_of "$SRV_DEV" "$SRV_IP6"
declare -A gid=([ipv4/cli]=$CLI_GID [ipv4/srv]=$SRV_GID
		[ipv6/cli]=$(gid_index_of "$CLI_DEV" "$CLI_IP6" || echo 1)
		[ipv6/srv]=$(gid_index_of "$SRV_DEV" "$SRV_IP6" || echo 1))

# Without the feature, each end segments what it sends; with it (the
# default), rxc would send nothing batched here.
check "tx-gso-list off on both veths" gso_list off

declare -A moved
for dev in "$CLI_DEV" "$SRV_DEV"; do
	counters_snap moved "$dev" sent_batched send_errors rcv_icrc_errors
done
# The runs, "FAMILY PATH-MTU:LINK-MTU OP": every combination, or where the
# matrix runs in part (lib.sh part_of_matrix), each family and each MTU
# once with both batching ends (the requester's sends and writes, the
# read responder's responses).
runs=()
for m in 1024:1500 4096:9000; do
	for fam in ipv4 ipv6; do
		for op in send write read; do runs+=("$fam $m $op"); done
	done
done
! part_of_matrix ||
	runs=("ipv4 1024:1500 write" "ipv6 1024:1500 read" "ipv4 4096:9000 read"
	      "ipv6 4096:9000 send")
mtu=''
for r in "${runs[@]}"; do
	read -r fam m op <<<"$r"
	[ "$mtu" = "${m#*:}" ] || check "veth MTU ${m#*:}" peer_mtu "${m#*:}"
	mtu=${m#*:}
	args=(-p "$PORT" -o "$op" -s 65536 -n "$count" -w 8 -m "${m%:*}"
	      -T $((60 * SLOW)))
	pair "$fam, path MTU ${m%:*}: rc_xfer -o $op -s 65536 -n $count, every byte checked" \
		chk_xfer -- \
		"$XFER" -d "$SRV_DEV" -g "${gid[$fam/srv]}" "${args[@]}" -- \
		"$XFER" -d "$CLI_DEV" -g "${gid[$fam/cli]}" "${args[@]}" "$SRV_IP"
done
counters_delta moved
counters_show moved
# Writes and sends batch at the client, read responses at the server.
check "$CLI_DEV sent batches (sent_batched moved)" \
	test "${moved[$CLI_DEV/sent_batched]}" -gt 0
check "$SRV_DEV sent batches (sent_batched moved)" \
	test "${moved[$SRV_DEV/sent_batched]}" -gt 0
for c in send_errors rcv_icrc_errors; do
	check "no $c at either end" \
		test $((${moved[$CLI_DEV/$c]} + ${moved[$SRV_DEV/$c]})) -eq 0
done

check "veth MTU 1500" peer_mtu 1500
check "tx-gso-list on again" gso_list on
run "$CLI_IP6 off veth0" 30 $IP addr del "$CLI_IP6/64" dev veth0
peer_down
