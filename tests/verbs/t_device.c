// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Device, port, GID and P_Key queries.
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"

static bool gid_is_zero(const union ibv_gid *gid)
{
	static const union ibv_gid zero;

	return !memcmp(gid, &zero, sizeof(zero));
}

static void get_device_list_includes_named_device(struct test_env *env)
{
	struct ibv_device **list;
	int i, n = -1;
	int found = 0;

	list = CHECK_NOT_NULL(ibv_get_device_list(&n));
	if (!list)
		return;

	CHECK_GE(n, 1);
	for (i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(list[i]), env->dev_name))
			continue;
		found++;
		CHECK(ibv_get_device_guid(list[i]) != 0,
		      "device GUID is zero");
	}
	CHECK(!list[n], "device list is not NULL-terminated");
	CHECK_EQ(found, 1);

	ibv_free_device_list(list);
}

static void open_device_returns_independent_context(struct test_env *env)
{
	struct ibv_context *ctx;

	ctx = CHECK_NOT_NULL(open_device_by_name(env->dev_name));
	if (!ctx)
		return;

	CHECK(ctx != env->ctx, "second open returned the same context");
	CHECK(!strcmp(ibv_get_device_name(ctx->device), env->dev_name),
	      "context device is %s", ibv_get_device_name(ctx->device));
	CHECK_GE(ctx->cmd_fd, 0);
	CHECK_GE(ctx->async_fd, 0);
	CHECK_GE(ctx->num_comp_vectors, 1);

	CHECK_OK(ibv_close_device(ctx));
}

static void query_device_reports_nonzero_limits(struct test_env *env)
{
	const struct ibv_device_attr *a = &env->dev_attr;

	CHECK(a->node_guid != 0, "node_guid is zero");
	CHECK(a->sys_image_guid != 0, "sys_image_guid is zero");
	CHECK(a->max_mr_size != 0, "max_mr_size is zero");
	CHECK(a->page_size_cap != 0, "page_size_cap is zero");
	CHECK_GE(a->max_qp, 1);
	CHECK_GE(a->max_qp_wr, 1);
	CHECK_GE(a->max_sge, 1);
	CHECK_GE(a->max_sge_rd, 1);
	CHECK_GE(a->max_cq, 1);
	CHECK_GE(a->max_cqe, 1);
	CHECK_GE(a->max_mr, 1);
	CHECK_GE(a->max_pd, 1);
	CHECK_GE(a->max_qp_rd_atom, 1);
	CHECK_GE(a->max_qp_init_rd_atom, 1);
	CHECK_GE(a->max_res_rd_atom, 1);
	CHECK_GE(a->max_srq, 1);
	CHECK_GE(a->max_srq_wr, 1);
	CHECK_GE(a->max_srq_sge, 1);
	CHECK_GE(a->max_ah, 1);
	CHECK_GE(a->max_pkeys, 1);
	CHECK_GE(a->phys_port_cnt, 1);
	if (a->device_cap_flags & IBV_DEVICE_MEM_WINDOW)
		CHECK_GE(a->max_mw, 1);
}

static void query_device_limits_are_self_consistent(struct test_env *env)
{
	const struct ibv_device_attr *a = &env->dev_attr;
	long page = sysconf(_SC_PAGESIZE);

	CHECK(a->page_size_cap & page,
	      "page_size_cap 0x%llx lacks the system page size %ld",
	      (unsigned long long)a->page_size_cap, page);
	CHECK(a->max_mr_size >= (uint64_t)page,
	      "max_mr_size 0x%llx is below the page size",
	      (unsigned long long)a->max_mr_size);
	CHECK_LE(a->max_sge_rd, a->max_sge);
	CHECK_LE(a->max_srq_sge, a->max_sge);
	CHECK_LE(a->max_qp_init_rd_atom, a->max_qp_rd_atom);
	CHECK_GE(a->max_res_rd_atom, a->max_qp_rd_atom);
	CHECK_LE(a->max_mcast_qp_attach, a->max_total_mcast_qp_attach);
	CHECK(a->atomic_cap == IBV_ATOMIC_NONE ||
	      a->atomic_cap == IBV_ATOMIC_HCA ||
	      a->atomic_cap == IBV_ATOMIC_GLOB,
	      "atomic_cap %d is not an ibv_atomic_cap", a->atomic_cap);
	/* Transport checks in the other suites use port 1. */
	CHECK_EQ(a->phys_port_cnt, 1);
}

