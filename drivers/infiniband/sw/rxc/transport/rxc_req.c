// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The requester: turns send WQEs into packets.
 *
 * It copies each WQE out of the shared ring once, validates the copy and
 * works from it only (struct rxc_swqe), since user space may rewrite the
 * ring at any time.  PSNs are assigned when a WQE is first sent and never
 * change: a retransmission rewinds the cursor to a PSN and sends the same
 * packets again (go-back-N).
 *
 * Runs in the QP task only (rxc_task.c); the timers just wake the task.
 */
#include <linux/jiffies.h>
#include <linux/sched/clock.h>
#include <linux/sizes.h>
#include <kunit/visibility.h>

#include "rxc.h"
#include "rxc_opcode.h"
#include "rxc_transport.h"
#include "verbs/rxc_verbs.h"

/*
 * Packets between two ACK requests, at most; a smaller window asks twice
 * in each window (rxc_req_ackreq()).
 */
#define RXC_ACKREQ_INTERVAL	32
/*
 * Reads in flight ask for at most this many bytes, or are one read of any
 * length.  A read's responses come as one burst the requester cannot
 * pace, and the bursts of several overran the receiving host's socket
 * buffer, each loss costing the rest of its read (go-back-N).
 */
#define RXC_READ_MAX_BYTES	SZ_64K
/*
 * In a stream of messages of one packet, each waits while this many PSNs
 * are unacknowledged, on a path that takes batches (rxc_req_gathers()).
 */
#define RXC_GATHER_PSNS		32
/*
 * The retransmit timeout never goes below this: a software peer under
 * load answers slower than the few microseconds small values allow, and
 * a spurious timeout costs a whole window.
 */
#define RXC_MIN_RETRANS_MS	20
/*
 * retry_cnt and rnr_retry of 7 mean "retry forever", as with rdma_rxe
 * (IBA gives 7 that meaning for rnr_retry only), except that a responder
 * that far probes find behind what was acknowledged is not retried for
 * ever (rxc_req_responder_lost()).
 */
#define RXC_RETRY_FOREVER	7
/*
 * A far probe's PSN: this far after max_psn, the next PSN to send, which
 * puts it half the PSN space less one before max_psn (rxc_req_far_probe()).
 */
#define RXC_FAR_PSN_OFFSET	(BIT(23) + 1)

#define RXC_WR_BIT(op)	BIT(IB_WR_##op)

/* The work request opcodes each QP type accepts. */
static u32 rxc_send_opcodes(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_RC:
		return RXC_WR_BIT(SEND) | RXC_WR_BIT(SEND_WITH_IMM) |
		       RXC_WR_BIT(SEND_WITH_INV) | RXC_WR_BIT(RDMA_WRITE) |
		       RXC_WR_BIT(RDMA_WRITE_WITH_IMM) | RXC_WR_BIT(RDMA_READ) |
		       RXC_WR_BIT(ATOMIC_CMP_AND_SWP) |
		       RXC_WR_BIT(ATOMIC_FETCH_AND_ADD) | RXC_WR_BIT(LOCAL_INV) |
		       RXC_WR_BIT(BIND_MW) | BIT(RXC_WR_ATOMIC_WRITE);
	case IB_QPT_UC:
		return RXC_WR_BIT(SEND) | RXC_WR_BIT(SEND_WITH_IMM) |
		       RXC_WR_BIT(RDMA_WRITE) | RXC_WR_BIT(RDMA_WRITE_WITH_IMM) |
		       RXC_WR_BIT(LOCAL_INV) | RXC_WR_BIT(BIND_MW);
	case IB_QPT_UD:
	case IB_QPT_GSI:
		return RXC_WR_BIT(SEND) | RXC_WR_BIT(SEND_WITH_IMM);
	default:
		return 0;
	}
}

bool rxc_wr_opcode_ok(enum ib_qp_type type, u32 wr_opcode)
{
	return wr_opcode < 32 && (rxc_send_opcodes(type) & BIT(wr_opcode));
}

/* What each accepted work request opcode sends. */
static const u8 rxc_wr_req_op[] = {
	[IB_WR_SEND] = RXC_REQ_SEND,
	[IB_WR_SEND_WITH_IMM] = RXC_REQ_SEND_IMM,
	[IB_WR_SEND_WITH_INV] = RXC_REQ_SEND_INV,
	[IB_WR_RDMA_WRITE] = RXC_REQ_WRITE,
	[IB_WR_RDMA_WRITE_WITH_IMM] = RXC_REQ_WRITE_IMM,
	[IB_WR_RDMA_READ] = RXC_REQ_READ,
	[IB_WR_ATOMIC_CMP_AND_SWP] = RXC_REQ_COMPARE_SWAP,
	[IB_WR_ATOMIC_FETCH_AND_ADD] = RXC_REQ_FETCH_ADD,
	[RXC_WR_ATOMIC_WRITE] = RXC_REQ_ATOMIC_WRITE,
};

/* The WQE cannot be executed: it completes with @status, in order. */
static void rxc_swqe_fail(struct rxc_swqe *w, enum ib_wc_status status)
{
	w->state = RXC_SWQE_DONE;
	w->status = status;
}

/* Scatter/gather or inline payload of @wqe; sets @w->length. */
static int rxc_swqe_parse_data(struct rxc_qp *qp, struct rxe_send_wqe *wqe,
			       struct rxc_swqe *w)
{
	u32 i, len = 0;

	if (w->is_inline || w->op == RXC_REQ_ATOMIC_WRITE) {
		/* ATOMIC_WRITE carries its 8 bytes where inline data goes. */
		len = w->op == RXC_REQ_ATOMIC_WRITE ? sizeof(u64) :
						      READ_ONCE(wqe->dma.length);
		if (len > qp->sq.max_inline && len > sizeof(u64))
			return IB_WC_LOC_LEN_ERR;
		w->data = wqe->dma.inline_data;
		w->length = len;
		return IB_WC_SUCCESS;
	}

