// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ring_fuzz: a process writes hostile values into its own mapped rings
 * while the kernel processes them.
 *
 *   ring_fuzz -d DEV [-s SEED] [-n ACTIONS] [-e PER_EPISODE] [-T SECS]
 *
 * Every ring a process maps it may write at any moment: the producer
 * index of its send, receive and shared receive queues, the consumer
 * index of its CQs, and every byte of every work request, before or after
 * it is published.  Each episode builds two RC QPs connected to each
 * other (one of them on an SRQ), a UD QP that sends to itself, and their
 * CQ, finds the rings among the process's mappings of the uverbs device,
 * and then takes random actions:
 *
 *   - posting valid work requests, so that the kernel has work in flight;
 *   - publishing a send WQE with one to three fields set to hostile values
 *     (opcode, flags, num_sge, lengths, keys, addresses, the AH number,
 *     inline length), or random bytes over one already published;
 *   - the same for receive WQEs of the RQ and the SRQ, then a send that
 *     consumes them;
 *   - producer indices that run backwards, lap the consumer or carry bits
 *     beyond the ring's mask, then the doorbell; CQ consumer indices that
 *     run ahead of the producer or behind it;
 *   - moving a QP to ERR while another thread rewrites its indices and
 *     WQEs, so that the flush races the writer;
 *   - resizing the CQ and the SRQ with hostile indices in them;
 *   - bringing QPs back from ERR, and tearing everything down at the end
 *     of the episode with whatever the rings hold.
 *
 * Memory next to the QPs' MR is registered in another PD and filled with
 * a marker.  Hostile keys and addresses name it as often as anything
 * else, so a boundary check that fails shows as a changed marker (a write
 * through the wrong PD or past the MR's end) or as the marker in the QPs'
 * own MR (a read).  Meanwhile an RC connection on a context of its own
 * checks every byte it moves.  The run passes when every call returned,
 * the marker and the checked traffic are intact, and the device carries
 * traffic afterwards; kernel reports are for the caller to read in the
 * kernel log.  The seed is printed, and the same seed takes the same
 * actions.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "fuzz_lib.h"
#include "../rings.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define SQ_WR		63	/* 64 slots */
#define RQ_WR		31	/* 32 slots: tells the RQ from the SQ */
#define CQ_CQE		255
#define MAX_SGE		4
#define MAX_INLINE	64
#define MEM_LEN		(64 * 1024)	/* the QPs' MR: sources, then targets */
#define GUARD_LEN	(16 * 1024)	/* right after it, in another PD */
#define GUARD		0x6775617264f00dedull
#define QKEY		0x11111111
#define ACCESS_ALL	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

static struct fuzz_opts opt = {
	.count = 20000, .secs = 600, .own_opt = 'e', .own = 200,
};

enum { RC0, RC1, UD, NR_QP };

/* One episode's objects and the rings found for them. */
struct episode {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_pd *other_pd;
	struct ibv_mr *mr;
	struct ibv_mr *guard_mr;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_ah *ah;
	struct ibv_ah *other_ah;
	struct ibv_qp *qp[NR_QP];
	struct rxe_queue_buf *cq_ring;
	struct rxe_queue_buf *srq_ring;
	struct rxe_queue_buf *sq[NR_QP];
	struct rxe_queue_buf *rq[NR_QP];	/* NULL for RC1, on the SRQ */
	uint32_t ah_num;			/* @ah's, as librxe posts it */
};

static struct fuzz_rng rng;
static char *mem;		/* MEM_LEN, then GUARD_LEN */
static uint64_t statuses[IBV_WC_GENERAL_ERR + 2];

static uint64_t rnd(void)
{
	return fuzz_rnd(&rng);
}

static uint32_t rnd_below(uint32_t n)
{
	return fuzz_rnd_below(&rng, n);
}

/* ---- the rings ---------------------------------------------------- */

/* The mappings now; the rings of what is created next are new to them. */
static void snapshot_maps(struct uverbs_maps *m)
{
	if (uverbs_maps_read(m))
		fuzz_die("cannot read /proc/self/maps");
}

static struct rxe_queue_buf *one_new_ring(const struct uverbs_maps *before)
{
	struct rxe_queue_buf *ring;

	if (uverbs_maps_new(before, &ring, 1) != 1)
		fuzz_die("no new ring among the uverbs mappings");
	return ring;
}

static uint32_t load_index(uint32_t *index)
{
	return __atomic_load_n(index, __ATOMIC_ACQUIRE);
}

static void store_index(uint32_t *index, uint32_t v)
{
	__atomic_store_n(index, v, __ATOMIC_RELEASE);
}

/*
 * librxe trusts the indices it owns: before it writes a ring again, they
 * are masked back into the ring, which is all a sane writer would do.
 * The kernel is what is under test, not the process's own provider.
 */
static void tidy_producer(struct rxe_queue_buf *q)
{
	store_index(&q->producer_index,
		    load_index(&q->producer_index) & q->index_mask);
}

static void tidy_consumer(struct rxe_queue_buf *q)
{
	store_index(&q->consumer_index,
		    load_index(&q->consumer_index) & q->index_mask);
}

static void *slot(struct rxe_queue_buf *q, uint32_t index)
{
	return q->data + ((size_t)(index & q->index_mask) << q->log2_elem_size);
}

/* Rings the send doorbell the way librxe does: POST_SEND with no WRs. */
static int doorbell(struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} c = {};
	struct ib_uverbs_post_send_resp resp;

	c.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	c.hdr.in_words = sizeof(c) / 4;
	c.hdr.out_words = sizeof(resp) / 4;
	c.cmd.response = (uintptr_t)&resp;
	c.cmd.qp_handle = qp->handle;
	c.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	return write(qp->context->cmd_fd, &c, sizeof(c)) == sizeof(c) ? 0 :
									 errno;
}

