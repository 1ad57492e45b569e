// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory regions: DMA regions for kernel users and pinned user memory, and
 * the transport's access to them.
 *
 * Registration runs in process context.  The transport (a QP's run, in
 * a system call or on the rxc workqueue) finds a region by key
 * under RCU and holds a use count while it copies; deregistration
 * unpublishes the key, then waits for those copies to finish before
 * unpinning the pages.
 */
#include <linux/highmem.h>
#include <linux/rcupdate.h>
#include <rdma/ib_umem.h>

#include "rxc.h"
#include "rxc_verbs.h"

static struct rxc_mr *rxc_mr_alloc(struct ib_pd *ibpd, enum rxc_mr_type type,
				   int access)
{
	struct rxc_dev *rxc = to_rdev(ibpd->device);
	struct rxc_mr *mr;
	int err;

	err = rxc_res_get(rxc, RXC_RES_MR);
	if (err)
		return ERR_PTR(err);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr) {
		err = -ENOMEM;
		goto err_res;
	}
	mr->type = type;
	mr->access = access;
	mr->ibmr.pd = ibpd;
	refcount_set(&mr->users, 1);
	init_completion(&mr->unused);
	return mr;

err_res:
	rxc_res_put(rxc, RXC_RES_MR);
	return ERR_PTR(err);
}

/* Publish @mr: from here on the transport can find it by key. */
static int rxc_mr_publish(struct rxc_dev *rxc, struct rxc_mr *mr)
{
	s64 key = rxc_key_alloc(rxc, mr, RXC_KEY_MR, &mr->index);

	if (key < 0)
		return key;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	return 0;
}

static void rxc_mr_free(struct rxc_dev *rxc, struct rxc_mr *mr)
{
	kvfree(mr->pages);
	ib_umem_release(mr->umem);
	kfree_rcu(mr, rcu);
	rxc_res_put(rxc, RXC_RES_MR);
}

