// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Verbs and socket plumbing for the examples (see common.h).
 */
#include <errno.h>
#include <netdb.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include "common.h"

void die(const char *what, int err)
{
	fprintf(stderr, "%s: %s\n", what, strerror(err));
	exit(1);
}

struct ibv_context *open_device(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list)
		die("ibv_get_device_list", errno);
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		die(name, ENODEV);
	return ctx;
}

struct ibv_qp *create_rc_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			    uint32_t max_wr, uint32_t inline_size)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = max_wr,
			.max_recv_wr = max_wr,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = inline_size,
		},
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &attr);

	if (!qp)
		die("ibv_create_qp", errno);
	return qp;
}

void connect_rc_qp(struct ibv_qp *qp, int gid_index,
		   const struct conn_info *peer, uint32_t my_psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	int err;

	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (err)
		die("modify_qp INIT", err);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer->qpn;
	a.rq_psn = peer->psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (err)
		die("modify_qp RTR", err);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = my_psn;
	a.max_rd_atomic = 1;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	if (err)
		die("modify_qp RTS", err);
}

static void xfer(int sock, void *buf, size_t len, bool send_it)
{
	char *p = buf;

	while (len) {
		ssize_t n = send_it ? send(sock, p, len, MSG_NOSIGNAL) :
				      recv(sock, p, len, 0);

		if (n <= 0)
			die(send_it ? "send" : "recv", n ? errno : EPIPE);
		p += n;
		len -= n;
	}
}

static int tcp_socket(const char *host, int port)
{
	struct addrinfo hints = {
		.ai_family = AF_INET, .ai_socktype = SOCK_STREAM,
		.ai_flags = host ? 0 : AI_PASSIVE,
	};
	struct addrinfo *res;
	char service[16];
	int one = 1, s, c, tries;

	snprintf(service, sizeof(service), "%d", port);
	if (getaddrinfo(host, service, &hints, &res))
		die("getaddrinfo", EINVAL);
	if (host) {
		/*
		 * The server may still be starting: retry for 20 s, each time
		 * on a new socket (a failed connect() leaves it undefined).
		 */
		for (tries = 0;; tries++) {
			s = socket(res->ai_family, res->ai_socktype, 0);
			if (s < 0)
				die("socket", errno);
			if (!connect(s, res->ai_addr, res->ai_addrlen))
				break;
			if (tries == 200)
				die("connect", errno);
			close(s);
			usleep(100 * 1000);
		}
		freeaddrinfo(res);
		return s;
	}
	s = socket(res->ai_family, res->ai_socktype, 0);
	if (s < 0)
		die("socket", errno);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, res->ai_addr, res->ai_addrlen) || listen(s, 1))
		die("bind/listen", errno);
	freeaddrinfo(res);
	c = accept(s, NULL, NULL);
	if (c < 0)
		die("accept", errno);
	close(s);
	return c;
}

int exchange(const char *host, int port, const struct conn_info *mine,
	     struct conn_info *peer)
{
	int sock = tcp_socket(host, port);

	xfer(sock, (void *)mine, sizeof(*mine), true);
	xfer(sock, peer, sizeof(*peer), false);
	return sock;
}

void sync_peer(int sock)
{
	char c = 's';

	xfer(sock, &c, 1, true);
	xfer(sock, &c, 1, false);
}

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

bool poll_at_least(const volatile uint64_t *value, uint64_t want,
		   const volatile uint64_t *err, unsigned int timeout_ms)
{
	uint64_t deadline = now_ms() + timeout_ms;

	while (rxcdv_comp_cntr_load(value) < want) {
		if (err && rxcdv_comp_cntr_load(err))
			return false;
		if (now_ms() > deadline)
			return false;
		/* Soft RoCE runs on these CPUs too: let it. */
		sched_yield();
	}
	return true;
}
