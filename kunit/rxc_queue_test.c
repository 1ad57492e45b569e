// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Ring index arithmetic and the rule that the kernel never trusts an
 * index user space can write.
 */
#include <kunit/test.h>

#include "verbs/rxc_queue.h"

static void q_next_wraps_to_zero_after_mask(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rxc_q_next(0, 7), 1U);
	KUNIT_EXPECT_EQ(test, rxc_q_next(6, 7), 7U);
	KUNIT_EXPECT_EQ(test, rxc_q_next(7, 7), 0U);
}

static void q_count_is_correct_when_producer_has_wrapped(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rxc_q_count(5, 5, 7), 0U);
	KUNIT_EXPECT_EQ(test, rxc_q_count(5, 2, 7), 3U);
	KUNIT_EXPECT_EQ(test, rxc_q_count(1, 6, 7), 3U);
	KUNIT_EXPECT_EQ(test, rxc_q_count(5, 6, 7), 7U);
}

static void q_full_leaves_one_slot_free(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, rxc_q_full(0, 0, 7));
	KUNIT_EXPECT_FALSE(test, rxc_q_full(6, 0, 7));
	KUNIT_EXPECT_TRUE(test, rxc_q_full(2, 3, 7));
	KUNIT_EXPECT_TRUE(test, rxc_q_full(7, 0, 7));
}

static void geometry_gives_a_power_of_two_above_the_request(struct kunit *test)
{
	static const struct { u32 req, slots; } cases[] = {
		{ 0, 2 }, { 1, 2 }, { 2, 4 }, { 3, 4 }, { 4, 8 },
		{ 1023, 1024 }, { 1024, 2048 },
	};
	u32 slots, log2_elem;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		KUNIT_ASSERT_EQ(test, rxc_q_geometry(cases[i].req, 64, &slots,
						     &log2_elem), 0);
		KUNIT_EXPECT_EQ_MSG(test, slots, cases[i].slots,
				    "request %u", cases[i].req);
	}
}

static void geometry_rounds_elements_up_to_a_cache_line(struct kunit *test)
{
	u32 slots, log2_elem;

	KUNIT_ASSERT_EQ(test, rxc_q_geometry(8, 1, &slots, &log2_elem), 0);
	KUNIT_EXPECT_EQ(test, 1U << log2_elem, (u32)SMP_CACHE_BYTES);
	KUNIT_ASSERT_EQ(test, rxc_q_geometry(8, 224, &slots, &log2_elem), 0);
	KUNIT_EXPECT_EQ(test, log2_elem, 8U);
	KUNIT_ASSERT_EQ(test, rxc_q_geometry(8, 256, &slots, &log2_elem), 0);
	KUNIT_EXPECT_EQ(test, log2_elem, 8U);
}

static void geometry_fails_with_einval_for_huge_rings(struct kunit *test)
{
	u32 slots, log2_elem;

	KUNIT_EXPECT_EQ(test, rxc_q_geometry(1U << 30, 64, &slots, &log2_elem),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rxc_q_geometry(1U << 20, 4096, &slots,
					     &log2_elem), -EINVAL);
	KUNIT_EXPECT_EQ(test, rxc_q_geometry(U32_MAX, U32_MAX, &slots,
					     &log2_elem), -EINVAL);
}

static void init_publishes_geometry_and_reports_capacity(struct kunit *test)
{
	struct rxc_queue q;
	u32 n = 5;

	KUNIT_ASSERT_EQ(test, rxc_queue_init(&q, &n, 100, true, false), 0);
	KUNIT_EXPECT_EQ(test, n, 7U);
	KUNIT_EXPECT_EQ(test, q.buf->index_mask, 7U);
	KUNIT_EXPECT_EQ(test, q.buf->log2_elem_size, 7U);
	KUNIT_EXPECT_EQ(test, q.size % PAGE_SIZE, 0UL);
	rxc_queue_free(&q);
}

static void refresh_masks_a_corrupt_user_index(struct kunit *test)
{
	struct rxc_queue q;
	u32 n = 7;

	KUNIT_ASSERT_EQ(test, rxc_queue_init(&q, &n, 64, true, false), 0);
	q.buf->producer_index = 0xfffffffd;
	q.buf->index_mask = 0xffffffff;
	q.buf->log2_elem_size = 31;
	rxc_queue_refresh(&q);
	KUNIT_EXPECT_EQ(test, q.prod, 5U);
	KUNIT_EXPECT_EQ(test, q.mask, 7U);
	KUNIT_EXPECT_PTR_EQ(test, rxc_queue_elem(&q, q.prod),
			    (void *)(q.buf->data + 5 * 64));
	rxc_queue_free(&q);
}

