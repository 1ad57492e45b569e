#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Guest side of bench/run.sh: rdma_rxe and rxc alternately (rxc first in
# even rounds, bench/order.sh), BENCH_ROUNDS rounds each (default 3, as
# bench/run.sh passes), every measurement of rxc_bench on each, all in
# this one boot.  Every figure goes to $RESULTS/bench.log as
#
#   bench: drv=rxe|rxc round=N rxc_bench: TEST ... KEY=VALUE UNIT
#
# and each run is a TAP line (it must finish; figures are not judged
# here: bench/report.py does that).  BENCH_SMOKE=1 divides every count
# by 100, for CI.  BENCH_PROFILE=1 profiles the 8-byte round trips and
# write instead (perf stat and perf record, see profile() below).
#
# Network: veth0 (10.77.0.1) in this namespace, veth1 (10.77.0.2) in
# namespace "far".  Loopback tests use one device on veth0; pair tests a
# device on each end, so every packet crosses the veth pair.  rdma_rxe in
# 6.1 works in the initial namespace only: its pair tests are skipped
# when its device in "far" does not come up.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../tests/guest/lib.sh
. "$here/../tests/guest/lib.sh"
# shellcheck source=counters.sh
. "$here/counters.sh"
# shellcheck source=perf-report.sh
. "$here/perf-report.sh"
# shellcheck source=order.sh
. "$here/order.sh"
SUITE=bench
IP=/usr/sbin/ip
BIN=${RXC_REPO:-$here/..}/build/bench/rxc_bench
LOG=$RESULTS/bench.log
ROUNDS=${BENCH_ROUNDS:-3}
DIV=1
[ "${BENCH_SMOKE:-0}" = 1 ] && DIV=100
# What --profile profiles by default: the three 8-byte round trips and
# the signaled 8-byte write.
PROFILE_TESTS="lat -s 8 -n 20000;lat_write -s 8 -n 20000;lat_read -s 8 -n 20000;write -s 8 -n 200000"
: >"$LOG"

# n COUNT: a run's count, scaled for the smoke.
n() { local c=$(($1 / DIV)); echo $((c < 5 ? 5 : c)); }
# sized SIZE: the count of a transfer test, about a second or more of
# traffic under TCG for either driver: runs much shorter than that vary
# by a fifth from one to the next (a timer tick, where a kworker lands).
sized() { n $(($1 < 4096 ? 60000 : $1 < 65536 ? 15000 : 3000)); }

log_figures() {	# DRV ROUND OUTPUT
	echo "$3" | sed -n "s/^rxc_bench: /bench: drv=$1 round=$2 rxc_bench: /p" >>"$LOG"
}
verdict() {	# NAME STATUS
	if [ "$2" -eq 0 ]; then pass "$1"; else fail "$1" "exit status $2"; fi
}

