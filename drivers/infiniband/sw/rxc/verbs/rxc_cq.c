// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion queues.
 *
 * A user CQ is a ring of struct ib_uverbs_wc that librxe polls without
 * entering the kernel; a kernel CQ is a ring of struct ib_wc that
 * rxc_poll_cq() drains.  rxc_cq_post() may run in any context (softirq
 * from the transport, process context from flushes), hence irqsave.
 */
#include <rdma/ib_user_verbs.h>

#include "rxc.h"
#include "rxc_verbs.h"

static u32 rxc_cqe_size(bool is_user)
{
	return is_user ? sizeof(struct ib_uverbs_wc) : sizeof(struct ib_wc);
}

static int rxc_cq_check_size(struct rxc_dev *rxc, unsigned int cqe)
{
	if (!cqe || cqe > rxc->limits.max_cqe) {
		rxc_dbg(rxc, "CQ size %u outside [1, %u]\n", cqe,
			rxc->limits.max_cqe);
		return -EINVAL;
	}
	return 0;
}

int rxc_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  RXC_CREATE_CQ_CTX *ctx)
{
	struct ib_udata *udata = rxc_create_cq_udata(ctx);
	struct rxc_dev *rxc = to_rdev(ibcq->device);
	struct rxc_cq *cq = to_rcq(ibcq);
	struct rxe_create_cq_resp resp = {};
	u32 n;
	int err;

	if (attr->flags) {
		rxc_dbg(rxc, "create_cq: flags %#x not supported\n",
			attr->flags);
		return -EOPNOTSUPP;
	}
	err = rxc_cq_check_size(rxc, attr->cqe);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp)) {
		rxc_dbg(rxc, "create_cq: response buffer too small\n");
		return -EINVAL;
	}

	err = rxc_res_get(rxc, RXC_RES_CQ);
	if (err)
		return err;

	spin_lock_init(&cq->lock);
	cq->is_user = !!udata;
	n = attr->cqe;
	err = rxc_queue_create(&cq->q, &n, rxc_cqe_size(cq->is_user),
			       RXC_QUEUE_TO_USER, udata, &resp.mi);
	if (err)
		goto err_res;

	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_ring;
	}

	ibcq->cqe = rxc_queue_capacity(&cq->q);
	return 0;

err_ring:
	rxc_queue_free(&cq->q);
err_res:
	rxc_res_put(rxc, RXC_RES_CQ);
	return err;
}

/*
 * Resize by moving the unpolled CQEs into a new ring.  The provider holds
 * its CQ lock across the call and maps the new ring afterwards, so user
 * space polls neither ring meanwhile.
 */
int rxc_resize_cq(struct ib_cq *ibcq, RXC_RESIZE_CQE_T cqe,
		  struct ib_udata *udata)
{
	struct rxc_dev *rxc = to_rdev(ibcq->device);
	struct rxc_cq *cq = to_rcq(ibcq);
	struct rxe_resize_cq_resp resp = {};
	struct rxc_queue q, old;
	unsigned long flags;
	u32 n;
	int err;

	err = rxc_cq_check_size(rxc, cqe);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp)) {
		rxc_dbg(rxc, "resize_cq: response buffer too small\n");
		return -EINVAL;
	}

	n = cqe;
	err = rxc_queue_create(&q, &n, rxc_cqe_size(cq->is_user),
			       RXC_QUEUE_TO_USER, udata, &resp.mi);
	if (err)
		return err;

	spin_lock_irqsave(&cq->lock, flags);
	err = rxc_queue_copy(&q, &cq->q);
	if (!err) {
		old = cq->q;
		cq->q = q;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	if (err) {
		rxc_dbg_cq(cq, "resize to %u would drop completions\n", cqe);
		rxc_queue_free(&q);
		return err;
	}
	rxc_queue_free(&old);
	ibcq->cqe = rxc_queue_capacity(&cq->q);

	/* The old ring is gone; a failed copy-out leaves the CQ usable. */
	return udata ? ib_copy_to_udata(udata, &resp, sizeof(resp)) : 0;
}

