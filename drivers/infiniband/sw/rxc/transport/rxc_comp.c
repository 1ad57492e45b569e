// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The completer: ACKs, NAKs, read responses and atomic ACKs for the
 * requests this QP sent, and the in-order retirement of send WQEs.
 *
 * Every packet here comes from the peer and is checked against the
 * requester's own record of what it sent; a response for nothing, or of
 * the wrong size, is dropped or fails its WQE, never trusted.
 *
 * Runs in the QP task only (rxc_task.c).
 */
#include <linux/ktime.h>
#include <kunit/visibility.h>

#include "rxc.h"
#include "rxc_opcode.h"
#include "rxc_transport.h"
#include "verbs/rxc_verbs.h"

/* AETH syndromes (IBA 9.7.5.1.1): the top three bits say which kind. */
#define RXC_AETH_TYPE(s)	((s) >> 5)
#define RXC_AETH_ACK		0
#define RXC_AETH_RNR_NAK	1
#define RXC_AETH_NAK		3
#define RXC_AETH_VALUE(s)	((s) & 0x1f)
/* NAK codes, in the low five bits of a NAK syndrome. */
#define RXC_NAK_PSN_SEQ		0
#define RXC_NAK_INVALID_REQ	1
#define RXC_NAK_REMOTE_ACCESS	2
#define RXC_NAK_REMOTE_OP	3

/*
 * An ACK at @psn, before una: a late copy of an earlier one, or the
 * answer to a far probe (rxc_req_far_probe()), which names the last PSN
 * the responder took.  An answer before done_psn - 1 says the responder
 * never took a send or write packet that an answer in its name
 * acknowledged: it can never accept what the requester sends now.  Until
 * a send or write was acknowledged, an answer says nothing of this QP's
 * work (rdma_rxe answers with its ack_psn, which only those move, from 0
 * or from the QP's last connection).  One such answer may still be an old
 * ACK overtaken by later ones, as the network and a receiver with
 * several CPUs reorder answers.  A responder left behind stands still, so
 * it gives the same answer every time: RXC_FAR_ANSWERS of them at one
 * PSN, each the first after its own probe, with none in the window
 * between, fail the QP at the next retransmit timeout.
 */
static void rxc_comp_far_answer(struct rxc_qp *qp, u32 psn)
{
	struct rxc_req *req = &qp->req;
	s32 behind;

	if (!req->far_asked)
		return;
	req->far_asked = false;
	behind = rxc_psn_diff(rxc_psn_add(psn, 1), req->done_psn);
	if (!req->done_any || psn == req->far_psn || behind >= 0 ||
	    behind < -(s32)RXC_FAR_RANGE)
		return;
	rxc_stat_inc(to_rdev(qp->ibqp.device), RXC_STAT_RESPONDERS_BEHIND);
	rxc_dbg_qp(qp, "far probe: responder at PSN %#x, before %#x\n",
		   rxc_psn_add(psn, 1), req->done_psn);
	if (req->far_behind && psn != req->far_answer)
		req->far_behind = 0;
	req->far_answer = psn;
	if (req->far_behind < RXC_FAR_ANSWERS)
		req->far_behind++;
}

/*
 * Forward progress: everything before @una has arrived.  Only progress
 * restores the retry budgets and starts a new wait for progress.  An
 * answer that acknowledges nothing new (an ACK repeated, a NAK at una)
 * leaves both running down.  Otherwise a peer that keeps answering and
 * never accepts anything would keep the QP retrying for ever, whatever
 * its retry_cnt and rnr_retry say.
 */
static void rxc_comp_progress(struct rxc_qp *qp, u32 una)
{
	struct rxc_req *req = &qp->req;
	s32 acked = rxc_psn_diff(una, req->una);
	u64 now;

	if (acked <= 0)
		return;
	req->una = una;
	req->far_behind = 0;
	rxc_cwnd_acked(&req->cwnd, una, acked);
	/* A clock read per ACK showed in the profile of small reads. */
	now = rxc_rto_sample_done(&req->rto, una) ? ktime_get_ns() : 0;
	rxc_rto_acked(&req->rto, una, now);
	req->retry_left = qp->attr.retry_cnt;
	req->rnr_left = qp->attr.rnr_retry;
	/* A late ACK may cover packets a rewind was about to resend. */
	if (rxc_psn_diff(req->una, req->psn) > 0)
		rxc_req_rewind(qp, req->una);
	rxc_req_arm_timer(qp);
}

