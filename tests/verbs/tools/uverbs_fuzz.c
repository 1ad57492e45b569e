// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * uverbs_fuzz: random sequences of verbs and raw uverbs ioctls against a
 * device, while an RC connection on the same device checks its data.
 *
 *   uverbs_fuzz -d DEV [-s SEED] [-n CALLS] [-t THREADS] [-T SECS]
 *
 * Each worker thread keeps its own pools of PDs, CQs, SRQs, QPs, MRs, MWs,
 * AHs and completion counters on a context of its own, and picks
 * operations at random: creating, modifying, querying and destroying those
 * objects with values drawn from the edges of their ranges as often as
 * from anywhere; posting send and receive work requests with random
 * opcodes, flags, keys and lengths; every completion-counter method with
 * random handles, entries, buffers and file descriptors; and ioctls built
 * from random object, method and attribute IDs, lengths and flags.  Raw
 * handles are only ever sent on the worker's own context, so a worker can
 * wreck only its own objects, as a process can.
 *
 * Meanwhile a separate thread, on a context no worker uses, writes and
 * reads back 4 KiB over an RC QP connected to itself and checks every
 * byte.  The run passes when every call returned (a watchdog interrupts a
 * wait that asks for too long), the traffic saw no error and no wrong
 * byte, and the device still carries traffic afterwards.  Kernel reports
 * (KASAN, lockdep, WARN) are for the caller to check in the kernel log.
 *
 * The seed is printed; the same seed, thread count and call count repeat
 * the same choices in each thread (the interleaving differs).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_cmds.h>

#include "../cntr_ioctl.h"
#include "fuzz_lib.h"

#define POOL		8	/* objects of each kind per worker */
#define SCRATCH_LEN	(1 << 20)
#define MAX_THREADS	16
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_OPS		16

static struct fuzz_opts opt = {
	.count = 20000, .secs = 600, .own_opt = 't', .own = 4,
};

static struct ibv_device *device;
static volatile int stop;
static uint64_t calls_done;

/* Per-worker state: its context, its objects, its random stream. */
struct worker {
	unsigned int id;
	pthread_t thread;
	struct fuzz_rng rng;
	struct ibv_context *ctx;
	char *scratch;
	int efd;
	struct ibv_pd *pd[POOL];
	struct ibv_cq *cq[POOL];
	struct ibv_srq *srq[POOL];
	struct ibv_qp *qp[POOL];
	struct ibv_mr *mr[POOL];
	struct ibv_mw *mw[POOL];
	struct ibv_ah *ah[POOL];
	struct cntr cntr[POOL];
	bool cntr_live[POOL];
	uint64_t calls;
	uint64_t op_calls[MAX_OPS];
	uint64_t op_accepted[MAX_OPS];
	/* When the call in progress started (ns), 0 between calls. */
	uint64_t call_start;
};

static struct worker workers[MAX_THREADS];

static uint64_t rnd(struct worker *w)
{
	return fuzz_rnd(&w->rng);
}

static uint32_t rnd_below(struct worker *w, uint32_t n)
{
	return fuzz_rnd_below(&w->rng, n);
}

static uint64_t rnd_val(struct worker *w)
{
	return fuzz_rnd_val(&w->rng);
}

/* An address in the scratch buffer with @len bytes after it. */
static void *rnd_scratch(struct worker *w, uint32_t len)
{
	if (len > SCRATCH_LEN)
		len = SCRATCH_LEN;
	return w->scratch + rnd_below(w, SCRATCH_LEN - len + 1);
}

/* Mostly the scratch buffer; sometimes an address nothing is mapped at. */
static uint64_t rnd_addr(struct worker *w, uint32_t len)
{
	static const uint64_t bad[] = {
		0, 0x1000, 0xdead0000000ull, 0xffff800000000000ull,
		UINT64_MAX - 4095,
	};

	if (rnd_below(w, 8))
		return (uintptr_t)rnd_scratch(w, len);
	return bad[rnd_below(w, ARRAY_SIZE(bad))];
}

#define PICK(w, pool) ((pool)[rnd_below(w, POOL)])

/* A free slot of @pool, or one emptied by destroying what was there. */
#define SLOT(w, pool, destroy) ({					\
	unsigned int __i = rnd_below(w, POOL);				\
	if ((pool)[__i]) {						\
		destroy((pool)[__i]);					\
		(pool)[__i] = NULL;					\
	}								\
	&(pool)[__i];							\
})

