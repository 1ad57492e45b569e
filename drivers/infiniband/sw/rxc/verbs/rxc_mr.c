// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory regions: DMA regions for kernel users and pinned user memory.
 * Keys come from rxc_key.c.  Process context.
 */
#include <rdma/ib_umem.h>

#include "rxc.h"
#include "rxc_verbs.h"

static struct rxc_mr *rxc_mr_alloc(struct ib_pd *ibpd, enum rxc_mr_type type,
				   int access)
{
	struct rxc_dev *rxc = to_rdev(ibpd->device);
	struct rxc_mr *mr;
	s64 key;
	int err;

	err = rxc_res_get(rxc, RXC_RES_MR);
	if (err)
		return ERR_PTR(err);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		err = -ENOMEM;
		goto err_res;
	}

	key = rxc_key_alloc(rxc, mr, RXC_KEY_MR, &mr->index);
	if (key < 0) {
		err = key;
		goto err_free;
	}
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	mr->type = type;
	mr->access = access;
	return mr;

err_free:
	kfree(mr);
err_res:
	rxc_res_put(rxc, RXC_RES_MR);
	return ERR_PTR(err);
}

/* A region covering all kernel memory, for kernel consumers. */
struct ib_mr *rxc_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct rxc_mr *mr = rxc_mr_alloc(ibpd, RXC_MR_DMA, access);

	return IS_ERR(mr) ? ERR_CAST(mr) : &mr->ibmr;
}

/*
 * Core has already checked @access (remote write needs local write) and
 * that @start and @iova share their page offset.  A zero-length region
 * pins nothing; it is valid for zero-length SGEs and zero-byte RDMA.
 */
struct ib_mr *rxc_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata)
{
	struct rxc_dev *rxc = to_rdev(ibpd->device);
	struct ib_umem *umem = NULL;
	struct rxc_mr *mr;

	if (length > rxc->limits.max_mr_size) {
		rxc_dbg(rxc, "reg_mr: length %llu exceeds the maximum\n",
			length);
		return ERR_PTR(-EINVAL);
	}

	if (length) {
		umem = ib_umem_get(ibpd->device, start, length, access);
		if (IS_ERR(umem)) {
			rxc_dbg(rxc, "reg_mr: pinning %#llx+%llu failed (%ld)\n",
				start, length, PTR_ERR(umem));
			return ERR_CAST(umem);
		}
	}

	mr = rxc_mr_alloc(ibpd, RXC_MR_USER, access);
	if (IS_ERR(mr)) {
		ib_umem_release(umem);
		return ERR_CAST(mr);
	}

	mr->umem = umem;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	return &mr->ibmr;
}

int rxc_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct rxc_dev *rxc = to_rdev(ibmr->device);
	struct rxc_mr *mr = to_rmr(ibmr);

	rxc_key_free(rxc, mr->index);
	ib_umem_release(mr->umem);
	kfree(mr);
	rxc_res_put(rxc, RXC_RES_MR);
	return 0;
}
