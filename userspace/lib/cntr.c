// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The completion counter verbs of rdma-core 65 (ibv_*_comp_cntr), for a
 * libibverbs without them, and the rxc direct verbs that need counters
 * this library created (creation with external memory, value pointers,
 * the counter's own eventfd).
 *
 * Each verb is one uverbs ioctl on the context's command fd.  Errors are
 * returned as errno values, constructors return NULL with errno set, as
 * libibverbs does.  Nothing here is compiled when libibverbs declares the
 * verbs itself (RXC_HAVE_IBV_COMP_CNTR): they then belong to libibverbs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>

#include "rxc.h"
#include "ioctl.h"
#include "uapi.h"

#if !RXC_HAVE_IBV_COMP_CNTR

/* A counter value is one naturally aligned 64-bit word. */
#define VALUE_SIZE	sizeof(uint64_t)
/* The six operations a counter can count: every bit up to the last one. */
#define RXC_ATTACH_ALL_OPS \
	((IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE << 1) - 1u)

static void fill_desc(struct ib_uverbs_buffer_desc *desc,
		      const struct rxcdv_memory_location *loc)
{
	memset(desc, 0, sizeof(*desc));
	desc->length = VALUE_SIZE;
	if (loc->type == RXCDV_MEMORY_LOCATION_VA) {
		desc->type = IB_UVERBS_BUFFER_TYPE_VA;
		desc->fd = -1;
		desc->addr = (uintptr_t)loc->ptr;
	} else {
		desc->type = IB_UVERBS_BUFFER_TYPE_DMABUF;
		desc->fd = loc->dmabuf_fd;
		desc->addr = loc->dmabuf_offset;
	}
}

/*
 * The rdma-core part of a creation's attributes; rxc_check_dv_init_attr()
 * checks the direct-verbs part.
 */
static int check_init_attr(const struct ibv_comp_cntr_init_attr *attr)
{
	/* No comp_mask bit is defined yet: any is an unknown extension. */
	if (attr->comp_mask)
		return EOPNOTSUPP;
	if (attr->flags)
		return EINVAL;
	return 0;
}

/* The response must describe 8-byte slots inside the page it names. */
static int check_resp(const struct rxc_comp_cntr_create_resp *resp)
{
	if (!resp->mmap_length)
		return 0;
	if (resp->comp_offset % VALUE_SIZE || resp->err_offset % VALUE_SIZE ||
	    resp->comp_offset > resp->mmap_length - VALUE_SIZE ||
	    resp->err_offset > resp->mmap_length - VALUE_SIZE)
		return EPROTO;
	return 0;
}

static int destroy_ioctl(struct ibv_comp_cntr *cntr)
{
	struct rxc_ioctl c;
	int err;

	rxc_ioctl_init(&c, UVERBS_OBJECT_COMP_CNTR,
		       UVERBS_METHOD_COMP_CNTR_DESTROY);
	rxc_ioctl_idr(&c, UVERBS_ATTR_DESTROY_COMP_CNTR_HANDLE, cntr->handle);
	err = rxc_ioctl_run(cntr->context, &c);
	/*
	 * EIO: the device was disassociated (removed, driver unloaded) and
	 * the kernel already destroyed the object, as libibverbs assumes.
	 */
	return err == EIO ? 0 : err;
}

/* Maps the driver's page if any value lives there. */
static int map_values(struct rxc_comp_cntr *cc,
		      const struct rxc_comp_cntr_create_resp *resp,
		      const struct rxcdv_comp_cntr_init_attr *dv)
{
	uint32_t flags = dv ? dv->flags : 0;
	void *map;

	if (flags & RXCDV_COMP_CNTR_INIT_WITH_COMP_EXTERNAL_MEM)
		cc->comp = dv->comp_ext_mem.ptr;
	if (flags & RXCDV_COMP_CNTR_INIT_WITH_ERR_EXTERNAL_MEM)
		cc->err = dv->err_ext_mem.ptr;
	if (!resp->mmap_length)
		return 0;

	map = mmap(NULL, resp->mmap_length, PROT_READ, MAP_SHARED,
		   cc->ibv.context->cmd_fd, resp->mmap_offset);
	if (map == MAP_FAILED)
		return errno;
	cc->map = map;
	cc->map_len = resp->mmap_length;
	if (!(flags & RXCDV_COMP_CNTR_INIT_WITH_COMP_EXTERNAL_MEM))
		cc->comp = (const uint64_t *)((char *)map + resp->comp_offset);
	if (!(flags & RXCDV_COMP_CNTR_INIT_WITH_ERR_EXTERNAL_MEM))
		cc->err = (const uint64_t *)((char *)map + resp->err_offset);
	return 0;
}

static struct ibv_comp_cntr *
create_cntr(struct ibv_context *context, struct ibv_comp_cntr_init_attr *attr,
	    const struct rxcdv_comp_cntr_init_attr *dv)
{
	struct ib_uverbs_buffer_desc comp_desc, err_desc;
	struct rxc_comp_cntr_create_resp resp = {};
	struct ib_uverbs_attr *handle;
	struct rxc_comp_cntr *cc;
	struct rxc_ioctl c;
	int err;

	if (!context || !attr) {
		errno = EINVAL;
		return NULL;
	}
	err = check_init_attr(attr);
	if (err) {
		errno = err;
		return NULL;
	}
	cc = calloc(1, sizeof(*cc));
	if (!cc) {
		errno = ENOMEM;
		return NULL;
	}
	cc->ibv.context = context;
	cc->type = attr->type;
	cc->event_fd = -1;
	pthread_mutex_init(&cc->lock, NULL);

	rxc_ioctl_init(&c, UVERBS_OBJECT_COMP_CNTR,
		       UVERBS_METHOD_COMP_CNTR_CREATE);
	handle = rxc_ioctl_idr(&c, UVERBS_ATTR_CREATE_COMP_CNTR_HANDLE, 0);
	/* The enum values are the kernel's (checked by t_abi). */
	rxc_ioctl_u32(&c, RXC_ATTR_CREATE_COMP_CNTR_TYPE, attr->type);
	rxc_ioctl_out(&c, RXC_ATTR_CREATE_COMP_CNTR_RESP, &resp, sizeof(resp));
	if (dv && dv->flags & RXCDV_COMP_CNTR_INIT_WITH_COMP_EXTERNAL_MEM) {
		fill_desc(&comp_desc, &dv->comp_ext_mem);
		rxc_ioctl_in(&c, RXC_ATTR_CREATE_COMP_CNTR_COMP_BUF, &comp_desc,
			     sizeof(comp_desc));
	}
	if (dv && dv->flags & RXCDV_COMP_CNTR_INIT_WITH_ERR_EXTERNAL_MEM) {
		fill_desc(&err_desc, &dv->err_ext_mem);
		rxc_ioctl_in(&c, RXC_ATTR_CREATE_COMP_CNTR_ERR_BUF, &err_desc,
			     sizeof(err_desc));
	}
	err = rxc_ioctl_run(context, &c);
	if (err)
		goto err_free;
	cc->ibv.handle = handle->data;

	err = check_resp(&resp);
	if (!err)
		err = map_values(cc, &resp, dv);
	if (err)
		goto err_destroy;
	return &cc->ibv;

err_destroy:
	destroy_ioctl(&cc->ibv);
err_free:
	pthread_mutex_destroy(&cc->lock);
	free(cc);
	errno = err;
	return NULL;
}

RXC_EXPORT
struct ibv_comp_cntr *ibv_create_comp_cntr(struct ibv_context *context,
					   struct ibv_comp_cntr_init_attr *cc_attr)
{
	return create_cntr(context, cc_attr, NULL);
}

RXC_EXPORT
struct ibv_comp_cntr *
rxcdv_create_comp_cntr(struct ibv_context *context,
		       struct ibv_comp_cntr_init_attr *attr,
		       struct rxcdv_comp_cntr_init_attr *dv_attr,
		       uint32_t inlen)
{
	int err;

	err = rxc_check_dv_init_attr(dv_attr, inlen);
	if (err) {
		errno = err;
		return NULL;
	}
	return create_cntr(context, attr, dv_attr);
}

RXC_EXPORT
int ibv_destroy_comp_cntr(struct ibv_comp_cntr *comp_cntr)
{
	struct rxc_comp_cntr *cc;
	int err;

	if (!comp_cntr)
		return EINVAL;
	cc = to_rxc_cntr(comp_cntr);
	/* EBUSY (still attached) leaves the counter fully usable. */
	err = destroy_ioctl(comp_cntr);
	if (err)
		return err;
	if (cc->map)
		munmap(cc->map, cc->map_len);
	if (cc->event_fd >= 0)
		close(cc->event_fd);
	pthread_mutex_destroy(&cc->lock);
	free(cc);
	return 0;
}

static int modify(struct ibv_comp_cntr *cntr, uint64_t entry, uint64_t op,
		  uint64_t value)
{
	struct rxc_ioctl c;

	if (!cntr)
		return EINVAL;
	rxc_ioctl_init(&c, UVERBS_OBJECT_COMP_CNTR,
		       UVERBS_METHOD_COMP_CNTR_MODIFY);
	rxc_ioctl_idr(&c, UVERBS_ATTR_MODIFY_COMP_CNTR_HANDLE, cntr->handle);
	rxc_ioctl_u64(&c, UVERBS_ATTR_MODIFY_COMP_CNTR_ENTRY, entry);
	rxc_ioctl_u64(&c, UVERBS_ATTR_MODIFY_COMP_CNTR_OP, op);
	rxc_ioctl_u64(&c, UVERBS_ATTR_MODIFY_COMP_CNTR_VALUE, value);
	return rxc_ioctl_run(cntr->context, &c);
}

RXC_EXPORT
int ibv_set_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t value)
{
	return modify(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_COMP,
		      IB_UVERBS_COMP_CNTR_MODIFY_OP_SET, value);
}

