// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Traffic: what posted work requests do on the wire and what their
 * completions report. Every test here needs the data path.
 *
 * Traffic runs on one QP connected to itself (RC, UC) or addressed
 * through an AH to its own GID (UD), so one process and one device
 * suffice. Buffers: a source half and a destination half of one MR
 * (struct loop, fixture.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#define GRH_LEN		40

static int post_recv(struct loop *l, uint64_t wr_id, void *addr,
		     uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, l->mr->lkey };
	struct ibv_recv_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	return ibv_post_recv(l->qp, &wr, &bad);
}

/* Posts one signaled request on @l; fills the UD fields when needed. */
static int post_send(struct loop *l, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	wr->send_flags |= IBV_SEND_SIGNALED;
	if (l->ah) {
		wr->wr.ud.ah = l->ah;
		wr->wr.ud.remote_qpn = l->qp->qp_num;
		wr->wr.ud.remote_qkey = TEST_QKEY;
	}
	return ibv_post_send(l->qp, wr, &bad);
}

/* Posts @wr signaled with one SGE of @len bytes at @addr (post_send()). */
static int post_one(struct loop *l, struct ibv_send_wr *wr,
		    struct ibv_sge *sge, void *addr, uint32_t len, uint32_t lkey)
{
	*sge = (struct ibv_sge){ (uintptr_t)addr, len, lkey };
	wr->sg_list = sge;
	wr->num_sge = 1;
	return post_send(l, wr);
}

/* As post_one(), for an RDMA request to @remote under @rkey. */
static int post_rdma(struct loop *l, struct ibv_send_wr *wr,
		     struct ibv_sge *sge, void *addr, uint32_t len,
		     void *remote, uint32_t rkey)
{
	wr->wr.rdma.remote_addr = (uintptr_t)remote;
	wr->wr.rdma.rkey = rkey;
	return post_one(l, wr, sge, addr, len, l->mr->lkey);
}

static void rc_send_delivers_data_and_completes_both_sides(
	struct test_env *env)
{
	struct ibv_send_wr wr = { .wr_id = 7, .opcode = IBV_WR_SEND };
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct loop l;

