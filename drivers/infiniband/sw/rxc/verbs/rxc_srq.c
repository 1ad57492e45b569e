// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Shared receive queues.  User space posts into the ring directly; the
 * responder consumes under srq->lock.  Verbs here run in process context.
 */
#include <rdma/ib_user_verbs.h>

#include "rxc.h"
#include "rxc_verbs.h"

static u32 rxc_srq_wqe_size(u32 max_sge)
{
	return sizeof(struct rxe_recv_wqe) + max_sge * sizeof(struct rxe_sge);
}

static int rxc_srq_check_max_wr(struct rxc_dev *rxc, u32 max_wr)
{
	if (max_wr < 1 || max_wr > rxc->limits.max_srq_wr) {
		rxc_dbg(rxc, "SRQ size %u outside [1, %u]\n", max_wr,
			rxc->limits.max_srq_wr);
		return -EINVAL;
	}
	return 0;
}

int rxc_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata)
{
	struct rxc_dev *rxc = to_rdev(ibsrq->device);
	struct rxe_create_srq_resp resp = {};
	struct rxc_srq *srq = to_rsrq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	int err;

	if (init->srq_type != IB_SRQT_BASIC) {
		rxc_dbg(rxc, "create_srq: SRQ type %d not supported\n",
			init->srq_type);
		return -EOPNOTSUPP;
	}
	err = rxc_srq_check_max_wr(rxc, attr->max_wr);
	if (err)
		return err;
	if (attr->max_sge < 1 || attr->max_sge > rxc->limits.max_sge) {
		rxc_dbg(rxc, "create_srq: %u SGEs outside [1, %u]\n",
			attr->max_sge, rxc->limits.max_sge);
		return -EINVAL;
	}
	if (udata && udata->outlen < sizeof(resp)) {
		rxc_dbg(rxc, "create_srq: response buffer too small\n");
		return -EINVAL;
	}

	err = rxc_res_get(rxc, RXC_RES_SRQ);
	if (err)
		return err;

	spin_lock_init(&srq->lock);
	srq->max_sge = attr->max_sge;
	err = rxc_queue_create(&srq->q, &attr->max_wr,
			       rxc_srq_wqe_size(srq->max_sge),
			       RXC_QUEUE_TO_KERNEL, udata, &resp.mi);
	if (err)
		goto err_res;

	err = xa_alloc(&rxc->srq_xa, &srq->srq_num, srq, xa_limit_32b,
		       GFP_KERNEL_ACCOUNT);
	if (err)
		goto err_ring;

	if (udata) {
		resp.srq_num = srq->srq_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_xa;
	}
	/* The limit is armed only by modify_srq. */
	attr->srq_limit = 0;
	return 0;

err_xa:
	xa_erase(&rxc->srq_xa, srq->srq_num);
err_ring:
	rxc_queue_free(&srq->q);
err_res:
	rxc_res_put(rxc, RXC_RES_SRQ);
	return err;
}

/*
 * Grow or shrink the ring.  librxe passes where to write the new mmap
 * info; it is written before the switch so that a bad pointer leaves the
 * SRQ untouched.
 */
static int rxc_srq_resize(struct rxc_srq *srq, u32 max_wr,
			  struct ib_udata *udata)
{
	struct rxc_dev *rxc = to_rdev(srq->ibsrq.device);
	struct rxe_modify_srq_cmd cmd = {};
	struct rxc_queue q, old;
	struct mminfo mi = {};
	unsigned long flags;
	int err;

	err = rxc_srq_check_max_wr(rxc, max_wr);
	if (err)
		return err;
	if (udata) {
		err = ib_copy_from_udata(&cmd, udata, sizeof(cmd));
		if (err)
			return err;
	}

	err = rxc_queue_create(&q, &max_wr, rxc_srq_wqe_size(srq->max_sge),
			       RXC_QUEUE_TO_KERNEL, udata, &mi);
	if (err)
		return err;
	if (max_wr < srq->limit) {
		err = -EINVAL;
		goto err_ring;
	}
	if (udata && copy_to_user(u64_to_user_ptr(cmd.mmap_info_addr), &mi,
				  sizeof(mi))) {
		err = -EFAULT;
		goto err_ring;
	}

	spin_lock_irqsave(&srq->lock, flags);
	err = rxc_queue_copy(&q, &srq->q);
	if (!err) {
		old = srq->q;
		srq->q = q;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err)
		goto err_ring;
	rxc_queue_free(&old);
	return 0;

err_ring:
	rxc_dbg(rxc, "modify_srq: cannot resize to %u WRs (%d)\n", max_wr,
		err);
	rxc_queue_free(&q);
	return err;
}

int rxc_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct rxc_srq *srq = to_rsrq(ibsrq);
	unsigned long flags;
	int err;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;

	if (mask & IB_SRQ_MAX_WR) {
		err = rxc_srq_resize(srq, attr->max_wr, udata);
		if (err)
			return err;
	}

	if (mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit > rxc_queue_capacity(&srq->q)) {
			rxc_dbg(to_rdev(ibsrq->device),
				"modify_srq: limit %u exceeds size %u\n",
				attr->srq_limit, rxc_queue_capacity(&srq->q));
			return -EINVAL;
		}
		spin_lock_irqsave(&srq->lock, flags);
		srq->limit = attr->srq_limit;
		spin_unlock_irqrestore(&srq->lock, flags);
	}
	return 0;
}

int rxc_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct rxc_srq *srq = to_rsrq(ibsrq);
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	attr->max_wr = rxc_queue_capacity(&srq->q);
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

int rxc_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct rxc_dev *rxc = to_rdev(ibsrq->device);
	struct rxc_srq *srq = to_rsrq(ibsrq);

	xa_erase(&rxc->srq_xa, srq->srq_num);
	rxc_queue_free(&srq->q);
	rxc_res_put(rxc, RXC_RES_SRQ);
	return 0;
}
