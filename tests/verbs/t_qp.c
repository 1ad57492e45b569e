// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Queue pairs: creation limits and the modify_qp state machine.
 *
 * The attribute masks each transition requires and allows are those of
 * the IBA (table 91, "QP state transition properties"), which the verbs
 * man pages refer to. RC and UC QPs connect to themselves on the test GID.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "fixture.h"

#define RC_INIT_MASK	(IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | \
			 IBV_QP_ACCESS_FLAGS)
#define RC_RTR_MASK	(IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | \
			 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | \
			 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define RC_RTS_MASK	(IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | \
			 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | \
			 IBV_QP_MAX_QP_RD_ATOMIC)
#define UD_INIT_MASK	(IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | \
			 IBV_QP_QKEY)

static const char *const state_name[] = {
	[IBV_QPS_RESET] = "RESET", [IBV_QPS_INIT] = "INIT",
	[IBV_QPS_RTR] = "RTR", [IBV_QPS_RTS] = "RTS",
	[IBV_QPS_SQD] = "SQD", [IBV_QPS_SQE] = "SQE",
	[IBV_QPS_ERR] = "ERR",
};

static struct ibv_cq *create_cq(struct test_env *env)
{
	return CHECK_NOT_NULL(ibv_create_cq(env->ctx, 64, NULL, NULL, 0));
}

/* Records a failure unless the device reports @qp in @want. */
static bool check_state(struct ibv_qp *qp, enum ibv_qp_state want)
{
	int got = query_qp_state(qp);

	if (got < 0)
		return false;
	return CHECK(got == (int)want, "QP is in %s, expected %s",
		     got <= IBV_QPS_ERR ? state_name[got] : "?",
		     state_name[want]);
}

/* Walks @qp from RESET to @state along the normal path. */
static bool move_to(struct test_env *env, struct ibv_qp *qp,
		    enum ibv_qp_state state)
{
	if (state >= IBV_QPS_INIT && !CHECK_OK(qp_to_init(qp)))
		return false;
	if (state >= IBV_QPS_RTR &&
	    !CHECK_OK(qp_to_rtr(env, qp, qp->qp_num)))
		return false;
	if (state >= IBV_QPS_RTS && !CHECK_OK(qp_to_rts(qp)))
		return false;
	return true;
}

/*
 * A failed modify_qp changes nothing, the state included
 * (ibv_modify_qp(3), NOTES).
 */
static void check_modify_fails(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			       int mask, int want, enum ibv_qp_state state,
			       const char *what)
{
	int rc = ibv_modify_qp(qp, attr, mask);

	CHECK(rc == want, "%s: modify_qp(mask 0x%x) returned %s, expected %s",
	      what, mask, err_name(rc), err_name(want));
	check_state(qp, state);
}

/*
 * A @type QP with @cap on @cq, or NULL with errno set; @attr gets the
 * capacities create_qp reports.
 */
static struct ibv_qp *new_qp(struct test_env *env, struct ibv_cq *cq,
			     enum ibv_qp_type type,
			     const struct ibv_qp_cap *cap,
			     struct ibv_qp_init_attr *attr)
{
	*attr = (struct ibv_qp_init_attr){
		.send_cq = cq, .recv_cq = cq, .cap = *cap,
		.qp_type = type, .sq_sig_all = 1,
	};
	errno = 0;
	return ibv_create_qp(env->pd, attr);
}

/* Capacities at least those asked for. */
static void check_caps(const struct ibv_qp_cap *got,
		       const struct ibv_qp_cap *want)
{
	CHECK_GE(got->max_send_wr, want->max_send_wr);
	CHECK_GE(got->max_recv_wr, want->max_recv_wr);
	CHECK_GE(got->max_send_sge, want->max_send_sge);
	CHECK_GE(got->max_recv_sge, want->max_recv_sge);
	CHECK_GE(got->max_inline_data, want->max_inline_data);
}

/* Creates a QP of @type with @cap and checks what it reports. */
static void check_create_qp(struct test_env *env, enum ibv_qp_type type,
			    const struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr attr, init;
	struct ibv_qp_attr qattr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	cq = create_cq(env);
	if (!cq)
		return;
	qp = CHECK_NOT_NULL(new_qp(env, cq, type, cap, &attr));
	if (!qp)
		goto out;

	/* QP numbers 0 and 1 belong to the special QPs. */
	CHECK_GE(qp->qp_num, 2);
	CHECK_EQ(qp->qp_type, type);
	CHECK_EQ(qp->state, IBV_QPS_RESET);
	CHECK(qp->pd == env->pd, "QP has the wrong PD");
	/* ibv_create_qp() returns the actual capacities in attr.cap. */
	check_caps(&attr.cap, cap);

	if (CHECK_OK(ibv_query_qp(qp, &qattr, IBV_QP_STATE | IBV_QP_CAP,
				  &init))) {
		CHECK_EQ(qattr.qp_state, IBV_QPS_RESET);
		CHECK_EQ(init.qp_type, type);
		CHECK(init.send_cq == cq && init.recv_cq == cq,
		      "query_qp reports other CQs");
		CHECK(!init.srq, "query_qp reports an SRQ");
		CHECK_EQ(init.sq_sig_all, 1);
		check_caps(&init.cap, cap);
	}
	CHECK_OK(ibv_destroy_qp(qp));
out:
	CHECK_OK(ibv_destroy_cq(cq));
}

