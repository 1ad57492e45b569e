// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RC between two QPs on one device: what the transport must report when
 * things go wrong (RNR, retry exhaustion, remote access and request
 * errors, flushes), what atomics return, and messages that span several
 * packets. Every test needs the data path.
 *
 * QP a is the requester, QP b the responder; each has its own send and
 * receive CQ and a 64 KiB buffer: a's holds a pattern, b's starts zeroed.
 * Expected statuses are the ones the IB spec and ibv_poll_cq(3) give,
 * not what one implementation happens to return; where rdma_rxe 6.1
 * differs, the test says so.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fixture.h"

#define DUO_LEN		65536
#define A		0
#define B		1

struct duo {
	struct ibv_cq *scq[2];
	struct ibv_cq *rcq[2];
	struct ibv_qp *qp[2];
	struct ibv_mr *mr[2];
	char *buf[2];
};

/* What the requester a is told at RTS and the responder b at RTR. */
struct duo_opts {
	uint8_t timeout;	/* a's local ACK timeout (4.096 us * 2^n) */
	uint8_t retry_cnt;
	uint8_t rnr_retry;	/* 7: infinite */
	uint8_t min_rnr_timer;	/* b's RNR NAK delay code */
	int b_mr_access;	/* access of b's MR */
	bool sq_sig_all;	/* a signals every send */
	bool b_no_rd_atomic;	/* b grants no reads or atomics (0 resources) */
};

static const struct duo_opts default_opts = {
	.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 1,
	.b_mr_access = ALL_ACCESS,
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void duo_destroy(struct duo *d)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (d->qp[i])
			CHECK_OK(ibv_destroy_qp(d->qp[i]));
		if (d->mr[i])
			CHECK_OK(ibv_dereg_mr(d->mr[i]));
		if (d->scq[i])
			CHECK_OK(ibv_destroy_cq(d->scq[i]));
		if (d->rcq[i])
			CHECK_OK(ibv_destroy_cq(d->rcq[i]));
		free(d->buf[i]);
	}
	memset(d, 0, sizeof(*d));
}

static int duo_modify(struct test_env *env, struct duo *d, int i,
		      const struct duo_opts *o)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = TEST_PORT,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};
	int rc;

	rc = ibv_modify_qp(d->qp[i], &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (rc)
		return rc;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTR;
	attr.path_mtu = env->port_attr.active_mtu;
	attr.dest_qp_num = d->qp[!i]->qp_num;
	attr.rq_psn = TEST_RQ_PSN;
	attr.max_dest_rd_atomic = i == B && o->b_no_rd_atomic ? 0 : 4;
	attr.min_rnr_timer = o->min_rnr_timer;
	loopback_ah_attr(env, &attr.ah_attr);
	rc = ibv_modify_qp(d->qp[i], &attr, IBV_QP_STATE | IBV_QP_AV |
			   IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (rc)
		return rc;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = TEST_SQ_PSN;
	attr.timeout = o->timeout;
	attr.retry_cnt = o->retry_cnt;
	attr.rnr_retry = o->rnr_retry;
	attr.max_rd_atomic = 4;
	return ibv_modify_qp(d->qp[i], &attr, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* Two QPs connected to each other in RTS, or false (all released). */
static bool duo_connect(struct test_env *env, struct duo *d,
			const struct duo_opts *o)
{
	int i, j;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < 2; i++) {
		struct ibv_qp_init_attr attr = {
			.qp_type = IBV_QPT_RC,
			.sq_sig_all = i == A && o->sq_sig_all,
			.cap = {
				.max_send_wr = 16, .max_recv_wr = 16,
				.max_send_sge = 4, .max_recv_sge = 4,
				.max_inline_data = 64,
			},
		};

		d->buf[i] = CHECK_NOT_NULL(aligned_alloc(4096, DUO_LEN));
		if (!d->buf[i])
			goto err;
		for (j = 0; j < DUO_LEN; j++)
			d->buf[i][j] = i == A ? (char)(j * 13 + j / 251) : 0;
		d->scq[i] = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 32, NULL,
							 NULL, 0));
		d->rcq[i] = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 32, NULL,
							 NULL, 0));
		d->mr[i] = CHECK_NOT_NULL(ibv_reg_mr(env->pd, d->buf[i],
						     DUO_LEN,
						     i == B ? o->b_mr_access :
						     ALL_ACCESS));
		if (!d->scq[i] || !d->rcq[i] || !d->mr[i])
			goto err;
		attr.send_cq = d->scq[i];
		attr.recv_cq = d->rcq[i];
		d->qp[i] = CHECK_NOT_NULL(ibv_create_qp(env->pd, &attr));
		if (!d->qp[i])
			goto err;
	}
	if (!CHECK_OK(duo_modify(env, d, A, o)) ||
	    !CHECK_OK(duo_modify(env, d, B, o)))
		goto err;
	return true;
err:
	duo_destroy(d);
	return false;
}

/*
 * Replaces a by a QP created with ibv_create_qp_ex() for the ibv_wr_*
 * API with @ops, and connects both QPs again. Returns a's ibv_qp_ex, or
 * NULL with failures recorded.
 */
