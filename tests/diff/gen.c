// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * vdiff's generator: a seed in, a valid program out, plus deliberate
 * errors at a low rate.
 *
 * Valid means every SEND finds a receive (the generator posts receives
 * ahead of a chain that needs them), every remote access names the
 * peer's memory with its key, a window is bound before the peer writes
 * through it, and every chain ends with a signaled request, which is
 * what the runner waits for.  The errors: a wrong rkey, a receive too
 * small for the message, a write through a window that is not bound, a
 * missing receive on RC, and a QP forced to ERR.  After an error on RC
 * both QPs may be in ERR; the program goes on, and the flushes are part
 * of what is compared.
 */
#include <string.h>

#include "vdiff.h"

/* splitmix64: small, and the same sequence on every machine. */
uint64_t vd_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t pick(uint64_t *s, uint32_t n)
{
	return (uint32_t)(vd_rand(s) % n);
}

static bool chance(uint64_t *s, unsigned int percent)
{
	return pick(s, 100) < percent;
}

/* What the generator knows of one side while it writes the program. */
struct side_model {
	unsigned int credits;	/* receives posted and not yet consumed */
	bool bound;		/* its window is bound */
};

struct gen {
	uint64_t s;
	struct vd_prog *p;
	struct side_model side[2];
	bool chain_binds;	/* the chain being written binds already */
};

static const char *const op_names[VD_NOPS] = {
	[VD_SEND] = "SEND", [VD_SEND_IMM] = "SEND_IMM",
	[VD_WRITE] = "WRITE", [VD_WRITE_IMM] = "WRITE_IMM",
	[VD_READ] = "READ", [VD_CAS] = "CAS", [VD_FADD] = "FADD",
	[VD_BIND] = "BIND_MW", [VD_INV] = "LOCAL_INV",
	[VD_WRITE_MW] = "WRITE_MW", [VD_ATOMIC_WRITE] = "ATOMIC_WRITE",
};

const char *vd_op_name(enum vd_op op)
{
	return op < VD_NOPS ? op_names[op] : "?";
}

const char *vd_qpt_name(enum vd_qpt qpt)
{
	return qpt == VD_RC ? "RC" : qpt == VD_UC ? "UC" : "UD";
}

static bool is_atomic(enum vd_op op)
{
	return op == VD_CAS || op == VD_FADD;
}

/* Eight bytes at an aligned address: the atomics and ATOMIC_WRITE. */
static bool is_word(enum vd_op op)
{
	return is_atomic(op) || op == VD_ATOMIC_WRITE;
}

static bool is_local(enum vd_op op)
{
	return op == VD_BIND || op == VD_INV;
}

/* The operations a QP type allows, in a table the picker indexes. */
static enum vd_op pick_op(struct gen *g)
{
	/* ATOMIC_WRITE last: without it, the others keep their picks. */
	static const enum vd_op rc[] = {
		VD_SEND, VD_SEND_IMM, VD_WRITE, VD_WRITE_IMM, VD_READ,
		VD_CAS, VD_FADD, VD_BIND, VD_INV, VD_WRITE_MW,
		VD_ATOMIC_WRITE,
	};
	static const enum vd_op uc[] = {
		VD_SEND, VD_SEND_IMM, VD_WRITE, VD_WRITE_IMM,
	};
	static const enum vd_op ud[] = { VD_SEND, VD_SEND_IMM };

	switch (g->p->qpt) {
	case VD_RC:
		return rc[pick(&g->s, ARRAY_SIZE(rc) - !g->p->atomic_write)];
	case VD_UC:
		return uc[pick(&g->s, ARRAY_SIZE(uc))];
	default:
		return ud[pick(&g->s, ARRAY_SIZE(ud))];
	}
}

static uint32_t pick_len(struct gen *g, enum vd_op op)
{
	static const uint32_t msg[] = { 0, 1, 8, 60, 256, 1000, 2048, 4000 };
	static const uint32_t ud[] = { 0, 1, 8, 60, 256, 1000 };
	static const uint32_t rdma[] = { 0, 1, 8, 64, 1000, 4096, 10000 };

	if (is_word(op))
		return 8;
	if (g->p->qpt == VD_UD)
		return ud[pick(&g->s, ARRAY_SIZE(ud))];
	if (vd_consumes_recv(op) && op != VD_WRITE_IMM)
		return msg[pick(&g->s, ARRAY_SIZE(msg))];
	return rdma[pick(&g->s, ARRAY_SIZE(rdma))];
}

/* An offset in [base, base + span - len], aligned to @align. */
static uint32_t pick_off(struct gen *g, uint32_t base, uint32_t span,
			 uint32_t len, uint32_t align)
{
	uint32_t room = (span - len) / align + 1;

	return base + pick(&g->s, room) * align;
}

