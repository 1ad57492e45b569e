/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Completion counters: rxc's side of the object, the pages user space
 * reads the values from, and the hook in the completion path.
 */
#ifndef RXC_CNTR_H
#define RXC_CNTR_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <rdma/rxc-abi.h>

#include "ib_comp_cntr.h"
#include "transport/rxc_transport.h"

struct rxc_mmap_entry;
struct rxc_qp;
struct ib_ucontext;

/*
 * The two values of one counter, as user space sees them in the mapped
 * page: the completion value, then the error value.
 */
struct rxc_cntr_vals {
	atomic64_t comp;
	atomic64_t err;
};

#define RXC_CNTR_PER_PAGE	(PAGE_SIZE / sizeof(struct rxc_cntr_vals))

/**
 * struct rxc_cntr_page - one page of counter values, mapped read-only
 * @list: entry on the pool's page list
 * @vals: the page; the mmap entry owns it and frees it after the last
 *	  mapping is gone, so a process can never read a reused page
 * @mmap: the entry user space maps it through
 * @used: which slots hold a live counter
 * @nused: how many do
 */
struct rxc_cntr_page {
	struct list_head list;
	struct rxc_cntr_vals *vals;
	struct rxc_mmap_entry *mmap;
	DECLARE_BITMAP(used, RXC_CNTR_PER_PAGE);
	unsigned int nused;
};

/**
 * struct rxc_cntr_pool - the counter pages of one user context
 * @lock: protects @pages and every page's @used and @nused
 * @pages: pages with at least one live counter
 *
 * Pages are per context so that a process maps only its own counters.
 */
struct rxc_cntr_pool {
	/* Protects pages and each page's slot bitmap; process context. */
	struct mutex lock;
	struct list_head pages;
};

/**
 * struct rxc_cntr - a completion counter
 * @ibcc: the core object; core allocates rxc_cntr around it
 * @type: what a successful completion adds (enum rxc_comp_cntr_type)
 * @max_value: the value after which an increment wraps to zero, 2^k - 1
 * @pool: the pool of the context that created it
 * @page: the page holding @vals
 * @vals: this counter's slot in @page
 */
struct rxc_cntr {
	struct ib_comp_cntr ibcc;
	u32 type;
	u64 max_value;
	struct rxc_cntr_pool *pool;
	struct rxc_cntr_page *page;
	struct rxc_cntr_vals *vals;
};

static inline struct rxc_cntr *to_rcntr(struct ib_comp_cntr *cc)
{
	return container_of(cc, struct rxc_cntr, ibcc);
}

void rxc_cntr_pool_init(struct rxc_cntr_pool *pool);
void rxc_cntr_pool_destroy(struct rxc_cntr_pool *pool);
void rxc_cntr_complete(struct rxc_qp *qp, const struct rxc_completion *c);

extern const struct uapi_definition rxc_cntr_uapi_defs[];

/* Pure helpers, exported for KUnit. */
u32 rxc_cntr_op_bit(enum ib_wc_opcode opcode);
u64 rxc_cntr_max_value(unsigned int bits);
u64 rxc_cntr_wrap_add(u64 old, u64 n, u64 max_value);
u64 rxc_cntr_comp_amount(u32 type, const struct rxc_completion *c);

#endif /* RXC_CNTR_H */
