/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * The user buffer descriptor, for uAPIs that predate it.
 *
 * Upstream added it to <rdma/ib_user_ioctl_verbs.h> with the DMABUF
 * object, before the completion counter IDs (<rdma/ib_user_ioctl_comp_cntr.h>),
 * so a uAPI may have it and still lack those.  The names, values and
 * layout are upstream's.  Include this header only where the uAPI lacks
 * the descriptor (rxc's Kbuild probe decides), since it declares the same
 * identifiers.
 */
#ifndef IB_USER_BUFFER_DESC_H
#define IB_USER_BUFFER_DESC_H

#include <linux/types.h>

enum ib_uverbs_buffer_type {
	IB_UVERBS_BUFFER_TYPE_DMABUF,
	IB_UVERBS_BUFFER_TYPE_VA,
};

/*
 * Memory supplied by user space: a dma-buf (@fd, @addr the offset in it)
 * or user virtual memory (@addr).  Unknown @flags bits are rejected;
 * unknown @optional_flags bits are ignored.
 */
struct ib_uverbs_buffer_desc {
	__u32 type;
	__s32 fd;
	__u32 flags;
	__u32 optional_flags;
	__aligned_u64 addr;
	__aligned_u64 length;
};

#endif /* IB_USER_BUFFER_DESC_H */
