// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Protection domains.  Process context. */
#include "rxc.h"
#include "rxc_verbs.h"

int rxc_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return rxc_res_get(to_rdev(ibpd->device), RXC_RES_PD);
}

int rxc_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	rxc_res_put(to_rdev(ibpd->device), RXC_RES_PD);
	return 0;
}
