#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The uverbs fuzzer (tests/verbs/tools/uverbs_fuzz.c) on $DEV: worker
# threads throw random verbs, counter methods and raw ioctls at the device
# while an RC connection on it checks every byte it moves.  It passes when
# every call returned, the connection never failed, the device carries
# traffic afterwards, and (run-all's dmesg scan) the kernel said nothing.
#
# RXC_UVERBS_FUZZ_CALLS (default 100000, the CI smoke, about 10 s; 5000
# on the debug kernel, which manages some 100 calls a second, 1500 there
# in the fast tier),
# RXC_UVERBS_FUZZ_THREADS (4) and RXC_UVERBS_FUZZ_SEED (2026) set the run;
# the seed is printed either way.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE="fuzz-uverbs"
fuzz=${RXC_REPO:-/nonexistent}/build/tests/tools/uverbs_fuzz
calls=${RXC_UVERBS_FUZZ_CALLS:-$(by_kernel 100000 5000 1500)}
threads=${RXC_UVERBS_FUZZ_THREADS:-4}
seed=${RXC_UVERBS_FUZZ_SEED:-2026}

skip_unless_rxc_tool "uverbs fuzzer" "$fuzz" && exit 0

# Bounds for a run that hangs, ten times what a call takes at most.
run "uverbs_fuzz: $calls calls in $threads threads, seed $seed, traffic checked" \
	$((120 + calls / 50)) "$fuzz" -d "$DEV" -s "$seed" -n "$calls" -t "$threads" \
	-T $(((100 + calls / 60) * SLOW))
check "$DEV port still active" port_active
