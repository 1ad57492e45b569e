#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# What CI can check of the libfabric series without libfabric's source
# (rdma-core-patches/check-patches.sh on this directory).  Prints TAP.
#
#   sh libfabric-patches/check-patches.sh
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../rdma-core-patches/check-patches.sh" "$here"
