#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   tests/host/t-bench-report.sh
#
# Host-side test of what turns the benchmark's runs into figures: the
# order of the drivers in each round (bench/order.sh) and the speedups
# bench/report.py derives from a log.  A latency figure is better when
# lower, so its speedup is rdma_rxe's over rxc's; a median round trip
# (lat_p50) read as a rate would report rxc's faster round trips as a
# slowdown.  The paired speedup takes each round's ratio first, so a
# round where the host slowed both drivers does not count against one.
#
# Prints TAP ("ok - ...", "not ok - ...") and exits non-zero on a failure.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/rxc-bench-report.XXXXXX)
trap 'rm -rf "$work"' EXIT
nfail=0
# shellcheck source=SCRIPTDIR/../../bench/order.sh
. "$repo/bench/order.sh"

# shellcheck source=SCRIPTDIR/tap.sh
. "$repo/tests/host/tap.sh"
expect() { tap_same bench "$@"; }	# expect NAME GOT WANT

expect "round 1 runs the drivers as given" "$(round_order 1 rxe rxc)" "rxe rxc"
expect "round 2 runs them reversed" "$(round_order 2 rxe rxc)" "rxc rxe"
expect "round 3 runs them as given again" "$(round_order 3 rxe rxc)" "rxe rxc"
expect "a round of one driver runs it" "$(round_order 2 rxc)" "rxc"

# One driver's figure KEY=VALUE UNIT for an 8-byte test in round R.
fig() {	# fig DRV R TEST KEY VALUE UNIT
	echo "bench: drv=$1 round=$2 rxc_bench: $3 size=8 mtu=1024 qps=1 window=64 mode=wire $4=$5 $6"
}
{
	# rxc: round trips of 80 and 90 us against 100 and 120; reads at
	# 1.5 times the rate.  Medians over two rounds: the mean of the two.
	fig rxe 1 lat lat 120 us; fig rxe 2 lat lat 100 us
	fig rxc 1 lat lat 90 us; fig rxc 2 lat lat 70 us
	fig rxe 1 lat lat_p50 100 us; fig rxe 2 lat lat_p50 100 us
	fig rxc 1 lat lat_p50 80 us; fig rxc 2 lat lat_p50 80 us
	fig rxe 1 read rate 1000 msg/s; fig rxe 2 read rate 1000 msg/s
	fig rxc 1 read rate 1500 msg/s; fig rxc 2 read rate 1500 msg/s
	# Writes: rxc 10 % ahead in rounds 1 and 2, then both slowed, rxc
	# in round 3, rdma_rxe in round 4.  Medians: 1500 against 1050.
	fig rxe 1 write rate 1000 msg/s; fig rxc 1 write rate 1100 msg/s
	fig rxe 2 write rate 2000 msg/s; fig rxc 2 write rate 2200 msg/s
	fig rxe 3 write rate 3000 msg/s; fig rxc 3 write rate 1000 msg/s
	fig rxc 4 write rate 990 msg/s; fig rxe 4 write rate 900 msg/s
	# The 64 KiB write at path MTU 4096 on a link whose TCP moves 100
	# MB/s at MTU 9000: 60 MB/s spinning, 80 asleep (both drivers, so
	# that the geometric mean would count it if it took that mode).
	echo "bench: drv=link round=1 rxc_bench: tcp size=0 mtu=9000 qps=1 window=0 mode=wire bw=100 MB/s"
	echo "bench: drv=rxc round=1 rxc_bench: write size=65536 mtu=4096 qps=1 window=64 mode=wire bw=60 MB/s"
	for d in rxe rxc; do
		echo "bench: drv=$d round=1 rxc_bench: write size=65536 mtu=4096 qps=1 window=64 mode=wire_sleep bw=80 MB/s"
	done
} >"$work/bench.log"
/usr/bin/python3 "$repo/bench/report.py" "$work/bench.log" >"$work/report" 2>&1 ||
	expect "report.py reads the log" "exit $?" "exit 0"
# speedup ROW, paired ROW: that column of the table's row ROW.
speedup() { awk -v t="$1" 'index($0, t) == 1 { print $(NF - 1) }' "$work/report"; }
paired() { awk -v t="$1" 'index($0, t) == 1 { print $NF }' "$work/report"; }
expect "a mean round trip's speedup is rxe's time over rxc's" \
	"$(speedup 'lat 8 B mtu 1024 [lat]')" 1.38
expect "a median round trip's speedup is rxe's time over rxc's" \
	"$(speedup 'lat 8 B mtu 1024 [lat_p50]')" 1.25
expect "a rate's speedup is rxc's over rxe's" \
	"$(speedup 'read 8 B mtu 1024 [rate]')" 1.5
expect "the speedup of two medians keeps the host's drift" \
	"$(speedup 'write 8 B mtu 1024 [rate]')" 0.7
expect "the paired speedup is the median of each round's" \
	"$(paired 'write 8 B mtu 1024 [rate]')" 1.1
# The RC figures: the rates and the mean round trip, not the median.
expect "the geometric mean counts the mean round trip only" \
	"$(sed -n 's/.*NOT met (\(.*\) over \([0-9]*\) figures).*/\1 \2/p' "$work/report")" \
	"1.130 3"
# Against TCP, which sleeps while it waits, the write that sleeps too.
expect "the 64 KiB write's share of TCP is judged with its requester asleep" \
	"$(sed -n 's/^target: 64 KiB write at path MTU 4096 >= 75% of TCP at MTU 9000: //p' "$work/report")" \
	"met (80.0 % with the requester asleep, 60.0 % spinning)"
expect "the sleeping write has a row of its own" \
	"$(speedup 'write 65536 B mtu 4096, requester asleep [bw]')" 1
[ "$nfail" -eq 0 ]
