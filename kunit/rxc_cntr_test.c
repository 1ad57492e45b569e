// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion counters: which operation bit counts a completion, what it
 * adds, how values wrap, the attach mask checks and rules on one QP's
 * table, the wait condition, remote counting, buffer descriptors, and
 * a counter that WAIT can find being one that device removal can wake.
 */
#include <kunit/test.h>

#include "rxc.h"
#include "counters/rxc_cntr.h"

static void op_bit_maps_sends_receives_writes_and_reads(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rxc_cntr_op_bit(IB_WC_SEND),
			(u32)IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND);
	KUNIT_EXPECT_EQ(test, rxc_cntr_op_bit(IB_WC_RECV),
			(u32)IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV);
	KUNIT_EXPECT_EQ(test, rxc_cntr_op_bit(IB_WC_RECV_RDMA_WITH_IMM),
			(u32)IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV);
	KUNIT_EXPECT_EQ(test, rxc_cntr_op_bit(IB_WC_RDMA_WRITE),
			(u32)IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, rxc_cntr_op_bit(IB_WC_RDMA_READ),
			(u32)IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_READ);
}

static void op_bit_counts_atomics_as_reads(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rxc_cntr_op_bit(IB_WC_COMP_SWAP),
			(u32)IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_READ);
	KUNIT_EXPECT_EQ(test, rxc_cntr_op_bit(IB_WC_FETCH_ADD),
			(u32)IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_READ);
}

static void op_bit_ignores_local_operations(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rxc_cntr_op_bit(IB_WC_LOCAL_INV), 0U);
	KUNIT_EXPECT_EQ(test, rxc_cntr_op_bit(IB_WC_BIND_MW), 0U);
	KUNIT_EXPECT_EQ(test, rxc_cntr_op_bit(IB_WC_REG_MR), 0U);
}

static void max_value_is_two_to_the_bits_minus_one(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rxc_cntr_max_value(1), 1ULL);
	KUNIT_EXPECT_EQ(test, rxc_cntr_max_value(8), 255ULL);
	KUNIT_EXPECT_EQ(test, rxc_cntr_max_value(63), U64_MAX >> 1);
	KUNIT_EXPECT_EQ(test, rxc_cntr_max_value(64), U64_MAX);
}

static void wrap_add_wraps_modulo_max_value_plus_one(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rxc_cntr_wrap_add(254, 1, 255), 255ULL);
	KUNIT_EXPECT_EQ(test, rxc_cntr_wrap_add(255, 1, 255), 0ULL);
	KUNIT_EXPECT_EQ(test, rxc_cntr_wrap_add(250, 10, 255), 4ULL);
	KUNIT_EXPECT_EQ(test, rxc_cntr_wrap_add(0, 512 + 3, 255), 3ULL);
	KUNIT_EXPECT_EQ(test, rxc_cntr_wrap_add(U64_MAX, 2, U64_MAX), 1ULL);
}

static void bytes_counter_adds_byte_len_and_wrs_counter_adds_one(struct kunit *test)
{
	struct rxc_completion c = { .status = IB_WC_SUCCESS, .byte_len = 4096 };
	u64 bytes = rxc_cntr_comp_bytes(&c);

	KUNIT_EXPECT_EQ(test, rxc_cntr_amount(RXC_COMP_CNTR_TYPE_BYTES, bytes),
			4096ULL);
	KUNIT_EXPECT_EQ(test, rxc_cntr_amount(RXC_COMP_CNTR_TYPE_WRS, bytes),
			1ULL);
	c.byte_len = 0;
	KUNIT_EXPECT_EQ(test, rxc_cntr_comp_bytes(&c), 0ULL);
}

/* The GRH a UD receive places before the message is not counted. */
static void bytes_of_a_ud_receive_exclude_the_grh(struct kunit *test)
{
	struct rxc_completion c = {
		.status = IB_WC_SUCCESS, .recv = true,
		.wc_flags = IB_WC_GRH, .byte_len = 40 + 512,
	};

	KUNIT_EXPECT_EQ(test, rxc_cntr_comp_bytes(&c), 512ULL);
	c.recv = false;
	KUNIT_EXPECT_EQ(test, rxc_cntr_comp_bytes(&c), 552ULL);
}

/* On 6.1 its CQE opcode is IB_WC_MASKED_COMP_SWAP's number. */
static void op_bit_counts_atomic_write_as_a_write(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rxc_cntr_op_bit(RXC_WC_ATOMIC_WRITE),
			(u32)IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE);
}

