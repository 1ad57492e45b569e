// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The QP task: one work item per QP runs its completer, responder and
 * requester in turn.
 *
 * Contexts:
 * - the task itself: process context, on the rxc workqueue; one run at a
 *   time per QP, which is what serializes the transport state;
 * - rxc_qp_deliver(): softirq (the UDP receive path) or the task of
 *   another QP (loopback), with bottom halves disabled;
 * - the retransmit and RNR timers: softirq; they only set a flag bit;
 * - verbs (doorbell, modify_qp, destroy_qp): process context; modify_qp
 *   pauses the task while it changes what the task reads.
 *
 * A run does a bounded amount of work and queues itself again when more
 * is left, so that one busy QP cannot starve the others or the CPU.
 */
#include <linux/workqueue.h>

#include "rxc.h"
#include "rxc_opcode.h"
#include "rxc_transport.h"
#include "verbs/rxc_verbs.h"

/* Packets or sends per run, and packets a QP may have waiting. */
#define RXC_TASK_BUDGET		64
#define RXC_MAX_QUEUED_PKTS	1024

static struct workqueue_struct *rxc_wq;

void rxc_qp_sched(struct rxc_qp *qp)
{
	if (!test_bit(RXC_TASK_DYING, &qp->task_flags) &&
	    !test_bit(RXC_TASK_PAUSED, &qp->task_flags))
		queue_work(rxc_wq, &qp->task);
}

/**
 * rxc_qp_task_pause - keep the QP task off the transport state
 * @qp: the QP, its mutex held
 *
 * Process context.  Until rxc_qp_task_resume(), no run is in progress or
 * starts, so the caller may change the attributes, the address vector and
 * the requester and responder state that a run reads.  Packets and timer
 * expiries that arrive meanwhile wait in their queues and flag bits.
 *
 * A run that is queued when the bit is set but has not started is
 * cancelled; one queued afterwards by a caller that tested the bit before
 * it was set starts after it is set, and returns at once.  The task itself
 * may get here (a kernel ULP that modifies the QP from the event handler
 * of an error the task raised) and must not wait for itself.
 */
void rxc_qp_task_pause(struct rxc_qp *qp)
{
	set_bit(RXC_TASK_PAUSED, &qp->task_flags);
	if (current_work() != &qp->task)
		cancel_work_sync(&qp->task);
}

/* Process context: let the task run, and run it for what waited. */
void rxc_qp_task_resume(struct rxc_qp *qp)
{
	clear_bit(RXC_TASK_PAUSED, &qp->task_flags);
	rxc_qp_sched(qp);
}

/**
 * rxc_qp_deliver - queue a validated packet for its QP's task
 * @qp: the destination QP, kept alive by the caller (see rxc_recv())
 * @skb: the packet, rxc_skb_pkt() filled in; consumed
 */
void rxc_qp_deliver(struct rxc_qp *qp, struct sk_buff *skb)
{
	struct sk_buff_head *q = rxc_skb_pkt(skb)->mask & RXC_OPF_RESP ?
				 &qp->comp_pkts : &qp->resp_pkts;

	/* A peer flooding one QP must not pin unbounded memory. */
	if (skb_queue_len(q) >= RXC_MAX_QUEUED_PKTS) {
		rxc_stat_inc(to_rdev(qp->ibqp.device), RXC_STAT_RCV_QP_DROPPED);
		kfree_skb(skb);
		return;
	}
	skb_queue_tail(q, skb);
	rxc_qp_sched(qp);
}

/*
 * The next packet of @q that this QP may act on.  A connected QP drops
 * those that do not come from its peer (rxc_av_matches_pkt()); the
 * check runs here, in the task, because the path is transport state.
 */
static struct sk_buff *rxc_qp_next_pkt(struct rxc_qp *qp,
				       struct sk_buff_head *q)
{
	enum ib_qp_type type = qp->ibqp.qp_type;
	struct sk_buff *skb;

	while ((skb = skb_dequeue(q))) {
		if ((type != IB_QPT_RC && type != IB_QPT_UC) ||
		    rxc_av_matches_pkt(&qp->av, skb))
			return skb;
		rxc_stat_inc(to_rdev(qp->ibqp.device), RXC_STAT_RCV_WRONG_PEER);
		rxc_dbg_qp(qp, "dropped a packet from another address\n");
		kfree_skb(skb);
	}
	return NULL;
}

/*
 * The payload bytes of one packet: a connected QP's snapshot, taken when
 * its path MTU was set; a UD message is one packet, which has to fit the
 * netdev as it is now.
 */
