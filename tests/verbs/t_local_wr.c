// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Local work requests (BIND_MW of a type 2 window, LOCAL_INV of it) among
 * remote ones on one RC send queue.  A local request takes no PSN, so the
 * completer, which walks the queue in PSN order, must step over it: every
 * request behind it still completes, in order, exactly once.
 *
 * Every sequence of SEQ_LEN requests over {write, read, local} runs, posted
 * as one chain (one doorbell) and one request per post.  A "local" slot
 * invalidates the bound window if there is one, and else binds the next of
 * two windows, so both local opcodes appear in every position.  A bind
 * names its window by the window's current rkey, which the provider reads
 * from struct ibv_mw when the request is posted: alternating two windows
 * keeps each to one bind per chain.
 */
#include <stdio.h>
#include <string.h>

#include "fixture.h"

#define SEQ_LEN		4
#define SEQ_OPS		3		/* write, read, local */
#define SLOT_LEN	64		/* each request's own bytes of the buffer */
#define NUM_MW		2

enum seq_op { OP_WRITE, OP_READ, OP_LOCAL };

struct local_wr_run {
	struct loop l;
	struct ibv_mw *mw[NUM_MW];
	uint32_t bound_rkey;	/* the bound window's rkey, or 0 */
	int next_mw;		/* the window the next bind takes */
	/* Per request: a bind's new rkey, for its window once posted. */
	uint32_t new_rkey[SEQ_LEN];
	struct ibv_mw *new_rkey_mw[SEQ_LEN];
};

/* The sequence numbered @n: its SEQ_LEN base-SEQ_OPS digits. */
static void seq_decode(unsigned int n, enum seq_op *ops)
{
	int i;

	for (i = 0; i < SEQ_LEN; i++, n /= SEQ_OPS)
		ops[i] = n % SEQ_OPS;
}

/* "WRLW"-style name of a sequence, for failure messages. */
static void seq_name(const enum seq_op *ops, char *name)
{
	int i;

	for (i = 0; i < SEQ_LEN; i++)
		name[i] = "WRL"[ops[i]];
	name[SEQ_LEN] = '\0';
}

/*
 * Fills @wr for slot @i of a sequence; the expected completion opcode goes
 * to @wc_op.  Writes copy source slot i to destination slot i; reads copy
 * destination slot i back to source slot i, so each request's bytes are
 * its own and a lost or repeated request shows in the data.
 */
static void seq_wr(struct local_wr_run *r, enum seq_op op, int i,
		   struct ibv_send_wr *wr, struct ibv_sge *sge,
		   enum ibv_wc_opcode *wc_op)
{
	struct loop *l = &r->l;
	struct ibv_mw *mw;
	char *src = l->src + i * SLOT_LEN, *dst = l->dst + i * SLOT_LEN;

	memset(wr, 0, sizeof(*wr));
	r->new_rkey_mw[i] = NULL;
	wr->wr_id = i;
	wr->send_flags = IBV_SEND_SIGNALED;
	*sge = (struct ibv_sge){ (uintptr_t)src, SLOT_LEN, l->mr->lkey };
	switch (op) {
	case OP_WRITE:
	case OP_READ:
		wr->opcode = op == OP_WRITE ? IBV_WR_RDMA_WRITE :
					      IBV_WR_RDMA_READ;
		*wc_op = op == OP_WRITE ? IBV_WC_RDMA_WRITE : IBV_WC_RDMA_READ;
		wr->sg_list = sge;
		wr->num_sge = 1;
		wr->wr.rdma.remote_addr = (uintptr_t)dst;
		wr->wr.rdma.rkey = l->mr->rkey;
		break;
	case OP_LOCAL:
		if (r->bound_rkey) {
			wr->opcode = IBV_WR_LOCAL_INV;
			wr->invalidate_rkey = r->bound_rkey;
			*wc_op = IBV_WC_LOCAL_INV;
			r->bound_rkey = 0;
			break;
		}
		mw = r->mw[r->next_mw];
		r->next_mw = (r->next_mw + 1) % NUM_MW;
		r->bound_rkey = ibv_inc_rkey(mw->rkey);
		r->new_rkey_mw[i] = mw;
		r->new_rkey[i] = r->bound_rkey;
		wr->opcode = IBV_WR_BIND_MW;
		wr->bind_mw.mw = mw;
		wr->bind_mw.rkey = r->bound_rkey;
		wr->bind_mw.bind_info = (struct ibv_mw_bind_info){
			.mr = l->mr, .addr = (uintptr_t)l->dst, .length = HALF,
			.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
					   IBV_ACCESS_REMOTE_READ,
		};
		*wc_op = IBV_WC_BIND_MW;
		break;
	}
}

/* Fresh, distinct bytes in each source and destination slot. */
static void seq_fill(struct loop *l, unsigned int n)
{
	int i;

	for (i = 0; i < SEQ_LEN * SLOT_LEN; i++) {
		l->src[i] = (char)(n * 31 + i);
		l->dst[i] = (char)(n * 17 + i * 3 + 1);
	}
}

