// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * lf_cntr: libfabric's fi_cntr on device completion counters, through the
 * verbs provider of libfabric-patches/.  Uses only libfabric's API.
 *
 * A server and a client run the same table of cases.  Each case is one
 * MSG connection with its own counters bound on each side; each side
 * checks what its own counters read.  The client also runs the cases that
 * need no peer (the counter calls and fi_cntr_wait()).
 *
 *   lf_cntr -s -a ADDR [-p PORT] [-C CASE,...] [-N] [-T LABEL]   server
 *   lf_cntr -a ADDR [-p PORT] [-C CASE,...] [-N] [-T LABEL]      client
 *
 * ADDR is the server's IP address (the client finds its own device by the
 * route to it).  Both sides must be given the same cases (default: all).
 * -N says this side's device has no counters: fi_cntr_open() must then
 * answer -FI_ENOSYS, as the provider did before the series, and the side
 * moves its traffic without counting (reaping CQ entries instead).  The
 * cases that only a counting client can run ("unsignaled", "error",
 * "api") check that and nothing else on such a client.
 *
 * Prints one TAP line per check, "ok - LABEL: CASE: what", and exits 1
 * when any failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fi_rma.h>

#include "lf_common.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define LF_MAX_CNTRS	3
#define LF_BUF_SIZE	(64 * 1024)
/*
 * Where each kind of operation lands in the server's buffer, and comes
 * from or goes to in the client's.
 */
#define LF_WRITE_OFF	0
#define LF_READ_OFF	(16 * 1024)
#define LF_RECV_OFF	(32 * 1024)
#define LF_LOCAL_OFF	(48 * 1024)
/* Each case's traffic: sends, writes and reads, their sizes. */
#define LF_NSEND	15
#define LF_NWRITE	20
#define LF_NREAD	10
#define LF_SEND_LEN	100
#define LF_WRITE_LEN	64
#define LF_READ_LEN	128
/* "unsignaled": many more writes than the send queue holds. */
#define LF_NUNSIG	500
#define LF_TX_SIZE	64
/* How long a counter may take to reach what traffic makes it (ms). */
#define LF_WAIT_MS	20000

enum lf_role { LF_CLIENT, LF_SERVER };

/* One counter to open and bind: its events and fi_ep_bind() flags. */
struct lf_bind {
	enum fi_cntr_events	events;
	uint64_t		flags;
};

/*
 * One connection's endpoint, CQ and counters, and what its side has
 * posted and reaped when it moves traffic without counters.
 */
struct lf_ep {
	struct fid_ep		*ep;
	struct fid_cq		*cq;
	struct fid_cntr		*cntr[LF_MAX_CNTRS];
	uint64_t		remote_addr;
	uint64_t		remote_key;
	uint64_t		posted;
	uint64_t		cqes;
};

struct lf_case {
	const char		*name;
	bool			needs_peer;
	struct lf_bind		client[LF_MAX_CNTRS];
	struct lf_bind		server[LF_MAX_CNTRS];
	int			server_recvs;
	void			(*run_client)(struct lf_ep *e);
	/* The server's checks while connected, and once disconnected. */
	void			(*run_server)(struct lf_ep *e);
	void			(*server_after)(struct lf_ep *e);
	/* Only a client with counters can run the case. */
	bool			needs_counting_client;
};

static const char *label = "lf_cntr";
static const char *cur_case = "setup";
static bool counting = true;
static int failures;

static void tap(bool ok, const char *fmt, ...) __printf(2, 3);
static void tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - %s: %s: ", ok ? "ok" : "not ok", label, cur_case);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		failures++;
}

static void skip(const char *what, const char *why)
{
	printf("ok - %s: %s: %s # SKIP %s\n", label, cur_case, what, why);
	fflush(stdout);
}

/* lf_common.h's failed step: one TAP line. */
static void lf_fail(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tap(false, "%s", msg);
}

static uint64_t now_ms(void)
{
	return lf_now_us() / 1000;
}

