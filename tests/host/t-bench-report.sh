#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   tests/host/t-bench-report.sh
#
# Host-side test of what turns the benchmark's runs into figures: the
# order of the drivers in each round (bench/order.sh), the paired
# statistics of bench/report.py on known per-round ratios, and its
# report of a synthetic log.
#
# - A latency figure is better when lower, so its ratio is rdma_rxe's
#   over rxc's; a median round trip (lat_p50) read as a rate would
#   report rxc's faster round trips as a slowdown.
# - The paired median takes each round's ratio first, so a round where
#   the host slowed both drivers does not count against one.
# - The 90 % bootstrap interval of that median has known values: one
#   point when every round agrees; the rounds' range with 2 or 5 rounds
#   (a resample's median falls below the second-lowest of 5 in 5.8 % of
#   draws, above the second-highest in 5.8 %); the second-lowest to the
#   second-highest of 7 (1.1 % below each).
# - The 64 KiB write's share of TCP pairs each round with its own TCP.
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

# The paired statistics of per-round ratios, one case a line:
#   name | ratios | median | range | 90 % interval | flags
stats_cases() {
	cat <<'EOF'
identical rounds give a zero-width interval|1.1 1.1 1.1 1.1 1.1|1.1|1.1..1.1|1.1..1.1|
one round (the smoke) is its own interval|1.2|1.2|1.2..1.2|1.2..1.2|
five rounds: the interval is their range|1.02 1.3 0.95 1.1 1.2|1.1|0.95..1.3|0.95..1.3|
seven rounds: the second-lowest to the second-highest|0.9 1.3 0.94 1.05 0.99 0.96 1.02|0.99|0.9..1.3|0.94..1.05|
two rounds: their mean, their range|0.5 0.96|0.73|0.5..0.96|0.5..0.96|<0.97,CI<1
a median below 0.97 is flagged, an interval across 1 is not|0.9 0.95 0.96 1.0 1.05|0.96|0.9..1.05|0.9..1.05|<0.97
an interval wholly below 1 is flagged, a median at 0.98 is not|0.97 0.98 0.99 0.975 0.985|0.98|0.97..0.99|0.97..0.99|CI<1
EOF
}

# paired_of RATIOS: "median|range|interval|flags" as report.py derives them.
paired_of() {
	/usr/bin/python3 - "$repo/bench" "$1" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import report
p = report.paired_stats([float(x) for x in sys.argv[2].split()])
print('|'.join([report.fmt(p[0]), report.span(p[1], p[2]), report.span(p[3], p[4]),
                ','.join(report.flags(p))]))
PY
}

while IFS='|' read -r what ratios med range ci flag; do
	expect "paired: $what" "$(paired_of "$ratios")" "$med|$range|$ci|$flag"
done < <(stats_cases)

# One driver's figure KEY=VALUE UNIT for a test in round R, mode=wire.
fig() {	# fig DRV R TEST SIZE MTU KEY VALUE UNIT [MODE]
	echo "bench: drv=$1 round=$2 rxc_bench: $3 size=$4 mtu=$5 qps=1 window=64 mode=${9:-wire} $6=$7 $8"
}
tcp() {	# tcp R MTU MB/s
	echo "bench: drv=link round=$1 rxc_bench: tcp size=0 mtu=$2 qps=1 window=0 mode=wire bw=$3 MB/s"
}
{
	# rxc: round trips of 90 and 70 us against 120 and 100; reads at
	# 1.5 times the rate.  Medians over two rounds: the mean of the two.
	fig rxe 1 lat 8 1024 lat 120 us; fig rxe 2 lat 8 1024 lat 100 us
	fig rxc 1 lat 8 1024 lat 90 us; fig rxc 2 lat 8 1024 lat 70 us
	fig rxe 1 lat 8 1024 lat_p50 100 us; fig rxe 2 lat 8 1024 lat_p50 100 us
	fig rxc 1 lat 8 1024 lat_p50 80 us; fig rxc 2 lat 8 1024 lat_p50 80 us
	fig rxe 1 read 8 1024 rate 1000 msg/s; fig rxe 2 read 8 1024 rate 1000 msg/s
	fig rxc 1 read 8 1024 rate 1500 msg/s; fig rxc 2 read 8 1024 rate 1500 msg/s
	# Writes: rxc 10 % ahead in rounds 1 and 2, then both slowed, rxc
	# in round 3, rdma_rxe in round 4.  Medians: 1500 against 1050.
	fig rxe 1 write 8 1024 rate 1000 msg/s; fig rxc 1 write 8 1024 rate 1100 msg/s
	fig rxe 2 write 8 1024 rate 2000 msg/s; fig rxc 2 write 8 1024 rate 2200 msg/s
	fig rxe 3 write 8 1024 rate 3000 msg/s; fig rxc 3 write 8 1024 rate 1000 msg/s
	fig rxc 4 write 8 1024 rate 990 msg/s; fig rxe 4 write 8 1024 rate 900 msg/s
	# The RDMA write round trip: rxc slower in both rounds, by 5 and 2 %.
	fig rxe 1 lat_write 8 1024 lat 100 us; fig rxc 1 lat_write 8 1024 lat 105 us
	fig rxe 2 lat_write 8 1024 lat 98 us; fig rxc 2 lat_write 8 1024 lat 100 us
	# The 64 KiB write at path MTU 4096 against TCP in frames of its
	# packets' size (MTU 4140), whose throughput halves in round 2:
	# asleep, 92 % of its own round's TCP in rounds 1 and 2, 75 % in
	# round 3, where the ratio of the medians (60 / 80) says 75 %.
	tcp 1 4140 100; tcp 2 4140 50; tcp 3 4140 80
	fig rxc 1 write 65536 4096 bw 92 MB/s wire_sleep
	fig rxc 2 write 65536 4096 bw 46 MB/s wire_sleep
	fig rxc 3 write 65536 4096 bw 60 MB/s wire_sleep
	fig rxc 1 write 65536 4096 bw 70 MB/s
	# MTU 9000: information, no verdict.
	tcp 1 9000 200
} >"$work/bench.log"
/usr/bin/python3 "$repo/bench/report.py" "$work/bench.log" --pinning "on: test" \
	--record "$work/rec" --kind wire --command "bench/run.sh --wire" \
	--commit 1234567 --kernel stock >"$work/report" 2>&1 ||
	expect "report.py reads the log" "exit $?" "exit 0"

