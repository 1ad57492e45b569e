// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Credit-based flow control with completion counters, between two
 * processes.  No CQ is polled on the data path.
 *
 * The receiver owns a ring of SLOTS message slots.  The sender RDMA-writes
 * message i into slot i % SLOTS, but only while it holds a credit: it may
 * run at most SLOTS messages ahead of what the receiver consumed.
 *
 *  - The receiver learns that message i arrived from a counter attached to
 *    its QP with REMOTE_RDMA_WRITE: each incoming write adds 1 once its
 *    data is placed, so "counter > i" means slot i % SLOTS is complete.
 *  - The receiver returns credits by RDMA-writing its consumed count into
 *    a word of the sender's memory.  The sender watches its own
 *    REMOTE_RDMA_WRITE counter move, then reads the word.
 *  - Both sides post every write unsignaled and learn that their send
 *    queue has room from a counter attached with RDMA_WRITE.
 *  - A failed work request adds 1 to a counter's error value, whether it
 *    was signaled or not; both sides stop on any error.
 *
 *   credit_flow -d rxc0 [-g 1] [-p 18515] [-n 2000] [-s 16]           receiver
 *   credit_flow -d rxc0 [-g 1] [-p 18515] [-n 2000] [-s 16] HOST      sender
 *
 * Both print one summary line and exit 0 when every message arrived in
 * order and intact.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define MSG_SIZE	64
#define SQ_DEPTH	32
#define TIMEOUT_MS	30000

struct opts {
	const char *dev;
	const char *host;		/* NULL: receiver */
	int gid_index;
	int port;
	uint64_t count;
	uint64_t slots;
};

/* One side: its QP and the two counters that replace CQ polling. */
struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	/* Incoming writes placed in our memory (REMOTE_RDMA_WRITE). */
	struct ibv_comp_cntr *remote;
	/* Our own writes completed (RDMA_WRITE). */
	struct ibv_comp_cntr *local;
	struct rxcdv_comp_cntr_attr rv, lv;	/* their value pointers */
};

static struct ibv_comp_cntr *counter(struct side *s, uint32_t op,
				     struct rxcdv_comp_cntr_attr *vals)
{
	struct ibv_comp_cntr_init_attr init = { .type = IBV_COMP_CNTR_TYPE_WRS };
	struct ibv_qp_attach_comp_cntr_attr at = { .op_mask = op };
	struct ibv_comp_cntr *c = ibv_create_comp_cntr(s->ctx, &init);
	int err;

	if (!c)
		die("ibv_create_comp_cntr", errno);
	/* Attach while the QP is in RESET: the only time it may be done. */
	err = ibv_qp_attach_comp_cntr(s->qp, c, &at);
	if (err)
		die("ibv_qp_attach_comp_cntr", err);
	err = rxcdv_query_comp_cntr(c, vals, sizeof(*vals));
	if (err)
		die("rxcdv_query_comp_cntr", err);
	return c;
}

static void side_init(struct side *s, const struct opts *o, size_t len)
{
	s->ctx = open_device(o->dev);
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, SQ_DEPTH + 1, NULL, NULL, 0);
	if (!s->pd || !s->cq)
		die("pd/cq", errno);
	s->qp = create_rc_qp(s->pd, s->cq, SQ_DEPTH, sizeof(uint64_t));
	if (posix_memalign((void **)&s->buf, 4096, len))
		die("posix_memalign", ENOMEM);
	memset(s->buf, 0, len);
	s->mr = ibv_reg_mr(s->pd, s->buf, len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	if (!s->mr)
		die("ibv_reg_mr", errno);
	s->remote = counter(s, IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE,
			    &s->rv);
	s->local = counter(s, IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE, &s->lv);
}

static void side_connect(struct side *s, const struct opts *o, int *sock,
			 struct conn_info *peer)
{
	struct conn_info me = {
		.qpn = s->qp->qp_num,
		.psn = s->qp->qp_num & 0xffffff,
		.rkey = s->mr->rkey,
		.addr = (uintptr_t)s->buf,
	};
	int err = ibv_query_gid(s->ctx, 1, o->gid_index, &me.gid);

	if (err)
		die("ibv_query_gid", errno);
	*sock = exchange(o->host, o->port, &me, peer);
	connect_rc_qp(s->qp, o->gid_index, peer, me.psn);
}

/* Any failed work request, on either counter, ends the run. */
static void check_errors(struct side *s, const char *who)
{
	uint64_t r = rxcdv_comp_cntr_load(s->rv.err_count);
	uint64_t l = rxcdv_comp_cntr_load(s->lv.err_count);

	if (r || l) {
		fprintf(stderr, "%s: %llu remote and %llu local work requests failed\n",
			who, (unsigned long long)r, (unsigned long long)l);
		exit(1);
	}
}

/* Waits for room in the send queue: at most SQ_DEPTH writes in flight. */
static void wait_sq_room(struct side *s, uint64_t posted, const char *who)
{
	if (posted < SQ_DEPTH)
		return;
	if (!poll_at_least(s->lv.comp_count, posted - SQ_DEPTH + 1,
			   s->lv.err_count, TIMEOUT_MS)) {
		check_errors(s, who);
		fprintf(stderr, "%s: send queue stuck\n", who);
		exit(1);
	}
}

static void post_write(struct side *s, void *src, uint32_t len,
		       uint32_t flags, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)src, .length = len, .lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		/* Unsignaled: the RDMA_WRITE counter tracks completion. */
		.send_flags = flags,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;
	int err = ibv_post_send(s->qp, &wr, &bad);

	if (err)
		die("ibv_post_send", err);
}

