#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Liveness under a slow or hostile peer (Documentation/liveness.rst).
# Each scenario runs the liveness tool (tests/verbs/tools/liveness.c)
# between two namespaces (lib.sh peer_up): the client posts random RC
# work on several QPs with counters attached, while the server's end
# misbehaves for a while, and the tool checks that every request
# completes or fails within the stated bound once the peer behaves
# again (or, when it vanishes, that each QP fails with RETRY_EXC_ERR
# within the bound and flushes the rest), and that the counters equal
# what the CQs showed.  The misbehaviour:
#   netem   delay, loss, duplicates, reordering of the server's RoCE
#           packets (ACKs, NAKs, read and atomic responses) for SECS;
#   stop    the server's RoCE packets all dropped for SECS, then not;
#   sigstop the server process stopped for SECS: its receives run out,
#           and its QPs answer the SENDs with RNR NAKs;
#   nak     sequence NAKs (ARG seq) or RNR NAKs (ARG rnr) forged from the
#           server's address for SECS (roce_nak.py);
#   vanish  the server's RoCE packets dropped for good (ARG loss), or the
#           server killed and its device deleted (ARG del), after 1 s;
#   stale   the server killed and its device deleted after 1 s, and from
#           then on for SECS an ACK that acknowledges nothing new forged
#           in its name for every request (roce_nak.py ack): answers
#           without progress, which must not keep the QP from failing.
# Only RoCE (UDP) is touched: the tool's TCP rendezvous goes
# on.  Each scenario also proves its misbehaviour happened (a counter of
# the client's that must move, or packets netem handled; on the debug
# kernel, too slow for some of it to show in time, this is said, not
# judged) and reports the longest NET_RX softirq (hist triggers on
# softirq_entry/exit, vec 3) while it ran (LIVENESS_SEEDS: one figure
# for the whole run).  That figure is checked
# against LIVENESS_SOFTIRQ_MS only when it is set: under TCG on a busy
# host one softirq alone was seen to run from 8 to 245 ms (the host
# takes the vCPU away), so by default it is reported, not judged.
#
# The fast tier runs the smoke (five rows and the self-tests, 1 MiB at
# most, 210 s on 6.1 at a load average of 8), and so does the debug
# kernel in --full, with fewer requests; the full tier on the stock kernels all rows with two
# seeds, up to 16 MiB and up to 64 KiB.  LIVENESS_SEEDS=N (with LIVENESS_FIRST, default 1) runs N
# scenarios instead, row (seed % rows) with each seed, LIVENESS_LANES
# (default 1) of them at once, each on a namespace pair of its own: the
# long run (vm/liveness-long.sh).  LIVENESS_ONLY="ROW[:SEED]..." runs those rows
# (from 0) with those seeds, or seeds from LIVENESS_FIRST on, and
# LIVENESS_EXTRA adds liveness options to every row: a reproducer.
#
# rxc only: rdma_rxe 6.1 has no namespace support.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=liveness
LIVE=${RXC_REPO:-/nonexistent}/build/tests/tools/liveness
LOGS=$RESULTS/liveness

skip_unless_peer_xfer "liveness under a hostile peer" && exit 0
if [ ! -x "$LIVE" ]; then
	skip "liveness under a hostile peer" "liveness not built: $LIVE"
	exit 0
fi
mkdir -p "$LOGS"

# The server's end of the pair and the client's address: peer_up's, or a
# lane's (lane_up).
SRV_NET=veth1 CLI_IP=$IPADDR

