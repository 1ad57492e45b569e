// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * vdiff's runner: a program on real QPs, and its trace.
 *
 * The trace is what a user can observe and the specification defines:
 * per step, each CQ's completions in order (work request id and status;
 * on success the opcode, and for receives the length, the immediate data
 * and, for UD, the GRH flag and whether the source is the peer), then the
 * bytes of both buffers as one hash each and the final QP states.  Fields
 * the specification leaves undefined (the opcode and length of an error
 * completion, the length and immediate data of a send completion, the
 * GRH flag outside UD) are left out, and so are the bytes whose content
 * it leaves undefined: the buffer of a receive that completed in error,
 * the local buffer of a READ or atomic and the remote range of a write
 * that failed, and the 40 bytes of a UD receive that hold the GRH (the
 * IPv4 header's identification differs between stacks).
 *
 * Completion counters, where a side's device has them: six per side, one
 * for each attach operation, all of the program's type (WRS or BYTES).
 * What each should hold at the end follows from the trace and the
 * program (model.c), so every driver prints that model; a driver with
 * counters also prints what they hold, on a "counted" line, where that
 * differs.
 *
 * Flushed receives are listed once, at the end, after both QPs were
 * moved to ERR: librxe posts receives without a system call, so when a
 * driver learns of one posted to a QP in ERR, and flushes it, depends on
 * when that QP next runs, not on the program.
 *
 * A step waits for the completion of its last (signaled) request, then
 * for the receives it should consume, for at most @quiet_ms.  Once any
 * completion has failed, or a QP was forced to ERR, flushes may still be
 * on their way, so every later step also waits until its CQs stay quiet
 * for @quiet_ms.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#include "vdiff.h"
#include "../verbs/cntr_ioctl.h"

#define CQ_DEPTH	512
#define WC_MAX		256
/* The longest a step waits: enough for RC's retries to run out. */
#define STEP_CAP_MS(quiet)	((quiet) * 40 > 3000 ? (quiet) * 40 : 3000)
#define BAD_KEY_XOR	0x00ffff00u

struct wc_log {
	struct ibv_wc wc[WC_MAX];
	unsigned int n;
	bool overflow;
};

/* The work request ids of a side's flushed receives, for the end. */
struct flush_log {
	uint64_t id[WC_MAX];
	unsigned int n;
};

struct side {
	char name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;	/* RC with ATOMIC_WRITE: posts go through it */
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	struct ibv_ah *ah;
	uint32_t mw_rkey;	/* the key of the last bind posted */
	union ibv_gid gid;
	int gid_index;
	enum ibv_mtu mtu;
	unsigned char *buf;
	unsigned char *undef;	/* 1 for a byte the trace leaves out */
	struct wc_log slog, rlog;
	struct flush_log flushed;
	/*
	 * Receives posted to the QP, and to the QP or the SRQ; completions
	 * of them.
	 */
	unsigned int recvs_qp, recvs_all, recvs_done;
	bool has_cntrs;		/* its device has completion counters */
	struct cntr cntr[VD_NCLS];
	bool cntr_made[VD_NCLS];
};

struct run {
	const struct vd_prog *p;
	struct side s[2];
	struct vd_model model;
	bool need_cntrs;
	unsigned int quiet_ms;
	bool dirty;
	FILE *out;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Both buffers start from bytes the seed alone decides. */
static void fill(unsigned char *buf, uint64_t seed, unsigned int side)
{
	uint64_t st = seed ^ (0x5151ull << 32) ^ side, v;
	unsigned int i;

	for (i = 0; i < VD_BUF; i += 8) {
		v = htole64(vd_rand(&st));
		memcpy(buf + i, &v, 8);
	}
}

/*
 * One counter per attach operation, where the device has them: a device
 * without (rdma_rxe) fails the capabilities query, and its side's trace
 * has the model alone.
 */
static int side_cntrs(struct run *r, struct side *sd)
{
	int type = r->p->cntr_bytes ? RXC_COMP_CNTR_TYPE_BYTES :
				      RXC_COMP_CNTR_TYPE_WRS;
	struct caps caps;
	unsigned int c;
	int rc;

	if (query_caps(sd->ctx, &caps) || (caps.ops & ALL_OPS) != ALL_OPS ||
	    caps.max_counters < VD_NCLS)
		return r->need_cntrs ? EOPNOTSUPP : 0;
	for (c = 0; c < VD_NCLS; c++) {
		rc = cntr_create_ex(sd->ctx, &sd->cntr[c], type, NULL, NULL);
		if (rc)
			return rc;
		sd->cntr_made[c] = true;
		rc = qp_attach(sd->ctx, sd->qp, &sd->cntr[c], 1u << c);
		if (rc)
			return rc;
	}
	sd->has_cntrs = true;
	return 0;
}

static bool uses_qp_ex(const struct vd_prog *p)
{
	return p->atomic_write && p->qpt == VD_RC;
}

/* Every RC operation a program of VD_GEN_ATOMIC_WRITE may post. */
#define VD_EX_OPS	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
			 IBV_QP_EX_WITH_RDMA_WRITE |			\
			 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |		\
			 IBV_QP_EX_WITH_RDMA_READ |			\
			 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |		\
			 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |		\
			 IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV | \
			 IBV_QP_EX_WITH_ATOMIC_WRITE)

/* An extended QP where the program posts through one, else a plain one. */
static struct ibv_qp *create_qp(struct run *r, struct side *sd,
				struct ibv_qp_init_attr *qa)
{
	struct ibv_qp_init_attr_ex ex = {
		.qp_context = qa->qp_context, .send_cq = qa->send_cq,
		.recv_cq = qa->recv_cq, .srq = qa->srq, .cap = qa->cap,
		.qp_type = qa->qp_type, .sq_sig_all = qa->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = sd->pd, .send_ops_flags = VD_EX_OPS,
	};
	struct ibv_qp *qp;

	if (!uses_qp_ex(r->p))
		return ibv_create_qp(sd->pd, qa);
	qp = ibv_create_qp_ex(sd->ctx, &ex);
	if (qp)
		sd->qpx = ibv_qp_to_qp_ex(qp);
	return qp;
}

static int side_open(struct run *r, struct side *sd, const struct vd_end *e,
		     unsigned int idx)
{
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = VD_MAX_SGE, .max_recv_sge = VD_MAX_SGE,
			 .max_inline_data = VD_INLINE },
	};
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = 64, .max_sge = VD_MAX_SGE },
	};
	struct ibv_port_attr pa;
	int rc, access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

	sd->name = (char)('A' + idx);
	sd->gid_index = e->gid_index;
	sd->ctx = open_device_by_name(e->dev);
	if (!sd->ctx)
		return errno ? errno : ENODEV;
	if (ibv_query_port(sd->ctx, 1, &pa) ||
	    ibv_query_gid(sd->ctx, 1, e->gid_index, &sd->gid))
		return errno ? errno : EIO;
	sd->mtu = pa.active_mtu;
	sd->pd = ibv_alloc_pd(sd->ctx);
	sd->buf = aligned_alloc(4096, VD_BUF);
	sd->undef = calloc(1, VD_BUF);
	if (!sd->pd || !sd->buf || !sd->undef)
		return ENOMEM;
	fill(sd->buf, r->p->seed, idx);
	if (r->p->qpt == VD_RC)
		access |= IBV_ACCESS_MW_BIND;
	sd->mr = ibv_reg_mr(sd->pd, sd->buf, VD_BUF, access);
	sd->scq = ibv_create_cq(sd->ctx, CQ_DEPTH, NULL, NULL, 0);
	sd->rcq = ibv_create_cq(sd->ctx, CQ_DEPTH, NULL, NULL, 0);
	if (!sd->mr || !sd->scq || !sd->rcq)
		return errno ? errno : ENOMEM;
	if (r->p->srq) {
		sd->srq = ibv_create_srq(sd->pd, &sa);
		if (!sd->srq)
			return errno;
		qa.cap.max_recv_wr = 0;
		qa.cap.max_recv_sge = 0;
	}
	qa.send_cq = sd->scq;
	qa.recv_cq = sd->rcq;
	qa.srq = sd->srq;
	qa.qp_type = r->p->qpt == VD_RC ? IBV_QPT_RC :
		     r->p->qpt == VD_UC ? IBV_QPT_UC : IBV_QPT_UD;
	sd->qp = create_qp(r, sd, &qa);
	if (!sd->qp)
		return errno;
	rc = side_cntrs(r, sd);
	if (rc)
		return rc;
	if (r->p->qpt == VD_RC) {
		sd->mw = ibv_alloc_mw(sd->pd, IBV_MW_TYPE_2);
		if (!sd->mw)
			return errno;
		sd->mw_rkey = sd->mw->rkey;
	}
	return 0;
}

