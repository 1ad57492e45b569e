// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion counters through the uverbs ioctl interface: capabilities,
 * create/destroy, modify and read, the mapped counter page, the attach
 * rules, and counting flushed work requests as errors.
 *
 * libibverbs 44 has no counter verbs, so the ioctls are built here from
 * the kernel uAPI: the object and method IDs upstream defined, and rxc's
 * driver attributes (rdma/rxc-abi.h).
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "cntr_ioctl.h"
#include "fixture.h"

static bool cntr_create(struct test_env *env, struct cntr *cntr)
{
	return CHECK_OK(cntr_create_ex(env->ctx, cntr, RXC_COMP_CNTR_TYPE_WRS,
				       NULL, NULL));
}

/* The value of @entry, or ~0 with a failure recorded. */
static uint64_t cntr_value(struct test_env *env, const struct cntr *cntr,
			   uint64_t entry)
{
	uint64_t v;

	CHECK_OK(cntr_read(env->ctx, cntr, entry, &v));
	return v;
}

/* An RC QP in RESET on a fresh CQ; both NULL with a failure recorded. */
static struct ibv_qp *make_qp(struct test_env *env, struct ibv_cq **cq)
{
	struct ibv_qp *qp;

	*cq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 16, NULL, NULL, 0));
	if (!*cq)
		return NULL;
	qp = CHECK_NOT_NULL(create_test_qp(env, IBV_QPT_RC, *cq, NULL));
	if (!qp) {
		ibv_destroy_cq(*cq);
		*cq = NULL;
	}
	return qp;
}

static void free_qp(struct ibv_qp *qp, struct ibv_cq *cq)
{
	CHECK_OK(ibv_destroy_qp(qp));
	CHECK_OK(ibv_destroy_cq(cq));
}

/* A counter and an RC QP (on a CQ of its own) to attach it to. */
struct cntr_qp {
	struct cntr cntr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

/* False, with nothing left, when either cannot be created. */
static bool cntr_qp_create(struct test_env *env, struct cntr_qp *o)
{
	if (!cntr_create(env, &o->cntr))
		return false;
	o->qp = make_qp(env, &o->cq);
	if (o->qp)
		return true;
	CHECK_OK(cntr_destroy(env->ctx, &o->cntr));
	return false;
}

/* The QP first: an attached counter outlives no QP. */
static void cntr_qp_destroy(struct test_env *env, struct cntr_qp *o)
{
	free_qp(o->qp, o->cq);
	CHECK_OK(cntr_destroy(env->ctx, &o->cntr));
}

/* A module parameter of rdma_rxc as sysfs shows it, or @dflt. */
static long long module_param(const char *name, long long dflt)
{
	char path[128];
	long long v;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/rdma_rxc/parameters/%s",
		 name);
	f = fopen(path, "r");
	if (!f)
		return dflt;
	if (fscanf(f, "%lld", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

/* 2^bits - 1 for the loaded module's cntr_max_value_bits. */
static uint64_t expected_max_value(void)
{
	long long bits = module_param("cntr_max_value_bits", 64);

	return bits >= 64 ? UINT64_MAX : (1ull << bits) - 1;
}

static void query_caps_reports_all_ops_and_the_module_limits(
	struct test_env *env)
{
	struct caps caps = {};

	if (!CHECK_OK(query_caps(env->ctx, &caps)))
		return;
	CHECK_EQ(caps.ops, ALL_OPS);
	CHECK_EQ(caps.max_counters, module_param("max_comp_cntr", 65536));
	CHECK(caps.max_value == expected_max_value(), "max_value %#llx",
	      (unsigned long long)caps.max_value);
}

/* As upstream's core: every output of the caps method is optional. */
static void query_caps_works_with_one_output(struct test_env *env)
{
	uint64_t max_value = 0;

	if (CHECK_OK(query_caps_max_value(env->ctx, &max_value)))
		CHECK(max_value == expected_max_value(), "max_value %#llx",
		      (unsigned long long)max_value);
}

static void create_and_destroy_succeed_for_wrs_and_bytes_counters(
	struct test_env *env)
{
	struct cntr wrs, bytes, dflt;

	if (CHECK_OK(cntr_create_ex(env->ctx, &wrs, RXC_COMP_CNTR_TYPE_WRS,
				    NULL, NULL)))
		CHECK_OK(cntr_destroy(env->ctx, &wrs));
	if (CHECK_OK(cntr_create_ex(env->ctx, &bytes, RXC_COMP_CNTR_TYPE_BYTES,
				    NULL, NULL)))
		CHECK_OK(cntr_destroy(env->ctx, &bytes));
	if (CHECK_OK(cntr_create_ex(env->ctx, &dflt, -1, NULL, NULL)))
		CHECK_OK(cntr_destroy(env->ctx, &dflt));
}

/*
 * Upstream libibverbs' generic verbs send only the core attributes: no
 * driver response on create, nothing driver-specific anywhere else.
 */
static void every_method_works_with_the_core_attributes_alone(
	struct test_env *env)
{
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct cntr cntr;
	struct caps caps;

	CHECK_OK(query_caps(env->ctx, &caps));
	if (!CHECK_OK(cntr_create_core(env->ctx, &cntr)))
		return;
	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_SET, 7));
	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_ERR, OP_INC, 2));
	CHECK_EQ(cntr_value(env, &cntr, ENTRY_COMP), 7);
	CHECK_EQ(cntr_value(env, &cntr, ENTRY_ERR), 2);
	qp = make_qp(env, &cq);
	if (qp) {
		CHECK_OK(qp_attach(env->ctx, qp, &cntr, OP_SEND | OP_RECV));
		free_qp(qp, cq);
	}
	CHECK_OK(cntr_destroy(env->ctx, &cntr));
}