/* ---- hostile values ----------------------------------------------- */

/* A key: of the QPs' MR, of the guard in the other PD, or anything. */
static uint32_t hostile_key(struct episode *e)
{
	switch (rnd_below(6)) {
	case 0:
		return e->mr->lkey;
	case 1:
		return e->mr->rkey;
	case 2:
		return e->guard_mr->lkey;
	case 3:
		return e->guard_mr->rkey;
	default:
		return fuzz_rnd_val(&rng);
	}
}

/* An address at the MR's edges, in the guard, or anything. */
static uint64_t hostile_addr(void)
{
	uintptr_t m = (uintptr_t)mem;

	switch (rnd_below(6)) {
	case 0:
		return m;
	case 1:
		return m + MEM_LEN - rnd_below(64);
	case 2:
		return m + MEM_LEN + rnd_below(GUARD_LEN);
	case 3:
		return m - rnd_below(4096);
	default:
		return fuzz_rnd_val(&rng);
	}
}

/* ---- send WQEs ---------------------------------------------------- */

/* A valid WQE on @qp, as librxe would write it. */
static void valid_swqe(struct episode *e, int qpi, struct rxe_send_wqe *w)
{
	static const uint32_t rc_ops[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_SEND,
		IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
	};
	uint32_t len = 8 << rnd_below(10);

	memset(w, 0, sizeof(*w) + MAX_SGE * sizeof(struct rxe_sge));
	w->wr.wr_id = rnd();
	w->wr.send_flags = rnd_below(2) ? IBV_SEND_SIGNALED : 0;
	w->dma.num_sge = 1;
	w->dma.sge[0].addr = (uintptr_t)mem + rnd_below(MEM_LEN / 2 - len);
	w->dma.sge[0].length = len;
	w->dma.sge[0].lkey = e->mr->lkey;
	w->dma.length = len;
	w->dma.resid = len;
	if (qpi == UD) {
		w->wr.opcode = IBV_WR_SEND;
		w->wr.wr.ud.remote_qpn = e->qp[UD]->qp_num;
		w->wr.wr.ud.remote_qkey = QKEY;
		w->wr.wr.ud.ah_num = e->ah_num;
		w->dma.sge[0].length = 8;
		w->dma.length = 8;
		return;
	}
	w->wr.opcode = rc_ops[rnd_below(ARRAY_SIZE(rc_ops))];
	w->wr.wr.rdma.remote_addr = (uintptr_t)mem + MEM_LEN / 2 +
				    (rnd_below(MEM_LEN / 2 - len) & ~7u);
	w->wr.wr.rdma.rkey = e->mr->rkey;
	if (w->wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    w->wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		w->wr.wr.atomic.remote_addr = w->wr.wr.rdma.remote_addr;
		w->wr.wr.atomic.rkey = e->mr->rkey;
		w->wr.wr.atomic.compare_add = rnd();
		w->dma.sge[0].length = 8;
	}
}

