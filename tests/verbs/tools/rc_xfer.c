// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rc_xfer: an RC transfer in which every byte is verified.
 *
 *   rc_xfer -d DEV [-g GID] [-p PORT] [-s SIZE] [-n COUNT] [-w WINDOW]
 *           [-o send|write|read|atomic] [-m MTU] [-t TIMEOUT] [-r]
 *           [-L LOCALS] [-T SECS]                              server
 *   rc_xfer ... HOST                                          client
 *
 * The client issues COUNT operations, keeping up to WINDOW in flight:
 *
 *   send    SENDs into receives that the server reposts only once it has
 *           checked the message;
 *   write   RDMA WRITEs with immediate (the immediate carries the message
 *           number), each into its own area of the server's buffer, so
 *           that no write can overwrite data not yet checked;
 *   read    RDMA READs of message i from the i-th area of the server's
 *           buffer, which the server filled beforehand;
 *   atomic  8-byte atomics on one word of the server's, alternately
 *           FETCH_AND_ADD and COMPARE_AND_SWAP, starting close enough to
 *           2^64 that the sum wraps.
 *
 * Message i holds a pseudo-random pattern derived from i, so a lost,
 * duplicated, reordered or corrupted packet that the transport let
 * through shows up as a mismatch at a known offset.  For atomics, RC
 * executes them in order, so the value each one returns is known in
 * advance, and so is the word's final value.  The side that sees the
 * data checks it (the server for send and write, the client for read and
 * atomic, the server again for the final atomic value) and the verdict
 * goes over TCP to the other side; both exit 0 only if all COUNT
 * operations were intact.
 *
 * -m sets the path MTU in bytes (256 to 4096); without it the QP takes
 * the port's active MTU.  -t sets the QP's local ACK timeout, 4.096 us
 * times 2^TIMEOUT (1 to 31, default 14: 67 ms): on a very lossy link
 * most of the time goes into waiting for it.
 *
 * -r makes the client's first operation, before the transfer, a 1-byte
 * RDMA READ of the server's buffer: its lone response (PSN 0x1000) is
 * the QP's first timed round trip, which a test can hold back to see
 * what a late answer does to the transfer behind it (t-netem.sh).
 *
 * -L posts LOCALS local work requests behind each of the client's
 * operations, in the same chain: a bind of a type 2 memory window, then
 * its invalidation, and so on.  They execute as the requester reaches
 * them, but complete in order behind the operation, all at once when its
 * answer comes (t-netem.sh holds that answer back).  Every one must
 * complete, successfully, in its place.
 *
 * ibv_rc_pingpong -c only checks one byte per page, which is why the
 * guest tests use this for lossy links and interoperability
 * (tests/guest/t-netem.sh, t-interop.sh).
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "../fixture.h"
#include "rc_conn.h"

#define XFER_PSN	0x1000
/* Outstanding reads and atomics asked for at most, before device caps. */
#define XFER_RD_ATOMIC	16
/* The atomic word's start: 4096 below 2^64, so that the sum wraps. */
#define ATOMIC_SEED	0xfffffffffffff000ull

enum xfer_op { OP_SEND, OP_WRITE, OP_READ, OP_ATOMIC };

static const char *const op_names[] = {
	[OP_SEND] = "send", [OP_WRITE] = "write",
	[OP_READ] = "read", [OP_ATOMIC] = "atomic",
};

static const char *const op_desc[] = {
	[OP_SEND] = "SEND",
	[OP_WRITE] = "RDMA WRITE with immediate",
	[OP_READ] = "RDMA READ",
	[OP_ATOMIC] = "FETCH_AND_ADD/COMPARE_AND_SWAP",
};

/* The verdict, sent over TCP after the transfer. */
struct xfer_result {
	uint32_t received;	/* operations whose result was checked */
	uint32_t bad;		/* operations that failed a check */
};