static void create_fails_with_einval_for_an_unknown_type(struct test_env *env)
{
	struct cntr cntr;

	if (!CHECK_RC(cntr_create_ex(env->ctx, &cntr, 2, NULL, NULL), EINVAL))
		cntr_destroy(env->ctx, &cntr);
}

static void destroy_fails_with_enoent_for_a_destroyed_counter(
	struct test_env *env)
{
	struct cntr cntr;

	if (!cntr_create(env, &cntr))
		return;
	CHECK_OK(cntr_destroy(env->ctx, &cntr));
	CHECK_RC(cntr_destroy(env->ctx, &cntr), ENOENT);
}

static void modify_set_and_inc_change_only_the_addressed_value(
	struct test_env *env)
{
	struct cntr cntr;

	if (!cntr_create(env, &cntr))
		return;
	CHECK_EQ(cntr_value(env, &cntr, ENTRY_COMP), 0);
	CHECK_EQ(cntr_value(env, &cntr, ENTRY_ERR), 0);

	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_SET, 5));
	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_INC, 3));
	CHECK_EQ(cntr_value(env, &cntr, ENTRY_COMP), 8);
	CHECK_EQ(cntr_value(env, &cntr, ENTRY_ERR), 0);

	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_ERR, OP_SET, 100));
	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_ERR, OP_INC, 1));
	CHECK_EQ(cntr_value(env, &cntr, ENTRY_ERR), 101);
	CHECK_EQ(cntr_value(env, &cntr, ENTRY_COMP), 8);
	CHECK_OK(cntr_destroy(env->ctx, &cntr));
}

/*
 * Increments wrap modulo max_value + 1: 2^64 by default, 2^k with the
 * module's cntr_max_value_bits=k (the guest reloads it to test that).
 */
static void inc_wraps_to_zero_past_max_value(struct test_env *env)
{
	uint64_t max = expected_max_value();
	struct cntr cntr;

	if (!cntr_create(env, &cntr))
		return;
	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_SET, max));
	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_INC, 2));
	CHECK_EQ(cntr_value(env, &cntr, ENTRY_COMP), 1);
	/* The error value wraps the same way. */
	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_ERR, OP_SET, max - 1));
	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_ERR, OP_INC, 1));
	CHECK(cntr_value(env, &cntr, ENTRY_ERR) == max, "err %#llx",
	      (unsigned long long)cntr_value(env, &cntr, ENTRY_ERR));
	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_ERR, OP_INC, 1));
	CHECK_EQ(cntr_value(env, &cntr, ENTRY_ERR), 0);
	/* An increment of a whole period leaves the value as it was. */
	if (max != UINT64_MAX) {
		CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_INC,
				     max + 1));
		CHECK_EQ(cntr_value(env, &cntr, ENTRY_COMP), 1);
		/* A SET beyond max_value is refused, not truncated. */
		CHECK_RC(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_SET,
				     max + 1), EINVAL);
	}
	CHECK_OK(cntr_destroy(env->ctx, &cntr));
}

