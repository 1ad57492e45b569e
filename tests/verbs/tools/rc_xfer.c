// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rc_xfer: a one-way RC transfer in which every byte is verified.
 *
 *   rc_xfer -d DEV [-g GID] [-p PORT] [-s SIZE] [-n COUNT] [-w WINDOW]
 *           [-o send|write] [-T SECS]            server (receiver)
 *   rc_xfer ... HOST                             client (sender)
 *
 * The client sends COUNT messages of SIZE bytes, keeping up to WINDOW in
 * flight: SENDs into receives that the receiver reposts only once it has
 * checked the message, or RDMA WRITEs with immediate (the immediate
 * carries the message number) each into its own area of the receiver's
 * buffer, so that no write can overwrite data not yet checked. Message i
 * holds a pseudo-random pattern derived from i, so a lost, duplicated,
 * reordered or corrupted packet that the transport let through shows up
 * as a mismatch at a known offset. The receiver checks length, order and
 * content of every message and reports the result back over TCP; both
 * sides exit 0 only if all COUNT messages arrived intact.
 *
 * ibv_rc_pingpong -c only checks one byte per page, which is why the
 * guest tests use this for lossy links (tests/guest/t-netem.sh).
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>

#define XFER_PSN	0x1000

/* What each side tells the other over TCP before the transfer. */
struct xfer_info {
	uint32_t qpn;
	uint32_t rkey;
	uint64_t addr;
	union ibv_gid gid;
};

/* The receiver's verdict, sent back over TCP after the transfer. */
struct xfer_result {
	uint32_t received;
	uint32_t bad;		/* messages that failed a check */
};

static struct {
	const char *dev;
	const char *host;
	int gid;
	int port;
	uint32_t size;
	uint32_t count;
	uint32_t window;
	bool write;
	int secs;
} opt = {
	.gid = 1, .port = 18700, .size = 65536, .count = 16, .window = 16,
	.secs = 600,
};

static struct timespec start;

static void die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "rc_xfer: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

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
		die("not done after %d s", opt.secs);
}

/* The pattern of message @msg: xorshift64 seeded by the message number. */
static void fill(uint8_t *p, uint32_t len, uint32_t msg)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * (msg + 1);
	uint32_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (uint8_t)x;
	}
}

/* Offset of the first byte that differs from message @msg's pattern, or -1. */
static long verify(const uint8_t *p, uint32_t len, uint32_t msg)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * (msg + 1);
	uint32_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (p[i] != (uint8_t)x)
			return i;
	}
	return -1;
}

static int tcp_connect(void)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	char port[16];
	int fd, tries;

	snprintf(port, sizeof(port), "%d", opt.port);
	if (getaddrinfo(opt.host, port, &hints, &res))
		die("cannot resolve %s", opt.host);
	/* The server may still be starting: retry for a while. */
	for (tries = 0; tries < 100; tries++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			die("socket: %m");
		if (!connect(fd, res->ai_addr, res->ai_addrlen)) {
			freeaddrinfo(res);
			return fd;
		}
		close(fd);
		usleep(200000);
	}
	die("cannot connect to %s:%d: %m", opt.host, opt.port);
}

static int tcp_accept(void)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(opt.port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int one = 1, lfd, fd;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		die("socket: %m");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) || listen(lfd, 1))
		die("cannot listen on port %d: %m", opt.port);
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		die("accept: %m");
	close(lfd);
	return fd;
}

static void xchg(int fd, const void *out, void *in, size_t len)
{
	if (out && write(fd, out, len) != (ssize_t)len)
		die("TCP write failed: %m");
	if (in && recv(fd, in, len, MSG_WAITALL) != (ssize_t)len)
		die("TCP read failed (peer gone?)");
}

static struct ibv_context *open_dev(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), opt.dev))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		die("cannot open device %s", opt.dev);
	return ctx;
}

