// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Sending RoCEv2 packets: IP and UDP headers, the ICRC, the route in the
 * netdev's namespace, and loopback.
 *
 * The transport builds the BTH, its extension headers and the payload in
 * a buffer from rxc_pkt_new(); rxc_pkt_send() adds the rest and hands the
 * packet to the IP stack, or to a batch that rxc_pkt_flush() hands over.
 * A packet whose destination is an address of this host never reaches a
 * netdev: it goes straight to the receive path of the rxc device that
 * owns the address, without an ICRC, which only guards the wire.
 *
 * From a QP's run (process context, preemption disabled); never with a
 * QP lock held, since a looped-back packet may be for the sending QP
 * itself.
 */
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/route.h>

#include "rxc.h"
#include "rxc_compat.h"
#include "rxc_net.h"

static unsigned int rxc_ip_hdr_len(const struct rxc_av *av)
{
	return av->network_type == RDMA_NETWORK_IPV4 ? sizeof(struct iphdr) :
						       sizeof(struct ipv6hdr);
}

/**
 * rxc_pkt_new - allocate a packet for @len bytes of RoCE headers and data
 * @rxc: the sending device
 * @av: where it goes
 * @len: bytes from the BTH to the end of the padding; the ICRC is added
 *
 * Return: the packet with skb->data at the BTH, @len bytes put, or NULL.
 */
struct sk_buff *rxc_pkt_new(struct rxc_dev *rxc, const struct rxc_av *av,
			    unsigned int len)
{
	unsigned int hdrs = rxc_ip_hdr_len(av) + sizeof(struct udphdr);
	unsigned int room = LL_RESERVED_SPACE(rxc->ndev) + hdrs;
	struct sk_buff *skb;

	skb = alloc_skb(room + len + RXC_ICRC_SIZE, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, room);
	skb_put(skb, len);
	return skb;
}

static void rxc_push_udp(struct sk_buff *skb, u16 sport)
{
	struct udphdr *uh;

	skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = htons(sport);
	uh->dest = htons(RXC_ROCE_V2_PORT);
	uh->len = htons(skb->len);
	/* RoCEv2 relies on the ICRC; zero means "no checksum" (RFC 6935). */
	uh->check = 0;
}

/* The TTL or hop limit; 0 in an address vector means "unset". */
static u8 rxc_hop_limit(const struct rxc_av *av)
{
	return av->hop_limit ? av->hop_limit : 64;
}

static void rxc_push_ipv4(struct sk_buff *skb, const struct rxc_av *av,
			  u16 id)
{
	struct iphdr *iph;

	skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	memset(iph, 0, sizeof(*iph));
	iph->version = 4;
	iph->ihl = sizeof(*iph) / 4;
	iph->tos = av->traffic_class;
	iph->tot_len = htons(skb->len);
	/*
	 * DF, as rdma_rxe sends.  IP gives a lone DF packet ID zero; in a
	 * batch the IDs count up from there (see rxc_pkt_flush()).
	 */
	iph->id = htons(id);
	iph->frag_off = htons(IP_DF);
	iph->ttl = rxc_hop_limit(av);
	iph->protocol = IPPROTO_UDP;
	iph->saddr = av->saddr.in4.sin_addr.s_addr;
	iph->daddr = av->daddr.in4.sin_addr.s_addr;
	ip_send_check(iph);
	skb->protocol = htons(ETH_P_IP);
}

static void rxc_push_ipv6(struct sk_buff *skb, const struct rxc_av *av)
{
	struct ipv6hdr *ip6h;

	skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, av->traffic_class, htonl(av->flow_label));
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = rxc_hop_limit(av);
	ip6h->saddr = av->saddr.in6.sin6_addr;
	ip6h->daddr = av->daddr.in6.sin6_addr;
	skb->protocol = htons(ETH_P_IPV6);
}