/* Sets one field of @w to a hostile value. */
static void spoil_swqe(struct episode *e, struct rxe_send_wqe *w)
{
	uint32_t i = rnd_below(MAX_SGE + 2);

	switch (rnd_below(12)) {
	case 0:
		w->wr.opcode = rnd_below(4) ? rnd_below(24) : fuzz_rnd_val(&rng);
		break;
	case 1:
		w->wr.send_flags = fuzz_rnd_val(&rng);
		break;
	case 2:
		w->dma.num_sge = fuzz_rnd_val(&rng);
		break;
	case 3:
		w->dma.length = fuzz_rnd_val(&rng);
		break;
	case 4:
		w->dma.sge[i % MAX_SGE].length = fuzz_rnd_val(&rng);
		break;
	case 5:
		w->dma.sge[i % MAX_SGE].lkey = hostile_key(e);
		break;
	case 6:
		w->dma.sge[i % MAX_SGE].addr = hostile_addr();
		break;
	case 7:
		w->wr.wr.rdma.rkey = hostile_key(e);
		w->wr.wr.atomic.rkey = hostile_key(e);
		break;
	case 8:
		w->wr.wr.rdma.remote_addr = hostile_addr();
		w->wr.wr.atomic.remote_addr = w->wr.wr.rdma.remote_addr;
		break;
	case 9:
		/* UD: the other PD's AH was created just before ours. */
		w->wr.wr.ud.ah_num = rnd_below(2) ? e->ah_num - 1 :
				     rnd_below(2) ? rnd_below(64) :
						    fuzz_rnd_val(&rng);
		w->wr.wr.ud.remote_qpn = fuzz_rnd_val(&rng);
		break;
	case 10:
		w->wr.send_flags |= IBV_SEND_INLINE;
		w->dma.length = rnd_below(2) ? MAX_INLINE + rnd_below(4096) :
					       fuzz_rnd_val(&rng);
		break;
	default:
		w->wr.wr.mw.length = fuzz_rnd_val(&rng);
		w->wr.wr.mw.mr_lkey = hostile_key(e);
		w->wr.wr.mw.access = fuzz_rnd_val(&rng);
		break;
	}
}

/* Random bytes over part of a slot between @from and @to (exclusive). */
static void scribble(struct rxe_queue_buf *q, uint32_t from, uint32_t to)
{
	uint32_t n = (to - from) & q->index_mask;
	uint32_t elem = 1u << q->log2_elem_size;
	uint8_t *p = slot(q, from + rnd_below(n ? n : 1));
	uint32_t off = rnd_below(elem), len = 1 + rnd_below(32), i;

	for (i = 0; i < len && off + i < elem; i++)
		p[off + i] = rnd();
}

/* ---- actions ------------------------------------------------------ */

static int act_post_valid(struct episode *e)
{
	int qpi = rnd_below(NR_QP);
	struct rxe_queue_buf *q = e->sq[qpi];
	uint32_t prod = load_index(&q->producer_index);

	valid_swqe(e, qpi, slot(q, prod));
	store_index(&q->producer_index, prod + 1);
	return doorbell(e->qp[qpi]);
}

