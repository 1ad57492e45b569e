// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * lf_cntr_bench: what a device counter saves a libfabric application,
 * and what ofi_rxm's software counter costs.  The client writes windows
 * of RDMA writes to the server and waits for each window to complete
 * before the next, in one of four modes:
 *
 *   cntr      over a verbs MSG endpoint: the writes posted without
 *             FI_COMPLETION (the CQ is bound with FI_SELECTIVE_COMPLETION)
 *             and the window waited for with fi_cntr_wait() on an
 *             FI_WRITE counter, which the device counts: no CQ entry
 *             reaches the application;
 *   cq        over a verbs MSG endpoint: each write with FI_COMPLETION and
 *             the window waited for by reaping its CQ entries with
 *             fi_cq_read(), polling, as fabtests do;
 *   rxm-cntr  cntr's calls over a verbs;ofi_rxm RDM endpoint, whose
 *             FI_WRITE counter is ofi_rxm's own: it asks verbs for a CQ
 *             entry for every write and counts as it reaps them;
 *   rxm-cq    cq's calls over the RDM endpoint.
 *
 *   lf_cntr_bench -s -a ADDR [-p PORT] [-m MODE,...]            server
 *   lf_cntr_bench -a ADDR [-p PORT] [-m MODE,...] [-w WINDOW]
 *                 [-z SIZE] [-t SECS] [-T LABEL]                  client
 *
 * Both sides are given the same modes (default "cntr,cq"), either MSG
 * (cntr, cq) or RDM (rxm-cntr, rxm-cq) ones: one run, one endpoint type.
 * Each MSG mode is one connection, whose accept data carries the
 * server's buffer address and key.  In RDM modes the server keeps one
 * endpoint; the client opens one per mode and sends its address
 * (fi_getname) in a message, the server inserts it into its AV and
 * replies with the buffer's address and key, and the client's last
 * message says it is done.
 *
 * The client writes for SECS seconds (default 3, whole windows) and
 * prints one line per mode:
 *
 *   lf_cntr_bench: LABEL mode=M size=S window=W msgs=N secs=T
 *       msgs_per_s=R cpu_us_per_msg=C
 *
 * (on one line) where C is the process's user and system CPU time
 * (getrusage) over the messages.  A client whose device has no counters
 * (fi_cntr_open: -FI_ENOSYS) skips the cntr mode with a "# skip" line,
 * after connecting, so that its server moves on to the next mode.  Exits 1
 * when any step failed.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/resource.h>

#include <rdma/fi_rma.h>

#include "lf_common.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define LB_BUF_SIZE	(1024 * 1024)
/* The RDM modes' messages: a send slot and a receive slot after the written area. */
#define LB_MSG_SIZE	128
#define LB_TX_SIZE	256
/* How long one window may take (ms). */
#define LB_WINDOW_MS	20000
#define LB_MAX_MODES	8

struct lb_mode {
	const char		*name;
	enum fi_ep_type		type;
	bool			counted;	/* fi_cntr_wait, else CQ reaping */
};

static const struct lb_mode lb_modes[] = {
	{ "cntr",	FI_EP_MSG,	true },
	{ "cq",		FI_EP_MSG,	false },
	{ "rxm-cntr",	FI_EP_RDM,	true },
	{ "rxm-cq",	FI_EP_RDM,	false },
};

/* An RDM client's first message: its endpoint's address. */
struct lb_hello {
	uint64_t		len;
	uint8_t			addr[LB_MSG_SIZE - sizeof(uint64_t)];
};

struct lb_conn {
	struct fid_ep		*ep;
	struct fid_cq		*cq;
	struct fid_cntr		*cntr;
	fi_addr_t		peer;	/* RDM: the other side, in the AV */
	bool			sleeps;	/* the CQ has a wait object */
	uint64_t		remote_addr;
	uint64_t		remote_key;
	uint64_t		done;	/* writes completed, as counted or reaped */
};

static const char *label = "lf_cntr_bench";
static size_t size = 64, window = 64;
static unsigned int secs = 3;
static int failures;

/* lf_common.h's failed step: a comment line, counted. */
static void lf_fail(const char *fmt, ...)
{
	va_list ap;

	printf("# %s: ", label);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failures++;
}

