#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# RC over a lossy link: with netem dropping, reordering and duplicating
# packets on the veth pair between client and server (lib.sh peer_up),
# a transfer of NETEM_MIB MiB (64 on the stock kernel, 16 in the fast
# tier, 4 on the debug kernel) must arrive with
# every byte intact, and the client's transport counters must show the
# recovery (retransmits).  NETEM_LOSS (percent, default 5) sets the loss
# each way, NETEM_TIMEOUT (14: 67 ms) the QPs' local ACK timeout
# exponent, NETEM_WINDOW (8) the messages in flight, NETEM_SECS (900)
# the time the SEND transfer may take; the WRITE and READ transfers, a
# quarter and a tenth of its size, get a third of it each, and
# NETEM_SEND_ONLY=1 leaves them out (for the long run).  Then lost tails,
# CPU stalls, and a delayed link that loses nothing, where the requester
# paces its window.
#
# rxc only: rdma_rxe 6.1 has no namespace support, so both ends would sit
# on one device and its loopback never passes a qdisc.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=netem
# Under KASAN + lockdep a 64 MiB transfer would take far too long; 4 MiB
# still loses some hundred packets there.
# The fast tier's 16 MiB still loses and recovers hundreds of packets.
if [ "$SLOW" -gt 1 ]; then
	mib=${NETEM_MIB:-4}
elif [ "$RXC_TIER" = fast ]; then
	mib=${NETEM_MIB:-16}
else
	mib=${NETEM_MIB:-64}
fi
# Loss, reordering (needs a delay to reorder against) and duplicates on
# the client's requests; loss alone on the server's ACKs and responses,
# so that the retransmit timer has to fire too.
loss=${NETEM_LOSS:-5}
secs=${NETEM_SECS:-900}
tmo=${NETEM_TIMEOUT:-14}
win=${NETEM_WINDOW:-8}
fwd=(delay 2ms reorder 10% loss "$loss%" duplicate 1%)
back=(loss "$loss%")

skip_unless_peer_xfer "RC under netem loss" && exit 0
PAIR_LOGS=$RESULTS/netem
mkdir -p "$PAIR_LOGS"

# After an abort, leave no netem behind on either end for the groups
# that follow: peer_cleanup brings veth1 home with its qdisc on.
trap 'netem_link_cleanup; peer_cleanup' EXIT
peer_up
PORT=18900

declare -A moved
counters_snap moved "$CLI_DEV" sent_packets retransmits retransmit_timeouts \
	seq_naks_rcvd cwnd_shrinks
counters_snap moved "$SRV_DEV" rcv_duplicates rcv_seq_errors

netem_link on "${fwd[*]}" "${back[*]}"

# 4 KiB messages (4 packets at the 1024-byte path MTU), 8 in flight: RC
# recovers a loss by going back to the lost packet, so every loss costs
# what is in flight behind it, and 5% loss on a deep pipe would crawl.
n=$((mib * 256))
# xfer NAME SECS MARGIN OP SIZE COUNT: rc_xfer at both ends for SECS,
# each giving up MARGIN seconds before that; every byte checked.
# XFER_OPTS adds options of rc_xfer's own.
xfer() {
	local name=$1 t=$2 margin=$3 op=$4 size=$5 count=$6 args
	# shellcheck disable=SC2206 # a word list, split on purpose
	args=(-p "$PORT" -o "$op" -s "$size" -n "$count" -w "$win" -t "$tmo"
	      -T $(((t - margin) * SLOW)) ${XFER_OPTS:-})
	PAIR_SECS=$t pair "$name" chk_xfer -- \
		"$XFER" -d "$SRV_DEV" -g "$SRV_GID" "${args[@]}" -- \
		"$XFER" -d "$CLI_DEV" -g "$CLI_GID" "${args[@]}" "$SRV_IP"
}
xfer "rc_xfer: $mib MiB by SEND, every byte checked" "$secs" 50 send 4096 "$n"
secs=$((secs / 3))
if [ "${NETEM_SEND_ONLY:-0}" != 1 ]; then
	xfer "rc_xfer: $((mib / 4)) MiB by RDMA WRITE with immediate, 5001-byte messages" \
		"$secs" 20 write 5001 $((n / 5))
	# Reads recover a lost response by asking for the rest of the read.
	xfer "rc_xfer: $((n / 10)) RDMA READs of 5001 bytes, every byte checked" \
		"$secs" 20 read 5001 $((n / 10))
fi
# No stock tool here: ibv_rc_pingpong exits as soon as it has its last
# message, so when the ACK of that message is lost its peer retransmits to
# a QP that is gone (retry_cnt 7 retries forever, as with rdma_rxe) and
# never finishes.  rc_xfer's receiver keeps its QP until the sender has
# had every ACK and said so over TCP.

netem_link off

counters_delta moved
counters_show moved
check "$CLI_DEV sent packets" test "${moved[$CLI_DEV/sent_packets]}" -gt 0
check "$CLI_DEV retransmitted (retransmits moved)" \
	test "${moved[$CLI_DEV/retransmits]}" -gt 0
