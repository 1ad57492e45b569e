#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Guest side of bench/run.sh --wire, run by both guests of vm/run-pair.sh:
# two hosts on one virtio link.  Guest a is the requester of every run,
# guest b the responder; a writes the figures to $RESULTS/bench.log in
# bench/guest.sh's format, with mode=wire.
#
# Each round: the link's own TCP throughput (iperf3) at MTU 1500 and
# 9000, and with frames of a RoCE packet's size at each path MTU (see
# roce_frame_mtu), then rdma_rxe and rxc in turn (rxc first in even
# rounds, bench/order.sh), both ends the same driver: after a short
# unmeasured run of each operation (warm_up), write,
# read and send at 8 B, 4 KiB and 64 KiB at path MTU 1024 (1500-byte
# link) and 4096 (9000-byte link), the 64 KiB write again with its
# requester asleep (sleeping_writes), the round trips of send/recv, RDMA
# write and RDMA read (round_trips), 1, 4 and 16 QPs, UD and the counter
# tests.  After the rounds, rc_xfer checks every byte of 64 KiB
# sends, writes and reads between the two rxc devices at both path MTUs
# (xfers), then the middleware, once per pairing of
# drivers (a-b): rxe-rxe for reference, rxc-rxc, rxc-rxe and rxe-rxc:
# UCX's ucx_perftest and libfabric's fi_pingpong (verbs and verbs;ofi_rxm).
#
# BENCH_PAIRS (default "rxe rxc") names the rounds' pairings of drivers:
# a driver's name puts it at both ends, "A-B" puts A on guest a (the
# requester) and B on guest b, so that rxc-rxe and rxe-rxc tell which
# end of a transfer a gap between the drivers lies at.
#
# BENCH_SMOKE=1 (CI) divides every count by 100 and runs a few tests of
# each kind, on rxc only, and the middleware rxc-rxc and rxc-rxe only,
# once; its figures mean nothing.  Otherwise the middleware runs
# BENCH_MW_ROUNDS times (default BENCH_ROUNDS), its pairings in each
# round's order, so that its figures are medians too.
# BENCH_TRANSFERS=1 runs the write, read and send transfers alone,
# without the middleware, then the 8-byte writes on the QP counts
# BENCH_QPS names and the round trips of the sizes
# BENCH_LATS names, if they name any.  BENCH_EVENTS=1 has the
# transfers' requester sleep on its CQ's channel while its windows are
# full (rxc_bench -e) instead of spinning.
#
# Every rxc_bench run's log ends with what the port counters of its side
# counted meanwhile ("# port counters:", those that moved): retransmits,
# sequence NAKs and timeouts on the requester, duplicates on the
# responder.
#
# BENCH_PROFILE=1 runs each rxc_bench under perf record -a in both
# guests and leaves perf-DRV-STEP{.txt,.callers.txt,.children.txt} in
# each guest's results (bench/perf-report.sh); its figures are slowed by
# the sampling and compare only with each other.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../tests/guest/lib.sh
. "$here/../tests/guest/lib.sh"
# shellcheck source=../tests/guest/wire.sh
. "$here/../tests/guest/wire.sh"
# shellcheck source=counters.sh
. "$here/counters.sh"
# shellcheck source=perf-report.sh
. "$here/perf-report.sh"
# shellcheck source=order.sh
. "$here/order.sh"
SUITE=wire
BIN=${RXC_REPO:-$here/..}/build/bench/rxc_bench
XFER=${RXC_REPO:-$here/..}/build/tests/tools/rc_xfer
LOG=$RESULTS/bench.log
ROUNDS=${BENCH_ROUNDS:-3}
SMOKE=${BENCH_SMOKE:-0}
MW_ROUNDS=${BENCH_MW_ROUNDS:-$ROUNDS}
[ "$SMOKE" = 0 ] || MW_ROUNDS=1
TRANSFERS=${BENCH_TRANSFERS:-0}
PROFILE=${BENCH_PROFILE:-0}
EVENTS=${BENCH_EVENTS:-0}
DIV=1
# What each round measures: path MTU:link MTU pairs, transfer operations
# and sizes, QP counts, counter and wake-up tests.  The smoke takes a few
# of each.  BENCH_MTUS, BENCH_OPS and BENCH_SIZES narrow the transfers,
# to look at one of them more closely (BENCH_OPS=none: no transfer),
# BENCH_QPS the QP counts and BENCH_LATS the round trips' sizes.
MTUS=${BENCH_MTUS:-"1024:1500 4096:9000"} OPS=${BENCH_OPS:-"write read send"}
SIZES=${BENCH_SIZES:-"8 4096 65536"} QPS=${BENCH_QPS:-"1 4 16"}
LATS=${BENCH_LATS:-"8 4096"}
CNTRS="cntr_unsig cntr_base cntr_sig cntr_sig cntr_base"
WAKES="wake_wait wake_notify wake_cq"
PAIRS=${BENCH_PAIRS:-"rxe rxc"}
# The smoke checks that rxc runs everything; rdma_rxe's side of the
# bench shows itself in the middleware's rxc-rxe pairing.
if [ "$SMOKE" = 1 ]; then
	DIV=100 MTUS=1024:1500 SIZES="8 65536" QPS=4 LATS=8 PAIRS=rxc
	CNTRS="cntr_unsig cntr_sig" WAKES=wake_wait
