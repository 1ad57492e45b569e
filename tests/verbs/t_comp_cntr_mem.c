// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion counter values in memory user space supplies: user virtual
 * memory (pinned by the kernel) and dma-bufs (the system dma-heap, and
 * udmabuf over a memfd), each seen through the process's own mapping,
 * and every descriptor the kernel must refuse.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <linux/dma-heap.h>
#include <linux/udmabuf.h>

#include "cntr_ioctl.h"
#include "fixture.h"

#define PAGE	4096

static struct ib_uverbs_buffer_desc va_desc(volatile uint64_t *p)
{
	return (struct ib_uverbs_buffer_desc){
		.type = IB_UVERBS_BUFFER_TYPE_VA,
		.fd = -1,
		.addr = (uintptr_t)p,
		.length = sizeof(*p),
	};
}

static struct ib_uverbs_buffer_desc dmabuf_desc(int fd, uint64_t off,
						uint64_t len)
{
	return (struct ib_uverbs_buffer_desc){
		.type = IB_UVERBS_BUFFER_TYPE_DMABUF,
		.fd = fd,
		.addr = off,
		.length = len,
	};
}

static uint64_t cntr_value(struct test_env *env, const struct cntr *cntr,
			   uint64_t entry)
{
	uint64_t v;

	CHECK_OK(cntr_read(env->ctx, cntr, entry, &v));
	return v;
}

/* A page of user memory filled with a pattern a counter must overwrite. */
static volatile uint64_t *user_page(void)
{
	void *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (!CHECK(p != MAP_FAILED, "mmap: %s", err_name(errno)))
		return NULL;
	memset(p, 0xa5, PAGE);
	return p;
}

/*
 * SET, INC and what completions add all go through the kernel's mapping
 * of the pinned page: the process sees them in its own memory, and READ
 * agrees.  The value starts at zero whatever the memory held.
 */
static void va_backing_shows_set_and_inc_in_user_memory(struct test_env *env)
{
	volatile uint64_t *page = user_page();
	struct ib_uverbs_buffer_desc comp, err;
	volatile uint64_t *pc, *pe;
	struct cntr cntr;

	if (!page)
		return;
	pc = &page[3];
	pe = &page[100];
	comp = va_desc(pc);
	err = va_desc(pe);
	if (CHECK_OK(cntr_create_ex(env->ctx, &cntr, -1, &comp, &err))) {
		CHECK_EQ(*pc, 0);
		CHECK_EQ(*pe, 0);
		/* Both values in user memory: no page to map. */
		CHECK_EQ(cntr.resp.mmap_length, 0);
		CHECK_EQ(cntr.resp.mmap_offset, 0);
		CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_INC, 5));
		CHECK_EQ(*pc, 5);
		CHECK_EQ(cntr_value(env, &cntr, ENTRY_COMP), 5);
		CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_SET, 42));
		CHECK_EQ(*pc, 42);
		CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_ERR, OP_INC, 7));
		CHECK_EQ(*pe, 7);
		CHECK_EQ(cntr_value(env, &cntr, ENTRY_ERR), 7);
		/* The neighbours are untouched. */
		CHECK(page[2] == 0xa5a5a5a5a5a5a5a5ull &&
		      page[4] == 0xa5a5a5a5a5a5a5a5ull, "neighbours changed");
		CHECK_OK(cntr_destroy(env->ctx, &cntr));
	}
	munmap((void *)page, PAGE);
}

/* A value not in user memory stays in the driver's mapped page. */
static void va_backing_for_one_value_keeps_the_other_in_the_page(
	struct test_env *env)
{
	volatile uint64_t *page = user_page();
	struct ib_uverbs_buffer_desc err;
	struct cntr cntr;
	void *map;

	if (!page)
		return;
	err = va_desc(&page[1]);
	if (CHECK_OK(cntr_create_ex(env->ctx, &cntr, -1, NULL, &err))) {
		CHECK(cntr.resp.mmap_length >= 4096, "no page for comp");
		map = mmap(NULL, cntr.resp.mmap_length, PROT_READ, MAP_SHARED,
			   env->ctx->cmd_fd, cntr.resp.mmap_offset);
		if (CHECK(map != MAP_FAILED, "mmap: %s", err_name(errno))) {
			CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP,
					     OP_INC, 3));
			CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_ERR,
					     OP_INC, 2));
			CHECK_EQ(*(volatile uint64_t *)((char *)map +
							cntr.resp.comp_offset), 3);
			CHECK_EQ(page[1], 2);
			munmap(map, cntr.resp.mmap_length);
		}
		CHECK_OK(cntr_destroy(env->ctx, &cntr));
	}
	munmap((void *)page, PAGE);
}

/* Each malformed descriptor, as the completion and as the error buffer. */
static void create_fails_with_einval_for_malformed_descriptors(
	struct test_env *env)
{
	volatile uint64_t *page = user_page();
	struct ib_uverbs_buffer_desc bad[5];
	struct cntr cntr;
	unsigned int i;

