// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Queue pairs: creation with the rings librxe maps, the state machine of
 * modify_qp, query and destruction.  All verbs here run in process context
 * under qp->mutex; the transport reads the state under qp->state_lock.
 */
#include <rdma/ib_user_verbs.h>

#include "rxc.h"
#include "rxc_verbs.h"

#define RXC_MAX_TIMEOUT		31
#define RXC_MAX_RETRY		7
#define RXC_MAX_RNR_TIMER	31
#define RXC_QPN_MASK		0xffffff
#define RXC_QP_ACCESS_FLAGS	(IB_ACCESS_LOCAL_WRITE | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC | \
				 IB_ACCESS_MW_BIND)

/*
 * modify_qp moves the QP from @from to @to, unless the transport moved it
 * to ERR meanwhile: only RESET and ERR may follow that.
 */
static int rxc_qp_move(struct rxc_qp *qp, enum ib_qp_state from,
		       enum ib_qp_state to)
{
	int err = 0;

	spin_lock_bh(&qp->state_lock);
	if (qp->attr.qp_state != from && to != IB_QPS_RESET &&
	    to != IB_QPS_ERR)
		err = -EINVAL;
	else
		WRITE_ONCE(qp->attr.qp_state, to);
	spin_unlock_bh(&qp->state_lock);
	return err;
}

/**
 * rxc_qp_error - the transport failed the QP: move it to ERR
 * @qp: the QP
 *
 * The QP's next run then flushes its queues.  A QP that verbs reset meanwhile
 * stays in RESET.
 *
 * Return: true when this call moved the QP to ERR.
 */
bool rxc_qp_error(struct rxc_qp *qp)
{
	bool moved = false;

	spin_lock_bh(&qp->state_lock);
	if (qp->attr.qp_state != IB_QPS_RESET &&
	    qp->attr.qp_state != IB_QPS_ERR) {
		WRITE_ONCE(qp->attr.qp_state, IB_QPS_ERR);
		moved = true;
	}
	spin_unlock_bh(&qp->state_lock);
	return moved;
}

/**
 * rxc_qp_fatal - fail the QP for a reason that no completion reports
 * @qp: the QP
 * @event: IB_EVENT_QP_FATAL, IB_EVENT_QP_REQ_ERR or IB_EVENT_QP_ACCESS_ERR
 *
 * An error that a CQE carries (a failed send WQE, a failed receive) tells
 * the owner what happened.  One found in a request that consumed no WQE
 * of this QP (a bad rkey in an RDMA write or read, an invalid request), or
 * one that stops CQEs from being written (a CQ overflow), is reported
 * through the affiliated asynchronous event instead (IBA 11.6.3), once,
 * when the QP moves to ERR.  Called from the QP task.
 */
void rxc_qp_fatal(struct rxc_qp *qp, enum ib_event_type event)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = event,
	};

	if (rxc_qp_error(qp) && qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

static int rxc_qp_check_init(struct rxc_dev *rxc, struct ib_qp_init_attr *init,
			     struct ib_udata *udata)
{
	const struct rxc_limits *l = &rxc->limits;
	const struct ib_qp_cap *cap = &init->cap;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		/* QP1 belongs to ib_mad; user space cannot ask for it. */
		if (!udata)
			break;
		fallthrough;
	default:
		rxc_dbg(rxc, "create_qp: QP type %d not supported\n",
			init->qp_type);
		return -EOPNOTSUPP;
	}
	if (init->create_flags) {
		rxc_dbg(rxc, "create_qp: flags %#x not supported\n",
			init->create_flags);
		return -EOPNOTSUPP;
	}
	if (cap->max_send_wr > l->max_qp_wr || cap->max_send_sge > l->max_sge ||
	    cap->max_inline_data > l->max_inline) {
		rxc_dbg(rxc, "create_qp: send queue %u WRs x %u SGEs, %u inline exceeds %u x %u, %u\n",
			cap->max_send_wr, cap->max_send_sge,
			cap->max_inline_data, l->max_qp_wr, l->max_sge,
			l->max_inline);
		return -EINVAL;
	}
	if (!init->srq && (cap->max_recv_wr > l->max_qp_wr ||
			   cap->max_recv_sge > l->max_sge)) {
		rxc_dbg(rxc, "create_qp: receive queue %u WRs x %u SGEs exceeds %u x %u\n",
			cap->max_recv_wr, cap->max_recv_sge, l->max_qp_wr,
			l->max_sge);
		return -EINVAL;
	}
	return 0;
}

