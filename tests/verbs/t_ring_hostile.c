// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Hostile ring contents: user space owns the producer index of its work
 * queues and may write anything there at any time.  The kernel must read
 * it once per decision and survive every value.  The send queue is found
 * among the process's mappings (rings.h); the QPs here have one each.
 */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <rdma/rdma_user_rxe.h>

#include "fixture.h"
#include "rings.h"

#define SQ_WR		255	/* a 256-slot ring: the largest new mapping */
#define FLUSH_ROUNDS	20

/* The send queue of a QP created after @before was taken, or NULL. */
static struct rxe_queue_buf *find_sq(const struct uverbs_maps *before)
{
	struct rxe_queue_buf *ring[2];
	int n = uverbs_maps_new(before, ring, 2);

	if (n == 2 && ring[1]->index_mask > ring[0]->index_mask)
		return ring[1];
	return n ? ring[0] : NULL;
}

struct racer {
	struct rxe_queue_buf *sq;
	atomic_bool running;
	atomic_bool stop;
};

/*
 * Until told to stop, makes the ring look empty (producer = consumer)
 * and full by turns, following the consumer index as the flush moves it.
 */
static void *race_producer(void *arg)
{
	struct racer *r = arg;
	uint32_t i = 0, cons;

	while (!atomic_load(&r->stop)) {
		cons = __atomic_load_n(&r->sq->consumer_index,
				       __ATOMIC_ACQUIRE);
		__atomic_store_n(&r->sq->producer_index,
				 (cons + (i++ & 1) * SQ_WR) & SQ_WR,
				 __ATOMIC_RELEASE);
		atomic_store(&r->running, true);
	}
	return NULL;
}

/* Drains @cq; false if a completion is anything but a flush. */
static bool only_flushes(struct ibv_cq *cq, int *n)
{
	struct ibv_wc wc[16];
	int i, got;

	while ((got = ibv_poll_cq(cq, 16, wc)) > 0) {
		for (i = 0; i < got; i++)
			if (!CHECK(wc[i].status == IBV_WC_WR_FLUSH_ERR,
				   "wr_id %" PRIu64 ": status %s",
				   wc[i].wr_id,
				   ibv_wc_status_str(wc[i].status)))
				return false;
		*n += got;
	}
	return CHECK(got == 0, "ibv_poll_cq failed");
}

/*
 * A flush must not re-read the producer index as it goes: a process that
 * moves it back meanwhile once made the kernel dereference NULL with the
 * queue's lock held.  Each round moves a QP with a full-looking send
 * queue to ERR while another thread rewinds and restores the index.
 */
static void flush_survives_a_producer_index_moving_back(struct test_env *env)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = SQ_WR, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct racer r = {};
	struct uverbs_maps before;
	struct ibv_qp *qp = NULL;
	pthread_t thread;
	int round, flushed = 0;

	/* Every round may flush the whole ring: the CQ takes them all. */
	attr.send_cq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, SQ_WR + 1, NULL,
						    NULL, 0));
	attr.recv_cq = attr.send_cq;
	if (!attr.send_cq)
		return;
	CHECK_OK(uverbs_maps_read(&before));
	qp = CHECK_NOT_NULL(ibv_create_qp(env->pd, &attr));
	if (!qp)
		goto out;
	r.sq = find_sq(&before);
	if (!CHECK(r.sq && r.sq->index_mask == SQ_WR,
		   "no %d-slot send queue among the new uverbs mappings",
		   SQ_WR + 1))
		goto out;

	for (round = 0; round < FLUSH_ROUNDS; round++) {
		/* Core allows ERR from INIT, not from RESET. */
		if (!CHECK_OK(qp_to_state(qp, IBV_QPS_RESET)) ||
		    !CHECK_OK(qp_to_init(qp)))
			break;
		atomic_store(&r.stop, false);
		atomic_store(&r.running, false);
		if (!CHECK_OK(pthread_create(&thread, NULL, race_producer, &r)))
			break;
		/* The ring must already be moving when the flush starts. */
		while (!atomic_load(&r.running))
			sched_yield();
		CHECK_OK(qp_to_state(qp, IBV_QPS_ERR));
		sleep_ms(20);
		atomic_store(&r.stop, true);
		pthread_join(thread, NULL);
		sleep_ms(20);
		if (!only_flushes(attr.send_cq, &flushed))
			break;
	}
	CHECK(flushed > 0, "no round flushed anything");
	CHECK_EQ(query_qp_state(qp), IBV_QPS_ERR);
