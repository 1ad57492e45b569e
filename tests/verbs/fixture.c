// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The environment every verbs test runs in: see fixture.h.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fixture.h"

struct ibv_context *open_device_by_name(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int saved_errno = ENODEV;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;

	for (i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(list[i]), name))
			continue;
		ctx = ibv_open_device(list[i]);
		saved_errno = errno;
		break;
	}

	ibv_free_device_list(list);
	if (!ctx)
		errno = saved_errno;
	return ctx;
}

static int setup(struct test_env *env)
{
	int rc;

	env->ctx = open_device_by_name(env->dev_name);
	if (!env->ctx) {
		FAIL("cannot open device %s: %s", env->dev_name,
		     err_name(errno));
		return -1;
	}

	rc = ibv_query_device(env->ctx, &env->dev_attr);
	if (rc) {
		FAIL("ibv_query_device: %s", err_name(rc));
		return -1;
	}

	rc = ibv_query_port(env->ctx, TEST_PORT, &env->port_attr);
	if (rc) {
		FAIL("ibv_query_port: %s", err_name(rc));
		return -1;
	}

	if (ibv_query_gid(env->ctx, TEST_PORT, TEST_GID_INDEX, &env->gid)) {
		FAIL("ibv_query_gid(%d): %s", TEST_GID_INDEX,
		     err_name(errno));
		return -1;
	}

	env->pd = ibv_alloc_pd(env->ctx);
	if (!env->pd) {
		FAIL("ibv_alloc_pd: %s", err_name(errno));
		return -1;
	}

	return 0;
}

/*
 * Reported as a test: a leaked QP, MR, SRQ, AH or MW on the shared PD
 * makes ibv_dealloc_pd() fail with EBUSY.
 */
static void every_object_is_released_at_teardown(struct test_env *env)
{
	if (env->pd)
		CHECK_OK(ibv_dealloc_pd(env->pd));
	if (env->ctx)
		CHECK_OK(ibv_close_device(env->ctx));
}

int run_suite(const char *suite, int argc, char **argv,
	      const struct test_case *tests, size_t n_tests)
{
	struct test_env env = {};
	size_t i;

	tap_init(suite);

	if (argc != 2) {
		fprintf(stderr, "usage: %s <device>\n", argv[0]);
		return 2;
	}
	env.dev_name = argv[1];

	if (setup(&env)) {
		printf("Bail out! %s: cannot set up device %s\n", suite,
		       env.dev_name);
		if (env.ctx)
			ibv_close_device(env.ctx);
		tap_finish();
		return 1;
	}

	for (i = 0; i < n_tests; i++) {
		tap_begin(tests[i].name);
		tests[i].fn(&env);
		tap_end();
	}

	tap_begin("every_object_is_released_at_teardown");
	every_object_is_released_at_teardown(&env);
	tap_end();

	return tap_finish();
}

int find_empty_gid_index(struct test_env *env, uint32_t limit)
{
	uint32_t len = env->port_attr.gid_tbl_len;
	struct ibv_gid_entry *table;
	uint32_t index;
	ssize_t n, i;

	if (limit > len)
		limit = len;

	table = calloc(len, sizeof(*table));
	if (!CHECK(table, "out of memory"))
		return -1;

	n = ibv_query_gid_table(env->ctx, table, len, 0);
	if (!CHECK(n >= 0, "ibv_query_gid_table returned %zd", n)) {
		free(table);
		return -1;
	}

	for (index = 0; index < limit; index++) {
		for (i = 0; i < n; i++)
			if (table[i].port_num == TEST_PORT &&
			    table[i].gid_index == index)
				break;
		if (i == n)
			break;
	}
	free(table);

	if (index == limit) {
		tap_skip("no empty GID table entry below index %u", limit);
		return -1;
	}
	return (int)index;
}

void loopback_ah_attr(const struct test_env *env, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->grh.dgid = env->gid;
	ah->grh.sgid_index = TEST_GID_INDEX;
	ah->grh.hop_limit = 64;
	ah->port_num = TEST_PORT;
}

