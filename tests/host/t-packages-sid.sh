#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   tests/host/t-packages-sid.sh [OUT]
#
# The Debian packages on Debian sid, beside rdma-core 65: t-packages.sh,
# run in the sid root (vm/sid-root.sh) after rdma-core 65 with
# rdma-core-patches/ is installed there (rdma-core-patches/build-debs.sh):
# dpkg-buildpackage against libibverbs 65, lintian, DKMS for 7.2 and
# 7.3, and, since the root may be changed, apt install beside rdma-core
# 65 and purge again (RXC_PACKAGES_INSTALL=1).  The packages go to OUT
# (build/packages-sid).  Prints TAP; exits non-zero on a failure.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$repo/build/packages-sid}
sid_root=$repo/vm/sid-root.sh
# What dpkg-buildpackage, lintian, DKMS and t-packages.sh use that the
# root lacks: the package's Build-Depends but libibverbs-dev (rdma-core
# 65's, installed below), and the tools.
pkgs=(debhelper dh-dkms dkms lintian git pkg-config python3 kmod)

"$sid_root" install-pkgs packages "${pkgs[@]}"
"$repo/rdma-core-patches/build-debs.sh" install >/dev/null

# The tree, its git objects (a worktree keeps them elsewhere) and OUT's
# folder, which t-packages.sh empties by removing OUT, at their own paths
# inside the root.
git_dir=$(cd "$repo" && cd "$(git rev-parse --git-common-dir)" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
"$sid_root" run -b "$repo" -b "$git_dir" -b "$(dirname "$out")" \
	env RXC_PACKAGES_INSTALL=1 "$repo/tests/host/t-packages.sh" "$out" |
	sed 's/^\(\(not \)\?ok\) - packages: /\1 - packages on sid: /'