fi
: >"$LOG"

n() { local c=$(($1 / DIV)); echo $((c < 5 ? 5 : c)); }
# sized SIZE: a transfer's count, a second or two of traffic on the link.
sized() { n $(($1 < 4096 ? 20000 : $1 < 65536 ? 5000 : 1000)); }
# The port of the next wire_pair: every run gets its own, so that a
# client can never reach a server left over from another run.
next_port() { echo $((19001 + WIRE_STEP)); }

# log_lines DRV ROUND FILE: rxc_bench's figure lines in FILE, for the
# report, with mode=$LOG_MODE (default wire).
log_lines() {
	sed -n "s/^rxc_bench: \\(.*\\) mode=pair /bench: drv=$1 round=$2 rxc_bench: \\1 mode=${LOG_MODE:-wire} /p" \
		"$3" >>"$LOG"
}

# drv_of PAIRING: this guest's driver in PAIRING, a driver's name (both
# ends) or "A-B" (A on guest a, B on guest b).
drv_of() {
	case $1 in
	*-*) if [ "$WIRE_ROLE" = a ]; then echo "${1%-*}"; else echo "${1#*-}"; fi ;;
	*) echo "$1" ;;
	esac
}

# bench_run PAIRING ROUND GID ARGS...: one rxc_bench run across the
# link, on this guest's device of PAIRING (DRV_HERE, which round() set);
# on a, WIRE_OUT names its log afterwards.
bench_run() {
	local pr=$1 r=$2 g=$3 dev=${DRV_HERE}0 p perf=()
	shift 3
	p=$(next_port)
	moved_begin "$dev"
	# perf.data goes to the guest's tmpfs, not over 9p.  No "--" after
	# perf's options: wire_pair splits its commands there.
	[ "$PROFILE" = 0 ] || perf=(perf record -q -a -g -o /tmp/perf.data)
	wire_pair "$pr round $r: $*" 300 - true -- \
		"${perf[@]}" "$BIN" -d "$dev" -g "$g" -S -p "$p" "$@" -- \
		"${perf[@]}" "$BIN" -d "$dev" -g "$g" -C "$WIRE_PEER_IP" -p "$p" "$@"
	moved_end "$dev" >>"$WIRE_OUT"
	if [ "$PROFILE" = 1 ]; then
		echo "== $pr $*, guest $WIRE_ROLE: hottest symbols"
		perf_reports /tmp/perf.data "$RESULTS/perf-$pr-$WIRE_STEP"
	fi
}

# bench_pair PAIRING ROUND GID ARGS...: bench_run, its figures into the
# report.
bench_pair() {
	local pr=$1 r=$2 g=$3
	shift 3
	bench_run "$pr" "$r" "$g" "$@"
	[ "$WIRE_ROLE" = b ] || log_lines "$pr" "$r" "$WIRE_OUT"
}

