// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What completion counters are for, measured:
 *
 *   cntr_unsig   unsignaled RDMA writes whose completion is tracked by an
 *                RDMA_WRITE counter, read through its mapped value; the
 *                window is what the counter says is still in flight
 *                (compare: "write", signaled writes polled from the CQ);
 *   cntr_sig     "write" with a counter attached: the counter's cost,
 *                against
 *   cntr_base    the same without one, run next to it (bench/guest.sh
 *                alternates them), since rates drift within a boot;
 *   wake_wait    a thread blocked in the threshold WAIT, woken by one
 *                write: the time from posting to running again;
 *   wake_notify  the same through an eventfd armed with NOTIFY;
 *   wake_cq      the same through a CQ completion event
 *                (ibv_req_notify_cq() + ibv_get_cq_event()).
 *
 * The counter sits on the requester's QP, in loopback and in pair mode.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/rxcdv.h>

#include "bench.h"

#define WAKE_TIMEOUT_MS	10000
/* How long the poster lets the waiter fall asleep before it posts. */
#define WAKE_SETTLE_US	5000

static struct ibv_comp_cntr *cntr;

bool test_uses_counter(enum bench_test t)
{
	return t == T_CNTR_UNSIG || t == T_CNTR_SIG || t == T_WAKE_WAIT ||
	       t == T_WAKE_NOTIFY;
}

/*
 * Create a WRS counter and attach it to every requester QP for RDMA
 * WRITE; the QPs must still be in RESET.  False when the device has no
 * counters (rdma_rxe): the run is then skipped.
 */
bool counters_attach(const struct bench_opts *o, struct bench_side *req)
{
	struct ibv_comp_cntr_init_attr init = {
		.type = IBV_COMP_CNTR_TYPE_WRS,
	};
	struct ibv_qp_attach_comp_cntr_attr at = {
		.op_mask = IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE,
	};
	uint32_t i;
	int err;

	cntr = ibv_create_comp_cntr(req->ctx, &init);
	if (!cntr && errno == EOPNOTSUPP)
		return false;
	if (!cntr)
		bench_die("create_comp_cntr: %s", strerror(errno));
	for (i = 0; i < o->nqps; i++) {
		err = ibv_qp_attach_comp_cntr(req->qp[i], cntr, &at);
		if (err)
			bench_die("qp_attach_comp_cntr: %s", strerror(err));
	}
	return true;
}

void counters_destroy(void)
{
	if (cntr)
		ibv_destroy_comp_cntr(cntr);
	cntr = NULL;
}

static int post_write(struct bench_side *s, uint32_t size, bool signaled)
{
	return post_send_op(s, 0, IBV_WR_RDMA_WRITE, 0, size,
			    signaled ? IBV_SEND_SIGNALED : 0);
}

static const volatile uint64_t *cntr_value(void)
{
	struct rxcdv_comp_cntr_attr attr;

	if (rxcdv_query_comp_cntr(cntr, &attr, sizeof(attr)) ||
	    !attr.comp_count)
		bench_die("query_comp_cntr: no mapped value");
	return attr.comp_count;
}

/* Unsignaled writes, a window of them in flight by the counter's count. */
static void run_unsignaled(const struct bench_opts *o, struct bench_side *req)
{
	const volatile uint64_t *value = cntr_value();
	uint64_t posted = 0, done = 0;
	double t0 = bench_now(), deadline = t0 + 600;
	unsigned int spins = 0;
	int err;

	while (done < o->count) {
		while (posted < o->count && posted - done < o->window) {
			err = post_write(req, o->size, false);
			if (err == ENOMEM)	/* slots not yet given back */
				break;
			if (err)
				bench_die("post_send: %s", strerror(err));
			posted++;
		}
		done = rxcdv_comp_cntr_load(value);
		if (!(++spins & 0xfff) && bench_now() > deadline)
			bench_die("the counter reached %llu of %u",
				  (unsigned long long)done, o->count);
	}
	bench_report(o, "rate", o->count / (bench_now() - t0), "msg/s");
}

