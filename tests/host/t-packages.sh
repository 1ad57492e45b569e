#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   tests/host/t-packages.sh [OUT]
#
# Host-side test of the Debian packages (debian/) and of dkms.conf:
#
# 1. dpkg-buildpackage builds them from an export of the tree (what git
#    tracks, with uncommitted changes), into OUT (build/packages); lintian
#    reports no error.
# 2. Each package holds what it is for: the module's sources, dkms.conf
#    and a modprobe.d file naming every parameter; the library; headers,
#    pkg-config file and man pages; the examples as rxc-* programs.
# 3. DKMS builds rdma_rxc from the packaged sources for every Debian
#    kernel whose headers are installed, in a private DKMS tree (nothing
#    is installed on this machine), packs each build as a binaries-only
#    DKMS tarball (OUT/prebuilt/, for the guests of the fast tier), and
#    modinfo describes every parameter; it refuses a kernel rxc does not support, and one without
#    headers, saying why.
# 4. A program builds against the unpacked librxc-dev through pkg-config
#    alone and loads the unpacked librxc1.
# 5. Only with RXC_PACKAGES_INSTALL=1, on a system that may be changed (the
#    sid root, t-packages-sid.sh): apt installs all four beside the
#    installed rdma-core, DKMS builds the module on install, a program
#    builds and runs against the installed tree, and apt purges them again.
#
# Against a libibverbs that has the counter verbs (rdma-core 65),
# librxc-dev holds only the direct verbs' headers and pages: the ibv_*
# ones are libibverbs'.  Installing the packages on a Debian 12 kernel,
# DKMS in the target kernel and modprobe by name run in the VM
# (tests/guest/t-packages.sh).  Prints TAP; exits non-zero on a failure.
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$repo/build/packages}
work=$(mktemp -d /tmp/rxc-packages.XXXXXX)
trap 'rm -rf "$work"' EXIT
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$repo/dkms.conf")
params=$(sed -n 's/^MODULE_PARM_DESC(\([a-z_]*\),.*/\1/p' \
	"$repo/drivers/infiniband/sw/rxc/rxc_param.c")
nfail=0
res() {	# res STATUS NAME [DETAIL]
	if [ "$1" -eq 0 ]; then
		echo "ok - packages: $2"
	else
		echo "not ok - packages: $2"
		[ -z "${3:-}" ] || echo "#   $3"
		nfail=$((nfail + 1))
	fi
}

