// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * lf_cntr_bench: what a device counter saves a libfabric application.
 * The client writes windows of RDMA writes to the server over a verbs MSG
 * endpoint and waits for each window to complete before the next, in
 * one of two ways:
 *
 *   cntr  the writes are posted without FI_COMPLETION (the CQ is bound
 *         with FI_SELECTIVE_COMPLETION) and the window is waited for with
 *         fi_cntr_wait() on an FI_WRITE counter: no CQ entry reaches the
 *         application;
 *   cq    each write asks for FI_COMPLETION and the window is waited for
 *         by reaping its CQ entries with fi_cq_read(), polling, as
 *         fabtests do.
 *
 *   lf_cntr_bench -s -a ADDR [-p PORT] [-m MODE,...]            server
 *   lf_cntr_bench -a ADDR [-p PORT] [-m MODE,...] [-w WINDOW]
 *                 [-z SIZE] [-t SECS] [-T LABEL]                  client
 *
 * Both sides are given the same modes (default "cntr,cq"); each mode is
 * one connection.  The client writes for SECS seconds (default 3, whole
 * windows) and prints one line per mode:
 *
 *   lf_cntr_bench: LABEL mode=M size=S window=W msgs=N secs=T
 *       msgs_per_s=R cpu_us_per_msg=C
 *
 * (on one line) where C is the process's user and system CPU time
 * (getrusage) over the messages.  A side whose device has no counters
 * (fi_cntr_open: -FI_ENOSYS) skips the cntr mode with a "# skip" line;
 * its server is then given only "cq".  Exits 1 when any step failed.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/resource.h>

#include <rdma/fi_rma.h>

#include "lf_common.h"

#define LB_BUF_SIZE	(1024 * 1024)
#define LB_TX_SIZE	256
/* How long one window may take (ms). */
#define LB_WINDOW_MS	20000

