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
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_ioctl_comp_cntr.h>
#include <rdma/rxc-abi.h>

#include "fixture.h"

#define ALL_OPS		0x3fu
#define OP_SEND		IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND
#define OP_RECV		IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV
#define OP_WRITE	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE
#define ENTRY_COMP	IB_UVERBS_COMP_CNTR_ENTRY_COMP
#define ENTRY_ERR	IB_UVERBS_COMP_CNTR_ENTRY_ERR
#define OP_SET		IB_UVERBS_COMP_CNTR_MODIFY_OP_SET
#define OP_INC		IB_UVERBS_COMP_CNTR_MODIFY_OP_INC

/* One ioctl: the header and its attributes, contiguous as the ABI wants. */
struct ioc {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[8];
};

static void ioc_init(struct ioc *c, uint16_t object, uint16_t method)
{
	memset(c, 0, sizeof(*c));
	c->hdr.object_id = object;
	c->hdr.method_id = method;
	c->hdr.driver_id = RDMA_DRIVER_RXE;
}

static struct ib_uverbs_attr *ioc_add(struct ioc *c, uint16_t id,
				      uint16_t len)
{
	struct ib_uverbs_attr *a = &c->attrs[c->hdr.num_attrs++];

	a->attr_id = id;
	a->len = len;
	a->flags = UVERBS_ATTR_F_MANDATORY;
	return a;
}

/* Values of up to 8 bytes travel inside the attribute. */
static void ioc_in(struct ioc *c, uint16_t id, const void *val, uint16_t len)
{
	memcpy(&ioc_add(c, id, len)->data, val, len);
}

static void ioc_u64(struct ioc *c, uint16_t id, uint64_t val)
{
	ioc_in(c, id, &val, sizeof(val));
}

static void ioc_u32(struct ioc *c, uint16_t id, uint32_t val)
{
	ioc_in(c, id, &val, sizeof(val));
}

static void ioc_ptr(struct ioc *c, uint16_t id, const void *p, uint16_t len)
{
	ioc_add(c, id, len)->data = (uintptr_t)p;
}

static void ioc_idr(struct ioc *c, uint16_t id, uint32_t handle)
{
	ioc_add(c, id, 0)->data = handle;
}

/* 0 or the errno of the ioctl. */
static int ioc_run(struct test_env *env, struct ioc *c)
{
	c->hdr.length = sizeof(c->hdr) +
			c->hdr.num_attrs * sizeof(c->attrs[0]);
	return ioctl(env->ctx->cmd_fd, RDMA_VERBS_IOCTL, c) ? errno : 0;
}

struct caps {
	uint32_t max_counters;
	uint64_t max_value;
	uint32_t ops;
};

static int query_caps(struct test_env *env, struct caps *caps)
{
	struct ioc c;

	ioc_init(&c, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_COMP_CNTR_CAPS);
	ioc_ptr(&c, UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_COUNTERS,
		&caps->max_counters, sizeof(caps->max_counters));
	ioc_ptr(&c, UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE,
		&caps->max_value, sizeof(caps->max_value));
	ioc_ptr(&c, UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_SUPPORTED_QP_ATTACH_OPS,
		&caps->ops, sizeof(caps->ops));
	return ioc_run(env, &c);
}

struct cntr {
	uint32_t handle;
	struct rxc_comp_cntr_create_resp resp;
};

/* @type < 0 leaves the type attribute out. */
static int cntr_create_ex(struct test_env *env, struct cntr *cntr, int type,
			  const struct ib_uverbs_buffer_desc *comp_buf)
{
	struct ioc c;
	int rc;

	memset(cntr, 0, sizeof(*cntr));
	ioc_init(&c, UVERBS_OBJECT_COMP_CNTR, UVERBS_METHOD_COMP_CNTR_CREATE);
	ioc_idr(&c, UVERBS_ATTR_CREATE_COMP_CNTR_HANDLE, 0);
	ioc_ptr(&c, RXC_ATTR_CREATE_COMP_CNTR_RESP, &cntr->resp,
		sizeof(cntr->resp));
	if (type >= 0)
		ioc_u32(&c, RXC_ATTR_CREATE_COMP_CNTR_TYPE, type);
	if (comp_buf)
		ioc_ptr(&c, RXC_ATTR_CREATE_COMP_CNTR_COMP_BUF, comp_buf,
			sizeof(*comp_buf));
	rc = ioc_run(env, &c);
	if (!rc)
		cntr->handle = c.attrs[0].data;
	return rc;
}

