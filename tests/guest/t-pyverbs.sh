#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# rdma-core's own pyverbs object tests (Debian's python3-pyverbs ships them
# under /usr/share/doc/rdma-core/tests, partly gzipped), one TAP line per
# test case.  They run from a scratch copy: the shared root is read-only and
# the repo must stay clean.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=pyverbs
src=/usr/share/doc/rdma-core/tests
# Small enough for the debug kernel; PYVERBS_TESTS overrides.
mods=${PYVERBS_TESTS:-test_device test_pd test_mr test_cq test_qp}
secs=$((${PYVERBS_TIMEOUT:-600} * SLOW))

if [ ! -f "$src/run_tests.py" ]; then
	skip "object tests" "python3-pyverbs tests not installed in $src"
	exit 0
fi
if ! dev_exists; then
	skip "object tests" "no $DEV device"
	exit 0
fi

# Tests that send traffic wait for rxc's data path (issue 3).
if [ "$DEV_TYPE" = rxc ] && [ "${RXC_DATA_PATH:-}" != 1 ]; then
	export PYVERBS_SKIP_FILE=$here/pyverbs-needs-data-path.txt
	export PYVERBS_SKIP_REASON="needs the data path (issue 3)"
fi

tmp=$(mktemp -d)
cp -r "$src" "$tmp/tests"
gunzip -f "$tmp"/tests/*.gz
out=$tmp/tap
rc=0
# Debian's python: pyverbs is installed for it, not for any other python3.
# shellcheck disable=SC2086
timeout -k 10 "$secs" /usr/bin/python3 "$here/pyverbs_tap.py" \
	"$tmp" "$DEV" "$GID_INDEX" $mods >"$out" || rc=$?
cat "$out" >>"$TAP"
echo "pyverbs: $(grep -c '^ok' "$out") ok ($(grep -c '# SKIP' "$out") skipped)," \
	"$(grep -c '^not ok' "$out") not ok, exit status $rc"
if [ "$rc" -eq 124 ]; then
	fail "run finished" "timed out after ${secs}s"
elif [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$out"; then
	fail "run" "exit status $rc without a failed test (crash?)"
elif ! grep -q . "$out"; then
	fail "run" "no test ran"
fi
rm -rf "$tmp"
