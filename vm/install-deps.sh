#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Install every Debian package the VM bench and the tests need.  The
# machine's own kernel cannot load modules, so everything kernel-side runs
# in a QEMU guest that sees the host's root filesystem: the RDMA userspace
# tools must therefore be installed on the host itself.
#
# apt is skipped entirely when all packages are present, so reruns are fast.
set -euo pipefail

pkgs=(
	qemu-system-x86 busybox-static
	linux-image-amd64 linux-headers-amd64 linux-source
	rdma-core libibverbs-dev librdmacm-dev ibverbs-providers ibverbs-utils
	perftest rdmacm-utils python3-pyverbs iproute2
	sparse bc flex bison libelf-dev libssl-dev cpio kmod xz-utils gawk
	gcc make rsync
	# librxc's man page check renders roff with man(1) and groff
	man-db groff-base
	# the interop test checks the wire format with Wireshark's dissectors
	tshark
)

# dpkg-query prints one status line per known package; anything not
# "install ok installed" (or unknown to dpkg) means apt has work to do.
missing=()
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#pkgs[@]} packages already installed" >&2
	exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
# Recommends are not needed and would pull in a lot (e.g. qemu GUI bits).
apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
