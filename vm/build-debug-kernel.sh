#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Build the bench's debug kernel (KASAN, lockdep, kmemleak, KUnit, udmabuf)
# from Debian's linux-source, once per configuration.  The result is cached
# under $RXC_CACHE keyed by a hash of the source version, the config
# fragment, kernel-patches/ and this script, so reruns on the same machine
# cost nothing.
#
# kernel-patches/ backports upstream's completion counter object to the
# core (see its README): on this kernel rxc takes the core path, and the
# sanitizers watch it.  The stock kernels run rxc's own object.
#
# Prints the output directory on stdout.  It holds:
#   bzImage, build/ (the O= tree, KDIR for external modules), mods/ (modules),
#   src/ (the patched source: hard links to the unpacked one, but for the
#   files the patches change)
#
#   build-debug-kernel.sh --source   only unpack the source (checkpatch
#                                    comes from it); prints its directory
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
patches=$here/../kernel-patches
cache=${RXC_CACHE:-/var/cache/rxc}
tarball=$(ls /usr/src/linux-source-*.tar.xz | sort -V | tail -n 1)
srcver=$(dpkg-query -W -f='${Version}' "$(basename "$tarball" .tar.xz)")
key=$( (echo "$srcver"; cat "$here/debug-kernel.config" "$0" "$patches"/*.patch) |
	sha256sum | cut -c1-16)
out=$cache/debug-kernel-$key
log() { echo "build-debug-kernel: $*" >&2; }

src=$cache/src-$srcver
unpack() {
	[ ! -f "$src/.unpacked" ] || return 0
	log "unpacking $tarball"
	mkdir -p "$cache"
	rm -rf "$src" && mkdir -p "$src"
	tar -xJf "$tarball" -C "$src" --strip-components=1
	touch "$src/.unpacked"
}
if [ "${1:-}" = --source ]; then
	unpack
	echo "$src"
	exit 0
fi

if [ -f "$out/.done" ]; then
	log "cached: $out"
	echo "$out"
	exit 0
fi
unpack

rm -rf "$out"
mkdir -p "$out/build"
# patch(1) writes each file it changes anew, so the links to the pristine
# tree (checkpatch's, and the next build's) stay untouched.
cp -al "$src" "$out/src"
for p in "$patches"/*.patch; do
	log "applying $(basename "$p")"
	patch -s -p1 -d "$out/src" <"$p"
done
src=$out/src
log "configuring (tinyconfig + bench/debug-kernel.config)"
make -s -C "$src" O="$out/build" tinyconfig >&2
"$src/scripts/kconfig/merge_config.sh" -m -O "$out/build" \
	"$out/build/.config" "$here/debug-kernel.config" >&2
make -s -C "$src" O="$out/build" olddefconfig >&2

# Fail early if Kconfig dropped an option the bench depends on.
for opt in KUNIT KASAN PROVE_LOCKING DEBUG_KMEMLEAK UDMABUF INFINIBAND \
	   INFINIBAND_USER_ACCESS RDMA_RXE VETH NET_NS NET_9P_VIRTIO \
	   FAULT_INJECTION FAILSLAB FAIL_PAGE_ALLOC FAULT_INJECTION_DEBUG_FS \
	   NET_SCH_NETEM NET_SCH_PRIO NET_CLS_U32; do
	grep -Eq "^CONFIG_$opt=(y|m)" "$out/build/.config" ||
		{ log "CONFIG_$opt did not survive olddefconfig"; exit 1; }
done

log "compiling bzImage and modules (about 10 minutes on 2 cores)"
make -s -C "$src" O="$out/build" -j"$(nproc)" bzImage modules >&2
make -s -C "$src" O="$out/build" INSTALL_MOD_PATH="$out/mods" \
	modules_install >&2
cp "$out/build/arch/x86/boot/bzImage" "$out/bzImage"
touch "$out/.done"
log "built: $out"
echo "$out"
