#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Build rdma_rxc.ko (and rxc_kunit.ko where the kernel has KUnit) for one
# bench kernel, in a private copy of the sources so that builds for several
# kernels never share object files.  The build runs with W=1 and sparse
# and fails on any warning (log in build/KERNEL/build.log).
#
#   vm/build-modules.sh stock|debug
#
# Prints the directory that holds the .ko files.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kernel=${1:?usage: build-modules.sh stock|debug}

case $kernel in
stock)
	kdir=$(ls -d /usr/src/linux-headers-*-amd64 | sort -V | tail -n 1)
	;;
debug)
	kdir=$("$top/vm/build-debug-kernel.sh")/build
	;;
*)
	echo "build-modules.sh: unknown kernel '$kernel'" >&2
	exit 2
	;;
esac

work=$top/build/$kernel
mkdir -p "$work/src" "$work/modules"
# Copy only what Kbuild needs; rsync keeps timestamps so rebuilds are
# incremental.
rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='*.cmd' \
	--exclude='*.mod*' "$top/Kbuild" "$top/drivers" "$top/include" \
	"$top/kunit" "$work/src/" >&2 2>/dev/null ||
	cp -a "$top/Kbuild" "$top/drivers" "$top/include" "$top/kunit" \
		"$work/src/"
cp "$top/Makefile" "$work/src/Makefile"

# Every build is a W=1 and sparse build: a warning fails it.
make -s -C "$work/src" KDIR="$kdir" check-build >"$work/build.log" 2>&1 || {
	cat "$work/build.log" >&2
	exit 1
}
rm -f "$work/modules/"*.ko
find "$work/src" -name '*.ko' -exec cp {} "$work/modules/" \;
echo "$work/modules"