static const struct ibv_qp_cap small_cap = {
	.max_send_wr = 32, .max_recv_wr = 32,
	.max_send_sge = 4, .max_recv_sge = 4,
	.max_inline_data = 64,
};

static void create_rc_qp_starts_in_reset_with_at_least_requested_caps(
	struct test_env *env)
{
	check_create_qp(env, IBV_QPT_RC, &small_cap);
}

static void create_uc_qp_starts_in_reset_with_at_least_requested_caps(
	struct test_env *env)
{
	check_create_qp(env, IBV_QPT_UC, &small_cap);
}

static void create_ud_qp_starts_in_reset_with_at_least_requested_caps(
	struct test_env *env)
{
	check_create_qp(env, IBV_QPT_UD, &small_cap);
}

static void create_qp_assigns_distinct_qp_numbers(struct test_env *env)
{
	enum { N = 16 };
	struct ibv_qp *qp[N];
	struct ibv_cq *cq;
	int i, j, n;

	cq = create_cq(env);
	if (!cq)
		return;

	for (n = 0; n < N; n++) {
		qp[n] = CHECK_NOT_NULL(create_test_qp(env, n % 2 ?
						      IBV_QPT_UD : IBV_QPT_RC,
						      cq, NULL));
		if (!qp[n])
			break;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			CHECK(qp[i]->qp_num != qp[j]->qp_num,
			      "QPs %d and %d share number %u", j, i,
			      qp[i]->qp_num);
	for (i = 0; i < n; i++)
		CHECK_OK(ibv_destroy_qp(qp[i]));
	CHECK_OK(ibv_destroy_cq(cq));
}

/*
 * Creates an RC QP with @cap, which asks for one device maximum. The
 * queues may need hundreds of MiB: ENOMEM means the guest is too small,
 * not that the device is wrong.
 */
static void check_create_qp_at_limit(struct test_env *env,
				     const struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr attr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	cq = create_cq(env);
	if (!cq)
		return;
	qp = new_qp(env, cq, IBV_QPT_RC, cap, &attr);
	if (!qp && errno == ENOMEM) {
		tap_skip("not enough memory for queues of this size");
	} else if (CHECK(qp, "create_qp failed with %s", err_name(errno))) {
		check_caps(&attr.cap, cap);
		CHECK_OK(ibv_destroy_qp(qp));
	}
	CHECK_OK(ibv_destroy_cq(cq));
}

static void create_qp_succeeds_with_max_send_wr(struct test_env *env)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = env->dev_attr.max_qp_wr, .max_recv_wr = 1,
		.max_send_sge = 1, .max_recv_sge = 1,
	};

	check_create_qp_at_limit(env, &cap);
}

static void create_qp_succeeds_with_max_recv_wr(struct test_env *env)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = 1, .max_recv_wr = env->dev_attr.max_qp_wr,
		.max_send_sge = 1, .max_recv_sge = 1,
	};

	check_create_qp_at_limit(env, &cap);
}

static void create_qp_succeeds_with_max_sge(struct test_env *env)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = 64, .max_recv_wr = 64,
		.max_send_sge = env->dev_attr.max_sge,
		.max_recv_sge = env->dev_attr.max_sge,
	};

	check_create_qp_at_limit(env, &cap);
}

/* Tries to create a @type QP with @cap and expects errno @want. */
static void check_create_qp_fails(struct test_env *env, enum ibv_qp_type type,
				  const struct ibv_qp_cap *cap, int want,
				  const char *what)
{
	struct ibv_qp_init_attr attr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	cq = create_cq(env);
	if (!cq)
		return;
	qp = CHECK_NULL_ERRNO_AS(what, new_qp(env, cq, type, cap, &attr), want);
	if (qp)
		ibv_destroy_qp(qp);
	CHECK_OK(ibv_destroy_cq(cq));
}

/* Each capability one past what the device reports, in turn. */
static void create_qp_fails_with_einval_for_each_cap_beyond_its_limit(
	struct test_env *env)
{
	const struct ibv_device_attr *dev = &env->dev_attr;
	const struct {
		const char *what;
		enum ibv_qp_type type;
		size_t field;
		uint32_t value;
	} c[] = {
		{ "max_send_wr", IBV_QPT_RC,
		  offsetof(struct ibv_qp_cap, max_send_wr), dev->max_qp_wr + 1 },
		{ "max_recv_wr", IBV_QPT_RC,
		  offsetof(struct ibv_qp_cap, max_recv_wr), dev->max_qp_wr + 1 },
		{ "max_send_sge", IBV_QPT_RC,
		  offsetof(struct ibv_qp_cap, max_send_sge), dev->max_sge + 1 },
		{ "max_recv_sge", IBV_QPT_UD,
		  offsetof(struct ibv_qp_cap, max_recv_sge), dev->max_sge + 1 },
		/* No send WQE of a software device holds a MiB inline. */
		{ "max_inline_data", IBV_QPT_RC,
		  offsetof(struct ibv_qp_cap, max_inline_data), 1 << 20 },
	};
	struct ibv_qp_cap cap;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		cap = small_cap;
		memcpy((char *)&cap + c[i].field, &c[i].value,
		       sizeof(c[i].value));
		check_create_qp_fails(env, c[i].type, &cap, EINVAL, c[i].what);
	}
}

