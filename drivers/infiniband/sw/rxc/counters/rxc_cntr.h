/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Completion counters: rxc's side of the object, the memory the values
 * live in (driver pages, pinned user memory or a dma-buf), waiting for
 * them, and the hooks in the completion path and the responder.
 */
#ifndef RXC_CNTR_H
#define RXC_CNTR_H

#include <linux/atomic.h>
#include <linux/iosys-map.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <rdma/rxc-abi.h>

#include "ib_comp_cntr.h"
#include "rxc_compat.h"
#include "transport/rxc_transport.h"

struct dma_buf;
struct eventfd_ctx;
struct ib_ucontext;
struct ib_umem;
struct rxc_dev;
struct rxc_mmap_entry;
struct rxc_qp;

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
 * struct rxc_cntr_pool - the counters of one user context
 * @lock: protects @pages and every page's @used and @nused
 * @pages: pages with at least one live counter
 * @handles: the context's counters by uobject handle, for WAIT
 *
 * Pages are per context so that a process maps only its own counters.
 * WAIT finds its counter in @handles rather than through uverbs, which
 * would hold the counter's uobject, and so hold off MODIFY and DESTROY,
 * for the whole sleep (rxc_cntr_wait.c).
 */
struct rxc_cntr_pool {
	/* Protects pages and each page's slot bitmap; process context. */
	struct mutex lock;
	struct list_head pages;
	/*
	 * Its own spinlock orders a WAIT's lookup against destroy's erase;
	 * process context.
	 */
	struct xarray handles;
};

/* Where one of a counter's two values lives. */
enum rxc_cntr_mem_kind {
	RXC_CNTR_MEM_PAGE,	/* a slot of the context's mapped pages */
	RXC_CNTR_MEM_VA,	/* user memory, pinned (ib_umem) */
	RXC_CNTR_MEM_DMABUF,	/* a dma-buf, mapped with dma_buf_vmap() */
};

/**
 * struct rxc_cntr_mem - one value of a counter and what backs it
 * @val: the kernel address every update goes through
 * @kind: what backs it
 * @addr: the user address (VA) or the offset in the dma-buf (DMABUF)
 * @umem: VA: the pinned user page
 * @vaddr: VA: the kernel mapping of that page
 * @dmabuf: DMABUF: the buffer, referenced for the counter's lifetime
 * @map: DMABUF: its kernel mapping
 */
struct rxc_cntr_mem {
	atomic64_t *val;
	enum rxc_cntr_mem_kind kind;
	u64 addr;
	struct ib_umem *umem;
	void *vaddr;
	struct dma_buf *dmabuf;
	struct iosys_map map;
};

/**
 * struct rxc_cntr_notify - an eventfd armed by RXC_METHOD_COMP_CNTR_NOTIFY
 * @ctx: the eventfd, referenced until re-armed, disarmed or destroyed
 * @threshold: signal once the completion value is at least this
 * @err_base: or once the error value differs from this
 * @armed: @ctx is signalled at the next update meeting the condition
 */
struct rxc_cntr_notify {
	struct eventfd_ctx *ctx;
	u64 threshold;
	u64 err_base;
	bool armed;
};

/**
 * struct rxc_cntr - a completion counter
 * @ibcc: the core object; core allocates rxc_cntr around it
 * @rxc: its device
 * @type: what a successful completion adds (enum rxc_comp_cntr_type)
 * @max_value: the value after which an increment wraps to zero, 2^k - 1
 * @pool: the pool of the context that created it
 * @page: the page holding the values that are not in user memory, or
 *	  NULL when both are
 * @slot: the index of its values in @page
 * @comp: the completion value
 * @err: the error value
 * @dev_entry: entry on the device's cntr_list (debugfs)
 * @usecnt: QPs it is attached to, as the QPs' attachment tables count
 *	    them (beside the core's count in @ibcc where the core has one)
 * @handle: its uobject handle, the key in the pool's @handles
 * @waits: WAITs that found it in @handles and have not let go; destroy
 *	   waits for them to leave before it frees the values
 * @gone: destroy has begun; a WAIT that sees it returns ENOENT
 * @nwaiters: sleeping WAITs plus an armed notification; updates look at
 *	      nothing else when it is zero
 * @wq: where WAIT sleeps
 * @notify_lock: protects @notify; taken in any context, IRQs off
 * @notify: the armed eventfd
 */
