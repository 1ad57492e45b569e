// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * librxc's API contract against a device: every errno the library and
 * the kernel give today, values read through the pointers agreeing with
 * ibv_read_comp_cntr(), and the direct verbs: counter memory in user VA,
 * WAIT and NOTIFY.  rxc has them all; EOPNOTSUPP from any is a failure.
 *
 *   t_api <device>        RXC_NO_COUNTERS=1: the device has no counters
 *                         (rdma_rxe); only that answer is checked.
 */
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <infiniband/rxcdv.h>

#include "fixture.h"

#define ALL_OPS		0x3fu
#define OP_SEND		IBV_QP_ATTACH_COMP_CNTR_OP_SEND
#define OP_RECV		IBV_QP_ATTACH_COMP_CNTR_OP_RECV
#define OP_WRITE	IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE

static struct ibv_comp_cntr *new_cntr(struct test_env *env,
				      enum ibv_comp_cntr_type type)
{
	struct ibv_comp_cntr_init_attr attr = { .type = type };

	return CHECK_NOT_NULL(ibv_create_comp_cntr(env->ctx, &attr));
}

static uint64_t comp_of(struct ibv_comp_cntr *c)
{
	uint64_t v = ~0ull;

	CHECK_OK(ibv_read_comp_cntr(c, &v));
	return v;
}

static uint64_t err_of(struct ibv_comp_cntr *c)
{
	uint64_t v = ~0ull;

	CHECK_OK(ibv_read_err_comp_cntr(c, &v));
	return v;
}

/* An RC QP in RESET with its own CQ; NULL with a failure recorded. */
static struct ibv_qp *new_qp(struct test_env *env, struct ibv_cq **cq)
{
	struct ibv_qp *qp;

	*cq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 16, NULL, NULL, 0));
	if (!*cq)
		return NULL;
	qp = CHECK_NOT_NULL(create_test_qp(env, IBV_QPT_RC, *cq, NULL));
	if (!qp)
		ibv_destroy_cq(*cq);
	return qp;
}

static void free_qp(struct ibv_qp *qp, struct ibv_cq *cq)
{
	CHECK_OK(ibv_destroy_qp(qp));
	CHECK_OK(ibv_destroy_cq(cq));
}

static int attach(struct ibv_qp *qp, struct ibv_comp_cntr *c, uint32_t mask)
{
	struct ibv_qp_attach_comp_cntr_attr attr = { .op_mask = mask };

	return ibv_qp_attach_comp_cntr(qp, c, &attr);
}

static void caps_report_all_six_ops_and_the_limits(struct test_env *env)
{
	struct ibv_comp_cntr_caps caps;

	memset(&caps, 0xff, sizeof(caps));
	if (!CHECK_OK(ibv_query_comp_cntr_caps(env->ctx, &caps)))
		return;
	CHECK_EQ(caps.supported_qp_attach_ops, ALL_OPS);
	CHECK_GE(caps.max_counters, 1);
	CHECK(caps.max_value >= 0xffffffffull, "max_value %#llx",
	      (unsigned long long)caps.max_value);
	/* max_value + 1 is a power of two: wrapping is a modulo. */
	CHECK((caps.max_value & (caps.max_value + 1)) == 0,
	      "max_value %#llx", (unsigned long long)caps.max_value);
}

static void query_caps_fails_with_einval_for_a_short_size(
	struct test_env *env)
{
	struct ibv_comp_cntr_caps caps;

	CHECK_RC(_ibv_query_comp_cntr_caps(env->ctx, &caps, 12), EINVAL);
	CHECK_RC(_ibv_query_comp_cntr_caps(env->ctx, NULL, sizeof(caps)),
		 EINVAL);
}

