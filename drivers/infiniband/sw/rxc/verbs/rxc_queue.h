/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Rings shared with user space, in the layout librxe expects
 * (struct rxe_queue_buf in <rdma/rdma_user_rxe.h>).
 *
 * Each ring has one producer and one consumer; either may be user space.
 * Indices are masked slot numbers: the ring is empty when prod == cons and
 * full when cons == prod + 1, so a ring of N slots holds N - 1 elements.
 *
 * User space can write the whole buffer at any time.  The kernel therefore
 * keeps its own copy of the geometry and of the index it owns, and only ever
 * reads the user-owned index, masked, through rxc_queue_refresh(), or as a
 * hint through rxc_queue_peek_prod().
 */
#ifndef RXC_QUEUE_H
#define RXC_QUEUE_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

struct rxc_dev;

/**
 * struct rxc_mmap_entry - a ring buffer that user space may map
 * @rdma: the core's entry; core counts the VMAs that map it
 * @buf: rxc_user_buf_alloc() memory, freed by rxc_mmap_free() once the
 *	 ring is destroyed and the last mapping is gone
 * @read_only: user space may not map it writable (counter pages)
 */
struct rxc_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *buf;
	bool read_only;
};

/**
 * struct rxc_queue - kernel view of a shared ring
 * @buf: the ring, header first
 * @size: bytes allocated for @buf, a multiple of PAGE_SIZE
 * @mask: slot count - 1; never re-read from @buf
 * @log2_elem: log2 of the element size; never re-read from @buf
 * @prod: producer index as last seen or set by the kernel
 * @cons: consumer index as last seen or set by the kernel
 * @user_prod: user space owns the producer index (SQ, RQ, SRQ)
 * @user_cons: user space owns the consumer index (user CQ)
 * @mmap: the mmap entry when user space maps the ring, else NULL
 *
 * The caller serializes all calls on one ring with the owning object's lock.
 */
struct rxc_queue {
	struct rxe_queue_buf *buf;
	size_t size;
	u32 mask;
	u32 log2_elem;
	u32 prod;
	u32 cons;
	bool user_prod;
	bool user_cons;
	struct rxc_mmap_entry *mmap;
};

static inline u32 rxc_q_next(u32 index, u32 mask)
{
	return (index + 1) & mask;
}

static inline u32 rxc_q_count(u32 prod, u32 cons, u32 mask)
{
	return (prod - cons) & mask;
}

static inline bool rxc_q_full(u32 prod, u32 cons, u32 mask)
{
	return rxc_q_next(prod, mask) == cons;
}

int rxc_q_geometry(u32 num_elem, u32 elem_size, u32 *slots, u32 *log2_elem);

/* Which way a ring's elements flow. */
enum rxc_queue_dir {
	RXC_QUEUE_TO_KERNEL,	/* work queues: the poster produces */
	RXC_QUEUE_TO_USER,	/* CQs: the kernel produces */
};

int rxc_queue_init(struct rxc_queue *q, u32 *num_elem, u32 elem_size,
		   bool user_prod, bool user_cons);
int rxc_queue_map(struct rxc_queue *q, struct ib_ucontext *uctx,
		  struct mminfo *mi);
int rxc_queue_create(struct rxc_queue *q, u32 *num_elem, u32 elem_size,
		     enum rxc_queue_dir dir, struct ib_udata *udata,
		     struct mminfo *mi);
void rxc_queue_free(struct rxc_queue *q);
void rxc_queue_refresh(struct rxc_queue *q);
int rxc_queue_copy(struct rxc_queue *dst, struct rxc_queue *src);

/*
 * The user-owned producer index as it is now, masked, without the ring's
 * lock: a hint that decides whether to take the lock or where to run, and
 * never which slots to read.
 */
static inline u32 rxc_queue_peek_prod(const struct rxc_queue *q)
{
	/* Pairs with the provider's release: its elements come first. */
	return smp_load_acquire(&q->buf->producer_index) & q->mask;
}

static inline u32 rxc_queue_count(const struct rxc_queue *q)
{
	return rxc_q_count(q->prod, q->cons, q->mask);
}

static inline u32 rxc_queue_capacity(const struct rxc_queue *q)
{
	return q->mask;
}

static inline void *rxc_queue_elem(const struct rxc_queue *q, u32 index)
{
	return q->buf->data + ((size_t)(index & q->mask) << q->log2_elem);
}

/* Oldest element, or NULL when the ring is empty. */
static inline void *rxc_queue_head(struct rxc_queue *q)
{
	rxc_queue_refresh(q);
	return q->prod == q->cons ? NULL : rxc_queue_elem(q, q->cons);
}

/* Free slot for the next element, or NULL when the ring is full. */
static inline void *rxc_queue_tail(struct rxc_queue *q)
{
	rxc_queue_refresh(q);
	return rxc_q_full(q->prod, q->cons, q->mask) ? NULL :
	       rxc_queue_elem(q, q->prod);
}

/* Retire the head. */
static inline void rxc_queue_pop(struct rxc_queue *q)
{
	q->cons = rxc_q_next(q->cons, q->mask);
	/* Finish reading the element before the producer may reuse it. */
	smp_store_release(&q->buf->consumer_index, q->cons);
}

/*
 * Retire every element of a work queue at once, with one store: a move to
 * RESET discards them, and a ring holds up to 2^21 of them, too many to
 * pop one by one with the ring's lock held and interrupts off.
 */
static inline void rxc_queue_discard(struct rxc_queue *q)
{
	rxc_queue_refresh(q);
	q->cons = q->prod;
	/* As in rxc_queue_pop(): the producer may reuse every slot now. */
	smp_store_release(&q->buf->consumer_index, q->cons);
}

/* Publish the tail. */
static inline void rxc_queue_push(struct rxc_queue *q)
{
	q->prod = rxc_q_next(q->prod, q->mask);
	/* Make the element visible before the index that covers it. */
	smp_store_release(&q->buf->producer_index, q->prod);
}

#endif /* RXC_QUEUE_H */