# warm_up PAIRING ROUND GID: a short run of each transfer operation, whose
# figures go nowhere.  A round loads its driver anew, and the first runs
# after that are slower: rdma_rxe's first 8-byte reads of a round ran up
# to a fifth slower than the same test later in the round (QEMU's TCG
# translating code on its first use is the likeliest cause).  Without
# this, the first test of each round, and of each operation, would
# measure that too.
warm_up() {
	local op
	for op in write read send; do
		bench_run "$1" "$2 (warm-up)" "$3" -t "$op" -s 8 -n "$(n 500)"
	done
}

# roce_frame_mtu PMTU: the netdev MTU whose TCP frames are as long as a
# RoCE packet of a full path MTU's payload: IPv4 (20) + UDP (8) + BTH (12)
# + payload + ICRC (4).  The link moves packets, not bytes, at a cost per
# packet, so TCP at that MTU separates what the frame size costs every
# protocol from what rxc costs.
roce_frame_mtu() { echo $(($1 + 44)); }

# tcp_bw ROUND MTU: the link's TCP throughput at netdev MTU, as the
# figure "tcp" with that MTU.
tcp_bw() {
	local r=$1 p secs=$((SMOKE ? 1 : 5))
	wire_mtu "$2"
	p=$(next_port)
	wire_pair "round $r: TCP at MTU $2 (iperf3)" 60 "$p" true -- \
		iperf3 -s -1 -p "$p" -- iperf3 -c "$WIRE_PEER_IP" -p "$p" -t "$secs" -J
	[ "$WIRE_ROLE" = b ] && return 0
	/usr/bin/python3 -c '
import json, sys
bps = json.load(open(sys.argv[1]))["end"]["sum_received"]["bits_per_second"]
print(f"bench: drv=link round={sys.argv[2]} rxc_bench: tcp size=0 mtu={sys.argv[3]} "
      f"qps=1 window=0 mode=wire bw={bps / 8e6:.6g} MB/s")' "$WIRE_OUT" "$r" "$2" >>"$LOG" ||
		echo "# no figure in iperf3's output"
}

# driver_up DRV TAG: DRV's device ${DRV}0 on the link at both ends;
# prints its GID index.  The barrier TAG follows, whether or not it
# came up, so that both ends go on in step.
driver_up() {
	local g=''
	load_driver "$1" >&2
	g=$(wire_dev_up "$1" "${1}0") || fail "${1}0 on $WIRE_NIC" >&2
	wire_sync "$2" >&2 || true
	echo "$g"
}

# driver_relink DRV GID: DRV's device back on the NIC that wire_relink
# made anew, at the GID index the round's runs were given (its
# WIRE_RELINK_HOOK while the device is up).
driver_relink() {
	local g

	wait_for 30 sh -c "! test -e /sys/class/infiniband/${1}0"
	if ! g=$(wire_dev_up "$1" "${1}0"); then
		fail "${1}0 back on $WIRE_NIC"
		return 1
	fi
	[ "$g" = "$2" ] || { fail "${1}0 back at GID index $2" "now at $g"; return 1; }
}

driver_down() {	# driver_down DRV TAG
	WIRE_RELINK_HOOK=
	wire_sync "$2" || true
	rdma link delete "${1}0" 2>/dev/null || true
	run "rmmod rdma_$1" 60 rmmod "rdma_$1"
}

# transfers PAIRING R GID: write, read and send at every size and path MTU.
transfers() {
	local pr=$1 r=$2 g=$3 op s m ev=()
	[ "$OPS" != none ] || return 0
	[ "$EVENTS" = 0 ] || ev=(-e)
	for m in $MTUS; do
		wire_mtu "${m#*:}"
		for op in $OPS; do
			for s in $SIZES; do
				bench_pair "$pr" "$r" "$g" "${ev[@]}" -t "$op" -s "$s" \
					-m "${m%:*}" -n "$(sized "$s")"
			done
		done
	done
	wire_mtu 1500
}

