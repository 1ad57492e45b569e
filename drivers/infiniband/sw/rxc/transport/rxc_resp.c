// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The responder: executes the peer's requests and answers them.
 *
 * RC requests are taken strictly in PSN order.  A request ahead of the
 * expected PSN is NAKed once per gap; one behind it is a duplicate, which
 * is acknowledged again (sends, writes), re-executed (reads: they only
 * read memory) or answered from the saved result (atomics: executing one
 * twice would be wrong).  UC drops what breaks the sequence; UD checks the
 * Q_Key and places the GRH before the payload.
 *
 * Every field of a request comes from the wire: keys, addresses and
 * lengths are checked against the memory region before anything is
 * placed, and a payload that does not fit fails the message.
 *
 * Runs in the QP task only (rxc_task.c).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <kunit/visibility.h>
#include <rdma/ib_mad.h>

#include "rxc.h"
#include "rxc_opcode.h"
#include "rxc_transport.h"
#include "verbs/rxc_verbs.h"

/* AETH syndromes: ACK with "credits unlimited", RNR NAK, NAKs. */
#define RXC_SYN_ACK		0x1f
#define RXC_SYN_RNR_NAK		0x20
#define RXC_SYN_NAK		0x60
#define RXC_NAK_PSN_SEQ		0
#define RXC_NAK_INVALID_REQ	1
#define RXC_NAK_REMOTE_ACCESS	2
#define RXC_NAK_REMOTE_OP	3
/* Ask for no more than this many packets between two ACKs. */
#define RXC_ACK_INTERVAL	64
/*
 * An ACK that a packet of a multi-packet message asked for goes out at
 * once, not when the run's batch ends, if this many packets wait for it:
 * a requester streaming long messages asks every 32 packets or at each
 * message's end, and its window, full, waits on the answer.  Single-packet
 * messages, each of which asks, share one ACK per batch as before: they
 * come in numbers, and the ACKs would cost a loopback stream of them a
 * fifth of its rate.
 */
#define RXC_ACK_NOW		16
#define RXC_GRH_SIZE		40

/* What executing one request packet calls for. */
enum rxc_resp_res {
	RXC_RESP_OK,		/* accepted: the expected PSN moves on */
	RXC_RESP_READ,		/* a read was started (it moved the PSN) */
	RXC_RESP_RNR,		/* no receive WQE: RNR NAK, try again later */
	RXC_RESP_DROP,		/* ignore the packet */
	RXC_RESP_NAK_INV,	/* fatal NAKs: the QP goes to ERR */
	RXC_RESP_NAK_ACCESS,
	RXC_RESP_NAK_OP,
};

static struct rxc_dev *rxc_qp_dev(const struct rxc_qp *qp)
{
	return to_rdev(qp->ibqp.device);
}

/* Build and send an RC response packet with @len payload bytes. */
static struct sk_buff *rxc_resp_new(struct rxc_qp *qp, u8 opcode, u32 psn,
				    u32 len, u8 **payload)
{
	const struct rxc_opcode_info *info = rxc_opcode_info(opcode);
	struct sk_buff *skb;
	u8 pad = -len & 3;
	u8 *bth;

	skb = rxc_pkt_new(rxc_qp_dev(qp), &qp->av, info->hdr_len + len + pad);
	if (!skb)
		return NULL;
	bth = skb->data;
	rxc_bth_init(bth, opcode, false, pad, RXC_DEFAULT_PKEY,
		     qp->attr.dest_qp_num, false, psn);
	memset(bth + info->hdr_len + len, 0, pad);
	*payload = bth + info->hdr_len;
	return skb;
}

static void rxc_resp_set_aeth(struct rxc_qp *qp, struct sk_buff *skb,
			      u8 syndrome)
{
	u8 *aeth = skb->data + rxc_opcode_info(skb->data[0])->off[RXC_HDR_AETH];

	rxc_aeth_set_syndrome(aeth, syndrome);
	rxc_aeth_set_msn(aeth, qp->resp.msn);
}

static void rxc_resp_send_aeth(struct rxc_qp *qp, u8 syndrome, u32 psn)
{
	struct sk_buff *skb;
	u8 *payload;

	skb = rxc_resp_new(qp, RXC_OPCODE(RC, ACK), psn, 0, &payload);
	if (!skb)
		return;
	rxc_resp_set_aeth(qp, skb, syndrome);
	rxc_qp_send_pkt(qp, &qp->av, skb, NULL);
}

/* Send the coalesced ACK, if one is due. */
void rxc_resp_flush_ack(struct rxc_qp *qp)
{
	if (!qp->resp.ack_pending)
		return;
	qp->resp.ack_pending = false;
	qp->resp.unacked = 0;
	rxc_resp_send_aeth(qp, RXC_SYN_ACK,
			   rxc_psn_add(qp->resp.psn, RXC_PSN_MASK));
}

/*
 * Entering RTR: expect rq_psn.  A QP reused after RESET counts its
 * messages from zero again, as a new one would: its peer is new too.
 */
void rxc_resp_start(struct rxc_qp *qp)
{
	qp->resp.psn = qp->attr.rq_psn;
	qp->resp.msn = 0;
	qp->resp.nak_sent = false;
	qp->resp.ack_pending = false;
	qp->resp.unacked = 0;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_resp_start);

static void rxc_srq_limit_event(struct rxc_srq *srq)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

