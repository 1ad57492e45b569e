// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Protection domains, memory regions and memory windows.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fixture.h"

#define MR_LEN		(64 * 1024)

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* An anonymous private mapping; NULL (and a test failure) on error. */
static void *map_pages(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (!CHECK(p != MAP_FAILED, "mmap: %s", err_name(errno)))
		return NULL;
	return p;
}

static void alloc_pd_returns_distinct_pds_of_the_context(
	struct test_env *env)
{
	struct ibv_pd *a, *b;

	a = CHECK_NOT_NULL(ibv_alloc_pd(env->ctx));
	b = CHECK_NOT_NULL(ibv_alloc_pd(env->ctx));
	if (a && b) {
		CHECK(a != b, "two allocations returned one PD");
		CHECK(a->handle != b->handle, "two PDs share handle %u",
		      a->handle);
		CHECK(a->context == env->ctx, "PD context is wrong");
	}
	if (a)
		CHECK_OK(ibv_dealloc_pd(a));
	if (b)
		CHECK_OK(ibv_dealloc_pd(b));
}

static void alloc_pd_succeeds_for_many_pds(struct test_env *env)
{
	struct ibv_pd *pd[128];
	int i, n;

	for (n = 0; n < (int)ARRAY_SIZE(pd); n++) {
		pd[n] = CHECK_NOT_NULL(ibv_alloc_pd(env->ctx));
		if (!pd[n])
			break;
	}
	for (i = 0; i < n; i++)
		CHECK_OK(ibv_dealloc_pd(pd[i]));
}

static void dealloc_pd_fails_with_ebusy_while_mr_registered(
	struct test_env *env)
{
	char *buf = malloc(MR_LEN);
	struct ibv_pd *pd;
	struct ibv_mr *mr = NULL;

	pd = CHECK_NOT_NULL(ibv_alloc_pd(env->ctx));
	if (!pd || !buf)
		goto out;

	mr = CHECK_NOT_NULL(ibv_reg_mr(pd, buf, MR_LEN,
				       IBV_ACCESS_LOCAL_WRITE));
	if (!mr)
		goto out;

	CHECK_RC(ibv_dealloc_pd(pd), EBUSY);
	CHECK_OK(ibv_dereg_mr(mr));
out:
	if (pd)
		CHECK_OK(ibv_dealloc_pd(pd));
	free(buf);
}

static void dealloc_pd_fails_with_ebusy_while_qp_exists(struct test_env *env)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp = NULL;

	pd = CHECK_NOT_NULL(ibv_alloc_pd(env->ctx));
	cq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 4, NULL, NULL, 0));
	if (!pd || !cq)
		goto out;

	attr.send_cq = cq;
	attr.recv_cq = cq;
	qp = CHECK_NOT_NULL(ibv_create_qp(pd, &attr));
	if (!qp)
		goto out;

	CHECK_RC(ibv_dealloc_pd(pd), EBUSY);
	CHECK_OK(ibv_destroy_qp(qp));
out:
	if (cq)
		CHECK_OK(ibv_destroy_cq(cq));
	if (pd)
		CHECK_OK(ibv_dealloc_pd(pd));
}

static void dealloc_pd_fails_with_ebusy_while_srq_exists(
	struct test_env *env)
{
	struct ibv_srq_init_attr attr = {
		.attr = { .max_wr = 4, .max_sge = 1 },
	};
	struct ibv_pd *pd;
	struct ibv_srq *srq;

	pd = CHECK_NOT_NULL(ibv_alloc_pd(env->ctx));
	if (!pd)
		return;

	srq = CHECK_NOT_NULL(ibv_create_srq(pd, &attr));
	if (srq) {
		CHECK_RC(ibv_dealloc_pd(pd), EBUSY);
		CHECK_OK(ibv_destroy_srq(srq));
	}
	CHECK_OK(ibv_dealloc_pd(pd));
}

static void dealloc_pd_fails_with_ebusy_while_ah_exists(struct test_env *env)
{
	struct ibv_ah_attr attr;
	struct ibv_pd *pd;
	struct ibv_ah *ah;

	pd = CHECK_NOT_NULL(ibv_alloc_pd(env->ctx));
	if (!pd)
		return;

	loopback_ah_attr(env, &attr);
	ah = CHECK_NOT_NULL(ibv_create_ah(pd, &attr));
	if (ah) {
		CHECK_RC(ibv_dealloc_pd(pd), EBUSY);
		CHECK_OK(ibv_destroy_ah(ah));
	}
	CHECK_OK(ibv_dealloc_pd(pd));
}

