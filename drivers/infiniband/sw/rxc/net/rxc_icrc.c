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
 *
 * Every byte of every packet on a wire goes through the CRC twice, once
 * at each end, so it takes the fastest CRC-32 the kernel has.  Before
 * 6.14, crc32_le() is the table-driven code on every CPU; the
 * accelerated versions (PCLMULQDQ on x86) are reached only through the
 * crypto API, as the hash "crc32", which is how rdma_rxe computes its
 * ICRC too.  Later kernels accelerate crc32_le() itself, and their hash
 * calls it.
 */
#include <crypto/hash.h>
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

/*
 * The accelerated "crc32" hash, or NULL where the best the crypto API
 * offers is the generic one, which is crc32_le() behind three indirect
 * calls.  Set at module load, before any device exists; read-only after.
 */
static struct crypto_shash *rxc_crc_tfm __ro_after_init;

/*
 * Below this many bytes crc32-pclmul hands the buffer to crc32_le()
 * itself, so the indirect calls would buy nothing: the masked headers
 * and small payloads stay on crc32_le().
 */
#define RXC_CRC_TFM_MIN		64

/**
 * rxc_crc32_shash - crc32_le(@crc, @p, @len) through the hash @tfm
 * @tfm: a "crc32" hash, whose state is the running CRC, not inverted
 * @crc: the CRC so far
 * @p: the bytes to add
 * @len: how many
 *
 * Return: the CRC with @p added.
 */
u32 rxc_crc32_shash(struct crypto_shash *tfm, u32 crc, const u8 *p,
		    unsigned int len)
{
	SHASH_DESC_ON_STACK(desc, tfm);
	u32 out;

	desc->tfm = tfm;
	/* "crc32" is keyless and cannot fail; the fallback is belt and braces. */
	if (crypto_shash_import(desc, &crc) ||
	    crypto_shash_update(desc, p, len) ||
	    crypto_shash_export(desc, &out))
		return crc32_le(crc, p, len);
	return out;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_crc32_shash);

static u32 rxc_crc32(u32 crc, const u8 *p, unsigned int len)
{
	if (rxc_crc_tfm && len >= RXC_CRC_TFM_MIN)
		return rxc_crc32_shash(rxc_crc_tfm, crc, p, len);
	return crc32_le(crc, p, len);
}

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

	return ~rxc_crc32(crc, ip + hdr_len, len - hdr_len);
}
EXPORT_SYMBOL_IF_KUNIT(rxc_icrc);

static int rxc_icrc_piece(void *ctx, u32 off, const u8 *p, u32 n)
{
	u32 *crc = ctx;

	*crc = rxc_crc32(*crc, p, n);
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

/*
 * Whether the hash is crc32_le() itself behind the crypto API: the
 * generic driver, or, on kernels that accelerate crc32_le(), the one
 * that wraps the library.
 */
static bool __init rxc_crc_tfm_is_crc32_le(struct crypto_shash *tfm)
{
	const char *name = crypto_shash_driver_name(tfm);

	return !strcmp(name, "crc32-generic") || !strcmp(name, "crc32-lib");
}

/*
 * rxc_icrc_init - pick the CRC-32 for the ICRC (module load, process
 * context).  Never fails: crc32_le() is always there.
 */
void __init rxc_icrc_init(void)
{
	struct crypto_shash *tfm = crypto_alloc_shash("crc32", 0, 0);

	if (IS_ERR(tfm)) {
		tfm = NULL;
	} else if (crypto_shash_statesize(tfm) != sizeof(u32) ||
		   rxc_crc_tfm_is_crc32_le(tfm)) {
		/* Not a plain running CRC, or no faster than crc32_le(). */
		crypto_free_shash(tfm);
		tfm = NULL;
	}
	rxc_crc_tfm = tfm;
	pr_info("rdma_rxc: ICRC by %s\n",
		tfm ? crypto_shash_driver_name(tfm) : "crc32_le");
}

/* Module unload, after the last device and packet are gone. */
void rxc_icrc_exit(void)
{
	crypto_free_shash(rxc_crc_tfm);
}
