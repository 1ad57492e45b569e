/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The interfaces that differ between the kernels rxc builds for.  Kbuild
 * runs compat-probe.sh on the target tree and passes one RXC_HAVE_* flag
 * per interface found; this is the only file that tests them, so the rest
 * of the driver is written against one API.
 */
#ifndef RXC_COMPAT_H
#define RXC_COMPAT_H

#include <linux/dma-buf.h>
#include <linux/eventfd.h>
#include <linux/mm.h>
#include <rdma/ib_verbs.h>

#ifdef RXC_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* Add one to an eventfd counter and wake its readers. */
static inline void rxc_eventfd_signal(struct eventfd_ctx *ctx)
{
#ifdef RXC_HAVE_EVENTFD_SIGNAL_CTX
	eventfd_signal(ctx);
#else
	eventfd_signal(ctx, 1);
#endif
}

/* Set and clear VMA flags of a mapping that is being set up. */
static inline void rxc_vm_flags_mod(struct vm_area_struct *vma,
				    vm_flags_t set, vm_flags_t clear)
{
#ifdef RXC_HAVE_VM_FLAGS_CLEAR
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

/*
 * Map a dma-buf into the kernel, and unmap it, from a caller that holds
 * none of its locks.  Since 6.2 dma_buf_vmap() wants the buffer's
 * reservation lock held and the _unlocked variants take it; 6.1's take
 * their own lock.
 */
static inline int rxc_dma_buf_vmap(struct dma_buf *dmabuf,
				   struct iosys_map *map)
{
#ifdef RXC_HAVE_DMA_BUF_VMAP_UNLOCKED
	return dma_buf_vmap_unlocked(dmabuf, map);
#else
	return dma_buf_vmap(dmabuf, map);
#endif
}

static inline void rxc_dma_buf_vunmap(struct dma_buf *dmabuf,
				      struct iosys_map *map)
{
#ifdef RXC_HAVE_DMA_BUF_VMAP_UNLOCKED
	dma_buf_vunmap_unlocked(dmabuf, map);
#else
	dma_buf_vunmap(dmabuf, map);
#endif
}

/*
 * ib_device_ops.create_cq: user CQs bring their driver data in the
 * attribute bundle since 6.10, and kernel CQs pass no bundle at all.
 */
#ifdef RXC_HAVE_CREATE_CQ_ATTRS
#include <rdma/uverbs_ioctl.h>

#define RXC_CREATE_CQ_CTX	struct uverbs_attr_bundle
static inline struct ib_udata *
rxc_create_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define RXC_CREATE_CQ_CTX	struct ib_udata
static inline struct ib_udata *rxc_create_cq_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

#endif /* RXC_COMPAT_H */