/*
 * The window before the QP: 6.1's rdma_rxe keeps a reference on the QP a
 * type 2 window is bound to, and its destroy_qp waits 50 s for it and
 * warns.
 */
static void side_close(struct side *sd)
{
	unsigned int c;

	if (sd->ah)
		ibv_destroy_ah(sd->ah);
	if (sd->mw)
		ibv_dealloc_mw(sd->mw);
	if (sd->qp)
		ibv_destroy_qp(sd->qp);
	/* Attached counters outlive their QP only. */
	for (c = 0; c < VD_NCLS; c++)
		if (sd->cntr_made[c])
			cntr_destroy(sd->ctx, &sd->cntr[c]);
	if (sd->srq)
		ibv_destroy_srq(sd->srq);
	if (sd->scq)
		ibv_destroy_cq(sd->scq);
	if (sd->rcq)
		ibv_destroy_cq(sd->rcq);
	if (sd->mr)
		ibv_dereg_mr(sd->mr);
	if (sd->pd)
		ibv_dealloc_pd(sd->pd);
	if (sd->ctx)
		ibv_close_device(sd->ctx);
	free(sd->buf);
	free(sd->undef);
}

static void av_to(const struct side *me, const struct side *peer,
		  struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->port_num = 1;
	ah->grh.dgid = peer->gid;
	ah->grh.sgid_index = (uint8_t)me->gid_index;
	ah->grh.hop_limit = 64;
}

