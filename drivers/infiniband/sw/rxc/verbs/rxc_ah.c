// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Address handles.  Each gets a number that librxe copies into UD send
 * WQEs, so that the requester can find the address vector without trusting
 * one written by user space.  Number 0 is never used: it tells librxe to
 * embed the address vector instead.
 *
 * create_ah and destroy_ah may be called in atomic context, with IRQs
 * off, for kernel users (RDMA_CREATE_AH_SLEEPABLE not set), so
 * allocations honour that flag and every user of ah_xa, the requester
 * included, takes its lock with IRQs saved and disabled: one lock
 * variant for all, whatever context each runs in.
 */
#include <rdma/ib_verbs.h>

#include "rxc.h"
#include "rxc_verbs.h"

static void rxc_ah_erase(struct rxc_dev *rxc, struct rxc_ah *ah)
{
	unsigned long flags;

	xa_lock_irqsave(&rxc->ah_xa, flags);
	__xa_erase(&rxc->ah_xa, ah->ah_num);
	xa_unlock_irqrestore(&rxc->ah_xa, flags);
}

int rxc_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		  struct ib_udata *udata)
{
	struct rxc_dev *rxc = to_rdev(ibah->device);
	gfp_t gfp = init->flags & RDMA_CREATE_AH_SLEEPABLE ?
		    GFP_KERNEL_ACCOUNT : GFP_ATOMIC | __GFP_ACCOUNT;
	struct rxc_ah *ah = to_rah(ibah);
	struct rxe_create_ah_resp resp = {};
	unsigned long flags;
	int err;

	err = rxc_av_from_ah_attr(rxc, &ah->av, init->ah_attr);
	if (err)
		return err;

	err = rxc_res_get(rxc, RXC_RES_AH);
	if (err)
		return err;

	xa_lock_irqsave(&rxc->ah_xa, flags);
	err = __xa_alloc(&rxc->ah_xa, &ah->ah_num, ah,
			 XA_LIMIT(1, rxc->limits.max_ah), gfp);
	xa_unlock_irqrestore(&rxc->ah_xa, flags);
	if (err)
		goto err_res;

	/* Older providers pass no response buffer and embed the AV. */
	if (udata && udata->outlen >= sizeof(resp)) {
		resp.ah_num = ah->ah_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_xa;
	}
	return 0;

err_xa:
	rxc_ah_erase(rxc, ah);
err_res:
	rxc_res_put(rxc, RXC_RES_AH);
	return err;
}

int rxc_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	rxc_av_to_ah_attr(&to_rah(ibah)->av, attr);
	return 0;
}

int rxc_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct rxc_dev *rxc = to_rdev(ibah->device);
	struct rxc_ah *ah = to_rah(ibah);

	rxc_ah_erase(rxc, ah);
	rxc_res_put(rxc, RXC_RES_AH);
	return 0;
}