static void query_device_ex_matches_query_device(struct test_env *env)
{
	const struct ibv_device_attr *a = &env->dev_attr;
	struct ibv_device_attr_ex ex;
	const struct ibv_device_attr *o = &ex.orig_attr;

	memset(&ex, 0xa5, sizeof(ex));
	if (!CHECK_OK(ibv_query_device_ex(env->ctx, NULL, &ex)))
		return;

	CHECK_EQ(o->node_guid, a->node_guid);
	CHECK_EQ(o->sys_image_guid, a->sys_image_guid);
	CHECK_EQ(o->max_mr_size, a->max_mr_size);
	CHECK_EQ(o->page_size_cap, a->page_size_cap);
	CHECK_EQ(o->vendor_id, a->vendor_id);
	CHECK_EQ(o->max_qp, a->max_qp);
	CHECK_EQ(o->max_qp_wr, a->max_qp_wr);
	CHECK_EQ(o->device_cap_flags, a->device_cap_flags);
	CHECK_EQ(o->max_sge, a->max_sge);
	CHECK_EQ(o->max_sge_rd, a->max_sge_rd);
	CHECK_EQ(o->max_cq, a->max_cq);
	CHECK_EQ(o->max_cqe, a->max_cqe);
	CHECK_EQ(o->max_mr, a->max_mr);
	CHECK_EQ(o->max_pd, a->max_pd);
	CHECK_EQ(o->max_qp_rd_atom, a->max_qp_rd_atom);
	CHECK_EQ(o->max_qp_init_rd_atom, a->max_qp_init_rd_atom);
	CHECK_EQ(o->atomic_cap, a->atomic_cap);
	CHECK_EQ(o->max_mw, a->max_mw);
	CHECK_EQ(o->max_ah, a->max_ah);
	CHECK_EQ(o->max_srq, a->max_srq);
	CHECK_EQ(o->max_srq_wr, a->max_srq_wr);
	CHECK_EQ(o->max_srq_sge, a->max_srq_sge);
	CHECK_EQ(o->max_pkeys, a->max_pkeys);
	CHECK_EQ(o->phys_port_cnt, a->phys_port_cnt);
	CHECK_EQ(ex.device_cap_flags_ex & 0xffffffffu, a->device_cap_flags);
}

static void query_device_ex_fails_with_einval_for_unknown_comp_mask(
	struct test_env *env)
{
	struct ibv_query_device_ex_input in = { .comp_mask = 1u << 31 };
	struct ibv_device_attr_ex ex;

	CHECK_RC(ibv_query_device_ex(env->ctx, &in, &ex), EINVAL);
}

static void query_port_reports_active_state(struct test_env *env)
{
	struct ibv_port_attr p;

	if (!CHECK_OK(ibv_query_port(env->ctx, TEST_PORT, &p)))
		return;
	CHECK_EQ(p.state, IBV_PORT_ACTIVE);
	CHECK_EQ(p.phys_state, 5 /* LinkUp */);
}

static void query_port_reports_ethernet_link_layer(struct test_env *env)
{
	CHECK_EQ(env->port_attr.link_layer, IBV_LINK_LAYER_ETHERNET);
}

static void query_port_active_mtu_is_valid_and_within_max_mtu(
	struct test_env *env)
{
	const struct ibv_port_attr *p = &env->port_attr;

	CHECK(p->max_mtu >= IBV_MTU_256 && p->max_mtu <= IBV_MTU_4096,
	      "max_mtu %d is not an ibv_mtu", p->max_mtu);
	CHECK(p->active_mtu >= IBV_MTU_256 && p->active_mtu <= IBV_MTU_4096,
	      "active_mtu %d is not an ibv_mtu", p->active_mtu);
	CHECK_LE(p->active_mtu, p->max_mtu);
}

static void query_port_reports_table_sizes_and_message_size(
	struct test_env *env)
{
	const struct ibv_port_attr *p = &env->port_attr;

	CHECK_GE(p->gid_tbl_len, 2);
	CHECK_GE(p->pkey_tbl_len, 1);
	CHECK_LE(p->pkey_tbl_len, env->dev_attr.max_pkeys);
	CHECK_GE(p->max_msg_sz, 1);
}

static void query_port_fails_with_einval_for_port_0(struct test_env *env)
{
	struct ibv_port_attr p;

	CHECK_RC(ibv_query_port(env->ctx, 0, &p), EINVAL);
}

static void query_port_fails_with_einval_for_port_beyond_port_count(
	struct test_env *env)
{
	struct ibv_port_attr p;

	CHECK_RC(ibv_query_port(env->ctx, env->dev_attr.phys_port_cnt + 1,
				&p), EINVAL);
}

