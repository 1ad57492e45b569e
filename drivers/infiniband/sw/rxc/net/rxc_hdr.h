/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * RoCEv2 transport headers: their sizes, the byte layout of each field, and
 * the parsed view of a received packet.
 *
 * Headers are read and written in place, in network byte order, through a
 * plain byte pointer: a packet gives no alignment guarantee past the UDP
 * header, so every multi-byte access is unaligned.  A setter writes only its
 * own field, truncating the value to the field's width; whoever builds a
 * header zeroes it first, reserved bits included (rxc_bth_init() does so for
 * the BTH).
 */
#ifndef RXC_HDR_H
#define RXC_HDR_H

#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/string.h>
#include <linux/types.h>

#include "rxc_compat.h"

/*
 * Extension headers, numbered in the order in which they follow the BTH on
 * the wire (RDETH, for RD, is not supported).  The opcode table derives
 * every header offset from this order.
 */
enum rxc_hdr {
	RXC_HDR_DETH,
	RXC_HDR_RETH,
	RXC_HDR_ATMETH,
	RXC_HDR_AETH,
	RXC_HDR_ATMACK,
	RXC_HDR_IMMDT,
	RXC_HDR_IETH,
	RXC_NUM_HDRS
};

#define RXC_BTH_SIZE		12
#define RXC_DETH_SIZE		8
#define RXC_RETH_SIZE		16
#define RXC_ATMETH_SIZE		28
#define RXC_AETH_SIZE		4
#define RXC_ATMACK_SIZE		8
#define RXC_IMMDT_SIZE		4
#define RXC_IETH_SIZE		4
/* The longest BTH and extension headers of any opcode: an atomic request. */
#define RXC_MAX_HDR_LEN		(RXC_BTH_SIZE + RXC_ATMETH_SIZE)

/* The only transport header version there is. */
#define RXC_TVER		0
/* PSNs and MSNs are 24-bit counters. */
#define RXC_PSN_MASK		GENMASK(23, 0)

/*
 * BTH, in every packet:
 *	0 opcode | 1 SE, MigReq, PadCnt, TVer | 2-3 P_Key |
 *	4 FECN, BECN, reserved | 5-7 destination QPN |
 *	8 AckReq, reserved | 9-11 PSN
 */
#define RXC_BTH_F_SE		BIT(7)
#define RXC_BTH_F_MIGREQ	BIT(6)
#define RXC_BTH_F_PAD		GENMASK(5, 4)
#define RXC_BTH_F_TVER		GENMASK(3, 0)
#define RXC_BTH_F_ACKREQ	BIT(7)

static inline u8 rxc_bth_opcode(const u8 *bth)
{
	return bth[0];
}

static inline void rxc_bth_set_opcode(u8 *bth, u8 opcode)
{
	bth[0] = opcode;
}

static inline bool rxc_bth_se(const u8 *bth)
{
	return bth[1] & RXC_BTH_F_SE;
}

static inline void rxc_bth_set_se(u8 *bth, bool se)
{
	bth[1] = (bth[1] & ~RXC_BTH_F_SE) | (se ? RXC_BTH_F_SE : 0);
}

static inline bool rxc_bth_migreq(const u8 *bth)
{
	return bth[1] & RXC_BTH_F_MIGREQ;
}

static inline void rxc_bth_set_migreq(u8 *bth, bool migreq)
{
	bth[1] = (bth[1] & ~RXC_BTH_F_MIGREQ) | (migreq ? RXC_BTH_F_MIGREQ : 0);
}

static inline u8 rxc_bth_pad(const u8 *bth)
{
	return FIELD_GET(RXC_BTH_F_PAD, bth[1]);
}

static inline void rxc_bth_set_pad(u8 *bth, u8 pad)
{
	bth[1] = (bth[1] & ~RXC_BTH_F_PAD) | ((pad << 4) & RXC_BTH_F_PAD);
}

static inline u8 rxc_bth_tver(const u8 *bth)
{
	return FIELD_GET(RXC_BTH_F_TVER, bth[1]);
}

static inline void rxc_bth_set_tver(u8 *bth, u8 tver)
{
	bth[1] = (bth[1] & ~RXC_BTH_F_TVER) | (tver & RXC_BTH_F_TVER);
}

