// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Shared receive queues.
 */
#include <string.h>

#include "fixture.h"

static void create_srq_reports_at_least_requested_size(struct test_env *env)
{
	struct ibv_srq_init_attr init = {
		.attr = { .max_wr = 100, .max_sge = 3 },
	};
	struct ibv_srq_attr attr;
	struct ibv_srq *srq;

	srq = CHECK_NOT_NULL(ibv_create_srq(env->pd, &init));
	if (!srq)
		return;

	CHECK(srq->pd == env->pd, "SRQ has the wrong PD");
	/* ibv_create_srq() returns the actual size in init.attr. */
	CHECK_GE(init.attr.max_wr, 100);
	CHECK_GE(init.attr.max_sge, 3);
	if (CHECK_OK(ibv_query_srq(srq, &attr))) {
		CHECK_GE(attr.max_wr, 100);
		CHECK_GE(attr.max_sge, 3);
		CHECK_EQ(attr.srq_limit, 0);
	}
	CHECK_OK(ibv_destroy_srq(srq));
}

static void create_srq_succeeds_at_device_limits(struct test_env *env)
{
	struct ibv_srq_attr attr;
	struct ibv_srq *srq;

	errno = 0;
	srq = create_srq(env, env->dev_attr.max_srq_wr, 1, 0);
	if (!srq && errno == ENOMEM) {
		tap_skip("not enough memory for max_srq_wr receives");
	} else if (CHECK(srq, "max_wr %d: %s", env->dev_attr.max_srq_wr,
			 err_name(errno))) {
		if (CHECK_OK(ibv_query_srq(srq, &attr)))
			CHECK_GE(attr.max_wr, env->dev_attr.max_srq_wr);
		CHECK_OK(ibv_destroy_srq(srq));
	}

	srq = CHECK_NOT_NULL(create_srq(env, 16, env->dev_attr.max_srq_sge,
					0));
	if (srq) {
		if (CHECK_OK(ibv_query_srq(srq, &attr)))
			CHECK_GE(attr.max_sge, env->dev_attr.max_srq_sge);
		CHECK_OK(ibv_destroy_srq(srq));
	}
}

/* max_wr 0 or past max_srq_wr, max_sge past max_srq_sge. */
static void create_srq_fails_with_einval_for_each_size_out_of_range(
	struct test_env *env)
{
	const struct {
		const char *what;
		uint32_t max_wr, max_sge;
	} t[] = {
		{ "max_wr past max_srq_wr", env->dev_attr.max_srq_wr + 1, 1 },
		{ "max_sge past max_srq_sge", 16, env->dev_attr.max_srq_sge + 1 },
		{ "max_wr 0", 0, 1 },
	};
	struct ibv_srq *srq;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		srq = CHECK_NULL_ERRNO_AS(t[i].what,
					  create_srq(env, t[i].max_wr,
						     t[i].max_sge, 0), EINVAL);
		if (srq)
			ibv_destroy_srq(srq);
	}
}

/* An SRQ of @max_wr, or NULL: none made, or skipped if it cannot grow. */
static struct ibv_srq *resizable_srq(struct test_env *env, uint32_t max_wr)
{
	if (!(env->dev_attr.device_cap_flags & IBV_DEVICE_SRQ_RESIZE)) {
		tap_skip("device cannot resize SRQs");
		return NULL;
	}
	return CHECK_NOT_NULL(create_srq(env, max_wr, 1, 0));
}

static void modify_srq_grows_max_wr(struct test_env *env)
{
	struct ibv_srq_attr attr = { .max_wr = 500 };
	struct ibv_srq *srq;

	srq = resizable_srq(env, 16);
	if (!srq)
		return;
	if (CHECK_OK(ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR)) &&
	    CHECK_OK(ibv_query_srq(srq, &attr)))
		CHECK_GE(attr.max_wr, 500);
	CHECK_OK(ibv_destroy_srq(srq));
}

static void modify_srq_keeps_posted_receives_when_growing(
	struct test_env *env)
{
	enum { N = 8 };
	struct ibv_srq_attr attr = { .max_wr = 200 };
	struct ibv_recv_wr wr = {}, *bad;
	struct ibv_srq *srq;
	int i;

	srq = resizable_srq(env, 16);
	if (!srq)
		return;
	for (i = 0; i < N; i++)
		CHECK_OK(ibv_post_srq_recv(srq, &wr, &bad));
	CHECK_OK(ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR));
	/* The grown queue holds the N old receives plus 200 - N more. */
	for (i = 0; i < 200 - N; i++)
		if (!CHECK_OK(ibv_post_srq_recv(srq, &wr, &bad)))
			break;
	CHECK_OK(ibv_destroy_srq(srq));
}

