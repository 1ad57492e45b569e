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
# 2. every installed Debian header tree of a supported release, those of
#    the sid build root (vm/sid-root.sh) included, yields the flags that
#    release needs (6.1: none, 6.12: the first six, 7.2 and 7.3: all).
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
# The flags 6.12 needs, then those only 7.x needs.
flags_6_12="RXC_HAVE_LINUX_UNALIGNED_H RXC_HAVE_EVENTFD_SIGNAL_CTX RXC_HAVE_VM_FLAGS_CLEAR RXC_HAVE_CREATE_CQ_ATTRS RXC_HAVE_DMA_BUF_VMAP_UNLOCKED RXC_HAVE_WQ_PERCPU"
flags_7="RXC_HAVE_HRTIMER_SETUP RXC_HAVE_IMPORT_NS_STRING RXC_HAVE_DEBUGFS_CHANGE_NAME RXC_HAVE_REG_USER_MR_DMAH RXC_HAVE_RESIZE_USER_CQ RXC_HAVE_IB_UMEM_GET_VA RXC_HAVE_UDP_TUNNEL_SK RXC_HAVE_UAPI_BUFFER_DESC"
all="$flags_6_12 $flags_7"

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
	mkdir -p "$d/include/linux" "$d/include/rdma" "$d/include/net" \
		"$d/include/uapi/rdma"
	: >"$d/include/linux/eventfd.h"
	: >"$d/include/linux/mm.h"
	echo 'int dma_buf_vmap(struct dma_buf *dmabuf, struct iosys_map *map);' \
		>"$d/include/linux/dma-buf.h"
	printf '\tint (*create_cq)(struct ib_cq *cq, const struct ib_cq_init_attr *attr,\n\t\t\t struct ib_udata *udata);\n' \
		>"$d/include/rdma/ib_verbs.h"
	printf '\tint (*resize_cq)(struct ib_cq *cq, int cqe, struct ib_udata *udata);\n' \
		>>"$d/include/rdma/ib_verbs.h"
	printf '\tstruct ib_mr *(*reg_user_mr)(struct ib_pd *pd, u64 start, u64 length,\n\t\t\t\t     u64 virt_addr, int mr_access_flags,\n\t\t\t\t     struct ib_udata *udata);\n' \
		>>"$d/include/rdma/ib_verbs.h"
	echo 'extern void hrtimer_init(struct hrtimer *timer, clockid_t which_clock,' \
		>"$d/include/linux/hrtimer.h"
	printf '#define MODULE_IMPORT_NS(ns)\tMODULE_INFO(import_ns, __stringify(ns))\n' \
		>"$d/include/linux/module.h"
	echo 'struct dentry *debugfs_rename(struct dentry *old_dir, struct dentry *old_dentry,' \
		>"$d/include/linux/debugfs.h"
	echo 'struct ib_umem *ib_umem_get(struct ib_device *device, unsigned long addr,' \
		>"$d/include/rdma/ib_umem.h"
	echo 'void udp_tunnel_sock_release(struct socket *sock);' \
		>"$d/include/net/udp_tunnel.h"
	echo 'enum ib_uverbs_access_flags {' >"$d/include/uapi/rdma/ib_user_ioctl_verbs.h"
	printf '\tWQ_UNBOUND\t\t= 1 << 1, /* not bound to any cpu */\n' \
		>"$d/include/linux/workqueue.h"
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
	RXC_HAVE_WQ_PERCPU)
		printf '\tWQ_PERCPU\t\t= 1 << 8, /* bound to a specific cpu */\n' \
			>>"$d/include/linux/workqueue.h" ;;
	RXC_HAVE_HRTIMER_SETUP)
		echo 'extern void hrtimer_setup(struct hrtimer *timer, enum hrtimer_restart (*function)(struct hrtimer *),' \
			>"$d/include/linux/hrtimer.h" ;;
	RXC_HAVE_IMPORT_NS_STRING)
		printf '#define MODULE_IMPORT_NS(ns)\tMODULE_INFO(import_ns, ns)\n' \
			>"$d/include/linux/module.h" ;;
	RXC_HAVE_DEBUGFS_CHANGE_NAME)
		echo 'int debugfs_change_name(struct dentry *dentry, const char *fmt, ...) __printf(2, 3);' \
			>"$d/include/linux/debugfs.h" ;;
	RXC_HAVE_REG_USER_MR_DMAH)
		sed -i 's/\(mr_access_flags,\)$/\1\n\t\t\t\t     struct ib_dmah *dmah,/' \
			"$d/include/rdma/ib_verbs.h" ;;
	RXC_HAVE_RESIZE_USER_CQ)
		sed -i 's/(\*resize_cq)(struct ib_cq \*cq, int cqe,/(*resize_user_cq)(struct ib_cq *cq, unsigned int cqe,/' \
			"$d/include/rdma/ib_verbs.h" ;;
	RXC_HAVE_IB_UMEM_GET_VA)
		echo 'static inline struct ib_umem *ib_umem_get_va(struct ib_device *device,' \
			>"$d/include/rdma/ib_umem.h" ;;
	RXC_HAVE_UDP_TUNNEL_SK)
		echo 'void udp_tunnel_sock_release(struct sock *sk);' \
			>"$d/include/net/udp_tunnel.h" ;;
	RXC_HAVE_UAPI_BUFFER_DESC)
		echo 'struct ib_uverbs_buffer_desc {' \
			>>"$d/include/uapi/rdma/ib_user_ioctl_verbs.h" ;;
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
sid_root=${RXC_CACHE:-/var/cache/rxc}/sid-root
for tree in /usr/src/linux-headers-*-common "$sid_root"/usr/src/linux-headers-*-common; do
	[ -d "$tree/include" ] || continue
	rel=$(basename "$tree" | sed -n 's/^linux-headers-\([0-9]*\.[0-9]*\)[.-].*/\1/p')
	case $rel in
	6.1) expect "$(basename "$tree") needs none" "$tree" "" ;;
	6.12) # shellcheck disable=SC2086
	      expect "$(basename "$tree") needs the 6.12 flags" "$tree" $flags_6_12 ;;
	7.2|7.3) # shellcheck disable=SC2086
	      expect "$(basename "$tree") needs every flag" "$tree" $all ;;
	*) echo "ok - compat probe: $(basename "$tree") # SKIP release $rel is not one rxc supports"; continue ;;
	esac
	found=$((found + 1))
done
[ "$found" -gt 0 ] || nok "no Debian 12 kernel headers installed"

[ "$nfail" -eq 0 ]