int rxc_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct rxc_cq *cq = to_rcq(ibcq);

	rxc_queue_free(&cq->q);
	rxc_res_put(to_rdev(ibcq->device), RXC_RES_CQ);
	return 0;
}

static void rxc_fill_uverbs_wc(struct ib_uverbs_wc *uwc, struct rxc_qp *qp,
			       const struct rxc_completion *c)
{
	memset(uwc, 0, sizeof(*uwc));
	uwc->wr_id = c->wr_id;
	uwc->status = c->status;
	uwc->opcode = c->opcode;
	uwc->byte_len = c->byte_len;
	uwc->ex.invalidate_rkey = c->ex;
	uwc->qp_num = qp->ibqp.qp_num;
	uwc->src_qp = c->src_qp;
	/* The network header type is for kernel users (ib_init_ah_from_wc). */
	uwc->wc_flags = c->wc_flags & ~IB_WC_WITH_NETWORK_HDR_TYPE;
	uwc->port_num = RXC_PORT;
}

static void rxc_fill_ib_wc(struct ib_wc *wc, struct rxc_qp *qp,
			   const struct rxc_completion *c)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = c->wr_id;
	wc->status = c->status;
	wc->opcode = c->opcode;
	wc->byte_len = c->byte_len;
	wc->ex.invalidate_rkey = c->ex;
	wc->qp = &qp->ibqp;
	wc->src_qp = c->src_qp;
	wc->wc_flags = c->wc_flags;
	wc->network_hdr_type = c->network_hdr_type;
	wc->port_num = RXC_PORT;
}

static void rxc_cq_overflow(struct rxc_cq *cq)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	rxc_stat_inc(to_rdev(cq->ibcq.device), RXC_STAT_CQ_OVERFLOWS);
	rxc_dbg_cq(cq, "overflow, completion dropped\n");
	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/**
 * rxc_cq_post - write one CQE and raise the completion event if armed
 * @cq: the CQ
 * @qp: the QP the completion belongs to
 * @c: the completion
 *
 * Return: 0, or -EOVERFLOW when the CQ is full; the CQE is then dropped
 * and the CQ's async event handler sees IB_EVENT_CQ_ERR.
 */
int rxc_cq_post(struct rxc_cq *cq, struct rxc_qp *qp,
		const struct rxc_completion *c)
{
	bool notify = false;
	unsigned long flags;
	void *slot;

	spin_lock_irqsave(&cq->lock, flags);
	slot = rxc_queue_tail(&cq->q);
	if (!slot) {
		spin_unlock_irqrestore(&cq->lock, flags);
		rxc_cq_overflow(cq);
		return -EOVERFLOW;
	}

	if (cq->is_user)
		rxc_fill_uverbs_wc(slot, qp, c);
	else
		rxc_fill_ib_wc(slot, qp, c);
	rxc_queue_push(&cq->q);

	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED &&
	     (c->solicited || c->status != IB_WC_SUCCESS))) {
		cq->notify = 0;
		notify = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	if (notify && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	return 0;
}

/* Kernel CQs only: user CQs are polled by the provider. */
int rxc_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct rxc_cq *cq = to_rcq(ibcq);
	unsigned long flags;
	struct ib_wc *cqe;
	int n;

	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num_entries; n++) {
		cqe = rxc_queue_head(&cq->q);
		if (!cqe)
			break;
		wc[n] = *cqe;
		rxc_queue_pop(&cq->q);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int rxc_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct rxc_cq *cq = to_rcq(ibcq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* NEXT_COMP includes solicited completions; never narrow it. */
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = flags & IB_CQ_SOLICITED_MASK;

	if (flags & IB_CQ_REPORT_MISSED_EVENTS) {
		rxc_queue_refresh(&cq->q);
		ret = rxc_queue_count(&cq->q) ? 1 : 0;
	}
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
