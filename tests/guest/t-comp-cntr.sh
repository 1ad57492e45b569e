#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Completion counters around the C tests (t-verbs runs those):
# - what a process holding counters shows: debugfs lists each counter with
#   its values, type, memory and attached QPs/ops, and "rdma statistic"
#   counts counters created, attached and updated;
# - kill -9 of that process (a thread blocked in WAIT, an armed eventfd,
#   counters attached to QPs) cleans everything up;
# - rdma link delete and rmmod while such a process is alive do not hang
#   on its WAIT and leave nothing behind (kmemleak checks on the debug
#   kernel);
# - a narrower max_value (cntr_max_value_bits=31): the counter C tests
#   again, whose wrap test then wraps at 2^31;
# - on the debug kernel, the waiting tests (t_comp_cntr_wait: updates and
#   a destroy from another thread while one waits), which t-verbs runs on
#   the stock kernels, under lockdep, KASAN and kmemleak.
# Leaves $DEV in place on $NETDEV with default parameters, as run-all.sh
# set it up.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=comp_cntr
repo=${RXC_REPO:-/nonexistent}
hold=$repo/build/tests/tools/hold_cntrs
verbs=${VERBS_DIR:-$repo/build/tests/verbs}
dbg=/sys/kernel/debug/rdma_rxc/$DEV/comp_cntrs

if [ "$DEV_TYPE" != rxc ]; then
	skip "completion counters" "rdma_rxe has no completion counters"
	exit 0
fi
if ! dev_exists; then
	skip "completion counters" "no $DEV device"
	exit 0
fi
if [ ! -x "$hold" ]; then
	skip "completion counters" "$hold not built"
	exit 0
fi

# c_test LABEL PROG: a C test program against $DEV, its lines labelled.
c_test() {
	local label=$1 prog=$verbs/$2 res rc=0
	if [ ! -x "$prog" ]; then
		skip "$label: $2" "not built"
		return 0
	fi
	res=$(mktemp)
	timeout -k 5 $((120 * SLOW)) "$prog" "$DEV" >"$res" 2>&1 || rc=$?
	cat "$res"
	sed -nE "s/^(not ok|ok)( [0-9]+)? - (.*)\$/\\1 - $SUITE: $label: \\3/p" \
		"$res" >>"$TAP"
	[ "$rc" -eq 0 ] || fail "$label: $2" "exit status $rc"
	rm -f "$res"
}

# The object rxc registered is the one this kernel calls for: the core's
# where the core has one (7.3, the debug kernel's backport), rxc's own
# elsewhere (6.1, 6.12, 7.2, and debug-compat's unpatched core).
case ${RXC_KERNEL:-} in
debug | stock-7.3) object="the core's object" ;;
*) object="rxc's own object" ;;
esac
check "counters through $object on ${RXC_KERNEL:-?}" counters_through "$object"

if [ "$SLOW" -gt 1 ]; then
	c_test sanitizers t_comp_cntr_wait
fi

relink() {	# relink [MODULE PARAMS...]: fresh module and device
	dev_exists && { link_del || true; }
	! mod_loaded "$DRV_MOD" || rmmod "$DRV_MOD" || return 1
	modprobe "$DRV_MOD" "$@" || return 1
	link_add || return 1
	wait_for 20 port_active && wait_for 20 gid_index
}
# stat_of NAME: the device's hw counter NAME
stat_of() { hw_counter "$DEV" "$1"; }

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

# start_holder: hold_cntrs in the background; sets $pid, $qp1, $qp2.
out=$(mktemp)
start_holder() {
	local ready
	ready=$(mktemp -u)
	"$hold" "$DEV" "$ready" >"$out" 2>&1 &
	pid=$!
	if ! wait_for 60 test -e "$ready"; then
		cat "$out"
		kill -9 "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		rm -f "$ready"
		return 1
	fi
	rm -f "$ready"
	read -r _ qp1 _ qp2 <"$out"
}

