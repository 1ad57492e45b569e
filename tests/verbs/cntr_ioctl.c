// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion counters through raw uverbs ioctls (see cntr_ioctl.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_cmds.h>

#include "cntr_ioctl.h"

/* One ioctl: the header and its attributes, contiguous as the ABI wants. */
struct ioc {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[8];
};

static void ioc_init(struct ioc *c, uint16_t object, uint16_t method)
{
	memset(c, 0, sizeof(*c));
	c->hdr.object_id = object;
	c->hdr.method_id = method;
	c->hdr.driver_id = RDMA_DRIVER_RXE;
}

static struct ib_uverbs_attr *ioc_add(struct ioc *c, uint16_t id,
				      uint16_t len)
{
	struct ib_uverbs_attr *a = &c->attrs[c->hdr.num_attrs++];

	a->attr_id = id;
	a->len = len;
	a->flags = UVERBS_ATTR_F_MANDATORY;
	return a;
}

/* Values of up to 8 bytes travel inside the attribute. */
static void ioc_in(struct ioc *c, uint16_t id, const void *val, uint16_t len)
{
	memcpy(&ioc_add(c, id, len)->data, val, len);
}

static void ioc_u64(struct ioc *c, uint16_t id, uint64_t val)
{
	ioc_in(c, id, &val, sizeof(val));
}

static void ioc_u32(struct ioc *c, uint16_t id, uint32_t val)
{
	ioc_in(c, id, &val, sizeof(val));
}

static void ioc_ptr(struct ioc *c, uint16_t id, const void *p, uint16_t len)
{
	ioc_add(c, id, len)->data = (uintptr_t)p;
}

static void ioc_idr(struct ioc *c, uint16_t id, uint32_t handle)
{
	ioc_add(c, id, 0)->data = handle;
}

static int ioc_run(struct ibv_context *ctx, struct ioc *c)
{
	c->hdr.length = sizeof(c->hdr) +
			c->hdr.num_attrs * sizeof(c->attrs[0]);
	return ioctl(ctx->cmd_fd, RDMA_VERBS_IOCTL, c) ? errno : 0;
}

int query_caps(struct ibv_context *ctx, struct caps *caps)
{
	struct ioc c;

	ioc_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_COMP_CNTR_CAPS);
	ioc_ptr(&c, UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_COUNTERS,
		&caps->max_counters, sizeof(caps->max_counters));
	ioc_ptr(&c, UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE,
		&caps->max_value, sizeof(caps->max_value));
	ioc_ptr(&c, UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_SUPPORTED_QP_ATTACH_OPS,
		&caps->ops, sizeof(caps->ops));
	return ioc_run(ctx, &c);
}

int query_caps_max_value(struct ibv_context *ctx, uint64_t *max_value)
{
	struct ioc c;

	ioc_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_COMP_CNTR_CAPS);
	ioc_ptr(&c, UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE, max_value,
		sizeof(*max_value));
	return ioc_run(ctx, &c);
}

/* @with_resp false sends the core handle alone, as upstream's generic verb. */
static int cntr_create_attrs(struct ibv_context *ctx, struct cntr *cntr,
			     bool with_resp, int type,
			     const struct ib_uverbs_buffer_desc *comp_buf,
			     const struct ib_uverbs_buffer_desc *err_buf)
{
	struct ioc c;
	int rc;

	memset(cntr, 0, sizeof(*cntr));
	ioc_init(&c, UVERBS_OBJECT_COMP_CNTR, UVERBS_METHOD_COMP_CNTR_CREATE);
	ioc_idr(&c, UVERBS_ATTR_CREATE_COMP_CNTR_HANDLE, 0);
	if (with_resp)
		ioc_ptr(&c, RXC_ATTR_CREATE_COMP_CNTR_RESP, &cntr->resp,
			sizeof(cntr->resp));
	if (type >= 0)
		ioc_u32(&c, RXC_ATTR_CREATE_COMP_CNTR_TYPE, type);
	if (comp_buf)
		ioc_ptr(&c, RXC_ATTR_CREATE_COMP_CNTR_COMP_BUF, comp_buf,
			sizeof(*comp_buf));
	if (err_buf)
		ioc_ptr(&c, RXC_ATTR_CREATE_COMP_CNTR_ERR_BUF, err_buf,
			sizeof(*err_buf));
	rc = ioc_run(ctx, &c);
	if (!rc)
		cntr->handle = c.attrs[0].data;
	return rc;
}

int cntr_create_ex(struct ibv_context *ctx, struct cntr *cntr, int type,
		   const struct ib_uverbs_buffer_desc *comp_buf,
		   const struct ib_uverbs_buffer_desc *err_buf)
{
	return cntr_create_attrs(ctx, cntr, true, type, comp_buf, err_buf);
}

int cntr_create_core(struct ibv_context *ctx, struct cntr *cntr)
{
	return cntr_create_attrs(ctx, cntr, false, -1, NULL, NULL);
}

int cntr_destroy(struct ibv_context *ctx, const struct cntr *cntr)
{
	struct ioc c;

	ioc_init(&c, UVERBS_OBJECT_COMP_CNTR, UVERBS_METHOD_COMP_CNTR_DESTROY);
	ioc_idr(&c, UVERBS_ATTR_DESTROY_COMP_CNTR_HANDLE, cntr->handle);
	return ioc_run(ctx, &c);
}