# roce_netem on ARGS | change ARGS | off: netem ARGS on the RoCE packets
# the server sends (SRV_NET's egress, in its namespace) and on nothing
# else: a prio qdisc whose third band holds the netem, and a u32 filter
# that sends UDP there (RoCEv2 is the only UDP between the two).  A
# match on port 4791 let most of a transfer's packets by in some runs
# (netem saw none of 1971), so the filter looks at the IP header only.
roce_netem() {
	local op=$1
	shift
	case $op in
	on)
		modprobe -a sch_prio sch_netem cls_u32 2>/dev/null || true
		"${SRV[@]}" $TC qdisc add dev "$SRV_NET" root handle 1: prio &&
			"${SRV[@]}" $TC qdisc add dev "$SRV_NET" parent 1:3 handle 30: netem "$@" &&
			"${SRV[@]}" $TC filter add dev "$SRV_NET" parent 1: protocol ip u32 \
				match ip protocol 17 0xff flowid 1:3 ;;
	change) "${SRV[@]}" $TC qdisc change dev "$SRV_NET" parent 1:3 handle 30: netem "$@" ;;
	off) "${SRV[@]}" $TC qdisc del dev "$SRV_NET" root 2>/dev/null || true ;;
	esac
}
# netem_handled: packets the netem band sent, plus those it dropped.
netem_handled() {
	"${SRV[@]}" $TC -s qdisc show dev "$SRV_NET" |
		awk '/^qdisc netem 30:/ { f = 1 } f && /Sent/ {
			gsub(/[(),]/, " ")
			for (i = 2; i <= NF; i++) {
				if ($i == "pkt") n += $(i - 1)
				if ($i == "dropped") n += $(i + 1)
			}
			print n + 0; exit
		}'
}

# The longest NET_RX softirq, from tracefs; nothing where it is missing.
# The kernel measures it itself, in two hist triggers: softirq_entry
# keeps each CPU's start, softirq_exit the longest since on each CPU.
# Formatting the events' text and reading it back took 6 s of a 15 s
# scenario under TCG; a histogram costs two lines a CPU.  softirq_trace
# on switches the two events on once for the whole group and off at its
# end: switching a tracepoint patches the kernel's text (an int3 on every
# CPU), and a guest once hung in softirqs for minutes with its NMI
# backtraces on that int3 in handle_softirqs, when every scenario
# switched them.  A trigger on an event that is already on patches
# nothing, so a measurement adds its two and removes them.  The ring
# buffer stays off: a trigger sees its events without it.  Lanes share
# the triggers: there run_lanes measures all of them at once, and a
# scenario leaves them alone (SOFTIRQ_SHARED=1).
TRACE=/sys/kernel/tracing
SOFTIRQ_SHARED=0
SOFTIRQ_START='hist:keys=common_cpu:ts0=common_timestamp.usecs if vec == 3'
# shellcheck disable=SC2016 # $ts0 and $lat are the trigger's variables
SOFTIRQ_LONGEST='hist:keys=common_cpu:lat=common_timestamp.usecs-$ts0:onmax($lat).save(vec) if vec == 3'
softirq_trace() {
	local e v=0
	[ "$1" = off ] || v=1
	[ -d "$TRACE/events/irq" ] || mount -t tracefs nodev "$TRACE" 2>/dev/null || return 0
	[ -e "$TRACE/events/irq/softirq_exit/hist" ] || return 0
	echo 0 >"$TRACE/tracing_on"
	for e in softirq_entry softirq_exit; do
		[ "$v" = 0 ] || echo 'vec == 3' >"$TRACE/events/irq/$e/filter"
		echo "$v" >"$TRACE/events/irq/$e/enable"
	done
}
softirq_start() {
	[ "$SOFTIRQ_SHARED" = 0 ] || return 0
	[ -e "$TRACE/events/irq/softirq_exit/hist" ] || return 0
	echo "$SOFTIRQ_START" >>"$TRACE/events/irq/softirq_entry/trigger"
	echo "$SOFTIRQ_LONGEST" >>"$TRACE/events/irq/softirq_exit/trigger"
}
# softirq_stop: the longest, in microseconds, and how many ran.  The
# exit's trigger goes first: it reads the entry's variable.
softirq_stop() {
	[ "$SOFTIRQ_SHARED" = 0 ] || { echo "- 0"; return 0; }
	[ -e "$TRACE/events/irq/softirq_exit/hist" ] || { echo "- 0"; return 0; }
	awk '$5 == "hitcount:" { n += $6 }
		$1 == "max:" && $2 > max { max = $2 }
		END { printf "%d %d\n", max, n }' "$TRACE/events/irq/softirq_exit/hist"
	echo "!$SOFTIRQ_LONGEST" >>"$TRACE/events/irq/softirq_exit/trigger"
	echo "!$SOFTIRQ_START" >>"$TRACE/events/irq/softirq_entry/trigger"
}

