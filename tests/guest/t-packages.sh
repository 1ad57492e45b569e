#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The Debian packages, as a user installs them: "apt install ./*.deb" of
# what tests/host/t-packages.sh built (build/packages), with no network.
# DKMS builds rdma_rxc for this kernel on install; then "modprobe
# rdma_rxc" by name loads that build, "rdma link add" makes a device, an
# example runs from its installed name against the installed librxc, and
# a program builds from pkg-config alone.  Purging the packages removes
# the module and every installed file.
#
# The suite's own build of rdma_rxc (in updates/) steps aside meanwhile,
# so that modprobe can only find DKMS's, and comes back at the end.
#
# DKMS's compile takes ten minutes under TCG.  The fast tier (RXC_TIER)
# leaves it to the host, which builds the packaged sources with DKMS
# against this kernel's headers (tests/host/t-packages.sh) and packs the
# build as a binaries-only DKMS tarball: the package's postinst loads a
# tarball it finds in /usr/share/rdma-rxc-dkms/ (dkms ldtarball, DKMS's
# own way to ship prebuilt modules) instead of compiling, then installs
# it as it would its own build.  --full compiles here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=packages
debs=${RXC_REPO:-/nonexistent}/build/packages
kver=$(uname -r)
mods=/lib/modules/$kver
aside=$(mktemp -d)
pkgs=(rdma-rxc-dkms librxc1 librxc-dev rdma-rxc-examples)
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "${RXC_REPO:-/nonexistent}/dkms.conf")
prebuilt=/usr/share/rdma-rxc-dkms/rdma-rxc-$ver.dkms.tar.gz