# sleeping_writes PAIRING R GID: the 64 KiB write at every path MTU
# again, its requester asleep on its CQ's channel (rxc_bench -e), as
# mode=wire_sleep.  iperf3 sleeps in send() while TCP waits for the
# link; a requester that spins instead keeps its vCPU's host thread
# busy, and on a host with two CPUs for both guests that is the time
# the link's QEMU threads lack.  The report measures the write against
# TCP with this figure too, like with like.  Nothing to add when the
# transfers sleep already (BENCH_EVENTS=1), or leave the write out.
sleeping_writes() {
	[ "$EVENTS" = 0 ] && [[ " $OPS " = *" write "* ]] &&
		[[ " $SIZES " = *" 65536 "* ]] || return 0
	LOG_MODE=wire_sleep EVENTS=1 OPS=write SIZES=65536 transfers "$@"
}

# qp_writes PAIRING R GID: 8-byte writes, 16 in flight on each of QPS QPs.
qp_writes() {
	local q
	for q in $QPS; do
		bench_pair "$1" "$2" "$3" -t write -s 8 -q "$q" -w 16 -n "$(sized 8)"
	done
}

# round_trips PAIRING R GID: the send/recv, RDMA write and RDMA read
# ping-pongs of each size in LATS.
round_trips() {
	local s t
	for t in lat lat_write lat_read; do
		for s in $LATS; do
			bench_pair "$1" "$2" "$3" -t "$t" -s "$s" -n "$(n 2000)"
		done
	done
}

# the_rest PAIRING R GID: latency, UD, QP counts, counters and wake-ups.
the_rest() {
	local pr=$1 r=$2 g=$3 t
	round_trips "$pr" "$r" "$g"
	bench_pair "$pr" "$r" "$g" -t ud -s 8 -n "$(sized 8)"
	qp_writes "$pr" "$r" "$g"
	# rdma_rxe has none: its runs say "skipped".  ABBA, as on loopback.
	for t in $CNTRS; do
		bench_pair "$pr" "$r" "$g" -t "$t" -s 8 -n "$(sized 8)"
	done
	for t in $WAKES; do
		bench_pair "$pr" "$r" "$g" -t "$t" -s 8 -n "$(n 300)"
	done
}

wire_dead() { ! wire_alive; }

# relink_check PAIRING R GID (the smoke's first round): the way back from
# a dead link (wire_check_link), on a link killed on purpose at both
# ends: every frame each end sends is dropped, as behind a stalled virtio
# queue.  The NIC's reset makes a new netdev, without that qdisc; the
# round's device must come back on it and carry the next run.
relink_check() {
	wire_sync "cut-$WIRE_STEP" || true
	modprobe sch_netem 2>/dev/null || true	# built in on the debug kernel
	run "every frame $WIRE_NIC sends dropped" 30 \
		"$TC" qdisc add dev "$WIRE_NIC" root netem loss 100%
	check "a link that drops every frame is found dead" wire_dead
	check "the link comes back after a reset of its NIC" wire_relink
	bench_run "$@" -t write -s 8 -n "$(n 500)"
}

# round PAIRING R: every rxc_bench measurement with the drivers of
# PAIRING (the transfers, BENCH_QPS's writes and BENCH_LATS's round trips
# alone with BENCH_TRANSFERS=1).
round() {
	local pr=$1 r=$2 g
	DRV_HERE=$(drv_of "$pr")
	g=$(driver_up "$DRV_HERE" "up-$pr-$r")
	WIRE_RELINK_HOOK="driver_relink $DRV_HERE $g"
	warm_up "$pr" "$r" "$g"
	[ "$SMOKE" = 0 ] || [ "$r" != 1 ] || relink_check "$pr" "$r" "$g"
	transfers "$pr" "$r" "$g"
	sleeping_writes "$pr" "$r" "$g"
	if [ "$TRANSFERS" = 0 ]; then
		the_rest "$pr" "$r" "$g"
	else
		[ -z "${BENCH_QPS:-}" ] || qp_writes "$pr" "$r" "$g"
		[ -z "${BENCH_LATS:-}" ] || round_trips "$pr" "$r" "$g"
	fi
	driver_down "$DRV_HERE" "down-$pr-$r"
}

