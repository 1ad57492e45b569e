// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The QP task: the one context at a time that runs a QP's completer,
 * responder and requester.
 *
 * A run needs the QP's run claim (rxc_qp_claim()).  Whoever asks for a
 * run and wins the claim runs the transport at once, in its own context,
 * when that context allows it; a run asked for while the claim is held
 * is left to its holder, which goes round again.  Otherwise one of the
 * QP's three work items (process context) makes the run: @task on the
 * rxc workqueue, @net_task on the high-priority rxc_net one for packets
 * from the network, or @stream_task on the rxc_stream one for a doorbell
 * that streams.  So one context at a time touches the transport state,
 * which has no lock.
 *
 * Contexts of a run, all of them process context:
 * - the send doorbell of a user QP, in the system call, unless the
 *   doorbell streams (rxc_qp_doorbell());
 * - the run of another QP that loops a packet back to this one (nested,
 *   at most RXC_TASK_MAX_DEPTH runs deep), unless that QP streams;
 * - the work items: packets from the network on the bound rxc_net_wq;
 *   everything else (posts of kernel QPs, timers, runs a full budget left
 *   unfinished, modify_qp) on the bound rxc_wq; a streaming doorbell's on
 *   the unbound rxc_stream_wq, where the scheduler may place it beside
 *   the poster.
 * The UDP receive path (softirq) queues, with four exceptions: a long
 * transport run there would make NET_RX processing long enough to be
 * pushed to ksoftirqd, where busy-polling applications starve it and the
 * backlog overflows.  The exceptions, for a QP with nothing else queued,
 * are a read request whose answer is one packet, a one-packet message
 * that completes a receive or a one-packet RDMA WRITE while the QP takes
 * turns with its peer (a ping-pong), a pure ACK, and the last packet of a
 * read or atomic response (rxc_qp_run_softirq()).  Each run is one
 * packet, at most one MTU copied and at most one packet sent, and the hop
 * to a kworker and back was most of what such a packet cost its guest.
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
#include <linux/sched/clock.h>
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

/*
 * Doorbells this close together, from the end of one to the next, may
 * stream (rxc_qp_doorbell()).  Well above the gap between the posts of a
 * loop, even under TCG; doorbells further apart run inline.
 */
#define RXC_STREAM_GAP_NS	(500 * NSEC_PER_USEC)
/* A QP rung longer ago than this no longer counts among a CPU's QPs. */
#define RXC_STREAM_HIST_NS	(2 * NSEC_PER_MSEC)
/*
 * A CPU whose doorbells' stream runs found no CPU but it this many times
 * in a row runs its doorbells inline for RXC_STREAM_ALONE_NS
 * (rxc_qp_stream_placed()).  A few, so that one unlucky placement on a
 * host with CPUs to spare does not end the streams.
 */
#define RXC_STREAM_ALONE_RUNS	4
#define RXC_STREAM_ALONE_NS	(50 * NSEC_PER_MSEC)

/* Bound: runs stay on the CPU where the packet or the timer was. */
static struct workqueue_struct *rxc_wq;
/*
 * Bound and high priority, for packets from the network: an application
 * that busy-polls its CQ on the CPU they arrive on would otherwise get
 * half of it, as a nice 0 task beside a nice 0 kworker, and the
 * transport it waits for the other half; rdma_rxe's tasklets preempt it
 * outright.  One run's budget only, like a softirq's: what the run
 * leaves goes to rxc_wq, so that a long read or a flood of packets
 * cannot starve the CPU's tasks.  Nor for the rest: the runs of a peer
 * that a streaming QP feeds on this host would preempt that stream's
 * poster.
 */
static struct workqueue_struct *rxc_net_wq;
/* Unbound: a streaming doorbell's run may go to an idle CPU. */
static struct workqueue_struct *rxc_stream_wq;
/*
 * Runs in progress on this CPU, nested ones included; read and changed
 * with preemption disabled.
 */
static DEFINE_PER_CPU(unsigned int, rxc_run_depth);
/* The innermost run on this CPU is a streaming QP's; likewise. */
static DEFINE_PER_CPU(bool, rxc_run_streams);

/*
 * This CPU's doorbells: the last two QPs they rang, newest first (only
 * compared, never dereferenced: a QP freed since is a stale hint), when
 * each one's last doorbell ended, and when the CPU last rang a third QP
 * in a stream.  Then the stream runs of its doorbells that ran on it, in
 * a row, and when they last reached RXC_STREAM_ALONE_RUNS.  Read and
 * changed with preemption disabled, on this CPU; @alone_runs is also
 * reset from the CPU that a stream run found free.
 */
struct rxc_doorbell_hist {
	const struct rxc_qp *qp[2];
	u64 end_ns[2];
	u64 many_ns;
	unsigned int alone_runs;
	u64 alone_ns;
};

static DEFINE_PER_CPU(struct rxc_doorbell_hist, rxc_doorbell_hist);

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

/*
 * Any context.  @again: a claim held elsewhere asks its holder to go
 * round again.  A caller whose work is not queued yet must not ask: the
 * holder could go round before the work is there and then let it wait.
 */
static enum rxc_claim rxc_qp_claim_or(struct rxc_qp *qp, bool again)
{
	enum rxc_claim ret = RXC_CLAIM_WON;
	unsigned long flags;

	spin_lock_irqsave(&qp->task_lock, flags);
	if (rxc_qp_stopped(qp)) {
		ret = RXC_CLAIM_STOPPED;
	} else if (qp->task_owned) {
		qp->task_again |= again;
		ret = RXC_CLAIM_BUSY;
	} else {
		qp->task_owned = true;
	}
	spin_unlock_irqrestore(&qp->task_lock, flags);
	return ret;
}