/* A PD or CQ of the pool to build on, made in an empty slot if need be. */
static struct ibv_pd *any_pd(struct worker *w)
{
	struct ibv_pd **pd = &w->pd[rnd_below(w, POOL)];

	if (!*pd)
		*pd = ibv_alloc_pd(w->ctx);
	return *pd;
}

static struct ibv_cq *any_cq(struct worker *w)
{
	struct ibv_cq **cq = &w->cq[rnd_below(w, POOL)];

	if (!*cq)
		*cq = ibv_create_cq(w->ctx, 64, NULL, NULL, 0);
	return *cq;
}

/*
 * The operations.  Each returns 0 when the call it ended with was
 * accepted, anything else when it was refused or could not be made;
 * refusals are expected and only counted.
 */

static int op_pd(struct worker *w)
{
	struct ibv_pd **slot = SLOT(w, w->pd, ibv_dealloc_pd);

	*slot = ibv_alloc_pd(w->ctx);
	return !*slot;
}

static int op_cq(struct worker *w)
{
	struct ibv_cq *cq = PICK(w, w->cq);
	struct ibv_wc wc[8];
	struct ibv_cq **slot;

	if (!rnd_below(w, 4)) {
		slot = SLOT(w, w->cq, ibv_destroy_cq);
		*slot = ibv_create_cq(w->ctx, (int)rnd_val(w), NULL, NULL,
				      (int)rnd_below(w, 4));
		return !*slot;
	}
	if (!cq)
		return -1;
	switch (rnd_below(w, 3)) {
	case 0:
		return ibv_resize_cq(cq, (int)rnd_val(w));
	case 1:
		return ibv_req_notify_cq(cq, rnd(w) & 1);
	default:
		return ibv_poll_cq(cq, 1 + rnd_below(w, ARRAY_SIZE(wc)),
				   wc) < 0;
	}
}

static int op_srq(struct worker *w)
{
	struct ibv_srq_init_attr init = {
		.attr.max_wr = rnd_val(w), .attr.max_sge = rnd_below(w, 40),
		.attr.srq_limit = rnd_val(w),
	};
	struct ibv_srq_attr attr = {
		.max_wr = rnd_val(w), .srq_limit = rnd_val(w),
	};
	struct ibv_srq *srq = PICK(w, w->srq);
	struct ibv_pd *pd;
	struct ibv_srq **slot;

	if (rnd(w) & 1) {
		pd = any_pd(w);
		slot = SLOT(w, w->srq, ibv_destroy_srq);
		*slot = pd ? ibv_create_srq(pd, &init) : NULL;
		return !*slot;
	}
	if (!srq)
		return -1;
	return ibv_modify_srq(srq, &attr, rnd_below(w, 4)) |
	       ibv_query_srq(srq, &attr);
}

/* Three in four QPs as an application asks for them, the rest wild. */
static int op_create_qp(struct worker *w)
{
	static const enum ibv_qp_type types[] = {
		IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD, IBV_QPT_RAW_PACKET,
		IBV_QPT_XRC_SEND, 0, 1,
	};
	bool wild = !rnd_below(w, 4);
	struct ibv_qp_init_attr init = {
		.send_cq = any_cq(w), .recv_cq = any_cq(w),
		.srq = rnd_below(w, 4) ? NULL : PICK(w, w->srq),
		.cap = {
			.max_send_wr = wild ? rnd_val(w) : 1 + rnd_below(w, 64),
			.max_recv_wr = wild ? rnd_val(w) : 1 + rnd_below(w, 64),
			.max_send_sge = rnd_below(w, wild ? 64 : 6),
			.max_recv_sge = rnd_below(w, wild ? 64 : 6),
			.max_inline_data = wild ? rnd_val(w) :
						  rnd_below(w, 256),
		},
		.qp_type = types[rnd_below(w, wild ? ARRAY_SIZE(types) : 3)],
		.sq_sig_all = rnd(w) & 1,
	};
	struct ibv_pd *pd = any_pd(w);
	struct ibv_qp **slot = SLOT(w, w->qp, ibv_destroy_qp);

	*slot = pd && init.send_cq && init.recv_cq ?
		ibv_create_qp(pd, &init) : NULL;
	return !*slot;
}

