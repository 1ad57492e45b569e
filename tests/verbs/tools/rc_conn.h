/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the two-ended RC tools share (rc_xfer, liveness): a TCP
 * rendezvous to swap QP numbers, rkeys and GIDs, and the INIT, RTR, RTS
 * sequence of an RC QP towards a peer.  Every failure ends the program
 * through rc_die(), with the name set in rc_prog.
 */
#ifndef RXC_TESTS_VERBS_TOOLS_RC_CONN_H
#define RXC_TESTS_VERBS_TOOLS_RC_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

/* The program's name in its error messages. */
extern const char *rc_prog;

void rc_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/* The client: connect to @host:@port, retrying while the server starts. */
int rc_tcp_connect(const char *host, int port);
/* The server: accept one connection on @port. */
int rc_tcp_accept(int port);
/* Send @len bytes of @out (if not NULL), then receive @len into @in. */
void rc_xchg(int fd, const void *out, void *in, size_t len);

/* One end of an RC connection: what it tells the other. */
struct rc_info {
	uint32_t qpn;
	uint32_t rkey;
	uint64_t addr;
	union ibv_gid gid;
	uint32_t max_dest_rd_atomic;
	uint32_t reserved;
};

/* How to bring a QP to RTS towards a peer. */
struct rc_path {
	const struct rc_info *peer;
	int sgid_index;
	enum ibv_mtu mtu;
	uint32_t psn;		/* both directions start here */
	uint8_t max_dest_rd_atomic;
	uint8_t max_rd_atomic;
	uint8_t min_rnr_timer;
	uint8_t timeout;	/* local ACK timeout exponent, 0: none */
	uint8_t retry_cnt;
	uint8_t rnr_retry;
};

/* INIT (remote write, read and atomic allowed), RTR, RTS on port 1. */
void rc_connect_qp(struct ibv_qp *qp, const struct rc_path *path);

#endif