static bool cntr_create(struct test_env *env, struct cntr *cntr)
{
	return CHECK_OK(cntr_create_ex(env, cntr, RXC_COMP_CNTR_TYPE_WRS,
				       NULL));
}

static int cntr_destroy(struct test_env *env, const struct cntr *cntr)
{
	struct ioc c;

	ioc_init(&c, UVERBS_OBJECT_COMP_CNTR, UVERBS_METHOD_COMP_CNTR_DESTROY);
	ioc_idr(&c, UVERBS_ATTR_DESTROY_COMP_CNTR_HANDLE, cntr->handle);
	return ioc_run(env, &c);
}

static int cntr_modify(struct test_env *env, const struct cntr *cntr,
		       uint64_t entry, uint64_t op, uint64_t value)
{
	struct ioc c;

	ioc_init(&c, UVERBS_OBJECT_COMP_CNTR, UVERBS_METHOD_COMP_CNTR_MODIFY);
	ioc_idr(&c, UVERBS_ATTR_MODIFY_COMP_CNTR_HANDLE, cntr->handle);
	ioc_u64(&c, UVERBS_ATTR_MODIFY_COMP_CNTR_ENTRY, entry);
	ioc_u64(&c, UVERBS_ATTR_MODIFY_COMP_CNTR_OP, op);
	ioc_u64(&c, UVERBS_ATTR_MODIFY_COMP_CNTR_VALUE, value);
	return ioc_run(env, &c);
}

static int cntr_read(struct test_env *env, const struct cntr *cntr,
		     uint64_t entry, uint64_t *value)
{
	struct ioc c;

	*value = ~0ull;
	ioc_init(&c, UVERBS_OBJECT_COMP_CNTR, UVERBS_METHOD_COMP_CNTR_READ);
	ioc_idr(&c, UVERBS_ATTR_READ_COMP_CNTR_HANDLE, cntr->handle);
	ioc_u64(&c, UVERBS_ATTR_READ_COMP_CNTR_ENTRY, entry);
	ioc_ptr(&c, UVERBS_ATTR_READ_COMP_CNTR_RESP_VALUE, value,
		sizeof(*value));
	return ioc_run(env, &c);
}

/* The value of @entry, or ~0 with a failure recorded. */
static uint64_t cntr_value(struct test_env *env, const struct cntr *cntr,
			   uint64_t entry)
{
	uint64_t v;

	CHECK_OK(cntr_read(env, cntr, entry, &v));
	return v;
}