static void create_qp_fails_with_eopnotsupp_for_raw_packet_type(
	struct test_env *env)
{
	check_create_qp_fails(env, IBV_QPT_RAW_PACKET, &small_cap,
			      EOPNOTSUPP, "raw packet QP");
}

static void create_qp_with_srq_reports_the_srq(struct test_env *env)
{
	struct ibv_srq_init_attr sattr = {
		.attr = { .max_wr = 16, .max_sge = 1 },
	};
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	cq = create_cq(env);
	if (!cq)
		return;
	srq = CHECK_NOT_NULL(ibv_create_srq(env->pd, &sattr));
	if (!srq)
		goto out_cq;

	qp = CHECK_NOT_NULL(create_test_qp(env, IBV_QPT_RC, cq, srq));
	if (!qp)
		goto out_srq;

	CHECK(qp->srq == srq, "QP does not record its SRQ");
	if (CHECK_OK(ibv_query_qp(qp, &attr, IBV_QP_CAP, &init)))
		CHECK(init.srq == srq, "query_qp reports another SRQ");
	CHECK(move_to(env, qp, IBV_QPS_RTS), "QP with SRQ cannot reach RTS");
	CHECK_OK(ibv_destroy_qp(qp));
out_srq:
	CHECK_OK(ibv_destroy_srq(srq));
out_cq:
	CHECK_OK(ibv_destroy_cq(cq));
}

/* A QP from @attr: of the type, caps and send ops asked for; reaches RTS. */
static void check_new_qp_ex(struct test_env *env, struct ibv_qp *qp,
			    const struct ibv_qp_init_attr_ex *attr)
{
	CHECK_EQ(qp->qp_type, attr->qp_type);
	CHECK_GE(attr->cap.max_send_wr, small_cap.max_send_wr);
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		CHECK(ibv_qp_to_qp_ex(qp), "QP has no ibv_qp_ex");
	CHECK(move_to(env, qp, IBV_QPS_RTS), "QP cannot reach RTS");
}

/*
 * Creates a QP with @attr on a CQ of its own: with @want 0 it must work
 * (check_new_qp_ex()), otherwise fail with errno @want.
 */
static void check_create_qp_ex(struct test_env *env,
			       struct ibv_qp_init_attr_ex *attr, int want)
{
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	cq = create_cq(env);
	if (!cq)
		return;
	attr->send_cq = cq;
	attr->recv_cq = cq;
	if (want) {
		qp = CHECK_NULL_ERRNO(ibv_create_qp_ex(env->ctx, attr), want);
		if (qp)
			ibv_destroy_qp(qp);
	} else {
		qp = CHECK_NOT_NULL(ibv_create_qp_ex(env->ctx, attr));
		if (qp) {
			check_new_qp_ex(env, qp, attr);
			CHECK_OK(ibv_destroy_qp(qp));
		}
	}
	CHECK_OK(ibv_destroy_cq(cq));
}

static void create_qp_ex_creates_qp_with_send_ops(struct test_env *env)
{
	struct ibv_qp_init_attr_ex attr = {
		.qp_type = IBV_QPT_RC,
		.cap = small_cap,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = env->pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_READ |
				  IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
				  IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP,
	};

	check_create_qp_ex(env, &attr, 0);
}

static void create_qp_ex_creates_ud_qp_without_send_ops(struct test_env *env)
{
	struct ibv_qp_init_attr_ex attr = {
		.qp_type = IBV_QPT_UD,
		.cap = small_cap,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = env->pd,
	};

	check_create_qp_ex(env, &attr, 0);
}

static void create_qp_ex_fails_for_what_the_device_cannot_do(
	struct test_env *env)
{
	struct {
		struct ibv_qp_init_attr_ex attr;
		bool with_pd;
		int err;
	} t[] = {
		/* TSO is for raw packet QPs only. */
		{ { .comp_mask = IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		    .send_ops_flags = IBV_QP_EX_WITH_SEND |
				      IBV_QP_EX_WITH_TSO }, true, EOPNOTSUPP },
		{ { .comp_mask = IBV_QP_INIT_ATTR_CREATE_FLAGS,
		    .create_flags = IBV_QP_CREATE_SCATTER_FCS }, true,
		  EOPNOTSUPP },
		{ { .comp_mask = 0 }, false, EINVAL },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		t[i].attr.qp_type = IBV_QPT_RC;
		t[i].attr.cap = small_cap;
		if (t[i].with_pd) {
			t[i].attr.comp_mask |= IBV_QP_INIT_ATTR_PD;
			t[i].attr.pd = env->pd;
		}
		check_create_qp_ex(env, &t[i].attr, t[i].err);
	}
}

