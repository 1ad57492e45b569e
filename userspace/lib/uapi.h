/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The kernel uAPI the library marshals: the upstream completion counter
 * IDs and rxc's driver attributes.
 *
 * The installed kernel headers declare the counter IDs from Linux 7.x on;
 * older ones (Debian 12) lack them and get the project's copy, which has
 * the same names and values.  The build probes which case applies
 * (rxc_build.h, generated).
 */
#ifndef RXC_LIB_UAPI_H
#define RXC_LIB_UAPI_H

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>
#include "rxc_build.h"

#if !RXC_KERNEL_UAPI_HAS_COMP_CNTR
#include <rdma/ib_user_buffer_desc.h>
#include <rdma/ib_user_ioctl_comp_cntr.h>
#endif
#include <rdma/rxc-abi.h>

#endif /* RXC_LIB_UAPI_H */