u32 rxc_qp_mtu(const struct rxc_qp *qp)
{
	const struct rxc_dev *rxc = to_rdev(qp->ibqp.device);

	if (qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC)
		return READ_ONCE(qp->mtu);
	return ib_mtu_enum_to_int(rxc_mtu_for_netdev(READ_ONCE(rxc->ndev->mtu)));
}

void rxc_qp_send_pkt(struct rxc_qp *qp, const struct rxc_av *av,
		     struct sk_buff *skb)
{
	rxc_pkt_send(to_rdev(qp->ibqp.device), av, qp->src_port, skb);
}

/*
 * The QP is in ERR: complete what finished, flush the rest, and stop.
 * Later posts are flushed by later runs.
 *
 * Return: true when the flush budget ran out with WQEs left.
 */
static bool rxc_qp_drain(struct rxc_qp *qp)
{
	struct sk_buff *skb;
	bool more;

	skb_queue_purge(&qp->resp_pkts);
	/*
	 * Responses that arrived before the error still finish their WQEs:
	 * a NAK that a QP looped back to itself says why it failed.
	 */
	while ((skb = rxc_qp_next_pkt(qp, &qp->comp_pkts)))
		rxc_comp_recv(qp, skb);
	del_timer(&qp->req.retrans_timer);
	del_timer(&qp->req.rnr_timer);

	rxc_comp_retire(qp);
	more = rxc_flush_sq(qp);
	qp->req.cur = qp->sq.q.cons;
	qp->req.tail = qp->sq.q.cons;
	qp->req.cur_off = 0;
	qp->req.rd_atomic = 0;
	qp->req.rnr_wait = false;

	rxc_resp_flush_rwqe(qp);
	more |= rxc_flush_rq(qp);
	qp->resp.rd.active = false;
	qp->resp.in_msg = false;
	return more;
}

/* Completer: ACKs and responses for our own requests. */
static int rxc_task_comp(struct rxc_qp *qp, int budget)
{
	struct sk_buff *skb;
	int n = 0;

	while (n < budget && (skb = rxc_qp_next_pkt(qp, &qp->comp_pkts))) {
		rxc_comp_recv(qp, skb);
		n++;
	}
	if (test_and_clear_bit(RXC_TASK_TIMEOUT, &qp->task_flags))
		rxc_req_timeout(qp);
	if (test_and_clear_bit(RXC_TASK_RNR_DONE, &qp->task_flags))
		rxc_req_rnr_done(qp);
	rxc_comp_retire(qp);
	return n;
}

/*
 * Responder: requests from the peer.  A read being answered goes first:
 * the requests behind it wait, since their responses must follow its own.
 */
static int rxc_task_resp(struct rxc_qp *qp, int budget)
{
	struct sk_buff *skb;
	int n = 0;

	for (;;) {
		n += rxc_resp_send_reads(qp, budget - n);
		if (n >= budget || qp->resp.rd.active)
			break;
		skb = rxc_qp_next_pkt(qp, &qp->resp_pkts);
		if (!skb)
			break;
		rxc_resp_recv(qp, skb);
		n++;
	}
	rxc_resp_flush_ack(qp);
	return n;
}

static bool rxc_task_more(struct rxc_qp *qp)
{
	return !skb_queue_empty(&qp->comp_pkts) ||
	       !skb_queue_empty(&qp->resp_pkts) || qp->resp.rd.active;
}

static void rxc_qp_task(struct work_struct *work)
{
	struct rxc_qp *qp = container_of(work, struct rxc_qp, task);
	int budget = RXC_TASK_BUDGET;
	enum ib_qp_state state;

	if (test_bit(RXC_TASK_PAUSED, &qp->task_flags))
		return;
	state = rxc_qp_state(qp);
	if (state == IB_QPS_RESET || state == IB_QPS_INIT) {
		/* Nothing is received before RTR (IBA 10.3.1). */
		skb_queue_purge(&qp->comp_pkts);
		skb_queue_purge(&qp->resp_pkts);
		return;
	}
	if (state != IB_QPS_ERR) {
		budget -= rxc_task_comp(qp, budget);
		budget -= rxc_task_resp(qp, max(budget, 1));
		if (rxc_qp_state(qp) != IB_QPS_ERR)
			budget -= rxc_req_run(qp, max(budget, 1));
		/* UC and UD sends, and failed WQEs, finish without a reply. */
		rxc_comp_retire(qp);
	}
	if (rxc_qp_state(qp) == IB_QPS_ERR) {
		if (rxc_qp_drain(qp))
			rxc_qp_sched(qp);
		return;
	}
	if (budget <= 0 || rxc_task_more(qp))
		rxc_qp_sched(qp);
}