created0=$(stat_of comp_cntr_created)
destroyed0=$(stat_of comp_cntr_destroyed)
attached0=$(stat_of comp_cntr_attached)
updates0=$(stat_of comp_cntr_updates)

# --- what a holder shows --------------------------------------------
if start_holder; then
	pass "hold_cntrs sets up counters, attachments, NOTIFY and WAIT"
	echo "+ cat $dbg"
	cat "$dbg"
	check "debugfs lists the three counters" \
		counters_are "$DEV" 3
	check "debugfs shows the WRS counter at 5, on qp$qp1 for SEND|RECV" \
		grep -qE "^[0-9]+ 5 0 wrs page page .* qp$qp1:0x3( |\$)" "$dbg"
	check "debugfs shows the BYTES counter in user memory on both QPs" \
		grep -qE "^[0-9]+ 0 0 bytes va page .* qp$qp1:0x10 qp$qp2:0x28\$" "$dbg"
	check "debugfs shows an unattached counter" \
		grep -qE "^[0-9]+ 0 0 wrs page page 0xffffffffffffffff -\$" "$dbg"
	rdma statistic show link "$DEV/1"
	check "rdma statistic counts 3 counters created" \
		test "$(($(stat_of comp_cntr_created) - created0))" -eq 3
	check "rdma statistic counts 3 attachments" \
		test "$(($(stat_of comp_cntr_attached) - attached0))" -eq 3
	check "rdma statistic counts the update" \
		test "$(($(stat_of comp_cntr_updates) - updates0))" -eq 1
	# The core's resource tracking (kernel-patches/ 0003) counts them.
	if core_comp_cntr; then
		rdma resource show "$DEV"
		check "rdma resource counts the 3 counters (the core's object)" \
			test "$(res_count "$DEV" comp_cntr)" = 3
	fi

	# --- kill -9 -----------------------------------------------------
	run "kill -9 the holder" 10 kill -9 "$pid"
	check "the holder dies although a thread waits in WAIT" \
		wait_for 30 pid_gone "$pid"
	wait "$pid" 2>/dev/null || true
	check "kill -9 destroyed every counter (debugfs)" \
		wait_for 30 counters_are "$DEV" 0
	check "kill -9 destroyed every counter (rdma statistic)" \
		test "$(($(stat_of comp_cntr_destroyed) - destroyed0))" -eq 3
	if core_comp_cntr; then
		check "rdma resource counts no counter after kill -9 (the core's object)" \
			test "$(res_count "$DEV" comp_cntr)" = 0
	fi
else
	fail "hold_cntrs sets up counters, attachments, NOTIFY and WAIT"
fi

# --- link delete and rmmod under a live holder ----------------------
if start_holder; then
	run "rdma link delete while a holder waits in WAIT" 60 \
		rdma link delete "$DEV"
	check "the holder's WAIT ended when the device went" \
		wait_for 30 grep -q "wait returned" "$out"
	grep "wait returned" "$out" || true
	check "the WAIT ended with EIO and the values it saw last" \
		grep -q "wait returned Input/output error, values 0 0" "$out"
	run "kill -9 the holder after link delete" 10 kill -9 "$pid"
	wait "$pid" 2>/dev/null || true
	run "rmmod $DRV_MOD after it" 60 rmmod "$DRV_MOD"
else
	fail "holder for link delete"
fi
if relink && start_holder; then
	run "rmmod while a holder waits in WAIT" 120 rmmod "$DRV_MOD"
	run "kill -9 the holder after rmmod" 10 kill -9 "$pid"
	wait "$pid" 2>/dev/null || true
else
	fail "holder for rmmod"
fi
check "$DRV_MOD unloaded" sh -c "! test -e /sys/module/$DRV_MOD"
rm -f "$out"

# --- a narrower max_value --------------------------------------------
if relink cntr_max_value_bits=31; then
	pass "reload with cntr_max_value_bits=31"
	c_test 31-bit t_comp_cntr
else
	fail "reload with cntr_max_value_bits=31"
fi
check "restore $DEV with default parameters" relink
