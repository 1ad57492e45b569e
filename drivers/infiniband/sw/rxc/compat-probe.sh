#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   compat-probe.sh SRCTREE
#
# Prints the -D flags that describe the kernel at SRCTREE to rxc_compat.h,
# one per interface that differs between the kernels rxc supports (Debian
# 12's 6.1 and 6.12).  Each test looks for the interface itself, never at
# a version number, so a distribution backport is picked up as well.
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
echo
