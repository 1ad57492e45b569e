// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion queues and completion channels.
 *
 * Completions come from flushing: receives posted to a QP that then
 * moves to the error state complete with IBV_WC_WR_FLUSH_ERR, with no
 * traffic needed.
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

/* Posts @n receives with wr_id 1..n; returns 0 or an errno value. */
static int post_receives(struct ibv_qp *qp, int n)
{
	struct ibv_recv_wr wr = {}, *bad;
	int i, rc;

	for (i = 1; i <= n; i++) {
		wr.wr_id = i;
		rc = ibv_post_recv(qp, &wr, &bad);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * A UD QP on @cq with @n receives posted, moved to the error state so
 * that they flush into @cq. NULL (and a test failure) on error.
 */
static struct ibv_qp *flush_receives(struct test_env *env, struct ibv_cq *cq,
				     int n)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 1, .max_recv_wr = n,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp;

	qp = CHECK_NOT_NULL(ibv_create_qp(env->pd, &attr));
	if (!qp)
		return NULL;

	if (!CHECK_OK(qp_to_init(qp)) ||
	    !CHECK_OK(post_receives(qp, n)) ||
	    !CHECK_OK(qp_to_state(qp, IBV_QPS_ERR))) {
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

/* Waits for the channel's fd to become readable. */
static bool wait_channel(struct ibv_comp_channel *ch)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };

	return poll(&pfd, 1, TEST_TIMEOUT_MS) == 1;
}

static void create_cq_succeeds_for_sizes_from_1_to_max_cqe(
	struct test_env *env)
{
	int max = env->dev_attr.max_cqe;
	int sizes[] = { 1, 2, 3, 15, 16, 17, 255, 256, 1000, max / 2,
			max - 1, max };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct ibv_cq *cq;

		if (sizes[i] < 1 || sizes[i] > max)
			continue;
		cq = ibv_create_cq(env->ctx, sizes[i], NULL, NULL, 0);
		if (!CHECK(cq, "create_cq(%d) failed with %s", sizes[i],
			   err_name(errno)))
			continue;
		CHECK(cq->cqe >= sizes[i], "create_cq(%d) returned cqe %d",
		      sizes[i], cq->cqe);
		CHECK(cq->context == env->ctx, "CQ has the wrong context");
		CHECK_OK(ibv_destroy_cq(cq));
	}
}

/*
 * cqe 0 or past max_cqe, and a comp_vector not below num_comp_vectors
 * (ibv_create_cq(3)).
 */
static void create_cq_fails_with_einval_for_each_argument_out_of_range(
	struct test_env *env)
{
	const struct {
		const char *what;
		int cqe, vector;
	} t[] = {
		{ "cqe past max_cqe", env->dev_attr.max_cqe + 1, 0 },
		{ "cqe 0", 0, 0 },
		{ "comp_vector past the last", 4, env->ctx->num_comp_vectors },
	};
	struct ibv_cq *cq;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		cq = CHECK_NULL_ERRNO_AS(t[i].what,
					 ibv_create_cq(env->ctx, t[i].cqe, NULL,
						       NULL, t[i].vector),
					 EINVAL);
		if (cq)
			ibv_destroy_cq(cq);
	}
}

static void create_cq_succeeds_on_every_comp_vector(struct test_env *env)
{
	int v;

	for (v = 0; v < env->ctx->num_comp_vectors; v++) {
		struct ibv_cq *cq;

		cq = ibv_create_cq(env->ctx, 4, NULL, NULL, v);
		if (!CHECK(cq, "comp_vector %d: %s", v, err_name(errno)))
			continue;
		CHECK_OK(ibv_destroy_cq(cq));
	}
}

/* A CQ of 8 entries on a completion channel of its own. */
struct channel_cq {
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
};