check "$CLI_DEV saw sequence NAKs or retransmit timeouts" \
	test $((${moved[$CLI_DEV/seq_naks_rcvd]} + \
		${moved[$CLI_DEV/retransmit_timeouts]})) -gt 0
check "$CLI_DEV cut its congestion window (cwnd_shrinks moved)" \
	test "${moved[$CLI_DEV/cwnd_shrinks]}" -gt 0
check "$SRV_DEV noticed lost or duplicated packets" \
	test $((${moved[$SRV_DEV/rcv_seq_errors]} + \
		${moved[$SRV_DEV/rcv_duplicates]})) -gt 0

# lost_tail OP SIZE OPCODE PSN WHAT [probe]: 16 RC operations OP of
# SIZE bytes, 8 in flight (rc_xfer starts at PSN 0x1000, MTU 1024), with
# the server's packet OPCODE at PSN dropped by tc the first time only.
# The client must recover without its retransmit timeout (exponent 20:
# 4.3 s); with "probe", by tail-loss probes (retransmit_probes moves) of
# at most two packets each (the oldest unacknowledged and the last): the
# server sees no more than two duplicates a probe, where resending from
# the oldest unacknowledged PSN would show it every packet of the last
# message again.
lost_tail() {
	local op=$1 size=$2 opcode=$3 psn=$4 what=$5 dropped timeouts probes
	local -A d
	if ! drop_first_copy veth1 "$opcode" "$psn" "${SRV[@]}"; then
		skip "$what" "no tc clsact, u32 or gact here"
		return 0
	fi
	counters_snap d "$CLI_DEV" retransmit_timeouts retransmit_probes
	counters_snap d "$SRV_DEV" rcv_duplicates
	win=8 tmo=20 xfer "rc_xfer: 16 RDMA ${op^^}s of $size bytes, packet $psn lost" \
		120 20 "$op" "$size" 16
	dropped=$(dropped_copies veth1 "${SRV[@]}")
	counters_delta d
	echo "filter dropped ${dropped:-?}"
	counters_show d
	timeouts=${d[$CLI_DEV/retransmit_timeouts]}
	probes=${d[$CLI_DEV/retransmit_probes]}
	check "tc dropped packet $psn" test "${dropped:-0}" -ge 1
	check "$what" test "$timeouts" -eq 0
	if [ "${6:-}" = probe ]; then
		check "a tail-loss probe found it (retransmit_probes moved)" \
			test "$probes" -gt 0
		check "each probe sent at most two packets (duplicates <= 2 probes)" \
			test "${d[$SRV_DEV/rcv_duplicates]}" -le $((2 * probes))
	fi
	run "remove the drop filter" 30 "${SRV[@]}" $TC qdisc del dev veth1 clsact
}
# READ_RESPONSE_LAST (0x0f) of the first read: the next read's responses
# arrive at once and show the gap, so the client asks again then.
lost_tail read 4096 0x0f 0x1003 "a lost read response is asked for again at once"
# The last read's: nothing follows it to show the gap.
lost_tail read 4096 0x0f 0x103f \
	"the last read's lost last response is asked for again" probe
# The ACK (0x11) of the last 16 KiB write, 16 packets: the server had
# everything, and a packet asking for an ACK is all it needs to say so.
lost_tail write 16384 0x11 0x10ff "the last write's lost ACK is asked for again" probe

# stall LOG: once the client's QP is connected, stall every CPU five
# times, 0.3 s apart, with a real-time busy loop of 150 ms each (its
# timeout one priority above it, to end it): no kworker runs meanwhile,
# so no QP run either, while the timers go on.  LOG gets the number of
# stalls made while connected.  The loops start together: each waits in
# open() on a FIFO until a writer opens it.  Started one after the
# other, tens of milliseconds apart under TCG, they can leave the client
# running, and probing, while the server's CPU already spins; the stall
# that follows then outlasts a wait that has probed, a timeout by the
# rules (rxc_rto_fired()), though nothing was lost.  One CI run counted
# one.
stall() {
	local n=0 c cpus fifo=/tmp/netem-stall.fifo	# /tmp: tmpfs, 9p has no FIFOs
	cpus=$(($(nproc) - 1))
	rm -f "$fifo"
	mkfifo "$fifo"
	wait_for 30 rc_connected "$CLI_DEV" || true
	while [ "$n" -lt 5 ] && rc_connected "$CLI_DEV"; do
		for c in $(seq 0 "$cpus"); do
			# shellcheck disable=SC2016 # $1: the inner shell's
			taskset -c "$c" chrt -f 60 sh -c \
				': <"$1"; exec timeout 0.15 chrt -f 50 sh -c "while :; do :; done"' \
				sh "$fifo" &
		done
		sleep 0.3	# until each waits in open()
		# A writer for as long as they spin: one that comes late
		# starts late rather than never.
		exec 3<>"$fifo"
		wait
		exec 3>&-
		n=$((n + 1))
		sleep 0.3
	done
	rm -f "$fifo"
	echo "$n" >"$1"
}

