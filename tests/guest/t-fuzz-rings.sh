#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The ring fuzzer (tests/verbs/tools/ring_fuzz.c) on $DEV: a process
# writes hostile indices and WQEs into its own mapped rings while the
# kernel processes them, and a connection on another context checks every
# byte it moves.  It passes when every call returned, memory registered in
# another PD stayed untouched and unread, the checked traffic never failed,
# the device carries traffic afterwards, and (run-all's dmesg scan) the
# kernel said nothing.
#
# RXC_RING_FUZZ_ACTIONS (default 20000, the CI smoke; 3000 on the debug
# kernel, 1000 there in the fast tier) and RXC_RING_FUZZ_SEED (2026) set the run; the seed is printed
# either way.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE="fuzz-rings"
fuzz=${RXC_REPO:-/nonexistent}/build/tests/tools/ring_fuzz
actions=${RXC_RING_FUZZ_ACTIONS:-$(by_kernel 20000 3000 1000)}
seed=${RXC_RING_FUZZ_SEED:-2026}

skip_unless_rxc_tool "ring fuzzer" "$fuzz" && exit 0

run "ring_fuzz: $actions actions, seed $seed, memory of another PD and traffic checked" \
	$((120 + actions / 20)) "$fuzz" -d "$DEV" -s "$seed" -n "$actions" \
	-T $(((100 + actions / 30) * SLOW))
check "$DEV port still active" port_active