/*
 * Runs sequence @n on @r, in one chain or one post per request, and checks
 * every completion and every slot's data.  False (with the failure
 * recorded) on the first difference.
 */
static bool seq_run(struct local_wr_run *r, unsigned int n, bool one_chain)
{
	struct ibv_send_wr wr[SEQ_LEN], *bad;
	enum ibv_wc_opcode wc_op[SEQ_LEN];
	char want[SEQ_LEN][SLOT_LEN];
	struct ibv_sge sge[SEQ_LEN];
	struct ibv_wc wc[SEQ_LEN];
	enum seq_op ops[SEQ_LEN];
	char name[SEQ_LEN + 1];
	struct loop *l = &r->l;
	int i, got;

	seq_decode(n, ops);
	seq_name(ops, name);
	seq_fill(l, n);
	for (i = 0; i < SEQ_LEN; i++) {
		seq_wr(r, ops[i], i, &wr[i], &sge[i], &wc_op[i]);
		memcpy(want[i], ops[i] == OP_READ ? l->dst + i * SLOT_LEN :
						    l->src + i * SLOT_LEN,
		       SLOT_LEN);
		if (one_chain && i)
			wr[i - 1].next = &wr[i];
	}
	for (i = 0; i < SEQ_LEN; i++) {
		if (!one_chain || !i) {
			if (!CHECK_OK(ibv_post_send(l->qp, &wr[i], &bad)))
				return false;
		}
		/* The application keeps a window's rkey, as ibv_bind_mw() does. */
		if (r->new_rkey_mw[i])
			r->new_rkey_mw[i]->rkey = r->new_rkey[i];
	}

	got = poll_cq_wait(l->scq, wc, SEQ_LEN);
	if (!CHECK(got == SEQ_LEN, "%s: %d of %d completions", name, got,
		   SEQ_LEN))
		return false;
	for (i = 0; i < SEQ_LEN; i++) {
		if (!CHECK(wc[i].wr_id == (uint64_t)i &&
			   wc[i].status == IBV_WC_SUCCESS &&
			   wc[i].opcode == wc_op[i],
			   "%s: completion %d is wr_id %llu %s opcode %d",
			   name, i, (unsigned long long)wc[i].wr_id,
			   ibv_wc_status_str(wc[i].status), wc[i].opcode))
			return false;
		if (ops[i] == OP_LOCAL)
			continue;
		if (!CHECK(!memcmp(ops[i] == OP_READ ? l->src + i * SLOT_LEN :
						       l->dst + i * SLOT_LEN,
				   want[i], SLOT_LEN),
			   "%s: the data of request %d differs", name, i))
			return false;
	}
	return true;
}

/* Every sequence on one QP; the window is left unbound between runs. */
static void run_every_sequence(struct test_env *env, bool one_chain)
{
	struct local_wr_run r = { 0 };
	unsigned int n, total = 1;
	struct ibv_send_wr inv = { .opcode = IBV_WR_LOCAL_INV }, *bad;
	struct ibv_wc wc;
	int i;

	for (i = 0; i < SEQ_LEN; i++)
		total *= SEQ_OPS;
	if (!loop_connect(env, &r.l, IBV_QPT_RC,
			  ALL_ACCESS | IBV_ACCESS_MW_BIND))
		return;
	for (i = 0; i < NUM_MW; i++) {
		r.mw[i] = CHECK_NOT_NULL(ibv_alloc_mw(env->pd, IBV_MW_TYPE_2));
		if (!r.mw[i])
			goto out;
	}
	for (n = 0; n < total; n++) {
		if (!seq_run(&r, n, one_chain))
			break;
		if (!r.bound_rkey)
			continue;
		inv.invalidate_rkey = r.bound_rkey;
		r.bound_rkey = 0;
		if (!CHECK_OK(ibv_post_send(r.l.qp, &inv, &bad)))
			break;
	}
	printf("# %u of %u sequences of %d requests completed in order\n",
	       n, total, SEQ_LEN);
	/* The unsignaled invalidations retire behind the last signaled one. */
	CHECK_EQ(ibv_poll_cq(r.l.scq, 1, &wc), 0);
out:
	for (i = 0; i < NUM_MW; i++) {
		if (r.mw[i])
			CHECK_OK(ibv_dealloc_mw(r.mw[i]));
	}
	loop_destroy(&r.l);
}

static void local_and_remote_wrs_complete_in_order_in_one_doorbell(
	struct test_env *env)
{
	run_every_sequence(env, true);
}

static void local_and_remote_wrs_complete_in_order_one_post_each(
	struct test_env *env)
{
	run_every_sequence(env, false);
}

static const struct test_case tests[] = {
	TEST_CASE(local_and_remote_wrs_complete_in_order_in_one_doorbell),
	TEST_CASE(local_and_remote_wrs_complete_in_order_one_post_each),
};

int main(int argc, char **argv)
{
	return run_suite("local_wr", argc, argv, tests, ARRAY_SIZE(tests));
}