mapfile -t files < <(find "$debs" -maxdepth 1 -name '*.deb' ! -name '*-dbgsym_*' 2>/dev/null)
if [ ${#files[@]} -eq 0 ]; then
	skip "install the Debian packages" "none built in $debs (tests/host/t-packages.sh)"
	exit 0
fi
# The debug kernel is not one Debian ships, and DKMS under KASAN would
# take most of its time budget.
if [ "$SLOW" -gt 1 ]; then
	skip "install the Debian packages" "Debian's stock kernels only"
	exit 0
fi
if [ "$DEV_TYPE" != rxc ]; then
	skip "install the Debian packages" "only meaningful with rxc"
	exit 0
fi

# dkms's postinst builds for the running kernel and for the newest one
# installed, here the other stock kernel, which its own guest run covers
# (and tests/host/t-packages.sh builds for every kernel): hide the other
# kernels' configs on this guest's overlay so that the install builds
# once, which takes minutes under TCG.
hidden=$(mktemp -d)
hide_other_kernels() {
	local c
	for c in /boot/config-*; do
		[ "$c" = "/boot/config-$kver" ] || mv "$c" "$hidden"/
	done
}

installed_ko() { find "$mods/updates" -name 'rdma_rxc.ko*' -path '*dkms*' 2>/dev/null; }

# DKMS's install and removal each run depmod, which reads every module
# of the kernel (about 4000, over 9p, under TCG: a minute each).
# Meanwhile the kernel's tree shows only the modules loaded now, which are
# all that the installed module needs, and the index built from the whole
# tree comes back afterwards: the suite's module is back in updates/ by
# then, as it was when that index was built.
index=$(mktemp -d)
pruned=$(mktemp -d)
prune_modules() {
	local m _ path rel
	cp -a "$mods"/modules.* "$index"/
	while read -r m _; do
		path=$(modinfo -n "$m" 2>/dev/null) || continue
		rel=${path#"$mods/kernel/"}
		[ "$rel" != "$path" ] || continue
		mkdir -p "$pruned/$(dirname "$rel")"
		cp "$path" "$pruned/$rel" || return 1
	done </proc/modules
	mount --bind "$pruned" "$mods/kernel"
}
unprune_modules() {
	! mountpoint -q "$mods/kernel" || umount "$mods/kernel"
	cp -a "$index"/. "$mods"/
}
put_back() {
	cp -a "$aside"/. "$mods/updates/" 2>/dev/null || true
	cp -a "$hidden"/. /boot/ 2>/dev/null || true
	rm -f "$prebuilt"
}
restore() {	# after a failure: whatever state it left
	apt-get purge -y -q "${pkgs[@]}" >/dev/null 2>&1 || true
	put_back
	if mountpoint -q "$mods/kernel"; then unprune_modules; else depmod "$kver" || true; fi
}
trap restore EXIT

# The suite's module and device go away; its build of rdma_rxc too (the
# depmod of DKMS's install forgets it).
if dev_exists; then run "rdma link delete $DEV" 30 rdma link delete "$DEV"; fi
run "rmmod the suite's rdma_rxc" 30 sh -c "! [ -e /sys/module/rdma_rxc ] || rmmod rdma_rxc"
find "$mods/updates" -maxdepth 1 -name '*.ko*' -exec mv {} "$aside"/ \;
check "the kernel's module tree shows only the loaded modules" prune_modules

# DKMS compiles the module in this VM (minutes under TCG), or in the
# fast tier installs the host's build of it.
hide_other_kernels
how="DKMS builds for $kver"
if [ "$RXC_TIER" = fast ]; then
	how="DKMS installs the host's build for $kver"
	run "the host's DKMS build for $kver in place" 30 \
		install -D -m 0644 "$debs/prebuilt/rdma-rxc-$ver-$kver.dkms.tar.gz" "$prebuilt"
fi
# man-db's trigger re-indexes every manual page after each install and
# purge, which takes minutes under TCG; man(1) finds pages without the
# index (only whatis and apropos use it).  The flag file lives on this
# guest's overlay.
rm -f /var/lib/man-db/auto-update
run "apt install ./*.deb ($how)" 1500 \
	env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${files[@]}"
check "dkms status: rdma-rxc installed for $kver" \
	sh -c "dkms status rdma-rxc -k $kver | grep -q ': installed'"
check "the module DKMS built is in $mods/updates" test -n "$(installed_ko)"
run "modprobe rdma_rxc (by name)" 60 modprobe rdma_rxc
check "the loaded rdma_rxc is DKMS's" \
	sh -c "modinfo -n rdma_rxc | grep -q dkms"
desc=$(modinfo -F parm rdma_rxc | grep -c ':.' || true)
check "modinfo describes every parameter ($desc)" \
	test "$desc" -eq "$(grep -c '^#options rdma_rxc ' /etc/modprobe.d/rdma-rxc.conf)"
run "rdma link add $DEV" 60 rdma link add "$DEV" type rxc netdev "$NETDEV"
check "$DEV port active" wait_for 20 port_active
check "$DEV has a GID for $IPADDR" wait_for 20 gid_index
gid=$(gid_index || echo 1)

if data_path_gated; then
	skip "rxc-unsignaled-writes from its installed name" "$DATA_PATH_REASON"
else
	run "rxc-unsignaled-writes from its installed name" 120 \
		sh -c "command -v rxc-unsignaled-writes | grep -qx /usr/bin/rxc-unsignaled-writes &&
			rxc-unsignaled-writes -d $DEV -g $gid -n 200"
fi
check "rxc-unsignaled-writes uses the installed librxc" \
	sh -c "ldd /usr/bin/rxc-unsignaled-writes | grep -Eq 'librxc.so.1 => (/usr)?/lib/'"
check "man rxc-unsignaled-writes and man rxcdv_wait_comp_cntr work" \
	sh -c "man -w rxc-unsignaled-writes && man -w rxcdv_wait_comp_cntr"
prog=$(mktemp -d)
run "a program builds from pkg-config --cflags --libs librxc" 300 \
	sh -c "cc -Wall -Werror -o $prog/uw $RXC_REPO/userspace/examples/unsignaled_writes.c \
		$RXC_REPO/userspace/examples/common.c \$(pkg-config --cflags --libs librxc) &&
		ldd $prog/uw | grep -Eq 'librxc.so.1 => (/usr)?/lib/'"

run "rdma link delete $DEV" 30 rdma link delete "$DEV"
run "rmmod rdma_rxc" 30 rmmod rdma_rxc
# The suite's module comes back first: the depmod of DKMS's removal
# indexes it again.
trap - EXIT
put_back
run "apt purge the packages" 600 \
	env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${pkgs[@]}"
check "the DKMS module is gone" test -z "$(installed_ko)"
check "dkms no longer knows rdma-rxc" sh -c "! dkms status rdma-rxc | grep -q ."
for f in /usr/src/rdma-rxc-* /usr/bin/rxc-unsignaled-writes \
	/usr/lib/x86_64-linux-gnu/librxc.so.1 /usr/include/infiniband/rxcdv.h \
	/etc/modprobe.d/rdma-rxc.conf; do
	check "gone: $f" test ! -e "$f"
done
check "the whole module tree and its index back" unprune_modules

run "re-create $DEV with the suite's module" 60 sh -c "modprobe rdma_rxc &&
	rdma link add $DEV type rxc netdev $NETDEV"
check "$DEV port active again" wait_for 20 port_active
check "modprobe finds the suite's rdma_rxc again" \
	sh -c "! modinfo -n rdma_rxc | grep -q /dkms/"
