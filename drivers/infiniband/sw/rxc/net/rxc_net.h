/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The network side of rxc: addresses derived from GIDs, the ICRC, and the
 * binding to the Ethernet netdev.
 */
#ifndef RXC_NET_H
#define RXC_NET_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/if_ether.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>

struct rxc_dev;

/* RoCEv2 UDP destination port, and the base of the source port range. */
#define RXC_ROCE_V2_PORT	4791
#define RXC_ROCE_V2_SPORT_BASE	0xc000
#define RXC_ICRC_SIZE		4

union rxc_sockaddr {
	struct sockaddr sa;
	struct sockaddr_in in4;
	struct sockaddr_in6 in6;
};

/**
 * struct rxc_av - where a packet goes, resolved from an address handle
 * @network_type: RDMA_NETWORK_IPV4 or RDMA_NETWORK_IPV6
 * @sgid_index: source GID table index
 * @hop_limit: IPv6 hop limit or IPv4 TTL
 * @traffic_class: IPv6 traffic class or IPv4 TOS
 * @flow_label: IPv6 flow label
 * @dmac: next-hop MAC address, resolved by core
 * @sgid: source GID
 * @dgid: destination GID
 * @saddr: source IP address, derived from @sgid
 * @daddr: destination IP address, derived from @dgid
 */
struct rxc_av {
	u8 network_type;
	u8 sgid_index;
	u8 hop_limit;
	u8 traffic_class;
	u32 flow_label;
	u8 dmac[ETH_ALEN];
	union ib_gid sgid;
	union ib_gid dgid;
	union rxc_sockaddr saddr;
	union rxc_sockaddr daddr;
};

/**
 * struct rxc_pkt_batch - packets of one run on their way to one peer
 * @head: the first packet; the others hang on its frag_list
 * @tail: the last packet chained, NULL while @head is alone
 * @av: where they all go
 * @dst: @head's route, held until the batch is sent
 * @mss: @head's UDP payload: no packet of the batch is longer
 * @segs: packets in the batch
 *
 * Zeroed, it is empty.  See rxc_pkt_send().
 */
struct rxc_pkt_batch {
	struct sk_buff *head;
	struct sk_buff *tail;
	const struct rxc_av *av;
	struct dst_entry *dst;
	unsigned int mss;
	unsigned int segs;
};

/* rxc_addr.c */
int rxc_av_from_gids(struct rxc_av *av, const union ib_gid *sgid,
		     const union ib_gid *dgid);
int rxc_av_from_ah_attr(struct rxc_dev *rxc, struct rxc_av *av,
			const struct rdma_ah_attr *attr);
void rxc_av_to_ah_attr(const struct rxc_av *av, struct rdma_ah_attr *attr);
bool rxc_av_matches_pkt(const struct rxc_av *av, const struct sk_buff *skb);
u16 rxc_udp_src_port(u32 qpn);
enum ib_mtu rxc_mtu_for_netdev(unsigned int ndev_mtu);

/* rxc_icrc.c */
struct crypto_shash;
void rxc_icrc_init(void);
void rxc_icrc_exit(void);
u32 rxc_crc32_shash(struct crypto_shash *tfm, u32 crc, const u8 *p,
		    unsigned int len);
u32 rxc_icrc(const u8 *ip, unsigned int len);
u32 rxc_icrc_skb(struct sk_buff *skb, unsigned int len);

/* rxc_parse.c (rxc_pkt_parse() is in rxc_hdr.h) */
int rxc_skb_walk(struct sk_buff *skb, unsigned int off, unsigned int len,
		 int (*fn)(void *ctx, u32 off, const u8 *p, u32 n), void *ctx);

/* rxc_udp.c */
struct rxc_udp *rxc_udp_get(struct net *net, const char *ibdev_name);
void rxc_udp_put(struct rxc_udp *udp);
int rxc_udp_init(void);
void rxc_udp_exit(void);

/* rxc_recv.c */
void rxc_recv(struct sk_buff *skb);
void rxc_recv_local(struct rxc_dev *rxc, struct sk_buff *skb);

/* rxc_xmit.c */
struct sk_buff *rxc_pkt_new(struct rxc_dev *rxc, const struct rxc_av *av,
			    unsigned int len);
int rxc_pkt_send(struct rxc_dev *rxc, const struct rxc_av *av, u16 sport,
		 struct dst_cache *route, struct sk_buff *skb,
		 struct rxc_pkt_batch *batch);
void rxc_pkt_flush(struct rxc_dev *rxc, struct rxc_pkt_batch *batch);

/* rxc_netdev.c */
int rxc_netdev_notifier_register(void);
void rxc_netdev_notifier_unregister(void);
bool rxc_netdev_port_active(const struct net_device *ndev);

#endif /* RXC_NET_H */
