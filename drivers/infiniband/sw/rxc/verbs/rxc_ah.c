// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Address handles.  Each gets a number that librxe copies into UD send
 * WQEs, so that the requester can find the address vector without trusting
 * one written by user space.  Number 0 is never used: it tells librxe to
 * embed the address vector instead.
 *
 * create_ah may be called in atomic context (RDMA_CREATE_AH_SLEEPABLE not
 * set) for kernel users, so allocations honour that flag.
 */
#include <rdma/ib_verbs.h>

#include "rxc.h"
#include "rxc_verbs.h"

int rxc_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		  struct ib_udata *udata)
{
	struct rxc_dev *rxc = to_rdev(ibah->device);
	gfp_t gfp = init->flags & RDMA_CREATE_AH_SLEEPABLE ? GFP_KERNEL :
							     GFP_ATOMIC;
	struct rxc_ah *ah = to_rah(ibah);
	struct rxe_create_ah_resp resp = {};
	int err;

	err = rxc_av_from_ah_attr(rxc, &ah->av, init->ah_attr);
	if (err)
		return err;

	err = rxc_res_get(rxc, RXC_RES_AH);
	if (err)
		return err;

	err = xa_alloc(&rxc->ah_xa, &ah->ah_num, ah,
		       XA_LIMIT(1, rxc->limits.max_ah), gfp);
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
	xa_erase(&rxc->ah_xa, ah->ah_num);
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

	xa_erase(&rxc->ah_xa, ah->ah_num);
	rxc_res_put(rxc, RXC_RES_AH);
	return 0;
}
