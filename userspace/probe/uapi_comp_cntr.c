// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Build probe: do the headers librxc builds with have the completion
 * counter object and method IDs (upstream's ib_user_ioctl_cmds.h, from
 * Linux 7.3 on)?  Compiles only if they do.  libibverbs' verbs.h comes
 * first, as in the library (lib/uapi.h).
 */
#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>

int probe(void);

int probe(void)
{
	return UVERBS_OBJECT_COMP_CNTR + UVERBS_METHOD_COMP_CNTR_READ +
	       UVERBS_METHOD_QUERY_COMP_CNTR_CAPS +
	       UVERBS_ATTR_QP_ATTACH_COMP_CNTR_OP_MASK;
}