	if (!page)
		return;
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		bad[i] = va_desc(&page[8]);
	bad[0].addr += 4;		/* misaligned */
	bad[1].length = 4;		/* too short for a 64-bit value */
	bad[2].flags = 1;		/* no flag is defined */
	bad[3].type = 2;		/* neither DMABUF nor VA */
	bad[4].flags = 0x80000000u;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (!CHECK_RC(cntr_create_ex(env->ctx, &cntr, -1, &bad[i],
					     NULL), EINVAL))
			cntr_destroy(env->ctx, &cntr);
		if (!CHECK_RC(cntr_create_ex(env->ctx, &cntr, -1, NULL,
					     &bad[i]), EINVAL))
			cntr_destroy(env->ctx, &cntr);
	}
	munmap((void *)page, PAGE);
}

/* The uAPI says unknown optional flags are ignored. */
static void create_ignores_unknown_optional_flags(struct test_env *env)
{
	volatile uint64_t *page = user_page();
	struct ib_uverbs_buffer_desc d;
	struct cntr cntr;

	if (!page)
		return;
	d = va_desc(&page[0]);
	d.optional_flags = ~0u;
	d.length = PAGE;	/* longer than needed is fine */
	if (CHECK_OK(cntr_create_ex(env->ctx, &cntr, -1, &d, NULL)))
		CHECK_OK(cntr_destroy(env->ctx, &cntr));
	munmap((void *)page, PAGE);
}

static void create_fails_with_efault_for_unmapped_memory(struct test_env *env)
{
	void *hole = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	struct ib_uverbs_buffer_desc d;
	struct cntr cntr;

	if (!CHECK(hole != MAP_FAILED, "mmap: %s", err_name(errno)))
		return;
	munmap(hole, PAGE);
	d = va_desc(hole);
	if (!CHECK_RC(cntr_create_ex(env->ctx, &cntr, -1, &d, NULL), EFAULT))
		cntr_destroy(env->ctx, &cntr);
}

static void create_fails_with_ebadf_for_a_dmabuf_fd_that_is_not_open(
	struct test_env *env)
{
	int fd = eventfd(0, 0);
	struct ib_uverbs_buffer_desc d;
	struct cntr cntr;

	if (!CHECK(fd >= 0, "eventfd: %s", err_name(errno)))
		return;
	close(fd);	/* a number that was a file a moment ago */
	d = dmabuf_desc(fd, 0, 8);
	if (!CHECK_RC(cntr_create_ex(env->ctx, &cntr, -1, &d, NULL), EBADF))
		cntr_destroy(env->ctx, &cntr);
	d = dmabuf_desc(-1, 0, 8);
	if (!CHECK_RC(cntr_create_ex(env->ctx, &cntr, -1, NULL, &d), EBADF))
		cntr_destroy(env->ctx, &cntr);
}

static void create_fails_with_einval_for_an_fd_that_is_not_a_dmabuf(
	struct test_env *env)
{
	int fd = eventfd(0, 0);
	struct ib_uverbs_buffer_desc d;
	struct cntr cntr;

	if (!CHECK(fd >= 0, "eventfd: %s", err_name(errno)))
		return;
	d = dmabuf_desc(fd, 0, 8);
	if (!CHECK_RC(cntr_create_ex(env->ctx, &cntr, -1, &d, NULL), EINVAL))
		cntr_destroy(env->ctx, &cntr);
	close(fd);
}

/* A dma-buf from the system heap, or -1 (the test is then skipped). */
static int heap_dmabuf(size_t len)
{
	struct dma_heap_allocation_data a = {
		.len = len,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	int heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	int rc;

	if (heap < 0)
		return -1;
	rc = ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a);
	close(heap);
	return rc ? -1 : (int)a.fd;
}

/*
 * Values in a dma-buf: the kernel updates them through its vmap of the
 * buffer, and the process reads them through its own mmap of the fd.
 * A range past the buffer's end is refused.
 */
