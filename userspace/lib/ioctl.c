// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The uverbs ioctl builder (see ioctl.h).
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <rdma/ib_user_ioctl_verbs.h>

#include "ioctl.h"

void rxc_ioctl_init(struct rxc_ioctl *c, uint16_t object, uint16_t method)
{
	memset(c, 0, sizeof(*c));
	c->hdr.object_id = object;
	c->hdr.method_id = method;
	/* rxc speaks the rxe ABI and registers under rxe's driver id. */
	c->hdr.driver_id = RDMA_DRIVER_RXE;
}

/*
 * Every caller adds a fixed, small number of attributes, so running out
 * is a bug in this library, not a user error: abort loudly.
 */
static struct ib_uverbs_attr *rxc_ioctl_add(struct rxc_ioctl *c, uint16_t id,
					    uint16_t len)
{
	struct ib_uverbs_attr *a;

	if (c->hdr.num_attrs >= RXC_IOCTL_MAX_ATTRS)
		__builtin_trap();
	a = &c->attrs[c->hdr.num_attrs++];
	a->attr_id = id;
	a->len = len;
	/* Every attribute we send is defined by the uAPI we target. */
	a->flags = UVERBS_ATTR_F_MANDATORY;
	return a;
}

struct ib_uverbs_attr *rxc_ioctl_idr(struct rxc_ioctl *c, uint16_t id,
				     uint32_t handle)
{
	struct ib_uverbs_attr *a = rxc_ioctl_add(c, id, 0);

	a->data = handle;
	return a;
}

void rxc_ioctl_in(struct rxc_ioctl *c, uint16_t id, const void *val,
		  uint16_t len)
{
	struct ib_uverbs_attr *a = rxc_ioctl_add(c, id, len);

	if (len <= sizeof(a->data))
		memcpy(&a->data, val, len);
	else
		a->data = (uintptr_t)val;
}

void rxc_ioctl_u64(struct rxc_ioctl *c, uint16_t id, uint64_t val)
{
	rxc_ioctl_in(c, id, &val, sizeof(val));
}

void rxc_ioctl_u32(struct rxc_ioctl *c, uint16_t id, uint32_t val)
{
	rxc_ioctl_in(c, id, &val, sizeof(val));
}

void rxc_ioctl_s32(struct rxc_ioctl *c, uint16_t id, int32_t val)
{
	rxc_ioctl_in(c, id, &val, sizeof(val));
}

void rxc_ioctl_out(struct rxc_ioctl *c, uint16_t id, void *p, uint16_t len)
{
	rxc_ioctl_add(c, id, len)->data = (uintptr_t)p;
}

int rxc_ioctl_run(struct ibv_context *context, struct rxc_ioctl *c)
{
	int err;

	c->hdr.length = sizeof(c->hdr) +
			c->hdr.num_attrs * sizeof(c->attrs[0]);
	if (!ioctl(context->cmd_fd, RDMA_VERBS_IOCTL, &c->hdr))
		return 0;
	err = errno;
	if (err == EPROTONOSUPPORT || err == ENOTTY)
		err = EOPNOTSUPP;
	return err;
}
