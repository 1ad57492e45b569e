#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   tests/host/t-comp-cntr-probe.sh [KDIR]
#
# Host-side test of the Kbuild probe for core completion counter support
# (drivers/infiniband/sw/rxc/comp-cntr-probe.sh), in two parts:
#
# 1. The probe on header trees: KDIR's Debian headers (no support), and
#    stub trees with every symbol, only the uAPI ID, or the ID and only
#    some of the callbacks.
# 2. Kbuild following it: rdma_rxc.ko is built (W=1, warnings fail)
#    against KDIR as it is, and against a copy of KDIR whose RDMA headers
#    carry upstream's additions (a stub of what a kernel with core support
#    has).  The first must link the compat uverbs object, the second must
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

# --- 2. Kbuild following the probe -------------------------------------
# A header tree like KDIR whose RDMA headers have upstream's additions:
# symlink copies of both halves of Debian's split tree, three files real.
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
cmds=$core/common/include/uapi/rdma/ib_user_ioctl_cmds.h
verbs=$core/common/include/rdma/ib_verbs.h
for f in "$cmds" "$verbs"; do
	cp --remove-destination "$(readlink -f "$f")" "$f"
done
# uAPI: upstream's IDs, as rxc's compat header spells them (its body).
{
	sed '$d' "$(readlink -f "$srctree/include/uapi/rdma/ib_user_ioctl_cmds.h")"
	sed -n '/^\/\* Object and method IDs/,/^#endif/p' \
		"$repo/include/uapi/rdma/ib_user_ioctl_comp_cntr.h" | sed '$d'
	echo '#endif'
} >"$cmds"
# Core: the object, its enums and the ib_device_ops callbacks.
python3 - "$verbs" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
types = '''struct ib_comp_cntr_caps {
	u64 max_value;
	u32 max_counters;
	u32 supported_qp_attach_ops;
};

struct ib_comp_cntr {
	struct ib_device *device;
	struct ib_uobject *uobject;
	atomic_t usecnt;
	struct rdma_restrack_entry res;
};

enum ib_comp_cntr_entry { IB_COMP_CNTR_ENTRY_COMP, IB_COMP_CNTR_ENTRY_ERR };
enum ib_comp_cntr_modify_op { IB_COMP_CNTR_MODIFY_OP_SET, IB_COMP_CNTR_MODIFY_OP_INC };

struct ib_qp_attach_comp_cntr_attr {
	u32 op_mask;
};

struct ib_srq {'''
ops = '''	DECLARE_RDMA_OBJ_SIZE(ib_cq);
	int (*query_comp_cntr_caps)(struct ib_device *ibdev,
				    struct ib_comp_cntr_caps *caps,
				    struct uverbs_attr_bundle *attrs);
	int (*qp_attach_comp_cntr)(struct ib_qp *qp, struct ib_comp_cntr *cc,
				   struct ib_qp_attach_comp_cntr_attr *attr);
	int (*create_comp_cntr)(struct ib_comp_cntr *cc,
				struct uverbs_attr_bundle *attrs);
	int (*destroy_comp_cntr)(struct ib_comp_cntr *cc);
	int (*modify_comp_cntr)(struct ib_comp_cntr *cc, enum ib_comp_cntr_entry entry,
				enum ib_comp_cntr_modify_op op, u64 value);
	int (*read_comp_cntr)(struct ib_comp_cntr *cc, enum ib_comp_cntr_entry entry,
			      u64 *value);
	DECLARE_RDMA_OBJ_SIZE(ib_comp_cntr);'''
assert s.count('struct ib_srq {') == 1 and s.count('\tDECLARE_RDMA_OBJ_SIZE(ib_cq);') == 1
s = s.replace('struct ib_srq {', types, 1).replace('\tDECLARE_RDMA_OBJ_SIZE(ib_cq);', ops, 1)
open(p, 'w').write(s)
PY
expect "finds core support in the stubbed copy of the kernel headers" y "$core/common"

# build NAME KDIR: rdma_rxc.ko from a copy of the sources; W=1, no warnings.
build() {
	local name=$1 k=$2 src=$work/src-$1
	mkdir -p "$src"
	(cd "$repo" && cp -r Kbuild Makefile drivers include kunit "$src/")
	if make -C "$k" M="$src" W=1 modules >"$work/$name.log" 2>&1 &&
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
