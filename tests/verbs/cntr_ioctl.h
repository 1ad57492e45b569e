/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Completion counters through raw uverbs ioctls, for the tests and tools.
 *
 * libibverbs 44 has no counter verbs, so the ioctls are built here from
 * the kernel uAPI: the object and method IDs upstream defined, and rxc's
 * driver attributes and methods (rdma/rxc-abi.h).  Each call returns 0 or
 * the errno of the ioctl.
 */
#ifndef RXC_TESTS_VERBS_CNTR_IOCTL_H
#define RXC_TESTS_VERBS_CNTR_IOCTL_H

#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_buffer_desc.h>
#include <rdma/ib_user_ioctl_comp_cntr.h>
#include <rdma/rxc-abi.h>

#define ALL_OPS		0x3fu
#define OP_SEND		IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND
#define OP_RECV		IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV
#define OP_READ		IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_READ
#define OP_REMOTE_READ	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ
#define OP_WRITE	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE
#define OP_REMOTE_WRITE	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE
#define ENTRY_COMP	IB_UVERBS_COMP_CNTR_ENTRY_COMP
#define ENTRY_ERR	IB_UVERBS_COMP_CNTR_ENTRY_ERR
#define OP_SET		IB_UVERBS_COMP_CNTR_MODIFY_OP_SET
#define OP_INC		IB_UVERBS_COMP_CNTR_MODIFY_OP_INC

struct caps {
	uint32_t max_counters;
	uint64_t max_value;
	uint32_t ops;
};

struct cntr {
	uint32_t handle;
	struct rxc_comp_cntr_create_resp resp;
};

int query_caps(struct ibv_context *ctx, struct caps *caps);
/* The caps method with its MAX_VALUE output alone: the others are optional. */
int query_caps_max_value(struct ibv_context *ctx, uint64_t *max_value);
/* @type < 0 leaves the type attribute out; NULL buffers leave theirs out. */
int cntr_create_ex(struct ibv_context *ctx, struct cntr *cntr, int type,
		   const struct ib_uverbs_buffer_desc *comp_buf,
		   const struct ib_uverbs_buffer_desc *err_buf);
/* The core handle alone, as upstream's ibv_cmd_create_comp_cntr() sends. */
int cntr_create_core(struct ibv_context *ctx, struct cntr *cntr);
int cntr_destroy(struct ibv_context *ctx, const struct cntr *cntr);
int cntr_modify(struct ibv_context *ctx, const struct cntr *cntr,
		uint64_t entry, uint64_t op, uint64_t value);
int cntr_read(struct ibv_context *ctx, const struct cntr *cntr,
	      uint64_t entry, uint64_t *value);
int qp_attach(struct ibv_context *ctx, struct ibv_qp *qp,
	      const struct cntr *cntr, uint32_t op_mask);

/*
 * RXC_METHOD_COMP_CNTR_WAIT.  @err_base NULL leaves it out (the error
 * value at the call); @comp and @err, if not NULL, receive what was seen.
 */
int cntr_wait(struct ibv_context *ctx, const struct cntr *cntr,
	      uint64_t threshold, const uint64_t *err_base,
	      uint32_t timeout_ms, uint64_t *comp, uint64_t *err);
/* RXC_METHOD_COMP_CNTR_NOTIFY; @threshold NULL leaves it out. */
/* WAIT as rxc 1.0's librxc sent it: the handle in an IDR attribute's form. */
int cntr_wait_rxc10(struct ibv_context *ctx, const struct cntr *cntr,
		    uint64_t threshold, uint32_t timeout_ms, uint64_t *comp);
int cntr_notify(struct ibv_context *ctx, const struct cntr *cntr, int32_t fd,
		const uint64_t *threshold, const uint64_t *err_base);

#endif