RXC_EXPORT
int ibv_set_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t value)
{
	return modify(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_ERR,
		      IB_UVERBS_COMP_CNTR_MODIFY_OP_SET, value);
}

RXC_EXPORT
int ibv_inc_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t amount)
{
	return modify(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_COMP,
		      IB_UVERBS_COMP_CNTR_MODIFY_OP_INC, amount);
}

RXC_EXPORT
int ibv_inc_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t amount)
{
	return modify(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_ERR,
		      IB_UVERBS_COMP_CNTR_MODIFY_OP_INC, amount);
}

/*
 * Always the READ ioctl, like upstream's generic helper: it works for
 * every kind of counter memory, including a dma-buf nobody mapped.
 */
static int read_value(struct ibv_comp_cntr *cntr, uint64_t entry,
		      uint64_t *value)
{
	struct rxc_ioctl c;

	if (!cntr || !value)
		return EINVAL;
	rxc_ioctl_init(&c, UVERBS_OBJECT_COMP_CNTR,
		       UVERBS_METHOD_COMP_CNTR_READ);
	rxc_ioctl_idr(&c, UVERBS_ATTR_READ_COMP_CNTR_HANDLE, cntr->handle);
	rxc_ioctl_u64(&c, UVERBS_ATTR_READ_COMP_CNTR_ENTRY, entry);
	rxc_ioctl_out(&c, UVERBS_ATTR_READ_COMP_CNTR_RESP_VALUE, value,
		      sizeof(*value));
	return rxc_ioctl_run(cntr->context, &c);
}

