#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# What happens around the device: netdev events become port events or
# removal, removal with applications still holding the device open, and
# bad input from "rdma link add" and module parameters.
# Leaves $DEV in place on $NETDEV, as run-all.sh set it up.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=removal
IP=/usr/sbin/ip
hold=${RXC_REPO:-/nonexistent}/build/tests/tools/hold_device

if ! dev_exists; then
	skip "removal" "no $DEV device"
	exit 0
fi

port_state() { ibv_devinfo -d "$1" 2>/dev/null | awk '/state:/ { print $2; exit }'; }
port_is() { [ "$(port_state "$1")" = "$2" ]; }
gone() { ! rdma link show "$1/1" >/dev/null 2>&1; }
unloaded() { ! mod_loaded "$DRV_MOD"; }
relink() {
	mod_loaded "$DRV_MOD" || modprobe "$DRV_MOD"
	dev_exists || rdma link add "$DEV" type "$DEV_TYPE" netdev "$NETDEV"
	wait_for 20 port_active
}

# Netdev down/up is a port event.
run "$NETDEV down" 30 $IP link set "$NETDEV" down
check "port DOWN after $NETDEV down" wait_for 10 port_is "$DEV" PORT_DOWN
run "$NETDEV up" 30 $IP link set "$NETDEV" up
check "port ACTIVE after $NETDEV up" wait_for 20 port_is "$DEV" PORT_ACTIVE

# Unregistering the netdev removes the device bound to it.
run "create a second veth pair" 30 $IP link add veth2 type veth peer name veth3
run "veth2 up" 30 $IP link set veth2 up
run "rdma link add ${DEV_TYPE}9 on veth2" 30 \
	rdma link add "${DEV_TYPE}9" type "$DEV_TYPE" netdev veth2
run "delete veth2" 60 $IP link delete veth2
check "${DEV_TYPE}9 removed with veth2" wait_for 20 gone "${DEV_TYPE}9"

# Bad input to "rdma link add" fails cleanly.
run "link add on a non-Ethernet netdev fails" 30 \
	sh -c "! rdma link add ${DEV_TYPE}8 type $DEV_TYPE netdev lo"
check "no device left by the failed link add" gone "${DEV_TYPE}8"

# Removal while an application holds the device open.  rdma_rxe waits
# for applications to close the device; rxc revokes them.
holder() {	# holder NAME REMOVE-CMD...
	local name=$1 ready out pid rc=0
	shift
	ready=$(mktemp -u) out=$(mktemp)
	"$hold" "$DEV" "$ready" >"$out" 2>&1 &
	pid=$!
	if wait_for 60 test -e "$ready"; then
		run "$name" 60 "$@"
		timeout $((120 * SLOW)) tail --pid="$pid" -f /dev/null || true
	else
		fail "$name" "hold_device never got ready"
		kill "$pid" 2>/dev/null || true
	fi
	wait "$pid" || rc=$?
	sed "s/^\(not \)\{0,1\}ok - removal: /&$name: /" "$out" |
		grep -E '^(not )?ok' >>"$TAP" || true
	cat "$out"
	[ "$rc" -eq 0 ] || fail "$name: hold_device" "exit status $rc"
	rm -f "$ready" "$out"
}
if [ "$DEV_TYPE" != rxc ]; then
	skip "removal with open contexts" "rdma_rxe waits for contexts to close"
elif [ ! -x "$hold" ]; then
	skip "removal with open contexts" "$hold not built"
else
	holder "link delete with the device open" rdma link delete "$DEV"
	check "$DEV gone" gone "$DEV"
	check "re-create $DEV" relink
	holder "rmmod with the device open" rmmod "$DRV_MOD"
	check "$DRV_MOD unloaded" unloaded
	check "re-create $DEV after rmmod" relink
fi

# Module parameters out of range make modprobe fail with a message.
if [ "$DEV_TYPE" = rxc ]; then
	run "rmmod before parameter tests" 30 rmmod "$DRV_MOD"
	run "max_qp=0 is refused" 30 sh -c "! modprobe $DRV_MOD max_qp=0"
	check "max_qp=0 refusal names the range" \
		sh -c "dmesg | grep -q 'max_qp=0 is outside \[1, '"
	run "max_cqe=many is refused" 30 sh -c "! modprobe $DRV_MOD max_cqe=many"
	check "max_cqe=many refusal says why" \
		sh -c "dmesg | grep -q 'max_cqe: \"many\" is not an unsigned integer'"
	# Large enough CQs for ib_mad's GSI QP, if the CM is loaded.
	run "valid parameters load" 30 modprobe "$DRV_MOD" max_qp=64 max_cqe=4095
	check "re-create $DEV with small limits" relink
	check "max_qp reported as 64" \
		sh -c "ibv_devinfo -v -d $DEV | grep -Eq 'max_qp:[[:space:]]+64$'"
	run "unload after parameter tests" 60 sh -c "rdma link delete $DEV && rmmod $DRV_MOD"
	check "re-create $DEV with defaults" relink
fi
