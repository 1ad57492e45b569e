#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   tests/host/t-diff-compare.sh
#
# Host-side test of tests/diff/compare.py, which decides whether two
# drivers' vdiff traces of one program agree.  When a completion is
# polled must not matter: on a loaded host a step that waits only for a
# quiet CQ can end before a completion comes, which then shows in the
# next step (seed 207 of a CI run, "step 6 against step 5").  What a
# completion says, and its place in its CQ, must: a lost, extra,
# reordered or altered completion, and a step whose awaited completion
# never came, still differ.
#
# Prints TAP ("ok - ...", "not ok - ...") and exits non-zero on a failure.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$repo/tests/host/tap.sh"
work=$(mktemp -d /tmp/rxc-diff-compare.XXXXXX)
trap 'rm -rf "$work"' EXIT
nfail=0

# The reference: a send and its receive in step 4, a failed write in step
# 5 (the run is dirty from then on), a send and its receive in step 6.
ref() {
	printf '%s\n' 'seed 207' 'step 4' \
		'  A sq 4.0 success (0) op 0' '  B rq 4.0 success (0) op 128 len 8' \
		'step 5' '  A sq 5.0 remote access error (10)' \
		'  B rq 5.0 success (0) op 128 len 16' \
		'step 6' '  A sq 6.0 success (0) op 0' \
		'  B rq 6.0 success (0) op 128 len 8' 'end' 'state A 6' 'state B 6'
}
# edit SED: the reference, changed by the sed script SED.
edit() { ref | sed "$1"; }

# case NAME WANT CAND: compare.py on the reference and CAND (a file)
# exits with WANT (0 agree, 1 an unexplained difference).
case_of() {
	local rc=0
	ref >"$work/ref"
	python3 "$repo/tests/diff/compare.py" compare "$work/ref" "$3" \
		>"$work/out" 2>&1 || rc=$?
	tap_same compare "$1" "$rc" "$2"
	[ "$rc" = "$2" ] || sed 's/^/# /' "$work/out"
}

ref >"$work/same"
# The receive of step 5 polled in step 6, as in seed 207.
edit '/^  B rq 5.0/d; /^  A sq 6.0/i\  B rq 5.0 success (0) op 128 len 16' >"$work/late"
# The send CQ's completions of steps 5 and 6 polled only at the end.
edit '/^  A sq [56].0/d; /^end$/i\  A sq 5.0 remote access error (10)\n  A sq 6.0 success (0) op 0' >"$work/at-end"
edit '/^  B rq 5.0/d' >"$work/lost"
edit '/^  B rq 6.0/p' >"$work/extra"
# Step 5's and step 6's receives, swapped within their CQ.
edit 's/^  B rq 5.0 .*/  B rq 6.0 success (0) op 128 len 8/; t; s/^  B rq 6.0 .*/  B rq 5.0 success (0) op 128 len 16/' >"$work/swapped"
edit 's/^  B rq 6.0 success (0) op 128 len 8/  B rq 6.0 success (0) op 128 len 9/' >"$work/altered"
# Step 6's send never completed within the step, and came in later.
edit '/^  A sq 6.0/d; /^end$/i\  A: no completion for the step\n  A sq 6.0 success (0) op 0' >"$work/stalled"

case_of "the same trace agrees" 0 "$work/same"
case_of "a receive polled one step later agrees" 0 "$work/late"
case_of "send completions polled at the end agree" 0 "$work/at-end"
case_of "a lost completion differs" 1 "$work/lost"
case_of "an extra completion differs" 1 "$work/extra"
case_of "two completions of one CQ in the other order differ" 1 "$work/swapped"
case_of "a completion with another length differs" 1 "$work/altered"
case_of "a step whose completion never came differs" 1 "$work/stalled"
[ "$nfail" -eq 0 ]