static void refresh_never_reads_the_kernel_owned_index(struct kunit *test)
{
	struct rxc_queue q;
	u32 n = 7;

	KUNIT_ASSERT_EQ(test, rxc_queue_init(&q, &n, 64, true, false), 0);
	q.buf->producer_index = 3;
	rxc_queue_refresh(&q);
	rxc_queue_pop(&q);
	KUNIT_EXPECT_EQ(test, q.buf->consumer_index, 1U);
	q.buf->consumer_index = 6;
	rxc_queue_refresh(&q);
	KUNIT_EXPECT_EQ(test, q.cons, 1U);
	KUNIT_EXPECT_EQ(test, rxc_queue_count(&q), 2U);
	rxc_queue_free(&q);
}

/* A move to RESET retires everything posted, past a wrap too, at once. */
static void discard_retires_every_posted_element(struct kunit *test)
{
	struct rxc_queue q;
	u32 n = 7;

	KUNIT_ASSERT_EQ(test, rxc_queue_init(&q, &n, 64, true, false), 0);
	q.buf->producer_index = 6;
	rxc_queue_refresh(&q);
	rxc_queue_pop(&q);
	q.buf->producer_index = 0xfffffff2;	/* masked: 2, wrapped */
	rxc_queue_discard(&q);
	KUNIT_EXPECT_EQ(test, q.cons, 2U);
	KUNIT_EXPECT_EQ(test, q.buf->consumer_index, 2U);
	KUNIT_EXPECT_EQ(test, rxc_queue_count(&q), 0U);
	KUNIT_EXPECT_NULL(test, rxc_queue_head(&q));
	rxc_queue_free(&q);
}

static void copy_moves_live_elements_in_order(struct kunit *test)
{
	struct rxc_queue a, b;
	u32 n = 3, m = 7, i;

	KUNIT_ASSERT_EQ(test, rxc_queue_init(&a, &n, 64, false, false), 0);
	KUNIT_ASSERT_EQ(test, rxc_queue_init(&b, &m, 64, false, false), 0);
	/* Wrap the source: push four, pop two, push one more. */
	for (i = 0; i < 3; i++) {
		*(u32 *)rxc_queue_tail(&a) = i;
		rxc_queue_push(&a);
	}
	rxc_queue_pop(&a);
	rxc_queue_pop(&a);
	*(u32 *)rxc_queue_tail(&a) = 3;
	rxc_queue_push(&a);

	KUNIT_ASSERT_EQ(test, rxc_queue_copy(&b, &a), 0);
	KUNIT_EXPECT_EQ(test, rxc_queue_count(&b), 2U);
	KUNIT_EXPECT_EQ(test, *(u32 *)rxc_queue_elem(&b, 0), 2U);
	KUNIT_EXPECT_EQ(test, *(u32 *)rxc_queue_elem(&b, 1), 3U);
	rxc_queue_free(&a);
	rxc_queue_free(&b);
}

static void copy_fails_with_einval_when_elements_do_not_fit(struct kunit *test)
{
	struct rxc_queue a, b;
	u32 n = 7, m = 1, i;

	KUNIT_ASSERT_EQ(test, rxc_queue_init(&a, &n, 64, false, false), 0);
	KUNIT_ASSERT_EQ(test, rxc_queue_init(&b, &m, 64, false, false), 0);
	for (i = 0; i < 2; i++)
		rxc_queue_push(&a);
	KUNIT_EXPECT_EQ(test, rxc_queue_copy(&b, &a), -EINVAL);
	KUNIT_EXPECT_EQ(test, rxc_queue_count(&b), 0U);
	rxc_queue_free(&a);
	rxc_queue_free(&b);
}

static struct kunit_case rxc_queue_cases[] = {
	KUNIT_CASE(q_next_wraps_to_zero_after_mask),
	KUNIT_CASE(q_count_is_correct_when_producer_has_wrapped),
	KUNIT_CASE(q_full_leaves_one_slot_free),
	KUNIT_CASE(geometry_gives_a_power_of_two_above_the_request),
	KUNIT_CASE(geometry_rounds_elements_up_to_a_cache_line),
	KUNIT_CASE(geometry_fails_with_einval_for_huge_rings),
	KUNIT_CASE(init_publishes_geometry_and_reports_capacity),
	KUNIT_CASE(refresh_masks_a_corrupt_user_index),
	KUNIT_CASE(refresh_never_reads_the_kernel_owned_index),
	KUNIT_CASE(discard_retires_every_posted_element),
	KUNIT_CASE(copy_moves_live_elements_in_order),
	KUNIT_CASE(copy_fails_with_einval_when_elements_do_not_fit),
	{}
};

static struct kunit_suite rxc_queue_suite = {
	.name = "rxc_queue",
	.test_cases = rxc_queue_cases,
};

kunit_test_suite(rxc_queue_suite);