static enum rxc_claim rxc_qp_claim(struct rxc_qp *qp)
{
	return rxc_qp_claim_or(qp, true);
}

/*
 * The end of a pass.  Keeps the claim and returns true when the caller
 * is to go round again: work is left (@more) or was asked for meanwhile,
 * and the budget allows it.  Otherwise lets the claim go, hands left work
 * to @work on @wq and wakes a pause waiting for the run to end.
 */
static bool rxc_qp_unclaim_to(struct rxc_qp *qp, bool more, bool budget_left,
			      struct workqueue_struct *wq,
			      struct work_struct *work)
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
		queue_work(wq, work);
	/*
	 * Under the lock: a waiter that sees the claim free may free the
	 * QP as soon as it has the lock, so nothing here may touch it after.
	 */
	if (stopped)
		wake_up(&qp->task_idle);
	spin_unlock_irqrestore(&qp->task_lock, flags);
	return false;
}

/* The end of a pass of a run in process context: leftovers go to rxc_wq. */
static bool rxc_qp_unclaim(struct rxc_qp *qp, bool more, bool budget_left)
{
	return rxc_qp_unclaim_to(qp, more, budget_left, rxc_wq, &qp->task);
}

/*
 * The next packet of @q.  The queue is looked at without its lock first:
 * most passes find it empty, and taking the lock turns interrupts off and
 * on, which costs more than the rest of an idle pass.  A packet queued
 * just after the look is not missed: rxc_qp_deliver() then asks for
 * another pass.
 */
static struct sk_buff *rxc_qp_next_pkt(struct sk_buff_head *q)
{
	return skb_queue_empty_lockless(q) ? NULL : skb_dequeue(q);
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

/*
 * The QP's cached route serves its own address vector, not a UD AH's.
 * So does @batch (NULL: send at once): a UD WQE's vector lives in a
 * slot that a later WQE may take over while the batch still waits.
 */
void rxc_qp_send_pkt(struct rxc_qp *qp, const struct rxc_av *av,
		     struct sk_buff *skb, struct rxc_pkt_batch *batch)
{
	bool own = av == &qp->av;

	rxc_pkt_send(to_rdev(qp->ibqp.device), av, qp->src_port,
		     own ? &qp->route : NULL, skb, own ? batch : NULL);
}

/*
 * Neither end has a message in flight any more: the requester sends from
 * the start of its next WQE with no read or RNR wait outstanding, and
 * the responder expects the first packet of a message.
 */
static void rxc_qp_forget_flight(struct rxc_qp *qp)
{
	qp->req.cur_off = 0;
	qp->req.rd_atomic = 0;
	qp->req.rd_bytes = 0;
	qp->req.rnr_wait = false;
	qp->req.pace.waiting = false;
	qp->resp.in_msg = false;
	qp->resp.rd.active = false;
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
	while ((skb = rxc_qp_next_pkt(&qp->comp_pkts)))
		rxc_comp_recv(qp, skb);
	timer_delete(&qp->req.retrans_timer);
	timer_delete(&qp->req.rnr_timer);
	hrtimer_try_to_cancel(&qp->req.pace_timer);

	/* The flush starts behind what finished: the next run goes on. */
	if (rxc_comp_retire(qp))
		return true;
	more = rxc_flush_sq(qp);
	qp->req.cur = qp->sq.q.cons;
	qp->req.tail = qp->sq.q.cons;
	rxc_qp_forget_flight(qp);

	rxc_resp_flush_rwqe(qp);
	more |= rxc_flush_rq(qp);
	return more;
}

/*
 * Take flag @bit of the task: true if it was set, and clear it.  Looked
 * at first: most passes find every flag clear, and a locked
 * read-modify-write each time costs more than the look.  A flag set just
 * after the look is not missed: whoever sets one asks for another pass.
 */
static bool rxc_task_take_flag(struct rxc_qp *qp, int bit)
{
	return test_bit(bit, &qp->task_flags) &&
	       test_and_clear_bit(bit, &qp->task_flags);
}

/*
 * The completer after its packets: the timers' flags, then retiring.
 * True when finished WQEs are left to retire (rxc_comp_retire()).
 */
static bool rxc_task_comp_end(struct rxc_qp *qp)
{
	if (rxc_task_take_flag(qp, RXC_TASK_TIMEOUT))
		rxc_req_timeout(qp);
	if (rxc_task_take_flag(qp, RXC_TASK_RNR_DONE))
		rxc_req_rnr_done(qp);
	if (rxc_task_take_flag(qp, RXC_TASK_PACE_DONE))
		rxc_req_pace_done(qp);
	return rxc_comp_retire(qp);
}

/* Completer: ACKs and responses for our own requests. */
static int rxc_task_comp(struct rxc_qp *qp, int budget)
{
	struct sk_buff *skb;
	int n = 0;

	while (n < budget && (skb = rxc_qp_next_pkt(&qp->comp_pkts))) {
		rxc_comp_recv(qp, skb);
		n++;
	}
	rxc_task_comp_end(qp);
	return n;
}

/*
 * The next request the responder may take: the oldest, unless a read is
 * being answered.  The requests behind that read wait, since their
 * answers must follow its responses; only one that asks for the same
 * read again goes first, and replaces it (rxc_resp_restarts_read()).
 * Other contexts only ever add packets at the tail, under the queue's
 * lock; only this run takes them out.
 */
static struct sk_buff *rxc_task_next_request(struct rxc_qp *qp)
{
	struct sk_buff_head *q = &qp->resp_pkts;
	struct sk_buff *skb, *found = NULL;
	unsigned long flags;

