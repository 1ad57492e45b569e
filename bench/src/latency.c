// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Round trips, each a ping-pong as perftest's latency tests run them:
 *
 *   lat        send/recv: A sends, B answers as soon as its receive
 *              completes (ib_send_lat);
 *   lat_write  RDMA write: A writes into B's buffer, B sees the
 *              message's last byte change in memory and writes back
 *              into A's; neither side waits for a completion, so the
 *              round trip holds no completion and no receive
 *              (ib_write_lat);
 *   lat_read   RDMA read: A reads from B's buffer and waits for the
 *              read's completion; B's CPU takes no part (ib_read_lat);
 *   lat_put    lat_write with unsignaled writes, as UCX's put_lat posts
 *              them: no completion at all, so nothing tells the driver
 *              that each write is waited for.
 *
 * A times count round trips.  Both sides poll without sleeping.  In
 * loopback mode one thread plays both sides in turn, so the time is the
 * driver's, not the scheduler's.
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

/* What one kind of round trip does on one side. */
struct lat_kind {
	/* Before the first round trip, on each side that takes part. */
	void (*arm)(struct bench_side *s, const struct bench_opts *o);
	/* Send round trip @i's message. */
	void (*ping)(struct bench_side *s, const struct bench_opts *o,
		     uint32_t i);
	/* Wait until round trip @i's answer has arrived. */
	void (*await)(struct bench_side *s, const struct bench_opts *o,
		      uint32_t i, double deadline);
	/* B answers each message; false: A's operation is the round trip. */
	bool answered;
};

static void late(void)
{
	bench_die("no answer within %d s", LAT_TIMEOUT_S);
}

static void posted(int err)
{
	if (err)
		bench_die("post_send: %s", strerror(err));
}

/* send/recv */

static void send_arm(struct bench_side *s, const struct bench_opts *o)
{
	post_recv(s, s->qp[0], o->size, 0);
}

static void send_ping(struct bench_side *s, const struct bench_opts *o,
		      uint32_t i)
{
	(void)i;
	posted(post_send_op(s, 0, IBV_WR_SEND, 0, o->size, IBV_SEND_SIGNALED));
}

/* The next receive, send completions reaped on the way; then its repost. */
static void send_await(struct bench_side *s, const struct bench_opts *o,
		       uint32_t i, double deadline)
{
	struct ibv_wc wc;

	(void)i;
	do {
		if (!poll_one(s->cq, &wc, deadline))
			late();
	} while (wc.opcode != IBV_WC_RECV);
	post_recv(s, s->qp[0], o->size, 0);
}

/*
 * RDMA write: a side's inbox is its buffer's first slot, where the peer
 * writes; it sends from the second.  The last byte of round trip i's
 * message is lat_tag(i), never 0, which marks an inbox nothing reached.
 * RC places a message's bytes in order, so that byte arrives last.
 */

static uint8_t lat_tag(uint32_t i)
{
	return 1 + i % 255;
}

static uint64_t write_outbox(const struct bench_opts *o)
{
	return o->size + 64;
}

static void write_arm(struct bench_side *s, const struct bench_opts *o)
{
	s->buf[o->size - 1] = 0;
	s->unreaped = 0;
}

static void write_post(struct bench_side *s, const struct bench_opts *o,
		       uint32_t i, int flags)
{
	s->buf[write_outbox(o) + o->size - 1] = lat_tag(i);
	posted(post_send_at(s, 0, IBV_WR_RDMA_WRITE, write_outbox(o), 0,
			    o->size, flags));
}

static void write_ping(struct bench_side *s, const struct bench_opts *o,
		       uint32_t i)
{
	write_post(s, o, i, IBV_SEND_SIGNALED);
	s->unreaped++;
}

/*
 * Unsignaled: the send queue frees its slot when the ACK retires the
 * write, with no completion to reap.
 */
static void put_ping(struct bench_side *s, const struct bench_opts *o,
		     uint32_t i)
{
	write_post(s, o, i, 0);
}