static uint64_t thread_cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_utime.tv_sec * 1000000ull + ru.ru_utime.tv_usec +
	       ru.ru_stime.tv_sec * 1000000ull + ru.ru_stime.tv_usec;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The pattern each side's buffer starts with: byte i of side s. */
static uint8_t pattern(enum lf_role side, size_t i)
{
	return (uint8_t)(i * 7 + (side == LF_SERVER ? 0x55 : 0x11));
}

static void fill(enum lf_role side)
{
	size_t i;

	for (i = 0; i < LF_BUF_SIZE; i++)
		buf[i] = pattern(side, i);
}

/* Whether len bytes at buf + off hold side's pattern from src_off on. */
static bool holds(size_t off, enum lf_role side, size_t src_off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[off + i] != pattern(side, src_off + i))
			return false;
	}
	return true;
}

/* Reap what the CQ holds: completions count in e->cqes, errors too. */
static void reap(struct lf_ep *e)
{
	struct fi_cq_err_entry err;
	struct fi_cq_entry ent[16];
	ssize_t n;

	for (;;) {
		n = fi_cq_read(e->cq, ent, 16);
		if (n > 0) {
			e->cqes += n;
			continue;
		}
		if (n == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			fi_cq_readerr(e->cq, &err, 0);
			e->cqes++;
			continue;
		}
		return;
	}
}

/*
 * Without counters, an operation is done when its CQ entry is: wait for
 * every posted one (bounded).
 */
static void drain(struct lf_ep *e)
{
	uint64_t end = now_ms() + LF_WAIT_MS;

	while (e->cqes < e->posted && now_ms() < end) {
		reap(e);
		sleep_ms(1);
	}
	if (e->cqes < e->posted)
		tap(false, "only %" PRIu64 " of %" PRIu64 " completions",
		    e->cqes, e->posted);
}

enum lf_op { LF_SEND, LF_WRITE, LF_READ, LF_WRITE_BADKEY };

/*
 * Post one operation, retrying while the send queue is full.  Counting,
 * it is posted without FI_COMPLETION (the CQ is bound with
 * FI_SELECTIVE_COMPLETION), else with it, to be reaped by drain().
 */

static bool post(struct lf_ep *e, enum lf_op op, size_t i, uint64_t flags)
{
	void *desc = fi_mr_desc(mr);
	struct iovec iov;
	struct fi_rma_iov rma = { .key = e->remote_key };
	struct fi_msg_rma rmsg = {
		.msg_iov = &iov, .desc = &desc, .iov_count = 1,
		.rma_iov = &rma, .rma_iov_count = 1, .context = e,
	};
	struct fi_msg msg = {
		.msg_iov = &iov, .desc = &desc, .iov_count = 1, .context = e,
	};
	uint64_t end = now_ms() + LF_WAIT_MS;
	ssize_t ret;

	if (!counting)
		flags |= FI_COMPLETION;
	switch (op) {
	case LF_SEND:
		iov = (struct iovec){ buf + LF_LOCAL_OFF, LF_SEND_LEN };
		break;
	case LF_WRITE:
	case LF_WRITE_BADKEY:
		iov = (struct iovec){ buf + LF_LOCAL_OFF + i * LF_WRITE_LEN,
				      LF_WRITE_LEN };
		rma.addr = e->remote_addr + LF_WRITE_OFF + i * LF_WRITE_LEN;
		if (op == LF_WRITE_BADKEY)
			rma.key ^= 0x5a5a5a;
		break;
	case LF_READ:
		iov = (struct iovec){ buf + LF_READ_OFF + i * LF_READ_LEN,
				      LF_READ_LEN };
		rma.addr = e->remote_addr + LF_READ_OFF + i * LF_READ_LEN;
		break;
	}
	rma.len = iov.iov_len;
	do {
		if (op == LF_SEND)
			ret = fi_sendmsg(e->ep, &msg, flags);
		else if (op == LF_READ)
			ret = fi_readmsg(e->ep, &rmsg, flags);
		else
			ret = fi_writemsg(e->ep, &rmsg, flags);
		if (ret == -FI_EAGAIN) {
			reap(e);
			sleep_ms(1);
		}
	} while (ret == -FI_EAGAIN && now_ms() < end);
	if (ret) {
		tap(false, "post op %d #%zu: %s", op, i, fi_strerror((int)-ret));
		return false;
	}
	e->posted++;
	return true;
}

