/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Verbs objects.  Core allocates each of them around its ib_* object
 * (INIT_RDMA_OBJ_SIZE) and guarantees that an object outlives every object
 * that uses it (a PD its MRs, a CQ its QPs), so they hold no references of
 * their own on each other.
 */
#ifndef RXC_VERBS_H
#define RXC_VERBS_H

#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include "rxc.h"
#include "rxc_compat.h"
#include "counters/rxc_cntr.h"
#include "net/rxc_net.h"
#include "transport/rxc_transport.h"
#include "verbs/rxc_queue.h"

/**
 * struct rxc_ucontext - a user context
 * @cntr_pool: the pages holding this context's completion counters
 */
struct rxc_ucontext {
	struct ib_ucontext ibuc;
	struct rxc_cntr_pool cntr_pool;
};

struct rxc_pd {
	struct ib_pd ibpd;
};

/**
 * struct rxc_ah - an address handle
 * @ah_num: index in rxc_dev.ah_xa; librxe puts it in UD send WQEs
 * @av: the resolved destination
 */
struct rxc_ah {
	struct ib_ah ibah;
	u32 ah_num;
	struct rxc_av av;
};

/* What a key index refers to; tags the pointers in rxc_dev.key_xa. */
enum rxc_key_type {
	RXC_KEY_MR = 1,
	RXC_KEY_MW = 2,
};

enum rxc_mr_type {
	RXC_MR_DMA,
	RXC_MR_USER,
};

/**
 * struct rxc_mr - a memory region
 * @index: index in rxc_dev.key_xa, the upper 24 bits of both keys
 * @type: DMA (kernel virtual addresses) or user memory
 * @access: IB_ACCESS_* flags
 * @umem: the pinned user pages (RXC_MR_USER with a non-zero length)
 * @pages: the pages of @umem, in order, for constant-time lookup
 * @page_off: offset of the region's first byte in @pages[0]
 * @users: one for the registration, one per transport access in progress
 * @unused: completed when @users drops to zero, so dereg can free
 * @num_mw: windows bound to the region, which keep it registered; -1 once
 *	    dereg has begun, so that no window binds to it any more
 * @rcu: the transport looks MRs up under RCU; the struct outlives readers
 */
struct rxc_mr {
	struct ib_mr ibmr;
	u32 index;
	enum rxc_mr_type type;
	int access;
	struct ib_umem *umem;
	struct page **pages;
	u32 page_off;
	refcount_t users;
	struct completion unused;
	atomic_t num_mw;
	struct rcu_head rcu;
};

/* Which way rxc_mr_copy() moves data. */
enum rxc_copy_dir {
	RXC_COPY_TO_MR,
	RXC_COPY_FROM_MR,
};

/**
 * struct rxc_mw - a memory window
 * @index: index in rxc_dev.key_xa, the upper 24 bits of the rkey
 * @lock: protects the binding (@bound .. @qpn) and ibmw.rkey
 * @bound: the window grants access to [@addr, @addr + @length)
 * @mr: the region the window lies in while bound; counted in its @num_mw,
 *	which keeps it registered, so a window never outlives its region
 * @addr: first byte, in the region's address space
 * @length: bytes
 * @access: IB_ACCESS_REMOTE_* rights it grants
 * @qpn: type 2: the QP it was bound through, the only one that may
 *	 invalidate it
 */
struct rxc_mw {
	struct ib_mw ibmw;
	u32 index;
	/* Protects the binding; the QP task and the verbs take it, any context. */
	spinlock_t lock;
	bool bound;
	struct rxc_mr *mr;
	u64 addr;
	u64 length;
	int access;
	/* Type 2: the serial of the QP it is bound through (QPNs are reused). */
	u64 qp_serial;
};

/**
 * struct rxc_cq - a completion queue
 * @lock: protects @q (both indices, and the ring itself across resize)
 *	  and @notify; taken from any context, so irqsave
 * @q: the CQE ring; user CQs hold struct ib_uverbs_wc, kernel CQs ib_wc
 * @notify: armed notification (IB_CQ_SOLICITED or IB_CQ_NEXT_COMP), or 0
 * @is_user: the ring is mapped by user space
 */
struct rxc_cq {
	struct ib_cq ibcq;
	/* Protects q and notify; any context, so irqsave. */
	spinlock_t lock;
	struct rxc_queue q;
	u8 notify;
	bool is_user;
};

/**
 * struct rxc_srq - a shared receive queue
 * @lock: protects @q and @limit against the responder and modify_srq
 * @q: the receive WQE ring
 * @srq_num: index in rxc_dev.srq_xa
 * @max_sge: scatter entries per receive WQE
 * @limit: armed SRQ limit, 0 when disarmed
 */