static void create_and_destroy_wrs_and_bytes_counters(struct test_env *env)
{
	enum ibv_comp_cntr_type types[] = {
		IBV_COMP_CNTR_TYPE_WRS, IBV_COMP_CNTR_TYPE_BYTES,
	};
	struct rxcdv_comp_cntr_attr attr;
	struct ibv_comp_cntr *c;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		c = new_cntr(env, types[i]);
		if (!c)
			continue;
		CHECK(c->context == env->ctx, "context not set");
		if (CHECK_OK(rxcdv_query_comp_cntr(c, &attr, sizeof(attr)))) {
			CHECK_EQ(attr.type, types[i]);
			CHECK(attr.comp_count && attr.err_count,
			      "driver memory not mapped");
		}
		CHECK_EQ(comp_of(c), 0);
		CHECK_EQ(err_of(c), 0);
		CHECK_OK(ibv_destroy_comp_cntr(c));
	}
}

static void create_fails_for_bad_attributes(struct test_env *env)
{
	struct ibv_comp_cntr_init_attr attr = {};
	struct ibv_comp_cntr *c;

	attr.comp_mask = 1;
	c = CHECK_NULL_ERRNO(ibv_create_comp_cntr(env->ctx, &attr),
			     EOPNOTSUPP);
	if (c)
		ibv_destroy_comp_cntr(c);
	attr.comp_mask = 0;
	attr.flags = 1;
	c = CHECK_NULL_ERRNO(ibv_create_comp_cntr(env->ctx, &attr), EINVAL);
	if (c)
		ibv_destroy_comp_cntr(c);
	attr.flags = 0;
	attr.type = (enum ibv_comp_cntr_type)2;
	c = CHECK_NULL_ERRNO(ibv_create_comp_cntr(env->ctx, &attr), EINVAL);
	if (c)
		ibv_destroy_comp_cntr(c);
	c = CHECK_NULL_ERRNO(ibv_create_comp_cntr(env->ctx, NULL), EINVAL);
	if (c)
		ibv_destroy_comp_cntr(c);
}

static void verbs_fail_with_einval_for_null_arguments(struct test_env *env)
{
	struct ibv_comp_cntr *c = new_cntr(env, IBV_COMP_CNTR_TYPE_WRS);
	struct rxcdv_comp_cntr_wait_attr w = {};
	uint64_t v;

	CHECK_RC(ibv_destroy_comp_cntr(NULL), EINVAL);
	CHECK_RC(ibv_set_comp_cntr(NULL, 1), EINVAL);
	CHECK_RC(ibv_inc_err_comp_cntr(NULL, 1), EINVAL);
	CHECK_RC(ibv_read_comp_cntr(NULL, &v), EINVAL);
	CHECK_RC(rxcdv_wait_comp_cntr(NULL, &w, sizeof(w)), EINVAL);
	CHECK_ERRNO(rxcdv_get_comp_cntr_fd(NULL), EINVAL);
	if (!c)
		return;
	CHECK_RC(ibv_read_err_comp_cntr(c, NULL), EINVAL);
	CHECK_RC(ibv_qp_attach_comp_cntr(NULL, c, NULL), EINVAL);
	CHECK_OK(ibv_destroy_comp_cntr(c));
}

static void set_inc_and_read_address_one_value_each(struct test_env *env)
{
	struct ibv_comp_cntr *c = new_cntr(env, IBV_COMP_CNTR_TYPE_WRS);

	if (!c)
		return;
	CHECK_OK(ibv_set_comp_cntr(c, 5));
	CHECK_OK(ibv_inc_comp_cntr(c, 3));
	CHECK_EQ(comp_of(c), 8);
	CHECK_EQ(err_of(c), 0);
	CHECK_OK(ibv_set_err_comp_cntr(c, 100));
	CHECK_OK(ibv_inc_err_comp_cntr(c, 1));
	CHECK_EQ(err_of(c), 101);
	CHECK_EQ(comp_of(c), 8);
	CHECK_OK(ibv_destroy_comp_cntr(c));
}

static void inc_wraps_modulo_max_value_plus_one(struct test_env *env)
{
	struct ibv_comp_cntr *c = new_cntr(env, IBV_COMP_CNTR_TYPE_WRS);
	struct ibv_comp_cntr_caps caps;

	if (!c)
		return;
	if (CHECK_OK(ibv_query_comp_cntr_caps(env->ctx, &caps))) {
		CHECK_OK(ibv_set_comp_cntr(c, caps.max_value));
		CHECK_OK(ibv_inc_comp_cntr(c, 2));
		CHECK_EQ(comp_of(c), 1);
	}
	CHECK_OK(ibv_destroy_comp_cntr(c));
}