# cell TABLE ROW COLUMN: that cell of the table whose first header cell
# is TABLE (columns are two spaces or more apart).
cell() {
	awk -F '  +' -v t="$1" -v row="$2" -v col="$3" '
		/^=/ { next }
		$1 == t { split("", c); for (i = 1; i <= NF; i++) c[$i] = i; in_t = 1; next }
		/^$/ { in_t = 0 }
		in_t && $1 == row && (col in c) { print $(c[col]); exit }' "$work/report"
}
# One table-driven case per row: name | table | row | column | want.
while IFS='|' read -r what table row col want; do
	expect "$what" "$(cell "$table" "$row" "$col")" "$want"
done <<'EOF'
a mean round trip's ratio is rxe's time over rxc's|Test|lat 8 B mtu 1024 [lat]|rxc/rxe|1.38
a median round trip's ratio is rxe's time over rxc's|Test|lat 8 B mtu 1024 [lat_p50]|rxc/rxe|1.25
a rate's ratio is rxc's over rxe's|Test|read 8 B mtu 1024 [rate]|rxc/rxe|1.5
the ratio of two medians keeps the host's drift|Test|write 8 B mtu 1024 [rate]|rxc/rxe|0.7
the paired median is the median of each round's ratio|Test|write 8 B mtu 1024 [rate]|paired|1.1
the paired range spans the rounds' ratios|Test|write 8 B mtu 1024 [rate]|range|0.333..1.1
a round trip's paired ratio is inverted too|Test|lat 8 B mtu 1024 [lat]|paired|1.38
a write round trip slower in every round is flagged|Test|lat_write 8 B mtu 1024 [lat]|flag|<0.97,CI<1
its interval spans its two rounds|Test|lat_write 8 B mtu 1024 [lat]|90 % CI|0.952..0.98
a test without a flag says so|Test|read 8 B mtu 1024 [rate]|flag|-
the 64 KiB write's share of TCP in frames of its size pairs the rounds|64 KiB write against TCP|path MTU 4096 asleep, TCP at MTU 4140|share|92.0 %
the share's range spans its rounds|64 KiB write against TCP|path MTU 4096 asleep, TCP at MTU 4140|range|75.0..92.0 %
a share of 90 % or more in frames of its size passes|64 KiB write against TCP|path MTU 4096 asleep, TCP at MTU 4140|>= 90 %|yes
the spinning write is shown beside it|64 KiB write against TCP|path MTU 4096 spinning, TCP at MTU 4140|share|70.0 %
the share at the link's MTU is there, without a verdict|64 KiB write against TCP|path MTU 4096 asleep, TCP at MTU 9000|>= 90 %|-
the link's TCP is in its own table|TCP, link MTU|4140|range|50..100
EOF

