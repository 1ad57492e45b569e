#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Build Debian packages of rdma-core 65 with this series applied, from the
# source Debian ships, in the sid root (vm/sid-root.sh).
#
# The archive serves only the orig tarball of sid's rdma-core 65.0-1.1
# (its .dsc and debian.tar.xz give 404), and that tarball is upstream's
# 65.0 release with upstream's own debian/.  So: fetch the tarball with
# "apt-get source --download-only", commit it to a scratch git repository,
# "git am" the series (exactly as README.md tells a developer to), give
# debian/changelog a version above sid's, and run dpkg-buildpackage in
# the root, whose glibc and compilers are sid's, like the packages'
# users.  The full debian/ build is used rather than a bare cmake+ninja
# build because its packages are what a sid user installs: librxe.so.1,
# rxedv.h and python3-pyverbs land where Debian puts them.
#
# The result is cached under $RXC_CACHE (default /var/cache/rxc) by the
# hash of its inputs: the tarball, the series, and this script.  A rerun
# with the same inputs returns at once.
#
#   build-debs.sh            build if needed; print the directory of .debs
#   build-debs.sh install    also install them in the sid root (apt), so
#                            that its userspace is the patched rdma-core
#
# RXC_JOBS (default 2) caps the build's parallelism: upstream's
# debian/rules runs ninja without -j, which would use every core plus two.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cache=${RXC_CACHE:-/var/cache/rxc}
jobs=${RXC_JOBS:-2}
sid_root="$top/vm/sid-root.sh"
# Debian's version of the source, and ours above it: apt then prefers
# these packages to sid's own, and "+rxc" says where they come from.
deb_version=65.0-1.1
our_version=$deb_version+rxc1
orig=rdma-core_65.0.orig.tar.gz
src_dir=$cache/rdma-core-src
# The scratch tree, removed when the script exits.
work=$cache/rdma-core-build.$$
# What "install" puts in the root: the verbs stack, its tools and pyverbs
# (their dependencies come from sid), not the daemons; and from sid,
# iproute2, whose rdma tool the pyverbs tests run (tests/base.py).
install_pkgs=(libibverbs1 libibverbs-dev ibverbs-providers ibverbs-utils
	librdmacm1 librdmacm-dev rdmacm-utils python3-pyverbs)
install_sid_pkgs=(iproute2)
log() { echo "build-debs: $*" >&2; }

root=$("$sid_root")

# fetch_orig: the orig tarball into $src_dir.  The deb-src line lives in
# its own file, which sid-root.sh does not rewrite.
fetch_orig() {
	local m

	[ -s "$src_dir/$orig" ] && return 0
	m=$(sed -n '/^deb [^ ]* sid /{s/^deb \([^ ]*\) .*/\1/p;q}' "$root/etc/apt/sources.list")
	echo "deb-src ${m:-http://deb.debian.org/debian} sid main" \
		>"$root/etc/apt/sources.list.d/rxc-rdma-core-src.list"
	mkdir -p "$src_dir"
	"$sid_root" run apt-get -o DPkg::Lock::Timeout=600 update >&2
	# The .dsc and debian.tar.xz are not served: apt fails after
	# fetching the tarball, so its exit status says nothing here.
	"$sid_root" run -b "$src_dir" sh -c \
		"cd '$src_dir' && apt-get source --download-only rdma-core=$deb_version" >&2 || true
	[ -s "$src_dir/$orig" ] || { log "apt did not leave $orig behind"; return 1; }
}

series() { grep -v '^#' "$here/series" | grep .; }

input_hash() {
	{
		sha256sum "$src_dir/$orig" | cut -d' ' -f1
		series | while read -r p; do sha256sum "$here/$p" | cut -d' ' -f1; done
		sha256sum "$0" | cut -d' ' -f1
		echo "$our_version"
	} | sha256sum | cut -c1-16
}

# The tarball's top directory, GitHub's name for the release:
# linux-rdma-rdma-core-<upstream commit>.
top_dir=

# unpack_and_apply DIR: the tarball in DIR/src as one commit, the series
# on top with git am (which refuses patches that need fuzz).
unpack_and_apply() {
	local w=$1

	mkdir -p "$w/src"
	tar -xzf "$src_dir/$orig" -C "$w/src" --strip-components=1
	top_dir=$(tar -tzf "$src_dir/$orig" | sed -n '1s|/$||p')
	log "unpacked $orig ($top_dir)"
	(
		cd "$w/src"
		export GIT_AUTHOR_NAME=rxc GIT_AUTHOR_EMAIL=rxc@invalid
		export GIT_COMMITTER_NAME=rxc GIT_COMMITTER_EMAIL=rxc@invalid
		git init -q
		git add -A
		git commit -q -m "rdma-core 65.0 ($orig, $top_dir)"
		series | while read -r p; do git am -q "$here/$p" || exit 1; done
		git log --oneline | sed 's/^/build-debs:   /' >&2
	)
}

