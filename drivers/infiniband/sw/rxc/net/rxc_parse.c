// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Parsing of received RoCEv2 packets, from the BTH to the end of the ICRC,
 * and reading their bytes where they lie.
 *
 * The parser checks only what the packet says about itself.  Whether the
 * opcode suits the destination QP, the PSN, the keys and the ICRC are
 * checked later, by code that has the QP and the IP header.
 *
 * Only the headers of a received packet are linear (rxc_recv.c pulls
 * them).  A NIC may leave the rest in page fragments: a RoCE packet of a
 * 4096-byte path MTU does not fit one receive buffer of virtio-net, for
 * one.  rxc_skb_walk() reads such bytes in place, which spares each
 * packet the copy into a new, larger buffer that linearizing it costs.
 *
 * Context: any; it sleeps on nothing and touches only the packet.
 */
#include <linux/errno.h>
#include <linux/skbuff.h>
#include <kunit/visibility.h>

#include "rxc_hdr.h"
#include "rxc_net.h"
#include "transport/rxc_opcode.h"

/**
 * rxc_pkt_parse - validate a received packet and find its parts
 * @bth: the BTH, first byte of the UDP payload
 * @len: bytes from @bth to the end of the ICRC (the UDP payload length)
 * @pkt: filled in on success, untouched on error
 *
 * Reads no byte at or past @bth + @len.  The checks run in this order, and
 * the first that fails decides the error:
 *
 * Return:
 * * 0 - the packet is well formed; @pkt describes it.
 * * -EMSGSIZE - @len cannot hold a BTH and an ICRC.
 * * -EBADMSG - the transport version is not 0.
 * * -EPROTO - rxc does not know the opcode.
 * * -EBADMSG - the pad count is not 0 on an opcode that has no payload.
 * * -EMSGSIZE - @len cannot hold the opcode's headers, the padding and
 *   the ICRC.
 * * -EBADMSG - the payload and padding are not a whole number of 4-byte
 *   words, or an opcode that has no payload carries one.
 */
int rxc_pkt_parse(const u8 *bth, unsigned int len, struct rxc_pkt_info *pkt)
{
	const struct rxc_opcode_info *info;
	unsigned int padded;
	u8 pad;

	if (len < RXC_BTH_SIZE + RXC_ICRC_SIZE)
		return -EMSGSIZE;
	if (rxc_bth_tver(bth) != RXC_TVER)
		return -EBADMSG;
	info = rxc_opcode_info(rxc_bth_opcode(bth));
	if (!info)
		return -EPROTO;

	pad = rxc_bth_pad(bth);
	if (pad && !(info->mask & RXC_OPF_PAYLOAD))
		return -EBADMSG;
	if (len < info->hdr_len + pad + RXC_ICRC_SIZE)
		return -EMSGSIZE;

	/* Senders pad the payload to a whole number of 4-byte words. */
	padded = len - info->hdr_len - RXC_ICRC_SIZE;
	if (padded % 4)
		return -EBADMSG;
	if (padded && !(info->mask & RXC_OPF_PAYLOAD))
		return -EBADMSG;

	pkt->bth = bth;
	pkt->payload_len = padded - pad;
	pkt->mask = info->mask;
	pkt->opcode = rxc_bth_opcode(bth);
	pkt->hdr_len = info->hdr_len;
	pkt->pad = pad;
	memcpy(pkt->off, info->off, sizeof(pkt->off));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_pkt_parse);

/**
 * rxc_skb_walk - hand bytes of a packet to @fn, in pieces contiguous in memory
 * @skb: the packet: its head, page fragments and frag list
 * @off: the first byte, as an offset from skb->data
 * @len: bytes to walk; @skb holds them (the caller checked its length)
 * @fn: called for each piece in order, with the piece's offset from @off;
 *	a nonzero return stops the walk.  Fragments are mapped while it
 *	runs: it must not sleep.
 * @ctx: passed to @fn
 *
 * Return: 0, or what @fn returned when it stopped the walk.
 */
int rxc_skb_walk(struct sk_buff *skb, unsigned int off, unsigned int len,
		 int (*fn)(void *ctx, u32 off, const u8 *p, u32 n), void *ctx)
{
	struct skb_seq_state st;
	unsigned int done = 0, n;
	const u8 *p;
	int err = 0;

	if (!len)
		return 0;
	if (off + len <= skb_headlen(skb))
		return fn(ctx, 0, skb->data + off, len);

	skb_prepare_seq_read(skb, off, off + len, &st);
	while (done < len) {
		/* A piece may run past the range's end: clip it. */
		n = min(skb_seq_read(done, &p, &st), len - done);
		if (WARN_ON_ONCE(!n)) {
			err = -EMSGSIZE;
			break;
		}
		err = fn(ctx, done, p, n);
		if (err)
			break;
		done += n;
	}
	skb_abort_seq_read(&st);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_skb_walk);
