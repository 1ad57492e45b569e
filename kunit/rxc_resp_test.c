// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The responder's state when a QP enters RTR: a QP reused after RESET
 * must answer its new peer as a new QP would.
 */
#include <kunit/test.h>

#include "transport/rxc_transport.h"
#include "verbs/rxc_verbs.h"

/* A QP that answered an earlier peer and was then reset. */
static struct rxc_qp *resp_used_qp(struct kunit *test)
{
	struct rxc_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->resp.psn = 0x123456;
	qp->resp.msn = 0x00abcd;
	qp->resp.unacked = 40;
	qp->resp.ack_pending = true;
	qp->resp.nak_sent = true;
	qp->attr.rq_psn = 0x000777;
	return qp;
}

static void rtr_expects_rq_psn(struct kunit *test)
{
	struct rxc_qp *qp = resp_used_qp(test);

	rxc_resp_start(qp);
	KUNIT_EXPECT_EQ(test, qp->resp.psn, 0x000777U);
	KUNIT_EXPECT_FALSE(test, qp->resp.nak_sent);
	KUNIT_EXPECT_FALSE(test, qp->resp.ack_pending);
}

/* The AETH's MSN counts the new peer's messages from zero. */
static void rtr_counts_messages_from_zero(struct kunit *test)
{
	struct rxc_qp *qp = resp_used_qp(test);

	rxc_resp_start(qp);
	KUNIT_EXPECT_EQ(test, qp->resp.msn, 0U);
}

/* No packet of the old peer counts towards the first ACK of the new one. */
static void rtr_owes_no_ack(struct kunit *test)
{
	struct rxc_qp *qp = resp_used_qp(test);

	rxc_resp_start(qp);
	KUNIT_EXPECT_EQ(test, qp->resp.unacked, 0U);
}

static struct kunit_case rxc_resp_cases[] = {
	KUNIT_CASE(rtr_expects_rq_psn),
	KUNIT_CASE(rtr_counts_messages_from_zero),
	KUNIT_CASE(rtr_owes_no_ack),
	{}
};

static struct kunit_suite rxc_resp_suite = {
	.name = "rxc_resp",
	.test_cases = rxc_resp_cases,
};

kunit_test_suite(rxc_resp_suite);