static bool post_n(struct lf_ep *e, enum lf_op op, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!post(e, op, i, 0))
			return false;
	}
	return true;
}

/* Poll c's error value until it reaches err (bounded). */
static void wait_err(struct fid_cntr *c, uint64_t err)
{
	uint64_t end = now_ms() + LF_WAIT_MS;

	while (fi_cntr_readerr(c) < err && now_ms() < end)
		sleep_ms(1);
}

/*
 * expect: counter idx of e reaches value (waited for with
 * fi_cntr_wait()), or its error value err, and then reads exactly value
 * and err.  Without counters, the check is a skip.
 */
static void expect(struct lf_ep *e, int idx, uint64_t value, uint64_t err,
		   const char *what)
{
	uint64_t got, got_err;
	int ret = 0;

	if (!counting) {
		skip(what, "no counters on this side");
		return;
	}
	if (value)
		ret = fi_cntr_wait(e->cntr[idx], value, LF_WAIT_MS);
	else
		wait_err(e->cntr[idx], err);
	got = fi_cntr_read(e->cntr[idx]);
	got_err = fi_cntr_readerr(e->cntr[idx]);
	tap(!ret && got == value && got_err == err,
	    "%s: counter %" PRIu64 " errors %" PRIu64 " (want %" PRIu64
	    " and %" PRIu64 ", fi_cntr_wait %d)", what, got, got_err, value,
	    err, ret);
}

/* The cases' traffic, client and server side. */

struct lf_waiter {
	struct fid_cntr		*cntr;
	uint64_t		threshold;
	int			timeout;
	int			ret;
	bool			done;
};

static void *waiter_main(void *arg)
{
	struct lf_waiter *w = arg;

	w->ret = fi_cntr_wait(w->cntr, w->threshold, w->timeout);
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Run a waiter for an error: call poke() every 10 ms until the waiter
 * returns (at most LF_WAIT_MS).  fi_cntr_wait() returns -FI_EAVAIL for
 * a change of the error value while it waits, not for one before it
 * started; poking until it returns makes a change land inside the wait
 * however late the thread starts.  Returns the number of pokes.
 */
static int wait_for_error(struct lf_waiter *w, bool (*poke)(void *arg),
			  void *arg)
{
	uint64_t end = now_ms() + LF_WAIT_MS;
	pthread_t t;
	int n = 0;

	if (pthread_create(&t, NULL, waiter_main, w)) {
		tap(false, "pthread_create");
		return 0;
	}
	while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE) && now_ms() < end) {
		if (!poke(arg))
			break;
		n++;
		sleep_ms(10);
	}
	pthread_join(t, NULL);
	return n;
}

/*
 * rma: writes and reads, each counted by its own counter on both sides;
 * a second thread waits for the writes while this one posts them.
 */
static void rma_client(struct lf_ep *e)
{
	struct lf_waiter w = { e->cntr[0], LF_NWRITE, LF_WAIT_MS, -1, false };
	pthread_t t;
	bool waiting = false;

	if (counting)
		waiting = !pthread_create(&t, NULL, waiter_main, &w);
	if (!post_n(e, LF_WRITE, LF_NWRITE))
		return;
	if (waiting) {
		pthread_join(t, NULL);
		tap(w.ret == 0, "fi_cntr_wait in another thread sees the writes (%d)",
		    w.ret);
	}
	if (!counting)
		drain(e);
	expect(e, 0, LF_NWRITE, 0, "FI_WRITE counts the writes");
	if (!post_n(e, LF_READ, LF_NREAD))
		return;
	if (!counting)
		drain(e);
	expect(e, 1, LF_NREAD, 0, "FI_READ counts the reads");
	tap(holds(LF_READ_OFF, LF_SERVER, LF_READ_OFF, LF_NREAD * LF_READ_LEN),
	    "the reads brought the server's bytes");
	tap(e->cqes == (counting ? 0 : e->posted),
	    "CQ entries: %" PRIu64, e->cqes);
}

