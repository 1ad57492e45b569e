// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The round-trip estimate behind tail-loss probes: RFC 6298 smoothing,
 * one PSN timed at a time, no sample from a resend, a floor, and the
 * doubling of the wait per probe.
 */
#include <kunit/test.h>

#include "transport/rxc_transport.h"

#define MS	(1000 * 1000ULL)	/* nanoseconds */

/* Time PSN @psn, sent at @sent_ms and acknowledged at @acked_ms. */
static void rto_time(struct rxc_rto *r, u32 psn, u64 sent_ms, u64 acked_ms)
{
	rxc_rto_sent(r, psn, sent_ms * MS, sent_ms);
	rxc_rto_acked(r, psn + 1, acked_ms * MS);
}

static void no_probe_before_the_first_sample(struct kunit *test)
{
	struct rxc_rto r = {};

	KUNIT_EXPECT_EQ(test, rxc_rto_probe_us(&r), 0U);
	rxc_rto_sent(&r, 100, 0, 0);
	KUNIT_EXPECT_EQ(test, rxc_rto_probe_us(&r), 0U);
}

static void samples_follow_rfc_6298(struct kunit *test)
{
	/* Round trips in ms, and srtt and rttvar after each, in us. */
	static const struct { u32 rtt_ms, srtt, rttvar; } steps[] = {
		{ 8, 8000, 4000 },	/* the first: R, R / 2 */
		{ 16, 9000, 5000 },	/* 7/8 srtt + R/8, 3/4 var + |d|/4 */
		{ 8, 8875, 4000 },
		{ 8, 8766, 3218 },
	};
	struct rxc_rto r = {};
	u64 t = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		rto_time(&r, 10 * i, t, t + steps[i].rtt_ms);
		t += 100;
		KUNIT_EXPECT_EQ_MSG(test, r.srtt_us, steps[i].srtt, "step %d", i);
		KUNIT_EXPECT_EQ_MSG(test, r.rttvar_us, steps[i].rttvar,
				    "step %d", i);
	}
}

static void one_psn_is_timed_at_a_time(struct kunit *test)
{
	struct rxc_rto r = {};

	rxc_rto_sent(&r, 100, 0, 0);
	rxc_rto_sent(&r, 101, 5 * MS, 0);		/* not timed */
	rxc_rto_acked(&r, 100, 6 * MS);		/* 100 not yet acknowledged */
	KUNIT_EXPECT_EQ(test, r.srtt_us, 0U);
	rxc_rto_acked(&r, 102, 20 * MS);
	KUNIT_EXPECT_EQ(test, r.srtt_us, 20000U);
}

static void a_resend_is_never_a_sample(struct kunit *test)
{
	struct rxc_rto r = {};

	rxc_rto_sent(&r, 100, 0, 0);
	rxc_rto_rewound(&r);
	rxc_rto_acked(&r, 101, 70 * MS);
	KUNIT_EXPECT_EQ(test, r.srtt_us, 0U);
	/* The next first send is timed again. */
	rto_time(&r, 200, 100, 102);
	KUNIT_EXPECT_EQ(test, r.srtt_us, 2000U);
}

static void the_wait_has_a_floor_and_doubles_per_probe(struct kunit *test)
{
	struct rxc_rto r = {};

	rto_time(&r, 1, 0, 1);		/* 1 ms: srtt + 4 var = 3 ms */
	KUNIT_EXPECT_EQ(test, rxc_rto_probe_us(&r), (u32)RXC_PROBE_MIN_US);
	rto_time(&r, 2, 10, 110);	/* a 100 ms round trip */
	KUNIT_EXPECT_EQ(test, rxc_rto_probe_us(&r),
			r.srtt_us + 4 * r.rttvar_us);
	r.probes = 2;
	KUNIT_EXPECT_EQ(test, rxc_rto_probe_us(&r),
			4 * (r.srtt_us + 4 * r.rttvar_us));
	/* Progress: the base wait again. */
	rxc_rto_acked(&r, 3, 200 * MS);
	KUNIT_EXPECT_EQ(test, r.probes, (u8)0);
	r.probes = 255;
	KUNIT_EXPECT_EQ(test, rxc_rto_probe_us(&r), U32_MAX);
}

static void samples_wrap_with_the_psn(struct kunit *test)
{
	struct rxc_rto r = {};

	rxc_rto_sent(&r, 0xffffff, 0, 0);
	rxc_rto_acked(&r, 0xffffff, 1 * MS);
	KUNIT_EXPECT_EQ(test, r.srtt_us, 0U);
	rxc_rto_acked(&r, 0x000000, 3 * MS);
	KUNIT_EXPECT_EQ(test, r.srtt_us, 3000U);
}

/*
 * Within the wait the timer probes; once the wait is over, only a
 * requester with an estimate that has not probed yet probes (a run that
 * came late, after a stall), and it waits anew; else it is a timeout.
 */
static void a_late_first_probe_waits_anew(struct kunit *test)
{
	static const struct {
		bool estimated, wait_over;
		u8 probes;
		enum rxc_rto_action want;
	} cases[] = {
		{ false, false, 0, RXC_RTO_PROBE },
		{ false, true, 0, RXC_RTO_TIMEOUT },
		{ true, false, 0, RXC_RTO_PROBE },
		{ true, false, 3, RXC_RTO_PROBE },
		{ true, true, 0, RXC_RTO_LATE_PROBE },
		{ true, true, 1, RXC_RTO_TIMEOUT },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct rxc_rto r = {};

		if (cases[i].estimated)
			rto_time(&r, 1, 0, 1);
		r.probes = cases[i].probes;
		KUNIT_EXPECT_EQ_MSG(test, rxc_rto_fired(&r, cases[i].wait_over),
				    cases[i].want, "case %d", i);
	}
}

