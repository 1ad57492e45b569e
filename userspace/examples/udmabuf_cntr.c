// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Counter values in a dma-buf, read through a CPU mapping of it.
 *
 * Here the dma-buf comes from udmabuf (pages of a memfd); with a GPU it
 * would be exported by the GPU driver from device memory, and the
 * device's counter updates would land there directly.  rxc updates the
 * values with the CPU, so the exporter must let the kernel map the buffer:
 * udmabuf can only from Linux 6.2 on, so on older kernels (-s auto, the
 * default) the program falls back to the system dma-heap.  The counter's
 * completion value sits at offset 0 of the buffer, its error value at
 * offset 64, and the program reads both through mmap() of the dma-buf,
 * checking them against ibv_read_comp_cntr().  It also attaches the
 * counter to a QP and flushes receives, which add to the error value: no
 * traffic is needed.
 *
 *   udmabuf_cntr -d rxc0 [-s auto|udmabuf|heap]
 *
 * Exit status 0: the values agree; 77: not supported here (no exporter,
 * or a kernel without dma-buf counter memory).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/dma-heap.h>
#include <linux/udmabuf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "common.h"

#define BUF_SIZE	4096
#define COMP_OFFSET	0
#define ERR_OFFSET	64
#define N_RECV		3
#define EXIT_SKIP	77

/* A dma-buf of @size bytes from the system dma-heap; -1 if unavailable. */
static int heap_alloc(size_t size)
{
	struct dma_heap_allocation_data data = {
		.len = size, .fd_flags = O_RDWR | O_CLOEXEC,
	};
	int heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);

	if (heap < 0)
		return -1;
	if (ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &data))
		die("DMA_HEAP_IOCTL_ALLOC", errno);
	close(heap);
	return data.fd;
}

/* A dma-buf of @size bytes backed by memfd pages; -1 if unavailable. */
static int udmabuf_alloc(size_t size)
{
	struct udmabuf_create create = { .size = size };
	int dev, memfd, fd;

	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -1;
	memfd = memfd_create("rxc-cntr", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (memfd < 0 || ftruncate(memfd, size) ||
	    /* udmabuf wants the memfd unable to shrink under it. */
	    fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK))
		die("memfd", errno);
	create.memfd = memfd;
	create.flags = UDMABUF_FLAGS_CLOEXEC;
	fd = ioctl(dev, UDMABUF_CREATE, &create);
	if (fd < 0)
		die("UDMABUF_CREATE", errno);
	close(memfd);
	close(dev);
	return fd;
}

static int check(const char *what, uint64_t mapped, uint64_t read_back,
		 uint64_t want)
{
	printf("udmabuf_cntr: %s: mapping %llu, ibv_read %llu, expected %llu\n",
	       what, (unsigned long long)mapped,
	       (unsigned long long)read_back, (unsigned long long)want);
	return mapped == want && read_back == want ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *dev = "rxc0", *source = "auto";
	bool use_heap;
	struct ibv_comp_cntr_init_attr init = {};
	struct rxcdv_comp_cntr_init_attr dv = {
		.flags = RXCDV_COMP_CNTR_INIT_WITH_COMP_EXTERNAL_MEM |
			 RXCDV_COMP_CNTR_INIT_WITH_ERR_EXTERNAL_MEM,
	};
	struct ibv_qp_attach_comp_cntr_attr at = {
		.op_mask = IBV_QP_ATTACH_COMP_CNTR_OP_RECV,
	};
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct rxcdv_comp_cntr_attr vals;
	struct ibv_recv_wr rwr = {}, *bad;
	struct ibv_comp_cntr *cntr;
	struct ibv_context *ctx;
	uint64_t v, e, buf[8];
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	int fd, c, err, rc = 0, got = 0;
	uint64_t deadline;
	char *map;

	while ((c = getopt(argc, argv, "d:s:")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 's': source = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-d dev] [-s auto|udmabuf|heap]\n",
				argv[0]);
			return 2;
		}
	}
	ctx = open_device(dev);
	use_heap = !strcmp(source, "heap");
