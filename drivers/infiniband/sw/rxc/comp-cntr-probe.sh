#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   comp-cntr-probe.sh SRCTREE
#
# Prints "y" when the kernel at SRCTREE has core support for completion
# counters, nothing otherwise.  Kbuild then plugs rxc's callbacks into
# ib_device_ops instead of linking the compat uverbs object.
#
# Both halves must be there: the uverbs object ID user space sees and the
# driver callbacks core calls.  One without the other is a tree this
# driver does not know how to serve, so it keeps the compat object.
set -eu
tree=${1:?usage: comp-cntr-probe.sh SRCTREE}

grep -qw UVERBS_OBJECT_COMP_CNTR \
	"$tree/include/uapi/rdma/ib_user_ioctl_cmds.h" 2>/dev/null || exit 0
grep -qE '\(\*create_comp_cntr\)' \
	"$tree/include/rdma/ib_verbs.h" 2>/dev/null || exit 0
grep -qE '\(\*qp_attach_comp_cntr\)' \
	"$tree/include/rdma/ib_verbs.h" 2>/dev/null || exit 0
echo y