static void query_gid_index_0_is_link_local(struct test_env *env)
{
	union ibv_gid gid;

	if (!CHECK_OK(ibv_query_gid(env->ctx, TEST_PORT, 0, &gid)))
		return;
	CHECK(gid.raw[0] == 0xfe && gid.raw[1] == 0x80,
	      "GID 0 prefix is %02x%02x, expected fe80", gid.raw[0],
	      gid.raw[1]);
	CHECK(!memcmp(&gid.raw[2], "\0\0\0\0\0\0", 6),
	      "GID 0 is not in fe80::/64");
	CHECK(!gid_is_zero(&gid), "GID 0 is zero");
}

/* The IPv4 address of the netdev with index @ifindex, in @addr. */
static bool netdev_has_ipv4(unsigned int ifindex, const uint8_t addr[4])
{
	struct ifaddrs *ifa, *i;
	bool found = false;

	if (getifaddrs(&ifa))
		return false;
	for (i = ifa; i; i = i->ifa_next) {
		const struct sockaddr_in *sin;

		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
			continue;
		if (if_nametoindex(i->ifa_name) != ifindex)
			continue;
		sin = (const struct sockaddr_in *)i->ifa_addr;
		if (!memcmp(&sin->sin_addr, addr, 4))
			found = true;
	}
	freeifaddrs(ifa);
	return found;
}

static void query_gid_index_1_is_ipv4_mapped_netdev_address(
	struct test_env *env)
{
	static const uint8_t mapped[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};
	struct ibv_gid_entry entry;
	union ibv_gid gid;

	if (!CHECK_OK(ibv_query_gid(env->ctx, TEST_PORT, 1, &gid)))
		return;
	if (!CHECK(!memcmp(gid.raw, mapped, sizeof(mapped)),
		   "GID 1 is not an IPv4-mapped address"))
		return;

	if (!CHECK_OK(ibv_query_gid_ex(env->ctx, TEST_PORT, 1, &entry, 0)))
		return;
	CHECK(netdev_has_ipv4(entry.ndev_ifindex, &gid.raw[12]),
	      "%u.%u.%u.%u is not an address of netdev %u", gid.raw[12],
	      gid.raw[13], gid.raw[14], gid.raw[15], entry.ndev_ifindex);
}

static void query_gid_fails_with_einval_for_index_beyond_table(
	struct test_env *env)
{
	union ibv_gid gid;

	CHECK_ERRNO(ibv_query_gid(env->ctx, TEST_PORT,
				  env->port_attr.gid_tbl_len, &gid), EINVAL);
}

static void query_gid_fails_with_einval_for_port_0(struct test_env *env)
{
	union ibv_gid gid;

	CHECK_ERRNO(ibv_query_gid(env->ctx, 0, 0, &gid), EINVAL);
}

static void query_gid_ex_reports_roce_v2_entries_matching_query_gid(
	struct test_env *env)
{
	int index;

	for (index = 0; index < 2; index++) {
		struct ibv_gid_entry entry;
		union ibv_gid gid;

		memset(&entry, 0xa5, sizeof(entry));
		if (!CHECK_OK(ibv_query_gid_ex(env->ctx, TEST_PORT, index,
					       &entry, 0)))
			continue;
		if (!CHECK_OK(ibv_query_gid(env->ctx, TEST_PORT, index, &gid)))
			continue;
		CHECK(!memcmp(&entry.gid, &gid, sizeof(gid)),
		      "GID %d differs between query_gid and query_gid_ex",
		      index);
		CHECK_EQ(entry.gid_index, index);
		CHECK_EQ(entry.port_num, TEST_PORT);
		CHECK_EQ(entry.gid_type, IBV_GID_TYPE_ROCE_V2);
		CHECK(entry.ndev_ifindex != 0, "GID %d has no netdev", index);
	}
}

static void query_gid_ex_fails_with_einval_for_index_beyond_table(
	struct test_env *env)
{
	struct ibv_gid_entry entry;

	CHECK_RC(ibv_query_gid_ex(env->ctx, TEST_PORT,
				  env->port_attr.gid_tbl_len, &entry, 0),
		 EINVAL);
}

static void query_gid_ex_fails_with_enodata_for_empty_index(
	struct test_env *env)
{
	struct ibv_gid_entry entry;
	int index;

	index = find_empty_gid_index(env, env->port_attr.gid_tbl_len);
	if (index < 0)
		return;
	CHECK_RC(ibv_query_gid_ex(env->ctx, TEST_PORT, index, &entry, 0),
		 ENODATA);
}