	if (!loop_connect(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;
	if (!CHECK_OK(post_recv(&l, 3, l.dst, HALF)))
		goto out;
	if (!CHECK_OK(post_one(&l, &wr, &sge, l.src, 3000, l.mr->lkey)))
		goto out;

	if (wait_one(l.scq, &wc))
		check_wc(&wc, 7, IBV_WC_SUCCESS, IBV_WC_SEND);
	if (wait_one(l.rcq, &wc)) {
		check_wc(&wc, 3, IBV_WC_SUCCESS, IBV_WC_RECV);
		CHECK_EQ(wc.byte_len, 3000);
		CHECK_EQ(wc.qp_num, l.qp->qp_num);
		CHECK_EQ(wc.wc_flags & IBV_WC_WITH_IMM, 0);
		CHECK(!memcmp(l.dst, l.src, 3000), "received data differs");
	}
out:
	loop_destroy(&l);
}

static void rc_send_with_imm_delivers_immediate_data(struct test_env *env)
{
	struct ibv_send_wr wr = {
		.wr_id = 1, .opcode = IBV_WR_SEND_WITH_IMM,
		.imm_data = htobe32(0xdeadbeef),
	};
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct loop l;

	if (!loop_connect(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;
	if (!CHECK_OK(post_recv(&l, 2, l.dst, HALF)))
		goto out;
	if (!CHECK_OK(post_one(&l, &wr, &sge, l.src, 16, l.mr->lkey)))
		goto out;

	if (wait_one(l.scq, &wc))
		check_wc(&wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND);
	if (wait_one(l.rcq, &wc)) {
		check_wc(&wc, 2, IBV_WC_SUCCESS, IBV_WC_RECV);
		CHECK(wc.wc_flags & IBV_WC_WITH_IMM, "no immediate flag");
		CHECK_EQ(be32toh(wc.imm_data), 0xdeadbeef);
		CHECK_EQ(wc.byte_len, 16);
	}
out:
	loop_destroy(&l);
}

static void rc_send_inline_delivers_data(struct test_env *env)
{
	struct ibv_send_wr wr = { .wr_id = 1, .opcode = IBV_WR_SEND };
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct loop l;
	char data[32];

	if (!loop_connect(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;
	if (!CHECK_OK(post_recv(&l, 2, l.dst, HALF)))
		goto out;
	/* Inline data needs no lkey, and the buffer is free at once. */
	memset(data, 0x5c, sizeof(data));
	wr.send_flags = IBV_SEND_INLINE;
	if (!CHECK_OK(post_one(&l, &wr, &sge, data, sizeof(data), 0)))
		goto out;
	memset(data, 0, sizeof(data));

	if (wait_one(l.scq, &wc))
		check_wc(&wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND);
	if (wait_one(l.rcq, &wc)) {
		check_wc(&wc, 2, IBV_WC_SUCCESS, IBV_WC_RECV);
		CHECK_EQ(wc.byte_len, sizeof(data));
		CHECK_EQ(l.dst[0], 0x5c);
		CHECK_EQ(l.dst[sizeof(data) - 1], 0x5c);
	}
out:
	loop_destroy(&l);
}

static void rc_send_gathers_and_scatters_multiple_sges(struct test_env *env)
{
	struct ibv_send_wr wr = { .wr_id = 1, .opcode = IBV_WR_SEND }, *sbad;
	struct ibv_recv_wr rwr = { .wr_id = 2 }, *rbad;
	struct ibv_sge ssge[3], rsge[2];
	struct ibv_wc wc;
	struct loop l;

	if (!loop_connect(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;

	/* 100 + 200 + 300 bytes from three places into 250 + 350. */
	rsge[0] = (struct ibv_sge){ (uintptr_t)l.dst, 250, l.mr->lkey };
	rsge[1] = (struct ibv_sge){ (uintptr_t)l.dst + 1000, 350,
				    l.mr->lkey };
	rwr.sg_list = rsge;
	rwr.num_sge = 2;
	if (!CHECK_OK(ibv_post_recv(l.qp, &rwr, &rbad)))
		goto out;

	ssge[0] = (struct ibv_sge){ (uintptr_t)l.src, 100, l.mr->lkey };
	ssge[1] = (struct ibv_sge){ (uintptr_t)l.src + 500, 200, l.mr->lkey };
	ssge[2] = (struct ibv_sge){ (uintptr_t)l.src + 1000, 300,
				    l.mr->lkey };
	wr.sg_list = ssge;
	wr.num_sge = 3;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (!CHECK_OK(ibv_post_send(l.qp, &wr, &sbad)))
		goto out;

	if (wait_one(l.scq, &wc))
		check_wc(&wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND);
	if (wait_one(l.rcq, &wc)) {
		check_wc(&wc, 2, IBV_WC_SUCCESS, IBV_WC_RECV);
		CHECK_EQ(wc.byte_len, 600);
		CHECK(!memcmp(l.dst, l.src, 100), "SGE 0 data differs");
		CHECK(!memcmp(l.dst + 100, l.src + 500, 150),
		      "SGE 1 data (first part) differs");
		CHECK(!memcmp(l.dst + 1000, l.src + 650, 50),
		      "SGE 1 data (second part) differs");
		CHECK(!memcmp(l.dst + 1050, l.src + 1000, 300),
		      "SGE 2 data differs");
	}
out:
	loop_destroy(&l);
}

static void rc_unsignaled_send_produces_no_send_completion(
	struct test_env *env)
{
	struct ibv_send_wr wr = { .wr_id = 1, .opcode = IBV_WR_SEND }, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc[2];
	struct loop l;

	if (!loop_connect(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;
	if (!CHECK_OK(post_recv(&l, 10, l.dst, HALF)) ||
	    !CHECK_OK(post_recv(&l, 11, l.dst, HALF)))
		goto out;

	sge = (struct ibv_sge){ (uintptr_t)l.src, 8, l.mr->lkey };
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (!CHECK_OK(ibv_post_send(l.qp, &wr, &bad)))
		goto out;
	wr.wr_id = 2;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (!CHECK_OK(ibv_post_send(l.qp, &wr, &bad)))
		goto out;

	/* Both arrive; only the signaled one completes on the send side. */
	CHECK_EQ(poll_cq_wait(l.rcq, wc, 2), 2);
	if (wait_one(l.scq, wc))
		check_wc(wc, 2, IBV_WC_SUCCESS, IBV_WC_SEND);
	sleep_ms(100);
	CHECK_EQ(ibv_poll_cq(l.scq, 1, wc), 0);
out:
	loop_destroy(&l);
}

static void rc_rdma_write_places_data_without_receive(struct test_env *env)
{
	struct ibv_send_wr wr = { .wr_id = 5, .opcode = IBV_WR_RDMA_WRITE };
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct loop l;

	if (!loop_connect(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;
	if (!CHECK_OK(post_rdma(&l, &wr, &sge, l.src, HALF, l.dst,
				    l.mr->rkey)))
		goto out;

	if (wait_one(l.scq, &wc)) {
		check_wc(&wc, 5, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
		CHECK(!memcmp(l.dst, l.src, HALF), "written data differs");
	}
	CHECK_EQ(ibv_poll_cq(l.rcq, 1, &wc), 0);
out:
	loop_destroy(&l);
}

static void rc_rdma_write_with_imm_consumes_a_receive(struct test_env *env)
{
	struct ibv_send_wr wr = {
		.wr_id = 5, .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.imm_data = htobe32(0x01020304),
	};
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct loop l;

	if (!loop_connect(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;
	if (!CHECK_OK(post_recv(&l, 6, NULL, 0)))
		goto out;
	if (!CHECK_OK(post_rdma(&l, &wr, &sge, l.src, 512, l.dst,
				    l.mr->rkey)))
		goto out;

	if (wait_one(l.scq, &wc))
		check_wc(&wc, 5, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	if (wait_one(l.rcq, &wc)) {
		check_wc(&wc, 6, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM);
		CHECK(wc.wc_flags & IBV_WC_WITH_IMM, "no immediate flag");
		CHECK_EQ(be32toh(wc.imm_data), 0x01020304);
		CHECK_EQ(wc.byte_len, 512);
		CHECK(!memcmp(l.dst, l.src, 512), "written data differs");
	}
out:
	loop_destroy(&l);
}

static void rc_rdma_read_fetches_remote_data(struct test_env *env)
{
	struct ibv_send_wr wr = { .wr_id = 9, .opcode = IBV_WR_RDMA_READ };
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct loop l;

	if (!loop_connect(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;
	/* Read the source half into the destination half. */
	if (!CHECK_OK(post_rdma(&l, &wr, &sge, l.dst, HALF, l.src,
				    l.mr->rkey)))
		goto out;

	if (wait_one(l.scq, &wc)) {
		check_wc(&wc, 9, IBV_WC_SUCCESS, IBV_WC_RDMA_READ);
		CHECK_EQ(wc.byte_len, HALF);
		CHECK(!memcmp(l.dst, l.src, HALF), "read data differs");
	}
out:
	loop_destroy(&l);
}

static void rc_atomics_fetch_add_and_compare_swap(struct test_env *env)
{
	struct ibv_send_wr wr = {};
	uint64_t *target, *result;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct loop l;

	if (env->dev_attr.atomic_cap == IBV_ATOMIC_NONE) {
		tap_skip("device has no atomics");
		return;
	}
	if (!loop_connect(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;

	target = (uint64_t *)l.dst;
	result = (uint64_t *)l.src;
	*target = 100;
	sge = (struct ibv_sge){ (uintptr_t)result, 8, l.mr->lkey };
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.atomic.remote_addr = (uintptr_t)target;
	wr.wr.atomic.rkey = l.mr->rkey;

	wr.wr_id = 1;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.compare_add = 23;
	if (!CHECK_OK(post_send(&l, &wr)))
		goto out;
	if (wait_one(l.scq, &wc)) {
		check_wc(&wc, 1, IBV_WC_SUCCESS, IBV_WC_FETCH_ADD);
		CHECK_EQ(*result, 100);
		CHECK_EQ(*target, 123);
	}

	wr.wr_id = 2;
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 123;
	wr.wr.atomic.swap = 77;
	if (!CHECK_OK(post_send(&l, &wr)))
		goto out;
	if (wait_one(l.scq, &wc)) {
		check_wc(&wc, 2, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP);
		CHECK_EQ(*result, 123);
		CHECK_EQ(*target, 77);
	}

	/* A failed compare returns the value and swaps nothing. */
	wr.wr_id = 3;
	wr.wr.atomic.compare_add = 1;
	wr.wr.atomic.swap = 2;
	if (!CHECK_OK(post_send(&l, &wr)))
		goto out;
	if (wait_one(l.scq, &wc)) {
		check_wc(&wc, 3, IBV_WC_SUCCESS, IBV_WC_COMP_SWAP);
		CHECK_EQ(*result, 77);
		CHECK_EQ(*target, 77);
	}
out:
	loop_destroy(&l);
}

static void uc_send_and_rdma_write_deliver_data(struct test_env *env)
{
	struct ibv_send_wr wr = { .wr_id = 1, .opcode = IBV_WR_SEND };
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct loop l;

	if (!loop_connect(env, &l, IBV_QPT_UC, ALL_ACCESS))
		return;
	if (!CHECK_OK(post_recv(&l, 2, l.dst, HALF)))
		goto out;
	if (!CHECK_OK(post_one(&l, &wr, &sge, l.src, 2000, l.mr->lkey)))
		goto out;
	if (wait_one(l.scq, &wc))
		check_wc(&wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND);
	if (wait_one(l.rcq, &wc)) {
		check_wc(&wc, 2, IBV_WC_SUCCESS, IBV_WC_RECV);
		CHECK_EQ(wc.byte_len, 2000);
		CHECK(!memcmp(l.dst, l.src, 2000), "sent data differs");
	}

	memset(l.dst, 0, HALF);
	wr.wr_id = 3;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)l.dst + 8;
	wr.wr.rdma.rkey = l.mr->rkey;
	if (!CHECK_OK(post_send(&l, &wr)))
		goto out;
	if (wait_one(l.scq, &wc)) {
		check_wc(&wc, 3, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
		/* UC completes on sending: wait for the data itself. */
		sleep_ms(200);
		CHECK(!memcmp(l.dst + 8, l.src, 2000), "written data differs");
	}
out:
	loop_destroy(&l);
}

static void ud_send_arrives_with_grh_and_source_qp(struct test_env *env)
{
	struct ibv_send_wr wr = { .wr_id = 1, .opcode = IBV_WR_SEND };
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct loop l;

	if (!loop_connect(env, &l, IBV_QPT_UD, IBV_ACCESS_LOCAL_WRITE))
		return;
	/* A UD receive buffer starts with room for the 40-byte GRH. */
	if (!CHECK_OK(post_recv(&l, 2, l.dst, GRH_LEN + 512)))
		goto out;
	if (!CHECK_OK(post_one(&l, &wr, &sge, l.src, 512, l.mr->lkey)))
		goto out;

	if (wait_one(l.scq, &wc))
		check_wc(&wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND);
	if (wait_one(l.rcq, &wc)) {
		check_wc(&wc, 2, IBV_WC_SUCCESS, IBV_WC_RECV);
		CHECK_EQ(wc.byte_len, GRH_LEN + 512);
		CHECK(wc.wc_flags & IBV_WC_GRH, "no GRH flag");
		CHECK_EQ(wc.src_qp, l.qp->qp_num);
		CHECK_EQ(wc.qp_num, l.qp->qp_num);
		CHECK(!memcmp(l.dst + GRH_LEN, l.src, 512),
		      "received data differs");
	}
out:
	loop_destroy(&l);
}

static void ud_send_with_wrong_qkey_is_dropped(struct test_env *env)
{
	struct ibv_send_wr wr = { .wr_id = 1, .opcode = IBV_WR_SEND }, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct loop l;

	if (!loop_connect(env, &l, IBV_QPT_UD, IBV_ACCESS_LOCAL_WRITE))
		return;
	if (!CHECK_OK(post_recv(&l, 2, l.dst, GRH_LEN + 64)))
		goto out;
	sge = (struct ibv_sge){ (uintptr_t)l.src, 64, l.mr->lkey };
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = l.ah;
	wr.wr.ud.remote_qpn = l.qp->qp_num;
	wr.wr.ud.remote_qkey = TEST_QKEY + 1;
	if (!CHECK_OK(ibv_post_send(l.qp, &wr, &bad)))
		goto out;

	/* The sender cannot know; the receiver silently drops. */
	if (wait_one(l.scq, &wc))
		check_wc(&wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND);
	sleep_ms(200);
	CHECK_EQ(ibv_poll_cq(l.rcq, 1, &wc), 0);
out:
	loop_destroy(&l);
}

/*
 * ibv_poll_cq(3): IBV_WC_LOC_PROT_ERR is for a request whose SGEs do not
 * reference a valid MR. rdma_rxe in 6.1 reports IBV_WC_LOC_QP_OP_ERR
 * here instead: the man page wins, and against rxe this is a known
 * failure.
 */
static void rc_send_with_bad_lkey_completes_with_local_protection_error(
	struct test_env *env)
{
	struct ibv_send_wr wr = { .wr_id = 4, .opcode = IBV_WR_SEND };
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct loop l;

	if (is_rxe(env))
		tap_xfail("rdma_rxe 6.1 reports IBV_WC_LOC_QP_OP_ERR");
	if (!loop_connect(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;
	if (!CHECK_OK(post_recv(&l, 5, l.dst, HALF)))
		goto out;
	if (!CHECK_OK(post_one(&l, &wr, &sge, l.src, 64, l.mr->lkey ^ 0x80)))
		goto out;

	if (wait_one(l.scq, &wc))
		check_wc(&wc, 4, IBV_WC_LOC_PROT_ERR, 0);
	/* The error moves the QP to ERR, which flushes the receive. */
	if (wait_one(l.rcq, &wc))
		check_wc(&wc, 5, IBV_WC_WR_FLUSH_ERR, 0);
	CHECK_EQ(query_qp_state(l.qp), IBV_QPS_ERR);
out:
	loop_destroy(&l);
}

/*
 * Nothing behind a failed work request executes: the QP goes to ERR and
 * the requests behind it are flushed, never sent.
 */
static void rc_write_behind_a_failed_request_is_flushed_not_executed(
	struct test_env *env)
{
	struct ibv_send_wr wr[2] = {
		{ .wr_id = 1, .opcode = IBV_WR_RDMA_WRITE,
		  .send_flags = IBV_SEND_SIGNALED },
		{ .wr_id = 2, .opcode = IBV_WR_RDMA_WRITE,
		  .send_flags = IBV_SEND_SIGNALED },
	}, *bad;
	struct ibv_sge sge[2];
	struct ibv_wc wc;
	struct loop l;
	int i;

	if (!loop_connect(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;
	sge[0] = (struct ibv_sge){ (uintptr_t)l.src, 64, l.mr->lkey ^ 0x80 };
	sge[1] = (struct ibv_sge){ (uintptr_t)l.src, 64, l.mr->lkey };
	for (i = 0; i < 2; i++) {
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].wr.rdma.remote_addr = (uintptr_t)l.dst;
		wr[i].wr.rdma.rkey = l.mr->rkey;
	}
	wr[0].next = &wr[1];
	if (!CHECK_OK(ibv_post_send(l.qp, wr, &bad)))
		goto out;

	if (wait_one(l.scq, &wc))
		check_wc(&wc, 1, IBV_WC_LOC_PROT_ERR, 0);
	if (wait_one(l.scq, &wc))
		check_wc(&wc, 2, IBV_WC_WR_FLUSH_ERR, 0);
	CHECK(l.dst[0] == 0 && !memcmp(l.dst, l.dst + 1, 63),
	      "the write behind the failed one placed data");
out:
	loop_destroy(&l);
}

/*
 * A CQ that overflows is in error, and so is the QP completing into it:
 * its CQEs are lost, so an affiliated event says why it failed.
 */
static void cq_overflow_moves_the_qp_to_err(struct test_env *env)
{
	struct ibv_send_wr wr[3] = {}, *bad;
	static char buf[64];
	struct ibv_qp *qp = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_sge sge;
	struct ibv_cq *cq;
	int i;

	cq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 1, NULL, NULL, 0));
	if (!cq)
		return;
	mr = CHECK_NOT_NULL(ibv_reg_mr(env->pd, buf, sizeof(buf), ALL_ACCESS));
	qp = mr ? CHECK_NOT_NULL(create_test_qp(env, IBV_QPT_RC, cq, NULL)) :
		  NULL;
	if (!qp || !CHECK_OK(qp_connect_self(env, qp)))
		goto out;
	if (!CHECK(cq->cqe < 3, "a CQ of %d entries cannot overflow", cq->cqe))
		goto out;
	sge = (struct ibv_sge){ (uintptr_t)buf, 8, mr->lkey };
	for (i = 0; i < 3; i++) {
		wr[i].wr_id = i;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].wr.rdma.remote_addr = (uintptr_t)buf + 32;
		wr[i].wr.rdma.rkey = mr->rkey;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	if (!CHECK_OK(ibv_post_send(qp, wr, &bad)))
		goto out;
	/* Nothing polls the CQ: the second completion has no room. */
	for (i = 0; i < 50 && query_qp_state(qp) != IBV_QPS_ERR; i++)
		sleep_ms(20);
	CHECK_EQ(query_qp_state(qp), IBV_QPS_ERR);
	expect_qp_event(env, qp, IBV_EVENT_QP_FATAL);
out:
	if (qp)
		CHECK_OK(ibv_destroy_qp(qp));
	if (mr)
		CHECK_OK(ibv_dereg_mr(mr));
	CHECK_OK(ibv_destroy_cq(cq));
}

static void rc_rdma_write_to_readonly_mr_completes_with_access_error(
	struct test_env *env)
{
	struct ibv_send_wr wr = { .wr_id = 4, .opcode = IBV_WR_RDMA_WRITE };
	struct ibv_mr *ro = NULL;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct loop l;

	if (!loop_connect(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;
	/* The same buffer again, remotely readable only. */
	ro = CHECK_NOT_NULL(ibv_reg_mr(env->pd, l.dst, HALF,
				       IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_READ));
	if (!ro)
		goto out;
	if (!CHECK_OK(post_rdma(&l, &wr, &sge, l.src, 64, l.dst,
				    ro->rkey)))
		goto out;

	if (wait_one(l.scq, &wc))
		check_wc(&wc, 4, IBV_WC_REM_ACCESS_ERR, 0);
	CHECK_EQ(l.dst[0], 0);
out:
	if (ro)
		CHECK_OK(ibv_dereg_mr(ro));
	loop_destroy(&l);
}

static void rc_send_without_receive_completes_with_rnr_retry_exceeded(
	struct test_env *env)
{
	struct ibv_send_wr wr = { .wr_id = 8, .opcode = IBV_WR_SEND };
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_RTS, .sq_psn = TEST_SQ_PSN,
		.timeout = 14, .retry_cnt = 7, .rnr_retry = 0,
		.max_rd_atomic = 1,
	};
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct loop l;

	if (!loop_create(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;
	if (!CHECK_OK(qp_to_init(l.qp)) ||
	    !CHECK_OK(qp_to_rtr(env, l.qp, l.qp->qp_num)) ||
	    !CHECK_OK(ibv_modify_qp(l.qp, &attr, IBV_QP_STATE |
				    IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				    IBV_QP_MAX_QP_RD_ATOMIC)))
		goto out;

	if (!CHECK_OK(post_one(&l, &wr, &sge, l.src, 64, l.mr->lkey)))
		goto out;
	if (wait_one(l.scq, &wc))
		check_wc(&wc, 8, IBV_WC_RNR_RETRY_EXC_ERR, 0);
out:
	loop_destroy(&l);
}

/*
 * The SRQ limit event fires once the number of posted receives drops
 * below the armed limit; sends on an RC QP connected to itself consume
 * them.
 */
static void srq_limit_event_fires_when_receives_drop_below_limit(
	struct test_env *env)
{
	enum { POSTED = 8, LIMIT = 5, SENT = 4 };
	struct ibv_srq_attr sattr = { .srq_limit = LIMIT };
	struct ibv_recv_wr rwr = {}, *rbad;
	struct ibv_send_wr swr = {}, *sbad;
	struct ibv_wc wc[2 * SENT];
	struct ibv_async_event ev;
	struct ibv_sge sge;
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp = NULL;
	char buf[64];
	int i;

	cq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 32, NULL, NULL, 0));
	mr = CHECK_NOT_NULL(ibv_reg_mr(env->pd, buf, sizeof(buf),
				       IBV_ACCESS_LOCAL_WRITE));
	srq = CHECK_NOT_NULL(create_srq(env, 16, 1, 0));
	if (!cq || !mr || !srq)
		goto out;
	qp = CHECK_NOT_NULL(create_test_qp(env, IBV_QPT_RC, cq, srq));
	if (!qp || !CHECK_OK(qp_connect_self(env, qp)))
		goto out;

	sge = (struct ibv_sge){ (uintptr_t)buf, sizeof(buf), mr->lkey };
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	for (i = 0; i < POSTED; i++)
		if (!CHECK_OK(ibv_post_srq_recv(srq, &rwr, &rbad)))
			goto out;
	if (!CHECK_OK(ibv_modify_srq(srq, &sattr, IBV_SRQ_LIMIT)))
		goto out;

	swr.opcode = IBV_WR_SEND;
	swr.send_flags = IBV_SEND_SIGNALED;
	swr.sg_list = &sge;
	swr.num_sge = 1;
	sge.length = 8;
	for (i = 0; i < SENT; i++)
		if (!CHECK_OK(ibv_post_send(qp, &swr, &sbad)))
			goto out;
	CHECK_EQ(poll_cq_wait(cq, wc, 2 * SENT), 2 * SENT);
	for (i = 0; i < 2 * SENT; i++)
		CHECK_EQ(wc[i].status, IBV_WC_SUCCESS);

	if (CHECK(get_async_event(env, &ev), "no async event")) {
		CHECK_EQ(ev.event_type, IBV_EVENT_SRQ_LIMIT_REACHED);
		if (ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED)
			CHECK(ev.element.srq == srq, "event names another SRQ");
		ibv_ack_async_event(&ev);
	}
	/* The event disarms the limit (ibv_modify_srq(3)). */
	if (CHECK_OK(ibv_query_srq(srq, &sattr)))
		CHECK_EQ(sattr.srq_limit, 0);
out:
	if (qp)
		CHECK_OK(ibv_destroy_qp(qp));
	if (srq)
		CHECK_OK(ibv_destroy_srq(srq));
	if (mr)
		CHECK_OK(ibv_dereg_mr(mr));
	if (cq)
		CHECK_OK(ibv_destroy_cq(cq));
}

/*
 * An SRQ's receive WQEs name memory of the SRQ's PD, which need not be
 * the PD of the QP the message arrives on.
 */
static void srq_receive_places_data_in_memory_of_the_srqs_pd(
	struct test_env *env)
{
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 4,
						     .max_sge = 1 } };
	struct ibv_send_wr wr = { .wr_id = 1, .opcode = IBV_WR_SEND }, *bad;
	struct ibv_recv_wr rwr = { .wr_id = 2, .num_sge = 1 }, *rbad;
	static char src[256], dst[256];
	struct ibv_mr *smr = NULL, *rmr = NULL;
	struct ibv_srq *srq = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_sge sge, rsge;
	struct ibv_cq *cq;
	struct ibv_pd *pd2;
	struct ibv_wc wc;

	memset(src, 0x5a, sizeof(src));
	cq = CHECK_NOT_NULL(ibv_create_cq(env->ctx, 8, NULL, NULL, 0));
	pd2 = CHECK_NOT_NULL(ibv_alloc_pd(env->ctx));
	if (!cq || !pd2)
		goto out;
	srq = CHECK_NOT_NULL(ibv_create_srq(pd2, &sattr));
	rmr = CHECK_NOT_NULL(ibv_reg_mr(pd2, dst, sizeof(dst),
					IBV_ACCESS_LOCAL_WRITE));
	smr = CHECK_NOT_NULL(ibv_reg_mr(env->pd, src, sizeof(src), 0));
	qp = srq ? CHECK_NOT_NULL(create_test_qp(env, IBV_QPT_RC, cq, srq)) :
		   NULL;
	if (!rmr || !smr || !qp || !CHECK_OK(qp_connect_self(env, qp)))
		goto out;
	rsge = (struct ibv_sge){ (uintptr_t)dst, sizeof(dst), rmr->lkey };
	rwr.sg_list = &rsge;
	sge = (struct ibv_sge){ (uintptr_t)src, sizeof(src), smr->lkey };
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (!CHECK_OK(ibv_post_srq_recv(srq, &rwr, &rbad)) ||
	    !CHECK_OK(ibv_post_send(qp, &wr, &bad)))
		goto out;
	/* One CQ for both sides: the send's and the receive's completions. */
	for (int i = 0; i < 2 && wait_one(cq, &wc); i++) {
		if (wc.wr_id == 2)
			check_wc(&wc, 2, IBV_WC_SUCCESS, IBV_WC_RECV);
		else
			check_wc(&wc, 1, IBV_WC_SUCCESS, IBV_WC_SEND);
	}
	CHECK(!memcmp(dst, src, sizeof(src)), "received data differs");
out:
	if (qp)
		CHECK_OK(ibv_destroy_qp(qp));
	if (smr)
		CHECK_OK(ibv_dereg_mr(smr));
	if (rmr)
		CHECK_OK(ibv_dereg_mr(rmr));
	if (srq)
		CHECK_OK(ibv_destroy_srq(srq));
	if (pd2)
		CHECK_OK(ibv_dealloc_pd(pd2));
	if (cq)
		CHECK_OK(ibv_destroy_cq(cq));
}

/*
 * The port's max_msg_sz bounds a message (longer ones would reuse PSNs
 * at a small MTU); the length is checked before any SGE is.
 */
static void rc_send_longer_than_max_msg_sz_completes_with_length_error(
	struct test_env *env)
{
	struct ibv_send_wr wr = { .wr_id = 4, .opcode = IBV_WR_RDMA_WRITE };
	struct ibv_port_attr port;
	struct ibv_sge sge[2];
	struct ibv_wc wc;
	struct loop l;

	if (!CHECK_OK(ibv_query_port(env->ctx, TEST_PORT, &port)) ||
	    !loop_connect(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;
	sge[0] = (struct ibv_sge){ (uintptr_t)l.src, port.max_msg_sz,
				   l.mr->lkey };
	sge[1] = (struct ibv_sge){ (uintptr_t)l.src, 1, l.mr->lkey };
	wr.sg_list = sge;
	wr.num_sge = 2;
	wr.wr.rdma.remote_addr = (uintptr_t)l.dst;
	wr.wr.rdma.rkey = l.mr->rkey;
	if (CHECK_OK(post_send(&l, &wr)) && wait_one(l.scq, &wc))
		check_wc(&wc, 4, IBV_WC_LOC_LEN_ERR, IBV_WC_RDMA_WRITE);
	loop_destroy(&l);
}

/* Binds a type 1 window over @len bytes at @addr of @l's MR; 0 or errno. */
static int bind_window(struct loop *l, struct ibv_mw *mw, void *addr,
		       size_t len)
{
	struct ibv_mw_bind bind = {
		.wr_id = 9,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = {
			.mr = l->mr, .addr = (uintptr_t)addr, .length = len,
			.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
		},
	};
	struct ibv_wc wc;
	int rc = ibv_bind_mw(l->qp, mw, &bind);

	if (rc)
		return rc;
	if (!wait_one(l->scq, &wc))
		return ETIMEDOUT;
	check_wc(&wc, 9, IBV_WC_SUCCESS, IBV_WC_BIND_MW);
	return wc.status == IBV_WC_SUCCESS ? 0 : EIO;
}

/*
 * A bound window keeps its region registered: otherwise the window's
 * rkey would reach whatever memory later takes the region's key.
 */
static void dereg_mr_fails_with_ebusy_while_a_window_is_bound(
	struct test_env *env)
{
	struct ibv_send_wr wr = { .wr_id = 5, .opcode = IBV_WR_RDMA_WRITE };
	struct ibv_sge sge;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	struct loop l;

	if (!loop_connect(env, &l, IBV_QPT_RC,
			  ALL_ACCESS | IBV_ACCESS_MW_BIND))
		return;
	mw = CHECK_NOT_NULL(ibv_alloc_mw(env->pd, IBV_MW_TYPE_1));
	if (!mw || !CHECK_OK(bind_window(&l, mw, l.dst, HALF)))
		goto out;

	if (!CHECK_RC(ibv_dereg_mr(l.mr), EBUSY))
		l.mr = NULL;	/* it went: do not free it twice */
	if (!l.mr)
		goto out;

	/* Still registered, and reachable through the window. */
	if (CHECK_OK(post_rdma(&l, &wr, &sge, l.src, 64, l.dst, mw->rkey)) &&
	    wait_one(l.scq, &wc)) {
		check_wc(&wc, 5, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
		CHECK(!memcmp(l.dst, l.src, 64), "written data differs");
	}
	/* An unbind (zero length) lets the region go. */
	CHECK_OK(bind_window(&l, mw, l.dst, 0));
out:
	if (mw)
		CHECK_OK(ibv_dealloc_mw(mw));
	loop_destroy(&l);
}

/*
 * A type 2 window belongs to the QP it was bound through (IBA 10.6.7.2):
 * another QP of the same PD cannot reach the region through it, however
 * right its rkey, range and rights are.
 */
static void type2_window_is_reachable_only_through_the_qp_it_is_bound_to(
	struct test_env *env)
{
	struct ibv_send_wr bind = { .wr_id = 1, .opcode = IBV_WR_BIND_MW };
	struct ibv_send_wr wr = { .opcode = IBV_WR_RDMA_WRITE };
	struct ibv_mw *mw = NULL;
	struct loop a, b;
	struct ibv_sge sge;
	struct ibv_wc wc;
	uint32_t rkey;

	if (!loop_connect(env, &a, IBV_QPT_RC, ALL_ACCESS | IBV_ACCESS_MW_BIND))
		return;
	if (!loop_connect(env, &b, IBV_QPT_RC, ALL_ACCESS))
		goto out_a;
	mw = CHECK_NOT_NULL(ibv_alloc_mw(env->pd, IBV_MW_TYPE_2));
	if (!mw)
		goto out;
	rkey = ibv_inc_rkey(mw->rkey);
	bind.bind_mw.mw = mw;
	bind.bind_mw.rkey = rkey;
	bind.bind_mw.bind_info = (struct ibv_mw_bind_info){
		.mr = a.mr, .addr = (uintptr_t)a.dst, .length = HALF,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	if (!CHECK_OK(post_send(&a, &bind)) || !wait_one(a.scq, &wc))
		goto out;
	check_wc(&wc, 1, IBV_WC_SUCCESS, IBV_WC_BIND_MW);

	/* Through its own QP the window works... */
	wr.wr_id = 2;
	if (CHECK_OK(post_rdma(&a, &wr, &sge, a.src, 64, a.dst, rkey)) &&
	    wait_one(a.scq, &wc))
		check_wc(&wc, 2, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE);
	/* ...and through another QP of the same PD it does not. */
	wr.wr_id = 3;
	memset(a.dst, 0, 64);
	if (CHECK_OK(post_rdma(&b, &wr, &sge, b.src, 64, a.dst, rkey)) &&
	    wait_one(b.scq, &wc)) {
		check_wc(&wc, 3, IBV_WC_REM_ACCESS_ERR, IBV_WC_RDMA_WRITE);
		CHECK(a.dst[0] == 0 && !memcmp(a.dst, a.dst + 1, 63),
		      "the other QP wrote through the window");
	}
out:
	if (mw)
		CHECK_OK(ibv_dealloc_mw(mw));
	loop_destroy(&b);
out_a:
	loop_destroy(&a);
}

/* An AH is usable only by QPs of its own PD (IBA 10.2.3). */
static void ud_send_through_an_ah_of_another_pd_fails(struct test_env *env)
{
	struct ibv_send_wr wr = { .wr_id = 1, .opcode = IBV_WR_SEND }, *bad;
	struct ibv_ah_attr attr;
	struct ibv_ah *ah = NULL;
	struct ibv_pd *pd2;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct loop l;

	if (!loop_connect(env, &l, IBV_QPT_UD, IBV_ACCESS_LOCAL_WRITE))
		return;
	pd2 = CHECK_NOT_NULL(ibv_alloc_pd(env->ctx));
	if (!pd2)
		goto out;
	loopback_ah_attr(env, &attr);
	ah = CHECK_NOT_NULL(ibv_create_ah(pd2, &attr));
	if (!ah || !CHECK_OK(post_recv(&l, 2, l.dst, GRH_LEN + 64)))
		goto out;
	sge = (struct ibv_sge){ (uintptr_t)l.src, 64, l.mr->lkey };
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = l.qp->qp_num;
	wr.wr.ud.remote_qkey = TEST_QKEY;
	if (!CHECK_OK(ibv_post_send(l.qp, &wr, &bad)))
		goto out;

	if (wait_one(l.scq, &wc))
		check_wc(&wc, 1, IBV_WC_LOC_QP_OP_ERR, IBV_WC_SEND);
	sleep_ms(200);
	/* Nothing was sent: the receive is flushed, never completed. */
	if (ibv_poll_cq(l.rcq, 1, &wc) == 1)
		CHECK(wc.status != IBV_WC_SUCCESS, "the send was delivered");
out:
	if (ah)
		CHECK_OK(ibv_destroy_ah(ah));
	if (pd2) {
		/* The QP holds the loop's PD; the AH is gone from pd2. */
		CHECK_OK(ibv_dealloc_pd(pd2));
	}
	loop_destroy(&l);
}

/*
 * What a modifier thread does to a live RC QP, round after round: every
 * transition and attribute the QP task reads that may change while
 * traffic runs, the address vector in SQD included.  A round starts and
 * ends in RTS.
 */
static const struct {
	enum ibv_qp_state state;
	int mask;
} live_modify_steps[] = {
	{ IBV_QPS_RTS, IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER },
	{ IBV_QPS_SQD, 0 },
	{ IBV_QPS_SQD, IBV_QP_AV | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		       IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC |
		       IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER },
	{ IBV_QPS_RTS, IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER },
};

struct live_modify {
	struct test_env *env;
	struct ibv_qp *qp;
	int stop;
	unsigned int rounds;
	int err;
};

/* The modifier thread: rewrites the QP's attributes with their values. */
static void *live_modify_thread(void *arg)
{
	struct live_modify *m = arg;
	struct ibv_qp_attr a = {
		.timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.max_rd_atomic = 4, .min_rnr_timer = 12,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};
	size_t i;

	loopback_ah_attr(m->env, &a.ah_attr);
	while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE) && !m->err) {
		for (i = 0; i < ARRAY_SIZE(live_modify_steps) && !m->err; i++) {
			a.qp_state = live_modify_steps[i].state;
			m->err = ibv_modify_qp(m->qp, &a, IBV_QP_STATE |
					       live_modify_steps[i].mask);
		}
		m->rounds++;
	}
	return NULL;
}

/* One RDMA request of @l's source half and destination half, waited for. */
static bool live_rdma(struct loop *l, enum ibv_wr_opcode op, uint64_t id)
{
	struct ibv_send_wr wr = { .wr_id = id, .opcode = op };
	struct ibv_sge sge;
	struct ibv_wc wc;

	if (!CHECK_OK(post_rdma(l, &wr, &sge, l->src, HALF, l->dst,
				l->mr->rkey)) || !wait_one(l->scq, &wc))
		return false;
	return CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == id,
		     "request %llu: status %s", (unsigned long long)id,
		     ibv_wc_status_str(wc.status));
}

/*
 * modify_qp changes what the QP task reads with the task paused, so a
 * run never sees an attribute half written.  Multi-packet writes and
 * reads go on while another thread walks the QP through RTS -> SQD ->
 * SQD (address vector, timeout and retry counts rewritten) -> RTS: each
 * must complete with its data in place, and every modify must succeed.
 */
static void rc_data_stays_intact_while_modify_qp_rewrites_attributes(
	struct test_env *env)
{
	struct live_modify m = { .env = env };
	unsigned int i, j;
	pthread_t t;
	struct loop l;

	if (!loop_connect(env, &l, IBV_QPT_RC, ALL_ACCESS))
		return;
	m.qp = l.qp;
	if (!CHECK_OK(pthread_create(&t, NULL, live_modify_thread, &m)))
		goto out;
	for (i = 0; i < 200 && !m.err; i++) {
		for (j = 0; j < HALF; j++)
			l.src[j] = (char)(i * 7 + j);
		if (!live_rdma(&l, IBV_WR_RDMA_WRITE, 2 * i) ||
		    !CHECK(!memcmp(l.dst, l.src, HALF), "write %u differs", i))
			break;
		memset(l.src, 0, HALF);
		if (!live_rdma(&l, IBV_WR_RDMA_READ, 2 * i + 1) ||
		    !CHECK(!memcmp(l.src, l.dst, HALF), "read %u differs", i))
			break;
	}
	__atomic_store_n(&m.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	printf("# %u modify rounds during %u writes and reads\n", m.rounds, i);
	CHECK_OK(m.err);
	CHECK_GE(m.rounds, 1);
out:
	loop_destroy(&l);
}

static const struct test_case tests[] = {
	TEST_CASE(rc_send_delivers_data_and_completes_both_sides),
	TEST_CASE(rc_send_with_imm_delivers_immediate_data),
	TEST_CASE(rc_send_inline_delivers_data),
	TEST_CASE(rc_send_gathers_and_scatters_multiple_sges),
	TEST_CASE(rc_unsignaled_send_produces_no_send_completion),
	TEST_CASE(rc_rdma_write_places_data_without_receive),
	TEST_CASE(rc_rdma_write_with_imm_consumes_a_receive),
	TEST_CASE(rc_rdma_read_fetches_remote_data),
	TEST_CASE(rc_atomics_fetch_add_and_compare_swap),
	TEST_CASE(uc_send_and_rdma_write_deliver_data),
	TEST_CASE(ud_send_arrives_with_grh_and_source_qp),
	TEST_CASE(ud_send_with_wrong_qkey_is_dropped),
	TEST_CASE(rc_send_with_bad_lkey_completes_with_local_protection_error),
	TEST_CASE(rc_write_behind_a_failed_request_is_flushed_not_executed),
	TEST_CASE(cq_overflow_moves_the_qp_to_err),
	TEST_CASE(rc_rdma_write_to_readonly_mr_completes_with_access_error),
	TEST_CASE(rc_send_without_receive_completes_with_rnr_retry_exceeded),
	TEST_CASE(srq_limit_event_fires_when_receives_drop_below_limit),
	TEST_CASE(srq_receive_places_data_in_memory_of_the_srqs_pd),
	TEST_CASE(rc_send_longer_than_max_msg_sz_completes_with_length_error),
	TEST_CASE(dereg_mr_fails_with_ebusy_while_a_window_is_bound),
	TEST_CASE(type2_window_is_reachable_only_through_the_qp_it_is_bound_to),
	TEST_CASE(ud_send_through_an_ah_of_another_pd_fails),
	TEST_CASE(rc_data_stays_intact_while_modify_qp_rewrites_attributes),
};

int main(int argc, char **argv)
{
	return run_suite("traffic", argc, argv, tests, ARRAY_SIZE(tests));
}
