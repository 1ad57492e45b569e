/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rxc direct verbs: what rxc's completion counters offer beyond the
 * generic verbs of <infiniband/verbs.h> (rdma-core 65).
 *
 *  - counter values in memory the application supplies (virtual memory,
 *    or a dma-buf and an offset), separately for completions and errors;
 *  - pointers to the current values, for polling without a system call;
 *  - waiting until the completion value reaches a threshold;
 *  - an eventfd that becomes readable on the same condition, for poll()
 *    and epoll.
 *
 * BYTES counters need no direct verb: ibv_create_comp_cntr() with
 * IBV_COMP_CNTR_TYPE_BYTES creates one on rxc.
 *
 * Each call returns 0 or an errno value (constructors: NULL with errno
 * set), as libibverbs does.  Structures that may grow carry comp_mask and
 * are passed with their size (inlen).
 */
#ifndef RXCDV_H
#define RXCDV_H

#include <stdint.h>
#include <infiniband/verbs.h>
#include <infiniband/rxc_comp_cntr.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rxcdv_memory_location_type {
	RXCDV_MEMORY_LOCATION_VA,
	RXCDV_MEMORY_LOCATION_DMABUF,
};

/*
 * Where one 64-bit counter value lives.
 * VA: @ptr is the value's address (8-byte aligned, writable memory).
 * DMABUF: @dmabuf_fd and @dmabuf_offset (8-byte aligned) locate it; @ptr
 * is optional, a CPU mapping of the same bytes, which
 * rxcdv_query_comp_cntr() hands back for polling.
 */
struct rxcdv_memory_location {
	uint64_t *ptr;
	uint64_t dmabuf_offset;
	int32_t dmabuf_fd;
	uint32_t type;			/* enum rxcdv_memory_location_type */
};

enum rxcdv_comp_cntr_init_flags {
	RXCDV_COMP_CNTR_INIT_WITH_COMP_EXTERNAL_MEM	= 1 << 0,
	RXCDV_COMP_CNTR_INIT_WITH_ERR_EXTERNAL_MEM	= 1 << 1,
};

struct rxcdv_comp_cntr_init_attr {
	uint64_t comp_mask;		/* zero */
	uint32_t flags;			/* enum rxcdv_comp_cntr_init_flags */
	uint32_t reserved;		/* zero */
	struct rxcdv_memory_location comp_ext_mem;
	struct rxcdv_memory_location err_ext_mem;
};

/*
 * The current values of a counter, read without a system call.  Load them
 * with rxcdv_comp_cntr_load(): a value N seen through it guarantees that
 * the data of those N operations is visible.
 */
struct rxcdv_comp_cntr_attr {
	uint64_t comp_mask;		/* out: zero */
	const volatile uint64_t *comp_count;	/* NULL: not mapped */
	const volatile uint64_t *err_count;	/* NULL: not mapped */
	uint32_t type;			/* enum ibv_comp_cntr_type */
	uint32_t reserved;
};

enum rxcdv_comp_cntr_wait_attr_mask {
	/* err_base is valid; otherwise the error value at the call */
	RXCDV_COMP_CNTR_WAIT_ATTR_ERR_BASE = 1 << 0,
};

struct rxcdv_comp_cntr_wait_attr {
	uint64_t comp_mask;		/* enum rxcdv_comp_cntr_wait_attr_mask */
	uint64_t threshold;		/* return once comp >= threshold ... */
	uint64_t err_base;		/* ... or err != err_base */
	uint32_t timeout_ms;		/* else ETIMEDOUT after this long */
	uint32_t reserved;		/* zero */
	uint64_t comp_value;		/* out: completion value seen last */
	uint64_t err_value;		/* out: error value seen last */
};

enum rxcdv_comp_cntr_notify_attr_mask {
	RXCDV_COMP_CNTR_NOTIFY_ATTR_ERR_BASE = 1 << 0,
};

struct rxcdv_comp_cntr_notify_attr {
	uint64_t comp_mask;		/* enum rxcdv_comp_cntr_notify_attr_mask */
	uint64_t threshold;		/* signal once comp >= threshold ... */
	uint64_t err_base;		/* ... or err != err_base */
	int32_t fd;			/* an eventfd; -1 disarms */
	uint32_t reserved;		/* zero */
};

/* A counter value with acquire ordering (see struct rxcdv_comp_cntr_attr). */
static inline uint64_t rxcdv_comp_cntr_load(const volatile uint64_t *value)
{
	return __atomic_load_n(value, __ATOMIC_ACQUIRE);
}

/* Both work on any counter of an rxc device, whoever created it. */
int rxcdv_wait_comp_cntr(struct ibv_comp_cntr *comp_cntr,
			 struct rxcdv_comp_cntr_wait_attr *attr,
			 uint32_t inlen);
int rxcdv_notify_comp_cntr(struct ibv_comp_cntr *comp_cntr,
			   struct rxcdv_comp_cntr_notify_attr *attr,
			   uint32_t inlen);

#if !RXC_HAVE_IBV_COMP_CNTR || RXC_HAVE_RXEDV
/*
 * These need counters whose memory librxc knows: the ones it created, or,
 * where libibverbs has the counter verbs, the ones the rxe provider
 * created, whose direct verbs (rxedv, from rdma-core-patches) librxc then
 * calls (RXC_HAVE_RXEDV).
 */
struct ibv_comp_cntr *
rxcdv_create_comp_cntr(struct ibv_context *context,
		       struct ibv_comp_cntr_init_attr *attr,
		       struct rxcdv_comp_cntr_init_attr *dv_attr,
		       uint32_t inlen);
int rxcdv_query_comp_cntr(struct ibv_comp_cntr *comp_cntr,
			  struct rxcdv_comp_cntr_attr *attr, uint32_t inlen);
#endif
#if !RXC_HAVE_IBV_COMP_CNTR
/*
 * The counter's own eventfd (non-blocking), closed when it is destroyed:
 * only counters librxc created have one.  rxcdv_notify_comp_cntr() arms
 * any eventfd for any counter.
 */
int rxcdv_get_comp_cntr_fd(struct ibv_comp_cntr *comp_cntr);
#endif

#ifdef __cplusplus
}
#endif

#endif /* RXCDV_H */
