/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * rxc driver ABI beyond the rxe ABI (<rdma/rdma_user_rxe.h>): the
 * driver-namespace attributes and methods of the completion counter object.
 *
 * The one structure, a response, has explicit padding and a comp_mask
 * that announces fields added later; the kernel writes reserved fields as
 * zero.  Attributes that are absent take their defaults, so the ABI can
 * grow without breaking old binaries.
 */
#ifndef RXC_ABI_USER_H
#define RXC_ABI_USER_H

#include <linux/types.h>
#include <rdma/ib_user_ioctl_cmds.h>

/* How much one event adds to a counter's completion value. */
enum rxc_comp_cntr_type {
	RXC_COMP_CNTR_TYPE_WRS = 0,	/* one per completed work request */
	RXC_COMP_CNTR_TYPE_BYTES = 1,	/* the bytes the operation moved */
};

/* Driver attributes of UVERBS_METHOD_COMP_CNTR_CREATE. */
enum rxc_comp_cntr_create_attrs {
	/* struct ib_uverbs_buffer_desc: where the completion value lives */
	RXC_ATTR_CREATE_COMP_CNTR_COMP_BUF = (1U << UVERBS_ID_NS_SHIFT),
	/* struct ib_uverbs_buffer_desc: where the error value lives */
	RXC_ATTR_CREATE_COMP_CNTR_ERR_BUF,
	/* u32, enum rxc_comp_cntr_type; absent means WRS */
	RXC_ATTR_CREATE_COMP_CNTR_TYPE,
	/* out: struct rxc_comp_cntr_create_resp */
	RXC_ATTR_CREATE_COMP_CNTR_RESP,
};

/**
 * struct rxc_comp_cntr_create_resp - where to read a counter directly
 * @comp_mask: zero; bits announce fields added later
 * @mmap_offset: mmap() offset on the command fd of the driver-allocated
 *	counter page, read-only (zero is a valid offset)
 * @mmap_length: bytes to map at @mmap_offset; zero, with @mmap_offset
 *	zero, when both values live in user memory and there is no page
 * @comp_offset: byte offset of the 64-bit completion value in that page
 * @err_offset: byte offset of the 64-bit error value in that page
 * @reserved: zero
 */
struct rxc_comp_cntr_create_resp {
	__aligned_u64 comp_mask;
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_length;
	__u32 comp_offset;
	__u32 err_offset;
	__aligned_u64 reserved;
};

/*
 * Driver methods of UVERBS_OBJECT_COMP_CNTR: waiting for a counter.
 *
 * WAIT blocks until the completion value reaches a threshold or the error
 * value differs from a baseline, whichever comes first.  NOTIFY arms an
 * eventfd with the same condition, so that many counters can be waited for
 * with poll() or epoll; the eventfd is signalled once per arming.
 *
 * WAIT names the counter by its handle as a plain u32, not as an IDR
 * attribute, so that it does not hold the counter's object while it
 * sleeps: MODIFY, READ and DESTROY work meanwhile, and a DESTROY ends the
 * wait with ENOENT.  rxc 1.0 took an IDR attribute there, which its
 * librxc sends with no length and the handle in the attribute's data;
 * the kernel still takes that form, with the new semantics, and it is
 * the one form every rxc kernel takes.
 */
enum rxc_comp_cntr_methods {
	RXC_METHOD_COMP_CNTR_WAIT = (1U << UVERBS_ID_NS_SHIFT),
	RXC_METHOD_COMP_CNTR_NOTIFY,
};

enum rxc_comp_cntr_wait_attrs {
	/* u32: the counter's handle; or no length, the handle in data */
	RXC_ATTR_COMP_CNTR_WAIT_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
	/* u64: return once the completion value is at least this */
	RXC_ATTR_COMP_CNTR_WAIT_THRESHOLD,
	/* u64, optional: return once the error value differs from this;
	 * absent means the error value when the call starts
	 */
	RXC_ATTR_COMP_CNTR_WAIT_ERR_BASE,
	/* u32: give up with ETIMEDOUT after this many milliseconds */
	RXC_ATTR_COMP_CNTR_WAIT_TIMEOUT_MS,
	/* out, u64, optional: the completion value seen last */
	RXC_ATTR_COMP_CNTR_WAIT_COMP_VALUE,
	/* out, u64, optional: the error value seen last */
	RXC_ATTR_COMP_CNTR_WAIT_ERR_VALUE,
};

enum rxc_comp_cntr_notify_attrs {
	/* the counter (IDR, read access) */
	RXC_ATTR_COMP_CNTR_NOTIFY_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
	/* s32: an eventfd to signal; -1 disarms */
	RXC_ATTR_COMP_CNTR_NOTIFY_EVENTFD,
	/* u64: signal once the completion value is at least this */
	RXC_ATTR_COMP_CNTR_NOTIFY_THRESHOLD,
	/* u64, optional: signal once the error value differs from this;
	 * absent means the error value when the call is made
	 */
	RXC_ATTR_COMP_CNTR_NOTIFY_ERR_BASE,
};

#endif /* RXC_ABI_USER_H */
