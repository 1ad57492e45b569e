// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Address handles. RoCE addresses are GIDs: every AH here has a GRH.
 */
#include <string.h>

#include "fixture.h"

static void create_ah_succeeds_for_own_gid_from_gid_index_1(
	struct test_env *env)
{
	struct ibv_ah_attr attr;
	struct ibv_ah *ah;

	loopback_ah_attr(env, &attr);
	ah = CHECK_NOT_NULL(ibv_create_ah(env->pd, &attr));
	if (!ah)
		return;
	CHECK(ah->pd == env->pd, "AH has the wrong PD");
	CHECK(ah->context == env->ctx, "AH has the wrong context");
	CHECK_OK(ibv_destroy_ah(ah));
}

static void create_ah_succeeds_for_link_local_gid_from_gid_index_0(
	struct test_env *env)
{
	struct ibv_ah_attr attr;
	struct ibv_ah *ah;

	loopback_ah_attr(env, &attr);
	attr.grh.sgid_index = 0;
	if (!CHECK_OK(ibv_query_gid(env->ctx, TEST_PORT, 0, &attr.grh.dgid)))
		return;
	ah = CHECK_NOT_NULL(ibv_create_ah(env->pd, &attr));
	if (ah)
		CHECK_OK(ibv_destroy_ah(ah));
}

static void create_ah_succeeds_for_many_handles_to_one_gid(
	struct test_env *env)
{
	enum { N = 64 };
	struct ibv_ah_attr attr;
	struct ibv_ah *ah[N];
	int i, n;

	loopback_ah_attr(env, &attr);
	for (n = 0; n < N; n++) {
		attr.grh.flow_label = n;
		ah[n] = CHECK_NOT_NULL(ibv_create_ah(env->pd, &attr));
		if (!ah[n])
			break;
	}
	for (i = 0; i < n; i++)
		CHECK_OK(ibv_destroy_ah(ah[i]));
}

static void create_ah_fails_with_einval_without_grh(struct test_env *env)
{
	struct ibv_ah_attr attr;
	struct ibv_ah *ah;

	loopback_ah_attr(env, &attr);
	attr.is_global = 0;
	ah = CHECK_NULL_ERRNO(ibv_create_ah(env->pd, &attr), EINVAL);
	if (ah)
		ibv_destroy_ah(ah);
}

/* The core looks up the source GID entry: an empty one has no data. */
static void create_ah_fails_with_enodata_for_empty_sgid_index(
	struct test_env *env)
{
	struct ibv_ah_attr attr;
	struct ibv_ah *ah;
	int index;

	/* sgid_index has 8 bits. */
	index = find_empty_gid_index(env, 256);
	if (index < 0)
		return;
	loopback_ah_attr(env, &attr);
	attr.grh.sgid_index = index;
	ah = CHECK_NULL_ERRNO(ibv_create_ah(env->pd, &attr), ENODATA);
	if (ah)
		ibv_destroy_ah(ah);
}

static void create_ah_fails_with_einval_for_sgid_index_beyond_table(
	struct test_env *env)
{
	struct ibv_ah_attr attr;
	struct ibv_ah *ah;

	if (env->port_attr.gid_tbl_len > 255) {
		tap_skip("an 8-bit sgid_index cannot pass a %d-entry table",
			 env->port_attr.gid_tbl_len);
		return;
	}
	loopback_ah_attr(env, &attr);
	attr.grh.sgid_index = env->port_attr.gid_tbl_len;
	ah = CHECK_NULL_ERRNO(ibv_create_ah(env->pd, &attr), EINVAL);
	if (ah)
		ibv_destroy_ah(ah);
}

static void create_ah_fails_with_einval_for_port_0(struct test_env *env)
{
	struct ibv_ah_attr attr;
	struct ibv_ah *ah;

	loopback_ah_attr(env, &attr);
	attr.port_num = 0;
	ah = CHECK_NULL_ERRNO(ibv_create_ah(env->pd, &attr), EINVAL);
	if (ah)
		ibv_destroy_ah(ah);
}

static void create_ah_fails_with_einval_for_port_beyond_port_count(
	struct test_env *env)
{
	struct ibv_ah_attr attr;
	struct ibv_ah *ah;

	loopback_ah_attr(env, &attr);
	attr.port_num = env->dev_attr.phys_port_cnt + 1;
	ah = CHECK_NULL_ERRNO(ibv_create_ah(env->pd, &attr), EINVAL);
	if (ah)
		ibv_destroy_ah(ah);
}

static const struct test_case tests[] = {
	TEST_CASE(create_ah_succeeds_for_own_gid_from_gid_index_1),
	TEST_CASE(create_ah_succeeds_for_link_local_gid_from_gid_index_0),
	TEST_CASE(create_ah_succeeds_for_many_handles_to_one_gid),
	TEST_CASE(create_ah_fails_with_einval_without_grh),
	TEST_CASE(create_ah_fails_with_enodata_for_empty_sgid_index),
	TEST_CASE(create_ah_fails_with_einval_for_sgid_index_beyond_table),
	TEST_CASE(create_ah_fails_with_einval_for_port_0),
	TEST_CASE(create_ah_fails_with_einval_for_port_beyond_port_count),
};

int main(int argc, char **argv)
{
	return run_suite("ah", argc, argv, tests, ARRAY_SIZE(tests));
}
