// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Build probe: do the headers librxc builds with have the completion
 * counter enums upstream keeps in ib_user_ioctl_verbs.h?  libibverbs
 * installs its own copy of that header and verbs.h includes it, so
 * rdma-core 65 brings them even where the kernel's headers lack them.
 * Compiles only if they are there.
 */
#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>

int probe(void);

int probe(void)
{
	enum ib_uverbs_comp_cntr_entry entry = IB_UVERBS_COMP_CNTR_ENTRY_ERR;
	enum ib_uverbs_comp_cntr_modify_op op = IB_UVERBS_COMP_CNTR_MODIFY_OP_INC;

	return entry + op + IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE;
}