/* SQD is reached once the send queue drained; the QP reports draining. */
static bool wait_drained(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	int i;

	for (i = 0; i < TEST_TIMEOUT_MS; i++) {
		if (!CHECK_OK(ibv_query_qp(qp, &attr, IBV_QP_STATE, &init)))
			return false;
		if (!CHECK_EQ(attr.qp_state, IBV_QPS_SQD))
			return false;
		if (!attr.sq_draining)
			return true;
		sleep_ms(1);
	}
	FAIL("send queue still draining after %d ms", TEST_TIMEOUT_MS);
	return false;
}

/*
 * One step of a walk: the modify that takes @qp from @cur to @to, with
 * the attributes that transition needs, then the state it must be in
 * (SQD once drained).
 */
static bool walk_step(struct test_env *env, struct ibv_qp *qp,
		      enum ibv_qp_state cur, enum ibv_qp_state to)
{
	int rc;

	if (to == IBV_QPS_INIT)
		rc = qp_to_init(qp);
	else if (to == IBV_QPS_RTR)
		rc = qp_to_rtr(env, qp, qp->qp_num);
	else if (to == IBV_QPS_RTS && cur == IBV_QPS_RTR)
		rc = qp_to_rts(qp);
	else
		rc = qp_to_state(qp, to);
	if (!CHECK(!rc, "%s -> %s: %s", state_name[cur], state_name[to],
		   err_name(rc)))
		return false;
	return to == IBV_QPS_SQD ? wait_drained(qp) : check_state(qp, to);
}

/* A new @type QP along @path from RESET, checking each state it reaches. */
static void walk(struct test_env *env, enum ibv_qp_type type,
		 const enum ibv_qp_state *path, size_t n)
{
	enum ibv_qp_state cur = IBV_QPS_RESET;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	size_t i;

	cq = create_cq(env);
	if (!cq)
		return;
	qp = CHECK_NOT_NULL(create_test_qp(env, type, cq, NULL));
	if (qp && check_state(qp, IBV_QPS_RESET)) {
		for (i = 0; i < n && walk_step(env, qp, cur, path[i]); i++)
			cur = path[i];
		/* libibverbs keeps the state of the last modify too. */
		if (i == n)
			CHECK_EQ(qp->state, cur);
	}
	if (qp)
		CHECK_OK(ibv_destroy_qp(qp));
	CHECK_OK(ibv_destroy_cq(cq));
}

/* Ends as it began: a reset QP is as good as new. */
static void rc_qp_walks_reset_init_rtr_rts_sqd_rts_err_reset_init(
	struct test_env *env)
{
	static const enum ibv_qp_state path[] = {
		IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QPS_SQD,
		IBV_QPS_RTS, IBV_QPS_SQD, IBV_QPS_ERR, IBV_QPS_RESET,
		IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS,
	};

	walk(env, IBV_QPT_RC, path, ARRAY_SIZE(path));
}

static const enum ibv_qp_state unreliable_path[] = {
	IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QPS_SQD, IBV_QPS_RTS,
	IBV_QPS_ERR, IBV_QPS_RESET,
};

static void uc_qp_walks_reset_init_rtr_rts_sqd_rts_err_reset(
	struct test_env *env)
{
	walk(env, IBV_QPT_UC, unreliable_path, ARRAY_SIZE(unreliable_path));
}

static void ud_qp_walks_reset_init_rtr_rts_sqd_rts_err_reset(
	struct test_env *env)
{
	walk(env, IBV_QPT_UD, unreliable_path, ARRAY_SIZE(unreliable_path));
}

/*
 * Every state but RESET may move to ERR, and every state to RESET
 * (IBA 10.3.1; RESET -> ERR is not a transition of the QP state diagram).
 */
static void check_any_state_moves_to(struct test_env *env,
				     enum ibv_qp_state to)
{
	static const enum ibv_qp_state all[] = {
		IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS,
	};
	const enum ibv_qp_state *from = all;
	size_t i, n = ARRAY_SIZE(all);
	struct ibv_cq *cq;

	if (to == IBV_QPS_ERR) {
		from++;
		n--;
	}

	cq = create_cq(env);
	if (!cq)
		return;

	for (i = 0; i < n; i++) {
		struct ibv_qp *qp;
		int rc;

		qp = CHECK_NOT_NULL(create_test_qp(env, IBV_QPT_RC, cq, NULL));
		if (!qp)
			break;
		if (move_to(env, qp, from[i])) {
			rc = qp_to_state(qp, to);
			CHECK(rc == 0, "%s -> %s returned %s",
			      state_name[from[i]], state_name[to],
			      err_name(rc));
			check_state(qp, to);
		}
		CHECK_OK(ibv_destroy_qp(qp));
	}
	CHECK_OK(ibv_destroy_cq(cq));
}

