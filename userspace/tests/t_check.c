// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The argument checks of rxcdv_create_comp_cntr() and
 * rxcdv_query_comp_cntr() (lib/check.c), which both of librxc's builds
 * run before anything else: each row is one argument and the errno its
 * man page promises.  Runs on any host and on either libibverbs.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../lib/rxc.h"
#include "tap.h"

static uint64_t value;	/* an aligned counter value */

enum mutation {
	NONE,
	SHORT_INLEN,		/* inlen without err_ext_mem */
	TRAILING_BYTE,		/* a non-zero byte past the known struct */
	COMP_MASK,
	UNKNOWN_FLAG,
	RESERVED,
	VA_NULL,
	VA_UNALIGNED,
	DMABUF_BAD_FD,
	DMABUF_UNALIGNED_OFFSET,
	BAD_LOCATION_TYPE,
	ERR_LOCATION_BAD,	/* the second location is checked too */
};

static const struct {
	const char *name;
	enum mutation m;
	int want;
} create_rows[] = {
	{ "a valid VA and dma-buf pair", NONE, 0 },
	{ "inlen shorter than the known fields", SHORT_INLEN, EINVAL },
	{ "a non-zero byte past the known fields", TRAILING_BYTE, EINVAL },
	{ "a comp_mask bit", COMP_MASK, EOPNOTSUPP },
	{ "an unknown flag", UNKNOWN_FLAG, EOPNOTSUPP },
	{ "reserved not zero", RESERVED, EINVAL },
	{ "a NULL VA", VA_NULL, EINVAL },
	{ "an unaligned VA", VA_UNALIGNED, EINVAL },
	{ "a negative dma-buf fd", DMABUF_BAD_FD, EBADF },
	{ "an unaligned dma-buf offset", DMABUF_UNALIGNED_OFFSET, EINVAL },
	{ "an unknown location type", BAD_LOCATION_TYPE, EINVAL },
	{ "a bad error location", ERR_LOCATION_BAD, EINVAL },
};

/* The caller's structure, with room for a newer library's fields. */
struct grown_init_attr {
	struct rxcdv_comp_cntr_init_attr attr;
	unsigned char newer[8];
};

static uint32_t mutate(struct grown_init_attr *g, enum mutation m)
{
	struct rxcdv_comp_cntr_init_attr *a = &g->attr;
	uint32_t inlen = sizeof(*g);

	a->flags = RXCDV_COMP_CNTR_INIT_WITH_COMP_EXTERNAL_MEM |
		   RXCDV_COMP_CNTR_INIT_WITH_ERR_EXTERNAL_MEM;
	a->comp_ext_mem.type = RXCDV_MEMORY_LOCATION_VA;
	a->comp_ext_mem.ptr = &value;
	a->err_ext_mem.type = RXCDV_MEMORY_LOCATION_DMABUF;
	a->err_ext_mem.dmabuf_fd = 3;
	a->err_ext_mem.dmabuf_offset = 64;
	switch (m) {
	case NONE:
		break;
	case SHORT_INLEN:
		inlen = offsetof(struct rxcdv_comp_cntr_init_attr, err_ext_mem);
		break;
	case TRAILING_BYTE:
		g->newer[5] = 1;
		break;
	case COMP_MASK:
		a->comp_mask = 1;
		break;
	case UNKNOWN_FLAG:
		a->flags |= 1u << 7;
		break;
	case RESERVED:
		a->reserved = 1;
		break;
	case VA_NULL:
		a->comp_ext_mem.ptr = NULL;
		break;
	case VA_UNALIGNED:
		a->comp_ext_mem.ptr = (uint64_t *)((char *)&value + 4);
		break;
	case DMABUF_BAD_FD:
		a->err_ext_mem.dmabuf_fd = -1;
		break;
	case DMABUF_UNALIGNED_OFFSET:
		a->err_ext_mem.dmabuf_offset = 12;
		break;
	case BAD_LOCATION_TYPE:
		a->comp_ext_mem.type = 9;
		break;
	case ERR_LOCATION_BAD:
		a->err_ext_mem.type = RXCDV_MEMORY_LOCATION_VA;
		a->err_ext_mem.ptr = NULL;
		break;
	}
	return inlen;
}

static void create_attr_checks(void)
{
	unsigned int i;

	CHECK_RC(rxc_check_dv_init_attr(NULL, 0), EINVAL);
	for (i = 0; i < sizeof(create_rows) / sizeof(create_rows[0]); i++) {
		struct grown_init_attr g = {};
		uint32_t inlen = mutate(&g, create_rows[i].m);
		int got = rxc_check_dv_init_attr(&g.attr, inlen);

		CHECK(got == create_rows[i].want, "%s: %s, expected %s",
		      create_rows[i].name, err_name(got),
		      err_name(create_rows[i].want));
	}
}

static void query_attr_checks(void)
{
	struct ibv_comp_cntr c = {};
	struct {
		struct rxcdv_comp_cntr_attr attr;
		unsigned char newer[8];
	} g = {};
	uint32_t known = offsetof(struct rxcdv_comp_cntr_attr, type) +
			 sizeof(g.attr.type);

	CHECK_RC(rxc_check_query_attr(&c, &g.attr, sizeof(g)), 0);
	CHECK_RC(rxc_check_query_attr(&c, &g.attr, known), 0);
	CHECK_RC(rxc_check_query_attr(&c, &g.attr, known - 1), EINVAL);
	CHECK_RC(rxc_check_query_attr(NULL, &g.attr, sizeof(g)), EINVAL);
	CHECK_RC(rxc_check_query_attr(&c, NULL, sizeof(g)), EINVAL);
	g.newer[0] = 1;
	CHECK_RC(rxc_check_query_attr(&c, &g.attr, sizeof(g)), EINVAL);
}

static const struct tap_case tests[] = {
	TAP_CASE(create_attr_checks),
	TAP_CASE(query_attr_checks),
};

int main(void)
{
	return tap_run_cases("librxc argument checks", tests,
			     sizeof(tests) / sizeof(tests[0]));
}
