// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The completer's ACKs and NAKs: which ones it takes, that only forward
 * progress restores the retry budgets, and that a responder left behind
 * by a lie (a sequence NAK before una, then silence) ends retry_cnt 7's
 * "for ever".
 * The QP has sent PSNs 0x100 to 0x10f, none acknowledged, and has one
 * retry of each kind left; its send queue holds nothing to retire, and
 * its local ACK timeout is 0 (no timer), so each case sees the answer's
 * effect alone.
 */
#include <kunit/test.h>

#include "rxc.h"
#include "transport/rxc_transport.h"
#include "verbs/rxc_verbs.h"

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
	bool behind;		/* the responder fell behind (peer_behind) */
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
	{ "a_sequence_nak_below_una_is_dropped_and_says_the_peer_fell_behind",
	  SYN_SEQ_NAK, UNA - 8, UNA, 1, 1, true },
	{ "an_rnr_nak_below_una_is_dropped",
	  SYN_RNR, UNA - 1, UNA, 1, 1 },
};

static void comp_case_desc(const struct comp_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(comp, comp_cases, comp_case_desc);

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
	KUNIT_EXPECT_EQ(test, qp->req.peer_behind, c->behind);
	KUNIT_EXPECT_EQ(test,
			atomic64_read(&rxc->stats[RXC_STAT_RESPONDERS_BEHIND]),
			(s64)c->behind);
}

/*
 * Retries at a retransmit timeout: how many a QP with @retry_cnt may
 * spend, after the answer @syn at @psn in its first wait, before its
 * oldest WQE fails; with @chatty, every later wait hears an ACK that
 * acknowledges nothing new, as from a responder in step answering what
 * is sent again, where otherwise the waits after the first are silent,
 * as with a responder left behind.
 */
struct retry_case {
	const char *name;
	u8 retry_cnt;
	u8 syn;
	u32 psn;
	bool chatty;
	u32 spends;		/* retries granted; UINT_MAX: never refused */
};

#define SPENDS_TRIED	1000

static const struct retry_case retry_cases[] = {
	{ "retry_cnt_7_retries_a_silent_peer_for_ever",
	  7, SYN_ACK, UNA - 1, false, UINT_MAX },
	{ "retry_cnt_7_after_a_late_ack_still_for_ever",
	  7, SYN_ACK, 0x0f0, false, UINT_MAX },
	{ "retry_cnt_7_ends_after_seven_silent_waits_once_the_peer_fell_behind",
	  7, SYN_SEQ_NAK, UNA - 8, false, 1 + 7 },
	{ "retry_cnt_7_retries_a_peer_behind_that_answers_for_ever",
	  7, SYN_SEQ_NAK, UNA - 8, true, UINT_MAX },
	{ "retry_cnt_7_after_a_nak_at_una_still_for_ever",
	  7, SYN_SEQ_NAK, UNA, false, UINT_MAX },
	{ "retry_cnt_3_counts_three", 3, SYN_ACK, UNA - 1, true, 3 },
	{ "retry_cnt_3_counts_three_after_the_peer_fell_behind",
	  3, SYN_SEQ_NAK, UNA - 8, false, 3 },
};

static void retry_case_desc(const struct retry_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(retry, retry_cases, retry_case_desc);

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
		if (c->chatty)
			rxc_comp_aeth(qp, SYN_ACK, UNA - 1);
	}
	if (c->spends == UINT_MAX)
		KUNIT_EXPECT_EQ(test, granted, SPENDS_TRIED);
	else
		KUNIT_EXPECT_EQ(test, granted, c->spends);
}

static struct kunit_case rxc_comp_test_cases[] = {
	KUNIT_CASE_PARAM(comp_answer, comp_gen_params),
	KUNIT_CASE_PARAM(comp_retries, retry_gen_params),
	{}
};

static struct kunit_suite rxc_comp_suite = {
	.name = "rxc_comp",
	.test_cases = rxc_comp_test_cases,
};

kunit_test_suite(rxc_comp_suite);
