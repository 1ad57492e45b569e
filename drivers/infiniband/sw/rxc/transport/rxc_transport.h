/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Transport: requester, responder and completer, the QP task that runs
 * them, and the single path through which every work request is retired.
 *
 * A QP's transport runs in one context at a time, the holder of its run
 * claim (rxc_task.c): the caller that asked for the run when it may run
 * there, else the QP's work item.  Only that run touches the transport
 * state (struct rxc_req, struct rxc_resp), so that state needs no lock:
 * other contexts queue packets, set flag bits and ask for a run.  See
 * Documentation/rxc.rst, "Transport".
 */
#ifndef RXC_TRANSPORT_H
#define RXC_TRANSPORT_H

#include <linux/skbuff.h>
#include <linux/hrtimer.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "net/rxc_hdr.h"
#include "net/rxc_net.h"
#include "transport/rxc_cwnd.h"
#include "transport/rxc_pace.h"
#include "transport/rxc_opcode.h"
#include "transport/rxc_rto.h"

struct rxc_qp;

/*
 * Work request and completion opcodes of ATOMIC_WRITE: the uverbs numbers
 * (IBV_WR_ATOMIC_WRITE, IBV_WC_ATOMIC_WRITE), which a 6.1 ib_verbs.h
 * predates.
 */
#define RXC_WR_ATOMIC_WRITE	15
#define RXC_WC_ATOMIC_WRITE	9

/**
 * struct rxc_completion - one retired work request
 * @wr_id: the caller's work request ID
 * @status: IB_WC_SUCCESS or the error
 * @opcode: the completion opcode (IB_WC_*)
 * @byte_len: bytes transferred (receives: bytes placed)
 * @wc_flags: IB_WC_WITH_IMM, IB_WC_GRH, ...
 * @ex: immediate data (as sent, big endian) or the invalidated rkey
 * @src_qp: source QPN (UD receives)
 * @network_hdr_type: RDMA_NETWORK_IPV4 or _IPV6 (UD receives)
 * @recv: a receive work request (RQ or SRQ), else a send
 * @signaled: the work request asked for a CQE
 * @solicited: the message carried the solicited event bit
 */
struct rxc_completion {
	u64 wr_id;
	enum ib_wc_status status;
	enum ib_wc_opcode opcode;
	u32 byte_len;
	int wc_flags;
	u32 ex;
	u32 src_qp;
	u8 network_hdr_type;
	bool recv;
	bool signaled;
	bool solicited;
};

/* BIND_MW: what the work request asks, from the kernel's copy of the WQE. */
struct rxc_mw_bind {
	u32 mw_rkey;
	u32 new_rkey;
	u32 mr_lkey;
	u64 addr;
	u64 length;
	int access;
};

/* Where a send WQE is in its life. */
enum rxc_swqe_state {
	RXC_SWQE_QUEUED,	/* packets left to send */
	RXC_SWQE_SENT,		/* all sent; waiting for an ACK or response */
	RXC_SWQE_DONE,		/* finished (see status); retire in order */
};

