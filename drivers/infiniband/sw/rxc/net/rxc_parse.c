// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Parsing of received RoCEv2 packets, from the BTH to the end of the ICRC.
 *
 * The parser checks only what the packet says about itself.  Whether the
 * opcode suits the destination QP, the PSN, the keys and the ICRC are
 * checked later, by code that has the QP and the IP header.
 *
 * Context: any; it sleeps on nothing and touches only the packet.
 */
#include <linux/errno.h>
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
	pkt->payload = bth + info->hdr_len;
	pkt->payload_len = padded - pad;
	pkt->mask = info->mask;
	pkt->opcode = rxc_bth_opcode(bth);
	pkt->hdr_len = info->hdr_len;
	pkt->pad = pad;
	memcpy(pkt->off, info->off, sizeof(pkt->off));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_pkt_parse);