/* Copy the oldest receive WQE of @q out and retire it from the ring. */
static bool rxc_resp_pop_rwqe(struct rxc_qp *qp, struct rxc_queue *q,
			      u32 max_sge)
{
	struct rxc_rwqe *r = &qp->resp.rwqe;
	struct rxe_recv_wqe *wqe = rxc_queue_head(q);
	u32 i;

	if (!wqe)
		return false;
	r->wr_id = wqe->wr_id;
	r->sge = qp->resp.sge;
	r->num_sge = min(READ_ONCE(wqe->dma.num_sge), max_sge);
	memcpy(r->sge, wqe->dma.sge, r->num_sge * sizeof(*r->sge));
	rxc_queue_pop(q);

	/* Checked on the copy: user space may rewrite the ring. */
	r->length = 0;
	for (i = 0; i < r->num_sge; i++) {
		if (check_add_overflow(r->length, r->sge[i].length,
				       &r->length))
			r->length = U32_MAX;
	}
	return true;
}

/* Make sure a receive WQE is at hand for the current message. */
static bool rxc_resp_get_rwqe(struct rxc_qp *qp)
{
	struct rxc_srq *srq = qp->srq;
	unsigned long flags;
	bool limit = false;

	if (qp->resp.has_rwqe)
		return true;
	if (!srq) {
		spin_lock_irqsave(&qp->rq.lock, flags);
		qp->resp.has_rwqe = rxc_resp_pop_rwqe(qp, &qp->rq.q,
						      qp->rq.max_sge);
		spin_unlock_irqrestore(&qp->rq.lock, flags);
		return qp->resp.has_rwqe;
	}

	spin_lock_irqsave(&srq->lock, flags);
	qp->resp.has_rwqe = rxc_resp_pop_rwqe(qp, &srq->q, srq->max_sge);
	if (srq->limit && rxc_queue_count(&srq->q) < srq->limit) {
		srq->limit = 0;		/* one event per arming */
		limit = true;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (limit)
		rxc_srq_limit_event(srq);
	return qp->resp.has_rwqe;
}

/* Retire the receive WQE of the current message with @c. */
static void rxc_resp_complete(struct rxc_qp *qp, struct rxc_completion *c)
{
	c->wr_id = qp->resp.rwqe.wr_id;
	c->recv = true;
	c->signaled = true;
	qp->resp.has_rwqe = false;
	rxc_complete_wr(qp, c);
}

static void rxc_resp_fail_rwqe(struct rxc_qp *qp, enum ib_wc_status status)
{
	struct rxc_completion c = { .status = status, .opcode = IB_WC_RECV };

	if (qp->resp.has_rwqe)
		rxc_resp_complete(qp, &c);
}

/* The QP is going to ERR: the message being received is flushed. */
void rxc_resp_flush_rwqe(struct rxc_qp *qp)
{
	rxc_resp_fail_rwqe(qp, IB_WC_WR_FLUSH_ERR);
}

/*
 * The PD that the receive WQE's lkeys belong to: the SRQ's when it came
 * from one, which need not be the QP's.
 */
static struct ib_pd *rxc_resp_rwqe_pd(const struct rxc_qp *qp)
{
	return qp->srq ? qp->srq->ibsrq.pd : qp->ibqp.pd;
}

/*
 * Whether @n bytes fit at @off of the receive WQE.  A receive too small
 * fails the WQE.
 */
static enum rxc_resp_res rxc_resp_recv_room(struct rxc_qp *qp, u32 off,
					    u32 n)
{
	u32 len = qp->resp.rwqe.length;

	if (n <= len && off <= len - n)
		return RXC_RESP_OK;
	rxc_resp_fail_rwqe(qp, IB_WC_LOC_LEN_ERR);
	return RXC_RESP_NAK_INV;
}

/* The outcome of a copy into the receive WQE: a refused one fails it. */
static enum rxc_resp_res rxc_resp_recv_copied(struct rxc_qp *qp, int err)
{
	if (!err)
		return RXC_RESP_OK;
	rxc_resp_fail_rwqe(qp, IB_WC_LOC_PROT_ERR);
	return RXC_RESP_NAK_OP;
}

/* Place a UD receive's GRH at the start of the receive WQE. */
static enum rxc_resp_res rxc_resp_place_grh(struct rxc_qp *qp, u8 *grh)
{
	struct rxc_rwqe *r = &qp->resp.rwqe;
	enum rxc_resp_res res;
	int err;

	res = rxc_resp_recv_room(qp, 0, RXC_GRH_SIZE);
	if (res != RXC_RESP_OK)
		return res;
	err = rxc_sgl_copy(rxc_qp_dev(qp), rxc_resp_rwqe_pd(qp), r->sge,
			   r->num_sge, 0, grh, RXC_GRH_SIZE, RXC_COPY_TO_MR);
	return rxc_resp_recv_copied(qp, err);
}

/* Place @pkt's payload at @off of the receive WQE. */
static enum rxc_resp_res rxc_resp_place_payload(struct rxc_qp *qp, u32 off,
						const struct rxc_pkt_info *pkt)
{
	struct rxc_rwqe *r = &qp->resp.rwqe;
	enum rxc_resp_res res;
	int err;

	res = rxc_resp_recv_room(qp, off, pkt->payload_len);
	if (res != RXC_RESP_OK)
		return res;
	err = rxc_sgl_copy_pkt(rxc_qp_dev(qp), rxc_resp_rwqe_pd(qp), r->sge,
			       r->num_sge, off, pkt);
	return rxc_resp_recv_copied(qp, err);
}

/*
 * The completion of a receive WQE filled by the message that ends here.
 * A send with invalidate whose rkey names no window this QP may
 * invalidate is an invalid request: its receive fails and the sender is
 * NAKed, rather than the receive reporting an invalidation that did not
 * happen.
 */
static enum rxc_resp_res rxc_resp_recv_done(struct rxc_qp *qp,
					    const struct rxc_pkt_info *pkt,
					    enum ib_wc_opcode opcode,
					    u32 byte_len)
{
	struct rxc_completion c = {
		.status = IB_WC_SUCCESS,
		.opcode = opcode,
		.byte_len = byte_len,
		.solicited = rxc_bth_se(pkt->bth),
	};

	if (pkt->off[RXC_HDR_IMMDT]) {
		c.wc_flags |= IB_WC_WITH_IMM;
		c.ex = (__force u32)rxc_immdt_imm(rxc_pkt_hdr(pkt,
							       RXC_HDR_IMMDT));
	} else if (pkt->off[RXC_HDR_IETH]) {
		/* Type 2 windows bound through this QP are invalidatable. */
		c.wc_flags |= IB_WC_WITH_INVALIDATE;
		c.ex = rxc_ieth_rkey(rxc_pkt_hdr(pkt, RXC_HDR_IETH));
		if (rxc_mw_invalidate(qp, c.ex) != IB_WC_SUCCESS) {
			rxc_dbg_qp(qp, "send with invalidate of rkey %#x\n",
				   c.ex);
			rxc_resp_fail_rwqe(qp, IB_WC_REM_INV_REQ_ERR);
			return RXC_RESP_NAK_INV;
		}
	}
	rxc_resp_complete(qp, &c);
	return RXC_RESP_OK;
}

static enum rxc_resp_res rxc_resp_send(struct rxc_qp *qp,
				       const struct rxc_pkt_info *pkt)
{
	struct rxc_resp *resp = &qp->resp;
	enum rxc_resp_res res;

	if (pkt->mask & RXC_OPF_FIRST) {
		if (!rxc_resp_get_rwqe(qp))
			return RXC_RESP_RNR;
		resp->offset = 0;
	}
	res = rxc_resp_place_payload(qp, resp->offset, pkt);
	if (res != RXC_RESP_OK)
		return res;
	resp->offset += pkt->payload_len;
	if (pkt->mask & RXC_OPF_LAST)
		return rxc_resp_recv_done(qp, pkt, IB_WC_RECV, resp->offset);
	return RXC_RESP_OK;
}

/* Check the region an RETH or AtomicETH names; 0-byte accesses need none. */
static bool rxc_resp_access_ok(struct rxc_qp *qp, u32 rkey, u64 va, u32 len,
			       int access)
{
	struct rxc_mr *mr;

	if (!len)
		return true;
	mr = rxc_mr_get_remote(qp, rkey, access, va, len);
	if (!mr) {
		rxc_stat_inc(rxc_qp_dev(qp), RXC_STAT_REMOTE_ACCESS_ERRORS);
		rxc_dbg_qp(qp, "rkey %#x does not grant %#x on %#llx+%u\n",
			   rkey, access, va, len);
		return false;
	}
	rxc_mr_put(mr);
	return true;
}

/*
 * A RETH longer than max_msg_sz is an invalid request, whatever the
 * region: at a 256-byte MTU a read of 4 GiB - 1 would move the PSN by
 * 2^24, that is, not at all.
 */
static bool rxc_resp_len_ok(struct rxc_qp *qp, u32 len)
{
	if (len <= RXC_MAX_MSG_SIZE)
		return true;
	rxc_dbg_qp(qp, "RETH length %u > max_msg_sz\n", len);
	return false;
}

/* Copy a read response's @n bytes from the region @rkey names at @va. */
static bool rxc_resp_read_payload(struct rxc_qp *qp, u32 rkey, u64 va,
				  void *buf, u32 n)
{
	struct rxc_mr *mr;

	if (!n)
		return true;
	mr = rxc_mr_get_remote(qp, rkey, IB_ACCESS_REMOTE_READ, va, n);
	if (!mr)
		return false;
	rxc_mr_copy(mr, va, buf, n, RXC_COPY_FROM_MR);
	rxc_mr_put(mr);
	return true;
}

/*
 * A write refused for its key or range.  On RC, with immediate data in
 * the same packet, the receive WQE it consumes completes with a local
 * access error, the responder's status for it (ibv_poll_cq(3)), instead
 * of being flushed as if the message had never come.  UC drops the
 * message and consumes nothing.
 */
static enum rxc_resp_res rxc_resp_write_denied(struct rxc_qp *qp,
					       const struct rxc_pkt_info *pkt)
{
	if (qp->ibqp.qp_type == IB_QPT_RC &&
	    (pkt->mask & RXC_OPF_RECV_WQE) && rxc_resp_get_rwqe(qp))
		rxc_resp_fail_rwqe(qp, IB_WC_LOC_ACCESS_ERR);
	return RXC_RESP_NAK_ACCESS;
}

/* Where rxc_resp_write_piece() puts a write's payload. */
struct rxc_resp_dest {
	struct rxc_mr *mr;
	u64 va;
};

static int rxc_resp_write_piece(void *ctx, u32 off, const u8 *p, u32 n)
{
	const struct rxc_resp_dest *d = ctx;

	rxc_mr_copy(d->mr, d->va + off, (void *)p, n, RXC_COPY_TO_MR);
	return 0;
}

/*
 * Place a write packet's payload at @va of the region @rkey names.  The
 * region is looked up and its range checked once for the whole packet,
 * however many pieces the payload arrived in, so a refused packet
 * changes no byte.
 */
static bool rxc_resp_write_payload(struct rxc_qp *qp, u32 rkey, u64 va,
				   const struct rxc_pkt_info *pkt)
{
	struct rxc_resp_dest dest = { .va = va };

	if (!pkt->payload_len)
		return true;
	dest.mr = rxc_mr_get_remote(qp, rkey, IB_ACCESS_REMOTE_WRITE, va,
				    pkt->payload_len);
	if (!dest.mr)
		return false;
	rxc_pkt_payload_walk(pkt, rxc_resp_write_piece, &dest);
	rxc_mr_put(dest.mr);
	return true;
}

static enum rxc_resp_res rxc_resp_write(struct rxc_qp *qp,
					const struct rxc_pkt_info *pkt)
{
	struct rxc_resp *resp = &qp->resp;
	u32 n = pkt->payload_len;
	const u8 *reth;

	/*
	 * With immediate data, the last packet consumes a receive WQE.  The
	 * responder looks for it before it checks the R_Key, as rdma_rxe
	 * does: a WRITE_ONLY_WITH_IMMEDIATE that finds no receive is RNR
	 * NAKed and comes again, whatever its key.
	 */
	if ((pkt->mask & RXC_OPF_RECV_WQE) && !rxc_resp_get_rwqe(qp))
		return RXC_RESP_RNR;
	if (pkt->mask & RXC_OPF_FIRST) {
		reth = rxc_pkt_hdr(pkt, RXC_HDR_RETH);
		resp->va = rxc_reth_va(reth);
		resp->rkey = rxc_reth_rkey(reth);
		resp->resid = rxc_reth_len(reth);
		resp->write_len = resp->resid;
		if (!rxc_resp_len_ok(qp, resp->resid))
			return RXC_RESP_NAK_INV;
		if (!rxc_resp_access_ok(qp, resp->rkey, resp->va, resp->resid,
					IB_ACCESS_REMOTE_WRITE))
			return rxc_resp_write_denied(qp, pkt);
	}
	if (n > resp->resid ||
	    ((pkt->mask & RXC_OPF_LAST) && n != resp->resid))
		return RXC_RESP_NAK_INV;
	if (!rxc_resp_write_payload(qp, resp->rkey, resp->va, pkt))
		return rxc_resp_write_denied(qp, pkt);
	resp->va += n;
	resp->resid -= n;
	if (!(pkt->mask & RXC_OPF_LAST))
		return RXC_RESP_OK;
	if (pkt->mask & RXC_OPF_RECV_WQE)
		rxc_resp_recv_done(qp, pkt, IB_WC_RECV_RDMA_WITH_IMM,
				   resp->write_len);
	rxc_cntr_remote(qp, IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE,
			resp->write_len, true);
	return RXC_RESP_OK;
}

/* A read occupies one PSN per response packet, and at least one. */
static u32 rxc_read_npsns(const struct rxc_qp *qp, u32 len)
{
	return max(DIV_ROUND_UP(len, rxc_qp_mtu(qp)), 1U);
}

/**
 * rxc_resp_restarts_read - does @pkt ask again for the read being answered?
 * @qp: the responder QP, in its task
 * @pkt: a request queued behind that read
 *
 * The requester asks for the rest of a read again, from the first
 * response it misses, when it sees a gap in the responses (or probes).
 * Its last PSN is that of the read being answered, and its first lies
 * behind the expected PSN: a duplicate.  IBA lets the responder abandon
 * the response in progress for it and answer from the PSN it asks for.
 * Waiting instead until the read has been answered to its end sends
 * every response after the gap, which the requester drops, and each
 * request queued behind it then restarts the read from a PSN the
 * requester may have passed since: with losses, a 1 MiB read was seen
 * answered many times over and hardly moving.
 *
 * Return: true if @pkt should be taken now, ahead of the requests
 * before it, and replace the read being answered.
 */
bool rxc_resp_restarts_read(const struct rxc_qp *qp,
			    const struct rxc_pkt_info *pkt)
{
	const struct rxc_read *rd = &qp->resp.rd;
	u32 psn = rxc_bth_psn(pkt->bth);
	const u8 *reth = rxc_pkt_hdr(pkt, RXC_HDR_RETH);
	u32 end, asked_end;

	if (!rd->active || qp->ibqp.qp_type != IB_QPT_RC ||
	    (pkt->mask & (RXC_OPF_REQ | RXC_OPF_READ)) !=
	    (RXC_OPF_REQ | RXC_OPF_READ) || !reth ||
	    rxc_psn_diff(psn, qp->resp.psn) >= 0)
		return false;
	end = rxc_psn_add(rd->psn, rxc_read_npsns(qp, rd->resid) - 1);
	asked_end = rxc_psn_add(psn,
				rxc_read_npsns(qp, rxc_reth_len(reth)) - 1);
	return asked_end == end;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_resp_restarts_read);

/*
 * Start answering a read request at @psn.  A duplicate is answered again
 * but not counted again.
 */
static enum rxc_resp_res rxc_resp_read(struct rxc_qp *qp,
				       const struct rxc_pkt_info *pkt, u32 psn,
				       bool dup)
{
	const u8 *reth = rxc_pkt_hdr(pkt, RXC_HDR_RETH);
	struct rxc_read *rd = &qp->resp.rd;

	/*
	 * A duplicate that restarts the read being answered
	 * (rxc_resp_restarts_read()) takes over its count: the first answer
	 * will not reach its last response.
	 */
	rd->count = !dup || (rd->active && rd->count);
	rd->va = rxc_reth_va(reth);
	rd->rkey = rxc_reth_rkey(reth);
	rd->resid = rxc_reth_len(reth);
	rd->len = rd->resid;
	if (!rxc_resp_len_ok(qp, rd->resid))
		return RXC_RESP_NAK_INV;
	if (!rxc_resp_access_ok(qp, rd->rkey, rd->va, rd->resid,
				IB_ACCESS_REMOTE_READ))
		return RXC_RESP_NAK_ACCESS;
	/* Responses acknowledge what precedes them: ACK that first. */
	rxc_resp_flush_ack(qp);
	rd->psn = psn;
	rd->first = true;
	rd->active = true;
	return RXC_RESP_READ;
}

static void rxc_resp_send_atomic_ack(struct rxc_qp *qp, u32 psn, u64 orig)
{
	struct sk_buff *skb;
	u8 *payload;

	rxc_resp_flush_ack(qp);
	skb = rxc_resp_new(qp, RXC_OPCODE(RC, ATOMIC_ACK), psn, 0, &payload);
	if (!skb)
		return;
	rxc_resp_set_aeth(qp, skb, RXC_SYN_ACK);
	rxc_atmack_set_orig(skb->data +
			    rxc_opcode_info(skb->data[0])->off[RXC_HDR_ATMACK],
			    orig);
	rxc_qp_send_pkt(qp, &qp->av, skb, NULL);
}

static void rxc_resp_save_atomic(struct rxc_qp *qp, u32 psn, u64 orig)
{
	struct rxc_resp *resp = &qp->resp;
	struct rxc_atomic_res *a = &resp->atomics[resp->atomic_next];

	resp->atomic_next = (resp->atomic_next + 1) % resp->atomic_slots;
	a->psn = psn;
	a->orig = orig;
	a->valid = true;
}

/* Compare-and-swap or fetch-and-add on an aligned, mapped word. */
static u64 rxc_resp_do_atomic(u64 *word, u8 opcode, const u8 *atmeth)
{
	u64 swap_add = rxc_atmeth_swap_add(atmeth);

	if (opcode == RXC_OPCODE(RC, COMPARE_SWAP))
		return cmpxchg64(word, rxc_atmeth_compare(atmeth), swap_add);
	return atomic64_fetch_add(swap_add, (atomic64_t *)word);
}

static enum rxc_resp_res rxc_resp_atomic(struct rxc_qp *qp,
					 const struct rxc_pkt_info *pkt,
					 u32 psn)
{
	const u8 *atmeth = rxc_pkt_hdr(pkt, RXC_HDR_ATMETH);
	u64 va = rxc_atmeth_va(atmeth), orig, *word;
	struct rxc_mr *mr;

	if (va & (sizeof(u64) - 1))
		return RXC_RESP_NAK_INV;
	mr = rxc_mr_get_remote(qp, rxc_atmeth_rkey(atmeth),
			       IB_ACCESS_REMOTE_ATOMIC, va, sizeof(u64));
	if (!mr) {
		rxc_stat_inc(rxc_qp_dev(qp), RXC_STAT_REMOTE_ACCESS_ERRORS);
		return RXC_RESP_NAK_ACCESS;
	}
	word = rxc_mr_map_u64(mr, va);
	orig = rxc_resp_do_atomic(word, pkt->opcode, atmeth);
	rxc_mr_unmap_u64(mr, word);
	rxc_mr_put(mr);

	rxc_resp_save_atomic(qp, psn, orig);
	rxc_resp_send_atomic_ack(qp, psn, orig);
	rxc_cntr_remote(qp, IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE,
			sizeof(u64), true);
	return RXC_RESP_OK;
}

/* ATOMIC_WRITE: 8 bytes stored at once, visible whole or not at all. */
static enum rxc_resp_res rxc_resp_atomic_write(struct rxc_qp *qp,
					       const struct rxc_pkt_info *pkt)
{
	const u8 *reth = rxc_pkt_hdr(pkt, RXC_HDR_RETH);
	u64 va = rxc_reth_va(reth), *word, val;
	struct rxc_mr *mr;

	if ((va & (sizeof(u64) - 1)) || rxc_reth_len(reth) != sizeof(u64) ||
	    pkt->payload_len != sizeof(u64) ||
	    skb_copy_bits(rxc_pkt_skb(pkt), rxc_pkt_payload_off(pkt), &val,
			  sizeof(val)))
		return RXC_RESP_NAK_INV;
	mr = rxc_mr_get_remote(qp, rxc_reth_rkey(reth), IB_ACCESS_REMOTE_WRITE,
			       va, sizeof(u64));
	if (!mr) {
		rxc_stat_inc(rxc_qp_dev(qp), RXC_STAT_REMOTE_ACCESS_ERRORS);
		return RXC_RESP_NAK_ACCESS;
	}
	word = rxc_mr_map_u64(mr, va);
	/* Writes placed before it are visible to whoever sees this word. */
	smp_store_release(word, val);
	rxc_mr_unmap_u64(mr, word);
	rxc_mr_put(mr);
	rxc_cntr_remote(qp, IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE,
			sizeof(u64), true);
	return RXC_RESP_OK;
}

/*
 * Packets of a multi-packet message must follow each other: FIRST, then
 * MIDDLEs of full MTU size, then LAST, all of the same operation.
 */
static bool rxc_resp_in_sequence(struct rxc_qp *qp,
				 const struct rxc_pkt_info *pkt)
{
	u32 op = pkt->mask & RXC_OPF_OPERATION;
	bool first = pkt->mask & RXC_OPF_FIRST;
	bool last = pkt->mask & RXC_OPF_LAST;

	if (qp->resp.in_msg != !first)
		return false;
	if (qp->resp.in_msg && op != qp->resp.msg_op)
		return false;
	return last || pkt->payload_len == rxc_qp_mtu(qp);
}

/* The QP's own access flags must enable remote operations (IBA 10.2.4). */
static bool rxc_resp_qp_allows(const struct rxc_qp *qp, u32 mask)
{
	int need = 0;

	if (mask & (RXC_OPF_WRITE | RXC_OPF_ATOMIC_WRITE))
		need = IB_ACCESS_REMOTE_WRITE;
	else if (mask & RXC_OPF_READ)
		need = IB_ACCESS_REMOTE_READ;
	else if (mask & RXC_OPF_ATOMIC)
		need = IB_ACCESS_REMOTE_ATOMIC;
	return (qp->attr.qp_access_flags & need) == need;
}

static enum rxc_resp_res rxc_resp_execute(struct rxc_qp *qp,
					  const struct rxc_pkt_info *pkt,
					  u32 psn)
{
	u32 mask = pkt->mask;

	if (!rxc_resp_in_sequence(qp, pkt) || !rxc_resp_qp_allows(qp, mask))
		return RXC_RESP_NAK_INV;
	/* Reads and atomics need responder resources; none were granted. */
	if ((mask & (RXC_OPF_READ | RXC_OPF_ATOMIC)) &&
	    !READ_ONCE(qp->attr.max_dest_rd_atomic))
		return RXC_RESP_NAK_INV;
	if (mask & RXC_OPF_SEND)
		return rxc_resp_send(qp, pkt);
	if (mask & RXC_OPF_WRITE)
		return rxc_resp_write(qp, pkt);
	if (mask & RXC_OPF_READ)
		return rxc_resp_read(qp, pkt, psn, false);
	if (mask & RXC_OPF_ATOMIC)
		return rxc_resp_atomic(qp, pkt, psn);
	return rxc_resp_atomic_write(qp, pkt);
}

/*
 * A fatal NAK: the peer learns why from its code, this QP's owner from the
 * event, and the QP goes to ERR.
 */
static void rxc_resp_nak(struct rxc_qp *qp, u32 psn, enum rxc_resp_res res)
{
	static const u8 code[] = {
		[RXC_RESP_NAK_INV] = RXC_NAK_INVALID_REQ,
		[RXC_RESP_NAK_ACCESS] = RXC_NAK_REMOTE_ACCESS,
		[RXC_RESP_NAK_OP] = RXC_NAK_REMOTE_OP,
	};
	static const enum ib_event_type event[] = {
		[RXC_RESP_NAK_INV] = IB_EVENT_QP_REQ_ERR,
		[RXC_RESP_NAK_ACCESS] = IB_EVENT_QP_ACCESS_ERR,
		[RXC_RESP_NAK_OP] = IB_EVENT_QP_FATAL,
	};

	rxc_dbg_qp(qp, "NAK %u for PSN %#x\n", code[res], psn);
	if (qp->ibqp.qp_type == IB_QPT_RC) {
		rxc_resp_flush_ack(qp);
		rxc_resp_send_aeth(qp, RXC_SYN_NAK | code[res], psn);
	}
	rxc_qp_fatal(qp, event[res]);
}

/* A request behind the expected PSN, already executed once. */
static void rxc_resp_duplicate(struct rxc_qp *qp,
			       const struct rxc_pkt_info *pkt, u32 psn)
{
	enum rxc_resp_res res;
	struct rxc_atomic_res *a;
	u32 i;

	rxc_stat_inc(rxc_qp_dev(qp), RXC_STAT_RCV_DUPLICATES);
	if (pkt->mask & RXC_OPF_READ) {
		/* The region may be gone since the first time: say so. */
		res = rxc_resp_read(qp, pkt, psn, true);
		if (res != RXC_RESP_READ)
			rxc_resp_nak(qp, psn, res);
		return;
	}
	if (pkt->mask & RXC_OPF_ATOMIC) {
		for (i = 0; i < qp->resp.atomic_slots; i++) {
			a = &qp->resp.atomics[i];
			if (a->valid && a->psn == psn) {
				rxc_resp_send_atomic_ack(qp, psn, a->orig);
				return;
			}
		}
		return;		/* too old to answer: the requester retries */
	}
	qp->resp.ack_pending = true;
}

/* Account for an accepted packet; coalesce the ACKs it asks for. */
static void rxc_resp_accept(struct rxc_qp *qp, const struct rxc_pkt_info *pkt,
			    enum rxc_resp_res res)
{
	struct rxc_resp *resp = &qp->resp;
	u32 last = pkt->mask & RXC_OPF_LAST;

	resp->in_msg = !last;
	resp->msg_op = pkt->mask & RXC_OPF_OPERATION;
	if (last)
		resp->msn = rxc_psn_add(resp->msn, 1);
	if (res == RXC_RESP_READ) {
		resp->psn = rxc_psn_add(resp->psn,
					rxc_read_npsns(qp, resp->rd.resid));
		return;
	}
	resp->psn = rxc_psn_add(resp->psn, 1);
	if (qp->ibqp.qp_type != IB_QPT_RC || (pkt->mask & RXC_OPF_ATOMIC))
		return;
	resp->unacked++;
	if (rxc_bth_ackreq(pkt->bth) || resp->unacked >= RXC_ACK_INTERVAL)
		resp->ack_pending = true;
	if (resp->ack_pending && resp->unacked >= RXC_ACK_NOW &&
	    (pkt->mask & RXC_OPF_ONLY) != RXC_OPF_ONLY)
		rxc_resp_flush_ack(qp);
}

/* A remote operation that failed counts as an error on its counter. */
static void rxc_resp_count_error(struct rxc_qp *qp, u32 mask)
{
	if (mask & RXC_OPF_READ)
		rxc_cntr_remote(qp,
				IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ,
				0, false);
	else if (mask & (RXC_OPF_WRITE | RXC_OPF_ATOMIC |
			 RXC_OPF_ATOMIC_WRITE))
		rxc_cntr_remote(qp,
				IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE,
				0, false);
}

static void rxc_resp_rnr(struct rxc_qp *qp, u32 psn)
{
	rxc_stat_inc(rxc_qp_dev(qp), RXC_STAT_RNR_NAKS_SENT);
	if (qp->ibqp.qp_type != IB_QPT_RC)
		return;		/* UC: the message is lost */
	rxc_resp_flush_ack(qp);
	rxc_resp_send_aeth(qp, RXC_SYN_RNR_NAK |
			   (qp->attr.min_rnr_timer & 0x1f), psn);
}

/* Where @psn stands against the expected PSN; false to drop the packet. */
static bool rxc_resp_check_psn(struct rxc_qp *qp,
			       const struct rxc_pkt_info *pkt, u32 psn)
{
	struct rxc_resp *resp = &qp->resp;
	s32 d = rxc_psn_diff(psn, resp->psn);

	if (qp->ibqp.qp_type == IB_QPT_UC) {
		/* Lost packets lose their message; a new one may start. */
		if (d) {
			resp->in_msg = false;
			resp->psn = psn;
		}
		return true;
	}
	if (d > 0) {
		rxc_stat_inc(rxc_qp_dev(qp), RXC_STAT_RCV_SEQ_ERRORS);
		if (!resp->nak_sent) {
			rxc_resp_flush_ack(qp);
			rxc_resp_send_aeth(qp, RXC_SYN_NAK | RXC_NAK_PSN_SEQ,
					   resp->psn);
			resp->nak_sent = true;
		}
		return false;
	}
	if (d < 0) {
		rxc_resp_duplicate(qp, pkt, psn);
		return false;
	}
	resp->nak_sent = false;
	return true;
}

static void rxc_resp_connected(struct rxc_qp *qp,
			       const struct rxc_pkt_info *pkt)
{
	u32 psn = rxc_bth_psn(pkt->bth);
	enum rxc_resp_res res;

	if (!rxc_resp_check_psn(qp, pkt, psn))
		return;
	res = rxc_resp_execute(qp, pkt, psn);
	switch (res) {
	case RXC_RESP_OK:
	case RXC_RESP_READ:
		rxc_resp_accept(qp, pkt, res);
		break;
	case RXC_RESP_RNR:
		rxc_resp_rnr(qp, psn);
		break;
	case RXC_RESP_DROP:
		break;
	default:
		if (qp->ibqp.qp_type == IB_QPT_UC) {
			/* UC has no NAK: the message is dropped. */
			qp->resp.in_msg = false;
			break;
		}
		rxc_resp_count_error(qp, pkt->mask);
		rxc_resp_nak(qp, psn, res);
		break;
	}
}

/* The 40-byte GRH verbs puts before a UD payload, from the IP header. */
static void rxc_resp_grh(struct sk_buff *skb, u8 *grh, u8 *net_type)
{
	memset(grh, 0, RXC_GRH_SIZE);
	if (skb->protocol == htons(ETH_P_IP)) {
		/* IPv4: the header sits in the last 20 bytes (RoCEv2). */
		memcpy(grh + RXC_GRH_SIZE - sizeof(struct iphdr), ip_hdr(skb),
		       sizeof(struct iphdr));
		*net_type = RDMA_NETWORK_IPV4;
	} else {
		memcpy(grh, ipv6_hdr(skb), sizeof(struct ipv6hdr));
		*net_type = RDMA_NETWORK_IPV6;
	}
}

static void rxc_resp_ud(struct rxc_qp *qp, struct sk_buff *skb)
{
	const struct rxc_pkt_info *pkt = rxc_skb_pkt(skb);
	const u8 *deth = rxc_pkt_hdr(pkt, RXC_HDR_DETH);
	u32 qkey = qp->ibqp.qp_type == IB_QPT_GSI ? IB_QP1_QKEY :
						     qp->attr.qkey;
	struct rxc_completion c = { .opcode = IB_WC_RECV };
	u8 grh[RXC_GRH_SIZE];

	if (rxc_deth_qkey(deth) != qkey || !rxc_resp_get_rwqe(qp)) {
		rxc_stat_inc(rxc_qp_dev(qp), RXC_STAT_RCV_QP_DROPPED);
		return;
	}
	rxc_resp_grh(skb, grh, &c.network_hdr_type);
	if (rxc_resp_place_grh(qp, grh) != RXC_RESP_OK ||
	    rxc_resp_place_payload(qp, sizeof(grh), pkt) != RXC_RESP_OK)
		return;		/* the WQE completed in error */

	c.status = IB_WC_SUCCESS;
	c.byte_len = sizeof(grh) + pkt->payload_len;
	c.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
	c.src_qp = rxc_deth_sqpn(deth);
	c.solicited = rxc_bth_se(pkt->bth);
	if (pkt->off[RXC_HDR_IMMDT]) {
		c.wc_flags |= IB_WC_WITH_IMM;
		c.ex = (__force u32)rxc_immdt_imm(rxc_pkt_hdr(pkt,
							       RXC_HDR_IMMDT));
	}
	rxc_resp_complete(qp, &c);
}

/* The service an opcode belongs to must be the QP's. */
static bool rxc_resp_service_ok(const struct rxc_qp *qp, u8 opcode)
{
	u8 svc = opcode & 0xe0;

	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		return svc == RXC_SVC_RC;
	case IB_QPT_UC:
		return svc == RXC_SVC_UC;
	case IB_QPT_UD:
	case IB_QPT_GSI:
		return svc == RXC_SVC_UD;
	default:
		return false;
	}
}

