// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A program using the counter verbs and rxc's wait verb; check-defer.sh
 * compiles it against a libibverbs that declares the verbs itself.
 */
#include <infiniband/rxcdv.h>

int use(struct ibv_context *ctx);

int use(struct ibv_context *ctx)
{
	struct ibv_comp_cntr_init_attr attr = { .type = IBV_COMP_CNTR_TYPE_WRS };
	struct rxcdv_comp_cntr_wait_attr wait = { .threshold = 1 };
	struct ibv_comp_cntr *c = ibv_create_comp_cntr(ctx, &attr);
	struct ibv_comp_cntr_caps caps;

	if (!c || ibv_query_comp_cntr_caps(ctx, &caps))
		return 1;
	return rxcdv_wait_comp_cntr(c, &wait, sizeof(wait)) ||
	       ibv_destroy_comp_cntr(c);
}