/* Both ways of reading agree: the pointers and ibv_read_*. */
static void check_pointers(struct ibv_comp_cntr *c)
{
	struct rxcdv_comp_cntr_attr attr;

	if (!CHECK_OK(rxcdv_query_comp_cntr(c, &attr, sizeof(attr))))
		return;
	if (!CHECK(attr.comp_count && attr.err_count, "no pointers"))
		return;
	CHECK_EQ(rxcdv_comp_cntr_load(attr.comp_count), comp_of(c));
	CHECK_EQ(rxcdv_comp_cntr_load(attr.err_count), err_of(c));
}

static void pointers_agree_with_read_after_set_and_inc(struct test_env *env)
{
	struct ibv_comp_cntr *a = new_cntr(env, IBV_COMP_CNTR_TYPE_WRS);
	struct ibv_comp_cntr *b = new_cntr(env, IBV_COMP_CNTR_TYPE_BYTES);

	if (a && b) {
		check_pointers(a);
		CHECK_OK(ibv_set_comp_cntr(a, 42));
		CHECK_OK(ibv_inc_err_comp_cntr(b, 7));
		CHECK_OK(ibv_inc_comp_cntr(b, 4096));
		check_pointers(a);
		check_pointers(b);
		CHECK_EQ(comp_of(a), 42);
		CHECK_EQ(err_of(b), 7);
		CHECK_EQ(comp_of(b), 4096);
	}
	if (a)
		CHECK_OK(ibv_destroy_comp_cntr(a));
	if (b)
		CHECK_OK(ibv_destroy_comp_cntr(b));
}

/*
 * Flushed work requests count as errors, signaled or not: receives posted
 * in INIT flush when the QP enters ERR, sends posted in ERR at once.  No
 * traffic is needed.
 */
static void pointers_agree_with_read_after_flushes(struct test_env *env)
{
	enum { N_RECV = 3, N_SEND = 2 };
	struct ibv_comp_cntr *c = new_cntr(env, IBV_COMP_CNTR_TYPE_WRS);
	struct ibv_wc wc[N_RECV + N_SEND];
	struct ibv_recv_wr rwr = {}, *rbad;
	struct ibv_send_wr swr = {}, *sbad;
	struct ibv_sge sge;
	struct loop l;
	int i;

	if (!c)
		return;
	if (!loop_create(env, &l, IBV_QPT_RC, ALL_ACCESS))
		goto out;
	sge = (struct ibv_sge){ (uintptr_t)l.dst, 64, l.mr->lkey };
	rwr.sg_list = swr.sg_list = &sge;
	rwr.num_sge = swr.num_sge = 1;
	swr.opcode = IBV_WR_SEND;
	if (CHECK_OK(qp_to_init(l.qp)) &&
	    CHECK_OK(attach(l.qp, c, OP_SEND | OP_RECV))) {
		for (i = 0; i < N_RECV; i++)
			CHECK_OK(ibv_post_recv(l.qp, &rwr, &rbad));
		CHECK_OK(qp_to_state(l.qp, IBV_QPS_ERR));
		for (i = 0; i < N_SEND; i++) {
			swr.send_flags = i ? 0 : IBV_SEND_SIGNALED;
			CHECK_OK(ibv_post_send(l.qp, &swr, &sbad));
		}
		CHECK_EQ(poll_cq_wait(l.rcq, wc, N_RECV), N_RECV);
		CHECK_EQ(poll_cq_wait(l.scq, wc, N_SEND), N_SEND);
		CHECK_EQ(err_of(c), N_RECV + N_SEND);
		CHECK_EQ(comp_of(c), 0);
		check_pointers(c);
	}
	loop_destroy(&l);
out:
	CHECK_OK(ibv_destroy_comp_cntr(c));
}