/* RESET to RTS, connected to @peer (RC, UC) or addressing it (UD). */
static int side_connect(struct run *r, struct side *me, struct side *peer)
{
	enum ibv_mtu mtu = me->mtu < peer->mtu ? me->mtu : peer->mtu;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x11111111,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};
	int init = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	int rtr = IBV_QP_STATE, rts = IBV_QP_STATE | IBV_QP_SQ_PSN;

	switch (r->p->qpt) {
	case VD_UD:
		init |= IBV_QP_QKEY;
		break;
	case VD_UC:
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		init |= IBV_QP_ACCESS_FLAGS;
		rtr |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		       IBV_QP_RQ_PSN;
		break;
	case VD_RC:
		init |= IBV_QP_ACCESS_FLAGS;
		rtr |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
		       IBV_QP_MIN_RNR_TIMER;
		rts |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		       IBV_QP_MAX_QP_RD_ATOMIC;
		break;
	}
	if (ibv_modify_qp(me->qp, &a, init))
		return errno;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = peer->qp->qp_num;
	a.rq_psn = 0x1000;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	av_to(me, peer, &a.ah_attr);
	if (ibv_modify_qp(me->qp, &a, rtr))
		return errno;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x1000;
	/*
	 * A peer forced to ERR answers nothing: retries run out in about
	 * 4 x 16 ms.  RNR fails at once.
	 */
	a.timeout = 12;
	a.retry_cnt = 3;
	a.rnr_retry = 0;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(me->qp, &a, rts))
		return errno;
	if (r->p->qpt == VD_UD) {
		av_to(me, peer, &a.ah_attr);
		me->ah = ibv_create_ah(me->pd, &a.ah_attr);
		if (!me->ah)
			return errno;
	}
	return 0;
}

/* Split @len bytes at @base of @sd's buffer into @n SGEs. */
static int make_sges(struct side *sd, struct ibv_sge *sge, uint32_t base,
		     uint32_t len, unsigned int n)
{
	uint32_t off = 0, piece;
	unsigned int i;

	for (i = 0; i < n; i++) {
		piece = i + 1 == n ? len - off : len / n;
		sge[i].addr = (uintptr_t)sd->buf + base + off;
		sge[i].length = piece;
		sge[i].lkey = sd->mr->lkey;
		off += piece;
	}
	return (int)n;
}

/* The peer's address and key that @w names. */
static uint64_t remote_of(const struct side *peer, const struct vd_wr *w,
			  uint32_t *rkey)
{
	*rkey = w->op == VD_WRITE_MW ? peer->mw_rkey : peer->mr->rkey;
	if (w->bad_key)
		*rkey ^= BAD_KEY_XOR;
	return (uintptr_t)peer->buf + w->roff;
}

static void fill_remote(struct side *me, struct side *peer,
			const struct vd_wr *w, struct ibv_send_wr *wr)
{
	uint32_t rkey;
	uint64_t raddr = remote_of(peer, w, &rkey);

	if (w->op == VD_CAS || w->op == VD_FADD) {
		wr->wr.atomic.remote_addr = raddr;
		wr->wr.atomic.rkey = rkey;
		wr->wr.atomic.compare_add = w->op == VD_CAS ? w->cmp : w->add;
		wr->wr.atomic.swap = w->add;
	} else if (me->ah) {
		wr->wr.ud.ah = me->ah;
		wr->wr.ud.remote_qpn = peer->qp->qp_num;
		wr->wr.ud.remote_qkey = 0x11111111;
	} else {
		wr->wr.rdma.remote_addr = raddr;
		wr->wr.rdma.rkey = rkey;
	}
}

/*
 * A bind of @me's window over its second half: the key it gives the
 * window, and @bi.  librxe names the window by mw->rkey, which a bind
 * posted here does not update: the next bind must name the new key.
 */
static uint32_t bind_key(struct side *me, struct ibv_mw_bind_info *bi)
{
	me->mw->rkey = me->mw_rkey;
	me->mw_rkey = ibv_inc_rkey(me->mw_rkey);
	bi->mr = me->mr;
	bi->addr = (uintptr_t)me->buf + VD_HALF;
	bi->length = VD_HALF;
	bi->mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	return me->mw_rkey;
}

