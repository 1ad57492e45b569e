#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Guest test driver (runs inside the VM, see vm/run-vm.sh).
#
# DEV_TYPE=rxc (default: module rdma_rxc, device rxc0) or rxe (the kernel's
# rdma_rxe, to validate the bench).  Sets up a soft-RoCE device on one end
# of a veth pair, runs each test group, then unloads every module it loaded
# so that kmemleak can see the memory freed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=setup
IP=/usr/sbin/ip	# by full path: never a busybox applet

echo "run-all: DEV_TYPE=$DEV_TYPE device $DEV, kernel $(uname -r) (${RXC_KERNEL:-?})"
echo "run-all: $DRV_MOD is $(modinfo -n "$DRV_MOD" 2>&1)"
before=$(cut -d' ' -f1 /proc/modules | sort)

load_driver "$DEV_TYPE"
if [ "$DEV_TYPE" = rxc ]; then
	echo "run-all: $(dmesg | grep -o 'completion counters through .*' | tail -n 1)"
fi
# The test network exists only inside this VM: veth0 <-> veth1.
run "create veth pair" 30 $IP link add "$NETDEV" type veth peer name veth1
run "address on $NETDEV" 30 $IP addr add "$IPADDR/24" dev "$NETDEV"
run "veth up" 30 $IP link set "$NETDEV" up
run "veth peer up" 30 $IP link set veth1 up
run "rdma link add $DEV" 60 rdma link add "$DEV" type "$DEV_TYPE" netdev "$NETDEV"
# A port goes ACTIVE and gets its GIDs asynchronously after link add.
check "$DEV port active" wait_for 20 port_active
check "$DEV has a GID for $IPADDR" wait_for 20 gid_index
GID_INDEX=$(gid_index || echo 1)
export GID_INDEX

# unload_extra: remove the network and every module loaded since the start
# (retrying, for dependencies between them); true if none is left.
unload_extra() {
	local extra
	dev_exists && { link_del || true; }
	$IP link delete "$NETDEV" 2>/dev/null || true
	for _ in 1 2 3 4 5; do
		extra=$(comm -13 <(echo "$before") <(cut -d' ' -f1 /proc/modules | sort))
		[ -n "$extra" ] || return 0
		echo "+ rmmod" "${extra//$'\n'/ }"
		# shellcheck disable=SC2086
		rmmod $extra 2>/dev/null || true
	done
	extra=$(comm -13 <(echo "$before") <(cut -d' ' -f1 /proc/modules | sort))
	[ -z "$extra" ] || { echo "still loaded: ${extra//$'\n'/ }"; return 1; }
}

run_group() {
	local t0
	t0=$(date +%s)
	echo "=== $1"
	bash "$here/$1.sh" || fail "$1" "group script exited with $?"
	echo "=== $1 took $(($(date +%s) - t0))s"
	TAP_AT=$SECONDS	# the group's results have said where its time went
}

# RXC_GROUPS picks some of the groups (in this order), for a quicker run
# while working on one of them, or for one of several guests that share a
# kernel's groups (vm/check.sh); CI runs them all.
all_groups="t-device t-verbs t-comp-cntr t-userspace t-tools t-batches t-softirq t-netem t-liveness t-mtu t-pyverbs t-lifecycle t-removal t-net t-netns-move t-ucx t-fuzz-packets t-fuzz-uverbs t-fuzz-rings t-teardown t-faults t-interop t-diff t-packages t-kunit"
for group in $all_groups; do
	case " ${RXC_GROUPS:-$all_groups} " in
	*" $group "*) ;;
	*) continue ;;
	esac
	# KUnit modules last, on a clean slate: they may pull in rdma_rxc
	# even when DEV_TYPE=rxe, and both drivers cannot share UDP port 4791.
	if [ "$group" = t-kunit ]; then
		SUITE=cleanup
		check "unload the driver and its dependencies" unload_extra
	fi
	run_group "$group"
done

SUITE=cleanup
check "unload all modules loaded by the tests" unload_extra
echo "run-all: done"