/* A loss shows: the window halves, once per loss episode. */
static void rxc_comp_loss(struct rxc_qp *qp)
{
	if (rxc_cwnd_loss(&qp->req.cwnd, qp->req.max_psn))
		rxc_stat_inc(to_rdev(qp->ibqp.device), RXC_STAT_CWND_SHRINKS);
}

/* A response has finished @w. */
static void rxc_comp_done(struct rxc_qp *qp, struct rxc_swqe *w,
			  enum ib_wc_status status)
{
	if (rxc_swqe_needs_response(w))
		qp->req.rd_atomic--;
	if (w->op == RXC_REQ_READ)
		qp->req.rd_bytes -= w->length;
	w->state = RXC_SWQE_DONE;
	w->status = status;
}

/* The PSN of the next response @w waits for: reads fill in order. */
static u32 rxc_comp_expect(struct rxc_qp *qp, const struct rxc_swqe *w)
{
	return rxc_psn_add(w->first_psn, w->resp_bytes / rxc_qp_mtu(qp));
}

/*
 * Something after the response @w waits for has arrived, so that response
 * was lost: ask for it again, once per gap.  The retransmit timer covers a
 * lost re-request.
 */
static void rxc_comp_resp_gap(struct rxc_qp *qp, struct rxc_swqe *w)
{
	u32 expect = rxc_comp_expect(qp, w);

	if (w->retry_psn == expect)
		return;
	w->retry_psn = expect;
	rxc_comp_loss(qp);
	rxc_req_rewind(qp, expect);
}

/*
 * Does every responder's answer to a duplicate name a PSN at or after
 * each packet of @w it took?  rdma_rxe's does for sends and writes, but
 * not for reads (its ack_psn stays behind them) nor for the operations
 * it lacks, so only those two count (rxc_comp_far_answer()).
 */
static bool rxc_comp_moves_ack_psn(const struct rxc_swqe *w)
{
	switch (w->op) {
	case RXC_REQ_SEND:
	case RXC_REQ_SEND_IMM:
	case RXC_REQ_SEND_INV:
	case RXC_REQ_WRITE:
	case RXC_REQ_WRITE_IMM:
		return true;
	default:
		return false;
	}
}

/*
 * The send or write packet at @psn was acknowledged.  It lies past every
 * one acknowledged before (rxc_comp_ack() takes them in PSN order, from
 * una - 1 on), so no comparison is needed, and none could be made after
 * half the PSN space of reads.
 */
static void rxc_comp_done_to(struct rxc_req *req, u32 psn)
{
	req->done_psn = rxc_psn_add(psn, 1);
	req->done_any = true;
}

/*
 * Everything up to and including @psn has arrived.  A read or atomic in
 * that range still lacking its response lost it: ask again.  The oldest
 * unacknowledged PSN stops at that response, so that the retransmit timer
 * asks again too when the re-request is lost.
 */
static void rxc_comp_ack(struct rxc_qp *qp, u32 psn)
{
	struct rxc_req *req = &qp->req;
	u32 i, mask = qp->sq.q.mask;
	struct rxc_swqe *w;

	for (i = qp->sq.q.cons; i != req->tail; i = rxc_q_next(i, mask)) {
		w = &req->wqe[i];
		if (w->local)
			continue;
		if (!w->started || rxc_psn_diff(w->last_psn, psn) > 0) {
			/* A NAK may name a PSN in the middle of a message. */
			if (w->started && rxc_comp_moves_ack_psn(w) &&
			    rxc_psn_diff(psn, w->first_psn) >= 0)
				rxc_comp_done_to(req, psn);
			break;
		}
		if (w->state == RXC_SWQE_DONE)
			continue;
		if (rxc_swqe_needs_response(w)) {
			rxc_comp_resp_gap(qp, w);
			psn = rxc_psn_add(rxc_comp_expect(qp, w), RXC_PSN_MASK);
			break;
		}
		w->state = RXC_SWQE_DONE;
		if (rxc_comp_moves_ack_psn(w))
			rxc_comp_done_to(req, w->last_psn);
	}
	rxc_comp_progress(qp, rxc_psn_add(psn, 1));
}

/* The oldest unfinished WQE that went out on the wire, if any. */
static struct rxc_swqe *rxc_comp_oldest(struct rxc_qp *qp)
{
	struct rxc_req *req = &qp->req;
	u32 i, mask = qp->sq.q.mask;
	struct rxc_swqe *w;