	/* librxe 44 may get dma.length wrong: sum the SGEs instead. */
	w->num_sge = wqe->dma.num_sge;
	if (w->num_sge > qp->sq.max_sge)
		return IB_WC_LOC_QP_OP_ERR;
	w->sge = wqe->dma.sge;
	for (i = 0; i < w->num_sge; i++) {
		if (check_add_overflow(len, w->sge[i].length, &len))
			return IB_WC_LOC_LEN_ERR;
	}
	if (len > RXC_MAX_MSG_SIZE)
		return IB_WC_LOC_LEN_ERR;
	w->length = len;
	return IB_WC_SUCCESS;
}

/* The destination of a UD send, from its AH, copied now. */
static int rxc_swqe_parse_ud(struct rxc_qp *qp, struct rxe_send_wqe *wqe,
			     struct rxc_swqe *w)
{
	struct rxc_dev *rxc = to_rdev(qp->ibqp.device);
	struct rxc_ah *ah;
	unsigned long flags;

	w->dest_qpn = wqe->wr.wr.ud.remote_qpn & RXC_PSN_MASK;
	w->qkey = wqe->wr.wr.ud.remote_qkey;
	/* A Q_Key with the top bit set means "use the QP's" (IBA 10.2.5). */
	if (w->qkey & BIT(31))
		w->qkey = qp->attr.qkey;

	/*
	 * The AH number comes from the ring: it may name any AH of the
	 * device, and only one of the QP's PD may be used (IBA 10.2.3).  The
	 * AH cannot be destroyed while its entry is locked.
	 */
	xa_lock_irqsave(&rxc->ah_xa, flags);
	ah = xa_load(&rxc->ah_xa, wqe->wr.wr.ud.ah_num);
	if (ah && ah->ibah.pd == qp->ibqp.pd)
		qp->req.ud_av[w - qp->req.wqe] = ah->av;
	else
		ah = NULL;
	xa_unlock_irqrestore(&rxc->ah_xa, flags);
	if (!ah) {
		rxc_dbg_qp(qp, "UD send names no AH of the QP's PD\n");
		return IB_WC_LOC_QP_OP_ERR;
	}
	return w->length > rxc_qp_mtu(qp) ? IB_WC_LOC_LEN_ERR : IB_WC_SUCCESS;
}

static int rxc_swqe_parse_remote(struct rxc_swqe *w, struct rxe_send_wqe *wqe)
{
	switch (w->op) {
	case RXC_REQ_COMPARE_SWAP:
	case RXC_REQ_FETCH_ADD:
		w->remote_addr = wqe->wr.wr.atomic.remote_addr;
		w->rkey = wqe->wr.wr.atomic.rkey;
		w->compare_add = wqe->wr.wr.atomic.compare_add;
		w->swap = wqe->wr.wr.atomic.swap;
		/* The original value comes back into the first 8 bytes. */
		if (w->length < sizeof(u64))
			return IB_WC_LOC_LEN_ERR;
		w->length = sizeof(u64);
		break;
	case RXC_REQ_WRITE:
	case RXC_REQ_WRITE_IMM:
	case RXC_REQ_READ:
	case RXC_REQ_ATOMIC_WRITE:
		w->remote_addr = wqe->wr.wr.rdma.remote_addr;
		w->rkey = wqe->wr.wr.rdma.rkey;
		break;
	}
	return IB_WC_SUCCESS;
}

/* Validate the private copy @wqe into @w. */
static void rxc_swqe_parse(struct rxc_qp *qp, struct rxe_send_wqe *wqe,
			   struct rxc_swqe *w)
{
	enum ib_qp_type type = qp->ibqp.qp_type;
	u32 flags = wqe->wr.send_flags;
	int status;

	memset(w, 0, sizeof(*w));
	w->wr_id = wqe->wr.wr_id;
	w->wr_opcode = wqe->wr.opcode;
	w->signaled = qp->sq_sig_all || (flags & IB_SEND_SIGNALED);
	w->solicited = flags & IB_SEND_SOLICITED;
	w->fence = flags & IB_SEND_FENCE;
	w->is_inline = flags & IB_SEND_INLINE;
	w->ex = wqe->wr.ex.invalidate_rkey;
	w->state = RXC_SWQE_QUEUED;

	if (!rxc_wr_opcode_ok(type, w->wr_opcode)) {
		rxc_swqe_fail(w, IB_WC_LOC_QP_OP_ERR);
		return;
	}
	if (w->wr_opcode == IB_WR_LOCAL_INV || w->wr_opcode == IB_WR_BIND_MW) {
		w->local = true;
		w->bind.mw_rkey = wqe->wr.wr.mw.mw_rkey;
		w->bind.new_rkey = wqe->wr.wr.mw.rkey;
		w->bind.mr_lkey = wqe->wr.wr.mw.mr_lkey;
		w->bind.addr = wqe->wr.wr.mw.addr;
		w->bind.length = wqe->wr.wr.mw.length;
		w->bind.access = wqe->wr.wr.mw.access;
		return;
	}
	w->op = rxc_wr_req_op[w->wr_opcode];

	status = rxc_swqe_parse_data(qp, wqe, w);
	if (status == IB_WC_SUCCESS) {
		if (type == IB_QPT_UD || type == IB_QPT_GSI)
			status = rxc_swqe_parse_ud(qp, wqe, w);
		else
			status = rxc_swqe_parse_remote(w, wqe);
	}
	if (status != IB_WC_SUCCESS)
		rxc_swqe_fail(w, status);
}

/* WQEs copied out of the ring per hold of the SQ lock: bounds IRQs off. */
#define RXC_FETCH_BATCH		16

/*
 * How many WQEs past @req->tail the producer has posted.  The slots from
 * the consumer index to @req->tail hold WQEs already taken: a producer
 * index that user space moved back among them posts nothing new (and
 * must not make the fetch run round the ring over them).
 */
