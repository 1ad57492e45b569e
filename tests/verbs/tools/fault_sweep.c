// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * fault_sweep: every allocation of every create path fails once.
 *
 *   fault_sweep -d DEV [-n MAX_POINTS] [-T SECS]
 *
 * Linux's fail-nth (Documentation/fault-injection) makes the Nth
 * allocation of the calling thread fail, once.  For each step below
 * (create, destroy, modify, attach, a doorbell, closing a context full
 * of objects) the sweep sets N = 1, 2, ... and runs the step until a run
 * ends with the fault not reached: by then each allocation the step makes
 * has failed once, whether in the kernel's uverbs core, in rxc, or in the
 * memory management under them (failslab and fail_page_alloc must not
 * ignore sleeping allocations: the guest script sets that up).
 *
 * A step that fails must fail with an error and leave nothing behind; a
 * step that ran without a fault must succeed.  After the sweep the device
 * must hold the same objects as before it (rdma resource, and the
 * driver's counter list in debugfs), the device must carry checked traffic,
 * and the kernel must have said nothing (the caller reads its log).
 * Meanwhile a thread moves checked data through an RC connection on a
 * context of its own: fail-nth is per thread, so its traffic runs
 * unharmed while the objects around it fail.
 *
 * Exit status: 0 on success, 1 on a failure, 2 on bad usage; a step
 * whose feature the kernel lacks (EOPNOTSUPP with no fault) is skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/udmabuf.h>

#include "../cntr_ioctl.h"
#include "../rings.h"
#include "fuzz_lib.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define PAGE		4096
#define MR_PAGES	4

static struct fuzz_opts opt = {
	.count = 1000, .secs = 600,
};

/* What the steps share: objects made without faults, and one step's own. */
struct sweep {
	struct ibv_device *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *rc;		/* RTS, connected to itself */
	struct ibv_mr *mr;
	char *buf;			/* MR_PAGES pages under mr */
	uint64_t *vals;			/* a page for counters in user memory */
	int efd;			/* eventfd for counter NOTIFY */
	uint64_t posted;		/* signaled writes posted on rc */
	/* The step's objects, made by its prepare() or its run(). */
	struct ibv_context *ctx2;
	struct ibv_pd *pd2;
	struct ibv_cq *cq2;
	struct ibv_srq *srq2;
	struct ibv_qp *qp2;
	struct ibv_mr *mr2;
	struct ibv_mw *mw2;
	struct ibv_ah *ah2;
	struct cntr cntr2;
	bool have_cntr2;
	struct uverbs_maps maps;	/* the process's rings before ctx2 */
	int dmabuf, memfd;
};

/*
 * One step.  prepare() and undo() run without faults; run() is the code
 * under test and returns 0 or an errno.  undo() removes whatever
 * prepare() and run() left, so that each pass starts from the same state.
 */
struct step {
	const char *name;
	int (*prepare)(struct sweep *s);
	int (*run)(struct sweep *s);
	void (*undo)(struct sweep *s);
};

static void usage(void)
{
	fprintf(stderr, "usage: fault_sweep -d DEV [-n MAX_POINTS] [-T SECS]\n");
	exit(2);
}

static int fail_nth_fd = -1;

/* Arms (n > 0) or disarms (0) the calling thread's fail-nth. */
static void fail_nth_set(unsigned int n)
{
	char v[16];
	int len = snprintf(v, sizeof(v), "%u", n);

	if (pwrite(fail_nth_fd, v, len, 0) != len)
		fuzz_die("cannot write /proc/thread-self/fail-nth");
}

/*
 * Whether the armed fault was injected: fail-nth reads 0 once it was.
 * Reading is safe with a fault still armed: the value is taken before
 * anything is allocated.  Disarms it either way.
 */
static bool fail_nth_hit(void)
{
	char v[16] = "";
	bool hit;

	if (pread(fail_nth_fd, v, sizeof(v) - 1, 0) <= 0)
		fuzz_die("cannot read /proc/thread-self/fail-nth");
	hit = strtoul(v, NULL, 10) == 0;
	fail_nth_set(0);
	return hit;
}

/* A destroy verb on @obj, which is forgotten once it is gone. */
#define DESTROY(verb, obj) ({			\
	int rc_ = verb(obj);			\
						\
	if (!rc_)				\
		(obj) = NULL;			\
	rc_;					\
})

