#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The liveness campaign's long run (Documentation/liveness.rst): COUNT
# scenarios from seed FIRST, in guests of CHUNK scenarios each, one after
# the other, on Debian's 6.1 kernel.  Scenario SEED runs row SEED modulo
# the rows of tests/guest/t-liveness.sh with that seed, so every row
# comes round again and again with new random work.  A long run can be
# stopped between chunks and still says what it covered.
#
#   vm/liveness-long.sh FIRST COUNT [CHUNK]     (CHUNK default 200)
#
# Results in build/liveness-long/SEED (a chunk's guest), and a summary
# per chunk and in total on stdout: scenarios passed and failed, the
# tightest headroom left under the bound, the longest NET_RX softirq.
# Environment: LIVENESS_SIZE (the largest request, default 4 MiB; up to
# 1 GiB); LIVENESS_LANES (default 3), how many scenarios a guest runs at
# once, each on a namespace pair of its own.  Exit status: 0 if every
# chunk passed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/long-run.sh
. "$here/long-run.sh"
[ $# -ge 2 ] && [ $# -le 3 ] || { sed -n '11p' "$0" >&2; exit 2; }
first=$1 count=$2 chunk=${3:-200}

passed=0 failed=0 softirq=0 headroom=''
chunk_done() {	# RESULTS SEED N ELAPSED
	local p f h s
	p=$(grep -c '^ok - liveness: seed' "$1/results.tap" 2>/dev/null || true)
	f=$(grep -c '^not ok' "$1/results.tap" 2>/dev/null || true)
	h=$(sed -n 's/.*tightest headroom \([0-9.]*\) s.*/\1/p' "$1/guest.log" 2>/dev/null |
		sort -g | head -n 1)
	s=$(sed -n 's/.*longest NET_RX softirq of all scenarios: \([0-9]*\) us/\1/p' \
		"$1/guest.log" 2>/dev/null | tail -n 1)
	echo "liveness-long: seeds $2..$(($2 + $3 - 1)): ${p:-0} passed, ${f:-?} failed;" \
		"tightest headroom ${h:-?} s; longest NET_RX softirq ${s:-?} us; $4 s"
	passed=$((passed + ${p:-0})) failed=$((failed + $3 - ${p:-0}))
	# shellcheck disable=SC2086 # figures, one a word
	headroom=$(printf '%s\n' $headroom $h | sort -g | head -n 1)
	[ "${s:-0}" -le "$softirq" ] || softirq=$s
	[ "${f:-1}" = 0 ] && [ "${p:-0}" = "$3" ]
}

# About 10 s a scenario on an idle machine; three times that.
rc=0
long_run liveness-long t-liveness LIVENESS_FIRST LIVENESS_SEEDS "$first" "$count" \
	"$chunk" 300 "LIVENESS_SIZE=${LIVENESS_SIZE:-4194304}" \
	"LIVENESS_LANES=${LIVENESS_LANES:-3}" || rc=1
echo "liveness-long: $((passed + failed)) scenarios from seed $first: $passed passed," \
	"$failed failed; tightest headroom ${headroom:-?} s; longest NET_RX softirq $softirq us"
exit "$rc"