static u32 rxc_req_new_wqes(const struct rxc_queue *q, u32 tail)
{
	u32 posted = rxc_q_count(q->prod, q->cons, q->mask);
	u32 taken = rxc_q_count(tail, q->cons, q->mask);

	return posted > taken ? posted - taken : 0;
}

/* Copy up to RXC_FETCH_BATCH newly posted WQEs out of the ring. */
static void rxc_req_fetch(struct rxc_qp *qp)
{
	struct rxc_queue *q = &qp->sq.q;
	size_t elem = 1UL << q->log2_elem;
	struct rxc_req *req = &qp->req;
	unsigned long flags;
	void *copy;
	u32 n;

	/*
	 * Nothing posted since the last fetch, as most runs find: skip the
	 * lock, whose interrupts off and on cost more than the rest of an
	 * idle pass.  Only a hint, read again under the lock; a WQE posted
	 * just after it is not missed, since the doorbell that follows asks
	 * for another pass.
	 */
	if (rxc_queue_peek_prod(q) == req->tail)
		return;

	spin_lock_irqsave(&qp->sq.lock, flags);
	rxc_queue_refresh(q);
	n = min_t(u32, rxc_req_new_wqes(q, req->tail), RXC_FETCH_BATCH);
	while (n--) {
		copy = req->copy + req->tail * elem;
		memcpy(copy, rxc_queue_elem(q, req->tail), elem);
		rxc_swqe_parse(qp, copy, &req->wqe[req->tail]);
		req->tail = rxc_q_next(req->tail, q->mask);
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
}

static unsigned long rxc_retrans_jiffies(u8 timeout)
{
	u64 ns = 4096ULL << timeout;

	return max(nsecs_to_jiffies(ns), msecs_to_jiffies(RXC_MIN_RETRANS_MS));
}

/* When the local ACK timeout of the current wait expires. */
static unsigned long rxc_req_wait_end(struct rxc_qp *qp)
{
	return qp->req.wait_start + rxc_retrans_jiffies(qp->attr.timeout);
}

/*
 * The wait's next deadline is @at: the timer fires then or earlier, and
 * rxc_req_timeout() acts only once @at has passed.  An earlier expiry
 * already set is left as it is, and the run it wakes sets the timer again
 * for the deadline.  So a ping-pong, which starts and ends a wait with
 * every message, leaves the timer's base and its lock alone: an armed
 * timer with an earlier expiry costs timer_reduce() a comparison, where
 * mod_timer() and timer_delete() took that lock twice per message.
 */
static void rxc_req_timer_at(struct rxc_qp *qp, unsigned long at)
{
	qp->req.timer_armed = true;
	qp->req.timer_due = at;
	timer_reduce(&qp->req.retrans_timer, at);
}

/*
 * The timer fires for the next probe, the first one no later than the
 * local ACK timeout; without a round-trip estimate, at that timeout.
 */
static void rxc_req_set_timer(struct rxc_qp *qp)
{
	unsigned long end = rxc_req_wait_end(qp), at;
	u32 us = rxc_rto_probe_us(&qp->req.rto);

	if (!us) {
		rxc_req_timer_at(qp, end);
		return;
	}
	at = jiffies + usecs_to_jiffies(us);
	if (!qp->req.rto.probes && time_after(at, end))
		at = end;
	rxc_req_timer_at(qp, at);
}

/* A new wait for progress begins now. */
static void rxc_req_wait_begin(struct rxc_req *req)
{
	req->wait_start = jiffies;
}

/*
 * Start a wait for progress; a timeout of 0 means never (IBA).  With
 * nothing unacknowledged there is none: a timer still armed then finds
 * nothing to do when it fires.
 */
void rxc_req_arm_timer(struct rxc_qp *qp)
{
	if (qp->ibqp.qp_type != IB_QPT_RC || !qp->attr.timeout)
		return;
	if (qp->req.una == qp->req.psn) {
		qp->req.timer_armed = false;
		return;
	}
	rxc_req_wait_begin(&qp->req);
	rxc_req_set_timer(qp);
}

/* Entering RTS: start the send queue at sq_psn. */
void rxc_req_start(struct rxc_qp *qp)
{
	struct rxc_req *req = &qp->req;

	req->psn = qp->attr.sq_psn;
	req->max_psn = req->psn;
	req->una = req->psn;
	req->ackreq_psn = req->psn;
	rxc_cwnd_init(&req->cwnd, rxc_qp_mtu(qp));
	req->rto = (struct rxc_rto){};
	req->pace = (struct rxc_pace){};
	req->retry_left = qp->attr.retry_cnt;
	req->rnr_left = qp->attr.rnr_retry;
	req->done_psn = req->psn;
	req->done_any = false;
	req->far_asked = false;
	req->far_behind = 0;
	req->timer_armed = false;
	req->cur = qp->sq.q.cons;
	req->tail = qp->sq.q.cons;
}

/* Where each packet sits in its message, from the bytes sent so far. */
static enum rxc_pkt_pos rxc_req_pos(u32 off, u32 n, u32 length)
{
	bool first = off == 0, last = off + n == length;

	if (first && last)
		return RXC_POS_ONLY;
	if (first)
		return RXC_POS_FIRST;
	return last ? RXC_POS_LAST : RXC_POS_MIDDLE;
}

static u32 rxc_req_dest_qpn(struct rxc_qp *qp, const struct rxc_swqe *w)
{
	if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI)
		return w->dest_qpn;
	return qp->attr.dest_qp_num;
}

