#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The series' tests against a soft-RoCE device, with rdma-core 65 from the
# sid root: a guest script for vm/run-vm.sh.
#
#   rdma-core-patches/build-debs.sh install        # the packages, in the sid root
#   userspace/tests/check-sid.sh                   # optional: librxc's examples on 65
#   vm/run-vm.sh --kernel stock --guest-script rdma-core-patches/guest-check.sh \
#       --results DIR --modules "$(vm/build-modules.sh stock)" [--env DEV_TYPE=rxe]
#
# The guest runs Debian 12's userspace (the host's root, read-only with a
# tmpfs overlay); the device is set up from there, as tests/guest/run-all.sh
# does.  The tests then run chrooted in the sid root, which the guest sees
# at its host path on the same overlay: its libibverbs, librxe and pyverbs
# are rdma-core 65 with the series (their Python is sid's 3.14).  A chroot
# needs /proc, /sys and /dev, and the repository at its own path for
# pyverbs_tap.py; the tests are unpacked (the package gzips the larger
# ones) into a scratch directory inside the root.
#
# On rxc every test must pass or skip; with DEV_TYPE=rxe (no counters)
# every counter test must skip.  Results: DIR/results.tap, the Python
# errors in DIR/<module>.err.
set -uo pipefail
RXC_REPO=${RXC_REPO:?run by vm/run-vm.sh}
# shellcheck source=SCRIPTDIR/../tests/guest/lib.sh
. "$RXC_REPO/tests/guest/lib.sh"
SUITE=rdma-core-65
IP=/usr/sbin/ip
sid=${RXC_CACHE:-/var/cache/rxc}/sid-root
scratch=/var/tmp/rdma-core-65

if [ ! -x "$sid/usr/bin/python3" ] || ! grep -qs . "$sid/var/lib/rxc-rdma-core-debs"; then
	fail "suite" "no sid root in $sid with build-debs.sh's packages installed"
	exit 0
fi
load_driver "$DEV_TYPE"
run "create veth pair" 30 $IP link add "$NETDEV" type veth peer name veth1
$IP addr add "$IPADDR/24" dev "$NETDEV"
$IP link set "$NETDEV" up
$IP link set veth1 up
# credit_flow's two processes meet over TCP on the veth address.
$IP link set lo up
run "rdma link add $DEV" 60 rdma link add "$DEV" type "$DEV_TYPE" netdev "$NETDEV"
check "$DEV port active" wait_for 20 port_active
check "$DEV has a GID for $IPADDR" wait_for 20 gid_index
gid=$(gid_index || echo 1)

mkdir -p "$sid$scratch" "$sid$RXC_REPO"
mount -t proc none "$sid/proc"
mount --rbind /sys "$sid/sys"
mount --rbind /dev "$sid/dev"
mount --bind "$RXC_REPO" "$sid$RXC_REPO"
in_sid() { chroot "$sid" "$@"; }
in_sid sh -c "rm -rf $scratch/tests && cp -r /usr/share/doc/rdma-core/tests $scratch/ &&
	gunzip -f $scratch/tests/*.gz"
echo "rdma-core in the sid root: $(cat "$sid/var/lib/rxc-rdma-core-debs")"

# Stock ibv_devinfo 65 prints the caps when the provider answers them.
caps=$(in_sid ibv_devinfo -v -d "$DEV" | grep -A7 'max_comp_cntr')
echo "$caps"
if [ "$DEV_TYPE" = rxc ]; then
	check "ibv_devinfo -v shows $DEV's counter caps" grep -q QP_ATTACH_REMOTE_RDMA_WRITE <<<"$caps"
fi

# pyverbs_tap.py prints one TAP line per test; on a device without
# counters, every line must be a skip.
# shellcheck disable=SC2317 # called through check()
all_skipped() {	# TAP_FILE
	[ "$(grep -c '# SKIP' "$1")" -gt 0 ] &&
		[ "$(grep -c '# SKIP' "$1")" = "$(grep -c . "$1")" ]
}
for mod in test_comp_cntr test_rxedv; do
	out=$RESULTS/$mod.tap
	PYVERBS_SUITE=$mod timeout -k 10 900 chroot "$sid" /usr/bin/python3 \
		"$RXC_REPO/tests/guest/pyverbs_tap.py" "$scratch" "$DEV" "$gid" "$mod" \
		>"$out" 2>"$RESULTS/$mod.err"
	rc=$?
	cat "$out" >>"$TAP"
	echo "$mod: $(grep -c '^ok' "$out") ok ($(grep -c '# SKIP' "$out") skipped), $(grep -c '^not ok' "$out") not ok, exit $rc"
	[ -s "$out" ] || fail "$mod ran" "no test ran (exit $rc)"
	if [ "$DEV_TYPE" = rxe ]; then
		check "$mod: every test skips on $DEV" all_skipped "$out"
	fi
done

# librxc's examples, as built against libibverbs 65 by check-sid.sh.
ex=$RXC_REPO/build/userspace-sid/examples
if [ "$DEV_TYPE" != rxc ] || [ ! -x "$ex/credit_flow" ]; then
	skip "librxc examples on libibverbs 65" "not built (userspace/tests/check-sid.sh) or not rxc"
	exit 0
fi
run "unsignaled_writes (libibverbs 65)" 300 \
	chroot "$sid" "$ex/unsignaled_writes" -d "$DEV" -g "$gid" -n 1000 -l 256
run "unsignaled_writes -B (libibverbs 65)" 300 \
	chroot "$sid" "$ex/unsignaled_writes" -d "$DEV" -g "$gid" -n 100 -l 4000 -B
in_sid timeout 120 "$ex/credit_flow" -d "$DEV" -g "$gid" -n 200 -s 16 &
receiver=$!
sleep 2
run "credit_flow sender (libibverbs 65)" 120 \
	chroot "$sid" "$ex/credit_flow" -d "$DEV" -g "$gid" -n 200 -s 16 "$IPADDR"
rc=0
wait "$receiver" || rc=$?
check "credit_flow receiver (libibverbs 65)" [ "$rc" = 0 ]
exit 0
