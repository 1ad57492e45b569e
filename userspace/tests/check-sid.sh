#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Build librxc and run its host checks against rdma-core 65, in the
# Debian sid root of vm/sid-root.sh (Debian 12 has only libibverbs 44).
#
#   userspace/tests/check-sid.sh               against the root's libibverbs-dev:
#                                              sid's 65, installed if none is
#   RXC_RDMA_CORE=patched userspace/tests/check-sid.sh
#                                              first install rdma-core 65 with
#                                              rdma-core-patches/ (build-debs.sh),
#                                              whose rxedv.h librxc forwards to
#
# The build goes to build/userspace-sid/ (O=), beside the host's
# build/userspace/.  The packages it needs are installed once; a stamp in
# the root names them, so a rerun installs nothing.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
sid_root=$top/vm/sid-root.sh
# What "make" and "make check-host" use besides gcc and make, which the
# root has: the headers, pkg-config (check-install), python3 (the man
# page converter), man (check-man), binutils (nm, readelf).
pkgs=(libibverbs-dev pkg-config python3 man-db binutils)
log() { echo "check-sid: $*" >&2; }

"$sid_root" install-pkgs librxc "${pkgs[@]}"
if [ "${RXC_RDMA_CORE:-}" = patched ]; then
	"$top/rdma-core-patches/build-debs.sh" install >/dev/null
fi
# shellcheck disable=SC2016 # a dpkg-query format, not shell
log "libibverbs-dev $("$sid_root" run dpkg-query -W -f '${Version}' libibverbs-dev)"

out=$top/build/userspace-sid
# The repository at its own path inside the root, so O= and the sources
# resolve the same on both sides.
"$sid_root" run -b "$top" sh -c "cd '$top' && rm -rf '$out' &&
	make -s -C userspace O='$out' -j2 && make -s -C userspace O='$out' check-host"
