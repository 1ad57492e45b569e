#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   tests/host/t-comp-cntr-probe.sh [KDIR]
#
# Host-side test of the Kbuild probe for core completion counter support
# (drivers/infiniband/sw/rxc/comp-cntr-probe.sh), in two parts:
#
# 1. The probe on header trees: KDIR's Debian headers (no support), stub
#    trees with every symbol, only the uAPI ID, or the ID and only some
#    of the callbacks, and the 7.2 (none) and 7.3 (support) trees of the
#    sid build root when there is one.
# 2. Kbuild following it: rdma_rxc.ko is built (W=1, warnings fail)
#    against KDIR as it is, and against a copy of KDIR whose RDMA headers
#    carry upstream's additions (the header half of kernel-patches/, the
#    debug kernel's backport of upstream's core object).  The first must link the compat uverbs object, the second must
#    not and must plug rxc's callbacks into ib_device_ops instead.
#
# Prints TAP ("ok - ...", "not ok - ...") and exits non-zero on a failure.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
probe=$repo/drivers/infiniband/sw/rxc/comp-cntr-probe.sh
kdir=${1:-$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)}
work=$(mktemp -d /tmp/rxc-probe.XXXXXX)
trap 'rm -rf "$work"' EXIT
nfail=0
ok() { echo "ok - probe: $*"; }
nok() { echo "not ok - probe: $*"; nfail=$((nfail + 1)); }
expect() {	# expect NAME WANT TREE
	local got
	got=$(sh "$probe" "$3")
	if [ "$got" = "$2" ]; then ok "$1"; else nok "$1 (got '$got', want '$2')"; fi
}

# The source tree Kbuild's $(srctree) is for KDIR (Debian splits it).
srctree=$(sed -n 's|^include \(.*\)/Makefile$|\1|p' "$kdir/Makefile" | head -n 1)
[ -n "$srctree" ] || srctree=$kdir

# --- 1. the probe on header trees -------------------------------------
stub() {	# stub DIR uapi|create|attach...: a tree with those pieces only
	local d=$1 p
	shift
	mkdir -p "$d/include/uapi/rdma" "$d/include/rdma"
	: >"$d/include/uapi/rdma/ib_user_ioctl_cmds.h"
	: >"$d/include/rdma/ib_verbs.h"
	for p in "$@"; do
		case $p in
		uapi) echo "	UVERBS_OBJECT_COMP_CNTR," >>"$d/include/uapi/rdma/ib_user_ioctl_cmds.h" ;;
		*) echo "	int (*${p}_comp_cntr)(void);" >>"$d/include/rdma/ib_verbs.h" ;;
		esac
	done
}
[ -d "$srctree/include/rdma" ] || { nok "no kernel headers at $srctree"; exit 1; }
expect "finds no core support in $(basename "$srctree")" "" "$srctree"
stub "$work/all" uapi create qp_attach
expect "finds core support in a tree with the ID and the callbacks" y "$work/all"
stub "$work/uapi-only" uapi
expect "wants the callbacks, not only the uAPI ID" "" "$work/uapi-only"
stub "$work/no-attach" uapi create
expect "wants the attach callback too" "" "$work/no-attach"
stub "$work/ops-only" create qp_attach
expect "wants the uAPI ID, not only the callbacks" "" "$work/ops-only"
expect "finds nothing in a tree without headers" "" "$work/none"

# Debian's own 7.x trees, in the sid build root (vm/sid-root.sh) when it
# has been made: experimental's 7.3 has upstream's object, sid's 7.2 not.
sid_root=${RXC_CACHE:-/var/cache/rxc}/sid-root
for tree in "$sid_root"/usr/src/linux-headers-7.*-common; do
	[ -d "$tree/include/rdma" ] || continue
	case $(basename "$tree") in
	linux-headers-7.2[.-]*) expect "finds no core support in $(basename "$tree")" "" "$tree" ;;
	linux-headers-7.3[.-]*) expect "finds core support in $(basename "$tree")" y "$tree" ;;
	esac