	for (i = qp->sq.q.cons; i != req->tail; i = rxc_q_next(i, mask)) {
		w = &req->wqe[i];
		if (w->local || w->state == RXC_SWQE_DONE)
			continue;
		return w->started ? w : NULL;
	}
	return NULL;
}

static bool rxc_swqe_holds(const struct rxc_swqe *w, u32 psn)
{
	return w && rxc_psn_diff(psn, w->first_psn) >= 0 &&
	       rxc_psn_diff(psn, w->last_psn) <= 0;
}

/* The oldest unfinished WQE, if @psn falls in it. */
static struct rxc_swqe *rxc_comp_find(struct rxc_qp *qp, u32 psn)
{
	struct rxc_swqe *w = rxc_comp_oldest(qp);

	return rxc_swqe_holds(w, psn) ? w : NULL;
}

/*
 * A response at @psn, outside @w, the oldest unfinished WQE (NULL: none).
 * Past @w while @w still waits for read data or an atomic result, the
 * responder, which answers in PSN order, lost what @w waits for: ask
 * again now, as for a gap inside a read, rather than at the retransmit
 * timeout.  This is the common case of a loss on a busy link: the lost
 * packet is the last response of one read and the next read's responses
 * keep coming.  Anything else is a duplicate or stale response.
 */
static void rxc_comp_resp_outside(struct rxc_qp *qp, struct rxc_swqe *w,
				  u32 psn)
{
	if (w && rxc_swqe_needs_response(w) &&
	    rxc_psn_diff(psn, w->last_psn) > 0)
		rxc_comp_resp_gap(qp, w);
}

static enum ib_wc_status rxc_nak_status(u8 code)
{
	switch (code) {
	case RXC_NAK_INVALID_REQ:
		return IB_WC_REM_INV_REQ_ERR;
	case RXC_NAK_REMOTE_ACCESS:
		return IB_WC_REM_ACCESS_ERR;
	case RXC_NAK_REMOTE_OP:
		return IB_WC_REM_OP_ERR;
	default:
		return IB_WC_BAD_RESP_ERR;
	}
}

/* A NAK: what precedes @psn arrived; what is at @psn did not. */
static void rxc_comp_nak(struct rxc_qp *qp, u32 psn, u8 code)
{
	struct rxc_dev *rxc = to_rdev(qp->ibqp.device);
	struct rxc_swqe *w;

	rxc_comp_ack(qp, rxc_psn_add(psn, RXC_PSN_MASK));	/* psn - 1 */
	if (code == RXC_NAK_PSN_SEQ) {
		/* From the oldest gap: a response lost before @psn included. */
		rxc_stat_inc(rxc, RXC_STAT_SEQ_NAKS_RCVD);
		rxc_comp_loss(qp);
		rxc_req_rewind(qp, qp->req.una);
		return;
	}
	w = rxc_comp_find(qp, psn);
	if (w) {
		rxc_dbg_qp(qp, "NAK %u for PSN %#x\n", code, psn);
		rxc_comp_done(qp, w, rxc_nak_status(code));
	}
}

/*
 * Is an ACK or NAK at @psn (below max_psn) new to the requester?  An ACK
 * names the last PSN it acknowledges, so one at una - 1 only repeats an
 * earlier one; a NAK names the first PSN the responder misses, una or
 * later.  Anything older is either a late copy of an earlier answer
 * (the network delays and duplicates answers) or a responder that still
 * waits for PSNs a forged NAK acknowledged in its name: they completed,
 * and cannot be sent again.  Acting on that NAK would rewind to una,
 * which the responder never accepts, for ever.  Dropped, it leaves the
 * QP to its retransmit timer: its retries run out (RETRY_EXC_ERR) unless
 * the responder makes progress again, and at retry_cnt 7 far probes find
 * a responder left behind (rxc_comp_far_answer()).  Such a NAK is no
 * sign of one by itself: a responder in step sends one whenever requests
 * reach it out of order, and its ACK of the PSN it named may overtake it.
 */
static bool rxc_comp_aeth_in_window(const struct rxc_req *req, u8 syn,
				    u32 psn)
{
	u32 oldest = req->una;

	if (RXC_AETH_TYPE(syn) == RXC_AETH_ACK)
		oldest = rxc_psn_add(oldest, RXC_PSN_MASK);	/* una - 1 */
	return rxc_psn_diff(psn, oldest) >= 0;
}

/**
 * rxc_comp_aeth - take an ACK, RNR NAK or NAK
 * @qp: the requester QP
 * @syn: the AETH syndrome
 * @psn: the PSN it names, below max_psn (rxc_comp_recv() checked)
 */
