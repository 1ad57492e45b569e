// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * vdiff's counter model: what each side's completion counters must hold
 * at the end of a program, from the program and its completions alone.
 *
 * The rules are rxc's (Documentation/rxc.rst, "What is counted"):
 *
 * - every work request that leaves a queue counts once, signaled or not,
 *   flushed or not: a success adds 1 (WRS) or its bytes (BYTES) to the
 *   completion value, an error adds 1 to the error value;
 * - SEND counts sends, RECV every consumed receive, RDMA_WRITE writes
 *   and ATOMIC_WRITE, RDMA_READ reads and atomics; binds and
 *   invalidations count nowhere;
 * - the responder counts REMOTE_RDMA_WRITE for writes and atomics,
 *   REMOTE_RDMA_READ for reads: a success once placed or answered, an
 *   error when it refused the request with a NAK.
 *
 * A send request without a completion at the end, after both QPs were
 * moved to ERR, succeeded unsignaled: anything else would have flushed.
 *
 * The responder's side follows from the requester's status on RC: a
 * success was executed, a remote error was refused (and counted), and
 * RNR, retry exhaustion or a flush never reached it.  UC has no
 * acknowledgments: a write with a good key, or of no bytes (whose key
 * nobody checks), is placed if the peer's QP could receive through the
 * whole step; when its state changed during the step, the count is
 * unknown and printed as "?".
 */
#include <string.h>
#include <infiniband/verbs.h>

#include "vdiff.h"

static const char *const cls_names[VD_NCLS] = {
	[VD_CL_SEND] = "send", [VD_CL_RECV] = "recv",
	[VD_CL_READ] = "read", [VD_CL_RREAD] = "rread",
	[VD_CL_WRITE] = "write", [VD_CL_RWRITE] = "rwrite",
};

enum vd_cls vd_op_cls(enum vd_op op)
{
	switch (op) {
	case VD_SEND:
	case VD_SEND_IMM:
		return VD_CL_SEND;
	case VD_WRITE:
	case VD_WRITE_IMM:
	case VD_WRITE_MW:
	case VD_ATOMIC_WRITE:
		return VD_CL_WRITE;
	case VD_READ:
	case VD_CAS:
	case VD_FADD:
		return VD_CL_READ;
	default:
		return VD_NCLS;
	}
}

/* The class a request counts in at the peer; VD_NCLS for none. */
static enum vd_cls remote_cls(enum vd_op op)
{
	switch (vd_op_cls(op)) {
	case VD_CL_WRITE:
		return VD_CL_RWRITE;
	case VD_CL_READ:
		return op == VD_READ ? VD_CL_RREAD : VD_CL_RWRITE;
	default:
		return VD_NCLS;
	}
}

static bool remote_refusal(int status)
{
	return status == IBV_WC_REM_ACCESS_ERR ||
	       status == IBV_WC_REM_INV_REQ_ERR ||
	       status == IBV_WC_REM_OP_ERR;
}

static void tally(struct vd_model *m, unsigned int side, enum vd_cls cls,
		  bool ok, uint64_t bytes)
{
	struct vd_tally *t;

	if (cls == VD_NCLS)
		return;
	t = &m->t[side][cls];
	if (!ok)
		t->err++;
	else
		t->comp += m->bytes ? bytes : 1;
}

/* What the peer of a request with status @status counted, if anything. */
static void tally_remote(struct vd_model *m, const struct vd_prog *p,
			 unsigned int step, const struct vd_wr *w, int status)
{
	unsigned int peer = !p->step[step].side;
	enum vd_cls cls = remote_cls(w->op);

	if (cls == VD_NCLS)
		return;
	if (p->qpt == VD_RC) {
		if (status == IBV_WC_SUCCESS)
			tally(m, peer, cls, true, w->len);
		else if (remote_refusal(status))
			tally(m, peer, cls, false, 0);
		return;
	}
	/* UC: no acknowledgment says what the peer did with a request. */
	if (status != IBV_WC_SUCCESS)
		return;
	if (m->peer[step] == VD_PEER_CHANGED)
		m->t[peer][cls].unknown = true;
	else if (m->peer[step] == VD_PEER_UP && vd_uc_placed(w))
		tally(m, peer, cls, true, w->len);
}

void vd_model_init(struct vd_model *m, const struct vd_prog *p)
{
	memset(m, 0, sizeof(*m));
	m->bytes = p->cntr_bytes;
}

void vd_model_send(struct vd_model *m, const struct vd_prog *p,
		   uint64_t wr_id, int status)
{
	unsigned int step = vd_wr_step(wr_id), i = vd_wr_index(wr_id);
	const struct vd_wr *w;

	if (step >= p->nsteps || i >= p->step[step].n ||
	    p->step[step].kind != VD_STEP_SEND || (m->seen[step] & 1u << i))
		return;
	m->seen[step] |= 1u << i;
	w = &p->step[step].wr[i];
	tally(m, p->step[step].side, vd_op_cls(w->op),
	      status == IBV_WC_SUCCESS, w->len);
	tally_remote(m, p, step, w, status);
}

void vd_model_recv(struct vd_model *m, unsigned int side, int status,
		   uint32_t bytes)
{
	tally(m, side, VD_CL_RECV, status == IBV_WC_SUCCESS, bytes);
}

void vd_model_finish(struct vd_model *m, const struct vd_prog *p)
{
	unsigned int s, i;

	for (s = 0; s < p->nsteps; s++)
		for (i = 0; i < m->posted[s]; i++)
			if (!(m->seen[s] & 1u << i))
				vd_model_send(m, p, vd_wr_id(s, i),
					      IBV_WC_SUCCESS);
}

/* @unknown: how to print a value nobody knows ("?" in the model). */
static void print_tallies(const struct vd_tally *t, const char *unknown,
			  FILE *f)
{
	unsigned int c;

	for (c = 0; c < VD_NCLS; c++) {
		if (t[c].unknown)
			fprintf(f, " %s %s", cls_names[c], unknown);
		else
			fprintf(f, " %s %llu/%llu", cls_names[c],
				(unsigned long long)t[c].comp,
				(unsigned long long)t[c].err);
	}
	fputc('\n', f);
}

void vd_model_print(const struct vd_model *m, unsigned int side,
		    const struct vd_tally *counted, FILE *f)
{
	unsigned int c;

	fprintf(f, "cntr %c", 'A' + side);
	print_tallies(m->t[side], "?", f);
	if (!counted)
		return;
	for (c = 0; c < VD_NCLS; c++)
		if (!m->t[side][c].unknown &&
		    (counted[c].unknown ||
		     counted[c].comp != m->t[side][c].comp ||
		     counted[c].err != m->t[side][c].err))
			break;
	if (c == VD_NCLS)
		return;
	fprintf(f, "  cntr %c counted", 'A' + side);
	print_tallies(counted, "unreadable", f);
}
