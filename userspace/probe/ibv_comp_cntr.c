// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Build probe: does <infiniband/verbs.h> declare the completion counter
 * verbs (rdma-core 65 and later)?  Compiles only if it does.
 */
#include <infiniband/verbs.h>

int probe(struct ibv_context *ctx);

int probe(struct ibv_context *ctx)
{
	struct ibv_comp_cntr_init_attr attr = {
		.type = IBV_COMP_CNTR_TYPE_BYTES,
	};
	struct ibv_comp_cntr *cntr = ibv_create_comp_cntr(ctx, &attr);

	return cntr ? ibv_destroy_comp_cntr(cntr) : IBV_QP_ATTACH_COMP_CNTR_OP_SEND;
}