static void modify_qp_moves_every_state_but_reset_to_err(
	struct test_env *env)
{
	check_any_state_moves_to(env, IBV_QPS_ERR);
}

static void modify_qp_moves_every_state_to_reset(struct test_env *env)
{
	check_any_state_moves_to(env, IBV_QPS_RESET);
}

static void query_qp_returns_the_attributes_set_by_modify(
	struct test_env *env)
{
	struct ibv_qp_attr attr = {}, q;
	struct ibv_qp_init_attr init;
	enum ibv_mtu mtu = IBV_MTU_512;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

	cq = create_cq(env);
	if (!cq)
		return;
	qp = CHECK_NOT_NULL(create_test_qp(env, IBV_QPT_RC, cq, NULL));
	if (!qp)
		goto out;

	attr.qp_state = IBV_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = TEST_PORT;
	attr.qp_access_flags = access;
	if (!CHECK_OK(ibv_modify_qp(qp, &attr, RC_INIT_MASK)))
		goto out_qp;

	attr.qp_state = IBV_QPS_RTR;
	loopback_ah_attr(env, &attr.ah_attr);
	attr.ah_attr.grh.traffic_class = 0x20;
	attr.path_mtu = mtu;
	attr.dest_qp_num = qp->qp_num;
	attr.rq_psn = 0xabcdef;
	/* Powers of two: a device may round these up. */
	attr.max_dest_rd_atomic = 8;
	attr.min_rnr_timer = 9;
	if (!CHECK_OK(ibv_modify_qp(qp, &attr, RC_RTR_MASK)))
		goto out_qp;

	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = 0x345678;
	attr.timeout = 17;
	attr.retry_cnt = 5;
	attr.rnr_retry = 6;
	attr.max_rd_atomic = 2;
	if (!CHECK_OK(ibv_modify_qp(qp, &attr, RC_RTS_MASK)))
		goto out_qp;

	memset(&q, 0x5a, sizeof(q));
	if (!CHECK_OK(ibv_query_qp(qp, &q, RC_INIT_MASK | RC_RTR_MASK |
				   RC_RTS_MASK, &init)))
		goto out_qp;

	CHECK_EQ(q.qp_state, IBV_QPS_RTS);
	CHECK_EQ(q.pkey_index, 0);
	CHECK_EQ(q.port_num, TEST_PORT);
	CHECK_EQ(q.qp_access_flags, access);
	CHECK_EQ(q.path_mtu, mtu);
	CHECK_EQ(q.dest_qp_num, qp->qp_num);
	CHECK_EQ(q.rq_psn, 0xabcdef);
	CHECK_EQ(q.sq_psn, 0x345678);
	CHECK_EQ(q.timeout, 17);
	CHECK_EQ(q.retry_cnt, 5);
	CHECK_EQ(q.rnr_retry, 6);
	CHECK_EQ(q.min_rnr_timer, 9);
	CHECK_EQ(q.max_rd_atomic, 2);
	CHECK_EQ(q.max_dest_rd_atomic, 8);
	CHECK_EQ(q.ah_attr.is_global, 1);
	CHECK_EQ(q.ah_attr.port_num, TEST_PORT);
	CHECK_EQ(q.ah_attr.grh.sgid_index, TEST_GID_INDEX);
	/* For RoCE the core takes the hop limit from the IP route. */
	CHECK_EQ(q.ah_attr.grh.traffic_class, 0x20);
	CHECK(!memcmp(&q.ah_attr.grh.dgid, &env->gid, sizeof(env->gid)),
	      "query_qp reports another destination GID");
out_qp:
	CHECK_OK(ibv_destroy_qp(qp));
out:
	CHECK_OK(ibv_destroy_cq(cq));
}

static void query_qp_returns_the_qkey_of_a_ud_qp(struct test_env *env)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr q;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	cq = create_cq(env);
	if (!cq)
		return;
	qp = CHECK_NOT_NULL(create_test_qp(env, IBV_QPT_UD, cq, NULL));
	if (!qp)
		goto out;
	if (move_to(env, qp, IBV_QPS_RTS) &&
	    CHECK_OK(ibv_query_qp(qp, &q, IBV_QP_QKEY | IBV_QP_SQ_PSN |
				  IBV_QP_STATE, &init))) {
		CHECK_EQ(q.qkey, TEST_QKEY);
		CHECK_EQ(q.sq_psn, TEST_SQ_PSN);
		CHECK_EQ(q.qp_state, IBV_QPS_RTS);
	}
	CHECK_OK(ibv_destroy_qp(qp));
out:
	CHECK_OK(ibv_destroy_cq(cq));
}

/* A QP of @type moved to @state, for the negative transition tests. */
static struct ibv_qp *qp_in_state(struct test_env *env, struct ibv_cq *cq,
				  enum ibv_qp_type type,
				  enum ibv_qp_state state)
{
	struct ibv_qp *qp;