/* A kernel QP (@udata NULL) keeps its rings to itself. */
static int rxc_wq_alloc(struct rxc_wq *wq, u32 *max_wr, u32 wqe_size,
			struct ib_udata *udata, struct mminfo *mi)
{
	spin_lock_init(&wq->lock);
	return rxc_queue_create(&wq->q, max_wr, wqe_size, RXC_QUEUE_TO_KERNEL,
				udata, mi);
}

/*
 * A send WQE carries either an SGE list or inline data in one area.  Size
 * that area for the larger of the two and report whatever else fits, as
 * the provider validates against the reported caps.
 */
static int rxc_qp_alloc_sq(struct rxc_qp *qp, struct ib_qp_init_attr *init,
			   struct ib_udata *udata, struct mminfo *mi)
{
	const struct rxc_limits *l = &to_rdev(qp->ibqp.device)->limits;
	struct ib_qp_cap *cap = &init->cap;
	u32 area = max_t(u32, cap->max_send_sge * sizeof(struct rxe_sge),
			 cap->max_inline_data);
	int err;

	err = rxc_wq_alloc(&qp->sq, &cap->max_send_wr,
			   sizeof(struct rxe_send_wqe) + area, udata, mi);
	if (err)
		return err;

	qp->sq.max_sge = min_t(u32, area / sizeof(struct rxe_sge), l->max_sge);
	qp->sq.max_inline = min(area, l->max_inline);
	cap->max_send_sge = qp->sq.max_sge;
	cap->max_inline_data = qp->sq.max_inline;
	return 0;
}

static int rxc_qp_alloc_rq(struct rxc_qp *qp, struct ib_qp_init_attr *init,
			   struct ib_udata *udata, struct mminfo *mi)
{
	struct ib_qp_cap *cap = &init->cap;
	int err;

	if (init->srq) {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
		return 0;
	}

	err = rxc_wq_alloc(&qp->rq, &cap->max_recv_wr,
			   sizeof(struct rxe_recv_wqe) +
			   cap->max_recv_sge * sizeof(struct rxe_sge),
			   udata, mi);
	if (err)
		return err;

	qp->rq.max_sge = cap->max_recv_sge;
	return 0;
}

static void rxc_qp_free_queues(struct rxc_qp *qp)
{
	if (qp->rq.q.buf)
		rxc_queue_free(&qp->rq.q);
	if (qp->sq.q.buf)
		rxc_queue_free(&qp->sq.q);
}

/*
 * A connected QP cuts its messages at the smaller of the path MTU and what
 * the netdev carries now, and keeps that figure: the PSNs of a message and
 * the offsets of its retransmissions are counted in it on both ends, so it
 * must not follow later changes of the netdev's MTU.  A netdev MTU lowered
 * below it afterwards drops the QP's full-sized packets, and the QP ends in
 * retry exhaustion, as on a path whose MTU shrank.
 */
static void rxc_qp_set_mtu(struct rxc_qp *qp, enum ib_mtu path_mtu)
{
	struct net_device *ndev = to_rdev(qp->ibqp.device)->ndev;
	enum ib_mtu mtu = rxc_mtu_for_netdev(READ_ONCE(ndev->mtu));

	qp->attr.path_mtu = path_mtu;
	WRITE_ONCE(qp->mtu, ib_mtu_enum_to_int(min(mtu, path_mtu)));
}

/* The GSI QP is QP1 on the wire; every other QP gets a cyclic QPN. */
static int rxc_qp_alloc_qpn(struct rxc_dev *rxc, struct rxc_qp *qp, u32 *qpn)
{
	int err;

	/* The receive path looks QPs up in softirq: _bh. */
	if (qp->ibqp.qp_type == IB_QPT_GSI) {
		*qpn = 1;
		return xa_insert_bh(&rxc->qp_xa, 1, qp, GFP_KERNEL_ACCOUNT);
	}
	err = xa_alloc_cyclic_bh(&rxc->qp_xa, qpn, qp,
				 XA_LIMIT(RXC_MIN_QPN, RXC_MAX_QPN),
				 &rxc->next_qpn, GFP_KERNEL_ACCOUNT);
	return err < 0 ? err : 0;
}