# The actions: each starts when the client does, and ends the peer's
# misbehaviour within SECS plus a little, then tells the client (SIGUSR1:
# the deadlines count from then on; the tool's -H is only a backstop)
# and says when ("ended at" the epoch).  Every scenario starts with the
# netem in place and doing nothing (scenario()): under TCG on a busy host
# each tc run can take a second, and three of them before the
# misbehaviour began once let a whole scenario go by untouched.  The
# netem ones say how many packets their netem handled meanwhile.
SPID='' SRV_PID='' CLI_PID=''
ended() {
	kill -USR1 "$CLI_PID" 2>/dev/null || true
	echo "ended at $(date +%s.%N)"
}
act_netem() {
	local before
	# shellcheck disable=SC2086 # netem arguments, split on purpose
	roce_netem change $1
	before=$(netem_handled)
	sleep "$2"
	echo "netem handled $(($(netem_handled) - before))"
	roce_netem off
	ended
}
act_stop() {
	local before
	sleep 0.5
	roce_netem change loss 100%
	before=$(netem_handled)
	sleep "$2"
	echo "netem handled $(($(netem_handled) - before))"
	roce_netem off
	ended
}
act_sigstop() {
	sleep 0.5
	kill -STOP "$SRV_PID"
	sleep "$2"
	kill -CONT "$SRV_PID"
	ended
}
act_nak() {
	"${SRV[@]}" timeout -k 2 $(($2 + 10)) python3 "$here/roce_nak.py" "$SRV_NET" \
		"$SRV_IP" "$CLI_IP" "$1" "$2" "$QPN_MAP" || true
	ended
}
act_vanish() {
	sleep 1
	if [ "$1" = del ]; then
		kill -KILL "$SRV_PID"
		"${SRV[@]}" rdma link delete "$SRV_DEV"
	else
		roce_netem change loss 100%
	fi
	ended
}
# The forger starts with the traffic, and the peer vanishes once it
# watches (python takes seconds to start on a busy guest, and a QP whose
# peer vanished fails in a few), so the ACK it repeats names the PSN
# before the first request it saw.
act_stale() {
	# seed: the scenario's (scenario() runs this action in its child).
	local fpid flog=$LOGS/$seed-forger.log
	"${SRV[@]}" timeout -k 2 $(($2 + 30)) python3 "$here/roce_nak.py" "$SRV_NET" \
		"$SRV_IP" "$CLI_IP" "$1" $(($2 + 1)) "$QPN_MAP" >"$flog" 2>&1 &
	fpid=$!
	wait_for 20 grep -q listening "$flog" || echo "the forger is not listening yet"
	sleep 1
	kill -KILL "$SRV_PID"
	"${SRV[@]}" rdma link delete "$SRV_DEV"
	ended
	wait "$fpid" || true
	cat "$flog"
}
# After a vanish: the link's netem off, the device back.
vanish_undo() {
	roce_netem off
	[ "$1" != loss ] || return 0
	"${SRV[@]}" rdma link show "$SRV_DEV" >/dev/null 2>&1 ||
		"${SRV[@]}" rdma link add "$SRV_DEV" type rxc netdev "$SRV_NET"
	wait_for 20 sh -c "grep -q ACTIVE /sys/class/infiniband/$SRV_DEV/ports/1/state" &&
		wait_for 20 gid_index_of "$SRV_DEV" "$SRV_IP"
}
# The tool's backstop for the end of the misbehaviour (-H): SIGUSR1
# comes first unless the guest is very slow.  An action runs up to five
# tc commands, and on a host with a load of ten each took up to 2 s.
# The stale action first waits up to 20 s for its forger to listen.  On
# the debug kernel the misbehaviour was seen to end 19 to 26 s after its
# start where it lasts 2 to 3 s, so there the slack is four times as
# large.  A later backstop only waits longer for SIGUSR1: the deadlines
# count from whichever comes first.
hostile_end() {
	local slack=15

	[ "$SLOW" -eq 1 ] || slack=60
	case $1 in
	stale) echo $(($2 + slack + 20)) ;;
	*) echo $(($2 + slack)) ;;
	esac
}