/*
 * The requester reads its clock only where the predicates say a send
 * starts a sample or an ACK ends one; elsewhere the time passed must not
 * matter, so a wrong one is passed here.
 */
static void the_clock_matters_only_at_a_samples_start_or_end(struct kunit *test)
{
	struct rxc_rto r = {};

	KUNIT_EXPECT_TRUE(test, rxc_rto_idle(&r));
	KUNIT_EXPECT_FALSE(test, rxc_rto_sample_done(&r, 101));
	rxc_rto_sent(&r, 100, 1 * MS, 0);
	KUNIT_EXPECT_FALSE(test, rxc_rto_idle(&r));
	rxc_rto_sent(&r, 101, U64_MAX, 0);
	KUNIT_EXPECT_FALSE(test, rxc_rto_sample_done(&r, 100));
	rxc_rto_acked(&r, 100, U64_MAX);
	KUNIT_EXPECT_EQ(test, r.srtt_us, 0U);
	KUNIT_EXPECT_TRUE(test, rxc_rto_sample_done(&r, 102));
	rxc_rto_acked(&r, 102, 5 * MS);
	KUNIT_EXPECT_EQ(test, r.srtt_us, 4000U);
	KUNIT_EXPECT_TRUE(test, rxc_rto_idle(&r));
	KUNIT_EXPECT_FALSE(test, rxc_rto_sample_done(&r, 103));
}

/*
 * The ACK's clock read less than the send's (two CPUs' local_clock()
 * where the TSCs are not synchronized): no sample, where the difference
 * once wrapped to a round trip of 537 s and the pace stopped the QP.
 */
static void a_clock_that_ran_backwards_gives_no_sample(struct kunit *test)
{
	struct rxc_rto r = {};

	rto_time(&r, 100, 10, 9);
	KUNIT_EXPECT_EQ(test, r.srtt_us, 0U);
	KUNIT_EXPECT_TRUE(test, rxc_rto_idle(&r));
	rto_time(&r, 200, 10, 12);
	KUNIT_EXPECT_EQ(test, r.srtt_us, 2000U);
	rto_time(&r, 300, 20, 19);
	KUNIT_EXPECT_EQ(test, r.srtt_us, 2000U);
}

/*
 * A send starts a sample only while no PSN is timed and, once there is
 * an estimate, in another jiffy than the latest sample started: a
 * ping-pong reads its clock a few hundred times a second, not twice per
 * message.  Until the first estimate, every idle send is timed.
 */
static void at_most_one_sample_starts_per_jiffy(struct kunit *test)
{
	static const struct {
		bool estimated, sampling;
		unsigned long started_j, now_j;
		bool want;
	} cases[] = {
		{ false, false, 7, 7, true },
		{ false, true, 7, 8, false },
		{ true, false, 7, 7, false },
		{ true, false, 7, 8, true },
		{ true, false, ULONG_MAX, 0, true },	/* jiffies wrapped */
		{ true, true, 7, 8, false },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct rxc_rto r = {};

		if (cases[i].estimated)
			rto_time(&r, 1, 0, 1);
		r.sample_j = cases[i].started_j;
		r.sampling = cases[i].sampling;
		KUNIT_EXPECT_EQ_MSG(test,
				    rxc_rto_wants_sample(&r, cases[i].now_j),
				    cases[i].want, "case %d", i);
	}
}

/* rxc_rto_sent() notes the jiffy, which the next sample must leave. */
static void a_sample_notes_its_jiffy(struct kunit *test)
{
	struct rxc_rto r = {};

	rto_time(&r, 1, 0, 1);
	rxc_rto_sent(&r, 2, 5 * MS, 42);
	rxc_rto_acked(&r, 3, 6 * MS);
	KUNIT_EXPECT_FALSE(test, rxc_rto_wants_sample(&r, 42));
	KUNIT_EXPECT_TRUE(test, rxc_rto_wants_sample(&r, 43));
}

static struct kunit_case rxc_rto_cases[] = {
	KUNIT_CASE(no_probe_before_the_first_sample),
	KUNIT_CASE(samples_follow_rfc_6298),
	KUNIT_CASE(one_psn_is_timed_at_a_time),
	KUNIT_CASE(a_resend_is_never_a_sample),
	KUNIT_CASE(the_wait_has_a_floor_and_doubles_per_probe),
	KUNIT_CASE(samples_wrap_with_the_psn),
	KUNIT_CASE(a_late_first_probe_waits_anew),
	KUNIT_CASE(the_clock_matters_only_at_a_samples_start_or_end),
	KUNIT_CASE(a_clock_that_ran_backwards_gives_no_sample),
	KUNIT_CASE(at_most_one_sample_starts_per_jiffy),
	KUNIT_CASE(a_sample_notes_its_jiffy),
	{}
};

static struct kunit_suite rxc_rto_suite = {
	.name = "rxc_rto",
	.test_cases = rxc_rto_cases,
};

kunit_test_suite(rxc_rto_suite);
