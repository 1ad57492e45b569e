// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rxcdv_create_comp_cntr() and rxcdv_query_comp_cntr() where libibverbs
 * owns the counters (rdma-core 65 or later): the rxe provider, which
 * drives rxc, creates them and maps their values, and offers the same
 * two verbs as rxedv_* (rdma-core-patches).  Forwarding to those keeps
 * programs written against rxcdv.h (the examples) building and running
 * unchanged on either libibverbs.
 *
 * The rxedv structures have the same fields as the rxcdv ones; they are
 * copied field by field all the same, so that neither header's layout is
 * assumed from the other.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/rxedv.h>

#include "rxc.h"

static void to_rxedv_location(struct rxedv_memory_location *to,
			      const struct rxcdv_memory_location *from)
{
	to->ptr = from->ptr;
	to->dmabuf_offset = from->dmabuf_offset;
	to->dmabuf_fd = from->dmabuf_fd;
	/* The two enums list the same types in the same order. */
	to->type = from->type == RXCDV_MEMORY_LOCATION_DMABUF ?
		   RXEDV_MEMORY_LOCATION_DMABUF : RXEDV_MEMORY_LOCATION_VA;
}

static uint32_t to_rxedv_flags(uint32_t flags)
{
	uint32_t out = 0;

	if (flags & RXCDV_COMP_CNTR_INIT_WITH_COMP_EXTERNAL_MEM)
		out |= RXEDV_COMP_CNTR_INIT_WITH_COMP_EXTERNAL_MEM;
	if (flags & RXCDV_COMP_CNTR_INIT_WITH_ERR_EXTERNAL_MEM)
		out |= RXEDV_COMP_CNTR_INIT_WITH_ERR_EXTERNAL_MEM;
	return out;
}

RXC_EXPORT
struct ibv_comp_cntr *
rxcdv_create_comp_cntr(struct ibv_context *context,
		       struct ibv_comp_cntr_init_attr *attr,
		       struct rxcdv_comp_cntr_init_attr *dv_attr,
		       uint32_t inlen)
{
	struct rxedv_comp_cntr_init_attr rxe = {};
	int err;

	err = rxc_check_dv_init_attr(dv_attr, inlen);
	if (err) {
		errno = err;
		return NULL;
	}
	rxe.flags = to_rxedv_flags(dv_attr->flags);
	to_rxedv_location(&rxe.comp_ext_mem, &dv_attr->comp_ext_mem);
	to_rxedv_location(&rxe.err_ext_mem, &dv_attr->err_ext_mem);
	return rxedv_create_comp_cntr(context, attr, &rxe, sizeof(rxe));
}

RXC_EXPORT
int rxcdv_query_comp_cntr(struct ibv_comp_cntr *comp_cntr,
			  struct rxcdv_comp_cntr_attr *attr, uint32_t inlen)
{
	struct rxedv_comp_cntr_attr rxe;
	int err;

	err = rxc_check_query_attr(comp_cntr, attr, inlen);
	if (err)
		return err;
	err = rxedv_query_comp_cntr(comp_cntr, &rxe, sizeof(rxe));
	if (err)
		return err;
	memset(attr, 0, inlen);
	attr->comp_count = rxe.comp_count;
	attr->err_count = rxe.err_count;
	attr->type = rxe.type;
	return 0;
}