int rxc_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata)
{
	struct rxc_dev *rxc = to_rdev(ibqp->device);
	struct rxe_create_qp_resp resp = {};
	struct rxc_qp *qp = to_rqp(ibqp);
	u32 qpn;
	int err;

	err = rxc_qp_check_init(rxc, init, udata);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp)) {
		rxc_dbg(rxc, "create_qp: response buffer too small\n");
		return -EINVAL;
	}

	err = rxc_res_get(rxc, RXC_RES_QP);
	if (err)
		return err;

	mutex_init(&qp->mutex);
	spin_lock_init(&qp->state_lock);
	qp->srq = init->srq ? to_rsrq(init->srq) : NULL;
	qp->scq = to_rcq(init->send_cq);
	qp->rcq = to_rcq(init->recv_cq);
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->attr.qp_state = IB_QPS_RESET;
	qp->attr.port_num = RXC_PORT;
	rxc_qp_set_mtu(qp, IB_MTU_1024);

	err = rxc_qp_alloc_sq(qp, init, udata, &resp.sq_mi);
	if (err)
		goto err_res;
	err = rxc_qp_alloc_rq(qp, init, udata, &resp.rq_mi);
	if (err)
		goto err_queues;
	err = rxc_qp_transport_create(qp);
	if (err)
		goto err_queues;

	err = rxc_qp_alloc_qpn(rxc, qp, &qpn);
	if (err)
		goto err_transport;
	ibqp->qp_num = qpn;
	qp->serial = atomic64_inc_return(&rxc->qp_serial);
	qp->src_port = rxc_udp_src_port(qpn);

	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_xa;
	}

	qp->attr.cap = init->cap;
	rxc_dbg_qp(qp, "created, type %d, sq %u x %u, rq %u x %u\n",
		   init->qp_type, init->cap.max_send_wr,
		   init->cap.max_send_sge, init->cap.max_recv_wr,
		   init->cap.max_recv_sge);
	return 0;

err_xa:
	xa_erase_bh(&rxc->qp_xa, qpn);
err_transport:
	rxc_qp_transport_destroy(qp);
err_queues:
	rxc_qp_free_queues(qp);
err_res:
	rxc_res_put(rxc, RXC_RES_QP);
	return err;
}

/* Bounds that ib_modify_qp_is_ok() leaves to the driver. */
static int rxc_qp_check_ranges(struct rxc_qp *qp, struct ib_qp_attr *attr,
			       int mask)
{
	const struct rxc_limits *l = &to_rdev(qp->ibqp.device)->limits;

	if ((mask & IB_QP_PORT) && attr->port_num != RXC_PORT)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) &&
	    attr->pkey_index >= RXC_PKEY_TABLE_LEN)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > l->max_rd_atomic)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > l->max_rd_atomic)
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > RXC_MAX_TIMEOUT)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > RXC_MAX_RETRY)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > RXC_MAX_RETRY)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) &&
	    attr->min_rnr_timer > RXC_MAX_RNR_TIMER)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > RXC_QPN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~RXC_QP_ACCESS_FLAGS))
		return -EINVAL;
	if (mask & (IB_QP_ALT_PATH | IB_QP_CAP))
		return -EOPNOTSUPP;
	return 0;
}

/* Copy what @mask selects; the state is applied by the caller. */
static void rxc_qp_store_attr(struct rxc_qp *qp, const struct ib_qp_attr *a,
			      int mask)
{
	struct ib_qp_attr *q = &qp->attr;

	if (mask & IB_QP_PKEY_INDEX)
		q->pkey_index = a->pkey_index;
	if (mask & IB_QP_PORT)
		q->port_num = a->port_num;
	if (mask & IB_QP_QKEY)
		q->qkey = a->qkey;
	if (mask & IB_QP_ACCESS_FLAGS)
		q->qp_access_flags = a->qp_access_flags;
	if (mask & IB_QP_PATH_MTU)
		rxc_qp_set_mtu(qp, a->path_mtu);
	if (mask & IB_QP_DEST_QPN)
		q->dest_qp_num = a->dest_qp_num;
	if (mask & IB_QP_RQ_PSN)
		q->rq_psn = a->rq_psn & RXC_PSN_MASK;
	if (mask & IB_QP_SQ_PSN)
		q->sq_psn = a->sq_psn & RXC_PSN_MASK;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		q->max_rd_atomic = a->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		q->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		q->min_rnr_timer = a->min_rnr_timer;
	if (mask & IB_QP_TIMEOUT)
		q->timeout = a->timeout;
	if (mask & IB_QP_RETRY_CNT)
		q->retry_cnt = a->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		q->rnr_retry = a->rnr_retry;
	if (mask & IB_QP_PATH_MIG_STATE)
		q->path_mig_state = a->path_mig_state;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		q->en_sqd_async_notify = a->en_sqd_async_notify;
}

