// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A batch of unsignaled RDMA writes whose completion is tracked by a
 * counter attached with RDMA_WRITE: no CQ entry is written for them and
 * none is polled.
 *
 * The counter counts every completed write, signaled or not.  When it
 * reaches the batch size, every write is complete, and when its value N is
 * read with acquire ordering, the data of those N writes is in place.  The
 * same value also says how many send queue slots are free again, so the
 * batch may be larger than the send queue.
 *
 * One process and one QP connected to itself (loopback through the
 * device's own GID).  With -B the counter counts bytes instead of work
 * requests; the final value is then count * size.  With -H it keeps the
 * QP and the counter until its standard input closes, so that a script
 * can look at them (rdma statistic, debugfs) meanwhile.
 *
 *   unsignaled_writes -d rxc0 [-g 1] [-n 1000] [-l 256] [-B] [-H]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define SQ_DEPTH	64
#define TIMEOUT_MS	30000

int main(int argc, char **argv)
{
	const char *dev = "rxc0";
	uint64_t count = 1000, i, want, unit;
	uint32_t size = 256;
	int gid_index = 1, c, err;
	bool bytes = false, hold = false;
	struct ibv_comp_cntr_init_attr init = {};
	struct ibv_qp_attach_comp_cntr_attr at = {
		.op_mask = IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE,
	};
	struct rxcdv_comp_cntr_attr vals;
	struct ibv_comp_cntr *cntr;
	struct conn_info self = {};
	struct ibv_context *ctx;
	struct ibv_wc wc;
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	struct ibv_mr *mr, *smr;
	char *src, *dst;

	while ((c = getopt(argc, argv, "d:g:n:l:BH")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'g': gid_index = atoi(optarg); break;
		case 'n': count = strtoull(optarg, NULL, 0); break;
		case 'l': size = strtoul(optarg, NULL, 0); break;
		case 'B': bytes = true; break;
		case 'H': hold = true; break;
		default:
			fprintf(stderr, "usage: %s [-d dev] [-g gid] [-n count] [-l size] [-B] [-H]\n",
				argv[0]);
			return 2;
		}
	}
	if (!count || !size || size > 65536) {
		fprintf(stderr, "count > 0 and 0 < size <= 65536\n");
		return 2;
	}

	ctx = open_device(dev);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, SQ_DEPTH + 1, NULL, NULL, 0);
	if (!pd || !cq)
		die("pd/cq", errno);
	qp = create_rc_qp(pd, cq, SQ_DEPTH, 0);

	/* Source: one slot per write in flight; destination: one per write. */
	src = malloc((size_t)SQ_DEPTH * size);
	dst = calloc(count, size);
	if (!src || !dst)
		die("malloc", ENOMEM);
	mr = ibv_reg_mr(pd, dst, (size_t)count * size,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		die("ibv_reg_mr", errno);
	smr = ibv_reg_mr(pd, src, (size_t)SQ_DEPTH * size,
			 IBV_ACCESS_LOCAL_WRITE);
	if (!smr)
		die("ibv_reg_mr", errno);

	init.type = bytes ? IBV_COMP_CNTR_TYPE_BYTES : IBV_COMP_CNTR_TYPE_WRS;
	cntr = ibv_create_comp_cntr(ctx, &init);
	if (!cntr)
		die("ibv_create_comp_cntr", errno);
	err = ibv_qp_attach_comp_cntr(qp, cntr, &at);
	if (err)
		die("ibv_qp_attach_comp_cntr", err);
	err = rxcdv_query_comp_cntr(cntr, &vals, sizeof(vals));
	if (err)
		die("rxcdv_query_comp_cntr", err);

	self.qpn = qp->qp_num;
	self.psn = 0x1234;
	if (ibv_query_gid(ctx, 1, gid_index, &self.gid))
		die("ibv_query_gid", errno);
	connect_rc_qp(qp, gid_index, &self, self.psn);

	/* What one completed write adds: 1, or its length for BYTES. */
	unit = bytes ? size : 1;
	for (i = 0; i < count; i++) {
		char *s = src + (i % SQ_DEPTH) * size;
		struct ibv_sge sge = {
			.addr = (uintptr_t)s, .length = size, .lkey = smr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = 0,	/* unsignaled */
			.wr.rdma = {
				.remote_addr = (uintptr_t)dst + i * size,
				.rkey = mr->rkey,
			},
		}, *bad;

		/* Slot i % SQ_DEPTH is free once write i - SQ_DEPTH is done. */
		if (i >= SQ_DEPTH &&
		    !poll_at_least(vals.comp_count, (i - SQ_DEPTH + 1) * unit,
				   vals.err_count, TIMEOUT_MS))
			break;
		memset(s, (int)(i & 0xff), size);
		err = ibv_post_send(qp, &wr, &bad);
		if (err)
			die("ibv_post_send", err);
	}

	want = count * unit;
	if (i < count || !poll_at_least(vals.comp_count, want, vals.err_count,
					TIMEOUT_MS)) {
		fprintf(stderr, "unsignaled_writes: stopped at %llu of %llu, counter %llu, errors %llu\n",
			(unsigned long long)i, (unsigned long long)count,
			(unsigned long long)rxcdv_comp_cntr_load(vals.comp_count),
			(unsigned long long)rxcdv_comp_cntr_load(vals.err_count));
		return 1;
	}
	/* The counter reached N: all N writes' data is in place. */
	for (i = 0; i < count; i++) {
		const char *d = dst + i * size;

		if (d[0] != (char)(i & 0xff) || d[size - 1] != (char)(i & 0xff)) {
			fprintf(stderr, "unsignaled_writes: write %llu not in place\n",
				(unsigned long long)i);
			return 1;
		}
	}
	/* Unsignaled and successful: nothing was written to the CQ. */
	c = ibv_poll_cq(cq, 1, &wc);
	printf("unsignaled_writes: %llu writes of %u bytes complete, %s counter %llu, errors %llu, %d CQEs\n",
	       (unsigned long long)count, size, bytes ? "bytes" : "wrs",
	       (unsigned long long)rxcdv_comp_cntr_load(vals.comp_count),
	       (unsigned long long)rxcdv_comp_cntr_load(vals.err_count), c);
	if (hold) {
		printf("unsignaled_writes: holding QP %u and its counter until stdin closes\n",
		       qp->qp_num);
		fflush(stdout);
		while (read(STDIN_FILENO, &hold, sizeof(hold)) > 0)
			;
	}

	ibv_destroy_qp(qp);		/* detaches the counter */
	ibv_destroy_comp_cntr(cntr);
	ibv_dereg_mr(smr);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return c == 0 ? 0 : 1;
}
