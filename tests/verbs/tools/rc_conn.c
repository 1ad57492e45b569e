// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The TCP rendezvous and QP connection of the two-ended RC tools (see
 * rc_conn.h).
 */
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "rc_conn.h"

const char *rc_prog = "rc_conn";

void rc_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", rc_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

int rc_tcp_connect(const char *host, int port)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	char service[16];
	int fd, tries;

	snprintf(service, sizeof(service), "%d", port);
	if (getaddrinfo(host, service, &hints, &res))
		rc_die("cannot resolve %s", host);
	/* The server may still be starting: retry for a while. */
	for (tries = 0; tries < 100; tries++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			rc_die("socket: %m");
		if (!connect(fd, res->ai_addr, res->ai_addrlen)) {
			freeaddrinfo(res);
			return fd;
		}
		close(fd);
		usleep(200000);
	}
	rc_die("cannot connect to %s:%d: %m", host, port);
}

int rc_tcp_accept(int port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int one = 1, lfd, fd;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		rc_die("socket: %m");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) || listen(lfd, 1))
		rc_die("cannot listen on port %d: %m", port);
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		rc_die("accept: %m");
	close(lfd);
	return fd;
}

void rc_xchg(int fd, const void *out, void *in, size_t len)
{
	if (out && write(fd, out, len) != (ssize_t)len)
		rc_die("TCP write failed: %m");
	if (in && recv(fd, in, len, MSG_WAITALL) != (ssize_t)len)
		rc_die("TCP read failed (peer gone?)");
}

void rc_connect_qp(struct ibv_qp *qp, const struct rc_path *path)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};
	int rc;

	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (rc)
		rc_die("INIT: %s", strerror(rc));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = path->mtu;
	a.dest_qp_num = path->peer->qpn;
	a.rq_psn = path->psn;
	a.max_dest_rd_atomic = path->max_dest_rd_atomic;
	a.min_rnr_timer = path->min_rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = path->peer->gid;
	a.ah_attr.grh.sgid_index = path->sgid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			   IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			   IBV_QP_MIN_RNR_TIMER);
	if (rc)
		rc_die("RTR: %s", strerror(rc));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = path->psn;
	a.timeout = path->timeout;
	a.retry_cnt = path->retry_cnt;
	a.rnr_retry = path->rnr_retry;
	a.max_rd_atomic = path->max_rd_atomic;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			   IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			   IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	if (rc)
		rc_die("RTS: %s", strerror(rc));
}
