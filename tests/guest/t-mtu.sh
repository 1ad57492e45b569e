#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# A connected QP's packet size is fixed when its path MTU is set, not
# read from the netdev as it goes: both ends count a message's PSNs, and
# the offsets they resend from, in that size.  Here the QPs ask for a
# 4096-byte path MTU on a 1500-byte veth pair (so they use 1024), and
# once both are in RTS the MTU of both veths flips between 9000 and 1500
# four times, early in the transfer.  Every transfer must still arrive
# intact; a driver that followed the netdev would switch to 4096-byte
# packets in the middle of a message.
#
# rxc only: rdma_rxe 6.1 has no namespace support.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=mtu
PAIR_LOGS=$RESULTS/mtu
if [ "$SLOW" -gt 1 ]; then count=100; else count=1500; fi

skip_unless_peer_xfer "netdev MTU changes under traffic" && exit 0
mkdir -p "$PAIR_LOGS"

trap 'peer_mtu 1500 2>/dev/null || true; peer_cleanup' EXIT
peer_up
PORT=19000

# received_since COUNT: has the client received more than COUNT packets?
received_since() { [ "$(hw_counter "$CLI_DEV" rcv_packets)" -gt "$1" ]; }

# flap LOG RCV: once the client's QP is connected and has received its
# first answer (more than RCV, its rcv_packets before the transfer), flip
# the MTU every 0.2 s, four times at most (each flip may cost in-flight
# packets, and so retransmissions), while it stays connected; LOG gets
# the number of flips.  A loss before the requester's first round-trip
# sample has no estimate to probe with, and only the local ACK timeout
# recovers it ("Tail-loss probes" in Documentation/rxc.rst): a flip at
# the first read's responses timed out once in a CI run.
# The flips run real-time, as what they run inherits: on the debug kernel
# the transfer's runs on the high-priority rxc_net workqueue (nice -20)
# starve a nice 0 shell, whose flips then came seconds apart, one per
# read transfer.  The waits before them do not, so as not to starve
# the transfer's own setup.
flap() {
	local flips=0 m=9000
	wait_for 30 rc_connected "$CLI_DEV" || true
	wait_for 30 received_since "$2" || true
	chrt -f -p 10 "$BASHPID" >/dev/null
	while [ "$flips" -lt 4 ] && rc_connected "$CLI_DEV"; do
		peer_mtu "$m"
		flips=$((flips + 1))
		m=$((m == 9000 ? 1500 : 9000))
		sleep 0.2
	done
	echo "$flips" >"$1"
}

# One rc_xfer with the MTU flapping, then: did it flap while connected,
# and did the client retransmit only after a loss?  The packets fit
# either MTU; what the link loses (packets in flight at a flip: some ten
# sequence NAKs a transfer, more on a loaded host) the responder NAKs at
# once, so on the stock kernel a retransmit timeout is a spurious one.
# What moved on both sides is printed for the reader.  The debug kernel
# (KASAN under TCG) is slow enough for the QPs' 67 ms timeout to expire
# without a loss, so there they are only counted (some 300 per 100
# reads); there, expiries taken while read responses waited in the queue
# once restarted every read again and again, until the transfer stalled
# past the pair's timeout.
CLI_NAMES="retransmit_timeouts retransmit_probes retransmits seq_naks_rcvd send_errors pace_waits"
SRV_NAMES="rcv_duplicates rcv_seq_errors rcv_qp_dropped"
flapping_xfer() {	# OP SIZE COUNT
	local log=$PAIR_LOGS/flips-$1 fpid
	local -A d
	# shellcheck disable=SC2086  # the names are words
	counters_snap d "$CLI_DEV" $CLI_NAMES
	# shellcheck disable=SC2086
	counters_snap d "$SRV_DEV" $SRV_NAMES
	flap "$log" "$(hw_counter "$CLI_DEV" rcv_packets)" &
	fpid=$!
	pair "rc_xfer -o $1: $3 x $2 bytes while the netdev MTU flips, every byte checked" chk_xfer -- \
		"$XFER" -d "$SRV_DEV" -g "$SRV_GID" -p "$PORT" -o "$1" -m 4096 -s "$2" -n "$3" -w 8 -T $((100 * SLOW)) -- \
		"$XFER" -d "$CLI_DEV" -g "$CLI_GID" -p "$PORT" -o "$1" -m 4096 -s "$2" -n "$3" -w 8 -T $((100 * SLOW)) "$SRV_IP"
	wait "$fpid" || true
	check "$1: the MTU flipped at least twice while the QPs were connected" \
		test "$(cat "$log" 2>/dev/null || echo 0)" -ge 2
	counters_moved d "$1"
	[ "$SLOW" -gt 1 ] ||
		check "$1: no retransmit timeout: NAKs recover what the flips lose" \
			test "${d[$CLI_DEV/retransmit_timeouts]}" -eq 0
	peer_mtu 1500
}

# The requester cuts sends and writes the same way, so the debug kernel,
# where each transfer takes a minute, runs one of them.
flapping_xfer send 65536 "$count"
[ "$SLOW" -gt 1 ] || flapping_xfer write 65536 "$count"
flapping_xfer read 65536 "$count"

peer_down