/* errno of a call that failed, never 0: EIO if it set none. */
static int last_err(void)
{
	return errno ? errno : EIO;
}

/* 0, or the errno of a failed verb that returns a pointer. */
static int ptr_err(const void *p)
{
	return p ? 0 : last_err();
}

/* ---- objects the steps make, each with its undo ---------------------- */

static struct ibv_qp *new_qp(struct sweep *s, enum ibv_qp_type type,
			     struct ibv_srq *srq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = s->cq, .recv_cq = s->cq, .srq = srq,
		.cap = { .max_send_wr = 16, .max_recv_wr = srq ? 0 : 16,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
		.qp_type = type,
	};

	return ibv_create_qp(s->pd, &init);
}

/* Destroys @obj if there is one; what cannot be undone ends the run. */
#define UNDO(verb, obj, what) do {					\
	if ((obj) && DESTROY(verb, obj))				\
		fuzz_die("cannot " what);				\
} while (0)

/* The QP first: a counter attached to a live QP cannot be destroyed. */
static void undo_all(struct sweep *s)
{
	UNDO(ibv_destroy_qp, s->qp2, "destroy a QP");
	if (s->have_cntr2 && cntr_destroy(s->ctx, &s->cntr2))
		fuzz_die("cannot destroy a counter");
	s->have_cntr2 = false;
	UNDO(ibv_dealloc_mw, s->mw2, "free a memory window");
	UNDO(ibv_dereg_mr, s->mr2, "deregister an MR");
	UNDO(ibv_destroy_ah, s->ah2, "destroy an AH");
	UNDO(ibv_destroy_srq, s->srq2, "destroy an SRQ");
	UNDO(ibv_destroy_cq, s->cq2, "destroy a CQ");
	UNDO(ibv_dealloc_pd, s->pd2, "free a PD");
	UNDO(ibv_close_device, s->ctx2, "close a context");
	if (s->dmabuf >= 0)
		close(s->dmabuf);
	if (s->memfd >= 0)
		close(s->memfd);
	s->dmabuf = -1;
	s->memfd = -1;
}

/* ---- the steps ------------------------------------------------------- */

static int run_open(struct sweep *s)
{
	s->ctx2 = ibv_open_device(s->dev);
	return ptr_err(s->ctx2);
}

/* A context holding one of everything, counter attached, for close(). */
static int prep_full_context(struct sweep *s)
{
	struct ibv_qp_init_attr init = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct cntr c;

	if (uverbs_maps_read(&s->maps))
		return EIO;
	s->ctx2 = ibv_open_device(s->dev);
	if (!s->ctx2)
		return ptr_err(s->ctx2);
	s->pd2 = ibv_alloc_pd(s->ctx2);
	s->cq2 = ibv_create_cq(s->ctx2, 8, NULL, NULL, 0);
	if (!s->pd2 || !s->cq2)
		return EIO;
	init.send_cq = s->cq2;
	init.recv_cq = s->cq2;
	s->qp2 = ibv_create_qp(s->pd2, &init);
	s->mr2 = ibv_reg_mr(s->pd2, s->buf, PAGE, IBV_ACCESS_LOCAL_WRITE);
	if (!s->qp2 || !s->mr2 || cntr_create_ex(s->ctx2, &c, -1, NULL, NULL) ||
	    qp_attach(s->ctx2, s->qp2, &c, OP_SEND | OP_RECV) ||
	    fuzz_rc_connect(s->qp2, s->qp2->qp_num, 0))
		return EIO;
	return 0;
}