static inline u16 rxc_bth_pkey(const u8 *bth)
{
	return get_unaligned_be16(bth + 2);
}

static inline void rxc_bth_set_pkey(u8 *bth, u16 pkey)
{
	put_unaligned_be16(pkey, bth + 2);
}

static inline u32 rxc_bth_qpn(const u8 *bth)
{
	return get_unaligned_be24(bth + 5);
}

static inline void rxc_bth_set_qpn(u8 *bth, u32 qpn)
{
	put_unaligned_be24(qpn, bth + 5);
}

static inline bool rxc_bth_ackreq(const u8 *bth)
{
	return bth[8] & RXC_BTH_F_ACKREQ;
}

static inline void rxc_bth_set_ackreq(u8 *bth, bool ackreq)
{
	bth[8] = (bth[8] & ~RXC_BTH_F_ACKREQ) | (ackreq ? RXC_BTH_F_ACKREQ : 0);
}

static inline u32 rxc_bth_psn(const u8 *bth)
{
	return get_unaligned_be24(bth + 9);
}

static inline void rxc_bth_set_psn(u8 *bth, u32 psn)
{
	put_unaligned_be24(psn, bth + 9);
}

/*
 * RETH (RDMA write, read request, atomic write):
 *	0-7 VA | 8-11 R_Key | 12-15 DMA length
 */
static inline u64 rxc_reth_va(const u8 *reth)
{
	return get_unaligned_be64(reth);
}

static inline void rxc_reth_set_va(u8 *reth, u64 va)
{
	put_unaligned_be64(va, reth);
}

static inline u32 rxc_reth_rkey(const u8 *reth)
{
	return get_unaligned_be32(reth + 8);
}

static inline void rxc_reth_set_rkey(u8 *reth, u32 rkey)
{
	put_unaligned_be32(rkey, reth + 8);
}

static inline u32 rxc_reth_len(const u8 *reth)
{
	return get_unaligned_be32(reth + 12);
}

static inline void rxc_reth_set_len(u8 *reth, u32 len)
{
	put_unaligned_be32(len, reth + 12);
}

/* AETH (ACKs, read responses): 0 syndrome | 1-3 MSN */
static inline u8 rxc_aeth_syndrome(const u8 *aeth)
{
	return aeth[0];
}

static inline void rxc_aeth_set_syndrome(u8 *aeth, u8 syndrome)
{
	aeth[0] = syndrome;
}

static inline u32 rxc_aeth_msn(const u8 *aeth)
{
	return get_unaligned_be24(aeth + 1);
}

static inline void rxc_aeth_set_msn(u8 *aeth, u32 msn)
{
	put_unaligned_be24(msn, aeth + 1);
}

/*
 * AtomicETH (compare-and-swap, fetch-and-add):
 *	0-7 VA | 8-11 R_Key | 12-19 swap or add data | 20-27 compare data
 */
static inline u64 rxc_atmeth_va(const u8 *atmeth)
{
	return get_unaligned_be64(atmeth);
}

static inline void rxc_atmeth_set_va(u8 *atmeth, u64 va)
{
	put_unaligned_be64(va, atmeth);
}

static inline u32 rxc_atmeth_rkey(const u8 *atmeth)
{
	return get_unaligned_be32(atmeth + 8);
}

static inline void rxc_atmeth_set_rkey(u8 *atmeth, u32 rkey)
{
	put_unaligned_be32(rkey, atmeth + 8);
}

static inline u64 rxc_atmeth_swap_add(const u8 *atmeth)
{
	return get_unaligned_be64(atmeth + 12);
}

static inline void rxc_atmeth_set_swap_add(u8 *atmeth, u64 swap_add)
{
	put_unaligned_be64(swap_add, atmeth + 12);
}

static inline u64 rxc_atmeth_compare(const u8 *atmeth)
{
	return get_unaligned_be64(atmeth + 20);
}

static inline void rxc_atmeth_set_compare(u8 *atmeth, u64 compare)
{
	put_unaligned_be64(compare, atmeth + 20);
}

