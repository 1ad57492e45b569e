// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * liveness: every posted RC work request completes, or fails, within a
 * stated bound once the peer behaves again; and the completion counters
 * agree with what the CQ showed.
 *
 *   liveness -d DEV [-g GID] [-p PORT]                        server
 *   liveness -d DEV [-g GID] [-p PORT] [-S SEED] [-q QPS] [-n OPS]
 *            [-s MAXSIZE] [-w WINDOW] [-t TIMEOUT] [-c RETRY] [-H SECS]
 *            [-R RTT_MS] [-B NS] [-F MS] [-N] [-K] [-L] [-k KINDS]
 *            [-m behave|vanish] [-T SECS] HOST                 client
 *   liveness -D N [-S SEED] [-q QPS] [-s MAXSIZE] [-k KINDS]     draws
 *
 * The client runs QPS RC QPs at once, each with a completion counter
 * attached (SEND, RDMA_READ and RDMA_WRITE), and posts signaled work
 * requests on each, OPS at least and on until the hostile time is over
 * (in vanish mode, until the QP fails), drawn from SEED: SENDs (the
 * server keeps receives posted), RDMA WRITEs and READs of 1 byte to
 * MAXSIZE (sizes spread over the powers of two, so that small and large
 * both come), 8-byte
 * FETCH_AND_ADDs and CMP_AND_SWPs on aligned words, and, between them,
 * binds and invalidations of a type 2 memory window.  At most WINDOW are
 * in flight per QP.  The server's QPs carry a counter too (RECV and the
 * REMOTE_* bits).  Data is not checked: rc_xfer does that; this is about
 * time.  Each QP's requests, kind and size, follow from the seed alone,
 * not from timing: -D N prints the first N of each QP, so that a late
 * request's report can be read against what stood ahead of it.
 *
 * The peer misbehaves (the guest script's doing: netem, a stopped link,
 * forged NAKs, a stopped process) until at most HOSTILE = start + SECS,
 * or until the client gets SIGUSR1, if that comes first: the script
 * sends it the moment the misbehaviour ends (or the peer vanishes).
 * Request i, posted at post_i, must then be done by
 *
 *   deadline_i = max(post_i, HOSTILE) + BOUND + B * ahead_i + F
 *
 * where ahead_i, the payload that may have to move first, is the larger
 * of two when it was posted: what was in flight on all QPs, its own
 * included, and QPS times what was in flight on its own QP.  The first
 * holds if the QPs are served in posting order; the second if they take
 * turns, as they do, so that work posted later on the others shares the
 * link with its own QP's backlog (seed 3438: a 6-byte read behind a
 * 4 MB read on its QP, while 35 MB moved on the four).  B ns a byte
 * (default 1000, 1 MB/s: the pace's slowest rate costs 122 ns a byte,
 * and four QPs under TCG on a busy host moved 7 MB/s in all, 2 at
 * times) is the transfer-time allowance.  F (default 1000 ms) is for a
 * guest that stalls.
 * BOUND follows from the QP's timeout and retry count, and from RTT_MS,
 * the longest round trip the peer can cause (its delay, jitter and the
 * queues of an emulated CPU; default 100):
 *
 *   T    = max(4.096 us * 2^TIMEOUT, 20 ms) + 1 jiffy  (rxc_req.c: the
 *          local ACK timeout, never below RXC_MIN_RETRANS_MS)
 *   P    = max(5 * RTT, 10 ms)   the longest probe interval: srtt + 4 *
 *          rttvar, and neither exceeds the largest sample (rxc_rto.c)
 *   Q    = max(T, P)
 *   WAIT = 4 * Q + 2 jiffies     one wait for progress: a timer interval
 *          is at most 2 * Q (the probe interval doubles only while it
 *          still fits in the timeout, or once after a late run); a wait
 *          ends at the first run past T, and a late run (one that finds
 *          T passed before it probed) probes and waits a whole T again,
 *          so T + T + 2 * Q at most
 *   RNR  = 655.36 ms with -N (the peer may send RNR NAKs with any timer
 *          field), else nothing
 *   PACE = 10 ms: the pace holds a request back by at most a window's
 *          time at a round trip of at most RXC_PACE_MAX_RTT_US
 *
 *   behave: BOUND = WAIT + RNR + PACE + RTT
 *           one loss left over from the hostile time is recovered by one
 *           wait, then a round trip brings the answer.  RETRY should be
 *           7 (forever): a finite one may run out in the hostile time.
 *   vanish: BOUND = (RETRY + 1) * WAIT + RTT
 *           the peer never answers again: each QP's oldest unfinished
 *           request must fail with RETRY_EXC_ERR after RETRY + 1 waits
 *           and all behind it be flushed (WR_FLUSH_ERR).  The client
 *           keeps posting until each QP has failed.
 *
 *   -L:    BOUND + (RETRY + 1) * WAIT for a request that fails, when
 *          the peer lies: a NAK forged in its name acknowledges PSNs
 *          its responder never got, which can neither be sent again
 *          nor completed.  The responder then drops all the QP
 *          sends and answers only its far probes, before what was
 *          acknowledged; two such answers end the QP at the next
 *          timeout, retry_cnt 7 included (Documentation/liveness.rst,
 *          "A responder left behind"): the wait under way at HOSTILE
 *          and three more, within the RETRY + 1 of the rows' RETRY 7.
 *          A QP may then end as a vanished peer's does, within that
 *          bound, and so may one with a finite RETRY whose retries
 *          the forger's NAKs used up while it lied.  A request that
 *          succeeds is still held to BOUND.  On a QP that
 *          failed, the server may lack what a lie acknowledged, or
 *          have executed what failed, so it checks only that its
 *          counter has no error, counts every receive it saw, and
 *          counts no more than the client posted.
 *
 * At the end each client counter's completion value must equal the
 * successful sends, writes, reads and atomics its QP completed, and its
 * error value the failed ones, flushes included (Documentation/rxc.rst,
 * "What is counted": binds and invalidations count in neither).  In
 * behave mode the server checks its own: every receive it saw complete,
 * plus every write, read and atomic the client saw succeed, and no
 * error.  A late request prints the seed, the QP, the request and how
 * late it is, the QPs' transport state (rdma -dd res show qp), and
 * which threads had the guest's CPUs just then (top): a late request
 * once found both ends' QPs with packets queued and no run going.
 * -K adds one to the first QP's counter before the check, which must
 * then fail: the check's own test.  -k KINDS draws only the kinds named,
 * by letter: s(end), w(rite), r(ead), f(etch-and-add), c(mp-and-swap),
 * l(ocal).
 *
 * Exit status 0 when everything held, 1 otherwise.
 */
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <infiniband/verbs.h>