static void modify_srq_sets_the_limit(struct test_env *env)
{
	struct ibv_srq_attr attr = { .srq_limit = 10 };
	struct ibv_srq *srq;

	srq = CHECK_NOT_NULL(create_srq(env, 64, 1, 0));
	if (!srq)
		return;
	if (CHECK_OK(ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT)) &&
	    CHECK_OK(ibv_query_srq(srq, &attr)))
		CHECK_EQ(attr.srq_limit, 10);
	CHECK_OK(ibv_destroy_srq(srq));
}

static void modify_srq_fails_with_einval_when_limit_exceeds_max_wr(
	struct test_env *env)
{
	struct ibv_srq_attr attr;
	struct ibv_srq *srq;

	srq = CHECK_NOT_NULL(create_srq(env, 64, 1, 0));
	if (!srq)
		return;
	if (CHECK_OK(ibv_query_srq(srq, &attr))) {
		attr.srq_limit = attr.max_wr + 1;
		CHECK_RC(ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT), EINVAL);
		/* A failed modify changes nothing (ibv_modify_srq(3)). */
		if (CHECK_OK(ibv_query_srq(srq, &attr)))
			CHECK_EQ(attr.srq_limit, 0);
	}
	CHECK_OK(ibv_destroy_srq(srq));
}

static void modify_srq_fails_with_einval_when_max_wr_exceeds_max_srq_wr(
	struct test_env *env)
{
	struct ibv_srq_attr attr = { .max_wr = env->dev_attr.max_srq_wr + 1 };
	struct ibv_srq *srq;

	srq = CHECK_NOT_NULL(create_srq(env, 16, 1, 0));
	if (!srq)
		return;
	CHECK_RC(ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR), EINVAL);
	CHECK_OK(ibv_destroy_srq(srq));
}

static void modify_srq_fails_with_einval_when_max_wr_drops_below_limit(
	struct test_env *env)
{
	struct ibv_srq_attr attr = { .srq_limit = 40 };
	struct ibv_srq *srq;

	srq = resizable_srq(env, 64);
	if (!srq)
		return;
	if (CHECK_OK(ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT))) {
		attr.max_wr = 20;
		CHECK_RC(ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR), EINVAL);
	}
	CHECK_OK(ibv_destroy_srq(srq));
}

/*
 * The SRQ holds as many receives as ibv_query_srq() reports, which may be
 * more than ibv_create_srq() promised; one more fails.
 */
static void post_srq_recv_fails_with_enomem_beyond_queried_capacity(
	struct test_env *env)
{
	struct ibv_srq_attr q;
	struct ibv_recv_wr wr = {}, *bad = NULL;
	struct ibv_srq_init_attr init = {
		.attr = { .max_wr = 16, .max_sge = 2 },
	};
	struct ibv_sge sge[2];
	struct ibv_mr *mr;
	struct ibv_srq *srq;
	char buf[256];
	uint32_t i;
	int rc;

	mr = CHECK_NOT_NULL(ibv_reg_mr(env->pd, buf, sizeof(buf),
				       IBV_ACCESS_LOCAL_WRITE));
	if (!mr)
		return;
	srq = CHECK_NOT_NULL(ibv_create_srq(env->pd, &init));
	if (!srq)
		goto out;

	if (!CHECK_OK(ibv_query_srq(srq, &q)))
		goto out_srq;
	CHECK_GE(q.max_wr, init.attr.max_wr);

	sge[0] = (struct ibv_sge){ (uintptr_t)buf, 128, mr->lkey };
	sge[1] = (struct ibv_sge){ (uintptr_t)buf + 128, 128, mr->lkey };
	wr.sg_list = sge;
	wr.num_sge = 2;
	for (i = 0; i < q.max_wr; i++) {
		wr.wr_id = i;
		rc = ibv_post_srq_recv(srq, &wr, &bad);
		if (!CHECK(rc == 0, "receive %u of %u: %s", i + 1,
			   q.max_wr, err_name(rc)))
			goto out_srq;
	}

	/* The queue is full now. */
	bad = NULL;
	CHECK_RC(ibv_post_srq_recv(srq, &wr, &bad), ENOMEM);
	CHECK(bad == &wr, "bad_wr does not point at the failed request");
out_srq:
	CHECK_OK(ibv_destroy_srq(srq));
out:
	CHECK_OK(ibv_dereg_mr(mr));
}

static void post_srq_recv_fails_with_einval_when_sge_exceeds_max_sge(
	struct test_env *env)
{
	struct ibv_recv_wr wr[2] = {}, *bad = NULL;
	struct ibv_srq_init_attr init = {
		.attr = { .max_wr = 16, .max_sge = 2 },
	};
	struct ibv_sge sge[64] = {};
	struct ibv_srq *srq;

	srq = CHECK_NOT_NULL(ibv_create_srq(env->pd, &init));
	if (!srq)
		return;