/* False, with nothing left, when either cannot be created. */
static bool channel_cq_create(struct test_env *env, void *cq_context,
			      struct channel_cq *c)
{
	c->ch = CHECK_NOT_NULL(ibv_create_comp_channel(env->ctx));
	if (!c->ch)
		return false;
	CHECK_GE(c->ch->fd, 0);
	c->cq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 8, cq_context, c->ch,
					     0));
	if (!c->cq) {
		CHECK_OK(ibv_destroy_comp_channel(c->ch));
		return false;
	}
	return true;
}

static void channel_cq_destroy(struct channel_cq *c)
{
	CHECK_OK(ibv_destroy_cq(c->cq));
	CHECK_OK(ibv_destroy_comp_channel(c->ch));
}

static void create_cq_with_channel_records_the_channel(struct test_env *env)
{
	struct channel_cq c;
	int cookie;

	if (!channel_cq_create(env, &cookie, &c))
		return;
	CHECK(c.cq->channel == c.ch, "CQ does not record its channel");
	CHECK(c.cq->cq_context == &cookie, "CQ lost its context");
	channel_cq_destroy(&c);
}

static void destroy_comp_channel_fails_with_ebusy_while_cq_uses_it(
	struct test_env *env)
{
	struct channel_cq c;

	if (!channel_cq_create(env, NULL, &c))
		return;
	CHECK_RC(ibv_destroy_comp_channel(c.ch), EBUSY);
	channel_cq_destroy(&c);
}

static void req_notify_cq_succeeds_for_next_and_solicited(
	struct test_env *env)
{
	struct channel_cq c;

	if (!channel_cq_create(env, NULL, &c))
		return;
	CHECK_OK(ibv_req_notify_cq(c.cq, 0));
	CHECK_OK(ibv_req_notify_cq(c.cq, 1));
	CHECK_OK(ibv_req_notify_cq(c.cq, 0));
	channel_cq_destroy(&c);
}

static void poll_cq_returns_zero_on_empty_cq(struct test_env *env)
{
	struct ibv_wc wc[4];
	struct ibv_cq *cq;

	cq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 8, NULL, NULL, 0));
	if (!cq)
		return;
	CHECK_EQ(ibv_poll_cq(cq, 4, wc), 0);
	CHECK_EQ(ibv_poll_cq(cq, 1, wc), 0);
	CHECK_OK(ibv_destroy_cq(cq));
}

static void poll_cq_returns_flushed_receives_in_order(struct test_env *env)
{
	enum { N = 8 };
	struct ibv_wc wc[N + 1];
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int i, n;

	cq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 16, NULL, NULL, 0));
	if (!cq)
		return;

	qp = flush_receives(env, cq, N);
	if (qp) {
		n = poll_cq_wait(cq, wc, N);
		CHECK_EQ(n, N);
		for (i = 0; i < n; i++) {
			CHECK_EQ(wc[i].wr_id, i + 1);
			CHECK_EQ(wc[i].status, IBV_WC_WR_FLUSH_ERR);
			CHECK_EQ(wc[i].qp_num, qp->qp_num);
		}
		CHECK_EQ(ibv_poll_cq(cq, 1, wc), 0);
		CHECK_OK(ibv_destroy_qp(qp));
	}
	CHECK_OK(ibv_destroy_cq(cq));
}

static void comp_channel_delivers_event_after_req_notify_cq(
	struct test_env *env)
{
	struct ibv_cq *ev_cq = NULL;
	struct ibv_qp *qp = NULL;
	void *ev_ctx = NULL;
	struct channel_cq c;
	struct ibv_wc wc;
	int cookie;

	if (!channel_cq_create(env, &cookie, &c))
		return;
	if (!CHECK_OK(ibv_req_notify_cq(c.cq, 0)))
		goto out;
	qp = flush_receives(env, c.cq, 1);
	if (!qp)
		goto out;

