#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   compat-probe.sh SRCTREE
#
# Prints the -D flags that describe the kernel at SRCTREE to rxc_compat.h,
# one per interface that differs between the kernels rxc supports (Debian
# 12's 6.1 and 6.12, sid's 7.2, experimental's 7.3).  Each test looks for
# the interface itself, never at a version number, so a distribution
# backport is picked up as well.
# rxc_compat.h is the only file that reads these flags.
set -eu
tree=${1:?usage: compat-probe.sh SRCTREE}
inc=$tree/include

# have FLAG: print -DFLAG
have() { printf ' -D%s' "$1"; }

# 6.12: <asm/unaligned.h> moved to <linux/unaligned.h>.
[ -f "$inc/linux/unaligned.h" ] && have RXC_HAVE_LINUX_UNALIGNED_H

# 6.8: eventfd_signal() lost its count argument; it always adds one.
grep -qE 'void eventfd_signal\(struct eventfd_ctx \*ctx\)' \
	"$inc/linux/eventfd.h" 2>/dev/null && have RXC_HAVE_EVENTFD_SIGNAL_CTX

# 6.3: vma->vm_flags is read-only; vm_flags_clear() changes it.
grep -qw vm_flags_clear "$inc/linux/mm.h" 2>/dev/null &&
	have RXC_HAVE_VM_FLAGS_CLEAR

# 6.10: ib_device_ops.create_cq takes the uverbs attribute bundle.
grep -A1 -F '(*create_cq)(' "$inc/rdma/ib_verbs.h" 2>/dev/null |
	grep -q 'struct uverbs_attr_bundle' && have RXC_HAVE_CREATE_CQ_ATTRS

# 6.2: dma_buf_vmap() wants the reservation lock held; the _unlocked
# variants take it.
grep -qw dma_buf_vmap_unlocked "$inc/linux/dma-buf.h" 2>/dev/null &&
	have RXC_HAVE_DMA_BUF_VMAP_UNLOCKED

# 6.13: hrtimer_setup() sets the callback with the rest; hrtimer_init()
# is gone.
grep -qE 'void hrtimer_setup\(' "$inc/linux/hrtimer.h" 2>/dev/null &&
	have RXC_HAVE_HRTIMER_SETUP

# 6.13: MODULE_IMPORT_NS() takes the namespace as a string literal.
grep -qE 'define MODULE_IMPORT_NS\(ns\)[[:space:]]+MODULE_INFO\(import_ns, ns\)' \
	"$inc/linux/module.h" 2>/dev/null && have RXC_HAVE_IMPORT_NS_STRING

# 6.14: debugfs_change_name() renames in place; debugfs_rename() is gone.
grep -qw debugfs_change_name "$inc/linux/debugfs.h" 2>/dev/null &&
	have RXC_HAVE_DEBUGFS_CHANGE_NAME

# 6.17: ib_device_ops.reg_user_mr takes a DMA handle.
grep -A2 -F '(*reg_user_mr)(' "$inc/rdma/ib_verbs.h" 2>/dev/null |
	grep -q 'struct ib_dmah' && have RXC_HAVE_REG_USER_MR_DMAH

# 6.17, and Debian's 6.12 stable updates: alloc_workqueue() wants a
# workqueue said to be per-CPU (WQ_PERCPU) or unbound; 7.x warns about
# one that is neither.
grep -qE '^[[:space:]]*WQ_PERCPU[[:space:]]*=' "$inc/linux/workqueue.h" 2>/dev/null &&
	have RXC_HAVE_WQ_PERCPU

# By 7.2: user CQs are resized through ib_device_ops.resize_user_cq,
# with an unsigned size.
grep -qF '(*resize_user_cq)(' "$inc/rdma/ib_verbs.h" 2>/dev/null &&
	have RXC_HAVE_RESIZE_USER_CQ

# By 7.2: ib_umem_get() is gone; ib_umem_get_va() pins user memory.
grep -qw ib_umem_get_va "$inc/rdma/ib_umem.h" 2>/dev/null &&
	have RXC_HAVE_IB_UMEM_GET_VA

# By 7.2: the UDP tunnel socket helpers take the struct sock.
grep -qE 'void udp_tunnel_sock_release\(struct sock \*' \
	"$inc/net/udp_tunnel.h" 2>/dev/null && have RXC_HAVE_UDP_TUNNEL_SK

# The DMABUF uverbs object (by 7.2) brought the user buffer descriptor to
# the uAPI; older uAPIs get rxc's copy (rdma/ib_user_buffer_desc.h).
grep -qF 'struct ib_uverbs_buffer_desc {' \
	"$inc/uapi/rdma/ib_user_ioctl_verbs.h" 2>/dev/null &&
	have RXC_HAVE_UAPI_BUFFER_DESC
echo
