#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Install every Debian package the VM bench and the tests need.  The
# machine's own kernel cannot load modules, so everything kernel-side runs
# in a QEMU guest that sees the host's root filesystem: the RDMA userspace
# tools must therefore be installed on the host itself.
#
# apt is skipped entirely when all packages are present, so reruns are fast.
#
#   install-deps.sh          everything vm/check.sh and the bench need
#   install-deps.sh --demo   only what vm/demo.sh needs: the stock kernel,
#                            QEMU, the module build and the verbs tools,
#                            which keeps the demo quick on a fresh machine
set -euo pipefail

demo_pkgs=(
	qemu-system-x86 busybox-static linux-image-amd64 linux-headers-amd64
	rdma-core libibverbs-dev ibverbs-providers ibverbs-utils iproute2
	sparse bc libelf-dev cpio kmod xz-utils gawk gcc make rsync
)
if [ "${1:-}" = --demo ]; then
	pkgs=("${demo_pkgs[@]}")
else
	pkgs=(
	qemu-system-x86 busybox-static
	linux-image-amd64 linux-headers-amd64 linux-source
	rdma-core libibverbs-dev librdmacm-dev ibverbs-providers ibverbs-utils
	perftest rdmacm-utils python3-pyverbs iproute2 linux-perf
	sparse bc flex bison libelf-dev libssl-dev cpio kmod xz-utils gawk
	gcc make rsync
	# librxc's man page check renders roff with man(1) and groff
	man-db groff-base
	# Documentation/*.rst is parsed by docutils (tests/host/t-docs.sh)
	python3-docutils
	# the interop test checks the wire format with Wireshark's dissectors
	tshark
	# UCX between namespaces (tests/guest/t-ucx.sh) and between guests
	ucx-utils
	# two guests on a wire (bench/wire-guest.sh): the link's TCP limit,
	# and libfabric's fi_pingpong over verbs
	iperf3 libfabric-bin
	# a veth that segments rxc's send batches (tests/guest/t-batches.sh)
	ethtool
	# the Debian packages: built, checked, and their module built by DKMS
	debhelper dh-dkms dkms lintian dpkg-dev fakeroot
)
fi

# Debian 12's 6.12 kernel has no metapackage: take the release already
# installed (vm/kernels.sh requires exactly one), else the newest the
# archive offers, with the headers of the same release.  dpkg-query fails
# when it knows no such package: on a bare machine that is no error.
add_6_12() {
	k612=$({ dpkg-query -W -f='${Package} ${Status}\n' 'linux-image-6.12.*+deb12-amd64' 2>/dev/null || true; } |
		sed -n 's/^linux-image-\([^ ]*\) install ok installed$/\1/p' | sort -V | tail -n 1)
	if [ -z "$k612" ]; then
		list612() {
			apt-cache pkgnames linux-image-6.12. 2>/dev/null |
				sed -n 's/^linux-image-\(6\.12\.[0-9]*+deb12-amd64\)$/\1/p' | sort -V | tail -n 1
		}
		k612=$(list612)
		if [ -z "$k612" ]; then
			apt-get update -q >&2
			k612=$(list612)
		fi
	fi
	if [ -n "$k612" ]; then
		pkgs+=("linux-image-$k612" "linux-headers-$k612")
	else
		echo "install-deps: no linux-image-6.12.*+deb12-amd64 in the archive; the stock-6.12 kernel will be missing" >&2
	fi
}
[ "${1:-}" = --demo ] || add_6_12

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