static void dealloc_pd_fails_with_ebusy_while_mw_allocated(
	struct test_env *env)
{
	struct ibv_pd *pd;
	struct ibv_mw *mw;

	if (!(env->dev_attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW)) {
		tap_skip("device does not support memory windows");
		return;
	}

	pd = CHECK_NOT_NULL(ibv_alloc_pd(env->ctx));
	if (!pd)
		return;

	mw = CHECK_NOT_NULL(ibv_alloc_mw(pd, IBV_MW_TYPE_1));
	if (mw) {
		CHECK_RC(ibv_dealloc_pd(pd), EBUSY);
		CHECK_OK(ibv_dealloc_mw(mw));
	}
	CHECK_OK(ibv_dealloc_pd(pd));
}

static void reg_mr_accepts_every_valid_access_combination(
	struct test_env *env)
{
	static const unsigned int access[] = {
		0,
		IBV_ACCESS_LOCAL_WRITE,
		IBV_ACCESS_REMOTE_READ,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND,
	};
	char *buf = malloc(MR_LEN);
	size_t i;

	if (!CHECK(buf, "out of memory"))
		return;

	for (i = 0; i < ARRAY_SIZE(access); i++) {
		struct ibv_mr *mr;

		mr = ibv_reg_mr(env->pd, buf, MR_LEN, access[i]);
		if (!CHECK(mr, "reg_mr(access 0x%x) failed with %s",
			   access[i], err_name(errno)))
			continue;

		CHECK(mr->addr == buf, "access 0x%x: addr %p, expected %p",
		      access[i], mr->addr, (void *)buf);
		CHECK_EQ(mr->length, MR_LEN);
		CHECK(mr->pd == env->pd, "access 0x%x: wrong PD", access[i]);
		CHECK(mr->context == env->ctx, "access 0x%x: wrong context",
		      access[i]);
		CHECK(mr->lkey != 0, "access 0x%x: lkey is zero", access[i]);
		if (access[i] & (IBV_ACCESS_REMOTE_READ |
				 IBV_ACCESS_REMOTE_WRITE |
				 IBV_ACCESS_REMOTE_ATOMIC))
			CHECK(mr->rkey != 0, "access 0x%x: rkey is zero",
			      access[i]);
		CHECK_OK(ibv_dereg_mr(mr));
	}
	free(buf);
}

static void reg_mr_returns_distinct_keys_for_each_region(
	struct test_env *env)
{
	enum { N = 64 };
	unsigned int access = IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_REMOTE_READ |
			      IBV_ACCESS_REMOTE_WRITE;
	struct ibv_mr *mr[N];
	char *buf = malloc(N * 4096);
	int i, j, n;

	if (!CHECK(buf, "out of memory"))
		return;

	for (n = 0; n < N; n++) {
		mr[n] = CHECK_NOT_NULL(ibv_reg_mr(env->pd, buf + n * 4096,
						  4096, access));
		if (!mr[n])
			break;
	}

	for (i = 0; i < n; i++) {
		CHECK(mr[i]->lkey != 0, "MR %d: lkey is zero", i);
		CHECK(mr[i]->rkey != 0, "MR %d: rkey is zero", i);
		for (j = 0; j < i; j++) {
			CHECK(mr[i]->lkey != mr[j]->lkey,
			      "MRs %d and %d share lkey 0x%x", j, i,
			      mr[i]->lkey);
			CHECK(mr[i]->rkey != mr[j]->rkey,
			      "MRs %d and %d share rkey 0x%x", j, i,
			      mr[i]->rkey);
		}
	}

	for (i = 0; i < n; i++)
		CHECK_OK(ibv_dereg_mr(mr[i]));
	free(buf);
}

static void reg_mr_succeeds_for_region_spanning_many_pages(
	struct test_env *env)
{
	size_t len = 4 << 20;
	struct ibv_mr *mr;
	char *buf;

	buf = map_pages(len, PROT_READ | PROT_WRITE);
	if (!buf)
		return;

	/* Unaligned start and end: the region covers partial pages. */
	mr = CHECK_NOT_NULL(ibv_reg_mr(env->pd, buf + 100, len - 200,
				       IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_WRITE));
	if (mr) {
		CHECK_EQ(mr->length, len - 200);
		CHECK_OK(ibv_dereg_mr(mr));
	}
	munmap(buf, len);
}

