/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Completion counters for kernels whose RDMA core predates them.
 *
 * Upstream core (rdma for-next, July 2026) declares the counter object in
 * <rdma/ib_verbs.h> and the driver callbacks in struct ib_device_ops.  A
 * 6.1 core has neither, so this header carries the same object and the
 * same callback signatures, and uverbs_comp_cntr.c plays the part of the
 * core's uverbs handlers.  A driver links both into its module and puts
 * ib_comp_cntr_uapi_defs first in its ib_device.driver_def chain.
 *
 * Neither core tracks which counters a QP counts into, so the driver
 * keeps that table (struct ib_comp_cntr_attachments, ib_comp_cntr_attach.c)
 * in its QP and calls ib_comp_cntr_detach_all() from its destroy_qp.
 *
 * The driver's Kbuild defines RXC_CORE_COMP_CNTR when the kernel's own
 * headers have the object; then only the attachment table is used from
 * here and uverbs_comp_cntr.c is not built.
 */
#ifndef IB_COMP_CNTR_H
#define IB_COMP_CNTR_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/* One attachment slot per operation bit. */
#define IB_COMP_CNTR_NUM_OPS	6
#define IB_COMP_CNTR_ALL_OPS	GENMASK(IB_COMP_CNTR_NUM_OPS - 1, 0)

#ifdef RXC_CORE_COMP_CNTR
/*
 * The kernel's core has the object (Kbuild's probe found it): struct
 * ib_comp_cntr, its enums and the ib_device_ops callbacks come from
 * <rdma/ib_verbs.h>.  The core counts a counter's attachments in its own
 * object (7.3, as the backport in kernel-patches/); the attachment table
 * here keeps a count of its own, in the driver's object, so that one
 * table serves both paths, and the driver says where that count is.
 */
atomic_t *ib_comp_cntr_usecnt(struct ib_comp_cntr *cc);
#else
#include <rdma/ib_user_ioctl_comp_cntr.h>

/**
 * struct ib_comp_cntr - a completion counter; drivers embed it first
 * @device: the device that owns it
 * @uobject: the user object it backs
 * @usecnt: attachments to QPs; the counter cannot be destroyed while
 *	    any remain
 */
struct ib_comp_cntr {
	struct ib_device *device;
	struct ib_uobject *uobject;
	atomic_t usecnt;
};

static inline atomic_t *ib_comp_cntr_usecnt(struct ib_comp_cntr *cc)
{
	return &cc->usecnt;
}

enum ib_comp_cntr_entry {
	IB_COMP_CNTR_ENTRY_COMP = IB_UVERBS_COMP_CNTR_ENTRY_COMP,
	IB_COMP_CNTR_ENTRY_ERR = IB_UVERBS_COMP_CNTR_ENTRY_ERR,
};

enum ib_comp_cntr_modify_op {
	IB_COMP_CNTR_MODIFY_OP_SET = IB_UVERBS_COMP_CNTR_MODIFY_OP_SET,
	IB_COMP_CNTR_MODIFY_OP_INC = IB_UVERBS_COMP_CNTR_MODIFY_OP_INC,
};

struct ib_qp_attach_comp_cntr_attr {
	u32 op_mask;
};

/**
 * struct ib_comp_cntr_caps - what UVERBS_METHOD_QUERY_COMP_CNTR_CAPS reports
 * @max_value: the largest value either entry holds before wrapping to 0
 * @max_counters: counters per device
 * @supported_qp_attach_ops: IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_* bits
 */
struct ib_comp_cntr_caps {
	u64 max_value;
	u32 max_counters;
	u32 supported_qp_attach_ops;
};
#endif /* RXC_CORE_COMP_CNTR */

/**
 * struct ib_comp_cntr_ops - the counter callbacks of struct ib_device_ops
 *
 * The signatures are upstream's, the capabilities callback's included:
 * core's QUERY_COMP_CNTR_CAPS method and its attach checks ask it.
 * @size_ib_comp_cntr: bytes of the driver's object around struct
 * ib_comp_cntr, as INIT_RDMA_OBJ_SIZE() gives them.
 */
struct ib_comp_cntr_ops {
	int (*query_comp_cntr_caps)(struct ib_device *ibdev,
				    struct ib_comp_cntr_caps *caps,
				    struct uverbs_attr_bundle *attrs);
	int (*create_comp_cntr)(struct ib_comp_cntr *cc,
				struct uverbs_attr_bundle *attrs);
	int (*destroy_comp_cntr)(struct ib_comp_cntr *cc);
	int (*modify_comp_cntr)(struct ib_comp_cntr *cc,
				enum ib_comp_cntr_entry entry,
				enum ib_comp_cntr_modify_op op, u64 value);
	int (*read_comp_cntr)(struct ib_comp_cntr *cc,
			      enum ib_comp_cntr_entry entry, u64 *value);
	int (*qp_attach_comp_cntr)(struct ib_qp *qp, struct ib_comp_cntr *cc,
				   struct ib_qp_attach_comp_cntr_attr *attr);
	size_t size_ib_comp_cntr;
};

/*
 * The counter callbacks of @ibdev.  The driver that links this code in
 * defines it; upstream core reads ibdev->ops instead.
 */
const struct ib_comp_cntr_ops *ib_comp_cntr_device_ops(struct ib_device *ibdev);

/**
 * struct ib_comp_cntr_attachments - the counters attached to one QP
 * @by_op: the counter for each operation bit (bit n at index n), or NULL
 *
 * Writers (attach, detach_all) are serialized by the QP's owner and run
 * only while no completion can be produced on the QP (attach: RESET or
 * INIT; detach: QP destruction), so the completion path reads a slot
 * with READ_ONCE() and no lock.
 */
struct ib_comp_cntr_attachments {
	struct ib_comp_cntr *by_op[IB_COMP_CNTR_NUM_OPS];
};

/**
 * ib_comp_cntr_check_op_mask - the attach checks on an operation mask
 * @op_mask: what user space asked to count
 * @supported: IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_* bits the device counts
 *
 * Upstream's core errnos: a bit outside the six operations (which
 * uverbs_get_flags32() refuses first) or an empty mask is EINVAL; a known
 * operation the device does not count is EOPNOTSUPP.
 */
static inline int ib_comp_cntr_check_op_mask(u32 op_mask, u32 supported)
{
	if ((op_mask & ~IB_COMP_CNTR_ALL_OPS) || !op_mask)
		return -EINVAL;
	if (op_mask & ~supported)
		return -EOPNOTSUPP;
	return 0;
}

bool ib_comp_cntr_overlaps(const struct ib_comp_cntr_attachments *a,
			   u32 op_mask);
int ib_comp_cntr_attach(struct ib_comp_cntr_attachments *a,
			struct ib_comp_cntr *cc, u32 op_mask);
void ib_comp_cntr_detach_all(struct ib_comp_cntr_attachments *a);

/* The counter attached for operation bit index @op_idx, or NULL. */
static inline struct ib_comp_cntr *
ib_comp_cntr_for_op(const struct ib_comp_cntr_attachments *a,
		    unsigned int op_idx)
{
	return READ_ONCE(a->by_op[op_idx]);
}

#ifndef RXC_CORE_COMP_CNTR
extern const struct uapi_definition ib_comp_cntr_uapi_defs[];
#endif

#endif /* IB_COMP_CNTR_H */