static void query_gid_table_lists_link_local_and_ipv4_entries(
	struct test_env *env)
{
	uint32_t len = env->port_attr.gid_tbl_len;
	struct ibv_gid_entry *table;
	bool seen[2] = { false, false };
	ssize_t n, i;

	table = calloc(len, sizeof(*table));
	if (!CHECK(table, "out of memory"))
		return;

	n = ibv_query_gid_table(env->ctx, table, len, 0);
	if (!CHECK(n >= 2, "ibv_query_gid_table returned %zd", n))
		goto out;

	for (i = 0; i < n; i++) {
		struct ibv_gid_entry one;

		CHECK_EQ(table[i].port_num, TEST_PORT);
		if (!CHECK_OK(ibv_query_gid_ex(env->ctx, TEST_PORT,
					       table[i].gid_index, &one, 0)))
			continue;
		CHECK(!memcmp(&one, &table[i], sizeof(one)),
		      "table entry %zd differs from query_gid_ex(%u)", i,
		      table[i].gid_index);
		if (table[i].gid_index < 2)
			seen[table[i].gid_index] = true;
	}
	CHECK(seen[0], "GID table lacks index 0");
	CHECK(seen[1], "GID table lacks index 1");
out:
	free(table);
}

static void query_gid_table_fails_with_einval_when_entries_do_not_fit(
	struct test_env *env)
{
	struct ibv_gid_entry one;
	ssize_t n;

	/* The port has at least two valid GIDs (indexes 0 and 1). */
	n = ibv_query_gid_table(env->ctx, &one, 1, 0);
	CHECK(n == -EINVAL, "ibv_query_gid_table returned %zd, expected %d",
	      n, -EINVAL);
}

static void query_pkey_index_0_is_default_full_membership(
	struct test_env *env)
{
	__be16 pkey = 0;

	if (!CHECK_OK(ibv_query_pkey(env->ctx, TEST_PORT, 0, &pkey)))
		return;
	CHECK_EQ(be16toh(pkey), 0xffff);
}

/*
 * libibverbs reads P_Keys from sysfs, where the core creates one file per
 * table entry: an index past the table is a missing file.
 */
static void query_pkey_fails_with_enoent_for_index_beyond_table(
	struct test_env *env)
{
	__be16 pkey;

	CHECK_ERRNO(ibv_query_pkey(env->ctx, TEST_PORT,
				   env->port_attr.pkey_tbl_len, &pkey),
		    ENOENT);
}

static void get_pkey_index_finds_default_pkey_at_index_0(
	struct test_env *env)
{
	CHECK_EQ(ibv_get_pkey_index(env->ctx, TEST_PORT, htobe16(0xffff)), 0);
}

static const struct test_case tests[] = {
	TEST_CASE(get_device_list_includes_named_device),
	TEST_CASE(open_device_returns_independent_context),
	TEST_CASE(query_device_reports_nonzero_limits),
	TEST_CASE(query_device_limits_are_self_consistent),
	TEST_CASE(query_device_ex_matches_query_device),
	TEST_CASE(query_device_ex_fails_with_einval_for_unknown_comp_mask),
	TEST_CASE(query_port_reports_active_state),
	TEST_CASE(query_port_reports_ethernet_link_layer),
	TEST_CASE(query_port_active_mtu_is_valid_and_within_max_mtu),
	TEST_CASE(query_port_reports_table_sizes_and_message_size),
	TEST_CASE(query_port_fails_with_einval_for_port_0),
	TEST_CASE(query_port_fails_with_einval_for_port_beyond_port_count),
	TEST_CASE(query_gid_index_0_is_link_local),
	TEST_CASE(query_gid_index_1_is_ipv4_mapped_netdev_address),
	TEST_CASE(query_gid_fails_with_einval_for_index_beyond_table),
	TEST_CASE(query_gid_fails_with_einval_for_port_0),
	TEST_CASE(query_gid_ex_reports_roce_v2_entries_matching_query_gid),
	TEST_CASE(query_gid_ex_fails_with_einval_for_index_beyond_table),
	TEST_CASE(query_gid_ex_fails_with_enodata_for_empty_index),
	TEST_CASE(query_gid_table_lists_link_local_and_ipv4_entries),
	TEST_CASE(query_gid_table_fails_with_einval_when_entries_do_not_fit),
	TEST_CASE(query_pkey_index_0_is_default_full_membership),
	TEST_CASE(query_pkey_fails_with_enoent_for_index_beyond_table),
	TEST_CASE(get_pkey_index_finds_default_pkey_at_index_0),
};

int main(int argc, char **argv)
{
	return run_suite("device", argc, argv, tests, ARRAY_SIZE(tests));
}