/*
 * Closing a context does not free what it holds while its rings are
 * still mapped: the mappings keep the file open.  Unmapping them too
 * makes this the last reference, as at process exit, so the kernel
 * destroys every object under the faults.  Nothing is left for undo.
 */
static int run_close(struct sweep *s)
{
	bool failed = ibv_close_device(s->ctx2) ||
		      uverbs_maps_unmap_new(&s->maps) < 0;

	s->ctx2 = NULL;
	s->pd2 = NULL;
	s->cq2 = NULL;
	s->qp2 = NULL;
	s->mr2 = NULL;
	return failed ? last_err() : 0;
}

/* An unmap that failed under a fault leaves the context: unmap it now. */
static void undo_close(struct sweep *s)
{
	if (uverbs_maps_unmap_new(&s->maps) < 0)
		fuzz_die("cannot unmap a closed context's rings");
}

static int run_alloc_pd(struct sweep *s)
{
	s->pd2 = ibv_alloc_pd(s->ctx);
	return ptr_err(s->pd2);
}

static int run_dealloc_pd(struct sweep *s)
{
	return DESTROY(ibv_dealloc_pd, s->pd2);
}

static int run_create_cq(struct sweep *s)
{
	s->cq2 = ibv_create_cq(s->ctx, 32, NULL, NULL, 0);
	return ptr_err(s->cq2);
}

static int run_resize_cq(struct sweep *s)
{
	return ibv_resize_cq(s->cq2, 200);
}

static int run_destroy_cq(struct sweep *s)
{
	return DESTROY(ibv_destroy_cq, s->cq2);
}

static int run_create_srq(struct sweep *s)
{
	struct ibv_srq_init_attr init = {
		.attr = { .max_wr = 32, .max_sge = 2 },
	};

	s->srq2 = ibv_create_srq(s->pd, &init);
	return ptr_err(s->srq2);
}

static int run_modify_srq(struct sweep *s)
{
	struct ibv_srq_attr a = { .max_wr = 100, .srq_limit = 4 };

	return ibv_modify_srq(s->srq2, &a, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT);
}

static int run_destroy_srq(struct sweep *s)
{
	return DESTROY(ibv_destroy_srq, s->srq2);
}

static int run_create_rc(struct sweep *s)
{
	s->qp2 = new_qp(s, IBV_QPT_RC, NULL);
	return ptr_err(s->qp2);
}

static int run_create_ud(struct sweep *s)
{
	s->qp2 = new_qp(s, IBV_QPT_UD, NULL);
	return ptr_err(s->qp2);
}

static int run_create_on_srq(struct sweep *s)
{
	s->qp2 = new_qp(s, IBV_QPT_RC, s->srq);
	return ptr_err(s->qp2);
}

static int run_connect(struct sweep *s)
{
	return fuzz_rc_connect(s->qp2, s->qp2->qp_num, IBV_ACCESS_REMOTE_WRITE) ?
	       last_err() : 0;
}

/* Receives posted, then to ERR: the flush completes them. */
static int prep_rc_with_recvs(struct sweep *s)
{
	struct ibv_sge sge = { (uintptr_t)s->buf, 64, s->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int i, rc;

	rc = run_create_rc(s) ? EIO : run_connect(s);
	for (i = 0; !rc && i < 8; i++)
		rc = ibv_post_recv(s->qp2, &wr, &bad);
	return rc;
}

static int run_to_err(struct sweep *s)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	return ibv_modify_qp(s->qp2, &a, IBV_QP_STATE);
}

/* Drains the flushed receives from the shared CQ, then the QP goes. */
static void undo_flushed(struct sweep *s)
{
	struct ibv_wc wc[8];
	uint64_t end = fuzz_now_ns() + 10000000000ull;
	unsigned int n = 0;

	run_to_err(s);
	while (n < 8 && fuzz_now_ns() < end) {
		int got = ibv_poll_cq(s->cq, 8, wc);

		if (got < 0)
			fuzz_die("cannot poll the CQ");
		n += got;
		if (!got)
			usleep(100);
	}
	if (n != 8)
		fuzz_die("flushed receives did not all complete");
	undo_all(s);
}