/* @skb->data at the BTH, room for the ICRC put: the UDP and IP headers. */
static void rxc_push_hdrs(struct sk_buff *skb, const struct rxc_av *av,
			  u16 sport, u16 ip_id)
{
	rxc_push_udp(skb, sport);
	if (av->network_type == RDMA_NETWORK_IPV4)
		rxc_push_ipv4(skb, av, ip_id);
	else
		rxc_push_ipv6(skb, av);
}

/* Headers in place: fill the ICRC over IP header .. padding. */
static void rxc_fill_icrc(struct sk_buff *skb)
{
	u8 *ip = skb_network_header(skb);
	u8 *icrc = skb_tail_pointer(skb) - RXC_ICRC_SIZE;

	put_unaligned_le32(rxc_icrc(ip, icrc - ip), icrc);
}

/*
 * The route to @av, from @route when it holds a valid one (the cache
 * checks that the route did not change since), else looked up and kept
 * there.  @route may be NULL: no cache.  Bottom halves off, as the cache
 * is per CPU.
 */
static struct dst_entry *rxc_route4(struct rxc_dev *rxc, struct net *net,
				    const struct rxc_av *av,
				    struct dst_cache *route)
{
	struct flowi4 fl4 = {
		.flowi4_oif = rxc->ndev->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.saddr = av->saddr.in4.sin_addr.s_addr,
		.daddr = av->daddr.in4.sin_addr.s_addr,
	};
	struct rtable *rt = route ? dst_cache_get_ip4(route, &fl4.saddr) : NULL;

	if (rt)
		return &rt->dst;
	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return ERR_CAST(rt);
	if (route)
		dst_cache_set_ip4(route, &rt->dst, av->saddr.in4.sin_addr.s_addr);
	return &rt->dst;
}

/* As rxc_route4(), for IPv6. */
static struct dst_entry *rxc_route6(struct rxc_dev *rxc, struct net *net,
				    const struct rxc_av *av,
				    struct dst_cache *route)
{
	struct flowi6 fl6 = {
		.flowi6_oif = rxc->ndev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.saddr = av->saddr.in6.sin6_addr,
		.daddr = av->daddr.in6.sin6_addr,
	};
	struct dst_entry *dst = route ? dst_cache_get_ip6(route, &fl6.saddr) :
					NULL;

	if (dst)
		return dst;
	/* IPv6 may be disabled at boot (ipv6.disable=1). */
	if (!ipv6_mod_enabled())
		return ERR_PTR(-EAFNOSUPPORT);
	dst = ip6_dst_lookup_flow(net, NULL, &fl6, NULL);
	if (route && !IS_ERR(dst))
		dst_cache_set_ip6(route, dst, &av->saddr.in6.sin6_addr);
	return dst;
}

static struct dst_entry *rxc_route(struct rxc_dev *rxc, struct net *net,
				   const struct rxc_av *av,
				   struct dst_cache *route)
{
	struct dst_entry *dst;

	local_bh_disable();
	if (av->network_type == RDMA_NETWORK_IPV4)
		dst = rxc_route4(rxc, net, av, route);
	else
		dst = rxc_route6(rxc, net, av, route);
	local_bh_enable();
	return dst;
}

/* The rxc device that owns the destination address, in @net. */
static struct rxc_dev *rxc_local_dest(struct net *net, const struct rxc_av *av)
{
	struct net_device *ndev = NULL;
	struct rxc_dev *dest = NULL;

	rcu_read_lock();
	if (av->network_type == RDMA_NETWORK_IPV4)
		ndev = __ip_dev_find(net, av->daddr.in4.sin_addr.s_addr, false);
	else if (ipv6_mod_enabled())
		ndev = ipv6_dev_find(net, &av->daddr.in6.sin6_addr, NULL);
	if (ndev)
		dest = rxc_dev_get_by_netdev(ndev);
	rcu_read_unlock();
	return dest;
}

/*
 * Hand a local packet to the receive path, as if it had arrived on the
 * destination device's netdev: skb->data at the UDP header.
 */