	if (!qp->resp.rd.active)
		return rxc_qp_next_pkt(q);
	if (skb_queue_empty_lockless(q))
		return NULL;
	spin_lock_irqsave(&q->lock, flags);
	skb_queue_walk(q, skb) {
		if (rxc_resp_restarts_read(qp, rxc_skb_pkt(skb))) {
			__skb_unlink(skb, q);
			found = skb;
			break;
		}
	}
	spin_unlock_irqrestore(&q->lock, flags);
	return found;
}

/*
 * Responder: requests from the peer.  A read being answered goes first:
 * the requests behind it wait, since their responses must follow its own
 * (rxc_task_next_request()).
 * Once a request (or the completer) has moved the QP to ERR, it executes
 * and answers nothing more (IBA 10.3.1): what is queued is the flush's to
 * purge, or a copy of the failed request that the peer resent would fail
 * it again, with another NAK and another counted error.
 */
static int rxc_task_resp(struct rxc_qp *qp, int budget)
{
	struct sk_buff *skb;
	int n = 0;

	for (;;) {
		if (rxc_qp_state(qp) == IB_QPS_ERR)
			break;
		n += rxc_resp_send_reads(qp, budget - n);
		if (n >= budget)
			break;
		skb = rxc_task_next_request(qp);
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
	bool retire_left = false;
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
		retire_left = rxc_comp_retire(qp);
	}
	*budget -= max(used, 1);
	/*
	 * A flush pass (RXC_FLUSH_BUDGET per queue), or a retire that spent
	 * its budget, is a whole run: the next one runs as a work item of
	 * its own, after whatever else waits for the CPU.
	 */
	if (rxc_qp_state(qp) == IB_QPS_ERR) {
		*budget = 0;
		return rxc_qp_drain(qp);
	}
	if (retire_left)
		*budget = 0;
	return *budget <= 0 || rxc_task_more(qp);
}

/*
 * In a run: has the QP WQEs posted and not yet retired?  A QP that
 * streamed and now only answers its peer runs that peer nested again.
 */
static bool rxc_qp_sq_busy(struct rxc_qp *qp)
{
	return rxc_queue_peek_prod(&qp->sq.q) != qp->sq.q.cons;
}

/*
 * The caller won the claim (rxc_qp_claim(), rxc_qp_deliver()) and cannot
 * be preempted.  Bottom halves are enabled: a run may send a long burst,
 * and the packets it sends through a veth are received meanwhile.
 */
void rxc_qp_run_claimed(struct rxc_qp *qp)
{
	bool outer = __this_cpu_read(rxc_run_streams);
	int budget = RXC_TASK_BUDGET;
	bool more;

	WARN_ON_ONCE(in_softirq());

	__this_cpu_inc(rxc_run_depth);
	__this_cpu_write(rxc_run_streams,
			 test_bit(RXC_TASK_STREAM, &qp->task_flags) &&
			 rxc_qp_sq_busy(qp));
	do {
		more = rxc_qp_pass(qp, &budget);
	} while (rxc_qp_unclaim(qp, more, budget > 0));
	__this_cpu_write(rxc_run_streams, outer);
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

/*
 * A run by the holder of the claim, or else by @work on @wq.  Each work
 * item has its own workqueue: one queued on two could run on both at
 * once, and cancel_work_sync() would wait for the last queueing only.
 */
static void rxc_qp_sched_on(struct rxc_qp *qp, struct workqueue_struct *wq,
			    struct work_struct *work)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->task_lock, flags);
	if (rxc_qp_stopped(qp))
		goto out;
	if (qp->task_owned)
		qp->task_again = true;
	else
		queue_work(wq, work);
out:
	spin_unlock_irqrestore(&qp->task_lock, flags);
}