static uint64_t cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec * 1000000ull + ru.ru_utime.tv_usec +
	       ru.ru_stime.tv_sec * 1000000ull + ru.ru_stime.tv_usec;
}

static const struct lb_mode *mode_of(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lb_modes); i++) {
		if (!strcmp(lb_modes[i].name, name))
			return &lb_modes[i];
	}
	return NULL;
}

static int open_cntr(struct fid_cntr **cntr)
{
	struct fi_cntr_attr attr = { .events = FI_CNTR_EVENTS_COMP,
				     .wait_obj = FI_WAIT_UNSPEC };

	return fi_cntr_open(domain, &attr, cntr, NULL);
}

/*
 * Whether the domain has counters: on a verbs device without them
 * fi_cntr_open() answers -FI_ENOSYS.  (fi_info's cntr_cnt does not say:
 * ofi_rxm's is 0, and it has counters of its own.)
 */
static bool has_cntrs(void)
{
	struct fid_cntr *cntr;
	int ret = open_cntr(&cntr);

	if (!ret)
		fi_close(&cntr->fid);
	return ret != -FI_ENOSYS;
}

/*
 * An enabled endpoint for fi, with an FI_WRITE counter bound if
 * with_cntr.  The server's CQ has a wait object: it sleeps on it while
 * its RDM client writes (see serve_rdm()); the client's CQ has none, so
 * that the cq modes reap as an application that polls does.
 */
static bool make_ep(struct lb_conn *c, struct fi_info *fi, bool with_cntr,
		    bool server)
{
	memset(c, 0, sizeof(*c));
	c->sleeps = server;
	if (!lf_ep_open(fi, server ? FI_WAIT_UNSPEC : FI_WAIT_NONE, &c->ep, &c->cq))
		return false;
	if (with_cntr &&
	    (!fi_ok(open_cntr(&c->cntr), "fi_cntr_open") ||
	     !fi_ok(fi_ep_bind(c->ep, &c->cntr->fid, FI_WRITE), "fi_ep_bind(cntr)")))
		return false;
	return fi_ok(fi_enable(c->ep), "fi_enable");
}

static void close_conn(struct lb_conn *c)
{
	if (c->ep)
		fi_close(&c->ep->fid);
	if (c->cntr)
		fi_close(&c->cntr->fid);
	if (c->cq)
		fi_close(&c->cq->fid);
}

/* The CQ's error entry, which a read announced, as a failed step. */
static bool cq_error(struct lb_conn *c, const char *what)
{
	struct fi_cq_err_entry err;

	memset(&err, 0, sizeof(err));
	fi_cq_readerr(c->cq, &err, 0);
	return fi_ok(err.err ? -err.err : -FI_EOTHER, what);
}

/* Reap the CQ's entries into c->done; false on an error entry. */
static bool reap(struct lb_conn *c)
{
	struct fi_cq_entry ent[64];
	ssize_t n;

	n = fi_cq_read(c->cq, ent, 64);
	if (n > 0) {
		c->done += n;
		return true;
	}
	if (n == -FI_EAVAIL)
		return cq_error(c, "write completion");
	return n == -FI_EAGAIN || fi_ok((int)n, "fi_cq_read");
}

/*
 * Let the provider retire what has completed, while a post answers
 * -FI_EAGAIN: reap the CQ, or read the counter, which is where ofi_rxm
 * progresses (for a device counter, a read of its value).
 */
static bool progress(struct lb_conn *c, uint64_t flags)
{
	if (flags & FI_COMPLETION)
		return reap(c);
	fi_cntr_read(c->cntr);
	return true;
}

/* Post write i of the window, retrying while the send queue is full. */
static bool post_write(struct lb_conn *c, size_t i, uint64_t flags)
{
	size_t off = (i * size) % (LB_BUF_SIZE - size + 1);
	struct iovec iov = { buf + off, size };
	void *desc = fi_mr_desc(mr);
	struct fi_rma_iov rma = { c->remote_addr + off, size, c->remote_key };
	struct fi_msg_rma msg = {
		.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = c->peer,
		.rma_iov = &rma, .rma_iov_count = 1, .context = c,
	};
	uint64_t end = lf_now_us() + LB_WINDOW_MS * 1000ull;
	ssize_t ret;

	for (;;) {
		ret = fi_writemsg(c->ep, &msg, flags);
		if (ret != -FI_EAGAIN || lf_now_us() > end)
			break;
		if (!progress(c, flags))
			return false;
	}
	return fi_ok((int)ret, "fi_writemsg");
}