/* Fill in one request of op @op, posted by @side; false to drop it. */
static bool make_wr(struct gen *g, unsigned int side, struct vd_wr *wr,
		    enum vd_op op)
{
	struct side_model *me = &g->side[side], *peer = &g->side[!side];
	uint32_t align = is_word(op) ? 8 : 1;

	memset(wr, 0, sizeof(*wr));
	wr->op = op;
	wr->len = pick_len(g, op);
	wr->nsge = wr->len ? 1 + pick(&g->s, VD_MAX_SGE) : 0;
	if (wr->nsge > wr->len)
		wr->nsge = wr->len;
	/* ATOMIC_WRITE carries its value in the request, from @loff. */
	if (op == VD_ATOMIC_WRITE)
		wr->nsge = 0;
	/*
	 * librxe 44's wr_set_sge_list() takes the length of the first SGE
	 * for each (fixed in rdma-core 64, 406cd2ad0): rdma_rxe trusts that
	 * length, rxc adds up the SGEs.  Programs posted with ibv_wr_*()
	 * keep to one.
	 */
	if (g->p->atomic_write && wr->nsge > 1)
		wr->nsge = 1;
	wr->signaled = chance(&g->s, 50);
	wr->imm = (uint32_t)vd_rand(&g->s);
	wr->cmp = vd_rand(&g->s) % 4;	/* small: CAS sometimes matches */
	wr->add = vd_rand(&g->s);

	switch (op) {
	case VD_BIND:
		/*
		 * Never of a bound window: behind a request still in flight,
		 * 6.1's rdma_rxe stalls on the failed bind (known-rxe.txt).
		 */
		if (me->bound || g->chain_binds)
			return false;
		/*
		 * One bind per chain: librxe reads the window's key from
		 * mw->rkey at post time, which can name one key only.
		 */
		g->chain_binds = true;
		me->bound = true;
		wr->nsge = 0;
		return true;
	case VD_INV:
		/*
		 * Never of a window that is not bound: 6.1's rdma_rxe
		 * dereferences the window's NULL MR (known-rxe.txt).
		 */
		if (!me->bound)
			return false;
		me->bound = false;
		wr->nsge = 0;
		return true;
	case VD_WRITE_MW:
		/* The window is the peer's whole second half. */
		if (!peer->bound && !chance(&g->s, 10))
			return false;
		break;
	default:
		break;
	}
	if ((op == VD_SEND || op == VD_WRITE || op == VD_WRITE_IMM ||
	     op == VD_SEND_IMM) && wr->len <= VD_INLINE && chance(&g->s, 40))
		wr->inl = true;
	/* READs and atomic results land in the poster's second half. */
	if (op == VD_READ || is_atomic(op))
		wr->loff = pick_off(g, VD_HALF, VD_HALF, wr->len, align);
	else
		wr->loff = pick_off(g, 0, VD_HALF, wr->len, align);
	wr->roff = pick_off(g, VD_HALF, VD_HALF, wr->len, align);
	if (g->p->qpt != VD_UD && !vd_consumes_recv(op) && op != VD_WRITE_MW)
		wr->bad_key = chance(&g->s, 3);
	if (op == VD_WRITE_IMM)
		wr->bad_key = chance(&g->s, 3);
	return true;
}

static struct vd_step *next_step(struct gen *g, enum vd_step_kind kind,
				 unsigned int side)
{
	struct vd_step *st;

	if (g->p->nsteps == VD_MAX_STEPS)
		return NULL;
	st = &g->p->step[g->p->nsteps++];
	memset(st, 0, sizeof(*st));
	st->kind = kind;
	st->side = (uint8_t)side;
	return st;
}

/* @n receives on @side, some too small when @errors allows it. */
static void gen_recvs(struct gen *g, unsigned int side, unsigned int n)
{
	struct vd_step *st = next_step(g, VD_STEP_RECV, side);
	uint32_t full = g->p->qpt == VD_UD ? 1024 + VD_UD_GRH : VD_RECV_LEN;
	unsigned int i;

	if (!st)
		return;
	st->n = (uint8_t)n;
	for (i = 0; i < n; i++) {
		struct vd_wr *wr = &st->wr[i];

		wr->len = chance(&g->s, 4) ? 16 : full;
		wr->nsge = 1 + pick(&g->s, VD_MAX_SGE);
		wr->loff = pick_off(g, VD_HALF, VD_HALF, wr->len, 64);
	}
	g->side[side].credits += n;
}