out:
	if (qp)
		CHECK_OK(ibv_destroy_qp(qp));
	CHECK_OK(ibv_destroy_cq(attr.send_cq));
}

/* Posts @n (at most 4) sends in one call: one doorbell, one fetch. */
static int post_sends(struct ibv_qp *qp, struct ibv_mr *mr, char *buf, int n)
{
	struct ibv_sge sge = { (uintptr_t)buf, 8, mr->lkey };
	struct ibv_send_wr wr[4] = {}, *bad;
	int i;

	for (i = 0; i < n; i++) {
		wr[i].opcode = IBV_WR_SEND;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	return ibv_post_send(qp, wr, &bad);
}

/*
 * A producer index moved back among WQEs the kernel has taken posts
 * nothing: the fetch once ran round the ring from its own position to
 * the new index, sending every stale slot and parsing in-flight WQEs
 * again.  Three sends posted with one doorbell are taken together and
 * stay in flight (no receive is posted, RNR retries are unlimited and
 * half a second apart), so a correct fetch sends almost nothing more,
 * while the old one sent a window's worth once the RNR wait ended.
 */
static void fetch_ignores_a_producer_index_moved_back(struct test_env *env)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = SQ_WR, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr rnr = { .min_rnr_timer = 31 };	/* 491 ms */
	static char buf[64];
	struct rxe_queue_buf *sq;
	struct uverbs_maps before;
	struct ibv_qp *qp = NULL;
	struct ibv_mr *mr;
	long long sent;
	uint32_t cons;

	attr.send_cq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, SQ_WR + 1, NULL,
						    NULL, 0));
	attr.recv_cq = attr.send_cq;
	mr = CHECK_NOT_NULL(ibv_reg_mr(env->pd, buf, sizeof(buf), 0));
	if (!attr.send_cq || !mr)
		goto out;
	CHECK_OK(uverbs_maps_read(&before));
	qp = CHECK_NOT_NULL(ibv_create_qp(env->pd, &attr));
	sq = qp ? find_sq(&before) : NULL;
	if (!CHECK(sq && sq->index_mask == SQ_WR, "no send queue found") ||
	    !CHECK_OK(qp_connect_self(env, qp)) ||
	    !CHECK_OK(ibv_modify_qp(qp, &rnr, IBV_QP_MIN_RNR_TIMER)) ||
	    !CHECK_OK(post_sends(qp, mr, buf, 3)))
		goto out;
	sleep_ms(100);

	sent = port_counter(env, "sent_packets");
	if (!CHECK(sent >= 0, "no sent_packets counter"))
		goto out;
	cons = __atomic_load_n(&sq->consumer_index, __ATOMIC_ACQUIRE);
	__atomic_store_n(&sq->producer_index, (cons + 1) & SQ_WR,
			 __ATOMIC_RELEASE);
	/* Written at the moved index, then the doorbell. */
	CHECK_OK(post_sends(qp, mr, buf, 1));
	sleep_ms(1200);
	/* A few RNR retries of the three sends at most. */
	CHECK(port_counter(env, "sent_packets") - sent < 64,
	      "%lld packets sent after the index moved back",
	      port_counter(env, "sent_packets") - sent);
out:
	if (qp)
		CHECK_OK(ibv_destroy_qp(qp));
	if (mr)
		CHECK_OK(ibv_dereg_mr(mr));
	if (attr.send_cq)
		CHECK_OK(ibv_destroy_cq(attr.send_cq));
}

static const struct test_case tests[] = {
	TEST_CASE(flush_survives_a_producer_index_moving_back),
	TEST_CASE(fetch_ignores_a_producer_index_moved_back),
};

int main(int argc, char **argv)
{
	return run_suite("ring_hostile", argc, argv, tests, ARRAY_SIZE(tests));
}
