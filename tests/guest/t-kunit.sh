#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Load the KUnit test modules (*kunit*.ko among the modules under test).
# Their results are KTAP in the kernel log, which the host parses
# (vm/parse-ktap.sh): this script only brackets each load with markers in
# the log, so that a module that crashes or prints no plan is noticed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=kunit
secs=$((${KUNIT_TIMEOUT:-120} * SLOW))

kos=()
for f in "${RXC_MODULES_DIR:-/nonexistent}"/*kunit*.ko; do
	[ -f "$f" ] && kos+=("$f")
done
if [ ${#kos[@]} -eq 0 ]; then
	skip "test modules" "no *kunit*.ko among the modules under test"
	exit 0
fi

for f in "${kos[@]}"; do
	m=$(basename "$f" .ko)
	if [ ! -d /sys/kernel/debug/kunit ] && ! mod_loaded kunit; then
		skip "$m" "kernel $(uname -r) has no KUnit"
		continue
	fi
	echo "rxc-kunit: begin $m" >/dev/kmsg
	rc=0
	echo "+ modprobe $m"
	timeout -k 5 "$secs" modprobe "$m" || rc=$?
	echo "rxc-kunit: end $m rc=$rc" >/dev/kmsg
	rmmod "$m" || true
done