/**
 * struct rxc_swqe - the requester's view of one send WQE
 *
 * Filled from the kernel's private copy of the WQE when the requester
 * first reads it, and validated then; user space writing the ring later
 * changes nothing.
 *
 * @wr_id: echoed in the completion
 * @wr_opcode: IB_WR_* (or RXC_WR_ATOMIC_WRITE)
 * @op: what goes on the wire, for RDMA operations
 * @signaled: a success needs a CQE
 * @solicited: set SE on the last packet
 * @fence: wait for earlier reads and atomics before starting
 * @is_inline: @data holds the payload itself, not SGEs
 * @local: executed without the wire (LOCAL_INV, BIND_MW); it takes no PSNs,
 *	   so every walk of the sent WQEs in PSN order steps over it: it
 *	   never starts, and stopping there would strand what follows
 * @length: message length
 * @num_sge: entries in @sge
 * @ex: immediate data (big endian as posted) or the rkey to invalidate
 * @sge: the SGEs, in the private copy
 * @data: the inline payload, in the private copy
 * @bind: BIND_MW: the window, the region and the new rights
 * @remote_addr: RDMA and atomic target
 * @rkey: its key
 * @compare_add: compare (CAS) or add (FAA) operand
 * @swap: swap operand (CAS)
 * @dest_qpn: UD destination QP
 * @qkey: UD Q_Key; the destination's address is in &rxc_req.ud_av
 * @state: enum rxc_swqe_state
 * @status: the completion status once @state is DONE
 * @started: @first_psn and @last_psn are assigned
 * @first_psn: PSN of the first packet
 * @last_psn: PSN of the last packet (reads: of the last response)
 * @resp_bytes: read response bytes placed so far
 * @retry_psn: the response PSN last asked for again after a gap
 *
 * One per ring slot: it is kept to two cache lines (128 bytes), since a
 * QP has as many as its ring has slots.  A local WQE never has a remote
 * target, hence the union.
 */
struct rxc_swqe {
	u64 wr_id;
	u32 wr_opcode;
	u8 op;
	bool signaled;
	bool solicited;
	bool fence;
	bool is_inline;
	bool local;
	u32 length;
	u32 num_sge;
	u32 ex;
	const struct rxe_sge *sge;
	const u8 *data;
	union {
		struct rxc_mw_bind bind;
		struct {
			u64 remote_addr;
			u32 rkey;
			u64 compare_add;
			u64 swap;
		};
	};
	u32 dest_qpn;
	u32 qkey;
	enum rxc_swqe_state state;
	enum ib_wc_status status;
	bool started;
	u32 first_psn;
	u32 last_psn;
	u32 resp_bytes;
	u32 retry_psn;
};

static_assert(sizeof(struct rxc_swqe) <= 128);

/**
 * struct rxc_req - requester and completer state of a QP (task only)
 * @copy: private copies of the send WQEs, one per ring slot; with @wqe
 *	  and @ud_av, NULL until the QP first enters RTS (rxc_req_alloc())
 * @wqe: per ring slot, the requester's view
 * @ud_av: UD and GSI QPs only: per ring slot, the destination of its
 *	   WQE, copied from the AH when the WQE was read
 * @tail: ring index after the last WQE read from the ring
 * @cur: ring index of the WQE being sent; the SQ's consumer index
 *	 (its oldest WQE) is where the completer retires
 * @cur_off: bytes of @cur already sent
 * @psn: PSN of the next packet
 * @max_psn: the PSN after the highest ever sent; below it is a resend
 * @una: oldest PSN not yet acknowledged
 * @cwnd: how far past @una the requester may send (RC)
 * @rto: the round-trip estimate, for probes and the pace (RC)
 * @pace: when the next packet may leave (RC)
 * @wait_start: jiffies when the wait for progress began: the local ACK
 *		timeout counts from here, probes come sooner
 * @ackreq_psn: PSN of the last packet that asked for an ACK, or the one
 *		before a rewind's first
 * @rd_atomic: reads and atomics in flight
 * @rd_bytes: bytes the reads in flight ask for
 * @done_psn: the PSN after the last packet of a send or write that an
 *	      ACK or NAK acknowledged: the responder took it, if the answer
 *	      was its own
 * @far_psn: the PSN of the last far probe (rxc_req_far_probe())
 * @far_answer: the PSN the last answer to a far probe named, when it put
 *		the responder before @done_psn
 * @retry_left: transport retries left before RETRY_EXC_ERR
 * @rnr_left: RNR retries left before RNR_RETRY_EXC_ERR
 * @done_any: @done_psn has moved since the QP entered RTS
 * @far_asked: a far probe went out and no answer has come since
 * @far_behind: answers to far probes in a row, all at @far_answer, with
 *		no answer in the window between them
 * @rnr_wait: an RNR NAK stopped sending until @rnr_timer fires
 * @batches: the last run that took steps sent its packets in a batch:
 *	     the path to the peer takes batches (rxc_req_gathers())
 * @last_small: the last WQE started was a message of one PSN
 * @timer_armed: a wait for progress is on: the requester has PSNs
 *		 unacknowledged (rxc_req_arm_timer())
 * @timer_due: jiffies when that wait's probe or timeout is due
 * @retrans_timer: wakes the task at @timer_due or earlier (rxc_req_timer_at())
 * @rnr_timer: ends an RNR wait
 * @pace_timer: ends a wait for the pace (@pace.waiting)
 * @doorbell_ns: local_clock() at the end of the last doorbell; doorbells,
 *		 not the task, write it
 * @doorbell_cpu: the CPU of the last doorbell that streamed; doorbells
 *		  write it, the stream work item reads it
 */