	qp = CHECK_NOT_NULL(create_test_qp(env, type, cq, NULL));
	if (qp && !move_to(env, qp, state)) {
		ibv_destroy_qp(qp);
		qp = NULL;
	}
	return qp;
}

/* Fully populated attributes for every transition of the tests below. */
static void full_attr(struct test_env *env, struct ibv_qp *qp,
		      struct ibv_qp_attr *attr, enum ibv_qp_state state)
{
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = state;
	attr->pkey_index = 0;
	attr->port_num = TEST_PORT;
	attr->qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	attr->qkey = TEST_QKEY;
	loopback_ah_attr(env, &attr->ah_attr);
	attr->path_mtu = env->port_attr.active_mtu;
	attr->dest_qp_num = qp->qp_num;
	attr->rq_psn = TEST_RQ_PSN;
	attr->sq_psn = TEST_SQ_PSN;
	attr->max_dest_rd_atomic = 1;
	attr->min_rnr_timer = 12;
	attr->timeout = 14;
	attr->retry_cnt = 7;
	attr->rnr_retry = 7;
	attr->max_rd_atomic = 1;
}

/*
 * A modify_qp that must fail and change nothing: a fresh @type QP in
 * @from, the full attributes for @to with @spoil applied, @mask.  @what
 * names it in a failure, "FROM -> TO" when NULL.  @spoil gets @value.
 */
struct bad_modify {
	const char *what;
	enum ibv_qp_type type;
	enum ibv_qp_state from, to;
	int mask;
	int err;
	void (*spoil)(struct ibv_qp_attr *attr, int value);
	int value;
};

static void check_bad_modify(struct test_env *env, const struct bad_modify *b)
{
	struct ibv_qp_attr attr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	char what[32];

	cq = create_cq(env);
	if (!cq)
		return;
	qp = qp_in_state(env, cq, b->type, b->from);
	if (qp) {
		snprintf(what, sizeof(what), "%s -> %s", state_name[b->from],
			 state_name[b->to]);
		full_attr(env, qp, &attr, b->to);
		if (b->spoil)
			b->spoil(&attr, b->value);
		check_modify_fails(qp, &attr, b->mask, b->err, b->from,
				   b->what ? b->what : what);
		CHECK_OK(ibv_destroy_qp(qp));
	}
	CHECK_OK(ibv_destroy_cq(cq));
}

static void check_bad_modifies(struct test_env *env,
			       const struct bad_modify *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		check_bad_modify(env, &b[i]);
}

/* Only the state: no attribute set makes these transitions legal. */
#define ILLEGAL(f, t)	{ NULL, IBV_QPT_RC, IBV_QPS_##f, IBV_QPS_##t, \
			  IBV_QP_STATE, EINVAL, NULL, 0 }

static void modify_qp_fails_with_einval_for_reset_to_rts(
	struct test_env *env)
{
	static const struct bad_modify b[] = {
		{ NULL, IBV_QPT_RC, IBV_QPS_RESET, IBV_QPS_RTS, RC_RTS_MASK,
		  EINVAL, NULL, 0 },
		{ "RESET -> RTS, all attributes", IBV_QPT_RC, IBV_QPS_RESET,
		  IBV_QPS_RTS, RC_INIT_MASK | RC_RTR_MASK | RC_RTS_MASK,
		  EINVAL, NULL, 0 },
	};

	check_bad_modifies(env, b, ARRAY_SIZE(b));
}

static void modify_qp_fails_with_einval_for_init_to_rts(
	struct test_env *env)
{
	static const struct bad_modify b = {
		NULL, IBV_QPT_RC, IBV_QPS_INIT, IBV_QPS_RTS, RC_RTS_MASK, EINVAL,
		NULL, 0,
	};

	check_bad_modify(env, &b);
}

static void modify_qp_fails_with_einval_for_other_illegal_transitions(
	struct test_env *env)
{
	static const struct bad_modify b[] = {
		ILLEGAL(RESET, RTR), ILLEGAL(RESET, ERR), ILLEGAL(RESET, SQD),
		ILLEGAL(INIT, SQD), ILLEGAL(RTR, INIT), ILLEGAL(RTR, SQD),
		ILLEGAL(RTS, INIT), ILLEGAL(RTS, RTR),
	};

	check_bad_modifies(env, b, ARRAY_SIZE(b));
}

/*
 * Drops each required attribute of one transition in turn; every such
 * modify must fail with EINVAL and leave the QP in @from.
 */
static void check_required_attributes(struct test_env *env,
				      enum ibv_qp_type type,
				      enum ibv_qp_state from,
				      enum ibv_qp_state to, int required)
{
	struct ibv_qp_attr attr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int bit;

	cq = create_cq(env);
	if (!cq)
		return;
	qp = qp_in_state(env, cq, type, from);
	if (!qp)
		goto out;