static int run_query_qp(struct sweep *s)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	return ibv_query_qp(s->rc, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_CAP,
			    &init);
}

static int run_destroy_qp(struct sweep *s)
{
	return DESTROY(ibv_destroy_qp, s->qp2);
}

static int run_reg_mr(struct sweep *s)
{
	s->mr2 = ibv_reg_mr(s->pd, s->buf, MR_PAGES * PAGE,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_MW_BIND);
	return ptr_err(s->mr2);
}

static int run_dereg_mr(struct sweep *s)
{
	return DESTROY(ibv_dereg_mr, s->mr2);
}

static int run_alloc_mw1(struct sweep *s)
{
	s->mw2 = ibv_alloc_mw(s->pd, IBV_MW_TYPE_1);
	return ptr_err(s->mw2);
}

static int run_alloc_mw2(struct sweep *s)
{
	s->mw2 = ibv_alloc_mw(s->pd, IBV_MW_TYPE_2);
	return ptr_err(s->mw2);
}

static int run_create_ah(struct sweep *s)
{
	struct ibv_ah_attr a = {
		.is_global = 1, .port_num = 1,
		.grh = { .sgid_index = FUZZ_GID_INDEX, .hop_limit = 64 },
	};

	if (ibv_query_gid(s->ctx, 1, FUZZ_GID_INDEX, &a.grh.dgid))
		return last_err();
	s->ah2 = ibv_create_ah(s->pd, &a);
	return ptr_err(s->ah2);
}

static int run_destroy_ah(struct sweep *s)
{
	return DESTROY(ibv_destroy_ah, s->ah2);
}

/*
 * A signaled write on the connected QP: the work request goes into the
 * ring, the doorbell is a system call.  If the doorbell failed, the
 * request is still in the ring and the next doorbell sends it, so undo
 * posts another and waits for every posted one: none may be lost.
 */
static int post_write(struct sweep *s)
{
	struct ibv_sge sge = { (uintptr_t)s->buf, 256, s->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)s->buf + PAGE, s->mr->rkey },
	}, *bad;

	s->posted++;
	return ibv_post_send(s->rc, &wr, &bad);
}

static void undo_post(struct sweep *s)
{
	uint64_t end = fuzz_now_ns() + 10000000000ull;
	struct ibv_wc wc;

	if (post_write(s))
		fuzz_die("cannot post a write without a fault");
	while (s->posted && fuzz_now_ns() < end) {
		int got = ibv_poll_cq(s->cq, 1, &wc);

		if (got < 0 || (got && wc.status != IBV_WC_SUCCESS))
			fuzz_die("a write failed after a failed doorbell");
		s->posted -= got;
		if (!got)
			usleep(100);
	}
	if (s->posted)
		fuzz_die("a write was lost after a failed doorbell");
}

static int cntr2_create(struct sweep *s, int type,
			const struct ib_uverbs_buffer_desc *comp,
			const struct ib_uverbs_buffer_desc *err)
{
	int rc = cntr_create_ex(s->ctx, &s->cntr2, type, comp, err);

	s->have_cntr2 = !rc;
	return rc;
}

static int run_cntr_create(struct sweep *s)
{
	return cntr2_create(s, RXC_COMP_CNTR_TYPE_WRS, NULL, NULL);
}

/* Both values in pinned user memory. */
static int run_cntr_create_va(struct sweep *s)
{
	struct ib_uverbs_buffer_desc comp = {
		.type = IB_UVERBS_BUFFER_TYPE_VA, .fd = -1,
		.addr = (uintptr_t)&s->vals[0], .length = 8,
	}, err = comp;

	err.addr = (uintptr_t)&s->vals[1];
	return cntr2_create(s, RXC_COMP_CNTR_TYPE_BYTES, &comp, &err);
}

