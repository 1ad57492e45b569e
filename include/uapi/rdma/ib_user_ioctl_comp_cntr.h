/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * Completion counter uverbs IDs, for kernels whose uapi predates them.
 *
 * Upstream added these to <rdma/ib_user_ioctl_cmds.h> and
 * <rdma/ib_user_ioctl_verbs.h> (rdma for-next, July 2026).  The names and
 * values here are the upstream ones, so user space built against either
 * talks to the same kernel objects.  Include this header only where the
 * kernel headers lack them (rxc's Kbuild probe decides), since it declares
 * the same identifiers.  The buffer descriptor that counter memory is
 * given by is in <rdma/ib_user_buffer_desc.h>: uAPIs gained it before the
 * counter IDs.  The enums upstream keeps in ib_user_ioctl_verbs.h are in
 * <rdma/ib_user_comp_cntr_verbs.h>, included below.
 */
#ifndef IB_USER_IOCTL_COMP_CNTR_H
#define IB_USER_IOCTL_COMP_CNTR_H

#include <linux/types.h>
#include <rdma/ib_user_ioctl_cmds.h>

/* Object and method IDs beyond the ones the 6.1 enums list. */
enum {
	UVERBS_OBJECT_COMP_CNTR = 19,
	UVERBS_METHOD_QUERY_COMP_CNTR_CAPS = 8,	/* on UVERBS_OBJECT_DEVICE */
	UVERBS_METHOD_QP_ATTACH_COMP_CNTR = 2,	/* on UVERBS_OBJECT_QP */
};

enum uverbs_attrs_query_comp_cntr_caps_attr_ids {
	UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_COUNTERS,
	UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE,
	UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_SUPPORTED_QP_ATTACH_OPS,
};

enum uverbs_attrs_qp_attach_comp_cntr_cmd_attr_ids {
	UVERBS_ATTR_QP_ATTACH_COMP_CNTR_HANDLE,
	UVERBS_ATTR_QP_ATTACH_COMP_CNTR_CNTR_HANDLE,
	UVERBS_ATTR_QP_ATTACH_COMP_CNTR_OP_MASK,
};

enum uverbs_methods_comp_cntr {
	UVERBS_METHOD_COMP_CNTR_CREATE,
	UVERBS_METHOD_COMP_CNTR_DESTROY,
	UVERBS_METHOD_COMP_CNTR_MODIFY,
	UVERBS_METHOD_COMP_CNTR_READ,
};

enum uverbs_attrs_create_comp_cntr_cmd_attr_ids {
	UVERBS_ATTR_CREATE_COMP_CNTR_HANDLE,
};

enum uverbs_attrs_destroy_comp_cntr_cmd_attr_ids {
	UVERBS_ATTR_DESTROY_COMP_CNTR_HANDLE,
};

enum uverbs_attrs_modify_comp_cntr_cmd_attr_ids {
	UVERBS_ATTR_MODIFY_COMP_CNTR_HANDLE,
	UVERBS_ATTR_MODIFY_COMP_CNTR_ENTRY,
	UVERBS_ATTR_MODIFY_COMP_CNTR_OP,
	UVERBS_ATTR_MODIFY_COMP_CNTR_VALUE,
};

enum uverbs_attrs_read_comp_cntr_cmd_attr_ids {
	UVERBS_ATTR_READ_COMP_CNTR_HANDLE,
	UVERBS_ATTR_READ_COMP_CNTR_ENTRY,
	UVERBS_ATTR_READ_COMP_CNTR_RESP_VALUE,
};

/*
 * The entry, modify and attach op enums, which upstream keeps in
 * ib_user_ioctl_verbs.h.  User space that already has them from its
 * libibverbs while its kernel headers lack the IDs above defines
 * RXC_UAPI_HAVE_COMP_CNTR_VERBS (librxc probes for it).
 */
#ifndef RXC_UAPI_HAVE_COMP_CNTR_VERBS
#include <rdma/ib_user_comp_cntr_verbs.h>
#endif

#endif /* IB_USER_IOCTL_COMP_CNTR_H */
