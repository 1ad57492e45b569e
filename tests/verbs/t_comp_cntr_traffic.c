// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion counters over real traffic: which side counts which
 * operation, what BYTES counters add, unsignaled requests, errors, one
 * counter on many QPs, and the ordering promise (when a counter shows N,
 * the data of those N operations is in memory).
 *
 * Two RC QPs, A and B, are connected to each other on one device.  Each
 * side gets one counter per operation bit, so every test can say exactly
 * which of the twelve values moved.  Needs the data path: the guest runs
 * it only with RXC_DATA_PATH=1.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cntr_ioctl.h"
#include "fixture.h"

#define NBITS	6

/* The operation bits in order; index i counts bit 1 << i. */
enum { SEND, RECV, READ, REMOTE_READ, WRITE, REMOTE_WRITE };

struct side {
	struct loop l;
	struct cntr c[NBITS];
	bool made[NBITS];
};

struct pair {
	struct side a, b;
};

static void side_free(struct test_env *env, struct side *s)
{
	int i;

	loop_destroy(&s->l);
	for (i = 0; i < NBITS; i++)
		if (s->made[i])
			CHECK_OK(cntr_destroy(env->ctx, &s->c[i]));
}

/* A QP in RESET with one counter of @type per operation bit attached. */
static bool side_make(struct test_env *env, struct side *s, int type)
{
	int i;

	if (!loop_create(env, &s->l, IBV_QPT_RC, ALL_ACCESS))
		return false;
	for (i = 0; i < NBITS; i++) {
		if (!CHECK_OK(cntr_create_ex(env->ctx, &s->c[i], type, NULL,
					     NULL)))
			return false;
		s->made[i] = true;
		if (!CHECK_OK(qp_attach(env->ctx, s->l.qp, &s->c[i], 1u << i)))
			return false;
	}
	return true;
}

/* A and B, counters attached, connected to each other in RTS. */
static bool pair_make(struct test_env *env, struct pair *p, int type)
{
	memset(p, 0, sizeof(*p));
	if (!side_make(env, &p->a, type) || !side_make(env, &p->b, type))
		goto err;
	if (CHECK_OK(qp_to_init(p->a.l.qp)) && CHECK_OK(qp_to_init(p->b.l.qp)) &&
	    CHECK_OK(qp_to_rtr(env, p->a.l.qp, p->b.l.qp->qp_num)) &&
	    CHECK_OK(qp_to_rtr(env, p->b.l.qp, p->a.l.qp->qp_num)) &&
	    CHECK_OK(qp_to_rts(p->a.l.qp)) && CHECK_OK(qp_to_rts(p->b.l.qp)))
		return true;
err:
	side_free(env, &p->a);
	side_free(env, &p->b);
	return false;
}

static void pair_free(struct test_env *env, struct pair *p)
{
	side_free(env, &p->a);
	side_free(env, &p->b);
}

static void pair_zero(struct test_env *env, struct pair *p)
{
	int i;

	for (i = 0; i < NBITS; i++) {
		CHECK_OK(cntr_modify(env->ctx, &p->a.c[i], ENTRY_COMP, OP_SET, 0));
		CHECK_OK(cntr_modify(env->ctx, &p->b.c[i], ENTRY_COMP, OP_SET, 0));
	}
}

/*
 * Every completion value of @s equals @want (waiting up to the test
 * timeout for non-zero ones: the remote side counts when it has placed
 * or answered, not when the initiator sees its completion), and no error
 * value moved.
 */