#include "../cntr_ioctl.h"
#include "../fixture.h"
#include "rc_conn.h"

#define MAX_QPS		64
#define MAX_WINDOW	128
/* Requests a QP may post in one run, at most: 32 MiB of records. */
#define MAX_REQS	(1u << 20)
/* Reads and atomics a QP keeps in flight, at most, before device caps. */
#define RD_ATOMIC	16
/* Physical memory behind a buffer: larger ones map it again and again. */
#define BACKING		(64ul << 20)
#define MS		1000000ull
/* HZ is 250 on Debian's kernels; 100 is the coarsest a kernel has. */
#define JIFFY_NS	(10 * MS)
#define RNR_MAX_NS	655360000ull
#define PACE_NS		(10 * MS)
#define MIN_RETRANS_NS	(20 * MS)
#define MIN_PROBE_NS	(10 * MS)

enum mode { BEHAVE, VANISH };
static const char *const mode_names[] = { "behave", "vanish" };

/* The kinds of request the client draws; weights in draw_kind(). */
enum kind { K_SEND, K_WRITE, K_READ, K_FADD, K_CSWP, K_LOCAL, K_NR };
static const char *const kind_names[] = {
	"SEND", "RDMA_WRITE", "RDMA_READ", "FETCH_AND_ADD", "CMP_AND_SWP",
	"local (bind/invalidate)",
};

static struct {
	const char *dev;
	const char *host;
	int gid;
	int port;
	uint64_t seed;
	uint32_t qps;
	uint32_t ops;
	uint64_t max_size;
	uint32_t window;
	uint8_t timeout;
	uint8_t retry;
	double hostile_s;
	uint32_t rtt_ms;
	uint32_t ns_per_byte;
	uint32_t slack_ms;
	bool rnr;
	bool skew;		/* -K: a counter off by one, to be caught */
	bool lies;		/* -L: a QP may end failed, its peer lied to */
	const char *kinds;	/* -k: the kinds drawn, by letter */
	enum mode mode;
	int secs;
	uint32_t draws;		/* -D: print each QP's first draws, and exit */
} opt = {
	.gid = 1, .port = 19900, .seed = 1, .qps = 4, .ops = 100,
	.max_size = 4ul << 20, .window = 8, .timeout = 14, .retry = 7,
	.rtt_ms = 100, .ns_per_byte = 1000, .slack_ms = 1000, .secs = 600,
};

/* The client's opening message: what the server must set up. */
struct hello {
	uint64_t seed;
	uint64_t max_size;
	uint32_t qps;
	uint32_t window;
	uint32_t mode;
	uint32_t reserved;
};

/* The client's summary of one QP, for the server's counter check. */
struct summary {
	uint64_t sends_ok;
	uint64_t remote_ok;	/* writes, reads and atomics that succeeded */
	uint64_t failed;	/* -L: the QP failed; its peer may lack some */
	uint64_t sends_posted;
	uint64_t remote_posted;	/* writes, reads and atomics posted */
};

/* The server's verdict: counter mismatches found. */
struct verdict {
	uint32_t bad;
	uint32_t reserved;
};

/* One request of the client's, as posted and as completed. */
struct req {
	uint64_t post_ns;
	uint64_t done_bytes_at_post;	/* side's done_bytes when posted */
	uint32_t done_reqs_at_post;
	uint64_t allow_ns;	/* due at max(post, the hostile end) + this */
	uint64_t ahead_all;	/* payload in flight on all QPs when posted */
	uint64_t ahead_own;	/* the same on its own QP, its own included */
	uint64_t len;
	uint8_t kind;
	uint8_t status;
	bool done;
};

struct conn {
	struct ibv_qp *qp;
	struct cntr cntr;
	struct ibv_mw *mw;	/* client: the window the locals bind */
	bool mw_bound;
	struct rc_info me, peer;
	uint64_t rng;
	struct req *reqs;	/* client: one per request, in post order */
	uint32_t cap;		/* of reqs */
	uint32_t posted, done;
	uint64_t in_flight;	/* client: payload posted, not yet done */
	uint32_t first_err;	/* index of the first failure, or UINT32_MAX */
	uint64_t ok[K_NR];
	uint64_t posted_kind[K_NR];	/* client */
	uint64_t counted_ok, counted_err;
	uint64_t recvs_ok;	/* server */
};

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint64_t len;
	int fd;
	struct hello hello;
	struct conn c[MAX_QPS];
	uint64_t in_flight;	/* client: payload posted, not yet done */
	uint64_t hostile_ns;	/* client: when the peer behaves again */
	uint64_t done_bytes;	/* client: payload of the requests done */
	uint32_t done_reqs;
	uint64_t start_ns;
	bool shown;		/* client: the state was shown while pending */
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec;
}

/* xorshift64*: the same stream from the same seed, everywhere. */
static uint64_t rnd(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545f4914f6cdd1dull;
}

static uint64_t rnd_below(uint64_t *x, uint64_t n)
{
	return n ? rnd(x) % n : 0;
}

/* Each QP's stream and start PSN, from the seed alone. */
static uint64_t qp_seed(uint64_t seed, uint32_t q)
{
	return (seed + 1) * 0x9e3779b97f4a7c15ull + q * 0xbf58476d1ce4e5b9ull;
}

/* Near the PSN's wrap now and then, so that the wrap is crossed too. */
static uint32_t qp_psn(uint64_t seed, uint32_t q)
{
	uint64_t x = qp_seed(seed, q) ^ 0x5555;

	return (rnd(&x) & 1 ? 0xfffff0 : 0) + (rnd(&x) & 0xfff0);
}

/* The timing rules of the header comment, in nanoseconds. */
static uint64_t timeout_ns(void)
{
	uint64_t t = 4096ull << opt.timeout;

	return (t > MIN_RETRANS_NS ? t : MIN_RETRANS_NS) + JIFFY_NS;
}