/* A region covering all kernel memory, for kernel consumers. */
struct ib_mr *rxc_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct rxc_dev *rxc = to_rdev(ibpd->device);
	struct rxc_mr *mr = rxc_mr_alloc(ibpd, RXC_MR_DMA, access);
	int err;

	if (IS_ERR(mr))
		return ERR_CAST(mr);
	err = rxc_mr_publish(rxc, mr);
	if (err) {
		rxc_mr_free(rxc, mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

/* Index the pinned pages so that any byte is found without a walk. */
static int rxc_mr_index_pages(struct rxc_mr *mr)
{
	struct ib_umem *umem = mr->umem;
	struct sg_page_iter iter;
	size_t n = 0;

	mr->pages = kvcalloc(ib_umem_num_pages(umem), sizeof(*mr->pages),
			     RXC_GFP_USER_SIZED);
	if (!mr->pages)
		return -ENOMEM;
	for_each_sgtable_page(&umem->sgt_append.sgt, &iter, 0)
		mr->pages[n++] = sg_page_iter_page(&iter);
	mr->page_off = ib_umem_offset(umem);
	return 0;
}

/*
 * Core has already checked @access (remote write needs local write) and
 * that @start and @iova share their page offset.  A zero-length region
 * pins nothing; it is valid for zero-length SGEs and zero-byte RDMA.
 */
struct ib_mr *rxc_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 iova, int access, RXC_REG_USER_MR_DMAH
			      struct ib_udata *udata)
{
	struct rxc_dev *rxc = to_rdev(ibpd->device);
	struct rxc_mr *mr;
	int err;

	if (length > rxc->limits.max_mr_size) {
		rxc_dbg(rxc, "reg_mr: length %llu exceeds the maximum\n",
			length);
		return ERR_PTR(-EINVAL);
	}

	mr = rxc_mr_alloc(ibpd, RXC_MR_USER, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;

	if (length) {
		mr->umem = rxc_umem_get(ibpd->device, start, length, access);
		if (IS_ERR(mr->umem)) {
			err = PTR_ERR(mr->umem);
			mr->umem = NULL;
			rxc_dbg(rxc, "reg_mr: pinning %#llx+%llu failed (%d)\n",
				start, length, err);
			goto err_free;
		}
		err = rxc_mr_index_pages(mr);
		if (err)
			goto err_free;
	}

	err = rxc_mr_publish(rxc, mr);
	if (err)
		goto err_free;
	return &mr->ibmr;

err_free:
	rxc_mr_free(rxc, mr);
	return ERR_PTR(err);
}

int rxc_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct rxc_dev *rxc = to_rdev(ibmr->device);
	struct rxc_mr *mr = to_rmr(ibmr);

	/* A bound window would otherwise reach memory no longer registered. */
	if (atomic_cmpxchg(&mr->num_mw, 0, -1)) {
		rxc_dbg(rxc, "dereg_mr: memory windows are still bound to lkey %#x\n",
			ibmr->lkey);
		return -EBUSY;
	}
	rxc_key_free(rxc, mr->index);
	/* Copies that found the key before it went finish first. */
	if (!refcount_dec_and_test(&mr->users))
		wait_for_completion(&mr->unused);
	rxc_mr_free(rxc, mr);
	return 0;
}

static bool rxc_mr_covers(const struct rxc_mr *mr, u64 iova, u64 length)
{
	u64 end;

	if (mr->type == RXC_MR_DMA)
		return true;
	if (check_add_overflow(iova, length, &end))
		return false;
	return iova >= mr->ibmr.iova && end <= mr->ibmr.iova + mr->ibmr.length;
}

/*
 * The region @key names for an access through @pd; @qp is the QP a remote
 * access came through, and only a remote access may name a window.
 */
static struct rxc_mr *rxc_key_get_mr(struct rxc_dev *rxc, u32 key,
				     struct ib_pd *pd, const struct rxc_qp *qp,
				     int access, u64 iova, u64 length)
{
	struct rxc_mr *mr = NULL;
	void *entry;

	rcu_read_lock();
	entry = xa_load(&rxc->key_xa, key >> 8);
	if (entry && xa_pointer_tag(entry) == RXC_KEY_MW && qp) {
		mr = rxc_mw_get_mr(xa_untag_pointer(entry), key, qp, access,
				   iova, length);
	} else if (entry && xa_pointer_tag(entry) == RXC_KEY_MR) {
		mr = xa_untag_pointer(entry);
		if (mr->ibmr.lkey != key || mr->ibmr.pd != pd ||
		    (mr->access & access) != access ||
		    !rxc_mr_covers(mr, iova, length) ||
		    !refcount_inc_not_zero(&mr->users))
			mr = NULL;
	}
	rcu_read_unlock();
	return mr;
}

/**
 * rxc_mr_get - find the region a work request names
 * @rxc: the device
 * @key: the lkey, from user-written WQEs
 * @pd: the PD the region must belong to
 * @access: the IB_ACCESS_* local rights needed; 0 for a local read
 * @iova: the first byte to access
 * @length: bytes to access
 *
 * Any context.
 *
 * Return: the region with a use count to drop with rxc_mr_put(), or NULL
 * when the key, the PD, the rights or the range do not match.
 */
struct rxc_mr *rxc_mr_get(struct rxc_dev *rxc, u32 key, struct ib_pd *pd,
			  int access, u64 iova, u64 length)
{
	return rxc_key_get_mr(rxc, key, pd, NULL, access, iova, length);
}

/**
 * rxc_mr_get_remote - find the region a request from the wire names
 * @qp: the QP the request came through
 * @rkey: the rkey of a region or of a window bound to it
 * @access: the IB_ACCESS_REMOTE_* rights needed
 * @iova: the first byte to access
 * @length: bytes to access
 *
 * Any context.
 *
 * Return: as rxc_mr_get().
 */
struct rxc_mr *rxc_mr_get_remote(const struct rxc_qp *qp, u32 rkey,
				 int access, u64 iova, u64 length)
{
	return rxc_key_get_mr(to_rdev(qp->ibqp.device), rkey, qp->ibqp.pd, qp,
			      access, iova, length);
}

void rxc_mr_put(struct rxc_mr *mr)
{
	if (refcount_dec_and_test(&mr->users))
		complete(&mr->unused);
}

/* The page holding byte @iova of a user region, and the offset in it. */
static struct page *rxc_mr_page(const struct rxc_mr *mr, u64 iova, u32 *off)
{
	u64 byte = mr->page_off + (iova - mr->ibmr.iova);

	*off = offset_in_page(byte);
	return mr->pages[byte >> PAGE_SHIFT];
}

/**
 * rxc_mr_copy - move bytes between a region and a kernel buffer
 * @mr: a region from rxc_mr_get() that covers [@iova, @iova + @len)
 * @iova: the region address
 * @buf: the kernel buffer
 * @len: bytes to copy
 * @dir: which way
 */
void rxc_mr_copy(struct rxc_mr *mr, u64 iova, void *buf, u32 len,
		 enum rxc_copy_dir dir)
{
	u32 off, n;
	void *va;

	if (mr->type == RXC_MR_DMA) {
		va = (void *)(uintptr_t)iova;
		if (dir == RXC_COPY_TO_MR)
			memcpy(va, buf, len);
		else
			memcpy(buf, va, len);
		return;
	}

	while (len) {
		struct page *page = rxc_mr_page(mr, iova, &off);

		n = min_t(u32, len, PAGE_SIZE - off);
		va = kmap_local_page(page);
		if (dir == RXC_COPY_TO_MR)
			memcpy(va + off, buf, n);
		else
			memcpy(buf, va + off, n);
		kunmap_local(va);
		iova += n;
		buf += n;
		len -= n;
	}
}

/**
 * rxc_mr_map_u64 - map the 8-byte aligned word at @iova for an atomic
 * @mr: a region from rxc_mr_get() that covers the word
 * @iova: the word's address, 8-byte aligned so it never spans two pages
 *
 * Return: the mapped word; unmap it with rxc_mr_unmap_u64() in the same
 * context.
 */
u64 *rxc_mr_map_u64(struct rxc_mr *mr, u64 iova)
{
	u32 off;
	struct page *page;

	if (mr->type == RXC_MR_DMA)
		return (u64 *)(uintptr_t)iova;
	page = rxc_mr_page(mr, iova, &off);
	return kmap_local_page(page) + off;
}

void rxc_mr_unmap_u64(struct rxc_mr *mr, u64 *p)
{
	if (mr->type != RXC_MR_DMA)
		kunmap_local(p);
}

/**
 * rxc_sgl_copy - move bytes between an SGE list and a kernel buffer
 * @rxc: the device
 * @pd: the PD of the QP whose work request holds the list
 * @sge: the list, in kernel memory (never the shared ring)
 * @num_sge: its entries
 * @off: the first byte of the list to access
 * @buf: the kernel buffer
 * @len: bytes to copy
 * @dir: which way; writing into the list needs IB_ACCESS_LOCAL_WRITE
 *
 * Return: 0; -EMSGSIZE when the list is shorter than @off + @len; -EACCES
 * when an lkey does not grant the access.
 */
int rxc_sgl_copy(struct rxc_dev *rxc, struct ib_pd *pd,
		 const struct rxe_sge *sge, u32 num_sge, u32 off, void *buf,
		 u32 len, enum rxc_copy_dir dir)
{
	int access = dir == RXC_COPY_TO_MR ? IB_ACCESS_LOCAL_WRITE : 0;
	struct rxc_mr *mr;
	u32 i, n;

	for (i = 0; i < num_sge && len; i++) {
		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = min(len, sge[i].length - off);
		mr = rxc_mr_get(rxc, sge[i].lkey, pd, access,
				sge[i].addr + off, n);
		if (!mr)
			return -EACCES;
		rxc_mr_copy(mr, sge[i].addr + off, buf, n, dir);
		rxc_mr_put(mr);
		buf += n;
		len -= n;
		off = 0;
	}
	return len ? -EMSGSIZE : 0;
}

/* Where rxc_sgl_copy_pkt() puts a payload. */
struct rxc_sgl_dest {
	struct rxc_dev *rxc;
	struct ib_pd *pd;
	const struct rxe_sge *sge;
	u32 num_sge;
	u32 off;
};

static int rxc_sgl_copy_piece(void *ctx, u32 off, const u8 *p, u32 n)
{
	const struct rxc_sgl_dest *d = ctx;

	return rxc_sgl_copy(d->rxc, d->pd, d->sge, d->num_sge, d->off + off,
			    (void *)p, n, RXC_COPY_TO_MR);
}

/**
 * rxc_sgl_copy_pkt - place a received packet's payload into an SGE list
 * @rxc: the device
 * @pd: the PD of the QP whose work request holds the list
 * @sge: the list, in kernel memory (never the shared ring)
 * @num_sge: its entries
 * @off: where in the list the payload's first byte goes
 * @pkt: the packet, queued (rxc_skb_pkt())
 *
 * Return: as rxc_sgl_copy(), which places each piece of the payload.
 */
int rxc_sgl_copy_pkt(struct rxc_dev *rxc, struct ib_pd *pd,
		     const struct rxe_sge *sge, u32 num_sge, u32 off,
		     const struct rxc_pkt_info *pkt)
{
	struct rxc_sgl_dest d = {
		.rxc = rxc, .pd = pd, .sge = sge, .num_sge = num_sge, .off = off,
	};

	return rxc_pkt_payload_walk(pkt, rxc_sgl_copy_piece, &d);
}
