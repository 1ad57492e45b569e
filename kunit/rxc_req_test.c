// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The requester's rule for streams of small messages on a path that
 * takes batches: a message of one packet, not yet started, behind another
 * of one packet, waits while 32 PSNs are unacknowledged, so that it
 * leaves with the others on an ACK.  Nothing else waits: longer messages,
 * a small one behind a longer one, local work, a WQE already under way,
 * UC, a QP with no retransmit timer (timeout 0), and every QP whose
 * packets do not leave in batches (loopback, a veth that carries them
 * whole).
 */
#include <kunit/test.h>

#include "rxc.h"
#include "transport/rxc_opcode.h"
#include "transport/rxc_transport.h"
#include "verbs/rxc_verbs.h"
#include "rxc_kunit.h"

#define MTU		1024
#define UNA		0xfffff0	/* 32 PSNs later is past the wrap */
#define TIMEOUT		14

/* Unless a case says otherwise: an RC QP of a stream of small messages. */
struct gather_case {
	const char *name;
	u8 op;
	u32 length;
	u32 unacked;		/* PSNs between una and the cursor */
	bool gathers;
	bool started;
	bool local;
	bool uc;
	bool no_timer;		/* timeout 0 */
	bool alone;		/* the QP's packets leave one by one */
	bool after_long;	/* the WQE before was of several PSNs */
};

static const struct gather_case gather_cases[] = {
	{ "a_small_write_waits_at_32_unacked", RXC_REQ_WRITE, 8, 32, true },
	{ "and_past_it", RXC_REQ_SEND, MTU, 100, true },
	{ "a_small_read_waits_too", RXC_REQ_READ, 8, 32, true },
	{ "an_atomic_waits_too", RXC_REQ_FETCH_ADD, 8, 40, true },
	{ "31_unacked_let_it_go", RXC_REQ_WRITE, 8, 31, false },
	{ "a_message_of_two_packets_goes", RXC_REQ_WRITE, MTU + 1, 64, false },
	{ "a_read_of_two_responses_goes", RXC_REQ_READ, 2 * MTU, 64, false },
	{ "a_started_message_goes", RXC_REQ_WRITE, 8, 64, false,
	  .started = true },
	{ "local_work_goes", RXC_REQ_SEND, 0, 64, false, .local = true },
	{ "uc_never_waits", RXC_REQ_WRITE, 8, 64, false, .uc = true },
	{ "nothing_waits_without_a_retransmit_timer", RXC_REQ_WRITE, 8, 64,
	  false, .no_timer = true },
	{ "nothing_waits_where_packets_leave_alone", RXC_REQ_WRITE, 8, 64,
	  false, .alone = true },
	{ "a_small_message_behind_a_longer_one_goes", RXC_REQ_SEND, 8, 64,
	  false, .after_long = true },
};

RXC_KUNIT_CASES(gather, gather_cases);

static void gather(struct kunit *test)
{
	const struct gather_case *c = test->param_value;
	struct rxc_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	struct rxc_swqe w = {
		.op = c->op, .length = c->length,
		.started = c->started, .local = c->local,
	};

	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->ibqp.qp_type = c->uc ? IB_QPT_UC : IB_QPT_RC;
	qp->attr.timeout = c->no_timer ? 0 : TIMEOUT;
	qp->mtu = MTU;
	qp->req.batches = !c->alone;
	qp->req.last_small = !c->after_long;
	qp->req.una = UNA;
	qp->req.psn = rxc_psn_add(UNA, c->unacked);
	KUNIT_EXPECT_EQ(test, rxc_req_gathers(qp, &w), c->gathers);
}

static struct kunit_case rxc_req_cases[] = {
	KUNIT_CASE_PARAM(gather, gather_gen_params),
	{}
};

static struct kunit_suite rxc_req_suite = {
	.name = "rxc_req",
	.test_cases = rxc_req_cases,
};

kunit_test_suite(rxc_req_suite);
