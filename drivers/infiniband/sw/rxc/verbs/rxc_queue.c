// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Shared ring allocation, mapping and resizing.  See rxc_queue.h for the
 * index rules.  All functions run in process context except
 * rxc_queue_refresh(), which any context may call.
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>

#include <rdma/uverbs_ioctl.h>

#include "rxc.h"
#include "rxc_verbs.h"

/* Rings larger than this are refused rather than attempted. */
#define RXC_QUEUE_MAX_BYTES	BIT_ULL(30)

/**
 * rxc_q_geometry - slot count and element size for a ring
 * @num_elem: elements the ring must hold
 * @elem_size: bytes per element
 * @slots: set to the slot count, a power of two > @num_elem
 * @log2_elem: set to log2 of the element size, at least a cache line
 *
 * Return: 0, or -EINVAL when the ring would exceed RXC_QUEUE_MAX_BYTES.
 */
int rxc_q_geometry(u32 num_elem, u32 elem_size, u32 *slots, u32 *log2_elem)
{
	u64 n = max_t(u64, (u64)num_elem + 1, 2);
	u64 e = max_t(u64, elem_size, SMP_CACHE_BYTES);

	if (n > RXC_QUEUE_MAX_BYTES || e > RXC_QUEUE_MAX_BYTES)
		return -EINVAL;
	n = roundup_pow_of_two(n);
	e = roundup_pow_of_two(e);
	if (n * e > RXC_QUEUE_MAX_BYTES)
		return -EINVAL;
	*slots = n;
	*log2_elem = ilog2(e);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_q_geometry);

/**
 * rxc_queue_init - allocate a zeroed ring
 * @q: the ring to set up
 * @num_elem: in: elements requested; out: the ring's real capacity
 * @elem_size: bytes per element
 * @user_prod: user space produces (send and receive queues)
 * @user_cons: user space consumes (user CQs)
 */
int rxc_queue_init(struct rxc_queue *q, u32 *num_elem, u32 elem_size,
		   bool user_prod, bool user_cons)
{
	u32 slots, log2_elem;
	int err;

	err = rxc_q_geometry(*num_elem, elem_size, &slots, &log2_elem);
	if (err)
		return err;

	memset(q, 0, sizeof(*q));
	q->size = PAGE_ALIGN(sizeof(*q->buf) + ((size_t)slots << log2_elem));
	q->buf = rxc_user_buf_alloc(q->size);
	if (!q->buf)
		return -ENOMEM;

	q->mask = slots - 1;
	q->log2_elem = log2_elem;
	q->user_prod = user_prod;
	q->user_cons = user_cons;
	q->buf->log2_elem_size = log2_elem;
	q->buf->index_mask = q->mask;
	*num_elem = rxc_queue_capacity(q);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_queue_init);

/**
 * rxc_queue_map - let user space mmap the ring
 * @q: an initialized ring
 * @uctx: the user context that will map it
 * @mi: set to the offset and length to pass to mmap()
 *
 * From here on the mmap entry owns the buffer: rxc_queue_free() only drops
 * the kernel's reference and core frees the pages after the last munmap.
 */
int rxc_queue_map(struct rxc_queue *q, struct ib_ucontext *uctx,
		  struct mminfo *mi)
{
	struct rxc_mmap_entry *entry;
	int err;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL_ACCOUNT);
	if (!entry)
		return -ENOMEM;

	entry->buf = q->buf;
	err = rdma_user_mmap_entry_insert(uctx, &entry->rdma, q->size);
	if (err) {
		kfree(entry);
		return err;
	}

	q->mmap = entry;
	mi->offset = rdma_user_mmap_get_offset(&entry->rdma);
	mi->size = q->size;
	mi->pad = 0;
	return 0;
}

/**
 * rxc_queue_create - allocate a ring, mapped for user space with @udata
 * @q: the ring to set up
 * @num_elem: in: elements requested; out: the ring's real capacity
 * @elem_size: bytes per element
 * @dir: which side produces: with @udata, that side is user space
 * @udata: the user verb's data, or NULL for a kernel object
 * @mi: set to what user space passes to mmap() (with @udata)
 */
int rxc_queue_create(struct rxc_queue *q, u32 *num_elem, u32 elem_size,
		     enum rxc_queue_dir dir, struct ib_udata *udata,
		     struct mminfo *mi)
{
	struct rxc_ucontext *uctx;
	int err;

	err = rxc_queue_init(q, num_elem, elem_size,
			     udata && dir == RXC_QUEUE_TO_KERNEL,
			     udata && dir == RXC_QUEUE_TO_USER);
	if (err || !udata)
		return err;

	uctx = rdma_udata_to_drv_context(udata, struct rxc_ucontext, ibuc);
	err = rxc_queue_map(q, &uctx->ibuc, mi);
	if (err)
		rxc_queue_free(q);
	return err;
}

void rxc_queue_free(struct rxc_queue *q)
{
	if (q->mmap)
		rdma_user_mmap_entry_remove(&q->mmap->rdma);
	else
		vfree(q->buf);
	q->buf = NULL;
	q->mmap = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_queue_free);

/*
 * Read the user-owned index.  Masking keeps a corrupted index inside the
 * ring.
 */
void rxc_queue_refresh(struct rxc_queue *q)
{
	if (q->user_prod) {
		/* Pairs with the provider's release: WQEs before the index. */
		q->prod = smp_load_acquire(&q->buf->producer_index) & q->mask;
	}
	if (q->user_cons) {
		/* Pairs with the provider's release: CQEs copied out first. */
		q->cons = smp_load_acquire(&q->buf->consumer_index) & q->mask;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rxc_queue_refresh);

/**
 * rxc_queue_copy - move the live elements of @src into the empty @dst
 * @dst: a new, empty ring
 * @src: the ring being replaced
 *
 * Used to resize a ring.  Return: -EINVAL when they do not fit.
 */
int rxc_queue_copy(struct rxc_queue *dst, struct rxc_queue *src)
{
	size_t len = min(1UL << dst->log2_elem, 1UL << src->log2_elem);
	u32 n, i;

	rxc_queue_refresh(src);
	n = rxc_queue_count(src);
	if (n > rxc_queue_capacity(dst))
		return -EINVAL;

	for (i = 0; i < n; i++)
		memcpy(rxc_queue_elem(dst, i),
		       rxc_queue_elem(src, src->cons + i), len);
	dst->prod = n;
	dst->cons = 0;
	WRITE_ONCE(dst->buf->producer_index, dst->prod);
	WRITE_ONCE(dst->buf->consumer_index, dst->cons);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_queue_copy);