static struct {
	const char *dev;
	const char *host;
	int gid;
	int port;
	uint32_t size;
	uint32_t count;
	uint32_t window;
	enum xfer_op op;
	enum ibv_mtu mtu;	/* 0: the port's active MTU */
	uint8_t timeout;	/* local ACK timeout exponent */
	bool read_first;	/* -r: one 1-byte READ before the transfer */
	uint32_t locals;	/* -L: local WRs behind each operation */
	int secs;
} opt = {
	.gid = 1, .port = 18700, .size = 65536, .count = 16, .window = 16,
	.op = OP_SEND, .timeout = 14, .secs = 600,
};

/* One side's resources. */
struct xfer {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	struct ibv_mw *mw;		/* -L: the type 2 window */
	bool mw_bound;
	uint8_t *buf;
	size_t len;
	int fd;
	struct rc_info me;
	struct rc_info peer;
	struct xfer_result res;
};

static struct timespec start;

static double elapsed(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start.tv_sec) +
	       (now.tv_nsec - start.tv_nsec) / 1e9;
}

static void check_deadline(void)
{
	if (elapsed() > opt.secs)
		rc_die("not done after %d s", opt.secs);
}

/* Message @msg's pattern, byte by byte: xorshift64 seeded by @msg. */
struct pattern {
	uint64_t x;
};

static struct pattern pattern_of(uint32_t msg)
{
	return (struct pattern){ 0x9e3779b97f4a7c15ull * (msg + 1) };
}

static uint8_t pattern_next(struct pattern *p)
{
	p->x ^= p->x << 13;
	p->x ^= p->x >> 7;
	p->x ^= p->x << 17;
	return (uint8_t)p->x;
}

static void fill(uint8_t *p, uint32_t len, uint32_t msg)
{
	struct pattern pat = pattern_of(msg);
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = pattern_next(&pat);
}

/* Offset of the first byte that differs from message @msg's pattern, or -1. */
static long verify(const uint8_t *p, uint32_t len, uint32_t msg)
{
	struct pattern pat = pattern_of(msg);
	uint32_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pattern_next(&pat))
			return i;
	return -1;
}

/* The value atomic @i returns: the seed plus 1 + 2 + ... + i, mod 2^64. */
static uint64_t atomic_before(uint32_t i)
{
	return ATOMIC_SEED + (uint64_t)i * (i + 1) / 2;
}

static struct ibv_context *open_dev(void)
{
	struct ibv_context *ctx = open_device_by_name(opt.dev);

	if (!ctx)
		rc_die("cannot open device %s", opt.dev);
	return ctx;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static void connect_qp(struct xfer *x, const struct ibv_port_attr *port,
		       const struct ibv_device_attr *dev)
{
	struct rc_path path = {
		.peer = &x->peer,
		.sgid_index = opt.gid,
		.mtu = opt.mtu ? opt.mtu : port->active_mtu,
		.psn = XFER_PSN,
		.max_dest_rd_atomic = x->me.max_dest_rd_atomic,
		.min_rnr_timer = 12,
		.timeout = opt.timeout,
		.retry_cnt = 7,
		.rnr_retry = 7,	/* infinite: the receiver reposts as it goes */
		/* No more reads in flight than the peer said it can take. */
		.max_rd_atomic = min_u32(min_u32(opt.window, XFER_RD_ATOMIC),
					 min_u32(x->peer.max_dest_rd_atomic,
						 dev->max_qp_init_rd_atom)),
	};

	if (!path.max_rd_atomic)
		path.max_rd_atomic = 1;
	rc_connect_qp(x->qp, &path);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: rc_xfer -d DEV [-g GID] [-p PORT] [-s SIZE] [-n COUNT]\n"
		"               [-w WINDOW] [-o send|write|read|atomic] [-m MTU]\n"
		"               [-t TIMEOUT] [-r] [-L LOCALS] [-T SECS] [HOST]\n");
	exit(2);
}

static void parse_op(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++) {
		if (!strcmp(name, op_names[i])) {
			opt.op = i;
			return;
		}
	}
	usage();
}

static void parse_mtu(const char *bytes)
{
	enum ibv_mtu m;

	for (m = IBV_MTU_256; m <= IBV_MTU_4096; m++) {
		if (strtoul(bytes, NULL, 0) == 128UL << m) {
			opt.mtu = m;
			return;
		}
	}
	usage();
}

