// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion counters.  The values live in pages of a user context's
 * pool, packed RXC_CNTR_PER_PAGE to a page and mapped read-only, so user
 * space can read a counter without a system call.  Every update is an
 * atomic read-modify-write with release ordering: a reader that sees a
 * new value also sees what the completion placed before it.
 *
 * Contexts: the verbs run in process context; rxc_cntr_complete() runs
 * wherever rxc_complete_wr() does (softirq or process).
 */
#include <linux/bitmap.h>
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
 * RDMA_READ.  Local operations (invalidate, bind, registration) are not
 * counted.  The REMOTE_* bits are counted by the responder.
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
		return IB_UVERBS_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE;
	case IB_WC_RDMA_READ:
	case IB_WC_COMP_SWAP:
	case IB_WC_FETCH_ADD:
	case IB_WC_MASKED_COMP_SWAP:
	case IB_WC_MASKED_FETCH_ADD:
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

/*
 * What a successful completion adds to the completion value.  BYTES
 * counts the bytes the completion reports: those sent or placed for
 * sends and receives, those returned for reads.
 */
u64 rxc_cntr_comp_amount(u32 type, const struct rxc_completion *c)
{
	return type == RXC_COMP_CNTR_TYPE_BYTES ? c->byte_len : 1;
}
EXPORT_SYMBOL_IF_KUNIT(rxc_cntr_comp_amount);

static void rxc_cntr_add(atomic64_t *v, u64 n, u64 max_value)
{
	s64 old = atomic64_read(v);

	while (!atomic64_try_cmpxchg_release(v, &old,
					     rxc_cntr_wrap_add(old, n, max_value)))
		;
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
	struct ib_comp_cntr *ibcc;
	struct rxc_cntr *cntr;

	if (!bit)
		return;
	ibcc = ib_comp_cntr_for_op(&qp->cntrs, __ffs(bit));
	if (!ibcc)
		return;
	cntr = to_rcntr(ibcc);

	if (c->status == IB_WC_SUCCESS)
		rxc_cntr_add(&cntr->vals->comp,
			     rxc_cntr_comp_amount(cntr->type, c),
			     cntr->max_value);
	else
		rxc_cntr_add(&cntr->vals->err, 1, cntr->max_value);
}

void rxc_cntr_pool_init(struct rxc_cntr_pool *pool)
{
	mutex_init(&pool->lock);
	INIT_LIST_HEAD(&pool->pages);
}

/* Core destroys every counter before the context that holds its page. */
void rxc_cntr_pool_destroy(struct rxc_cntr_pool *pool)
{
	WARN_ON(!list_empty(&pool->pages));
	mutex_destroy(&pool->lock);
}

static struct rxc_cntr_page *rxc_cntr_page_alloc(struct ib_ucontext *uctx)
{
	struct rxc_cntr_page *page;
	int err;

	page = kzalloc(sizeof(*page), GFP_KERNEL);
	if (!page)
		return ERR_PTR(-ENOMEM);
	page->mmap = kzalloc(sizeof(*page->mmap), GFP_KERNEL);
	if (!page->mmap) {
		err = -ENOMEM;
		goto err_page;
	}
	page->vals = vmalloc_user(PAGE_SIZE);
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
	cntr->vals = &page->vals[slot];
	/* A slot may be reused within the context: start from zero. */
	atomic64_set(&cntr->vals->comp, 0);
	atomic64_set(&cntr->vals->err, 0);
	return 0;
}