static void op_mask_check_wants_known_supported_nonempty_masks(struct kunit *test)
{
	const u32 send = IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND;

	KUNIT_EXPECT_EQ(test, ib_comp_cntr_check_op_mask(0x3f, 0x3f), 0);
	KUNIT_EXPECT_EQ(test, ib_comp_cntr_check_op_mask(send, 0x3f), 0);
	KUNIT_EXPECT_EQ(test, ib_comp_cntr_check_op_mask(0, 0x3f), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_comp_cntr_check_op_mask(0x40, 0x3f), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_comp_cntr_check_op_mask(BIT(31) | send, 0x3f),
			-EINVAL);
	/* A known bit the device does not count is unsupported too. */
	KUNIT_EXPECT_EQ(test, ib_comp_cntr_check_op_mask(send, 0x3e),
			-EOPNOTSUPP);
	/* A device claiming unknown bits does not make them valid. */
	KUNIT_EXPECT_EQ(test, ib_comp_cntr_check_op_mask(0x40, U32_MAX),
			-EINVAL);
}

static void amount_is_bytes_for_bytes_counters_and_one_for_wrs(struct kunit *test)
{
	/* Atomics are counted with 8 bytes by the responder. */
	KUNIT_EXPECT_EQ(test, rxc_cntr_amount(RXC_COMP_CNTR_TYPE_BYTES, 8), 8ULL);
	KUNIT_EXPECT_EQ(test, rxc_cntr_amount(RXC_COMP_CNTR_TYPE_BYTES, 1ULL << 31),
			1ULL << 31);
	KUNIT_EXPECT_EQ(test, rxc_cntr_amount(RXC_COMP_CNTR_TYPE_WRS, 8), 1ULL);
	KUNIT_EXPECT_EQ(test, rxc_cntr_amount(RXC_COMP_CNTR_TYPE_WRS, 0), 1ULL);
}

static void remote_counting_accepts_only_the_remote_ops(struct kunit *test)
{
	const u32 rw = IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE;
	const u32 rr = IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ;
	const u32 local_write = IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE;
	const u32 recv = IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV;

	KUNIT_EXPECT_TRUE(test, rxc_cntr_remote_op_valid(rw));
	KUNIT_EXPECT_TRUE(test, rxc_cntr_remote_op_valid(rr));
	KUNIT_EXPECT_FALSE(test, rxc_cntr_remote_op_valid(rw | rr));
	KUNIT_EXPECT_FALSE(test, rxc_cntr_remote_op_valid(0));
	KUNIT_EXPECT_FALSE(test, rxc_cntr_remote_op_valid(local_write));
	KUNIT_EXPECT_FALSE(test, rxc_cntr_remote_op_valid(recv));
}

/* Upstream's core passes MODIFY's and READ's ENTRY and OP unchecked. */
static void modify_and_read_refuse_unknown_entries_and_ops(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, rxc_cntr_entry_valid(IB_COMP_CNTR_ENTRY_COMP));
	KUNIT_EXPECT_TRUE(test, rxc_cntr_entry_valid(IB_COMP_CNTR_ENTRY_ERR));
	KUNIT_EXPECT_FALSE(test, rxc_cntr_entry_valid(2));
	KUNIT_EXPECT_FALSE(test, rxc_cntr_entry_valid(U32_MAX));
	KUNIT_EXPECT_TRUE(test, rxc_cntr_modify_op_valid(IB_COMP_CNTR_MODIFY_OP_SET));
	KUNIT_EXPECT_TRUE(test, rxc_cntr_modify_op_valid(IB_COMP_CNTR_MODIFY_OP_INC));
	KUNIT_EXPECT_FALSE(test, rxc_cntr_modify_op_valid(2));
	KUNIT_EXPECT_FALSE(test, rxc_cntr_modify_op_valid(U32_MAX));
}

static void wait_is_done_at_threshold_or_when_errors_move(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, rxc_cntr_wait_done(4, 0, 5, 0));
	KUNIT_EXPECT_TRUE(test, rxc_cntr_wait_done(5, 0, 5, 0));
	KUNIT_EXPECT_TRUE(test, rxc_cntr_wait_done(6, 0, 5, 0));
	KUNIT_EXPECT_TRUE(test, rxc_cntr_wait_done(0, 1, 5, 0));
	/* Any change of the error value counts, even a wrap back below. */
	KUNIT_EXPECT_TRUE(test, rxc_cntr_wait_done(0, 0, 5, 7));
	KUNIT_EXPECT_FALSE(test, rxc_cntr_wait_done(0, 7, 5, 7));
	KUNIT_EXPECT_TRUE(test, rxc_cntr_wait_done(0, 0, 0, 0));
}

