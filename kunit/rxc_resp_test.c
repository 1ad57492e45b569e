// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The responder's state when a QP enters RTR: a QP reused after RESET
 * must answer its new peer as a new QP would.  And which request may
 * overtake the read being answered: only one asking for that read again.
 */
#include <kunit/test.h>

#include "net/rxc_hdr.h"
#include "transport/rxc_transport.h"
#include "verbs/rxc_verbs.h"
#include "rxc_kunit.h"

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

/*
 * A read of PSNs 0x100-0x19f (0xa0 responses of 1024 bytes) being
 * answered from 0x150 on; the responder expects 0x1a0 next.
 */
#define RD_MTU		1024
#define RD_FIRST	0x100
#define RD_NEXT		0x150
#define RD_END		0x19f

struct restart_case {
	const char *name;
	bool active;		/* the read is being answered */
	u32 mask;		/* the request's operation */
	u32 psn;
	u32 len;
	bool restarts;
};

static const struct restart_case restart_cases[] = {
	{ "a_request_for_the_rest_of_the_read_restarts_it", true,
	  RXC_OPF_READ, 0x160, (RD_END - 0x160 + 1) * RD_MTU, true },
	{ "a_request_for_all_of_the_read_again_restarts_it", true,
	  RXC_OPF_READ, RD_FIRST, (RD_END - RD_FIRST + 1) * RD_MTU, true },
	{ "a_request_for_an_older_read_waits", true,
	  RXC_OPF_READ, 0x080, 4 * RD_MTU, false },
	{ "a_new_read_waits", true,
	  RXC_OPF_READ, RD_END + 1, RD_MTU, false },
	{ "a_duplicate_write_waits", true,
	  RXC_OPF_WRITE, 0x160, (RD_END - 0x160 + 1) * RD_MTU, false },
	{ "nothing_overtakes_when_no_read_is_answered", false,
	  RXC_OPF_READ, 0x160, (RD_END - 0x160 + 1) * RD_MTU, false },
};

RXC_KUNIT_CASES(restart, restart_cases);

static void read_restart(struct kunit *test)
{
	const struct restart_case *c = test->param_value;
	struct rxc_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	u8 *bth = kunit_kzalloc(test, 64, GFP_KERNEL);
	struct rxc_pkt_info pkt = {
		.bth = bth,
		.mask = RXC_OPF_REQ | c->mask,
	};

	KUNIT_ASSERT_NOT_NULL(test, qp);
	KUNIT_ASSERT_NOT_NULL(test, bth);
	qp->ibqp.qp_type = IB_QPT_RC;
	qp->mtu = RD_MTU;
	qp->resp.psn = RD_END + 1;
	qp->resp.rd.active = c->active;
	qp->resp.rd.psn = RD_NEXT;
	qp->resp.rd.resid = (RD_END - RD_NEXT + 1) * RD_MTU;
	pkt.off[RXC_HDR_RETH] = RXC_BTH_SIZE;
	rxc_bth_set_psn(bth, c->psn);
	rxc_reth_set_len(bth + RXC_BTH_SIZE, c->len);
	KUNIT_EXPECT_EQ(test, rxc_resp_restarts_read(qp, &pkt), c->restarts);
}

static struct kunit_case rxc_resp_cases[] = {
	KUNIT_CASE(rtr_expects_rq_psn),
	KUNIT_CASE(rtr_counts_messages_from_zero),
	KUNIT_CASE(rtr_owes_no_ack),
	KUNIT_CASE_PARAM(read_restart, restart_gen_params),
	{}
};

static struct kunit_suite rxc_resp_suite = {
	.name = "rxc_resp",
	.test_cases = rxc_resp_cases,
};

kunit_test_suite(rxc_resp_suite);