static void fill_send(struct side *me, struct side *peer, unsigned int step,
		      unsigned int i, const struct vd_wr *w,
		      struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	static const enum ibv_wr_opcode opc[VD_NOPS] = {
		[VD_SEND] = IBV_WR_SEND, [VD_SEND_IMM] = IBV_WR_SEND_WITH_IMM,
		[VD_WRITE] = IBV_WR_RDMA_WRITE,
		[VD_WRITE_IMM] = IBV_WR_RDMA_WRITE_WITH_IMM,
		[VD_READ] = IBV_WR_RDMA_READ,
		[VD_CAS] = IBV_WR_ATOMIC_CMP_AND_SWP,
		[VD_FADD] = IBV_WR_ATOMIC_FETCH_AND_ADD,
		[VD_BIND] = IBV_WR_BIND_MW, [VD_INV] = IBV_WR_LOCAL_INV,
		[VD_WRITE_MW] = IBV_WR_RDMA_WRITE,
	};

	memset(wr, 0, sizeof(*wr));
	wr->wr_id = vd_wr_id(step, i);
	wr->opcode = opc[w->op];
	wr->send_flags = (w->signaled ? IBV_SEND_SIGNALED : 0) |
			 (w->inl ? IBV_SEND_INLINE : 0);
	/* A union with invalidate_rkey: librxe refuses it on other ops. */
	if (w->op == VD_SEND_IMM || w->op == VD_WRITE_IMM)
		wr->imm_data = htonl(w->imm);
	if (w->op == VD_BIND) {
		wr->bind_mw.mw = me->mw;
		wr->bind_mw.rkey = bind_key(me, &wr->bind_mw.bind_info);
		return;
	}
	if (w->op == VD_INV) {
		wr->invalidate_rkey = me->mw_rkey;
		return;
	}
	wr->sg_list = sge;
	wr->num_sge = make_sges(me, sge, w->loff, w->len, w->nsge);
	fill_remote(me, peer, w, wr);
}

static void log_wc(struct wc_log *log, const struct ibv_wc *wc)
{
	if (log->n < WC_MAX)
		log->wc[log->n++] = *wc;
	else
		log->overflow = true;
}

/* Drain every CQ into the logs; true if anything came. */
static bool poll_all(struct run *r)
{
	struct ibv_wc wc[16];
	bool any = false;
	unsigned int i;
	int n, j;

	for (i = 0; i < 2; i++) {
		struct side *sd = &r->s[i];

		while ((n = ibv_poll_cq(sd->scq, 16, wc)) > 0)
			for (j = 0, any = true; j < n; j++)
				log_wc(&sd->slog, &wc[j]);
		while ((n = ibv_poll_cq(sd->rcq, 16, wc)) > 0)
			for (j = 0, any = true; j < n; j++)
				log_wc(&sd->rlog, &wc[j]);
	}
	return any;
}

static bool logged(const struct wc_log *log, uint64_t id)
{
	unsigned int i;

	for (i = 0; i < log->n; i++)
		if (log->wc[i].wr_id == id)
			return true;
	return false;
}

static bool any_error(const struct wc_log *log)
{
	unsigned int i;

	for (i = 0; i < log->n; i++)
		if (log->wc[i].status != IBV_WC_SUCCESS)
			return true;
	return false;
}

static bool logs_have_errors(const struct run *r)
{
	unsigned int i;

	for (i = 0; i < 2; i++)
		if (any_error(&r->s[i].slog) || any_error(&r->s[i].rlog))
			return true;
	return false;
}

/*
 * Between polls that found nothing.  Spinning would take the CPU from
 * the transport the program waits for: with tens of programs at once
 * under emulation, polling was most of what a guest did.
 */
static void nap(void)
{
	const struct timespec ts = { .tv_nsec = 500 * 1000 };

	nanosleep(&ts, NULL);
}

/*
 * Wait for @want (if any) on @sd's send CQ and for @recvs receive
 * completions on @peer (at most @quiet_ms for those once the run is
 * dirty), then, once it is dirty, for @quiet_ms without a completion.
 */
static void settle(struct run *r, struct side *sd, const uint64_t *want,
		   struct side *peer, unsigned int recvs)
{
	long long start = now_ms(), last = start;

	for (;;) {
		long long t = now_ms();

		if (poll_all(r))
			last = t;
		else
			nap();
		if (!r->dirty)
			r->dirty = logs_have_errors(r);
		if (t - start > STEP_CAP_MS(r->quiet_ms)) {
			if (want && !logged(&sd->slog, *want))
				fprintf(r->out, "  %c: no completion for the step\n",
					sd->name);
			return;
		}
		if (want && !logged(&sd->slog, *want))
			continue;
		/*
		 * Until something failed every receive comes, however busy
		 * the guest; after a failure some may never come.
		 */
		if (peer && peer->rlog.n < recvs &&
		    (!r->dirty || t - start < r->quiet_ms))
			continue;
		if (r->dirty && t - last < r->quiet_ms)
			continue;
		return;
	}
}

/* Poll every CQ until @done(@r, @arg) or @limit_ms; false at the limit. */
static bool poll_until(struct run *r, bool (*done)(struct run *r,
						   const void *arg),
		       const void *arg, long long limit_ms)
{
	long long start = now_ms();

	while (!done(r, arg)) {
		if (now_ms() - start >= limit_ms)
			return false;
		if (!poll_all(r))
			nap();
	}
	return true;
}

static bool never(struct run *r, const void *arg)
{
	(void)r;
	(void)arg;
	return false;
}