/* The masks of a valid walk from RESET to RTS, per QP type. */
static void walk_masks(enum ibv_qp_type type, int mask[3])
{
	const int init = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	const int path = IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			 IBV_QP_RQ_PSN;

	switch (type) {
	case IBV_QPT_UD:
		mask[0] = init | IBV_QP_QKEY;
		mask[1] = IBV_QP_STATE;
		mask[2] = IBV_QP_STATE | IBV_QP_SQ_PSN;
		break;
	case IBV_QPT_UC:
		mask[0] = init | IBV_QP_ACCESS_FLAGS;
		mask[1] = IBV_QP_STATE | path;
		mask[2] = IBV_QP_STATE | IBV_QP_SQ_PSN;
		break;
	default:
		mask[0] = init | IBV_QP_ACCESS_FLAGS;
		mask[1] = IBV_QP_STATE | path | IBV_QP_MAX_DEST_RD_ATOMIC |
			  IBV_QP_MIN_RNR_TIMER;
		mask[2] = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			  IBV_QP_MAX_QP_RD_ATOMIC;
		break;
	}
}

/* Every attribute within its range, as a careful application sets it. */
static void sane_attrs(struct worker *w, struct ibv_qp_attr *a,
		       const struct ibv_qp_init_attr *init)
{
	struct ibv_qp *peer = PICK(w, w->qp);

	a->pkey_index = 0;
	a->port_num = 1;
	a->qkey = 0x11111111;
	a->qp_access_flags = rnd_below(w, 16) &
			     (init->qp_type == IBV_QPT_UC ?
			      IBV_ACCESS_REMOTE_WRITE : ~0);
	a->path_mtu = 1 + rnd_below(w, 5);
	a->dest_qp_num = peer ? peer->qp_num : rnd_below(w, 64);
	a->max_rd_atomic = rnd_below(w, 5);
	a->max_dest_rd_atomic = rnd_below(w, 5);
	a->min_rnr_timer = rnd_below(w, 32);
	a->timeout = rnd_below(w, 20);
	a->retry_cnt = rnd_below(w, 8);
	a->rnr_retry = rnd_below(w, 8);
	a->path_mig_state = rnd_below(w, 3);
	a->en_sqd_async_notify = rnd_below(w, 2);
	a->ah_attr.is_global = 1;
	a->ah_attr.port_num = 1;
	a->ah_attr.grh.sgid_index = FUZZ_GID_INDEX;
	a->ah_attr.grh.hop_limit = 64;
	ibv_query_gid(w->ctx, 1, FUZZ_GID_INDEX, &a->ah_attr.grh.dgid);
}

/*
 * Half the time random bytes in every attribute and a random mask; half
 * the time a transition the QP may make (to where it is, a step along
 * the walk, SQD, ERR or RESET) with the mask that step needs and at most
 * one optional attribute, mostly with values in range.
 */
static int op_modify_qp(struct worker *w)
{
	static const int optional[] = {
		IBV_QP_TIMEOUT, IBV_QP_RETRY_CNT, IBV_QP_RNR_RETRY,
		IBV_QP_MIN_RNR_TIMER, IBV_QP_ACCESS_FLAGS, IBV_QP_AV,
		IBV_QP_MAX_QP_RD_ATOMIC, IBV_QP_MAX_DEST_RD_ATOMIC,
		IBV_QP_PATH_MIG_STATE, IBV_QP_QKEY, IBV_QP_CUR_STATE,
		IBV_QP_EN_SQD_ASYNC_NOTIFY,
	};
	struct ibv_qp *qp = PICK(w, w->qp);
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	uint64_t *p = (uint64_t *)&a;
	int mask, walk[3];
	size_t i;

	if (!qp)
		return -1;
	for (i = 0; i < sizeof(a) / sizeof(*p); i++)
		p[i] = rnd(w);
	a.ah_attr.port_num = rnd_below(w, 4) ? 1 : rnd_below(w, 256);
	a.ah_attr.is_global = rnd_below(w, 8) != 0;
	a.ah_attr.grh.sgid_index = rnd_below(w, 4) ? FUZZ_GID_INDEX :
				   rnd_below(w, 256);
	if (rnd_below(w, 2))
		ibv_query_gid(w->ctx, 1, FUZZ_GID_INDEX, &a.ah_attr.grh.dgid);
	if (rnd_below(w, 2)) {
		a.qp_state = rnd_below(w, 8);
		mask = (int)(rnd(w) & ((1u << 21) - 1)) | IBV_QP_STATE;
	} else {
		if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
			return -1;
		a.cur_qp_state = a.qp_state;
		walk_masks(qp->qp_type, walk);
		switch (rnd_below(w, 5)) {
		case 0:
			mask = IBV_QP_STATE;
			break;
		case 1:
			mask = a.qp_state >= IBV_QPS_RESET &&
			       a.qp_state <= IBV_QPS_RTR ?
			       walk[a.qp_state] : IBV_QP_STATE;
			a.qp_state = a.qp_state <= IBV_QPS_RTR ?
				     a.qp_state + 1 : a.qp_state;
			break;
		default:
			mask = IBV_QP_STATE;
			a.qp_state = (enum ibv_qp_state[]){
				IBV_QPS_SQD, IBV_QPS_ERR, IBV_QPS_RESET,
			}[rnd_below(w, 3)];
			break;
		}
		/* More than one is mostly refused by the state table. */
		if (rnd_below(w, 2))
			mask |= optional[rnd_below(w, ARRAY_SIZE(optional))];
		if (rnd_below(w, 8))
			sane_attrs(w, &a, &init);
	}
	if (rnd_below(w, 4))
		return ibv_modify_qp(qp, &a, mask);
	return ibv_query_qp(qp, &a, (int)(rnd(w) & ((1u << 21) - 1)), &init);
}