# xfer_check LOG: rc_xfer found every byte where it belongs.
xfer_check() { grep -q 'all data verified' "$1" || echo "no 'all data verified'"; }

# xfer_set A B OPS: rc_xfer's OPS, 64 KiB messages with every byte
# checked, between driver A on guest a (the client) and B on guest b, at
# both path MTUs.  At 4096, on a 9000-byte link, virtio-net hands rxc each
# packet in two buffers, whose payload rxc places from where it lies
# (drivers/infiniband/sw/rxc/net/rxc_parse.c); no other test sees such
# packets.  An rxc end then checks its port counters: it sent batches
# (rxc_xmit.c), and no packet it got had a wrong ICRC; rdma_rxe drops
# such packets, which fails the transfer.
xfer_set() {
	local pr=$1-$2 drv g m op p mtu args
	drv=$(drv_of "$pr")
	g=$(driver_up "$drv" "xfer-up-$pr")
	for m in 1024:1500 4096:9000; do
		wire_mtu "${m#*:}"
		mtu=${m%:*}
		for op in $3; do
			p=$(next_port)
			args=(-d "${drv}0" -g "$g" -p "$p" -o "$op" -s 65536 -n "$(n 500)" -w 8 -m "$mtu")
			wire_pair "$pr: rc_xfer -o $op -s 65536 -m $mtu, every byte checked" 120 "$p" \
				xfer_check -- "$XFER" "${args[@]}" -- "$XFER" "${args[@]}" "$WIRE_PEER_IP"
		done
	done
	wire_mtu 1500
	if [ "$drv" = rxc ]; then
		check "$pr: rxc0 sent batches of packets" \
			test "$(hw_counter rxc0 sent_batched)" -gt 0
		check "$pr: rxc0 got no packet with a wrong ICRC" \
			test "$(hw_counter rxc0 rcv_icrc_errors)" = 0
	fi
	driver_down "$drv" "xfer-down-$pr"
}

# xfers: every transfer between the two rxc devices; rdma_rxe checks the
# ICRCs of rxc's batched requests (rxc on a, the client) and read
# responses (rxc on b).
xfers() {
	xfer_set rxc rxc "send write read"
	xfer_set rxc rxe write
	xfer_set rxe rxc read
}

# ucx_check LOG, fi_check LOG: the client printed its final figures.
ucx_check() { grep -q '^Final:' "$1" || echo "no 'Final:' line"; }
# fi_pingpong's result row: "bytes #sent #ack total time MB/sec
# usec/xfer Mxfers/sec", counts abbreviated ("2k").
fi_row() { awk '$1 ~ /^[0-9]+$/ && NF == 8' "$1"; }
fi_check() { [ -n "$(fi_row "$1")" ] || echo "no result row"; }

# mw_figure PAIRING TEST KEY VALUE UNIT [SIZE]: one middleware figure
# (8-byte messages unless SIZE says otherwise).
mw_figure() {
	[ -n "$4" ] || return 0
	echo "bench: drv=$1 round=$MW_ROUND rxc_bench: $2 size=${6:-8} mtu=1024 qps=1 window=0 mode=wire $3=$4 $5" >>"$LOG"
}

# ucx PAIRING TEST: one ucx_perftest test; latency tests report their
# average, the others their message rate.
ucx() {
	local pr=$1 t=$2 p dev=${DRV_HERE}0 f
	p=$(next_port)
	# shellcheck disable=SC2046  # ucx_env prints words to split
	wire_pair "$pr round $MW_ROUND: ucx_perftest -t $t" 120 "$p" ucx_check -- \
		$(ucx_env "$dev" 0) ucx_perftest -p "$p" -- \
		$(ucx_env "$dev" 0) ucx_perftest -p "$p" -t "$t" -n "$(n 2000)" "$WIRE_PEER_IP"
	[ "$WIRE_ROLE" = a ] || return 0
	case $t in
	*_lat) f=$(awk '/^Final:/ { print $4 }' "$WIRE_OUT"); mw_figure "$pr" "ucx_$t" lat "$f" us ;;
	*) f=$(awk '/^Final:/ { print $9 }' "$WIRE_OUT"); mw_figure "$pr" "ucx_$t" rate "$f" msg/s ;;
	esac
}

