// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rxc_bench: one measurement per run, printed as one line per figure:
 *
 *   rxc_bench: TEST size=S mtu=M qps=Q window=W mode=loop|pair KEY=VALUE UNIT
 *
 *   rxc_bench -t TEST [-d DEV] [-g GID] [-s SIZE] [-m MTU] [-q QPS]
 *             [-n COUNT] [-w WINDOW] [-p PORT] [-S | -C HOST]
 *
 * TEST: write, read, send (RC rate and bandwidth), lat, lat_write,
 * lat_read, lat_put (RC round trips of send/recv, RDMA write, RDMA read
 * and unsignaled RDMA write, latency.c), ud (UD send rate), memcpy (memory bandwidth, no device),
 * cntr_unsig, cntr_sig, cntr_base, wake_wait, wake_notify, wake_cq
 * (counters.c),
 * idle_qps (the kernel memory COUNT idle RC QPs take, from /proc/meminfo).
 * Without -S or -C both sides run in this process on DEV (loopback);
 * -S is the responder of pair mode, -C HOST the requester, run with the
 * same options.  A device without completion counters skips the counter
 * tests (exit 0, "skipped" on stdout).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

const char *const bench_test_names[T_NUM] = {
	[T_WRITE] = "write", [T_READ] = "read", [T_SEND] = "send",
	[T_LAT] = "lat", [T_LAT_WRITE] = "lat_write",
	[T_LAT_READ] = "lat_read", [T_LAT_PUT] = "lat_put", [T_UD] = "ud",
	[T_MEMCPY] = "memcpy",
	[T_CNTR_UNSIG] = "cntr_unsig", [T_CNTR_SIG] = "cntr_sig",
	[T_CNTR_BASE] = "cntr_base",
	[T_WAKE_WAIT] = "wake_wait", [T_WAKE_NOTIFY] = "wake_notify",
	[T_WAKE_CQ] = "wake_cq", [T_IDLE_QPS] = "idle_qps",
};

void bench_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "rxc_bench: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void bench_report(const struct bench_opts *o, const char *key, double value,
		  const char *unit)
{
	printf("rxc_bench: %s size=%u mtu=%d qps=%u window=%u mode=%s %s=%.6g %s\n",
	       bench_test_names[o->test], o->size, 128 << o->mtu, o->nqps,
	       o->window, o->host || o->server ? "pair" : "loop", key, value,
	       unit);
	fflush(stdout);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of @n figures; sorts them. */
double bench_median(double *v, uint32_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void run_memcpy(const struct bench_opts *o)
{
	size_t len = 64ul << 20;
	char *src = malloc(len), *dst = malloc(len);
	double t0;
	uint32_t i;

	if (!src || !dst)
		bench_die("out of memory");
	memset(src, 1, len);
	memset(dst, 2, len);
	t0 = bench_now();
	for (i = 0; i < o->count; i++)
		memcpy(i & 1 ? src : dst, i & 1 ? dst : src, len);
	bench_report(o, "bw", (double)len * o->count / (bench_now() - t0) / 1e6,
		     "MB/s");
	free(src);
	free(dst);
}

/* A /proc/meminfo field, in KiB. */
static long meminfo_kib(const char *field)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	size_t n = strlen(field);
	long kib = -1;

	if (!f)
		bench_die("/proc/meminfo: %s", strerror(errno));
	while (kib < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			kib = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return kib;
}

/*
 * COUNT RC QPs with the benchmark's queue sizes, created and left in
 * RESET: what each costs in slab and vmalloc memory (the rings).
 */
static void run_idle_qps(const struct bench_opts *o, struct ibv_context *ctx)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = o->window, .max_recv_wr = o->window,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp **qp = calloc(o->count, sizeof(*qp));
	long slab, vmalloc;
	struct ibv_pd *pd;
	uint32_t i;

	pd = ibv_alloc_pd(ctx);
	attr.send_cq = attr.recv_cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!qp || !pd || !attr.send_cq)
		bench_die("pd/cq: %s", strerror(errno));
	slab = meminfo_kib("Slab");
	vmalloc = meminfo_kib("VmallocUsed");
	for (i = 0; i < o->count; i++) {
		qp[i] = ibv_create_qp(pd, &attr);
		if (!qp[i])
			bench_die("create_qp %u: %s", i, strerror(errno));
	}
	printf("rxc_bench: idle_qps: %u QPs, Slab %ld -> %ld KiB, VmallocUsed %ld -> %ld KiB\n",
	       o->count, slab, meminfo_kib("Slab"), vmalloc,
	       meminfo_kib("VmallocUsed"));
	bench_report(o, "slab_per_qp",
		     (meminfo_kib("Slab") - slab) * 1024.0 / o->count, "B");
	bench_report(o, "vmalloc_per_qp",
		     (meminfo_kib("VmallocUsed") - vmalloc) * 1024.0 / o->count,
		     "B");
	for (i = 0; i < o->count; i++)
		ibv_destroy_qp(qp[i]);
	ibv_destroy_cq(attr.send_cq);
	ibv_dealloc_pd(pd);
	free(qp);
}