	if (CHECK(wait_channel(c.ch), "no completion event within %d ms",
		  TEST_TIMEOUT_MS) &&
	    CHECK_OK(ibv_get_cq_event(c.ch, &ev_cq, &ev_ctx))) {
		CHECK(ev_cq == c.cq, "event names the wrong CQ");
		CHECK(ev_ctx == &cookie, "event carries the wrong context");
		ibv_ack_cq_events(c.cq, 1);
		CHECK_EQ(poll_cq_wait(c.cq, &wc, 1), 1);
	}
	CHECK_OK(ibv_destroy_qp(qp));
out:
	channel_cq_destroy(&c);
}

static void comp_channel_stays_silent_without_req_notify_cq(
	struct test_env *env)
{
	struct channel_cq c;
	struct pollfd pfd;
	struct ibv_qp *qp;
	struct ibv_wc wc;

	if (!channel_cq_create(env, NULL, &c))
		return;
	qp = flush_receives(env, c.cq, 1);
	if (qp) {
		CHECK_EQ(poll_cq_wait(c.cq, &wc, 1), 1);
		pfd.fd = c.ch->fd;
		pfd.events = POLLIN;
		CHECK_EQ(poll(&pfd, 1, 100), 0);
		CHECK_OK(ibv_destroy_qp(qp));
	}
	channel_cq_destroy(&c);
}

static void create_cq_ex_succeeds_with_standard_wc_flags(
	struct test_env *env)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 16,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_cq_ex *cq;

	cq = CHECK_NOT_NULL(ibv_create_cq_ex(env->ctx, &attr));
	if (!cq)
		return;
	CHECK_GE(cq->cqe, 16);
	CHECK_OK(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)));
}

static void create_cq_ex_fails_with_einval_when_cqe_exceeds_max(
	struct test_env *env)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = env->dev_attr.max_cqe + 1,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_cq_ex *cq;

	cq = CHECK_NULL_ERRNO(ibv_create_cq_ex(env->ctx, &attr), EINVAL);
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
}

static void create_cq_ex_fails_with_eopnotsupp_for_unsupported_wc_flags(
	struct test_env *env)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 16,
		.wc_flags = IBV_WC_STANDARD_FLAGS |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
	};
	struct ibv_cq_ex *cq;

	cq = CHECK_NULL_ERRNO(ibv_create_cq_ex(env->ctx, &attr), EOPNOTSUPP);
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
}

static void start_poll_returns_enoent_on_empty_cq_ex(struct test_env *env)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 16,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_poll_cq_attr pattr = {};
	struct ibv_cq_ex *cq;

	cq = CHECK_NOT_NULL(ibv_create_cq_ex(env->ctx, &attr));
	if (!cq)
		return;
	/* On ENOENT there is no end_poll (ibv_create_cq_ex(3)). */
	CHECK_RC(ibv_start_poll(cq, &pattr), ENOENT);
	CHECK_OK(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)));
}

/* Polls until the CQ has an entry; returns ibv_start_poll()'s result. */
static int start_poll_wait(struct ibv_cq_ex *cq)
{
	struct ibv_poll_cq_attr attr = {};
	int i, rc = ENOENT;

	for (i = 0; i < TEST_TIMEOUT_MS / 10; i++) {
		rc = ibv_start_poll(cq, &attr);
		if (rc != ENOENT)
			break;
		sleep_ms(10);
	}
	return rc;
}

static void cq_ex_polls_flushed_receives(struct test_env *env)
{
	enum { N = 4 };
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 16,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct ibv_wc wc;
	int i, rc;

	cq = CHECK_NOT_NULL(ibv_create_cq_ex(env->ctx, &attr));
	if (!cq)
		return;

	qp = flush_receives(env, ibv_cq_ex_to_cq(cq), N);
	if (!qp)
		goto out;

	/* All N are in the CQ before the batch starts. */
	sleep_ms(500);
	if (!CHECK_OK(start_poll_wait(cq)))
		goto out_qp;

	for (i = 1; i <= N; i++) {
		if (i > 1) {
			rc = ibv_next_poll(cq);
			if (!CHECK(rc == 0, "next_poll %d returned %s", i,
				   err_name(rc)))
				break;
		}
		CHECK_EQ(cq->wr_id, i);
		CHECK_EQ(cq->status, IBV_WC_WR_FLUSH_ERR);
		CHECK_EQ(ibv_wc_read_qp_num(cq), qp->qp_num);
	}
	ibv_end_poll(cq);
	CHECK_EQ(ibv_poll_cq(ibv_cq_ex_to_cq(cq), 1, &wc), 0);
out_qp:
	CHECK_OK(ibv_destroy_qp(qp));
out:
	CHECK_OK(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)));
}

