// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * qp_hog DEV MAX_QPS DEPTH
 *
 * Creates RC QPs whose send and receive queues hold DEPTH work requests
 * each, and connects each to itself (RTS), until one fails or MAX_QPS
 * exist: the kernel memory behind them (rings, and from RTS on the
 * private send queue copy) is what a memory cgroup must bound.  Prints
 * "qp N" as each QP is ready (so a caller learns how far it got even if
 * the process is killed), then "created=N errno=E", E being 0 when all
 * MAX_QPS were made, else the error of the create or modify that failed.
 * Destroys everything before exiting; exits 0 unless the device could
 * not be opened.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "../fixture.h"

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr attr = { .qp_type = IBV_QPT_RC };
	struct test_env env = {};
	struct ibv_context *ctx;
	struct ibv_qp **qps;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int max, n, err = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: qp_hog DEV MAX_QPS DEPTH\n");
		return 2;
	}
	max = atoi(argv[2]);
	ctx = open_device_by_name(argv[1]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = pd ? ibv_create_cq(ctx, 1, NULL, NULL, 0) : NULL;
	qps = calloc(max > 0 ? max : 1, sizeof(*qps));
	if (!cq || !qps ||
	    ibv_query_port(ctx, TEST_PORT, &env.port_attr) ||
	    ibv_query_gid(ctx, TEST_PORT, TEST_GID_INDEX, &env.gid)) {
		fprintf(stderr, "qp_hog: device, PD, CQ or port: %s\n",
			strerror(errno));
		return 1;
	}
	env.dev_name = argv[1];
	env.ctx = ctx;
	env.pd = pd;
	attr.send_cq = cq;
	attr.recv_cq = cq;
	attr.cap.max_send_wr = atoi(argv[3]);
	attr.cap.max_recv_wr = attr.cap.max_send_wr;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;

	for (n = 0; n < max; n++) {
		qps[n] = ibv_create_qp(pd, &attr);
		if (!qps[n]) {
			err = errno;
			break;
		}
		err = qp_connect_self(&env, qps[n]);
		if (err) {
			ibv_destroy_qp(qps[n]);
			break;
		}
		printf("qp %d\n", n + 1);
		fflush(stdout);
	}
	printf("created=%d errno=%d\n", n, err);
	fflush(stdout);

	while (n--)
		ibv_destroy_qp(qps[n]);
	free(qps);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}