/* A dma-buf over a memfd from /dev/udmabuf, made without faults. */
static int prep_udmabuf(struct sweep *s)
{
	struct udmabuf_create c = { .flags = UDMABUF_FLAGS_CLOEXEC,
				    .size = PAGE };
	int dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);

	if (dev < 0)
		return EOPNOTSUPP;
	s->memfd = memfd_create("fault-sweep", MFD_ALLOW_SEALING);
	if (s->memfd >= 0 && !ftruncate(s->memfd, PAGE) &&
	    !fcntl(s->memfd, F_ADD_SEALS, F_SEAL_SHRINK)) {
		c.memfd = s->memfd;
		s->dmabuf = ioctl(dev, UDMABUF_CREATE, &c);
	}
	close(dev);
	return s->dmabuf < 0 ? EIO : 0;
}

static int run_cntr_create_dmabuf(struct sweep *s)
{
	struct ib_uverbs_buffer_desc comp = {
		.type = IB_UVERBS_BUFFER_TYPE_DMABUF, .fd = s->dmabuf,
		.addr = 0, .length = 8,
	};

	return cntr2_create(s, RXC_COMP_CNTR_TYPE_WRS, &comp, NULL);
}

static int run_cntr_destroy(struct sweep *s)
{
	int rc = cntr_destroy(s->ctx, &s->cntr2);

	s->have_cntr2 = rc != 0;
	return rc;
}

static int run_cntr_modify(struct sweep *s)
{
	return cntr_modify(s->ctx, &s->cntr2, ENTRY_COMP, OP_INC, 5);
}

static int run_cntr_read(struct sweep *s)
{
	uint64_t v;

	return cntr_read(s->ctx, &s->cntr2, ENTRY_ERR, &v);
}

/* Threshold 0 is already met: WAIT returns at once. */
static int run_cntr_wait(struct sweep *s)
{
	return cntr_wait(s->ctx, &s->cntr2, 0, NULL, 1000, NULL, NULL);
}

static int run_cntr_notify(struct sweep *s)
{
	uint64_t threshold = 1ull << 40;

	return cntr_notify(s->ctx, &s->cntr2, s->efd, &threshold, NULL);
}

static int prep_qp_and_cntr(struct sweep *s)
{
	return run_create_rc(s) ? EIO : run_cntr_create(s);
}

static int run_attach(struct sweep *s)
{
	return qp_attach(s->ctx, s->qp2, &s->cntr2, OP_SEND | OP_WRITE |
			 OP_REMOTE_WRITE);
}

static int run_query_caps(struct sweep *s)
{
	struct caps caps;

	return query_caps(s->ctx, &caps);
}

