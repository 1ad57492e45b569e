// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The completion path.  Every work request leaves its queue through
 * rxc_complete_wr(), whether or not it produces a CQE, so that accounting
 * attached to a QP (statistics, and completion counters) sees unsignaled
 * and flushed work requests too.
 *
 * Context: the QP task (rxc_task.c), which runs the requester, the
 * responder and the completer, and flushes the queues of a QP in ERR.
 */
#include <rdma/ib_verbs.h>

#include "rxc.h"
#include "rxc_transport.h"
#include "verbs/rxc_verbs.h"

/* Indexed by IB_WR_* (the same numbers as IBV_WR_* and IB_UVERBS_WR_*). */
static const u8 rxc_wc_opcode[] = {
	[IB_WR_RDMA_WRITE] = IB_WC_RDMA_WRITE,
	[IB_WR_RDMA_WRITE_WITH_IMM] = IB_WC_RDMA_WRITE,
	[IB_WR_SEND] = IB_WC_SEND,
	[IB_WR_SEND_WITH_IMM] = IB_WC_SEND,
	[IB_WR_RDMA_READ] = IB_WC_RDMA_READ,
	[IB_WR_ATOMIC_CMP_AND_SWP] = IB_WC_COMP_SWAP,
	[IB_WR_ATOMIC_FETCH_AND_ADD] = IB_WC_FETCH_ADD,
	[IB_WR_LOCAL_INV] = IB_WC_LOCAL_INV,
	[IB_WR_BIND_MW] = IB_WC_BIND_MW,
	[IB_WR_SEND_WITH_INV] = IB_WC_SEND,
	[IB_WR_RDMA_READ_WITH_INV] = IB_WC_RDMA_READ,
	[RXC_WR_ATOMIC_WRITE] = RXC_WC_ATOMIC_WRITE,
};

/* Opcodes come from user-writable WQEs: unknown ones map to SEND. */
enum ib_wc_opcode rxc_wr_to_wc_opcode(u32 wr_opcode)
{
	if (wr_opcode >= ARRAY_SIZE(rxc_wc_opcode))
		return IB_WC_SEND;
	return rxc_wc_opcode[wr_opcode];
}

/**
 * rxc_complete_wr - retire one work request
 * @qp: the QP whose send or receive queue held it
 * @c: what happened
 *
 * A CQE is written for every error and for every signaled success.
 * Completion counters count every work request, signaled or not.
 */
void rxc_complete_wr(struct rxc_qp *qp, const struct rxc_completion *c)
{
	struct rxc_dev *rxc = to_rdev(qp->ibqp.device);

	rxc_stat_inc(rxc, RXC_STAT_COMPLETIONS);
	if (c->status == IB_WC_WR_FLUSH_ERR)
		rxc_stat_inc(rxc, RXC_STAT_FLUSHED);
	rxc_cntr_complete(qp, c);

	if (c->status == IB_WC_SUCCESS && !c->signaled) {
		rxc_stat_inc(rxc, RXC_STAT_UNSIGNALED);
		return;
	}
	/*
	 * A CQ that overflowed is in error, and so are the QPs that complete
	 * into it: the task flushes this one.
	 */
	if (rxc_cq_post(c->recv ? qp->rcq : qp->scq, qp, c) == -EOVERFLOW)
		rxc_qp_fatal(qp, IB_EVENT_QP_FATAL);
}

/* Work requests taken off a queue per hold of its lock: bounds IRQs off. */
#define RXC_FLUSH_BATCH		16

/* What a flush CQE needs of one WQE, read once from the ring. */
struct rxc_flushed {
	u64 wr_id;
	enum ib_wc_opcode opcode;
};

static void rxc_flush_read(const struct rxc_queue *q, bool recv,
			   struct rxc_flushed *f)
{
	if (recv) {
		const struct rxe_recv_wqe *wqe = rxc_queue_elem(q, q->cons);

		f->wr_id = READ_ONCE(wqe->wr_id);
		f->opcode = IB_WC_RECV;
	} else {
		const struct rxe_send_wqe *wqe = rxc_queue_elem(q, q->cons);

		f->wr_id = READ_ONCE(wqe->wr.wr_id);
		f->opcode = rxc_wr_to_wc_opcode(READ_ONCE(wqe->wr.opcode));
	}
}

/*
 * Take @n of the WQEs queued when the flush began.  The producer index is
 * not read again: user space may move it at any time, and only the count
 * taken at the start says which slots hold WQEs.
 */
static void rxc_flush_take(struct rxc_wq *wq, bool recv, u32 n,
			   struct rxc_flushed *f)
{
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&wq->lock, flags);
	for (i = 0; i < n; i++) {
		rxc_flush_read(&wq->q, recv, &f[i]);
		rxc_queue_pop(&wq->q);
	}
	spin_unlock_irqrestore(&wq->lock, flags);
}

/*
 * Flush what was queued when the flush began, in batches, with the CQEs
 * written outside the queue's lock.  Work posted meanwhile waits for the
 * next run, so a process posting in a loop cannot keep the kernel here.
 *
 * Return: true when WQEs are left for another run.
 */
static bool rxc_flush_wq(struct rxc_qp *qp, struct rxc_wq *wq, bool recv)
{
	struct rxc_completion c = {
		.status = IB_WC_WR_FLUSH_ERR,
		.recv = recv,
		.signaled = true,
	};
	struct rxc_flushed f[RXC_FLUSH_BATCH];
	u32 left, n, i, done = 0;
	unsigned long flags;

	spin_lock_irqsave(&wq->lock, flags);
	rxc_queue_refresh(&wq->q);
	left = rxc_queue_count(&wq->q);
	spin_unlock_irqrestore(&wq->lock, flags);

	while (left && done < RXC_FLUSH_BUDGET) {
		n = min_t(u32, left, RXC_FLUSH_BATCH);
		rxc_flush_take(wq, recv, n, f);
		for (i = 0; i < n; i++) {
			c.wr_id = f[i].wr_id;
			c.opcode = f[i].opcode;
			rxc_complete_wr(qp, &c);
		}
		left -= n;
		done += n;
	}
	return left;
}

bool rxc_flush_sq(struct rxc_qp *qp)
{
	return rxc_flush_wq(qp, &qp->sq, false);
}

/* SRQ work belongs to the SRQ, not to the QP, and is not flushed. */
bool rxc_flush_rq(struct rxc_qp *qp)
{
	return !qp->srq && rxc_flush_wq(qp, &qp->rq, true);
}