static void modify_and_read_fail_with_einval_for_an_unknown_entry(
	struct test_env *env)
{
	struct cntr cntr;
	uint64_t v;

	if (!cntr_create(env, &cntr))
		return;
	CHECK_RC(cntr_modify(env->ctx, &cntr, 2, OP_SET, 1), EINVAL);
	CHECK_RC(cntr_modify(env->ctx, &cntr, ENTRY_COMP, 2, 1), EINVAL);
	CHECK_RC(cntr_read(env->ctx, &cntr, 2, &v), EINVAL);
	CHECK_OK(cntr_destroy(env->ctx, &cntr));
}

static void mapped_page_shows_the_values_read_returns(struct test_env *env)
{
	struct cntr a, b;
	volatile const uint64_t *pa, *pb;
	void *map;

	if (!cntr_create(env, &a))
		return;
	if (!cntr_create(env, &b)) {
		cntr_destroy(env->ctx, &a);
		return;
	}
	/* Counters of one context share a page, each in its own slot. */
	CHECK_EQ(a.resp.mmap_offset, b.resp.mmap_offset);
	CHECK(a.resp.comp_offset != b.resp.comp_offset,
	      "two counters at offset %u", a.resp.comp_offset);
	CHECK(a.resp.mmap_length >= 4096, "mmap_length %llu",
	      (unsigned long long)a.resp.mmap_length);

	map = mmap(NULL, a.resp.mmap_length, PROT_READ, MAP_SHARED,
		   env->ctx->cmd_fd, a.resp.mmap_offset);
	if (CHECK(map != MAP_FAILED, "mmap: %s", err_name(errno))) {
		pa = (const uint64_t *)((char *)map + a.resp.comp_offset);
		pb = (const uint64_t *)((char *)map + b.resp.err_offset);
		CHECK_OK(cntr_modify(env->ctx, &a, ENTRY_COMP, OP_SET, 42));
		CHECK_OK(cntr_modify(env->ctx, &b, ENTRY_ERR, OP_INC, 7));
		CHECK_EQ(*pa, cntr_value(env, &a, ENTRY_COMP));
		CHECK_EQ(*pa, 42);
		CHECK_EQ(*pb, cntr_value(env, &b, ENTRY_ERR));
		CHECK_EQ(*pb, 7);
		munmap(map, a.resp.mmap_length);
	}
	CHECK_OK(cntr_destroy(env->ctx, &b));
	CHECK_OK(cntr_destroy(env->ctx, &a));
}

static void mmap_fails_with_eperm_when_writable(struct test_env *env)
{
	struct cntr cntr;
	void *map;

	if (!cntr_create(env, &cntr))
		return;
	map = mmap(NULL, cntr.resp.mmap_length, PROT_READ | PROT_WRITE,
		   MAP_SHARED, env->ctx->cmd_fd, cntr.resp.mmap_offset);
	if (!CHECK(map == MAP_FAILED && errno == EPERM,
		   "writable mmap: %s", map == MAP_FAILED ?
		   err_name(errno) : "succeeded"))
		if (map != MAP_FAILED)
			munmap(map, cntr.resp.mmap_length);
	CHECK_OK(cntr_destroy(env->ctx, &cntr));
}

static void attach_succeeds_in_reset_and_init(struct test_env *env)
{
	struct cntr_qp o;

	if (!cntr_qp_create(env, &o))
		return;
	CHECK_OK(qp_attach(env->ctx, o.qp, &o.cntr, OP_SEND));
	if (CHECK_OK(qp_to_init(o.qp)))
		CHECK_OK(qp_attach(env->ctx, o.qp, &o.cntr,
				   OP_RECV | OP_WRITE));
	cntr_qp_destroy(env, &o);
}

static void attach_fails_with_einval_for_an_empty_mask(struct test_env *env)
{
	struct cntr_qp o;

	if (!cntr_qp_create(env, &o))
		return;
	CHECK_RC(qp_attach(env->ctx, o.qp, &o.cntr, 0), EINVAL);
	cntr_qp_destroy(env, &o);
}