/* The extension headers of one request packet. */
static void rxc_req_fill_hdrs(struct rxc_qp *qp, const struct rxc_swqe *w,
			      u8 *bth, const struct rxc_opcode_info *info,
			      u32 off)
{
	u8 *h;

	if (info->off[RXC_HDR_RETH]) {
		h = bth + info->off[RXC_HDR_RETH];
		rxc_reth_set_va(h, w->remote_addr + off);
		rxc_reth_set_rkey(h, w->rkey);
		rxc_reth_set_len(h, w->length - off);
	}
	if (info->off[RXC_HDR_ATMETH]) {
		h = bth + info->off[RXC_HDR_ATMETH];
		rxc_atmeth_set_va(h, w->remote_addr);
		rxc_atmeth_set_rkey(h, w->rkey);
		if (w->op == RXC_REQ_COMPARE_SWAP) {
			rxc_atmeth_set_swap_add(h, w->swap);
			rxc_atmeth_set_compare(h, w->compare_add);
		} else {
			rxc_atmeth_set_swap_add(h, w->compare_add);
		}
	}
	if (info->off[RXC_HDR_IMMDT])
		rxc_immdt_set_imm(bth + info->off[RXC_HDR_IMMDT],
				  (__force __be32)w->ex);
	if (info->off[RXC_HDR_IETH])
		rxc_ieth_set_rkey(bth + info->off[RXC_HDR_IETH], w->ex);
	if (info->off[RXC_HDR_DETH]) {
		h = bth + info->off[RXC_HDR_DETH];
		rxc_deth_set_qkey(h, w->qkey);
		rxc_deth_set_sqpn(h, qp->ibqp.qp_num);
	}
}

/* UD WQEs name their destination; connected QPs have one. */
static const struct rxc_av *rxc_swqe_av(const struct rxc_qp *qp,
					const struct rxc_swqe *w)
{
	if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI)
		return &qp->req.ud_av[w - qp->req.wqe];
	return &qp->av;
}

/* Payload bytes [off, off + n) of @w into @buf. */
static int rxc_req_gather(struct rxc_qp *qp, const struct rxc_swqe *w,
			  u32 off, u8 *buf, u32 n)
{
	if (w->data) {
		memcpy(buf, w->data + off, n);
		return 0;
	}
	return rxc_sgl_copy(to_rdev(qp->ibqp.device), qp->ibqp.pd, w->sge,
			    w->num_sge, off, buf, n, RXC_COPY_FROM_MR);
}

/* How many payload bytes the next packet of @w carries, and its PSNs. */
static u32 rxc_req_payload(const struct rxc_swqe *w, u32 off, u32 mtu)
{
	if (rxc_swqe_needs_response(w))
		return 0;
	return min(w->length - off, mtu);
}

/*
 * Does a packet that is not the last of its message ask for an ACK?  Some
 * packet of every window must, since rdma_rxe acknowledges only those
 * that ask, and a window of packets that do not waits for the timer.
 */
static bool rxc_req_ackreq(const struct rxc_req *req)
{
	s32 every = clamp_t(s32, req->cwnd.size / 2, 1, RXC_ACKREQ_INTERVAL);

	return rxc_psn_diff(req->psn, req->ackreq_psn) >= every;
}

/* @psn, which asks for an ACK, goes out for the first time: time it? */
static void rxc_req_time_psn(struct rxc_req *req, u32 psn)
{
	unsigned long now_j = jiffies;

	if (rxc_rto_wants_sample(&req->rto, now_j))
		rxc_rto_sent(&req->rto, psn, ktime_get_ns(), now_j);
}

/*
 * A packet's place in the send queue: its WQE's ring index, the WQE's
 * bytes before it, and its PSN.  The cursor is one (@cur, @cur_off and
 * @psn of struct rxc_req); a probe resends at others.
 */
struct rxc_req_pos {
	u32 idx;
	u32 off;
	u32 psn;
};

/**
 * rxc_req_send_pkt - send the packet of @w at @at
 * @qp: the QP
 * @w: the WQE at @at
 * @at: where the packet starts: the cursor, or what a probe resends
 * @mtu: the path MTU
 * @probe: a probe's packet: it asks for an ACK, and the packets between
 *	   the cursor's ACK requests still count from the last of those
 * @batch: the run's packets, or NULL to send at once
 *
 * Return: false when the WQE failed locally (it is then DONE).
 */
static bool rxc_req_send_pkt(struct rxc_qp *qp, struct rxc_swqe *w,
			     const struct rxc_req_pos *at, u32 mtu, bool probe,
			     struct rxc_pkt_batch *batch)
{
	struct rxc_dev *rxc = to_rdev(qp->ibqp.device);
	struct rxc_req *req = &qp->req;
	u32 off = at->off, n = rxc_req_payload(w, off, mtu);
	enum rxc_pkt_pos pos = rxc_req_pos(off, n, w->length);
	const struct rxc_opcode_info *info;
	bool last, ackreq;
	struct sk_buff *skb;
	u8 pad = -n & 3;
	int opcode;
	u8 *bth;

	if (rxc_swqe_needs_response(w))
		pos = RXC_POS_ONLY;
	opcode = rxc_req_opcode(qp->ibqp.qp_type, w->op, pos);
	if (opcode < 0) {
		rxc_swqe_fail(w, IB_WC_LOC_QP_OP_ERR);
		return false;
	}
	info = rxc_opcode_info(opcode);
	last = pos == RXC_POS_LAST || pos == RXC_POS_ONLY;
	ackreq = qp->ibqp.qp_type == IB_QPT_RC &&
		 (probe || last || rxc_req_ackreq(req));

	skb = rxc_pkt_new(rxc, rxc_swqe_av(qp, w), info->hdr_len + n + pad);
	if (!skb)
		return true;	/* as if lost: the retransmit timer recovers */
	bth = skb->data;
	rxc_bth_init(bth, opcode, w->solicited && last, pad, RXC_DEFAULT_PKEY,
		     rxc_req_dest_qpn(qp, w), ackreq, at->psn);
	rxc_req_fill_hdrs(qp, w, bth, info, off);
	if (rxc_req_gather(qp, w, off, bth + info->hdr_len, n)) {
		kfree_skb(skb);
		rxc_swqe_fail(w, IB_WC_LOC_PROT_ERR);
		return false;
	}
	memset(bth + info->hdr_len + n, 0, pad);

