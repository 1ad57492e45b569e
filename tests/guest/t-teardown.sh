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
# 2 on the debug kernel, 1 there in the fast tier) kill -9 rounds.
# Leaves $DEV in place on $NETDEV, as run-all.sh set it up.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=teardown
IP=/usr/sbin/ip

procs=${RXC_STORM_PROCS:-4}
rounds=${RXC_STORM_ROUNDS:-$(by_kernel 8 2 1)}

skip_unless_rxc_tool "teardown under traffic" "$STORM" && exit 0

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
STORM_LOGS=$RESULTS/teardown
mkdir -p "$STORM_LOGS"

dev_gone() { [ ! -e "/sys/class/infiniband/$1" ]; }
relink() {
	mod_loaded "$DRV_MOD" || modprobe "$DRV_MOD"
	dev_exists || link_add
	wait_for 20 port_active && wait_for 20 gid_index
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
	wait_for 30 counters_are "$DEV" 0
check "kill -9 storms: no QP left" wait_for 30 qps_are "$DEV" "$qps0"
run "traffic with counters after the storms" 120 "$STORM" -d "$DEV" -n 50

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
run "traffic with counters after the removals" 120 "$STORM" -d "$DEV" -n 50

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