static void attach_fails_with_the_documented_errnos(struct test_env *env)
{
	struct ibv_comp_cntr *a = new_cntr(env, IBV_COMP_CNTR_TYPE_WRS);
	struct ibv_comp_cntr *b = new_cntr(env, IBV_COMP_CNTR_TYPE_WRS);
	struct ibv_qp_attach_comp_cntr_attr attr = {
		.comp_mask = 1, .op_mask = OP_SEND,
	};
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	if (!a || !b)
		goto out;
	qp = new_qp(env, &cq);
	if (!qp)
		goto out;
	CHECK_RC(attach(qp, a, 0), EINVAL);
	CHECK_RC(attach(qp, a, 1u << 6), EOPNOTSUPP);
	CHECK_RC(attach(qp, a, OP_SEND | 1u << 31), EOPNOTSUPP);
	CHECK_RC(ibv_qp_attach_comp_cntr(qp, a, &attr), EINVAL);
	CHECK_OK(attach(qp, a, OP_SEND | OP_RECV));
	CHECK_RC(attach(qp, b, OP_RECV | OP_WRITE), EBUSY);
	CHECK_RC(attach(qp, a, OP_SEND), EBUSY);
	/* Disjoint masks may go to another counter, also in INIT. */
	if (CHECK_OK(qp_to_init(qp)))
		CHECK_OK(attach(qp, b, OP_WRITE));
	/* Only RESET and INIT accept attachments. */
	if (CHECK_OK(qp_to_rtr(env, qp, qp->qp_num)))
		CHECK_RC(attach(qp, b, IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ),
			 EINVAL);
	free_qp(qp, cq);
out:
	if (a)
		CHECK_OK(ibv_destroy_comp_cntr(a));
	if (b)
		CHECK_OK(ibv_destroy_comp_cntr(b));
}

static void destroy_fails_with_ebusy_while_attached(struct test_env *env)
{
	struct ibv_comp_cntr *c = new_cntr(env, IBV_COMP_CNTR_TYPE_WRS);
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	if (!c)
		return;
	qp = new_qp(env, &cq);
	if (qp) {
		CHECK_OK(attach(qp, c, OP_SEND));
		CHECK_RC(ibv_destroy_comp_cntr(c), EBUSY);
		/* The refused destroy left the counter whole. */
		CHECK_OK(ibv_inc_comp_cntr(c, 2));
		CHECK_EQ(comp_of(c), 2);
		check_pointers(c);
		free_qp(qp, cq);
	}
	CHECK_OK(ibv_destroy_comp_cntr(c));
}

static struct ibv_comp_cntr *dv_create(struct test_env *env,
				       struct rxcdv_comp_cntr_init_attr *dv,
				       uint32_t inlen)
{
	struct ibv_comp_cntr_init_attr attr = {};

	return rxcdv_create_comp_cntr(env->ctx, &attr, dv, inlen);
}

/* dv_create() must fail with @want; destroys what should not exist. */
static void dv_create_fails(struct test_env *env,
			    struct rxcdv_comp_cntr_init_attr *dv,
			    uint32_t inlen, int want)
{
	struct ibv_comp_cntr *c = CHECK_NULL_ERRNO(dv_create(env, dv, inlen),
						   want);

	if (c)
		ibv_destroy_comp_cntr(c);
}