struct ibv_qp *create_test_qp(struct test_env *env, enum ibv_qp_type type,
			      struct ibv_cq *cq, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.qp_type = type,
		.cap = {
			.max_send_wr = 16,
			.max_recv_wr = srq ? 0 : 16,
			.max_send_sge = 2,
			.max_recv_sge = srq ? 0 : 2,
		},
	};

	return ibv_create_qp(env->pd, &attr);
}

struct ibv_srq *create_srq(struct test_env *env, uint32_t max_wr,
			   uint32_t max_sge, uint32_t limit)
{
	struct ibv_srq_init_attr attr = {
		.attr = { .max_wr = max_wr, .max_sge = max_sge,
			  .srq_limit = limit },
	};

	return ibv_create_srq(env->pd, &attr);
}

void loop_destroy(struct loop *l)
{
	if (l->ah)
		CHECK_OK(ibv_destroy_ah(l->ah));
	if (l->qp)
		CHECK_OK(ibv_destroy_qp(l->qp));
	if (l->mr)
		CHECK_OK(ibv_dereg_mr(l->mr));
	if (l->rcq)
		CHECK_OK(ibv_destroy_cq(l->rcq));
	if (l->scq)
		CHECK_OK(ibv_destroy_cq(l->scq));
	free(l->buf);
	memset(l, 0, sizeof(*l));
}

bool loop_create(struct test_env *env, struct loop *l,
		 enum ibv_qp_type type, int mr_access)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = type,
		.cap = {
			.max_send_wr = 16, .max_recv_wr = 16,
			.max_send_sge = 4, .max_recv_sge = 4,
			.max_inline_data = 64,
		},
	};
	int i;

	memset(l, 0, sizeof(*l));
	l->buf = malloc(BUF_LEN);
	if (!CHECK(l->buf, "out of memory"))
		return false;
	l->src = l->buf;
	l->dst = l->buf + HALF;
	for (i = 0; i < HALF; i++)
		l->src[i] = (char)(i * 7 + 1);
	memset(l->dst, 0, HALF);

	l->scq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 32, NULL, NULL, 0));
	l->rcq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 32, NULL, NULL, 0));
	l->mr = CHECK_NOT_NULL(ibv_reg_mr(env->pd, l->buf, BUF_LEN,
					  mr_access));
	if (!l->scq || !l->rcq || !l->mr)
		goto err;

	attr.send_cq = l->scq;
	attr.recv_cq = l->rcq;
	l->qp = CHECK_NOT_NULL(ibv_create_qp(env->pd, &attr));
	if (!l->qp)
		goto err;
	l->cap = attr.cap;

	if (type == IBV_QPT_UD) {
		struct ibv_ah_attr ah;

		loopback_ah_attr(env, &ah);
		l->ah = CHECK_NOT_NULL(ibv_create_ah(env->pd, &ah));
		if (!l->ah)
			goto err;
	}
	return true;
err:
	loop_destroy(l);
	return false;
}

bool loop_connect(struct test_env *env, struct loop *l,
		  enum ibv_qp_type type, int mr_access)
{
	if (!loop_create(env, l, type, mr_access))
		return false;
	if (!CHECK_OK(qp_connect_self(env, l->qp))) {
		loop_destroy(l);
		return false;
	}
	return true;
}

int qp_to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = TEST_PORT,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	switch (qp->qp_type) {
	case IBV_QPT_UD:
		attr.qkey = TEST_QKEY;
		mask |= IBV_QP_QKEY;
		break;
	case IBV_QPT_UC:
		attr.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		mask |= IBV_QP_ACCESS_FLAGS;
		break;
	default:
		attr.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				       IBV_ACCESS_REMOTE_READ |
				       IBV_ACCESS_REMOTE_ATOMIC;
		mask |= IBV_QP_ACCESS_FLAGS;
		break;
	}

	return ibv_modify_qp(qp, &attr, mask);
}

int qp_to_rtr(struct test_env *env, struct ibv_qp *qp, uint32_t dest_qpn)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = env->port_attr.active_mtu,
		.dest_qp_num = dest_qpn,
		.rq_psn = TEST_RQ_PSN,
		.max_dest_rd_atomic = 4,
		.min_rnr_timer = 12,
	};
	int mask = IBV_QP_STATE;

	if (qp->qp_type == IBV_QPT_UD)
		return ibv_modify_qp(qp, &attr, mask);

	loopback_ah_attr(env, &attr.ah_attr);
	mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		IBV_QP_RQ_PSN;
	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;

	return ibv_modify_qp(qp, &attr, mask);
}