/*
 * A QP of the pool walked from RESET to RTS with valid attributes,
 * connected to itself or to another QP of the pool, so that the random
 * work requests posted to it really travel.  Few retries: a QP whose
 * peer is gone fails soon.
 */
static int op_connect_qp(struct worker *w)
{
	struct ibv_qp *qp = PICK(w, w->qp), *peer = PICK(w, w->qp);
	static const enum ibv_qp_state steps[] = {
		IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS,
	};
	struct ibv_qp_attr a = {
		.port_num = 1, .qkey = 0x11111111,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
		.path_mtu = 1 + rnd_below(w, 5), .rq_psn = rnd(w),
		.sq_psn = rnd(w), .max_dest_rd_atomic = rnd_below(w, 5),
		.min_rnr_timer = 1, .timeout = 1, .retry_cnt = 1,
		.rnr_retry = 1, .max_rd_atomic = rnd_below(w, 5),
		.ah_attr = {
			.is_global = 1, .port_num = 1,
			.grh = { .sgid_index = FUZZ_GID_INDEX, .hop_limit = 64 },
		},
	};
	int mask[3], rc;
	size_t i;

	if (!qp)
		return -1;
	if (qp->qp_type == IBV_QPT_RC)
		a.qp_access_flags |= IBV_ACCESS_REMOTE_READ |
				     IBV_ACCESS_REMOTE_ATOMIC;
	a.dest_qp_num = (peer ? peer : qp)->qp_num;
	ibv_query_gid(w->ctx, 1, FUZZ_GID_INDEX, &a.ah_attr.grh.dgid);
	walk_masks(qp->qp_type, mask);
	a.qp_state = IBV_QPS_RESET;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	for (i = 0; i < ARRAY_SIZE(steps) && !rc; i++) {
		a.qp_state = steps[i];
		rc = ibv_modify_qp(qp, &a, mask[i]);
	}
	return rc;
}

static int op_mr(struct worker *w)
{
	uint32_t len = rnd_below(w, 4) ? rnd_below(w, 65536) : rnd_val(w);
	struct ibv_pd *pd = any_pd(w);
	struct ibv_mr **slot = SLOT(w, w->mr, ibv_dereg_mr);
	int access = rnd_below(w, 4) ? (int)rnd_below(w, 0x20) :
				       (int)rnd(w);

	if (pd)
		*slot = ibv_reg_mr(pd, (void *)(uintptr_t)rnd_addr(w, len),
				   len, access);
	return !*slot;
}

static int op_mw(struct worker *w)
{
	struct ibv_pd *pd = any_pd(w);
	struct ibv_mw **slot = SLOT(w, w->mw, ibv_dealloc_mw);

	if (pd)
		*slot = ibv_alloc_mw(pd, rnd_below(w, 4));
	return !*slot;
}

static int op_ah(struct worker *w)
{
	struct ibv_ah_attr a = {
		.is_global = rnd_below(w, 8) != 0,
		.port_num = rnd_below(w, 4) ? 1 : rnd_below(w, 256),
		.dlid = rnd(w), .sl = rnd(w), .static_rate = rnd(w),
		.grh = {
			.sgid_index = rnd_below(w, 4) ? FUZZ_GID_INDEX :
							rnd_below(w, 256),
			.hop_limit = rnd(w), .traffic_class = rnd(w),
			.flow_label = rnd(w),
		},
	};
	struct ibv_pd *pd = any_pd(w);
	struct ibv_ah **slot = SLOT(w, w->ah, ibv_destroy_ah);

	if (rnd_below(w, 2))
		ibv_query_gid(w->ctx, 1, FUZZ_GID_INDEX, &a.grh.dgid);
	else
		memcpy(&a.grh.dgid, (uint64_t[2]){ rnd(w), rnd(w) }, 16);
	if (pd)
		*slot = ibv_create_ah(pd, &a);
	return !*slot;
}