# dev_of ARGS...: the device an rxc_bench command line names (-d), or
# nothing.
dev_of() {
	while [ $# -gt 1 ]; do
		[ "$1" != -d ] || { echo "$2"; return 0; }
		shift
	done
}

# bench DRV ROUND ARGS...: one rxc_bench run, its figures logged, and
# what it moved in the guest's log (counters.sh).
bench() {
	local drv=$1 round=$2 out rc=0 dev
	shift 2
	dev=$(dev_of "$@")
	echo "+ rxc_bench $*"
	[ -z "$dev" ] || moved_begin "$dev"
	out=$(timeout -k 5 300 "$@" 2>&1) || rc=$?
	echo "$out"
	[ -z "$dev" ] || moved_end "$dev"
	log_figures "$drv" "$round" "$out"
	verdict "$drv round $round: ${*:2}" "$rc"
}

set_mtu() { $IP link set veth0 mtu "$1" && $IP -n far link set veth1 mtu "$1"; }

net_up() {
	run "lo up" 30 $IP link set lo up
	run "veth pair" 30 $IP link add veth0 type veth peer name veth1
	run "namespace far" 30 $IP netns add far
	run "veth1 into far" 30 $IP link set veth1 netns far
	run "address on veth0" 30 $IP addr add 10.77.0.1/24 dev veth0
	run "address on veth1" 30 $IP -n far addr add 10.77.0.2/24 dev veth1
	run "veth0 up" 30 $IP link set veth0 up
	run "veth1 up" 30 $IP -n far link set veth1 up
	run "lo up in far" 30 $IP -n far link set lo up
}

# dev_up DRV DEV [NS]: a device on this end's veth (veth1 in NS); prints
# its GID index, or fails.
dev_up() {
	if [ -n "${3:-}" ]; then
		dev_link_up "$1" "$2" veth1 10.77.0.2 "$IP" netns exec "$3"
	else
		dev_link_up "$1" "$2" veth0 10.77.0.1
	fi
}

# loopback DRV ROUND: everything that runs on one device.
loopback() {
	local drv=$1 r=$2 dev=${1}0 g op s q t
	if ! g=$(dev_up "$drv" "$dev"); then
		fail "$drv round $r: $dev up"
		return 0
	fi
	local B=("$BIN" -d "$dev" -g "$g")
	for op in write read send; do
		for s in 8 4096 65536; do
			bench "$drv" "$r" "${B[@]}" -t $op -s $s -m 1024 -n "$(sized $s)"
		done
	done
	# The round trips: send/recv, RDMA write and RDMA read ping-pongs.
	for t in lat lat_write lat_read; do
		bench "$drv" "$r" "${B[@]}" -t $t -s 8 -n "$(n 15000)"
		bench "$drv" "$r" "${B[@]}" -t $t -s 4096 -n "$(n 6000)"
	done
	bench "$drv" "$r" "${B[@]}" -t ud -s 8 -n "$(sized 8)"
	for q in 4 16; do
		bench "$drv" "$r" "${B[@]}" -t write -s 8 -q $q -w 16 -n "$(sized 8)"
	done
	bench "$drv" "$r" "${B[@]}" -t write -s 8 -q 1 -w 16 -n "$(sized 8)"
	# A counter's cost is a few percent at most: its baseline runs next
	# to it, before and after (ABBA), so that drift within the boot
	# cancels out.
	for t in cntr_unsig cntr_base cntr_sig cntr_sig cntr_base; do
		bench "$drv" "$r" "${B[@]}" -t $t -s 8 -n "$(sized 8)"
	done
	for t in wake_wait wake_notify wake_cq; do
		bench "$drv" "$r" "${B[@]}" -t $t -s 8 -n "$(n 600)"
	done
	bench "$drv" "$r" "${B[@]}" -t idle_qps -n "$(n 1000)"

	# Path MTU 4096 needs a netdev MTU that fits it.
	set_mtu 9000
	for op in write read send; do
		for s in 8 4096 65536; do
			bench "$drv" "$r" "${B[@]}" -t $op -s $s -m 4096 -n "$(sized $s)"
		done
	done
	set_mtu 1500
	rdma link delete "$dev"
}

# pair_run DRV OP SIZE COUNT SECS: one pair-mode run between ${DRV}2
# (here) and ${DRV}3 (in far), bounded by SECS; its output on stdout.
pair_run() {
	local drv=$1 op=$2 s=$3 cnt=$4 secs=$5 rc=0
	timeout -k 5 "$secs" $IP netns exec far "$BIN" -d "${drv}3" -g "$GB" -S \
		-t "$op" -s "$s" -n "$cnt" -p 18801 >/dev/null 2>&1 &
	timeout -k 5 "$secs" "$BIN" -d "${drv}2" -g "$GA" -C 10.77.0.2 -p 18801 \
		-t "$op" -s "$s" -n "$cnt" || rc=$?
	wait $! || true
	return "$rc"
}

# across DRV ROUND: requester on veth0, responder in "far" on veth1.
across() {
	local drv=$1 r=$2 t op s out rc
	if ! GA=$(dev_up "$drv" "${drv}2") || ! GB=$(dev_up "$drv" "${drv}3" far) ||
		! pair_run "$drv" lat 8 5 30 >/dev/null 2>&1; then
		# rdma_rxe in 6.1 creates the device in "far", but serves UDP in
		# the initial namespace only, so nothing reaches it.
		skip "$drv round $r: across namespaces" "$drv carries no traffic between namespaces here"
		$IP netns exec far rdma link delete "${drv}3" 2>/dev/null || true
		rdma link delete "${drv}2" 2>/dev/null || true
		return 0
	fi
	for t in write:8 write:65536 send:4096 lat:8; do
		op=${t%%:*} s=${t#*:} rc=0
		echo "+ rxc_bench (pair) -t $op -s $s"
		out=$(pair_run "$drv" "$op" "$s" "$(n 5000)" 300 2>&1) || rc=$?
		echo "$out"
		log_figures "$drv" "$r" "$out"
		verdict "$drv round $r: across namespaces, -t $op -s $s" "$rc"
	done
	$IP netns exec far rdma link delete "${drv}3"
	rdma link delete "${drv}2"
}

# profile DRV: where the time goes in the small-message tests, for
# BENCH_PROFILE=1.  perf stat counts context switches (each hand-over to
# a kworker is one) and perf record samples every CPU's kernel stacks.
# BENCH_PROFILE_TESTS replaces the tests (';'-separated argument lists).
profile() {
	local drv=$1 g t args out tests i=0
	if ! g=$(dev_up "$drv" "${drv}0"); then
		fail "$drv profile: ${drv}0 up"
		return 0
	fi
	# Enough messages that the steady state outweighs setup and teardown.
	IFS=';' read -ra tests <<<"${BENCH_PROFILE_TESTS:-$PROFILE_TESTS}"
	for t in "${tests[@]}"; do
		read -ra args <<<"-t $t"
		i=$((i + 1))
		out=$RESULTS/perf-$drv-$i-${args[1]}
		# Path MTU 4096 needs a netdev MTU that fits it, as in loopback().
		[[ " ${args[*]} " != *" -m 4096 "* ]] || set_mtu 9000
		moved_begin "${drv}0"
		run "$drv profile: perf stat ${args[*]}" 300 perf stat -a -o "$out.stat" \
			-e context-switches,cpu-migrations,cpu-clock \
			"$BIN" -d "${drv}0" -g "$g" "${args[@]}"
		moved_end "${drv}0"
		cat "$out.stat"
		# perf.data goes to the guest's tmpfs: writing it over 9p
		# would be most of what the samples show.
		run "$drv profile: perf record ${args[*]}" 300 perf record -q -a -g \
			-o /tmp/perf.data "$BIN" -d "${drv}0" -g "$g" "${args[@]}"
		echo "== $drv ${args[*]}: hottest symbols"
		perf_reports /tmp/perf.data "$out"
		set_mtu 1500
	done
	rdma link delete "${drv}0"
}

# Both drivers compute the ICRC with the fastest CRC-32 the guest's CPU
# has: crc32-pclmul where it has PCLMULQDQ (bench/run.sh --cpu-model),
# which the crypto API prefers to the generic one that load_driver gives
# rdma_rxe.  Loaded first, so that neither driver finds only the other.
modprobe crc32-pclmul 2>/dev/null || true
net_up
if [ "${BENCH_PROFILE:-0}" = 1 ]; then
	for drv in rxe rxc; do
		load_driver "$drv"
		profile "$drv"
		run "rmmod rdma_$drv" 60 rmmod "rdma_$drv"
	done
	ROUNDS=0
fi
for ((r = 1; r <= ROUNDS; r++)); do
	bench mem "$r" "$BIN" -t memcpy -n "$(n 20)"
	for drv in $(round_order "$r" rxe rxc); do
		load_driver "$drv"
		loopback "$drv" "$r"
		across "$drv" "$r"
		run "rmmod rdma_$drv" 60 rmmod "rdma_$drv"
	done
done
$IP netns delete far
$IP link delete veth0 2>/dev/null || true
echo "bench: done, figures in $LOG"