	if (ackreq && !probe)
		req->ackreq_psn = at->psn;
	/*
	 * Only a packet that asks for an ACK is timed: one that does not
	 * waits for a later one to be acknowledged, and its sample would
	 * count the pace's gaps between them as round trip.
	 */
	if (rxc_psn_diff(at->psn, req->max_psn) < 0)
		rxc_stat_inc(rxc, RXC_STAT_RETRANSMITS);
	else if (ackreq)
		rxc_req_time_psn(req, at->psn);
	rxc_qp_send_pkt(qp, rxc_swqe_av(qp, w), skb, batch);
	return true;
}

/* PSNs a WQE occupies: one per packet, or one per read response. */
static u32 rxc_swqe_npkts(const struct rxc_swqe *w, u32 mtu)
{
	if (w->op == RXC_REQ_COMPARE_SWAP || w->op == RXC_REQ_FETCH_ADD)
		return 1;
	return max(DIV_ROUND_UP(w->length, mtu), 1U);
}

/*
 * May @w start now?  Fences, the read/atomic limit and the bytes of the
 * reads in flight may hold it.
 */
static bool rxc_req_may_start(struct rxc_qp *qp, struct rxc_swqe *w)
{
	u32 max_rd = max_t(u32, qp->attr.max_rd_atomic, 1);

	if (w->fence && qp->req.rd_atomic)
		return false;
	if (w->op == RXC_REQ_READ && qp->req.rd_bytes &&
	    (u64)qp->req.rd_bytes + w->length > RXC_READ_MAX_BYTES)
		return false;
	return !rxc_swqe_needs_response(w) || qp->req.rd_atomic < max_rd;
}

static void rxc_req_start_wqe(struct rxc_qp *qp, struct rxc_swqe *w, u32 mtu)
{
	w->started = true;
	w->first_psn = qp->req.psn;
	w->last_psn = rxc_psn_add(w->first_psn, rxc_swqe_npkts(w, mtu) - 1);
	w->retry_psn = w->first_psn - 1;
	qp->req.last_small = w->first_psn == w->last_psn;
	if (rxc_swqe_needs_response(w))
		qp->req.rd_atomic++;
	if (w->op == RXC_REQ_READ)
		qp->req.rd_bytes += w->length;
}

/* The next packet goes out with @psn; note the highest PSN ever sent. */
static void rxc_req_set_psn(struct rxc_req *req, u32 psn)
{
	req->psn = psn;
	if (rxc_psn_diff(psn, req->max_psn) > 0)
		req->max_psn = psn;
}

/* Move the cursor past a WQE whose packets are all out. */
static void rxc_req_next_wqe(struct rxc_qp *qp, struct rxc_swqe *w)
{
	struct rxc_req *req = &qp->req;

	if (qp->ibqp.qp_type == IB_QPT_RC)
		w->state = RXC_SWQE_SENT;
	else
		w->state = RXC_SWQE_DONE;	/* UC and UD are unacknowledged */
	rxc_req_set_psn(req, rxc_psn_add(w->last_psn, 1));
	req->cur = rxc_q_next(req->cur, qp->sq.q.mask);
	req->cur_off = 0;
}

static bool rxc_req_window_full(struct rxc_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC &&
	       rxc_cwnd_full(&qp->req.cwnd, qp->req.psn, qp->req.una);
}

/**
 * rxc_req_gathers - does @w, next to start, wait to leave in a batch?
 * @qp: the QP
 * @w: the WQE at the cursor
 *
 * On a path that takes batches (net/rxc_xmit.c), what a run sends costs
 * one pass of the output path and one doorbell of the NIC, so packets
 * that leave together cost far less each than packets that leave alone.
 * A stream of small messages posted one by one leaves one by one as long
 * as the window has room: each post starts a run of one packet.  So in
 * such a stream (the message before was of one packet too), a message of
 * one packet waits while RXC_GATHER_PSNS PSNs are in flight, and the ACK
 * that frees room lets out what waited by then as one batch: small
 * messages keep a window of their own.  Each asks for an ACK, so one is
 * due; the retransmit timer covers its loss, and where there is none
 * (timeout 0) nothing waits.  A longer message is a batch of its own, and
 * a small one behind it (a notice after a transfer) would only be
 * delayed: neither waits.
 *
 * Return: true when @w waits for an ACK.
 */
bool rxc_req_gathers(const struct rxc_qp *qp, const struct rxc_swqe *w)
{
	const struct rxc_req *req = &qp->req;

	return qp->ibqp.qp_type == IB_QPT_RC && qp->attr.timeout &&
	       req->batches && req->last_small && !w->started && !w->local &&
	       rxc_swqe_npkts(w, rxc_qp_mtu(qp)) == 1 &&
	       rxc_psn_diff(req->psn, req->una) >= RXC_GATHER_PSNS;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_req_gathers);

/* Execute a work request that sends nothing: LOCAL_INV or BIND_MW. */
static void rxc_req_local(struct rxc_qp *qp, struct rxc_swqe *w)
{
	enum ib_wc_status status;

	if (w->wr_opcode == IB_WR_BIND_MW)
		status = rxc_mw_bind(qp, &w->bind);
	else
		status = rxc_mw_invalidate(qp, w->ex);
	if (status != IB_WC_SUCCESS)
		rxc_dbg_qp(qp, "%s of key %#x failed\n",
			   w->wr_opcode == IB_WR_BIND_MW ? "bind" : "invalidate",
			   w->wr_opcode == IB_WR_BIND_MW ? w->bind.mw_rkey : w->ex);
	w->state = RXC_SWQE_DONE;
	w->status = status;
}

/* One step on the WQE at the cursor; false when the requester must wait. */
static bool rxc_req_step(struct rxc_qp *qp, u32 mtu,
			 struct rxc_pkt_batch *batch)
{
	struct rxc_req *req = &qp->req;
	struct rxc_swqe *w = &req->wqe[req->cur];
	struct rxc_req_pos cursor;