static void side_expect(struct test_env *env, struct side *s, const char *who,
			const uint64_t want[NBITS])
{
	uint64_t v;
	int i;

	for (i = 0; i < NBITS; i++) {
		if (want[i])
			cntr_wait(env->ctx, &s->c[i], want[i], NULL,
				  TEST_TIMEOUT_MS, NULL, NULL);
		CHECK_OK(cntr_read(env->ctx, &s->c[i], ENTRY_COMP, &v));
		CHECK(v == want[i], "%s bit %d: %llu, expected %llu", who, i,
		      (unsigned long long)v, (unsigned long long)want[i]);
		CHECK_OK(cntr_read(env->ctx, &s->c[i], ENTRY_ERR, &v));
		CHECK(v == 0, "%s bit %d: %llu errors", who, i,
		      (unsigned long long)v);
	}
}

static int post_recv(struct loop *l, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)l->dst, len, l->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(l->qp, &wr, &bad);
}

/* One request from A to B of @len bytes, signaled if @sig. */
static int post_op(struct pair *p, enum ibv_wr_opcode op, uint32_t len,
		   bool sig)
{
	struct ibv_sge sge = { (uintptr_t)p->a.l.src, len, p->a.l.mr->lkey };
	struct ibv_send_wr wr = {
		.opcode = op, .sg_list = &sge, .num_sge = 1,
		.send_flags = sig ? IBV_SEND_SIGNALED : 0,
	}, *bad;

	switch (op) {
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		sge.length = 8;
		wr.wr.atomic.remote_addr = (uintptr_t)p->b.l.dst;
		wr.wr.atomic.rkey = p->b.l.mr->rkey;
		wr.wr.atomic.compare_add = 1;
		break;
	case IBV_WR_RDMA_READ:
		sge.addr = (uintptr_t)p->a.l.dst;
		/* fallthrough */
	default:
		wr.wr.rdma.remote_addr = (uintptr_t)p->b.l.dst;
		wr.wr.rdma.rkey = p->b.l.mr->rkey;
		break;
	}
	return ibv_post_send(p->a.l.qp, &wr, &bad);
}

struct op_case {
	const char *name;
	enum ibv_wr_opcode op;
	bool recv;		/* consumes a receive on B */
	int a_bit, b_bit;	/* counted on A and on B */
};

static const struct op_case op_cases[] = {
	{ "send", IBV_WR_SEND, true, SEND, RECV },
	{ "send_with_imm", IBV_WR_SEND_WITH_IMM, true, SEND, RECV },
	{ "rdma_write", IBV_WR_RDMA_WRITE, false, WRITE, REMOTE_WRITE },
	{ "rdma_write_with_imm", IBV_WR_RDMA_WRITE_WITH_IMM, true, WRITE,
	  REMOTE_WRITE },
	{ "rdma_read", IBV_WR_RDMA_READ, false, READ, REMOTE_READ },
	{ "fetch_and_add", IBV_WR_ATOMIC_FETCH_AND_ADD, false, READ,
	  REMOTE_WRITE },
	{ "cmp_and_swp", IBV_WR_ATOMIC_CMP_AND_SWP, false, READ,
	  REMOTE_WRITE },
};

/*
 * Each operation moves exactly the initiator's bit on A and the target's
 * on B (plus B's RECV for a write with immediate), by one.
 */
static void every_op_type_counts_on_the_right_side(struct test_env *env)
{
	struct ibv_wc wc;
	struct pair p;
	unsigned int i;

	if (!pair_make(env, &p, RXC_COMP_CNTR_TYPE_WRS))
		return;
	for (i = 0; i < ARRAY_SIZE(op_cases); i++) {
		const struct op_case *c = &op_cases[i];
		uint64_t wa[NBITS] = {}, wb[NBITS] = {};

		printf("# %s\n", c->name);
		pair_zero(env, &p);
		if (c->recv && !CHECK_OK(post_recv(&p.b.l, HALF)))
			break;
		if (!CHECK_OK(post_op(&p, c->op, 64, true)))
			break;
		if (!CHECK_EQ(poll_cq_wait(p.a.l.scq, &wc, 1), 1) ||
		    !CHECK_EQ(wc.status, IBV_WC_SUCCESS))
			break;
		if (c->recv)
			CHECK_EQ(poll_cq_wait(p.b.l.rcq, &wc, 1), 1);
		wa[c->a_bit] = 1;
		wb[c->b_bit] = 1;
		if (c->recv)
			wb[RECV] = 1;
		side_expect(env, &p.a, "A", wa);
		side_expect(env, &p.b, "B", wb);
	}
	pair_free(env, &p);
}