/* One window with the counter: unsignaled writes, fi_cntr_wait. */
static bool window_cntr(struct lb_conn *c)
{
	size_t i;

	for (i = 0; i < window; i++) {
		if (!post_write(c, i, 0))
			return false;
	}
	c->done += window;
	return fi_ok(fi_cntr_wait(c->cntr, c->done, LB_WINDOW_MS), "fi_cntr_wait");
}

/* One window with the CQ: signaled writes, every entry reaped. */
static bool window_cq(struct lb_conn *c)
{
	uint64_t want = c->done + window, end;
	size_t i;

	for (i = 0; i < window; i++) {
		if (!post_write(c, i, FI_COMPLETION))
			return false;
	}
	end = lf_now_us() + LB_WINDOW_MS * 1000ull;
	while (c->done < want && lf_now_us() < end) {
		if (!reap(c))
			return false;
	}
	if (c->done < want) {
		lf_fail("%" PRIu64 " of %" PRIu64 " completions", c->done, want);
		return false;
	}
	return true;
}

static void measure(struct lb_conn *c, const char *mode)
{
	bool (*one)(struct lb_conn *c) = c->cntr ? window_cntr : window_cq;
	uint64_t t0 = lf_now_us(), cpu0 = cpu_us(), end = t0 + secs * 1000000ull;
	uint64_t msgs = 0, t, cpu;

	do {
		if (!one(c))
			return;
		msgs += window;
	} while (lf_now_us() < end);
	t = lf_now_us() - t0;
	cpu = cpu_us() - cpu0;
	printf("lf_cntr_bench: %s mode=%s size=%zu window=%zu msgs=%" PRIu64
	       " secs=%.2f msgs_per_s=%.0f cpu_us_per_msg=%.3f\n", label, mode,
	       size, window, msgs, t / 1e6, msgs * 1e6 / t, (double)cpu / msgs);
	fflush(stdout);
}

/* RDM modes: the control messages around the writes. */

/* The send slot, or the receive slot, of the registered buffer. */
static void *msg_slot(bool send)
{
	return buf + LB_BUF_SIZE + (send ? 0 : LB_MSG_SIZE);
}

/*
 * Wait up to ms for the one message in flight on c to complete: asleep
 * in fi_cq_sread() where the CQ has a wait object, polling otherwise.
 */
static bool await_msg(struct lb_conn *c, int ms)
{
	uint64_t end = lf_now_us() + ms * 1000ull;
	struct fi_cq_entry ent;
	ssize_t n;

	do {
		n = c->sleeps ? fi_cq_sread(c->cq, &ent, 1, NULL, ms) :
				fi_cq_read(c->cq, &ent, 1);
	} while ((n == -FI_EAGAIN || n == -FI_ETIMEDOUT) && lf_now_us() < end);
	if (n == -FI_EAVAIL)
		return cq_error(c, "message completion");
	/* fi_cq_sread's timeout is -FI_EAGAIN in ofi_rxm. */
	if (n == -FI_EAGAIN)
		n = -FI_ETIMEDOUT;
	return n > 0 || fi_ok((int)n, "message completion");
}

/*
 * Send len bytes of the send slot to c's peer, or receive into the
 * receive slot, and wait up to ms for it.  ofi_rxm answers -FI_EAGAIN
 * while it connects: the CQ read drives it on.
 */
static bool message(struct lb_conn *c, bool send, size_t len, int ms)
{
	struct iovec iov = { msg_slot(send), len };
	void *desc = fi_mr_desc(mr);
	struct fi_msg msg = { .msg_iov = &iov, .desc = &desc, .iov_count = 1,
			      .addr = send ? c->peer : FI_ADDR_UNSPEC,
			      .context = c };
	uint64_t end = lf_now_us() + ms * 1000ull;
	struct fi_cq_entry ent;
	ssize_t ret;

	for (;;) {
		ret = send ? fi_sendmsg(c->ep, &msg, FI_COMPLETION) :
			     fi_recvmsg(c->ep, &msg, FI_COMPLETION);
		if (ret != -FI_EAGAIN || lf_now_us() > end)
			break;
		fi_cq_read(c->cq, &ent, 0);
	}
	return fi_ok((int)ret, send ? "fi_sendmsg" : "fi_recvmsg") &&
	       await_msg(c, ms);
}

