#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   tests/host/t-liveness-draws.sh
#
# Host-side test of the liveness tool's -D (tests/verbs/tools/liveness.c):
# each QP's requests follow from the seed alone, and -D prints them, so
# that a late request of the long run can be read against what stood
# ahead of it on its QP.  The records of runs rely on that: seed 3438's
# late 6-byte read (Documentation/results/2026-12-07-liveness-long-3401.rst)
# had a 4 MB read just ahead of it.  A change to how requests are drawn
# changes what every recorded seed ran, and must show here.
#
# Prints TAP and exits non-zero on a failure.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/rxc-liveness-draws.XXXXXX)
trap 'rm -rf "$work"' EXIT
nfail=0
# shellcheck source=SCRIPTDIR/tap.sh
. "$repo/tests/host/tap.sh"

make -s -C "$repo/tests/verbs" O="$work/o" TOOLS_O="$work" "$work/liveness"
live=$work/liveness

# line N OUTPUT: the Nth line, from 1.
line() { sed -n "$1p" <<<"$2"; }

out=$("$live" -D 119 -S 3438 -q 1)
tap_same liveness-draws "seed 3438, QP 0, request 117" "$(line 118 "$out")" \
	"liveness: seed 3438, QP 0, request 117: RDMA_READ, 4068180 bytes"
tap_same liveness-draws "seed 3438, QP 0, request 118" "$(line 119 "$out")" \
	"liveness: seed 3438, QP 0, request 118: RDMA_READ, 6 bytes"
tap_same liveness-draws "QPS QPs of N draws each" \
	"$("$live" -D 5 -S 7 -q 3 | wc -l)" 15
tap_same liveness-draws "-k w draws writes only, up to -s" \
	"$("$live" -D 50 -S 7 -k w -s 4096 |
		awk '$8 != "RDMA_WRITE," || $9 > 4096 { n++ } END { print n + 0 }')" 0
rc=0
"$live" -D 5 -S 7 localhost >/dev/null 2>&1 || rc=$?
tap_same liveness-draws "-D with a host is a usage error" "$rc" 2

[ "$nfail" = 0 ]