static void rxc_retrans_timer_fn(struct timer_list *t)
{
	struct rxc_qp *qp = from_timer(qp, t, req.retrans_timer);

	set_bit(RXC_TASK_TIMEOUT, &qp->task_flags);
	rxc_qp_sched(qp);
}

static void rxc_rnr_timer_fn(struct timer_list *t)
{
	struct rxc_qp *qp = from_timer(qp, t, req.rnr_timer);

	set_bit(RXC_TASK_RNR_DONE, &qp->task_flags);
	rxc_qp_sched(qp);
}

/* Process context, from create_qp; the rings exist already. */
int rxc_qp_transport_create(struct rxc_qp *qp)
{
	u32 slots = qp->sq.q.mask + 1;
	u32 rsge = qp->srq ? qp->srq->max_sge : qp->rq.max_sge;
	struct rxc_dev *rxc = to_rdev(qp->ibqp.device);

	qp->req.copy = kvmalloc(array_size(slots, 1U << qp->sq.q.log2_elem),
				GFP_KERNEL);
	qp->req.wqe = kvcalloc(slots, sizeof(*qp->req.wqe), GFP_KERNEL);
	qp->resp.sge = kcalloc(max(rsge, 1U), sizeof(*qp->resp.sge),
			       GFP_KERNEL);
	if (qp->ibqp.qp_type == IB_QPT_RC) {
		qp->resp.atomic_slots = rxc->limits.max_rd_atomic;
		qp->resp.atomics = kcalloc(qp->resp.atomic_slots,
					   sizeof(*qp->resp.atomics),
					   GFP_KERNEL);
	}
	if (!qp->req.copy || !qp->req.wqe || !qp->resp.sge ||
	    (qp->resp.atomic_slots && !qp->resp.atomics)) {
		rxc_qp_transport_destroy(qp);
		return -ENOMEM;
	}

	INIT_WORK(&qp->task, rxc_qp_task);
	skb_queue_head_init(&qp->resp_pkts);
	skb_queue_head_init(&qp->comp_pkts);
	timer_setup(&qp->req.retrans_timer, rxc_retrans_timer_fn, 0);
	timer_setup(&qp->req.rnr_timer, rxc_rnr_timer_fn, 0);
	return 0;
}

/* Stop the task and the timers for good; each may restart the other. */
static void rxc_qp_quiesce(struct rxc_qp *qp)
{
	del_timer_sync(&qp->req.retrans_timer);
	del_timer_sync(&qp->req.rnr_timer);
	cancel_work_sync(&qp->task);
	del_timer_sync(&qp->req.retrans_timer);
	del_timer_sync(&qp->req.rnr_timer);
	skb_queue_purge(&qp->comp_pkts);
	skb_queue_purge(&qp->resp_pkts);
}

/*
 * Process context, from destroy_qp (and a failed create_qp) once the
 * receive path can no longer find the QP.
 */
void rxc_qp_transport_destroy(struct rxc_qp *qp)
{
	if (qp->req.wqe && qp->task.func) {
		set_bit(RXC_TASK_DYING, &qp->task_flags);
		rxc_qp_quiesce(qp);
	}
	kfree(qp->resp.atomics);
	kfree(qp->resp.sge);
	kvfree(qp->req.wqe);
	kvfree(qp->req.copy);
}

/*
 * Process context, from modify_qp to RESET, after the state changed (so
 * a run that starts now does nothing) and before the rings are emptied.
 */
void rxc_qp_transport_reset(struct rxc_qp *qp)
{
	rxc_qp_quiesce(qp);
	clear_bit(RXC_TASK_TIMEOUT, &qp->task_flags);
	clear_bit(RXC_TASK_RNR_DONE, &qp->task_flags);
	memset(qp->req.wqe, 0, (qp->sq.q.mask + 1) * sizeof(*qp->req.wqe));
	qp->req.cur_off = 0;
	qp->req.rd_atomic = 0;
	qp->req.rnr_wait = false;
	qp->resp.has_rwqe = false;
	qp->resp.in_msg = false;
	qp->resp.rd.active = false;
	if (qp->resp.atomics)
		memset(qp->resp.atomics, 0,
		       qp->resp.atomic_slots * sizeof(*qp->resp.atomics));
}

int rxc_transport_init(void)
{
	/* Storage ULPs may need the transport to free memory. */
	rxc_wq = alloc_workqueue("rxc", WQ_MEM_RECLAIM, 0);
	return rxc_wq ? 0 : -ENOMEM;
}

void rxc_transport_exit(void)
{
	destroy_workqueue(rxc_wq);
}