/* The kernel's errno, as upstream's core: librxc maps it (t_api). */
static void attach_fails_with_einval_for_unknown_op_bits(struct test_env *env)
{
	struct cntr_qp o;

	if (!cntr_qp_create(env, &o))
		return;
	CHECK_RC(qp_attach(env->ctx, o.qp, &o.cntr, 1u << 6), EINVAL);
	CHECK_RC(qp_attach(env->ctx, o.qp, &o.cntr, OP_SEND | 1u << 31),
		 EINVAL);
	/* Nothing was attached: the counter is free to go. */
	cntr_qp_destroy(env, &o);
}

static void attach_fails_with_ebusy_when_masks_overlap(struct test_env *env)
{
	struct cntr a, b;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	if (!cntr_create(env, &a))
		return;
	if (!cntr_create(env, &b)) {
		cntr_destroy(env->ctx, &a);
		return;
	}
	qp = make_qp(env, &cq);
	if (qp) {
		CHECK_OK(qp_attach(env->ctx, qp, &a, OP_SEND | OP_RECV));
		CHECK_RC(qp_attach(env->ctx, qp, &b, OP_RECV | OP_WRITE), EBUSY);
		CHECK_RC(qp_attach(env->ctx, qp, &a, OP_SEND), EBUSY);
		/* The refused attach took no use: b can go at once. */
		CHECK_OK(cntr_destroy(env->ctx, &b));
		CHECK_OK(qp_attach(env->ctx, qp, &a, OP_WRITE));
		free_qp(qp, cq);
	} else {
		CHECK_OK(cntr_destroy(env->ctx, &b));
	}
	CHECK_OK(cntr_destroy(env->ctx, &a));
}

/*
 * Past INIT an attach is EINVAL, but an overlap is EBUSY first: upstream's
 * core checks the overlap before the driver sees the QP's state.
 */
static void attach_fails_with_einval_in_rtr_after_the_overlap_check(
	struct test_env *env)
{
	struct cntr_qp o;

	if (!cntr_qp_create(env, &o))
		return;
	if (CHECK_OK(qp_to_init(o.qp)) &&
	    CHECK_OK(qp_attach(env->ctx, o.qp, &o.cntr, OP_SEND)) &&
	    CHECK_OK(qp_to_rtr(env, o.qp, o.qp->qp_num))) {
		CHECK_RC(qp_attach(env->ctx, o.qp, &o.cntr, OP_SEND | OP_RECV),
			 EBUSY);
		CHECK_RC(qp_attach(env->ctx, o.qp, &o.cntr, OP_RECV), EINVAL);
	}
	cntr_qp_destroy(env, &o);
}

static void destroy_fails_with_ebusy_while_attached_until_qps_are_gone(
	struct test_env *env)
{
	struct ibv_cq *cq1, *cq2;
	struct ibv_qp *qp1, *qp2;
	struct cntr cntr;

	if (!cntr_create(env, &cntr))
		return;
	qp1 = make_qp(env, &cq1);
	if (!qp1)
		goto out;
	qp2 = make_qp(env, &cq2);
	if (!qp2) {
		free_qp(qp1, cq1);
		goto out;
	}
	/* One counter, many QPs: each holds it. */
	CHECK_OK(qp_attach(env->ctx, qp1, &cntr, OP_SEND | OP_RECV));
	CHECK_OK(qp_attach(env->ctx, qp2, &cntr, OP_SEND));
	CHECK_RC(cntr_destroy(env->ctx, &cntr), EBUSY);
	/* Still usable after the refused destroy. */
	CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_INC, 1));
	free_qp(qp1, cq1);
	CHECK_RC(cntr_destroy(env->ctx, &cntr), EBUSY);
	free_qp(qp2, cq2);
out:
	CHECK_OK(cntr_destroy(env->ctx, &cntr));
}

