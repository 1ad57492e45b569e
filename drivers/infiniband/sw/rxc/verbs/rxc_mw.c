// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Memory windows: an rkey that a bind gives access to part of an MR.
 * Allocation and release run in process context.
 */
#include "rxc.h"
#include "rxc_verbs.h"

int rxc_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct rxc_dev *rxc = to_rdev(ibmw->device);
	struct rxc_mw *mw = to_rmw(ibmw);
	s64 key;
	int err;

	err = rxc_res_get(rxc, RXC_RES_MW);
	if (err)
		return err;

	key = rxc_key_alloc(rxc, mw, RXC_KEY_MW, &mw->index);
	if (key < 0) {
		rxc_res_put(rxc, RXC_RES_MW);
		return key;
	}
	ibmw->rkey = key;
	return 0;
}

int rxc_dealloc_mw(struct ib_mw *ibmw)
{
	struct rxc_dev *rxc = to_rdev(ibmw->device);

	rxc_key_free(rxc, to_rmw(ibmw)->index);
	rxc_res_put(rxc, RXC_RES_MW);
	return 0;
}
