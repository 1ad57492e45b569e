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
	rxc_cq_post(c->recv ? qp->rcq : qp->scq, qp, c);
}

/*
 * Flush what is queued now.  Work posted while flushing is left for the
 * next doorbell, so a user process posting in a loop cannot keep the
 * kernel here.
 */
static void rxc_flush_wq(struct rxc_qp *qp, struct rxc_wq *wq, bool recv)
{
	struct rxc_completion c = {
		.status = IB_WC_WR_FLUSH_ERR,
		.recv = recv,
		.signaled = true,
	};
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(&wq->lock, flags);
	rxc_queue_refresh(&wq->q);
	for (n = rxc_queue_count(&wq->q); n; n--) {
		if (recv) {
			struct rxe_recv_wqe *wqe = rxc_queue_head(&wq->q);

			c.wr_id = READ_ONCE(wqe->wr_id);
			c.opcode = IB_WC_RECV;
		} else {
			struct rxe_send_wqe *wqe = rxc_queue_head(&wq->q);

			c.wr_id = READ_ONCE(wqe->wr.wr_id);
			c.opcode = rxc_wr_to_wc_opcode(READ_ONCE(wqe->wr.opcode));
		}
		rxc_queue_pop(&wq->q);
		rxc_complete_wr(qp, &c);
	}
	spin_unlock_irqrestore(&wq->lock, flags);
}

void rxc_flush_sq(struct rxc_qp *qp)
{
	rxc_flush_wq(qp, &qp->sq, false);
}

/* SRQ work belongs to the SRQ, not to the QP, and is not flushed. */
void rxc_flush_rq(struct rxc_qp *qp)
{
	if (!qp->srq)
		rxc_flush_wq(qp, &qp->rq, true);
}