	for (bit = 1; bit <= required; bit <<= 1) {
		char what[64];

		if (bit == IBV_QP_STATE || !(required & bit))
			continue;
		snprintf(what, sizeof(what), "%s -> %s without mask bit 0x%x",
			 state_name[from], state_name[to], bit);
		full_attr(env, qp, &attr, to);
		check_modify_fails(qp, &attr, required & ~bit, EINVAL, from,
				   what);
	}

	/* With every required attribute the transition works. */
	full_attr(env, qp, &attr, to);
	if (CHECK_OK(ibv_modify_qp(qp, &attr, required)))
		check_state(qp, to);

	CHECK_OK(ibv_destroy_qp(qp));
out:
	CHECK_OK(ibv_destroy_cq(cq));
}

/* The required attributes of each transition (IBA table 91). */
static void modify_qp_fails_with_einval_when_a_required_attribute_lacks(
	struct test_env *env)
{
	static const struct {
		enum ibv_qp_type type;
		enum ibv_qp_state from, to;
		int required;
	} t[] = {
		{ IBV_QPT_RC, IBV_QPS_RESET, IBV_QPS_INIT, RC_INIT_MASK },
		{ IBV_QPT_RC, IBV_QPS_INIT, IBV_QPS_RTR, RC_RTR_MASK },
		{ IBV_QPT_RC, IBV_QPS_RTR, IBV_QPS_RTS, RC_RTS_MASK },
		{ IBV_QPT_UD, IBV_QPS_RESET, IBV_QPS_INIT, UD_INIT_MASK },
		{ IBV_QPT_UD, IBV_QPS_RTR, IBV_QPS_RTS,
		  IBV_QP_STATE | IBV_QP_SQ_PSN },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		check_required_attributes(env, t[i].type, t[i].from, t[i].to,
					  t[i].required);
}

static void modify_qp_fails_with_einval_for_attribute_not_allowed(
	struct test_env *env)
{
	static const struct bad_modify b[] = {
		{ "RC RESET -> INIT with SQ_PSN", IBV_QPT_RC, IBV_QPS_RESET,
		  IBV_QPS_INIT, RC_INIT_MASK | IBV_QP_SQ_PSN, EINVAL, NULL, 0 },
		/* UD has no remote access rights and no connection. */
		{ "UD RESET -> INIT with ACCESS_FLAGS", IBV_QPT_UD,
		  IBV_QPS_RESET, IBV_QPS_INIT,
		  UD_INIT_MASK | IBV_QP_ACCESS_FLAGS, EINVAL, NULL, 0 },
		{ "UD INIT -> RTR with DEST_QPN", IBV_QPT_UD, IBV_QPS_INIT,
		  IBV_QPS_RTR, IBV_QP_STATE | IBV_QP_DEST_QPN, EINVAL, NULL,
		  0 },
	};

	check_bad_modifies(env, b, ARRAY_SIZE(b));
}

/* The spoilers: each sets one attribute to a value it may not have. */
static void set_port(struct ibv_qp_attr *attr, int v)
{
	attr->port_num = v;
}

static void set_path_mtu(struct ibv_qp_attr *attr, int v)
{
	attr->path_mtu = v;
}

static void set_max_rd_atomic(struct ibv_qp_attr *attr, int v)
{
	attr->max_rd_atomic = v;
}

static void set_timeout(struct ibv_qp_attr *attr, int v)
{
	attr->timeout = v;
}

static void set_sgid_index(struct ibv_qp_attr *attr, int v)
{
	attr->ah_attr.grh.sgid_index = v;
}

static void set_is_global(struct ibv_qp_attr *attr, int v)
{
	attr->ah_attr.is_global = v;
}

#define RC_INIT(what, fn, v)	{ what, IBV_QPT_RC, IBV_QPS_RESET, \
				  IBV_QPS_INIT, RC_INIT_MASK, EINVAL, fn, v }
#define RC_RTR(what, err, fn, v) { what, IBV_QPT_RC, IBV_QPS_INIT, \
				  IBV_QPS_RTR, RC_RTR_MASK, err, fn, v }
#define RC_RTS(what, fn, v)	{ what, IBV_QPT_RC, IBV_QPS_RTR, \
				  IBV_QPS_RTS, RC_RTS_MASK, EINVAL, fn, v }

/* One attribute out of its range at a time; each modify fails. */
static void modify_qp_fails_with_einval_for_each_attribute_out_of_range(
	struct test_env *env)
{
	struct bad_modify b[] = {
		RC_INIT("port 0", set_port, 0),
		RC_INIT("port past the last", set_port,
			env->dev_attr.phys_port_cnt + 1),
		RC_RTR("path_mtu 6", EINVAL, set_path_mtu, IBV_MTU_4096 + 1),
		/* RoCE addresses need a GRH. */
		RC_RTR("no GRH", EINVAL, set_is_global, 0),
		RC_RTS("max_rd_atomic", set_max_rd_atomic,
		       env->dev_attr.max_qp_rd_atom + 1),
		/* The local ACK timeout is a 5-bit field (IBA 9.7.6.1.3). */
		RC_RTS("timeout 32", set_timeout, 32),
	};

	check_bad_modifies(env, b, ARRAY_SIZE(b));
}

