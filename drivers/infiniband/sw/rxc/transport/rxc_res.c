// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The transport state of a QP, as `rdma res show qp -dd` prints it: where
 * the requester stands in its send queue and its window, what it waits
 * for, and where the responder stands.  A QP that stopped moving shows
 * here why: a full window, the read limit, a pace or RNR wait, or a run
 * that was never scheduled.
 *
 * Process context (the netlink request).  It does not take the QP's run
 * claim, so what it prints is a snapshot that a run may be changing:
 * each field is read once, and no field is trusted for anything else.
 */
#include <net/netlink.h>
#include <rdma/restrack.h>
#include <uapi/rdma/rdma_netlink.h>

#include "verbs/rxc_verbs.h"

/* One named value of the transport state. */
struct rxc_res_val {
	const char *name;
	u32 val;
};

/**
 * rxc_fill_res_qp_entry - the driver's part of a QP's restrack entry
 * @msg: the netlink message being filled
 * @ibqp: the QP
 *
 * Return: 0, or -EMSGSIZE when @msg is full.
 */
int rxc_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct rxc_qp *qp = to_rqp(ibqp);
	const struct rxc_req *req = &qp->req;
	const struct rxc_res_val vals[] = {
		{ "sq_psn", READ_ONCE(req->psn) },
		{ "max_psn", READ_ONCE(req->max_psn) },
		{ "una_psn", READ_ONCE(req->una) },
		{ "sq_cons", READ_ONCE(qp->sq.q.cons) },
		{ "sq_cur", READ_ONCE(req->cur) },
		{ "sq_tail", READ_ONCE(req->tail) },
		{ "cwnd", READ_ONCE(req->cwnd.size) },
		{ "srtt_us", READ_ONCE(req->rto.srtt_us) },
		{ "rd_atomic", READ_ONCE(req->rd_atomic) },
		{ "rd_bytes", READ_ONCE(req->rd_bytes) },
		{ "retry_left", READ_ONCE(req->retry_left) },
		{ "far_behind", READ_ONCE(req->far_behind) },
		{ "rnr_wait", READ_ONCE(req->rnr_wait) },
		{ "pace_wait", READ_ONCE(req->pace.waiting) },
		{ "retrans_armed", READ_ONCE(req->timer_armed) },
		{ "pace_armed", hrtimer_active(&req->pace_timer) },
		{ "task_flags", READ_ONCE(qp->task_flags) },
		{ "task_owned", READ_ONCE(qp->task_owned) },
		{ "rq_psn", READ_ONCE(qp->resp.psn) },
		{ "read_active", READ_ONCE(qp->resp.rd.active) },
		{ "comp_queued", skb_queue_len_lockless(&qp->comp_pkts) },
		{ "resp_queued", skb_queue_len_lockless(&qp->resp_pkts) },
	};
	struct nlattr *table;
	unsigned int i;

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(vals); i++) {
		if (rdma_nl_put_driver_u32(msg, vals[i].name, vals[i].val)) {
			nla_nest_cancel(msg, table);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(msg, table);
	return 0;
}