/*
 * ibv_create_cq_ex(3): after next_poll fails, "end_poll should still be
 * called", and the CQ stays valid. librxe 44.0 advances its consumer
 * index in both calls, so the CQ then looks full of stale entries. That
 * is the provider's bug, which no kernel driver can fix: skip on it.
 */
static void end_poll_after_next_poll_enoent_leaves_cq_empty(
	struct test_env *env)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 16,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_wc wc;
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	int n;

	cq = CHECK_NOT_NULL(ibv_create_cq_ex(env->ctx, &attr));
	if (!cq)
		return;

	qp = flush_receives(env, ibv_cq_ex_to_cq(cq), 1);
	if (!qp)
		goto out;

	if (!CHECK_OK(start_poll_wait(cq)))
		goto out_qp;
	CHECK_EQ(cq->wr_id, 1);
	CHECK_RC(ibv_next_poll(cq), ENOENT);
	ibv_end_poll(cq);

	n = ibv_poll_cq(ibv_cq_ex_to_cq(cq), 1, &wc);
	if (n == 1 && wc.wr_id == 0)
		tap_skip("librxe 44.0 bug: end_poll after ENOENT eats a slot");
	else
		CHECK_EQ(n, 0);
out_qp:
	CHECK_OK(ibv_destroy_qp(qp));
out:
	CHECK_OK(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)));
}

static void resize_cq_grows_and_shrinks_an_empty_cq(struct test_env *env)
{
	struct ibv_cq *cq;

	cq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 16, NULL, NULL, 0));
	if (!cq)
		return;

	if (CHECK_OK(ibv_resize_cq(cq, 1000)))
		CHECK_GE(cq->cqe, 1000);
	if (CHECK_OK(ibv_resize_cq(cq, env->dev_attr.max_cqe)))
		CHECK_GE(cq->cqe, env->dev_attr.max_cqe);
	if (CHECK_OK(ibv_resize_cq(cq, 4)))
		CHECK_GE(cq->cqe, 4);
	CHECK_OK(ibv_destroy_cq(cq));
}

static void resize_cq_fails_with_einval_when_cqe_exceeds_max(
	struct test_env *env)
{
	struct ibv_cq *cq;
	int before;

	cq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 16, NULL, NULL, 0));
	if (!cq)
		return;
	before = cq->cqe;
	CHECK_RC(ibv_resize_cq(cq, env->dev_attr.max_cqe + 1), EINVAL);
	CHECK_EQ(cq->cqe, before);
	CHECK_OK(ibv_destroy_cq(cq));
}

static void resize_cq_keeps_completions_when_growing(struct test_env *env)
{
	enum { N = 8 };
	struct ibv_wc wc[N];
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int i, n;

	cq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 16, NULL, NULL, 0));
	if (!cq)
		return;

	qp = flush_receives(env, cq, N);
	if (qp) {
		/* Let the flush finish, then move the queue under it. */
		sleep_ms(500);
		if (CHECK_OK(ibv_resize_cq(cq, 256)))
			CHECK_GE(cq->cqe, 256);
		n = poll_cq_wait(cq, wc, N);
		CHECK_EQ(n, N);
		for (i = 0; i < n; i++)
			CHECK_EQ(wc[i].wr_id, i + 1);
		CHECK_OK(ibv_destroy_qp(qp));
	}
	CHECK_OK(ibv_destroy_cq(cq));
}