static const struct step steps[] = {
	{ "open a context", NULL, run_open, undo_all },
	{ "close a context holding a connected QP with a counter",
	  prep_full_context, run_close, undo_close },
	{ "alloc PD", NULL, run_alloc_pd, undo_all },
	{ "dealloc PD", run_alloc_pd, run_dealloc_pd, undo_all },
	{ "create CQ", NULL, run_create_cq, undo_all },
	{ "resize CQ", run_create_cq, run_resize_cq, undo_all },
	{ "destroy CQ", run_create_cq, run_destroy_cq, undo_all },
	{ "create SRQ", NULL, run_create_srq, undo_all },
	{ "modify SRQ (resize, limit)", run_create_srq, run_modify_srq, undo_all },
	{ "destroy SRQ", run_create_srq, run_destroy_srq, undo_all },
	{ "create RC QP", NULL, run_create_rc, undo_all },
	{ "create UD QP", NULL, run_create_ud, undo_all },
	{ "create RC QP on an SRQ", NULL, run_create_on_srq, undo_all },
	{ "modify RC QP to RTS", run_create_rc, run_connect, undo_all },
	{ "modify QP to ERR, flushing receives", prep_rc_with_recvs,
	  run_to_err, undo_flushed },
	{ "query QP", NULL, run_query_qp, undo_all },
	{ "destroy QP", run_create_rc, run_destroy_qp, undo_all },
	{ "register MR", NULL, run_reg_mr, undo_all },
	{ "deregister MR", run_reg_mr, run_dereg_mr, undo_all },
	{ "alloc MW type 1", NULL, run_alloc_mw1, undo_all },
	{ "alloc MW type 2", NULL, run_alloc_mw2, undo_all },
	{ "create AH", NULL, run_create_ah, undo_all },
	{ "destroy AH", run_create_ah, run_destroy_ah, undo_all },
	{ "post a write (doorbell)", NULL, post_write, undo_post },
	{ "query counter caps", NULL, run_query_caps, undo_all },
	{ "create counter", NULL, run_cntr_create, undo_all },
	{ "create counter in user memory", NULL, run_cntr_create_va, undo_all },
	{ "create counter in a dma-buf", prep_udmabuf, run_cntr_create_dmabuf,
	  undo_all },
	{ "destroy counter", run_cntr_create, run_cntr_destroy, undo_all },
	{ "modify counter", run_cntr_create, run_cntr_modify, undo_all },
	{ "read counter", run_cntr_create, run_cntr_read, undo_all },
	{ "wait on counter", run_cntr_create, run_cntr_wait, undo_all },
	{ "arm counter notify", run_cntr_create, run_cntr_notify, undo_all },
	{ "attach counter to QP", prep_qp_and_cntr, run_attach, undo_all },
};

/* ---- the sweep ------------------------------------------------------- */

/* One pass: prepare, run with the Nth allocation failing (0: none), undo. */
static int pass(struct sweep *s, const struct step *st, unsigned int nth,
		bool *hit)
{
	int rc;

	if (st->prepare && st->prepare(s)) {
		printf("fault_sweep: FAIL: %s: cannot prepare\n", st->name);
		exit(1);
	}
	errno = 0;
	if (nth)
		fail_nth_set(nth);
	rc = st->run(s);
	*hit = nth && fail_nth_hit();
	st->undo(s);
	return rc;
}

#define STEP_SKIPPED	(-2)

/*
 * Sweeps one step; returns its number of fault points, -1 on a failure
 * (printed) or STEP_SKIPPED.  @tolerated counts faults the step got past
 * with success.
 */
static int sweep_step(struct sweep *s, const struct step *st,
		      unsigned int *tolerated)
{
	unsigned int nth;
	bool hit;
	int rc;

	rc = pass(s, st, 0, &hit);
	if (rc == EOPNOTSUPP) {
		printf("fault_sweep: %s: not supported here, skipped\n",
		       st->name);
		return STEP_SKIPPED;
	}
	if (rc) {
		printf("fault_sweep: FAIL: %s: %s without a fault\n", st->name,
		       strerror(rc));
		return -1;
	}
	for (nth = 1; nth <= opt.count; nth++) {
		rc = pass(s, st, nth, &hit);
		if (!hit) {
			if (!rc)
				return nth - 1;
			printf("fault_sweep: FAIL: %s: %s with fault %u not reached\n",
			       st->name, strerror(rc), nth);
			return -1;
		}
		if (!rc)
			(*tolerated)++;
	}
	printf("fault_sweep: FAIL: %s: still reaching faults after %" PRIu64 "\n",
	       st->name, opt.count);
	return -1;
}

/*
 * What the device holds: its line of "rdma resource show" and the number
 * of counters the driver lists in debugfs (rdma resource has none).
 */