static void rma_server(struct lf_ep *e)
{
	expect(e, 0, LF_NWRITE, 0, "FI_REMOTE_WRITE counts the writes");
	if (counting)
		tap(holds(LF_WRITE_OFF, LF_CLIENT, LF_LOCAL_OFF,
			  LF_NWRITE * LF_WRITE_LEN),
		    "the counted writes' bytes are in place");
	expect(e, 1, LF_NREAD, 0, "FI_REMOTE_READ counts the reads");
}

/* msg: sends on the client, receives on the server. */
static void msg_client(struct lf_ep *e)
{
	if (!post_n(e, LF_SEND, LF_NSEND))
		return;
	if (!counting)
		drain(e);
	expect(e, 0, LF_NSEND, 0, "FI_SEND counts the sends");
}

static void msg_server(struct lf_ep *e)
{
	expect(e, 0, LF_NSEND, 0, "FI_RECV counts the receives");
	if (counting)
		tap(holds(LF_RECV_OFF, LF_CLIENT, LF_LOCAL_OFF, LF_SEND_LEN),
		    "a counted receive's bytes are in place");
}

/* bytes: FI_CNTR_EVENTS_BYTES on every op of both sides. */
#define LF_BYTES_TOTAL	(LF_NSEND * LF_SEND_LEN + LF_NWRITE * LF_WRITE_LEN + \
			 LF_NREAD * LF_READ_LEN)

static void bytes_client(struct lf_ep *e)
{
	if (!post_n(e, LF_SEND, LF_NSEND) || !post_n(e, LF_WRITE, LF_NWRITE) ||
	    !post_n(e, LF_READ, LF_NREAD))
		return;
	if (!counting)
		drain(e);
	expect(e, 0, LF_BYTES_TOTAL, 0,
	       "FI_CNTR_EVENTS_BYTES counts sent, written and read bytes");
}

static void bytes_server(struct lf_ep *e)
{
	expect(e, 0, LF_BYTES_TOTAL, 0,
	       "FI_CNTR_EVENTS_BYTES counts received, written and read bytes");
}

/*
 * unsignaled: writes posted without FI_COMPLETION, far more than the send
 * queue holds, are counted and write no CQ entry; then one with
 * FI_COMPLETION writes exactly one.
 */
static void unsignaled_client(struct lf_ep *e)
{
	uint64_t end;
	size_t i;

	for (i = 0; i < LF_NUNSIG; i++) {
		if (!post(e, LF_WRITE, i % LF_NWRITE, 0))
			return;
	}
	expect(e, 0, LF_NUNSIG, 0, "the device counts every unsignaled write");
	reap(e);
	tap(e->cqes == 0, "no CQ entry for %d unsignaled writes (%" PRIu64 ")",
	    LF_NUNSIG, e->cqes);
	if (!post(e, LF_WRITE, 0, FI_COMPLETION))
		return;
	expect(e, 0, LF_NUNSIG + 1, 0, "a signaled write is counted too");
	end = now_ms() + LF_WAIT_MS;
	while (e->cqes < 1 && now_ms() < end) {
		reap(e);
		sleep_ms(1);
	}
	sleep_ms(50);
	reap(e);
	tap(e->cqes == 1, "exactly one CQ entry, the signaled write's (%" PRIu64 ")",
	    e->cqes);
}

static void unsignaled_server(struct lf_ep *e)
{
	expect(e, 0, LF_NUNSIG + 1, 0, "FI_REMOTE_WRITE counts them all");
}

