// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Build probe: does libibverbs' rxe provider have direct verbs for
 * counters (<infiniband/rxedv.h>, from rxc's rdma-core-patches)?
 * Compiles only if it does.
 */
#include <infiniband/rxedv.h>

int probe(struct ibv_context *ctx, struct ibv_comp_cntr_init_attr *attr);

int probe(struct ibv_context *ctx, struct ibv_comp_cntr_init_attr *attr)
{
	struct rxedv_comp_cntr_init_attr dv = {
		.flags = RXEDV_COMP_CNTR_INIT_WITH_COMP_EXTERNAL_MEM,
	};
	struct rxedv_comp_cntr_attr vals;
	struct ibv_comp_cntr *c = rxedv_create_comp_cntr(ctx, attr, &dv, sizeof(dv));

	return c ? rxedv_query_comp_cntr(c, &vals, sizeof(vals)) : 0;
}
