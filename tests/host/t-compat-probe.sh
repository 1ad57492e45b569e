#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   tests/host/t-compat-probe.sh
#
# Host-side test of drivers/infiniband/sw/rxc/compat-probe.sh, the Kbuild
# probe that tells rxc_compat.h which interfaces a kernel has:
#
# 1. stub trees that have exactly one of the interfaces yield exactly
#    its flag, and a tree without headers yields none;
# 2. every installed Debian header tree of a supported release yields
#    the flags that release needs (6.1: none, 6.12: all of them).
#
# Prints TAP ("ok - ...", "not ok - ...") and exits non-zero on a failure.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
probe=$repo/drivers/infiniband/sw/rxc/compat-probe.sh
work=$(mktemp -d /tmp/rxc-compat.XXXXXX)
trap 'rm -rf "$work"' EXIT
nfail=0
ok() { echo "ok - compat probe: $*"; }
nok() { echo "not ok - compat probe: $*"; nfail=$((nfail + 1)); }
all="RXC_HAVE_LINUX_UNALIGNED_H RXC_HAVE_EVENTFD_SIGNAL_CTX RXC_HAVE_VM_FLAGS_CLEAR RXC_HAVE_CREATE_CQ_ATTRS RXC_HAVE_DMA_BUF_VMAP_UNLOCKED"

# flags TREE: the probe's flags, sorted, one line, without -D.
flags() { sh "$probe" "$1" | tr ' ' '\n' | sed -n 's/^-D//p' | sort | xargs; }
expect() {	# expect NAME TREE WANT...
	local name=$1 tree=$2 got want
	shift 2
	got=$(flags "$tree")
	want=$(printf '%s\n' "$@" | sed '/^$/d' | sort | xargs)
	if [ "$got" = "$want" ]; then ok "$name"; else nok "$name (got '$got', want '$want')"; fi
}

# --- 1. stub trees ---------------------------------------------------------
# stub DIR FLAG: a tree whose headers have only the interface behind FLAG,
# spelled as the kernel that introduced it spells it.
stub() {
	local d=$1
	mkdir -p "$d/include/linux" "$d/include/rdma"
	: >"$d/include/linux/eventfd.h"
	: >"$d/include/linux/mm.h"
	echo 'int dma_buf_vmap(struct dma_buf *dmabuf, struct iosys_map *map);' \
		>"$d/include/linux/dma-buf.h"
	printf '\tint (*create_cq)(struct ib_cq *cq, const struct ib_cq_init_attr *attr,\n\t\t\t struct ib_udata *udata);\n' \
		>"$d/include/rdma/ib_verbs.h"
	case $2 in
	RXC_HAVE_LINUX_UNALIGNED_H) : >"$d/include/linux/unaligned.h" ;;
	RXC_HAVE_EVENTFD_SIGNAL_CTX)
		echo 'static inline void eventfd_signal(struct eventfd_ctx *ctx)' >"$d/include/linux/eventfd.h" ;;
	RXC_HAVE_VM_FLAGS_CLEAR)
		echo 'static inline void vm_flags_clear(struct vm_area_struct *vma,' >"$d/include/linux/mm.h" ;;
	RXC_HAVE_CREATE_CQ_ATTRS)
		printf '\tint (*create_cq)(struct ib_cq *cq, const struct ib_cq_init_attr *attr,\n\t\t\t struct uverbs_attr_bundle *attrs);\n' \
			>"$d/include/rdma/ib_verbs.h" ;;
	RXC_HAVE_DMA_BUF_VMAP_UNLOCKED)
		echo 'int dma_buf_vmap_unlocked(struct dma_buf *dmabuf, struct iosys_map *map);' \
			>>"$d/include/linux/dma-buf.h" ;;
	none) ;;
	esac
}
stub "$work/none" none
expect "a 6.1-like tree needs no compat flag" "$work/none" ""
for f in $all; do
	stub "$work/$f" "$f"
	expect "finds $f alone" "$work/$f" "$f"
done
expect "a tree without headers needs no compat flag" "$work/missing" ""

# --- 2. installed Debian trees ---------------------------------------------
found=0
for tree in /usr/src/linux-headers-*-common; do
	[ -d "$tree/include" ] || continue
	rel=$(basename "$tree" | sed -n 's/^linux-headers-\([0-9]*\.[0-9]*\)\..*/\1/p')
	case $rel in
	6.1) expect "$(basename "$tree") needs none" "$tree" "" ;;
	6.12) # shellcheck disable=SC2086
	      expect "$(basename "$tree") needs every flag" "$tree" $all ;;
	*) echo "ok - compat probe: $(basename "$tree") # SKIP release $rel is not one rxc supports"; continue ;;
	esac
	found=$((found + 1))
done
[ "$found" -gt 0 ] || nok "no Debian 12 kernel headers installed"

[ "$nfail" -eq 0 ]