# scenario NAME SEED MODE ACTION ARG SECS MOVES [liveness options...]
# MOVES: the client's port counter that must move ("-": none; "netem":
# packets through the netem band instead).  With EXPECT set, the client
# must instead fail (exit status 1) and print EXPECT: the checks' own
# tests.
PORT=19900
SOFTIRQ_MAX=0
scenario() {
	local name=$1 seed=$2 mode=$3 act=$4 arg=$5 secs=$6 moves=$7
	local so co crc=0 src=0 apid why='' h t sq sqn cpid seen end
	shift 7
	so=$LOGS/$seed-srv.log co=$LOGS/$seed-cli.log
	h=$(hostile_end "$act" "$secs")
	t=$((120 * SLOW))
	local -A moved=()
	counters_snap moved "$CLI_DEV" retransmits retransmit_timeouts \
		retransmit_probes seq_naks_rcvd rnr_naks_rcvd retry_exceeded \
		rcv_qp_dropped responders_behind far_probes
	# The server's side of a recovery: requests it answered again, and
	# all it sent (a vanished one's device may be gone by the end).
	[ "$mode" = vanish ] ||
		counters_snap moved "$SRV_DEV" rcv_duplicates sent_packets
	echo "+ [$seed] $name: $mode, $act $arg for $secs s"
	roce_netem off
	roce_netem on || why="cannot put netem on $SRV_NET"
	timeout -k 5 "$t" "${SRV[@]}" "$LIVE" -d "$SRV_DEV" -g "$SRV_GID" -p "$PORT" \
		>"$so" 2>&1 &
	SPID=$!
	wait_for 20 sh -c "${SRV[*]} ss -Hltn 'sport = :$PORT' | grep -q ." ||
		echo "# server is not listening on $PORT yet"
	# timeout's child, the server itself: the one to stop or kill (ip
	# netns exec replaced itself with it).
	SRV_PID=$(pgrep -P "$SPID" || echo "$SPID")
	softirq_start
	# The debug kernel runs ten times slower: so does everything the
	# bound allows for, a round trip included (1 s, unless the row names
	# its own: the self-tests' tight bounds stay tight).
	[ "$SLOW" -eq 1 ] || set -- -R 1000 "$@"
	timeout -k 5 "$t" "$LIVE" -d "$CLI_DEV" -g "$CLI_GID" -p "$PORT" -S "$seed" \
		-m "$mode" -H "$h" -T $((t - 10)) -B $((1000 * SLOW)) \
		-F $((1000 * SLOW)) "$@" "$SRV_IP" >"$co" 2>&1 &
	cpid=$!
	if wait_for 60 grep -q '^liveness: seed' "$co"; then
		seen=$(date +%s.%N)
		CLI_PID=$(pgrep -P "$cpid" || echo "$cpid")
		QPN_MAP=$(sed -n 's/^liveness: server QP [0-9]*: qpn \(0x[0-9a-f]*\) peer \(0x[0-9a-f]*\)$/\1:\2/p' "$so" |
			sed 's/0x//g' | paste -sd,)
		"act_$act" "$arg" "$secs" >"$co.act" 2>&1 &
		apid=$!
	else
		apid=
	fi
	wait "$cpid" || crc=$?
	[ -z "$apid" ] || wait "$apid" || true
	read -r sq sqn <<<"$(softirq_stop)"
	if [ "$mode" = vanish ]; then
		vanish_undo "$arg" || why="the peer's device did not come back"
		kill "$SPID" 2>/dev/null || true
		wait "$SPID" 2>/dev/null || true
	else
		[ "$crc" -eq 0 ] || kill -CONT "$SRV_PID" 2>/dev/null || true
		[ "$crc" -eq 0 ] || kill "$SRV_PID" 2>/dev/null || true
		wait "$SPID" || src=$?
	fi
	counters_delta moved
	counters_show moved moved | sed "s/^/# $seed: /"
	end=$(sed -n 's/^ended at //p' "$co.act" 2>/dev/null)
	if [ -n "$why" ]; then
		:
	elif [ -z "$apid" ]; then
		why="the client never started"
	elif [ -z "$end" ] ||
		awk "BEGIN { exit !($end > $seen + $h) }"; then
		# The deadlines took -H for granted: nothing else is sure.
		why="the misbehaviour ended ${end:+$(awk "BEGIN { print $end - $seen }") s after the start, }past -H $h (a slow guest)"
	elif [ -n "${EXPECT:-}" ]; then
		# A self-test: the client must fail, and say the expected thing.
		[ "$crc" -eq 1 ] && grep -q "$EXPECT" "$co" ||
			why="the client was to fail with '$EXPECT'; exit status $crc"
	elif [ "$crc" -eq 124 ]; then
		why="client timed out after ${t}s"
	elif [ "$crc" -ne 0 ]; then
		why="client exit status $crc"
	elif [ "$src" -ne 0 ]; then
		why="server exit status $src"
	elif grep -q 'fell behind a lie' "$co" &&
		[ "${moved[$CLI_DEV/responders_behind]:-0}" -le 0 ]; then
		why="a QP failed, but no responder was seen behind what was acknowledged (responders_behind)"
	elif [ "$moves" = netem ] &&
		! grep -q '^netem handled [1-9]' "$co.act"; then
		why="no packet went through netem: the peer's misbehaviour did not show"
	elif [ "$moves" != - ] && [ "$moves" != netem ] &&
		[ "${moved[$CLI_DEV/$moves]:-0}" -le 0 ]; then
		why="$moves did not move: the peer's misbehaviour did not show"
	fi
	# The debug kernel is too slow for some misbehaviour to show within
	# its time (roce_nak.py still starting, too few sends to use up the
	# receives): there it is said, not judged.
	if [ "$SLOW" -gt 1 ] && [[ $why == *"did not show" ]]; then
		echo "# $seed: $why (not judged on the debug kernel)"
		why=''
	fi
	echo "# $seed: longest NET_RX softirq ${sq} us of $sqn"
	[ "$sq" = - ] || [ "$sq" -le "$SOFTIRQ_MAX" ] || SOFTIRQ_MAX=$sq
	if [ -z "$why" ]; then
		grep '^liveness: seed .*requests (' "$co" || true
		pass "seed $seed: $name"
	else
		echo "--- server ($so)"; tail -n 20 "$so"
		echo "--- client ($co)"; tail -n 40 "$co"
		echo "--- action ($co.act)"; tail -n 5 "$co.act"
		fail "seed $seed: $name" "$why"
	fi
	if [ -n "${LIVENESS_SOFTIRQ_MS:-}" ] && [ "$sq" != - ]; then
		check "seed $seed: no NET_RX softirq over ${LIVENESS_SOFTIRQ_MS} ms" \
			test "$sq" -le $((LIVENESS_SOFTIRQ_MS * 1000))
	fi
	PORT=$((PORT + 1))
}

