// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The completer's ACKs and NAKs: which ones it takes, that only forward
 * progress restores the retry budgets, and that a responder left behind
 * by a lie (a sequence NAK before una, then silence) ends retry_cnt 7's
 * "for ever", as do far probes that find the responder before what it
 * acknowledged.
 * The QP has sent PSNs 0x100 to 0x10f, none acknowledged, and has one
 * retry of each kind left; its send queue holds nothing to retire, and
 * its local ACK timeout is 0 (no timer), so each case sees the answer's
 * effect alone.
 */
#include <kunit/test.h>

#include "rxc.h"
#include "transport/rxc_transport.h"
#include "verbs/rxc_verbs.h"
#include "rxc_kunit.h"

#define UNA		0x100
#define MAX_PSN		0x110
#define RETRY_CNT	5

/* AETH syndromes: ACK, RNR NAK (timer 1), sequence NAK. */
#define SYN_ACK		0x1f
#define SYN_RNR		0x21
#define SYN_SEQ_NAK	0x60

struct comp_case {
	const char *name;
	u8 syn;
	u32 psn;
	u32 una;		/* una after the answer */
	u8 retry_left;		/* retry_left and rnr_left after it */
	u64 dropped;		/* rcv_qp_dropped after it */
};

static const struct comp_case comp_cases[] = {
	{ "an_ack_of_new_psns_restores_the_budgets",
	  SYN_ACK, 0x104, 0x105, RETRY_CNT, 0 },
	{ "an_ack_repeated_restores_nothing",
	  SYN_ACK, UNA - 1, UNA, 1, 0 },
	{ "an_ack_older_than_that_is_dropped",
	  SYN_ACK, 0x0f0, UNA, 1, 1 },
	{ "a_sequence_nak_at_una_restores_nothing",
	  SYN_SEQ_NAK, UNA, UNA, 1, 0 },
	{ "a_sequence_nak_past_una_acknowledges_what_precedes_it",
	  SYN_SEQ_NAK, 0x108, 0x108, RETRY_CNT, 0 },
	{ "a_sequence_nak_below_una_is_dropped",
	  SYN_SEQ_NAK, UNA - 8, UNA, 1, 1 },
	{ "an_rnr_nak_below_una_is_dropped",
	  SYN_RNR, UNA - 1, UNA, 1, 1 },
};

RXC_KUNIT_CASES(comp, comp_cases);

/* An RC QP on a device of its own, as the comment at the top says. */
static struct rxc_qp *comp_qp(struct kunit *test)
{
	struct rxc_dev *rxc = kunit_kzalloc(test, sizeof(*rxc), GFP_KERNEL);
	struct rxc_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rxc);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->ibqp.device = &rxc->ib_dev;
	qp->ibqp.qp_type = IB_QPT_RC;
	qp->attr.retry_cnt = RETRY_CNT;
	qp->attr.rnr_retry = RETRY_CNT;
	qp->req.una = UNA;
	qp->req.psn = MAX_PSN;
	qp->req.max_psn = MAX_PSN;
	qp->req.retry_left = 1;
	qp->req.rnr_left = 1;
	return qp;
}

static void comp_answer(struct kunit *test)
{
	const struct comp_case *c = test->param_value;
	struct rxc_qp *qp = comp_qp(test);
	struct rxc_dev *rxc = to_rdev(qp->ibqp.device);

	rxc_comp_aeth(qp, c->syn, c->psn);
	KUNIT_EXPECT_EQ(test, qp->req.una, c->una);
	KUNIT_EXPECT_EQ(test, qp->req.retry_left, c->retry_left);
	KUNIT_EXPECT_EQ(test, qp->req.rnr_left, c->retry_left);
	KUNIT_EXPECT_EQ(test,
			atomic64_read(&rxc->stats[RXC_STAT_RCV_QP_DROPPED]),
			(s64)c->dropped);
	/* Only far probes find a responder behind (comp_far). */
	KUNIT_EXPECT_EQ(test,
			atomic64_read(&rxc->stats[RXC_STAT_RESPONDERS_BEHIND]),
			0);
}

/*
 * Retries at a retransmit timeout: how many a QP with @retry_cnt may
 * spend, after the answer @syn at @psn in its first wait, before its
 * oldest WQE fails; every later wait hears the ACK at @chatter, if any,
 * which acknowledges nothing new, as from a responder in step answering
 * what is sent again, where otherwise the waits after the first are
 * silent, as with a peer that is away.  A late NAK changes nothing: a
 * responder in step sends them (rxc_comp_aeth_in_window()).
 */