/* Posts @n receives of the loop's destination buffer. */
static int post_receives(struct loop *l, int n)
{
	struct ibv_sge sge = { (uintptr_t)l->dst, 64, l->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int i, rc;

	for (i = 0; i < n; i++) {
		wr.wr_id = i;
		rc = ibv_post_recv(l->qp, &wr, &bad);
		if (rc)
			return rc;
	}
	return 0;
}

/* Posts @n sends, every other one unsignaled. */
static int post_sends(struct loop *l, int n)
{
	struct ibv_sge sge = { (uintptr_t)l->src, 64, l->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
	}, *bad;
	int i, rc;

	for (i = 0; i < n; i++) {
		wr.wr_id = 100 + i;
		wr.send_flags = i % 2 ? 0 : IBV_SEND_SIGNALED;
		rc = ibv_post_send(l->qp, &wr, &bad);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Receives posted in INIT flush when the QP enters ERR; sends posted in
 * ERR flush at once.  Every flushed request is an error for the counter,
 * signaled or not, and none is a completion.
 */
static void flushed_work_requests_count_as_errors(struct test_env *env)
{
	enum { N_RECV = 4, N_SEND = 3 };
	struct ibv_wc wc[N_RECV + N_SEND];
	struct cntr cntr, bytes;
	struct loop l;

	if (!cntr_create(env, &cntr))
		return;
	if (!CHECK_OK(cntr_create_ex(env->ctx, &bytes, RXC_COMP_CNTR_TYPE_BYTES,
				     NULL, NULL))) {
		cntr_destroy(env->ctx, &cntr);
		return;
	}
	if (!loop_create(env, &l, IBV_QPT_RC, ALL_ACCESS))
		goto out;

	if (CHECK_OK(qp_to_init(l.qp)) &&
	    CHECK_OK(qp_attach(env->ctx, l.qp, &cntr, OP_SEND | OP_RECV)) &&
	    CHECK_OK(qp_attach(env->ctx, l.qp, &bytes, OP_WRITE)) &&
	    CHECK_OK(post_receives(&l, N_RECV)) &&
	    CHECK_OK(qp_to_state(l.qp, IBV_QPS_ERR)) &&
	    CHECK_OK(post_sends(&l, N_SEND))) {
		CHECK_EQ(poll_cq_wait(l.rcq, wc, N_RECV), N_RECV);
		CHECK_EQ(poll_cq_wait(l.scq, wc, N_SEND), N_SEND);
		CHECK_EQ(cntr_value(env, &cntr, ENTRY_ERR), N_RECV + N_SEND);
		CHECK_EQ(cntr_value(env, &cntr, ENTRY_COMP), 0);
		/* Nothing was an RDMA write. */
		CHECK_EQ(cntr_value(env, &bytes, ENTRY_ERR), 0);
		CHECK_EQ(cntr_value(env, &bytes, ENTRY_COMP), 0);
	}
	loop_destroy(&l);
out:
	CHECK_OK(cntr_destroy(env->ctx, &bytes));
	CHECK_OK(cntr_destroy(env->ctx, &cntr));
}

static const struct test_case tests[] = {
	TEST_CASE(query_caps_reports_all_ops_and_the_module_limits),
	TEST_CASE(query_caps_works_with_one_output),
	TEST_CASE(create_and_destroy_succeed_for_wrs_and_bytes_counters),
	TEST_CASE(every_method_works_with_the_core_attributes_alone),
	TEST_CASE(create_fails_with_einval_for_an_unknown_type),
	TEST_CASE(destroy_fails_with_enoent_for_a_destroyed_counter),
	TEST_CASE(modify_set_and_inc_change_only_the_addressed_value),
	TEST_CASE(inc_wraps_to_zero_past_max_value),
	TEST_CASE(modify_and_read_fail_with_einval_for_an_unknown_entry),
	TEST_CASE(mapped_page_shows_the_values_read_returns),
	TEST_CASE(mmap_fails_with_eperm_when_writable),
	TEST_CASE(attach_succeeds_in_reset_and_init),
	TEST_CASE(attach_fails_with_einval_for_an_empty_mask),
	TEST_CASE(attach_fails_with_einval_for_unknown_op_bits),
	TEST_CASE(attach_fails_with_ebusy_when_masks_overlap),
	TEST_CASE(attach_fails_with_einval_in_rtr_after_the_overlap_check),
	TEST_CASE(destroy_fails_with_ebusy_while_attached_until_qps_are_gone),
	TEST_CASE(flushed_work_requests_count_as_errors),
};

int main(int argc, char **argv)
{
	return run_suite("comp_cntr", argc, argv, tests, ARRAY_SIZE(tests));
}