/*
 * An SGE list in the scratch buffer.  librxe copies inline data from it
 * in user space, so with @inline_data the lengths stay small enough that
 * their sum cannot wrap past its size check.
 */
static int rnd_sges(struct worker *w, struct ibv_sge *sge, int max,
		    bool inline_data)
{
	struct ibv_mr *mr = PICK(w, w->mr);
	int i, n = rnd_below(w, 4) ? rnd_below(w, 3) : rnd_below(w, max + 1);

	for (i = 0; i < n; i++) {
		sge[i].length = rnd_below(w, 4) || inline_data ?
				rnd_below(w, 8192) : rnd_val(w);
		sge[i].addr = (uintptr_t)rnd_scratch(w, sge[i].length);
		sge[i].lkey = mr && rnd_below(w, 4) ? mr->lkey : rnd(w);
	}
	return n;
}

static int op_post_send(struct worker *w)
{
	struct ibv_qp *qp = PICK(w, w->qp);
	struct ibv_mw *mw = PICK(w, w->mw);
	struct ibv_mr *mr = PICK(w, w->mr);
	struct ibv_ah *ah = PICK(w, w->ah);
	struct ibv_send_wr wr[2], *bad;
	struct ibv_sge sge[2][6];
	int i, n = 1 + rnd_below(w, 2);

	if (!qp)
		return -1;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		wr[i].wr_id = rnd(w);
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		wr[i].sg_list = sge[i];
		wr[i].opcode = rnd_below(w, 4) ? (enum ibv_wr_opcode[]){
			IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
			IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
			IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_ATOMIC_CMP_AND_SWP,
		}[rnd_below(w, 7)] : rnd_below(w, 16);
		wr[i].send_flags = rnd_below(w, 2) ? IBV_SEND_SIGNALED :
						     rnd_below(w, 32);
		wr[i].num_sge = rnd_sges(w, sge[i], 6, wr[i].send_flags &
					 IBV_SEND_INLINE);
		wr[i].imm_data = rnd(w);
		if (qp->qp_type == IBV_QPT_UD) {
			/* librxe reads the AH: it must be a live one. */
			if (!ah)
				return -1;
			wr[i].wr.ud.ah = ah;
			wr[i].wr.ud.remote_qpn = rnd(w);
			wr[i].wr.ud.remote_qkey = rnd(w);
		} else if (wr[i].opcode == IBV_WR_BIND_MW) {
			if (!mw || !mr)
				return -1;
			wr[i].bind_mw.mw = mw;
			wr[i].bind_mw.rkey = rnd(w);
			wr[i].bind_mw.bind_info.mr = mr;
			wr[i].bind_mw.bind_info.addr = rnd_addr(w, 0);
			wr[i].bind_mw.bind_info.length = rnd_val(w);
			wr[i].bind_mw.bind_info.mw_access_flags = rnd(w);
		} else {
			wr[i].wr.atomic.remote_addr = rnd_addr(w, 8);
			wr[i].wr.atomic.rkey = mr && rnd_below(w, 2) ?
					       mr->rkey : rnd(w);
			wr[i].wr.atomic.compare_add = rnd(w);
			wr[i].wr.atomic.swap = rnd(w);
		}
	}
	return ibv_post_send(qp, wr, &bad);
}

static int op_post_recv(struct worker *w)
{
	struct ibv_qp *qp = PICK(w, w->qp);
	struct ibv_srq *srq = PICK(w, w->srq);
	struct ibv_recv_wr wr = { .wr_id = rnd(w) }, *bad;
	struct ibv_sge sge[6];

	wr.sg_list = sge;
	wr.num_sge = rnd_sges(w, sge, 6, false);
	if (rnd(w) & 1)
		return qp ? ibv_post_recv(qp, &wr, &bad) : -1;
	return srq ? ibv_post_srq_recv(srq, &wr, &bad) : -1;
}

/* Completion counters: every method, with handles live, dead or made up. */

static struct cntr *rnd_cntr(struct worker *w, struct cntr *tmp)
{
	unsigned int i = rnd_below(w, POOL);

