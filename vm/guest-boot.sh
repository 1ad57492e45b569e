#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Runs inside the VM (chroot of the host root, see vm/mkinitramfs.sh):
# prepares /lib/modules, runs the guest script with its output in
# /results/guest.log, then saves dmesg (and kmemleak on the debug kernel).
# Started by the initramfs /init (rxc_boot= on the kernel command line, set
# by vm/run-vm.sh); never run it on the host.
set -uo pipefail	# no -e: the reports at the end must always be written

export RESULTS=/results
vmdir=$RESULTS/.vm
# shellcheck disable=SC1091
. "$vmdir/env"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
kver=$(uname -r)
log() { echo "guest-boot: [$(cut -d" " -f1 /proc/uptime)] $*"; }

# The debug kernel's modules are not in the host's /lib/modules: bind its
# tree there.  Both paths are on the overlay, so writes (updates/, modules.dep)
# land in the tmpfs and the host's cache stays untouched.
if [ -n "${RXC_KMODS:-}" ]; then
	mkdir -p "/lib/modules/$kver"
	mount --bind "$RXC_KMODS" "/lib/modules/$kver"
fi

# Out-of-tree modules under test go to updates/, which depmod ranks above
# the kernel's own, so a plain "modprobe rdma_rxc" finds them.  The host
# (vm/run-vm.sh) already ran depmod on a copy of this tree: install that.
staged=$vmdir/modroot/lib/modules/$kver
if [ -d "$staged" ]; then
	log "installing the module(s) under test:" "$staged"/updates/*.ko
	cp -r "$staged"/. "/lib/modules/$kver/"
fi

# dumpcap probes every socket family, which autoloads Bluetooth and,
# through its ECDH, crypto RNG modules that never unload; the suite checks
# that it leaves no module behind.  The overlay keeps this out of the host.
echo "blacklist bluetooth" >/etc/modprobe.d/rxc-bench.conf

# kmemleak: forget boot-time noise so that only the tests' leaks count.
leak=/sys/kernel/debug/kmemleak
if [ -w "$leak" ]; then
	log "kmemleak: scan and clear boot-time reports"
	echo scan >"$leak"
	echo clear >"$leak"
fi

log "running $RXC_GUEST_SCRIPT (timeout ${RXC_GUEST_TIMEOUT}s)"
start=$(date +%s)
cd /tmp || true
# The guest-side timeout is shorter than the VM's, so a hung test still
# leaves dmesg and kmemleak reports behind.
timeout -k 10 "$RXC_GUEST_TIMEOUT" /bin/bash "$RXC_GUEST_SCRIPT" \
	>"$RESULTS/guest.log" 2>&1 </dev/null
rc=$?
log "guest script exited with $rc after $(($(date +%s) - start))s"

if [ -w "$leak" ]; then
	# Objects must be a few seconds old and seen unreferenced by a scan to
	# be reported: scan twice with a pause.
	log "kmemleak: final scans"
	echo scan >"$leak"
	sleep 6
	echo scan >"$leak"
	cat "$leak" >"$RESULTS/kmemleak.txt"
fi
dmesg >"$RESULTS/dmesg.txt"
log "reports saved"
echo "$rc" >"$vmdir/exit-status"
sync