struct rxc_cntr {
	struct ib_comp_cntr ibcc;
	struct rxc_dev *rxc;
	u32 type;
	u64 max_value;
	struct rxc_cntr_pool *pool;
	struct rxc_cntr_page *page;
	unsigned int slot;
	struct rxc_cntr_mem comp;
	struct rxc_cntr_mem err;
	struct list_head dev_entry;
	atomic_t usecnt;
	u32 handle;
	atomic_t waits;
	bool gone;
	atomic_t nwaiters;
	wait_queue_head_t wq;
	/* Protects notify; any context. */
	spinlock_t notify_lock;
	struct rxc_cntr_notify notify;
};

static inline struct rxc_cntr *to_rcntr(struct ib_comp_cntr *cc)
{
	return container_of(cc, struct rxc_cntr, ibcc);
}

void rxc_cntr_pool_init(struct rxc_cntr_pool *pool);
void rxc_cntr_pool_destroy(struct rxc_cntr_pool *pool);
void rxc_cntr_complete(struct rxc_qp *qp, const struct rxc_completion *c);
void rxc_cntr_remote(struct rxc_qp *qp, u32 op, u64 bytes, bool ok);

/* Per device: the counter list, core's callbacks (if core has the object). */
void rxc_cntr_dev_init(struct rxc_dev *rxc);
void rxc_cntr_dev_cleanup(struct rxc_dev *rxc);

extern const struct uapi_definition rxc_cntr_uapi_defs[];

/* counters/rxc_cntr_mem.c: user-supplied memory for one value */
int rxc_cntr_mem_import(struct rxc_dev *rxc, struct rxc_cntr_mem *m,
			const struct ib_uverbs_buffer_desc *desc,
			const char *which);
void rxc_cntr_mem_release(struct rxc_cntr_mem *m);
const char *rxc_cntr_mem_name(enum rxc_cntr_mem_kind kind);

/* counters/rxc_cntr_wait.c: WAIT, NOTIFY and waking them */
void rxc_cntr_wait_init(struct rxc_cntr *cntr);
int rxc_cntr_wait_publish(struct rxc_cntr *cntr, u32 handle);
void rxc_cntr_wait_cleanup(struct rxc_cntr *cntr);
void __rxc_cntr_wake(struct rxc_cntr *cntr);
int rxc_cntr_client_register(void);
void rxc_cntr_client_unregister(void);

/*
 * After an update: a single read when nobody waits.  The update itself
 * is a fully ordered atomic, so a waiter that registered before it is
 * seen here, and one that registers after it sees the new value.
 */
static inline void rxc_cntr_wake(struct rxc_cntr *cntr)
{
	if (likely(!atomic_read(&cntr->nwaiters)))
		return;
	__rxc_cntr_wake(cntr);
}

extern const struct uapi_definition rxc_cntr_wait_uapi_defs[];

/* Module init and exit: debugfs and the removal client (rxc_cntr_wait.c). */
int rxc_cntr_init(void);
void rxc_cntr_exit(void);

/* counters/rxc_cntr_debugfs.c */
void rxc_cntr_debugfs_init(void);
void rxc_cntr_debugfs_exit(void);
void rxc_cntr_debugfs_add(struct rxc_dev *rxc, const char *name);
void rxc_cntr_debugfs_rename(struct rxc_dev *rxc, const char *name);
void rxc_cntr_debugfs_remove(struct rxc_dev *rxc);

/* Pure helpers, exported for KUnit. */
u32 rxc_cntr_op_bit(enum ib_wc_opcode opcode);
u64 rxc_cntr_max_value(unsigned int bits);
u64 rxc_cntr_wrap_add(u64 old, u64 n, u64 max_value);
u64 rxc_cntr_amount(u32 type, u64 bytes);
u64 rxc_cntr_comp_bytes(const struct rxc_completion *c);
bool rxc_cntr_remote_op_valid(u32 op);
bool rxc_cntr_entry_valid(u32 entry);
bool rxc_cntr_modify_op_valid(u32 op);
bool rxc_cntr_wait_done(u64 comp, u64 err, u64 threshold, u64 err_base);
int rxc_cntr_desc_check(const struct ib_uverbs_buffer_desc *desc);

#endif /* RXC_CNTR_H */
