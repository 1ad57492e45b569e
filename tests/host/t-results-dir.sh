#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   tests/host/t-results-dir.sh
#
# Host-side test of vm/results-dir.sh, which gives each VM run an empty
# results directory.  Every file of an earlier run must go, those its
# guest script wrote too: once, a wire bench's step logs and profiles
# outlived their run, and an earlier, longer run's later steps read as
# the new run's.  A directory that is not an earlier run's results must
# be refused and keep its files.
#
# Prints TAP ("ok - ...", "not ok - ...") and exits non-zero on a failure.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/rxc-results-dir.XXXXXX)
trap 'rm -rf "$work"' EXIT
nfail=0
# shellcheck source=SCRIPTDIR/tap.sh
. "$repo/tests/host/tap.sh"
# shellcheck source=SCRIPTDIR/../../vm/results-dir.sh
. "$repo/vm/results-dir.sh"

same() { tap_same "results dir" "$@"; }	# same NAME GOT WANT
listing() { (cd "$1" && find . -mindepth 1 | sort | tr '\n' ,); }

# reset NAME DIR WANT-STATUS WANT-LISTING: one call, then what DIR holds.
reset() {
	local rc=0 out
	out=$(results_dir_reset "$2" 2>"$work/err") || rc=$?
	same "$1: status" "$rc" "$3"
	same "$1: what is left" "$(listing "$2")" "$4"
	[ "$rc" -ne 0 ] || same "$1: prints the absolute path" "$out" "$(realpath "$2")"
}

old=$work/earlier
mkdir -p "$old/.vm/modroot" "$old/wire-logs"
touch "$old/console.log" "$old/.vm/exit-status" "$old/wire-logs/7-a.log" \
	"$old/perf-rxc-3.txt" "$old/bench.log"
reset "an earlier run's results" "$old" 0 ""
reset "a new dir" "$work/new/results" 0 ""
mkdir "$work/empty"
reset "an empty dir" "$work/empty" 0 ""
mkdir "$work/mine"
touch "$work/mine/notes.txt"
reset "a dir that is no run's results" "$work/mine" 1 "./notes.txt,"
same "a refusal says why" "$(grep -c "no earlier run's .vm" "$work/err")" 1
[ "$nfail" -eq 0 ]
