#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Which packets from the network the receive softirq handles itself
# (transport/rxc_task.c, rxc_qp_handles_in_softirq(); Documentation
# "Transport"): in a ping-pong, the one-packet messages that complete a
# receive and the ACKs; one-packet read requests; in a stream, not the
# messages, which wait for the work item so that one ACK answers
# several.  rcv_in_softirq counts the packets handled there.
#
# Over a plain veth pair no packet would reach the softirq outside a
# run, so both ends delay what they send (lib.sh netem_link).  Then:
# - RC and UD ping-pongs of 8-byte messages: most packets each end
#   receives are handled in softirq (rdma_rxe's way; the check asks for
#   a share, see many_in_softirq), every message checked (-c);
# - a ping-pong of 8-byte RDMA WRITEs (ib_write_lat, each end polling
#   memory for the other's write): five in eight packets or more, so
#   the writes as well as their ACKs;
# - 8-byte reads one at a time (rc_xfer -w 1), every byte checked: the
#   responder handles most requests in softirq, and the requester most
#   responses;
# - 8-byte reads, 32 posted and 16 (max_rd_atomic) in flight, every byte
#   checked: the requester handles most responses in softirq, and with
#   each sends the read that waited for its slot;
# - 64 KiB reads one at a time, every byte checked: the requester
#   handles most packets of each response in softirq, not only the last;
# - an RC stream of 8-byte SENDs, every byte checked (rc_xfer): the
#   receiving end, whose QP sends no request of its own, handles none of
#   them there.
# On the debug kernel lockdep and KASAN watch completions, CQ events and
# ACKs made in softirq.
#
# rxc only: rdma_rxe 6.1 has no namespace support.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=softirq
PAIR_LOGS=$RESULTS/softirq
n=$(by_kernel 200 40)
share=$(by_kernel 1/2 1/4)

skip_unless_peer_xfer "packets handled in the receive softirq" && exit 0
mkdir -p "$PAIR_LOGS"

trap 'netem_link_cleanup; peer_cleanup' EXIT
peer_up
PORT=19400
netem_link on "delay 1ms" "delay 1ms"

# many_in_softirq NAME DEV...: each DEV received N packets or more over
# the test just run, and handled a share of them in softirq (the
# counters in the array "moved"): SHARE, or half on the stock kernels
# (399 or 400 of 400 seen on 6.1 and 6.12) and a quarter on the debug
# kernel (49 to 68 of 80 seen), whose long runs more often hold the
# claim when a packet arrives.
many_in_softirq() {
	local name=$1 frac=${SHARE:-$share} dev got
	shift
	counters_moved moved "$name"
	for dev in "$@"; do
		got=${moved[$dev/rcv_packets]}
		check "$name: $dev received $n packets or more" test "$got" -ge "$n"
		check "$name: $dev handled $frac of them or more in softirq" \
			test $((${frac#*/} * ${moved[$dev/rcv_in_softirq]})) \
			-ge $((${frac%/*} * got))
	done
}
snap() {
	moved=()
	counters_snap moved "$CLI_DEV" rcv_in_softirq rcv_packets
	counters_snap moved "$SRV_DEV" rcv_in_softirq rcv_packets
}

# Each end receives N messages (and, on RC, N ACKs or so).  Not all are
# handled in softirq: the server's first message comes before its QP sent
# anything, and a packet whose timer interrupted a run on its CPU goes to
# the work item.
declare -A moved
for t in rc ud; do
	snap
	pair "ibv_${t}_pingpong -s 8 -n $n -c over a delayed link" chk_pingpong "$n" -- \
		"ibv_${t}_pingpong" -d "$SRV_DEV" -g "$SRV_GID" -p "$PORT" -s 8 -n "$n" -c -- \
		"ibv_${t}_pingpong" -d "$CLI_DEV" -g "$CLI_GID" -p "$PORT" -s 8 -n "$n" -c "$SRV_IP"
	many_in_softirq "$t ping-pong" "$CLI_DEV" "$SRV_DEV"
done

# Before the writes were, only their ACKs were: half of what each end
# received.  With the writes, 399 or 400 of 400 on an idle host, and 296
# of 402 on a host whose other work stalled the guest (its runs then hold
# the claim more often): five in eight lies between that and a half.
snap
pair "ib_write_lat -s 8 -n $n over a delayed link" chk_perftest 8 "$n" -- \
	ib_write_lat -d "$SRV_DEV" -x "$SRV_GID" -p "$PORT" -s 8 -n "$n" -F -- \
	ib_write_lat -d "$CLI_DEV" -x "$CLI_GID" -p "$PORT" -s 8 -n "$n" -F "$SRV_IP"
SHARE=$(by_kernel 5/8 1/4) many_in_softirq "write ping-pong" "$CLI_DEV" "$SRV_DEV"

# xfer OP COUNT WINDOW [SIZE]: rc_xfer of OPs of SIZE bytes (8) over the
# delayed link, at path MTU 1024.
xfer() {
	local size=${4:-8}
	local args=(-p "$PORT" -o "$1" -s "$size" -n "$2" -w "$3" -m 1024
		    -T $((60 * SLOW)))

	pair "rc_xfer -o $1 -s $size -n $2 -w $3 over a delayed link, every byte checked" \
		chk_xfer -- \
		"$XFER" -d "$SRV_DEV" -g "$SRV_GID" "${args[@]}" -- \
		"$XFER" -d "$CLI_DEV" -g "$CLI_GID" "${args[@]}" "$SRV_IP"
}

snap
xfer read "$n" 1
many_in_softirq "reads one at a time" "$SRV_DEV" "$CLI_DEV"

snap
xfer read "$n" 32
many_in_softirq "reads behind the read limit" "$CLI_DEV"

# Before the requester took them in softirq, a 64 KiB read's middle
# packets (63 of its 64) went to the work item: 1 in 64 handled there.
snap
xfer read "$n" 1 65536
many_in_softirq "64 KiB reads one at a time" "$CLI_DEV"

snap
xfer send $((n * 4)) 16
counters_moved moved "send stream"
check "send stream: $SRV_DEV received the messages" \
	test "${moved[$SRV_DEV/rcv_packets]}" -ge $((n * 4))
check "send stream: $SRV_DEV handled none of them in softirq" \
	test "${moved[$SRV_DEV/rcv_in_softirq]}" -eq 0

netem_link off
peer_down
