#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   vm/scan-dmesg.sh DIR
#
# Fail (exit 1, printing the offending lines) when a VM run's kernel log
# shows a kernel bug: BUG/WARNING/Oops/call traces, KASAN or UBSAN reports,
# lockdep splats, or kmemleak leaks.  Tests can pass while the kernel
# complains; this catches that.  Exit 2 if there is no log at all.
#
# DIR/dmesg.txt is read when the guest saved it, else the serial console
# (the guest died first).  Lines matching a regex in vm/dmesg-allow.txt
# are ignored (known, explained noise only).
set -euo pipefail

dir=${1:?usage: scan-dmesg.sh DIR}
allow=$(dirname "$0")/dmesg-allow.txt

bad='BUG:|WARNING:|KASAN|UBSAN|Oops|Call Trace|kernel panic|Kernel panic'
bad+='|possible circular locking|inconsistent lock state'
bad+='|possible recursive locking|suspicious RCU usage|INFO: '
bad+='|general protection fault|stack-protector|refcount_t:|list_(add|del) corruption'

if [ -f "$dir/dmesg.txt" ]; then
	logs=("$dir/dmesg.txt")
elif [ -f "$dir/console.log" ]; then
	logs=("$dir/console.log")
else
	echo "scan-dmesg: no dmesg.txt or console.log in $dir"
	exit 2
fi

# Comments and blank lines in the allow list are not patterns.
allow_re=$(grep -Ev '^[[:space:]]*(#|$)' "$allow" 2>/dev/null | paste -sd'|' || true)
# A test that injects faults marks its window in the log ("rxc-test:
# fault injection on" ... "off").  There an allocation that fails may
# report itself (warn_alloc: a "page allocation failure" or "vmalloc
# error" line, then a stack dump up to "</TASK>"); such reports are
# blanked, keeping line numbers.  Everything else is still read.
expected_faults() {
	awk '/rxc-test: fault injection on/ { w = 1 }
	     /rxc-test: fault injection off/ { w = 0; skip = 0 }
	     w && /(page allocation failure|vmalloc error):/ { skip = 1 }
	     skip { if (/<\/TASK>/) skip = 0; print ""; next }
	     { print }' "$1"
}
scan() {
	local log
	for log in "${logs[@]}"; do
		expected_faults "$log" | grep -HnE --label="$log" "$bad" || true
	done |
		if [ -n "$allow_re" ]; then grep -vE "$allow_re"; else cat; fi
	[ ! -f "$dir/kmemleak.txt" ] || grep -Hn 'unreferenced object' "$dir/kmemleak.txt"
}
found=$(scan || true)

if [ -n "$found" ]; then
	echo "scan-dmesg: kernel reported problems in $dir:"
	echo "$found" | head -n 60
	exit 1
fi
echo "scan-dmesg: clean: ${logs[*]} $(ls "$dir/kmemleak.txt" 2>/dev/null || true)"