/* AtomicAckETH: 0-7 the remote value before the atomic operation */
static inline u64 rxc_atmack_orig(const u8 *atmack)
{
	return get_unaligned_be64(atmack);
}

static inline void rxc_atmack_set_orig(u8 *atmack, u64 orig)
{
	put_unaligned_be64(orig, atmack);
}

/*
 * ImmDt is opaque to the transport: the same four bytes go from the
 * sender's work request to the receiver's completion, so it stays __be32.
 */
static inline __be32 rxc_immdt_imm(const u8 *immdt)
{
	return get_unaligned((const __be32 *)immdt);
}

static inline void rxc_immdt_set_imm(u8 *immdt, __be32 imm)
{
	put_unaligned(imm, (__be32 *)immdt);
}

/* IETH (send with invalidate): 0-3 the R_Key to invalidate */
static inline u32 rxc_ieth_rkey(const u8 *ieth)
{
	return get_unaligned_be32(ieth);
}

static inline void rxc_ieth_set_rkey(u8 *ieth, u32 rkey)
{
	put_unaligned_be32(rkey, ieth);
}

/* DETH (UD): 0-3 Q_Key | 4 reserved | 5-7 source QPN */
static inline u32 rxc_deth_qkey(const u8 *deth)
{
	return get_unaligned_be32(deth);
}

static inline void rxc_deth_set_qkey(u8 *deth, u32 qkey)
{
	put_unaligned_be32(qkey, deth);
}

static inline u32 rxc_deth_sqpn(const u8 *deth)
{
	return get_unaligned_be24(deth + 5);
}

static inline void rxc_deth_set_sqpn(u8 *deth, u32 sqpn)
{
	put_unaligned_be24(sqpn, deth + 5);
}

/**
 * rxc_bth_init - write a whole BTH
 * @bth: the header
 * @opcode: the BTH opcode
 * @se: solicited event
 * @pad: bytes of padding after the payload (0-3)
 * @pkey: partition key
 * @qpn: destination QPN
 * @ackreq: ask the responder for an acknowledgment
 * @psn: packet sequence number
 *
 * MigReq, the transport version and the reserved bits are written as zero.
 */
static inline void rxc_bth_init(u8 *bth, u8 opcode, bool se, u8 pad,
				u16 pkey, u32 qpn, bool ackreq, u32 psn)
{
	memset(bth, 0, RXC_BTH_SIZE);
	rxc_bth_set_opcode(bth, opcode);
	rxc_bth_set_se(bth, se);
	rxc_bth_set_pad(bth, pad);
	rxc_bth_set_pkey(bth, pkey);
	rxc_bth_set_qpn(bth, qpn);
	rxc_bth_set_ackreq(bth, ackreq);
	rxc_bth_set_psn(bth, psn);
}

/**
 * struct rxc_pkt_info - a received packet, as rxc_pkt_parse() found it
 * @bth: the BTH; the headers, payload, padding and ICRC follow it
 * @payload_len: payload bytes, padding excluded; the payload follows the
 *		 headers, in the packet's fragments when it is not linear
 *		 (rxc_pkt_payload_walk())
 * @mask: the opcode's RXC_OPF_* properties (transport/rxc_opcode.h)
 * @opcode: the BTH opcode
 * @hdr_len: bytes of the BTH and its extension headers
 * @pad: bytes of padding between the payload and the ICRC
 * @off: offset from @bth of each extension header, 0 when it is absent
 *
 * It is small enough (32 bytes on 64-bit) to live in skb->cb.
 */
struct rxc_pkt_info {
	const u8 *bth;
	u32 payload_len;
	u32 mask;
	u8 opcode;
	u8 hdr_len;
	u8 pad;
	u8 off[RXC_NUM_HDRS];
};

/* The extension header @hdr of @pkt, or NULL if its opcode has none. */
static inline const u8 *rxc_pkt_hdr(const struct rxc_pkt_info *pkt,
				    enum rxc_hdr hdr)
{
	return pkt->off[hdr] ? pkt->bth + pkt->off[hdr] : NULL;
}

/* rxc_parse.c */
int rxc_pkt_parse(const u8 *bth, unsigned int len, struct rxc_pkt_info *pkt);

#endif /* RXC_HDR_H */
