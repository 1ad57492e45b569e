#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The network side: UDP/4791 sockets opened per namespace only while a
# device needs them, EADDRINUSE when the port is taken, and malformed
# packets dropped and counted.  Uses its own veth pair whose far end sits
# in a namespace "peer", so injected packets really cross the link.
# Leaves $DEV as run-all.sh set it up.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=net
IP=/usr/sbin/ip
NEAR=veth4 FAR=veth5 NEAR_IP=10.78.0.1 FAR_IP=10.78.0.2
TDEV=${DEV_TYPE}7 PDEV=${DEV_TYPE}6

if [ "$DEV_TYPE" != rxc ]; then
	skip "network tests" "rdma_rxe binds UDP/4791 at load, in one namespace"
	exit 0
fi

listening() {	# listening [NETNS]: is anything bound to UDP/4791?
	if [ $# -eq 1 ]; then
		$IP netns exec "$1" ss -Huln 'sport = :4791' | grep -q .
	else
		ss -Huln 'sport = :4791' | grep -q .
	fi
}
counter_is() { [ "$(hw_counter "$1" "$2")" = "$3" ]; }
counter_above() { [ "$(hw_counter "$1" "$2")" -gt "$3" ]; }
# answered DEV: the packets DEV has sent, counting those its netdev refused
# (send_errors): a veth drops what overflows the receiving CPU's backlog,
# and nobody asks for those again.
answered() { echo $(($(hw_counter "$1" sent_packets) + $(hw_counter "$1" send_errors))); }
answered_above() { [ "$(answered "$1")" -gt "$2" ]; }
gone() { ! rdma link show "$1/1" >/dev/null 2>&1; }
probes_answered() {	# probes_answered LINE: roce_nak.py behind's summary
	[[ $1 =~ ^roce_nak:\ ([0-9]+)\ far\ probes\ answered,\ 0\ malformed$ ]] &&
		[ "${BASH_REMATCH[1]}" -ge 2 ]
}

# Lazy sockets: nothing listens without a device, and the last device
# closes them.
check "UDP/4791 open while $DEV exists" listening
run "rdma link delete $DEV" 30 rdma link delete "$DEV"
check "UDP/4791 closed with the last device" sh -c "! ss -Huln 'sport = :4791' | grep -q ."
run "rmmod and modprobe $DRV_MOD" 60 sh -c "rmmod $DRV_MOD && modprobe $DRV_MOD"
check "loading $DRV_MOD opens no socket" sh -c "! ss -Huln 'sport = :4791' | grep -q ."
run "rdma link add $DEV again" 30 rdma link add "$DEV" type "$DEV_TYPE" netdev "$NETDEV"
check "UDP/4791 open again" listening
check "$DEV port active" wait_for 20 port_active

run "create namespace peer" 30 $IP netns add peer
run "create $NEAR/$FAR" 30 $IP link add "$NEAR" type veth peer name "$FAR" netns peer
run "address $NEAR" 30 $IP addr add "$NEAR_IP/24" dev "$NEAR"
run "$NEAR up" 30 $IP link set "$NEAR" up
run "address $FAR" 30 $IP -n peer addr add "$FAR_IP/24" dev "$FAR"
run "$FAR up" 30 $IP -n peer link set "$FAR" up
run "rdma link add $TDEV on $NEAR" 30 rdma link add "$TDEV" type rxc netdev "$NEAR"

# Each malformed packet is dropped and counted under its own reason.
inject() {	# inject KIND COUNTER
	local before
	before=$(hw_counter "$TDEV" "$2")
	run "inject $1" 30 $IP netns exec peer /usr/bin/python3 \
		"$here/roce_inject.py" "$FAR_IP" "$NEAR_IP" "$1"
	check "$1 packet counted as $2" \
		wait_for 10 counter_is "$TDEV" "$2" $((before + 1))
}
inject truncated rcv_truncated
inject bad_tver rcv_malformed
inject bad_icrc rcv_icrc_errors
inject no_qp rcv_no_qp
check "$TDEV received 4 packets" counter_is "$TDEV" rcv_packets 4
check "$TDEV port still active" wait_for 5 sh -c \
	"ibv_devinfo -d $TDEV | grep -q PORT_ACTIVE"

# A connected QP acts only on packets from its peer's address to its own.
# peer_target holds an RC QP on $TDEV connected to $FAR_IP with one write
# outstanding: a forged ACK of that write from another address must
# complete nothing; the same ACK from $FAR_IP completes it.  Then the
# peer reads the target's region once, the target deregisters it, and the
# peer asks again with the same PSN: the duplicate's rkey no longer names
# a region, so the target must NAK it and fail the QP, with the event that
# says why, rather than ignore it and leave the peer retrying.
target=${RXC_REPO:-/nonexistent}/build/tests/tools/peer_target
inject_cmd=("$IP" netns exec peer /usr/bin/python3 "$here/roce_inject.py")
target_says() {	# target_says CMD: the target's one-line answer
	local answer=''
	echo "$1" >&"${PT[1]}"
	read -r -t 30 answer <&"${PT[0]}" || true
	echo "$answer"
}
target_gives() {	# target_gives CMD ANSWER: does the target answer CMD so?
	local got
	got=$(target_says "$1")
	[ "$got" = "$2" ] && return 0
	echo "#   '$1': the target answered '$got'"
	return 1
}
target_start() {	# target_start [TIMEOUT]: a new target; sets qpn psn rq_psn va rkey rlen, or fails
	local line=''
	# shellcheck disable=SC2086 # no TIMEOUT, no word
	coproc PT { "$target" "$TDEV" "$NEAR_IP" "$FAR_IP" ${1:-} 2>&1; }
	read -r -t 60 line <&"${PT[0]}" || true
	if [[ $line =~ ^qpn=([0-9]+)\ psn=([0-9]+)\ rq_psn=([0-9]+)\ va=(0x[0-9a-f]+)\ rkey=(0x[0-9a-f]+)\ len=([0-9]+)$ ]]; then
		qpn=${BASH_REMATCH[1]} psn=${BASH_REMATCH[2]} rq_psn=${BASH_REMATCH[3]}
		va=${BASH_REMATCH[4]} rkey=${BASH_REMATCH[5]} rlen=${BASH_REMATCH[6]}
		return 0
	fi
	fail "peer_target: connected QP" "it printed '$line'"
	return 1
}
target_stop() {
	target_says quit >/dev/null
	kill "${PT_PID:-}" 2>/dev/null || true
	wait "${PT_PID:-}" 2>/dev/null || true
}
if target_start; then
	read_args=("$qpn" "$rq_psn" "$va" "$rkey" 8)
	before=$(hw_counter "$TDEV" rcv_wrong_peer)
	run "inject an ACK from 10.78.0.9" 30 \
		"${inject_cmd[@]}" 10.78.0.9 "$NEAR_IP" ack "$qpn" "$psn"
	check "a forged ACK from another address completes nothing" \
		target_gives 'poll 1000' none
	check "the forged ACK is counted as rcv_wrong_peer" \
		wait_for 10 counter_is "$TDEV" rcv_wrong_peer $((before + 1))
	# From the right address, an ACK of a PSN never sent acknowledges
	# nothing either.
	run "inject an ACK of PSN $((psn + 1)), never sent, from $FAR_IP" 30 \
		"${inject_cmd[@]}" "$FAR_IP" "$NEAR_IP" ack "$qpn" $((psn + 1))
	check "an ACK beyond the last PSN sent completes nothing" \
		target_gives 'poll 1000' none
	run "inject the same ACK from $FAR_IP" 30 \
		"${inject_cmd[@]}" "$FAR_IP" "$NEAR_IP" ack "$qpn" "$psn"
	check "the peer's ACK completes the write" \
		target_gives 'poll 10000' status=0

	sent=$(hw_counter "$TDEV" sent_packets)
	run "inject an RDMA READ of the target's region from $FAR_IP" 30 \
		"${inject_cmd[@]}" "$FAR_IP" "$NEAR_IP" read "${read_args[@]}"
	check "the target answers it" \
		wait_for 10 counter_above "$TDEV" sent_packets "$sent"
	check "and stays in RTS (3)" target_gives state state=3
	dups=$(hw_counter "$TDEV" rcv_duplicates)
	check "the target deregisters the region" \
		target_gives dereg dereg=0
	run "inject the same READ again: a duplicate of a region now gone" 30 \
		"${inject_cmd[@]}" "$FAR_IP" "$NEAR_IP" read "${read_args[@]}"
	# 3 is IBV_EVENT_QP_ACCESS_ERR, 6 IBV_QPS_ERR.
	check "the duplicate fails the QP with IBV_EVENT_QP_ACCESS_ERR" \
		target_gives 'event 10000' event=3
	check "the target QP is in ERR (6)" \
		target_gives state state=6
	check "the target took it for a duplicate" \
		counter_is "$TDEV" rcv_duplicates $((dups + 1))
	target_stop
fi

# A responder left behind by a lie (Documentation/liveness.rst, "A
# responder left behind"): an ACK in the peer's name completes the
# target's first write, which the peer never took; the peer, roce_nak.py
# behind, then drops all the target sends and answers only its far
# probes, with an ACK of the PSN before that write's.  At retry_cnt 7 the
# target must fail its second write with RETRY_EXC_ERR once two probes
# have found the peer there, rather than retry it for ever.
if target_start 14; then
	nk_log=$(mktemp)
	$IP netns exec peer timeout -k 2 40 /usr/bin/python3 "$here/roce_nak.py" \
		"$FAR" "$FAR_IP" "$NEAR_IP" behind 15 "1234:$(printf %x "$qpn")" \
		>"$nk_log" 2>&1 &
	nk_pid=$!
	check "roce_nak.py behind listens" \
		wait_for 30 grep -qx 'roce_nak: listening' "$nk_log"
	behind=$(hw_counter "$TDEV" responders_behind)
	run "inject an ACK of the first write from $FAR_IP" 30 \
		"${inject_cmd[@]}" "$FAR_IP" "$NEAR_IP" ack "$qpn" "$psn"
	check "the ACK completes the first write" \
		target_gives 'poll 10000' status=0
	check "the target posts a second write" \
		target_gives write write=0
	# 12 is IBV_WC_RETRY_EXC_ERR.
	check "far probes find the peer behind: the write fails with RETRY_EXC_ERR" \
		target_gives 'poll 30000' status=12
	check "the answers are counted as responders_behind" \
		counter_above "$TDEV" responders_behind $((behind + 1))
	wait "$nk_pid" || true
	check "roce_nak.py answered two far probes or more, all well formed" \
		probes_answered "$(tail -n 1 "$nk_log")"
	rm -f "$nk_log"
	target_stop
fi

# A READ longer than max_msg_sz (2 GiB) is an invalid request whatever
# its region: the target must NAK it as one and fail the QP with the
# event that says so, before it looks at the region (which is 8 bytes).
if target_start; then
	run "inject an RDMA READ of 2 GiB + 1 byte from $FAR_IP" 30 \
		"${inject_cmd[@]}" "$FAR_IP" "$NEAR_IP" read "$qpn" "$rq_psn" \
		"$va" "$rkey" $((0x80000001))
	# 2 is IBV_EVENT_QP_REQ_ERR.
	check "a READ beyond max_msg_sz fails the QP with IBV_EVENT_QP_REQ_ERR" \
		target_gives 'event 10000' event=2
	target_stop
fi

# A flood from a third address while the responder answers its peer's
# READ of the whole region (64 Ki packets at MTU 1024): the forged
# requests would wait behind the READ, so a queue that took them would
# fill and drop the peer's next ones.  They must be dropped on arrival,
# each counted as rcv_wrong_peer, and the READ must still be answered in
# full.
if target_start; then
	flood=1100	# more than the 1024 packets a QP queues
	npkts=$(((rlen + 1023) / 1024))
	sent=$(answered "$TDEV")
	wrong=$(hw_counter "$TDEV" rcv_wrong_peer)
	dropped=$(hw_counter "$TDEV" rcv_qp_dropped)
	run "inject a READ of $rlen bytes from $FAR_IP, then $flood copies from 10.78.0.9" 60 \
		"${inject_cmd[@]}" "$FAR_IP" "$NEAR_IP" read_flood "$qpn" \
		"$rq_psn" "$va" "$rkey" "$rlen" 10.78.0.9 "$flood"
	# Under emulation the READ takes seconds; once, in a guest that shared
	# the host's two CPUs with another, it took ten minutes.  A response
	# the veth drops is answered all the same: the injector never asks
	# again, and counting only sent_packets waited out its 900 s.
	check "the target answers all $npkts packets of the peer's READ" \
		wait_or_report 900 answered_above "$TDEV" $((sent + npkts - 1))
	rdma statistic show link "$TDEV/1"
	check "every forged request is counted as rcv_wrong_peer" \
		wait_for 10 counter_is "$TDEV" rcv_wrong_peer $((wrong + flood))
	check "no packet is dropped for a full queue (rcv_qp_dropped)" \
		counter_is "$TDEV" rcv_qp_dropped "$dropped"
	check "the target stays in RTS (3)" target_gives state state=3
	target_stop
fi

# The peer resends a request the target will refuse (a READ whose rkey is
# wrong), and the copies queue behind a READ of 1 MiB the target is busy
# answering.  The first copy fails the QP; a QP in ERR executes nothing
# more, so the others must not be refused again (each would send another
# NAK and count another error on a completion counter).
if target_start; then
	copies=8 len=$((1 << 20))
	next=$(((rq_psn + len / 1024) & 0xffffff))
	errors=$(hw_counter "$TDEV" remote_access_errors)
	run "inject a READ of $len bytes, then $copies READs with a wrong rkey at PSN $next" 60 \
		"${inject_cmd[@]}" "$FAR_IP" "$NEAR_IP" read_then "$qpn" \
		"$rq_psn" "$va" "$rkey" "$len" "$next" "$copies"
	check "the target refuses the first copy" \
		wait_or_report 900 counter_above "$TDEV" remote_access_errors "$errors"
	check "and fails the QP with IBV_EVENT_QP_ACCESS_ERR" \
		target_gives 'event 10000' event=3
	sleep 2
	check "a QP in ERR refuses none of the other $copies copies" \
		test "$(hw_counter "$TDEV" remote_access_errors)" = $((errors + 1))
	target_stop
fi

# A taken port: "rdma link add" fails with EADDRINUSE and says where.
holder=$(mktemp)
$IP netns exec peer /usr/bin/python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 4791))
open(sys.argv[1], "w").write("bound")
time.sleep(120)' "$holder" &
hpid=$!
if wait_for 20 test -s "$holder"; then
	out=$($IP netns exec peer rdma link add "$PDEV" type rxc netdev "$FAR" 2>&1) && rc=0 || rc=$?
	echo "$out"
	check "link add fails when UDP/4791 is taken" test "$rc" -ne 0
	check "the error is EADDRINUSE" grep -q "Address already in use" <<<"$out"
	check "dmesg names the namespace" \
		sh -c "dmesg | grep -q 'rxc6: UDP port 4791 is already in use in network namespace'"
	check "no device left behind" gone "$PDEV"
