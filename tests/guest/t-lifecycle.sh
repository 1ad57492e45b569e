#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Device and module lifecycle: link delete/add, module unload with and
# without a device, and autoload through the rdma-link-<type> alias.
# Leaves the device in place, as run-all.sh set it up.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=lifecycle

if ! mod_loaded "$DRV_MOD"; then
	skip "lifecycle" "$DRV_MOD is not loaded"
	exit 0
fi
gone() { ! dev_exists; }
unloaded() { ! mod_loaded "$DRV_MOD"; }

dev_exists && run "rdma link delete $DEV" 30 rdma link delete "$DEV"
check "$DEV gone after link delete" wait_for 10 gone
run "rmmod $DRV_MOD" 30 rmmod "$DRV_MOD"
check "$DRV_MOD unloaded" unloaded

run "modprobe $DRV_MOD again" 30 modprobe "$DRV_MOD"
run "rdma link add $DEV again" 30 rdma link add "$DEV" type "$DEV_TYPE" netdev "$NETDEV"
check "$DEV port active again" wait_for 20 port_active

# A few quick add/delete cycles: leaks and refcount bugs show up here
# (kmemleak and KASAN on the debug kernel).
for i in 1 2 3; do
	run "cycle $i: link delete" 30 rdma link delete "$DEV"
	run "cycle $i: link add" 30 rdma link add "$DEV" type "$DEV_TYPE" netdev "$NETDEV"
done
run "duplicate link add fails" 30 sh -c "! rdma link add $DEV type $DEV_TYPE netdev $NETDEV"

# Link adds racing on one netdev make one device, never more.  Each
# round sends four requests at once (tools/link_add_race); the first
# device in a namespace opens its sockets, which keeps the window between
# the check and the device's listing wide.
race=${RXC_REPO:-/nonexistent}/build/tests/tools/link_add_race
one_device() { [ "$(rdma link show | grep -cw "netdev $NETDEV")" -eq 1 ]; }
for i in 1 2 3; do
	run "race $i: link delete" 30 rdma link delete "$DEV"
	run "race $i: four link adds at once" 30 \
		"$race" "$DEV_TYPE" "$NETDEV" "${DEV}a" "${DEV}b" "${DEV}c" "${DEV}d"
	check "race $i: one device results" one_device
	for d in a b c d; do
		rdma link delete "$DEV$d" 2>/dev/null || true
	done
	run "race $i: link add $DEV" 30 rdma link add "$DEV" type "$DEV_TYPE" netdev "$NETDEV"
done

# Unloading the driver must remove a device that still exists.
run "rmmod $DRV_MOD with $DEV present" 30 rmmod "$DRV_MOD"
check "$DEV removed by rmmod" gone

# Autoload: the kernel asks modprobe for "rdma-link-$DEV_TYPE".
check "$DRV_MOD not loaded before autoload" unloaded
run "rdma link add autoloads $DRV_MOD" 60 rdma link add "$DEV" type "$DEV_TYPE" netdev "$NETDEV"
check "$DRV_MOD loaded by alias" mod_loaded "$DRV_MOD"
check "$DEV port active after autoload" wait_for 20 port_active

# A renamed device's debugfs directory follows it, so that a new device
# may take the old name, directory included.
dbgdir=/sys/kernel/debug/rdma_rxc
if [ "$DEV_TYPE" != rxc ]; then
	skip "debugfs follows a rename" "rdma_rxe has no debugfs directory"
elif [ ! -d "$dbgdir/$DEV" ]; then
	skip "debugfs follows a rename" "no $dbgdir/$DEV (debugfs not mounted?)"
else
	run "rdma dev set $DEV name ${DEV}r" 30 rdma dev set "$DEV" name "${DEV}r"
	check "the debugfs directory follows the rename" \
		test -e "$dbgdir/${DEV}r/comp_cntrs"
	check "and leaves the old name free" test ! -e "$dbgdir/$DEV"
	run "rdma link add $DEV on veth1" 30 \
		rdma link add "$DEV" type "$DEV_TYPE" netdev veth1
	check "a new device with the old name gets its own directory" \
		test -e "$dbgdir/$DEV/comp_cntrs"
	run "rdma link delete the new $DEV" 30 rdma link delete "$DEV"
	run "rdma dev set ${DEV}r name $DEV" 30 rdma dev set "${DEV}r" name "$DEV"
	check "the directory follows it back" test -e "$dbgdir/$DEV/comp_cntrs"
fi