struct retry_case {
	const char *name;
	u8 retry_cnt;
	u8 syn;
	u32 psn;
	u32 chatter;		/* the ACK each later wait hears; 0: none */
	u32 spends;		/* retries granted; UINT_MAX: never refused */
};

#define SPENDS_TRIED	1000

static const struct retry_case retry_cases[] = {
	{ "retry_cnt_7_retries_a_silent_peer_for_ever",
	  7, SYN_ACK, UNA - 1, 0, UINT_MAX },
	{ "retry_cnt_7_after_a_late_ack_still_for_ever",
	  7, SYN_ACK, 0x0f0, 0, UINT_MAX },
	{ "retry_cnt_7_after_a_late_nak_still_retries_a_silent_peer_for_ever",
	  7, SYN_SEQ_NAK, UNA - 8, 0, UINT_MAX },
	{ "retry_cnt_7_after_a_nak_at_una_still_for_ever",
	  7, SYN_SEQ_NAK, UNA, 0, UINT_MAX },
	{ "retry_cnt_3_counts_three", 3, SYN_ACK, UNA - 1, UNA - 1, 3 },
	{ "retry_cnt_3_counts_three_after_a_late_nak",
	  3, SYN_SEQ_NAK, UNA - 8, 0, 3 },
};

RXC_KUNIT_CASES(retry, retry_cases);

static void comp_retries(struct kunit *test)
{
	const struct retry_case *c = test->param_value;
	struct rxc_qp *qp = comp_qp(test);
	u32 granted = 0;

	qp->attr.retry_cnt = c->retry_cnt;
	qp->req.retry_left = c->retry_cnt;
	rxc_comp_aeth(qp, c->syn, c->psn);
	while (granted < SPENDS_TRIED && rxc_req_spend_retry(qp)) {
		granted++;
		if (c->chatter)
			rxc_comp_aeth(qp, SYN_ACK, c->chatter);
	}
	if (c->spends == UINT_MAX)
		KUNIT_EXPECT_EQ(test, granted, SPENDS_TRIED);
	else
		KUNIT_EXPECT_EQ(test, granted, c->spends);
}

/*
 * Far probes (rxc_req_far_probe()) and their answers: whether the
 * requester comes to believe its responder will never accept a packet
 * again.  Each step is a probe going out, or an ACK at a PSN; the QP has
 * had its sends and writes acknowledged up to @done_psn.
 */
#define FAR_PROBE	UINT_MAX
/* The probe's PSN for max_psn 0x110, and an answer that only echoes it. */
#define FAR_PSN		0x800111
/* A quarter of the PSN space and more before done_psn. */
#define FAR_AWAY	((UNA - BIT(22) - 2) & RXC_PSN_MASK)

struct far_case {
	const char *name;
	u32 done_psn;		/* UINT_MAX: no send or write acknowledged */
	u32 steps[6];		/* FAR_PROBE, or an ACK's PSN; 0 ends */
	bool lost;
};

static const struct far_case far_cases[] = {
	{ "two_probes_answered_before_done_psn_lose_the_responder",
	  UNA, { FAR_PROBE, 0x0f0, FAR_PROBE, 0x0f0 }, true },
	{ "one_answer_is_not_enough",
	  UNA, { FAR_PROBE, 0x0f0 }, false },
	{ "a_copy_of_the_answer_counts_once",
	  UNA, { FAR_PROBE, 0x0f0, 0x0f0 }, false },
	{ "late_acks_without_a_probe_count_nothing",
	  UNA, { 0x0f0, 0x0f0 }, false },
	{ "an_answer_at_done_psn_is_in_step",
	  0x0f1, { FAR_PROBE, 0x0f0, FAR_PROBE, 0x0f0 }, false },
	{ "an_answer_in_the_window_starts_over",
	  UNA, { FAR_PROBE, 0x0f0, UNA - 1, FAR_PROBE, 0x0f0 }, false },
	{ "answers_at_two_psns_are_late_acks_not_a_responder_standing_still",
	  UNA, { FAR_PROBE, 0x0f0, FAR_PROBE, 0x0f4 }, false },
	{ "the_same_psn_after_another_counts_again",
	  UNA, { FAR_PROBE, 0x0f4, FAR_PROBE, 0x0f0, FAR_PROBE, 0x0f0 }, true },
	{ "answers_before_any_send_or_write_was_acknowledged_say_nothing",
	  UINT_MAX, { FAR_PROBE, 0xffffff, FAR_PROBE, 0xffffff }, false },
	{ "an_answer_that_echoes_the_probe_says_nothing",
	  UNA, { FAR_PROBE, FAR_PSN, FAR_PROBE, FAR_PSN }, false },
	{ "an_answer_a_quarter_of_the_space_back_says_nothing",
	  UNA, { FAR_PROBE, FAR_AWAY, FAR_PROBE, FAR_AWAY }, false },
};

