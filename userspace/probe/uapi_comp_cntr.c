// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Build probe: do the installed kernel uapi headers define the completion
 * counter IDs (Linux 7.x)?  Compiles only if they do.
 */
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>

int probe(void);

int probe(void)
{
	return UVERBS_OBJECT_COMP_CNTR + UVERBS_METHOD_COMP_CNTR_READ +
	       IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND;
}