int qp_to_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = TEST_SQ_PSN,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = 4,
	};
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;

	return ibv_modify_qp(qp, &attr, mask);
}

int qp_to_state(struct ibv_qp *qp, enum ibv_qp_state state)
{
	struct ibv_qp_attr attr = { .qp_state = state };

	return ibv_modify_qp(qp, &attr, IBV_QP_STATE);
}

int qp_connect_to(struct test_env *env, struct ibv_qp *qp, uint32_t dest_qpn)
{
	int rc;

	rc = qp_to_init(qp);
	if (!rc)
		rc = qp_to_rtr(env, qp, dest_qpn);
	if (!rc)
		rc = qp_to_rts(qp);
	return rc;
}

int qp_connect_self(struct test_env *env, struct ibv_qp *qp)
{
	return qp_connect_to(env, qp, qp->qp_num);
}

int query_qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	int rc;

	rc = ibv_query_qp(qp, &attr, IBV_QP_STATE, &init);
	if (rc) {
		FAIL("ibv_query_qp: %s", err_name(rc));
		return -1;
	}
	return attr.qp_state;
}

uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static uint64_t now_ms(void)
{
	return now_us() / 1000;
}

bool is_rxe(const struct test_env *env)
{
	const char *type = getenv("DEV_TYPE");

	/*
	 * Both drivers register as RDMA_DRIVER_RXE and librxe drives both,
	 * so nothing the device reports tells them apart: the guest scripts
	 * say which one it is (lib.sh's DEV_TYPE); by hand, the name does.
	 */
	if (type)
		return !strcmp(type, "rxe");
	return !strncmp(env->dev_name, "rxe", 3);
}

void sleep_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (long)(ms % 1000) * 1000000,
	};

	nanosleep(&ts, NULL);
}

int poll_cq_wait(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	uint64_t deadline = now_ms() + TEST_TIMEOUT_MS;
	int got = 0;

	while (got < n) {
		int rc = ibv_poll_cq(cq, n - got, wc + got);

		if (rc < 0) {
			FAIL("ibv_poll_cq returned %d", rc);
			return -1;
		}
		got += rc;
		if (got < n) {
			if (now_ms() > deadline)
				break;
			if (!rc)
				sleep_ms(1);
		}
	}
	return got;
}

bool wait_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	return CHECK(poll_cq_wait(cq, wc, 1) == 1,
		     "no completion within %d ms", TEST_TIMEOUT_MS);
}

bool get_async_event(struct test_env *env, struct ibv_async_event *ev)
{
	struct pollfd pfd = { .fd = env->ctx->async_fd, .events = POLLIN };

	if (poll(&pfd, 1, TEST_TIMEOUT_MS) != 1)
		return false;
	return ibv_get_async_event(env->ctx, ev) == 0;
}

/* Events looked at before giving up on the one expected. */
#define EVENTS_PASSED_OVER	8

bool expect_qp_event(struct test_env *env, struct ibv_qp *qp,
		     enum ibv_event_type type)
{
	struct ibv_async_event ev;
	bool found = false;
	int i;

	for (i = 0; i < EVENTS_PASSED_OVER && !found &&
		    get_async_event(env, &ev); i++) {
		found = ev.event_type == type && ev.element.qp == qp;
		ibv_ack_async_event(&ev);
	}
	return CHECK(found, "no %s event on QP %#x",
		     ibv_event_type_str(type), qp->qp_num);
}

void check_wc(const struct ibv_wc *wc, uint64_t wr_id,
	      enum ibv_wc_status status, enum ibv_wc_opcode opcode)
{
	CHECK(wc->status == status, "wr_id %llu: status %s, expected %s",
	      (unsigned long long)wc->wr_id, ibv_wc_status_str(wc->status),
	      ibv_wc_status_str(status));
	CHECK_EQ(wc->wr_id, wr_id);
	/* The opcode is undefined in error completions (ibv_poll_cq(3)). */
	if (status == IBV_WC_SUCCESS)
		CHECK_EQ(wc->opcode, opcode);
}

long long port_counter(struct test_env *env, const char *name)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s",
		 env->dev_name, name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}
