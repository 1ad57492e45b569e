// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The QP task: the one context at a time that runs a QP's completer,
 * responder and requester.
 *
 * A run needs the QP's run claim (rxc_qp_claim()).  Whoever asks for a
 * run and wins the claim runs the transport at once, in its own context,
 * when that context allows it; a run asked for while the claim is held
 * is left to its holder, which goes round again.  Otherwise the QP's work
 * item (process context, on the rxc workqueue) makes the run.  So one
 * context at a time touches the transport state, which has no lock.
 *
 * Contexts of a run, all of them process context:
 * - the send doorbell of a user QP, in the system call;
 * - the run of another QP that loops a packet back to this one (nested,
 *   at most RXC_TASK_MAX_DEPTH runs deep);
 * - the work item: everything else (packets from the network, posts of
 *   kernel QPs, timers, runs a full budget left unfinished, modify_qp).
 * The UDP receive path (softirq) only queues: a transport run there
 * would make NET_RX processing long enough to be pushed to ksoftirqd,
 * where busy-polling applications starve it and the backlog overflows.
 * A run never sleeps (preemption is disabled) and leaves bottom halves
 * alone, so that the packets it sends through a veth are received while
 * it goes on.  It does at most RXC_TASK_BUDGET packets or sends, which
 * bounds the time it takes from a system call; what is left goes to the
 * work item, so that one busy QP cannot starve the others or the CPU.
 *
 * Kernel QPs do not run from post_send: their completion handlers may
 * take locks the caller of ib_post_send() holds.
 */
#include <linux/percpu.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "rxc.h"
#include "rxc_opcode.h"
#include "rxc_transport.h"
#include "verbs/rxc_verbs.h"

/* Packets or sends per run, and packets a QP may have waiting. */
#define RXC_TASK_BUDGET		64
#define RXC_MAX_QUEUED_PKTS	1024
/*
 * Runs nested on one CPU: a loopback packet reaches its QP from inside
 * the sender's run, and its answer comes back the same way; a deeper
 * chain waits for the work item.  Bounds the stack.
 */
#define RXC_TASK_MAX_DEPTH	2

static struct workqueue_struct *rxc_wq;
/*
 * Runs in progress on this CPU, nested ones included; read and changed
 * with preemption disabled.
 */
static DEFINE_PER_CPU(unsigned int, rxc_run_depth);

enum rxc_claim {
	RXC_CLAIM_WON,		/* the caller runs the transport now */
	RXC_CLAIM_BUSY,		/* the holder goes round again for it */
	RXC_CLAIM_STOPPED,	/* paused or dying: nothing runs */
};

static bool rxc_qp_stopped(struct rxc_qp *qp)
{
	return test_bit(RXC_TASK_DYING, &qp->task_flags) ||
	       test_bit(RXC_TASK_PAUSED, &qp->task_flags);
}

/*
 * Set or clear a stop flag (RXC_TASK_DYING, RXC_TASK_PAUSED) under the
 * claim's lock, so that a claim or an unclaim sees it consistently.
 */
static void rxc_qp_set_stop(struct rxc_qp *qp, int bit, bool on)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->task_lock, flags);
	if (on)
		set_bit(bit, &qp->task_flags);
	else
		clear_bit(bit, &qp->task_flags);
	spin_unlock_irqrestore(&qp->task_lock, flags);
}

/* Any context. */
static enum rxc_claim rxc_qp_claim(struct rxc_qp *qp)
{
	enum rxc_claim ret = RXC_CLAIM_WON;
	unsigned long flags;

	spin_lock_irqsave(&qp->task_lock, flags);
	if (rxc_qp_stopped(qp)) {
		ret = RXC_CLAIM_STOPPED;
	} else if (qp->task_owned) {
		qp->task_again = true;
		ret = RXC_CLAIM_BUSY;
	} else {
		qp->task_owned = true;
	}
	spin_unlock_irqrestore(&qp->task_lock, flags);
	return ret;
}

