#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The project's demo: build the driver, boot Debian's stock kernel in a VM,
# create one soft-RoCE device on a veth, show it with the usual tools, run
# RC traffic and a batch of writes counted by a completion counter.
#   DEV_TYPE=rxc|rxe  (default rxc once vm/build-modules.sh exists, else rxe)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
results=${RXC_RESULTS:-$repo/build/vm-results}/demo
if [ -z "${DEV_TYPE:-}" ]; then
	if [ -f "$here/build-modules.sh" ]; then DEV_TYPE=rxc; else DEV_TYPE=rxe; fi
fi

"$here/install-deps.sh" --demo
mods=''
if [ -f "$here/build-modules.sh" ]; then
	mods=$(bash "$here/build-modules.sh" stock)
	make -s -C "$repo/userspace" lib examples
fi
echo "demo: booting Debian's kernel under QEMU (TCG, about 20 s)..." >&2
rc=0
"$here/run-vm.sh" --kernel stock --guest-script "$here/demo-guest.sh" \
	--results "$results" --modules "$mods" --timeout 300 \
	--env "DEV_TYPE=$DEV_TYPE" || rc=$?
cat "$results/guest.log" 2>/dev/null || true
[ "$rc" -eq 0 ] || echo "demo: VM run failed (status $rc), see $results/console.log" >&2
exit "$rc"