/*
 * ibv_reg_mr() with @access must fail with @want, or with @alt when that
 * is not zero (the core's answer differs between kernels).
 */
static void check_reg_mr_refused(struct test_env *env, unsigned int access,
				 int want, int alt)
{
	char *buf = malloc(MR_LEN);
	struct ibv_mr *mr;
	int err;

	errno = 0;
	mr = ibv_reg_mr(env->pd, buf, MR_LEN, access);
	err = errno;
	CHECK(!mr && (err == want || (alt && err == alt)),
	      "ibv_reg_mr(access %#x) returned %p errno %s, expected NULL errno %s%s%s",
	      access, (void *)mr, err_name(err), err_name(want),
	      alt ? " or " : "", alt ? err_name(alt) : "");
	if (mr)
		ibv_dereg_mr(mr);
	free(buf);
}

/* Remote write needs local write (ibv_reg_mr(3), IBA o10-37.2.8). */
static void reg_mr_fails_with_einval_when_remote_write_lacks_local_write(
	struct test_env *env)
{
	check_reg_mr_refused(env, IBV_ACCESS_REMOTE_WRITE, EINVAL, 0);
}

static void reg_mr_fails_with_einval_when_atomic_lacks_local_write(
	struct test_env *env)
{
	check_reg_mr_refused(env, IBV_ACCESS_REMOTE_ATOMIC |
			     IBV_ACCESS_REMOTE_READ, EINVAL, 0);
}

/* Below the optional range, which libibverbs may drop silently. */
static void reg_mr_fails_with_einval_for_unknown_access_bit(
	struct test_env *env)
{
	check_reg_mr_refused(env, IBV_ACCESS_LOCAL_WRITE | (1 << 15),
			     EINVAL, 0);
}

/*
 * ib_core refuses the flag before the driver sees it: with EINVAL up to
 * 6.1, with EOPNOTSUPP on 6.12 (ib_check_mr_access()).
 */
static void reg_mr_refuses_on_demand_access_without_odp(struct test_env *env)
{
	struct ibv_device_attr_ex ex;

	if (!CHECK_OK(ibv_query_device_ex(env->ctx, NULL, &ex)))
		return;
	if (ex.odp_caps.general_caps & IBV_ODP_SUPPORT) {
		tap_skip("device supports on-demand paging");
		return;
	}
	check_reg_mr_refused(env, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND,
			     EINVAL, EOPNOTSUPP);
}

/*
 * Neither ibv_reg_mr(3) nor the IBA forbids an empty region; rxe accepts
 * one, and so must a compatible driver.
 */
static void reg_mr_succeeds_for_zero_length(struct test_env *env)
{
	char *buf = malloc(MR_LEN);
	struct ibv_mr *mr;

	mr = CHECK_NOT_NULL(ibv_reg_mr(env->pd, buf, 0,
				       IBV_ACCESS_LOCAL_WRITE));
	if (mr) {
		CHECK_EQ(mr->length, 0);
		CHECK_OK(ibv_dereg_mr(mr));
	}
	free(buf);
}

/* Which part of check_reg_pages()'s four pages stays mapped. */
enum mapped { ALL_PAGES, FIRST_HALF, NO_PAGES };

/*
 * Register four fresh pages mapped with @prot, of which only @mapped
 * stay mapped, with @access: it must fail with @want, or succeed when
 * @want is 0.
 */
static void check_reg_pages(struct test_env *env, int prot,
			    enum mapped mapped, unsigned int access, int want)
{
	size_t len = 4 * page_size(), left = len;
	struct ibv_mr *mr;
	char *buf;

	buf = map_pages(len, prot);
	if (!buf)
		return;
	if (mapped != ALL_PAGES) {
		left = mapped == FIRST_HALF ? len / 2 : 0;
		munmap(buf + left, len - left);
	}

	if (want)
		mr = CHECK_NULL_ERRNO(ibv_reg_mr(env->pd, buf, len, access),
				      want);
	else
		mr = CHECK_NOT_NULL(ibv_reg_mr(env->pd, buf, len, access));
	if (mr)
		CHECK_OK(ibv_dereg_mr(mr));
	if (left)
		munmap(buf, left);
}

static void reg_mr_fails_with_efault_for_unmapped_address(
	struct test_env *env)
{
	check_reg_pages(env, PROT_READ | PROT_WRITE, NO_PAGES,
			IBV_ACCESS_LOCAL_WRITE, EFAULT);
}

