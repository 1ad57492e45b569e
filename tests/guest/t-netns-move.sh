#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Moving a device to another network namespace ("rdma dev set DEV netns
# NS") disables it and enables it again without freeing it: completion
# counter WAITs must work again afterwards.  That needs the RDMA
# subsystem's exclusive namespace mode, which can change only while no
# other namespace exists; the group restores the shared mode on its way
# out and leaves $DEV in the initial namespace.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=netns-move
IP=/usr/sbin/ip
tool=${RXC_REPO:-/nonexistent}/build/tests/tools/cntr_wait_once

if [ "$DEV_TYPE" != rxc ]; then
	skip "device namespace move" "rdma_rxe has no completion counters"
	exit 0
elif [ ! -x "$tool" ] || ! dev_exists; then
	skip "device namespace move" "no $tool or no $DEV"
	exit 0
fi

restore() {
	$IP netns delete mv 2>/dev/null || true
	wait_for 30 rdma system set netns shared || true
}
trap restore EXIT

# Namespaces of earlier groups may still be on their way out.
check "exclusive namespace mode once no other namespace is left" \
	wait_for 30 rdma system set netns exclusive
run "create namespace mv" 30 $IP netns add mv
run "move $DEV into mv" 30 rdma dev set "$DEV" netns mv
check "a counter WAIT works in mv after the move" \
	$IP netns exec mv "$tool" "$DEV"
# A namespace that goes returns its devices to the initial one.
run "delete namespace mv" 60 $IP netns delete mv
check "$DEV is back in the initial namespace" wait_for 30 dev_exists
check "a counter WAIT works after moving back" "$tool" "$DEV"
check "shared namespace mode again" wait_for 30 rdma system set netns shared