# A stall longer than the local ACK timeout (here 67 ms) is no loss: when
# the runs resume, the requester's may come before the responder's has
# sent the ACK.  It must probe then, not resend the window and spend a
# retry: no retransmit timeout on a link that loses nothing.
stalled() {
	local log=$PAIR_LOGS/stalls spid
	local -A d
	counters_snap d "$CLI_DEV" retransmit_timeouts retransmit_probes
	stall "$log" &
	spid=$!
	win=8 xfer "rc_xfer: 64 KiB RDMA WRITEs while every CPU stalls" \
		120 20 write 65536 $((SLOW > 1 ? 200 : 2000))
	wait "$spid" || true
	counters_delta d
	echo "# $(cat "$log" 2>/dev/null || echo 0) stalls"
	counters_show d
	check "the CPUs stalled at least twice during the transfer" \
		test "$(cat "$log" 2>/dev/null || echo 0)" -ge 2
	check "a stall longer than the ACK timeout is no retransmit timeout" \
		test "${d[$CLI_DEV/retransmit_timeouts]}" -eq 0
}
stalled

# A path with a 5 ms round trip that loses nothing: the requester spreads
# its window over the round trip instead of sending it at once, so the
# 64 KiB writes wait for the pace (pace_waits moves), every byte intact.
paced() {
	local -A d
	counters_snap d "$CLI_DEV" pace_waits
	netem_link on "delay 2500us" "delay 2500us"
	win=8 xfer "rc_xfer: 64 KiB RDMA WRITEs over a 5 ms round trip" \
		120 20 write 65536 $((SLOW > 1 ? 50 : 200))
	netem_link off
	counters_delta d
	counters_show d
	check "the writes waited for the pace (pace_waits moved)" \
		test "${d[$CLI_DEV/pace_waits]}" -gt 0
}
paced

# One late answer must not wedge the QP behind it.  The server holds
# back the response to the client's first read (READ_RESPONSE_ONLY, 0x10,
# at PSN 0x1000) by 0.9 s, within the local ACK timeout (exponent 18:
# 1.07 s), so the client's first round trip measures 0.9 s.  Two 16 MiB
# reads follow.  The pace once charged each read its whole length at
# that round trip's rate, about three minutes of debt, and the second
# read waited for all of it; now a read pays as its responses arrive, no
# debt runs past a window's time, and the round trip paced over is at
# most 10 ms.
late_first_answer() {
	local took name="rc_xfer: 2 RDMA READs of 16 MiB after one answer 0.9 s late"
	if ! hold_packet veth1 0x10 0x1000 900ms "${SRV[@]}"; then
		skip "$name" "no tc prio, netem or u32 here"
		return 0
	fi
	XFER_OPTS=-r win=1 tmo=18 xfer "$name" 60 20 read $((16 << 20)) 2
	took=$(sed -n 's/^rc_xfer: the first read took \([0-9.]*\) s$/\1/p' \
		"$PAIR_LOGS/$PAIR_SEQ-cli.log")
	check "the server held the first read's answer back" \
		test "$(held_packets veth1 "${SRV[@]}")" -ge 1
	check "the first read took at least 0.8 s (${took:-no figure})" \
		awk -v t="${took:-0}" 'BEGIN { exit !(t >= 0.8) }'
	run "remove the prio qdisc" 30 "${SRV[@]}" $TC qdisc del dev veth1 root
}
late_first_answer

# Local requests complete in order behind the request before them, so an
# ACK held back finishes thousands at once: here 4095 binds and
# invalidations of a type 2 window behind one write, whose ACK (0x11, PSN
# 0x1000) the server holds back while the client's requester executes
# them.  The receive softirq that takes the ACK retires 256 and leaves
# the rest to the QP's work item (retire_handoffs moves); every one
# completes, successfully and in its place.
locals_behind_a_late_ack() {
	local name="rc_xfer: 4095 local requests behind a write whose ACK is late"
	local -A d
	if ! hold_packet veth1 0x11 0x1000 $((500 * SLOW))ms "${SRV[@]}"; then
		skip "$name" "no tc prio, netem or u32 here"
		return 0
	fi
	counters_snap d "$CLI_DEV" retire_handoffs
	XFER_OPTS="-L 4095" win=1 tmo=18 xfer "$name" 120 20 write 64 1
	counters_delta d
	counters_show d
	check "the server held the write's ACK back" \
		test "$(held_packets veth1 "${SRV[@]}")" -ge 1
	check "the retire left finished requests to a later run (retire_handoffs moved)" \
		test "${d[$CLI_DEV/retire_handoffs]}" -gt 0
	run "remove the prio qdisc" 30 "${SRV[@]}" $TC qdisc del dev veth1 root
}
locals_behind_a_late_ack

peer_down