/**
 * rxc_resp_recv - take one request packet
 * @qp: the responder QP
 * @skb: the packet; consumed
 */
void rxc_resp_recv(struct rxc_qp *qp, struct sk_buff *skb)
{
	const struct rxc_pkt_info *pkt = rxc_skb_pkt(skb);

	/* A P_Key must match ours, 0xffff, in full or limited membership. */
	if (!rxc_resp_service_ok(qp, pkt->opcode) ||
	    (rxc_bth_pkey(pkt->bth) & 0x7fff) != (RXC_DEFAULT_PKEY & 0x7fff)) {
		rxc_stat_inc(rxc_qp_dev(qp), RXC_STAT_RCV_QP_DROPPED);
		kfree_skb(skb);
		return;
	}
	if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI) {
		rxc_resp_ud(qp, skb);
	} else {
		/* Before the data lands, which the peer's poller may wait for. */
		rxc_qp_peer_sent(qp);
		rxc_resp_connected(qp, pkt);
	}
	consume_skb(skb);
}

/* The opcode of the next read response. */
static u8 rxc_read_resp_opcode(const struct rxc_read *rd, bool last)
{
	if (rd->first)
		return last ? RXC_OPCODE(RC, READ_RESP_ONLY) :
			      RXC_OPCODE(RC, READ_RESP_FIRST);
	return last ? RXC_OPCODE(RC, READ_RESP_LAST) :
		      RXC_OPCODE(RC, READ_RESP_MIDDLE);
}