static bool post_badkey(void *arg)
{
	return post(arg, LF_WRITE_BADKEY, 0, 0);
}

/*
 * error: a write with a wrong key counts on the error value only, and
 * ends a wait for the completion value with -FI_EAVAIL.  The first such
 * write moves the QP to the error state; those posted after it are
 * flushed, which rxc counts as errors too (the guide's "What is
 * counted").
 */
static void error_client(struct lf_ep *e)
{
	struct lf_waiter w = { e->cntr[0], 1, LF_WAIT_MS, -1, false };
	int n;

	n = wait_for_error(&w, post_badkey, e);
	tap(w.ret == -FI_EAVAIL, "fi_cntr_wait returns -FI_EAVAIL (%d)",
	    w.ret);
	expect(e, 0, 0, n, "each failed write counts as one error");
}

/*
 * Once the client has disconnected: the server's counter for the
 * failed write has nothing on its completion value.
 */
static void error_server_after(struct lf_ep *e)
{
	uint64_t got;

	if (!counting)
		return;
	got = fi_cntr_read(e->cntr[0]);
	tap(got == 0, "FI_REMOTE_WRITE did not count the refused write (%" PRIu64
	    ", errors %" PRIu64 ")", got, fi_cntr_readerr(e->cntr[0]));
}

#define LF_CNTR(events, flags) { FI_CNTR_EVENTS_ ## events, flags }
static const struct lf_case cases[] = {
	{ .name = "rma", .needs_peer = true,
	  .client = { LF_CNTR(COMP, FI_WRITE), LF_CNTR(COMP, FI_READ) },
	  .server = { LF_CNTR(COMP, FI_REMOTE_WRITE),
		      LF_CNTR(COMP, FI_REMOTE_READ) },
	  .run_client = rma_client, .run_server = rma_server },
	{ .name = "msg", .needs_peer = true,
	  .client = { LF_CNTR(COMP, FI_SEND) },
	  .server = { LF_CNTR(COMP, FI_RECV) },
	  .server_recvs = LF_NSEND,
	  .run_client = msg_client, .run_server = msg_server },
	{ .name = "bytes", .needs_peer = true,
	  .client = { LF_CNTR(BYTES, FI_SEND | FI_WRITE | FI_READ) },
	  .server = { LF_CNTR(BYTES, FI_RECV | FI_REMOTE_WRITE |
			      FI_REMOTE_READ) },
	  .server_recvs = LF_NSEND,
	  .run_client = bytes_client, .run_server = bytes_server },
	{ .name = "unsignaled", .needs_peer = true,
	  .needs_counting_client = true,
	  .client = { LF_CNTR(COMP, FI_WRITE) },
	  .server = { LF_CNTR(COMP, FI_REMOTE_WRITE) },
	  .run_client = unsignaled_client, .run_server = unsignaled_server },
	{ .name = "error", .needs_peer = true,
	  .needs_counting_client = true,
	  .client = { LF_CNTR(COMP, FI_WRITE) },
	  .server = { LF_CNTR(COMP, FI_REMOTE_WRITE) },
	  .run_client = error_client, .server_after = error_server_after },
	{ .name = "api" },
};

/* Connections. */

static bool open_cntrs(struct lf_ep *e, const struct lf_bind *binds)
{
	struct fi_cntr_attr attr = { .wait_obj = FI_WAIT_UNSPEC };
	int i;

	for (i = 0; i < LF_MAX_CNTRS && binds[i].flags; i++) {
		attr.events = binds[i].events;
		if (!fi_ok(fi_cntr_open(domain, &attr, &e->cntr[i], NULL),
			   "fi_cntr_open") ||
		    !fi_ok(fi_ep_bind(e->ep, &e->cntr[i]->fid, binds[i].flags),
			   "fi_ep_bind(cntr)"))
			return false;
	}
	return true;
}

