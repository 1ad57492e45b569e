/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * vdiff: random verbs programs, run on two drivers and compared.
 *
 * A program is a list of steps between two QPs, side A and side B, each
 * on its own device or both on one.  A step is one doorbell: a chain of
 * work requests posted by one side, a batch of receives, or a forced
 * move to ERR.  Steps run one at a time and each waits for its
 * completions, so that what one driver does is a function of the seed
 * alone and two drivers can be compared line by line.
 */
#ifndef VDIFF_H
#define VDIFF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* open_device_by_name() and ARRAY_SIZE(), shared with the verbs tests */
#include "../verbs/fixture.h"

#define VD_MAX_STEPS	24
#define VD_MAX_CHAIN	5
#define VD_MAX_SGE	3
#define VD_INLINE	64
/*
 * Each side's buffer: the first half is what it sends from, the second
 * where receives, its READs and atomic results, and the peer's writes
 * land.
 */
#define VD_BUF		(64 * 1024)
#define VD_HALF		(VD_BUF / 2)
#define VD_RECV_LEN	4096	/* a receive that fits every send */
#define VD_UD_GRH	40

enum vd_qpt { VD_RC, VD_UC, VD_UD };

enum vd_op {
	VD_SEND,
	VD_SEND_IMM,
	VD_WRITE,
	VD_WRITE_IMM,
	VD_READ,
	VD_CAS,
	VD_FADD,
	VD_BIND,	/* bind the side's type 2 window over its second half */
	VD_INV,		/* LOCAL_INV of that window */
	VD_WRITE_MW,	/* a WRITE through the peer's window */
	VD_ATOMIC_WRITE,	/* only in programs made with VD_GEN_ATOMIC_WRITE */
	VD_NOPS,
};

enum vd_step_kind { VD_STEP_SEND, VD_STEP_RECV, VD_STEP_ERR };

/*
 * One work request.  Receives use @len, @loff and @nsge only.  @loff is
 * in the poster's buffer, @roff in the peer's.
 */
struct vd_wr {
	enum vd_op op;
	uint32_t len;
	uint32_t loff;
	uint32_t roff;
	uint8_t nsge;
	bool inl;
	bool signaled;
	bool bad_key;	/* deliberately wrong rkey */
	uint32_t imm;
	uint64_t cmp;
	uint64_t add;	/* FADD's addend, CAS's swap value */
};

struct vd_step {
	enum vd_step_kind kind;
	uint8_t side;
	uint8_t n;
	struct vd_wr wr[VD_MAX_CHAIN];
};

struct vd_prog {
	uint64_t seed;
	enum vd_qpt qpt;
	bool srq;
	bool cntr_bytes;	/* counters count bytes, not work requests */
	/*
	 * An RC program whose chains may hold ATOMIC_WRITE, posted with
	 * ibv_wr_*().
	 */
	bool atomic_write;
	unsigned int nsteps;
	struct vd_step step[VD_MAX_STEPS];
};

/* Where a side lives: a device and the GID index its traffic uses. */
struct vd_end {
	const char *dev;
	int gid_index;
};

/* A work request's id: its step, and its place in the step. */
static inline uint64_t vd_wr_id(unsigned int step, unsigned int i)
{
	return (uint64_t)step << 8 | i;
}

static inline unsigned int vd_wr_step(uint64_t id)
{
	return (unsigned int)(id >> 8);
}

static inline unsigned int vd_wr_index(uint64_t id)
{
	return (unsigned int)(id & 0xff);
}

/* Whether @op consumes a receive at the peer. */
static inline bool vd_consumes_recv(enum vd_op op)
{
	return op == VD_SEND || op == VD_SEND_IMM || op == VD_WRITE_IMM;
}

/*
 * Whether a UC peer that can receive places @w: its key is right, or it
 * moves no bytes and nobody checks the key.  UC drops the others without
 * a word to anyone.
 */
static inline bool vd_uc_placed(const struct vd_wr *w)
{
	return !w->bad_key || !w->len;
}

/* A counter's values, or what the model says they must be. */
struct vd_tally {
	uint64_t comp;
	uint64_t err;
	bool unknown;		/* the model cannot tell */
};

/* Counter classes, in the order of the attach operation bits. */
enum vd_cls {
	VD_CL_SEND,
	VD_CL_RECV,
	VD_CL_READ,
	VD_CL_RREAD,
	VD_CL_WRITE,
	VD_CL_RWRITE,
	VD_NCLS,
};

/* Whether a UC peer could receive during a step (see model.c). */
enum vd_peer { VD_PEER_UP, VD_PEER_DOWN, VD_PEER_CHANGED };

struct vd_model {
	bool bytes;
	struct vd_tally t[2][VD_NCLS];
	uint8_t seen[VD_MAX_STEPS];	/* send requests with a completion */
	uint8_t posted[VD_MAX_STEPS];	/* send requests the post accepted */
	enum vd_peer peer[VD_MAX_STEPS];
};

/* gen.c */
/*
 * Options of the generator: a program is a function of its seed and
 * these.  ATOMIC_WRITE needs a kernel from 6.2 for rdma_rxe, and librxe
 * posts it only through the extended QP (ibv_wr_atomic_write()).
 */
#define VD_GEN_ATOMIC_WRITE	0x1u

uint64_t vd_rand(uint64_t *state);
void vd_generate(struct vd_prog *p, uint64_t seed, unsigned int gen_flags);
const char *vd_op_name(enum vd_op op);
const char *vd_qpt_name(enum vd_qpt qpt);
void vd_print(const struct vd_prog *p, uint32_t keep, FILE *f);

/*
 * model.c: what the counters must hold; statuses are enum ibv_wc_status.
 * vd_op_cls() is the class a request counts in at its poster (VD_NCLS for
 * none): which requests send, write (at the peer) or read (into the
 * poster's buffer).
 */
enum vd_cls vd_op_cls(enum vd_op op);
void vd_model_init(struct vd_model *m, const struct vd_prog *p);
void vd_model_send(struct vd_model *m, const struct vd_prog *p,
		   uint64_t wr_id, int status);
void vd_model_recv(struct vd_model *m, unsigned int side, int status,
		   uint32_t bytes);
/* After the last completion: every request without one succeeded. */
void vd_model_finish(struct vd_model *m, const struct vd_prog *p);
/* @counted: the side's counters, NULL when its device has none */
void vd_model_print(const struct vd_model *m, unsigned int side,
		    const struct vd_tally *counted, FILE *f);

/*
 * run.c: the trace of @p's steps in @keep (a bit per step) on stdout.
 * @need_cntrs: a side whose device has no completion counters fails the
 * setup, rather than printing the model alone.
 */
int vd_run(const struct vd_prog *p, uint32_t keep, const struct vd_end *a,
	   const struct vd_end *b, unsigned int quiet_ms, bool need_cntrs,
	   FILE *out);

#endif /* VDIFF_H */
