#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Build rdma_rxc.ko (and rxc_kunit.ko where the kernel has KUnit) for one
# bench kernel (vm/kernels.sh names them), in a private copy of the sources
# so that builds for several kernels never share object files.  The build
# runs with W=1 and sparse and fails on any warning (log in
# build/KERNEL/build.log).  A build whose inputs match the last clean
# one is not repeated.  For the 7.x kernels the build runs in the sid
# root (vm/sid-root.sh, made on first use), which sees the private copy
# at the same path.
#
#   vm/build-modules.sh stock|stock-6.12|debug|debug-compat|stock-7.2|stock-7.3
#
# For debug-compat the directory also holds the unpatched RDMA core's
# modules (build-debug-compat.sh), which the guest loads with rxc's.
#
# Prints the directory that holds the .ko files.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kernel=${1:?usage: build-modules.sh stock|stock-6.12|debug|debug-compat|stock-7.2|stock-7.3}
. "$top/vm/kernels.sh"

work=$top/build/$kernel
mkdir -p "$work/src" "$work/modules"
# Where the build runs: on this machine, or chrooted in the sid root
# (sysroot), where KDIR is a path inside it.
sysroot=''
in_env=()
core_mods=''
case $kernel in
debug)
	kdir=$("$top/vm/build-debug-kernel.sh")/build
	;;
debug-compat)
	compat=$("$top/vm/build-debug-compat.sh")
	kdir=$compat/kdir
	core_mods=$compat/mods
	;;
stock-7.*)
	series=$(sid_series "$kernel") || { echo "build-modules: unknown kernel $kernel" >&2; exit 2; }
	sysroot=$("$top/vm/sid-root.sh")
	kdir=$("$top/vm/sid-root.sh" headers "$series")
	in_env=("$top/vm/sid-root.sh" run -b "$work")
	;;
*)
	kver=$(stock_kver "$kernel") || exit 2
	kdir=/usr/src/linux-headers-$kver
	;;
esac
echo "build-modules: $kernel: building against $sysroot$kdir" >&2
# What Kbuild reads, and the build products that the copy and the digest
# both leave out.
srcs=("$top/Kbuild" "$top/drivers" "$top/include" "$top/kunit")
products=('*.o' '*.ko' '*.cmd' '*.mod*')

# inputs: a digest of everything the build reads that can change between
# runs on one machine: the sources, this script, the compiler and sparse,
# and the kernel tree's configuration and exported symbols.
inputs() {
	local skip=() p

	for p in "${products[@]}" '.*'; do
		skip+=(! -name "$p")
	done
	{
		find "${srcs[@]}" "$top/Makefile" -type f "${skip[@]}" -print0 |
			sort -z | xargs -0 sha256sum
		echo "$sysroot$kdir"
		"${in_env[@]}" gcc --version 2>/dev/null | head -n1
		"${in_env[@]}" sparse --version 2>/dev/null || true
		cat "$0" "$sysroot$kdir/.config" "$sysroot$kdir/Module.symvers" 2>/dev/null || true
	} | sha256sum | cut -c1-16
}

# A CI run asks for one kernel's modules up to three times (its guests,
# the bench's smoke, the wire's); a clean build of the same inputs has
# nothing new to say, so its modules are kept.
key=$(inputs)
if [ "$(cat "$work/inputs" 2>/dev/null)" = "$key" ] &&
	ls "$work/modules/"*.ko >/dev/null 2>&1; then
	echo "build-modules: $kernel: unchanged since its last clean build" >&2
	echo "$work/modules"
	exit 0
fi

# Copy only what Kbuild needs; rsync keeps timestamps so rebuilds are
# incremental.
excludes=()
for p in "${products[@]}"; do
	excludes+=(--exclude="$p")
done
rsync -a --delete "${excludes[@]}" "${srcs[@]}" "$work/src/" >&2 2>/dev/null ||
	cp -a "${srcs[@]}" "$work/src/"
cp "$top/Makefile" "$work/src/Makefile"
rm -f "$work/inputs"

# Every build is a W=1 and sparse build: a warning fails it.
"${in_env[@]}" make -s -j"$(nproc)" -C "$work/src" KDIR="$kdir" check-build \
	>"$work/build.log" 2>&1 || {
	cat "$work/build.log" >&2
	exit 1
}
rm -f "$work/modules/"*.ko
find "$work/src" -name '*.ko' -exec cp {} "$work/modules/" \;
[ -z "$core_mods" ] || cp "$core_mods"/*.ko "$work/modules/"
echo "$key" >"$work/inputs"
echo "$work/modules"
