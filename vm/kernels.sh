# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# shellcheck shell=bash
#
# The kernels the bench builds for and boots, by name; sourced by the vm/
# scripts.  Each name stands for one kernel release, found from what is
# installed, never from "the newest tree":
#
#   stock       Debian 12's default kernel (6.1): the release the
#               linux-image-amd64 metapackage depends on;
#               RXC_STOCK_KVER overrides it.
#   stock-6.12  Debian 12's 6.12 kernel: the installed
#               linux-image-6.12.*+deb12-amd64 (install-deps.sh installs
#               one); RXC_STOCK_6_12_KVER names one when several are.
#   debug       the KASAN/lockdep/kmemleak kernel build-debug-kernel.sh
#               builds from linux-source-6.1, with upstream's counter
#               object backported to its core (kernel-patches/).
#   debug-compat
#               the same kernel with Debian's unpatched RDMA modules
#               (build-debug-compat.sh): rxc runs its own counter object
#               there, under the same sanitizers.
#   stock-7.2   sid's 7.2 kernel and experimental's 7.3, whose core has
#   stock-7.3   upstream's completion counter object.  Debian 12 cannot
#               run their Kbuild, so their headers live in the sid build
#               root (vm/sid-root.sh) and modules for them are built
#               there.
#
# The Debian 12 kernels come with their headers
# (/usr/src/linux-headers-KVER), their image (/boot/vmlinuz-KVER) and
# their modules (/lib/modules/KVER).

RXC_KERNEL_NAMES="stock stock-6.12 debug debug-compat stock-7.2 stock-7.3"

# installed_6_12: the release of every installed Debian 12 6.12 image.
installed_6_12() {
	dpkg-query -W -f='${Package} ${Status}\n' \
		'linux-image-6.12.*+deb12-amd64' 2>/dev/null |
		sed -n 's/^linux-image-\([^ ]*\) install ok installed$/\1/p'
}

# stock_kver NAME: print the kernel release a stock kernel name stands
# for, or say why there is none and fail.
stock_kver() {
	local kv found
	case $1 in
	stock)
		kv=${RXC_STOCK_KVER:-$(dpkg-query -W -f='${Depends}' \
			linux-image-amd64 2>/dev/null |
			sed -n 's/^linux-image-\([^ ,]*\).*/\1/p')}
		[ -n "$kv" ] || { echo "kernels: stock: linux-image-amd64 is not installed" >&2; return 1; }
		;;
	stock-6.12)
		kv=${RXC_STOCK_6_12_KVER:-}
		if [ -z "$kv" ]; then
			found=$(installed_6_12)
			case $(echo "$found" | grep -c .) in
			0) echo "kernels: stock-6.12: no linux-image-6.12.*+deb12-amd64 installed (run vm/install-deps.sh)" >&2
			   return 1 ;;
			1) kv=$found ;;
			*) echo "kernels: stock-6.12: several installed (${found//$'\n'/ }); set RXC_STOCK_6_12_KVER to one" >&2
			   return 1 ;;
			esac
		fi
		;;
	*)
		echo "kernels: '$1' is not a stock kernel (known: $RXC_KERNEL_NAMES)" >&2
		return 1
		;;
	esac
	if [ ! -d "/usr/src/linux-headers-$kv" ] || [ ! -f "/boot/vmlinuz-$kv" ]; then
		echo "kernels: $1 is $kv, but its image or headers are missing (run vm/install-deps.sh)" >&2
		return 1
	fi
	echo "$kv"
}

# sid_series NAME: the series (7.2, 7.3) of a kernel whose modules are
# built in the sid root; fails for any other name.
sid_series() {
	case $1 in
	stock-7.2 | stock-7.3) echo "${1#stock-}" ;;
	*) return 1 ;;
	esac
}

# sid_kver NAME: the release of a kernel built in the sid root, as its
# headers there name it.
sid_kver() {
	local series kdir

	series=$(sid_series "$1") || return 1
	kdir=$("$(dirname "${BASH_SOURCE[0]}")/sid-root.sh" headers "$series") || return 1
	echo "${kdir#/usr/src/linux-headers-}"
}