struct rxc_req {
	void *copy;
	struct rxc_swqe *wqe;
	struct rxc_av *ud_av;
	u32 tail;
	u32 cur;
	u32 cur_off;
	u32 psn;
	u32 max_psn;
	u32 una;
	struct rxc_cwnd cwnd;
	struct rxc_rto rto;
	struct rxc_pace pace;
	unsigned long wait_start;
	u32 ackreq_psn;
	u32 rd_atomic;
	u32 rd_bytes;
	u32 done_psn;
	u32 far_psn;
	u32 far_answer;
	u8 retry_left;
	u8 rnr_left;
	bool done_any;
	bool far_asked;
	u8 far_behind;
	bool rnr_wait;
	bool batches;
	bool last_small;
	bool timer_armed;
	unsigned long timer_due;
	struct timer_list retrans_timer;
	struct timer_list rnr_timer;
	struct hrtimer pace_timer;
	atomic64_t doorbell_ns;
	int doorbell_cpu;
};

/**
 * struct rxc_rwqe - a receive WQE being filled, copied out of its ring
 * @wr_id: echoed in the completion
 * @length: total bytes its SGEs can take
 * @num_sge: entries in @sge
 * @sge: the SGEs (rxc_resp.sge, sized for the QP's receive queue)
 */
struct rxc_rwqe {
	u64 wr_id;
	u32 length;
	u32 num_sge;
	struct rxe_sge *sge;
};

/* An atomic result kept so that a duplicate request gets the same answer. */
struct rxc_atomic_res {
	u32 psn;
	bool valid;
	u64 orig;
};

/**
 * struct rxc_read - an RDMA read being answered
 * @active: responses are left to send
 * @va: next byte to send
 * @rkey: the key the request named
 * @resid: bytes left
 * @len: the length the request asked for
 * @psn: PSN of the next response
 * @first: the next response is the first of the message
 * @count: count the read on a REMOTE_RDMA_READ counter (not a duplicate)
 */
struct rxc_read {
	bool active;
	u64 va;
	u32 rkey;
	u32 resid;
	u32 len;
	u32 psn;
	bool first;
	bool count;
};

/**
 * struct rxc_resp - responder state of a QP (task only)
 * @psn: the expected PSN
 * @msn: messages completed, for AETHs
 * @nak_sent: a sequence NAK for @psn is out; do not repeat it
 * @ack_pending: send an ACK for @psn - 1 when the batch ends, or right
 *		 away for a multi-packet message (RXC_ACK_NOW)
 * @unacked: packets accepted since the last ACK
 * @in_msg: a multi-packet message is in progress
 * @msg_op: RXC_OPF_SEND or RXC_OPF_WRITE, for @in_msg
 * @has_rwqe: @rwqe holds a receive WQE taken from the RQ or SRQ
 * @rwqe: that WQE
 * @sge: storage for @rwqe's SGEs
 * @offset: bytes of the current message placed
 * @va: RDMA write: where the next payload goes
 * @rkey: RDMA write: its key
 * @resid: RDMA write: bytes the RETH announced and not yet placed
 * @write_len: RDMA write: the RETH length
 * @rd: the read being answered
 * @atomics: recent atomic results, for duplicates: RC only, one slot per
 *	     read or atomic the device lets a requester have outstanding, so
 *	     that no max_dest_rd_atomic the QP grants outruns it
 * @atomic_slots: entries in @atomics
 * @atomic_next: next slot of @atomics to use
 */