static void rxc_qp_reset_rings(struct rxc_qp *qp)
{
	struct rxc_wq *wqs[] = { &qp->sq, qp->srq ? NULL : &qp->rq };
	unsigned long flags;
	int i;

	for (i = 0; i < ARRAY_SIZE(wqs); i++) {
		if (!wqs[i])
			continue;
		spin_lock_irqsave(&wqs[i]->lock, flags);
		rxc_queue_discard(&wqs[i]->q);
		spin_unlock_irqrestore(&wqs[i]->lock, flags);
	}
}

/* Moving to RESET discards all queued work without completions. */
static void rxc_qp_reset(struct rxc_qp *qp)
{
	rxc_qp_transport_reset(qp);
	rxc_qp_reset_rings(qp);
	qp->req.cur = qp->sq.q.cons;
	qp->req.tail = qp->sq.q.cons;
}

/*
 * The transport state a new state starts from is set before the state
 * changes, since the QP task acts on the state as soon as it is visible.
 * The task is paused (rxc_qp_task_pause()); what the new state needs it
 * to do happens once it runs again.
 */
static int rxc_qp_enter_state(struct rxc_qp *qp, enum ib_qp_state old,
			      enum ib_qp_state state)
{
	int err;

	if (state == IB_QPS_RTR && old == IB_QPS_INIT)
		rxc_resp_start(qp);
	else if (state == IB_QPS_RTS && old == IB_QPS_RTR)
		rxc_req_start(qp);

	err = rxc_qp_move(qp, old, state);
	if (err || state == old)
		return err;

	rxc_dbg_qp(qp, "state %d -> %d\n", old, state);
	if (state == IB_QPS_RESET)
		rxc_qp_reset(qp);
	return 0;
}

/*
 * Under the QP table's lock as well as with the task paused: the receive
 * path reads the addresses under that lock (rxc_qp_from_peer()).
 */
static void rxc_qp_set_av(struct rxc_qp *qp, const struct rxc_av *av)
{
	struct rxc_dev *rxc = to_rdev(qp->ibqp.device);

	xa_lock_bh(&rxc->qp_xa);
	qp->av = *av;
	xa_unlock_bh(&rxc->qp_xa);
	dst_cache_reset_now(&qp->route);
}

/**
 * rxc_qp_from_peer - whether @qp takes @skb, as far as addresses go
 * @qp: the packet's destination QP
 * @skb: a received RoCEv2 packet, its network header set
 *
 * A connected QP takes packets only from its peer's address to its own
 * (rxc_av_matches_pkt()).  This runs before the packet is queued: a flood
 * from another host must not fill the queue the peer's packets need.  A
 * packet queued before modify_qp changed the path is still taken.
 *
 * Softirq context; the caller holds the device's qp_xa lock.
 */
bool rxc_qp_from_peer(const struct rxc_qp *qp, const struct sk_buff *skb)
{
	lockdep_assert_held(&to_rdev(qp->ibqp.device)->qp_xa.xa_lock);
	if (qp->ibqp.qp_type != IB_QPT_RC && qp->ibqp.qp_type != IB_QPT_UC)
		return true;
	return rxc_av_matches_pkt(&qp->av, skb);
}

/*
 * Everything modify_qp changes is changed with the task paused, so that a
 * run never sees half of it: an address vector rewritten in SQD, a retry
 * count, the access flags the responder checks.
 */
static int rxc_qp_apply(struct rxc_qp *qp, const struct ib_qp_attr *attr,
			int mask, const struct rxc_av *av,
			enum ib_qp_state cur, enum ib_qp_state next)
{
	int err = 0;