# The scenarios.  NAME | MODE | ACTION | ARG | SECS | MOVES | OPTIONS.
# -L where NAKs are forged: one may acknowledge what the responder never
# got (roce_nak.py), and that QP then fails, within its longer bound, as
# long as the client saw a responder behind (responders_behind, checked
# above; a device counter, so one QP's vouches for all).
# -R is the longest round trip the row's misbehaviour can cause (its
# delay and jitter, plus 100 ms for an emulated CPU's queues); -c the
# retry count (7: forever, so that a behaving peer must see everything
# succeed); -t the timeout exponent (12: 16.8 ms, taken as 20 ms).  A
# stopped server shows only once the client's sends use up the WINDOW
# receives it keeps posted: with 16 MiB transfers a seed posted too few
# sends in 2 s for that (seed 4 on 7.3), so that row keeps to 64 KiB
# (a later -s wins) at a rate that posts hundreds.
rows=(
	"answers delayed, jittered, reordered, duplicated and lost|behave|netem|delay 20ms 10ms reorder 25% duplicate 10% loss 5%|3|retransmits|-R 140"
	"the server's link stopped for 2 s|behave|stop||2|retransmit_probes|-t 14"
	"forged sequence NAKs for 3 s|behave|nak|seq|3|seq_naks_rcvd|-L"
	"the server process stopped for 2 s|behave|sigstop||2|rnr_naks_rcvd|-s 65536"
	"the peer vanishes (its RoCE dropped for good)|vanish|vanish|loss|1|retry_exceeded|-c 2 -t 12"
	"the peer vanishes (killed, its device deleted)|vanish|vanish|del|1|retry_exceeded|-c 3 -t 14"
	"forged RNR NAKs for 3 s|behave|nak|rnr|3|rnr_naks_rcvd|-N -L"
	"answers held back by 300 ms for 3 s|behave|netem|delay 300ms|3|netem|-R 400"
	"30% of the answers lost for 3 s|behave|netem|loss 30%|3|retransmits|"
	"the server's link stopped for 2 s, timeout 1 s|behave|stop||2|retransmit_timeouts|-t 18"
	"answers duplicated and reordered for 3 s|behave|netem|delay 5ms reorder 50% duplicate 50%|3|netem|-R 110"
	"the peer vanishes, one retry, 67 ms timeout|vanish|vanish|loss|1|retry_exceeded|-c 1 -t 14"
	"the peer vanishes, an old ACK forged in its name for 12 s|vanish|stale|ack|12|retry_exceeded|-c 2 -t 14 -s 4096"
)
# The smoke: these rows, one of each kind of misbehaviour (row 12's peer
# vanishes as rows 4 and 5 do, and forges ACKs on top).
smoke=(0 1 2 3 12)
# The checks' own tests, in both tiers: each must fail, and does.  A
# bound that pretends the peer behaved all along (-H 0, no slack) must
# find requests late across a 2 s stop; a counter one off must be seen.
selftests=(
	"self-test: a 2 s stop is late for a bound that ignores it|LATE|behave|stop||2|-|-H 0 -R 1 -B 0 -F 0 -n 5000"
	"self-test: a counter one off is caught|counter [0-9]*/[0-9]* errors, the CQ showed|behave|netem|delay 1ms|1|netem|-K"
)

