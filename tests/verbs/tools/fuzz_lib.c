// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The fuzzers' shared harness; see fuzz_lib.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz_lib.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Operands are the caller's, from optind on. */
bool fuzz_parse(int argc, char **argv, struct fuzz_opts *o)
{
	char optstring[16] = "d:s:n:T:";
	int c;

	if (o->own_opt)
		snprintf(optstring, sizeof(optstring), "d:s:n:T:%c:",
			 o->own_opt);
	o->seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	while ((c = getopt(argc, argv, optstring)) != -1) {
		if (c == 'd')
			o->dev = optarg;
		else if (c == 's')
			o->seed = strtoull(optarg, NULL, 0);
		else if (c == 'n')
			o->count = strtoull(optarg, NULL, 0);
		else if (c == 'T')
			o->secs = strtoul(optarg, NULL, 0);
		else if (c == o->own_opt)
			o->own = strtoul(optarg, NULL, 0);
		else
			return false;
	}
	return o->dev && (!o->own_opt || o->own);
}

void fuzz_die(const char *what)
{
	fprintf(stderr, "%s: %s\n", program_invocation_short_name, what);
	exit(1);
}

uint64_t fuzz_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

struct ibv_device *fuzz_find_device(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	int i;

	for (i = 0; list && list[i]; i++) {
		if (!strcmp(ibv_get_device_name(list[i]), name))
			return list[i];
	}
	return NULL;
}

/* Streams of one seed differ, and none starts at zero, where it would stay. */
void fuzz_rng_init(struct fuzz_rng *r, uint64_t seed, unsigned int stream)
{
	r->s = (seed + 1) * 0x9e3779b97f4a7c15ull + stream * 2 + 1;
}

/* xorshift64*: small, fast, and the same on every machine. */
uint64_t fuzz_rnd(struct fuzz_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dull;
}

uint32_t fuzz_rnd_below(struct fuzz_rng *r, uint32_t n)
{
	return n ? fuzz_rnd(r) % n : 0;
}

/* Half the time a value at an edge, otherwise anything. */
uint64_t fuzz_rnd_val(struct fuzz_rng *r)
{
	static const uint64_t edges[] = {
		0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255,
		256, 1023, 1024, 4095, 4096, 4097, 65535, 65536, 0x7fffffff,
		0x80000000, 0xfffffffe, 0xffffffff, 0x100000000ull,
		INT64_MAX, (uint64_t)INT64_MIN, UINT64_MAX,
	};

	if (fuzz_rnd(r) & 1)
		return edges[fuzz_rnd_below(r, ARRAY_SIZE(edges))];
	return fuzz_rnd(r) >> fuzz_rnd_below(r, 64);
}

/*
 * An index below @n, each as likely as its weight: @weight is the first
 * weight of an array of structures @stride bytes apart.
 */
unsigned int fuzz_pick(struct fuzz_rng *r, const unsigned int *weight,
		       unsigned int n, size_t stride)
{
	const char *p = (const char *)weight;
	unsigned int i, total = 0, x;

	for (i = 0; i < n; i++)
		total += *(const unsigned int *)(p + i * stride);
	x = fuzz_rnd_below(r, total);
	for (i = 0; x >= *(const unsigned int *)(p + i * stride); i++)
		x -= *(const unsigned int *)(p + i * stride);
	return i;
}