static void resources(const char *dev, char *line, size_t len)
{
	char want[64], path[128], row[256];
	unsigned int cntrs = 0;
	FILE *f = popen("rdma resource show", "r");
	size_t n;

	*line = 0;
	snprintf(want, sizeof(want), ": %s: ", dev);
	while (f && fgets(line, len, f) && !strstr(line, want))
		*line = 0;
	if (!f || pclose(f) || !*line)
		fuzz_die("cannot read rdma resource show");
	snprintf(path, sizeof(path), "/sys/kernel/debug/rdma_rxc/%s/comp_cntrs",
		 dev);
	f = fopen(path, "r");
	if (!f)
		fuzz_die("cannot read the driver's counter list in debugfs");
	while (fgets(row, sizeof(row), f))
		cntrs += strncmp(row, "handle", 6) != 0;
	fclose(f);
	n = strcspn(line, "\n");
	snprintf(line + n, len - n, " comp_cntr %u\n", cntrs);
}

static void setup(struct sweep *s)
{
	struct ibv_srq_init_attr sinit = { .attr = { .max_wr = 16, .max_sge = 1 } };

	s->dmabuf = -1;
	s->memfd = -1;
	s->ctx = ibv_open_device(s->dev);
	s->pd = s->ctx ? ibv_alloc_pd(s->ctx) : NULL;
	s->cq = s->ctx ? ibv_create_cq(s->ctx, 256, NULL, NULL, 0) : NULL;
	s->buf = aligned_alloc(PAGE, MR_PAGES * PAGE);
	s->vals = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (!s->pd || !s->cq || !s->buf || s->vals == MAP_FAILED || s->efd < 0)
		fuzz_die("cannot set up");
	memset(s->buf, 0, MR_PAGES * PAGE);
	s->srq = ibv_create_srq(s->pd, &sinit);
	s->rc = new_qp(s, IBV_QPT_RC, NULL);
	s->mr = ibv_reg_mr(s->pd, s->buf, MR_PAGES * PAGE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!s->srq || !s->rc || !s->mr ||
	    fuzz_rc_connect(s->rc, s->rc->qp_num, IBV_ACCESS_REMOTE_WRITE))
		fuzz_die("cannot set up the sweep's objects");
}

int main(int argc, char **argv)
{
	struct sweep s = { 0 };
	struct fuzz_traffic t = { 0 };
	unsigned int i, tolerated = 0, total = 0, swept = 0;
	char before[256], after[256];
	pthread_t thread;
	int points, failed = 0;

	if (!fuzz_parse(argc, argv, &opt) || optind != argc)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	s.dev = fuzz_find_device(opt.dev);
	if (!s.dev)
		fuzz_die("no such device");
	fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (fail_nth_fd < 0)
		fuzz_die("no /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION)");
	alarm(opt.secs);
	setup(&s);
	fuzz_traffic_setup(&t, s.dev);
	if (pthread_create(&thread, NULL, fuzz_traffic_main, &t))
		fuzz_die("cannot start the traffic thread");
	resources(opt.dev, before, sizeof(before));

	for (i = 0; i < ARRAY_SIZE(steps) && !t.error; i++) {
		points = sweep_step(&s, &steps[i], &tolerated);
		if (points == STEP_SKIPPED)
			continue;
		if (points < 0) {
			failed = 1;
			continue;
		}
		printf("fault_sweep: %s: %d fault points\n", steps[i].name,
		       points);
		total += points;
		swept++;
	}

	t.stop = 1;
	pthread_join(thread, NULL);
	resources(opt.dev, after, sizeof(after));
	if (strcmp(before, after)) {
		printf("fault_sweep: FAIL: objects before the sweep: %s", before);
		printf("fault_sweep: FAIL: objects after it:         %s", after);
		failed = 1;
	}
	if (t.error || !fuzz_traffic_after(&t, 5)) {
		printf("fault_sweep: FAIL: checked traffic: %s\n",
		       t.error ? t.error : "no round completed");
		failed = 1;
	}
	printf("fault_sweep: %u fault points in %u steps, %u got past with success; %" PRIu64 " checked rounds\n",
	       total, swept, tolerated, t.done);
	fuzz_traffic_release(&t);
	return failed;
}
