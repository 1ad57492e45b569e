// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Round-trip latency: side A sends a message, side B answers it as soon
 * as its receive completes, and A times count round trips.  Both sides
 * poll without sleeping.  In loopback mode one thread plays both sides
 * in turn, so the time is the driver's, not the scheduler's.
 *
 * Two figures: the mean round trip ("lat"), and the median one
 * ("lat_p50", perftest's t_typical).  Between two guests a round trip
 * now and then waits milliseconds for the host to run a guest's vCPU or
 * its network thread, and those few weigh heavily in the mean; the
 * median is what a round trip takes when the host does not intervene.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define LAT_TIMEOUT_S	600

static void send_one(struct bench_side *s, uint32_t size)
{
	int err = post_send_op(s, 0, IBV_WR_SEND, 0, size, IBV_SEND_SIGNALED);

	if (err)
		bench_die("post_send: %s", strerror(err));
}

/* Wait for the next receive on @s, reaping send completions on the way. */
static void wait_recv(struct bench_side *s, double deadline)
{
	struct ibv_wc wc;

	do {
		if (!poll_one(s->cq, &wc, deadline))
			bench_die("no answer within %d s", LAT_TIMEOUT_S);
	} while (wc.opcode != IBV_WC_RECV);
}

/* Receive, then answer: side B's half of a round trip. */
static void answer(struct bench_side *b, uint32_t size, double deadline)
{
	wait_recv(b, deadline);
	post_recv(b, b->qp[0], size, 0);
	send_one(b, size);
}

/*
 * The requester, side A.  @b is side B in loopback mode, NULL in pair
 * mode (serve_latency() answers from the other process; @fd is the
 * out-of-band channel to it).
 */
void run_latency(const struct bench_opts *o, struct bench_side *a,
		 struct bench_side *b, int fd)
{
	double *rt = calloc(o->count, sizeof(*rt));
	double t0, t, now, deadline;
	uint32_t i;

	if (!rt)
		bench_die("out of memory");
	post_recv(a, a->qp[0], o->size, 0);
	if (b)
		post_recv(b, b->qp[0], o->size, 0);
	else
		oob_sync(fd, 'S');
	t0 = bench_now();
	deadline = t0 + LAT_TIMEOUT_S;
	for (i = 0, t = t0; i < o->count; i++) {
		send_one(a, o->size);
		if (b)
			answer(b, o->size, deadline);
		wait_recv(a, deadline);
		post_recv(a, a->qp[0], o->size, 0);
		now = bench_now();
		rt[i] = now - t;
		t = now;
	}
	bench_report(o, "lat", (t - t0) / o->count * 1e6, "us");
	bench_report(o, "lat_p50", bench_median(rt, o->count) * 1e6, "us");
	free(rt);
	if (!b)
		oob_sync(fd, 'E');
}

/* Pair mode, side B. */
void serve_latency(const struct bench_opts *o, struct bench_side *b, int fd)
{
	double deadline;
	uint32_t i;

	post_recv(b, b->qp[0], o->size, 0);
	oob_sync(fd, 'S');
	deadline = bench_now() + LAT_TIMEOUT_S;
	for (i = 0; i < o->count; i++)
		answer(b, o->size, deadline);
	oob_sync(fd, 'E');
}
