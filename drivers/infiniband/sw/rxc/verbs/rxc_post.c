// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Posting work requests.
 *
 * User QPs write their WQEs into the shared rings themselves (librxe) and
 * only ring the send doorbell.  Kernel QPs (the GSI QP of ib_mad, kernel
 * ULPs) post through here; their WRs are translated into the same WQE
 * format, so the transport reads one format whoever posted.
 *
 * Kernel consumers may post from any context, so the ring locks are taken
 * with irqsave.
 */
#include <rdma/ib_verbs.h>

#include "rxc.h"
#include "rxc_verbs.h"

static bool rxc_wr_is_atomic(const struct ib_send_wr *wr)
{
	return wr->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       wr->opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

static int rxc_check_send_wr(struct rxc_qp *qp, const struct ib_send_wr *wr,
			     u32 *length)
{
	u32 len = 0;
	int i;

	if (!rxc_wr_opcode_ok(qp->ibqp.qp_type, wr->opcode) ||
	    wr->opcode == RXC_WR_ATOMIC_WRITE) {
		rxc_dbg_qp(qp, "post_send: opcode %d not supported\n",
			   wr->opcode);
		return -EINVAL;
	}
	if (wr->num_sge < 0 || wr->num_sge > qp->sq.max_sge) {
		rxc_dbg_qp(qp, "post_send: %d SGEs, at most %u\n",
			   wr->num_sge, qp->sq.max_sge);
		return -EINVAL;
	}
	for (i = 0; i < wr->num_sge; i++) {
		if (check_add_overflow(len, wr->sg_list[i].length, &len))
			return -EINVAL;
	}
	if ((wr->send_flags & IB_SEND_INLINE) && len > qp->sq.max_inline) {
		rxc_dbg_qp(qp, "post_send: %u inline bytes, at most %u\n",
			   len, qp->sq.max_inline);
		return -EINVAL;
	}
	if (rxc_wr_is_atomic(wr) && (len < sizeof(u64) ||
				     atomic_wr(wr)->remote_addr & 7)) {
		rxc_dbg_qp(qp, "post_send: misaligned or short atomic\n");
		return -EINVAL;
	}
	*length = len;
	return 0;
}

/* The opcode-specific part of the WQE. */
static void rxc_fill_send_wr(struct rxc_qp *qp, struct rxe_send_wqe *wqe,
			     const struct ib_send_wr *wr)
{
	struct rxe_send_wr *w = &wqe->wr;

	switch (wr->opcode) {
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		w->ex.invalidate_rkey = wr->ex.invalidate_rkey;
		break;
	default:
		w->ex.imm_data = wr->ex.imm_data;
		break;
	}

	if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI) {
		w->wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		w->wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		w->wr.ud.pkey_index = ud_wr(wr)->pkey_index;
		w->wr.ud.ah_num = to_rah(ud_wr(wr)->ah)->ah_num;
	} else if (rxc_wr_is_atomic(wr)) {
		w->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		w->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		w->wr.atomic.swap = atomic_wr(wr)->swap;
		w->wr.atomic.rkey = atomic_wr(wr)->rkey;
		wqe->iova = atomic_wr(wr)->remote_addr;
	} else if (wr->opcode == IB_WR_RDMA_WRITE ||
		   wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM ||
		   wr->opcode == IB_WR_RDMA_READ) {
		w->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		w->wr.rdma.rkey = rdma_wr(wr)->rkey;
		wqe->iova = rdma_wr(wr)->remote_addr;
	}
}

/* Scatter/gather list, or the data itself for inline sends. */
static void rxc_fill_send_data(struct rxe_send_wqe *wqe,
			       const struct ib_send_wr *wr, u32 length)
{
	u8 *p = wqe->dma.inline_data;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		const struct ib_sge *sge = &wr->sg_list[i];

		if (wr->send_flags & IB_SEND_INLINE) {
			memcpy(p, (void *)(uintptr_t)sge->addr, sge->length);
			p += sge->length;
		} else {
			wqe->dma.sge[i].addr = sge->addr;
			wqe->dma.sge[i].length = sge->length;
			wqe->dma.sge[i].lkey = sge->lkey;
		}
	}
	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->dma.num_sge = wr->num_sge;
}