struct rxc_srq {
	struct ib_srq ibsrq;
	/* Protects q and limit; kernel users post from any context. */
	spinlock_t lock;
	struct rxc_queue q;
	u32 srq_num;
	u32 max_sge;
	u32 limit;
};

/**
 * struct rxc_wq - a send or receive queue of a QP
 * @lock: protects @q; the kernel consumes from process and softirq
 *	  context, so _bh
 * @q: the WQE ring
 * @max_sge: scatter/gather entries per WQE
 * @max_inline: inline bytes per send WQE
 */
struct rxc_wq {
	/* Protects q; kernel users post from any context, so irqsave. */
	spinlock_t lock;
	struct rxc_queue q;
	u32 max_sge;
	u32 max_inline;
};

/**
 * struct rxc_qp - a queue pair
 * @mutex: serializes modify_qp, query_qp and destroy_qp, which sleep
 * @state_lock: protects @attr.qp_state for readers that cannot sleep
 * @attr: the attributes set by modify_qp, as query_qp reports them
 * @mtu: payload bytes per packet of a connected QP, fixed when the path
 *	 MTU is set (see rxc_qp_set_mtu())
 * @av: the resolved primary path (connected QPs); written by modify_qp
 *	with the task paused and under the device's qp_xa lock, which the
 *	receive path holds when it checks a packet's addresses against it
 * @route: the route to @av, kept by the runs; reset with @av, the task
 *	   paused
 * @sq: the send queue
 * @rq: the receive queue, unused when @srq is set
 * @srq: the SRQ, or NULL
 * @scq: the send CQ
 * @rcq: the receive CQ
 * @sq_sig_all: every send WR is signaled
 * @src_port: UDP source port of this QP's packets
 * @cntrs: the completion counters attached, one per operation bit;
 *	   changed under @mutex in RESET or INIT only (see ib_comp_cntr.h)
 * @task: runs the transport for this QP when no caller can
 *	  (transport/rxc_task.c)
 * @net_task: likewise for packets from the network, on a high-priority
 *	      workqueue
 * @stream_task: likewise for a doorbell that streams, on another
 *		 workqueue
 * @task_flags: enum rxc_task_flag bits
 * @task_owned: a run holds the QP's run claim
 * @task_again: a run was asked for while the claim was held
 * @task_idle: where a pause or destroy waits for the run to end
 * @resp_pkts: received requests, for the responder; the queue's own lock
 * @comp_pkts: received responses and ACKs, for the completer; ditto
 * @softirq_pkt: the packet a receive softirq that won the claim handles
 *		 without queueing it (rxc_qp_deliver()); the holder's only
 * @req: requester and completer state, touched by the run holding the
 *	 claim only
 * @resp: responder state, likewise
 *
 * Lock order: @mutex, then @state_lock, then a work queue's lock, then a
 * CQ's lock.
 */
struct rxc_qp {
	struct ib_qp ibqp;
	/* Unique for the device's life: what a type 2 window belongs to. */
	u64 serial;
	/* Serializes the verbs that change or report the QP; sleeps. */
	struct mutex mutex;
	/* Protects attr.qp_state for the transport; _bh. */
	spinlock_t state_lock;
	struct ib_qp_attr attr;
	u32 mtu;
	struct rxc_av av;
	struct dst_cache route;
	struct rxc_wq sq;
	struct rxc_wq rq;
	struct rxc_srq *srq;
	struct rxc_cq *scq;
	struct rxc_cq *rcq;
	bool sq_sig_all;
	u16 src_port;
	struct ib_comp_cntr_attachments cntrs;
	struct work_struct task;
	struct work_struct net_task;
	struct work_struct stream_task;
	unsigned long task_flags;
	/* Protects task_owned, task_again and setting DYING and PAUSED. */
	spinlock_t task_lock;
	bool task_owned;
	bool task_again;
	wait_queue_head_t task_idle;
	struct sk_buff_head resp_pkts;
	struct sk_buff_head comp_pkts;
	struct sk_buff *softirq_pkt;
	struct rxc_req req;
	struct rxc_resp resp;
};

static inline struct rxc_ucontext *to_ruc(struct ib_ucontext *uc)
{
	return container_of(uc, struct rxc_ucontext, ibuc);
}

static inline struct rxc_pd *to_rpd(struct ib_pd *pd)
{
	return container_of(pd, struct rxc_pd, ibpd);
}

static inline struct rxc_ah *to_rah(struct ib_ah *ah)
{
	return container_of(ah, struct rxc_ah, ibah);
}

static inline struct rxc_mr *to_rmr(struct ib_mr *mr)
{
	return container_of(mr, struct rxc_mr, ibmr);
}

static inline struct rxc_mw *to_rmw(struct ib_mw *mw)
{
	return container_of(mw, struct rxc_mw, ibmw);
}