void rxc_comp_aeth(struct rxc_qp *qp, u8 syn, u32 psn)
{
	struct rxc_dev *rxc = to_rdev(qp->ibqp.device);

	if (!rxc_comp_aeth_in_window(&qp->req, syn, psn)) {
		rxc_dbg_qp(qp, "AETH %#x for PSN %#x, below una %#x\n", syn, psn,
			   qp->req.una);
		rxc_stat_inc(rxc, RXC_STAT_RCV_QP_DROPPED);
		if (RXC_AETH_TYPE(syn) == RXC_AETH_ACK)
			rxc_comp_far_answer(qp, psn);
		return;
	}
	/* In the window: the responder is in step, whatever a probe said. */
	qp->req.far_asked = false;
	qp->req.far_behind = 0;
	switch (RXC_AETH_TYPE(syn)) {
	case RXC_AETH_ACK:
		rxc_comp_ack(qp, psn);
		break;
	case RXC_AETH_RNR_NAK:
		if (rxc_comp_find(qp, psn)) {
			rxc_comp_ack(qp, rxc_psn_add(psn, RXC_PSN_MASK));
			rxc_req_rnr(qp, psn, RXC_AETH_VALUE(syn));
		}
		break;
	case RXC_AETH_NAK:
		rxc_comp_nak(qp, psn, RXC_AETH_VALUE(syn));
		break;
	default:
		rxc_stat_inc(rxc, RXC_STAT_RCV_QP_DROPPED);
		break;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rxc_comp_aeth);

/*
 * A read response at @psn for @w.  Responses must arrive in order; after
 * a gap, the rest of the read is requested again, once per gap.
 */
static void rxc_comp_read_resp(struct rxc_qp *qp, struct rxc_swqe *w,
			       const struct rxc_pkt_info *pkt, u32 psn)
{
	struct rxc_dev *rxc = to_rdev(qp->ibqp.device);
	u32 mtu = rxc_qp_mtu(qp), n = pkt->payload_len;
	u32 expect = rxc_comp_expect(qp, w);
	bool last = pkt->mask & RXC_OPF_LAST;

	if (w->op != RXC_REQ_READ)
		return;
	if (psn != expect) {
		if (rxc_psn_diff(psn, expect) > 0)
			rxc_comp_resp_gap(qp, w);
		/*
		 * No progress, so no retries back; but the responder is
		 * answering this read, and what it was asked again for
		 * comes behind what is already on the way: the wait for
		 * progress starts again rather than time out and resend
		 * every request in flight.  A behaving responder's answer
		 * to a read ends, so this cannot go on for ever.
		 */
		rxc_req_arm_timer(qp);
		return;
	}
	/* Full packets until the last, which brings exactly the rest. */
	if ((!last && n != mtu) || n > w->length - w->resp_bytes ||
	    (last && n != w->length - w->resp_bytes)) {
		rxc_dbg_qp(qp, "read response of %u bytes at PSN %#x\n", n, psn);
		rxc_comp_done(qp, w, IB_WC_BAD_RESP_ERR);
		return;
	}
	if (rxc_sgl_copy_pkt(rxc, qp->ibqp.pd, w->sge, w->num_sge,
			     w->resp_bytes, pkt)) {
		rxc_comp_done(qp, w, IB_WC_LOC_PROT_ERR);
		return;
	}
	w->resp_bytes += n;
	rxc_pace_charge(&qp->req.pace, n);
	if (last)
		rxc_comp_done(qp, w, IB_WC_SUCCESS);
	rxc_comp_progress(qp, rxc_psn_add(psn, 1));
}

static void rxc_comp_atomic_ack(struct rxc_qp *qp, struct rxc_swqe *w,
				const struct rxc_pkt_info *pkt, u32 psn)
{
	struct rxc_dev *rxc = to_rdev(qp->ibqp.device);
	u64 orig = rxc_atmack_orig(rxc_pkt_hdr(pkt, RXC_HDR_ATMACK));

	if (w->op != RXC_REQ_COMPARE_SWAP && w->op != RXC_REQ_FETCH_ADD)
		return;
	if (rxc_sgl_copy(rxc, qp->ibqp.pd, w->sge, w->num_sge, 0, &orig,
			 sizeof(orig), RXC_COPY_TO_MR))
		rxc_comp_done(qp, w, IB_WC_LOC_PROT_ERR);
	else
		rxc_comp_done(qp, w, IB_WC_SUCCESS);
	rxc_comp_progress(qp, rxc_psn_add(psn, 1));
}

/**
 * rxc_comp_recv - take one response packet
 * @qp: the requester QP
 * @skb: the packet; consumed
 */
void rxc_comp_recv(struct rxc_qp *qp, struct sk_buff *skb)
{
	const struct rxc_pkt_info *pkt = rxc_skb_pkt(skb);
	u32 psn = rxc_bth_psn(pkt->bth);
	struct rxc_swqe *w;

	if (qp->ibqp.qp_type != IB_QPT_RC)
		goto drop;
	/*
	 * A response can only be for a PSN this QP has sent: one at or past
	 * max_psn would acknowledge packets still to go, or never sent.
	 */
	if (rxc_psn_diff(psn, qp->req.max_psn) >= 0) {
		rxc_dbg_qp(qp, "response for unsent PSN %#x\n", psn);
		goto drop;
	}

	if (pkt->mask & RXC_OPF_ACK && !(pkt->mask & RXC_OPF_ATOMIC)) {
		rxc_comp_aeth(qp, rxc_aeth_syndrome(rxc_pkt_hdr(pkt, RXC_HDR_AETH)),
			      psn);
		goto out;
	}

	/* Read data and atomic results also acknowledge what came before. */
	w = rxc_comp_oldest(qp);
	if (!rxc_swqe_holds(w, psn)) {
		rxc_comp_resp_outside(qp, w, psn);
		goto out;
	}
	if (!rxc_swqe_needs_response(w))
		goto out;
	rxc_comp_ack(qp, rxc_psn_add(w->first_psn, RXC_PSN_MASK));
	if (pkt->mask & RXC_OPF_ATOMIC)
		rxc_comp_atomic_ack(qp, w, pkt, psn);
	else
		rxc_comp_read_resp(qp, w, pkt, psn);
out:
	consume_skb(skb);
	return;
drop:
	rxc_stat_inc(to_rdev(qp->ibqp.device), RXC_STAT_RCV_QP_DROPPED);
	kfree_skb(skb);
}

/* Is the WQE at the head of the send queue finished, to be retired? */
static bool rxc_comp_head_done(struct rxc_qp *qp)
{
	return qp->sq.q.cons != qp->req.tail &&
	       qp->req.wqe[qp->sq.q.cons].state == RXC_SWQE_DONE;
}

/**
 * rxc_comp_retire - retire finished WQEs from the head of the send queue
 * @qp: the QP, in its run or in the softirq that holds its claim
 *
 * In order, and at most RXC_RETIRE_BUDGET of them: one ACK can finish
 * thousands of local WQEs that waited behind the request it
 * acknowledges, and a softirq must not complete them all.  The first one
 * that failed moves the QP to ERR; the task flushes the rest.  In ERR, a
 * WQE that finished without error is flushed too: it lies behind the
 * failure (or behind the move to ERR), and IBA completes nothing behind
 * it successfully.
 *
 * Return: true when finished WQEs are left for another call.
 */
bool rxc_comp_retire(struct rxc_qp *qp)
{
	bool in_err = rxc_qp_state(qp) == IB_QPS_ERR;
	struct rxc_queue *q = &qp->sq.q;
	struct rxc_req *req = &qp->req;
	struct rxc_completion c = {};
	unsigned long flags;
	struct rxc_swqe *w;
	int n;

	for (n = 0; rxc_comp_head_done(qp); n++) {
		if (n == RXC_RETIRE_BUDGET) {
			rxc_stat_inc(to_rdev(qp->ibqp.device),
				     RXC_STAT_RETIRE_HANDOFFS);
			return true;
		}
		w = &req->wqe[q->cons];
		c.wr_id = w->wr_id;
		c.status = w->status;
		if (in_err && c.status == IB_WC_SUCCESS)
			c.status = IB_WC_WR_FLUSH_ERR;
		c.opcode = rxc_wr_to_wc_opcode(w->wr_opcode);
		c.byte_len = w->status == IB_WC_SUCCESS ? w->length : 0;
		c.signaled = w->signaled;

		spin_lock_irqsave(&qp->sq.lock, flags);
		rxc_queue_pop(q);
		spin_unlock_irqrestore(&qp->sq.lock, flags);
		rxc_complete_wr(qp, &c);

		if (c.status != IB_WC_SUCCESS) {
			rxc_qp_error(qp);
			break;
		}
	}
	return false;
}
