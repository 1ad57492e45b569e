#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# A Debian sid root under $RXC_CACHE in which rxc builds for Linux 7.x.
# Kbuild for 7.x needs glibc >= 2.38 and the compilers sid carries, which
# Debian 12 cannot run, so those builds happen in a chroot.  The root
# holds sid's 7.2 headers and experimental's 7.3 headers (7.3's core has
# upstream's completion counter object), the compilers they name, and
# sparse.  Built once, then reused: a rerun returns at once.
#
#   sid-root.sh              make the root if needed; print its path
#   sid-root.sh run [-b DIR]... CMD...
#                            run CMD inside the root, with /proc, /sys
#                            and /dev mounted for as long as it runs, and
#                            each host DIR at the same path inside
#   sid-root.sh headers 7.2|7.3
#                            print the headers' directory inside the root
#   sid-root.sh install-pkgs NAME PKG...
#                            install PKGs in the root once for user NAME:
#                            a stamp (.rxc-NAME-deps) names them, so a
#                            rerun with the same list installs nothing
#   sid-root.sh install-kernel 7.2|7.3
#                            install that kernel's image and modules on
#                            this machine, in /usr/lib/modules/KVER, for
#                            the bench to boot; print KVER
set -euo pipefail

cache=${RXC_CACHE:-/var/cache/rxc}
root=$cache/sid-root
# The stamp names the packages installed, so a changed list reinstalls.
want_pkgs=(gcc make sparse)
stamp=$root/.rxc-sid-root
log() { echo "sid-root: $*" >&2; }

# mirror: the archive this machine's apt uses; the root uses it too, as
# it is the only one this machine may reach.
mirror() {
	local uri

	uri=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' \
		/etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
	echo "${uri:-http://deb.debian.org/debian}"
}

# Host directories that "run -b" shows inside the root.
binds=()

# in_root CMD...: run CMD chrooted in the root.  The mounts live in a
# private mount namespace, so they vanish with CMD, even when it is
# killed, and never leak onto the host or into a parallel run.
in_root() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount --propagation private -- /bin/sh -c '
		r=$1; shift
		mount -t proc none "$r/proc" &&
		mount --rbind /sys "$r/sys" &&
		mount --rbind /dev "$r/dev" || exit
		while [ "$1" != -- ]; do
			mkdir -p "$r$1" && mount --bind "$1" "$r$1" || exit
			shift
		done
		shift
		exec chroot "$r" "$@"' sh "$root" "${binds[@]}" -- "$@"
}

host_deps() {
	command -v debootstrap >/dev/null && return 0
	log "installing debootstrap"
	apt-get install -y --no-install-recommends debootstrap >&2 || {
		apt-get update >&2
		apt-get install -y --no-install-recommends debootstrap >&2
	}
}

bootstrap() {
	[ -x "$root/usr/bin/apt-get" ] && return 0
	log "debootstrap sid into $root (about 2 minutes)"
	rm -rf "$root"
	mkdir -p "$cache"
	debootstrap --variant=minbase --include=ca-certificates sid "$root" "$(mirror)" >&2
}

# The archive is a snapshot whose sid and experimental Release files
# have expired; apt refuses them unless told not to check.
write_sources() {
	local m

	m=$(mirror)
	printf 'deb %s sid main\ndeb %s experimental main\n' "$m" "$m" \
		>"$root/etc/apt/sources.list"
	echo 'Acquire::Check-Valid-Until "false";' \
		>"$root/etc/apt/apt.conf.d/99rxc-no-valid-until"
	# A chroot must not start services.
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod +x "$root/usr/sbin/policy-rc.d"
}

# headers_pkg 7.2|7.3: the headers package for that kernel.  7.3 has
# exactly one name; sid's 7.2 carries its ABI in the name, which the
# archive, not this script, knows.
headers_pkg() {
	case $1 in
	7.3) echo linux-headers-7.3-amd64 ;;
	7.2) in_root apt-cache pkgnames linux-headers-7.2 |
		grep -E '^linux-headers-7\.2[^-]*-amd64$' | sort -V | tail -n 1 ;;
	*) log "no such kernel: $1"; return 1 ;;
	esac
}

install_pkgs() {
	local h72

	in_root apt-get update >&2
	h72=$(headers_pkg 7.2)
	[ -n "$h72" ] || { log "sid has no linux-headers-7.2*-amd64"; return 1; }
	log "installing ${want_pkgs[*]} $h72 linux-headers-7.3-amd64"
	in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y \
		--no-install-recommends "${want_pkgs[@]}" "$h72" >&2
	in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y \
		--no-install-recommends -t experimental linux-headers-7.3-amd64 >&2
	in_root apt-get clean
}