/*
 * An endpoint for fi (a connection request's on the server) with the
 * case's counters bound, enabled.
 */
static bool make_ep(struct lf_ep *e, struct fi_info *fi,
		    const struct lf_bind *binds)
{
	memset(e, 0, sizeof(*e));
	if (!lf_ep_open(fi, FI_WAIT_NONE, &e->ep, &e->cq))
		return false;
	if (counting && !open_cntrs(e, binds))
		return false;
	return fi_ok(fi_enable(e->ep), "fi_enable");
}

static void close_ep(struct lf_ep *e)
{
	int i;

	if (e->ep)
		fi_close(&e->ep->fid);
	for (i = 0; i < LF_MAX_CNTRS; i++) {
		if (e->cntr[i])
			fi_ok(fi_close(&e->cntr[i]->fid), "fi_close(cntr)");
	}
	if (e->cq)
		fi_close(&e->cq->fid);
}

static bool post_recvs(struct lf_ep *e, int n)
{
	void *desc = fi_mr_desc(mr);
	int i;

	for (i = 0; i < n; i++) {
		if (!fi_ok((int)fi_recv(e->ep, buf + LF_RECV_OFF, LF_SEND_LEN,
					desc, 0, e), "fi_recv"))
			return false;
	}
	return true;
}

static void serve(const struct lf_case *c)
{
	struct {
		struct fi_eq_cm_entry	entry;
		uint8_t			data[64];
	} ev;
	struct lf_cm_data cm = { (uintptr_t)buf, fi_mr_key(mr) };
	struct lf_ep e = { 0 };

	memset(&ev, 0, sizeof(ev));
	fill(LF_SERVER);
	if (!eq_wait(FI_CONNREQ, &ev.entry, sizeof(ev)))
		return;
	if (!make_ep(&e, ev.entry.info, c->server) ||
	    !post_recvs(&e, c->server_recvs) ||
	    !fi_ok(fi_accept(e.ep, &cm, sizeof(cm)), "fi_accept") ||
	    !eq_wait(FI_CONNECTED, &ev.entry, sizeof(ev)))
		goto out;
	if (c->run_server)
		c->run_server(&e);
	eq_wait(FI_SHUTDOWN, &ev.entry, sizeof(ev));
	if (c->server_after)
		c->server_after(&e);
out:
	fi_freeinfo(ev.entry.info);
	close_ep(&e);
}

static void connect_and_run(const struct lf_case *c)
{
	struct {
		struct fi_eq_cm_entry	entry;
		struct lf_cm_data	cm;
		uint8_t			pad[64];
	} ev;
	struct lf_ep e;

	fill(LF_CLIENT);
	if (!make_ep(&e, info, c->client) ||
	    !fi_ok(fi_connect(e.ep, info->dest_addr, NULL, 0), "fi_connect") ||
	    !eq_wait(FI_CONNECTED, &ev.entry, sizeof(ev)))
		goto out;
	e.remote_addr = ev.cm.addr;
	e.remote_key = ev.cm.key;
	c->run_client(&e);
	fi_shutdown(e.ep, 0);
out:
	close_ep(&e);
}

/* The counter calls on a counter no QP feeds. */

static void api_values(struct fid_cntr *c)
{
	int ret;

	tap(fi_cntr_read(c) == 0 && fi_cntr_readerr(c) == 0,
	    "a new counter reads 0 and 0");
	ret = fi_cntr_set(c, 5) || fi_cntr_add(c, 3) ||
	      fi_cntr_seterr(c, 2) || fi_cntr_adderr(c, 1);
	tap(!ret && fi_cntr_read(c) == 8 && fi_cntr_readerr(c) == 3,
	    "set 5, add 3, seterr 2, adderr 1: reads 8 and 3");
	tap(fi_cntr_wait(c, 8, 0) == 0, "fi_cntr_wait for a reached threshold returns 0");
	tap(fi_cntr_wait(c, 9, 0) == -FI_ETIMEDOUT,
	    "fi_cntr_wait(timeout 0) for an unreached one: -FI_ETIMEDOUT");
}

