// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RC congestion window: one cut per loss episode, the floor on a
 * timeout, slow start back to the threshold, then one PSN per window.
 */
#include <kunit/test.h>

#include "transport/rxc_transport.h"

/* One event and the window it must leave. */
struct cwnd_step {
	enum { LOSS, TIMEOUT, ACKED } ev;
	u32 psn;	/* LOSS, TIMEOUT: max_psn; ACKED: the new una */
	u32 n;		/* ACKED: PSNs newly acknowledged */
	u32 size;	/* the window after it */
	bool cut;	/* LOSS, TIMEOUT: the call reports a cut */
};

/* Play @steps on a new window for @mtu, checking the size after each. */
static void cwnd_play(struct kunit *test, u32 mtu,
		      const struct cwnd_step *steps, int n)
{
	struct rxc_cwnd c;
	bool cut;
	int i;

	rxc_cwnd_init(&c, mtu);
	for (i = 0; i < n; i++) {
		const struct cwnd_step *s = &steps[i];

		switch (s->ev) {
		case LOSS:
			cut = rxc_cwnd_loss(&c, s->psn);
			KUNIT_EXPECT_EQ_MSG(test, cut, s->cut, "step %d", i);
			break;
		case TIMEOUT:
			cut = rxc_cwnd_timeout(&c, s->psn);
			KUNIT_EXPECT_EQ_MSG(test, cut, s->cut, "step %d", i);
			break;
		case ACKED:
			rxc_cwnd_acked(&c, s->psn, s->n);
			break;
		}
		KUNIT_EXPECT_EQ_MSG(test, c.size, s->size, "step %d", i);
	}
}

static void floor_is_64k_of_payload_within_the_maximum(struct kunit *test)
{
	static const struct { u32 mtu, floor; } cases[] = {
		{ 256, RXC_CWND_MAX }, { 512, RXC_CWND_MAX }, { 1024, 64 },
		{ 2048, 32 }, { 4096, 16 },
	};
	struct rxc_cwnd c;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		rxc_cwnd_init(&c, cases[i].mtu);
		KUNIT_EXPECT_EQ_MSG(test, c.floor, cases[i].floor,
				    "mtu %u", cases[i].mtu);
		KUNIT_EXPECT_EQ(test, c.size, (u32)RXC_CWND_MAX);
	}
}

static void a_loss_halves_the_window_once_per_episode(struct kunit *test)
{
	static const struct cwnd_step steps[] = {
		{ LOSS, 1000, 0, 64, true },
		/* More losses before PSN 1000 is acknowledged: one episode. */
		{ LOSS, 1040, 0, 64, false },
		{ ACKED, 999, 50, 64 },
		{ LOSS, 1050, 0, 64, false },
		/* Past it, a new loss is a new episode. */
		{ ACKED, 1000, 1, 64 },
		{ LOSS, 1100, 0, 32, true },
	};

	cwnd_play(test, 4096, steps, ARRAY_SIZE(steps));
}

static void the_window_does_not_grow_inside_an_episode(struct kunit *test)
{
	static const struct cwnd_step steps[] = {
		{ TIMEOUT, 500, 0, 16, true },
		{ ACKED, 499, 400, 16 },
		{ LOSS, 510, 0, 16, false },
	};

	cwnd_play(test, 4096, steps, ARRAY_SIZE(steps));
}

static void losses_never_cut_below_the_floor(struct kunit *test)
{
	static const struct cwnd_step steps[] = {
		{ LOSS, 10, 0, 64, true }, { ACKED, 10, 10, 64 },
		{ LOSS, 20, 0, 32, true }, { ACKED, 20, 10, 32 },
		{ LOSS, 30, 0, 16, true }, { ACKED, 30, 10, 16 },
		{ LOSS, 40, 0, 16, false }, { ACKED, 40, 10, 16 },
		/* At the floor, a timeout cuts nothing. */
		{ TIMEOUT, 50, 0, 16, false },
	};

	cwnd_play(test, 4096, steps, ARRAY_SIZE(steps));
}

static void a_timeout_restarts_from_the_floor_then_slow_starts(struct kunit *test)
{
	static const struct cwnd_step steps[] = {
		{ TIMEOUT, 300, 0, 16, true },
		/* The episode ends: one PSN per PSN acknowledged, up to 64. */
		{ ACKED, 300, 20, 36 },
		{ ACKED, 340, 40, 64 },
		/* Then one per window of 64. */
		{ ACKED, 403, 63, 64 },
		{ ACKED, 404, 1, 65 },
		{ ACKED, 469, 65, 66 },
	};

	cwnd_play(test, 4096, steps, ARRAY_SIZE(steps));
}

static void growth_stops_at_the_maximum(struct kunit *test)
{
	struct rxc_cwnd c;
	u32 una = 0;
	int i;

	rxc_cwnd_init(&c, 1024);
	rxc_cwnd_loss(&c, 0);
	for (i = 0; i < 1000; i++) {
		una += 128;
		rxc_cwnd_acked(&c, una, 128);
	}
	KUNIT_EXPECT_EQ(test, c.size, (u32)RXC_CWND_MAX);
	KUNIT_EXPECT_EQ(test, c.acked, 0U);
}

static void episodes_end_across_the_psn_wrap(struct kunit *test)
{
	static const struct cwnd_step steps[] = {
		{ LOSS, 0x000010, 0, 64, true },
		/* 0xfffff0 is 32 PSNs before 0x000010 in 24 bits. */
		{ ACKED, 0xfffff0, 1, 64 },
		{ LOSS, 0x000020, 0, 64, false },
		{ ACKED, 0x000010, 32, 64 },
		{ LOSS, 0x000030, 0, 32, true },
	};

	cwnd_play(test, 4096, steps, ARRAY_SIZE(steps));
}

static void full_counts_the_psns_past_the_oldest_unacked(struct kunit *test)
{
	static const struct { u32 psn, una; bool full; } cases[] = {
		{ 0x1000, 0x1000, false }, { 0x107f, 0x1000, false },
		{ 0x1080, 0x1000, true },
		/* Across the wrap: 0x000070 is 128 PSNs after 0xfffff0. */
		{ 0x00006f, 0xfffff0, false }, { 0x000070, 0xfffff0, true },
		/* The cursor behind @una, after a late ACK: not full. */
		{ 0x1060, 0x1064, false }, { 0xfffffc, 0x000004, false },
	};
	struct rxc_cwnd c;
	int i;

	rxc_cwnd_init(&c, 4096);
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    rxc_cwnd_full(&c, cases[i].psn, cases[i].una),
				    cases[i].full, "psn %#x una %#x",
				    cases[i].psn, cases[i].una);
}

static struct kunit_case rxc_cwnd_cases[] = {
	KUNIT_CASE(floor_is_64k_of_payload_within_the_maximum),
	KUNIT_CASE(a_loss_halves_the_window_once_per_episode),
	KUNIT_CASE(the_window_does_not_grow_inside_an_episode),
	KUNIT_CASE(losses_never_cut_below_the_floor),
	KUNIT_CASE(a_timeout_restarts_from_the_floor_then_slow_starts),
	KUNIT_CASE(growth_stops_at_the_maximum),
	KUNIT_CASE(episodes_end_across_the_psn_wrap),
	KUNIT_CASE(full_counts_the_psns_past_the_oldest_unacked),
	{}
};

static struct kunit_suite rxc_cwnd_suite = {
	.name = "rxc_cwnd",
	.test_cases = rxc_cwnd_cases,
};

kunit_test_suite(rxc_cwnd_suite);