/* Any context. */
void rxc_qp_sched(struct rxc_qp *qp)
{
	rxc_qp_sched_on(qp, rxc_wq, &qp->task);
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

/*
 * Is the newest WQE unsignaled?  It is in user memory: the flag is a
 * hint, which picks where the transport runs and nothing else.
 */
static bool rxc_qp_newest_unsignaled(struct rxc_qp *qp)
{
	const struct rxc_queue *q = &qp->sq.q;
	const struct rxe_send_wqe *wqe;

	if (qp->sq_sig_all)
		return false;
	wqe = rxc_queue_elem(q, rxc_queue_peek_prod(q) - 1);
	return !(READ_ONCE(wqe->wr.send_flags) & IB_SEND_SIGNALED);
}

/*
 * Is the doorbell one of a batch: for an unsignaled WQE, within
 * RXC_STREAM_GAP_NS of the end of the QP's previous doorbell, and with
 * no request from the peer since then?  A doorbell that follows the
 * peer's request is the next turn of a ping-pong (UCX's put_lat, a
 * perftest-like write round trip): its poster waited for that request,
 * and handing the run to a kworker would add a hop to every round trip,
 * however short, where no batch forms.  The flag is taken at every
 * doorbell, so it says what arrived since the last one.  A QP that
 * streams both ways runs inline only its doorbells that follow a
 * request; the ones posted back to back in between still stream.
 */
static bool rxc_qp_posts_batch(struct rxc_qp *qp, u64 now)
{
	bool answers = rxc_task_take_flag(qp, RXC_TASK_PEER_SENT);

	return !answers &&
	       now - atomic64_read(&qp->req.doorbell_ns) < RXC_STREAM_GAP_NS &&
	       rxc_qp_newest_unsignaled(qp);
}

/*
 * Is this CPU driving many QPs at once: has it, within RXC_STREAM_GAP_NS,
 * rung a QP that was neither of the two it rang last, both of them
 * recently, in a stream of doorbells?  Two QPs in turn are a ping-pong,
 * whose latency the inline run serves best; a window refilled on one QP
 * after another keeps the CPU driving many.
 */
static bool rxc_cpu_drives_many(const struct rxc_qp *qp, u64 now)
{
	struct rxc_doorbell_hist *h = get_cpu_ptr(&rxc_doorbell_hist);
	bool many;

	if (qp != h->qp[0] && qp != h->qp[1] && h->qp[1] &&
	    now - h->end_ns[0] < RXC_STREAM_GAP_NS &&
	    now - h->end_ns[1] < RXC_STREAM_HIST_NS)
		h->many_ns = now;
	many = h->many_ns && now - h->many_ns < RXC_STREAM_GAP_NS;
	if (qp != h->qp[0]) {
		h->qp[1] = h->qp[0];
		h->end_ns[1] = h->end_ns[0];
		h->qp[0] = qp;
	}
	put_cpu_ptr(&rxc_doorbell_hist);
	return many;
}

/* At the end of @qp's doorbell, for rxc_cpu_drives_many(). */
static void rxc_cpu_rang(const struct rxc_qp *qp, u64 now)
{
	struct rxc_doorbell_hist *h = get_cpu_ptr(&rxc_doorbell_hist);

	/* A doorbell that moved to another CPU leaves no trace there. */
	if (h->qp[0] == qp)
		h->end_ns[0] = now;
	put_cpu_ptr(&rxc_doorbell_hist);
}

/*
 * Is this CPU the only one online, or did the stream runs of its
 * doorbells lately find no CPU but it?  Then a streaming doorbell would
 * only hand the poster's CPU to a kworker, and the run would wait until
 * the poster, spinning on its CQ or counter, yields it: slower than
 * running inline.  A lone CPU is known at once: were it found by its
 * stream runs, the first few of every hold would each cost the poster
 * its time slice (a third of a one-vCPU guest's counted writes).
 */
static bool rxc_cpu_streams_alone(u64 now)
{
	struct rxc_doorbell_hist *h;
	bool alone;

	if (num_online_cpus() == 1)
		return true;
	h = get_cpu_ptr(&rxc_doorbell_hist);
	alone = h->alone_ns && now - h->alone_ns < RXC_STREAM_ALONE_NS;

	put_cpu_ptr(&rxc_doorbell_hist);
	return alone;
}

/*
 * Process context, on the rxc_stream workqueue, before the run: note
 * where the scheduler put it.  One CPU, or every CPU busy, and it is the
 * CPU of the doorbell that queued it.  That CPU is a hint, written
 * without the doorbell's preemption disabled: it may have moved since.
 */
static void rxc_qp_stream_placed(struct rxc_qp *qp)
{
	int cpu = READ_ONCE(qp->req.doorbell_cpu);
	struct rxc_doorbell_hist *h = get_cpu_ptr(&rxc_doorbell_hist);
	unsigned int runs;

	if (smp_processor_id() != cpu) {
		put_cpu_ptr(&rxc_doorbell_hist);
		WRITE_ONCE(per_cpu_ptr(&rxc_doorbell_hist, cpu)->alone_runs, 0);
		return;
	}
	runs = READ_ONCE(h->alone_runs) + 1;
	if (runs >= RXC_STREAM_ALONE_RUNS) {
		runs = 0;
		h->alone_ns = local_clock();
	}
	WRITE_ONCE(h->alone_runs, runs);
	put_cpu_ptr(&rxc_doorbell_hist);
}

/**
 * rxc_qp_doorbell - the send doorbell of a user QP
 * @qp: the QP
 *
 * Process context, in the system call.  A doorbell streams when the CPU
 * drives many QPs at once (rxc_cpu_drives_many()), or when it is for an
 * unsignaled WQE and rings within RXC_STREAM_GAP_NS of the end of the
 * QP's previous doorbell, no request from the peer between them
 * (rxc_qp_posts_batch()): a batch, where nobody waits for each WQE's
 * completion and a completion counter counts them as they go.  A
 * streaming doorbell returns at once and the QP's stream work item runs
 * the transport, on an idle CPU when there is one, each run taking what
 * was posted since the last, while the poster goes on.  While it has
 * WQEs outstanding, runs of a streaming QP queue the packets they loop
 * back (rxc_qp_deliver()) instead of running the peer nested, so the
 * peer takes them in batches and answers each with one ACK, and the
 * completer retires them together.  A doorbell that a pause keeps from
 * queueing its run still counts: the run follows the pause.  With one
 * CPU online, or where the stream runs find no other CPU
 * (rxc_cpu_streams_alone()), the CPU's doorbells run inline, streams or
 * not.  Every other doorbell runs the transport here and now, for the
 * lowest latency.  Gaps are timed from the end of a doorbell, so that a
 * slow inline run does not hide a stream.
 *
 * The gap subtracts local_clock() readings that two CPUs may have taken,
 * as the poster moves between them, and where the TSCs are not
 * synchronized those clocks disagree by up to a tick.  That is safe
 * because the gap only chooses where the transport runs, never what it
 * does: a gap read too long runs the doorbell inline (as does a negative
 * one, which wraps), and one read too short hands it to the stream work
 * item.  Every RC timing that decides what goes on the wire (round
 * trips, the pace) reads ktime_get_ns() instead.
 */
void rxc_qp_doorbell(struct rxc_qp *qp)
{
	u64 now = local_clock();
	bool batch = rxc_qp_posts_batch(qp, now);
	bool streams;

	streams = rxc_cpu_drives_many(qp, now) || batch;
	if (streams && rxc_cpu_streams_alone(now)) {
		rxc_stat_inc(to_rdev(qp->ibqp.device),
			     RXC_STAT_HELD_DOORBELLS);
		streams = false;
	}
	if (streams != test_bit(RXC_TASK_STREAM, &qp->task_flags))
		assign_bit(RXC_TASK_STREAM, &qp->task_flags, streams);
	if (streams) {
		WRITE_ONCE(qp->req.doorbell_cpu, raw_smp_processor_id());
		rxc_stat_inc(to_rdev(qp->ibqp.device),
			     RXC_STAT_STREAMED_DOORBELLS);
		rxc_qp_sched_on(qp, rxc_stream_wq, &qp->stream_task);
	} else {
		rxc_qp_kick(qp);
	}
	now = local_clock();
	atomic64_set(&qp->req.doorbell_ns, now);
	rxc_cpu_rang(qp, now);
}

static void rxc_qp_work_run(struct rxc_qp *qp)
{
	preempt_disable();
	if (rxc_qp_claim(qp) == RXC_CLAIM_WON)
		rxc_qp_run_claimed(qp);
	preempt_enable();
}

/* Process context, on the rxc workqueue. */
static void rxc_qp_task(struct work_struct *work)
{
	rxc_qp_work_run(container_of(work, struct rxc_qp, task));
}

/* Process context, on the rxc_net workqueue. */
static void rxc_qp_net_task(struct work_struct *work)
{
	rxc_qp_work_run(container_of(work, struct rxc_qp, net_task));
}

/* Process context, on the rxc_stream workqueue. */
static void rxc_qp_stream_task(struct work_struct *work)
{
	struct rxc_qp *qp = container_of(work, struct rxc_qp, stream_task);

	rxc_qp_stream_placed(qp);
	rxc_qp_work_run(qp);
}

/* Process context, new runs stopped: no work item is left. */
static void rxc_qp_cancel_work(struct rxc_qp *qp)
{
	cancel_work_sync(&qp->task);
	cancel_work_sync(&qp->net_task);
	cancel_work_sync(&qp->stream_task);
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
	rxc_qp_cancel_work(qp);
	rxc_qp_wait_idle(qp);
}

/* Process context: let runs start, and have one for what waited. */
void rxc_qp_task_resume(struct rxc_qp *qp)
{
	rxc_qp_set_stop(qp, RXC_TASK_PAUSED, false);
	rxc_qp_sched(qp);
}

/*
 * Is the QP connected to itself?  Then the requests its responder takes
 * are its own, and none is the peer's turn.  Two hosts' QPs may share a
 * number, never a GID.
 */
static bool rxc_qp_self_connected(const struct rxc_qp *qp)
{
	return qp->attr.dest_qp_num == qp->ibqp.qp_num &&
	       !memcmp(&qp->av.dgid, &qp->av.sgid, sizeof(qp->av.dgid));
}

/**
 * rxc_qp_peer_sent - note a request from the peer, for the next doorbell
 * @qp: the responder QP, connected
 *
 * In a run, or in the softirq that received the request.  The doorbell
 * that follows runs inline (rxc_qp_posts_batch()).
 */
void rxc_qp_peer_sent(struct rxc_qp *qp)
{
	if (!test_bit(RXC_TASK_PEER_SENT, &qp->task_flags) &&
	    !rxc_qp_self_connected(qp))
		set_bit(RXC_TASK_PEER_SENT, &qp->task_flags);
}

/*
 * A request from the network: has this QP sent one of its own since the
 * peer's last?  Then the two take turns (a ping-pong, a request and its
 * reply) rather than one streaming to the other, and the peer waits for
 * what this request completes.
 */
static bool rxc_qp_takes_turns(struct rxc_qp *qp)
{
	return rxc_task_take_flag(qp, RXC_TASK_TURN);
}

/* Is @pkt a response to a read, but not its last packet? */
static bool rxc_pkt_mid_read(const struct rxc_pkt_info *pkt)
{
	return (pkt->mask & RXC_OPF_RESP) && (pkt->mask & RXC_OPF_READ) &&
	       !(pkt->mask & RXC_OPF_LAST);
}

/*
 * Does @pkt end the response to a read or an atomic?  Its WQE then frees
 * one of the requests that max_rd_atomic allows in flight, which is what
 * a requester with reads queued behind that limit waits for.
 */
static bool rxc_pkt_ends_rd(const struct rxc_pkt_info *pkt)
{
	return (pkt->mask & RXC_OPF_RESP) && (pkt->mask & RXC_OPF_LAST) &&
	       (pkt->mask & (RXC_OPF_READ | RXC_OPF_ATOMIC));
}

/*
 * Is @pkt of a kind the softirq that received it may handle itself?
 * Only when the run is that packet and at most one answer or request,
 * and only where the hop to a kworker would cost a waiting peer or
 * poller the most:
 * - a read request whose answer is one packet;
 * - a one-packet message that completes a receive, or a one-packet RDMA
 *   WRITE, in a ping-pong: the peer waits for its data; the messages of
 *   a stream wait for the work item, whose runs take several and answer
 *   them with one ACK;
 * - a pure ACK, which retires what it acknowledges;
 * - a read response before its last packet: its payload lands in place
 *   and nothing answers it, so the hop would buy no batching, and a
 *   requester receiving a stream of reads paid a kworker's wake-up every
 *   dozen packets of a read;
 * - the last packet of a read response or an atomic's answer, which
 *   retires its WQE and lets the requester send the read or atomic that
 *   waited for its slot.
 */
static bool rxc_qp_softirq_kind(struct rxc_qp *qp,
				const struct rxc_pkt_info *pkt)
{
	const u8 *reth;
	bool turns;

	if (pkt->mask & RXC_OPF_RESP)
		return pkt->opcode == RXC_OPCODE(RC, ACK) ||
		       rxc_pkt_mid_read(pkt) || rxc_pkt_ends_rd(pkt);
	/* Every request ends a turn, a read request too. */
	turns = rxc_qp_takes_turns(qp);
	if (pkt->opcode == RXC_OPCODE(RC, READ_REQUEST)) {
		reth = rxc_pkt_hdr(pkt, RXC_HDR_RETH);
		return reth && rxc_reth_len(reth) <= rxc_qp_mtu(qp);
	}
	return turns && (pkt->mask & RXC_OPF_ONLY) == RXC_OPF_ONLY &&
	       (pkt->mask & (RXC_OPF_RECV_WQE | RXC_OPF_WRITE));
}

/*
 * May the softirq that received @pkt handle it itself?  Never for a QP
 * with a packet waiting, nor in a softirq that interrupted a run on this
 * CPU (the caller checks the depth), which may be this QP's.
 */
static bool rxc_qp_handles_in_softirq(struct rxc_qp *qp,
				      const struct rxc_pkt_info *pkt)
{
	return rxc_qp_softirq_kind(qp, pkt) && in_serving_softirq() &&
	       skb_queue_empty_lockless(&qp->resp_pkts) &&
	       skb_queue_empty_lockless(&qp->comp_pkts);
}

/*
 * With the claim won in softirq: may the softirq take @skb without
 * queueing it?  Not when a packet was queued meanwhile, which goes
 * first, nor for a request while a read is being answered: the requests
 * behind that read wait for its responses (rxc_task_resp()).
 */
static bool rxc_qp_softirq_takes(struct rxc_qp *qp, struct sk_buff *skb)
{
	return skb_queue_empty_lockless(&qp->resp_pkts) &&
	       skb_queue_empty_lockless(&qp->comp_pkts) &&
	       ((rxc_skb_pkt(skb)->mask & RXC_OPF_RESP) || !qp->resp.rd.active);
}

/*
 * After the end of a read or atomic response, handled in softirq and its
 * WQE retired: send the one request, if any, that the freed slot lets
 * out.  The requester's further packets are the work item's.
 */
static bool rxc_qp_softirq_rd_done(struct rxc_qp *qp)
{
	if (rxc_qp_state(qp) != IB_QPS_ERR) {
		rxc_req_run(qp, 1);
		if (rxc_comp_retire(qp))	/* a local WQE that failed */
			return true;
	}
	return rxc_req_ready(qp);
}

/* A request handled in softirq, then its answer: one packet at most. */
static void rxc_qp_softirq_request(struct rxc_qp *qp, struct sk_buff *skb)
{
	rxc_resp_recv(qp, skb);
	if (rxc_qp_state(qp) != IB_QPS_ERR)
		rxc_resp_send_reads(qp, 1);
	rxc_resp_flush_ack(qp);
}

/*
 * Handle @skb, which rxc_qp_handles_in_softirq() let in; true if the QP
 * has more to do, which is the work item's: after an ACK, that is
 * whatever the requester may now send or resend.
 */
static bool rxc_qp_softirq_pass(struct rxc_qp *qp, struct sk_buff *skb)
{
	const struct rxc_pkt_info *pkt = rxc_skb_pkt(skb);
	bool ends_rd = rxc_pkt_ends_rd(pkt), mid_read = rxc_pkt_mid_read(pkt);
	bool more = false;

	if (pkt->mask & RXC_OPF_RESP) {
		rxc_comp_recv(qp, skb);
		/* What is left to retire is the work item's, in process context. */
		if (rxc_task_comp_end(qp))
			more = true;
		else if (ends_rd)
			more = rxc_qp_softirq_rd_done(qp);
		else if (mid_read)
			more = rxc_req_ready(qp);	/* after a gap, the rest */
		else
			more = rxc_qp_sq_busy(qp);
	} else {
		rxc_qp_softirq_request(qp, skb);
	}
	return more || rxc_qp_state(qp) == IB_QPS_ERR || rxc_task_more(qp);
}

/* The queue a packet from the network waits in for its QP's run. */
static struct sk_buff_head *rxc_qp_pkt_queue(struct rxc_qp *qp,
					     struct sk_buff *skb)
{
	return rxc_skb_pkt(skb)->mask & RXC_OPF_RESP ? &qp->comp_pkts :
						       &qp->resp_pkts;
}

/**
 * rxc_qp_run_softirq - handle a packet in the softirq that received it
 * @qp: the QP, whose run claim the caller won in rxc_qp_deliver()
 *
 * Softirq context, the UDP receive path.  Runs the completer or the
 * responder for the packet and its answer only, or the request that the
 * end of a read or atomic response lets out; a QP that is not receiving,
 * or has anything else to do by then, has it done by the work item for
 * packets from the network.  The packet is @qp->softirq_pkt, or none when
 * rxc_qp_deliver() queued it after all.
 */
void rxc_qp_run_softirq(struct rxc_qp *qp)
{
	enum ib_qp_state state = rxc_qp_state(qp);
	struct sk_buff *skb = qp->softirq_pkt;
	bool more = true;

	qp->softirq_pkt = NULL;
	if (!skb)
		goto out;	/* rxc_qp_deliver() queued it after all */
	__this_cpu_inc(rxc_run_depth);
	if (state == IB_QPS_RTR || state == IB_QPS_RTS ||
	    state == IB_QPS_SQD || state == IB_QPS_SQE) {
		rxc_stat_inc(to_rdev(qp->ibqp.device), RXC_STAT_RCV_IN_SOFTIRQ);
		more = rxc_qp_softirq_pass(qp, skb);
	} else {
		/* Ahead of what was queued since the claim: it came first. */
		skb_queue_head(rxc_qp_pkt_queue(qp, skb), skb);
	}
	__this_cpu_dec(rxc_run_depth);
out:
	rxc_qp_unclaim_to(qp, more, false, rxc_net_wq, &qp->net_task);
}

/**
 * rxc_qp_deliver - queue a validated packet for its QP, or keep it aside
 * @qp: the destination QP, kept alive by the caller (see rxc_recv())
 * @skb: the packet, rxc_skb_pkt() filled in; consumed
 *
 * Softirq context (the UDP receive path), or bottom halves disabled
 * inside a run that looped the packet back.
 *
 * Return: true when the caller won the QP's run claim: it must call
 * rxc_qp_run_claimed() (a run looping the packet back) or
 * rxc_qp_run_softirq() (the UDP receive path) once it dropped its locks.
 * The claim keeps the QP alive until then, since destroy waits for it.
 * A packet that the UDP receive path is to handle itself is then kept in
 * @qp->softirq_pkt instead of a queue.
 */
bool rxc_qp_deliver(struct rxc_qp *qp, struct sk_buff *skb)
{
	struct sk_buff_head *q = rxc_qp_pkt_queue(qp, skb);
	unsigned int depth = __this_cpu_read(rxc_run_depth);
	enum rxc_claim claim;

	/*
	 * A peer flooding one QP must not pin unbounded memory.  A bound,
	 * not an exact count: the queue's lock is taken only to queue.
	 */
	if (skb_queue_len_lockless(q) >= RXC_MAX_QUEUED_PKTS) {
		rxc_stat_inc(to_rdev(qp->ibqp.device), RXC_STAT_RCV_QP_DROPPED);
		kfree_skb(skb);
		return false;
	}
	/*
	 * A packet the softirq may handle is claimed for before it is
	 * queued, and is not queued at all when the claim is won: the
	 * queue's lock turns interrupts off and on twice more per packet,
	 * which the profile of small reads showed at both ends.
	 */
	if (!depth && rxc_qp_handles_in_softirq(qp, rxc_skb_pkt(skb))) {
		claim = rxc_qp_claim_or(qp, false);
		if (claim == RXC_CLAIM_WON && rxc_qp_softirq_takes(qp, skb)) {
			qp->softirq_pkt = skb;
			return true;
		}
		skb_queue_tail(q, skb);
		if (claim == RXC_CLAIM_BUSY)
			rxc_qp_sched_on(qp, rxc_net_wq, &qp->net_task);
		return claim == RXC_CLAIM_WON;
	}
	skb_queue_tail(q, skb);
	/*
	 * Inline only inside a run: never for a packet from the network, nor
	 * for one a streaming QP sent, which waits for the rest of its batch.
	 * A packet whose softirq interrupted a run on this CPU cannot be told
	 * from one that run looped back through a veth: both go to rxc_wq.
	 */
	if (depth && !__this_cpu_read(rxc_run_streams) &&
	    rxc_qp_may_run_here())
		return rxc_qp_claim(qp) == RXC_CLAIM_WON;
	if (depth)
		rxc_qp_sched(qp);
	else
		rxc_qp_sched_on(qp, rxc_net_wq, &qp->net_task);
	return false;
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
	struct rxc_qp *qp = container_of(t, struct rxc_qp, req.retrans_timer);

	set_bit(RXC_TASK_TIMEOUT, &qp->task_flags);
	rxc_qp_sched(qp);
}

static void rxc_rnr_timer_fn(struct timer_list *t)
{
	struct rxc_qp *qp = container_of(t, struct rxc_qp, req.rnr_timer);

	set_bit(RXC_TASK_RNR_DONE, &qp->task_flags);
	rxc_qp_sched(qp);
}

/* Softirq, like the timers above (HRTIMER_MODE_REL_SOFT). */
static enum hrtimer_restart rxc_pace_timer_fn(struct hrtimer *t)
{
	struct rxc_qp *qp = container_of(t, struct rxc_qp, req.pace_timer);

	set_bit(RXC_TASK_PACE_DONE, &qp->task_flags);
	rxc_qp_sched(qp);
	return HRTIMER_NORESTART;
}

static void rxc_req_free(struct rxc_qp *qp)
{
	kvfree(qp->req.ud_av);
	kvfree(qp->req.wqe);
	kvfree(qp->req.copy);
	qp->req.ud_av = NULL;
	qp->req.wqe = NULL;
	qp->req.copy = NULL;
}

/**
 * rxc_req_alloc - the requester's copies of the send queue
 * @qp: a QP about to enter RTS, its mutex held
 *
 * Most of a QP's slab is here: a private copy of every send ring slot and
 * the requester's view of each.  Only a QP that can send reads WQEs out
 * of its ring (rxc_req_fetch(), from RTS on), so a QP gets them when it
 * first enters RTS and keeps them until it is destroyed: one that never
 * sends, or waits in RESET, INIT or RTR, pins about what rdma_rxe's
 * does.  Process context; charged to the caller's memory cgroup
 * (RXC_GFP_USER_SIZED).
 *
 * Return: 0, or -ENOMEM with nothing allocated.
 */
int rxc_req_alloc(struct rxc_qp *qp)
{
	enum ib_qp_type type = qp->ibqp.qp_type;
	bool ud = type == IB_QPT_UD || type == IB_QPT_GSI;
	u32 slots = qp->sq.q.mask + 1;
	struct rxc_req *req = &qp->req;

	if (req->wqe)
		return 0;
	req->copy = kvmalloc(array_size(slots, 1U << qp->sq.q.log2_elem),
			     RXC_GFP_USER_SIZED);
	req->wqe = kvcalloc(slots, sizeof(*req->wqe), RXC_GFP_USER_SIZED);
	if (ud)
		req->ud_av = kvcalloc(slots, sizeof(*req->ud_av),
				      RXC_GFP_USER_SIZED);
	if (req->copy && req->wqe && (!ud || req->ud_av))
		return 0;
	rxc_req_free(qp);
	return -ENOMEM;
}

/*
 * Process context, from create_qp; the rings exist already.  Charged to
 * the caller's memory cgroup, like everything a user can have allocated.
 * The requester's part comes later (rxc_req_alloc()).
 */
int rxc_qp_transport_create(struct rxc_qp *qp)
{
	u32 rsge = qp->srq ? qp->srq->max_sge : qp->rq.max_sge;
	struct rxc_dev *rxc = to_rdev(qp->ibqp.device);

	qp->resp.sge = kcalloc(max(rsge, 1U), sizeof(*qp->resp.sge),
			       GFP_KERNEL_ACCOUNT);
	if (qp->ibqp.qp_type == IB_QPT_RC) {
		qp->resp.atomic_slots = rxc->limits.max_rd_atomic;
		qp->resp.atomics = kcalloc(qp->resp.atomic_slots,
					   sizeof(*qp->resp.atomics),
					   GFP_KERNEL_ACCOUNT);
	}
	if (!qp->resp.sge || (qp->resp.atomic_slots && !qp->resp.atomics) ||
	    dst_cache_init(&qp->route, GFP_KERNEL_ACCOUNT)) {
		rxc_qp_transport_destroy(qp);
		return -ENOMEM;
	}

	INIT_WORK(&qp->task, rxc_qp_task);
	INIT_WORK(&qp->net_task, rxc_qp_net_task);
	INIT_WORK(&qp->stream_task, rxc_qp_stream_task);
	spin_lock_init(&qp->task_lock);
	init_waitqueue_head(&qp->task_idle);
	skb_queue_head_init(&qp->resp_pkts);
	skb_queue_head_init(&qp->comp_pkts);
	timer_setup(&qp->req.retrans_timer, rxc_retrans_timer_fn, 0);
	timer_setup(&qp->req.rnr_timer, rxc_rnr_timer_fn, 0);
	rxc_hrtimer_setup(&qp->req.pace_timer, rxc_pace_timer_fn,
			  CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	return 0;
}

/*
 * Stop runs and the timers, the caller having stopped new runs (paused
 * or dying); each may restart the other.
 */
static void rxc_qp_quiesce(struct rxc_qp *qp)
{
	timer_delete_sync(&qp->req.retrans_timer);
	timer_delete_sync(&qp->req.rnr_timer);
	hrtimer_cancel(&qp->req.pace_timer);
	rxc_qp_cancel_work(qp);
	rxc_qp_wait_idle(qp);
	timer_delete_sync(&qp->req.retrans_timer);
	timer_delete_sync(&qp->req.rnr_timer);
	hrtimer_cancel(&qp->req.pace_timer);
	skb_queue_purge(&qp->comp_pkts);
	skb_queue_purge(&qp->resp_pkts);
}

/*
 * Process context, from destroy_qp (and a failed create_qp) once the
 * receive path can no longer find the QP.
 */
void rxc_qp_transport_destroy(struct rxc_qp *qp)
{
	/* The work items exist once transport_create succeeded. */
	if (qp->task.func) {
		rxc_qp_set_stop(qp, RXC_TASK_DYING, true);
		rxc_qp_quiesce(qp);
	}
	dst_cache_destroy(&qp->route);
	kfree(qp->resp.atomics);
	kfree(qp->resp.sge);
	rxc_req_free(qp);
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
	clear_bit(RXC_TASK_PACE_DONE, &qp->task_flags);
	if (qp->req.wqe)
		memset(qp->req.wqe, 0,
		       (qp->sq.q.mask + 1) * sizeof(*qp->req.wqe));
	rxc_qp_forget_flight(qp);
	qp->resp.has_rwqe = false;
	if (qp->resp.atomics)
		memset(qp->resp.atomics, 0,
		       qp->resp.atomic_slots * sizeof(*qp->resp.atomics));
}

int rxc_transport_init(void)
{
	/* Storage ULPs may need the transport to free memory. */
	rxc_wq = alloc_workqueue("rxc", RXC_WQ_PERCPU | WQ_MEM_RECLAIM, 0);
	if (!rxc_wq)
		return -ENOMEM;
	rxc_net_wq = alloc_workqueue("rxc_net",
				     RXC_WQ_PERCPU | WQ_MEM_RECLAIM | WQ_HIGHPRI,
				     0);
	if (!rxc_net_wq)
		goto err_wq;
	rxc_stream_wq = alloc_workqueue("rxc_stream",
					WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!rxc_stream_wq)
		goto err_net_wq;
	return 0;

err_net_wq:
	destroy_workqueue(rxc_net_wq);
err_wq:
	destroy_workqueue(rxc_wq);
	return -ENOMEM;
}

void rxc_transport_exit(void)
{
	destroy_workqueue(rxc_stream_wq);
	destroy_workqueue(rxc_net_wq);
	destroy_workqueue(rxc_wq);
}