/* A 500 ms wait that times out: on time, and sleeping, not spinning. */
static void api_wait_timeout(struct fid_cntr *c)
{
	uint64_t t0 = now_ms(), cpu0 = thread_cpu_us(), ms, cpu_us;
	int ret;

	ret = fi_cntr_wait(c, fi_cntr_read(c) + 1, 500);
	ms = now_ms() - t0;
	cpu_us = thread_cpu_us() - cpu0;
	tap(ret == -FI_ETIMEDOUT && ms >= 500 && ms < 5000,
	    "fi_cntr_wait(timeout 500 ms) returns -FI_ETIMEDOUT after %" PRIu64
	    " ms (%d)", ms, ret);
	tap(cpu_us < ms * 1000 / 2,
	    "and uses %" PRIu64 " us of CPU in it: under half", cpu_us);
}

static bool adderr_one(void *arg)
{
	return !fi_cntr_adderr(arg, 1);
}

/*
 * Another thread waits while this one adds, 1 at a time; then an
 * adderr ends a wait with -FI_EAVAIL.
 */
static void api_wait_threads(struct fid_cntr *c)
{
	struct lf_waiter w = { c, fi_cntr_read(c) + 100, LF_WAIT_MS, -1, false };
	pthread_t t;
	int i, failed = 0;

	if (pthread_create(&t, NULL, waiter_main, &w))
		return tap(false, "pthread_create");
	/* The waiter reads the counter all along: no add may be refused. */
	for (i = 0; i < 100; i++) {
		if (fi_cntr_add(c, 1))
			failed++;
		if (i % 10 == 0)
			sleep_ms(5);
	}
	pthread_join(t, NULL);
	tap(!failed, "100 fi_cntr_add beside a waiting thread: %d refused", failed);
	tap(w.ret == 0 && fi_cntr_read(c) == w.threshold,
	    "a waiting thread wakes when another's fi_cntr_add reaches its threshold (%d)",
	    w.ret);

	w.threshold = fi_cntr_read(c) + 1000;
	w.done = false;
	wait_for_error(&w, adderr_one, c);
	tap(w.ret == -FI_EAVAIL, "another thread's fi_cntr_adderr ends a wait with -FI_EAVAIL (%d)",
	    w.ret);
}

/*
 * Wait objects: none (no fi_cntr_wait), and a file descriptor, which a
 * device counter has none of.
 */
static void api_wait_objs(void)
{
	struct fi_cntr_attr attr = { .events = FI_CNTR_EVENTS_COMP };
	struct fid_cntr *c;
	int ret;

	attr.wait_obj = FI_WAIT_NONE;
	if (fi_ok(fi_cntr_open(domain, &attr, &c, NULL), "fi_cntr_open(FI_WAIT_NONE)")) {
		ret = fi_cntr_wait(c, 1, 0);
		tap(ret == -FI_ENOSYS, "FI_WAIT_NONE: fi_cntr_wait returns -FI_ENOSYS (%d)", ret);
		fi_close(&c->fid);
	}
	attr.wait_obj = FI_WAIT_FD;
	ret = fi_cntr_open(domain, &attr, &c, NULL);
	tap(ret == -FI_ENOSYS, "FI_WAIT_FD: fi_cntr_open returns -FI_ENOSYS (%d)", ret);
	if (!ret)
		fi_close(&c->fid);
}

static void run_api(void)
{
	struct fi_cntr_attr attr = { .events = FI_CNTR_EVENTS_COMP,
				     .wait_obj = FI_WAIT_UNSPEC };
	struct fid_cntr *c;

	tap(info->domain_attr->cntr_cnt > 0, "fi_info's cntr_cnt: %zu",
	    info->domain_attr->cntr_cnt);
	tap(info->caps & FI_RMA_EVENT, "fi_info's caps have FI_RMA_EVENT");
	if (!fi_ok(fi_cntr_open(domain, &attr, &c, NULL), "fi_cntr_open"))
		return;
	api_values(c);
	api_wait_timeout(c);
	api_wait_threads(c);
	fi_ok(fi_close(&c->fid), "fi_close(cntr)");
	api_wait_objs();
}