static int rxc_loopback(struct rxc_dev *rxc, struct net *net,
			const struct rxc_av *av, struct sk_buff *skb)
{
	struct rxc_dev *dest = rxc_local_dest(net, av);

	if (!dest) {
		kfree_skb(skb);
		return -EHOSTUNREACH;
	}
	skb->dev = dest->ndev;
	skb_pull(skb, skb_transport_offset(skb));
	rxc_stat_inc(rxc, RXC_STAT_LOOPBACK_PACKETS);
	rxc_recv_local(dest, skb);
	ib_device_put(&dest->ib_dev);
	return 0;
}

static int rxc_ip_out(struct net *net, struct sk_buff *skb,
		      struct dst_entry *dst)
{
	skb_dst_set(skb, dst);
	skb->dev = dst->dev;
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	if (skb->protocol == htons(ETH_P_IP))
		return ip_local_out(net, NULL, skb);
	return ip6_local_out(net, NULL, skb);
}

/*
 * Batches.  A pass of the requester, or one answering a read, sends its
 * packets to one peer.  Handed to IP one at a time, each would cross the
 * output path alone and reach the NIC's driver without xmit_more, so that
 * virtio-net, for one, would ring its host for every packet.  Instead,
 * each packet after the first hangs on the first one's frag_list, and
 * rxc_pkt_flush() sends them all as one UDP GSO packet of the fraglist
 * kind: it crosses the output path once, and its segmentation (in
 * software before a real NIC, or in the receiver's UDP layer past a veth)
 * hands the driver the whole list.
 *
 * Only a device that cannot pass such a packet on gets batches: it
 * segments them before its driver and its taps (tcpdump) see them.  A
 * stacked device (veth, VLAN, bond) would carry the batch whole, to show
 * up as one odd packet in a capture.
 *
 * Segmentation keeps each packet's own headers except for three fields:
 * the IPv4 ID counts up from the first packet's, the IP length is
 * recounted, and the first packet's UDP length becomes the GSO size.  The
 * packets are built with those values before their ICRCs are computed,
 * and the first is never shorter than the others, so each ICRC holds on
 * the wire.
 */

/* One IPv4 total length: what a GSO packet may hold. */
#define RXC_BATCH_MAX_LEN	0xffff

/* May @skb (UDP payload built, no headers yet) join @b? */
static bool rxc_batch_takes(const struct rxc_pkt_batch *b,
			    const struct rxc_av *av, const struct sk_buff *skb)
{
	unsigned int hdrs = rxc_ip_hdr_len(av) + sizeof(struct udphdr);

	return b->head && b->av == av && skb->len <= b->mss &&
	       b->head->len + hdrs + skb->len <= RXC_BATCH_MAX_LEN;
}

/* @skb, its headers pushed with the next IPv4 ID of @b, joins @b. */
static void rxc_batch_add(struct rxc_pkt_batch *b, struct sk_buff *skb)
{
	struct sk_buff *head = b->head;

	rxc_fill_icrc(skb);
	if (b->tail)
		b->tail->next = skb;
	else
		skb_shinfo(head)->frag_list = skb;
	b->tail = skb;
	b->segs++;
	head->len += skb->len;
	head->data_len += skb->len;
	head->truesize += skb->truesize;
}

static void rxc_batch_start(struct rxc_pkt_batch *b, const struct rxc_av *av,
			    struct dst_entry *dst, struct sk_buff *skb)
{
	*b = (struct rxc_pkt_batch){
		.head = skb,
		.av = av,
		.dst = dst,
		.mss = skb->len - skb_transport_offset(skb) -
		       sizeof(struct udphdr),
		.segs = 1,
	};
}

static void rxc_count_sent(struct rxc_dev *rxc, int err, unsigned int pkts)
{
	if (err) {
		rxc_stat_add(rxc, RXC_STAT_SEND_ERRORS, pkts);
		rxc_dbg(rxc, "send of %u packets failed (%d)\n", pkts, err);
	} else {
		rxc_stat_add(rxc, RXC_STAT_SENT_PACKETS, pkts);
	}
}