static enum ibv_mtu mtu_of(unsigned long bytes)
{
	switch (bytes) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	}
	bench_die("-m %lu: not an IB MTU (256 to 4096)", bytes);
}

static enum bench_test test_of(const char *name)
{
	int t;

	for (t = 0; t < T_NUM; t++)
		if (!strcmp(name, bench_test_names[t]))
			return t;
	bench_die("unknown test '%s'", name);
}

/* The counter tests and their baselines: one QP. */
static bool one_qp_only(enum bench_test t)
{
	return test_uses_counter(t) || t == T_CNTR_BASE || t == T_WAKE_CQ;
}

/* The tests run_counters() times; the others are rates or latency. */
static bool dispatches_to_counters(enum bench_test t)
{
	return t == T_CNTR_UNSIG || t == T_WAKE_WAIT || t == T_WAKE_NOTIFY ||
	       t == T_WAKE_CQ;
}

static void parse(int argc, char **argv, struct bench_opts *o)
{
	int c;

	while ((c = getopt(argc, argv, "t:d:g:s:m:q:n:w:p:SC:e")) != -1) {
		switch (c) {
		case 't': o->test = test_of(optarg); break;
		case 'd': o->dev = optarg; break;
		case 'g': o->gid = atoi(optarg); break;
		case 's': o->size = strtoul(optarg, NULL, 0); break;
		case 'm': o->mtu = mtu_of(strtoul(optarg, NULL, 0)); break;
		case 'q': o->nqps = strtoul(optarg, NULL, 0); break;
		case 'n': o->count = strtoul(optarg, NULL, 0); break;
		case 'w': o->window = strtoul(optarg, NULL, 0); break;
		case 'p': o->port = atoi(optarg); break;
		case 'S': o->server = true; break;
		case 'C': o->host = optarg; break;
		case 'e': o->events = true; break;
		default:
			bench_die("usage: rxc_bench -t TEST [-d DEV] [-g GID] [-s SIZE] [-m MTU] [-q QPS] [-n COUNT] [-w WINDOW] [-p PORT] [-e] [-S | -C HOST]");
		}
	}
	if (o->test == T_UD || one_qp_only(o->test) ||
	    test_is_latency(o->test) || o->test == T_IDLE_QPS)
		o->nqps = 1;
	if (!o->count || !o->window || !o->nqps || o->nqps > BENCH_MAX_QPS ||
	    o->size > (1u << 20) || (o->test == T_UD && o->size > 1024) ||
	    ((o->test == T_LAT_WRITE || o->test == T_LAT_PUT) && !o->size))
		bench_die("need COUNT, WINDOW > 0, 1 <= QPS <= %d, SIZE <= 1 MiB (UD: 1 KiB, lat_write, lat_put: >= 1)",
			  BENCH_MAX_QPS);
	if (o->events && ((!o->host && !o->server) ||
			  dispatches_to_counters(o->test) ||
			  test_is_latency(o->test)))
		bench_die("-e is for rate tests in pair mode");
	if ((o->test == T_IDLE_QPS || o->test == T_MEMCPY) &&
	    (o->host || o->server))
		bench_die("%s runs in loopback mode only",
			  bench_test_names[o->test]);
}