/* -N: what a device without counters does, as before the series. */
static void check_no_cntrs(void)
{
	struct fi_cntr_attr attr = { .events = FI_CNTR_EVENTS_COMP };
	struct fid_cntr *c;
	int ret;

	cur_case = "no counters";
	ret = fi_cntr_open(domain, &attr, &c, NULL);
	tap(ret == -FI_ENOSYS, "fi_cntr_open returns -FI_ENOSYS (%d)", ret);
	if (!ret)
		fi_close(&c->fid);
	tap(info->domain_attr->cntr_cnt == 0, "fi_info's cntr_cnt is 0 (%zu)",
	    info->domain_attr->cntr_cnt);
}

/* Setup. */

static bool setup(const char *addr, const char *port, enum lf_role role)
{
	bool server = role == LF_SERVER;

	/* FI_RMA_EVENT where the device counts the peer's RMA. */
	info = lf_get_info(FI_EP_MSG, addr, port, server,
			   FI_MSG | FI_RMA | FI_RMA_EVENT, LF_TX_SIZE,
			   FI_THREAD_SAFE);
	if (!info)
		info = lf_get_info(FI_EP_MSG, addr, port, server,
				   FI_MSG | FI_RMA, LF_TX_SIZE, FI_THREAD_SAFE);
	if (!info)
		return false;
	printf("# %s: %s on %s, tx op_flags %#" PRIx64 ", cntr_cnt %zu\n", label,
	       info->fabric_attr->prov_name, info->domain_attr->name,
	       info->tx_attr->op_flags, info->domain_attr->cntr_cnt);
	return lf_open(LF_BUF_SIZE, server);
}

static bool selected(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	if (!list)
		return true;
	for (p = list; (p = strstr(p, name)); p += n) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
	}
	return false;
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-s] -a SERVER_ADDR [-p PORT] [-C CASE,...] [-N] [-T LABEL]\n"
		"cases:", prog);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		fprintf(stderr, " %s", cases[i].name);
	fprintf(stderr, "\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = "19100", *only = NULL;
	enum lf_role role = LF_CLIENT;
	const struct lf_case *c;
	uint64_t t0 = 0;
	int opt;

	while ((opt = getopt(argc, argv, "sa:p:C:NT:")) != -1) {
		switch (opt) {
		case 's':
			role = LF_SERVER;
			break;
		case 'a':
			addr = optarg;
			break;
		case 'p':
			port = optarg;
			break;
		case 'C':
			only = optarg;
			break;
		case 'N':
			counting = false;
			break;
		case 'T':
			label = optarg;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (!addr)
		usage(argv[0]);
	if (!setup(addr, port, role))
		return 1;
	if (!counting)
		check_no_cntrs();
	for (c = cases; c < cases + ARRAY_SIZE(cases); c++) {
		if (!selected(only, c->name))
			continue;
		if (t0)
			printf("# %s: %s took %" PRIu64 " ms\n", label, cur_case,
			       now_ms() - t0);
		t0 = now_ms();
		cur_case = c->name;
		if (!c->needs_peer) {
			if (role != LF_CLIENT)
				continue;
			if (counting)
				run_api();
			else
				skip("the counter calls", "no counters on this side");
		} else if (role == LF_SERVER) {
			serve(c);
		} else if (!counting && c->needs_counting_client) {
			skip("the case", "it needs a counting client");
		} else {
			connect_and_run(c);
		}
	}
	if (t0)
		printf("# %s: %s took %" PRIu64 " ms\n", label, cur_case,
		       now_ms() - t0);
	lf_close();
	printf("# %s: %d failed\n", label, failures);
	return failures ? 1 : 0;
}