static void print_wc(char side, const char *cq, const struct ibv_wc *wc,
		     const struct side *peer, bool recv, FILE *f)
{
	fprintf(f, "  %c %s %u.%u %s (%d)", side, cq,
		vd_wr_step(wc->wr_id), vd_wr_index(wc->wr_id),
		ibv_wc_status_str(wc->status), wc->status);
	if (wc->status == IBV_WC_SUCCESS) {
		fprintf(f, " op %d", wc->opcode);
		if (recv)
			fprintf(f, " len %u", wc->byte_len);
		if (recv && (wc->wc_flags & IBV_WC_WITH_IMM))
			fprintf(f, " imm %#x", ntohl(wc->imm_data));
		if (recv && peer->ah)
			fprintf(f, " %sfrom %s",
				wc->wc_flags & IBV_WC_GRH ? "grh " : "",
				wc->src_qp == peer->qp->qp_num ? "peer" :
								 "elsewhere");
	}
	fputc('\n', f);
}

static void undefined(struct side *sd, uint32_t off, uint32_t len)
{
	memset(sd->undef + off, 1, len);
}

/* Leave out of the digests what @wc leaves undefined (see the top). */
static void mark_undefined(struct run *r, struct side *sd,
			   const struct ibv_wc *wc, bool recv)
{
	unsigned int step = vd_wr_step(wc->wr_id), i = vd_wr_index(wc->wr_id);
	const struct vd_wr *w;

	if (step >= r->p->nsteps || i >= r->p->step[step].n ||
	    wc->status == IBV_WC_WR_FLUSH_ERR)
		return;
	w = &r->p->step[step].wr[i];
	if (recv) {
		if (wc->status != IBV_WC_SUCCESS)
			undefined(sd, w->loff, w->len);
		else if (r->p->qpt == VD_UD)
			undefined(sd, w->loff, VD_UD_GRH);
		return;
	}
	if (wc->status == IBV_WC_SUCCESS)
		return;
	if (vd_op_cls(w->op) == VD_CL_READ)
		undefined(sd, w->loff, w->len);
	else if (vd_op_cls(w->op) == VD_CL_WRITE)
		undefined(&r->s[sd == &r->s[0]], w->roff, w->len);
}

/* A receive's message length: without the GRH in front of a UD one. */
static uint32_t recv_bytes(const struct run *r, const struct ibv_wc *wc)
{
	if (r->p->qpt != VD_UD || wc->byte_len < VD_UD_GRH)
		return wc->byte_len;
	return wc->byte_len - VD_UD_GRH;
}

static void flush_logs(struct run *r)
{
	unsigned int i, j;

	for (i = 0; i < 2; i++) {
		struct side *sd = &r->s[i], *peer = &r->s[!i];

		for (j = 0; j < sd->slog.n; j++) {
			vd_model_send(&r->model, r->p, sd->slog.wc[j].wr_id,
				      sd->slog.wc[j].status);
			mark_undefined(r, sd, &sd->slog.wc[j], false);
			print_wc(sd->name, "sq", &sd->slog.wc[j], peer, false,
				 r->out);
		}
		for (j = 0; j < sd->rlog.n; j++) {
			const struct ibv_wc *wc = &sd->rlog.wc[j];

			vd_model_recv(&r->model, i, wc->status,
				      recv_bytes(r, wc));
			sd->recvs_done++;
			mark_undefined(r, sd, wc, true);
			if (wc->status == IBV_WC_WR_FLUSH_ERR &&
			    sd->flushed.n < WC_MAX)
				sd->flushed.id[sd->flushed.n++] = wc->wr_id;
			else
				print_wc(sd->name, "rq", wc, peer, true, r->out);
		}
		if (sd->slog.overflow || sd->rlog.overflow)
			fprintf(r->out, "  %c: more than %d completions\n",
				sd->name, WC_MAX);
		sd->slog.n = sd->rlog.n = 0;
		sd->slog.overflow = sd->rlog.overflow = false;
	}
}

/*
 * Whether @peer's QP can receive (and, being in RTS, send), for UC: the
 * counter model (model.c) and the wait for placed writes need it.  RC
 * and UD need not know: it is never asked.
 */
static bool peer_up(const struct run *r, const struct side *peer)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (r->p->qpt != VD_UC || ibv_query_qp(peer->qp, &a, IBV_QP_STATE,
					       &init))
		return false;
	return a.qp_state == IBV_QPS_RTR || a.qp_state == IBV_QPS_RTS;
}

/*
 * Whether @w consumes a receive at the peer when nothing went wrong
 * before it and one is there: not a UC WRITE_IMM that UC drops.
 */
static bool expects_recv(const struct run *r, const struct vd_wr *w)
{
	if (w->op == VD_WRITE_IMM && r->p->qpt == VD_UC)
		return vd_uc_placed(w);
	return vd_consumes_recv(w->op);
}

/*
 * The UC write of @st whose placement shows: the last that will be placed
 * (vd_uc_placed()) and moves bytes, unless a request behind it consumes
 * a receive, which settle() waited for.  *@blind: a write of no bytes,
 * placed but invisible, comes after it.
 */
