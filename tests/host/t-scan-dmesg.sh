#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   tests/host/t-scan-dmesg.sh
#
# Host-side test of vm/scan-dmesg.sh, which fails a VM run on any kernel
# report.  Inside a window a fault-injection test marks, it must skip the
# allocation-failure reports that injected faults cause; it must still
# see every other report there, and the same allocation-failure report
# outside a window.
#
# Prints TAP ("ok - ...", "not ok - ...") and exits non-zero on a failure.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/rxc-scan-dmesg.XXXXXX)
trap 'rm -rf "$work"' EXIT
nfail=0

on='[ 10.0] rxc-test: fault injection on'
off='[ 20.0] rxc-test: fault injection off'
# warn_alloc()'s report: its header, a stack dump, the memory summary.
alloc_report() {
	printf '%s\n' "[ 11.0] fault_sweep: $1, mode:0xcc0(GFP_KERNEL)" \
		'[ 11.1] CPU: 0 PID: 123 Comm: fault_sweep' \
		'[ 11.2] Call Trace:' '[ 11.3]  <TASK>' \
		'[ 11.4]  dump_stack_lvl+0x4c/0x5f' '[ 11.5]  </TASK>' \
		'[ 11.6] Mem-Info:'
}
lockdep='[ 12.0] BUG: sleeping function called from invalid context at mm.h:274'

# expect NAME clean|dirty LINE...: scan-dmesg's verdict on a log of LINEs.
expect() {
	local name=$1 want=$2 got=clean
	shift 2
	printf '%s\n' '[  0.0] Linux version 6.1' "$@" >"$work/dmesg.txt"
	"$repo/vm/scan-dmesg.sh" "$work" >"$work/out" 2>&1 || got=dirty
	if [ "$got" = "$want" ]; then
		echo "ok - scan-dmesg: $name"
	else
		echo "not ok - scan-dmesg: $name (said $got, want $want)"
		sed 's/^/#   /' "$work/out"
		nfail=$((nfail + 1))
	fi
}

mapfile -t page < <(alloc_report "page allocation failure: order:0")
mapfile -t vmalloc < <(alloc_report "vmalloc error: size 8192")
expect "a page allocation failure inside a window is expected" clean \
	"$on" "${page[@]}" "$off"
expect "a vmalloc failure inside a window is expected" clean \
	"$on" "${vmalloc[@]}" "${page[@]}" "$off"
expect "an allocation failure outside any window is a report" dirty \
	"$on" "$off" "${page[@]}"
expect "another report inside a window is a report" dirty \
	"$on" "${page[@]}" "$lockdep" "$off"
expect "a stack dump of its own inside a window is a report" dirty \
	"$on" '[ 13.0] Call Trace:' "$off"
expect "a report after the window closed is a report" dirty \
	"$on" "${page[@]}" "$off" '[ 21.0] WARNING: CPU: 1 PID: 7 at foo.c:1'
expect "a report cut short is skipped no further than the window" dirty \
	"$on" "${page[@]::3}" "$off" '[ 21.0] Call Trace:'
exit $((nfail > 0))
