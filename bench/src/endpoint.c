// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * One side of a benchmark: device, PD, CQ, QPs and a registered buffer,
 * and the transitions that connect its QPs to the other side's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct ibv_context *bench_open_device(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list)
		bench_die("no RDMA devices: %s", strerror(errno));
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		bench_die("cannot open device %s", name);
	return ctx;
}

/* Slots of size bytes (plus a UD GRH) for every WR a QP may have out. */
static size_t side_buf_len(const struct bench_opts *o)
{
	return (size_t)(o->size + 64) * o->window * 2 * o->nqps;
}

static struct ibv_qp *side_create_qp(struct bench_side *s,
				     const struct bench_opts *o, bool ud)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = s->cq,
		.recv_cq = s->cq,
		.qp_type = ud ? IBV_QPT_UD : IBV_QPT_RC,
		.cap = {
			.max_send_wr = o->window,
			.max_recv_wr = o->window * 2,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	struct ibv_qp *qp = ibv_create_qp(s->pd, &attr);

	if (!qp)
		bench_die("create_qp: %s", strerror(errno));
	return qp;
}

/* Allocate everything; the QPs stay in RESET until side_connect(). */
void side_open(struct bench_side *s, const struct bench_opts *o,
	       struct ibv_context *ctx, bool ud)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;
	int cqe = (int)(o->window * 3 * o->nqps + 16);
	uint32_t i;

	memset(s, 0, sizeof(*s));
	s->ctx = ctx;
	s->pd = ibv_alloc_pd(ctx);
	s->chan = ibv_create_comp_channel(ctx);
	if (!s->pd || !s->chan)
		bench_die("alloc_pd/comp_channel: %s", strerror(errno));
	s->cq = ibv_create_cq(ctx, cqe, NULL, s->chan, 0);
	if (!s->cq)
		bench_die("create_cq(%d): %s", cqe, strerror(errno));
	s->len = side_buf_len(o);
	s->buf = aligned_alloc(4096, (s->len + 4095) & ~(size_t)4095);
	if (!s->buf)
		bench_die("out of memory for %zu bytes", s->len);
	memset(s->buf, 0x5a, s->len);
	s->mr = ibv_reg_mr(s->pd, s->buf, s->len, access);
	if (!s->mr)
		bench_die("reg_mr(%zu): %s", s->len, strerror(errno));
	if (ibv_query_gid(ctx, 1, o->gid, &s->gid))
		bench_die("query_gid(%d): %s", o->gid, strerror(errno));
	for (i = 0; i < o->nqps; i++)
		s->qp[i] = side_create_qp(s, o, ud);
}

void side_info(const struct bench_side *s, const struct bench_opts *o,
	       struct bench_qp_info *info)
{
	uint32_t i;

	for (i = 0; i < o->nqps; i++) {
		info[i] = (struct bench_qp_info){
			.qpn = s->qp[i]->qp_num,
			.rkey = s->mr->rkey,
			.addr = (uintptr_t)s->buf,
			.gid = s->gid,
		};
	}
}

static void modify(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		   const char *what)
{
	int err = ibv_modify_qp(qp, attr, mask);

	if (err)
		bench_die("modify_qp to %s: %s", what, strerror(err));
}

static void ah_attr_to(struct ibv_ah_attr *ah, const struct bench_opts *o,
		       const union ibv_gid *gid)
{
	*ah = (struct ibv_ah_attr){
		.is_global = 1,
		.port_num = 1,
		.grh = { .dgid = *gid, .sgid_index = o->gid, .hop_limit = 64 },
	};
}

static void connect_ud(struct bench_side *s, const struct bench_opts *o)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = BENCH_QKEY };
	struct ibv_ah_attr ah;

	modify(s->qp[0], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_QKEY, "INIT");
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR };
	modify(s->qp[0], &a, IBV_QP_STATE, "RTR");
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS, .sq_psn = BENCH_PSN };
	modify(s->qp[0], &a, IBV_QP_STATE | IBV_QP_SQ_PSN, "RTS");
	ah_attr_to(&ah, o, &s->peer[0].gid);
	s->ah = ibv_create_ah(s->pd, &ah);
	if (!s->ah)
		bench_die("create_ah: %s", strerror(errno));
}