/*
 * The end of a pass.  Keeps the claim and returns true when the caller
 * is to go round again: work is left (@more) or was asked for meanwhile,
 * and the budget allows it.  Otherwise lets the claim go, hands left work
 * to the work item and wakes a pause waiting for the run to end.
 */
static bool rxc_qp_unclaim(struct rxc_qp *qp, bool more, bool budget_left)
{
	unsigned long flags;
	bool stopped, again;

	spin_lock_irqsave(&qp->task_lock, flags);
	stopped = rxc_qp_stopped(qp);
	again = (more || qp->task_again) && !stopped;
	qp->task_again = false;
	if (again && budget_left) {
		spin_unlock_irqrestore(&qp->task_lock, flags);
		return true;
	}
	qp->task_owned = false;
	if (again)
		queue_work(rxc_wq, &qp->task);
	/*
	 * Under the lock: a waiter that sees the claim free may free the
	 * QP as soon as it has the lock, so nothing here may touch it after.
	 */
	if (stopped)
		wake_up(&qp->task_idle);
	spin_unlock_irqrestore(&qp->task_lock, flags);
	return false;
}

/*
 * The next packet of @q that this QP may act on.  A connected QP drops
 * those that do not come from its peer (rxc_av_matches_pkt()); the
 * check runs here, in the task, because the path is transport state.
 *
 * The queue is looked at without its lock first: most passes find it
 * empty, and taking the lock turns interrupts off and on, which costs
 * more than the rest of an idle pass.  A packet queued just after the
 * look is not missed: rxc_qp_deliver() then asks for another pass.
 */
static struct sk_buff *rxc_qp_next_pkt(struct rxc_qp *qp,
				       struct sk_buff_head *q)
{
	enum ib_qp_type type = qp->ibqp.qp_type;
	struct sk_buff *skb;