static int act_publish_spoiled(struct episode *e)
{
	int qpi = rnd_below(NR_QP), n = 1 + rnd_below(3);
	struct rxe_queue_buf *q = e->sq[qpi];
	uint32_t prod = load_index(&q->producer_index);
	struct rxe_send_wqe *w = slot(q, prod);

	valid_swqe(e, qpi, w);
	while (n--)
		spoil_swqe(e, w);
	store_index(&q->producer_index, prod + 1);
	return doorbell(e->qp[qpi]);
}

static int act_scribble_sq(struct episode *e)
{
	int qpi = rnd_below(NR_QP);
	struct rxe_queue_buf *q = e->sq[qpi];

	scribble(q, load_index(&q->consumer_index),
		 load_index(&q->producer_index) + 1);
	return doorbell(e->qp[qpi]);
}

/* A producer index that runs back, laps, or has bits beyond the mask. */
static uint32_t hostile_index(struct rxe_queue_buf *q)
{
	uint32_t cons = load_index(&q->consumer_index);
	uint32_t prod = load_index(&q->producer_index);

	switch (rnd_below(6)) {
	case 0:
		return cons;
	case 1:
		return cons - 1;
	case 2:
		return prod - 1 - rnd_below(q->index_mask + 1);
	case 3:
		return cons + rnd_below(q->index_mask + 1);
	case 4:
		return prod + (q->index_mask + 1) * (1 + rnd_below(8));
	default:
		return fuzz_rnd_val(&rng);
	}
}

static int act_sq_index(struct episode *e)
{
	int qpi = rnd_below(NR_QP);

	store_index(&e->sq[qpi]->producer_index, hostile_index(e->sq[qpi]));
	return doorbell(e->qp[qpi]);
}

/* A receive WQE for RC0's RQ, the SRQ or UD's RQ, then a send to it. */
static struct rxe_queue_buf *pick_recv_ring(struct episode *e, int *sender)
{
	switch (rnd_below(3)) {
	case 0:
		*sender = RC1;
		return e->rq[RC0];
	case 1:
		*sender = RC0;
		return e->srq_ring;
	default:
		*sender = UD;
		return e->rq[UD];
	}
}

static int send_to(struct episode *e, int sender, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)mem, len, e->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	tidy_producer(e->sq[sender]);
	if (sender == UD) {
		wr.wr.ud.ah = e->ah;
		wr.wr.ud.remote_qpn = e->qp[UD]->qp_num;
		wr.wr.ud.remote_qkey = QKEY;
		sge.length = len > 256 ? 256 : len;
	}
	return ibv_post_send(e->qp[sender], &wr, &bad);
}

static void spoil_rwqe(struct episode *e, struct rxe_recv_wqe *w)
{
	uint32_t i = rnd_below(MAX_SGE + 2) % MAX_SGE;

	switch (rnd_below(5)) {
	case 0:
		w->dma.num_sge = fuzz_rnd_val(&rng);
		break;
	case 1:
		w->dma.sge[i].length = fuzz_rnd_val(&rng);
		break;
	case 2:
		w->dma.sge[i].lkey = hostile_key(e);
		break;
	case 3:
		w->dma.sge[i].addr = hostile_addr();
		break;
	default:
		w->dma.length = fuzz_rnd_val(&rng);
		break;
	}
}

static int act_recv_spoiled(struct episode *e)
{
	int sender, n = 1 + rnd_below(3);
	struct rxe_queue_buf *q = pick_recv_ring(e, &sender);
	uint32_t prod = load_index(&q->producer_index);
	struct rxe_recv_wqe *w = slot(q, prod);

	memset(w, 0, sizeof(*w) + MAX_SGE * sizeof(struct rxe_sge));
	w->wr_id = rnd();
	w->dma.num_sge = 1;
	w->dma.sge[0].addr = (uintptr_t)mem + MEM_LEN / 2;
	w->dma.sge[0].length = 4096;
	w->dma.sge[0].lkey = e->mr->lkey;
	w->dma.length = 4096;
	while (n--)
		spoil_rwqe(e, w);
	store_index(&q->producer_index,
		    rnd_below(4) ? prod + 1 : hostile_index(q));
	return send_to(e, sender, 8 << rnd_below(10));
}