static uint64_t wait_ns(void)
{
	uint64_t t = timeout_ns(), p = 5ull * opt.rtt_ms * MS, q;

	if (p < MIN_PROBE_NS)
		p = MIN_PROBE_NS;
	q = t > p ? t : p;
	return 4 * q + 2 * JIFFY_NS;
}

static uint64_t bound_ns(void)
{
	uint64_t rtt = (uint64_t)opt.rtt_ms * MS;

	if (opt.mode == VANISH)
		return (opt.retry + 1ull) * wait_ns() + rtt;
	return wait_ns() + (opt.rnr ? RNR_MAX_NS : 0) + PACE_NS + rtt;
}

/* What -L adds to the bound of a request that fails (header comment). */
static uint64_t lie_ns(void)
{
	return opt.lies ? (opt.retry + 1ull) * wait_ns() : 0;
}

/* The buffer each side registers, for requests of up to @max_size bytes. */
static uint64_t buf_len(uint64_t max_size)
{
	uint64_t len = (max_size + 4095) & ~4095ull;

	return len < 65536 ? 65536 : len;
}

/*
 * A buffer of @len bytes of address space over at most BACKING bytes of
 * memory, mapped again and again: a 1 GiB transfer needs no 1 GiB of RAM,
 * and the data is not checked.
 */