static inline struct rxc_cq *to_rcq(struct ib_cq *cq)
{
	return container_of(cq, struct rxc_cq, ibcq);
}

static inline struct rxc_srq *to_rsrq(struct ib_srq *srq)
{
	return container_of(srq, struct rxc_srq, ibsrq);
}

static inline struct rxc_qp *to_rqp(struct ib_qp *qp)
{
	return container_of(qp, struct rxc_qp, ibqp);
}

/* rxc_device.c */
int rxc_device_register(struct rxc_dev *rxc, const char *name);

/* rxc_ucontext.c */
int rxc_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata);
void rxc_dealloc_ucontext(struct ib_ucontext *uctx);
void *rxc_user_buf_alloc(size_t size);
int rxc_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void rxc_mmap_free(struct rdma_user_mmap_entry *entry);
void rxc_disassociate_ucontext(struct ib_ucontext *uctx);

/* rxc_pd.c */
int rxc_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int rxc_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

/* rxc_ah.c */
int rxc_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		  struct ib_udata *udata);
int rxc_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int rxc_destroy_ah(struct ib_ah *ibah, u32 flags);

/* rxc_key.c */
s64 rxc_key_alloc(struct rxc_dev *rxc, void *obj, enum rxc_key_type type,
		  u32 *index);
void rxc_key_free(struct rxc_dev *rxc, u32 index);

/* rxc_mw.c */
int rxc_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int rxc_dealloc_mw(struct ib_mw *ibmw);
enum ib_wc_status rxc_mw_bind(struct rxc_qp *qp, const struct rxc_mw_bind *b);
enum ib_wc_status rxc_mw_invalidate(struct rxc_qp *qp, u32 rkey);
struct rxc_mr *rxc_mw_get_mr(struct rxc_mw *mw, u32 rkey,
			     const struct rxc_qp *qp, int access, u64 iova,
			     u64 length);

/* rxc_mr.c */
struct ib_mr *rxc_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *rxc_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 iova, int access, RXC_REG_USER_MR_DMAH
			      struct ib_udata *udata);
int rxc_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct rxc_mr *rxc_mr_get(struct rxc_dev *rxc, u32 key, struct ib_pd *pd,
			  int access, u64 iova, u64 length);
struct rxc_mr *rxc_mr_get_remote(const struct rxc_qp *qp, u32 rkey,
				 int access, u64 iova, u64 length);
void rxc_mr_put(struct rxc_mr *mr);
void rxc_mr_copy(struct rxc_mr *mr, u64 iova, void *buf, u32 len,
		 enum rxc_copy_dir dir);
u64 *rxc_mr_map_u64(struct rxc_mr *mr, u64 iova);
void rxc_mr_unmap_u64(struct rxc_mr *mr, u64 *p);
int rxc_sgl_copy(struct rxc_dev *rxc, struct ib_pd *pd,
		 const struct rxe_sge *sge, u32 num_sge, u32 off, void *buf,
		 u32 len, enum rxc_copy_dir dir);
int rxc_sgl_copy_pkt(struct rxc_dev *rxc, struct ib_pd *pd,
		     const struct rxe_sge *sge, u32 num_sge, u32 off,
		     const struct rxc_pkt_info *pkt);

/* rxc_cq.c */
int rxc_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  RXC_CREATE_CQ_CTX *ctx);
int rxc_resize_cq(struct ib_cq *ibcq, RXC_RESIZE_CQE_T cqe,
		  struct ib_udata *udata);
int rxc_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int rxc_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int rxc_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int rxc_cq_post(struct rxc_cq *cq, struct rxc_qp *qp,
		const struct rxc_completion *c);

/*
 * The QP's state, which modify_qp and the transport's move to ERR change
 * while others read it.  Inline: a transport pass reads it a dozen times.
 */
static inline enum ib_qp_state rxc_qp_state(struct rxc_qp *qp)
{
	return READ_ONCE(qp->attr.qp_state);
}

/* rxc_qp.c */
int rxc_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata);
int rxc_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
int rxc_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int rxc_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
bool rxc_qp_error(struct rxc_qp *qp);
bool rxc_qp_from_peer(const struct rxc_qp *qp, const struct sk_buff *skb);
void rxc_qp_fatal(struct rxc_qp *qp, enum ib_event_type event);
int rxc_qp_attach_comp_cntr(struct ib_qp *ibqp, struct ib_comp_cntr *cc,
			    struct ib_qp_attach_comp_cntr_attr *attr);

/* rxc_post.c */
int rxc_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);
int rxc_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr);
int rxc_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);

/* rxc_stats.c */
struct rdma_hw_stats *rxc_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port);
int rxc_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port, int index);

/* rxc_srq.c */
int rxc_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata);
int rxc_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int rxc_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int rxc_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);

#endif /* RXC_VERBS_H */