/* addr, an address in the provider's format, into the AV as c's peer. */
static bool av_insert(struct lb_conn *c, const void *addr)
{
	int ret = fi_av_insert(av, addr, 1, &c->peer, 0, NULL);

	if (ret != 1)
		lf_fail("fi_av_insert: %d of 1 address (%s)", ret,
			ret < 0 ? fi_strerror(-ret) : "");
	return ret == 1;
}

/*
 * The client's start of an RDM mode: the server into the AV, the
 * endpoint's address to it, the buffer's address and key back.
 */
static bool start_rdm(struct lb_conn *c)
{
	struct lb_hello *hello = msg_slot(true);
	struct lf_cm_data *cm = msg_slot(false);
	size_t len = sizeof(hello->addr);

	if (!av_insert(c, info->dest_addr) ||
	    !fi_ok(fi_getname(&c->ep->fid, hello->addr, &len), "fi_getname"))
		return false;
	hello->len = len;
	if (!message(c, true, sizeof(*hello), LF_EQ_MS) ||
	    !message(c, false, LB_MSG_SIZE, LF_EQ_MS))
		return false;
	c->remote_addr = cm->addr;
	c->remote_key = cm->key;
	return true;
}

/*
 * The server's side of one RDM mode: the client's address into the AV,
 * the buffer's address and key back, then asleep until the client's
 * last message.
 */
static bool serve_rdm(struct lb_conn *c)
{
	struct lb_hello *hello = msg_slot(false);
	struct lf_cm_data *cm = msg_slot(true);

	if (!message(c, false, LB_MSG_SIZE, LF_EQ_MS))
		return false;
	if (hello->len > sizeof(hello->addr)) {
		lf_fail("the client's address has %" PRIu64 " bytes", hello->len);
		return false;
	}
	cm->addr = (uintptr_t)buf;
	cm->key = fi_mr_key(mr);
	return av_insert(c, hello->addr) &&
	       message(c, true, sizeof(*cm), LF_EQ_MS) &&
	       message(c, false, LB_MSG_SIZE, LF_EQ_MS + secs * 1000);
}

/* MSG modes: the connection. */

static bool start_msg(struct lb_conn *c)
{
	struct {
		struct fi_eq_cm_entry	entry;
		struct lf_cm_data	cm;
		uint8_t			pad[64];
	} ev;

	if (!fi_ok(fi_connect(c->ep, info->dest_addr, NULL, 0), "fi_connect") ||
	    !eq_wait(FI_CONNECTED, &ev.entry, sizeof(ev)))
		return false;
	c->remote_addr = ev.cm.addr;
	c->remote_key = ev.cm.key;
	return true;
}

/* The server's side of one MSG mode: accept, wait for the shutdown. */
static void serve_msg(void)
{
	struct {
		struct fi_eq_cm_entry	entry;
		uint8_t			data[64];
	} ev;
	struct lf_cm_data cm = { (uintptr_t)buf, fi_mr_key(mr) };
	struct lb_conn c = { 0 };

	memset(&ev, 0, sizeof(ev));
	if (!eq_wait(FI_CONNREQ, &ev.entry, sizeof(ev)))
		return;
	if (make_ep(&c, ev.entry.info, false, true) &&
	    fi_ok(fi_accept(c.ep, &cm, sizeof(cm)), "fi_accept") &&
	    eq_wait(FI_CONNECTED, &ev.entry, sizeof(ev)))
		eq_wait(FI_SHUTDOWN, &ev.entry, sizeof(ev));
	fi_freeinfo(ev.entry.info);
	close_conn(&c);
}

/*
 * One mode on the client: reach the server, measure (or skip a counter
 * the device does not have), and tell the server it is over.
 */
