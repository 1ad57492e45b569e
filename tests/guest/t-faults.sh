#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Fault injection, on a kernel built with CONFIG_FAULT_INJECTION_DEBUG_FS,
# FAILSLAB and FAIL_PAGE_ALLOC (the debug kernel; Debian's are not):
#
#   - fault_sweep (tests/verbs/tools/fault_sweep.c) makes each allocation
#     of each create, destroy, modify and attach path fail once through
#     the task's fail-nth, while a thread of its own moves checked data;
#   - skb allocations fail at random (failslab restricted to
#     skbuff_head_cache, which vm/run-vm.sh marks at boot) while storm_traffic processes move checked data
#     with completion counters attached: the requester and the responder
#     drop what they cannot allocate and the retransmit timer recovers.
#
# Afterwards no counter or QP may be left and the device must carry
# checked traffic.  Both run inside a window marked in the kernel log
# ("rxc-test: fault injection on/off"), where vm/scan-dmesg.sh accepts
# the reports allocation failures print (warn_alloc) and nothing else.
#
# RXC_FAULT_PCT (default 5) is the share of skb allocations that fail,
# RXC_FAULT_SECS (10; 20 on the debug kernel, 10 there in the fast
# tier) how long each of
# RXC_STORM_PROCS (4) processes moves checked data under them.
# Leaves $DEV in place on $NETDEV, as run-all.sh set it up.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=faults
sweep=${RXC_REPO:-/nonexistent}/build/tests/tools/fault_sweep
fi=/sys/kernel/debug
skb_cache=/sys/kernel/slab/skbuff_head_cache
pct=${RXC_FAULT_PCT:-5}
procs=${RXC_STORM_PROCS:-4}
secs=${RXC_FAULT_SECS:-$(by_kernel 10 20 10)}

skip_unless_rxc_tool "fault injection" "$sweep" && exit 0
mountpoint -q "$fi" || mount -t debugfs none "$fi"
if [ ! -e /proc/self/fail-nth ] || [ ! -d "$fi/failslab" ] ||
   [ ! -d "$fi/fail_page_alloc" ]; then
	skip "fault injection" "kernel without FAULT_INJECTION_DEBUG_FS, FAILSLAB, FAIL_PAGE_ALLOC (the debug kernel has them)"
	exit 0
fi
STORM_LOGS=$RESULTS/faults
mkdir -p "$STORM_LOGS"

window() { echo "rxc-test: fault injection $1" >/dev/kmsg; }

# fi_set ATTR NAME=VALUE...: failslab or fail_page_alloc settings.
fi_set() {
	local attr=$1 kv
	shift
	for kv in "$@"; do echo "${kv#*=}" >"$fi/$attr/${kv%%=*}"; done
}

# No random faults, no messages, and neither sleeping allocations nor
# order-0 pages exempt: only a task's fail-nth makes an allocation fail.
# User pages (highmem) stay exempt, so the tools' own memory is not hit.
fi_quiet() {
	fi_set failslab probability=0 interval=1 times=-1 space=0 verbose=0 \
		ignore-gfp-wait=N task-filter=N cache-filter=N
	fi_set fail_page_alloc probability=0 interval=1 times=-1 space=0 \
		verbose=0 ignore-gfp-wait=N ignore-gfp-highmem=Y \
		task-filter=N min-order=0
}

qps0=$(qps_of "$DEV")
cntrs0=$(counters_listed "$DEV")
check "fault injection: quiet until asked" fi_quiet

# --- each allocation of each verbs path fails once ------------------
window on
run "fault_sweep: each allocation of each verbs path fails once, checked traffic beside" \
	60 "$sweep" -d "$DEV" -T $((50 * SLOW))
window off

# --- skb allocations fail under checked traffic -----------------------
# The processes get ready (a first checked round) before the faults
# begin, since finding the device takes netlink messages, which are skbs
# too; then they run for $secs seconds under them.
skb_faults() {	# random skb allocation failures while a storm runs
	local rc=0
	if ! storm_start "$DEV" "$procs" skb -T "$secs"; then
		storm_kill
		return 1
	fi
	window on
	fi_set failslab cache-filter=Y probability="$pct"
	storm_end skb 60 || rc=1
	fi_quiet
	window off
	return $rc
}
# vm/run-vm.sh boots the debug kernel with slub_debug=A,skbuff_head_cache:
# before Linux 6.2 only the command line can mark a cache for failslab.
if [ "$(cat "$skb_cache/failslab" 2>/dev/null)" = 1 ]; then
	rt0=$(hw_counter "$DEV" retransmits)
	check "$pct % of skb allocations fail: each process ends by itself, data intact, counters agree" \
		skb_faults
	rt1=$(hw_counter "$DEV" retransmits)
	echo "# retransmitted packets: $rt0 -> $rt1"
	rdma statistic show link "$DEV/1"
	check "the lost packets were retransmitted (retransmits rose)" \
		test "$rt1" -gt "$rt0"
else
	skip "skb allocation faults" "skbuff_head_cache not marked for failslab (slub_debug=A,skbuff_head_cache)"
fi

check "no counter left after the faults (debugfs)" \
	wait_for 30 counters_are "$DEV" "$cntrs0"
check "no QP left after the faults" wait_for 30 qps_are "$DEV" "$qps0"
run "traffic with counters after the faults" 120 "$STORM" -d "$DEV" -n 50
check "$DEV port still active" port_active