	if (w->local && w->state != RXC_SWQE_DONE)
		rxc_req_local(qp, w);
	/*
	 * Nothing behind a failed WQE may execute: its retirement moves the
	 * QP to ERR, which flushes the rest.
	 */
	if (w->state == RXC_SWQE_DONE && w->status != IB_WC_SUCCESS)
		return false;
	if (w->state == RXC_SWQE_DONE || w->local) {
		/*
		 * Failed validation, nothing to send, or acknowledged while a
		 * rewind had the cursor on it: step past it, and past its PSNs.
		 */
		if (w->started &&
		    rxc_psn_diff(rxc_psn_add(w->last_psn, 1), req->psn) > 0)
			rxc_req_set_psn(req, rxc_psn_add(w->last_psn, 1));
		w->state = RXC_SWQE_DONE;
		req->cur = rxc_q_next(req->cur, qp->sq.q.mask);
		req->cur_off = 0;
		return true;
	}
	if (!w->started) {
		if (!rxc_req_may_start(qp, w))
			return false;
		rxc_req_start_wqe(qp, w, mtu);
	}
	cursor = (struct rxc_req_pos){
		.idx = req->cur, .off = req->cur_off, .psn = req->psn,
	};
	if (!rxc_req_send_pkt(qp, w, &cursor, mtu, false, batch))
		return true;

	if (rxc_swqe_needs_response(w) ||
	    req->cur_off + rxc_req_payload(w, req->cur_off, mtu) >= w->length) {
		rxc_req_next_wqe(qp, w);
	} else {
		req->cur_off += mtu;
		rxc_req_set_psn(req, rxc_psn_add(req->psn, 1));
	}
	return true;
}

/* SQD finishes what started; only RTS starts new work. */
static bool rxc_req_state_sends(enum ib_qp_state state)
{
	return state == IB_QPS_RTS || state == IB_QPS_SQD;
}

/*
 * Has the requester a step it may take now (rxc_req_step())?  Fetches
 * what was posted since the last look.  A started WQE always has one:
 * its next packet, or the step past it.
 */
static bool rxc_req_has_step(struct rxc_qp *qp, enum ib_qp_state state)
{
	struct rxc_req *req = &qp->req;
	struct rxc_swqe *w;

	if (req->rnr_wait || req->pace.waiting || rxc_req_window_full(qp))
		return false;
	if (req->cur == req->tail)
		rxc_req_fetch(qp);
	if (req->cur == req->tail)
		return false;
	w = &req->wqe[req->cur];
	if (state == IB_QPS_SQD && !w->started)
		return false;
	if (w->state == RXC_SWQE_DONE)
		return w->status == IB_WC_SUCCESS;
	if (rxc_req_gathers(qp, w))
		return false;
	return w->started || w->local || rxc_req_may_start(qp, w);
}

/**
 * rxc_req_ready - may the requester send now?
 * @qp: the QP, in a run
 *
 * For a run whose budget stopped the requester: true when it had more
 * to send, which the next run is to do.
 */
bool rxc_req_ready(struct rxc_qp *qp)
{
	enum ib_qp_state state = rxc_qp_state(qp);

	return rxc_req_state_sends(state) && rxc_req_has_step(qp, state);
}

/*
 * What the next packet of @w costs the pace: its payload.  A read's
 * responses pay for themselves as they arrive (rxc_comp.c).
 */
static u32 rxc_req_pace_bytes(const struct rxc_swqe *w, u32 off, u32 mtu)
{
	if (w->state == RXC_SWQE_DONE || w->local || w->op == RXC_REQ_READ)
		return 0;
	return rxc_req_payload(w, off, mtu);
}

/*
 * Must the next packet wait for the pace (rxc_pace.c)?  Then the pace
 * timer is armed to end the wait.  The clock is read, and the rate set
 * anew, only when what the bucket held at the last reading is spent.
 */
static bool rxc_req_pace_wait(struct rxc_qp *qp, u32 mtu)
{
	struct rxc_req *req = &qp->req;
	struct rxc_pace *p = &req->pace;
	u32 bytes;
	u64 now;

	if (qp->ibqp.qp_type != IB_QPT_RC || !rxc_rto_estimated(&req->rto))
		return false;
	bytes = rxc_req_pace_bytes(&req->wqe[req->cur], req->cur_off, mtu);
	if (p->ps_per_byte && rxc_pace_take(p, bytes, p->seen_ns))
		return false;
	now = ktime_get_ns();
	rxc_pace_rate(p, req->rto.srtt_us, req->cwnd.size * mtu);
	if (rxc_pace_take(p, bytes, now))
		return false;
	p->waiting = true;
	rxc_stat_inc(to_rdev(qp->ibqp.device), RXC_STAT_PACE_WAITS);
	hrtimer_start(&req->pace_timer, ns_to_ktime(rxc_pace_wait_ns(p, now)),
		      HRTIMER_MODE_REL_SOFT);
	return true;
}

/* The pace timer fired: the requester may send its next burst. */
void rxc_req_pace_done(struct rxc_qp *qp)
{
	qp->req.pace.waiting = false;
}

/**
 * rxc_req_run - send packets for the posted WQEs
 * @qp: the QP
 * @budget: at most this many steps
 *
 * The packets of the run go out together at its end (see rxc_pkt_send()).
 *
 * Return: the steps taken.
 */
int rxc_req_run(struct rxc_qp *qp, int budget)
{
	enum ib_qp_state state = rxc_qp_state(qp);
	struct rxc_pkt_batch batch = {};
	struct rxc_req *req = &qp->req;
	u32 mtu = rxc_qp_mtu(qp);
	int n = 0;

	if (!rxc_req_state_sends(state))
		return 0;

	while (n < budget && rxc_req_has_step(qp, state)) {
		if (rxc_req_pace_wait(qp, mtu))
			break;
		if (!rxc_req_step(qp, mtu, &batch))
			break;
		n++;
	}
	/*
	 * Where the run's packets started a batch, the path takes them.  A
	 * run of steps that sent nothing (local WQEs, a failed route) turns
	 * gathering off until the next one that sends.
	 */
	if (n)
		req->batches = !!batch.head;
	rxc_pkt_flush(to_rdev(qp->ibqp.device), &batch);
	if (n && !test_bit(RXC_TASK_TURN, &qp->task_flags))
		set_bit(RXC_TASK_TURN, &qp->task_flags);
	if (n && !req->timer_armed)
		rxc_req_arm_timer(qp);
	return n;
}

