// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Build probe: do the headers librxc builds with declare the user buffer
 * descriptor (upstream's ib_user_ioctl_verbs.h since the DMABUF object:
 * Linux 7.2, rdma-core 65)?  Compiles only if they do.
 */
#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>

int probe(void);

int probe(void)
{
	struct ib_uverbs_buffer_desc desc = {
		.type = IB_UVERBS_BUFFER_TYPE_VA,
	};

	return desc.type + IB_UVERBS_BUFFER_TYPE_DMABUF;
}