static void parse(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "d:g:p:s:n:w:o:m:t:T:rL:")) != -1) {
		switch (c) {
		case 'd':
			opt.dev = optarg;
			break;
		case 'g':
			opt.gid = atoi(optarg);
			break;
		case 'p':
			opt.port = atoi(optarg);
			break;
		case 's':
			opt.size = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			opt.count = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			opt.window = strtoul(optarg, NULL, 0);
			break;
		case 't':
			opt.timeout = strtoul(optarg, NULL, 0);
			break;
		case 'T':
			opt.secs = atoi(optarg);
			break;
		case 'r':
			opt.read_first = true;
			break;
		case 'L':
			opt.locals = strtoul(optarg, NULL, 0);
			break;
		case 'o':
			parse_op(optarg);
			break;
		case 'm':
			parse_mtu(optarg);
			break;
		default:
			usage();
		}
	}
	if (optind < argc)
		opt.host = argv[optind++];
	/* An atomic always moves one 8-byte word. */
	if (opt.op == OP_ATOMIC)
		opt.size = sizeof(uint64_t);
	if (!opt.dev || optind != argc || !opt.size || !opt.count ||
	    !opt.window || opt.window > 128 || !opt.timeout ||
	    opt.timeout > 31 || opt.locals > 65536)
		usage();
}

/*
 * The server of a write or a read holds every message in its own area;
 * everyone else needs one slot per operation in flight.
 */
static size_t buf_len(void)
{
	bool areas = !opt.host && (opt.op == OP_WRITE || opt.op == OP_READ);

	return (size_t)opt.size * (areas ? opt.count : opt.window);
}

/* -L: the window the local requests bind and invalidate. */
static void setup_locals(struct xfer *x)
{
	x->mw = ibv_alloc_mw(x->pd, IBV_MW_TYPE_2);
	if (!x->mw)
		rc_die("ibv_alloc_mw: %m");
}

static void setup(struct xfer *x)
{
	/* With -L, the locals of one more operation may still be queued. */
	uint32_t sq = opt.locals ? (opt.window + 1) * (opt.locals + 1) :
				   opt.window;
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = sq, .max_recv_wr = opt.window,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_device_attr dev;
	struct ibv_port_attr port;

	x->ctx = open_dev();
	if (ibv_query_device(x->ctx, &dev))
		rc_die("ibv_query_device failed");
	if (ibv_query_port(x->ctx, 1, &port))
		rc_die("ibv_query_port failed");
	if (ibv_query_gid(x->ctx, 1, opt.gid, &x->me.gid))
		rc_die("no GID at index %d", opt.gid);
	x->pd = ibv_alloc_pd(x->ctx);
	x->cq = ibv_create_cq(x->ctx, 2 * sq, NULL, NULL, 0);
	x->len = buf_len();
	if (x->len > (256ul << 20))
		rc_die("%zu bytes of buffer is too much", x->len);
	x->buf = aligned_alloc(4096, (x->len + 4095) & ~4095ul);
	if (!x->pd || !x->cq || !x->buf)
		rc_die("cannot allocate resources");
	memset(x->buf, 0, x->len);
	x->mr = ibv_reg_mr(x->pd, x->buf, x->len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC |
			   (opt.locals ? IBV_ACCESS_MW_BIND : 0));
	if (!x->mr)
		rc_die("ibv_reg_mr: %m");
	if (opt.locals && opt.host)
		setup_locals(x);
	qa.send_cq = x->cq;
	qa.recv_cq = x->cq;
	x->qp = ibv_create_qp(x->pd, &qa);
	if (!x->qp)
		rc_die("ibv_create_qp: %m");
	x->me.qpn = x->qp->qp_num;
	x->me.rkey = x->mr->rkey;
	x->me.addr = (uintptr_t)x->buf;
	x->me.max_dest_rd_atomic = min_u32(XFER_RD_ATOMIC, dev.max_qp_rd_atom);

	x->fd = opt.host ? rc_tcp_connect(opt.host, opt.port) :
			   rc_tcp_accept(opt.port);
	rc_xchg(x->fd, &x->me, &x->peer, sizeof(x->me));
	connect_qp(x, &port, &dev);
}