static struct ibv_qp_ex *duo_extend_a(struct test_env *env, struct duo *d,
				      uint64_t ops)
{
	struct ibv_qp_init_attr_ex attr = {
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = ops,
		.pd = env->pd,
		.send_cq = d->scq[A],
		.recv_cq = d->rcq[A],
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp;

	qp = CHECK_NOT_NULL(ibv_create_qp_ex(env->ctx, &attr));
	if (!qp)
		return NULL;
	CHECK_OK(ibv_destroy_qp(d->qp[A]));
	d->qp[A] = qp;
	if (!CHECK_OK(qp_to_state(d->qp[B], IBV_QPS_RESET)) ||
	    !CHECK_OK(duo_modify(env, d, A, &default_opts)) ||
	    !CHECK_OK(duo_modify(env, d, B, &default_opts)))
		return NULL;
	return CHECK_NOT_NULL(ibv_qp_to_qp_ex(qp));
}

static int post_recv_sge(struct duo *d, int i, uint64_t wr_id,
			 struct ibv_sge *sge, int n)
{
	struct ibv_recv_wr wr = {
		.wr_id = wr_id, .sg_list = sge, .num_sge = n,
	}, *bad;

	return ibv_post_recv(d->qp[i], &wr, &bad);
}

static int post_recv(struct duo *d, int i, uint64_t wr_id, uint32_t off,
		     uint32_t len)
{
	struct ibv_sge sge = {
		(uintptr_t)d->buf[i] + off, len, d->mr[i]->lkey,
	};

	return post_recv_sge(d, i, wr_id, &sge, 1);
}

/* Posts one request on a: @len bytes from a's buffer at @off. */
static int post_a(struct duo *d, uint64_t wr_id, enum ibv_wr_opcode op,
		  uint32_t off, uint32_t len, unsigned int flags,
		  uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = {
		(uintptr_t)d->buf[A] + off, len, d->mr[A]->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = flags,
	}, *bad;

	if (op == IBV_WR_SEND_WITH_INV) {
		wr.invalidate_rkey = rkey;
	} else if (op == IBV_WR_ATOMIC_FETCH_AND_ADD ||
		   op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	return ibv_post_send(d->qp[A], &wr, &bad);
}

static uint64_t b_addr(struct duo *d, uint32_t off)
{
	return (uintptr_t)d->buf[B] + off;
}

/* Waits for the next completion on @cq and checks it. */
static void expect_wc(struct ibv_cq *cq, uint64_t wr_id,
		      enum ibv_wc_status status, enum ibv_wc_opcode opcode)
{
	struct ibv_wc wc;

	if (wait_one(cq, &wc))
		check_wc(&wc, wr_id, status, opcode);
}

/* Nothing (more) arrives on @cq within @ms. */
static void expect_no_wc(struct ibv_cq *cq, unsigned int ms)
{
	struct ibv_wc wc;
	int n;

	sleep_ms(ms);
	n = ibv_poll_cq(cq, 1, &wc);
	CHECK(n == 0, "unexpected completion: wr_id %llu status %s",
	      n > 0 ? (unsigned long long)wc.wr_id : 0ull,
	      n > 0 ? ibv_wc_status_str(wc.status) : "-");
}

/*
 * RNR: a SEND reaches b, which has no receive posted. With rnr_retry 0
 * the first RNR NAK ends it: IBV_WC_RNR_RETRY_EXC_ERR, a goes to ERR and
 * flushes what follows; b is unaffected.
 */
static void rnr_retry_0_fails_fast_with_rnr_retry_exc_err(
	struct test_env *env)
{
	struct duo_opts o = default_opts;
	uint64_t t0;
	struct duo d;

	o.rnr_retry = 0;
	if (!duo_connect(env, &d, &o))
		return;
	t0 = now_ms();
	if (!CHECK_OK(post_a(&d, 1, IBV_WR_SEND, 0, 64, IBV_SEND_SIGNALED,
			     0, 0)) ||
	    !CHECK_OK(post_a(&d, 2, IBV_WR_SEND, 0, 64, IBV_SEND_SIGNALED,
			     0, 0)))
		goto out;
	expect_wc(d.scq[A], 1, IBV_WC_RNR_RETRY_EXC_ERR, 0);
	/* One RNR NAK round trip, no retries: well under a second. */
	CHECK_LE(now_ms() - t0, 3000);
	expect_wc(d.scq[A], 2, IBV_WC_WR_FLUSH_ERR, 0);
	CHECK_EQ(query_qp_state(d.qp[A]), IBV_QPS_ERR);
	CHECK_EQ(query_qp_state(d.qp[B]), IBV_QPS_RTS);
	expect_no_wc(d.rcq[B], 10);
out:
	duo_destroy(&d);
}

/*
 * rnr_retry 7 means "retry forever": the SEND waits, RNR NAK after RNR
 * NAK, until b posts its receive half a second later, then completes
 * with its data intact (3000 bytes: three packets).
 */
static void rnr_retry_7_retries_until_the_receive_is_posted(
	struct test_env *env)
{
	struct duo_opts o = default_opts;
	struct ibv_wc wc;
	struct duo d;

	o.rnr_retry = 7;
	o.min_rnr_timer = 1;	/* 0.01 ms: many NAKs in the wait */
	if (!duo_connect(env, &d, &o))
		return;
	if (!CHECK_OK(post_a(&d, 1, IBV_WR_SEND, 0, 3000, IBV_SEND_SIGNALED,
			     0, 0)))
		goto out;
	expect_no_wc(d.scq[A], 500);
	if (!CHECK_OK(post_recv(&d, B, 9, 0, DUO_LEN)))
		goto out;
	expect_wc(d.scq[A], 1, IBV_WC_SUCCESS, IBV_WC_SEND);
	if (wait_one(d.rcq[B], &wc)) {
		check_wc(&wc, 9, IBV_WC_SUCCESS, IBV_WC_RECV);
		CHECK_EQ(wc.byte_len, 3000);
		CHECK(!memcmp(d.buf[B], d.buf[A], 3000), "data differs");
	}
	CHECK_EQ(query_qp_state(d.qp[A]), IBV_QPS_RTS);
out:
	duo_destroy(&d);
}

/*
 * Retry exhaustion: b is gone, so nothing ever answers. After retry_cnt
 * retransmits the first request completes with IBV_WC_RETRY_EXC_ERR, a
 * goes to ERR, and everything behind it, posted sends (an unsignaled one
 * too: errors always complete) and receives, is flushed in order.
 */
static void retry_exhaustion_when_peer_is_destroyed_then_the_rest_flush(
	struct test_env *env)
{
	struct duo_opts o = default_opts;
	struct duo d;

	o.timeout = 10;		/* 4 ms */
	o.retry_cnt = 2;
	if (!duo_connect(env, &d, &o))
		return;
	if (!CHECK_OK(ibv_destroy_qp(d.qp[B]))) {
		duo_destroy(&d);
		return;
	}
	d.qp[B] = NULL;
	if (!CHECK_OK(post_recv(&d, A, 100, 0, 64)) ||
	    !CHECK_OK(post_a(&d, 1, IBV_WR_SEND, 0, 64, IBV_SEND_SIGNALED,
			     0, 0)) ||
	    !CHECK_OK(post_a(&d, 2, IBV_WR_RDMA_WRITE, 0, 64, 0,
			     b_addr(&d, 0), d.mr[B]->rkey)) ||
	    !CHECK_OK(post_a(&d, 3, IBV_WR_SEND, 0, 64, IBV_SEND_SIGNALED,
			     0, 0)))
		goto out;
	expect_wc(d.scq[A], 1, IBV_WC_RETRY_EXC_ERR, 0);
	expect_wc(d.scq[A], 2, IBV_WC_WR_FLUSH_ERR, 0);
	expect_wc(d.scq[A], 3, IBV_WC_WR_FLUSH_ERR, 0);
	expect_wc(d.rcq[A], 100, IBV_WC_WR_FLUSH_ERR, 0);
	CHECK_EQ(query_qp_state(d.qp[A]), IBV_QPS_ERR);
out:
	duo_destroy(&d);
}

/*
 * The same when b still exists but is in ERR: a QP in the error state
 * drops what arrives without answering (IBA 10.3.1), so a retries and
 * gives up.
 */
static void retry_exhaustion_when_peer_is_in_error_state(struct test_env *env)
{
	struct duo_opts o = default_opts;
	struct duo d;

	o.timeout = 10;
	o.retry_cnt = 2;
	if (!duo_connect(env, &d, &o))
		return;
	if (!CHECK_OK(qp_to_state(d.qp[B], IBV_QPS_ERR)) ||
	    !CHECK_OK(post_a(&d, 1, IBV_WR_RDMA_WRITE, 0, 64,
			     IBV_SEND_SIGNALED, b_addr(&d, 0),
			     d.mr[B]->rkey)))
		goto out;
	expect_wc(d.scq[A], 1, IBV_WC_RETRY_EXC_ERR, 0);
	CHECK_EQ(d.buf[B][0], 0);
out:
	duo_destroy(&d);
}

/*
 * The affiliated event b's owner gets when b refuses a request that
 * consumed none of its WQEs (IBA 11.6.3): a's completion status says
 * which kind of refusal it was.
 */
static void expect_b_event(struct test_env *env, struct duo *d,
			   enum ibv_wc_status status)
{
	expect_qp_event(env, d->qp[B], status == IBV_WC_REM_ACCESS_ERR ?
				       IBV_EVENT_QP_ACCESS_ERR :
				       IBV_EVENT_QP_REQ_ERR);
}

/*
 * One RDMA or atomic request from a to b that b must refuse: a sees
 * @status, goes to ERR, b's owner gets the event that says why, and b's
 * memory is untouched.
 */
static void refused_with(struct test_env *env, const struct duo_opts *o,
			 enum ibv_wr_opcode op, uint32_t off, uint32_t len,
			 uint32_t rkey_xor, enum ibv_wc_status status)
{
	struct duo d;
	int i;

	if (!duo_connect(env, &d, o))
		return;
	for (i = 0; i < DUO_LEN; i++)
		d.buf[B][i] = 0x3c;
	if (!CHECK_OK(post_a(&d, 1, op, 0, len, IBV_SEND_SIGNALED,
			     b_addr(&d, off), d.mr[B]->rkey ^ rkey_xor)) ||
	    !CHECK_OK(post_a(&d, 2, IBV_WR_SEND, 0, 8, IBV_SEND_SIGNALED,
			     0, 0)))
		goto out;
	expect_wc(d.scq[A], 1, status, 0);
	expect_wc(d.scq[A], 2, IBV_WC_WR_FLUSH_ERR, 0);
	CHECK_EQ(query_qp_state(d.qp[A]), IBV_QPS_ERR);
	expect_b_event(env, &d, status);
	for (i = 0; i < DUO_LEN; i++)
		if (d.buf[B][i] != 0x3c)
			break;
	CHECK(i == DUO_LEN, "b's memory changed at offset %d", i);
out:
	duo_destroy(&d);
}

static void refused(struct test_env *env, enum ibv_wr_opcode op,
		    int b_access, uint32_t off, uint32_t len,
		    uint32_t rkey_xor, enum ibv_wc_status status)
{
	struct duo_opts o = default_opts;

	o.b_mr_access = b_access;
	refused_with(env, &o, op, off, len, rkey_xor, status);
}

/*
 * b grants no responder resources (max_dest_rd_atomic 0): it must refuse
 * reads and atomics with an Invalid Request NAK rather than answer them.
 */
static void read_to_a_qp_granting_no_rd_atomic_fails_with_rem_inv_req_err(
	struct test_env *env)
{
	struct duo_opts o = default_opts;

	o.b_no_rd_atomic = true;
	refused_with(env, &o, IBV_WR_RDMA_READ, 0, 64, 0,
		     IBV_WC_REM_INV_REQ_ERR);
}

static void atomic_to_a_qp_granting_no_rd_atomic_fails_with_rem_inv_req_err(
	struct test_env *env)
{
	struct duo_opts o = default_opts;

	if (env->dev_attr.atomic_cap == IBV_ATOMIC_NONE) {
		tap_skip("device has no atomics");
		return;
	}
	o.b_no_rd_atomic = true;
	refused_with(env, &o, IBV_WR_ATOMIC_FETCH_AND_ADD, 0, 8, 0,
		     IBV_WC_REM_INV_REQ_ERR);
}

static void rdma_write_with_bad_rkey_fails_with_rem_access_err(
	struct test_env *env)
{
	refused(env, IBV_WR_RDMA_WRITE, ALL_ACCESS, 0, 64, 0x1000,
		IBV_WC_REM_ACCESS_ERR);
}

static void rdma_read_with_bad_rkey_fails_with_rem_access_err(
	struct test_env *env)
{
	refused(env, IBV_WR_RDMA_READ, ALL_ACCESS, 0, 64, 0x1000,
		IBV_WC_REM_ACCESS_ERR);
}

static void rdma_write_past_the_mr_end_fails_with_rem_access_err(
	struct test_env *env)
{
	refused(env, IBV_WR_RDMA_WRITE, ALL_ACCESS, DUO_LEN - 16, 64, 0,
		IBV_WC_REM_ACCESS_ERR);
}

static void rdma_read_past_the_mr_end_fails_with_rem_access_err(
	struct test_env *env)
{
	refused(env, IBV_WR_RDMA_READ, ALL_ACCESS, DUO_LEN - 16, 64, 0,
		IBV_WC_REM_ACCESS_ERR);
}

/* A multi-packet write whose last packets fall outside the MR. */
static void long_rdma_write_past_the_mr_end_fails_with_rem_access_err(
	struct test_env *env)
{
	refused(env, IBV_WR_RDMA_WRITE, ALL_ACCESS, DUO_LEN - 4096, 8192, 0,
		IBV_WC_REM_ACCESS_ERR);
}

static void rdma_write_to_mr_without_remote_write_fails(struct test_env *env)
{
	refused(env, IBV_WR_RDMA_WRITE,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		IBV_ACCESS_REMOTE_ATOMIC, 0, 64, 0, IBV_WC_REM_ACCESS_ERR);
}

static void rdma_read_from_mr_without_remote_read_fails(struct test_env *env)
{
	refused(env, IBV_WR_RDMA_READ,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		IBV_ACCESS_REMOTE_ATOMIC, 0, 64, 0, IBV_WC_REM_ACCESS_ERR);
}

static void atomic_on_mr_without_remote_atomic_fails(struct test_env *env)
{
	if (env->dev_attr.atomic_cap == IBV_ATOMIC_NONE) {
		tap_skip("device has no atomics");
		return;
	}
	refused(env, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		IBV_ACCESS_REMOTE_READ, 0, 8, 0, IBV_WC_REM_ACCESS_ERR);
}

/*
 * An atomic's remote address must be 8-byte aligned. librxe (the
 * provider of rdma_rxe and rxc alike) refuses a misaligned one in
 * ibv_post_send() already.
 */
static void misaligned_atomic_is_refused_by_ibv_post_send_with_einval(
	struct test_env *env)
{
	struct duo d;

	if (env->dev_attr.atomic_cap == IBV_ATOMIC_NONE) {
		tap_skip("device has no atomics");
		return;
	}
	if (!duo_connect(env, &d, &default_opts))
		return;
	CHECK_RC(post_a(&d, 1, IBV_WR_ATOMIC_FETCH_AND_ADD, 0, 8,
			IBV_SEND_SIGNALED, b_addr(&d, 4), d.mr[B]->rkey),
		 EINVAL);
	expect_no_wc(d.scq[A], 10);
	CHECK_EQ(query_qp_state(d.qp[A]), IBV_QPS_RTS);
	duo_destroy(&d);
}

/*
 * The ibv_wr_* API does not check alignment, so the request reaches the
 * responder, which must answer with an Invalid Request NAK (IBA 9.4.5):
 * IBV_WC_REM_INV_REQ_ERR for the requester, whose QP goes to ERR, and
 * b's memory untouched.
 */
static void misaligned_atomic_fails_at_the_responder_with_rem_inv_req_err(
	struct test_env *env)
{
	struct ibv_qp_ex *qpx;
	struct duo d;
	int i;

	if (env->dev_attr.atomic_cap == IBV_ATOMIC_NONE) {
		tap_skip("device has no atomics");
		return;
	}
	if (!duo_connect(env, &d, &default_opts))
		return;
	qpx = duo_extend_a(env, &d, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP);
	if (!qpx)
		goto out;
	memset(d.buf[B], 0x3c, DUO_LEN);
	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_cmp_swp(qpx, d.mr[B]->rkey, b_addr(&d, 4),
			      0x3c3c3c3c3c3c3c3cull, 1);
	ibv_wr_set_sge(qpx, d.mr[A]->lkey, (uintptr_t)d.buf[A], 8);
	if (!CHECK_OK(ibv_wr_complete(qpx)))
		goto out;
	expect_wc(d.scq[A], 1, IBV_WC_REM_INV_REQ_ERR, 0);
	CHECK_EQ(query_qp_state(d.qp[A]), IBV_QPS_ERR);
	expect_b_event(env, &d, IBV_WC_REM_INV_REQ_ERR);
	for (i = 0; i < DUO_LEN; i++)
		if (d.buf[B][i] != 0x3c)
			break;
	CHECK(i == DUO_LEN, "b's memory changed at offset %d", i);
out:
	duo_destroy(&d);
}

/*
 * A SEND longer than the receive buffer: the receive completes with
 * IBV_WC_LOC_LEN_ERR (ibv_poll_cq(3)) and the responder NAKs with
 * Invalid Request, so the sender sees IBV_WC_REM_INV_REQ_ERR.
 */
static void send_longer_than_the_receive_fails_on_both_sides(
	struct test_env *env)
{
	struct duo d;

	if (is_rxe(env))
		tap_xfail("rdma_rxe 6.1 reports IBV_WC_REM_OP_ERR and IBV_WC_LOC_QP_OP_ERR");
	if (!duo_connect(env, &d, &default_opts))
		return;
	if (!CHECK_OK(post_recv(&d, B, 7, 0, 100)) ||
	    !CHECK_OK(post_a(&d, 1, IBV_WR_SEND, 0, 2000, IBV_SEND_SIGNALED,
			     0, 0)))
		goto out;
	expect_wc(d.scq[A], 1, IBV_WC_REM_INV_REQ_ERR, 0);
	expect_wc(d.rcq[B], 7, IBV_WC_LOC_LEN_ERR, 0);
out:
	duo_destroy(&d);
}

/*
 * An RDMA write with immediate that b refuses for its rkey: a sees
 * REM_ACCESS_ERR, and the receive WQE the message consumes at b completes
 * with LOC_ACCESS_ERR, the responder's status (ibv_poll_cq(3)).  Found by
 * vdiff: rxc flushed the receive, rdma_rxe reports REM_ACCESS_ERR there.
 */
static void write_imm_with_bad_rkey_fails_the_receive_with_loc_access_err(
	struct test_env *env)
{
	struct duo d;

	if (is_rxe(env))
		tap_xfail("rdma_rxe 6.1 reports IBV_WC_REM_ACCESS_ERR at the responder");
	if (!duo_connect(env, &d, &default_opts))
		return;
	if (!CHECK_OK(post_recv(&d, B, 7, 0, 100)) ||
	    !CHECK_OK(post_recv(&d, B, 8, 0, 100)) ||
	    !CHECK_OK(post_a(&d, 1, IBV_WR_RDMA_WRITE_WITH_IMM, 0, 64,
			     IBV_SEND_SIGNALED, b_addr(&d, 0),
			     d.mr[B]->rkey ^ 0x1000)))
		goto out;
	expect_wc(d.scq[A], 1, IBV_WC_REM_ACCESS_ERR, 0);
	expect_wc(d.rcq[B], 7, IBV_WC_LOC_ACCESS_ERR, 0);
	expect_wc(d.rcq[B], 8, IBV_WC_WR_FLUSH_ERR, 0);
out:
	duo_destroy(&d);
}

/*
 * An RDMA write with immediate that b cannot take twice over: no receive
 * posted, and a bad rkey.  The missing receive is found first, as
 * rdma_rxe finds it: an RNR NAK, which with rnr_retry 0 fails a's write
 * with RNR_RETRY_EXC_ERR, while b stays in RTS.  Found by vdiff (seed
 * 22472): rxc checked the key first, NAKed it and moved b to ERR.
 */
static void write_imm_without_receive_is_rnr_naked_before_its_rkey_is_checked(
	struct test_env *env)
{
	struct duo_opts o = default_opts;
	struct duo d;

	o.rnr_retry = 0;
	if (!duo_connect(env, &d, &o))
		return;
	if (!CHECK_OK(post_a(&d, 1, IBV_WR_RDMA_WRITE_WITH_IMM, 0, 64,
			     IBV_SEND_SIGNALED, b_addr(&d, 0),
			     d.mr[B]->rkey ^ 0x1000)))
		goto out;
	expect_wc(d.scq[A], 1, IBV_WC_RNR_RETRY_EXC_ERR, 0);
	CHECK_EQ(query_qp_state(d.qp[B]), IBV_QPS_RTS);
out:
	duo_destroy(&d);
}

/*
 * A send with invalidate whose rkey names no window b may invalidate is
 * an invalid request: b's receive fails rather than report an
 * invalidation that did not happen, and a is NAKed.
 */
static void send_with_invalidate_of_an_unknown_rkey_fails_on_both_sides(
	struct test_env *env)
{
	struct duo d;

	if (!duo_connect(env, &d, &default_opts))
		return;
	if (!CHECK_OK(post_recv(&d, B, 7, 0, 100)) ||
	    !CHECK_OK(post_a(&d, 1, IBV_WR_SEND_WITH_INV, 0, 64,
			     IBV_SEND_SIGNALED, 0, d.mr[B]->rkey ^ 0x1000)))
		goto out;
	expect_wc(d.scq[A], 1, IBV_WC_REM_INV_REQ_ERR, 0);
	expect_wc(d.rcq[B], 7, IBV_WC_REM_INV_REQ_ERR, 0);
	CHECK_EQ(query_qp_state(d.qp[B]), IBV_QPS_ERR);
out:
	duo_destroy(&d);
}

/*
 * b's region is deregistered while b is still answering a long read from
 * it: b stops and NAKs, so a's read fails with IBV_WC_REM_ACCESS_ERR at
 * once instead of retrying until IBV_WC_RETRY_EXC_ERR.  The read is long
 * enough that the deregistration lands in the middle; should it finish
 * first, it must have read every byte.
 */
static void read_whose_region_goes_away_midway_fails_with_rem_access_err(
	struct test_env *env)
{
	enum { LEN = 32 << 20 };
	struct ibv_mr *src = NULL, *dst = NULL;
	struct ibv_send_wr wr = {
		.wr_id = 1, .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	char *sbuf, *dbuf = NULL;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct duo d;

	sbuf = CHECK_NOT_NULL(calloc(1, LEN));
	dbuf = sbuf ? CHECK_NOT_NULL(calloc(1, LEN)) : NULL;
	if (!dbuf || !duo_connect(env, &d, &default_opts))
		goto free;
	memset(sbuf, 0x5a, LEN);
	src = CHECK_NOT_NULL(ibv_reg_mr(env->pd, sbuf, LEN, ALL_ACCESS));
	dst = CHECK_NOT_NULL(ibv_reg_mr(env->pd, dbuf, LEN, ALL_ACCESS));
	if (!src || !dst)
		goto out;
	sge = (struct ibv_sge){ (uintptr_t)dbuf, LEN, dst->lkey };
	wr.sg_list = &sge;
	wr.wr.rdma.remote_addr = (uintptr_t)sbuf;
	wr.wr.rdma.rkey = src->rkey;
	if (!CHECK_OK(ibv_post_send(d.qp[A], &wr, &bad)))
		goto out;
	sleep_ms(20);
	if (!CHECK_OK(ibv_dereg_mr(src)))
		goto out;
	src = NULL;
	if (!wait_one(d.scq[A], &wc))
		goto out;
	if (wc.status == IBV_WC_SUCCESS) {
		printf("# the read finished before the deregistration\n");
		CHECK(!memcmp(sbuf, dbuf, LEN), "the read brought wrong data");
		goto out;
	}
	check_wc(&wc, 1, IBV_WC_REM_ACCESS_ERR, 0);
	expect_qp_event(env, d.qp[B], IBV_EVENT_QP_ACCESS_ERR);
out:
	if (src)
		CHECK_OK(ibv_dereg_mr(src));
	if (dst)
		CHECK_OK(ibv_dereg_mr(dst));
	duo_destroy(&d);
free:
	free(sbuf);
	free(dbuf);
}

/*
 * Fetch-and-add returns the old value and adds; compare-and-swap returns
 * the old value and swaps only on a match. All 64 bits take part.
 */
static void atomics_return_the_old_value_and_update_the_target(
	struct test_env *env)
{
	uint64_t *target, *result;
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sge;
	struct duo d;

	if (env->dev_attr.atomic_cap == IBV_ATOMIC_NONE) {
		tap_skip("device has no atomics");
		return;
	}
	if (!duo_connect(env, &d, &default_opts))
		return;
	target = (uint64_t *)(d.buf[B] + 64);
	result = (uint64_t *)(d.buf[A] + 128);
	*target = 0x00000001ffffffffull;
	sge = (struct ibv_sge){ (uintptr_t)result, 8, d.mr[A]->lkey };
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.atomic.remote_addr = (uintptr_t)target;
	wr.wr.atomic.rkey = d.mr[B]->rkey;

	/* The carry must cross the 32-bit boundary. */
	wr.wr_id = 1;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.compare_add = 1;
	if (!CHECK_OK(ibv_post_send(d.qp[A], &wr, &bad)))
		goto out;
	expect_wc(d.scq[A], 1, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD);
	CHECK_EQ(*result, 0x00000001ffffffffull);
	CHECK_EQ(*target, 0x0000000200000000ull);

	wr.wr_id = 2;
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 0x0000000200000000ull;
	wr.wr.atomic.swap = 0xfedcba9876543210ull;
	if (!CHECK_OK(ibv_post_send(d.qp[A], &wr, &bad)))
		goto out;
	expect_wc(d.scq[A], 2, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP);
	CHECK_EQ(*result, 0x0000000200000000ull);
	CHECK_EQ(*target, 0xfedcba9876543210ull);

	/* Differs only in the high half: no swap. */
	wr.wr_id = 3;
	wr.wr.atomic.compare_add = 0xfedcba9976543210ull;
	wr.wr.atomic.swap = 5;
	if (!CHECK_OK(ibv_post_send(d.qp[A], &wr, &bad)))
		goto out;
	expect_wc(d.scq[A], 3, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP);
	CHECK_EQ(*result, 0xfedcba9876543210ull);
	CHECK_EQ(*target, 0xfedcba9876543210ull);
	CHECK_EQ(query_qp_state(d.qp[A]), IBV_QPS_RTS);
out:
	duo_destroy(&d);
}

/*
 * Moving a QP to ERR flushes every outstanding WR: sends (signaled or
 * not) and receives complete with IBV_WC_WR_FLUSH_ERR, each queue in
 * posting order, with the right wr_ids.
 * The sends are held back by a peer that never answers (destroyed b,
 * with a long timeout).
 */
static void modify_to_err_flushes_all_wrs_in_order(struct test_env *env)
{
	struct duo_opts o = default_opts;
	struct ibv_wc wc[8];
	struct duo d;
	int i, n;

	o.timeout = 20;		/* 4.3 s: nothing times out during the test */
	if (!duo_connect(env, &d, &o))
		return;
	if (!CHECK_OK(ibv_destroy_qp(d.qp[B]))) {
		duo_destroy(&d);
		return;
	}
	d.qp[B] = NULL;
	for (i = 0; i < 4; i++)
		if (!CHECK_OK(post_recv(&d, A, 100 + i, 64 * i, 64)))
			goto out;
	for (i = 0; i < 4; i++)
		if (!CHECK_OK(post_a(&d, 1 + i, IBV_WR_SEND, 0, 64,
				     i == 1 ? 0 : IBV_SEND_SIGNALED, 0, 0)))
			goto out;
	sleep_ms(20);
	if (!CHECK_OK(qp_to_state(d.qp[A], IBV_QPS_ERR)))
		goto out;

	n = poll_cq_wait(d.scq[A], wc, 4);
	CHECK_EQ(n, 4);
	for (i = 0; i < n; i++)
		check_wc(&wc[i], 1 + i, IBV_WC_WR_FLUSH_ERR, 0);
	n = poll_cq_wait(d.rcq[A], wc, 4);
	CHECK_EQ(n, 4);
	for (i = 0; i < n; i++) {
		check_wc(&wc[i], 100 + i, IBV_WC_WR_FLUSH_ERR, 0);
		CHECK_EQ(wc[i].qp_num, d.qp[A]->qp_num);
	}
out:
	duo_destroy(&d);
}

/*
 * A QP in ERR accepts new WRs and completes them with
 * IBV_WC_WR_FLUSH_ERR (IBA 10.3.1, error state).
 */
static void send_posted_in_err_state_is_flushed(struct test_env *env)
{
	struct duo d;

	if (!duo_connect(env, &d, &default_opts))
		return;
	if (!CHECK_OK(qp_to_state(d.qp[A], IBV_QPS_ERR)))
		goto out;
	if (CHECK_OK(post_a(&d, 9, IBV_WR_SEND, 0, 64, IBV_SEND_SIGNALED,
			    0, 0)))
		expect_wc(d.scq[A], 9, IBV_WC_WR_FLUSH_ERR, 0);
	expect_no_wc(d.scq[A], 10);
out:
	duo_destroy(&d);
}

/*
 * The same for a receive. librxe's ibv_post_recv() only writes the
 * shared ring and never enters the kernel, so the driver cannot know of
 * the receive at once: the send posted after it (whose doorbell does
 * enter the kernel) gives it the chance, and both must flush.
 */
static void receive_posted_in_err_state_is_flushed(struct test_env *env)
{
	struct duo d;

	if (is_rxe(env))
		tap_xfail("rdma_rxe 6.1 leaves receives posted in ERR pending");
	if (!duo_connect(env, &d, &default_opts))
		return;
	if (!CHECK_OK(qp_to_state(d.qp[A], IBV_QPS_ERR)) ||
	    !CHECK_OK(post_recv(&d, A, 200, 0, 64)) ||
	    !CHECK_OK(post_a(&d, 9, IBV_WR_SEND, 0, 64, IBV_SEND_SIGNALED,
			     0, 0)))
		goto out;
	expect_wc(d.scq[A], 9, IBV_WC_WR_FLUSH_ERR, 0);
	expect_wc(d.rcq[A], 200, IBV_WC_WR_FLUSH_ERR, 0);
	expect_no_wc(d.rcq[A], 10);
out:
	duo_destroy(&d);
}

/*
 * Builds an SGE list over @buf from (offset, length) pairs, leaving out
 * empty pieces; returns how many SGEs it made.
 */
static int sges(struct ibv_sge *sge, char *buf, uint32_t lkey,
		const uint32_t (*piece)[2], int n)
{
	int i, k = 0;

	for (i = 0; i < n; i++)
		if (piece[i][1])
			sge[k++] = (struct ibv_sge){
				(uintptr_t)buf + piece[i][0], piece[i][1], lkey,
			};
	return k;
}

/*
 * SENDs of odd sizes that span several packets (path MTU 1024 here),
 * gathered from three SGEs and scattered over three more whose
 * boundaries fall elsewhere, plus the empty message. b's whole buffer
 * is compared with what it must hold.
 */
static void multi_packet_sends_of_odd_sizes_arrive_intact(
	struct test_env *env)
{
	static const uint32_t sizes[] = { 0, 1, 1023, 1025, 4097, 12345 };
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND }, *bad;
	struct ibv_sge ssge[3], rsge[3];
	char *want, *msg;
	struct ibv_wc wc;
	struct duo d;
	size_t k;

	want = malloc(DUO_LEN);
	msg = malloc(DUO_LEN);
	if (!CHECK(want && msg, "out of memory"))
		goto free;
	if (!duo_connect(env, &d, &default_opts))
		goto free;
	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		uint32_t len = sizes[k], s0 = len / 3, s1 = len / 2;
		uint32_t r0 = len / 5, r1 = len / 4 + 7;
		const uint32_t from[3][2] = {
			{ 0, s0 }, { 20000, s1 }, { 40000, len - s0 - s1 },
		};
		const uint32_t into[3][2] = {
			{ 100, r0 }, { 30000, r1 }, { 50000, 15000 },
		};
		uint32_t i, pos;
		int nr;

		memset(d.buf[B], 0, DUO_LEN);
		nr = sges(rsge, d.buf[B], d.mr[B]->lkey, into, 3);
		if (!CHECK_OK(post_recv_sge(&d, B, k, rsge, nr)))
			break;
		wr.wr_id = k;
		wr.sg_list = ssge;
		wr.num_sge = sges(ssge, d.buf[A], d.mr[A]->lkey, from, 3);
		wr.send_flags = IBV_SEND_SIGNALED;
		if (!CHECK_OK(ibv_post_send(d.qp[A], &wr, &bad)))
			break;
		expect_wc(d.scq[A], k, IBV_WC_SUCCESS, IBV_WC_SEND);
		if (!wait_one(d.rcq[B], &wc))
			break;
		check_wc(&wc, k, IBV_WC_SUCCESS, IBV_WC_RECV);
		CHECK(wc.byte_len == len, "%u-byte send: byte_len %u", len,
		      wc.byte_len);

		/* The message as gathered, then scattered as it must be. */
		for (i = 0, pos = 0; i < 3; pos += from[i][1], i++)
			memcpy(msg + pos, d.buf[A] + from[i][0], from[i][1]);
		memset(want, 0, DUO_LEN);
		for (i = 0, pos = 0; i < 3 && pos < len; i++) {
			uint32_t n = into[i][1] < len - pos ? into[i][1] :
				     len - pos;

			memcpy(want + into[i][0], msg + pos, n);
			pos += n;
		}
		for (i = 0; i < DUO_LEN; i++)
			if (want[i] != d.buf[B][i])
				break;
		CHECK(i == DUO_LEN, "%u-byte send: b differs at offset %u",
		      len, i);
	}
	duo_destroy(&d);
free:
	free(want);
	free(msg);
}

/* Multi-packet RDMA WRITE and READ of odd sizes at odd offsets. */
static void multi_packet_rdma_write_and_read_of_odd_sizes(
	struct test_env *env)
{
	static const uint32_t sizes[] = { 1, 1025, 3071, 9999 };
	struct duo d;
	size_t k;

	if (!duo_connect(env, &d, &default_opts))
		return;
	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		uint32_t len = sizes[k];

		memset(d.buf[B], 0, DUO_LEN);
		/* a[3, 3 + len) -> b[1001, ...) */
		if (!CHECK_OK(post_a(&d, 10 + k, IBV_WR_RDMA_WRITE, 3, len,
				     IBV_SEND_SIGNALED, b_addr(&d, 1001),
				     d.mr[B]->rkey)))
			break;
		expect_wc(d.scq[A], 10 + k, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
		CHECK(!memcmp(d.buf[B] + 1001, d.buf[A] + 3, len),
		      "%u-byte write: data differs", len);
		CHECK(d.buf[B][1000] == 0 && d.buf[B][1001 + len] == 0,
		      "%u-byte write: written outside its range", len);

		/* b[1001, ...) read back into a[30001, ...) */
		memset(d.buf[A] + 30001, 0, len);
		if (!CHECK_OK(post_a(&d, 20 + k, IBV_WR_RDMA_READ, 30001, len,
				     IBV_SEND_SIGNALED, b_addr(&d, 1001),
				     d.mr[B]->rkey)))
			break;
		{
			struct ibv_wc wc;

			if (wait_one(d.scq[A], &wc)) {
				check_wc(&wc, 20 + k, IBV_WC_SUCCESS,
					 IBV_WC_RDMA_READ);
				CHECK_EQ(wc.byte_len, len);
			}
		}
		CHECK(!memcmp(d.buf[A] + 30001, d.buf[A] + 3, len),
		      "%u-byte read: data differs", len);
	}
	/* The responder consumed no receive for any of it. */
	expect_no_wc(d.rcq[B], 10);
	duo_destroy(&d);
}

/* Inline data from several SGEs, the buffers reusable at once. */
static void inline_send_gathers_sges_and_copies_at_post_time(
	struct test_env *env)
{
	struct ibv_send_wr wr = { .wr_id = 1, .opcode = IBV_WR_SEND }, *bad;
	char part1[20], part2[33];
	struct ibv_sge sge[2];
	struct ibv_wc wc;
	struct duo d;

	if (!duo_connect(env, &d, &default_opts))
		return;
	if (!CHECK_OK(post_recv(&d, B, 2, 0, 256)))
		goto out;
	memset(part1, 'x', sizeof(part1));
	memset(part2, 'y', sizeof(part2));
	sge[0] = (struct ibv_sge){ (uintptr_t)part1, sizeof(part1), 0 };
	sge[1] = (struct ibv_sge){ (uintptr_t)part2, sizeof(part2), 0 };
	wr.sg_list = sge;
	wr.num_sge = 2;
	wr.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
	if (!CHECK_OK(ibv_post_send(d.qp[A], &wr, &bad)))
		goto out;
	memset(part1, 0, sizeof(part1));
	memset(part2, 0, sizeof(part2));
	expect_wc(d.scq[A], 1, IBV_WC_SUCCESS, IBV_WC_SEND);
	if (wait_one(d.rcq[B], &wc)) {
		check_wc(&wc, 2, IBV_WC_SUCCESS, IBV_WC_RECV);
		CHECK_EQ(wc.byte_len, 53);
		CHECK(d.buf[B][0] == 'x' && d.buf[B][19] == 'x' &&
		      d.buf[B][20] == 'y' && d.buf[B][52] == 'y' &&
		      d.buf[B][53] == 0, "inline data differs");
	}
out:
	duo_destroy(&d);
}

/* With sq_sig_all every send completes, IBV_SEND_SIGNALED or not. */
static void sq_sig_all_signals_every_send(struct test_env *env)
{
	struct duo_opts o = default_opts;
	struct ibv_wc wc[4];
	struct duo d;
	int i;

	o.sq_sig_all = true;
	if (!duo_connect(env, &d, &o))
		return;
	for (i = 0; i < 3; i++)
		if (!CHECK_OK(post_a(&d, 1 + i, IBV_WR_RDMA_WRITE, 0, 100, 0,
				     b_addr(&d, 0), d.mr[B]->rkey)))
			goto out;
	CHECK_EQ(poll_cq_wait(d.scq[A], wc, 3), 3);
	for (i = 0; i < 3; i++)
		check_wc(&wc[i], 1 + i, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
out:
	duo_destroy(&d);
}

/*
 * Without sq_sig_all only signaled sends complete, and each signaled
 * completion also retires the unsignaled WRs before it.
 */
static void unsignaled_sends_complete_only_when_signaled(struct test_env *env)
{
	struct ibv_wc wc[4];
	struct duo d;
	int i;

	if (!duo_connect(env, &d, &default_opts))
		return;
	/* 16 slots in the SQ: 40 unsignaled writes only fit if retired. */
	for (i = 0; i < 40; i++) {
		unsigned int flags = i % 8 == 7 ? IBV_SEND_SIGNALED : 0;

		if (!CHECK_OK(post_a(&d, i, IBV_WR_RDMA_WRITE, i, 1000, flags,
				     b_addr(&d, 1000 * i), d.mr[B]->rkey)))
			goto out;
		if (flags) {
			if (wait_one(d.scq[A], wc))
				check_wc(wc, i, IBV_WC_SUCCESS,
					 IBV_WC_RDMA_WRITE);
		}
	}
	expect_no_wc(d.scq[A], 20);
	CHECK(!memcmp(d.buf[B] + 39000, d.buf[A] + 39, 1000),
	      "last write's data differs");
out:
	duo_destroy(&d);
}

/*
 * ATOMIC_WRITE (ibv_wr_atomic_write): 8 bytes placed atomically at an
 * aligned remote address; completes as IBV_WC_ATOMIC_WRITE. librxe 44
 * advertises it, rdma_rxe in 6.1 does not implement it.
 */
static void atomic_write_places_8_bytes(struct test_env *env)
{
	uint8_t value[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct ibv_qp_ex *qpx;
	struct duo d;

	if (is_rxe(env)) {
		tap_skip("rdma_rxe 6.1 lacks ATOMIC_WRITE (librxe advertises it)");
		return;
	}
	if (!duo_connect(env, &d, &default_opts))
		return;
	qpx = duo_extend_a(env, &d, IBV_QP_EX_WITH_ATOMIC_WRITE);
	if (!qpx)
		goto out;
	ibv_wr_start(qpx);
	qpx->wr_id = 5;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qpx, d.mr[B]->rkey, b_addr(&d, 256), value);
	if (!CHECK_OK(ibv_wr_complete(qpx)))
		goto out;
	expect_wc(d.scq[A], 5, IBV_WC_SUCCESS, IBV_WC_ATOMIC_WRITE);
	CHECK(!memcmp(d.buf[B] + 256, value, 8), "atomic write data differs");
	CHECK_EQ(d.buf[B][264], 0);
	CHECK_EQ(d.buf[B][255], 0);
out:
	duo_destroy(&d);
}

static const struct test_case tests[] = {
	TEST_CASE(rnr_retry_0_fails_fast_with_rnr_retry_exc_err),
	TEST_CASE(rnr_retry_7_retries_until_the_receive_is_posted),
	TEST_CASE(retry_exhaustion_when_peer_is_destroyed_then_the_rest_flush),
	TEST_CASE(retry_exhaustion_when_peer_is_in_error_state),
	TEST_CASE(rdma_write_with_bad_rkey_fails_with_rem_access_err),
	TEST_CASE(rdma_read_with_bad_rkey_fails_with_rem_access_err),
	TEST_CASE(rdma_write_past_the_mr_end_fails_with_rem_access_err),
	TEST_CASE(rdma_read_past_the_mr_end_fails_with_rem_access_err),
	TEST_CASE(long_rdma_write_past_the_mr_end_fails_with_rem_access_err),
	TEST_CASE(rdma_write_to_mr_without_remote_write_fails),
	TEST_CASE(rdma_read_from_mr_without_remote_read_fails),
	TEST_CASE(atomic_on_mr_without_remote_atomic_fails),
	TEST_CASE(misaligned_atomic_is_refused_by_ibv_post_send_with_einval),
	TEST_CASE(misaligned_atomic_fails_at_the_responder_with_rem_inv_req_err),
	TEST_CASE(send_longer_than_the_receive_fails_on_both_sides),
	TEST_CASE(write_imm_with_bad_rkey_fails_the_receive_with_loc_access_err),
	TEST_CASE(write_imm_without_receive_is_rnr_naked_before_its_rkey_is_checked),
	TEST_CASE(send_with_invalidate_of_an_unknown_rkey_fails_on_both_sides),
	TEST_CASE(read_whose_region_goes_away_midway_fails_with_rem_access_err),
	TEST_CASE(read_to_a_qp_granting_no_rd_atomic_fails_with_rem_inv_req_err),
	TEST_CASE(atomic_to_a_qp_granting_no_rd_atomic_fails_with_rem_inv_req_err),
	TEST_CASE(atomics_return_the_old_value_and_update_the_target),
	TEST_CASE(modify_to_err_flushes_all_wrs_in_order),
	TEST_CASE(receive_posted_in_err_state_is_flushed),
	TEST_CASE(send_posted_in_err_state_is_flushed),
	TEST_CASE(multi_packet_sends_of_odd_sizes_arrive_intact),
	TEST_CASE(multi_packet_rdma_write_and_read_of_odd_sizes),
	TEST_CASE(inline_send_gathers_sges_and_copies_at_post_time),
	TEST_CASE(sq_sig_all_signals_every_send),
	TEST_CASE(unsignaled_sends_complete_only_when_signaled),
	TEST_CASE(atomic_write_places_8_bytes),
};

int main(int argc, char **argv)
{
	return run_suite("rc_errors", argc, argv, tests, ARRAY_SIZE(tests));
}