static void dv_create_rejects_bad_attributes(struct test_env *env)
{
	static uint64_t mem[4] __attribute__((aligned(8)));
	struct {
		struct rxcdv_comp_cntr_init_attr attr;
		uint64_t more;
	} big = {};
	struct rxcdv_comp_cntr_init_attr dv;
	const struct rxcdv_memory_location va = {
		.type = RXCDV_MEMORY_LOCATION_VA, .ptr = &mem[0],
	};

	memset(&dv, 0, sizeof(dv));
	dv_create_fails(env, &dv, sizeof(dv) - 1, EINVAL);
	big.more = 1;
	dv_create_fails(env, &big.attr, sizeof(big), EINVAL);
	dv.comp_mask = 1;
	dv_create_fails(env, &dv, sizeof(dv), EOPNOTSUPP);
	dv.comp_mask = 0;
	dv.flags = 1u << 2;
	dv_create_fails(env, &dv, sizeof(dv), EOPNOTSUPP);
	dv.flags = 0;
	dv.reserved = 1;
	dv_create_fails(env, &dv, sizeof(dv), EINVAL);
	dv.reserved = 0;

	dv.flags = RXCDV_COMP_CNTR_INIT_WITH_COMP_EXTERNAL_MEM;
	dv.comp_ext_mem = va;
	dv.comp_ext_mem.type = 7;
	dv_create_fails(env, &dv, sizeof(dv), EINVAL);
	dv.comp_ext_mem = va;
	dv.comp_ext_mem.ptr = (uint64_t *)((char *)&mem[1] + 4);
	dv_create_fails(env, &dv, sizeof(dv), EINVAL);
	dv.comp_ext_mem.ptr = NULL;
	dv_create_fails(env, &dv, sizeof(dv), EINVAL);
	dv.comp_ext_mem = (struct rxcdv_memory_location){
		.type = RXCDV_MEMORY_LOCATION_DMABUF, .dmabuf_fd = -1,
	};
	dv_create_fails(env, &dv, sizeof(dv), EBADF);
	dv.comp_ext_mem.dmabuf_fd = 0;
	dv.comp_ext_mem.dmabuf_offset = 4;
	dv_create_fails(env, &dv, sizeof(dv), EINVAL);
	dv_create_fails(env, NULL, sizeof(dv), EINVAL);
}

static void dv_query_fails_with_einval_for_a_short_inlen(
	struct test_env *env)
{
	struct ibv_comp_cntr *c = new_cntr(env, IBV_COMP_CNTR_TYPE_WRS);
	struct rxcdv_comp_cntr_attr attr;

	if (!c)
		return;
	CHECK_RC(rxcdv_query_comp_cntr(c, &attr, 8), EINVAL);
	CHECK_OK(ibv_destroy_comp_cntr(c));
}

/*
 * Counter values in the caller's memory: the library hands back the
 * caller's pointers, and they agree with ibv_read_*.
 */
static void dv_va_memory_holds_the_values(struct test_env *env)
{
	static uint64_t mem[2] __attribute__((aligned(8)));
	struct rxcdv_comp_cntr_init_attr dv = {
		.flags = RXCDV_COMP_CNTR_INIT_WITH_COMP_EXTERNAL_MEM |
			 RXCDV_COMP_CNTR_INIT_WITH_ERR_EXTERNAL_MEM,
		.comp_ext_mem = { .type = RXCDV_MEMORY_LOCATION_VA,
				  .ptr = &mem[0] },
		.err_ext_mem = { .type = RXCDV_MEMORY_LOCATION_VA,
				 .ptr = &mem[1] },
	};
	struct rxcdv_comp_cntr_attr attr;
	struct ibv_comp_cntr *c;

	errno = 0;
	c = dv_create(env, &dv, sizeof(dv));
	if (!CHECK(c != NULL, "create failed: %s", err_name(errno)))
		return;
	if (CHECK_OK(rxcdv_query_comp_cntr(c, &attr, sizeof(attr)))) {
		CHECK(attr.comp_count == &mem[0], "comp pointer moved");
		CHECK(attr.err_count == &mem[1], "err pointer moved");
	}
	CHECK_OK(ibv_inc_comp_cntr(c, 9));
	CHECK_OK(ibv_inc_err_comp_cntr(c, 2));
	CHECK_EQ(rxcdv_comp_cntr_load(&mem[0]), 9);
	CHECK_EQ(rxcdv_comp_cntr_load(&mem[1]), 2);
	check_pointers(c);
	CHECK_OK(ibv_destroy_comp_cntr(c));
}

