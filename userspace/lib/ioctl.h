/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Building uverbs ioctls (RDMA_VERBS_IOCTL on a context's cmd_fd): a
 * header followed by its attributes, contiguous as the kernel reads them.
 *
 * libibverbs 44 has such a builder, but only for its own use: its
 * command buffers are not part of the installed API.  This one is as small
 * as the counter verbs need: at most RXC_IOCTL_MAX_ATTRS attributes.
 */
#ifndef RXC_LIB_IOCTL_H
#define RXC_LIB_IOCTL_H

#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#define RXC_IOCTL_MAX_ATTRS	8

struct rxc_ioctl {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[RXC_IOCTL_MAX_ATTRS];
};

void rxc_ioctl_init(struct rxc_ioctl *c, uint16_t object, uint16_t method);

/* An object handle (IDR); for a new object the kernel returns it in .data. */
struct ib_uverbs_attr *rxc_ioctl_idr(struct rxc_ioctl *c, uint16_t id,
				     uint32_t handle);

/* Input of up to 8 bytes travels inside the attribute, larger by pointer. */
void rxc_ioctl_in(struct rxc_ioctl *c, uint16_t id, const void *val,
		  uint16_t len);
void rxc_ioctl_u64(struct rxc_ioctl *c, uint16_t id, uint64_t val);
void rxc_ioctl_u32(struct rxc_ioctl *c, uint16_t id, uint32_t val);
void rxc_ioctl_s32(struct rxc_ioctl *c, uint16_t id, int32_t val);

/* Output: the kernel writes at most @len bytes at @p. */
void rxc_ioctl_out(struct rxc_ioctl *c, uint16_t id, void *p, uint16_t len);

/*
 * Issues the ioctl on @context's command fd.  Returns 0 or an errno value;
 * a kernel that does not know the object, method or attribute
 * (EPROTONOSUPPORT, or ENOTTY without ioctl support) yields EOPNOTSUPP,
 * the error the verbs man pages promise for a missing feature.
 */
int rxc_ioctl_run(struct ibv_context *context, struct rxc_ioctl *c);

#endif /* RXC_LIB_IOCTL_H */
