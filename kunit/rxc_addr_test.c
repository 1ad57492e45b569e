// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* GID to address resolution, UDP source ports and the port MTU. */
#include <kunit/test.h>
#include <linux/inet.h>

#include "net/rxc_net.h"

static void gid_from_string(struct kunit *test, const char *s,
			    union ib_gid *gid)
{
	KUNIT_ASSERT_EQ(test, in6_pton(s, -1, gid->raw, -1, NULL), 1);
}

static void av_from_ipv4_mapped_gids_is_ipv4(struct kunit *test)
{
	union ib_gid s, d;
	struct rxc_av av = {};

	gid_from_string(test, "::ffff:10.77.0.1", &s);
	gid_from_string(test, "::ffff:10.77.0.2", &d);
	KUNIT_ASSERT_EQ(test, rxc_av_from_gids(&av, &s, &d), 0);
	KUNIT_EXPECT_EQ(test, av.network_type, (u8)RDMA_NETWORK_IPV4);
	KUNIT_EXPECT_EQ(test, av.saddr.in4.sin_family, (sa_family_t)AF_INET);
	KUNIT_EXPECT_EQ(test, ntohl(av.saddr.in4.sin_addr.s_addr),
			0x0a4d0001U);
	KUNIT_EXPECT_EQ(test, ntohl(av.daddr.in4.sin_addr.s_addr),
			0x0a4d0002U);
}

static void av_from_link_local_gids_is_ipv6(struct kunit *test)
{
	union ib_gid s, d;
	struct rxc_av av = {};

	gid_from_string(test, "fe80::200:aaff:fe00:1", &s);
	gid_from_string(test, "fe80::200:aaff:fe00:2", &d);
	KUNIT_ASSERT_EQ(test, rxc_av_from_gids(&av, &s, &d), 0);
	KUNIT_EXPECT_EQ(test, av.network_type, (u8)RDMA_NETWORK_IPV6);
	KUNIT_EXPECT_EQ(test, av.daddr.in6.sin6_family,
			(sa_family_t)AF_INET6);
	KUNIT_EXPECT_EQ(test, memcmp(&av.daddr.in6.sin6_addr, d.raw, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&av.sgid, s.raw, 16), 0);
}

static void av_fails_with_einval_when_families_differ(struct kunit *test)
{
	union ib_gid s, d;
	struct rxc_av av = {};

	gid_from_string(test, "::ffff:10.77.0.1", &s);
	gid_from_string(test, "2001:db8::2", &d);
	KUNIT_EXPECT_EQ(test, rxc_av_from_gids(&av, &s, &d), -EINVAL);
	KUNIT_EXPECT_EQ(test, rxc_av_from_gids(&av, &d, &s), -EINVAL);
}

static void udp_src_port_is_in_the_rocev2_range_and_stable(struct kunit *test)
{
	static const u32 qpns[] = { 1, 16, 17, 0x1234, 0xffffff };
	int i;

	for (i = 0; i < ARRAY_SIZE(qpns); i++) {
		u16 port = rxc_udp_src_port(qpns[i]);

		KUNIT_EXPECT_GE(test, port, (u16)RXC_ROCE_V2_SPORT_BASE);
		KUNIT_EXPECT_EQ(test, port, rxc_udp_src_port(qpns[i]));
	}
	KUNIT_EXPECT_NE(test, rxc_udp_src_port(16), rxc_udp_src_port(17));
}

static void mtu_is_the_largest_ib_mtu_that_fits(struct kunit *test)
{
	/* Headers: IPv6 40, UDP 8, BTH 12, XRC 4, AtomicETH 28, ICRC 4. */
	KUNIT_EXPECT_EQ(test, rxc_mtu_for_netdev(1500), IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, rxc_mtu_for_netdev(1024 + 96), IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, rxc_mtu_for_netdev(1024 + 95), IB_MTU_512);
	KUNIT_EXPECT_EQ(test, rxc_mtu_for_netdev(4096 + 96), IB_MTU_4096);
	KUNIT_EXPECT_EQ(test, rxc_mtu_for_netdev(9000), IB_MTU_4096);
	KUNIT_EXPECT_EQ(test, rxc_mtu_for_netdev(2048 + 96), IB_MTU_2048);
}

static void mtu_of_a_tiny_netdev_is_the_ib_minimum(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rxc_mtu_for_netdev(68), IB_MTU_256);
	KUNIT_EXPECT_EQ(test, rxc_mtu_for_netdev(0), IB_MTU_256);
}

static struct kunit_case rxc_addr_cases[] = {
	KUNIT_CASE(av_from_ipv4_mapped_gids_is_ipv4),
	KUNIT_CASE(av_from_link_local_gids_is_ipv6),
	KUNIT_CASE(av_fails_with_einval_when_families_differ),
	KUNIT_CASE(udp_src_port_is_in_the_rocev2_range_and_stable),
	KUNIT_CASE(mtu_is_the_largest_ib_mtu_that_fits),
	KUNIT_CASE(mtu_of_a_tiny_netdev_is_the_ib_minimum),
	{}
};

static struct kunit_suite rxc_addr_suite = {
	.name = "rxc_addr",
	.test_cases = rxc_addr_cases,
};

kunit_test_suite(rxc_addr_suite);