static void fill_msg(char *p, uint64_t seq)
{
	int i;

	memcpy(p, &seq, sizeof(seq));
	for (i = sizeof(seq); i < MSG_SIZE; i++)
		p[i] = (char)(seq * 7 + i);
}

static bool msg_ok(const char *p, uint64_t seq)
{
	char want[MSG_SIZE];

	fill_msg(want, seq);
	return !memcmp(p, want, MSG_SIZE);
}

static int receiver(const struct opts *o)
{
	size_t ring_len = o->slots * MSG_SIZE;
	/* The credit value travels inline: the word may change at once. */
	uint64_t consumed, credit, updates = 0;
	struct conn_info peer;
	struct side s;
	int sock;

	side_init(&s, o, ring_len);
	side_connect(&s, o, &sock, &peer);

	for (consumed = 0; consumed < o->count; consumed++) {
		const char *slot = s.buf + (consumed % o->slots) * MSG_SIZE;

		/* Message "consumed" is complete once the counter passed it. */
		if (!poll_at_least(s.rv.comp_count, consumed + 1,
				   s.rv.err_count, TIMEOUT_MS)) {
			check_errors(&s, "receiver");
			fprintf(stderr, "receiver: message %llu never arrived\n",
				(unsigned long long)consumed);
			return 1;
		}
		if (!msg_ok(slot, consumed)) {
			fprintf(stderr, "receiver: message %llu corrupt\n",
				(unsigned long long)consumed);
			return 1;
		}
		/* Return credits every half ring, and at the end. */
		if ((consumed + 1) % (o->slots / 2) && consumed + 1 != o->count)
			continue;
		credit = consumed + 1;
		wait_sq_room(&s, updates, "receiver");
		post_write(&s, &credit, sizeof(credit), IBV_SEND_INLINE,
			   peer.addr, peer.rkey);
		updates++;
	}
	/* Our credit writes are done before we tear the QP down. */
	if (!poll_at_least(s.lv.comp_count, updates, s.lv.err_count,
			   TIMEOUT_MS)) {
		check_errors(&s, "receiver");
		return 1;
	}
	check_errors(&s, "receiver");
	sync_peer(sock);
	printf("receiver: %llu messages in order through %llu slots, %llu credit updates, 0 errors\n",
	       (unsigned long long)o->count, (unsigned long long)o->slots,
	       (unsigned long long)updates);
	return 0;
}

static int sender(const struct opts *o)
{
	/* One credit word, then SQ_DEPTH source slots. */
	size_t len = MSG_SIZE + SQ_DEPTH * MSG_SIZE;
	const volatile uint64_t *credit_word;
	uint64_t i, credits = 0, stalls = 0, seen = 0;
	struct conn_info peer;
	struct side s;
	int sock;

	side_init(&s, o, len);
	credit_word = (const uint64_t *)s.buf;
	side_connect(&s, o, &sock, &peer);

	for (i = 0; i < o->count; i++) {
		char *src = s.buf + MSG_SIZE + (i % SQ_DEPTH) * MSG_SIZE;

		/* Out of credits: wait for the receiver to return some. */
		while (i - credits >= o->slots) {
			if (!poll_at_least(s.rv.comp_count, seen + 1,
					   s.rv.err_count, TIMEOUT_MS)) {
				check_errors(&s, "sender");
				fprintf(stderr, "sender: no credit after %llu\n",
					(unsigned long long)i);
				return 1;
			}
			/* Counter seen first: the word is at least that new. */
			seen = rxcdv_comp_cntr_load(s.rv.comp_count);
			credits = rxcdv_comp_cntr_load(credit_word);
			stalls++;
		}
		/* The source slot is free once its last write completed. */
		wait_sq_room(&s, i, "sender");
		fill_msg(src, i);
		post_write(&s, src, MSG_SIZE, 0,
			   peer.addr + (i % o->slots) * MSG_SIZE, peer.rkey);
	}
	if (!poll_at_least(s.lv.comp_count, o->count, s.lv.err_count,
			   TIMEOUT_MS)) {
		check_errors(&s, "sender");
		return 1;
	}
	check_errors(&s, "sender");
	sync_peer(sock);
	credits = rxcdv_comp_cntr_load(credit_word);
	printf("sender: %llu messages sent, %llu credited back, waited for credit %llu times, 0 errors\n",
	       (unsigned long long)o->count, (unsigned long long)credits,
	       (unsigned long long)stalls);
	return credits == o->count ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct opts o = {
		.dev = "rxc0", .gid_index = 1, .port = 18515, .count = 2000,
		.slots = 16,
	};
	int c;

	while ((c = getopt(argc, argv, "d:g:p:n:s:")) != -1) {
		switch (c) {
		case 'd': o.dev = optarg; break;
		case 'g': o.gid_index = atoi(optarg); break;
		case 'p': o.port = atoi(optarg); break;
		case 'n': o.count = strtoull(optarg, NULL, 0); break;
		case 's': o.slots = strtoull(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: %s [-d dev] [-g gid] [-p port] [-n count] [-s slots] [host]\n",
				argv[0]);
			return 2;
		}
	}
	if (optind < argc)
		o.host = argv[optind];
	if (o.slots < 2 || o.slots % 2 || !o.count) {
		fprintf(stderr, "slots must be even and >= 2, count > 0\n");
		return 2;
	}
	return o.host ? sender(&o) : receiver(&o);
}