static void client(const struct lb_mode *m)
{
	bool skip = m->counted && !has_cntrs();
	bool rdm = m->type == FI_EP_RDM;
	struct lb_conn c;

	if (make_ep(&c, info, m->counted && !skip, false) &&
	    (rdm ? start_rdm(&c) : start_msg(&c))) {
		if (skip)
			printf("# skip: %s mode=%s: the device has no counters\n",
			       label, m->name);
		else
			measure(&c, m->name);
		if (rdm)
			message(&c, true, 0, LF_EQ_MS);
		else
			fi_shutdown(c.ep, 0);
	}
	close_conn(&c);
}

/* The server: one MSG connection per mode, or one RDM endpoint for all. */
static void server(const struct lb_mode **modes, size_t n)
{
	struct lb_conn c;
	size_t i;

	if (modes[0]->type == FI_EP_MSG) {
		for (i = 0; i < n; i++)
			serve_msg();
		return;
	}
	if (make_ep(&c, info, false, true)) {
		for (i = 0; i < n; i++) {
			if (!serve_rdm(&c))
				break;
		}
	}
	close_conn(&c);
}

/* The application's usual domain: no FI_THREAD_SAFE locking. */
static bool setup(enum fi_ep_type type, const char *addr, const char *port,
		  bool server)
{
	info = lf_get_info(type, addr, port, server, FI_MSG | FI_RMA,
			   LB_TX_SIZE, FI_THREAD_UNSPEC);
	if (!info)
		return false;
	printf("# %s: %s on %s, cntr_cnt %zu\n", label,
	       info->fabric_attr->prov_name, info->domain_attr->name,
	       info->domain_attr->cntr_cnt);
	return lf_open(LB_BUF_SIZE + 2 * LB_MSG_SIZE, server);
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-s] -a SERVER_ADDR [-p PORT] [-m MODE,...] [-w WINDOW]\n"
		"       [-z SIZE] [-t SECS] [-T LABEL]\n"
		"modes, all MSG or all RDM: cntr,cq (MSG) rxm-cntr,rxm-cq (RDM)\n",
		prog);
	exit(2);
}

/*
 * list's modes into modes[], all of one endpoint type; their number, or
 * 0 after saying what is wrong.
 */
static size_t parse_modes(char *list, const struct lb_mode **modes)
{
	char *name, *save;
	size_t n = 0;

	for (name = strtok_r(list, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		if (n == LB_MAX_MODES) {
			fprintf(stderr, "more than %d modes\n", LB_MAX_MODES);
			return 0;
		}
		modes[n] = mode_of(name);
		if (!modes[n]) {
			fprintf(stderr, "mode %s: no such mode\n", name);
			return 0;
		}
		if (modes[n]->type != modes[0]->type) {
			fprintf(stderr, "mode %s: not of %s's endpoint type\n",
				name, modes[0]->name);
			return 0;
		}
		n++;
	}
	return n;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = "19200";
	const struct lb_mode *modes[LB_MAX_MODES];
	char list[64] = "cntr,cq";
	bool server_side = false;
	size_t i, n;
	int opt;

	while ((opt = getopt(argc, argv, "sa:p:m:w:z:t:T:")) != -1) {
		switch (opt) {
		case 's':
			server_side = true;
			break;
		case 'a':
			addr = optarg;
			break;
		case 'p':
			port = optarg;
			break;
		case 'm':
			snprintf(list, sizeof(list), "%s", optarg);
			break;
		case 'w':
			window = strtoul(optarg, NULL, 0);
			break;
		case 'z':
			size = strtoul(optarg, NULL, 0);
			break;
		case 't':
			secs = strtoul(optarg, NULL, 0);
			break;
		case 'T':
			label = optarg;
			break;
		default:
			usage(argv[0]);
		}
	}
	n = parse_modes(list, modes);
	if (!addr || !n || !window || !size || size > LB_BUF_SIZE || !secs)
		usage(argv[0]);
	if (!setup(modes[0]->type, addr, port, server_side))
		return 1;
	if (server_side) {
		server(modes, n);
	} else {
		for (i = 0; i < n; i++)
			client(modes[i]);
	}
	lf_close();
	return failures ? 1 : 0;
}