static uint8_t *map_buffer(uint64_t len)
{
	uint64_t back = len < BACKING ? len : BACKING, off;
	uint8_t *p;
	int fd;

	fd = memfd_create("liveness", 0);
	if (fd < 0 || ftruncate(fd, back))
		rc_die("memfd: %m");
	p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		rc_die("mmap of %llu bytes: %m", (unsigned long long)len);
	for (off = 0; off < len; off += back) {
		uint64_t n = len - off < back ? len - off : back;

		if (mmap(p + off, n, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)
			rc_die("mmap: %m");
	}
	close(fd);
	return p;
}

static void setup_side(struct side *s, bool client)
{
	uint32_t q, depth = s->hello.window;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
		     (client ? IBV_ACCESS_MW_BIND : 0);
	uint32_t ops = client ? OP_SEND | OP_READ | OP_WRITE :
				OP_RECV | OP_REMOTE_READ | OP_REMOTE_WRITE;
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = depth, .max_recv_wr = depth,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_device_attr dev;
	union ibv_gid gid;
	int rc;

	s->ctx = open_device_by_name(opt.dev);
	if (!s->ctx)
		rc_die("cannot open device %s", opt.dev);
	if (ibv_query_device(s->ctx, &dev) || ibv_query_gid(s->ctx, 1, opt.gid, &gid))
		rc_die("cannot query %s", opt.dev);
	s->pd = ibv_alloc_pd(s->ctx);
	s->ch = ibv_create_comp_channel(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 2 * s->hello.qps * depth + 16, NULL,
			      s->ch, 0);
	if (!s->pd || !s->ch || !s->cq)
		rc_die("cannot allocate PD, channel or CQ: %m");
	s->len = buf_len(s->hello.max_size);
	s->buf = map_buffer(s->len);
	s->mr = ibv_reg_mr(s->pd, s->buf, s->len, access);
	if (!s->mr)
		rc_die("ibv_reg_mr of %llu bytes: %m",
		       (unsigned long long)s->len);
	qa.send_cq = s->cq;
	qa.recv_cq = s->cq;
	for (q = 0; q < s->hello.qps; q++) {
		struct conn *c = &s->c[q];

		c->qp = ibv_create_qp(s->pd, &qa);
		if (!c->qp)
			rc_die("ibv_create_qp: %m");
		rc = cntr_create_ex(s->ctx, &c->cntr, -1, NULL, NULL);
		if (!rc)
			rc = qp_attach(s->ctx, c->qp, &c->cntr, ops);
		if (rc)
			rc_die("counter on QP %u: %s", q, strerror(rc));
		if (client) {
			c->mw = ibv_alloc_mw(s->pd, IBV_MW_TYPE_2);
			if (!c->mw)
				rc_die("ibv_alloc_mw: %m");
		}
		c->rng = qp_seed(s->hello.seed, q);
		c->first_err = UINT32_MAX;
		c->me = (struct rc_info){
			.qpn = c->qp->qp_num, .rkey = s->mr->rkey,
			.addr = (uintptr_t)s->buf, .gid = gid,
			.max_dest_rd_atomic = dev.max_qp_rd_atom < RD_ATOMIC ?
					      dev.max_qp_rd_atom : RD_ATOMIC,
		};
	}
}

static void connect_all(struct side *s)
{
	struct ibv_device_attr dev;
	struct ibv_port_attr port;
	uint32_t q, rd;

	if (ibv_query_device(s->ctx, &dev) || ibv_query_port(s->ctx, 1, &port))
		rc_die("cannot query %s", opt.dev);
	for (q = 0; q < s->hello.qps; q++) {
		struct conn *c = &s->c[q];
		struct rc_path path = {
			.peer = &c->peer, .sgid_index = opt.gid,
			.mtu = port.active_mtu,
			.psn = qp_psn(s->hello.seed, q),
			.max_dest_rd_atomic = c->me.max_dest_rd_atomic,
			/* 0.64 ms: a stopped receiver draws many RNR NAKs. */
			.min_rnr_timer = 12,
			.timeout = opt.timeout, .retry_cnt = opt.retry,
			.rnr_retry = 7,
		};

		rd = c->peer.max_dest_rd_atomic;
		if (rd > (uint32_t)dev.max_qp_init_rd_atom)
			rd = dev.max_qp_init_rd_atom;
		path.max_rd_atomic = rd ? rd : 1;
		rc_connect_qp(c->qp, &path);
	}
}

/* Up to @max completions, or a wait of at most @ms for the channel. */
static int poll_or_wait(struct side *s, struct ibv_wc *wc, int max, int ms,
			int extra_fd)
{
	struct pollfd pfd[2] = { { s->ch->fd, POLLIN, 0 }, { extra_fd, POLLIN, 0 } };
	struct ibv_cq *cq;
	void *ctx;
	int n;

	n = ibv_poll_cq(s->cq, max, wc);
	if (n)
		goto out;
	/* Arm, then look again: a completion between the two is not lost. */
	if (ibv_req_notify_cq(s->cq, 0))
		rc_die("ibv_req_notify_cq failed");
	n = ibv_poll_cq(s->cq, max, wc);
	if (n)
		goto out;
	if (poll(pfd, extra_fd >= 0 ? 2 : 1, ms) > 0 && pfd[0].revents) {
		if (!ibv_get_cq_event(s->ch, &cq, &ctx))
			ibv_ack_cq_events(cq, 1);
	}
	n = ibv_poll_cq(s->cq, max, wc);
out:
	if (n < 0)
		rc_die("ibv_poll_cq failed");
	return n;
}

static struct conn *conn_of(struct side *s, uint32_t qpn)
{
	uint32_t q;

	for (q = 0; q < s->hello.qps; q++)
		if (s->c[q].qp->qp_num == qpn)
			return &s->c[q];
	rc_die("a completion for QP %#x, which is not ours", qpn);
}

/* ---- server ---- */

static void post_recv(struct side *s, struct conn *c)
{
	struct ibv_sge sge = { (uintptr_t)s->buf, (uint32_t)s->hello.max_size,
			       s->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	if (ibv_post_recv(c->qp, &wr, &bad))
		rc_die("ibv_post_recv failed");
}

/*
 * One server QP's receives and counter against what the client saw.  On
 * a QP that failed with -L the client saw succeed what a lie
 * acknowledged, which may never have come here, and saw fail what may
 * have been executed here: nothing beyond what the client posted.
 */
static bool server_agrees(const struct conn *c, const struct summary *sum,
			  uint64_t comp, uint64_t err)
{
	uint64_t want = sum->sends_ok + sum->remote_ok;

	if (err)
		return false;
	if (!sum->failed)
		return c->recvs_ok == sum->sends_ok && comp == want;
	return c->recvs_ok <= sum->sends_posted && comp >= c->recvs_ok &&
	       comp <= sum->sends_posted + sum->remote_posted;
}

/* Behave mode: the server's counters against what both ends saw. */
static uint32_t server_check(struct side *s, const struct summary *sum)
{
	uint64_t deadline = now_ns() + 10000 * MS, comp, err;
	struct ibv_wc wc[32];
	uint32_t q, bad = 0;
	int i, n;

	/* The last receives may still be on the CQ: take them, for a while. */
	for (q = 0; q < s->hello.qps; q++) {
		while (!sum[q].failed && s->c[q].recvs_ok < sum[q].sends_ok &&
		       now_ns() < deadline) {
			n = poll_or_wait(s, wc, 32, 10, -1);
			for (i = 0; i < n; i++)
				if (wc[i].status == IBV_WC_SUCCESS)
					conn_of(s, wc[i].qp_num)->recvs_ok++;
		}
	}
	for (q = 0; q < s->hello.qps; q++) {
		struct conn *c = &s->c[q];
		uint64_t want = sum[q].sends_ok + sum[q].remote_ok;

		if (cntr_read(s->ctx, &c->cntr, ENTRY_COMP, &comp) ||
		    cntr_read(s->ctx, &c->cntr, ENTRY_ERR, &err))
			rc_die("cannot read the counter of QP %u", q);
		if (!server_agrees(c, &sum[q], comp, err)) {
			fprintf(stderr, "liveness: server QP %u: %llu receives seen for %llu sends; counter %llu (expected %s%llu), errors %llu (expected 0)\n",
				q, (unsigned long long)c->recvs_ok,
				(unsigned long long)sum[q].sends_ok,
				(unsigned long long)comp,
				sum[q].failed ? "at most " : "",
				(unsigned long long)(sum[q].failed ?
					sum[q].sends_posted + sum[q].remote_posted : want),
				(unsigned long long)err);
			bad++;
		}
	}
	return bad;
}

static int run_server(void)
{
	struct summary sum[MAX_QPS];
	struct verdict v = {};
	struct ibv_wc wc[32];
	struct side s = {};
	uint32_t q, w;
	int i, n;

	s.fd = rc_tcp_accept(opt.port);
	rc_xchg(s.fd, NULL, &s.hello, sizeof(s.hello));
	if (!s.hello.qps || s.hello.qps > MAX_QPS || !s.hello.window ||
	    s.hello.window > MAX_WINDOW || !s.hello.max_size)
		rc_die("a client hello out of range");
	setup_side(&s, false);
	for (q = 0; q < s.hello.qps; q++)
		rc_xchg(s.fd, &s.c[q].me, &s.c[q].peer, sizeof(s.c[q].me));
	connect_all(&s);
	/* A QP takes receives from INIT on; connect_all() went past it. */
	for (q = 0; q < s.hello.qps; q++)
		for (w = 0; w < s.hello.window; w++)
			post_recv(&s, &s.c[q]);
	/* Which client QP each of ours serves: for a forger of NAKs. */
	for (q = 0; q < s.hello.qps; q++)
		printf("liveness: server QP %u: qpn %#x peer %#x\n", q,
		       s.c[q].me.qpn, s.c[q].peer.qpn);
	fflush(stdout);
	/* Receives are up on every QP: the client may send. */
	rc_xchg(s.fd, &v, NULL, sizeof(v));
	for (;;) {
		struct pollfd pfd = { s.fd, POLLIN, 0 };

		n = poll_or_wait(&s, wc, 32, 20, s.fd);
		for (i = 0; i < n; i++) {
			struct conn *c = conn_of(&s, wc[i].qp_num);

			/* In vanish mode receives flush; repost none then. */
			if (wc[i].status != IBV_WC_SUCCESS)
				continue;
			c->recvs_ok++;
			post_recv(&s, c);
		}
		if (poll(&pfd, 1, 0) > 0)
			break;
	}
	if (s.hello.mode == VANISH)
		return 0;	/* the client only closed the connection */
	rc_xchg(s.fd, NULL, sum, sizeof(sum[0]) * s.hello.qps);
	v.bad = server_check(&s, sum);
	rc_xchg(s.fd, &v, NULL, sizeof(v));
	printf("liveness: server: %u QPs, counters %s\n", s.hello.qps,
	       v.bad ? "DIFFER" : "agree");
	return v.bad ? 1 : 0;
}

/* ---- client ---- */

/* The writes, reads and atomics of a per-kind count. */
static uint64_t remote_ops(const uint64_t n[K_NR])
{
	return n[K_WRITE] + n[K_READ] + n[K_FADD] + n[K_CSWP];
}

/* Sizes spread over the powers of two up to the maximum. */
static uint64_t draw_len(struct conn *c)
{
	unsigned int bits = 0;
	uint64_t top;

	while (bits < 63 && (1ull << (bits + 1)) <= opt.max_size)
		bits++;
	top = 1ull << rnd_below(&c->rng, bits + 1);
	if (top > opt.max_size)
		top = opt.max_size;
	return top / 2 + 1 + rnd_below(&c->rng, top - top / 2);
}

/* Each kind's letter for -k, in enum kind's order. */
static const char kind_letters[K_NR + 1] = "swrfcl";

/*
 * Weights: payload-moving requests mostly, a local one in seven; -k
 * leaves out the kinds it does not name (for a reproducer).
 */
static enum kind draw_kind(struct conn *c)
{
	static const uint8_t weights[K_NR] = { 5, 5, 5, 2, 2, 3 };
	unsigned int w[K_NR], sum = 0, r, k;

	for (k = 0; k < K_NR; k++) {
		w[k] = !opt.kinds || strchr(opt.kinds, kind_letters[k]) ?
		       weights[k] : 0;
		sum += w[k];
	}
	r = rnd_below(&c->rng, sum);
	for (k = 0; k < K_NR; k++) {
		if (r < w[k])
			return k;
		r -= w[k];
	}
	return K_SEND;
}

/*
 * A bind names its window by the rkey the window has when it is posted,
 * so the window takes each new rkey as soon as its bind is posted (as
 * rc_xfer.c's post_locals()).
 */
static void fill_local(struct side *s, struct conn *c, struct ibv_send_wr *wr)
{
	if (c->mw_bound) {
		wr->opcode = IBV_WR_LOCAL_INV;
		wr->invalidate_rkey = c->mw->rkey;
		return;
	}
	wr->opcode = IBV_WR_BIND_MW;
	wr->bind_mw.mw = c->mw;
	wr->bind_mw.rkey = ibv_inc_rkey(c->mw->rkey);
	wr->bind_mw.bind_info = (struct ibv_mw_bind_info){
		.mr = s->mr, .addr = (uintptr_t)s->buf, .length = s->len,
		.mw_access_flags = IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_WRITE,
	};
}

/* The payload that may move before a request is done (header comment). */
static uint64_t ahead(uint64_t all, uint64_t own)
{
	uint64_t turns = (uint64_t)opt.qps * own;

	return turns > all ? turns : all;
}

/* One request as drawn from its QP's stream, in the order of the draws. */
struct draw {
	enum kind kind;
	uint64_t len;		/* 0 for a local request, 8 for an atomic */
	uint64_t off, roff;	/* in the local and the remote buffer */
	uint64_t compare_add, swap;
};

/*
 * The next request of @c, for buffers of @buf_len bytes: all that is
 * random about it, so that -D shows what a run posts.
 */
static void draw_req(struct conn *c, uint64_t buf_len, struct draw *d)
{
	*d = (struct draw){ .kind = draw_kind(c), .len = 8 };
	if (d->kind == K_SEND || d->kind == K_WRITE || d->kind == K_READ)
		d->len = draw_len(c);
	/* Atomics on aligned words; everything else anywhere it fits. */
	d->off = rnd_below(&c->rng, buf_len - d->len + 1);
	d->roff = rnd_below(&c->rng, buf_len - d->len + 1);
	if (d->kind == K_FADD || d->kind == K_CSWP) {
		d->off &= ~7ull;
		d->roff = rnd_below(&c->rng, buf_len / 8) * 8;
		d->compare_add = rnd(&c->rng) & 0xff;
		d->swap = rnd(&c->rng);
	}
	if (d->kind == K_LOCAL)
		d->len = 0;
}

static void post_one(struct side *s, struct conn *c)
{
	uint32_t i = c->posted;
	struct req *r;
	uint64_t now = now_ns(), len;
	struct draw d;
	enum kind k;
	struct ibv_sge sge;
	struct ibv_send_wr wr = {
		.wr_id = i, .sg_list = &sge, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (i == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 256;
		if (c->cap > MAX_REQS)
			rc_die("QP %u: more than %u requests",
			       (unsigned int)(c - s->c), MAX_REQS);
		c->reqs = realloc(c->reqs, c->cap * sizeof(*c->reqs));
		if (!c->reqs)
			rc_die("out of memory");
	}
	r = &c->reqs[i];
	draw_req(c, s->len, &d);
	k = d.kind;
	len = d.len;
	sge = (struct ibv_sge){ (uintptr_t)s->buf + d.off, (uint32_t)len,
				s->mr->lkey };
	switch (k) {
	case K_SEND:
		wr.opcode = IBV_WR_SEND;
		break;
	case K_WRITE:
	case K_READ:
		wr.opcode = k == K_WRITE ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = c->peer.addr + d.roff;
		wr.wr.rdma.rkey = c->peer.rkey;
		break;
	case K_FADD:
	case K_CSWP:
		wr.opcode = k == K_FADD ? IBV_WR_ATOMIC_FETCH_AND_ADD :
					  IBV_WR_ATOMIC_CMP_AND_SWP;
		wr.wr.atomic.remote_addr = c->peer.addr + d.roff;
		wr.wr.atomic.rkey = c->peer.rkey;
		wr.wr.atomic.compare_add = d.compare_add;
		wr.wr.atomic.swap = d.swap;
		break;
	default:
		wr.num_sge = 0;
		fill_local(s, c, &wr);
		break;
	}
	if (ibv_post_send(c->qp, &wr, &bad))
		rc_die("ibv_post_send of request %u on QP %u failed: %m", i,
		       (unsigned int)(c - s->c));
	if (k == K_LOCAL) {
		if (!c->mw_bound)
			c->mw->rkey = wr.bind_mw.rkey;
		c->mw_bound = !c->mw_bound;
	}
	s->in_flight += len;
	c->in_flight += len;
	c->posted_kind[k]++;
	*r = (struct req){
		.post_ns = now, .len = len, .kind = k,
		.done_bytes_at_post = s->done_bytes,
		.done_reqs_at_post = s->done_reqs,
		.ahead_all = s->in_flight, .ahead_own = c->in_flight,
		.allow_ns = bound_ns() +
			    opt.ns_per_byte * ahead(s->in_flight, c->in_flight) +
			    (uint64_t)opt.slack_ms * MS,
	};
	c->posted++;
}

static double secs_of(const struct side *s, uint64_t ns)
{
	return (double)(ns - s->start_ns) / 1e9;
}

/*
 * When @r is due: the hostile end may still move earlier (SIGUSR1).  A
 * request that fails, or may yet (@failing), has longer with -L.
 */
static uint64_t deadline(const struct side *s, const struct req *r,
			 bool failing)
{
	return (r->post_ns > s->hostile_ns ? r->post_ns : s->hostile_ns) +
	       r->allow_ns + (failing ? lie_ns() : 0);
}

/*
 * SIGUSR1: the peer behaves from now on.  The guest script sends it the
 * moment its misbehaviour ends, so that a slow guest's late tc run does
 * not end up inside the bound; -H is then only a backstop.
 */
static volatile sig_atomic_t behaves;

static void on_behaves(int sig)
{
	(void)sig;
	behaves = 1;
}

static void take_behaves(struct side *s)
{
	uint64_t now;

	if (!behaves)
		return;
	behaves = 0;
	now = now_ns();
	if (now < s->hostile_ns) {
		s->hostile_ns = now;
		printf("liveness: the peer behaves from %.3f s on\n",
		       (double)(now - s->start_ns) / 1e9);
	}
}

/*
 * The QPs' transport state, the port counters and the threads that had
 * the CPUs over the next 0.3 s, on stderr; @wait false leaves the
 * commands running and goes on at once, so that the completions the run
 * goes on to take are not stamped late by the time they take.  The
 * status is rdma's, as before top was added: top only adds a view.
 */
#define STATE_CMDS "rdma -dd res show qp; rdma statistic show; r=$?; " \
	"top -bH1 -n 2 -d 0.3 -w 200 | awk '/^top -/ { f++ } f == 2' | head -n 24; " \
	"exit $r"

static void show_state(bool wait)
{
	fprintf(stderr, "liveness: the QPs' transport state, the port counters and the busiest threads:\n");
	fflush(stderr);
	if (system(wait ? "(" STATE_CMDS ") >&2" : "(" STATE_CMDS ") >&2 &"))
		fprintf(stderr, "liveness: (rdma failed)\n");
}

/* A late request: say all there is to know, then end the run. */
static void late(struct side *s, struct conn *c, uint32_t i, uint64_t due,
		 uint64_t at)
{
	const struct req *r = &c->reqs[i];

	fprintf(stderr, "liveness: LATE: seed %llu, QP %u (qpn %#x), request %u (%s, %llu bytes), posted at %.3f s, deadline %.3f s: %s %.3f s past it\n",
		(unsigned long long)opt.seed, (unsigned int)(c - s->c),
		c->qp->qp_num, i, kind_names[r->kind],
		(unsigned long long)r->len, secs_of(s, r->post_ns),
		secs_of(s, due), r->done ? "completed" : "still pending",
		(double)(at - due) / 1e9);
	/*
	 * Slow or stuck: what was ahead of it, and what the QPs got done
	 * since.  Its QP takes turns with the others, so its own backlog
	 * can take longer than all of it would in posting order.
	 */
	fprintf(stderr, "liveness: when it was posted, %llu bytes were in flight on its QP, %llu on all\n",
		(unsigned long long)r->ahead_own,
		(unsigned long long)r->ahead_all);
	fprintf(stderr, "liveness: since it was posted, %u requests of %llu bytes completed on all QPs\n",
		s->done_reqs - r->done_reqs_at_post,
		(unsigned long long)(s->done_bytes - r->done_bytes_at_post));
	show_state(true);
	exit(1);
}

/*
 * With -L a pending request is late only past its failing deadline, and
 * one that then succeeds is found late only when it completes, when its
 * QP's state no longer says why it was slow.  So the state is shown
 * once, the first time a pending request passes the deadline it has if
 * it succeeds.
 */
static void show_overdue(struct side *s, const struct conn *c, uint32_t i,
			 uint64_t now)
{
	const struct req *r = &c->reqs[i];

	if (s->shown || now <= deadline(s, r, false))
		return;
	s->shown = true;
	printf("liveness: at %.3f s, QP %u (qpn %#x) request %u (%s, %llu bytes), posted at %.3f s, is still pending past its deadline if it succeeds (%.3f s); %llu bytes were in flight on its QP when it was posted, %llu on all\n",
	       secs_of(s, now), (unsigned int)(c - s->c), c->qp->qp_num, i,
	       kind_names[r->kind], (unsigned long long)r->len,
	       secs_of(s, r->post_ns), secs_of(s, deadline(s, r, false)),
	       (unsigned long long)r->ahead_own,
	       (unsigned long long)r->ahead_all);
	fflush(stdout);
	show_state(false);
}

/*
 * Has @c more to post?  OPS at least, and on until the hostile time is
 * over, so that work is in flight all through it; in vanish mode, on
 * until the QP failed, and then nothing: what follows would be flushed.
 */
static bool has_more(const struct side *s, const struct conn *c)
{
	if (c->first_err != UINT32_MAX)
		return false;
	if (opt.mode == VANISH)
		return true;
	return c->posted < opt.ops || now_ns() < s->hostile_ns;
}

/* May @c post now? */
static bool wants_more(const struct side *s, const struct conn *c)
{
	return c->posted - c->done < opt.window && has_more(s, c);
}

static bool all_done(const struct side *s)
{
	uint32_t q;

	for (q = 0; q < opt.qps; q++) {
		const struct conn *c = &s->c[q];

		if (c->done < c->posted || has_more(s, c))
			return false;
	}
	return true;
}

static void complete(struct side *s, const struct ibv_wc *wc, uint64_t now,
		     uint64_t *headroom)
{
	struct conn *c = conn_of(s, wc->qp_num);
	uint32_t i = c->done;
	struct req *r = &c->reqs[i];
	uint64_t due = deadline(s, r, wc->status != IBV_WC_SUCCESS);

	/* RC completes a send queue in order. */
	if (wc->wr_id != i)
		rc_die("QP %u: request %llu completed, expected %u",
		       (unsigned int)(c - s->c),
		       (unsigned long long)wc->wr_id, i);
	r->done = true;
	r->status = wc->status;
	c->done++;
	s->in_flight -= r->len;
	c->in_flight -= r->len;
	s->done_bytes += r->len;
	s->done_reqs++;
	if (now > due)
		late(s, c, i, due, now);
	if (due - now < *headroom)
		*headroom = due - now;
	if (wc->status == IBV_WC_SUCCESS) {
		c->ok[r->kind]++;
		if (r->kind != K_LOCAL)
			c->counted_ok++;
		return;
	}
	if (r->kind != K_LOCAL)
		c->counted_err++;
	if (c->first_err == UINT32_MAX)
		c->first_err = i;
}

/* Every request's status against the mode's rules; false if broken. */
static bool check_statuses(struct side *s)
{
	bool may_fail = opt.mode == VANISH || opt.lies;
	bool good = true;
	uint32_t q, i;

	for (q = 0; q < opt.qps; q++) {
		struct conn *c = &s->c[q];

		if (opt.lies && opt.mode == BEHAVE &&
		    c->first_err != UINT32_MAX)
			printf("liveness: QP %u failed at request %u: its peer fell behind a lie (-L)\n",
			       q, c->first_err);
		for (i = 0; i < c->posted; i++) {
			enum ibv_wc_status want = IBV_WC_SUCCESS;
			uint8_t got = c->reqs[i].status;

			if (may_fail && i == c->first_err)
				want = IBV_WC_RETRY_EXC_ERR;
			else if (may_fail && i > c->first_err)
				want = IBV_WC_WR_FLUSH_ERR;
			if (got == want)
				continue;
			fprintf(stderr, "liveness: seed %llu, QP %u, request %u (%s, %llu bytes): %s, expected %s\n",
				(unsigned long long)opt.seed, q, i,
				kind_names[c->reqs[i].kind],
				(unsigned long long)c->reqs[i].len,
				ibv_wc_status_str(got), ibv_wc_status_str(want));
			good = false;
			break;
		}
		if (opt.mode == VANISH && c->first_err == UINT32_MAX) {
			fprintf(stderr, "liveness: seed %llu, QP %u: all %u requests succeeded, but the peer was to vanish\n",
				(unsigned long long)opt.seed, q, c->posted);
			good = false;
		}
	}
	return good;
}

/* Each counter against what the CQ showed; false if one differs. */
static bool check_counters(struct side *s)
{
	uint64_t comp, err;
	bool good = true;
	uint32_t q;

	/* The check's own test: one completion too many must be caught. */
	if (opt.skew && cntr_modify(s->ctx, &s->c[0].cntr, ENTRY_COMP, OP_INC, 1))
		rc_die("cannot skew the counter of QP 0");
	for (q = 0; q < opt.qps; q++) {
		struct conn *c = &s->c[q];

		if (cntr_read(s->ctx, &c->cntr, ENTRY_COMP, &comp) ||
		    cntr_read(s->ctx, &c->cntr, ENTRY_ERR, &err))
			rc_die("cannot read the counter of QP %u", q);
		if (comp == c->counted_ok && err == c->counted_err)
			continue;
		fprintf(stderr, "liveness: seed %llu, QP %u: counter %llu/%llu errors, the CQ showed %llu/%llu\n",
			(unsigned long long)opt.seed, q,
			(unsigned long long)comp, (unsigned long long)err,
			(unsigned long long)c->counted_ok,
			(unsigned long long)c->counted_err);
		good = false;
	}
	return good;
}

static int run_client(void)
{
	uint64_t headroom = UINT64_MAX, now, limit;
	struct summary sum[MAX_QPS];
	struct ibv_wc wc[32];
	struct side s = {};
	struct verdict v = {};
	uint32_t q, i, total = 0, failed = 0;
	bool good;
	int n;

	s.hello = (struct hello){
		.seed = opt.seed, .max_size = opt.max_size, .qps = opt.qps,
		.window = opt.window, .mode = opt.mode,
	};
	s.fd = rc_tcp_connect(opt.host, opt.port);
	rc_xchg(s.fd, &s.hello, NULL, sizeof(s.hello));
	setup_side(&s, true);
	for (q = 0; q < opt.qps; q++)
		rc_xchg(s.fd, &s.c[q].me, &s.c[q].peer, sizeof(s.c[q].me));
	connect_all(&s);
	rc_xchg(s.fd, NULL, &v, sizeof(v));
	printf("liveness: seed %llu, %s, %u QPs x %u requests up to %llu bytes, window %u, timeout %u, retry %u, hostile %.1f s, bound %.3f s (failing %.3f s) + %u ns/byte + %u ms\n",
	       (unsigned long long)opt.seed, mode_names[opt.mode], opt.qps,
	       opt.ops, (unsigned long long)opt.max_size, opt.window,
	       opt.timeout, opt.retry, opt.hostile_s, bound_ns() / 1e9,
	       (bound_ns() + lie_ns()) / 1e9, opt.ns_per_byte, opt.slack_ms);
	fflush(stdout);

	s.start_ns = now_ns();
	s.hostile_ns = s.start_ns + (uint64_t)(opt.hostile_s * 1e9);
	limit = s.start_ns + (uint64_t)opt.secs * 1000 * MS;
	while (!all_done(&s)) {
		for (q = 0; q < opt.qps; q++)
			while (wants_more(&s, &s.c[q]))
				post_one(&s, &s.c[q]);
		n = poll_or_wait(&s, wc, 32, 10, -1);
		take_behaves(&s);
		now = now_ns();
		for (i = 0; i < (uint32_t)n; i++)
			complete(&s, &wc[i], now, &headroom);
		/* The oldest pending request of each QP is the first due. */
		for (q = 0; q < opt.qps; q++) {
			struct conn *c = &s.c[q];
			uint32_t j;

			for (j = c->done; j < c->posted; j++) {
				uint64_t due = deadline(&s, &c->reqs[j],
							opt.lies);

				if (now > due)
					late(&s, c, j, due, now);
				if (opt.lies)
					show_overdue(&s, c, j, now);
			}
		}
		if (now > limit)
			rc_die("not done after %d s (-T)", opt.secs);
	}

	good = check_statuses(&s);
	good = check_counters(&s) && good;
	for (q = 0; q < opt.qps; q++) {
		struct conn *c = &s.c[q];

		total += c->posted;
		failed += c->posted - (uint32_t)(c->ok[K_SEND] + c->ok[K_WRITE] +
			c->ok[K_READ] + c->ok[K_FADD] + c->ok[K_CSWP] + c->ok[K_LOCAL]);
		printf("liveness: QP %u: %u requests: %llu sends, %llu writes, %llu reads, %llu atomics, %llu locals succeeded; first failure %d\n",
		       q, c->posted, (unsigned long long)c->ok[K_SEND],
		       (unsigned long long)c->ok[K_WRITE],
		       (unsigned long long)c->ok[K_READ],
		       (unsigned long long)(c->ok[K_FADD] + c->ok[K_CSWP]),
		       (unsigned long long)c->ok[K_LOCAL],
		       c->first_err == UINT32_MAX ? -1 : (int)c->first_err);
		sum[q] = (struct summary){
			.sends_ok = c->ok[K_SEND],
			.remote_ok = remote_ops(c->ok),
			.failed = c->first_err != UINT32_MAX,
			.sends_posted = c->posted_kind[K_SEND],
			.remote_posted = remote_ops(c->posted_kind),
		};
	}
	if (opt.mode == BEHAVE) {
		rc_xchg(s.fd, sum, NULL, sizeof(sum[0]) * opt.qps);
		rc_xchg(s.fd, NULL, &v, sizeof(v));
		if (v.bad) {
			fprintf(stderr, "liveness: seed %llu: the server's counters differ on %u QPs\n",
				(unsigned long long)opt.seed, v.bad);
			good = false;
		}
	}
	printf("liveness: seed %llu: %u requests (%.1f MB) in %.2f s, %u failed; tightest headroom %.3f s; %s\n",
	       (unsigned long long)opt.seed, total, s.done_bytes / 1e6,
	       secs_of(&s, now_ns()), failed,
	       headroom == UINT64_MAX ? 0 : headroom / 1e9,
	       good ? "all within the bound, counters agree" : "FAILED");
	return good ? 0 : 1;
}

/* -D N: the first N requests each QP of the seed draws, one a line. */
static int print_draws(void)
{
	struct conn c = {};
	struct draw d;
	uint32_t q, i;

	for (q = 0; q < opt.qps; q++) {
		c.rng = qp_seed(opt.seed, q);
		for (i = 0; i < opt.draws; i++) {
			draw_req(&c, buf_len(opt.max_size), &d);
			printf("liveness: seed %llu, QP %u, request %u: %s, %llu bytes\n",
			       (unsigned long long)opt.seed, q, i,
			       kind_names[d.kind], (unsigned long long)d.len);
		}
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: liveness -d DEV [-g GID] [-p PORT] [-S SEED] [-q QPS] [-n OPS]\n"
		"                [-s MAXSIZE] [-w WINDOW] [-t TIMEOUT] [-c RETRY] [-H SECS]\n"
		"                [-R RTT_MS] [-B NS] [-F MS] [-N] [-K] [-L] [-k KINDS]\n"
		"                [-m behave|vanish]\n"
		"                [-T SECS] [HOST]\n"
		"       liveness -D N [-S SEED] [-q QPS] [-s MAXSIZE] [-k KINDS]\n");
	exit(2);
}

static void parse(int argc, char **argv)
{
	int ch;

	while ((ch = getopt(argc, argv, "d:g:p:S:q:n:s:w:t:c:H:R:B:F:NKLk:m:T:D:")) != -1) {
		switch (ch) {
		case 'd':
			opt.dev = optarg;
			break;
		case 'g':
			opt.gid = atoi(optarg);
			break;
		case 'p':
			opt.port = atoi(optarg);
			break;
		case 'S':
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		case 'q':
			opt.qps = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			opt.ops = strtoul(optarg, NULL, 0);
			break;
		case 's':
			opt.max_size = strtoull(optarg, NULL, 0);
			break;
		case 'w':
			opt.window = strtoul(optarg, NULL, 0);
			break;
		case 't':
			opt.timeout = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			opt.retry = strtoul(optarg, NULL, 0);
			break;
		case 'H':
			opt.hostile_s = strtod(optarg, NULL);
			break;
		case 'R':
			opt.rtt_ms = strtoul(optarg, NULL, 0);
			break;
		case 'B':
			opt.ns_per_byte = strtoul(optarg, NULL, 0);
			break;
		case 'F':
			opt.slack_ms = strtoul(optarg, NULL, 0);
			break;
		case 'N':
			opt.rnr = true;
			break;
		case 'K':
			opt.skew = true;
			break;
		case 'L':
			opt.lies = true;
			break;
		case 'k':
			opt.kinds = optarg;
			break;
		case 'T':
			opt.secs = atoi(optarg);
			break;
		case 'm':
			if (!strcmp(optarg, "vanish"))
				opt.mode = VANISH;
			else if (strcmp(optarg, "behave"))
				usage();
			break;
		case 'D':
			opt.draws = strtoul(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (optind < argc)
		opt.host = argv[optind++];
	if (opt.kinds && !strpbrk(opt.kinds, kind_letters))
		usage();
	if (opt.draws && !opt.host && optind == argc && opt.qps &&
	    opt.qps <= MAX_QPS && opt.max_size >= 8 &&
	    opt.max_size <= (1ull << 30))
		return;
	if (!opt.dev || optind != argc || !opt.qps || opt.qps > MAX_QPS ||
	    !opt.ops || !opt.window || opt.window > MAX_WINDOW ||
	    opt.max_size < 8 || opt.max_size > (1ull << 30) ||
	    !opt.timeout || opt.timeout > 31 || opt.retry > 7)
		usage();
	/* Retrying forever, a vanished peer would never fail anything. */
	if (opt.mode == VANISH && opt.retry == 7)
		rc_die("vanish needs a finite retry count (-c 0..6)");
}

int main(int argc, char **argv)
{
	rc_prog = "liveness";
	parse(argc, argv);
	/* A peer that vanished closes its socket: no SIGPIPE for that. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGUSR1, on_behaves);
	if (opt.draws)
		return print_draws();
	return opt.host ? run_client() : run_server();
}