# fab PAIRING PROVIDER EP: fi_pingpong, 64-byte messages; its latency.
# ofi_rxm sizes its verbs CQ for FI_UNIVERSE_SIZE peers (default 256):
# 65536 entries, more than rdma_rxe or rxc offer (max_cqe 32767), so it
# would fail to open.  Two peers need far fewer.
fab() {
	local pr=$1 prov=$2 ep=$3 p f fi=(env FI_UNIVERSE_SIZE=16 fi_pingpong)
	p=$(next_port)
	wire_pair "$pr round $MW_ROUND: fi_pingpong -p '$prov' -e $ep" 120 "$p" fi_check -- \
		"${fi[@]}" -p "$prov" -e "$ep" -d "${DRV_HERE}0" -S 64 -I "$(n 2000)" -B "$p" -- \
		"${fi[@]}" -p "$prov" -e "$ep" -d "${DRV_HERE}0" -S 64 -I "$(n 2000)" -P "$p" "$WIRE_PEER_IP"
	[ "$WIRE_ROLE" = a ] || return 0
	f=$(fi_row "$WIRE_OUT" | awk '{ print $7 }')
	mw_figure "$pr" "fi_${ep}_lat" lat "$f" us 64
}

# middleware A B: the middleware with driver A on guest a, B on guest b.
middleware() {
	local pr=$1-$2 t tests
	DRV_HERE=$(drv_of "$pr")
	WIRE_RELINK_HOOK="driver_relink $DRV_HERE $(driver_up "$DRV_HERE" "mw-up-$pr-$MW_ROUND")"
	tests=$UCX_TESTS
	[ "$SMOKE" = 1 ] && tests=tag_lat
	for t in $tests; do ucx "$pr" "$t"; done
	fab "$pr" verbs msg
	fab "$pr" "verbs;ofi_rxm" rdm
	driver_down "$DRV_HERE" "mw-down-$pr-$MW_ROUND"
}

# Both drivers compute the ICRC with the fastest CRC-32 the guest's CPU
# has: crc32-pclmul where it has PCLMULQDQ (bench/run.sh --cpu-model),
# which the crypto API prefers to the generic one that load_driver gives
# rdma_rxe.  Loaded first, so that neither driver finds only the other.
modprobe crc32-pclmul 2>/dev/null || true
wire_up || { echo "bench: the link never came up"; exit 0; }
for ((r = 1; r <= ROUNDS; r++)); do
	tcp_bw "$r" 1500
	tcp_bw "$r" 9000
	for m in $MTUS; do tcp_bw "$r" "$(roce_frame_mtu "${m%:*}")"; done
	wire_mtu 1500
	# shellcheck disable=SC2086  # PAIRS is a list of words
	for pr in $(round_order "$r" $PAIRS); do round "$pr" "$r"; done
done
[ "$TRANSFERS" = 1 ] || xfers
pairings="rxe-rxe rxc-rxc rxc-rxe rxe-rxc"
[ "$SMOKE" = 1 ] && pairings="rxc-rxc rxc-rxe"
[ "$TRANSFERS" = 0 ] || pairings=''
# MW_ROUND: the middleware round running, for mw_figure and step names.
for ((MW_ROUND = 1; MW_ROUND <= MW_ROUNDS; MW_ROUND++)); do
	# shellcheck disable=SC2086  # pairings is a list of words
	for pr in $(round_order "$MW_ROUND" $pairings); do
		middleware "${pr%-*}" "${pr#*-}"
	done
done
echo "bench: done, figures in $LOG"