/* The completions of this side's writes, as many as are there. */
static void reap_writes(struct bench_side *s)
{
	struct ibv_wc wc[16];
	int i, n = ibv_poll_cq(s->cq, 16, wc);

	if (n < 0)
		bench_die("poll_cq: %d", n);
	for (i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS)
			bench_die("write: %s", ibv_wc_status_str(wc[i].status));
	s->unreaped -= n;
}

static bool write_arrived(const struct bench_side *s,
			  const struct bench_opts *o, uint8_t tag)
{
	return __atomic_load_n(&s->buf[o->size - 1], __ATOMIC_ACQUIRE) == tag;
}

/*
 * Spin on the inbox, reaping this side's write completions meanwhile, as
 * perftest does; then make room in the send queue for the next write if
 * the window is full of unreaped ones.
 */
static void write_await(struct bench_side *s, const struct bench_opts *o,
			uint32_t i, double deadline)
{
	unsigned int spins = 0;

	while (!write_arrived(s, o, lat_tag(i)) || s->unreaped >= o->window) {
		reap_writes(s);
		if (!(++spins & 0xfff) && bench_now() > deadline)
			late();
	}
}

/* RDMA read: one read in flight, its completion the end of the trip. */

static void read_ping(struct bench_side *s, const struct bench_opts *o,
		      uint32_t i)
{
	(void)i;
	posted(post_send_op(s, 0, IBV_WR_RDMA_READ, 0, o->size,
			    IBV_SEND_SIGNALED));
}

static void read_await(struct bench_side *s, const struct bench_opts *o,
		       uint32_t i, double deadline)
{
	struct ibv_wc wc;

	(void)o;
	(void)i;
	if (!poll_one(s->cq, &wc, deadline))
		late();
}

static void no_arm(struct bench_side *s, const struct bench_opts *o)
{
	(void)s;
	(void)o;
}

static const struct lat_kind lat_kinds[T_NUM] = {
	[T_LAT] = { send_arm, send_ping, send_await, true },
	[T_LAT_WRITE] = { write_arm, write_ping, write_await, true },
	[T_LAT_READ] = { no_arm, read_ping, read_await, false },
	[T_LAT_PUT] = { write_arm, put_ping, write_await, true },
};

bool test_is_latency(enum bench_test t)
{
	return lat_kinds[t].ping != NULL;
}

/*
 * The requester, side A.  @b is side B in loopback mode, NULL in pair
 * mode (serve_latency() answers from the other process; @fd is the
 * out-of-band channel to it).
 */
void run_latency(const struct bench_opts *o, struct bench_side *a,
		 struct bench_side *b, int fd)
{
	const struct lat_kind *k = &lat_kinds[o->test];
	double *rt = calloc(o->count, sizeof(*rt));
	double t0, t, now, deadline;
	uint32_t i;

	if (!rt)
		bench_die("out of memory");
	k->arm(a, o);
	if (b)
		k->arm(b, o);
	else
		oob_sync(fd, 'S');
	t0 = bench_now();
	deadline = t0 + LAT_TIMEOUT_S;
	for (i = 0, t = t0; i < o->count; i++) {
		k->ping(a, o, i);
		if (b && k->answered) {
			k->await(b, o, i, deadline);
			k->ping(b, o, i);
		}
		k->await(a, o, i, deadline);
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

/* Pair mode, side B: answers each message, or only waits for the end. */
void serve_latency(const struct bench_opts *o, struct bench_side *b, int fd)
{
	const struct lat_kind *k = &lat_kinds[o->test];
	double deadline;
	uint32_t i;

	k->arm(b, o);
	oob_sync(fd, 'S');
	deadline = bench_now() + LAT_TIMEOUT_S;
	for (i = 0; k->answered && i < o->count; i++) {
		k->await(b, o, i, deadline);
		k->ping(b, o, i);
	}
	oob_sync(fd, 'E');
}
