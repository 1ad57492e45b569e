// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Posting work requests: the errors that ibv_post_send() and
 * ibv_post_recv() report at once, before anything reaches the wire.
 *
 * What the completions of posted requests report, which needs the data
 * path, is in t_traffic.c. The QP, CQs and buffer come from loop_create()
 * and loop_connect() (fixture.h).
 */
#include "fixture.h"

static void post_send_fails_in_state(struct test_env *env,
				     enum ibv_qp_state state)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND }, *bad = NULL;
	struct ibv_sge sge;
	struct loop l;

	if (!loop_create(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;
	if ((state < IBV_QPS_INIT || CHECK_OK(qp_to_init(l.qp))) &&
	    (state < IBV_QPS_RTR ||
	     CHECK_OK(qp_to_rtr(env, l.qp, l.qp->qp_num)))) {
		sge = (struct ibv_sge){ (uintptr_t)l.src, 8, l.mr->lkey };
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.send_flags = IBV_SEND_SIGNALED;
		CHECK_RC(ibv_post_send(l.qp, &wr, &bad), EINVAL);
	}
	loop_destroy(&l);
}

/*
 * Only RTS and SQD QPs accept sends: earlier states have no send queue
 * to speak of (IBA 10.8.2.2, C10-97).
 */
static void post_send_fails_with_einval_in_reset_state(struct test_env *env)
{
	post_send_fails_in_state(env, IBV_QPS_RESET);
}

static void post_send_fails_with_einval_in_init_state(struct test_env *env)
{
	post_send_fails_in_state(env, IBV_QPS_INIT);
}

static void post_send_fails_with_einval_in_rtr_state(struct test_env *env)
{
	post_send_fails_in_state(env, IBV_QPS_RTR);
}

/* A RESET QP has no receive queue yet (IBA C10-97.2.1). */
static void post_recv_fails_with_einval_in_reset_state(struct test_env *env)
{
	struct ibv_recv_wr wr = {}, *bad = NULL;
	struct loop l;

	if (!loop_create(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;
	/*
	 * librxe 44.0 rejects this before its loop and leaves bad_wr
	 * unset, although ibv_post_recv(3) promises the failed request
	 * there: a provider deviation no kernel driver can fix.
	 */
	CHECK_RC(ibv_post_recv(l.qp, &wr, &bad), EINVAL);
	loop_destroy(&l);
}

/*
 * The queue holds as many requests as ibv_query_qp() reports, which may
 * be more than ibv_create_qp() promised; one more fails.
 */
static void post_recv_fails_with_enomem_beyond_queried_capacity(
	struct test_env *env)
{
	struct ibv_recv_wr wr = {}, *bad = NULL;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct loop l;
	uint32_t i;
	int rc;

	if (!loop_create(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;
	if (!CHECK_OK(qp_to_init(l.qp)) ||
	    !CHECK_OK(ibv_query_qp(l.qp, &attr, IBV_QP_CAP, &init)))
		goto out;
	CHECK_GE(init.cap.max_recv_wr, l.cap.max_recv_wr);

	for (i = 0; i < init.cap.max_recv_wr; i++) {
		wr.wr_id = i;
		rc = ibv_post_recv(l.qp, &wr, &bad);
		if (!CHECK(rc == 0, "receive %u of %u: %s", i + 1,
			   init.cap.max_recv_wr, err_name(rc)))
			goto out;
	}
	bad = NULL;
	CHECK_RC(ibv_post_recv(l.qp, &wr, &bad), ENOMEM);
	CHECK(bad == &wr, "bad_wr does not point at the failed request");
out:
	loop_destroy(&l);
}

static void post_recv_fails_with_einval_when_sge_exceeds_max_recv_sge(
	struct test_env *env)
{
	struct ibv_recv_wr wr[2] = {}, *bad = NULL;
	struct ibv_sge sge[64] = {};
	struct loop l;

	if (!loop_create(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;
	if (CHECK_OK(qp_to_init(l.qp)) &&
	    CHECK_LE(l.cap.max_recv_sge + 1, ARRAY_SIZE(sge))) {
		wr[0].next = &wr[1];
		wr[1].sg_list = sge;
		wr[1].num_sge = l.cap.max_recv_sge + 1;
		CHECK_RC(ibv_post_recv(l.qp, wr, &bad), EINVAL);
		CHECK(bad == &wr[1],
		      "bad_wr does not point at the failed request");
	}
	loop_destroy(&l);
}

static void post_send_fails_with_einval_when_sge_exceeds_max_send_sge(
	struct test_env *env)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND }, *bad = NULL;
	struct ibv_sge sge[64] = {};
	struct loop l;

	if (!loop_connect(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;
	if (CHECK_LE(l.cap.max_send_sge + 1, ARRAY_SIZE(sge))) {
		wr.sg_list = sge;
		wr.num_sge = l.cap.max_send_sge + 1;
		CHECK_RC(ibv_post_send(l.qp, &wr, &bad), EINVAL);
		CHECK(bad == &wr,
		      "bad_wr does not point at the failed request");
	}
	loop_destroy(&l);
}

static void post_send_fails_with_einval_when_inline_data_exceeds_max(
	struct test_env *env)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND }, *bad = NULL;
	struct ibv_sge sge;
	struct loop l;

	if (!loop_connect(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;
	sge = (struct ibv_sge){ (uintptr_t)l.src, l.cap.max_inline_data + 1,
				0 };
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_INLINE;
	CHECK_RC(ibv_post_send(l.qp, &wr, &bad), EINVAL);
	CHECK(bad == &wr, "bad_wr does not point at the failed request");
	loop_destroy(&l);
}

/*
 * Sends to a QP number nobody owns are never acknowledged, so with a
 * long ACK timeout the send queue fills up and stays full.
 */
static void post_send_fails_with_enomem_beyond_queried_capacity(
	struct test_env *env)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND }, *bad;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTS, .sq_psn = 0, .timeout = 31,
		.retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 1,
	};
	struct ibv_sge sge;
	struct loop l;
	uint32_t i;
	int rc;

	if (!loop_create(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;
	if (!CHECK_OK(qp_to_init(l.qp)) ||
	    !CHECK_OK(qp_to_rtr(env, l.qp, 0xfffff0)) ||
	    !CHECK_OK(ibv_modify_qp(l.qp, &attr, IBV_QP_STATE |
				    IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				    IBV_QP_MAX_QP_RD_ATOMIC)) ||
	    !CHECK_OK(ibv_query_qp(l.qp, &attr, IBV_QP_CAP, &init)))
		goto out;
	CHECK_GE(init.cap.max_send_wr, l.cap.max_send_wr);

	sge = (struct ibv_sge){ (uintptr_t)l.src, 8, l.mr->lkey };
	wr.sg_list = &sge;
	wr.num_sge = 1;
	for (i = 0; i < init.cap.max_send_wr; i++) {
		rc = ibv_post_send(l.qp, &wr, &bad);
		if (!CHECK(rc == 0, "send %u of %u: %s", i + 1,
			   init.cap.max_send_wr, err_name(rc)))
			goto out;
	}
	bad = NULL;
	CHECK_RC(ibv_post_send(l.qp, &wr, &bad), ENOMEM);
	CHECK(bad == &wr, "bad_wr does not point at the failed request");
out:
	loop_destroy(&l);
}

static const struct test_case tests[] = {
	TEST_CASE(post_send_fails_with_einval_in_reset_state),
	TEST_CASE(post_send_fails_with_einval_in_init_state),
	TEST_CASE(post_send_fails_with_einval_in_rtr_state),
	TEST_CASE(post_recv_fails_with_einval_in_reset_state),
	TEST_CASE(post_recv_fails_with_enomem_beyond_queried_capacity),
	TEST_CASE(post_recv_fails_with_einval_when_sge_exceeds_max_recv_sge),
	TEST_CASE(post_send_fails_with_einval_when_sge_exceeds_max_send_sge),
	TEST_CASE(post_send_fails_with_einval_when_inline_data_exceeds_max),
	TEST_CASE(post_send_fails_with_enomem_beyond_queried_capacity),
};

int main(int argc, char **argv)
{
	return run_suite("post", argc, argv, tests, ARRAY_SIZE(tests));
}