	/* The first request is good, the second has one SGE too many. */
	wr[0].next = &wr[1];
	wr[1].sg_list = sge;
	wr[1].num_sge = init.attr.max_sge + 1;
	if (CHECK_LE(wr[1].num_sge, ARRAY_SIZE(sge))) {
		CHECK_RC(ibv_post_srq_recv(srq, wr, &bad), EINVAL);
		CHECK(bad == &wr[1],
		      "bad_wr does not point at the failed request");
	}
	CHECK_OK(ibv_destroy_srq(srq));
}

/* An RC QP on an SRQ, each on objects of their own. */
struct srq_qp {
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
};

/* False, with nothing left, when one of them cannot be created. */
static bool srq_qp_create(struct test_env *env, struct srq_qp *o)
{
	o->cq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 16, NULL, NULL, 0));
	if (!o->cq)
		return false;
	o->srq = CHECK_NOT_NULL(create_srq(env, 16, 1, 0));
	if (o->srq) {
		o->qp = CHECK_NOT_NULL(create_test_qp(env, IBV_QPT_RC, o->cq,
						      o->srq));
		if (o->qp)
			return true;
		CHECK_OK(ibv_destroy_srq(o->srq));
	}
	CHECK_OK(ibv_destroy_cq(o->cq));
	return false;
}

static void srq_qp_destroy(struct srq_qp *o)
{
	CHECK_OK(ibv_destroy_qp(o->qp));
	CHECK_OK(ibv_destroy_srq(o->srq));
	CHECK_OK(ibv_destroy_cq(o->cq));
}

static void destroy_srq_fails_with_ebusy_while_qp_uses_it(
	struct test_env *env)
{
	struct srq_qp o;

	if (!srq_qp_create(env, &o))
		return;
	CHECK_RC(ibv_destroy_srq(o.srq), EBUSY);
	srq_qp_destroy(&o);
}

static void post_recv_fails_with_einval_on_qp_with_srq(struct test_env *env)
{
	struct ibv_recv_wr wr = {}, *bad = NULL;
	struct srq_qp o;

	if (!srq_qp_create(env, &o))
		return;
	if (CHECK_OK(qp_to_init(o.qp)))
		CHECK_RC(ibv_post_recv(o.qp, &wr, &bad), EINVAL);
	srq_qp_destroy(&o);
}

static void create_srq_ex_creates_basic_srq(struct test_env *env)
{
	struct ibv_srq_init_attr_ex attr = {
		.attr = { .max_wr = 32, .max_sge = 2 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD,
		.srq_type = IBV_SRQT_BASIC,
		.pd = env->pd,
	};
	struct ibv_srq_attr q;
	struct ibv_srq *srq;

	srq = CHECK_NOT_NULL(ibv_create_srq_ex(env->ctx, &attr));
	if (!srq)
		return;
	if (CHECK_OK(ibv_query_srq(srq, &q))) {
		CHECK_GE(q.max_wr, 32);
		CHECK_GE(q.max_sge, 2);
	}
	CHECK_OK(ibv_destroy_srq(srq));
}

static void create_srq_ex_fails_with_einval_without_pd(struct test_env *env)
{
	struct ibv_srq_init_attr_ex attr = {
		.attr = { .max_wr = 32, .max_sge = 2 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE,
		.srq_type = IBV_SRQT_BASIC,
	};
	struct ibv_srq *srq;

	srq = CHECK_NULL_ERRNO(ibv_create_srq_ex(env->ctx, &attr), EINVAL);
	if (srq)
		ibv_destroy_srq(srq);
}

static const struct test_case tests[] = {
	TEST_CASE(create_srq_reports_at_least_requested_size),
	TEST_CASE(create_srq_succeeds_at_device_limits),
	TEST_CASE(create_srq_fails_with_einval_for_each_size_out_of_range),
	TEST_CASE(modify_srq_grows_max_wr),
	TEST_CASE(modify_srq_keeps_posted_receives_when_growing),
	TEST_CASE(modify_srq_sets_the_limit),
	TEST_CASE(modify_srq_fails_with_einval_when_limit_exceeds_max_wr),
	TEST_CASE(modify_srq_fails_with_einval_when_max_wr_exceeds_max_srq_wr),
	TEST_CASE(modify_srq_fails_with_einval_when_max_wr_drops_below_limit),
	TEST_CASE(post_srq_recv_fails_with_enomem_beyond_queried_capacity),
	TEST_CASE(post_srq_recv_fails_with_einval_when_sge_exceeds_max_sge),
	TEST_CASE(destroy_srq_fails_with_ebusy_while_qp_uses_it),
	TEST_CASE(post_recv_fails_with_einval_on_qp_with_srq),
	TEST_CASE(create_srq_ex_creates_basic_srq),
	TEST_CASE(create_srq_ex_fails_with_einval_without_pd),
};

int main(int argc, char **argv)
{
	return run_suite("srq", argc, argv, tests, ARRAY_SIZE(tests));
}