struct rxc_resp {
	u32 psn;
	u32 msn;
	bool nak_sent;
	bool ack_pending;
	u32 unacked;
	bool in_msg;
	u32 msg_op;
	bool has_rwqe;
	struct rxc_rwqe rwqe;
	struct rxe_sge *sge;
	u32 offset;
	u64 va;
	u32 rkey;
	u32 resid;
	u32 write_len;
	struct rxc_read rd;
	struct rxc_atomic_res *atomics;
	u32 atomic_slots;
	u32 atomic_next;
};

/* Bits of rxc_qp.task_flags, set from timers and verbs. */
enum rxc_task_flag {
	RXC_TASK_DYING,		/* the QP is being destroyed: no new runs */
	RXC_TASK_PAUSED,	/* modify_qp is changing what the task reads */
	RXC_TASK_TIMEOUT,	/* the retransmit timer fired */
	RXC_TASK_RNR_DONE,	/* the RNR timer fired */
	RXC_TASK_PACE_DONE,	/* the pace timer fired */
	RXC_TASK_STREAM,	/* its last doorbell streamed (rxc_qp_doorbell()) */
	RXC_TASK_TURN,		/* it sent a request since the peer's last one */
	RXC_TASK_PEER_SENT,	/* a request from the peer since the last doorbell */
};

/*
 * Reads and atomics: answered with data, bounded by max_rd_atomic, one
 * request packet whatever their length.
 */
static inline bool rxc_swqe_needs_response(const struct rxc_swqe *w)
{
	return w->op == RXC_REQ_READ || w->op == RXC_REQ_COMPARE_SWAP ||
	       w->op == RXC_REQ_FETCH_ADD;
}

/*
 * Answers to far probes that must put the responder at one PSN before
 * what it acknowledged, in a row, before the requester believes them: one
 * may be an old ACK that came late (rxc_comp_far_answer()).
 */
#define RXC_FAR_ANSWERS		2
/*
 * How far before done_psn an answer may put the responder and still be
 * taken for where it stands: a quarter of the PSN space.  A responder
 * that echoes the probe's own PSN (half the space back) says nothing.
 */
#define RXC_FAR_RANGE		BIT(22)

/* Have far probes shown a responder that will never accept a packet? */
static inline bool rxc_req_responder_lost(const struct rxc_req *req)
{
	return req->far_behind >= RXC_FAR_ANSWERS;
}

/* 24-bit PSN arithmetic: a - b as a signed distance, and a + n. */
static inline s32 rxc_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << 8) >> 8;
}

static inline u32 rxc_psn_add(u32 psn, u32 n)
{
	return (psn + n) & RXC_PSN_MASK;
}

/* The parsed view of a queued packet lives in its control buffer. */
static inline struct rxc_pkt_info *rxc_skb_pkt(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct rxc_pkt_info) > sizeof(skb->cb));
	return (struct rxc_pkt_info *)skb->cb;
}

/* The packet whose control buffer holds @pkt, from rxc_skb_pkt(). */
static inline struct sk_buff *rxc_pkt_skb(const struct rxc_pkt_info *pkt)
{
	return container_of((void *)pkt, struct sk_buff, cb);
}

/* Where the payload of a queued packet starts, from skb->data. */
static inline unsigned int rxc_pkt_payload_off(const struct rxc_pkt_info *pkt)
{
	return pkt->bth + pkt->hdr_len - rxc_pkt_skb(pkt)->data;
}

/*
 * rxc_skb_walk() over the payload of a queued packet: @fn gets each piece
 * with its offset in the payload.
 */
