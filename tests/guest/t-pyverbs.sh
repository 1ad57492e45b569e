#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# rdma-core's own pyverbs tests (Debian's python3-pyverbs ships them under
# /usr/share/doc/rdma-core/tests, partly gzipped), one TAP line per test
# case, run from a scratch copy: the shared root is read-only and the repo
# must stay clean.
#
# The whole suite runs against $DEV.  With DEV_TYPE=rxc it then runs again
# against the kernel's rdma_rxe in the same VM, as the reference: rxc may
# skip nothing that rxe does not skip, and must pass everything rxe
# passes.  Both skip lists are printed side by side.  A test listed in
# pyverbs-async-completion.txt that fails on both devices in the same
# boot is reported as skipped, with that file as the reason.  rdma_rxe
# binds UDP 4791 in the initial namespace when it loads, so rxc0 goes
# first and comes back after "rmmod rdma_rxe" (which also unregisters rxc
# devices: the two drivers share a driver id).
#
# Until rxc's data path lands (RXC_DATA_PATH=1), rxc runs only the object
# tests (PYVERBS_GATED_TESTS) with the traffic tests among them listed in
# pyverbs-needs-data-path.txt skipped, and the comparison is skipped.
# On the debug kernel PYVERBS_TESTS defaults to the object tests too.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=pyverbs
src=/usr/share/doc/rdma-core/tests
objects="test_device test_pd test_mr test_cq test_qp"
if [ "$SLOW" -gt 1 ]; then mods=${PYVERBS_TESTS:-$objects}; else mods=${PYVERBS_TESTS:-all}; fi
secs=$((${PYVERBS_TIMEOUT:-900} * SLOW))
IP=/usr/sbin/ip

if [ ! -f "$src/run_tests.py" ]; then
	skip "suite" "python3-pyverbs tests not installed in $src"
	exit 0
fi
if ! dev_exists; then
	skip "suite" "no $DEV device"
	exit 0
fi

