// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Message rate and bandwidth: RC WRITE, READ and SEND over one or more
 * QPs, and UD SEND, with up to a window of signaled work requests in
 * flight on each QP.  The requester polls its CQ without sleeping, as
 * perftest does, or with -e sleeps on the CQ's completion channel while
 * its windows are full, as perftest's --use_event.
 */
#include <poll.h>
#include <string.h>

#include "bench.h"

#define RATE_TIMEOUT_S	600

/* The state of one run of the requester. */
struct rate_run {
	const struct bench_opts *o;
	struct bench_side *req;
	struct bench_side *resp;	/* loopback only: reposts receives */
	uint32_t out[BENCH_MAX_QPS];	/* in flight per QP */
	uint64_t posted;
	uint64_t done;
	size_t slots;
};

static bool needs_recv(const struct bench_opts *o)
{
	return o->test == T_SEND || o->test == T_UD;
}

static enum ibv_wr_opcode rate_opcode(enum bench_test t)
{
	switch (t) {
	case T_READ:
		return IBV_WR_RDMA_READ;
	case T_SEND:
	case T_UD:
		return IBV_WR_SEND;
	default:
		return IBV_WR_RDMA_WRITE;
	}
}

static void post_op(struct rate_run *r, uint32_t q)
{
	const struct bench_opts *o = r->o;
	uint64_t slot = r->posted % r->slots;
	int err = post_send_op(r->req, q, rate_opcode(o->test),
			       slot * (o->size + 64), o->size,
			       IBV_SEND_SIGNALED);

	if (err)
		bench_die("post_send on QP %u: %s", q, strerror(err));
	r->out[q]++;
	r->posted++;
}

/* Loopback: the responder's receives, consumed and given back. */
static void repost_recvs(struct rate_run *r)
{
	struct ibv_wc wc[16];
	int i, n;

	n = ibv_poll_cq(r->resp->cq, 16, wc);
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS)
			bench_die("receive: %s", ibv_wc_status_str(wc[i].status));
		post_recv(r->resp, r->resp->qp[wc[i].wr_id % BENCH_MAX_QPS],
			  r->o->size, wc[i].wr_id);
	}
}

/* Fill every QP's window, round robin, as far as @count allows. */
static void fill_windows(struct rate_run *r)
{
	const struct bench_opts *o = r->o;
	bool more = true;
	uint32_t q;

	while (more) {
		more = false;
		for (q = 0; q < o->nqps && r->posted < o->count; q++) {
			if (r->out[q] < o->window) {
				post_op(r, q);
				more = true;
			}
		}
	}
}

static void die_if_late(const struct rate_run *r, double deadline)
{
	if (bench_now() > deadline)
		bench_die("%llu of %u operations completed in %d s",
			  (unsigned long long)r->done, r->o->count,
			  RATE_TIMEOUT_S);
}

/* Reap what the CQ holds; returns how many. */
static int reap(struct rate_run *r, double deadline)
{
	struct ibv_wc wc[16];
	int i, n;

	n = ibv_poll_cq(r->req->cq, 16, wc);
	if (n < 0)
		bench_die("poll_cq: %d", n);
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS)
			bench_die("completion on QP %llu: %s",
				  (unsigned long long)wc[i].wr_id,
				  ibv_wc_status_str(wc[i].status));
		r->out[wc[i].wr_id]--;
		r->done++;
	}
	if (!n)
		die_if_late(r, deadline);
	return n;
}

/*
 * -e, the windows full and the CQ empty: arm it, reap once more (what
 * completed before the arming raises no event), then sleep until it
 * raises one.  A spinning requester takes a whole vCPU, which under TCG
 * is host CPU the virtual link's own threads no longer get.
 */
static void sleep_on_cq(struct rate_run *r, double deadline)
{
	struct pollfd pfd = { .fd = r->req->chan->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *ctx;

	if (ibv_req_notify_cq(r->req->cq, 0))
		bench_die("req_notify_cq failed");
	if (reap(r, deadline))
		return;
	while (poll(&pfd, 1, 1000) == 0)
		die_if_late(r, deadline);
	if (ibv_get_cq_event(r->req->chan, &cq, &ctx))
		bench_die("get_cq_event failed");
	ibv_ack_cq_events(cq, 1);
}

/* Pre-post a window of receives on every responder QP. */
void prime_recvs(const struct bench_opts *o, struct bench_side *resp)
{
	uint32_t q, k;

	for (q = 0; q < o->nqps; q++)
		for (k = 0; k < o->window * 2; k++)
			post_recv(resp, resp->qp[q], o->size,
				  (uint64_t)k * BENCH_MAX_QPS + q);
}

/*
 * The requester's run.  @resp is the responder in loopback mode (NULL in
 * pair mode, where serve_rate() runs in the other process, reached
 * through @fd).
 */
void run_rate(const struct bench_opts *o, struct bench_side *req,
	      struct bench_side *resp, int fd)
{
	struct rate_run r = { .o = o, .req = req, .resp = resp };
	double t0, secs, deadline;

	r.slots = req->len / (o->size + 64);
	if (!resp)
		oob_sync(fd, 'S');
	else if (needs_recv(o))
		prime_recvs(o, resp);
	t0 = bench_now();
	deadline = t0 + RATE_TIMEOUT_S;
	while (r.done < o->count) {
		fill_windows(&r);
		if (!reap(&r, deadline) && o->events)
			sleep_on_cq(&r, deadline);
		if (resp && needs_recv(o))
			repost_recvs(&r);
	}
	secs = bench_now() - t0;
	if (!resp)
		oob_sync(fd, 'E');
	bench_report(o, "rate", o->count / secs, "msg/s");
	bench_report(o, "bw", (double)o->count * o->size / secs / 1e6, "MB/s");
}

/*
 * Pair mode, responder: keep receives posted from the start sync until
 * the requester's end sync.  WRITE and READ need nothing from it.
 */
void serve_rate(const struct bench_opts *o, struct bench_side *resp, int fd)
{
	struct rate_run r = { .o = o, .resp = resp };
	unsigned int spins = 0;

	if (needs_recv(o))
		prime_recvs(o, resp);
	oob_sync(fd, 'S');
	while (needs_recv(o) && ((++spins & 0x3ff) || !oob_ready(fd)))
		repost_recvs(&r);
	oob_sync(fd, 'E');
}