/* RESET or new -> RTS, connected to @dest_qpn on the same port. */
int fuzz_rc_connect(struct ibv_qp *qp, uint32_t dest_qpn, unsigned int access)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = access,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.sgid_index = FUZZ_GID_INDEX;
	if (ibv_query_gid(qp->context, 1, FUZZ_GID_INDEX,
			  &a.ah_attr.grh.dgid) ||
	    ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* The connection's objects, its QP still in RESET; false if not made. */
bool fuzz_traffic_open(struct fuzz_traffic *t, struct ibv_device *dev)
{
	struct ibv_qp_init_attr init = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	t->ctx = ibv_open_device(dev);
	t->pd = t->ctx ? ibv_alloc_pd(t->ctx) : NULL;
	t->cq = t->ctx ? ibv_create_cq(t->ctx, 8, NULL, NULL, 0) : NULL;
	t->buf = calloc(2, FUZZ_XFER_LEN);
	if (!t->pd || !t->cq || !t->buf)
		return false;
	init.send_cq = t->cq;
	init.recv_cq = t->cq;
	t->qp = ibv_create_qp(t->pd, &init);
	t->mr = ibv_reg_mr(t->pd, t->buf, 2 * FUZZ_XFER_LEN,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ);
	return t->qp && t->mr;
}

/* The connection's QP to RTS, connected to itself. */
int fuzz_traffic_connect(struct fuzz_traffic *t)
{
	return fuzz_rc_connect(t->qp, t->qp->qp_num, IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_READ);
}

void fuzz_traffic_setup(struct fuzz_traffic *t, struct ibv_device *dev)
{
	if (!fuzz_traffic_open(t, dev) || fuzz_traffic_connect(t))
		fuzz_die("cannot set up the traffic QP");
}

/* One request between the two halves of the buffer, waited for (10 s). */
static bool traffic_rdma(struct fuzz_traffic *t, enum ibv_wr_opcode op)
{
	struct ibv_sge sge = { (uintptr_t)t->buf, FUZZ_XFER_LEN, t->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)t->buf + FUZZ_XFER_LEN, t->mr->rkey },
	}, *bad;
	uint64_t end = fuzz_now_ns() + 10000000000ull;
	struct ibv_wc wc;
	int n;

	if (ibv_post_send(t->qp, &wr, &bad)) {
		t->error = "post_send failed";
		return false;
	}
	while (!(n = ibv_poll_cq(t->cq, 1, &wc)) && fuzz_now_ns() < end)
		usleep(100);
	if (n != 1 || wc.status != IBV_WC_SUCCESS) {
		t->error = n == 1 ? ibv_wc_status_str(wc.status) :
				    "no completion in 10 s";
		return false;
	}
	return true;
}

/* Writes a pattern across, reads it back; false (with t->error) if not. */
bool fuzz_traffic_round(struct fuzz_traffic *t)
{
	char *src = t->buf, *dst = t->buf + FUZZ_XFER_LEN;
	unsigned int i;

	for (i = 0; i < FUZZ_XFER_LEN; i++)
		src[i] = (char)(t->done * 13 + i);
	if (!traffic_rdma(t, IBV_WR_RDMA_WRITE))
		return false;
	if (memcmp(src, dst, FUZZ_XFER_LEN)) {
		t->error = "written data differs";
		return false;
	}
	memset(src, 0, FUZZ_XFER_LEN);
	if (!traffic_rdma(t, IBV_WR_RDMA_READ))
		return false;
	if (memcmp(src, dst, FUZZ_XFER_LEN)) {
		t->error = "read data differs";
		return false;
	}
	t->done++;
	return true;
}

/* The thread body: rounds until told to stop or one fails. */
void *fuzz_traffic_main(void *arg)
{
	struct fuzz_traffic *t = arg;

	while (!t->stop && fuzz_traffic_round(t))
		;
	return NULL;
}

/* Once the fuzzing is over the device must still carry traffic. */
bool fuzz_traffic_after(struct fuzz_traffic *t, unsigned int rounds)
{
	unsigned int i;

	for (i = 0; i < rounds && !t->error; i++)
		fuzz_traffic_round(t);
	return !t->error && t->done;
}

void fuzz_traffic_release(struct fuzz_traffic *t)
{
	ibv_destroy_qp(t->qp);
	ibv_dereg_mr(t->mr);
	ibv_destroy_cq(t->cq);
	ibv_dealloc_pd(t->pd);
	ibv_close_device(t->ctx);
	free(t->buf);
}
