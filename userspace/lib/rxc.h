/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * librxc internals shared between its source files.
 */
#ifndef RXC_LIB_RXC_H
#define RXC_LIB_RXC_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/rxcdv.h>

/* Only these names leave the library (-fvisibility=hidden otherwise). */
#define RXC_EXPORT __attribute__((visibility("default")))

/*
 * A counter librxc created.  Only the library allocates them, so a
 * struct ibv_comp_cntr handed to a librxc verb is always the first member
 * of one of these.
 */
struct rxc_comp_cntr {
	struct ibv_comp_cntr ibv;
	uint32_t type;			/* enum ibv_comp_cntr_type */
	/* The driver's read-only counter page, or NULL (all external). */
	void *map;
	size_t map_len;
	/* Where the values can be read; NULL when not CPU-visible. */
	const volatile uint64_t *comp;
	const volatile uint64_t *err;
	/* Protects event_fd's creation (rxcdv_get_comp_cntr_fd()). */
	pthread_mutex_t lock;
	int event_fd;			/* -1 until asked for */
};

static inline struct rxc_comp_cntr *to_rxc_cntr(struct ibv_comp_cntr *c)
{
	return (struct rxc_comp_cntr *)((char *)c -
					offsetof(struct rxc_comp_cntr, ibv));
}

/*
 * Checks a caller's extensible structure of @inlen bytes whose fields this
 * library knows up to @known bytes and needs at least @needed of: too
 * short, or unknown trailing bytes that are not zero, is EINVAL.
 */
int rxc_check_inlen(const void *attr, uint32_t inlen, size_t needed,
		    size_t known);
/* rxcdv_create_comp_cntr()'s @dv_attr: 0 or the errno to fail with. */
int rxc_check_dv_init_attr(const struct rxcdv_comp_cntr_init_attr *dv,
			   uint32_t inlen);
/* rxcdv_query_comp_cntr()'s arguments: 0 or the errno to fail with. */
int rxc_check_query_attr(const struct ibv_comp_cntr *comp_cntr,
			 const struct rxcdv_comp_cntr_attr *attr,
			 uint32_t inlen);

#endif /* RXC_LIB_RXC_H */