/*
 * Find where @psn starts, in the first unacknowledged WQE that holds it,
 * and put that in @at.  Reads resume after the responses already placed.
 *
 * Return: that WQE, or NULL if none holds @psn.
 */
static struct rxc_swqe *rxc_req_seek(struct rxc_qp *qp, u32 psn,
				     struct rxc_req_pos *at)
{
	struct rxc_req *req = &qp->req;
	u32 mask = qp->sq.q.mask, mtu = rxc_qp_mtu(qp);
	struct rxc_swqe *w = NULL;
	u32 i;

	for (i = qp->sq.q.cons; i != req->tail; i = rxc_q_next(i, mask)) {
		w = &req->wqe[i];
		if (w->local)
			continue;
		if (!w->started)
			return NULL;
		if (w->state != RXC_SWQE_DONE &&
		    rxc_psn_diff(psn, w->last_psn) <= 0)
			break;
	}
	if (i == req->tail)
		return NULL;

	at->idx = i;
	if (w->op == RXC_REQ_READ) {
		at->off = w->resp_bytes;
		at->psn = rxc_psn_add(w->first_psn, w->resp_bytes / mtu);
	} else if (rxc_psn_diff(psn, w->first_psn) > 0) {
		at->off = rxc_psn_diff(psn, w->first_psn) * mtu;
		at->psn = psn;
	} else {
		at->off = 0;
		at->psn = w->first_psn;
	}
	return w;
}

/* Resend from @psn: everything from the WQE holding it goes out again. */
void rxc_req_rewind(struct rxc_qp *qp, u32 psn)
{
	struct rxc_req *req = &qp->req;
	struct rxc_req_pos at;
	u32 j;

	if (!rxc_req_seek(qp, psn, &at))
		return;
	req->cur = at.idx;
	req->cur_off = at.off;
	req->psn = at.psn;
	rxc_rto_rewound(&req->rto);
	/*
	 * Count the packets between ACK requests from here: the last one that
	 * asked may lie a whole window ahead, and a resent window without an
	 * ACK request gets no ACK from a responder that acknowledges only
	 * what asks, as rdma_rxe does.
	 */
	req->ackreq_psn = rxc_psn_add(req->psn, RXC_PSN_MASK);
	for (j = req->cur; j != req->tail &&
	     (req->wqe[j].started || req->wqe[j].local);
	     j = rxc_q_next(j, qp->sq.q.mask)) {
		if (req->wqe[j].state == RXC_SWQE_SENT)
			req->wqe[j].state = RXC_SWQE_QUEUED;
	}
}

/* The oldest unfinished WQE fails with @status; the QP will go to ERR. */
static void rxc_req_fail_oldest(struct rxc_qp *qp, enum ib_wc_status status)
{
	struct rxc_req *req = &qp->req;
	u32 i;

	for (i = qp->sq.q.cons; i != req->tail;
	     i = rxc_q_next(i, qp->sq.q.mask)) {
		if (req->wqe[i].state != RXC_SWQE_DONE) {
			rxc_swqe_fail(&req->wqe[i], status);
			return;
		}
	}
}

/* Spend one retry of @left, unless @forever; false if none was left. */
static bool rxc_req_use_retry(u8 *left, bool forever)
{
	if (forever)
		return true;
	if (!*left)
		return false;
	(*left)--;
	return true;
}

/**
 * rxc_req_spend_retry - spend one transport retry of @qp
 * @qp: an RC QP whose wait for progress timed out
 *
 * At retry_cnt 7 no retry is spent: a peer that is away for a while,
 * however long, is waited for.  A responder that will never accept a
 * packet again is found by far probes instead (rxc_req_responder_lost()).
 *
 * Return: false when none was left: the oldest WQE fails RETRY_EXC_ERR.
 */
bool rxc_req_spend_retry(struct rxc_qp *qp)
{
	return rxc_req_use_retry(&qp->req.retry_left,
				 qp->attr.retry_cnt == RXC_RETRY_FOREVER);
}
EXPORT_SYMBOL_IF_KUNIT(rxc_req_spend_retry);

/*
 * No progress for a probe's wait (rxc_rto.c): send the oldest
 * unacknowledged packet and the last one sent once more, each asking for
 * an ACK, and wait twice as long for the next probe.  The responder's
 * answers show where it stands:
 * - it had everything, only ACKs were lost: it acknowledges both;
 * - it missed the oldest and NAKed that once, and the NAK was lost: it
 *   takes the first as the packet it waits for, and the second, now out
 *   of sequence, draws a new NAK (rdma_rxe and rxc NAK once per gap and
 *   drop the rest silently, so the last packet alone would go unanswered);
 * - it missed a tail that nothing followed: the last packet draws the NAK;
 * - a read lost responses: the first asks for the rest of it again.
 * Two packets, not the window: a probe that fires while responses are
 * merely slow must not make the peer answer every read in flight again.
 * The cursor stays where it is, and no retry is spent.
 */
static void rxc_req_probe(struct rxc_qp *qp)
{
	struct rxc_req *req = &qp->req;
	u32 psns[2] = { req->una, rxc_psn_add(req->max_psn, RXC_PSN_MASK) };
	u32 sent = RXC_PSN_MASK + 1;	/* none */
	u32 mtu = rxc_qp_mtu(qp);
	struct rxc_req_pos at;
	struct rxc_swqe *w;
	int i;

	rxc_stat_inc(to_rdev(qp->ibqp.device), RXC_STAT_RETRANSMIT_PROBES);
	req->rto.probes++;
	rxc_rto_rewound(&req->rto);
	for (i = 0; i < ARRAY_SIZE(psns); i++) {
		w = rxc_req_seek(qp, psns[i], &at);
		/* A read at @una may hold both: ask for its rest once. */
		if (!w || at.psn == sent)
			continue;
		sent = at.psn;
		rxc_req_send_pkt(qp, w, &at, mtu, true, NULL);
	}
	rxc_req_set_timer(qp);
}

