/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rxc_bench: the performance figures of a soft-RoCE device, measured with
 * clock_gettime() (perftest's cycle counter is unreliable under TCG).
 *
 * Two roles: the requester issues the operations and times them; the
 * responder owns the QPs they land on.  In loopback mode both run in one
 * process on one device, one thread; in pair mode the responder is a
 * second process (-S) that the requester reaches over TCP (-C HOST),
 * which is how two network namespaces talk to each other.
 */
#ifndef RXC_BENCH_H
#define RXC_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#define BENCH_MAX_QPS	64
#define BENCH_QKEY	0x11111111
#define BENCH_PSN	0x2000

enum bench_test {
	T_WRITE, T_READ, T_SEND,	/* RC message rate and bandwidth */
	T_LAT,				/* RC send/recv round trip */
	T_LAT_WRITE,			/* RC RDMA write round trip */
	T_LAT_READ,			/* RC RDMA read round trip */
	T_LAT_PUT,			/* the same, its writes unsignaled */
	T_UD,				/* UD send rate */
	T_MEMCPY,			/* memory bandwidth, no device */
	T_CNTR_UNSIG,			/* unsignaled writes, counter-tracked */
	T_CNTR_SIG,			/* signaled writes, counter attached */
	T_CNTR_BASE,			/* the same, no counter: its baseline */
	T_WAKE_WAIT,			/* wake-up: threshold WAIT */
	T_WAKE_NOTIFY,			/* wake-up: eventfd NOTIFY */
	T_WAKE_CQ,			/* wake-up: CQ completion event */
	T_IDLE_QPS,			/* kernel memory per idle QP */
	T_NUM
};

struct bench_opts {
	const char *dev;
	const char *host;	/* pair mode, requester: the responder */
	bool server;		/* pair mode, responder */
	int gid;
	int port;
	enum bench_test test;
	uint32_t size;
	uint32_t count;
	uint32_t window;
	uint32_t nqps;
	enum ibv_mtu mtu;
	bool events;	/* rate tests: sleep on the CQ's channel, not spin */
};

/* What one side tells the other about each of its QPs. */
struct bench_qp_info {
	uint32_t qpn;
	uint32_t rkey;
	uint64_t addr;
	union ibv_gid gid;
};

/* One side: its QPs, their shared CQ, and one registered buffer. */
struct bench_side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_comp_channel *chan;	/* T_WAKE_CQ, and -e */
	struct ibv_qp *qp[BENCH_MAX_QPS];
	struct ibv_ah *ah;		/* UD: towards the peer's QP 0 */
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t len;
	uint32_t unreaped;	/* lat_write: signaled writes not yet polled */
	union ibv_gid gid;
	struct bench_qp_info peer[BENCH_MAX_QPS];
};

extern const char *const bench_test_names[T_NUM];

void bench_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
double bench_now(void);
void bench_report(const struct bench_opts *o, const char *key, double value,
		  const char *unit);
double bench_median(double *v, uint32_t n);

/* endpoint.c */
void side_open(struct bench_side *s, const struct bench_opts *o,
	       struct ibv_context *ctx, bool ud);
void side_info(const struct bench_side *s, const struct bench_opts *o,
	       struct bench_qp_info *info);
void side_connect(struct bench_side *s, const struct bench_opts *o, bool ud);
void side_close(struct bench_side *s, const struct bench_opts *o);
struct ibv_context *bench_open_device(const char *name);
int post_send_at(struct bench_side *s, uint32_t q, enum ibv_wr_opcode op,
		 uint64_t off, uint64_t roff, uint32_t size,
		 unsigned int flags);
int post_send_op(struct bench_side *s, uint32_t q, enum ibv_wr_opcode op,
		 uint64_t off, uint32_t size, unsigned int flags);
void post_recv(struct bench_side *s, struct ibv_qp *qp, uint32_t len,
	       uint64_t id);
int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, double deadline);

/* oob.c: the TCP exchange of pair mode */
int oob_listen(int port);
int oob_connect(const char *host, int port);
void oob_swap(int fd, const void *out, void *in, size_t len);
void oob_sync(int fd, char tag);
bool oob_ready(int fd);

/* rate.c, latency.c, counters.c; @fd is pair mode's channel, else -1 */
void run_rate(const struct bench_opts *o, struct bench_side *req,
	      struct bench_side *resp, int fd);
void serve_rate(const struct bench_opts *o, struct bench_side *resp, int fd);
void prime_recvs(const struct bench_opts *o, struct bench_side *resp);
void run_latency(const struct bench_opts *o, struct bench_side *a,
		 struct bench_side *b, int fd);
void serve_latency(const struct bench_opts *o, struct bench_side *b, int fd);
bool test_is_latency(enum bench_test t);
void run_counters(const struct bench_opts *o, struct bench_side *req);
bool test_uses_counter(enum bench_test t);
bool counters_attach(const struct bench_opts *o, struct bench_side *req);
void counters_destroy(void);

#endif /* RXC_BENCH_H */