/* BYTES: the message length on both sides; 8 for an atomic. */
static void bytes_counters_add_message_lengths(struct test_env *env)
{
	uint64_t wa[NBITS] = {}, wb[NBITS] = {};
	struct ibv_wc wc;
	struct pair p;

	if (!pair_make(env, &p, RXC_COMP_CNTR_TYPE_BYTES))
		return;
	if (CHECK_OK(post_recv(&p.b.l, HALF)) &&
	    CHECK_OK(post_op(&p, IBV_WR_SEND, 3000, true)) &&
	    CHECK_OK(post_op(&p, IBV_WR_RDMA_WRITE, 1000, true)) &&
	    CHECK_OK(post_op(&p, IBV_WR_RDMA_READ, 500, true)) &&
	    CHECK_OK(post_op(&p, IBV_WR_ATOMIC_FETCH_AND_ADD, 8, true)) &&
	    CHECK_EQ(poll_cq_wait(p.a.l.scq, (struct ibv_wc[4]){}, 4), 4) &&
	    CHECK_EQ(poll_cq_wait(p.b.l.rcq, &wc, 1), 1)) {
		wa[SEND] = 3000;
		wa[WRITE] = 1000;
		wa[READ] = 500 + 8;
		wb[RECV] = 3000;
		wb[REMOTE_WRITE] = 1000 + 8;
		wb[REMOTE_READ] = 500;
		side_expect(env, &p.a, "A", wa);
		side_expect(env, &p.b, "B", wb);
	}
	pair_free(env, &p);
}

/* Unsignaled requests count like signaled ones. */
static void unsignaled_work_requests_are_counted(struct test_env *env)
{
	uint64_t wa[NBITS] = {}, wb[NBITS] = {};
	struct ibv_wc wc;
	struct pair p;
	int i;

	if (!pair_make(env, &p, RXC_COMP_CNTR_TYPE_WRS))
		return;
	for (i = 0; i < 10; i++)
		if (!CHECK_OK(post_op(&p, IBV_WR_RDMA_WRITE, 64, false)))
			goto out;
	if (CHECK_OK(post_op(&p, IBV_WR_RDMA_WRITE, 64, true)) &&
	    CHECK_EQ(poll_cq_wait(p.a.l.scq, &wc, 1), 1)) {
		wa[WRITE] = 11;
		wb[REMOTE_WRITE] = 11;
		side_expect(env, &p.a, "A", wa);
		side_expect(env, &p.b, "B", wb);
	}
out:
	pair_free(env, &p);
}

/*
 * A write to a bad rkey fails: one error on A's WRITE counter, no
 * completion.  The QP is then in error and what was posted behind it
 * flushes, one more error each.
 */
static void errors_and_flushes_add_to_the_error_value(struct test_env *env)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED,
				  .sg_list = &sge, .num_sge = 1 }, *bad;
	struct ibv_wc wc[3];
	uint64_t v;
	struct pair p;

	if (!pair_make(env, &p, RXC_COMP_CNTR_TYPE_WRS))
		return;
	sge = (struct ibv_sge){ (uintptr_t)p.a.l.src, 64, p.a.l.mr->lkey };
	wr.wr.rdma.remote_addr = (uintptr_t)p.b.l.dst;
	wr.wr.rdma.rkey = p.b.l.mr->rkey ^ 0x5a5a00;
	if (CHECK_OK(ibv_post_send(p.a.l.qp, &wr, &bad)) &&
	    CHECK_OK(post_op(&p, IBV_WR_RDMA_WRITE, 64, true)) &&
	    CHECK_OK(post_op(&p, IBV_WR_RDMA_WRITE, 64, true)) &&
	    CHECK_EQ(poll_cq_wait(p.a.l.scq, wc, 3), 3)) {
		CHECK_EQ(wc[0].status, IBV_WC_REM_ACCESS_ERR);
		CHECK_EQ(wc[1].status, IBV_WC_WR_FLUSH_ERR);
		CHECK_OK(cntr_read(env->ctx, &p.a.c[WRITE], ENTRY_ERR, &v));
		CHECK_EQ(v, 3);
		CHECK_OK(cntr_read(env->ctx, &p.a.c[WRITE], ENTRY_COMP, &v));
		CHECK_EQ(v, 0);
	}
	pair_free(env, &p);
}