else
	fail "hold UDP/4791 in peer" "the holder never bound"
fi
kill "$hpid" 2>/dev/null || true
wait "$hpid" 2>/dev/null || true
rm -f "$holder"

# Devices in two namespaces each get their namespace's sockets.
run "rdma link add $PDEV inside peer" 30 \
	$IP netns exec peer rdma link add "$PDEV" type rxc netdev "$FAR"
check "peer has its own UDP/4791" listening peer
check "the initial namespace keeps its own" listening

# A netdev that moves to another namespace takes its device along, and
# the device's namespace loses its sockets with its last device.
run "move $FAR out of peer" 30 $IP -n peer link set "$FAR" netns 1
check "$PDEV removed when $FAR left its namespace" wait_for 30 gone "$PDEV"
check "peer's UDP/4791 closed with its last device" \
	wait_for 10 sh -c "! $IP netns exec peer ss -Huln 'sport = :4791' | grep -q ."
check "the initial namespace's sockets stay for $TDEV" listening
run "$FAR back into peer" 30 $IP link set "$FAR" netns peer
run "rdma link add $PDEV inside peer again" 30 \
	$IP netns exec peer rdma link add "$PDEV" type rxc netdev "$FAR"
check "peer has its UDP/4791 again" listening peer

# Deleting the namespace destroys veth5 and with it its peer veth4: both
# devices go.
run "delete namespace peer" 60 $IP netns delete peer
check "$PDEV removed with its namespace" wait_for 30 gone "$PDEV"
check "$TDEV removed with its veth peer" wait_for 30 gone "$TDEV"