static void reg_mr_fails_with_efault_when_region_runs_into_a_hole(
	struct test_env *env)
{
	check_reg_pages(env, PROT_READ | PROT_WRITE, FIRST_HALF,
			IBV_ACCESS_LOCAL_WRITE, EFAULT);
}

static void reg_mr_fails_with_efault_for_write_access_to_readonly_pages(
	struct test_env *env)
{
	check_reg_pages(env, PROT_READ, ALL_PAGES, IBV_ACCESS_LOCAL_WRITE,
			EFAULT);
}

static void reg_mr_succeeds_for_readonly_pages_without_write_access(
	struct test_env *env)
{
	check_reg_pages(env, PROT_READ, ALL_PAGES, IBV_ACCESS_REMOTE_READ, 0);
}

static void reg_mr_iova_succeeds_when_iova_keeps_page_offset(
	struct test_env *env)
{
	size_t len = 4 * page_size();
	uint64_t iova = 0x100000000ull + 100;
	struct ibv_mr *mr;
	char *buf;

	buf = map_pages(len, PROT_READ | PROT_WRITE);
	if (!buf)
		return;

	mr = CHECK_NOT_NULL(ibv_reg_mr_iova(env->pd, buf + 100, len - 100,
					    iova, IBV_ACCESS_LOCAL_WRITE |
					    IBV_ACCESS_REMOTE_READ));
	if (mr) {
		CHECK(mr->addr == buf + 100, "addr %p, expected %p",
		      mr->addr, (void *)(buf + 100));
		CHECK_OK(ibv_dereg_mr(mr));
	}
	munmap(buf, len);
}

/* The kernel maps the IOVA page by page onto the user pages. */
static void reg_mr_iova_fails_with_einval_when_page_offsets_differ(
	struct test_env *env)
{
	size_t len = 4 * page_size();
	struct ibv_mr *mr;
	char *buf;

	buf = map_pages(len, PROT_READ | PROT_WRITE);
	if (!buf)
		return;

	mr = CHECK_NULL_ERRNO(ibv_reg_mr_iova(env->pd, buf + 100, 1000,
					      0x100000000ull + 200,
					      IBV_ACCESS_LOCAL_WRITE),
			      EINVAL);
	if (mr)
		ibv_dereg_mr(mr);
	munmap(buf, len);
}

/*
 * librxe does not implement rereg_mr, so libibverbs fails every request
 * that passes its own checks as a command error (ibv_rereg_mr(3)).
 */
static void rereg_mr_fails_with_eopnotsupp_as_command_error(
	struct test_env *env)
{
	static const struct {
		int flags;
		int access;
	} req[] = {
		{ IBV_REREG_MR_CHANGE_ACCESS,
		  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ },
		{ IBV_REREG_MR_CHANGE_PD, 0 },
	};
	char *buf = malloc(MR_LEN);
	struct ibv_mr *mr;
	size_t i;

	mr = CHECK_NOT_NULL(ibv_reg_mr(env->pd, buf, MR_LEN,
				       IBV_ACCESS_LOCAL_WRITE));
	if (!mr)
		goto out;

	for (i = 0; i < ARRAY_SIZE(req); i++) {
		int rc;

		errno = 0;
		rc = ibv_rereg_mr(mr, req[i].flags, env->pd, NULL, 0,
				  req[i].access);
		CHECK(rc == IBV_REREG_MR_ERR_CMD && errno == EOPNOTSUPP,
		      "flags 0x%x: got %d errno %s, expected %d EOPNOTSUPP",
		      req[i].flags, rc, err_name(errno), IBV_REREG_MR_ERR_CMD);
	}
	/* Even after a failure the MR must be deregistered. */
	CHECK_OK(ibv_dereg_mr(mr));
out:
	free(buf);
}

static void rereg_mr_fails_with_einval_as_input_error_for_unknown_flag(
	struct test_env *env)
{
	char *buf = malloc(MR_LEN);
	struct ibv_mr *mr;
	int rc;

	mr = CHECK_NOT_NULL(ibv_reg_mr(env->pd, buf, MR_LEN,
				       IBV_ACCESS_LOCAL_WRITE));
	if (!mr)
		goto out;

	errno = 0;
	rc = ibv_rereg_mr(mr, IBV_REREG_MR_FLAGS_SUPPORTED << 1, NULL, NULL,
			  0, 0);
	CHECK(rc == IBV_REREG_MR_ERR_INPUT && errno == EINVAL,
	      "rereg_mr returned %d errno %s, expected %d errno EINVAL", rc,
	      err_name(errno), IBV_REREG_MR_ERR_INPUT);
	CHECK_OK(ibv_dereg_mr(mr));
out:
	free(buf);
}

