#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The debug kernel (build-debug-kernel.sh) with Debian's own RDMA core:
# its ib_core, ib_uverbs, rdma_cm and rdma_rxe modules built again from
# the unpatched linux-source-6.1, so that their core has no completion
# counter object.  rxc built against this tree links its own object
# (drivers/infiniband/core/), the one 6.1, 6.12 and 7.2 run, and the
# debug kernel's KASAN, lockdep and kmemleak watch it as they watch the
# core path on the patched kernel.
#
# vmlinux has no RDMA code (CONFIG_INFINIBAND=m) and no module versions
# (CONFIG_MODVERSIONS is off), so the same bzImage boots both sets of
# modules: the guest loads these from the "modules under test" directory,
# which depmod prefers to the kernel's own.  Only the modules are built,
# as external modules, in a minute or two, against a copy of the debug
# build's output tree whose sources are the pristine ones.  Cached by the
# debug kernel it belongs to and this script.
#
# Prints the output directory on stdout.  It holds:
#   kdir/  KDIR for external modules: the debug build's output, but its
#          Makefile names the unpatched source
#   rdma/  the source of drivers/infiniband, unpatched, and the .ko built
#          from it (copied to mods/)
#   mods/  the RDMA modules to load instead of the debug kernel's
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${RXC_CACHE:-/var/cache/rxc}
log() { echo "build-debug-compat: $*" >&2; }

debug=${RXC_DEBUG_KERNEL_DIR:-$("$here/build-debug-kernel.sh")}
pristine=$("$here/build-debug-kernel.sh" --source)
key=$( (basename "$debug"; cat "$0") | sha256sum | cut -c1-16)
out=$cache/debug-compat-$key

if [ -f "$out/.done" ]; then
	log "cached: $out"
	echo "$out"
	exit 0
fi
rm -rf "$out"
mkdir -p "$out/mods"

# A real copy, not links: Kbuild rewrites a few files of KDIR (e.g. the
# generated Makefile below), which must not change the debug build's.
cp -a "$debug/build" "$out/kdir"
printf '# Written by rxc vm/build-debug-compat.sh: the unpatched source.\ninclude %s/Makefile\n' \
	"$pristine" >"$out/kdir/Makefile"
cp -a "$pristine/drivers/infiniband" "$out/rdma"

log "building Debian's RDMA core modules (no counter object) for $(basename "$debug")"
make -s -C "$out/kdir" M="$out/rdma" -j"$(nproc)" modules >&2
find "$out/rdma" -name '*.ko' -exec cp {} "$out/mods/" \;
for m in ib_core ib_uverbs rdma_cm rdma_rxe; do
	[ -f "$out/mods/$m.ko" ] || { log "no $m.ko was built"; exit 1; }
done
# Proof that these are the unpatched core: no counter object inside.
if grep -q comp_cntr "$out/mods/ib_uverbs.ko"; then
	log "ib_uverbs.ko still has the counter object"
	exit 1
fi
touch "$out/.done"
log "built: $out"
echo "$out"