static const struct vd_wr *uc_write_to_see(const struct run *r,
					   const struct vd_step *st,
					   bool *blind)
{
	unsigned int i = st->n;

	*blind = false;
	while (i--) {
		const struct vd_wr *w = &st->wr[i];

		if (expects_recv(r, w))
			return NULL;
		if (w->op != VD_WRITE || !vd_uc_placed(w))
			continue;
		if (w->len)
			return w;
		*blind = true;
	}
	return NULL;
}

/* A write and its two ends, for placed(). */
struct write_ends {
	const struct vd_wr *w;
	const struct side *me, *peer;
};

static bool placed(struct run *r, const void *arg)
{
	const struct write_ends *we = arg;

	(void)r;
	return !memcmp(we->peer->buf + we->w->roff, we->me->buf + we->w->loff,
		       we->w->len);
}

/*
 * A UC write has no completion at its target, and its requester's comes
 * when it is sent: before the next step (or the end) changes the peer,
 * wait until the chain's last visible write is placed.  A QP's packets
 * arrive in order, so that covers the chain; a write behind which a
 * request consumes a receive is covered by the wait for that receive.
 * The source, in the poster's first half, never changes.  A write of no
 * bytes shows nothing: after one, the best left is a quiet while.
 */
static void wait_uc_placed(struct run *r, const struct vd_step *st,
			   bool peer_was_up)
{
	struct write_ends we = {
		.me = &r->s[st->side], .peer = &r->s[!st->side],
	};
	bool blind;

	if (r->p->qpt != VD_UC || !peer_was_up || !peer_up(r, we.peer) ||
	    !peer_up(r, we.me))
		return;
	we.w = uc_write_to_see(r, st, &blind);
	if (we.w)
		poll_until(r, placed, &we, STEP_CAP_MS(r->quiet_ms));
	if (blind)
		poll_until(r, never, NULL, r->quiet_ms);
}

/*
 * @w's local data through the extended QP: a list of SGEs, or inline.
 * Inline data goes as one buffer (its SGEs are contiguous anyway):
 * librxe 44's wr_set_inline_data_list() never adds up the length, so a
 * list posts an empty message (fixed in rdma-core 64, 1e8ed0aff).
 */
static void wr_set_data(struct side *me, const struct vd_wr *w)
{
	struct ibv_sge sge[VD_MAX_SGE];
	int n;

	if (w->inl) {
		ibv_wr_set_inline_data(me->qpx, me->buf + w->loff, w->len);
		return;
	}
	n = make_sges(me, sge, w->loff, w->len, w->nsge);
	ibv_wr_set_sge_list(me->qpx, (size_t)n, sge);
}

/* One request of a chain through the extended QP (ibv_wr_*()). */
static void wr_post_one(struct side *me, struct side *peer, uint64_t id,
			const struct vd_wr *w)
{
	struct ibv_qp_ex *qx = me->qpx;
	struct ibv_mw_bind_info bi;
	uint32_t rkey;
	uint64_t raddr = remote_of(peer, w, &rkey);

	qx->wr_id = id;
	/* librxe's kernel ABI marks inline data by the flag alone. */
	qx->wr_flags = (w->signaled ? IBV_SEND_SIGNALED : 0) |
		       (w->inl ? IBV_SEND_INLINE : 0);
	switch (w->op) {
	case VD_BIND:
		ibv_wr_bind_mw(qx, me->mw, bind_key(me, &bi), &bi);
		return;
	case VD_INV:
		ibv_wr_local_inv(qx, me->mw_rkey);
		return;
	case VD_ATOMIC_WRITE:
		ibv_wr_atomic_write(qx, rkey, raddr, me->buf + w->loff);
		return;
	case VD_SEND:
		ibv_wr_send(qx);
		break;
	case VD_SEND_IMM:
		ibv_wr_send_imm(qx, htonl(w->imm));
		break;
	case VD_WRITE_IMM:
		ibv_wr_rdma_write_imm(qx, rkey, raddr, htonl(w->imm));
		break;
	case VD_READ:
		ibv_wr_rdma_read(qx, rkey, raddr);
		break;
	case VD_CAS:
		ibv_wr_atomic_cmp_swp(qx, rkey, raddr, w->cmp, w->add);
		break;
	case VD_FADD:
		ibv_wr_atomic_fetch_add(qx, rkey, raddr, w->add);
		break;
	default:
		ibv_wr_rdma_write(qx, rkey, raddr);
		break;
	}
	wr_set_data(me, w);
}

/*
 * Post @st's chain through the extended QP, as one doorbell.  A failed
 * ibv_wr_complete() posts none of it.
 */
static int post_chain_ex(struct side *me, struct side *peer,
			 unsigned int idx, const struct vd_step *st)
{
	unsigned int i;

	ibv_wr_start(me->qpx);
	for (i = 0; i < st->n; i++)
		wr_post_one(me, peer, vd_wr_id(idx, i), &st->wr[i]);
	return ibv_wr_complete(me->qpx);
}