/*
 * rdma_rxe bounds the path MTU by the port's max_mtu, not its active_mtu
 * (a larger path MTU is only a hint on RoCE: the netdev MTU decides).
 */
static void modify_qp_accepts_path_mtu_above_active_mtu_up_to_max_mtu(
	struct test_env *env)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	if (env->port_attr.max_mtu <= env->port_attr.active_mtu) {
		tap_skip("max_mtu equals active_mtu");
		return;
	}

	cq = create_cq(env);
	if (!cq)
		return;
	qp = qp_in_state(env, cq, IBV_QPT_RC, IBV_QPS_INIT);
	if (qp) {
		full_attr(env, qp, &attr, IBV_QPS_RTR);
		attr.path_mtu = env->port_attr.max_mtu;
		if (CHECK_OK(ibv_modify_qp(qp, &attr, RC_RTR_MASK)) &&
		    CHECK_OK(ibv_query_qp(qp, &attr, IBV_QP_PATH_MTU, &init)))
			CHECK_EQ(attr.path_mtu, env->port_attr.max_mtu);
		CHECK_OK(ibv_destroy_qp(qp));
	}
	CHECK_OK(ibv_destroy_cq(cq));
}

/*
 * 0 is no enum ibv_mtu value (ibv_modify_qp(3)). rdma_rxe in 6.1 accepts
 * it and then computes with an MTU of -1: the man page wins here, and
 * against rxe this is a known failure.
 */
static void modify_qp_fails_with_einval_for_path_mtu_0(struct test_env *env)
{
	static const struct bad_modify b =
		RC_RTR("path_mtu 0", EINVAL, set_path_mtu, 0);

	if (is_rxe(env))
		tap_xfail("rdma_rxe 6.1 accepts path_mtu 0");
	check_bad_modify(env, &b);
}

/* The core resolves the source GID entry: an empty one has no data. */
static void modify_qp_fails_with_enodata_for_av_with_empty_sgid_index(
	struct test_env *env)
{
	struct bad_modify b =
		RC_RTR("empty sgid_index", ENODATA, set_sgid_index, 0);

	/* sgid_index has 8 bits. */
	b.value = find_empty_gid_index(env, 256);
	if (b.value >= 0)
		check_bad_modify(env, &b);
}

static const struct test_case tests[] = {
	TEST_CASE(create_rc_qp_starts_in_reset_with_at_least_requested_caps),
	TEST_CASE(create_uc_qp_starts_in_reset_with_at_least_requested_caps),
	TEST_CASE(create_ud_qp_starts_in_reset_with_at_least_requested_caps),
	TEST_CASE(create_qp_assigns_distinct_qp_numbers),
	TEST_CASE(create_qp_succeeds_with_max_send_wr),
	TEST_CASE(create_qp_succeeds_with_max_recv_wr),
	TEST_CASE(create_qp_succeeds_with_max_sge),
	TEST_CASE(create_qp_fails_with_einval_for_each_cap_beyond_its_limit),
	TEST_CASE(create_qp_fails_with_eopnotsupp_for_raw_packet_type),
	TEST_CASE(create_qp_with_srq_reports_the_srq),
	TEST_CASE(create_qp_ex_creates_qp_with_send_ops),
	TEST_CASE(create_qp_ex_creates_ud_qp_without_send_ops),
	TEST_CASE(create_qp_ex_fails_for_what_the_device_cannot_do),
	TEST_CASE(rc_qp_walks_reset_init_rtr_rts_sqd_rts_err_reset_init),
	TEST_CASE(uc_qp_walks_reset_init_rtr_rts_sqd_rts_err_reset),
	TEST_CASE(ud_qp_walks_reset_init_rtr_rts_sqd_rts_err_reset),
	TEST_CASE(modify_qp_moves_every_state_but_reset_to_err),
	TEST_CASE(modify_qp_moves_every_state_to_reset),
	TEST_CASE(query_qp_returns_the_attributes_set_by_modify),
	TEST_CASE(query_qp_returns_the_qkey_of_a_ud_qp),
	TEST_CASE(modify_qp_fails_with_einval_for_reset_to_rts),
	TEST_CASE(modify_qp_fails_with_einval_for_init_to_rts),
	TEST_CASE(modify_qp_fails_with_einval_for_other_illegal_transitions),
	TEST_CASE(modify_qp_fails_with_einval_when_a_required_attribute_lacks),
	TEST_CASE(modify_qp_fails_with_einval_for_attribute_not_allowed),
	TEST_CASE(modify_qp_fails_with_einval_for_each_attribute_out_of_range),
	TEST_CASE(modify_qp_accepts_path_mtu_above_active_mtu_up_to_max_mtu),
	TEST_CASE(modify_qp_fails_with_einval_for_path_mtu_0),
	TEST_CASE(modify_qp_fails_with_enodata_for_av_with_empty_sgid_index),
};

int main(int argc, char **argv)
{
	return run_suite("qp", argc, argv, tests, ARRAY_SIZE(tests));
}