static void resize_cq_fails_with_einval_below_outstanding_completions(
	struct test_env *env)
{
	enum { N = 32 };
	struct ibv_wc wc[N];
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	cq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 64, NULL, NULL, 0));
	if (!cq)
		return;

	qp = flush_receives(env, cq, N);
	if (qp) {
		sleep_ms(500);
		CHECK_RC(ibv_resize_cq(cq, N / 4), EINVAL);
		/* Every completion survived the failed resize. */
		CHECK_EQ(poll_cq_wait(cq, wc, N), N);
		CHECK_OK(ibv_destroy_qp(qp));
	}
	CHECK_OK(ibv_destroy_cq(cq));
}

static void destroy_cq_fails_with_ebusy_while_qp_uses_it(
	struct test_env *env)
{
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	cq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 8, NULL, NULL, 0));
	if (!cq)
		return;

	qp = CHECK_NOT_NULL(create_test_qp(env, IBV_QPT_RC, cq, NULL));
	if (qp) {
		CHECK_RC(ibv_destroy_cq(cq), EBUSY);
		CHECK_OK(ibv_destroy_qp(qp));
	}
	CHECK_OK(ibv_destroy_cq(cq));
}

static void destroy_cq_fails_with_ebusy_while_qp_receives_on_it(
	struct test_env *env)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp = NULL;

	scq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 8, NULL, NULL, 0));
	rcq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 8, NULL, NULL, 0));
	if (!scq || !rcq)
		goto out;

	attr.send_cq = scq;
	attr.recv_cq = rcq;
	qp = CHECK_NOT_NULL(ibv_create_qp(env->pd, &attr));
	if (!qp)
		goto out;

	CHECK_RC(ibv_destroy_cq(rcq), EBUSY);
	CHECK_RC(ibv_destroy_cq(scq), EBUSY);
	CHECK_OK(ibv_destroy_qp(qp));
out:
	if (rcq)
		CHECK_OK(ibv_destroy_cq(rcq));
	if (scq)
		CHECK_OK(ibv_destroy_cq(scq));
}

static const struct test_case tests[] = {
	TEST_CASE(create_cq_succeeds_for_sizes_from_1_to_max_cqe),
	TEST_CASE(create_cq_fails_with_einval_for_each_argument_out_of_range),
	TEST_CASE(create_cq_succeeds_on_every_comp_vector),
	TEST_CASE(create_cq_with_channel_records_the_channel),
	TEST_CASE(destroy_comp_channel_fails_with_ebusy_while_cq_uses_it),
	TEST_CASE(req_notify_cq_succeeds_for_next_and_solicited),
	TEST_CASE(poll_cq_returns_zero_on_empty_cq),
	TEST_CASE(poll_cq_returns_flushed_receives_in_order),
	TEST_CASE(comp_channel_delivers_event_after_req_notify_cq),
	TEST_CASE(comp_channel_stays_silent_without_req_notify_cq),
	TEST_CASE(create_cq_ex_succeeds_with_standard_wc_flags),
	TEST_CASE(create_cq_ex_fails_with_einval_when_cqe_exceeds_max),
	TEST_CASE(create_cq_ex_fails_with_eopnotsupp_for_unsupported_wc_flags),
	TEST_CASE(start_poll_returns_enoent_on_empty_cq_ex),
	TEST_CASE(cq_ex_polls_flushed_receives),
	TEST_CASE(end_poll_after_next_poll_enoent_leaves_cq_empty),
	TEST_CASE(resize_cq_grows_and_shrinks_an_empty_cq),
	TEST_CASE(resize_cq_fails_with_einval_when_cqe_exceeds_max),
	TEST_CASE(resize_cq_keeps_completions_when_growing),
	TEST_CASE(resize_cq_fails_with_einval_below_outstanding_completions),
	TEST_CASE(destroy_cq_fails_with_ebusy_while_qp_uses_it),
	TEST_CASE(destroy_cq_fails_with_ebusy_while_qp_receives_on_it),
};

int main(int argc, char **argv)
{
	return run_suite("cq", argc, argv, tests, ARRAY_SIZE(tests));
}
