/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The interfaces that differ between the kernels rxc builds for.  Kbuild
 * runs compat-probe.sh on the target tree and passes one RXC_HAVE_* flag
 * per interface found; this is the only file that tests them, so the rest
 * of the driver is written against one API.
 */
#ifndef RXC_COMPAT_H
#define RXC_COMPAT_H

#include <linux/debugfs.h>
#include <linux/dma-buf.h>
#include <linux/eventfd.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/workqueue.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#ifdef RXC_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * The user buffer descriptor (counter memory) came to the uAPI with the
 * DMABUF object; a uAPI without it gets rxc's copy, which has the same
 * layout.
 */
#ifndef RXC_HAVE_UAPI_BUFFER_DESC
#include <rdma/ib_user_buffer_desc.h>
#endif

/*
 * Let the module use the symbols of namespace @ns, a bare identifier.
 * Since 6.13 MODULE_IMPORT_NS() wants a string literal.
 */
#ifdef RXC_HAVE_IMPORT_NS_STRING
#define RXC_MODULE_IMPORT_NS(ns)	MODULE_IMPORT_NS(#ns)
#else
#define RXC_MODULE_IMPORT_NS(ns)	MODULE_IMPORT_NS(ns)
#endif

/*
 * alloc_workqueue() flag for work that runs on the CPU that queued it.
 * That was the default until 6.17 (and 6.12's stable updates) gave it a
 * name, and 7.x warns when a caller does not say so.
 */
#ifdef RXC_HAVE_WQ_PERCPU
#define RXC_WQ_PERCPU	WQ_PERCPU
#else
#define RXC_WQ_PERCPU	0
#endif

/* Give @timer its clock, mode and callback before its first start. */
static inline void rxc_hrtimer_setup(struct hrtimer *timer,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
#ifdef RXC_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * Rename the debugfs entry @d, a child of @parent, in place; 0 or a
 * negative errno.  Since 6.14 the entry cannot change its parent.
 */
static inline int rxc_debugfs_rename(struct dentry *parent, struct dentry *d,
				     const char *name)
{
#ifdef RXC_HAVE_DEBUGFS_CHANGE_NAME
	return debugfs_change_name(d, "%s", name);
#else
	return PTR_ERR_OR_ZERO(debugfs_rename(parent, d, parent, name));
#endif
}

/* Pin @size bytes of user memory at @addr. */
static inline struct ib_umem *rxc_umem_get(struct ib_device *ibdev,
					   unsigned long addr, size_t size,
					   int access)
{
#ifdef RXC_HAVE_IB_UMEM_GET_VA
	return ib_umem_get_va(ibdev, addr, size, access);
#else
	return ib_umem_get(ibdev, addr, size, access);
#endif
}

/*
 * Turn a UDP socket of udp_sock_create() into a tunnel socket, and
 * release one.  By 7.2 the helpers take the struct sock.
 */
static inline void rxc_setup_udp_tunnel_sock(struct net *net,
					     struct socket *sock,
					     struct udp_tunnel_sock_cfg *cfg)
{
#ifdef RXC_HAVE_UDP_TUNNEL_SK
	setup_udp_tunnel_sock(net, sock->sk, cfg);
#else
	setup_udp_tunnel_sock(net, sock, cfg);
#endif
}

static inline void rxc_udp_tunnel_sock_release(struct socket *sock)
{
#ifdef RXC_HAVE_UDP_TUNNEL_SK
	udp_tunnel_sock_release(sock->sk);
#else
	udp_tunnel_sock_release(sock);
#endif
}

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

/*
 * ib_device_ops.reg_user_mr takes a DMA handle since 6.17.  Core passes
 * one only for devices that allocate them (alloc_dmah), which rxc does
 * not, so it is always NULL here and is not looked at.
 */
#ifdef RXC_HAVE_REG_USER_MR_DMAH
#define RXC_REG_USER_MR_DMAH	struct ib_dmah *dmah,
#else
#define RXC_REG_USER_MR_DMAH
#endif

/*
 * Resizing a user CQ: by 7.2 the callback is ib_device_ops.resize_user_cq
 * and the size is unsigned.
 */
#ifdef RXC_HAVE_RESIZE_USER_CQ
#define RXC_RESIZE_CQ_OP	resize_user_cq
#define RXC_RESIZE_CQE_T	unsigned int
#else
#define RXC_RESIZE_CQ_OP	resize_cq
#define RXC_RESIZE_CQE_T	int
#endif

#endif /* RXC_COMPAT_H */