RXC_KUNIT_CASES(far, far_cases);

static void comp_far(struct kunit *test)
{
	const struct far_case *c = test->param_value;
	struct rxc_qp *qp = comp_qp(test);
	int i;

	qp->req.done_any = c->done_psn != UINT_MAX;
	qp->req.done_psn = qp->req.done_any ? c->done_psn : UNA;
	for (i = 0; i < ARRAY_SIZE(c->steps) && c->steps[i]; i++) {
		if (c->steps[i] == FAR_PROBE) {
			qp->req.far_asked = true;
			qp->req.far_psn = FAR_PSN;
		} else {
			rxc_comp_aeth(qp, SYN_ACK, c->steps[i]);
		}
	}
	KUNIT_EXPECT_EQ(test, rxc_req_responder_lost(&qp->req), c->lost);
}

/*
 * How far done_psn moves on an answer, over a send queue that holds, from
 * una, a WRITE at 0x100-0x101, an ATOMIC WRITE at 0x102 and a SEND at
 * 0x103-0x10f: to the last send or write packet acknowledged, whole
 * messages or not, but not for an ATOMIC WRITE, which rdma_rxe 6.1 lacks
 * (rxc_comp_moves_ack_psn()).
 */
struct done_case {
	const char *name;
	u8 syn;
	u32 psn;
	u32 done_psn;		/* UINT_MAX: done_psn did not move */
	bool stale;		/* done_psn was set more than half the space ago */
};

static const struct done_case done_cases[] = {
	{ "an_ack_of_a_whole_write_moves_it_past_the_write",
	  SYN_ACK, 0x101, 0x102 },
	{ "an_atomic_write_acknowledged_moves_it_no_further",
	  SYN_ACK, 0x102, 0x102 },
	{ "a_nak_in_the_middle_of_a_send_moves_it_to_the_nak",
	  SYN_SEQ_NAK, 0x108, 0x108 },
	{ "an_ack_in_the_middle_of_a_write_moves_it_past_that_packet",
	  SYN_ACK, 0x100, 0x101 },
	{ "an_ack_repeated_moves_nothing", SYN_ACK, UNA - 1, UINT_MAX },
	{ "a_write_after_half_the_psn_space_of_reads_moves_it_still",
	  SYN_ACK, 0x101, 0x102, true },
};

RXC_KUNIT_CASES(done, done_cases);

static void comp_done(struct kunit *test)
{
	static const struct { u8 op; u32 first, last; } sq[] = {
		{ RXC_REQ_WRITE, 0x100, 0x101 },
		{ RXC_REQ_ATOMIC_WRITE, 0x102, 0x102 },
		{ RXC_REQ_SEND, 0x103, 0x10f },
	};
	const struct done_case *c = test->param_value;
	struct rxc_qp *qp = comp_qp(test);
	struct rxc_swqe *w;
	int i;

	w = kunit_kcalloc(test, 4, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	for (i = 0; i < ARRAY_SIZE(sq); i++) {
		w[i].op = sq[i].op;
		w[i].started = true;
		w[i].first_psn = sq[i].first;
		w[i].last_psn = sq[i].last;
		w[i].state = RXC_SWQE_QUEUED;
	}
	qp->req.wqe = w;
	qp->sq.q.mask = 3;
	qp->req.tail = ARRAY_SIZE(sq);
	qp->req.done_any = c->stale;
	qp->req.done_psn = c->stale ? (UNA - 0x900000) & RXC_PSN_MASK : UNA;
	rxc_comp_aeth(qp, c->syn, c->psn);
	KUNIT_EXPECT_EQ(test, qp->req.done_any,
			c->stale || c->done_psn != UINT_MAX);
	if (c->done_psn != UINT_MAX)
		KUNIT_EXPECT_EQ(test, qp->req.done_psn, c->done_psn);
}

static struct kunit_case rxc_comp_test_cases[] = {
	KUNIT_CASE_PARAM(comp_answer, comp_gen_params),
	KUNIT_CASE_PARAM(comp_retries, retry_gen_params),
	KUNIT_CASE_PARAM(comp_far, far_gen_params),
	KUNIT_CASE_PARAM(comp_done, done_gen_params),
	{}
};

static struct kunit_suite rxc_comp_suite = {
	.name = "rxc_comp",
	.test_cases = rxc_comp_test_cases,
};

kunit_test_suite(rxc_comp_suite);
