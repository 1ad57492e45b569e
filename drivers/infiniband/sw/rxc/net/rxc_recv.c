// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Receiving RoCEv2 packets: from the UDP socket to a validated packet and
 * its destination QP.
 *
 * Runs in softirq context, once per UDP datagram for port 4791 (and for
 * looped-back packets, see rxc_xmit.c).  Nothing
 * in a packet is trusted: the UDP length, the ICRC (of packets from the
 * network; looped-back ones carry none), every header length and the
 * destination QP are checked before the transport sees the packet, and
 * each reason to drop one has its own counter.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>

#include "rxc.h"
#include "rxc_compat.h"
#include "rxc_hdr.h"
#include "rxc_net.h"
#include "verbs/rxc_verbs.h"

/*
 * Make the UDP header to the end of the RoCE headers linear, and check the
 * frame.  The payload may stay where the NIC put it (see rxc_parse.c).
 */
static int rxc_recv_frame(struct sk_buff *skb, unsigned int *roce_len)
{
	unsigned int udp_len;

	if (!pskb_may_pull(skb, min_t(unsigned int, skb->len,
				      sizeof(struct udphdr) + RXC_MAX_HDR_LEN)))
		return -ENOMEM;

	udp_len = ntohs(udp_hdr(skb)->len);
	if (udp_len < sizeof(struct udphdr) || udp_len > skb->len)
		return -EMSGSIZE;

	/* The ICRC code assumes an option-less IPv4 header. */
	if (skb->protocol == htons(ETH_P_IP) && ip_hdr(skb)->ihl != 5)
		return -EBADMSG;

	*roce_len = udp_len - sizeof(struct udphdr);
	return 0;
}

static bool rxc_recv_icrc_ok(struct sk_buff *skb, unsigned int roce_len)
{
	unsigned int end = sizeof(struct udphdr) + roce_len - RXC_ICRC_SIZE;
	const __le32 *icrc;
	__le32 buf;

	icrc = skb_header_pointer(skb, end, sizeof(buf), &buf);
	return icrc && rxc_icrc_skb(skb, end - skb_network_offset(skb)) ==
		       get_unaligned_le32(icrc);
}

/*
 * Validate @skb; on success @pkt describes it.  The return value selects
 * the drop counter.
 */
static int rxc_recv_check(struct sk_buff *skb, struct rxc_pkt_info *pkt,
			  bool icrc)
{
	unsigned int roce_len;
	const u8 *bth;
	int err;

	err = rxc_recv_frame(skb, &roce_len);
	if (err)
		return err;

	bth = skb->data + sizeof(struct udphdr);
	err = rxc_pkt_parse(bth, roce_len, pkt);
	if (err)
		return err;

	return !icrc || rxc_recv_icrc_ok(skb, roce_len) ? 0 : -EILSEQ;
}

static void rxc_recv_count_drop(struct rxc_dev *rxc, int err)
{
	switch (err) {
	case -EMSGSIZE:
		rxc_stat_inc(rxc, RXC_STAT_RCV_TRUNCATED);
		break;
	case -EILSEQ:
		rxc_stat_inc(rxc, RXC_STAT_RCV_ICRC_ERRORS);
		break;
	case -ENOENT:
		rxc_stat_inc(rxc, RXC_STAT_RCV_NO_QP);
		break;
	case -EPERM:
		rxc_stat_inc(rxc, RXC_STAT_RCV_WRONG_PEER);
		break;
	default:
		rxc_stat_inc(rxc, RXC_STAT_RCV_MALFORMED);
		break;
	}
}

/*
 * Hand @skb to its QP.  Holding the QP table's lock keeps the QP alive
 * until the packet is queued and the run claimed: destroy_qp unpublishes
 * the QP under that lock, then waits for a claimed run and purges the
 * queues.  It also keeps the QP's path still while the packet is checked
 * against it.  Sets *@claimed to the QP when the caller won its run
 * claim (see rxc_qp_deliver()).
 */
static int rxc_recv_deliver(struct rxc_dev *rxc, struct sk_buff *skb,
			    const struct rxc_pkt_info *pkt,
			    struct rxc_qp **claimed)
{
	struct rxc_qp *qp;
	int err = 0;

	xa_lock(&rxc->qp_xa);
	qp = xa_load(&rxc->qp_xa, rxc_bth_qpn(pkt->bth));
	if (!qp) {
		err = -ENOENT;
	} else if (!rxc_qp_from_peer(qp, skb)) {
		err = -EPERM;
	} else {
		*rxc_skb_pkt(skb) = *pkt;
		if (rxc_qp_deliver(qp, skb))
			*claimed = qp;
	}
	xa_unlock(&rxc->qp_xa);
	return err;
}

/*
 * The caller holds a reference on @rxc.  Return: the QP whose run claim
 * the caller won, or NULL.
 */
static struct rxc_qp *rxc_recv_one(struct rxc_dev *rxc, struct sk_buff *skb,
				   bool icrc)
{
	struct rxc_qp *claimed = NULL;
	struct rxc_pkt_info pkt;
	int err;

	rxc_stat_inc(rxc, RXC_STAT_RCV_PACKETS);
	err = rxc_recv_check(skb, &pkt, icrc);
	if (!err)
		err = rxc_recv_deliver(rxc, skb, &pkt, &claimed);
	if (!err)
		return claimed;
	rxc_recv_count_drop(rxc, err);
	rxc_dbg(rxc, "dropped a packet (%d)\n", err);
	kfree_skb(skb);
	return NULL;
}

/**
 * rxc_recv - take one RoCEv2 datagram from the UDP socket
 * @skb: the datagram, data at the UDP header; consumed
 */
void rxc_recv(struct sk_buff *skb)
{
	struct rxc_dev *rxc = rxc_dev_get_by_netdev(skb->dev);
	struct rxc_qp *claimed;

	/* Not for a netdev with an rxc device: nobody to count it. */
	if (!rxc) {
		kfree_skb(skb);
		return;
	}
	/* Softirq context: only a few kinds of packet are handled here. */
	claimed = rxc_recv_one(rxc, skb, true);
	if (claimed)
		rxc_qp_run_softirq(claimed);
	ib_device_put(&rxc->ib_dev);
}

/**
 * rxc_recv_local - take a packet an rxc device of this host looped back
 * @rxc: the receiving device, which the caller holds a reference on
 * @skb: the packet, data at the UDP header; consumed
 *
 * It never left the kernel, so it carries no ICRC (rxc_pkt_send() left
 * it out) and none is checked: the ICRC guards the wire, which a looped
 * back packet does not cross, and no one else can see it.  Everything
 * else is checked as for a packet from the network.
 *
 * Called from a run, which may win the destination QP's run claim and
 * then runs that QP nested in its own.  The packet is delivered with
 * bottom halves disabled, as one from the network is; the nested run
 * starts once they are enabled again, like every run.
 */
void rxc_recv_local(struct rxc_dev *rxc, struct sk_buff *skb)
{
	struct rxc_qp *claimed;

	local_bh_disable();
	claimed = rxc_recv_one(rxc, skb, false);
	local_bh_enable();
	/* The claim keeps the QP alive, the caller's reference the device. */
	if (claimed)
		rxc_qp_run_claimed(claimed);
}