static int act_recv_valid(struct episode *e)
{
	struct ibv_sge sge = {
		(uintptr_t)mem + MEM_LEN / 2 + rnd_below(MEM_LEN / 4),
		4096, e->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = rnd(), .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	switch (rnd_below(3)) {
	case 0:
		tidy_producer(e->rq[RC0]);
		return ibv_post_recv(e->qp[RC0], &wr, &bad);
	case 1:
		tidy_producer(e->srq_ring);
		return ibv_post_srq_recv(e->srq, &wr, &bad);
	default:
		tidy_producer(e->rq[UD]);
		return ibv_post_recv(e->qp[UD], &wr, &bad);
	}
}

static int act_scribble_rq(struct episode *e)
{
	int sender;
	struct rxe_queue_buf *q = pick_recv_ring(e, &sender);

	scribble(q, load_index(&q->consumer_index),
		 load_index(&q->producer_index) + 1);
	return send_to(e, sender, 8);
}

static int act_cq_index(struct episode *e)
{
	struct rxe_queue_buf *q = e->cq_ring;
	uint32_t prod = load_index(&q->producer_index);

	store_index(&q->consumer_index, rnd_below(2) ? prod + 1 +
		    rnd_below(q->index_mask) : fuzz_rnd_val(&rng));
	return send_to(e, rnd_below(2) ? RC0 : UD, 8);
}

struct racer {
	struct rxe_queue_buf *q;
	struct fuzz_rng rng;
	atomic_bool running;
	atomic_bool stop;
};

/* Rewrites the ring's producer index and WQEs until told to stop. */
static void *race_ring(void *arg)
{
	struct racer *r = arg;
	struct rxe_queue_buf *q = r->q;
	uint32_t elem = 1u << q->log2_elem_size;

	while (!atomic_load(&r->stop)) {
		uint64_t v = fuzz_rnd(&r->rng);
		uint8_t *p = slot(q, v >> 32);

		if (v & 1)
			store_index(&q->producer_index, v >> 8);
		else
			p[(v >> 16) % elem] = v >> 24;
		atomic_store(&r->running, true);
	}
	return NULL;
}

static int to_err(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

static int act_flush_race(struct episode *e)
{
	int qpi = rnd_below(NR_QP);
	struct racer r = { .q = rnd_below(2) || !e->rq[qpi] ? e->sq[qpi] :
							     e->rq[qpi] };
	pthread_t t;
	int ret;

	fuzz_rng_init(&r.rng, rnd(), 0);
	if (pthread_create(&t, NULL, race_ring, &r))
		fuzz_die("pthread_create failed");
	while (!atomic_load(&r.running))
		;
	ret = to_err(e->qp[qpi]);
	usleep(rnd_below(5000));
	atomic_store(&r.stop, true);
	pthread_join(t, NULL);
	return ret;
}

static int act_resize_cq(struct episode *e)
{
	struct uverbs_maps before;
	int ret;

	if (rnd_below(2))
		act_cq_index(e);
	snapshot_maps(&before);
	ret = ibv_resize_cq(e->cq, 1 + rnd_below(2 * CQ_CQE));
	/* librxe maps the new ring in place of the old one. */
	if (!ret)
		e->cq_ring = one_new_ring(&before);
	return ret;
}

static int act_resize_srq(struct episode *e)
{
	struct ibv_srq_attr a = { .max_wr = 1 + rnd_below(4 * RQ_WR) };
	struct uverbs_maps before;
	int ret;

	if (rnd_below(2))
		store_index(&e->srq_ring->producer_index,
			    hostile_index(e->srq_ring));
	snapshot_maps(&before);
	ret = ibv_modify_srq(e->srq, &a, IBV_SRQ_MAX_WR);
	if (!ret)
		e->srq_ring = one_new_ring(&before);
	return ret;
}

static void poll_all(struct episode *e)
{
	struct ibv_wc wc[32];
	int n, i, rounds = 64;

	tidy_consumer(e->cq_ring);
	while (rounds-- && (n = ibv_poll_cq(e->cq, 32, wc)) > 0)
		for (i = 0; i < n; i++)
			statuses[wc[i].status < ARRAY_SIZE(statuses) - 1 ?
				 wc[i].status : ARRAY_SIZE(statuses) - 1]++;
}

static int ud_connect(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = QKEY,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

static int to_reset(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/* Every QP back to RTS, whatever state the fuzzing left it in. */
static int act_recover(struct episode *e)
{
	int i, ret = 0;

	/* Whatever consumer index was written, the CQ starts empty again. */
	store_index(&e->cq_ring->consumer_index,
		    load_index(&e->cq_ring->producer_index));
	for (i = 0; i < NR_QP; i++)
		ret |= to_reset(e->qp[i]);
	ret |= fuzz_rc_connect(e->qp[RC0], e->qp[RC1]->qp_num, ACCESS_ALL);
	ret |= fuzz_rc_connect(e->qp[RC1], e->qp[RC0]->qp_num, ACCESS_ALL);
	ret |= ud_connect(e->qp[UD]);
	return ret;
}

static int act_poll(struct episode *e)
{
	poll_all(e);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(struct episode *e);
	unsigned int weight;
} actions[] = {
	{ "post_valid", act_post_valid, 8 },
	{ "publish_spoiled", act_publish_spoiled, 10 },
	{ "scribble_sq", act_scribble_sq, 4 },
	{ "sq_index", act_sq_index, 4 },
	{ "recv_valid", act_recv_valid, 6 },
	{ "recv_spoiled", act_recv_spoiled, 8 },
	{ "scribble_rq", act_scribble_rq, 3 },
	{ "cq_index", act_cq_index, 2 },
	{ "flush_race", act_flush_race, 2 },
	{ "resize_cq", act_resize_cq, 1 },
	{ "resize_srq", act_resize_srq, 1 },
	{ "recover", act_recover, 4 },
	{ "poll", act_poll, 4 },
};

static uint64_t act_calls[ARRAY_SIZE(actions)];
static uint64_t act_accepted[ARRAY_SIZE(actions)];

/* ---- episodes ----------------------------------------------------- */

static struct ibv_ah *self_ah(struct episode *e, struct ibv_pd *pd)
{
	struct ibv_ah_attr a = {
		.is_global = 1, .port_num = 1,
		.grh = { .sgid_index = FUZZ_GID_INDEX, .hop_limit = 64 },
	};

	if (ibv_query_gid(e->ctx, 1, FUZZ_GID_INDEX, &a.grh.dgid))
		return NULL;
	return ibv_create_ah(pd, &a);
}

/* A QP and its rings: the SQ has the larger elements. */
static void create_qp(struct episode *e, int qpi, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr init = {
		.send_cq = e->cq, .recv_cq = e->cq,
		.srq = qpi == RC1 ? e->srq : NULL,
		.qp_type = type,
		.cap = { .max_send_wr = SQ_WR, .max_recv_wr = RQ_WR,
			 .max_send_sge = MAX_SGE, .max_recv_sge = MAX_SGE,
			 .max_inline_data = MAX_INLINE },
	};
	struct rxe_queue_buf *ring[2];
	struct uverbs_maps before;
	int n;

	snapshot_maps(&before);
	e->qp[qpi] = ibv_create_qp(e->pd, &init);
	if (!e->qp[qpi])
		fuzz_die("cannot create a QP");
	n = uverbs_maps_new(&before, ring, 2);
	if (n != (init.srq ? 1 : 2))
		fuzz_die("the QP's rings are not among the uverbs mappings");
	if (n == 2 && ring[1]->log2_elem_size > ring[0]->log2_elem_size) {
		e->sq[qpi] = ring[1];
		e->rq[qpi] = ring[0];
	} else {
		e->sq[qpi] = ring[0];
		e->rq[qpi] = n == 2 ? ring[1] : NULL;
	}
}

/* The AH number librxe writes for @e->ah: read back from a UD send. */
static uint32_t learn_ah_num(struct episode *e)
{
	struct rxe_queue_buf *q = e->sq[UD];
	uint32_t prod = load_index(&q->producer_index);
	struct rxe_send_wqe *w = slot(q, prod);

	if (send_to(e, UD, 8))
		fuzz_die("cannot post a UD send");
	return w->wr.wr.ud.ah_num;
}

static void episode_setup(struct episode *e, struct ibv_device *dev)
{
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = RQ_WR, .max_sge = MAX_SGE },
	};
	struct uverbs_maps before;

	memset(e, 0, sizeof(*e));
	e->ctx = ibv_open_device(dev);
	if (!e->ctx)
		fuzz_die("cannot open the device");
	e->pd = ibv_alloc_pd(e->ctx);
	e->other_pd = ibv_alloc_pd(e->ctx);
	if (!e->pd || !e->other_pd)
		fuzz_die("cannot allocate PDs");
	e->mr = ibv_reg_mr(e->pd, mem, MEM_LEN, ACCESS_ALL);
	e->guard_mr = ibv_reg_mr(e->other_pd, mem + MEM_LEN, GUARD_LEN,
				 ACCESS_ALL);
	e->other_ah = self_ah(e, e->other_pd);
	e->ah = self_ah(e, e->pd);
	if (!e->mr || !e->guard_mr || !e->ah || !e->other_ah)
		fuzz_die("cannot register memory or create AHs");

	snapshot_maps(&before);
	e->cq = ibv_create_cq(e->ctx, CQ_CQE, NULL, NULL, 0);
	if (!e->cq)
		fuzz_die("cannot create the CQ");
	e->cq_ring = one_new_ring(&before);
	snapshot_maps(&before);
	e->srq = ibv_create_srq(e->pd, &sa);
	if (!e->srq)
		fuzz_die("cannot create the SRQ");
	e->srq_ring = one_new_ring(&before);
	create_qp(e, RC0, IBV_QPT_RC);
	create_qp(e, RC1, IBV_QPT_RC);
	create_qp(e, UD, IBV_QPT_UD);
	if (act_recover(e))
		fuzz_die("cannot connect the fuzzed QPs");
	e->ah_num = learn_ah_num(e);
}

/* Torn down with whatever the rings hold; the context goes last. */
static void episode_teardown(struct episode *e)
{
	int i;

	for (i = 0; i < NR_QP; i++)
		if (ibv_destroy_qp(e->qp[i]))
			fuzz_die("destroy_qp failed");
	if (ibv_destroy_srq(e->srq) || ibv_destroy_cq(e->cq) ||
	    ibv_destroy_ah(e->ah) || ibv_destroy_ah(e->other_ah) ||
	    ibv_dereg_mr(e->mr) || ibv_dereg_mr(e->guard_mr) ||
	    ibv_dealloc_pd(e->pd) || ibv_dealloc_pd(e->other_pd) ||
	    ibv_close_device(e->ctx))
		fuzz_die("teardown failed");
}

/* ---- checks ------------------------------------------------------- */

static void fill_guard(void)
{
	uint64_t *g = (uint64_t *)(mem + MEM_LEN);
	size_t i;

	for (i = 0; i < GUARD_LEN / 8; i++)
		g[i] = GUARD;
}

/* The guard is whole and none of it reached the QPs' MR; or why not. */
static const char *check_guard(void)
{
	const uint64_t *p = (const uint64_t *)mem;
	size_t i;

	for (i = 0; i < GUARD_LEN / 8; i++)
		if (p[MEM_LEN / 8 + i] != GUARD)
			return "memory of another PD was written";
	for (i = 0; i < MEM_LEN / 8; i++)
		if (p[i] == GUARD)
			return "memory of another PD was read into the QPs' MR";
	return NULL;
}

/* ---- main --------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr, "usage: ring_fuzz -d DEV [-s SEED] [-n ACTIONS] [-e PER_EPISODE] [-T SECS]\n");
	exit(2);
}

static void print_stats(uint64_t episodes)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(actions); i++)
		printf("ring_fuzz: %-16s %8" PRIu64 " calls, %8" PRIu64 " accepted\n",
		       actions[i].name, act_calls[i], act_accepted[i]);
	printf("ring_fuzz: %" PRIu64 " episodes; completions:", episodes);
	for (i = 0; i < ARRAY_SIZE(statuses); i++)
		if (statuses[i])
			printf(" %s %" PRIu64, i < ARRAY_SIZE(statuses) - 1 ?
			       ibv_wc_status_str(i) : "(out of range)",
			       statuses[i]);
	printf("\n");
}

int main(int argc, char **argv)
{
	struct fuzz_traffic t = { 0 };
	uint64_t done = 0, episodes = 0, end;
	struct ibv_device *dev;
	const char *broken = NULL;
	struct episode e;
	pthread_t tt;
	unsigned int a;

	if (!fuzz_parse(argc, argv, &opt) || optind != argc)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ring_fuzz: seed %" PRIu64 ", %" PRIu64 " actions, %u per episode, device %s\n",
	       opt.seed, opt.count, opt.own, opt.dev);
	fuzz_rng_init(&rng, opt.seed, 0);
	dev = fuzz_find_device(opt.dev);
	if (!dev)
		fuzz_die("no such device");
	mem = mmap(NULL, MEM_LEN + GUARD_LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		fuzz_die("cannot map memory");
	fill_guard();

	fuzz_traffic_setup(&t, dev);
	if (pthread_create(&tt, NULL, fuzz_traffic_main, &t))
		fuzz_die("pthread_create failed");

	end = fuzz_now_ns() + (uint64_t)opt.secs * 1000000000ull;
	while (done < opt.count && !t.error && !broken) {
		if (fuzz_now_ns() > end) {
			printf("ring_fuzz: stopped after %u s\n", opt.secs);
			break;
		}
		episode_setup(&e, dev);
		for (a = 0; a < opt.own && done < opt.count; a++) {
			unsigned int i = fuzz_pick(&rng, &actions[0].weight,
						   ARRAY_SIZE(actions),
						   sizeof(actions[0]));

			act_calls[i]++;
			act_accepted[i] += !actions[i].fn(&e);
			done++;
		}
		/* Let in-flight work land before it is judged. */
		usleep(20000);
		poll_all(&e);
		episode_teardown(&e);
		episodes++;
		broken = check_guard();
		if (episodes % 20 == 0)
			printf("ring_fuzz: %" PRIu64 " actions, %" PRIu64 " transfers checked\n",
			       done, t.done);
	}
	t.stop = 1;
	pthread_join(tt, NULL);
	print_stats(episodes);
	fuzz_traffic_after(&t, 16);
	printf("ring_fuzz: %" PRIu64 " actions, %" PRIu64 " transfers checked, seed %" PRIu64 "\n",
	       done, t.done, opt.seed);
	if (broken || t.error || !t.done || done < opt.count) {
		printf("ring_fuzz: FAIL: %s\n", broken ? broken :
		       t.error ? t.error : !t.done ? "no transfer completed" :
		       "the run did not finish in time");
		return 1;
	}
	printf("ring_fuzz: PASS\n");
	fuzz_traffic_release(&t);
	return 0;
}
