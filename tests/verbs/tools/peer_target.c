// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A target for forged packets: an RC QP connected to a peer address that
 * never answers, with one signaled RDMA WRITE outstanding, and a region
 * the peer may read.
 *
 *   peer_target DEV LOCAL_IPV4 PEER_IPV4 [TIMEOUT]
 *
 * Prints "qpn=N psn=P rq_psn=R va=V rkey=K len=L", where P is the write's
 * PSN (its only packet, so P + 1 was never sent), R the PSN the QP expects
 * of the peer's first request, and V, K and L the readable region's
 * address, rkey and length (large enough that a READ of it keeps the
 * responder busy for a while); then reads commands:
 *   poll MS   print "status=S" for a completion within MS ms, else "none"
 *   dereg     deregister the readable region, print "dereg=0" or an errno
 *   state     print "state=S", the QP's state (enum ibv_qp_state)
 *   event MS  print "event=E" (enum ibv_event_type) for an async event on
 *             the QP within MS ms, else "none"
 *   write     post another signaled 8-byte RDMA WRITE (the next PSN),
 *             print "write=0" or an errno
 *   quit      exit
 * Retransmissions wait for the longest timeout, so only a packet that
 * the QP accepts can complete the write; TIMEOUT (the QP's local ACK
 * timeout exponent, default 31) makes them come sooner.
 */
#include <arpa/inet.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#include "../fixture.h"

#define SQ_PSN		100
#define RQ_PSN		200
#define DEST_QPN	0x1234
#define READABLE_LEN	(64u << 20)

static void die(const char *what)
{
	fprintf(stderr, "peer_target: %s failed\n", what);
	exit(1);
}

/* The RoCE v2 GID of @ip (::ffff:a.b.c.d) on @ctx's port 1, or -1. */
static int gid_index_of(struct ibv_context *ctx, const union ibv_gid *gid)
{
	struct ibv_port_attr port;
	union ibv_gid g;
	int i;

	if (ibv_query_port(ctx, 1, &port))
		return -1;
	for (i = 0; i < port.gid_tbl_len; i++)
		if (!ibv_query_gid(ctx, 1, i, &g) && !memcmp(&g, gid, sizeof(g)))
			return i;
	return -1;
}

static void v4_gid(const char *ip, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	if (inet_pton(AF_INET, ip, &gid->raw[12]) != 1)
		die("inet_pton");
}

static void connect_qp(struct ibv_qp *qp, int sgid, const union ibv_gid *dgid,
		       unsigned int timeout)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = DEST_QPN;
	a.rq_psn = RQ_PSN;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *dgid;
	a.ah_attr.grh.sgid_index = sgid;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = SQ_PSN;
	a.timeout = timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		die("RTS");
}

static void poll_for(struct ibv_cq *cq, unsigned int ms)
{
	struct timespec end, now;
	struct ibv_wc wc;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ms / 1000;
	end.tv_nsec += (ms % 1000) * 1000000L;
	do {
		if (ibv_poll_cq(cq, 1, &wc) == 1) {
			printf("status=%d\n", wc.status);
			return;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec ||
		 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	printf("none\n");
}

static void event_for(struct ibv_context *ctx, unsigned int ms)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	if (poll(&pfd, 1, ms) != 1 || ibv_get_async_event(ctx, &ev)) {
		printf("none\n");
		return;
	}
	printf("event=%d\n", ev.event_type);
	ibv_ack_async_event(&ev);
}

static void state_of(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
		printf("state=-1\n");
	else
		printf("state=%d\n", a.qp_state);
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	static char buf[64], readable[READABLE_LEN];
	struct ibv_send_wr wr = {}, *bad;
	union ibv_gid local, peer;
	struct ibv_context *ctx;
	struct ibv_sge sge;
	struct ibv_mr *mr, *rmr;
	struct ibv_pd *pd;
	struct ibv_qp *qp;
	unsigned int ms, timeout = 31;
	char cmd[64];
	int i, sgid;

	if (argc == 5)
		timeout = strtoul(argv[4], NULL, 0);
	if ((argc != 4 && argc != 5) || timeout > 31) {
		fprintf(stderr, "usage: peer_target DEV LOCAL_IPV4 PEER_IPV4 [TIMEOUT]\n");
		return 2;
	}
	ctx = open_device_by_name(argv[1]);
	if (!ctx)
		die("open device");
	v4_gid(argv[2], &local);
	v4_gid(argv[3], &peer);
	/* A new device gets its GIDs asynchronously: give it 10 seconds. */
	for (i = 0; (sgid = gid_index_of(ctx, &local)) < 0 && i < 100; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 100000000L }, NULL);
	if (sgid < 0)
		die("find local GID");

	pd = ibv_alloc_pd(ctx);
	qa.send_cq = pd ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	qa.recv_cq = qa.send_cq;
	mr = qa.send_cq ? ibv_reg_mr(pd, buf, sizeof(buf), 0) : NULL;
	rmr = mr ? ibv_reg_mr(pd, readable, sizeof(readable),
			      IBV_ACCESS_REMOTE_READ) : NULL;
	if (!rmr)
		die("PD, CQ or MR");
	qa.sq_sig_all = 1;
	qp = ibv_create_qp(pd, &qa);
	if (!qp)
		die("create QP");
	connect_qp(qp, sgid, &peer, timeout);

	sge = (struct ibv_sge){ (uintptr_t)buf, 8, mr->lkey };
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = 0x1000;
	wr.wr.rdma.rkey = 0x1234;
	if (ibv_post_send(qp, &wr, &bad))
		die("post RDMA WRITE");
	printf("qpn=%u psn=%u rq_psn=%u va=%#llx rkey=%#x len=%u\n",
	       qp->qp_num, SQ_PSN, RQ_PSN,
	       (unsigned long long)(uintptr_t)readable, rmr->rkey,
	       READABLE_LEN);
	fflush(stdout);

	while (fgets(cmd, sizeof(cmd), stdin)) {
		if (sscanf(cmd, "poll %u", &ms) == 1) {
			poll_for(qa.send_cq, ms);
		} else if (sscanf(cmd, "event %u", &ms) == 1) {
			event_for(ctx, ms);
		} else if (!strncmp(cmd, "write", 5)) {
			printf("write=%d\n", ibv_post_send(qp, &wr, &bad));
		} else if (!strncmp(cmd, "state", 5)) {
			state_of(qp);
		} else if (!strncmp(cmd, "dereg", 5) && rmr) {
			printf("dereg=%d\n", ibv_dereg_mr(rmr));
			rmr = NULL;
		} else if (!strncmp(cmd, "quit", 4)) {
			break;
		}
		fflush(stdout);
	}
	ibv_destroy_qp(qp);
	if (rmr)
		ibv_dereg_mr(rmr);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(qa.send_cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}
