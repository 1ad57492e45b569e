#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Teardown under traffic: processes that move checked data through QPs
# with completion counters attached (tests/verbs/tools/storm_traffic.c)
# are killed with SIGKILL in storms, and the device, the module and the
# netdev are removed under them.  Afterwards no counter or QP may be
# left, every process must have ended by itself with its data intact,
# the device must carry traffic again, and (run-all's dmesg scan) the
# kernel must have said nothing.
#
# RXC_STORM_PROCS (default 4) processes at a time, RXC_STORM_ROUNDS (8;
# 3 on the debug kernel) kill -9 rounds.
# Leaves $DEV in place on $NETDEV, as run-all.sh set it up.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=teardown
IP=/usr/sbin/ip
storm=${RXC_REPO:-/nonexistent}/build/tests/tools/storm_traffic
procs=${RXC_STORM_PROCS:-4}
if [ "$SLOW" -gt 1 ]; then rounds=${RXC_STORM_ROUNDS:-3}; else rounds=${RXC_STORM_ROUNDS:-8}; fi

skip_unless_rxc_tool "teardown under traffic" "$storm" && exit 0

dbg_dir=/sys/kernel/debug/rdma_rxc
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
logs=$RESULTS/teardown
mkdir -p "$logs"

counters_listed() {	# counters_listed DEV: how many counters debugfs lists
	grep -vc '^handle' "$dbg_dir/$1/comp_cntrs" || true
}
qps_of() {	# qps_of DEV: how many QPs rdma resource lists on DEV
	rdma resource show qp link "$1/1" 2>/dev/null | grep -c 'lqpn' || true
}
gone() { ! kill -0 "$1" 2>/dev/null; }
dev_gone() { [ ! -e "/sys/class/infiniband/$1" ]; }
relink() {
	mod_loaded "$DRV_MOD" || modprobe "$DRV_MOD"
	dev_exists || link_add
	wait_for 20 port_active && wait_for 20 gid_index
}

# storm_start DEV N TAG: N storm_traffic processes on DEV, each one's
# ready file and log under $logs/TAG.*; their PIDs in $pids.  False if
# one does not get through its first checked round.
pids=()
storm_start() {
	local dev=$1 n=$2 tag=$3 i
	pids=()
	for ((i = 0; i < n; i++)); do
		rm -f "$logs/$tag.$i.ready"
		"$storm" -d "$dev" -T $((300 * SLOW)) "$logs/$tag.$i.ready" \
			>"$logs/$tag.$i.log" 2>&1 &
		pids+=($!)
	done
	for ((i = 0; i < n; i++)); do
		wait_for 60 ready_or_dead "$logs/$tag.$i.ready" "${pids[$i]}"
		if [ ! -e "$logs/$tag.$i.ready" ]; then
			echo "teardown: $tag.$i did not get ready:"
			cat "$logs/$tag.$i.log"
			return 1
		fi
	done
}
ready_or_dead() { [ -e "$1" ] || ! kill -0 "$2" 2>/dev/null; }

# storm_end TAG: wait (bounded) for every process; true if all exited 0.
storm_end() {
	local tag=$1 i rc ok=0
	for i in "${!pids[@]}"; do
		wait_for 120 gone "${pids[$i]}" || kill -9 "${pids[$i]}" 2>/dev/null || true
		rc=0
		wait "${pids[$i]}" 2>/dev/null || rc=$?
		if [ "$rc" -ne 0 ]; then
			echo "teardown: $tag.$i exited $rc:"
			cat "$logs/$tag.$i.log"
			ok=1
		fi
	done
	return $ok
}

# storm_kill: SIGKILL every process of the storm and reap them.
storm_kill() {
	local p
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}

# --- kill -9 storms -------------------------------------------------
qps0=$(qps_of "$DEV")
killed=0
for ((r = 0; r < rounds; r++)); do
	if ! storm_start "$DEV" "$procs" "kill$r"; then
		storm_kill
		fail "kill -9 storm round $r: every process got through a checked round"
		break
	fi
	# At a different point of the traffic each round, the same each run.
	sleep "0.$((r * 3 % 10))"
	storm_kill
	killed=$((killed + procs))
done
check "kill -9 storms: $killed processes killed under traffic" test "$killed" -eq $((rounds * procs))
check "kill -9 storms: no counter left (debugfs)" \
	wait_for 30 test "$(counters_listed "$DEV")" -eq 0
check "kill -9 storms: no QP left" wait_for 30 test "$(qps_of "$DEV")" -eq "$qps0"
run "traffic with counters after the storms" 120 "$storm" -d "$DEV" -n 50

# --- rdma link delete and rmmod under traffic -----------------------
under_traffic() {	# under_traffic NAME CMD...: CMD while a storm runs
	local name=$1
	shift
	if ! storm_start "$DEV" "$procs" "${name// /_}"; then
		storm_kill
		fail "$name: every process got through a checked round"
		return
	fi
	run "$name" 120 "$@"
	check "$name: each process ended by itself, its data intact" storm_end "${name// /_}"
}
under_traffic "rdma link delete under traffic" rdma link delete "$DEV"
check "$DEV gone after link delete" dev_gone "$DEV"
check "re-create $DEV" relink
under_traffic "rmmod under traffic" rmmod "$DRV_MOD"
check "$DRV_MOD unloaded" sh -c "! test -e /sys/module/$DRV_MOD"
check "re-create $DEV after rmmod" relink
run "traffic with counters after the removals" 120 "$storm" -d "$DEV" -n 50

# --- netdev removal under traffic -----------------------------------
dev9=${DEV_TYPE}9
netdev_setup() {
	$IP link add veth4 type veth peer name veth5 &&
		$IP addr add 10.78.0.1/24 dev veth4 &&
		$IP link set veth4 up && $IP link set veth5 up &&
		rdma link add "$dev9" type "$DEV_TYPE" netdev veth4 &&
		wait_for 20 gid_index_of "$dev9" 10.78.0.1
}
if netdev_setup; then
	pass "a second device on its own veth pair"
	# storm_traffic uses the GID at index 1, the IPv4 one here too.
	check "$dev9's IPv4 GID is at index 1" \
		test "$(gid_index_of "$dev9" 10.78.0.1)" = 1
	if storm_start "$dev9" "$procs" netdev; then
		run "delete the netdev under traffic" 120 $IP link delete veth4
		check "delete the netdev under traffic: each process ended by itself, its data intact" \
			storm_end netdev
		check "$dev9 removed with its netdev" wait_for 20 dev_gone "$dev9"
	else
		storm_kill
		fail "netdev removal: every process got through a checked round"
	fi
else
	fail "a second device on its own veth pair"
fi
$IP link delete veth4 2>/dev/null || true
check "$DEV port still active" port_active