done

# --- 2. Kbuild following the probe -------------------------------------
# A header tree like KDIR whose RDMA headers have upstream's additions:
# symlink copies of both halves of Debian's split tree.
core=$work/core
mkdir -p "$core"
cp -as "$(readlink -f "$srctree")" "$core/common"
cp -as "$(readlink -f "$kdir")" "$core/arch"
for l in scripts tools; do
	if [ -L "$srctree/$l" ]; then
		rm -rf "$core/common/$l"
		ln -s "$(readlink -f "$srctree/$l")" "$core/common/$l"
	fi
done
if [ "$srctree" != "$kdir" ]; then
	rm -f "$core/arch/Makefile"
	sed "s|^include .*/Makefile$|include $core/common/Makefile|" \
		"$kdir/Makefile" >"$core/arch/Makefile"
	rm -rf "$core/arch/scripts"
	ln -s "$(readlink -f "$kdir/scripts")" "$core/arch/scripts"
	kcore=$core/arch
else
	kcore=$core/common
fi
# The headers' half of kernel-patches/, the backport of upstream's core
# object that the debug kernel carries: the same uAPI and ib_verbs.h
# additions the patched kernel has, applied to real copies of the files
# they change (the rest of the tree stays links).
python3 - "$repo"/kernel-patches/*.patch >"$work/headers.patch" <<'PY'
import sys
for p in sys.argv[1:]:
    keep = False
    for line in open(p):
        if line.startswith('diff --git '):
            keep = line.split()[2].startswith('a/include/')
        elif line.startswith('-- ') and line.strip() == '--':
            keep = False
        if keep:
            sys.stdout.write(line)
PY
sed -n 's|^+++ b/||p' "$work/headers.patch" | sort -u | while read -r f; do
	cp --remove-destination "$(readlink -f "$core/common/$f")" "$core/common/$f"
done
if patch -s -p1 -d "$core/common" <"$work/headers.patch"; then
	ok "kernel-patches/ apply to the headers of $(basename "$srctree")"
else
	nok "kernel-patches/ apply to the headers of $(basename "$srctree")"
fi
expect "finds core support in the headers with the backport" y "$core/common"

# build NAME KDIR: rdma_rxc.ko from a copy of the sources; W=1, no warnings.
build() {
	local name=$1 k=$2 src=$work/src-$1
	mkdir -p "$src"
	(cd "$repo" && cp -r Kbuild Makefile drivers include kunit "$src/")
	if make -j"$(nproc)" -C "$k" M="$src" W=1 modules >"$work/$name.log" 2>&1 &&
		! grep -E 'warning:|error:' "$work/$name.log"; then
		ok "rdma_rxc builds warning-free against the $name headers"
	else
		tail -n 30 "$work/$name.log"
		nok "rdma_rxc builds warning-free against the $name headers"
		return 1
	fi
	nm "$src/drivers/infiniband/sw/rxc/rdma_rxc.ko" >"$work/$name.nm"
}
has() { grep -qE " [a-zA-Z] $1\$" "$work/$2.nm"; }

if build "$(basename "$kdir")" "$kdir"; then
	if has ib_comp_cntr_uapi_defs "$(basename "$kdir")" &&
		! has rxc_cntr_dev_ops "$(basename "$kdir")"; then
		ok "without core support the compat uverbs object is linked in"
	else
		nok "without core support the compat uverbs object is linked in"
	fi
fi
if build core "$kcore"; then
	if ! has ib_comp_cntr_uapi_defs core && ! has ib_comp_cntr_free core &&
		has rxc_cntr_dev_ops core && has ib_comp_cntr_usecnt core; then
		ok "with core support the compat object is out and ib_device_ops has the callbacks"
	else
		nok "with core support the compat object is out and ib_device_ops has the callbacks"
	fi
fi

[ "$nfail" -eq 0 ]
