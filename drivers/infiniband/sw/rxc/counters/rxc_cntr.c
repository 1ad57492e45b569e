// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion counters.  By default the values live in pages of a user
 * context's pool, packed RXC_CNTR_PER_PAGE to a page and mapped
 * read-only, so user space can read a counter without a system call; a
 * value may instead live in user memory or a dma-buf (rxc_cntr_mem.c).
 * Every update is a fully ordered atomic read-modify-write: a reader that
 * sees a new value also sees what the completion placed before it, and
 * the waiter check after it (rxc_cntr_wake()) cannot miss a sleeper.
 *
 * Contexts: the verbs run in process context; rxc_cntr_complete() and
 * rxc_cntr_remote() run wherever the transport retires work (softirq,
 * process or workqueue).
 */
#include <linux/bitmap.h>
#include <linux/dma-buf.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>
#define UVERBS_MODULE_NAME rxc
#include <rdma/uverbs_named_ioctl.h>

#include "rxc.h"
#include "verbs/rxc_verbs.h"
#include "counters/rxc_cntr.h"

/**
 * rxc_cntr_op_bit - the attach operation bit that counts a completion
 * @opcode: the completion's IB_WC_* opcode
 *
 * Reads and atomics both return data to the initiator, so they count as
 * RDMA_READ; ATOMIC_WRITE returns none and counts as RDMA_WRITE.  rxc has
 * no masked atomics: on 6.1, IB_WC_MASKED_COMP_SWAP is the number that
 * user space knows as IBV_WC_ATOMIC_WRITE.  Local operations (invalidate,
 * bind, registration) are not counted.  The REMOTE_* bits are counted by
 * the responder.
 *
 * Return: one IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_* bit, or 0.
 */