# add_changelog DIR: a changelog entry with our version, so that the
# packages upgrade sid's and say what they carry.
add_changelog() {
	local cl=$1/src/debian/changelog tmp

	tmp=$(mktemp)
	{
		echo "rdma-core ($our_version) unstable; urgency=medium"
		echo
		echo "  * Completion counters for the rxe provider (rxc's rdma-core-patches):"
		series | sed 's/^/    - /'
		echo
		echo " -- rxc <rxc@invalid>  $(date -R)"
		echo
		cat "$cl"
	} >"$tmp"
	mv "$tmp" "$cl"
}

build_deps() {
	log "installing build dependencies in the sid root"
	"$sid_root" run -b "$1" env DEBIAN_FRONTEND=noninteractive \
		apt-get -o DPkg::Lock::Timeout=600 build-dep -y --no-install-recommends \
		"$1/src" build-essential >&2
}

# no_static DIR: packages without their static libraries.  Nothing here
# links statically, and upstream's ENABLE_STATIC compiles every library
# a second time: about half of the build's steps, on the critical path of
# a fresh machine's CI (Documentation/results/2026-12-07-ci-fresh-aeab4c1.rst).
# debian/rules passes EXTRA_CMAKE_FLAGS after its own -DENABLE_STATIC=1,
# and the -dev packages must not list the archives that no longer exist.
no_static() {
	sed -i '/\.a$/d' "$1"/src/debian/*.install
}

# build DIR: dpkg-buildpackage in the root.  A ninja on PATH that adds -j
# keeps upstream's debian/rules within RXC_JOBS.  No debug-symbol
# packages either: nothing installs them.
build() {
	local w=$1

	mkdir -p "$w/bin"
	printf '#!/bin/sh\nexec /usr/bin/ninja -j%s "$@"\n' "$jobs" >"$w/bin/ninja"
	chmod +x "$w/bin/ninja"
	"$sid_root" run -b "$w" env PATH="$w/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
		DEB_BUILD_OPTIONS="nocheck noautodbgsym parallel=$jobs" \
		EXTRA_CMAKE_FLAGS=-DENABLE_STATIC=0 \
		sh -c "cd '$w/src' && dpkg-buildpackage -b -us -uc -j$jobs"
}

make_debs() {
	local out=$1 w start

	w=$work
	rm -rf "$w"
	trap 'rm -rf "$work"' EXIT
	unpack_and_apply "$w"
	add_changelog "$w"
	no_static "$w"
	build_deps "$w"
	log "dpkg-buildpackage -b (-j$jobs); log in $out.log"
	start=$(date +%s)
	if ! build "$w" >"$out.log" 2>&1; then
		tail -n 30 "$out.log" >&2
		log "build failed; full log: $out.log"
		return 1
	fi
	mkdir -p "$out.tmp"
	mv "$w"/*.deb "$out.tmp/"
	mv "$out.log" "$out.tmp/build.log"
	{
		echo "version $our_version"
		echo "orig $(sha256sum "$src_dir/$orig")"
		echo "upstream $top_dir"
		series | sed 's/^/patch /'
		echo "seconds $(($(date +%s) - start))"
	} >"$out.tmp/manifest"
	rm -rf "$out"
	mv "$out.tmp" "$out"
	log "built in $(($(date +%s) - start)) s: $out"
}

# install_debs DIR: the packages into the root, unless these very ones
# are there.  Every build carries the same version, so a stamp names the
# build, and apt reinstalls.
install_debs() {
	local stamp=$root/var/lib/rxc-rdma-core-debs p debs=()

	[ "$(cat "$stamp" 2>/dev/null)" = "${1##*/}" ] && return 0
	for p in "${install_pkgs[@]}"; do
		debs+=("$1/${p}_${our_version}_"*.deb)
	done
	log "installing ${install_pkgs[*]} in the sid root"
	"$sid_root" run -b "$1" env DEBIAN_FRONTEND=noninteractive \
		apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends \
		--reinstall --allow-downgrades "${debs[@]}" "${install_sid_pkgs[@]}" >&2
	echo "${1##*/}" >"$stamp"
}

fetch_orig
out=$cache/rdma-core-debs-$(input_hash)
if [ -s "$out/manifest" ]; then
	log "cached: $out"
else
	make_debs "$out"
fi
case ${1:-} in
install) install_debs "$out" ;;
'') ;;
*) echo "usage: build-debs.sh [install]" >&2; exit 2 ;;
esac
echo "$out"
