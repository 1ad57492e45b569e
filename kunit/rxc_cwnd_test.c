// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RC congestion window: 64 KiB to 128 KiB of payload, one cut per
 * loss episode, the floor on a timeout, then one PSN per window.
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

static void floor_and_maximum_are_64k_and_128k_of_payload(struct kunit *test)
{
	static const struct { u32 mtu, floor, max; } cases[] = {
		{ 256, 128, 128 }, { 512, 128, 128 }, { 1024, 64, 128 },
		{ 2048, 32, 64 }, { 4096, 16, 32 },
	};
	struct rxc_cwnd c;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		rxc_cwnd_init(&c, cases[i].mtu);
		KUNIT_EXPECT_EQ_MSG(test, c.floor, cases[i].floor,
				    "mtu %u", cases[i].mtu);
		KUNIT_EXPECT_EQ_MSG(test, c.size, cases[i].max,
				    "mtu %u", cases[i].mtu);
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
		/* Past it, the window grows by one per window acknowledged, */
		{ ACKED, 1000, 1, 64 },
		{ ACKED, 1063, 63, 65 },
		/* and a new loss is a new episode. */
		{ LOSS, 1100, 0, 64, true },
	};

	cwnd_play(test, 1024, steps, ARRAY_SIZE(steps));
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
		{ LOSS, 10, 0, 16, true }, { ACKED, 10, 10, 16 },
		{ LOSS, 20, 0, 16, false }, { ACKED, 20, 10, 16 },
		/* At the floor, a timeout cuts nothing. */
		{ TIMEOUT, 30, 0, 16, false },
	};

	cwnd_play(test, 4096, steps, ARRAY_SIZE(steps));
}

static void a_timeout_restarts_from_the_floor(struct kunit *test)
{
	static const struct cwnd_step steps[] = {
		/* After a loss, one PSN per window acknowledged: */
		{ LOSS, 100, 0, 16, true },
		{ ACKED, 100, 16, 17 },
		{ ACKED, 117, 17, 18 },
		{ ACKED, 130, 13, 18 },
		{ ACKED, 135, 5, 19 },
		/* a timeout falls to the floor and starts an episode, */
		{ TIMEOUT, 300, 0, 16, true },
		{ ACKED, 299, 160, 16 },
		/* after which the window grows as after a loss. */
		{ ACKED, 300, 1, 16 },
		{ ACKED, 315, 15, 17 },
	};

	cwnd_play(test, 4096, steps, ARRAY_SIZE(steps));
}

static void growth_stops_at_the_maximum(struct kunit *test)
{
	static const struct { u32 mtu, max; } cases[] = {
		{ 1024, RXC_CWND_MAX }, { 4096, RXC_CWND_MAX_BYTES / 4096 },
	};
	struct rxc_cwnd c;
	u32 una;
	int i, j;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		rxc_cwnd_init(&c, cases[i].mtu);
		rxc_cwnd_loss(&c, 0);
		for (una = 0, j = 0; j < 1000; j++) {
			una += 128;
			rxc_cwnd_acked(&c, una, 128);
		}
		KUNIT_EXPECT_EQ_MSG(test, c.size, cases[i].max,
				    "mtu %u", cases[i].mtu);
		KUNIT_EXPECT_EQ(test, c.acked, 0U);
	}
}

static void episodes_end_across_the_psn_wrap(struct kunit *test)
{
	static const struct cwnd_step steps[] = {
		{ LOSS, 0x000010, 0, 64, true },
		/* 0xfffff0 is 32 PSNs before 0x000010 in 24 bits. */
		{ ACKED, 0xfffff0, 1, 64 },
		{ LOSS, 0x000020, 0, 64, false },
		/* The episode ends, and the window grows: a new one cuts it. */
		{ ACKED, 0x000010, 64, 65 },
		{ LOSS, 0x000030, 0, 64, true },
	};

	cwnd_play(test, 1024, steps, ARRAY_SIZE(steps));
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

	rxc_cwnd_init(&c, 1024);
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    rxc_cwnd_full(&c, cases[i].psn, cases[i].una),
				    cases[i].full, "psn %#x una %#x",
				    cases[i].psn, cases[i].una);
}

static struct kunit_case rxc_cwnd_cases[] = {
	KUNIT_CASE(floor_and_maximum_are_64k_and_128k_of_payload),
	KUNIT_CASE(a_loss_halves_the_window_once_per_episode),
	KUNIT_CASE(the_window_does_not_grow_inside_an_episode),
	KUNIT_CASE(losses_never_cut_below_the_floor),
	KUNIT_CASE(a_timeout_restarts_from_the_floor),
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