# headers_dir 7.2|7.3: where the installed headers of that kernel are,
# as a path inside the root.
headers_dir() {
	local d

	d=$(find "$root/usr/src" -maxdepth 1 -name "linux-headers-$1*-amd64" -printf '%f\n' |
		sort -V | tail -n 1)
	[ -n "$d" ] || { log "no linux-headers-$1*-amd64 in $root"; return 1; }
	echo "/usr/src/$d"
}

# Kbuild 7.x runs sparse (C=1) only when scripts/checker-valid.sh says
# it works, and Debian's linux-kbuild packages lack that script: give
# them one, which prints 1 when the checker checks a trivial file.
add_checker_valid() {
	local d

	for d in "$root"/usr/lib/linux-kbuild-*/scripts; do
		[ -e "$d/checker-valid.sh" ] && continue
		cat >"$d/checker-valid.sh" <<-'EOF'
		#!/bin/sh
		# Added by rxc's vm/sid-root.sh: Debian's linux-kbuild lacks it.
		echo 'static int rxc_checker_probe;' | "$@" - >/dev/null 2>&1 && echo 1
		EOF
		chmod +x "$d/checker-valid.sh"
	done
}

# install_kernel 7.2|7.3: the bench boots kernels from this machine's
# files (guests read them over 9p), and Debian 12's depmod indexes 7.x's
# .ko.xz modules.  The image and modules come from the archive; the
# module lists from the root's linux-base package, which the headers
# pulled in.  modules.dep, written last, marks a finished install.
install_kernel() {
	local kver dl deb dest

	kver=$(headers_dir "$1")
	kver=${kver#/usr/src/linux-headers-}
	dest=/usr/lib/modules/$kver
	if [ ! -f "$dest/modules.dep" ]; then
		log "installing linux-binary-$kver and linux-modules-$kver in $dest"
		dl=$(mktemp -d "$root/tmp/kernel.XXXXXX")
		# shellcheck disable=SC2016 # expanded by the inner shell
		in_root sh -c 'cd "$1" && apt-get download -q "linux-binary-$2" "linux-modules-$2"' \
			sh "${dl#"$root"}" "$kver" >&2
		for deb in "$dl"/*.deb; do
			dpkg-deb -x "$deb" "$dl/x"
		done
		rm -rf "$dest"
		cp -a "$dl/x$dest" "$dest"
		cp -a "$root$dest"/modules.order "$root$dest"/modules.builtin* "$dest/"
		rm -rf "$dl"
		depmod -a "$kver"
	fi
	echo "$kver"
}

# install_pkgs_once NAME PKG...: what a script needs in the root beyond
# its base, installed the first time that list is asked for.  apt waits
# for another user's lock rather than fail.
install_pkgs_once() {
	local name=$1 stamp
	shift
	stamp=$root/.rxc-$name-deps
	[ "$(cat "$stamp" 2>/dev/null)" != "$*" ] || return 0
	log "installing $* for $name"
	in_root env DEBIAN_FRONTEND=noninteractive apt-get \
		-o DPkg::Lock::Timeout=600 install -y --no-install-recommends "$@" >&2
	echo "$*" >"$stamp"
}

stamp_text() { echo "${want_pkgs[*]} linux-headers-7.2 linux-headers-7.3 checker-valid"; }

make_root() {
	if [ "$(cat "$stamp" 2>/dev/null)" = "$(stamp_text)" ]; then
		return 0
	fi
	host_deps
	bootstrap
	write_sources
	install_pkgs
	add_checker_valid
	stamp_text >"$stamp"
	log "ready: $root"
}

case ${1:-} in
run)
	shift
	make_root
	while [ "${1:-}" = -b ]; do
		binds+=("$(cd "${2:?run -b DIR}" && pwd)")
		shift 2
	done
	in_root "$@"
	;;
headers)
	make_root
	headers_dir "${2:?usage: sid-root.sh headers 7.2|7.3}"
	;;
install-pkgs)
	make_root
	shift
	install_pkgs_once "${1:?usage: sid-root.sh install-pkgs NAME PKG...}" "${@:2}"
	;;
install-kernel)
	make_root
	install_kernel "${2:?usage: sid-root.sh install-kernel 7.2|7.3}"
	;;
'')
	make_root
	echo "$root"
	;;
*)
	echo "usage: sid-root.sh [run [-b DIR]... CMD... | headers 7.2|7.3 | install-pkgs NAME PKG... | install-kernel 7.2|7.3]" >&2
	exit 2
	;;
esac
