/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * The completion counter enums that upstream keeps in
 * <rdma/ib_user_ioctl_verbs.h>, for uAPIs that predate them.
 *
 * They are apart from the object and method IDs
 * (<rdma/ib_user_ioctl_comp_cntr.h>, upstream's ib_user_ioctl_cmds.h)
 * because user space can get the two upstream headers from different
 * places: libibverbs installs its own copy of ib_user_ioctl_verbs.h
 * (rdma-core 65's has these enums) while the kernel's headers provide
 * ib_user_ioctl_cmds.h (Linux 7.2's lacks the IDs).  The names and values
 * are upstream's; include this header only where neither has them.
 */
#ifndef IB_USER_COMP_CNTR_VERBS_H
#define IB_USER_COMP_CNTR_VERBS_H

/* Which of a counter's two values an operation addresses. */
enum ib_uverbs_comp_cntr_entry {
	IB_UVERBS_COMP_CNTR_ENTRY_COMP,
	IB_UVERBS_COMP_CNTR_ENTRY_ERR,
};

enum ib_uverbs_comp_cntr_modify_op {
	IB_UVERBS_COMP_CNTR_MODIFY_OP_SET,
	IB_UVERBS_COMP_CNTR_MODIFY_OP_INC,
};

/* The operation types a counter attached to a QP counts. */
enum ib_uverbs_qp_attach_comp_cntr_op {
	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND = 1 << 0,
	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV = 1 << 1,
	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_READ = 1 << 2,
	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ = 1 << 3,
	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE = 1 << 4,
	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE = 1 << 5,
};

#endif /* IB_USER_COMP_CNTR_VERBS_H */