static void connect_qp(struct ibv_qp *qp, struct ibv_port_attr *port,
		       const struct xfer_info *peer)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	int rc;

	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			   IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (rc)
		die("INIT: %s", strerror(rc));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = port->active_mtu;
	a.dest_qp_num = peer->qpn;
	a.rq_psn = XFER_PSN;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = opt.gid;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (rc)
		die("RTR: %s", strerror(rc));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = XFER_PSN;
	a.timeout = 14;		/* 67 ms */
	a.retry_cnt = 7;
	a.rnr_retry = 7;	/* infinite: the receiver reposts as it goes */
	a.max_rd_atomic = 1;
	rc = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			   IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			   IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	if (rc)
		die("RTS: %s", strerror(rc));
}

static void usage(void)
{
	fprintf(stderr,
		"usage: rc_xfer -d DEV [-g GID] [-p PORT] [-s SIZE] [-n COUNT]\n"
		"               [-w WINDOW] [-o send|write] [-T SECS] [HOST]\n");
	exit(2);
}

static void parse(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "d:g:p:s:n:w:o:T:")) != -1) {
		switch (c) {
		case 'd': opt.dev = optarg; break;
		case 'g': opt.gid = atoi(optarg); break;
		case 'p': opt.port = atoi(optarg); break;
		case 's': opt.size = strtoul(optarg, NULL, 0); break;
		case 'n': opt.count = strtoul(optarg, NULL, 0); break;
		case 'w': opt.window = strtoul(optarg, NULL, 0); break;
		case 'T': opt.secs = atoi(optarg); break;
		case 'o':
			if (!strcmp(optarg, "write"))
				opt.write = true;
			else if (strcmp(optarg, "send"))
				usage();
			break;
		default: usage();
		}
	}
	if (optind < argc)
		opt.host = argv[optind++];
	if (!opt.dev || optind != argc || !opt.size || !opt.count ||
	    !opt.window || opt.window > 128)
		usage();
}

