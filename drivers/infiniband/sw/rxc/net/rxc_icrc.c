// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RoCEv2 invariant CRC.
 *
 * The ICRC is a CRC-32 (Ethernet polynomial, as zlib's crc32()) over the
 * packet from the IP header to the end of the padded payload, preceded by
 * eight 0xff bytes that stand for the InfiniBand LRH RoCEv2 does not carry.
 * Fields that routers may change are replaced by all ones first: IPv4 TOS,
 * TTL and header checksum; IPv6 traffic class, flow label and hop limit; the
 * UDP checksum; and the BTH byte that holds FECN/BECN.  It is sent as the
 * last four bytes of the packet, least significant byte first.
 */
#include <linux/crc32.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <kunit/visibility.h>

#include "rxc_hdr.h"
#include "rxc_net.h"

/* The BTH byte that carries FECN and BECN. */
#define RXC_BTH_RESV8_OFFSET	4

static void rxc_icrc_mask_ipv4(u8 *hdr)
{
	struct iphdr *ip = (struct iphdr *)hdr;

	ip->tos = 0xff;
	ip->ttl = 0xff;
	ip->check = CSUM_MANGLED_0;
}

static void rxc_icrc_mask_ipv6(u8 *hdr)
{
	struct ipv6hdr *ip6 = (struct ipv6hdr *)hdr;

	ip6->priority = 0xf;
	memset(ip6->flow_lbl, 0xff, sizeof(ip6->flow_lbl));
	ip6->hop_limit = 0xff;
}

/*
 * The CRC, not yet inverted, of the masked LRH and of the IP, UDP and BTH
 * headers at @ip, masked; *@hdr_len gets their length.
 */
static u32 rxc_icrc_hdrs(const u8 *ip, unsigned int *hdr_len)
{
	static const u8 masked_lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	u8 hdr[sizeof(struct ipv6hdr) + sizeof(struct udphdr) + RXC_BTH_SIZE];
	unsigned int ip_len;
	struct udphdr *udp;
	u32 crc;

	ip_len = (ip[0] >> 4) == 6 ? sizeof(struct ipv6hdr) :
				     sizeof(struct iphdr);
	*hdr_len = ip_len + sizeof(struct udphdr) + RXC_BTH_SIZE;
	memcpy(hdr, ip, *hdr_len);

	if (ip_len == sizeof(struct ipv6hdr))
		rxc_icrc_mask_ipv6(hdr);
	else
		rxc_icrc_mask_ipv4(hdr);
	udp = (struct udphdr *)(hdr + ip_len);
	udp->check = CSUM_MANGLED_0;
	hdr[ip_len + sizeof(struct udphdr) + RXC_BTH_RESV8_OFFSET] = 0xff;

	crc = crc32_le(~0U, masked_lrh, sizeof(masked_lrh));
	return crc32_le(crc, hdr, *hdr_len);
}

/**
 * rxc_icrc - compute the ICRC of a RoCEv2 packet
 * @ip: the IP header; IPv4 (without options) or IPv6, by its version field
 * @len: bytes from @ip to the end of the padded payload, ICRC excluded
 *
 * The caller has checked that @len covers the IP, UDP and BTH headers.
 *
 * Return: the ICRC, to be stored with cpu_to_le32().
 */
u32 rxc_icrc(const u8 *ip, unsigned int len)
{
	unsigned int hdr_len;
	u32 crc = rxc_icrc_hdrs(ip, &hdr_len);

	return ~crc32_le(crc, ip + hdr_len, len - hdr_len);
}
EXPORT_SYMBOL_IF_KUNIT(rxc_icrc);

static int rxc_icrc_piece(void *ctx, u32 off, const u8 *p, u32 n)
{
	u32 *crc = ctx;

	*crc = crc32_le(*crc, p, n);
	return 0;
}

/**
 * rxc_icrc_skb - rxc_icrc() of a received packet, read where it lies
 * @skb: the packet; linear from its IP header to the end of the BTH
 * @len: bytes from the IP header to the end of the padded payload, ICRC
 *	 excluded
 *
 * Return: the ICRC, to compare with the little-endian one received.
 */
u32 rxc_icrc_skb(struct sk_buff *skb, unsigned int len)
{
	unsigned int hdr_len;
	u32 crc = rxc_icrc_hdrs(skb_network_header(skb), &hdr_len);

	rxc_skb_walk(skb, skb_network_offset(skb) + hdr_len, len - hdr_len,
		     rxc_icrc_piece, &crc);
	return ~crc;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_icrc_skb);
