// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RC requester's pace: the rate from the window and the round trip,
 * bursts of at most 32 KiB, no credit from idling beyond one burst, a
 * stale clock that never grants more than the true one, packets larger
 * than a burst, and no message or late ACK that holds the requester
 * back for more than a round trip.
 */
#include <kunit/test.h>

#include "transport/rxc_transport.h"

#define US	1000ULL			/* nanoseconds */
#define T0	(1000 * 1000 * US)	/* a clock well past its start */
#define BURST_NS (SZ_32K * 8ULL)	/* a burst, at 8 ns a byte */
#define TAKES	10000			/* take_all()'s bound */

/* 1 ms round trip, 100 000-byte window: 1.25e8 B/s, 8 ns a byte. */
static void paced_at_8ns_a_byte(struct rxc_pace *p)
{
	*p = (struct rxc_pace){};
	rxc_pace_rate(p, 1000, 100000);
}

static void the_rate_is_a_window_and_a_quarter_per_round_trip(struct kunit *test)
{
	static const struct { u32 srtt_us, cwnd, ps; } cases[] = {
		{ 1000, 100000, 8000 },
		{ 2000, SZ_128K, 12207 },	/* 1.25 * 64 MB/s */
		{ 0, SZ_128K, 0 },		/* no estimate: no pace */
		{ U32_MAX, 1, U32_MAX },	/* clamped, not wrapped */
		{ 900000, 100000, 80000 },	/* paced over 10 ms at most */
		{ 10, 0, 8000000 },		/* an empty window counts 1 */
	};
	struct rxc_pace p = {};
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		rxc_pace_rate(&p, cases[i].srtt_us, cases[i].cwnd);
		KUNIT_EXPECT_EQ_MSG(test, p.ps_per_byte, cases[i].ps,
				    "case %d", i);
	}
}

/* Take @bytes at @now as often as the pace allows; return how often. */
static int take_all(struct rxc_pace *p, u32 bytes, u64 now)
{
	int n = 0;

	while (n < TAKES && rxc_pace_take(p, bytes, now))
		n++;
	return n;
}

static void no_rate_paces_nothing(struct kunit *test)
{
	struct rxc_pace p = {};

	KUNIT_EXPECT_EQ(test, take_all(&p, SZ_64K, T0), TAKES);
	KUNIT_EXPECT_EQ(test, rxc_pace_wait_ns(&p, T0), 0ULL);
}

/*
 * One burst of 32 KiB leaves at once, then the requester waits until the
 * bucket is full again, however long it idles: a burst's time refills it,
 * an hour gives no more.
 */
static void idling_gains_one_burst(struct kunit *test)
{
	static const u64 idle_ns[] = { 0, BURST_NS, 1000 * US, 3600ULL * T0 };
	struct rxc_pace p;
	int i;

	for (i = 0; i < ARRAY_SIZE(idle_ns); i++) {
		paced_at_8ns_a_byte(&p);
		KUNIT_EXPECT_EQ(test, take_all(&p, SZ_4K, T0), 8);
		KUNIT_EXPECT_EQ_MSG(test, take_all(&p, SZ_4K, T0 + idle_ns[i]),
				    i ? 8 : 0, "idle %llu", idle_ns[i]);
	}
	KUNIT_EXPECT_EQ(test, rxc_pace_wait_ns(&p, p.seen_ns), BURST_NS);
}

/* Over time the bytes that leave follow the rate, whatever the packets. */
static void the_bytes_follow_the_rate(struct kunit *test)
{
	static const u32 sizes[] = { 8, 1024, 4096 };
	struct rxc_pace p;
	u64 now, sent;
	int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		paced_at_8ns_a_byte(&p);
		sent = 0;
		for (now = T0; now < T0 + 80000 * US; now += 100 * US)
			sent += (u64)take_all(&p, sizes[i], now) * sizes[i];
		/* 80 ms at 125 MB/s, and the first burst. */
		KUNIT_EXPECT_LE_MSG(test, sent, 10000000ULL + SZ_32K,
				    "size %u", sizes[i]);
		KUNIT_EXPECT_GE_MSG(test, sent, 10000000ULL - sizes[i] * 2,
				    "size %u", sizes[i]);
	}
}

/*
 * The requester asks with the last clock reading before it reads the
 * clock: that may grant what the bucket held then, never more.
 */
static void a_stale_clock_grants_no_more_than_it_saw(struct kunit *test)
{
	struct rxc_pace p;

	paced_at_8ns_a_byte(&p);
	KUNIT_EXPECT_EQ(test, take_all(&p, SZ_1K, T0), 32);
	KUNIT_EXPECT_EQ(test, take_all(&p, SZ_1K, p.seen_ns), 0);
	/* Half a burst's time later, half a burst; the stale clock none. */
	KUNIT_EXPECT_EQ(test, take_all(&p, SZ_1K, T0 + SZ_16K * 8), 16);
	KUNIT_EXPECT_EQ(test, p.seen_ns, T0 + SZ_16K * 8);
	KUNIT_EXPECT_EQ(test, take_all(&p, SZ_1K, p.seen_ns), 0);
	/* An older reading than the last one does not move it back. */
	KUNIT_EXPECT_FALSE(test, rxc_pace_take(&p, SZ_1K, T0));
	KUNIT_EXPECT_EQ(test, p.seen_ns, T0 + SZ_16K * 8);
}