	if (w->cntr_live[i] && rnd_below(w, 8))
		return &w->cntr[i];
	tmp->handle = rnd_below(w, 4) ? rnd_below(w, 64) : rnd(w);
	return tmp;
}

static int op_cntr_create(struct worker *w)
{
	struct ib_uverbs_buffer_desc bufs[2];
	unsigned int i = rnd_below(w, POOL), b;

	if (w->cntr_live[i]) {
		cntr_destroy(w->ctx, &w->cntr[i]);
		w->cntr_live[i] = false;
	}
	for (b = 0; b < 2; b++) {
		bufs[b].length = rnd_below(w, 2) ? 8 : rnd_val(w);
		bufs[b].addr = rnd_addr(w, 8);
		bufs[b].fd = rnd_below(w, 2) ? -1 : (int)rnd_below(w, 16);
		bufs[b].type = rnd_below(w, 4);
		bufs[b].flags = rnd_below(w, 4) ? 0 : rnd(w);
		bufs[b].optional_flags = rnd_below(w, 4) ? 0 : rnd(w);
	}
	if (rnd_below(w, 8) == 0)
		w->cntr_live[i] = !cntr_create_core(w->ctx, &w->cntr[i]);
	else
		w->cntr_live[i] = !cntr_create_ex(
			w->ctx, &w->cntr[i], (int)rnd_below(w, 5) - 1,
			rnd_below(w, 2) ? &bufs[0] : NULL,
			rnd_below(w, 2) ? &bufs[1] : NULL);
	return !w->cntr_live[i];
}

static int op_cntr_use(struct worker *w)
{
	struct cntr tmp = { 0 };
	struct cntr *c = rnd_cntr(w, &tmp);
	struct ibv_qp *qp = PICK(w, w->qp);
	uint64_t v, base = rnd_val(w);
	struct caps caps;

	switch (rnd_below(w, 7)) {
	case 0:
		if (c != &tmp)
			w->cntr_live[c - w->cntr] = false;
		return cntr_destroy(w->ctx, c);
	case 1:
		return cntr_modify(w->ctx, c, rnd_below(w, 3),
				   rnd_below(w, 3), rnd_val(w));
	case 2:
		return cntr_read(w->ctx, c, rnd_below(w, 3), &v);
	case 3:
		/* Short: the watchdog is for waits nobody meant. */
		return cntr_wait(w->ctx, c, rnd_val(w),
				 rnd_below(w, 2) ? &base : NULL,
				 rnd_below(w, 3), &v, &v);
	case 4:
		return cntr_notify(w->ctx, c, rnd_below(w, 4) ? w->efd :
				   (int32_t)rnd_val(w),
				   rnd_below(w, 4) ? &base : NULL,
				   rnd_below(w, 2) ? &base : NULL);
	case 5:
		if (!qp)
			return -1;
		return qp_attach(w->ctx, qp, c, rnd_below(w, 4) ?
				 rnd_below(w, 0x40) : (uint32_t)rnd(w));
	default:
		return query_caps(w->ctx, &caps);
	}
}

/*
 * An ioctl put together from random IDs: the core's parser and every
 * method rxc registers must reject what does not fit their schema.
 */
static int op_raw_ioctl(struct worker *w)
{
	static const uint16_t methods_ns = 1u << UVERBS_ID_NS_SHIFT;
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attrs[8];
	} c;
	unsigned int i;

	memset(&c, 0, sizeof(c));
	c.hdr.object_id = rnd_below(w, 4) ? rnd_below(w, 24) : rnd(w);
	/* Objects that are file descriptors would use up the fd table. */
	if (c.hdr.object_id == UVERBS_OBJECT_COMP_CHANNEL ||
	    c.hdr.object_id == UVERBS_OBJECT_ASYNC_EVENT)
		return -1;
	c.hdr.method_id = rnd_below(w, 4) ? rnd_below(w, 12) :
					    methods_ns + rnd_below(w, 4);
	c.hdr.driver_id = rnd_below(w, 8) ? RDMA_DRIVER_RXE : rnd(w);
	c.hdr.num_attrs = rnd_below(w, ARRAY_SIZE(c.attrs) + 1);
	for (i = 0; i < c.hdr.num_attrs; i++) {
		struct ib_uverbs_attr *a = &c.attrs[i];

		a->attr_id = rnd_below(w, 2) ? rnd_below(w, 12) :
					       methods_ns + rnd_below(w, 8);
		a->len = rnd_below(w, 2) ? 1u << rnd_below(w, 5) : rnd(w);
		a->flags = rnd_below(w, 2) ? UVERBS_ATTR_F_MANDATORY : rnd(w);
		if (rnd_below(w, 8) == 0)
			a->attr_data.reserved = rnd(w);
		/* Handles are small numbers; pointers lead into scratch. */
		a->data = rnd_below(w, 2) ? rnd_below(w, 64) :
					    rnd_addr(w, a->len);
	}
	c.hdr.length = sizeof(c.hdr) + c.hdr.num_attrs * sizeof(c.attrs[0]);
	if (rnd_below(w, 16) == 0)
		c.hdr.length = rnd_below(w, sizeof(c) + 1);
	if (rnd_below(w, 16) == 0)
		c.hdr.reserved1 = rnd(w);
	return ioctl(w->ctx->cmd_fd, RDMA_VERBS_IOCTL, &c);
}

