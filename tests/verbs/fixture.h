/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The environment every verbs test runs in, and the verbs sequences that
 * many tests share (QP state transitions, waiting for completions).
 *
 * Each test program is a table of test cases handed to run_suite(). The
 * suite opens the device named by argv[1] once and gives every test the
 * same context and a shared PD; tests create and destroy everything else
 * themselves.
 */
#ifndef RXC_TESTS_VERBS_FIXTURE_H
#define RXC_TESTS_VERBS_FIXTURE_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "tap.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The port and GID every test uses: the guest gives the netdev IPv4. */
#define TEST_PORT	1
#define TEST_GID_INDEX	1

/* Software RDMA in an emulated guest is slow: be generous. */
#define TEST_TIMEOUT_MS	10000

#define TEST_QKEY	0x11111111u
#define TEST_SQ_PSN	0x123456u
#define TEST_RQ_PSN	0x123456u

struct test_env {
	const char *dev_name;
	struct ibv_context *ctx;
	struct ibv_device_attr dev_attr;
	struct ibv_port_attr port_attr;
	union ibv_gid gid;		/* GID at TEST_GID_INDEX */
	struct ibv_pd *pd;		/* shared; tests must not free it */
};

struct test_case {
	const char *name;
	void (*fn)(struct test_env *env);
};

/* The test is named after the function, which is named after the behaviour. */
#define TEST_CASE(fn) { #fn, fn }

int run_suite(const char *suite, int argc, char **argv,
	      const struct test_case *tests, size_t n_tests);

struct ibv_context *open_device_by_name(const char *name);

/*
 * The lowest GID index of the test port below @limit that holds no GID,
 * or -1 (and a test skip or failure) if there is none.
 */
int find_empty_gid_index(struct test_env *env, uint32_t limit);

/* A RoCE address vector from the test GID to itself. */
void loopback_ah_attr(const struct test_env *env, struct ibv_ah_attr *ah);

/*
 * A QP with small queues (and its own send and receive CQ). Returns NULL
 * with errno set.
 */
struct ibv_qp *create_test_qp(struct test_env *env, enum ibv_qp_type type,
			      struct ibv_cq *cq, struct ibv_srq *srq);

/*
 * An SRQ with room for @max_wr receives of @max_sge SGEs and the limit
 * @limit. Returns NULL with errno set.
 */
struct ibv_srq *create_srq(struct test_env *env, uint32_t max_wr,
			   uint32_t max_sge, uint32_t limit);

/*
 * One QP with its own send and receive CQ and a registered buffer, for
 * the posting tests (t_post.c) and the traffic tests (t_traffic.c).
 * Traffic runs on the QP connected to itself (RC, UC) or addressed
 * through an AH to its own GID (UD). Buffers: a source half and a
 * destination half of one MR.
 */
#define BUF_LEN		8192
#define HALF		(BUF_LEN / 2)

struct loop {
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_ah *ah;		/* UD only */
	char *buf;
	char *src;
	char *dst;
	struct ibv_qp_cap cap;
};

#define ALL_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/*
 * A QP of @type in RESET with its CQs and a registered buffer, or false
 * (with failures recorded and everything released).
 */
bool loop_create(struct test_env *env, struct loop *l,
		 enum ibv_qp_type type, int mr_access);

/* As loop_create(), then connected to itself in RTS. */
bool loop_connect(struct test_env *env, struct loop *l,
		  enum ibv_qp_type type, int mr_access);

/* Destroys what loop_create() made, recording failures. */
void loop_destroy(struct loop *l);

/*
 * The three steps from RESET to RTS with exactly the attributes each
 * transition requires for the QP type. They return 0 or an errno value.
 * RC and UC connect to @dest_qpn on the test GID; UD ignores it.
 */
int qp_to_init(struct ibv_qp *qp);
int qp_to_rtr(struct test_env *env, struct ibv_qp *qp, uint32_t dest_qpn);
int qp_to_rts(struct ibv_qp *qp);
int qp_to_state(struct ibv_qp *qp, enum ibv_qp_state state);

/* RESET to RTS, connected (RC, UC) to QP @dest_qpn on the test GID. */
int qp_connect_to(struct test_env *env, struct ibv_qp *qp, uint32_t dest_qpn);

/* RESET to RTS, connected (RC, UC) to itself. */
int qp_connect_self(struct test_env *env, struct ibv_qp *qp);

/* The state the device reports, or -1 with a test failure recorded. */
int query_qp_state(struct ibv_qp *qp);

/*
 * Polls until @n completions arrived or TEST_TIMEOUT_MS passed; returns
 * how many were stored in @wc, or -1 if ibv_poll_cq() failed.
 */
int poll_cq_wait(struct ibv_cq *cq, struct ibv_wc *wc, int n);

/* Waits for exactly one completion on @cq into @wc; false on a timeout. */
bool wait_one(struct ibv_cq *cq, struct ibv_wc *wc);

/*
 * Checks a completion's wr_id and status, and its opcode when it
 * succeeded (the opcode of an error completion is undefined).
 */
void check_wc(const struct ibv_wc *wc, uint64_t wr_id,
	      enum ibv_wc_status status, enum ibv_wc_opcode opcode);

/* Waits for one async event on the context; false after TEST_TIMEOUT_MS. */
bool get_async_event(struct test_env *env, struct ibv_async_event *ev);

/*
 * Waits for the affiliated event @type on @qp and records a failure when
 * none comes.  Events that come before it are acknowledged and passed
 * over: one error may raise several (a CQ's and its QPs').
 */
bool expect_qp_event(struct test_env *env, struct ibv_qp *qp,
		     enum ibv_event_type type);

/*
 * True when the device under test is the kernel's rdma_rxe ($DEV_TYPE is
 * "rxe", or else the name starts with "rxe"), whose 6.1 bugs some tests
 * expect (tap_xfail()).
 */
bool is_rxe(const struct test_env *env);

/* Sleeps @ms milliseconds. */
void sleep_ms(unsigned int ms);

/* The monotonic clock, in microseconds. */
uint64_t now_us(void);

/* A port counter of the device under test ("rdma statistic"), or -1. */
long long port_counter(struct test_env *env, const char *name);

#endif /* RXC_TESTS_VERBS_FIXTURE_H */