/*
 * Post @st's chain with ibv_post_send(), as one doorbell.  *@at: where a
 * failed post stopped (the requests before it were posted), or -1.
 */
static int post_chain(struct side *me, struct side *peer, unsigned int idx,
		      const struct vd_step *st, long *at)
{
	struct ibv_send_wr wr[VD_MAX_CHAIN], *bad = NULL;
	struct ibv_sge sge[VD_MAX_CHAIN][VD_MAX_SGE];
	unsigned int i;
	int rc;

	for (i = 0; i < st->n; i++) {
		fill_send(me, peer, idx, i, &st->wr[i], &wr[i], sge[i]);
		wr[i].next = i + 1 < st->n ? &wr[i + 1] : NULL;
	}
	rc = ibv_post_send(me->qp, wr, &bad);
	*at = rc && bad ? (long)(bad - wr) : -1L;
	return rc;
}

static void step_send(struct run *r, unsigned int idx, const struct vd_step *st)
{
	struct side *me = &r->s[st->side], *peer = &r->s[!st->side];
	unsigned int i, recvs = 0;
	uint64_t last;
	long at = -1;
	bool up;
	int rc;

	for (i = 0; i < st->n; i++)
		recvs += expects_recv(r, &st->wr[i]);
	/* A message that finds no receive (RNR, or UD's silent drop). */
	if (recvs > peer->recvs_all - peer->recvs_done)
		recvs = peer->recvs_all - peer->recvs_done;
	up = peer_up(r, peer);
	if (me->qpx)
		rc = post_chain_ex(me, peer, idx, st);
	else
		rc = post_chain(me, peer, idx, st, &at);
	r->model.posted[idx] = rc ? (uint8_t)(at < 0 ? 0 : at) : st->n;
	if (rc) {
		fprintf(r->out, "  %c post_send: %s at %ld\n", me->name,
			strerror(rc), at);
		r->dirty = true;
		settle(r, me, NULL, NULL, 0);
	} else {
		last = vd_wr_id(idx, st->n - 1u);
		settle(r, me, &last, peer, recvs);
		wait_uc_placed(r, st, up);
	}
	if (up != peer_up(r, peer))
		r->model.peer[idx] = VD_PEER_CHANGED;
	else
		r->model.peer[idx] = up ? VD_PEER_UP : VD_PEER_DOWN;
}

static void step_recv(struct run *r, unsigned int idx, const struct vd_step *st)
{
	struct ibv_recv_wr wr[VD_MAX_CHAIN], *bad = NULL;
	struct ibv_sge sge[VD_MAX_CHAIN][VD_MAX_SGE];
	struct side *me = &r->s[st->side];
	unsigned int i, posted;
	int rc;

	for (i = 0; i < st->n; i++) {
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = vd_wr_id(idx, i);
		wr[i].sg_list = sge[i];
		wr[i].num_sge = make_sges(me, sge[i], st->wr[i].loff,
					  st->wr[i].len, st->wr[i].nsge);
		wr[i].next = i + 1 < st->n ? &wr[i + 1] : NULL;
	}
	rc = me->srq ? ibv_post_srq_recv(me->srq, wr, &bad) :
		       ibv_post_recv(me->qp, wr, &bad);
	posted = rc ? (bad ? (unsigned int)(bad - wr) : 0) : st->n;
	me->recvs_all += posted;
	if (!me->srq)
		me->recvs_qp += posted;
	if (rc) {
		fprintf(r->out, "  %c post_recv: %s at %ld\n", me->name,
			strerror(rc), bad ? (long)(bad - wr) : -1L);
		r->dirty = true;
	}
	settle(r, me, NULL, NULL, 0);
}

static void step_err(struct run *r, const struct vd_step *st)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct side *me = &r->s[st->side];

	if (ibv_modify_qp(me->qp, &a, IBV_QP_STATE))
		fprintf(r->out, "  %c modify_qp ERR: %s\n", me->name,
			strerror(errno));
	r->dirty = true;
	settle(r, me, NULL, NULL, 0);
}

#define FNV_OFFSET	0xcbf29ce484222325ull
#define FNV_PRIME	0x100000001b3ull

/*
 * FNV-1a, a word at a time, over the defined bytes of 4 KiB of a side's
 * buffer (undefined ones read as 0).  Under emulation hashing both
 * buffers byte by byte cost a program about as much as running it.
 */