static void wait_and_notify_reject_bad_attributes(struct test_env *env)
{
	struct ibv_comp_cntr *c = new_cntr(env, IBV_COMP_CNTR_TYPE_WRS);
	struct rxcdv_comp_cntr_wait_attr w = {};
	struct rxcdv_comp_cntr_notify_attr n = { .fd = -1 };

	if (!c)
		return;
	CHECK_RC(rxcdv_wait_comp_cntr(c, &w, sizeof(w) - 8), EINVAL);
	w.comp_mask = 2;
	CHECK_RC(rxcdv_wait_comp_cntr(c, &w, sizeof(w)), EOPNOTSUPP);
	w.comp_mask = 0;
	w.reserved = 1;
	CHECK_RC(rxcdv_wait_comp_cntr(c, &w, sizeof(w)), EINVAL);
	n.comp_mask = 2;
	CHECK_RC(rxcdv_notify_comp_cntr(c, &n, sizeof(n)), EOPNOTSUPP);
	n.comp_mask = 0;
	n.fd = -2;
	CHECK_RC(rxcdv_notify_comp_cntr(c, &n, sizeof(n)), EBADF);
	CHECK_OK(ibv_destroy_comp_cntr(c));
}

/* Moves a QP to ERR after a delay: its posted receives flush as errors. */
struct flusher {
	struct ibv_qp *qp;
	unsigned int delay_ms;
};

static void *flush_later(void *arg)
{
	struct flusher *f = arg;

	sleep_ms(f->delay_ms);
	qp_to_state(f->qp, IBV_QPS_ERR);
	return NULL;
}

static void wait_returns_at_the_threshold_or_times_out(struct test_env *env)
{
	struct ibv_comp_cntr *c = new_cntr(env, IBV_COMP_CNTR_TYPE_WRS);
	struct rxcdv_comp_cntr_wait_attr w = {
		.threshold = 3, .timeout_ms = 50,
	};
	struct ibv_recv_wr rwr = {}, *rbad;
	struct flusher f;
	struct ibv_sge sge;
	struct loop l;
	pthread_t t;
	int rc;

	if (!c)
		return;
	rc = rxcdv_wait_comp_cntr(c, &w, sizeof(w));
	CHECK_RC(rc, ETIMEDOUT);
	CHECK_EQ(w.comp_value, 0);

	/* Already reached: returns at once. */
	CHECK_OK(ibv_set_comp_cntr(c, 3));
	CHECK_OK(rxcdv_wait_comp_cntr(c, &w, sizeof(w)));
	CHECK_EQ(w.comp_value, 3);

	/* An error value different from the base ends the wait. */
	w.threshold = 100;
	w.comp_mask = RXCDV_COMP_CNTR_WAIT_ATTR_ERR_BASE;
	w.err_base = 0;
	CHECK_OK(ibv_inc_err_comp_cntr(c, 1));
	CHECK_OK(rxcdv_wait_comp_cntr(c, &w, sizeof(w)));
	CHECK_EQ(w.err_value, 1);

	/* Woken by the device: flushed receives raise the error value. */
	w.threshold = 100;
	w.comp_mask = 0;
	w.timeout_ms = TEST_TIMEOUT_MS;
	if (!loop_create(env, &l, IBV_QPT_RC, ALL_ACCESS))
		goto out;
	sge = (struct ibv_sge){ (uintptr_t)l.dst, 64, l.mr->lkey };
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	if (CHECK_OK(qp_to_init(l.qp)) &&
	    CHECK_OK(attach(l.qp, c, OP_RECV)) &&
	    CHECK_OK(ibv_post_recv(l.qp, &rwr, &rbad)) &&
	    CHECK_OK(ibv_post_recv(l.qp, &rwr, &rbad))) {
		f = (struct flusher){ l.qp, 100 };
		if (CHECK_OK(pthread_create(&t, NULL, flush_later, &f))) {
			CHECK_OK(rxcdv_wait_comp_cntr(c, &w, sizeof(w)));
			CHECK_GE(w.err_value, 2);
			pthread_join(t, NULL);
		}
	}
	loop_destroy(&l);
out:
	CHECK_OK(ibv_destroy_comp_cntr(c));
}