static void teardown(struct xfer *x)
{
	if (x->mw)
		ibv_dealloc_mw(x->mw);
	ibv_destroy_qp(x->qp);
	ibv_dereg_mr(x->mr);
	ibv_destroy_cq(x->cq);
	ibv_dealloc_pd(x->pd);
	ibv_close_device(x->ctx);
	free(x->buf);
	close(x->fd);
}

/* Up to @max completions into @wc, within the deadline. */
static int poll_some_n(struct xfer *x, struct ibv_wc *wc, int max)
{
	int n;

	check_deadline();
	n = ibv_poll_cq(x->cq, max, wc);
	if (n < 0)
		rc_die("ibv_poll_cq failed");
	return n;
}

static int poll_some(struct xfer *x, struct ibv_wc *wc)
{
	return poll_some_n(x, wc, 16);
}

static uint8_t *slot_addr(struct xfer *x, uint32_t slot)
{
	return x->buf + (size_t)slot * opt.size;
}

static void post_recv_slot(struct xfer *x, uint32_t slot)
{
	struct ibv_sge sge = { (uintptr_t)slot_addr(x, slot), opt.size,
			       x->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	if (ibv_post_recv(x->qp, &wr, &bad))
		rc_die("ibv_post_recv failed");
}

static void bad(struct xfer *x, uint32_t msg, const char *what)
{
	fprintf(stderr, "operation %u: %s\n", msg, what);
	x->res.bad++;
}

/* The server of send and write: checks message @msg as it arrived. */
static void check_received(struct xfer *x, const struct ibv_wc *wc,
			   uint32_t msg)
{
	uint32_t slot = wc->wr_id;
	uint8_t *p = opt.op == OP_WRITE ? slot_addr(x, msg) :
					  slot_addr(x, slot);
	long off;

	if (wc->status != IBV_WC_SUCCESS)
		rc_die("message %u: %s", msg, ibv_wc_status_str(wc->status));
	if (slot != msg % opt.window)
		bad(x, msg, "arrived in the wrong receive");
	if (wc->byte_len != opt.size)
		bad(x, msg, "wrong length");
	if (opt.op == OP_WRITE &&
	    (!(wc->wc_flags & IBV_WC_WITH_IMM) || ntohl(wc->imm_data) != msg))
		bad(x, msg, "wrong immediate");
	off = verify(p, opt.size, msg);
	if (off >= 0) {
		fprintf(stderr, "message %u: data differs at offset %ld\n",
			msg, off);
		x->res.bad++;
	}
	x->res.received++;
	memset(p, 0, opt.size);
}

/* Server of send and write: one receive per slot, reposted once checked. */
static void run_receiver(struct xfer *x)
{
	uint32_t posted = 0, expect = 0, done;
	struct ibv_wc wc[16];
	int n, i;

	for (; posted < opt.window && posted < opt.count; posted++)
		post_recv_slot(x, posted);
	/* Both sides are ready to receive: let the sender go. */
	rc_xchg(x->fd, &x->me, NULL, sizeof(x->me));
	while (expect < opt.count) {
		n = poll_some(x, wc);
		for (i = 0; i < n; i++) {
			check_received(x, &wc[i], expect++);
			if (posted < opt.count) {
				post_recv_slot(x, wc[i].wr_id);
				posted++;
			}
		}
	}
	rc_xchg(x->fd, &x->res, NULL, sizeof(x->res));
	/*
	 * Keep the QP until the sender has every ACK: when the last one is
	 * lost, the sender asks again, and a QP that is gone never answers.
	 */
	rc_xchg(x->fd, NULL, &done, sizeof(done));
}

/* Server of read and atomic: serves the data, checks the atomic word. */
static void run_target(struct xfer *x)
{
	uint64_t *word = (uint64_t *)x->buf;
	uint32_t i;

	if (opt.op == OP_READ)
		for (i = 0; i < opt.count; i++)
			fill(slot_addr(x, i), opt.size, i);
	else
		*word = ATOMIC_SEED;
	rc_xchg(x->fd, &x->me, NULL, sizeof(x->me));
	rc_xchg(x->fd, NULL, &x->res, sizeof(x->res));
	if (opt.op == OP_ATOMIC && *word != atomic_before(opt.count)) {
		fprintf(stderr, "atomic word ends at %#llx, expected %#llx\n",
			(unsigned long long)*word,
			(unsigned long long)atomic_before(opt.count));
		x->res.bad++;
	}
	rc_xchg(x->fd, &x->res, NULL, sizeof(x->res));
}

/* RDMA WRITEs and READs of message @msg use its own area at the server. */
static void rdma_target(struct ibv_send_wr *wr, const struct xfer *x,
			uint32_t msg)
{
	wr->wr.rdma.rkey = x->peer.rkey;
	wr->wr.rdma.remote_addr = x->peer.addr + (uint64_t)msg * opt.size;
}

/* Local request @i behind operation @msg: a tag no operation's id has. */
#define LOCAL_TAG	(1ull << 63)

static uint64_t local_id(uint32_t msg, uint32_t i)
{
	return LOCAL_TAG | (uint64_t)msg << 20 | i;
}

/*
 * -L: operation @msg's local requests, one post each.  A bind names its
 * window by the rkey the window has when it is posted, so the window
 * takes each new rkey as soon as its bind is posted.
 */
static void post_locals(struct xfer *x, uint32_t msg)
{
	struct ibv_send_wr wr, *bad;
	uint32_t i, rkey = 0;

	for (i = 0; i < opt.locals; i++) {
		wr = (struct ibv_send_wr){
			.wr_id = local_id(msg, i),
			.send_flags = IBV_SEND_SIGNALED,
		};
		if (x->mw_bound) {
			wr.opcode = IBV_WR_LOCAL_INV;
			wr.invalidate_rkey = x->mw->rkey;
		} else {
			rkey = ibv_inc_rkey(x->mw->rkey);
			wr.opcode = IBV_WR_BIND_MW;
			wr.bind_mw.mw = x->mw;
			wr.bind_mw.rkey = rkey;
			wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
				.mr = x->mr, .addr = (uintptr_t)x->buf,
				.length = x->len,
				.mw_access_flags = IBV_ACCESS_REMOTE_READ |
						   IBV_ACCESS_REMOTE_WRITE,
			};
		}
		if (ibv_post_send(x->qp, &wr, &bad))
			rc_die("ibv_post_send of a local request failed");
		if (!x->mw_bound)
			x->mw->rkey = rkey;
		x->mw_bound = !x->mw_bound;
	}
}

