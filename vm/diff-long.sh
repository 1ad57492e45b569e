#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The differential tester's long run (Documentation/rxc.rst, "Differential
# testing against rdma_rxe"): COUNT programs from seed FIRST, in guests of
# CHUNK programs each, one after the other, on Debian's 6.1 kernel.  Each
# chunk is a whole t-diff run (every placement, the comparisons, the
# counter checks), so a long run can be stopped between chunks and still
# says what it covered.
#
#   vm/diff-long.sh FIRST COUNT [CHUNK]     (CHUNK default 10000)
#
# Results in build/diff-long/SEED (a chunk's guest), and a summary per
# chunk and in total on stdout.  Environment: RXC_DIFF_JOBS (vdiff's
# processes per guest, t-diff's default when unset).  Exit status: 0 if
# every chunk passed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/long-run.sh
. "$here/long-run.sh"
[ $# -ge 2 ] && [ $# -le 3 ] || { sed -n '11p' "$0" >&2; exit 2; }
first=$1 count=$2 chunk=${3:-10000}
make -s -C "$here/../tests/diff"

# tally RESULTS: "SAME KNOWN UNEXPLAINED" of rxc-lo against rdma_rxe, from
# the comparison's last line.
tally() {
	tail -n 1 "$1/diff/rxc-lo-vs-rxe-lo.cmp" |
		sed -n 's/^\([0-9]*\) same, \([0-9]*\) known differences, \([0-9]*\) unexplained.*/\1 \2 \3/p'
}

programs=0 failed=0 same=0 known=0 unexplained=0
chunk_done() {	# RESULTS SEED N ELAPSED
	local f s k u
	f=$(grep -c '^not ok' "$1/results.tap" 2>/dev/null || true)
	read -r s k u <<<"$(tally "$1" 2>/dev/null || true)"
	echo "diff-long: seeds $2..$(($2 + $3 - 1)): ${f:-?} failed;" \
		"rxc-lo against rdma_rxe ${s:-?} same, ${k:-?} known, ${u:-?} unexplained;" \
		"$4 s"
	failed=$((failed + ${f:-1}))
	same=$((same + ${s:-0})) known=$((known + ${k:-0}))
	unexplained=$((unexplained + ${u:-0}))
	programs=$((programs + $3))
	[ "${f:-1}" = 0 ]
}

# About 0.25 s a program over all six runs; five times that.
rc=0
long_run diff-long t-diff RXC_DIFF_FIRST RXC_DIFF_SEEDS "$first" "$count" "$chunk" 12 \
	"RXC_DIFF_JOBS=${RXC_DIFF_JOBS:-}" || rc=1
echo "diff-long: $programs programs from seed $first: $failed checks failed;" \
	"rxc-lo against rdma_rxe $same same, $known known, $unexplained unexplained"
exit "$rc"