static int qp_attach(struct test_env *env, struct ibv_qp *qp,
		     const struct cntr *cntr, uint32_t op_mask)
{
	struct ioc c;

	ioc_init(&c, UVERBS_OBJECT_QP, UVERBS_METHOD_QP_ATTACH_COMP_CNTR);
	ioc_idr(&c, UVERBS_ATTR_QP_ATTACH_COMP_CNTR_HANDLE, qp->handle);
	ioc_idr(&c, UVERBS_ATTR_QP_ATTACH_COMP_CNTR_CNTR_HANDLE, cntr->handle);
	ioc_u32(&c, UVERBS_ATTR_QP_ATTACH_COMP_CNTR_OP_MASK, op_mask);
	return ioc_run(env, &c);
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

static void query_caps_reports_all_ops_and_the_module_limits(
	struct test_env *env)
{
	struct caps caps = {};

	if (!CHECK_OK(query_caps(env, &caps)))
		return;
	CHECK_EQ(caps.ops, ALL_OPS);
	CHECK_EQ(caps.max_counters, 65536);
	CHECK(caps.max_value == UINT64_MAX, "max_value %#llx",
	      (unsigned long long)caps.max_value);
}

static void create_and_destroy_succeed_for_wrs_and_bytes_counters(
	struct test_env *env)
{
	struct cntr wrs, bytes, dflt;

	if (CHECK_OK(cntr_create_ex(env, &wrs, RXC_COMP_CNTR_TYPE_WRS, NULL)))
		CHECK_OK(cntr_destroy(env, &wrs));
	if (CHECK_OK(cntr_create_ex(env, &bytes, RXC_COMP_CNTR_TYPE_BYTES,
				    NULL)))
		CHECK_OK(cntr_destroy(env, &bytes));
	if (CHECK_OK(cntr_create_ex(env, &dflt, -1, NULL)))
		CHECK_OK(cntr_destroy(env, &dflt));
}

static void create_fails_with_einval_for_an_unknown_type(struct test_env *env)
{
	struct cntr cntr;

	if (!CHECK_RC(cntr_create_ex(env, &cntr, 2, NULL), EINVAL))
		cntr_destroy(env, &cntr);
}

static void create_fails_with_eopnotsupp_for_external_memory(
	struct test_env *env)
{
	static uint64_t mem[2];
	struct ib_uverbs_buffer_desc desc = {
		.type = IB_UVERBS_BUFFER_TYPE_VA,
		.addr = (uintptr_t)mem,
		.length = sizeof(mem),
	};
	struct cntr cntr;

	if (!CHECK_RC(cntr_create_ex(env, &cntr, -1, &desc), EOPNOTSUPP))
		cntr_destroy(env, &cntr);
}

static void destroy_fails_with_enoent_for_a_destroyed_counter(
	struct test_env *env)
{
	struct cntr cntr;

	if (!cntr_create(env, &cntr))
		return;
	CHECK_OK(cntr_destroy(env, &cntr));
	CHECK_RC(cntr_destroy(env, &cntr), ENOENT);
}

static void modify_set_and_inc_change_only_the_addressed_value(
	struct test_env *env)
{
	struct cntr cntr;

	if (!cntr_create(env, &cntr))
		return;
	CHECK_EQ(cntr_value(env, &cntr, ENTRY_COMP), 0);
	CHECK_EQ(cntr_value(env, &cntr, ENTRY_ERR), 0);

	CHECK_OK(cntr_modify(env, &cntr, ENTRY_COMP, OP_SET, 5));
	CHECK_OK(cntr_modify(env, &cntr, ENTRY_COMP, OP_INC, 3));
	CHECK_EQ(cntr_value(env, &cntr, ENTRY_COMP), 8);
	CHECK_EQ(cntr_value(env, &cntr, ENTRY_ERR), 0);

	CHECK_OK(cntr_modify(env, &cntr, ENTRY_ERR, OP_SET, 100));
	CHECK_OK(cntr_modify(env, &cntr, ENTRY_ERR, OP_INC, 1));
	CHECK_EQ(cntr_value(env, &cntr, ENTRY_ERR), 101);
	CHECK_EQ(cntr_value(env, &cntr, ENTRY_COMP), 8);
	CHECK_OK(cntr_destroy(env, &cntr));
}

/* The default max_value is 2^64 - 1: an increment past it wraps to 0. */
static void inc_wraps_to_zero_past_max_value(struct test_env *env)
{
	struct cntr cntr;

	if (!cntr_create(env, &cntr))
		return;
	CHECK_OK(cntr_modify(env, &cntr, ENTRY_COMP, OP_SET, UINT64_MAX));
	CHECK_OK(cntr_modify(env, &cntr, ENTRY_COMP, OP_INC, 2));
	CHECK_EQ(cntr_value(env, &cntr, ENTRY_COMP), 1);
	CHECK_OK(cntr_destroy(env, &cntr));
}

static void modify_and_read_fail_with_einval_for_an_unknown_entry(
	struct test_env *env)
{
	struct cntr cntr;
	uint64_t v;

	if (!cntr_create(env, &cntr))
		return;
	CHECK_RC(cntr_modify(env, &cntr, 2, OP_SET, 1), EINVAL);
	CHECK_RC(cntr_modify(env, &cntr, ENTRY_COMP, 2, 1), EINVAL);
	CHECK_RC(cntr_read(env, &cntr, 2, &v), EINVAL);
	CHECK_OK(cntr_destroy(env, &cntr));
}

static void mapped_page_shows_the_values_read_returns(struct test_env *env)
{
	struct cntr a, b;
	volatile const uint64_t *pa, *pb;
	void *map;

	if (!cntr_create(env, &a))
		return;
	if (!cntr_create(env, &b)) {
		cntr_destroy(env, &a);
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
		CHECK_OK(cntr_modify(env, &a, ENTRY_COMP, OP_SET, 42));
		CHECK_OK(cntr_modify(env, &b, ENTRY_ERR, OP_INC, 7));
		CHECK_EQ(*pa, cntr_value(env, &a, ENTRY_COMP));
		CHECK_EQ(*pa, 42);
		CHECK_EQ(*pb, cntr_value(env, &b, ENTRY_ERR));
		CHECK_EQ(*pb, 7);
		munmap(map, a.resp.mmap_length);
	}
	CHECK_OK(cntr_destroy(env, &b));
	CHECK_OK(cntr_destroy(env, &a));
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
	CHECK_OK(cntr_destroy(env, &cntr));
}

static void attach_succeeds_in_reset_and_init(struct test_env *env)
{
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct cntr cntr;

	if (!cntr_create(env, &cntr))
		return;
	qp = make_qp(env, &cq);
	if (qp) {
		CHECK_OK(qp_attach(env, qp, &cntr, OP_SEND));
		if (CHECK_OK(qp_to_init(qp)))
			CHECK_OK(qp_attach(env, qp, &cntr, OP_RECV | OP_WRITE));
		free_qp(qp, cq);
	}
	CHECK_OK(cntr_destroy(env, &cntr));
}

static void attach_fails_with_einval_for_an_empty_mask(struct test_env *env)
{
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct cntr cntr;

	if (!cntr_create(env, &cntr))
		return;
	qp = make_qp(env, &cq);
	if (qp) {
		CHECK_RC(qp_attach(env, qp, &cntr, 0), EINVAL);
		free_qp(qp, cq);
	}
	CHECK_OK(cntr_destroy(env, &cntr));
}

static void attach_fails_with_eopnotsupp_for_unknown_op_bits(
	struct test_env *env)
{
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct cntr cntr;

	if (!cntr_create(env, &cntr))
		return;
	qp = make_qp(env, &cq);
	if (qp) {
		CHECK_RC(qp_attach(env, qp, &cntr, 1u << 6), EOPNOTSUPP);
		CHECK_RC(qp_attach(env, qp, &cntr, OP_SEND | 1u << 31),
			 EOPNOTSUPP);
		free_qp(qp, cq);
	}
	/* Nothing was attached: the counter is free to go. */
	CHECK_OK(cntr_destroy(env, &cntr));
}

static void attach_fails_with_ebusy_when_masks_overlap(struct test_env *env)
{
	struct cntr a, b;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	if (!cntr_create(env, &a))
		return;
	if (!cntr_create(env, &b)) {
		cntr_destroy(env, &a);
		return;
	}
	qp = make_qp(env, &cq);
	if (qp) {
		CHECK_OK(qp_attach(env, qp, &a, OP_SEND | OP_RECV));
		CHECK_RC(qp_attach(env, qp, &b, OP_RECV | OP_WRITE), EBUSY);
		CHECK_RC(qp_attach(env, qp, &a, OP_SEND), EBUSY);
		/* The refused attach took no use: b can go at once. */
		CHECK_OK(cntr_destroy(env, &b));
		CHECK_OK(qp_attach(env, qp, &a, OP_WRITE));
		free_qp(qp, cq);
	} else {
		CHECK_OK(cntr_destroy(env, &b));
	}
	CHECK_OK(cntr_destroy(env, &a));
}

static void attach_fails_with_einval_in_rtr(struct test_env *env)
{
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct cntr cntr;

	if (!cntr_create(env, &cntr))
		return;
	qp = make_qp(env, &cq);
	if (qp) {
		if (CHECK_OK(qp_to_init(qp)) &&
		    CHECK_OK(qp_to_rtr(env, qp, qp->qp_num)))
			CHECK_RC(qp_attach(env, qp, &cntr, OP_SEND), EINVAL);
		free_qp(qp, cq);
	}
	CHECK_OK(cntr_destroy(env, &cntr));
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
	CHECK_OK(qp_attach(env, qp1, &cntr, OP_SEND | OP_RECV));
	CHECK_OK(qp_attach(env, qp2, &cntr, OP_SEND));
	CHECK_RC(cntr_destroy(env, &cntr), EBUSY);
	/* Still usable after the refused destroy. */
	CHECK_OK(cntr_modify(env, &cntr, ENTRY_COMP, OP_INC, 1));
	free_qp(qp1, cq1);
	CHECK_RC(cntr_destroy(env, &cntr), EBUSY);
	free_qp(qp2, cq2);
out:
	CHECK_OK(cntr_destroy(env, &cntr));
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
	if (!CHECK_OK(cntr_create_ex(env, &bytes, RXC_COMP_CNTR_TYPE_BYTES,
				     NULL))) {
		cntr_destroy(env, &cntr);
		return;
	}
	if (!loop_create(env, &l, IBV_QPT_RC, ALL_ACCESS))
		goto out;

	if (CHECK_OK(qp_to_init(l.qp)) &&
	    CHECK_OK(qp_attach(env, l.qp, &cntr, OP_SEND | OP_RECV)) &&
	    CHECK_OK(qp_attach(env, l.qp, &bytes, OP_WRITE)) &&
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
	CHECK_OK(cntr_destroy(env, &bytes));
	CHECK_OK(cntr_destroy(env, &cntr));
}

static const struct test_case tests[] = {
	TEST_CASE(query_caps_reports_all_ops_and_the_module_limits),
	TEST_CASE(create_and_destroy_succeed_for_wrs_and_bytes_counters),
	TEST_CASE(create_fails_with_einval_for_an_unknown_type),
	TEST_CASE(create_fails_with_eopnotsupp_for_external_memory),
	TEST_CASE(destroy_fails_with_enoent_for_a_destroyed_counter),
	TEST_CASE(modify_set_and_inc_change_only_the_addressed_value),
	TEST_CASE(inc_wraps_to_zero_past_max_value),
	TEST_CASE(modify_and_read_fail_with_einval_for_an_unknown_entry),
	TEST_CASE(mapped_page_shows_the_values_read_returns),
	TEST_CASE(mmap_fails_with_eperm_when_writable),
	TEST_CASE(attach_succeeds_in_reset_and_init),
	TEST_CASE(attach_fails_with_einval_for_an_empty_mask),
	TEST_CASE(attach_fails_with_eopnotsupp_for_unknown_op_bits),
	TEST_CASE(attach_fails_with_ebusy_when_masks_overlap),
	TEST_CASE(attach_fails_with_einval_in_rtr),
	TEST_CASE(destroy_fails_with_ebusy_while_attached_until_qps_are_gone),
	TEST_CASE(flushed_work_requests_count_as_errors),
};

int main(int argc, char **argv)
{
	return run_suite("comp_cntr", argc, argv, tests, ARRAY_SIZE(tests));
}