/* One counter on two QPs adds up both. */
static void one_counter_on_two_qps_accumulates(struct test_env *env)
{
	struct loop a, b;
	struct cntr c;
	struct ibv_wc wc;
	uint64_t v;

	if (!CHECK_OK(cntr_create_ex(env->ctx, &c, -1, NULL, NULL)))
		return;
	if (!loop_create(env, &a, IBV_QPT_RC, ALL_ACCESS))
		goto out;
	if (!loop_create(env, &b, IBV_QPT_RC, ALL_ACCESS))
		goto out_a;
	if (CHECK_OK(qp_attach(env->ctx, a.qp, &c, OP_WRITE)) &&
	    CHECK_OK(qp_attach(env->ctx, b.qp, &c, OP_WRITE)) &&
	    CHECK_OK(qp_to_init(a.qp)) && CHECK_OK(qp_to_init(b.qp)) &&
	    CHECK_OK(qp_to_rtr(env, a.qp, b.qp->qp_num)) &&
	    CHECK_OK(qp_to_rtr(env, b.qp, a.qp->qp_num)) &&
	    CHECK_OK(qp_to_rts(a.qp)) && CHECK_OK(qp_to_rts(b.qp))) {
		struct pair ab = { .a.l = a, .b.l = b }, ba = { .a.l = b, .b.l = a };

		if (CHECK_OK(post_op(&ab, IBV_WR_RDMA_WRITE, 64, true)) &&
		    CHECK_OK(post_op(&ba, IBV_WR_RDMA_WRITE, 64, true)) &&
		    CHECK_EQ(poll_cq_wait(a.scq, &wc, 1), 1) &&
		    CHECK_EQ(poll_cq_wait(b.scq, &wc, 1), 1)) {
			CHECK_OK(cntr_read(env->ctx, &c, ENTRY_COMP, &v));
			CHECK_EQ(v, 2);
		}
	}
	loop_destroy(&b);
out_a:
	loop_destroy(&a);
out:
	CHECK_OK(cntr_destroy(env->ctx, &c));
}

#define STRESS_N	256
#define SLOT		16

struct reader {
	volatile uint64_t *count;	/* B's REMOTE_WRITE value, in user memory */
	volatile unsigned char *dst;	/* where the writes land */
	int bad;
	bool stop;
};

/* Whenever the count moves to n, slots 0..n-1 must hold their data. */
static void *read_loop(void *arg)
{
	struct reader *r = arg;
	uint64_t seen = 0, n, i;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE) && seen < STRESS_N) {
		n = __atomic_load_n(r->count, __ATOMIC_ACQUIRE);
		if (n == seen)
			continue;
		for (i = seen; i < n && i < STRESS_N; i++)
			if (r->dst[i * SLOT] != (unsigned char)(i + 1))
				r->bad++;
		seen = n;
	}
	return NULL;
}

/*
 * Ordering: B's REMOTE_WRITE counter lives in B's own memory; a reader
 * thread watches it while A writes STRESS_N messages, each into its own
 * slot.  Every time the count moves, the slots it covers are checked.
 */