/* @b is the responder in loopback mode, NULL in pair mode (then @fd). */
static void run_rate_or_latency(const struct bench_opts *o,
				struct bench_side *a, struct bench_side *b,
				int fd)
{
	if (test_is_latency(o->test))
		run_latency(o, a, b, fd);
	else
		run_rate(o, a, b, fd);
}

/*
 * A counter test needs a counter on the requester's QPs, still in RESET;
 * false (the test is skipped) when the device has none, as rdma_rxe.
 */
static bool attach_counter(const struct bench_opts *o, struct bench_side *req)
{
	if (!test_uses_counter(o->test) || counters_attach(o, req))
		return true;
	printf("rxc_bench: %s skipped: %s has no completion counters\n",
	       bench_test_names[o->test], o->dev);
	return false;
}

static int run_loopback(const struct bench_opts *o, struct ibv_context *ctx)
{
	bool ud = o->test == T_UD;
	struct bench_side a, b;

	side_open(&a, o, ctx, ud);
	side_open(&b, o, ctx, ud);
	if (!attach_counter(o, &a))
		return 0;
	side_info(&b, o, a.peer);
	side_info(&a, o, b.peer);
	side_connect(&a, o, ud);
	side_connect(&b, o, ud);
	if (dispatches_to_counters(o->test))
		run_counters(o, &a);
	else
		run_rate_or_latency(o, &a, &b, -1);
	counters_destroy();
	side_close(&a, o);
	side_close(&b, o);
	return 0;
}

/*
 * Pair mode: both processes must run the same test with the same sizes.
 * A requester whose device has no counters says so with test T_NUM, and
 * both skip the run.
 */
struct hello {
	uint32_t test, size, nqps, window, count, mtu;
};

/*
 * The requester of a counter test, in pair mode: the counter sits on its
 * own QP, so the responder only has to see the run's start and end.
 */
static void run_pair_counters(const struct bench_opts *o,
			      struct bench_side *req, int fd)
{
	oob_sync(fd, 'S');
	run_counters(o, req);
	oob_sync(fd, 'E');
}

static int run_pair(const struct bench_opts *o, struct ibv_context *ctx)
{
	struct hello me = { o->test, o->size, o->nqps, o->window, o->count,
			    o->mtu }, peer;
	struct bench_qp_info info[BENCH_MAX_QPS];
	bool ud = o->test == T_UD;
	struct bench_side s;
	int fd;

	side_open(&s, o, ctx, ud);
	if (!o->server && !attach_counter(o, &s))
		me.test = T_NUM;
	fd = o->server ? oob_listen(o->port) : oob_connect(o->host, o->port);
	oob_swap(fd, &me, &peer, sizeof(me));
	if (me.test == T_NUM || peer.test == T_NUM) {
		if (o->server)
			printf("rxc_bench: %s skipped: the requester's device has no completion counters\n",
			       bench_test_names[o->test]);
		return 0;
	}
	if (memcmp(&me, &peer, sizeof(me)))
		bench_die("the other side runs another test or other sizes");
	side_info(&s, o, info);
	oob_swap(fd, info, s.peer, sizeof(info[0]) * o->nqps);
	side_connect(&s, o, ud);
	if (o->server && test_is_latency(o->test))
		serve_latency(o, &s, fd);
	else if (o->server)
		serve_rate(o, &s, fd);
	else if (dispatches_to_counters(o->test))
		run_pair_counters(o, &s, fd);
	else
		run_rate_or_latency(o, &s, NULL, fd);
	counters_destroy();
	side_close(&s, o);
	return 0;
}

int main(int argc, char **argv)
{
	struct bench_opts o = {
		.dev = "rxc0", .gid = 1, .port = 18800, .test = T_WRITE,
		.size = 8, .count = 10000, .window = 64, .nqps = 1,
		.mtu = IBV_MTU_1024,
	};
	struct ibv_context *ctx;
	int rc;

	parse(argc, argv, &o);
	if (o.test == T_MEMCPY) {
		run_memcpy(&o);
		return 0;
	}
	ctx = bench_open_device(o.dev);
	if (o.test == T_IDLE_QPS) {
		run_idle_qps(&o, ctx);
		ibv_close_device(ctx);
		return 0;
	}
	rc = o.host || o.server ? run_pair(&o, ctx) : run_loopback(&o, ctx);
	ibv_close_device(ctx);
	return rc;
}
