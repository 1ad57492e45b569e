// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * hold_device DEV READY_FILE
 *
 * Holds a device open with one of every object (rings mapped) while the
 * guest script removes the device under it (rdma link delete, rmmod).
 * Creates READY_FILE once everything exists, then waits (bounded) for the
 * removal and checks what an application must see: IBV_EVENT_DEVICE_FATAL,
 * EIO from new verbs, and a clean teardown of what it still holds.
 * Prints TAP-style lines; exits 0 only if every check passed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "../tap.h"
#include "../fixture.h"

/* Removal is driven by a script on a slow emulated machine. */
#define REMOVAL_TIMEOUT_S	300

struct held {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_qp *qp_srq;
	void *buf;
};

static struct ibv_qp *create_qp(struct held *h, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = h->cq,
		.recv_cq = h->cq,
		.srq = srq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(h->pd, &attr);
}

static void objects_are_created_and_mapped(struct held *h, const char *dev)
{
	struct ibv_srq_init_attr srq_attr = {
		.attr = { .max_wr = 8, .max_sge = 1 },
	};

	tap_begin("objects_are_created_and_mapped");
	h->ctx = open_device_by_name(dev);
	if (!CHECK(h->ctx, "cannot open %s", dev))
		goto out;
	h->buf = calloc(1, 65536);
	h->pd = ibv_alloc_pd(h->ctx);
	if (!CHECK(h->pd && h->buf, "alloc_pd: %s", err_name(errno)))
		goto out;
	h->mr = ibv_reg_mr(h->pd, h->buf, 65536, IBV_ACCESS_LOCAL_WRITE);
	h->cq = ibv_create_cq(h->ctx, 16, NULL, NULL, 0);
	h->srq = ibv_create_srq(h->pd, &srq_attr);
	CHECK(h->mr && h->cq && h->srq, "mr/cq/srq: %s", err_name(errno));
	if (h->cq && h->srq) {
		h->qp = create_qp(h, NULL);
		h->qp_srq = create_qp(h, h->srq);
		CHECK(h->qp && h->qp_srq, "create_qp: %s", err_name(errno));
	}
out:
	tap_end();
}

static void device_fatal_event_arrives(struct held *h)
{
	struct ibv_async_event ev;

	tap_begin("device_fatal_event_arrives");
	for (;;) {
		if (ibv_get_async_event(h->ctx, &ev)) {
			FAIL("get_async_event: %s", err_name(errno));
			break;
		}
		ibv_ack_async_event(&ev);
		if (ev.event_type == IBV_EVENT_DEVICE_FATAL)
			break;
	}
	tap_end();
}

static void new_objects_fail_with_eio(struct held *h)
{
	struct ibv_pd *pd;

	tap_begin("new_objects_fail_with_eio");
	errno = 0;
	pd = ibv_alloc_pd(h->ctx);
	CHECK(!pd && errno == EIO, "alloc_pd after removal: %p, %s",
	      (void *)pd, err_name(errno));
	if (pd)
		ibv_dealloc_pd(pd);
	tap_end();
}

static void polling_a_revoked_cq_finds_nothing(struct held *h)
{
	struct ibv_wc wc;

	tap_begin("polling_a_revoked_cq_finds_nothing");
	CHECK_EQ(ibv_poll_cq(h->cq, 1, &wc), 0);
	tap_end();
}

/* After removal the kernel objects are gone: destroy succeeds or is EIO. */
static void check_gone(int ret, const char *what)
{
	CHECK(ret == 0 || ret == EIO, "%s: %s", what, err_name(ret));
}

static void held_objects_can_still_be_released(struct held *h)
{
	tap_begin("held_objects_can_still_be_released");
	if (h->qp)
		check_gone(ibv_destroy_qp(h->qp), "destroy_qp");
	if (h->qp_srq)
		check_gone(ibv_destroy_qp(h->qp_srq), "destroy_qp (srq)");
	if (h->srq)
		check_gone(ibv_destroy_srq(h->srq), "destroy_srq");
	if (h->cq)
		check_gone(ibv_destroy_cq(h->cq), "destroy_cq");
	if (h->mr)
		check_gone(ibv_dereg_mr(h->mr), "dereg_mr");
	if (h->pd)
		check_gone(ibv_dealloc_pd(h->pd), "dealloc_pd");
	CHECK_EQ(ibv_close_device(h->ctx), 0);
	tap_end();
}

int main(int argc, char **argv)
{
	struct held h = {};
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEV READY_FILE\n", argv[0]);
		return 2;
	}
	/* Never outlive a script that failed to remove the device. */
	alarm(REMOVAL_TIMEOUT_S);

	tap_init("removal");
	objects_are_created_and_mapped(&h, argv[1]);
	if (!h.ctx)
		return tap_finish();

	fd = open(argv[2], O_CREAT | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);

	device_fatal_event_arrives(&h);
	new_objects_fail_with_eio(&h);
	if (h.cq)
		polling_a_revoked_cq_finds_nothing(&h);
	held_objects_can_still_be_released(&h);
	free(h.buf);
	return tap_finish();
}