static inline int rxc_pkt_payload_walk(const struct rxc_pkt_info *pkt,
				       int (*fn)(void *ctx, u32 off,
						 const u8 *p, u32 n),
				       void *ctx)
{
	return rxc_skb_walk(rxc_pkt_skb(pkt), rxc_pkt_payload_off(pkt),
			    pkt->payload_len, fn, ctx);
}

/* rxc_complete.c */
void rxc_complete_wr(struct rxc_qp *qp, const struct rxc_completion *c);
/* Work requests one task run flushes per queue; bounds a run's length. */
#define RXC_FLUSH_BUDGET	256

bool rxc_flush_sq(struct rxc_qp *qp);
bool rxc_flush_rq(struct rxc_qp *qp);
enum ib_wc_opcode rxc_wr_to_wc_opcode(u32 wr_opcode);

/* rxc_task.c */
int rxc_transport_init(void);
void rxc_transport_exit(void);
int rxc_qp_transport_create(struct rxc_qp *qp);
int rxc_req_alloc(struct rxc_qp *qp);
void rxc_qp_transport_destroy(struct rxc_qp *qp);
void rxc_qp_transport_reset(struct rxc_qp *qp);
void rxc_qp_sched(struct rxc_qp *qp);
void rxc_qp_kick(struct rxc_qp *qp);
void rxc_qp_doorbell(struct rxc_qp *qp);
void rxc_qp_peer_sent(struct rxc_qp *qp);
void rxc_qp_task_pause(struct rxc_qp *qp);
void rxc_qp_task_resume(struct rxc_qp *qp);
void rxc_qp_task_flush(struct rxc_qp *qp);
bool rxc_qp_deliver(struct rxc_qp *qp, struct sk_buff *skb);
void rxc_qp_run_claimed(struct rxc_qp *qp);
void rxc_qp_run_softirq(struct rxc_qp *qp);
u32 rxc_qp_mtu(const struct rxc_qp *qp);
void rxc_qp_send_pkt(struct rxc_qp *qp, const struct rxc_av *av,
		     struct sk_buff *skb, struct rxc_pkt_batch *batch);

/* rxc_req.c */
bool rxc_wr_opcode_ok(enum ib_qp_type type, u32 wr_opcode);
void rxc_req_start(struct rxc_qp *qp);
int rxc_req_run(struct rxc_qp *qp, int budget);
bool rxc_req_ready(struct rxc_qp *qp);
void rxc_req_timeout(struct rxc_qp *qp);
bool rxc_req_spend_retry(struct rxc_qp *qp);
bool rxc_req_gathers(const struct rxc_qp *qp, const struct rxc_swqe *w);
void rxc_req_rnr(struct rxc_qp *qp, u32 psn, u8 timer);
void rxc_req_rnr_done(struct rxc_qp *qp);
void rxc_req_pace_done(struct rxc_qp *qp);
void rxc_req_rewind(struct rxc_qp *qp, u32 psn);
void rxc_req_arm_timer(struct rxc_qp *qp);

/* rxc_res.c */
int rxc_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);

/* rxc_comp.c */
void rxc_comp_recv(struct rxc_qp *qp, struct sk_buff *skb);
void rxc_comp_aeth(struct rxc_qp *qp, u8 syn, u32 psn);
/*
 * Finished WQEs one call retires at most: each writes a CQE, updates
 * counters and may signal an eventfd, and a call may run in softirq.
 */
#define RXC_RETIRE_BUDGET	256

bool rxc_comp_retire(struct rxc_qp *qp);

/* rxc_resp.c */
void rxc_resp_start(struct rxc_qp *qp);
void rxc_resp_recv(struct rxc_qp *qp, struct sk_buff *skb);
bool rxc_resp_restarts_read(const struct rxc_qp *qp,
			    const struct rxc_pkt_info *pkt);
int rxc_resp_send_reads(struct rxc_qp *qp, int budget);
void rxc_resp_flush_ack(struct rxc_qp *qp);
void rxc_resp_flush_rwqe(struct rxc_qp *qp);

#endif /* RXC_TRANSPORT_H */
