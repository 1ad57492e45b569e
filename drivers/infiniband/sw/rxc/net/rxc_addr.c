// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Address helpers: RoCEv2 addresses come from GIDs.  A GID that is an
 * IPv4-mapped IPv6 address (::ffff:a.b.c.d) means IPv4 on the wire; any
 * other GID is an IPv6 address.
 */
#include <linux/hash.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <kunit/visibility.h>

#include "rxc.h"
#include "rxc_net.h"

static u8 rxc_gid_network_type(const union ib_gid *gid)
{
	return ipv6_addr_v4mapped((const struct in6_addr *)gid->raw) ?
	       RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
}

/**
 * rxc_av_from_gids - fill the addresses of @av from two GIDs
 * @av: the address vector to fill
 * @sgid: the source GID
 * @dgid: the destination GID
 *
 * Return: -EINVAL when the GIDs are of different families, since a
 * packet cannot go from an IPv4 address to an IPv6 one.
 */
int rxc_av_from_gids(struct rxc_av *av, const union ib_gid *sgid,
		     const union ib_gid *dgid)
{
	u8 type = rxc_gid_network_type(sgid);

	if (type != rxc_gid_network_type(dgid))
		return -EINVAL;

	av->network_type = type;
	av->sgid = *sgid;
	av->dgid = *dgid;
	rdma_gid2ip(&av->saddr.sa, sgid);
	rdma_gid2ip(&av->daddr.sa, dgid);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_av_from_gids);

/**
 * rxc_av_matches_pkt - whether @skb comes from the peer of @av, to it
 * @av: a connected QP's path
 * @skb: a received RoCEv2 packet, its network header set
 *
 * A connected QP accepts packets only from its peer's address to its
 * own: otherwise any host that reaches UDP port 4791 and guesses a QPN
 * could acknowledge, NAK or place data.  Any context.
 */
bool rxc_av_matches_pkt(const struct rxc_av *av, const struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP)) {
		const struct iphdr *ip = ip_hdr(skb);

		return av->network_type == RDMA_NETWORK_IPV4 &&
		       ip->saddr == av->daddr.in4.sin_addr.s_addr &&
		       ip->daddr == av->saddr.in4.sin_addr.s_addr;
	}
	if (skb->protocol == htons(ETH_P_IPV6)) {
		const struct ipv6hdr *ip6 = ipv6_hdr(skb);

		return av->network_type == RDMA_NETWORK_IPV6 &&
		       ipv6_addr_equal(&ip6->saddr, &av->daddr.in6.sin6_addr) &&
		       ipv6_addr_equal(&ip6->daddr, &av->saddr.in6.sin6_addr);
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_av_matches_pkt);

/**
 * rxc_av_from_ah_attr - resolve an address handle attribute
 * @rxc: the device
 * @av: filled on success
 * @attr: from create_ah or modify_qp; core has looked up the source GID
 *	  entry and, for RoCE, the destination MAC
 */
int rxc_av_from_ah_attr(struct rxc_dev *rxc, struct rxc_av *av,
			const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(attr);
	int err;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) || !grh->sgid_attr) {
		rxc_dbg(rxc, "address vector without a RoCE GRH\n");
		return -EINVAL;
	}
	if (rdma_ah_get_port_num(attr) != RXC_PORT) {
		rxc_dbg(rxc, "address vector names port %u\n",
			rdma_ah_get_port_num(attr));
		return -EINVAL;
	}
	if (grh->sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP) {
		rxc_dbg(rxc, "GID index %u is not a RoCEv2 GID\n",
			grh->sgid_index);
		return -EINVAL;
	}

	memset(av, 0, sizeof(*av));
	err = rxc_av_from_gids(av, &grh->sgid_attr->gid, &grh->dgid);
	if (err) {
		rxc_dbg(rxc, "source and destination GIDs differ in family\n");
		return err;
	}
	av->sgid_index = grh->sgid_index;
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	/*
	 * The flow label has 20 bits, the attribute 32, and user space
	 * sets the rest (UCX passes ~0, which steers the UDP source port on
	 * other devices).  Kept whole, the top bits would overwrite the
	 * IPv6 version and traffic class, and every host would drop the
	 * packet.
	 */
	av->flow_label = grh->flow_label & IB_GRH_FLOWLABEL_MASK;
	memcpy(av->dmac, attr->roce.dmac, ETH_ALEN);
	return 0;
}

void rxc_av_to_ah_attr(const struct rxc_av *av, struct rdma_ah_attr *attr)
{
	struct ib_global_route *grh = rdma_ah_retrieve_grh(attr);

	memset(attr, 0, sizeof(*attr));
	attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(attr, RXC_PORT);
	rdma_ah_set_ah_flags(attr, IB_AH_GRH);
	grh->dgid = av->dgid;
	grh->flow_label = av->flow_label;
	grh->sgid_index = av->sgid_index;
	grh->hop_limit = av->hop_limit;
	grh->traffic_class = av->traffic_class;
	memcpy(attr->roce.dmac, av->dmac, ETH_ALEN);
}

/*
 * Spread QPs over UDP source ports so that ECMP and RSS can balance them,
 * while every packet of one QP takes one path.
 */
u16 rxc_udp_src_port(u32 qpn)
{
	return RXC_ROCE_V2_SPORT_BASE | (hash_32(qpn, 14) & 0x3fff);
}
EXPORT_SYMBOL_IF_KUNIT(rxc_udp_src_port);

/*
 * The largest IB MTU whose packets, with every RoCEv2 header, fit the
 * netdev MTU.  A netdev too small for even 256-byte payloads still gets
 * 256, the IB minimum; such a port drops what does not fit.
 */
enum ib_mtu rxc_mtu_for_netdev(unsigned int ndev_mtu)
{
	enum ib_mtu mtu = iboe_get_mtu(ndev_mtu);

	return mtu ? mtu : IB_MTU_256;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_mtu_for_netdev);