struct lb_conn {
	struct fid_ep		*ep;
	struct fid_cq		*cq;
	struct fid_cntr		*cntr;
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

/*
 * An enabled endpoint for fi; with_cntr: an FI_WRITE counter bound, or
 * -FI_ENOSYS when the device has none.
 */
static int make_ep(struct lb_conn *c, struct fi_info *fi, bool with_cntr)
{
	struct fi_cntr_attr cntr_attr = { .events = FI_CNTR_EVENTS_COMP,
					  .wait_obj = FI_WAIT_UNSPEC };
	int ret;

	memset(c, 0, sizeof(*c));
	if (!lf_ep_open(fi, FI_WAIT_NONE, &c->ep, &c->cq))
		return -FI_EOTHER;
	if (with_cntr) {
		ret = fi_cntr_open(domain, &cntr_attr, &c->cntr, NULL);
		if (ret == -FI_ENOSYS)
			return ret;
		if (!fi_ok(ret, "fi_cntr_open") ||
		    !fi_ok(fi_ep_bind(c->ep, &c->cntr->fid, FI_WRITE),
			   "fi_ep_bind(cntr)"))
			return -FI_EOTHER;
	}
	return fi_ok(fi_enable(c->ep), "fi_enable") ? 0 : -FI_EOTHER;
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

/* Reap the CQ's entries into c->done; false on an error entry. */
static bool reap(struct lb_conn *c)
{
	struct fi_cq_entry ent[64];
	struct fi_cq_err_entry err;
	ssize_t n;

	n = fi_cq_read(c->cq, ent, 64);
	if (n > 0) {
		c->done += n;
		return true;
	}
	if (n == -FI_EAVAIL) {
		memset(&err, 0, sizeof(err));
		fi_cq_readerr(c->cq, &err, 0);
		return fi_ok(-err.err, "write completion");
	}
	return n == -FI_EAGAIN || fi_ok((int)n, "fi_cq_read");
}

/* Post write i of the window, retrying while the send queue is full. */
static bool post_write(struct lb_conn *c, size_t i, uint64_t flags)
{
	size_t off = (i * size) % (LB_BUF_SIZE - size + 1);
	struct iovec iov = { buf + off, size };
	void *desc = fi_mr_desc(mr);
	struct fi_rma_iov rma = { c->remote_addr + off, size, c->remote_key };
	struct fi_msg_rma msg = {
		.msg_iov = &iov, .desc = &desc, .iov_count = 1,
		.rma_iov = &rma, .rma_iov_count = 1, .context = c,
	};
	uint64_t end = lf_now_us() + LB_WINDOW_MS * 1000ull;
	ssize_t ret;

	for (;;) {
		ret = fi_writemsg(c->ep, &msg, flags);
		if (ret != -FI_EAGAIN || lf_now_us() > end)
			break;
		if ((flags & FI_COMPLETION) && !reap(c))
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

static void client(const char *mode)
{
	struct {
		struct fi_eq_cm_entry	entry;
		struct lf_cm_data	cm;
		uint8_t			pad[64];
	} ev;
	struct lb_conn c;
	int ret;

	ret = make_ep(&c, info, !strcmp(mode, "cntr"));
	if (ret == -FI_ENOSYS) {
		printf("# skip: %s mode=%s: the device has no counters\n", label, mode);
		goto out;
	}
	if (ret || !fi_ok(fi_connect(c.ep, info->dest_addr, NULL, 0), "fi_connect") ||
	    !eq_wait(FI_CONNECTED, &ev.entry, sizeof(ev)))
		goto out;
	c.remote_addr = ev.cm.addr;
	c.remote_key = ev.cm.key;
	measure(&c, mode);
	fi_shutdown(c.ep, 0);
out:
	close_conn(&c);
}

/* The server's side of one connection: accept, wait for the shutdown. */
static void serve(void)
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
	if (!make_ep(&c, ev.entry.info, false) &&
	    fi_ok(fi_accept(c.ep, &cm, sizeof(cm)), "fi_accept") &&
	    eq_wait(FI_CONNECTED, &ev.entry, sizeof(ev)))
		eq_wait(FI_SHUTDOWN, &ev.entry, sizeof(ev));
	fi_freeinfo(ev.entry.info);
	close_conn(&c);
}

/* The application's usual domain: no FI_THREAD_SAFE locking. */
static bool setup(const char *addr, const char *port, bool server)
{
	info = lf_get_info(FI_EP_MSG, addr, port, server, FI_MSG | FI_RMA,
			   LB_TX_SIZE, FI_THREAD_UNSPEC);
	if (!info)
		return false;
	printf("# %s: verbs on %s, cntr_cnt %zu\n", label,
	       info->domain_attr->name, info->domain_attr->cntr_cnt);
	return lf_open(LB_BUF_SIZE, server);
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-s] -a SERVER_ADDR [-p PORT] [-m cntr,cq] [-w WINDOW]\n"
		"       [-z SIZE] [-t SECS] [-T LABEL]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = "19200";
	char modes[64] = "cntr,cq", *mode, *save;
	bool server = false;
	int opt;

	while ((opt = getopt(argc, argv, "sa:p:m:w:z:t:T:")) != -1) {
		switch (opt) {
		case 's':
			server = true;
			break;
		case 'a':
			addr = optarg;
			break;
		case 'p':
			port = optarg;
			break;
		case 'm':
			snprintf(modes, sizeof(modes), "%s", optarg);
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
	if (!addr || !window || !size || size > LB_BUF_SIZE || !secs)
		usage(argv[0]);
	if (!setup(addr, port, server))
		return 1;
	for (mode = strtok_r(modes, ",", &save); mode;
	     mode = strtok_r(NULL, ",", &save)) {
		if (strcmp(mode, "cntr") && strcmp(mode, "cq"))
			usage(argv[0]);
		if (server)
			serve();
		else
			client(mode);
	}
	lf_close();
	return failures ? 1 : 0;
}
