// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Waiting for a counter: rxc's WAIT and NOTIFY driver methods.
 *
 * Both name the counter by its handle only, so they work on any counter
 * of an rxc device, also one a libibverbs provider created.  A kernel
 * without the methods answers EOPNOTSUPP (rxc_ioctl_run()).
 */
#include <errno.h>
#include <string.h>

#include "rxc.h"
#include "ioctl.h"
#include "uapi.h"

RXC_EXPORT
int rxcdv_wait_comp_cntr(struct ibv_comp_cntr *comp_cntr,
			 struct rxcdv_comp_cntr_wait_attr *attr,
			 uint32_t inlen)
{
	uint64_t comp = 0, err_value = 0;
	struct rxc_ioctl c;
	int err;

	if (!comp_cntr || !attr)
		return EINVAL;
	err = rxc_check_inlen(attr, inlen, sizeof(*attr), sizeof(*attr));
	if (err)
		return err;
	if (attr->comp_mask & ~(uint64_t)RXCDV_COMP_CNTR_WAIT_ATTR_ERR_BASE)
		return EOPNOTSUPP;
	if (attr->reserved)
		return EINVAL;

	rxc_ioctl_init(&c, UVERBS_OBJECT_COMP_CNTR, RXC_METHOD_COMP_CNTR_WAIT);
	/*
	 * The handle in an IDR attribute's form: the one every rxc kernel
	 * takes (rxc-abi.h); the u32 form is for newer kernels only.
	 */
	rxc_ioctl_idr(&c, RXC_ATTR_COMP_CNTR_WAIT_HANDLE, comp_cntr->handle);
	rxc_ioctl_u64(&c, RXC_ATTR_COMP_CNTR_WAIT_THRESHOLD, attr->threshold);
	if (attr->comp_mask & RXCDV_COMP_CNTR_WAIT_ATTR_ERR_BASE)
		rxc_ioctl_u64(&c, RXC_ATTR_COMP_CNTR_WAIT_ERR_BASE,
			      attr->err_base);
	rxc_ioctl_u32(&c, RXC_ATTR_COMP_CNTR_WAIT_TIMEOUT_MS, attr->timeout_ms);
	rxc_ioctl_out(&c, RXC_ATTR_COMP_CNTR_WAIT_COMP_VALUE, &comp,
		      sizeof(comp));
	rxc_ioctl_out(&c, RXC_ATTR_COMP_CNTR_WAIT_ERR_VALUE, &err_value,
		      sizeof(err_value));
	err = rxc_ioctl_run(comp_cntr->context, &c);
	/* The kernel reports what it saw last on a timeout or removal too. */
	if (!err || err == ETIMEDOUT || err == EIO) {
		attr->comp_value = comp;
		attr->err_value = err_value;
	}
	return err;
}

RXC_EXPORT
int rxcdv_notify_comp_cntr(struct ibv_comp_cntr *comp_cntr,
			   struct rxcdv_comp_cntr_notify_attr *attr,
			   uint32_t inlen)
{
	struct rxc_ioctl c;
	int err;

	if (!comp_cntr || !attr)
		return EINVAL;
	err = rxc_check_inlen(attr, inlen, sizeof(*attr), sizeof(*attr));
	if (err)
		return err;
	if (attr->comp_mask & ~(uint64_t)RXCDV_COMP_CNTR_NOTIFY_ATTR_ERR_BASE)
		return EOPNOTSUPP;
	if (attr->reserved)
		return EINVAL;
	if (attr->fd < -1)
		return EBADF;

	rxc_ioctl_init(&c, UVERBS_OBJECT_COMP_CNTR,
		       RXC_METHOD_COMP_CNTR_NOTIFY);
	rxc_ioctl_idr(&c, RXC_ATTR_COMP_CNTR_NOTIFY_HANDLE, comp_cntr->handle);
	rxc_ioctl_s32(&c, RXC_ATTR_COMP_CNTR_NOTIFY_EVENTFD, attr->fd);
	rxc_ioctl_u64(&c, RXC_ATTR_COMP_CNTR_NOTIFY_THRESHOLD,
		      attr->threshold);
	if (attr->comp_mask & RXCDV_COMP_CNTR_NOTIFY_ATTR_ERR_BASE)
		rxc_ioctl_u64(&c, RXC_ATTR_COMP_CNTR_NOTIFY_ERR_BASE,
			      attr->err_base);
	return rxc_ioctl_run(comp_cntr->context, &c);
}