tmp=$(mktemp -d)
cp -r "$src" "$tmp/tests"
gunzip -f "$tmp"/tests/*.gz
# The rdma_cm tests need rdma_ucm, which nothing autoloads here.
ucm_was_loaded=false
mod_loaded rdma_ucm && ucm_was_loaded=true
modprobe rdma_ucm || true

# pyverbs_run DEV GID SUITE OUT SKIPFILE MODULES...: the TAP lines go to
# OUT; sets RC to the runner's exit status.
pyverbs_run() {
	local dev=$1 gid=$2 suite=$3 out=$4 skipfile=$5
	shift 5
	RC=0
	echo "+ pyverbs_tap.py $dev --gid $gid ($suite): $*"
	# Debian's python: pyverbs is installed for it, not for any other python3.
	PYVERBS_SUITE=$suite PYVERBS_SKIP_FILE=$skipfile \
		timeout -k 10 "$secs" /usr/bin/python3 "$here/pyverbs_tap.py" \
		"$tmp" "$dev" "$gid" "$@" >"$out" || RC=$?
	echo "$suite on $dev: $(grep -c '^ok' "$out") ok ($(grep -c '# SKIP' "$out") skipped)," \
		"$(grep -c '^not ok' "$out") not ok, exit status $RC"
}

# The runner itself must finish: a timeout or a crash is a failure too.
check_run() {	# WHAT OUT
	if [ "$RC" -eq 124 ]; then
		fail "$1 finished" "timed out after ${secs}s"
	elif [ "$RC" -ne 0 ] && ! grep -q '^not ok' "$2"; then
		fail "$1" "exit status $RC without a failed test (crash?)"
	elif ! grep -q . "$2"; then
		fail "$1" "no test ran"
	fi
}

# Tests listed as skipped, with the reason, in one file for the runner.
skips=$tmp/skips.txt
: >"$skips"
reason=''
if data_path_gated; then
	mods=${PYVERBS_GATED_TESTS:-$objects}
	cat "$here/pyverbs-needs-data-path.txt" >>"$skips"
	reason="needs the data path (issue 3)"
elif [ "$DEV_TYPE" = rxe ]; then
	# What 6.1's rdma_rxe lacks is a skip when it is the device under test.
	cat "$here/pyverbs-rxe-lacks.txt" >>"$skips"
	reason="rdma_rxe 6.1 lacks this (pyverbs-rxe-lacks.txt)"
else
	# What rxc lacks yet: skipped, and named as a known gap below.
	cat "$here/pyverbs-rxc-gaps.txt" >>"$skips"
	reason="not in rxc yet (pyverbs-rxc-gaps.txt)"
fi
gaps=$(grep -v '^#' "$here/pyverbs-rxc-gaps.txt" | sort || true)
export PYVERBS_SKIP_REASON=${reason:-listed as skipped}

main=$tmp/main.tap
# shellcheck disable=SC2086  # a list of module names
pyverbs_run "$DEV" "$GID_INDEX" pyverbs "$main" "$skips" $mods
check_run "run" "$main"

# excuse_async MAIN REF: a test in pyverbs-async-completion.txt that
# failed on both devices becomes a skip in MAIN, with the reason, and is
# listed in $excused.
excused=$tmp/excused.txt
: >"$excused"
excuse_async() {
	local t why='fails on rdma_rxe too: assumes a synchronous completion (pyverbs-async-completion.txt)'
	grep -v '^#' "$here/pyverbs-async-completion.txt" | while read -r t; do
		[ -n "$t" ] || continue
		grep -qx "not ok - [^:]*: $t" "$2" || continue
		sed -i "s/^not ok - \([^:]*\): $t\$/ok - \1: $t # SKIP $why/" "$1"
		echo "$t" >>"$excused"
	done
}

if [ "$DEV_TYPE" != rxc ]; then
	cat "$main" >>"$TAP"
	skip "rxc vs rxe skip lists" "DEV_TYPE=$DEV_TYPE: no rxc run to compare"
else
	# The reference: the same tests against rdma_rxe, not counted as
	# results of this suite (rxe's own failures are not rxc's).
	ref=$tmp/rxe.tap
	run "reference: rdma link delete $DEV" 30 rdma link delete "$DEV"
	modprobe crc32_generic 2>/dev/null || modprobe crc32-pclmul 2>/dev/null || true
	run "reference: modprobe rdma_rxe" 60 modprobe rdma_rxe
	run "reference: rxe0 on $NETDEV" 30 rdma link add rxe0 type rxe netdev "$NETDEV"
	check "reference: rxe0 port active" wait_for 20 sh -c \
		"grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state"
	check "reference: rxe0 has a GID for $IPADDR" wait_for 20 \
		gid_index_of rxe0 "$IPADDR"
	# shellcheck disable=SC2086
	pyverbs_run rxe0 "$(gid_index_of rxe0 "$IPADDR" || echo 1)" \
		pyverbs-rxe "$ref" /dev/null $mods
	check_run "reference run on rxe0" "$ref"
	cp "$ref" "$RESULTS/pyverbs-rxe.tap"
	excuse_async "$main" "$ref"
	cat "$main" >>"$TAP"
	run "reference: rdma link delete rxe0" 30 rdma link delete rxe0
	run "reference: rmmod rdma_rxe" 60 rmmod rdma_rxe
	run "reference: re-create $DEV" 60 rdma link add "$DEV" type "$DEV_TYPE" netdev "$NETDEV"
	check "reference: $DEV port active again" wait_for 20 port_active

	# Side by side: every test that skipped or failed on either device.
	/usr/bin/python3 - "$main" "$ref" "$RESULTS/pyverbs-compare.txt" <<'EOF'
import re
import sys

def load(path):
    res = {}
    for ln in open(path):
        m = re.match(r'(ok|not ok) - [\w-]+: (\S+)( # SKIP (.*))?$', ln.rstrip('\n'))
        if m:
            res[m.group(2)] = ('skip: ' + m.group(4)) if m.group(3) else (
                'pass' if m.group(1) == 'ok' else 'FAIL')
    return res

rxc, rxe = load(sys.argv[1]), load(sys.argv[2])
rows = sorted(t for t in set(rxc) | set(rxe)
              if rxc.get(t, '-') != 'pass' or rxe.get(t, '-') != 'pass')
w = max([len(t) for t in rows] + [4])
with open(sys.argv[3], 'w') as f:
    for out in (sys.stdout, f):
        print(f'{"test":{w}}  {"rxc":50.50}  rxe', file=out)
        for t in rows:
            print(f'{t:{w}}  {rxc.get(t, "-"):50.50}  {rxe.get(t, "-")}', file=out)
        for name, r in (('rxc', rxc), ('rxe', rxe)):
            v = list(r.values())
            print(f'{name}: {len(v)} tests, {v.count("pass")} passed, '
                  f'{sum(x.startswith("skip") for x in v)} skipped, '
                  f'{v.count("FAIL")} failed', file=out)
EOF
	if data_path_gated; then
		skip "rxc skips nothing that rxe does not skip" "$DATA_PATH_REASON"
		skip "rxc passes everything rxe passes" "$DATA_PATH_REASON"
	else
		extra=$(comm -23 <(grep '# SKIP' "$main" | sed 's/^ok - [^:]*: \([^ ]*\) .*/\1/' | sort) \
			<(grep '# SKIP' "$ref" | sed 's/^ok - [^:]*: \([^ ]*\) .*/\1/' | sort) |
			comm -23 - <(echo "$gaps") | comm -23 - <(sort "$excused"))
		echo "pyverbs: known rxc gaps (pyverbs-rxc-gaps.txt): ${gaps//$'\n'/ }"
		check "rxc skips nothing that rxe does not skip${extra:+: }${extra//$'\n'/ }" \
			test -z "$extra"
		lost=$(comm -23 <(grep -v '# SKIP' "$ref" | sed -n 's/^ok - [^:]*: \([^ ]*\)$/\1/p' | sort) \
			<(grep -v '# SKIP' "$main" | sed -n 's/^ok - [^:]*: \([^ ]*\)$/\1/p' | sort) |
			comm -23 - <(echo "$gaps"))
		check "rxc passes everything rxe passes${lost:+: }${lost//$'\n'/ }" \
			test -z "$lost"
	fi
fi

if ! $ucm_was_loaded; then
	modprobe -r rdma_ucm 2>/dev/null || true
fi
rm -rf "$tmp"