/* IP's verdict on @skb, with congestion notice counted as sent. */
static int rxc_ip_send(struct net *net, struct sk_buff *skb,
		       struct dst_entry *dst)
{
	/* net_xmit_eval() evaluates its argument twice. */
	int err = rxc_ip_out(net, skb, dst);

	return net_xmit_eval(err);
}

/**
 * rxc_pkt_flush - send the packets of a batch
 * @rxc: the sending device
 * @b: the batch, empty afterwards; an empty one sends nothing
 */
void rxc_pkt_flush(struct rxc_dev *rxc, struct rxc_pkt_batch *b)
{
	struct sk_buff *head = b->head;
	unsigned int segs = b->segs;
	int err;

	if (!head)
		return;
	if (segs > 1) {
		struct skb_shared_info *shinfo = skb_shinfo(head);

		shinfo->gso_type = SKB_GSO_UDP_L4 | SKB_GSO_FRAGLIST;
		shinfo->gso_size = b->mss;
		shinfo->gso_segs = segs;
		/*
		 * Nothing for segmentation to checksum: UDP's stays zero,
		 * and each packet carries its ICRC.
		 */
		head->ip_summed = CHECKSUM_UNNECESSARY;
		/*
		 * A receiver that gets the batch whole (past a veth) trims
		 * it to its UDP length before segmenting it: the length of
		 * all, as GRO leaves it.  Segmentation restores the first
		 * packet's.
		 */
		udp_hdr(head)->len = htons(head->len -
					   skb_transport_offset(head));
	}
	err = rxc_ip_send(dev_net(rxc->ndev), head, b->dst);
	rxc_count_sent(rxc, err, segs);
	if (!err && segs > 1)
		rxc_stat_add(rxc, RXC_STAT_SENT_BATCHED, segs);
	*b = (struct rxc_pkt_batch){};
}

/**
 * rxc_pkt_send - complete and send a packet from rxc_pkt_new()
 * @rxc: the sending device
 * @av: where it goes
 * @sport: the UDP source port (the sending QP's)
 * @route: the sending QP's cached route to @av, or NULL
 * @skb: the packet, skb->data at the BTH; consumed
 * @batch: NULL to send now, else the batch that the packet joins when
 *	   it goes to the same place over a wire; rxc_pkt_flush() sends it
 *
 * A lost packet is the transport's business (it retransmits), so only
 * the counters hear about failures.
 *
 * Return: 0 or a negative errno.
 */
int rxc_pkt_send(struct rxc_dev *rxc, const struct rxc_av *av, u16 sport,
		 struct dst_cache *route, struct sk_buff *skb,
		 struct rxc_pkt_batch *batch)
{
	struct net *net = dev_net(rxc->ndev);
	struct dst_entry *dst;
	int err;

	/* The UDP and IP lengths count the ICRC: room for it first. */
	skb_put(skb, RXC_ICRC_SIZE);
	if (batch && rxc_batch_takes(batch, av, skb)) {
		rxc_push_hdrs(skb, av, sport, batch->segs);
		rxc_batch_add(batch, skb);
		return 0;
	}
	if (batch)
		rxc_pkt_flush(rxc, batch);
	rxc_push_hdrs(skb, av, sport, 0);

	dst = rxc_route(rxc, net, av, route);
	if (IS_ERR(dst)) {
		err = PTR_ERR(dst);
		kfree_skb(skb);
	} else if (dst->dev->flags & IFF_LOOPBACK) {
		/* Never on a wire: no ICRC (see rxc_recv_local()). */
		memset(skb_tail_pointer(skb) - RXC_ICRC_SIZE, 0, RXC_ICRC_SIZE);
		dst_release(dst);
		err = rxc_loopback(rxc, net, av, skb);
	} else {
		rxc_fill_icrc(skb);
		if (batch && !(dst->dev->features & NETIF_F_GSO_FRAGLIST)) {
			rxc_batch_start(batch, av, dst, skb);
			return 0;
		}
		err = rxc_ip_send(net, skb, dst);
	}
	rxc_count_sent(rxc, err, 1);
	return err;
}