RXC_EXPORT
int ibv_read_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t *value)
{
	return read_value(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_COMP, value);
}

RXC_EXPORT
int ibv_read_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t *value)
{
	return read_value(comp_cntr, IB_UVERBS_COMP_CNTR_ENTRY_ERR, value);
}

RXC_EXPORT
int _ibv_query_comp_cntr_caps(struct ibv_context *context,
			      struct ibv_comp_cntr_caps *caps,
			      size_t caps_size)
{
	uint32_t max_counters, ops;
	uint64_t max_value;
	struct rxc_ioctl c;
	int err;

	if (!context || !caps || caps_size < sizeof(*caps))
		return EINVAL;
	memset(caps, 0, caps_size);
	rxc_ioctl_init(&c, UVERBS_OBJECT_DEVICE,
		       UVERBS_METHOD_QUERY_COMP_CNTR_CAPS);
	rxc_ioctl_out(&c, UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_COUNTERS,
		      &max_counters, sizeof(max_counters));
	rxc_ioctl_out(&c, UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE,
		      &max_value, sizeof(max_value));
	rxc_ioctl_out(&c, UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_SUPPORTED_QP_ATTACH_OPS,
		      &ops, sizeof(ops));
	err = rxc_ioctl_run(context, &c);
	if (err)
		return err;
	caps->max_value = max_value;
	caps->max_counters = max_counters;
	/* IBV_QP_ATTACH_COMP_CNTR_OP_* equal the kernel bits (t_abi). */
	caps->supported_qp_attach_ops = ops;
	return 0;
}