static void gen_chain(struct gen *g, unsigned int side)
{
	struct vd_wr chain[VD_MAX_CHAIN];
	unsigned int n = 1 + pick(&g->s, VD_MAX_CHAIN), k = 0, need = 0, i;
	struct side_model *peer = &g->side[!side];
	struct vd_step *st;

	g->chain_binds = false;
	for (i = 0; i < n; i++) {
		if (!make_wr(g, side, &chain[k], pick_op(g)))
			continue;
		need += vd_consumes_recv(chain[k].op);
		k++;
	}
	if (!k)
		return;
	/*
	 * Receives first, unless a missing one is the deliberate error this
	 * time (RNR on RC).  Not on UC: 6.1's rdma_rxe drops every later
	 * message of a UC QP once one found no receive (known-rxe.txt).  Not
	 * on UD: a message that finds none is dropped, unless it is still on
	 * its way when the next step posts one, which is a matter of timing.
	 * UD still draws the chance, so that other UD programs stay as they
	 * were.
	 */
	if (need > peer->credits &&
	    (g->p->qpt == VD_UC || !chance(&g->s, 3) || g->p->qpt == VD_UD))
		gen_recvs(g, !side, need - peer->credits);
	peer->credits = peer->credits > need ? peer->credits - need : 0;
	st = next_step(g, VD_STEP_SEND, side);
	if (!st)
		return;
	chain[k - 1].signaled = true;
	memcpy(st->wr, chain, k * sizeof(chain[0]));
	st->n = (uint8_t)k;
}

void vd_generate(struct vd_prog *p, uint64_t seed, unsigned int gen_flags)
{
	struct gen g = { .s = seed, .p = p };
	/* Its own stream: the programs of older seeds stay what they were. */
	uint64_t cntr_stream = seed ^ 0xc0c0c0c0ull;
	unsigned int target, side;

	memset(p, 0, sizeof(*p));
	p->seed = seed;
	p->cntr_bytes = vd_rand(&cntr_stream) & 1;
	p->atomic_write = gen_flags & VD_GEN_ATOMIC_WRITE;
	p->qpt = (enum vd_qpt)(chance(&g.s, 50) ? VD_RC :
			       chance(&g.s, 50) ? VD_UC : VD_UD);
	/* Only RC has ATOMIC_WRITE: a program that may use it is RC. */
	if (p->atomic_write)
		p->qpt = VD_RC;
	p->srq = chance(&g.s, 25);
	target = 4 + pick(&g.s, VD_MAX_STEPS - 4);
	while (p->nsteps < target) {
		side = pick(&g.s, 2);
		if (chance(&g.s, 3) && p->nsteps + 1 < target)
			next_step(&g, VD_STEP_ERR, side);
		else if (chance(&g.s, 20))
			gen_recvs(&g, side, 1 + pick(&g.s, 4));
		else
			gen_chain(&g, side);
	}
}

static void print_wr(const struct vd_wr *wr, enum vd_step_kind kind,
		     FILE *f)
{
	if (kind == VD_STEP_RECV) {
		fprintf(f, "  recv len %u at %u in %u sge\n", wr->len, wr->loff,
			wr->nsge);
		return;
	}
	fprintf(f, "  %s", vd_op_name(wr->op));
	if (!is_local(wr->op))
		fprintf(f, " len %u from %u to %u in %u sge", wr->len,
			wr->loff, wr->roff, wr->nsge);
	fprintf(f, "%s%s%s", wr->inl ? " inline" : "",
		wr->signaled ? " signaled" : "",
		wr->bad_key ? " BAD-RKEY" : "");
	if (wr->op == VD_CAS)
		fprintf(f, " cmp %llu swap %#llx", (unsigned long long)wr->cmp,
			(unsigned long long)wr->add);
	else if (wr->op == VD_FADD)
		fprintf(f, " add %#llx", (unsigned long long)wr->add);
	fputc('\n', f);
}

void vd_print(const struct vd_prog *p, uint32_t keep, FILE *f)
{
	static const char *const kinds[] = { "post_send", "post_recv",
					     "modify_qp ERR" };
	unsigned int i, j;

	fprintf(f, "# seed %llu: %s%s, %u steps, counters of %s%s\n",
		(unsigned long long)p->seed, vd_qpt_name(p->qpt),
		p->srq ? " with SRQs" : "", p->nsteps,
		p->cntr_bytes ? "bytes" : "work requests",
		p->atomic_write ? ", ATOMIC_WRITE allowed" : "");
	for (i = 0; i < p->nsteps; i++) {
		const struct vd_step *st = &p->step[i];

		if (!(keep & (1u << i)))
			continue;
		fprintf(f, "step %u: %c %s\n", i, 'A' + st->side,
			kinds[st->kind]);
		for (j = 0; j < st->n; j++)
			print_wr(&st->wr[j], st->kind, f);
	}
}
