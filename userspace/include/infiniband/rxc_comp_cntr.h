/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Completion counter verbs for libibverbs releases that predate them.
 *
 * rdma-core 65 added these declarations to <infiniband/verbs.h>.  This
 * header repeats them, with the same names, types and enum values, for an
 * older libibverbs (Debian 12 ships 44), and librxc implements them with
 * the uverbs ioctls.  A program written against it builds unchanged
 * against rdma-core 65 or later: drop this include and librxc.
 *
 * When <infiniband/verbs.h> already declares the verbs, this header
 * declares nothing and librxc does not define the ibv_ symbols, so
 * libibverbs and its provider own them.  Which case applies was probed
 * when librxc was built and is recorded in <infiniband/rxc_config.h>;
 * defining RXC_HAVE_IBV_COMP_CNTR to 0 or 1 before including this header
 * overrides the recorded answer (useful when building one program
 * against several libibverbs versions).
 */
#ifndef RXC_COMP_CNTR_H
#define RXC_COMP_CNTR_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#ifndef RXC_HAVE_IBV_COMP_CNTR
#include <infiniband/rxc_config.h>
#endif

#if !RXC_HAVE_IBV_COMP_CNTR

#ifdef __cplusplus
extern "C" {
#endif

/* Which completions update a counter attached to a QP. */
enum ibv_qp_attach_comp_cntr_op {
	IBV_QP_ATTACH_COMP_CNTR_OP_SEND			= 1 << 0,
	IBV_QP_ATTACH_COMP_CNTR_OP_RECV			= 1 << 1,
	IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ		= 1 << 2,
	IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ	= 1 << 3,
	IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE		= 1 << 4,
	IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE	= 1 << 5,
};

struct ibv_comp_cntr_caps {
	uint64_t max_value;
	uint32_t max_counters;
	uint32_t supported_qp_attach_ops;	/* enum ibv_qp_attach_comp_cntr_op */
};

struct ibv_comp_cntr {
	struct ibv_context *context;
	uint32_t handle;
};

enum ibv_comp_cntr_type {
	IBV_COMP_CNTR_TYPE_WRS,
	IBV_COMP_CNTR_TYPE_BYTES,
};

struct ibv_comp_cntr_init_attr {
	uint32_t comp_mask;
	enum ibv_comp_cntr_type type;
	uint32_t flags;
};

struct ibv_qp_attach_comp_cntr_attr {
	uint32_t comp_mask;
	uint32_t op_mask;			/* enum ibv_qp_attach_comp_cntr_op */
};

int _ibv_query_comp_cntr_caps(struct ibv_context *context,
			      struct ibv_comp_cntr_caps *caps,
			      size_t caps_size);

/* As upstream: the size lets the library grow the structure later. */
static inline int ibv_query_comp_cntr_caps(struct ibv_context *context,
					   struct ibv_comp_cntr_caps *caps)
{
	return _ibv_query_comp_cntr_caps(context, caps, sizeof(*caps));
}

struct ibv_comp_cntr *ibv_create_comp_cntr(struct ibv_context *context,
					   struct ibv_comp_cntr_init_attr *cc_attr);
int ibv_destroy_comp_cntr(struct ibv_comp_cntr *comp_cntr);
int ibv_set_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t value);
int ibv_set_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t value);
int ibv_inc_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t amount);
int ibv_inc_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t amount);
int ibv_read_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t *value);
int ibv_read_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t *value);
int ibv_qp_attach_comp_cntr(struct ibv_qp *qp, struct ibv_comp_cntr *comp_cntr,
			    struct ibv_qp_attach_comp_cntr_attr *attr);

#ifdef __cplusplus
}
#endif

#endif /* !RXC_HAVE_IBV_COMP_CNTR */

#endif /* RXC_COMP_CNTR_H */