static void buffer_desc_check_rejects_flags_types_misalignment_and_short(struct kunit *test)
{
	struct ib_uverbs_buffer_desc d = {
		.type = IB_UVERBS_BUFFER_TYPE_VA, .addr = 0x1000, .length = 8,
	};

	KUNIT_EXPECT_EQ(test, rxc_cntr_desc_check(&d), 0);
	d.optional_flags = 0xff;	/* ignored, as the uAPI says */
	KUNIT_EXPECT_EQ(test, rxc_cntr_desc_check(&d), 0);
	d.flags = 1;
	KUNIT_EXPECT_EQ(test, rxc_cntr_desc_check(&d), -EINVAL);
	d.flags = 0;
	d.addr = 0x1004;
	KUNIT_EXPECT_EQ(test, rxc_cntr_desc_check(&d), -EINVAL);
	d.addr = 0x1000;
	d.length = 7;
	KUNIT_EXPECT_EQ(test, rxc_cntr_desc_check(&d), -EINVAL);
	d.length = 4096;
	d.type = IB_UVERBS_BUFFER_TYPE_DMABUF;
	KUNIT_EXPECT_EQ(test, rxc_cntr_desc_check(&d), 0);
	d.type = 2;
	KUNIT_EXPECT_EQ(test, rxc_cntr_desc_check(&d), -EINVAL);
}

/*
 * The attach tests use the driver's own counter objects: with upstream's
 * core the use count they change lives in struct rxc_cntr, past struct
 * ib_comp_cntr (ib_comp_cntr_usecnt()).  Too large for the stack.
 */
static struct ib_comp_cntr *test_cntr(struct kunit *test)
{
	struct rxc_cntr *rc = kunit_kzalloc(test, sizeof(*rc), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rc);
	return &rc->ibcc;
}

static void attach_fails_with_ebusy_when_masks_overlap(struct kunit *test)
{
	const u32 send_recv = IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND |
			      IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV;
	const u32 recv_write = IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV |
			       IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE;
	const u32 write = IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE;
	struct ib_comp_cntr_attachments a = {};
	struct ib_comp_cntr *c1 = test_cntr(test), *c2 = test_cntr(test);

	KUNIT_ASSERT_EQ(test, ib_comp_cntr_attach(&a, c1, send_recv), 0);
	KUNIT_EXPECT_EQ(test, ib_comp_cntr_attach(&a, c2, recv_write), -EBUSY);
	/* A refused attach changes nothing. */
	KUNIT_EXPECT_NULL(test, ib_comp_cntr_for_op(&a, 4));
	KUNIT_EXPECT_EQ(test, atomic_read(ib_comp_cntr_usecnt(c2)), 0);
	KUNIT_EXPECT_EQ(test, ib_comp_cntr_attach(&a, c2, write), 0);
	KUNIT_EXPECT_PTR_EQ(test, ib_comp_cntr_for_op(&a, 0), c1);
	KUNIT_EXPECT_PTR_EQ(test, ib_comp_cntr_for_op(&a, 1), c1);
	KUNIT_EXPECT_PTR_EQ(test, ib_comp_cntr_for_op(&a, 4), c2);
}

static void attach_counts_one_use_per_qp_and_detach_drops_it(struct kunit *test)
{
	const u32 send_read = IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND |
			      IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_READ;
	const u32 send = IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND;
	const u32 write = IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE;
	struct ib_comp_cntr_attachments qp1 = {}, qp2 = {};
	struct ib_comp_cntr *c = test_cntr(test);
	atomic_t *uses = ib_comp_cntr_usecnt(c);
	unsigned int i;

	KUNIT_ASSERT_EQ(test, ib_comp_cntr_attach(&qp1, c, send_read), 0);
	KUNIT_ASSERT_EQ(test, ib_comp_cntr_attach(&qp2, c, send), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(uses), 2);
	/* A second attach of the same counter to qp1 takes no new use. */
	KUNIT_ASSERT_EQ(test, ib_comp_cntr_attach(&qp1, c, write), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(uses), 2);

	ib_comp_cntr_detach_all(&qp1);
	KUNIT_EXPECT_EQ(test, atomic_read(uses), 1);
	for (i = 0; i < IB_COMP_CNTR_NUM_OPS; i++)
		KUNIT_EXPECT_NULL(test, ib_comp_cntr_for_op(&qp1, i));
	ib_comp_cntr_detach_all(&qp2);
	KUNIT_EXPECT_EQ(test, atomic_read(uses), 0);
}

/* A device with nothing but its counter list, and a context's pool. */
struct fake_cntr_env {
	struct rxc_dev *rxc;
	struct rxc_cntr_pool pool;
};