/* One waiter thread; the poster wakes it count times. */
struct wake {
	const struct bench_opts *o;
	struct bench_side *req;
	uint32_t armed;		/* iterations the waiter is ready for */
	uint32_t woken;		/* iterations it has seen end */
	double t_post;		/* when the current write was posted */
	double *lat;
	int fd;			/* wake_notify: the counter's eventfd */
};

/* Block until iteration @i's write has completed, by the test's means. */
static void wake_block(struct wake *w, uint32_t i)
{
	struct rxcdv_comp_cntr_wait_attr wa = {
		.threshold = i + 1, .timeout_ms = WAKE_TIMEOUT_MS,
	};
	struct rxcdv_comp_cntr_notify_attr na = {
		.threshold = i + 1, .fd = w->fd,
	};
	struct pollfd pfd = { .fd = w->fd, .events = POLLIN };
	struct ibv_cq *cq;
	struct ibv_wc wc;
	void *cq_ctx;
	uint64_t v;
	int err = 0;

	switch (w->o->test) {
	case T_WAKE_WAIT:
		__atomic_store_n(&w->armed, i + 1, __ATOMIC_RELEASE);
		err = rxcdv_wait_comp_cntr(cntr, &wa, sizeof(wa));
		break;
	case T_WAKE_NOTIFY:
		err = rxcdv_notify_comp_cntr(cntr, &na, sizeof(na));
		__atomic_store_n(&w->armed, i + 1, __ATOMIC_RELEASE);
		if (!err && poll(&pfd, 1, WAKE_TIMEOUT_MS) != 1)
			err = ETIMEDOUT;
		if (!err && read(w->fd, &v, sizeof(v)) != sizeof(v))
			err = errno;
		break;
	default:
		err = ibv_req_notify_cq(w->req->cq, 0);
		__atomic_store_n(&w->armed, i + 1, __ATOMIC_RELEASE);
		if (!err && ibv_get_cq_event(w->req->chan, &cq, &cq_ctx))
			err = errno;
		if (!err)
			ibv_ack_cq_events(cq, 1);
		while (!err && ibv_poll_cq(w->req->cq, 1, &wc) > 0)
			;
		break;
	}
	if (err)
		bench_die("%s, iteration %u: %s",
			  bench_test_names[w->o->test], i, strerror(err));
}

static void *wake_waiter(void *arg)
{
	struct wake *w = arg;
	double posted;
	uint32_t i;

	for (i = 0; i < w->o->count; i++) {
		wake_block(w, i);
		__atomic_load(&w->t_post, &posted, __ATOMIC_ACQUIRE);
		w->lat[i] = bench_now() - posted;
		__atomic_store_n(&w->woken, i + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void spin_until(const uint32_t *v, uint32_t want)
{
	while (__atomic_load_n(v, __ATOMIC_ACQUIRE) < want)
		usleep(50);
}

static void run_wake(const struct bench_opts *o, struct bench_side *req)
{
	struct wake w = { .o = o, .req = req, .fd = -1 };
	pthread_t t;
	uint32_t i;
	double now;
	int err;

	w.lat = calloc(o->count, sizeof(*w.lat));
	if (!w.lat)
		bench_die("out of memory");
	if (o->test == T_WAKE_NOTIFY) {
		w.fd = rxcdv_get_comp_cntr_fd(cntr);
		if (w.fd < 0)
			bench_die("get_comp_cntr_fd: %s", strerror(errno));
	}
	if (pthread_create(&t, NULL, wake_waiter, &w))
		bench_die("pthread_create failed");
	for (i = 0; i < o->count; i++) {
		spin_until(&w.armed, i + 1);
		usleep(WAKE_SETTLE_US);
		now = bench_now();
		__atomic_store(&w.t_post, &now, __ATOMIC_RELEASE);
		err = post_write(req, o->size, o->test == T_WAKE_CQ);
		if (err)
			bench_die("post_send: %s", strerror(err));
		spin_until(&w.woken, i + 1);
	}
	pthread_join(t, NULL);
	bench_report(o, "wake", bench_median(w.lat, o->count) * 1e6, "us");
	free(w.lat);
}

void run_counters(const struct bench_opts *o, struct bench_side *req)
{
	if (o->test == T_CNTR_UNSIG)
		run_unsignaled(o, req);
	else
		run_wake(o, req);
}