static void count_never_runs_ahead_of_the_data(struct test_env *env)
{
	struct ib_uverbs_buffer_desc d;
	struct reader r = {};
	volatile uint64_t *mem;
	struct ibv_wc wc;
	struct loop a, b;
	struct cntr c;
	pthread_t t;
	int i;

	mem = aligned_alloc(64, 64);
	if (!CHECK(mem != NULL, "no memory"))
		return;
	d = (struct ib_uverbs_buffer_desc){ .type = IB_UVERBS_BUFFER_TYPE_VA,
					    .fd = -1, .addr = (uintptr_t)mem,
					    .length = 8 };
	if (!CHECK_OK(cntr_create_ex(env->ctx, &c, -1, &d, NULL)))
		goto out_mem;
	if (!loop_create(env, &a, IBV_QPT_RC, ALL_ACCESS))
		goto out_cntr;
	if (!loop_create(env, &b, IBV_QPT_RC, ALL_ACCESS))
		goto out_a;
	memset(b.dst, 0, HALF);
	for (i = 0; i < STRESS_N; i++)
		a.src[i * SLOT] = (char)(i + 1);
	r.count = mem;
	r.dst = (unsigned char *)b.dst;
	if (!CHECK_OK(qp_attach(env->ctx, b.qp, &c, OP_REMOTE_WRITE)) ||
	    !CHECK_OK(qp_to_init(a.qp)) || !CHECK_OK(qp_to_init(b.qp)) ||
	    !CHECK_OK(qp_to_rtr(env, a.qp, b.qp->qp_num)) ||
	    !CHECK_OK(qp_to_rtr(env, b.qp, a.qp->qp_num)) ||
	    !CHECK_OK(qp_to_rts(a.qp)) || !CHECK_OK(qp_to_rts(b.qp)) ||
	    !CHECK_OK(pthread_create(&t, NULL, read_loop, &r)))
		goto out_b;
	for (i = 0; i < STRESS_N; i++) {
		struct ibv_sge sge = { (uintptr_t)&a.src[i * SLOT], SLOT,
				       a.mr->lkey };
		struct ibv_send_wr wr = {
			.opcode = IBV_WR_RDMA_WRITE, .sg_list = &sge,
			.num_sge = 1,
			/* Signal every 16th to keep the send queue drained. */
			.send_flags = i % 16 == 15 ? IBV_SEND_SIGNALED : 0,
			.wr.rdma = { (uintptr_t)&b.dst[i * SLOT], b.mr->rkey },
		}, *bad;

		if (!CHECK_OK(ibv_post_send(a.qp, &wr, &bad)))
			break;
		if (wr.send_flags && !CHECK_EQ(poll_cq_wait(a.scq, &wc, 1), 1))
			break;
	}
	CHECK_OK(cntr_wait(env->ctx, &c, STRESS_N, NULL, TEST_TIMEOUT_MS,
			   NULL, NULL));
	__atomic_store_n(&r.stop, true, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	CHECK_EQ(*mem, STRESS_N);
	CHECK_EQ(r.bad, 0);
out_b:
	loop_destroy(&b);
out_a:
	loop_destroy(&a);
out_cntr:
	CHECK_OK(cntr_destroy(env->ctx, &c));
out_mem:
	free((void *)mem);
}

static const struct test_case tests[] = {
	TEST_CASE(every_op_type_counts_on_the_right_side),
	TEST_CASE(bytes_counters_add_message_lengths),
	TEST_CASE(unsignaled_work_requests_are_counted),
	TEST_CASE(errors_and_flushes_add_to_the_error_value),
	TEST_CASE(one_counter_on_two_qps_accumulates),
	TEST_CASE(count_never_runs_ahead_of_the_data),
};

int main(int argc, char **argv)
{
	return run_suite("comp_cntr_traffic", argc, argv, tests,
			 ARRAY_SIZE(tests));
}