	rxc_qp_task_pause(qp);
	if (mask & IB_QP_AV)
		rxc_qp_set_av(qp, av);
	rxc_qp_store_attr(qp, attr, mask);
	if (mask & IB_QP_STATE)
		err = rxc_qp_enter_state(qp, cur, next);
	/* Flush completions are there when modify_qp returns. */
	if (!err && next == IB_QPS_ERR && cur != IB_QPS_ERR)
		rxc_qp_task_flush(qp);
	/* Runs the task for sends posted before RTS, and what waited. */
	rxc_qp_task_resume(qp);
	return err;
}

int rxc_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct rxc_dev *rxc = to_rdev(ibqp->device);
	struct rxc_qp *qp = to_rqp(ibqp);
	enum ib_qp_state cur, next;
	struct rxc_av av;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;

	mutex_lock(&qp->mutex);
	cur = rxc_qp_state(qp);
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur) {
		rxc_dbg_qp(qp, "modify_qp: current state is %d, not %d\n",
			   cur, attr->cur_qp_state);
		err = -EINVAL;
		goto out;
	}
	next = mask & IB_QP_STATE ? attr->qp_state : cur;

	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask)) {
		rxc_dbg_qp(qp, "modify_qp: %d -> %d with mask %#x is not allowed\n",
			   cur, next, mask);
		err = -EINVAL;
		goto out;
	}

	err = rxc_qp_check_ranges(qp, attr, mask);
	if (err) {
		rxc_dbg_qp(qp, "modify_qp: attribute out of range (%d)\n",
			   err);
		goto out;
	}

	if (mask & IB_QP_AV) {
		err = rxc_av_from_ah_attr(rxc, &av, &attr->ah_attr);
		if (err)
			goto out;
	}
	if (next == IB_QPS_RTS && cur == IB_QPS_RTR) {
		err = rxc_req_alloc(qp);
		if (err)
			goto out;
	}
	err = rxc_qp_apply(qp, attr, mask, &av, cur, next);
out:
	mutex_unlock(&qp->mutex);
	return err;
}

int rxc_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct rxc_qp *qp = to_rqp(ibqp);

	mutex_lock(&qp->mutex);
	*attr = qp->attr;
	attr->cur_qp_state = attr->qp_state;
	attr->sq_draining = 0;
	if (ibqp->qp_type != IB_QPT_UD)
		rxc_av_to_ah_attr(&qp->av, &attr->ah_attr);

	memset(init, 0, sizeof(*init));
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = qp->attr.cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR :
					     IB_SIGNAL_REQ_WR;
	mutex_unlock(&qp->mutex);
	return 0;
}

/*
 * Counting starts before any work request can complete: attaching is
 * allowed in RESET and INIT only, so the completion path never sees the
 * attachment table change under it.
 */
int rxc_qp_attach_comp_cntr(struct ib_qp *ibqp, struct ib_comp_cntr *cc,
			    struct ib_qp_attach_comp_cntr_attr *attr)
{
	struct rxc_qp *qp = to_rqp(ibqp);
	enum ib_qp_state state;
	int err;

	/* An overlap first, in every state: upstream's core checks it so. */
	mutex_lock(&qp->mutex);
	state = rxc_qp_state(qp);
	if (ib_comp_cntr_overlaps(&qp->cntrs, attr->op_mask)) {
		rxc_dbg_qp(qp, "attach_comp_cntr: ops %#x already counted\n",
			   attr->op_mask);
		err = -EBUSY;
	} else if (state != IB_QPS_RESET && state != IB_QPS_INIT) {
		rxc_dbg_qp(qp, "attach_comp_cntr: state %d is not RESET or INIT\n",
			   state);
		err = -EINVAL;
	} else {
		err = ib_comp_cntr_attach(&qp->cntrs, cc, attr->op_mask);
	}
	mutex_unlock(&qp->mutex);
	return err;
}

int rxc_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct rxc_dev *rxc = to_rdev(ibqp->device);
	struct rxc_qp *qp = to_rqp(ibqp);

	xa_erase_bh(&rxc->qp_xa, ibqp->qp_num);
	rxc_qp_transport_destroy(qp);
	/*
	 * Core holds the QP exclusively and the transport can no longer
	 * find it, so no completion runs: the counters may go.  A 6.1 core
	 * does not know about them, so dropping their use counts is ours.
	 */
	ib_comp_cntr_detach_all(&qp->cntrs);
	rxc_qp_free_queues(qp);
	mutex_destroy(&qp->mutex);
	rxc_res_put(rxc, RXC_RES_QP);
	return 0;
}