target() { sed -n "s/^- target: $1: //p" "$work/report"; }
# The RC figures: the rates and the mean round trips, not the medians;
# (1.5 * 1.1 * 1.381 * 0.966) ^ (1/4) over 4 figures.
expect "the geometric mean is of the RC tests' paired medians" \
	"$(target "geometric mean of the RC tests' paired medians >= 1.5")" "NOT met (1.218 over 4 figures)"
expect "a paired median below 0.97 fails its target" \
	"$(target "no RC test with a paired median below 0.97")" \
	"NOT met (lat_write 8 B mtu 1024 [lat] 0.966)"
expect "an interval wholly below 1 fails its target" \
	"$(target "no RC test whose 90 % interval lies wholly below 1")" \
	"NOT met (lat_write 8 B mtu 1024 [lat] 0.952..0.98)"
expect "the 64 KiB write is judged against TCP of its frames, round by round" \
	"$(target "64 KiB write at path MTU 4096 >= 90 % of TCP in frames of its size (MTU 4140), same round")" \
	"met (92.0 % asleep, rounds 75.0..92.0 %)"
expect "the report says how the guests were pinned" "$(grep -c '^Pinning: on: test\.$' "$work/report")" 1

# The record: the report's own text, under the run's fields, valid
# reStructuredText (tests/host/t-docs.sh parses every record).
rec=$(ls "$work"/rec/*-wire-full-1234567.rst 2>/dev/null || true)
expect "the record is written as DATE-wire-full-COMMIT.rst" "$(basename "${rec:-none}" | sed 's/^[0-9-]*-wire/DATE-wire/')" \
	"DATE-wire-full-1234567.rst"
if [ -n "$rec" ]; then
	# shellcheck disable=SC2016  # rst's literal backquotes, not commands
	for field in ':Kind: full run' ':Code: ``1234567``' ':Command: ``bench/run.sh --wire``' \
		':Kernel: stock' ':Pinning: on: test' ':Tried: the full wire run, 4 rounds'; do
		expect "the record has $field" "$(grep -cxF "$field" "$rec")" 1
	done
	expect "the record holds the report's table" \
		"$(grep -c '^write 8 B mtu 1024 \[rate\]  ' "$rec")" 1
	expect "the record parses without a docutils warning" "$(/usr/bin/python3 - "$rec" <<'PY'
import io
import sys
import docutils.core
try:
    docutils.core.publish_doctree(open(sys.argv[1]).read(), settings_overrides={
        'report_level': 2, 'halt_level': 2, 'warning_stream': io.StringIO()})
    print('parses')
except Exception as e:
    print(str(e).splitlines()[0])
PY
)" parses
fi

# An unpinned run's record stands beside the pinned one's.
/usr/bin/python3 "$repo/bench/report.py" "$work/bench.log" --pinning "off (--no-pin)" \
	--record "$work/rec" --kind wire --commit 1234567 >/dev/null 2>&1 || true
expect "an unpinned run's record has a name of its own" \
	"$(find "$work/rec" -name '*.rst' -printf '%f\n' | sort | sed 's/^[0-9-]*-wire/DATE-wire/' | tr '\n' ' ')" \
	"DATE-wire-full-1234567-unpinned.rst DATE-wire-full-1234567.rst "

# So does a lossless link's, and its title says which link it was.
/usr/bin/python3 "$repo/bench/report.py" "$work/bench.log" --pinning on --link unix \
	--record "$work/rec" --kind wire --commit 1234567 >/dev/null 2>&1 || true
expect "a lossless link's record has a name and a title of its own" \
	"$(grep -l 'lossless link' "$work"/rec/*-wire-full-1234567-unix.rst 2>/dev/null | wc -l)" 1

# vm/run-pair.sh knows two links only, and says so before booting anything.
rc=0
"$repo/vm/run-pair.sh" --guest-script /dev/null --results "$work/pair" --link tcp 2>"$work/link.err" || rc=$?
expect "an unknown link is refused" "$rc $(grep -c -- '--link udp|unix' "$work/link.err")" "2 1"

# vm/run-vm.sh refuses to pin a guest to a core the host does not have.
rc=0
"$repo/vm/run-vm.sh" --guest-script /dev/null --results "$work/vm" --pin 4096 2>"$work/pin.err" || rc=$?
expect "a pin to a core the host lacks is refused" "$rc $(grep -c 'not a core of this host' "$work/pin.err")" "2 1"
rc=0
"$repo/vm/run-vm.sh" --guest-script /dev/null --results "$work/vm" --pin 0,4096 2>"$work/pin.err" || rc=$?
expect "a list of cores with one the host lacks is refused" \
	"$rc $(grep -c '4096 is not a core of this host' "$work/pin.err")" "2 1"
[ "$nfail" -eq 0 ]