static void rxc_cntr_slot_put(struct rxc_cntr *cntr)
{
	struct rxc_cntr_pool *pool = cntr->pool;
	struct rxc_cntr_page *page = cntr->page;

	mutex_lock(&pool->lock);
	__clear_bit(cntr->vals - page->vals, page->used);
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

static int rxc_query_comp_cntr_caps(struct ib_device *ibdev,
				    struct ib_comp_cntr_caps *caps)
{
	struct rxc_dev *rxc = to_rdev(ibdev);

	caps->max_counters = rxc->limits.max_comp_cntr;
	caps->max_value = rxc->limits.cntr_max_value;
	caps->supported_qp_attach_ops = IB_COMP_CNTR_ALL_OPS;
	return 0;
}

static int rxc_create_comp_cntr(struct ib_comp_cntr *ibcc,
				struct uverbs_attr_bundle *attrs)
{
	struct ib_ucontext *uctx = ibcc->uobject->context;
	struct rxc_dev *rxc = to_rdev(ibcc->device);
	struct rxc_cntr *cntr = to_rcntr(ibcc);
	struct rxc_comp_cntr_create_resp resp = {};
	u32 type = RXC_COMP_CNTR_TYPE_WRS;
	int err;

	/* User-supplied memory (VA or dma-buf) is not implemented yet. */
	if (uverbs_attr_is_valid(attrs, RXC_ATTR_CREATE_COMP_CNTR_COMP_BUF) ||
	    uverbs_attr_is_valid(attrs, RXC_ATTR_CREATE_COMP_CNTR_ERR_BUF)) {
		rxc_dbg(rxc, "create_comp_cntr: external memory not supported\n");
		return -EOPNOTSUPP;
	}
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

	err = rxc_res_get(rxc, RXC_RES_COMP_CNTR);
	if (err)
		return err;

	cntr->type = type;
	cntr->max_value = rxc->limits.cntr_max_value;
	cntr->pool = &to_ruc(uctx)->cntr_pool;
	err = rxc_cntr_slot_get(cntr, uctx);
	if (err)
		goto err_res;

	resp.mmap_offset = rdma_user_mmap_get_offset(&cntr->page->mmap->rdma);
	resp.mmap_length = PAGE_SIZE;
	resp.comp_offset = (void *)&cntr->vals->comp - (void *)cntr->page->vals;
	resp.err_offset = (void *)&cntr->vals->err - (void *)cntr->page->vals;
	err = uverbs_copy_to_struct_or_zero(attrs,
					    RXC_ATTR_CREATE_COMP_CNTR_RESP,
					    &resp, sizeof(resp));
	if (err)
		goto err_slot;
	return 0;

err_slot:
	rxc_cntr_slot_put(cntr);
err_res:
	rxc_res_put(rxc, RXC_RES_COMP_CNTR);
	return err;
}

static int rxc_destroy_comp_cntr(struct ib_comp_cntr *ibcc)
{
	rxc_cntr_slot_put(to_rcntr(ibcc));
	rxc_res_put(to_rdev(ibcc->device), RXC_RES_COMP_CNTR);
	return 0;
}

static atomic64_t *rxc_cntr_entry(struct rxc_cntr *cntr,
				  enum ib_comp_cntr_entry entry)
{
	return entry == IB_COMP_CNTR_ENTRY_ERR ? &cntr->vals->err :
						 &cntr->vals->comp;
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
	atomic64_t *v = rxc_cntr_entry(cntr, entry);

	if (op == IB_COMP_CNTR_MODIFY_OP_INC) {
		rxc_cntr_add(v, value, cntr->max_value);
		return 0;
	}
	if (value > cntr->max_value)
		return -EINVAL;
	atomic64_set_release(v, value);
	return 0;
}

static int rxc_read_comp_cntr(struct ib_comp_cntr *ibcc,
			      enum ib_comp_cntr_entry entry, u64 *value)
{
	*value = atomic64_read_acquire(rxc_cntr_entry(to_rcntr(ibcc), entry));
	return 0;
}

static const struct ib_comp_cntr_ops rxc_comp_cntr_ops = {
	.query_comp_cntr_caps = rxc_query_comp_cntr_caps,
	.create_comp_cntr = rxc_create_comp_cntr,
	.destroy_comp_cntr = rxc_destroy_comp_cntr,
	.modify_comp_cntr = rxc_modify_comp_cntr,
	.read_comp_cntr = rxc_read_comp_cntr,
	.qp_attach_comp_cntr = rxc_qp_attach_comp_cntr,
	.size_ib_comp_cntr = sizeof(struct rxc_cntr),
};

/* Only rxc devices carry the counter methods (rxc_cntr_uapi_defs). */
const struct ib_comp_cntr_ops *ib_comp_cntr_device_ops(struct ib_device *ibdev)
{
	return &rxc_comp_cntr_ops;
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

/* The generic object first: rxc's attributes extend its CREATE method. */
const struct uapi_definition rxc_cntr_uapi_defs[] = {
	UAPI_DEF_CHAIN(ib_comp_cntr_uapi_defs),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_COMP_CNTR,
				&rxc_cntr_create_attrs),
	{}
};