static int op_query(struct worker *w)
{
	struct ibv_device_attr_ex dev;
	struct ibv_port_attr port;
	union ibv_gid gid;
	uint16_t pkey;

	switch (rnd_below(w, 4)) {
	case 0:
		return ibv_query_device_ex(w->ctx, NULL, &dev);
	case 1:
		return ibv_query_port(w->ctx, rnd_below(w, 4), &port);
	case 2:
		return ibv_query_gid(w->ctx, rnd_below(w, 3), rnd_val(w), &gid);
	default:
		return ibv_query_pkey(w->ctx, rnd_below(w, 3), rnd_val(w),
				      &pkey);
	}
}

static const struct {
	const char *name;
	int (*fn)(struct worker *w);
	unsigned int weight;
} ops[] = {
	{ "pd", op_pd, 2 },
	{ "cq", op_cq, 4 },
	{ "srq", op_srq, 3 },
	{ "create_qp", op_create_qp, 4 },
	{ "modify_qp", op_modify_qp, 6 },
	{ "connect_qp", op_connect_qp, 4 },
	{ "mr", op_mr, 4 },
	{ "mw", op_mw, 2 },
	{ "ah", op_ah, 3 },
	{ "post_send", op_post_send, 10 },
	{ "post_recv", op_post_recv, 5 },
	{ "cntr_create", op_cntr_create, 4 },
	{ "cntr_use", op_cntr_use, 10 },
	{ "raw_ioctl", op_raw_ioctl, 10 },
	{ "query", op_query, 2 },
};
_Static_assert(ARRAY_SIZE(ops) <= MAX_OPS, "MAX_OPS is too small");

/* What each operation did, over all workers: calls and accepted calls. */
static void print_stats(void)
{
	uint64_t n, ok;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		n = 0;
		ok = 0;
		for (j = 0; j < opt.own; j++) {
			n += workers[j].op_calls[i];
			ok += workers[j].op_accepted[i];
		}
		printf("uverbs_fuzz: %-12s %8" PRIu64 " calls, %8" PRIu64 " accepted\n",
		       ops[i].name, n, ok);
	}
}

/* Tears down what is left, in an order the core accepts. */
static void worker_release(struct worker *w)
{
	unsigned int i;

	for (i = 0; i < POOL; i++) {
		if (w->qp[i])
			ibv_destroy_qp(w->qp[i]);
		if (w->cntr_live[i])
			cntr_destroy(w->ctx, &w->cntr[i]);
	}
	for (i = 0; i < POOL; i++) {
		if (w->srq[i])
			ibv_destroy_srq(w->srq[i]);
		if (w->mw[i])
			ibv_dealloc_mw(w->mw[i]);
		if (w->ah[i])
			ibv_destroy_ah(w->ah[i]);
		if (w->mr[i])
			ibv_dereg_mr(w->mr[i]);
	}
	for (i = 0; i < POOL; i++) {
		if (w->cq[i])
			ibv_destroy_cq(w->cq[i]);
	}
	for (i = 0; i < POOL; i++) {
		if (w->pd[i])
			ibv_dealloc_pd(w->pd[i]);
	}
	/* What the kernel still holds goes with the context. */
	ibv_close_device(w->ctx);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t quota = opt.count / opt.own;

	while (!stop && w->calls < quota) {
		unsigned int op = fuzz_pick(&w->rng, &ops[0].weight,
					     ARRAY_SIZE(ops), sizeof(ops[0]));

		__atomic_store_n(&w->call_start, fuzz_now_ns(), __ATOMIC_RELEASE);
		w->op_calls[op]++;
		w->op_accepted[op] += !ops[op].fn(w);
		__atomic_store_n(&w->call_start, 0, __ATOMIC_RELEASE);
		w->calls++;
		__atomic_add_fetch(&calls_done, 1, __ATOMIC_RELAXED);
	}
	worker_release(w);
	return NULL;
}

