// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * hold_cntrs DEV READY_FILE
 *
 * Holds completion counters of every kind attached to QPs, an armed
 * eventfd and a thread blocked in WAIT, so that the guest script can
 * look at them (debugfs, rdma statistic) and then take them away the
 * hard way: kill -9, rdma link delete, rmmod.
 *
 * Prints "qp1 N qp2 M" (the QP numbers), creates READY_FILE once
 * everything exists, then sleeps (bounded) until it is killed.  Exits 1
 * if the setup failed.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>

#include "../cntr_ioctl.h"
#include "../fixture.h"

#define HOLD_S	300

static struct ibv_context *ctx;
static struct cntr waited;

static struct ibv_qp *rc_qp_in_init(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);

	if (qp && ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
		ibv_destroy_qp(qp);
		qp = NULL;
	}
	return qp;
}

/*
 * Blocks in WAIT until the process dies or the device goes away, then
 * prints what it returned and the values it reported (UINT64_MAX each
 * when it reported none).
 */
static void *wait_forever(void *arg)
{
	uint64_t comp = UINT64_MAX, err = UINT64_MAX;
	int rc = cntr_wait(ctx, &waited, 1ull << 40, NULL, HOLD_S * 1000,
			   &comp, &err);

	(void)arg;
	printf("hold_cntrs: wait returned %s, values %llu %llu\n",
	       strerror(rc), (unsigned long long)comp,
	       (unsigned long long)err);
	fflush(stdout);
	return NULL;
}

#define DIE(...) do { fprintf(stderr, "hold_cntrs: " __VA_ARGS__); \
		      exit(1); } while (0)

int main(int argc, char **argv)
{
	struct cntr a, b, c;
	struct ib_uverbs_buffer_desc va;
	struct ibv_qp *qp1, *qp2;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	uint64_t *page, thr = 100;
	pthread_t t;
	FILE *ready;
	int efd, i;

	if (argc != 3)
		DIE("usage: hold_cntrs DEV READY_FILE\n");
	ctx = open_device_by_name(argv[1]);
	if (!ctx)
		DIE("cannot open %s\n", argv[1]);
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	qp1 = cq ? rc_qp_in_init(pd, cq) : NULL;
	qp2 = qp1 ? rc_qp_in_init(pd, cq) : NULL;
	if (!qp2)
		DIE("verbs objects: %s\n", strerror(errno));

	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		DIE("mmap\n");
	va = (struct ib_uverbs_buffer_desc){
		.type = IB_UVERBS_BUFFER_TYPE_VA, .fd = -1,
		.addr = (uintptr_t)&page[2], .length = 8,
	};
	/* a: WRS in the driver page; b: BYTES with completions in a VA. */
	if (cntr_create_ex(ctx, &a, RXC_COMP_CNTR_TYPE_WRS, NULL, NULL) ||
	    cntr_create_ex(ctx, &b, RXC_COMP_CNTR_TYPE_BYTES, &va, NULL) ||
	    cntr_create_ex(ctx, &c, -1, NULL, NULL))
		DIE("create counters\n");
	if (qp_attach(ctx, qp1, &a, OP_SEND | OP_RECV) ||
	    qp_attach(ctx, qp1, &b, OP_WRITE) ||
	    qp_attach(ctx, qp2, &b, OP_REMOTE_WRITE | OP_REMOTE_READ))
		DIE("attach\n");
	if (cntr_modify(ctx, &a, ENTRY_COMP, OP_INC, 5))
		DIE("inc\n");
	efd = eventfd(0, 0);
	if (efd < 0 || cntr_notify(ctx, &b, efd, &thr, NULL))
		DIE("notify\n");
	waited = c;
	if (pthread_create(&t, NULL, wait_forever, NULL))
		DIE("thread\n");

	printf("qp1 %u qp2 %u\n", qp1->qp_num, qp2->qp_num);
	fflush(stdout);
	ready = fopen(argv[2], "w");
	if (!ready)
		DIE("cannot create %s\n", argv[2]);
	fclose(ready);
	/* Everything stays as it is until the script kills us. */
	for (i = 0; i < HOLD_S; i++)
		sleep(1);
	return 0;
}