/*
 * The region went away (deregistered, its window invalidated) while its
 * read was being answered: the responses stop, and a NAK at the next
 * response's PSN fails the read at the requester instead of leaving it to
 * retry until it gives up.
 */
static void rxc_resp_read_failed(struct rxc_qp *qp)
{
	struct rxc_read *rd = &qp->resp.rd;

	rd->active = false;
	rxc_stat_inc(rxc_qp_dev(qp), RXC_STAT_REMOTE_ACCESS_ERRORS);
	rxc_dbg_qp(qp, "rkey %#x gone during a read, at PSN %#x\n", rd->rkey,
		   rd->psn);
	if (rd->count)
		rxc_resp_count_error(qp, RXC_OPF_READ);
	rxc_resp_nak(qp, rd->psn, RXC_RESP_NAK_ACCESS);
}

/**
 * rxc_resp_send_reads - send responses of the read being answered
 * @qp: the QP
 * @budget: at most this many packets
 *
 * The responses go out together at the end (see rxc_pkt_send()).
 *
 * Return: the packets sent.
 */
int rxc_resp_send_reads(struct rxc_qp *qp, int budget)
{
	struct rxc_read *rd = &qp->resp.rd;
	struct rxc_pkt_batch batch = {};
	struct sk_buff *skb;
	int sent = 0;
	u8 *payload;
	u32 mtu, n;
	u8 opcode;
	bool last;

	/* Every pass of the responder asks; almost none answers a read. */
	if (!rd->active)
		return 0;
	mtu = rxc_qp_mtu(qp);
	while (rd->active && sent < budget) {
		n = min(rd->resid, mtu);
		last = n == rd->resid;
		opcode = rxc_read_resp_opcode(rd, last);
		skb = rxc_resp_new(qp, opcode, rd->psn, n, &payload);
		if (!skb)
			break;		/* try again on the next run */
		if (rxc_opcode_info(opcode)->off[RXC_HDR_AETH])
			rxc_resp_set_aeth(qp, skb, RXC_SYN_ACK);
		if (!rxc_resp_read_payload(qp, rd->rkey, rd->va, payload, n)) {
			kfree_skb(skb);
			/* The NAK follows the responses before it. */
			rxc_pkt_flush(rxc_qp_dev(qp), &batch);
			rxc_resp_read_failed(qp);
			break;
		}
		rxc_qp_send_pkt(qp, &qp->av, skb, &batch);
		rd->va += n;
		rd->resid -= n;
		rd->psn = rxc_psn_add(rd->psn, 1);
		rd->first = false;
		rd->active = !last;
		sent++;
		if (last && rd->count)
			rxc_cntr_remote(qp,
					IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ,
					rd->len, true);
	}
	rxc_pkt_flush(rxc_qp_dev(qp), &batch);
	return sent;
}