static void connect_rc(struct ibv_qp *qp, const struct bench_opts *o,
		       const struct bench_qp_info *peer)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};

	modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_ACCESS_FLAGS, "INIT");
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR, .path_mtu = o->mtu,
		.dest_qp_num = peer->qpn, .rq_psn = BENCH_PSN,
		.max_dest_rd_atomic = 16, .min_rnr_timer = 1,
	};
	ah_attr_to(&a.ah_attr, o, &peer->gid);
	modify(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
	       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
	       IBV_QP_MIN_RNR_TIMER, "RTR");
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS, .sq_psn = BENCH_PSN, .timeout = 14,
		.retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 16,
	};
	modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
	       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC,
	       "RTS");
}

/* Bring every QP to RTS towards s->peer[]. */
void side_connect(struct bench_side *s, const struct bench_opts *o, bool ud)
{
	uint32_t i;

	if (ud) {
		connect_ud(s, o);
		return;
	}
	for (i = 0; i < o->nqps; i++)
		connect_rc(s->qp[i], o, &s->peer[i]);
}

void side_close(struct bench_side *s, const struct bench_opts *o)
{
	uint32_t i;

	for (i = 0; i < o->nqps; i++)
		ibv_destroy_qp(s->qp[i]);
	if (s->ah)
		ibv_destroy_ah(s->ah);
	ibv_dereg_mr(s->mr);
	ibv_destroy_cq(s->cq);
	ibv_destroy_comp_channel(s->chan);
	ibv_dealloc_pd(s->pd);
	free(s->buf);
}

/*
 * Post one WR on QP @q: @size bytes at offset @off of our buffer and, for
 * RDMA operations, at offset @roff of the peer's.  A side with an AH is
 * UD and sends to the peer's QP 0.  Returns ibv_post_send()'s errno.
 */
int post_send_at(struct bench_side *s, uint32_t q, enum ibv_wr_opcode op,
		 uint64_t off, uint64_t roff, uint32_t size,
		 unsigned int flags)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf + off,
		.length = size,
		.lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = q,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = flags,
	}, *bad;

	if (s->ah) {
		wr.wr.ud.ah = s->ah;
		wr.wr.ud.remote_qpn = s->peer[0].qpn;
		wr.wr.ud.remote_qkey = BENCH_QKEY;
	} else if (op != IBV_WR_SEND) {
		wr.wr.rdma.remote_addr = s->peer[q].addr + roff;
		wr.wr.rdma.rkey = s->peer[q].rkey;
	}
	return ibv_post_send(s->qp[q], &wr, &bad);
}

/* post_send_at() with the same offset in both buffers. */
int post_send_op(struct bench_side *s, uint32_t q, enum ibv_wr_opcode op,
		 uint64_t off, uint32_t size, unsigned int flags)
{
	return post_send_at(s, q, op, off, off, size, flags);
}

/* A receive into the slot of wr @id. */
void post_recv(struct bench_side *s, struct ibv_qp *qp, uint32_t len,
	       uint64_t id)
{
	size_t slots = s->len / (len + 64);
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf + (id % slots) * (len + 64),
		.length = len + 40,
		.lkey = s->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int err = ibv_post_recv(qp, &wr, &bad);

	if (err)
		bench_die("post_recv: %s", strerror(err));
}

/*
 * One completion, polled until @deadline (bench_now() seconds).  Returns 1,
 * or 0 when the deadline passed; a failed completion ends the run.
 */
int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, double deadline)
{
	unsigned int spins = 0;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			bench_die("poll_cq: %d", n);
		if (n)
			break;
		if (!(++spins & 0xfff) && bench_now() > deadline)
			return 0;
	}
	if (wc->status != IBV_WC_SUCCESS)
		bench_die("completion of wr %llu: %s",
			  (unsigned long long)wc->wr_id,
			  ibv_wc_status_str(wc->status));
	return 1;
}