static void alloc_mw_returns_window_of_each_supported_type(
	struct test_env *env)
{
	unsigned int caps = env->dev_attr.device_cap_flags;
	struct ibv_mw *mw;

	if (!(caps & IBV_DEVICE_MEM_WINDOW)) {
		tap_skip("device does not support memory windows");
		return;
	}

	mw = CHECK_NOT_NULL(ibv_alloc_mw(env->pd, IBV_MW_TYPE_1));
	if (mw) {
		CHECK_EQ(mw->type, IBV_MW_TYPE_1);
		CHECK(mw->pd == env->pd, "type 1 MW has the wrong PD");
		CHECK_OK(ibv_dealloc_mw(mw));
	}

	if (!(caps & (IBV_DEVICE_MEM_WINDOW_TYPE_2A |
		      IBV_DEVICE_MEM_WINDOW_TYPE_2B)))
		return;

	mw = CHECK_NOT_NULL(ibv_alloc_mw(env->pd, IBV_MW_TYPE_2));
	if (mw) {
		CHECK_EQ(mw->type, IBV_MW_TYPE_2);
		CHECK(mw->rkey != 0, "type 2 MW has rkey 0");
		CHECK_OK(ibv_dealloc_mw(mw));
	}
}

static void alloc_mw_returns_distinct_rkeys(struct test_env *env)
{
	enum { N = 16 };
	struct ibv_mw *mw[N];
	int i, j, n;

	if (!(env->dev_attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW)) {
		tap_skip("device does not support memory windows");
		return;
	}

	for (n = 0; n < N; n++) {
		mw[n] = CHECK_NOT_NULL(ibv_alloc_mw(env->pd, IBV_MW_TYPE_1));
		if (!mw[n])
			break;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			CHECK(mw[i]->rkey != mw[j]->rkey,
			      "MWs %d and %d share rkey 0x%x", j, i,
			      mw[i]->rkey);
	for (i = 0; i < n; i++)
		CHECK_OK(ibv_dealloc_mw(mw[i]));
}

static const struct test_case tests[] = {
	TEST_CASE(alloc_pd_returns_distinct_pds_of_the_context),
	TEST_CASE(alloc_pd_succeeds_for_many_pds),
	TEST_CASE(dealloc_pd_fails_with_ebusy_while_mr_registered),
	TEST_CASE(dealloc_pd_fails_with_ebusy_while_qp_exists),
	TEST_CASE(dealloc_pd_fails_with_ebusy_while_srq_exists),
	TEST_CASE(dealloc_pd_fails_with_ebusy_while_ah_exists),
	TEST_CASE(dealloc_pd_fails_with_ebusy_while_mw_allocated),
	TEST_CASE(reg_mr_accepts_every_valid_access_combination),
	TEST_CASE(reg_mr_returns_distinct_keys_for_each_region),
	TEST_CASE(reg_mr_succeeds_for_region_spanning_many_pages),
	TEST_CASE(reg_mr_fails_with_einval_when_remote_write_lacks_local_write),
	TEST_CASE(reg_mr_fails_with_einval_when_atomic_lacks_local_write),
	TEST_CASE(reg_mr_fails_with_einval_for_unknown_access_bit),
	TEST_CASE(reg_mr_refuses_on_demand_access_without_odp),
	TEST_CASE(reg_mr_succeeds_for_zero_length),
	TEST_CASE(reg_mr_fails_with_efault_for_unmapped_address),
	TEST_CASE(reg_mr_fails_with_efault_when_region_runs_into_a_hole),
	TEST_CASE(reg_mr_fails_with_efault_for_write_access_to_readonly_pages),
	TEST_CASE(reg_mr_succeeds_for_readonly_pages_without_write_access),
	TEST_CASE(reg_mr_iova_succeeds_when_iova_keeps_page_offset),
	TEST_CASE(reg_mr_iova_fails_with_einval_when_page_offsets_differ),
	TEST_CASE(rereg_mr_fails_with_eopnotsupp_as_command_error),
	TEST_CASE(rereg_mr_fails_with_einval_as_input_error_for_unknown_flag),
	TEST_CASE(alloc_mw_returns_window_of_each_supported_type),
	TEST_CASE(alloc_mw_returns_distinct_rkeys),
};

int main(int argc, char **argv)
{
	return run_suite("pd_mr", argc, argv, tests, ARRAY_SIZE(tests));
}
