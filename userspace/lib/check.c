// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Argument checks of the direct verbs, shared by librxc's two builds: the
 * one that creates counters itself (cntr.c, a libibverbs without counter
 * verbs) and the one that forwards to librxe's rxedv_* (rxedv.c, rdma-core
 * 65 or later).  A program passing the same bad argument gets the same
 * errno from either, before anything reaches the kernel or librxe.
 */
#include <errno.h>

#include "rxc.h"

/* A counter value is one naturally aligned 64-bit word. */
#define VALUE_SIZE	sizeof(uint64_t)

int rxc_check_inlen(const void *attr, uint32_t inlen, size_t needed,
		    size_t known)
{
	const unsigned char *p = attr;
	size_t i;

	if (inlen < needed)
		return EINVAL;
	for (i = known; i < inlen; i++)
		if (p[i])
			return EINVAL;
	return 0;
}

static int check_location(const struct rxcdv_memory_location *loc)
{
	switch (loc->type) {
	case RXCDV_MEMORY_LOCATION_VA:
		if (!loc->ptr || (uintptr_t)loc->ptr % VALUE_SIZE)
			return EINVAL;
		return 0;
	case RXCDV_MEMORY_LOCATION_DMABUF:
		if (loc->dmabuf_fd < 0)
			return EBADF;
		if (loc->dmabuf_offset % VALUE_SIZE ||
		    (uintptr_t)loc->ptr % VALUE_SIZE)
			return EINVAL;
		return 0;
	default:
		return EINVAL;
	}
}

int rxc_check_dv_init_attr(const struct rxcdv_comp_cntr_init_attr *dv,
			   uint32_t inlen)
{
	const uint32_t known_flags =
		RXCDV_COMP_CNTR_INIT_WITH_COMP_EXTERNAL_MEM |
		RXCDV_COMP_CNTR_INIT_WITH_ERR_EXTERNAL_MEM;
	int err;

	if (!dv)
		return EINVAL;
	err = rxc_check_inlen(dv, inlen,
			      offsetof(struct rxcdv_comp_cntr_init_attr,
				       err_ext_mem) +
			      sizeof(dv->err_ext_mem), sizeof(*dv));
	if (err)
		return err;
	/* An extension this library does not know must not be dropped. */
	if (dv->comp_mask || dv->flags & ~known_flags)
		return EOPNOTSUPP;
	if (dv->reserved)
		return EINVAL;
	if (dv->flags & RXCDV_COMP_CNTR_INIT_WITH_COMP_EXTERNAL_MEM) {
		err = check_location(&dv->comp_ext_mem);
		if (err)
			return err;
	}
	if (dv->flags & RXCDV_COMP_CNTR_INIT_WITH_ERR_EXTERNAL_MEM)
		return check_location(&dv->err_ext_mem);
	return 0;
}

int rxc_check_query_attr(const struct ibv_comp_cntr *comp_cntr,
			 const struct rxcdv_comp_cntr_attr *attr,
			 uint32_t inlen)
{
	if (!comp_cntr || !attr)
		return EINVAL;
	return rxc_check_inlen(attr, inlen,
			       offsetof(struct rxcdv_comp_cntr_attr, type) +
			       sizeof(attr->type), sizeof(*attr));
}