static void fake_cntr_env_init(struct kunit *test, struct fake_cntr_env *env)
{
	env->rxc = kunit_kzalloc(test, sizeof(*env->rxc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env->rxc);
	mutex_init(&env->rxc->cntr_lock);
	INIT_LIST_HEAD(&env->rxc->cntr_list);
	rxc_cntr_pool_init(&env->pool);
}

static struct rxc_cntr *fake_cntr(struct kunit *test, struct fake_cntr_env *env)
{
	struct rxc_cntr *cntr = kunit_kzalloc(test, sizeof(*cntr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, cntr);
	cntr->rxc = env->rxc;
	cntr->pool = &env->pool;
	rxc_cntr_wait_init(cntr);
	return cntr;
}

static bool cntr_listed(struct fake_cntr_env *env, struct rxc_cntr *cntr)
{
	struct rxc_cntr *c;

	list_for_each_entry(c, &env->rxc->cntr_list, dev_entry)
		if (c == cntr)
			return true;
	return false;
}

/*
 * Device removal wakes the WAITs of the counters the device lists, so a
 * counter that WAIT can find by its handle must be listed already.
 * Destroy hides it from WAIT and then unlists it.
 */
static void a_counter_wait_can_find_is_listed_for_removal(struct kunit *test)
{
	struct fake_cntr_env env;
	struct rxc_cntr *cntr;

	fake_cntr_env_init(test, &env);
	cntr = fake_cntr(test, &env);
	KUNIT_ASSERT_EQ(test, rxc_cntr_wait_publish(cntr, 7), 0);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&env.pool.handles, 7), (void *)cntr);
	KUNIT_EXPECT_TRUE(test, cntr_listed(&env, cntr));
	rxc_cntr_wait_cleanup(cntr);
	KUNIT_EXPECT_NULL(test, xa_load(&env.pool.handles, 7));
	KUNIT_EXPECT_TRUE(test, list_empty(&env.rxc->cntr_list));
	rxc_cntr_pool_destroy(&env.pool);
}

/* A handle already taken fails the publish, which leaves nothing behind. */
static void a_failed_publish_leaves_the_counter_unlisted(struct kunit *test)
{
	struct fake_cntr_env env;
	struct rxc_cntr *a, *b;

	fake_cntr_env_init(test, &env);
	a = fake_cntr(test, &env);
	b = fake_cntr(test, &env);
	KUNIT_ASSERT_EQ(test, rxc_cntr_wait_publish(a, 7), 0);
	KUNIT_EXPECT_EQ(test, rxc_cntr_wait_publish(b, 7), -EBUSY);
	KUNIT_EXPECT_FALSE(test, cntr_listed(&env, b));
	KUNIT_EXPECT_TRUE(test, cntr_listed(&env, a));
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&env.pool.handles, 7), (void *)a);
	rxc_cntr_wait_cleanup(a);
	rxc_cntr_pool_destroy(&env.pool);
}

static struct kunit_case rxc_cntr_cases[] = {
	KUNIT_CASE(op_bit_maps_sends_receives_writes_and_reads),
	KUNIT_CASE(op_bit_counts_atomics_as_reads),
	KUNIT_CASE(op_bit_ignores_local_operations),
	KUNIT_CASE(max_value_is_two_to_the_bits_minus_one),
	KUNIT_CASE(wrap_add_wraps_modulo_max_value_plus_one),
	KUNIT_CASE(bytes_counter_adds_byte_len_and_wrs_counter_adds_one),
	KUNIT_CASE(bytes_of_a_ud_receive_exclude_the_grh),
	KUNIT_CASE(op_bit_counts_atomic_write_as_a_write),
	KUNIT_CASE(op_mask_check_wants_known_supported_nonempty_masks),
	KUNIT_CASE(amount_is_bytes_for_bytes_counters_and_one_for_wrs),
	KUNIT_CASE(remote_counting_accepts_only_the_remote_ops),
	KUNIT_CASE(modify_and_read_refuse_unknown_entries_and_ops),
	KUNIT_CASE(wait_is_done_at_threshold_or_when_errors_move),
	KUNIT_CASE(buffer_desc_check_rejects_flags_types_misalignment_and_short),
	KUNIT_CASE(attach_fails_with_ebusy_when_masks_overlap),
	KUNIT_CASE(attach_counts_one_use_per_qp_and_detach_drops_it),
	KUNIT_CASE(a_counter_wait_can_find_is_listed_for_removal),
	KUNIT_CASE(a_failed_publish_leaves_the_counter_unlisted),
	{}
};

static struct kunit_suite rxc_cntr_suite = {
	.name = "rxc_cntr",
	.test_cases = rxc_cntr_cases,
};

kunit_test_suite(rxc_cntr_suite);