static int rxc_post_one_send(struct rxc_qp *qp, const struct ib_send_wr *wr)
{
	struct rxe_send_wqe *wqe;
	u32 length;
	int err;

	err = rxc_check_send_wr(qp, wr, &length);
	if (err)
		return err;

	wqe = rxc_queue_tail(&qp->sq.q);
	if (!wqe)
		return -ENOMEM;

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr.wr_id = wr->wr_id;
	wqe->wr.opcode = wr->opcode;
	wqe->wr.send_flags = wr->send_flags;
	rxc_fill_send_wr(qp, wqe, wr);
	rxc_fill_send_data(wqe, wr, length);
	rxc_queue_push(&qp->sq.q);
	return 0;
}

static int rxc_post_kernel_send(struct rxc_qp *qp, const struct ib_send_wr *wr,
				const struct ib_send_wr **bad_wr)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&qp->sq.lock, flags);
	for (; wr; wr = wr->next) {
		err = rxc_post_one_send(qp, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	return err;
}

/*
 * The send queue is processed only in RTS and SQD; in ERR everything
 * posted is flushed.  For user QPs, @wr is NULL: the provider has already
 * written the WQEs and this call is its doorbell.
 */
int rxc_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr)
{
	struct rxc_qp *qp = to_rqp(ibqp);
	enum ib_qp_state state = rxc_qp_state(qp);
	int err = 0;

	if (state != IB_QPS_RTS && state != IB_QPS_SQD &&
	    state != IB_QPS_ERR) {
		rxc_dbg_qp(qp, "post_send in state %d\n", state);
		if (wr)
			*bad_wr = wr;
		return -EINVAL;
	}

	if (wr) {
		if (ibqp->uobject) {
			*bad_wr = wr;
			return -EOPNOTSUPP;
		}
		err = rxc_post_kernel_send(qp, wr, bad_wr);
	}

	/*
	 * The QP task sends, or flushes in ERR: at once for a user QP's
	 * doorbell; a kernel caller may hold locks its handlers take.
	 */
	if (ibqp->uobject)
		rxc_qp_doorbell(qp);
	else
		rxc_qp_sched(qp);
	return err;
}

static int rxc_post_one_recv(struct rxc_queue *q, u32 max_sge,
			     const struct ib_recv_wr *wr)
{
	struct rxe_recv_wqe *wqe;
	u32 len = 0;
	int i;

	if (wr->num_sge < 0 || wr->num_sge > max_sge)
		return -EINVAL;

	wqe = rxc_queue_tail(q);
	if (!wqe)
		return -ENOMEM;

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	for (i = 0; i < wr->num_sge; i++) {
		if (check_add_overflow(len, wr->sg_list[i].length, &len))
			return -EINVAL;
		wqe->dma.sge[i].addr = wr->sg_list[i].addr;
		wqe->dma.sge[i].length = wr->sg_list[i].length;
		wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
	}
	wqe->dma.length = len;
	wqe->dma.resid = len;
	wqe->dma.num_sge = wr->num_sge;
	rxc_queue_push(q);
	return 0;
}

/* Post a chain of receives to @q under @lock. */
static int rxc_post_recv_chain(spinlock_t *lock, struct rxc_queue *q,
			       u32 max_sge, const struct ib_recv_wr *wr,
			       const struct ib_recv_wr **bad_wr)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(lock, flags);
	for (; wr; wr = wr->next) {
		err = rxc_post_one_recv(q, max_sge, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(lock, flags);
	return err;
}

/* Kernel QPs only: librxe posts user receives into the ring itself. */
int rxc_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr)
{
	struct rxc_qp *qp = to_rqp(ibqp);
	enum ib_qp_state state = rxc_qp_state(qp);
	int err;

	if (qp->srq || ibqp->uobject || state == IB_QPS_RESET) {
		rxc_dbg_qp(qp, "post_recv refused (state %d)\n", state);
		*bad_wr = wr;
		return -EINVAL;
	}

	err = rxc_post_recv_chain(&qp->rq.lock, &qp->rq.q, qp->rq.max_sge, wr,
				  bad_wr);
	if (state == IB_QPS_ERR)
		rxc_qp_sched(qp);	/* which flushes them */
	return err;
}

int rxc_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct rxc_srq *srq = to_rsrq(ibsrq);

	if (ibsrq->uobject) {
		*bad_wr = wr;
		return -EINVAL;
	}
	return rxc_post_recv_chain(&srq->lock, &srq->q, srq->max_sge, wr,
				   bad_wr);
}