int main(int argc, char **argv)
{
	struct xfer_info me = {}, peer;
	struct xfer_result res = {};
	struct ibv_port_attr port;
	struct ibv_context *ctx;
	struct ibv_wc wc[16];
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	uint32_t posted = 0, done = 0, expect = 0;
	uint8_t *buf;
	size_t len;
	int fd, n, i;

	parse(argc, argv);
	clock_gettime(CLOCK_MONOTONIC, &start);

	ctx = open_dev();
	if (ibv_query_port(ctx, 1, &port))
		die("ibv_query_port failed");
	if (ibv_query_gid(ctx, 1, opt.gid, &me.gid))
		die("no GID at index %d", opt.gid);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 2 * opt.window, NULL, NULL, 0);
	/* A writer needs one area per message on the receiving side. */
	len = (size_t)opt.size *
	      (opt.write && !opt.host ? opt.count : opt.window);
	if (len > (256ul << 20))
		die("%zu bytes of buffer is too much", len);
	buf = aligned_alloc(4096, (len + 4095) & ~4095ul);
	if (!pd || !cq || !buf)
		die("cannot allocate resources");
	memset(buf, 0, len);
	mr = ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		die("ibv_reg_mr: %m");
	{
		struct ibv_qp_init_attr qa = {
			.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = opt.window,
				 .max_recv_wr = opt.window,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		qp = ibv_create_qp(pd, &qa);
		if (!qp)
			die("ibv_create_qp: %m");
	}
	me.qpn = qp->qp_num;
	me.rkey = mr->rkey;
	me.addr = (uintptr_t)buf;

	fd = opt.host ? tcp_connect() : tcp_accept();
	xchg(fd, &me, &peer, sizeof(me));
	connect_qp(qp, &port, &peer);

	if (!opt.host) {
		/* Receiver: one receive per slot, reposted once checked. */
		for (i = 0; i < (int)opt.window && i < (int)opt.count; i++) {
			struct ibv_sge sge = { (uintptr_t)buf + (size_t)i * opt.size,
					       opt.size, mr->lkey };
			struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge,
						  .num_sge = 1 }, *bad;

			if (ibv_post_recv(qp, &wr, &bad))
				die("ibv_post_recv failed");
			posted++;
		}
		/* Both sides are ready to receive: let the sender go. */
		xchg(fd, &me, NULL, sizeof(me));
		while (expect < opt.count) {
			check_deadline();
			n = ibv_poll_cq(cq, 16, wc);
			if (n < 0)
				die("ibv_poll_cq failed");
			for (i = 0; i < n; i++) {
				uint32_t slot = wc[i].wr_id, msg = expect++;
				uint8_t *p = buf + (size_t)(opt.write ? msg : slot) *
					     opt.size;
				long off;

				if (wc[i].status != IBV_WC_SUCCESS)
					die("message %u: %s", msg,
					    ibv_wc_status_str(wc[i].status));
				if (slot != msg % opt.window) {
					fprintf(stderr, "message %u in slot %u, expected %u\n",
						msg, slot, msg % opt.window);
					res.bad++;
				}
				if (wc[i].byte_len != opt.size) {
					fprintf(stderr, "message %u: %u bytes, expected %u\n",
						msg, wc[i].byte_len, opt.size);
					res.bad++;
				}
				if (opt.write &&
				    (!(wc[i].wc_flags & IBV_WC_WITH_IMM) ||
				     ntohl(wc[i].imm_data) != msg)) {
					fprintf(stderr, "message %u: wrong immediate\n", msg);
					res.bad++;
				}
				off = verify(p, opt.size, msg);
				if (off >= 0) {
					fprintf(stderr, "message %u: data differs at offset %ld\n",
						msg, off);
					res.bad++;
				}
				res.received++;
				memset(p, 0, opt.size);
				if (posted < opt.count) {
					struct ibv_sge sge = {
						(uintptr_t)buf + (size_t)slot * opt.size,
						opt.size, mr->lkey };
					struct ibv_recv_wr wr = { .wr_id = slot,
								  .sg_list = &sge,
								  .num_sge = 1 }, *bad;

					if (ibv_post_recv(qp, &wr, &bad))
						die("ibv_post_recv failed");
					posted++;
				}
			}
		}
		xchg(fd, &res, NULL, sizeof(res));
	} else {
		/* Sender: fill a slot, send it, refill once it completed. */
		xchg(fd, NULL, &peer, sizeof(peer));
		while (done < opt.count) {
			check_deadline();
			while (posted < opt.count && posted - done < opt.window) {
				uint32_t slot = posted % opt.window;
				uint8_t *p = buf + (size_t)slot * opt.size;
				struct ibv_sge sge = { (uintptr_t)p, opt.size,
						       mr->lkey };
				struct ibv_send_wr wr = {
					.wr_id = posted, .sg_list = &sge,
					.num_sge = 1,
					.send_flags = IBV_SEND_SIGNALED,
				}, *bad;

				fill(p, opt.size, posted);
				if (opt.write) {
					wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
					wr.imm_data = htonl(posted);
					wr.wr.rdma.rkey = peer.rkey;
					wr.wr.rdma.remote_addr = peer.addr +
						(uint64_t)posted * opt.size;
				} else {
					wr.opcode = IBV_WR_SEND;
				}
				if (ibv_post_send(qp, &wr, &bad))
					die("ibv_post_send failed");
				posted++;
			}
			n = ibv_poll_cq(cq, 16, wc);
			if (n < 0)
				die("ibv_poll_cq failed");
			for (i = 0; i < n; i++) {
				if (wc[i].status != IBV_WC_SUCCESS)
					die("send %llu: %s",
					    (unsigned long long)wc[i].wr_id,
					    ibv_wc_status_str(wc[i].status));
				if (wc[i].wr_id != done)
					die("send %llu completed, expected %u",
					    (unsigned long long)wc[i].wr_id, done);
				done++;
			}
		}
		xchg(fd, NULL, &res, sizeof(res));
	}

	printf("rc_xfer: %s %u messages of %u bytes (%llu bytes) by %s in %.2f s: %u received, %u bad\n",
	       opt.host ? "sent" : "received", opt.count, opt.size,
	       (unsigned long long)opt.count * opt.size,
	       opt.write ? "RDMA WRITE with immediate" : "SEND", elapsed(),
	       res.received, res.bad);
	ibv_destroy_qp(qp);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(buf);
	close(fd);
	if (res.received != opt.count || res.bad)
		return 1;
	printf("rc_xfer: all data verified\n");
	return 0;
}