/*
 * A 64 KiB read asks for two bursts: it goes with a full bucket and
 * leaves a burst of debt, so the next one waits two bursts' time.
 */
static void a_packet_larger_than_a_burst_waits_for_a_full_bucket(struct kunit *test)
{
	struct rxc_pace p;

	paced_at_8ns_a_byte(&p);
	KUNIT_EXPECT_TRUE(test, rxc_pace_take(&p, SZ_4K, T0));
	KUNIT_EXPECT_FALSE(test, rxc_pace_take(&p, SZ_64K, T0));
	KUNIT_EXPECT_EQ(test, rxc_pace_wait_ns(&p, T0), SZ_4K * 8ULL);
	KUNIT_EXPECT_TRUE(test, rxc_pace_take(&p, SZ_64K, T0 + SZ_4K * 8));
	KUNIT_EXPECT_EQ(test, rxc_pace_wait_ns(&p, T0 + SZ_4K * 8),
			2 * BURST_NS);
	KUNIT_EXPECT_FALSE(test, rxc_pace_take(&p, SZ_64K,
					       T0 + SZ_4K * 8 + BURST_NS));
	KUNIT_EXPECT_TRUE(test, rxc_pace_take(&p, SZ_64K,
					      T0 + SZ_4K * 8 + 2 * BURST_NS));
}

/* Charge @bytes of read responses in @pieces equal parts. */
static void charge_in(struct rxc_pace *p, u32 bytes, u32 pieces)
{
	u32 i;

	for (i = 0; i < pieces; i++)
		rxc_pace_charge(p, bytes / pieces);
}

/*
 * However much a message costs, taken at once or charged as its read
 * responses arrive, the requester waits at most a window's time (800 us
 * here) and a burst's for its next packet.  A 1 GiB read charged at once
 * used to owe 8.6 s at this rate, and hours at a slow round trip's.
 */
static void no_message_owes_more_than_a_window(struct kunit *test)
{
	static const struct { u32 bytes, pieces; bool take; } cases[] = {
		{ SZ_1G, 1, true },		/* one huge packet */
		{ SZ_1G, 1, false },		/* a read's responses at once */
		{ SZ_64M, 65536, false },	/* 1 KiB responses */
		{ SZ_64K, 1, false },		/* within a window: all owed */
	};
	struct rxc_pace p;
	u64 wait;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		paced_at_8ns_a_byte(&p);
		KUNIT_EXPECT_TRUE(test, rxc_pace_take(&p, 0, T0));
		if (cases[i].take)
			KUNIT_EXPECT_TRUE(test, rxc_pace_take(&p, cases[i].bytes, T0));
		else
			charge_in(&p, cases[i].bytes, cases[i].pieces);
		wait = rxc_pace_wait_ns(&p, T0);
		KUNIT_EXPECT_LE_MSG(test, wait, 800 * US + BURST_NS, "case %d", i);
		KUNIT_EXPECT_GE_MSG(test, wait,
				    min(cases[i].bytes * 8ULL, 800 * US),
				    "case %d", i);
		KUNIT_EXPECT_TRUE_MSG(test, rxc_pace_take(&p, SZ_4K, T0 + wait),
				      "case %d", i);
	}
}

/* Before the first round trip is timed there is no rate: charges are free. */
static void a_charge_without_a_rate_costs_nothing(struct kunit *test)
{
	struct rxc_pace p = {};

	rxc_pace_charge(&p, SZ_1G);
	KUNIT_EXPECT_EQ(test, rxc_pace_wait_ns(&p, T0), 0ULL);
	KUNIT_EXPECT_TRUE(test, rxc_pace_take(&p, SZ_64K, T0));
}

/*
 * The wedge: a peer held its first ACK back for 0.9 s, so the
 * round trip estimate is 0.9 s; then a 1 GiB read.  The next packet
 * waits for a window and a burst of a 10 ms round trip at most (8 ms and
 * 4 ms here), not for hours.
 */
static void one_late_ack_then_a_huge_read_waits_one_round_trip(struct kunit *test)
{
	struct rxc_pace p = {};

	rxc_pace_rate(&p, 900000, SZ_64K);
	KUNIT_EXPECT_TRUE(test, rxc_pace_take(&p, 0, T0));
	rxc_pace_charge(&p, SZ_1G);
	KUNIT_EXPECT_LE(test, rxc_pace_wait_ns(&p, T0),
			2 * RXC_PACE_MAX_RTT_US * US);
}

static struct kunit_case rxc_pace_cases[] = {
	KUNIT_CASE(the_rate_is_a_window_and_a_quarter_per_round_trip),
	KUNIT_CASE(no_rate_paces_nothing),
	KUNIT_CASE(idling_gains_one_burst),
	KUNIT_CASE(the_bytes_follow_the_rate),
	KUNIT_CASE(a_stale_clock_grants_no_more_than_it_saw),
	KUNIT_CASE(a_packet_larger_than_a_burst_waits_for_a_full_bucket),
	KUNIT_CASE(no_message_owes_more_than_a_window),
	KUNIT_CASE(a_charge_without_a_rate_costs_nothing),
	KUNIT_CASE(one_late_ack_then_a_huge_read_waits_one_round_trip),
	{}
};

static struct kunit_suite rxc_pace_suite = {
	.name = "rxc_pace",
	.test_cases = rxc_pace_cases,
};

kunit_test_suite(rxc_pace_suite);