# --- 1. build and lint -------------------------------------------------
# git stash create: a commit of the work tree as it is, or nothing when
# it is clean.
src=$work/rdma-rxc-$ver
ref=$(git -C "$repo" stash create 2>/dev/null)
git -C "$repo" archive --prefix="rdma-rxc-$ver/" "${ref:-HEAD}" | tar -x -C "$work"
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1
rc=$?
res $rc "dpkg-buildpackage builds them" "$(tail -n 5 "$work/build.log")"
rm -rf "$out"
mkdir -p "$out"
cp "$work"/*.deb "$out"/ 2>/dev/null
lint=$(lintian --no-tag-display-limit "$work"/*.changes 2>&1 | grep -v 'root privileges')
echo "$lint" | sed -n 's/^[WE]: /# lintian: &/p'
! grep -q '^E: ' <<<"$lint"
res $? "lintian reports no error" "$(echo "$lint" | grep '^E: ' | head -n 5)"

deb() { find "$out" -maxdepth 1 -name "$1_*.deb" | head -n 1; }
for p in rdma-rxc-dkms librxc1 librxc-dev rdma-rxc-examples; do
	[ -n "$(deb $p)" ]
	res $? "$p was built"
done

# --- 2. contents -------------------------------------------------------
holds() {	# holds PACKAGE PATH...: each PATH is in PACKAGE
	local p=$1 list f
	shift
	list=$(dpkg-deb -c "$(deb "$p")" 2>/dev/null | awk '{ print $6 }')
	# A here-string, not a pipe: grep -q leaving early would fail the
	# pipe's writer with SIGPIPE (pipefail).
	for f in "$@"; do
		grep -qx "\./$f" <<<"$list"
		res $? "$p holds /$f"
	done
}
holds rdma-rxc-dkms "usr/src/rdma-rxc-$ver/dkms.conf" \
	"usr/src/rdma-rxc-$ver/Kbuild" "usr/src/rdma-rxc-$ver/Makefile" \
	"usr/src/rdma-rxc-$ver/drivers/infiniband/sw/rxc/rxc_main.c" \
	"usr/src/rdma-rxc-$ver/include/uapi/rdma/rxc-abi.h" \
	etc/modprobe.d/rdma-rxc.conf
holds librxc1 usr/lib/x86_64-linux-gnu/librxc.so.1
# rxc_comp_cntr.h declares nothing where verbs.h has the verbs, and stays
# so that programs that include it build against either libibverbs.
holds librxc-dev usr/lib/x86_64-linux-gnu/librxc.so \
	usr/lib/x86_64-linux-gnu/pkgconfig/librxc.pc \
	usr/include/infiniband/rxcdv.h usr/include/infiniband/rxc_comp_cntr.h \
	usr/share/man/man3/rxcdv_wait_comp_cntr.3.gz usr/share/man/man7/rxc.7.gz
page=usr/share/man/man3/ibv_create_comp_cntr.3.gz
if grep -qs ibv_create_comp_cntr /usr/include/infiniband/verbs.h; then
	list=$(dpkg-deb -c "$(deb librxc-dev)" | awk '{ print $6 }')
	! grep -qx "\./$page" <<<"$list"
	res $? "librxc-dev leaves /$page to libibverbs"
else
	holds librxc-dev "$page"
fi
holds rdma-rxc-examples usr/bin/rxc-unsignaled-writes usr/bin/rxc-credit-flow \
	usr/bin/rxc-udmabuf-cntr usr/share/man/man1/rxc-examples.1.gz
leftovers=$(dpkg-deb -c "$(deb rdma-rxc-dkms)" | awk '{ print $6 }' |
	grep -E '\.(o|ko|cmd|mod)$|\.mod\.c$')
[ -z "$leftovers" ]
res $? "rdma-rxc-dkms holds no build output" "$leftovers"

root=$work/root
for p in rdma-rxc-dkms librxc1 librxc-dev; do dpkg-deb -x "$(deb $p)" "$root"; done
for prm in $params; do
	grep -q "^#options rdma_rxc $prm=" "$root/etc/modprobe.d/rdma-rxc.conf"
	res $? "modprobe.d/rdma-rxc.conf names $prm"
done

# --- 3. DKMS, in a private tree ----------------------------------------
dk() {	# dk KERNEL: dkms build of the packaged sources for KERNEL
	dkms build -m rdma-rxc -v "$ver" -k "$1" --sourcetree "$root/usr/src" \
		--dkmstree "$work/dkms" 2>&1
}
refuses() {	# refuses KERNEL PATTERN: dkms fails for KERNEL, saying PATTERN
	local log
	if log=$(dk "$1"); then
		echo "built for $1"
		return 1
	fi
	grep -q "$2" <<<"$log" || { echo "$log" | tail -n 3; return 1; }
}
mkdir -p "$work/dkms"
rm -rf "$out/prebuilt" && mkdir -p "$out/prebuilt"
for kdir in /usr/src/linux-headers-*-amd64; do
	k=${kdir#/usr/src/linux-headers-}
	[ -e "/lib/modules/$k/build" ] || continue
	log=$(dk "$k")
	res $? "dkms builds rdma_rxc for $k" "$(echo "$log" | tail -n 3)"
	# The fast tier's guests install this build (tests/guest/t-packages.sh).
	log=$(dkms mktarball -m rdma-rxc -v "$ver" -k "$k" --binaries-only \
		--sourcetree "$root/usr/src" --dkmstree "$work/dkms" \
		--archive "$out/prebuilt/rdma-rxc-$ver-$k.dkms.tar.gz" 2>&1)
	res $? "dkms packs the build for $k as a binaries-only tarball" \
		"$(echo "$log" | tail -n 3)"
	ko=$(find "$work/dkms/rdma-rxc/$ver/$k" -name 'rdma_rxc.ko*' 2>/dev/null | head -n 1)
	missing=''
	parms=$(modinfo -F parm "$ko" 2>/dev/null)
	for prm in $params; do
		grep -q "^$prm:.*[a-z]" <<<"$parms" ||
			missing="$missing $prm"
	done
	[ -n "$ko" ] && [ -z "$missing" ]
	res $? "$k: modinfo describes all $(echo "$params" | wc -w) parameters" \
		"module: ${ko:-none}; not described:$missing"
done
why=$(refuses 5.10.0-99-amd64 'BUILD_EXCLUSIVE')
res $? "dkms refuses an unsupported kernel (5.10), naming BUILD_EXCLUSIVE" "$why"
why=$(refuses 6.1.0-999-amd64 'headers for kernel 6.1.0-999-amd64 cannot be found')
res $? "dkms refuses a kernel without headers, saying so" "$why"

# --- 4. pkg-config and the library, unpacked ---------------------------
flags=$(PKG_CONFIG_SYSROOT_DIR=$root \
	PKG_CONFIG_PATH=$root/usr/lib/x86_64-linux-gnu/pkgconfig \
	pkg-config --cflags --libs librxc 2>&1)
res $? "pkg-config --cflags --libs librxc" "$flags"
# shellcheck disable=SC2086
cc -Wall -Werror -o "$work/prog" "$repo/userspace/examples/unsignaled_writes.c" \
	"$repo/userspace/examples/common.c" $flags 2>"$work/cc.log"
res $? "an example builds with those flags alone" "$(head -n 5 "$work/cc.log")"
# Output first, then grep: under pipefail, grep -q quitting at the match
# can kill ldd with SIGPIPE and fail the test (seen on a loaded machine).
libs=$(LD_LIBRARY_PATH=$root/usr/lib/x86_64-linux-gnu ldd "$work/prog" 2>/dev/null)
grep -q "librxc.so.1 => $root" <<<"$libs"
res $? "it loads the unpacked librxc.so.1" "$libs"

# --- 5. apt install, beside the installed rdma-core ---------------------
pkgs=(rdma-rxc-dkms librxc1 librxc-dev rdma-rxc-examples)
apt_get() {
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
		-y --no-install-recommends "$@" >>"$work/apt.log" 2>&1
}
if [ "${RXC_PACKAGES_INSTALL:-0}" = 1 ]; then
	debs=()
	for p in "${pkgs[@]}"; do debs+=("$(deb "$p")"); done
	apt_get install "${debs[@]}"
	res $? "apt installs all four beside $(dpkg-query -W -f '${Package} ${Version}' libibverbs1)" \
		"$(tail -n 5 "$work/apt.log")"
	# The postinst builds for the running kernel and the newest one with
	# headers; in a chroot the running one is the host's, so the newest.
	newest=$(find /lib/modules/*/build -maxdepth 0 2>/dev/null | sort -V |
		tail -n 1 | cut -d/ -f4)
	[ -n "$(find "/lib/modules/$newest/updates" -name 'rdma_rxc.ko*' 2>/dev/null)" ]
	res $? "the postinst's DKMS installs rdma_rxc for ${newest:-no kernel}" \
		"$(grep -i -A3 'dkms\|error' "$work/apt.log" | tail -n 5)"
	# shellcheck disable=SC2046 # one word per flag
	cc -Wall -Werror -o "$work/prog-installed" \
		"$repo/userspace/examples/unsignaled_writes.c" \
		"$repo/userspace/examples/common.c" $(pkg-config --cflags --libs librxc) \
		2>"$work/cc.log"
	res $? "an example builds against the installed librxc-dev" "$(head -n 5 "$work/cc.log")"
	libs=$(ldd "$work/prog-installed" 2>/dev/null)
	grep -q "librxc.so.1 => /usr/lib/x86_64-linux-gnu/librxc.so.1" <<<"$libs"
	res $? "it loads the installed librxc.so.1" "$libs"
	# Without a device the example must say so, not crash.
	rxc-unsignaled-writes >"$work/ex.log" 2>&1
	rc=$?
	[ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && [ -s "$work/ex.log" ]
	res $? "rxc-unsignaled-writes runs and explains that it has no device" \
		"$(head -n 3 "$work/ex.log")"
	apt_get purge "${pkgs[@]}"
	res $? "apt purges them" "$(tail -n 5 "$work/apt.log")"
	! compgen -G "/lib/modules/*/updates/dkms/rdma_rxc.ko*" >/dev/null
	res $? "purging removes DKMS's modules"
fi
[ "$nfail" -eq 0 ]