u32 rxc_cntr_op_bit(enum ib_wc_opcode opcode)
{
	if (opcode & IB_WC_RECV)
		return IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV;

	switch (opcode) {
	case IB_WC_SEND:
		return IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_SEND;
	case IB_WC_RDMA_WRITE:
	case RXC_WC_ATOMIC_WRITE:
		return IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE;
	case IB_WC_RDMA_READ:
	case IB_WC_COMP_SWAP:
	case IB_WC_FETCH_ADD:
		return IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_READ;
	default:
		return 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cntr_op_bit);

/* The largest value of a @bits wide counter (1 <= @bits <= 64). */
u64 rxc_cntr_max_value(unsigned int bits)
{
	return bits >= 64 ? U64_MAX : BIT_ULL(bits) - 1;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cntr_max_value);

/*
 * @old + @n modulo @max_value + 1.  @max_value is 2^k - 1, so the modulo
 * is a mask, and unsigned overflow at k = 64 is the same wrap.
 */
u64 rxc_cntr_wrap_add(u64 old, u64 n, u64 max_value)
{
	return (old + n) & max_value;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cntr_wrap_add);

/* What a successful operation of @bytes adds to the completion value. */
u64 rxc_cntr_amount(u32 type, u64 bytes)
{
	return type == RXC_COMP_CNTR_TYPE_BYTES ? bytes : 1;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cntr_amount);

/*
 * The bytes a BYTES counter adds for a completion: those sent or placed
 * for sends and receives, those returned for reads.  A UD receive's
 * byte_len also covers the GRH placed in front of the message, which is
 * no part of it.
 */
u64 rxc_cntr_comp_bytes(const struct rxc_completion *c)
{
	if (c->recv && (c->wc_flags & IB_WC_GRH))
		return c->byte_len - min_t(u32, c->byte_len,
					   sizeof(struct ib_grh));
	return c->byte_len;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cntr_comp_bytes);

/* The responder counts only the two REMOTE_* operations. */
bool rxc_cntr_remote_op_valid(u32 op)
{
	return op == IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE ||
	       op == IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cntr_remote_op_valid);

/*
 * Upstream's core hands MODIFY's and READ's ENTRY and OP to the driver
 * unchecked (rxc's compat object checks them too): a value of neither
 * kind must fail, never be taken for one of the two.
 */
bool rxc_cntr_entry_valid(u32 entry)
{
	return entry == IB_COMP_CNTR_ENTRY_COMP ||
	       entry == IB_COMP_CNTR_ENTRY_ERR;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cntr_entry_valid);

bool rxc_cntr_modify_op_valid(u32 op)
{
	return op == IB_COMP_CNTR_MODIFY_OP_SET ||
	       op == IB_COMP_CNTR_MODIFY_OP_INC;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cntr_modify_op_valid);

/* Attempts at a wrapping update before it stops racing another writer. */
#define RXC_CNTR_CMPXCHG_TRIES	16

/*
 * Fully ordered (not only release): the waiter check that follows must
 * not be reordered before the new value is visible.
 *
 * The value may live in memory user space can write, so no loop may
 * depend on it staying put.  A 64-bit counter wraps as the CPU adds.  A
 * narrower one is updated with a bounded number of compare-and-swaps;
 * a value that keeps changing under them gets an add and then a mask,
 * which interleave with other updates to the right sum, at the cost of a
 * reader between the two briefly seeing a value above max_value.
 */
static void rxc_cntr_add(atomic64_t *v, u64 n, u64 max_value)
{
	s64 old;
	int i;

	if (max_value == U64_MAX) {
		atomic64_add_return(n, v);
		return;
	}
	old = atomic64_read(v);
	for (i = 0; i < RXC_CNTR_CMPXCHG_TRIES; i++)
		if (atomic64_try_cmpxchg(v, &old,
					 rxc_cntr_wrap_add(old, n, max_value)))
			return;
	atomic64_add_return(n, v);
	atomic64_fetch_and(max_value, v);
}

/*
 * The one update path of every counting source (completions, the
 * responder, INC): a success adds @amount to the completion value, a
 * failure adds one to the error value.  Any context.
 */
static void rxc_cntr_update(struct rxc_cntr *cntr, bool ok, u64 amount)
{
	if (ok)
		rxc_cntr_add(cntr->comp.val, amount, cntr->max_value);
	else
		rxc_cntr_add(cntr->err.val, 1, cntr->max_value);
	rxc_stat_inc(cntr->rxc, RXC_STAT_COMP_CNTR_UPDATES);
	rxc_cntr_wake(cntr);
}

/*
 * Count one operation of type @bit on @qp.  The counter cannot go away
 * meanwhile: it stays attached until the QP is destroyed, after its last
 * completion.
 */
static void rxc_cntr_count(struct rxc_qp *qp, u32 bit, u64 bytes, bool ok)
{
	struct ib_comp_cntr *ibcc;
	struct rxc_cntr *cntr;

	if (!bit)
		return;
	ibcc = ib_comp_cntr_for_op(&qp->cntrs, __ffs(bit));
	if (!ibcc)
		return;
	cntr = to_rcntr(ibcc);
	rxc_cntr_update(cntr, ok, rxc_cntr_amount(cntr->type, bytes));
}

/**
 * rxc_cntr_complete - count one retired work request
 * @qp: its QP
 * @c: the completion, signaled or not
 *
 * A success adds to the completion value, an error (a flush too) adds one
 * to the error value.  The counter cannot go away meanwhile: it stays
 * attached until the QP is destroyed, after its last completion.
 */
void rxc_cntr_complete(struct rxc_qp *qp, const struct rxc_completion *c)
{
	u32 bit = c->recv ? IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RECV :
			    rxc_cntr_op_bit(c->opcode);

	rxc_cntr_count(qp, bit, rxc_cntr_comp_bytes(c),
		       c->status == IB_WC_SUCCESS);
}

/**
 * rxc_cntr_remote - count one operation a remote peer made on @qp
 * @qp: the responder QP
 * @op: IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE (a write, with
 *	or without immediate, or an atomic, once placed) or
 *	IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ (a read, once its
 *	last response is sent)
 * @bytes: the message length; 8 for atomics
 * @ok: false when the operation failed (it then adds one error)
 *
 * Any context, like rxc_cntr_complete().
 */
void rxc_cntr_remote(struct rxc_qp *qp, u32 op, u64 bytes, bool ok)
{
	if (WARN_ON_ONCE(!rxc_cntr_remote_op_valid(op)))
		return;
	rxc_cntr_count(qp, op, bytes, ok);
}

void rxc_cntr_pool_init(struct rxc_cntr_pool *pool)
{
	mutex_init(&pool->lock);
	INIT_LIST_HEAD(&pool->pages);
	xa_init(&pool->handles);
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cntr_pool_init);

/* Core destroys every counter before the context that holds its page. */
void rxc_cntr_pool_destroy(struct rxc_cntr_pool *pool)
{
	WARN_ON(!list_empty(&pool->pages));
	WARN_ON(!xa_empty(&pool->handles));
	xa_destroy(&pool->handles);
	mutex_destroy(&pool->lock);
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cntr_pool_destroy);

static struct rxc_cntr_page *rxc_cntr_page_alloc(struct ib_ucontext *uctx)
{
	struct rxc_cntr_page *page;
	int err;

	page = kzalloc(sizeof(*page), GFP_KERNEL_ACCOUNT);
	if (!page)
		return ERR_PTR(-ENOMEM);
	page->mmap = kzalloc(sizeof(*page->mmap), GFP_KERNEL_ACCOUNT);
	if (!page->mmap) {
		err = -ENOMEM;
		goto err_page;
	}
	page->vals = rxc_user_buf_alloc(PAGE_SIZE);
	if (!page->vals) {
		err = -ENOMEM;
		goto err_mmap;
	}
	page->mmap->buf = page->vals;
	page->mmap->read_only = true;

	err = rdma_user_mmap_entry_insert(uctx, &page->mmap->rdma, PAGE_SIZE);
	if (err)
		goto err_vals;
	return page;

err_vals:
	vfree(page->vals);
err_mmap:
	kfree(page->mmap);
err_page:
	kfree(page);
	return ERR_PTR(err);
}

static int rxc_cntr_slot_get(struct rxc_cntr *cntr, struct ib_ucontext *uctx)
{
	struct rxc_cntr_pool *pool = cntr->pool;
	struct rxc_cntr_page *page;
	unsigned int slot;

	mutex_lock(&pool->lock);
	list_for_each_entry(page, &pool->pages, list)
		if (page->nused < RXC_CNTR_PER_PAGE)
			goto found;

	page = rxc_cntr_page_alloc(uctx);
	if (IS_ERR(page)) {
		mutex_unlock(&pool->lock);
		return PTR_ERR(page);
	}
	list_add(&page->list, &pool->pages);
found:
	slot = find_first_zero_bit(page->used, RXC_CNTR_PER_PAGE);
	__set_bit(slot, page->used);
	page->nused++;
	mutex_unlock(&pool->lock);

	cntr->page = page;
	cntr->slot = slot;
	cntr->comp.val = &page->vals[slot].comp;
	cntr->err.val = &page->vals[slot].err;
	return 0;
}

static void rxc_cntr_slot_put(struct rxc_cntr *cntr)
{
	struct rxc_cntr_pool *pool = cntr->pool;
	struct rxc_cntr_page *page = cntr->page;

	if (!page)
		return;
	mutex_lock(&pool->lock);
	__clear_bit(cntr->slot, page->used);
	if (--page->nused) {
		mutex_unlock(&pool->lock);
		return;
	}
	list_del(&page->list);
	mutex_unlock(&pool->lock);

	/* The pages go in rxc_mmap_free(), once no VMA maps them. */
	rdma_user_mmap_entry_remove(&page->mmap->rdma);
	kfree(page);
}

/* Both cores ask this, with upstream's signature. */
static int rxc_query_comp_cntr_caps(struct ib_device *ibdev,
				    struct ib_comp_cntr_caps *caps,
				    struct uverbs_attr_bundle *attrs)
{
	struct rxc_dev *rxc = to_rdev(ibdev);

	caps->max_counters = rxc->limits.max_comp_cntr;
	caps->max_value = rxc->limits.cntr_max_value;
	caps->supported_qp_attach_ops = IB_COMP_CNTR_ALL_OPS;
	return 0;
}

/* Read an optional buffer descriptor; 1 if present, 0 if not. */
static int rxc_cntr_get_desc(struct uverbs_attr_bundle *attrs, u16 id,
			     struct ib_uverbs_buffer_desc *desc)
{
	int err;

	if (!uverbs_attr_is_valid(attrs, id))
		return 0;
	err = uverbs_copy_from(desc, attrs, id);
	return err ? err : 1;
}

static int rxc_create_comp_cntr(struct ib_comp_cntr *ibcc,
				struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_buffer_desc comp_desc, err_desc;
	struct ib_ucontext *uctx = ibcc->uobject->context;
	struct rxc_dev *rxc = to_rdev(ibcc->device);
	struct rxc_cntr *cntr = to_rcntr(ibcc);
	struct rxc_comp_cntr_create_resp resp = {};
	u32 type = RXC_COMP_CNTR_TYPE_WRS;
	int has_comp, has_err;
	int err;

	if (uverbs_attr_is_valid(attrs, RXC_ATTR_CREATE_COMP_CNTR_TYPE)) {
		err = uverbs_copy_from(&type, attrs,
				       RXC_ATTR_CREATE_COMP_CNTR_TYPE);
		if (err)
			return err;
		if (type != RXC_COMP_CNTR_TYPE_WRS &&
		    type != RXC_COMP_CNTR_TYPE_BYTES) {
			rxc_dbg(rxc, "create_comp_cntr: unknown type %u\n",
				type);
			return -EINVAL;
		}
	}
	has_comp = rxc_cntr_get_desc(attrs, RXC_ATTR_CREATE_COMP_CNTR_COMP_BUF,
				     &comp_desc);
	if (has_comp < 0)
		return has_comp;
	has_err = rxc_cntr_get_desc(attrs, RXC_ATTR_CREATE_COMP_CNTR_ERR_BUF,
				    &err_desc);
	if (has_err < 0)
		return has_err;

	err = rxc_res_get(rxc, RXC_RES_COMP_CNTR);
	if (err)
		return err;

	cntr->rxc = rxc;
	cntr->type = type;
	cntr->max_value = rxc->limits.cntr_max_value;
	cntr->pool = &to_ruc(uctx)->cntr_pool;
	atomic_set(&cntr->usecnt, 0);
	rxc_cntr_wait_init(cntr);

	/* A page slot holds whichever values user memory does not. */
	if (!has_comp || !has_err) {
		err = rxc_cntr_slot_get(cntr, uctx);
		if (err)
			goto err_res;
	}
	if (has_comp) {
		err = rxc_cntr_mem_import(rxc, &cntr->comp, &comp_desc,
					  "completion");
		if (err)
			goto err_slot;
	}
	if (has_err) {
		err = rxc_cntr_mem_import(rxc, &cntr->err, &err_desc, "error");
		if (err)
			goto err_comp;
	}
	/* A slot or buffer may hold an old value: start from zero. */
	atomic64_set(cntr->comp.val, 0);
	atomic64_set(cntr->err.val, 0);

	if (cntr->page) {
		resp.mmap_offset =
			rdma_user_mmap_get_offset(&cntr->page->mmap->rdma);
		resp.mmap_length = PAGE_SIZE;
		resp.comp_offset = cntr->slot *
					   sizeof(struct rxc_cntr_vals) +
				   offsetof(struct rxc_cntr_vals, comp);
		resp.err_offset = cntr->slot *
					  sizeof(struct rxc_cntr_vals) +
				  offsetof(struct rxc_cntr_vals, err);
	}
	/*
	 * Upstream's generic create sends the core handle alone: the
	 * response is for clients that map the page, and optional.
	 */
	if (uverbs_attr_is_valid(attrs, RXC_ATTR_CREATE_COMP_CNTR_RESP)) {
		err = uverbs_copy_to_struct_or_zero(attrs,
						    RXC_ATTR_CREATE_COMP_CNTR_RESP,
						    &resp, sizeof(resp));
		if (err)
			goto err_err;
	}
	err = rxc_cntr_wait_publish(cntr, ibcc->uobject->id);
	if (err)
		goto err_err;
	rxc_stat_inc(rxc, RXC_STAT_COMP_CNTR_CREATED);
	return 0;

err_err:
	rxc_cntr_mem_release(&cntr->err);
err_comp:
	rxc_cntr_mem_release(&cntr->comp);
err_slot:
	rxc_cntr_slot_put(cntr);
err_res:
	rxc_res_put(rxc, RXC_RES_COMP_CNTR);
	return err;
}

static int rxc_destroy_comp_cntr(struct ib_comp_cntr *ibcc)
{
	struct rxc_cntr *cntr = to_rcntr(ibcc);
	struct rxc_dev *rxc = cntr->rxc;

	/*
	 * Either core refused an attached counter already, by its own
	 * count; this is rxc's, which counts the same attachments.
	 */
	if (atomic_read(ib_comp_cntr_usecnt(ibcc)))
		return -EBUSY;

	rxc_cntr_wait_cleanup(cntr);
	rxc_cntr_mem_release(&cntr->err);
	rxc_cntr_mem_release(&cntr->comp);
	rxc_cntr_slot_put(cntr);
	rxc_res_put(rxc, RXC_RES_COMP_CNTR);
	rxc_stat_inc(rxc, RXC_STAT_COMP_CNTR_DESTROYED);
	return 0;
}

static atomic64_t *rxc_cntr_entry(struct rxc_cntr *cntr,
				  enum ib_comp_cntr_entry entry)
{
	return entry == IB_COMP_CNTR_ENTRY_ERR ? cntr->err.val :
						 cntr->comp.val;
}

/*
 * A SET races with concurrent completions and may lose them; that is the
 * documented behaviour.  A SET beyond max_value is refused rather than
 * silently truncated.
 */
static int rxc_modify_comp_cntr(struct ib_comp_cntr *ibcc,
				enum ib_comp_cntr_entry entry,
				enum ib_comp_cntr_modify_op op, u64 value)
{
	struct rxc_cntr *cntr = to_rcntr(ibcc);
	atomic64_t *v;

	if (!rxc_cntr_entry_valid(entry) || !rxc_cntr_modify_op_valid(op)) {
		rxc_dbg(cntr->rxc, "modify_comp_cntr: entry %u op %u\n",
			entry, op);
		return -EINVAL;
	}
	v = rxc_cntr_entry(cntr, entry);
	if (op == IB_COMP_CNTR_MODIFY_OP_INC) {
		rxc_cntr_add(v, value, cntr->max_value);
	} else {
		if (value > cntr->max_value) {
			rxc_dbg(cntr->rxc, "modify_comp_cntr: %llu > max_value %llu\n",
				value, cntr->max_value);
			return -EINVAL;
		}
		/* Fully ordered for the same reason as rxc_cntr_add(). */
		atomic64_xchg(v, value);
	}
	rxc_stat_inc(cntr->rxc, RXC_STAT_COMP_CNTR_UPDATES);
	rxc_cntr_wake(cntr);
	return 0;
}

static int rxc_read_comp_cntr(struct ib_comp_cntr *ibcc,
			      enum ib_comp_cntr_entry entry, u64 *value)
{
	if (!rxc_cntr_entry_valid(entry))
		return -EINVAL;
	*value = atomic64_read_acquire(rxc_cntr_entry(to_rcntr(ibcc), entry));
	return 0;
}

/* Attach is the QP's business (rxc_qp.c); this only counts it. */
static int rxc_cntr_qp_attach(struct ib_qp *ibqp, struct ib_comp_cntr *cc,
			      struct ib_qp_attach_comp_cntr_attr *attr)
{
	int err = rxc_qp_attach_comp_cntr(ibqp, cc, attr);

	if (!err)
		rxc_stat_inc(to_rdev(ibqp->device), RXC_STAT_COMP_CNTR_ATTACHED);
	return err;
}

#ifdef RXC_CORE_COMP_CNTR
#define RXC_CNTR_OBJECT "the core's object"

/* Core has the object: it calls these through ib_device_ops. */
static const struct ib_device_ops rxc_cntr_dev_ops = {
	.query_comp_cntr_caps = rxc_query_comp_cntr_caps,
	.create_comp_cntr = rxc_create_comp_cntr,
	.destroy_comp_cntr = rxc_destroy_comp_cntr,
	.modify_comp_cntr = rxc_modify_comp_cntr,
	.read_comp_cntr = rxc_read_comp_cntr,
	.qp_attach_comp_cntr = rxc_cntr_qp_attach,
	INIT_RDMA_OBJ_SIZE(ib_comp_cntr, rxc_cntr, ibcc),
};

atomic_t *ib_comp_cntr_usecnt(struct ib_comp_cntr *cc)
{
	return &to_rcntr(cc)->usecnt;
}
EXPORT_SYMBOL_IF_KUNIT(ib_comp_cntr_usecnt);
#else
#define RXC_CNTR_OBJECT "rxc's own object (this core has none)"

static const struct ib_comp_cntr_ops rxc_comp_cntr_ops = {
	.query_comp_cntr_caps = rxc_query_comp_cntr_caps,
	.create_comp_cntr = rxc_create_comp_cntr,
	.destroy_comp_cntr = rxc_destroy_comp_cntr,
	.modify_comp_cntr = rxc_modify_comp_cntr,
	.read_comp_cntr = rxc_read_comp_cntr,
	.qp_attach_comp_cntr = rxc_cntr_qp_attach,
	.size_ib_comp_cntr = sizeof(struct rxc_cntr),
};

/* Only rxc devices carry the counter methods (rxc_cntr_uapi_defs). */
const struct ib_comp_cntr_ops *ib_comp_cntr_device_ops(struct ib_device *ibdev)
{
	return &rxc_comp_cntr_ops;
}
#endif

/* Module load, process context. */
int rxc_cntr_init(void)
{
	/* Which object user space's counters go through, for bug reports. */
	pr_info("rdma_rxc: completion counters through " RXC_CNTR_OBJECT "\n");
	rxc_cntr_debugfs_init();
	return rxc_cntr_client_register();
}

void rxc_cntr_exit(void)
{
	rxc_cntr_client_unregister();
	rxc_cntr_debugfs_exit();
}

/* Process context, from rxc_dev_init(). */
void rxc_cntr_dev_init(struct rxc_dev *rxc)
{
	mutex_init(&rxc->cntr_lock);
	INIT_LIST_HEAD(&rxc->cntr_list);
	rxc->cntr_dying = false;
#ifdef RXC_CORE_COMP_CNTR
	ib_set_device_ops(&rxc->ib_dev, &rxc_cntr_dev_ops);
#endif
}

/* From dealloc_driver: every counter of the device is gone. */
void rxc_cntr_dev_cleanup(struct rxc_dev *rxc)
{
	rxc_cntr_debugfs_remove(rxc);
	WARN_ON(!list_empty(&rxc->cntr_list));
	mutex_destroy(&rxc->cntr_lock);
}

/* Newer binaries may pass a longer response; the rest is zeroed. */
#define RXC_CNTR_RESP_SIZE \
	UVERBS_ATTR_STRUCT(struct rxc_comp_cntr_create_resp, reserved)

ADD_UVERBS_ATTRIBUTES_SIMPLE(rxc_cntr_create_attrs,
			     UVERBS_OBJECT_COMP_CNTR,
			     UVERBS_METHOD_COMP_CNTR_CREATE,
			     UVERBS_ATTR_PTR_IN(RXC_ATTR_CREATE_COMP_CNTR_COMP_BUF,
						UVERBS_ATTR_STRUCT(struct ib_uverbs_buffer_desc,
								   length),
						UA_OPTIONAL),
			     UVERBS_ATTR_PTR_IN(RXC_ATTR_CREATE_COMP_CNTR_ERR_BUF,
						UVERBS_ATTR_STRUCT(struct ib_uverbs_buffer_desc,
								   length),
						UA_OPTIONAL),
			     UVERBS_ATTR_PTR_IN(RXC_ATTR_CREATE_COMP_CNTR_TYPE,
						UVERBS_ATTR_TYPE(u32), UA_OPTIONAL),
			     UVERBS_ATTR_PTR_OUT(RXC_ATTR_CREATE_COMP_CNTR_RESP,
						 RXC_CNTR_RESP_SIZE,
						 UA_OPTIONAL));

/*
 * The generic object first (unless core has it): rxc's attributes and
 * methods extend it.
 */
const struct uapi_definition rxc_cntr_uapi_defs[] = {
#ifndef RXC_CORE_COMP_CNTR
	UAPI_DEF_CHAIN(ib_comp_cntr_uapi_defs),
#endif
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_COMP_CNTR,
				&rxc_cntr_create_attrs),
	UAPI_DEF_CHAIN(rxc_cntr_wait_uapi_defs),
	{}
};
