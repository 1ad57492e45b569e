/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The kernel uAPI the library marshals: the user buffer descriptor, the
 * upstream completion counter IDs and enums, and rxc's driver attributes.
 *
 * Each piece comes from the installed headers where they have it, else
 * from the project's copy (same names and values).  The pieces arrive
 * separately: the descriptor and the enums are in ib_user_ioctl_verbs.h,
 * of which libibverbs installs its own copy (rdma-core 65's has both),
 * while the IDs are in the kernel's ib_user_ioctl_cmds.h (from Linux
 * 7.3).  The build probes each piece with the headers included in this
 * order (rxc_build.h, generated; probe/uapi_*.c).
 */
#ifndef RXC_LIB_UAPI_H
#define RXC_LIB_UAPI_H

/*
 * libibverbs' copy of ib_user_ioctl_verbs.h first: it and the kernel's
 * share an include guard, so whichever comes first is the one used, and
 * the probes saw this one.
 */
#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include "rxc_build.h"

#if !RXC_UAPI_HAS_BUFFER_DESC
#include <rdma/ib_user_buffer_desc.h>
#endif

#if !RXC_UAPI_HAS_COMP_CNTR_IDS
#if RXC_UAPI_HAS_COMP_CNTR_VERBS
/* The IDs only: the enums came with libibverbs. */
#define RXC_UAPI_HAVE_COMP_CNTR_VERBS
#endif
#include <rdma/ib_user_ioctl_comp_cntr.h>
#elif !RXC_UAPI_HAS_COMP_CNTR_VERBS
#include <rdma/ib_user_comp_cntr_verbs.h>
#endif

#include <rdma/rxc-abi.h>

#endif /* RXC_LIB_UAPI_H */