/*
 * A local ACK timeout: ask the responder where it stands.  A forged NAK
 * can acknowledge PSNs the responder never took; the responder then
 * waits for one of them, which the requester can never send again, and
 * drops all it sends, silently (Documentation/liveness.rst, "A responder
 * left behind").  Nothing the requester sees tells that from a peer that
 * is merely away, but the responder's answer to a duplicate does.  An
 * RDMA WRITE of nothing at half the PSN space less one before max_psn is
 * a duplicate for any responder that expects a PSN after it, up to
 * max_psn; IBA has a duplicate acknowledged again, not executed
 * (C9-105), and rdma_rxe and rxc name the last PSN they took.  The answer
 * goes to rxc_comp_far_answer().  A responder in step answers in the
 * window.
 */
static void rxc_req_far_probe(struct rxc_qp *qp)
{
	int opcode = RXC_OPCODE(RC, WRITE_ONLY);
	const struct rxc_opcode_info *info = rxc_opcode_info(opcode);
	struct rxc_dev *rxc = to_rdev(qp->ibqp.device);
	struct sk_buff *skb;
	u8 *bth, *reth;

	skb = rxc_pkt_new(rxc, &qp->av, info->hdr_len);
	if (!skb)
		return;
	bth = skb->data;
	qp->req.far_psn = rxc_psn_add(qp->req.max_psn, RXC_FAR_PSN_OFFSET);
	rxc_bth_init(bth, opcode, false, 0, RXC_DEFAULT_PKEY,
		     qp->attr.dest_qp_num, true, qp->req.far_psn);
	reth = bth + info->off[RXC_HDR_RETH];
	rxc_reth_set_va(reth, 0);
	rxc_reth_set_rkey(reth, 0);
	rxc_reth_set_len(reth, 0);
	qp->req.far_asked = true;
	rxc_stat_inc(rxc, RXC_STAT_FAR_PROBES);
	rxc_qp_send_pkt(qp, &qp->av, skb, NULL);
}

/* The retransmit timer fired: probe, or resend after a local ACK timeout. */
void rxc_req_timeout(struct rxc_qp *qp)
{
	struct rxc_dev *rxc = to_rdev(qp->ibqp.device);
	struct rxc_req *req = &qp->req;
	bool lost;

	/* Nothing in flight, or an RNR wait: a send starts a wait anew. */
	if (req->una == req->psn || req->rnr_wait) {
		req->timer_armed = false;
		return;
	}
	if (!req->timer_armed)
		return;
	/*
	 * The timer fired before the deadline: it was armed for an earlier
	 * one (rxc_req_timer_at()), or responses waited for this run and
	 * the run took them first, which moved the deadline on.  Only a
	 * full wait without progress is a loss; on a busy CPU, resending
	 * here would make the peer answer every read again while it still
	 * answers the first.
	 */
	if (time_before(jiffies, req->timer_due)) {
		mod_timer(&req->retrans_timer, req->timer_due);
		return;
	}
	switch (rxc_rto_fired(&req->rto,
			      !time_before(jiffies, rxc_req_wait_end(qp)))) {
	case RXC_RTO_LATE_PROBE:
		rxc_req_wait_begin(req);
		fallthrough;
	case RXC_RTO_PROBE:
		rxc_req_probe(qp);
		return;
	case RXC_RTO_TIMEOUT:
		break;
	}
	rxc_stat_inc(rxc, RXC_STAT_RETRANSMIT_TIMEOUTS);
	if (rxc_cwnd_timeout(&req->cwnd, req->max_psn))
		rxc_stat_inc(rxc, RXC_STAT_CWND_SHRINKS);
	lost = rxc_req_responder_lost(req);
	if (lost || !rxc_req_spend_retry(qp)) {
		rxc_stat_inc(rxc, RXC_STAT_RETRY_EXCEEDED);
		if (lost)
			rxc_dbg_qp(qp, "far probes: responder behind what was acknowledged\n");
		else
			rxc_dbg_qp(qp, "no ACK after %u retries\n",
				   qp->attr.retry_cnt);
		rxc_req_fail_oldest(qp, IB_WC_RETRY_EXC_ERR);
		return;
	}
	rxc_req_rewind(qp, req->una);
	rxc_req_far_probe(qp);
	rxc_req_arm_timer(qp);
}

/* RNR NAK timer values (IBA table 45), in microseconds. */
static const u32 rxc_rnr_usecs[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/**
 * rxc_req_rnr - the responder had no receive WQE for the message at @psn
 * @qp: the QP
 * @psn: the PSN the RNR NAK names
 * @timer: the NAK's 5-bit timer field
 */
void rxc_req_rnr(struct rxc_qp *qp, u32 psn, u8 timer)
{
	struct rxc_dev *rxc = to_rdev(qp->ibqp.device);
	struct rxc_req *req = &qp->req;

	rxc_stat_inc(rxc, RXC_STAT_RNR_NAKS_RCVD);
	if (!rxc_req_use_retry(&req->rnr_left,
			       qp->attr.rnr_retry == RXC_RETRY_FOREVER)) {
		rxc_stat_inc(rxc, RXC_STAT_RNR_RETRY_EXCEEDED);
		rxc_req_fail_oldest(qp, IB_WC_RNR_RETRY_EXC_ERR);
		return;
	}
	rxc_req_rewind(qp, psn);
	req->rnr_wait = true;
	req->timer_armed = false;
	mod_timer(&req->rnr_timer,
		  jiffies + usecs_to_jiffies(rxc_rnr_usecs[timer & 31]));
}

void rxc_req_rnr_done(struct rxc_qp *qp)
{
	qp->req.rnr_wait = false;
}