static void dmabuf_backing_shows_values_in_the_buffer(struct test_env *env)
{
	struct ib_uverbs_buffer_desc comp, err;
	volatile uint64_t *map;
	struct cntr cntr;
	int fd = heap_dmabuf(PAGE);

	if (fd < 0) {
		tap_skip("no /dev/dma_heap/system (CONFIG_DMABUF_HEAPS_SYSTEM)");
		return;
	}
	map = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!CHECK(map != MAP_FAILED, "mmap dma-buf: %s", err_name(errno)))
		goto out;
	map[16] = ~0ull;
	comp = dmabuf_desc(fd, 16 * 8, 8);
	err = dmabuf_desc(fd, 17 * 8, 8);
	if (CHECK_OK(cntr_create_ex(env->ctx, &cntr, -1, &comp, &err))) {
		CHECK_EQ(map[16], 0);
		CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_INC, 9));
		CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_ERR, OP_SET, 4));
		CHECK_EQ(map[16], 9);
		CHECK_EQ(map[17], 4);
		CHECK_EQ(cntr_value(env, &cntr, ENTRY_COMP), map[16]);
		CHECK_EQ(cntr_value(env, &cntr, ENTRY_ERR), map[17]);
		CHECK_OK(cntr_destroy(env->ctx, &cntr));
	}
	/* The last 8 bytes fit; one past them, or a longer range, do not. */
	comp = dmabuf_desc(fd, PAGE - 8, 8);
	if (CHECK_OK(cntr_create_ex(env->ctx, &cntr, -1, &comp, NULL)))
		CHECK_OK(cntr_destroy(env->ctx, &cntr));
	comp = dmabuf_desc(fd, PAGE, 8);
	if (!CHECK_RC(cntr_create_ex(env->ctx, &cntr, -1, &comp, NULL), EINVAL))
		cntr_destroy(env->ctx, &cntr);
	comp = dmabuf_desc(fd, 8, PAGE);
	if (!CHECK_RC(cntr_create_ex(env->ctx, &cntr, -1, &comp, NULL), EINVAL))
		cntr_destroy(env->ctx, &cntr);
	munmap((void *)map, PAGE);
out:
	close(fd);
}

/* A dma-buf over a sealed memfd from /dev/udmabuf, or -1. */
static int udmabuf(int *memfd)
{
	struct udmabuf_create c = { .flags = UDMABUF_FLAGS_CLOEXEC,
				    .size = PAGE };
	int dev, fd;

	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -1;
	*memfd = memfd_create("rxc-cntr", MFD_ALLOW_SEALING);
	if (*memfd < 0 || ftruncate(*memfd, PAGE) ||
	    fcntl(*memfd, F_ADD_SEALS, F_SEAL_SHRINK)) {
		close(dev);
		return -1;
	}
	c.memfd = *memfd;
	fd = ioctl(dev, UDMABUF_CREATE, &c);
	close(dev);
	return fd;
}

/*
 * udmabuf gained a kernel mapping (vmap) in Linux 6.2.  Before that the
 * CPU cannot update a counter in it, and create says EOPNOTSUPP; after,
 * the values show in the memfd.
 */
static void udmabuf_backing_works_or_is_eopnotsupp_before_6_2(
	struct test_env *env)
{
	struct ib_uverbs_buffer_desc comp;
	volatile uint64_t *map;
	struct utsname u;
	struct cntr cntr;
	int memfd = -1, fd, rc, major = 0, minor = 0;

	fd = udmabuf(&memfd);
	if (fd < 0) {
		tap_skip("no /dev/udmabuf (CONFIG_UDMABUF)");
		goto out;
	}
	uname(&u);
	sscanf(u.release, "%d.%d", &major, &minor);
	comp = dmabuf_desc(fd, 64, 8);
	rc = cntr_create_ex(env->ctx, &cntr, -1, &comp, NULL);
	if (major < 6 || (major == 6 && minor < 2)) {
		CHECK_RC(rc, EOPNOTSUPP);
		if (!rc)
			cntr_destroy(env->ctx, &cntr);
		goto out;
	}
	if (!CHECK_OK(rc))
		goto out;
	map = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, memfd, 0);
	if (CHECK(map != MAP_FAILED, "mmap memfd: %s", err_name(errno))) {
		CHECK_OK(cntr_modify(env->ctx, &cntr, ENTRY_COMP, OP_INC, 6));
		CHECK_EQ(map[8], 6);
		munmap((void *)map, PAGE);
	}
	CHECK_OK(cntr_destroy(env->ctx, &cntr));
out:
	if (fd >= 0)
		close(fd);
	if (memfd >= 0)
		close(memfd);
}

static const struct test_case tests[] = {
	TEST_CASE(va_backing_shows_set_and_inc_in_user_memory),
	TEST_CASE(va_backing_for_one_value_keeps_the_other_in_the_page),
	TEST_CASE(create_fails_with_einval_for_malformed_descriptors),
	TEST_CASE(create_ignores_unknown_optional_flags),
	TEST_CASE(create_fails_with_efault_for_unmapped_memory),
	TEST_CASE(create_fails_with_ebadf_for_a_dmabuf_fd_that_is_not_open),
	TEST_CASE(create_fails_with_einval_for_an_fd_that_is_not_a_dmabuf),
	TEST_CASE(dmabuf_backing_shows_values_in_the_buffer),
	TEST_CASE(udmabuf_backing_works_or_is_eopnotsupp_before_6_2),
};

int main(int argc, char **argv)
{
	return run_suite("comp_cntr_mem", argc, argv, tests, ARRAY_SIZE(tests));
}