static uint64_t digest_page(const struct side *sd, unsigned int page)
{
	const unsigned char *b = sd->buf + page * 4096;
	const unsigned char *u = sd->undef + page * 4096;
	uint64_t h = FNV_OFFSET, v, m;
	size_t i;

	for (i = 0; i < 4096; i += 8) {
		memcpy(&v, b + i, 8);
		memcpy(&m, u + i, 8);
		/* Each byte of m is 0 or 1: times 0xff masks it whole. */
		h = (h ^ (v & ~(m * 0xff))) * FNV_PRIME;
	}
	return h;
}

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The model of each side's counters, and where they differ from it. */
static void print_cntrs(struct run *r)
{
	struct vd_tally counted[VD_NCLS];
	unsigned int i, c;

	vd_model_finish(&r->model, r->p);
	for (i = 0; i < 2; i++) {
		struct side *sd = &r->s[i];

		memset(counted, 0, sizeof(counted));
		for (c = 0; sd->has_cntrs && c < VD_NCLS; c++)
			if (cntr_read(sd->ctx, &sd->cntr[c], ENTRY_COMP,
				      &counted[c].comp) ||
			    cntr_read(sd->ctx, &sd->cntr[c], ENTRY_ERR,
				      &counted[c].err))
				counted[c].unknown = true;
		vd_model_print(&r->model, i, sd->has_cntrs ? counted : NULL,
			       r->out);
	}
}

/* Every receive posted to a QP (not an SRQ) has completed. */
static bool recvs_flushed(struct run *r, const void *arg)
{
	unsigned int i;

	(void)arg;
	for (i = 0; i < 2; i++)
		if (r->s[i].recvs_done + r->s[i].rlog.n < r->s[i].recvs_qp)
			return false;
	return true;
}

/*
 * Both QPs to ERR, so that every receive still queued is flushed.  The
 * number of those is known: they are waited for, not only a quiet CQ,
 * which a loaded guest can keep quiet longer than @quiet_ms before the
 * flush (and the counters would count what the trace missed).
 */
static void finish(struct run *r)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	unsigned int i, j;

	fprintf(r->out, "end\n");
	for (i = 0; i < 2; i++)
		if (ibv_modify_qp(r->s[i].qp, &a, IBV_QP_STATE))
			fprintf(r->out, "  %c modify_qp ERR: %s\n",
				r->s[i].name, strerror(errno));
	r->dirty = true;
	poll_until(r, recvs_flushed, NULL, STEP_CAP_MS(r->quiet_ms));
	settle(r, &r->s[0], NULL, NULL, 0);
	flush_logs(r);
	for (i = 0; i < 2; i++) {
		struct side *sd = &r->s[i];

		qsort(sd->flushed.id, sd->flushed.n, sizeof(sd->flushed.id[0]),
		      cmp_id);
		fprintf(r->out, "flushed %c rq:", sd->name);
		for (j = 0; j < sd->flushed.n; j++)
			fprintf(r->out, " %u.%u",
				vd_wr_step(sd->flushed.id[j]),
				vd_wr_index(sd->flushed.id[j]));
		fputc('\n', r->out);
	}
	print_cntrs(r);
}

static void print_end(struct run *r)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	uint64_t page[VD_BUF / 4096], h;
	unsigned int i, c;

	for (i = 0; i < 2; i++) {
		struct side *sd = &r->s[i];

		/* The whole buffer's digest, then which 4 KiB differ. */
		for (c = 0, h = FNV_OFFSET; c < VD_BUF / 4096; c++) {
			page[c] = digest_page(sd, c);
			h = (h ^ page[c]) * FNV_PRIME;
		}
		fprintf(r->out, "mem %c %016llx\n", sd->name,
			(unsigned long long)h);
		for (c = 0; c < VD_BUF / 4096; c++)
			fprintf(r->out, "  mem %c %2u %016llx\n", sd->name, c,
				(unsigned long long)page[c]);
		if (ibv_query_qp(sd->qp, &a, IBV_QP_STATE, &init))
			fprintf(r->out, "state %c ? (%s)\n", sd->name,
				strerror(errno));
		else
			fprintf(r->out, "state %c %d\n", sd->name, a.qp_state);
	}
}

int vd_run(const struct vd_prog *p, uint32_t keep, const struct vd_end *a,
	   const struct vd_end *b, unsigned int quiet_ms, bool need_cntrs,
	   FILE *out)
{
	struct run r = {
		.p = p, .quiet_ms = quiet_ms, .need_cntrs = need_cntrs,
		.out = out,
	};
	unsigned int i;
	int rc;

	vd_model_init(&r.model, p);
	rc = side_open(&r, &r.s[0], a, 0);
	if (!rc)
		rc = side_open(&r, &r.s[1], b, 1);
	if (!rc)
		rc = side_connect(&r, &r.s[0], &r.s[1]);
	if (!rc)
		rc = side_connect(&r, &r.s[1], &r.s[0]);
	if (rc) {
		fprintf(out, "setup: %s\n", strerror(rc));
		goto out;
	}
	fprintf(out, "seed %llu\n", (unsigned long long)p->seed);
	for (i = 0; i < p->nsteps; i++) {
		const struct vd_step *st = &p->step[i];

		if (!(keep & (1u << i)))
			continue;
		fprintf(out, "step %u\n", i);
		if (st->kind == VD_STEP_SEND)
			step_send(&r, i, st);
		else if (st->kind == VD_STEP_RECV)
			step_recv(&r, i, st);
		else
			step_err(&r, st);
		flush_logs(&r);
	}
	print_end(&r);
	finish(&r);
out:
	side_close(&r.s[1]);
	side_close(&r.s[0]);
	return rc;
}