static bool readable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, timeout_ms) == 1 && p.revents & POLLIN;
}

static void notify_makes_the_eventfd_readable(struct test_env *env)
{
	struct ibv_comp_cntr *c = new_cntr(env, IBV_COMP_CNTR_TYPE_WRS);
	struct rxcdv_comp_cntr_notify_attr n = { .threshold = 1 };
	uint64_t ev;
	int fd, rc;

	if (!c)
		return;
	fd = rxcdv_get_comp_cntr_fd(c);
	if (!CHECK(fd >= 0, "get_fd: %s", err_name(errno)))
		goto out;
	CHECK_EQ(rxcdv_get_comp_cntr_fd(c), fd);
	n.fd = fd;
	rc = rxcdv_notify_comp_cntr(c, &n, sizeof(n));
	if (!CHECK_OK(rc))
		goto out;
	CHECK(!readable(fd, 0), "readable before the threshold");
	CHECK_OK(ibv_inc_comp_cntr(c, 1));
	if (CHECK(readable(fd, TEST_TIMEOUT_MS), "not readable at threshold"))
		CHECK_EQ(read(fd, &ev, sizeof(ev)), sizeof(ev));
	/* Once per arming. */
	CHECK_OK(ibv_inc_comp_cntr(c, 1));
	CHECK(!readable(fd, 100), "readable again without re-arming");
	n.fd = -1;
	CHECK_OK(rxcdv_notify_comp_cntr(c, &n, sizeof(n)));
out:
	/* Destroy closes the counter's eventfd. */
	CHECK_OK(ibv_destroy_comp_cntr(c));
}

static const struct test_case tests[] = {
	TEST_CASE(caps_report_all_six_ops_and_the_limits),
	TEST_CASE(query_caps_fails_with_einval_for_a_short_size),
	TEST_CASE(create_and_destroy_wrs_and_bytes_counters),
	TEST_CASE(create_fails_for_bad_attributes),
	TEST_CASE(verbs_fail_with_einval_for_null_arguments),
	TEST_CASE(set_inc_and_read_address_one_value_each),
	TEST_CASE(inc_wraps_modulo_max_value_plus_one),
	TEST_CASE(pointers_agree_with_read_after_set_and_inc),
	TEST_CASE(pointers_agree_with_read_after_flushes),
	TEST_CASE(attach_fails_with_the_documented_errnos),
	TEST_CASE(destroy_fails_with_ebusy_while_attached),
	TEST_CASE(dv_create_rejects_bad_attributes),
	TEST_CASE(dv_query_fails_with_einval_for_a_short_inlen),
	TEST_CASE(dv_va_memory_holds_the_values),
	TEST_CASE(wait_and_notify_reject_bad_attributes),
	TEST_CASE(wait_returns_at_the_threshold_or_times_out),
	TEST_CASE(notify_makes_the_eventfd_readable),
};

/* rdma_rxe has no counter object: everything is EOPNOTSUPP. */
static void a_device_without_counters_answers_eopnotsupp(
	struct test_env *env)
{
	struct ibv_comp_cntr_init_attr attr = {};
	struct ibv_comp_cntr_caps caps;
	struct ibv_comp_cntr *c;

	CHECK_RC(ibv_query_comp_cntr_caps(env->ctx, &caps), EOPNOTSUPP);
	c = CHECK_NULL_ERRNO(ibv_create_comp_cntr(env->ctx, &attr),
			     EOPNOTSUPP);
	if (c)
		ibv_destroy_comp_cntr(c);
}

static const struct test_case no_cntr_tests[] = {
	TEST_CASE(a_device_without_counters_answers_eopnotsupp),
};

int main(int argc, char **argv)
{
	const char *none = getenv("RXC_NO_COUNTERS");

	if (none && !strcmp(none, "1"))
		return run_suite("librxc api", argc, argv, no_cntr_tests,
				 ARRAY_SIZE(no_cntr_tests));
	return run_suite("librxc api", argc, argv, tests, ARRAY_SIZE(tests));
}