int cntr_modify(struct ibv_context *ctx, const struct cntr *cntr,
		uint64_t entry, uint64_t op, uint64_t value)
{
	struct ioc c;

	ioc_init(&c, UVERBS_OBJECT_COMP_CNTR, UVERBS_METHOD_COMP_CNTR_MODIFY);
	ioc_idr(&c, UVERBS_ATTR_MODIFY_COMP_CNTR_HANDLE, cntr->handle);
	ioc_u64(&c, UVERBS_ATTR_MODIFY_COMP_CNTR_ENTRY, entry);
	ioc_u64(&c, UVERBS_ATTR_MODIFY_COMP_CNTR_OP, op);
	ioc_u64(&c, UVERBS_ATTR_MODIFY_COMP_CNTR_VALUE, value);
	return ioc_run(ctx, &c);
}

int cntr_read(struct ibv_context *ctx, const struct cntr *cntr,
	      uint64_t entry, uint64_t *value)
{
	struct ioc c;

	*value = ~0ull;
	ioc_init(&c, UVERBS_OBJECT_COMP_CNTR, UVERBS_METHOD_COMP_CNTR_READ);
	ioc_idr(&c, UVERBS_ATTR_READ_COMP_CNTR_HANDLE, cntr->handle);
	ioc_u64(&c, UVERBS_ATTR_READ_COMP_CNTR_ENTRY, entry);
	ioc_ptr(&c, UVERBS_ATTR_READ_COMP_CNTR_RESP_VALUE, value,
		sizeof(*value));
	return ioc_run(ctx, &c);
}

int qp_attach(struct ibv_context *ctx, struct ibv_qp *qp,
	      const struct cntr *cntr, uint32_t op_mask)
{
	struct ioc c;

	ioc_init(&c, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_ATTACH_COMP_CNTR);
	ioc_idr(&c, UVERBS_ATTR_QP_ATTACH_COMP_CNTR_HANDLE, qp->handle);
	ioc_idr(&c, UVERBS_ATTR_QP_ATTACH_COMP_CNTR_CNTR_HANDLE, cntr->handle);
	ioc_u32(&c, UVERBS_ATTR_QP_ATTACH_COMP_CNTR_OP_MASK, op_mask);
	return ioc_run(ctx, &c);
}

/* @rxc10: the handle as rxc 1.0's librxc sent it, an IDR attribute's. */
static int cntr_wait_as(struct ibv_context *ctx, const struct cntr *cntr,
			uint64_t threshold, const uint64_t *err_base,
			uint32_t timeout_ms, uint64_t *comp, uint64_t *err,
			bool rxc10)
{
	struct ioc c;

	ioc_init(&c, UVERBS_OBJECT_COMP_CNTR, RXC_METHOD_COMP_CNTR_WAIT);
	if (rxc10)
		ioc_idr(&c, RXC_ATTR_COMP_CNTR_WAIT_HANDLE, cntr->handle);
	else
		ioc_u32(&c, RXC_ATTR_COMP_CNTR_WAIT_HANDLE, cntr->handle);
	ioc_u64(&c, RXC_ATTR_COMP_CNTR_WAIT_THRESHOLD, threshold);
	if (err_base)
		ioc_u64(&c, RXC_ATTR_COMP_CNTR_WAIT_ERR_BASE, *err_base);
	ioc_u32(&c, RXC_ATTR_COMP_CNTR_WAIT_TIMEOUT_MS, timeout_ms);
	if (comp)
		ioc_ptr(&c, RXC_ATTR_COMP_CNTR_WAIT_COMP_VALUE, comp,
			sizeof(*comp));
	if (err)
		ioc_ptr(&c, RXC_ATTR_COMP_CNTR_WAIT_ERR_VALUE, err,
			sizeof(*err));
	return ioc_run(ctx, &c);
}

int cntr_wait(struct ibv_context *ctx, const struct cntr *cntr,
	      uint64_t threshold, const uint64_t *err_base,
	      uint32_t timeout_ms, uint64_t *comp, uint64_t *err)
{
	return cntr_wait_as(ctx, cntr, threshold, err_base, timeout_ms, comp,
			    err, false);
}

int cntr_wait_rxc10(struct ibv_context *ctx, const struct cntr *cntr,
		    uint64_t threshold, uint32_t timeout_ms, uint64_t *comp)
{
	return cntr_wait_as(ctx, cntr, threshold, NULL, timeout_ms, comp, NULL,
			    true);
}

int cntr_notify(struct ibv_context *ctx, const struct cntr *cntr, int32_t fd,
		const uint64_t *threshold, const uint64_t *err_base)
{
	struct ioc c;

	ioc_init(&c, UVERBS_OBJECT_COMP_CNTR, RXC_METHOD_COMP_CNTR_NOTIFY);
	ioc_idr(&c, RXC_ATTR_COMP_CNTR_NOTIFY_HANDLE, cntr->handle);
	ioc_u32(&c, RXC_ATTR_COMP_CNTR_NOTIFY_EVENTFD, (uint32_t)fd);
	if (threshold)
		ioc_u64(&c, RXC_ATTR_COMP_CNTR_NOTIFY_THRESHOLD, *threshold);
	if (err_base)
		ioc_u64(&c, RXC_ATTR_COMP_CNTR_NOTIFY_ERR_BASE, *err_base);
	return ioc_run(ctx, &c);
}