static void on_sigusr1(int sig)
{
	(void)sig;	/* only to interrupt a system call */
}

/*
 * Interrupts a worker whose call has run for over a second: a counter
 * WAIT built by a raw ioctl may ask for a timeout of days.
 */
static void watchdog_tick(void)
{
	uint64_t t = fuzz_now_ns();
	unsigned int i;

	for (i = 0; i < opt.own; i++) {
		uint64_t s = __atomic_load_n(&workers[i].call_start,
					     __ATOMIC_ACQUIRE);

		if (s && t - s > 1000000000ull)
			pthread_kill(workers[i].thread, SIGUSR1);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: uverbs_fuzz -d DEV [-s SEED] [-n CALLS] [-t THREADS] [-T SECS]\n");
	exit(2);
}

static void worker_start(struct worker *w, unsigned int id)
{
	w->id = id;
	fuzz_rng_init(&w->rng, opt.seed, id);
	w->ctx = ibv_open_device(device);
	w->scratch = calloc(1, SCRATCH_LEN);
	w->efd = eventfd(0, EFD_NONBLOCK);
	if (!w->ctx || !w->scratch || w->efd < 0)
		fuzz_die("cannot set up a worker");
	if (pthread_create(&w->thread, NULL, worker_main, w))
		fuzz_die("pthread_create failed");
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sigusr1 };
	struct rlimit nofile;
	uint64_t end, last = 0;
	struct fuzz_traffic t = { 0 };
	pthread_t tt;
	unsigned int i;
	int rc = 0;

	if (!fuzz_parse(argc, argv, &opt) || optind != argc ||
	    opt.own > MAX_THREADS)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("uverbs_fuzz: seed %" PRIu64 ", %" PRIu64 " calls, %u threads, device %s\n",
	       opt.seed, opt.count, opt.own, opt.dev);
	/* No SA_RESTART: an interrupted wait returns EINTR. */
	sigaction(SIGUSR1, &sa, NULL);
	/* Room for the file descriptors a raw WRITE command may create. */
	if (!getrlimit(RLIMIT_NOFILE, &nofile)) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}
	device = fuzz_find_device(opt.dev);
	if (!device)
		fuzz_die("no such device");

	fuzz_traffic_setup(&t, device);
	if (pthread_create(&tt, NULL, fuzz_traffic_main, &t))
		fuzz_die("pthread_create failed");
	for (i = 0; i < opt.own; i++)
		worker_start(&workers[i], i);

	end = fuzz_now_ns() + (uint64_t)opt.secs * 1000000000ull;
	while (__atomic_load_n(&calls_done, __ATOMIC_RELAXED) <
	       opt.count / opt.own * opt.own && !t.error) {
		if (fuzz_now_ns() > end) {
			printf("uverbs_fuzz: stopped after %u s\n", opt.secs);
			break;
		}
		usleep(100000);
		watchdog_tick();
		if (calls_done / 10000 != last / 10000)
			printf("uverbs_fuzz: %" PRIu64 " calls, %" PRIu64 " transfers checked\n",
			       calls_done, t.done);
		last = calls_done;
	}
	stop = 1;
	t.stop = 1;
	for (i = 0; i < opt.own; i++) {
		/* A worker may still be inside a wait; keep interrupting. */
		while (pthread_tryjoin_np(workers[i].thread, NULL) == EBUSY) {
			watchdog_tick();
			usleep(100000);
		}
	}
	pthread_join(tt, NULL);
	print_stats();

	fuzz_traffic_after(&t, 16);
	printf("uverbs_fuzz: %" PRIu64 " calls, %" PRIu64 " transfers checked, seed %" PRIu64 "\n",
	       calls_done, t.done, opt.seed);
	if (t.error || !t.done) {
		printf("uverbs_fuzz: FAIL: traffic: %s\n",
		       t.error ? t.error : "no transfer completed");
		rc = 1;
	} else if (calls_done < opt.count / opt.own * opt.own) {
		printf("uverbs_fuzz: FAIL: only %" PRIu64 " calls in %u s\n",
		       calls_done, opt.secs);
		rc = 1;
	} else {
		printf("uverbs_fuzz: PASS\n");
	}
	fuzz_traffic_release(&t);
	return rc;
}