trap 'roce_netem off; softirq_trace off; peer_cleanup' EXIT
peer_up
softirq_trace on

# run_row INDEX SEED SIZE OPS: one row with one seed.
run_row() {
	local name mode act arg secs moves opts
	IFS='|' read -r name mode act arg secs moves opts <<<"${rows[$1]}"
	EXPECT=''
	# OPS is a floor: behave posts on until the hostile time ends,
	# vanish until the QP fails.
	# shellcheck disable=SC2086 # options, split on purpose
	scenario "$name" "$2" "$mode" "$act" "$arg" "$secs" "$moves" \
		-q 4 -s "$3" -n "$4" $opts ${LIVENESS_EXTRA:-}
}

# run_selftests SEED: each self-test once.
run_selftests() {
	local name mode act arg secs moves opts i
	for ((i = 0; i < ${#selftests[@]}; i++)); do
		IFS='|' read -r name EXPECT mode act arg secs moves opts <<<"${selftests[$i]}"
		# shellcheck disable=SC2086 # options, split on purpose
		scenario "$name" $(($1 + i)) "$mode" "$act" "$arg" "$secs" "$moves" \
			-q 2 -s 65536 -n 20 $opts
	done
	EXPECT=''
}

# lane_up L: lane L's own pair, as peer_up's but with names and
# addresses of its own (veth lvLc/lvLs, devices lnLc/lnLs, namespace
# laneL, 10.78.L.0/24), and the scenario's globals pointed at it.
lane_up() {
	local l=$1
	SRV_NET=lv${l}s SRV_DEV=ln${l}s CLI_DEV=ln${l}c
	CLI_IP=10.78.$l.1 SRV_IP=10.78.$l.2
	run "lane $l: veth pair" 30 /usr/sbin/ip link add "lv${l}c" type veth peer name "$SRV_NET"
	run "lane $l: $CLI_IP up" 30 /usr/sbin/ip addr add "$CLI_IP/24" dev "lv${l}c"
	run "lane $l: lv${l}c up" 30 /usr/sbin/ip link set "lv${l}c" up
	run "lane $l: rdma link add $CLI_DEV" 60 rdma link add "$CLI_DEV" type rxc netdev "lv${l}c"
	# The devices show in every namespace (rdma's shared mode), as
	# peer_up's do.
	check "lane $l: $CLI_DEV has a GID for $CLI_IP" wait_for 20 \
		gid_index_of "$CLI_DEV" "$CLI_IP"
	CLI_GID=$(gid_index_of "$CLI_DEV" "$CLI_IP" || echo 1)
	far_end_up "lane $l" "lane$l" "$SRV_NET" "$SRV_IP" "$SRV_DEV"
}
lane_down() {
	"${SRV[@]}" rdma link delete "$SRV_DEV" 2>/dev/null || true
	rdma link delete "$CLI_DEV" 2>/dev/null || true
	/usr/sbin/ip link delete "lv${1}c" 2>/dev/null || true
	/usr/sbin/ip netns delete "lane$1" 2>/dev/null || true
}

# run_lanes LANES FIRST COUNT SIZE: COUNT scenarios from seed FIRST, LANES
# of them at once, each lane on a pair of its own (lane 0 on peer_up's):
# lane L takes seeds FIRST+L, FIRST+L+LANES, ...  Each lane's output
# goes to its log, and into the guest's log once all are done.  A lane
# that dies (set -e) fails, and takes its pair down with it.  The longest
# NET_RX softirq is measured once for all lanes: each lane is a subshell,
# whose figures would never reach the group's SOFTIRQ_MAX.
run_lanes() {
	local lanes=$1 from=$2 count=$3 size=$4 l s sq sqn pids=()
	if ! [[ $lanes =~ ^[1-9][0-9]*$ ]]; then
		fail "lanes" "LIVENESS_LANES=$lanes: 1 or more"
		return 0
	fi
	SOFTIRQ_SHARED=0 softirq_start
	SOFTIRQ_SHARED=1
	for ((l = 0; l < lanes; l++)); do
		(
			if [ "$l" != 0 ]; then
				trap 'lane_down $l' EXIT
				lane_up "$l"
			fi
			for ((s = from + l; s < from + count; s += lanes)); do
				run_row $((s % ${#rows[@]})) "$s" "$size" 60
			done
		) >"$LOGS/lane-$l.log" 2>&1 &
		pids+=($!)
	done
	for ((l = 0; l < lanes; l++)); do
		wait "${pids[l]}" || fail "lane $l" "exit status $?: its log is $LOGS/lane-$l.log"
	done
	cat "$LOGS"/lane-*.log
	read -r sq sqn <<<"$(SOFTIRQ_SHARED=0 softirq_stop)"
	echo "# lanes: longest NET_RX softirq ${sq} us of $sqn"
	[ "$sq" = - ] || SOFTIRQ_MAX=$sq
	if [ -n "${LIVENESS_SOFTIRQ_MS:-}" ]; then
		check "lanes: no NET_RX softirq over ${LIVENESS_SOFTIRQ_MS} ms" \
			test "$SOFTIRQ_MAX" -le $((LIVENESS_SOFTIRQ_MS * 1000))
	fi
}

first=${LIVENESS_FIRST:-1}
if [ -n "${LIVENESS_ONLY:-}" ]; then
	# A reproducer: these rows with seed FIRST, LIVENESS_EXTRA added.
	# ROW or ROW:SEED; a ROW alone takes the next seed from FIRST on.
	n=0
	for spec in $LIVENESS_ONLY; do
		seed=$((first + n))
		[ "$spec" = "${spec%%:*}" ] || seed=${spec#*:}
		run_row "${spec%%:*}" "$seed" "${LIVENESS_SIZE:-1048576}" 40
		n=$((n + 1))
	done
elif [ -n "${LIVENESS_SEEDS:-}" ]; then
	run_lanes "${LIVENESS_LANES:-1}" "$first" "$LIVENESS_SEEDS" "${LIVENESS_SIZE:-4194304}"
elif [ "$RXC_TIER" = fast ] || [ "$SLOW" -gt 1 ]; then
	for i in "${smoke[@]}"; do
		run_row "$i" $((first + i)) $((1 << 20)) "$(by_kernel 40 10)"
	done
	run_selftests $((first + 1000))
else
	for ((i = 0; i < ${#rows[@]}; i++)); do
		run_row "$i" $((first + i)) $((16 << 20)) 100
		run_row "$i" $((first + 100 + i)) 65536 200
	done
	run_selftests $((first + 1000))
fi
echo "# liveness: the longest NET_RX softirq of all scenarios: $SOFTIRQ_MAX us"

peer_down