RXC_EXPORT
int ibv_qp_attach_comp_cntr(struct ibv_qp *qp, struct ibv_comp_cntr *comp_cntr,
			    struct ibv_qp_attach_comp_cntr_attr *attr)
{
	struct rxc_ioctl c;

	if (!qp || !comp_cntr || !attr || attr->comp_mask)
		return EINVAL;
	/*
	 * The kernel says EINVAL for a bit outside the six operations, as
	 * upstream's core does; the verb promises EOPNOTSUPP, as for a known
	 * operation the device does not count.  An empty mask is the
	 * kernel's EINVAL.
	 */
	if (attr->op_mask & ~RXC_ATTACH_ALL_OPS)
		return EOPNOTSUPP;
	rxc_ioctl_init(&c, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_ATTACH_COMP_CNTR);
	rxc_ioctl_idr(&c, UVERBS_ATTR_QP_ATTACH_COMP_CNTR_HANDLE, qp->handle);
	rxc_ioctl_idr(&c, UVERBS_ATTR_QP_ATTACH_COMP_CNTR_CNTR_HANDLE,
		      comp_cntr->handle);
	rxc_ioctl_u32(&c, UVERBS_ATTR_QP_ATTACH_COMP_CNTR_OP_MASK,
		      attr->op_mask);
	return rxc_ioctl_run(qp->context, &c);
}

RXC_EXPORT
int rxcdv_query_comp_cntr(struct ibv_comp_cntr *comp_cntr,
			  struct rxcdv_comp_cntr_attr *attr, uint32_t inlen)
{
	struct rxc_comp_cntr *cc;
	int err;

	err = rxc_check_query_attr(comp_cntr, attr, inlen);
	if (err)
		return err;
	cc = to_rxc_cntr(comp_cntr);
	memset(attr, 0, inlen);
	attr->comp_count = cc->comp;
	attr->err_count = cc->err;
	attr->type = cc->type;
	return 0;
}

RXC_EXPORT
int rxcdv_get_comp_cntr_fd(struct ibv_comp_cntr *comp_cntr)
{
	struct rxc_comp_cntr *cc;
	int fd;

	if (!comp_cntr) {
		errno = EINVAL;
		return -1;
	}
	cc = to_rxc_cntr(comp_cntr);
	pthread_mutex_lock(&cc->lock);
	if (cc->event_fd < 0)
		cc->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	fd = cc->event_fd;
	pthread_mutex_unlock(&cc->lock);
	return fd;
}

#endif /* !RXC_HAVE_IBV_COMP_CNTR */