again:
	fd = use_heap ? heap_alloc(BUF_SIZE) : udmabuf_alloc(BUF_SIZE);
	if (fd < 0 && !use_heap && !strcmp(source, "auto")) {
		use_heap = true;
		goto again;
	}
	if (fd < 0) {
		printf("udmabuf_cntr: no %s here (%s)\n",
		       use_heap ? "/dev/dma_heap/system" : "/dev/udmabuf",
		       strerror(errno));
		return EXIT_SKIP;
	}
	map = mmap(NULL, BUF_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap dma-buf", errno);

	dv.comp_ext_mem = (struct rxcdv_memory_location){
		.type = RXCDV_MEMORY_LOCATION_DMABUF, .dmabuf_fd = fd,
		.dmabuf_offset = COMP_OFFSET,
		/* Optional: the CPU view of the same bytes, for polling. */
		.ptr = (uint64_t *)(map + COMP_OFFSET),
	};
	dv.err_ext_mem = dv.comp_ext_mem;
	dv.err_ext_mem.dmabuf_offset = ERR_OFFSET;
	dv.err_ext_mem.ptr = (uint64_t *)(map + ERR_OFFSET);

	cntr = rxcdv_create_comp_cntr(ctx, &init, &dv, sizeof(dv));
	if (!cntr && errno == EOPNOTSUPP && !use_heap &&
	    !strcmp(source, "auto")) {
		/* Before Linux 6.2 the kernel cannot map a udmabuf. */
		printf("udmabuf_cntr: udmabuf refused (EOPNOTSUPP), trying the system dma-heap\n");
		munmap(map, BUF_SIZE);
		close(fd);
		use_heap = true;
		goto again;
	}
	if (!cntr && errno == EOPNOTSUPP) {
		printf("udmabuf_cntr: the kernel has no dma-buf counter memory here (EOPNOTSUPP)\n");
		return EXIT_SKIP;
	}
	if (!cntr)
		die("rxcdv_create_comp_cntr", errno);
	printf("udmabuf_cntr: counter values in a %s dma-buf\n",
	       use_heap ? "system dma-heap" : "udmabuf");
	err = rxcdv_query_comp_cntr(cntr, &vals, sizeof(vals));
	if (err)
		die("rxcdv_query_comp_cntr", err);

	/* Updates by verbs land in the dma-buf. */
	err = ibv_set_comp_cntr(cntr, 40);
	if (!err)
		err = ibv_inc_comp_cntr(cntr, 2);
	if (err)
		die("set/inc", err);
	ibv_read_comp_cntr(cntr, &v);
	rc |= check("completions after set 40, inc 2",
		    rxcdv_comp_cntr_load(vals.comp_count), v, 42);

	/* Updates by the device land there too: flushed receives. */
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, N_RECV + 1, NULL, NULL, 0);
	if (!pd || !cq)
		die("pd/cq", errno);
	qp = create_rc_qp(pd, cq, N_RECV, 0);
	err = ibv_qp_attach_comp_cntr(qp, cntr, &at);
	if (err)
		die("ibv_qp_attach_comp_cntr", err);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr", errno);
	err = ibv_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (err)
		die("modify_qp INIT", err);
	sge = (struct ibv_sge){ (uintptr_t)buf, sizeof(buf), mr->lkey };
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	for (c = 0; c < N_RECV; c++) {
		err = ibv_post_recv(qp, &rwr, &bad);
		if (err)
			die("ibv_post_recv", err);
	}
	qa.qp_state = IBV_QPS_ERR;
	err = ibv_modify_qp(qp, &qa, IBV_QP_STATE);
	if (err)
		die("modify_qp ERR", err);
	/* Flushes complete asynchronously: wait for their CQEs. */
	deadline = now_ms() + 10000;
	while (got < N_RECV && now_ms() < deadline)
		got += ibv_poll_cq(cq, 1, &wc) > 0;
	ibv_read_err_comp_cntr(cntr, &e);
	rc |= check("errors after flushing 3 receives",
		    rxcdv_comp_cntr_load(vals.err_count), e, N_RECV);

	ibv_destroy_qp(qp);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	if (ibv_destroy_comp_cntr(cntr))
		rc = 1;
	ibv_close_device(ctx);
	munmap(map, BUF_SIZE);
	close(fd);
	printf("udmabuf_cntr: %s\n", rc ? "MISMATCH" : "mapping and ibv_read agree");
	return rc;
}