/* Operation @msg's work request, its local buffer in @slot. */
static void post_op(struct xfer *x, uint32_t msg, uint32_t slot)
{
	uint8_t *p = slot_addr(x, slot);
	struct ibv_sge sge = { (uintptr_t)p, opt.size, x->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = msg, .sg_list = &sge, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	uint64_t before = atomic_before(msg);

	switch (opt.op) {
	case OP_SEND:
		fill(p, opt.size, msg);
		wr.opcode = IBV_WR_SEND;
		break;
	case OP_WRITE:
		fill(p, opt.size, msg);
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htonl(msg);
		rdma_target(&wr, x, msg);
		break;
	case OP_READ:
		memset(p, 0, opt.size);
		wr.opcode = IBV_WR_RDMA_READ;
		rdma_target(&wr, x, msg);
		break;
	case OP_ATOMIC:
		memset(p, 0, opt.size);
		wr.wr.atomic.rkey = x->peer.rkey;
		wr.wr.atomic.remote_addr = x->peer.addr;
		/* Every other one a swap that must succeed: same sum. */
		if (msg & 1) {
			wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
			wr.wr.atomic.compare_add = before;
			wr.wr.atomic.swap = before + msg + 1;
		} else {
			wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
			wr.wr.atomic.compare_add = msg + 1;
		}
		break;
	}
	if (ibv_post_send(x->qp, &wr, &bad))
		rc_die("ibv_post_send failed");
	if (opt.locals)
		post_locals(x, msg);
}

/* The client of read and atomic: checks what operation @msg fetched. */
static void check_fetched(struct xfer *x, uint32_t msg, uint32_t slot)
{
	const uint8_t *p = slot_addr(x, slot);
	uint64_t got;
	long off;

	if (opt.op == OP_READ) {
		off = verify(p, opt.size, msg);
		if (off >= 0) {
			fprintf(stderr, "read %u: data differs at offset %ld\n",
				msg, off);
			x->res.bad++;
		}
	} else {
		memcpy(&got, p, sizeof(got));
		if (got != atomic_before(msg)) {
			fprintf(stderr, "atomic %u returned %#llx, expected %#llx\n",
				msg, (unsigned long long)got,
				(unsigned long long)atomic_before(msg));
			x->res.bad++;
		}
	}
	x->res.received++;
}

/*
 * -r: one 1-byte RDMA READ of the server's buffer into slot 0, which the
 * transfer fills again before it uses it; waits for it and says how long
 * it took.
 */
static void read_first(struct xfer *x)
{
	struct ibv_sge sge = { (uintptr_t)x->buf, 1, x->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = UINT64_MAX, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	double t0 = elapsed();
	struct ibv_wc wc;

	wr.wr.rdma.rkey = x->peer.rkey;
	wr.wr.rdma.remote_addr = x->peer.addr;
	if (ibv_post_send(x->qp, &wr, &bad))
		rc_die("ibv_post_send failed");
	while (!poll_some_n(x, &wc, 1))
		;
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != UINT64_MAX)
		rc_die("the first read: %s", ibv_wc_status_str(wc.status));
	printf("rc_xfer: the first read took %.3f s\n", elapsed() - t0);
}

/* Client: fill a slot, post it, check and reuse it once it completed. */
static void run_initiator(struct xfer *x)
{
	bool fetches = opt.op == OP_READ || opt.op == OP_ATOMIC;
	/* @locals: the local requests of operation @done - 1 completed. */
	uint32_t posted = 0, done = 0, locals = 0;
	struct ibv_wc wc[16];
	int n, i;

	rc_xchg(x->fd, NULL, &x->peer, sizeof(x->peer));
	if (opt.read_first)
		read_first(x);
	while (done < opt.count || (done && locals < opt.locals)) {
		for (; posted < opt.count && posted - done < opt.window; posted++)
			post_op(x, posted, posted % opt.window);
		n = poll_some(x, wc);
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				rc_die("request %#llx: %s",
				       (unsigned long long)wc[i].wr_id,
				       ibv_wc_status_str(wc[i].status));
			if (done && locals < opt.locals) {
				if (wc[i].wr_id != local_id(done - 1, locals))
					rc_die("request %#llx completed, expected local request %u of operation %u",
					       (unsigned long long)wc[i].wr_id,
					       locals, done - 1);
				locals++;
				continue;
			}
			if (wc[i].wr_id != done)
				rc_die("operation %llu completed, expected %u",
				       (unsigned long long)wc[i].wr_id, done);
			if (fetches)
				check_fetched(x, done, done % opt.window);
			done++;
			locals = 0;
		}
	}
	if (fetches)
		rc_xchg(x->fd, &x->res, NULL, sizeof(x->res));
	rc_xchg(x->fd, NULL, &x->res, sizeof(x->res));
	if (!fetches)	/* every ACK is in: the receiver may go */
		rc_xchg(x->fd, &done, NULL, sizeof(done));
}

int main(int argc, char **argv)
{
	struct xfer x = {};

	rc_prog = "rc_xfer";
	parse(argc, argv);
	clock_gettime(CLOCK_MONOTONIC, &start);
	setup(&x);

	if (opt.host)
		run_initiator(&x);
	else if (opt.op == OP_SEND || opt.op == OP_WRITE)
		run_receiver(&x);
	else
		run_target(&x);

	printf("rc_xfer: %s %u operations of %u bytes (%llu bytes) by %s in %.2f s: %u checked, %u bad\n",
	       opt.host ? "client" : "server", opt.count, opt.size,
	       (unsigned long long)opt.count * opt.size, op_desc[opt.op],
	       elapsed(), x.res.received, x.res.bad);
	teardown(&x);
	if (x.res.received != opt.count || x.res.bad)
		return 1;
	printf("rc_xfer: all data verified\n");
	return 0;
}