	while (!skb_queue_empty_lockless(q) && (skb = skb_dequeue(q))) {
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

/* The QP's cached route serves its own address vector, not a UD AH's. */
void rxc_qp_send_pkt(struct rxc_qp *qp, const struct rxc_av *av,
		     struct sk_buff *skb)
{
	struct dst_cache *route = av == &qp->av ? &qp->route : NULL;

	rxc_pkt_send(to_rdev(qp->ibqp.device), av, qp->src_port, route, skb);
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
	return !skb_queue_empty_lockless(&qp->comp_pkts) ||
	       !skb_queue_empty_lockless(&qp->resp_pkts) || qp->resp.rd.active;
}

/*
 * One pass over the QP's work, spending from @budget (at least one unit,
 * so that passes that find nothing to do still end).
 *
 * Return: true when work is left.
 */
static bool rxc_qp_pass(struct rxc_qp *qp, int *budget)
{
	enum ib_qp_state state = rxc_qp_state(qp);
	int used = 0;

	if (state == IB_QPS_RESET || state == IB_QPS_INIT) {
		/* Nothing is received before RTR (IBA 10.3.1). */
		skb_queue_purge(&qp->comp_pkts);
		skb_queue_purge(&qp->resp_pkts);
		*budget -= 1;
		return false;
	}
	if (state != IB_QPS_ERR) {
		used += rxc_task_comp(qp, *budget);
		used += rxc_task_resp(qp, max(*budget - used, 1));
		if (rxc_qp_state(qp) != IB_QPS_ERR)
			used += rxc_req_run(qp, max(*budget - used, 1));
		/* UC and UD sends, and failed WQEs, finish without a reply. */
		rxc_comp_retire(qp);
	}
	*budget -= max(used, 1);
	if (rxc_qp_state(qp) == IB_QPS_ERR) {
		/* A flush pass (RXC_FLUSH_BUDGET per queue) is a whole run. */
		*budget = 0;
		return rxc_qp_drain(qp);
	}
	return *budget <= 0 || rxc_task_more(qp);
}

/*
 * The caller won the claim (rxc_qp_claim(), rxc_qp_deliver()) and cannot
 * be preempted.
 */
void rxc_qp_run_claimed(struct rxc_qp *qp)
{
	int budget = RXC_TASK_BUDGET;
	bool more;

	__this_cpu_inc(rxc_run_depth);
	do {
		more = rxc_qp_pass(qp, &budget);
	} while (rxc_qp_unclaim(qp, more, budget > 0));
	__this_cpu_dec(rxc_run_depth);
}

/*
 * Process context, new runs stopped (paused or dying): wait until no run
 * holds the claim.  The claim is read under its lock, which the last run
 * holds until it no longer touches the QP.
 */
static void rxc_qp_wait_idle(struct rxc_qp *qp)
{
	spin_lock_irq(&qp->task_lock);
	wait_event_lock_irq(qp->task_idle, !qp->task_owned, qp->task_lock);
	spin_unlock_irq(&qp->task_lock);
}

/* With preemption disabled: may a run start here and now? */
static bool rxc_qp_may_run_here(void)
{
	return in_task() && !irqs_disabled() &&
	       __this_cpu_read(rxc_run_depth) < RXC_TASK_MAX_DEPTH;
}

/* Any context: a run, by the holder of the claim or else the work item. */
void rxc_qp_sched(struct rxc_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->task_lock, flags);
	if (rxc_qp_stopped(qp))
		goto out;
	if (qp->task_owned)
		qp->task_again = true;
	else
		queue_work(rxc_wq, &qp->task);
out:
	spin_unlock_irqrestore(&qp->task_lock, flags);
}

/**
 * rxc_qp_kick - run the transport now, or have it run
 * @qp: the QP
 *
 * Process context, with no lock held that a completion or event handler
 * may take.
 */
void rxc_qp_kick(struct rxc_qp *qp)
{
	preempt_disable();
	if (!rxc_qp_may_run_here())
		rxc_qp_sched(qp);
	else if (rxc_qp_claim(qp) == RXC_CLAIM_WON)
		rxc_qp_run_claimed(qp);
	preempt_enable();
}

/**
 * rxc_qp_task_pause - keep every run off the transport state
 * @qp: the QP, its mutex held
 *
 * Process context.  Until rxc_qp_task_resume(), no run is in progress or
 * starts, so the caller may change the attributes, the address vector and
 * the requester and responder state that a run reads.  Packets and timer
 * expiries that arrive meanwhile wait in their queues and flag bits.
 * Runs call completion and event handlers without preemption, so a
 * handler cannot get here from inside a run.
 */
void rxc_qp_task_pause(struct rxc_qp *qp)
{
	rxc_qp_set_stop(qp, RXC_TASK_PAUSED, true);
	cancel_work_sync(&qp->task);
	rxc_qp_wait_idle(qp);
}

/* Process context: let runs start, and have one for what waited. */
void rxc_qp_task_resume(struct rxc_qp *qp)
{
	rxc_qp_set_stop(qp, RXC_TASK_PAUSED, false);
	rxc_qp_sched(qp);
}

/**
 * rxc_qp_deliver - queue a validated packet for its QP
 * @qp: the destination QP, kept alive by the caller (see rxc_recv())
 * @skb: the packet, rxc_skb_pkt() filled in; consumed
 *
 * Softirq context (the UDP receive path), or bottom halves disabled
 * inside a run that looped the packet back.
 *
 * Return: true when the caller, a run looping the packet back, won the
 * QP's run claim: it must call
 * rxc_qp_run_claimed() once it dropped its locks.  The claim keeps the
 * QP alive until then, since destroy waits for it.
 */
bool rxc_qp_deliver(struct rxc_qp *qp, struct sk_buff *skb)
{
	struct sk_buff_head *q = rxc_skb_pkt(skb)->mask & RXC_OPF_RESP ?
				 &qp->comp_pkts : &qp->resp_pkts;

	/* A peer flooding one QP must not pin unbounded memory. */
	if (skb_queue_len(q) >= RXC_MAX_QUEUED_PKTS) {
		rxc_stat_inc(to_rdev(qp->ibqp.device), RXC_STAT_RCV_QP_DROPPED);
		kfree_skb(skb);
		return false;
	}
	skb_queue_tail(q, skb);
	/* Inline only inside a run: never for a packet from the network. */
	if (__this_cpu_read(rxc_run_depth) && rxc_qp_may_run_here())
		return rxc_qp_claim(qp) == RXC_CLAIM_WON;
	rxc_qp_sched(qp);
	return false;
}

/* Process context, on the rxc workqueue. */
static void rxc_qp_task(struct work_struct *work)
{
	struct rxc_qp *qp = container_of(work, struct rxc_qp, task);

	preempt_disable();
	if (rxc_qp_claim(qp) == RXC_CLAIM_WON)
		rxc_qp_run_claimed(qp);
	preempt_enable();
}

/**
 * rxc_qp_task_flush - flush the queues of a QP in ERR, here and now
 * @qp: the QP, its mutex held and its task paused
 *
 * Process context.  Runs as many passes as full queues need, so that
 * flush completions are there when modify_qp returns, however fast
 * another thread posts.
 */
void rxc_qp_task_flush(struct rxc_qp *qp)
{
	u32 passes = (qp->sq.q.mask + qp->rq.q.mask) / RXC_FLUSH_BUDGET + 1;
	int budget;
	bool more;

	do {
		budget = RXC_TASK_BUDGET;
		preempt_disable();
		more = rxc_qp_pass(qp, &budget);
		preempt_enable();
		cond_resched();
	} while (more && --passes);
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
	enum ib_qp_type type = qp->ibqp.qp_type;
	bool ud = type == IB_QPT_UD || type == IB_QPT_GSI;

	qp->req.copy = kvmalloc(array_size(slots, 1U << qp->sq.q.log2_elem),
				GFP_KERNEL);
	qp->req.wqe = kvcalloc(slots, sizeof(*qp->req.wqe), GFP_KERNEL);
	if (ud)
		qp->req.ud_av = kvcalloc(slots, sizeof(*qp->req.ud_av),
					 GFP_KERNEL);
	qp->resp.sge = kcalloc(max(rsge, 1U), sizeof(*qp->resp.sge),
			       GFP_KERNEL);
	if (type == IB_QPT_RC) {
		qp->resp.atomic_slots = rxc->limits.max_rd_atomic;
		qp->resp.atomics = kcalloc(qp->resp.atomic_slots,
					   sizeof(*qp->resp.atomics),
					   GFP_KERNEL);
	}
	if (!qp->req.copy || !qp->req.wqe || (ud && !qp->req.ud_av) ||
	    !qp->resp.sge ||
	    (qp->resp.atomic_slots && !qp->resp.atomics) ||
	    dst_cache_init(&qp->route, GFP_KERNEL)) {
		rxc_qp_transport_destroy(qp);
		return -ENOMEM;
	}

	INIT_WORK(&qp->task, rxc_qp_task);
	spin_lock_init(&qp->task_lock);
	init_waitqueue_head(&qp->task_idle);
	skb_queue_head_init(&qp->resp_pkts);
	skb_queue_head_init(&qp->comp_pkts);
	timer_setup(&qp->req.retrans_timer, rxc_retrans_timer_fn, 0);
	timer_setup(&qp->req.rnr_timer, rxc_rnr_timer_fn, 0);
	return 0;
}

/*
 * Stop runs and the timers, the caller having stopped new runs (paused
 * or dying); each may restart the other.
 */
static void rxc_qp_quiesce(struct rxc_qp *qp)
{
	del_timer_sync(&qp->req.retrans_timer);
	del_timer_sync(&qp->req.rnr_timer);
	cancel_work_sync(&qp->task);
	rxc_qp_wait_idle(qp);
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
		rxc_qp_set_stop(qp, RXC_TASK_DYING, true);
		rxc_qp_quiesce(qp);
	}
	dst_cache_destroy(&qp->route);
	kfree(qp->resp.atomics);
	kfree(qp->resp.sge);
	kvfree(qp->req.ud_av);
	kvfree(qp->req.wqe);
	kvfree(qp->req.copy);
}

/*
 * Process context, from modify_qp to RESET with the task paused, after
 * the state changed and before the rings are emptied.
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
