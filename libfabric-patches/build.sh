#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Build libfabric 2.1.0 with this series, and the fabtests of the same
# tarball, in the sid root (vm/sid-root.sh), against the rdma-core 65
# installed there (rdma-core-patches/build-debs.sh install, or sid's own).
#
# The archive serves only the orig tarball of sid's libfabric 2.1.0-1.1
# (its .dsc and debian.tar.xz give 404); the tarball is upstream's tree,
# fabtests/ included, without a generated configure.  So: fetch it with
# "apt-get source --download-only", commit it to a scratch git
# repository, "git am" the series (as README.md tells a developer to),
# then autogen.sh, configure and make install, in the root, whose glibc,
# compiler and libibverbs are sid's.  Only the providers the tests use
# are built: verbs, and ofi_rxm over it.  No Debian packages: nothing
# installs this libfabric system-wide, the tests use it from its prefix.
#
# The prefix is the cache directory itself, $RXC_CACHE/libfabric-<hash>
# (default /var/cache/rxc), the hash being of the tarball, the series,
# this script and the root's libibverbs-dev version.  A rerun with the
# same inputs returns at once.  A guest chrooted in the sid root sees the
# prefix at the same path once it is bind-mounted there
# (guest-check.sh does).
#
#   build.sh            build if needed; print the prefix
#
# RXC_JOBS (default 2) caps make's parallelism.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cache=${RXC_CACHE:-/var/cache/rxc}
jobs=${RXC_JOBS:-2}
sid_root="$top/vm/sid-root.sh"
deb_version=2.1.0-1.1
orig=libfabric_2.1.0.orig.tar.xz
src_dir=$cache/libfabric-src
# The scratch tree, removed when the script exits.
work=$cache/libfabric-build.$$
# What configure and make need besides gcc and make, which the root has.
deps=(autoconf automake libtool pkg-config libibverbs-dev librdmacm-dev)
configure_args=(--enable-only --enable-verbs=yes --enable-rxm=yes
	--disable-static)
log() { echo "libfabric-build: $*" >&2; }

root=$("$sid_root")

# fetch_orig: the orig tarball into $src_dir, through the same deb-src
# line as rdma-core's, in its own file (sid-root.sh rewrites
# sources.list).
fetch_orig() {
	local m

	[ -s "$src_dir/$orig" ] && return 0
	m=$(sed -n '/^deb [^ ]* sid /{s/^deb \([^ ]*\) .*/\1/p;q}' "$root/etc/apt/sources.list")
	echo "deb-src ${m:-http://deb.debian.org/debian} sid main" \
		>"$root/etc/apt/sources.list.d/rxc-libfabric-src.list"
	mkdir -p "$src_dir"
	"$sid_root" run apt-get -o DPkg::Lock::Timeout=600 update >&2
	# The .dsc is not served: apt fails after fetching the tarball.
	"$sid_root" run -b "$src_dir" sh -c \
		"cd '$src_dir' && apt-get source --download-only libfabric=$deb_version" >&2 || true
	[ -s "$src_dir/$orig" ] || { log "apt did not leave $orig behind"; return 1; }
}

# build_deps: the packages configure and make need, unless the root has
# them all (apt would wait for a lock other users of the root may hold).
build_deps() {
	local n

	# shellcheck disable=SC2016 # a dpkg-query format, not shell
	n=$("$sid_root" run dpkg-query -W -f '${Status}\n' "${deps[@]}" 2>/dev/null |
		grep -c '^install ok installed$' || true)
	[ "$n" -eq "${#deps[@]}" ] && return 0
	log "installing ${deps[*]} in the sid root"
	"$sid_root" run env DEBIAN_FRONTEND=noninteractive apt-get \
		-o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${deps[@]}" >&2
}

series() { grep -v '^#' "$here/series" | grep .; }

verbs_version() {
	# shellcheck disable=SC2016 # a dpkg-query format, not shell
	"$sid_root" run dpkg-query -W -f '${Version}' libibverbs-dev
}

input_hash() {
	{
		sha256sum "$src_dir/$orig" | cut -d' ' -f1
		series | while read -r p; do sha256sum "$here/$p" | cut -d' ' -f1; done
		sha256sum "$0" | cut -d' ' -f1
		verbs_version
	} | sha256sum | cut -c1-16
}

# unpack_and_apply DIR: the tarball in DIR/src as one commit, the series
# on top with git am (which refuses patches that need fuzz).
unpack_and_apply() {
	local w=$1

	mkdir -p "$w/src"
	tar -xJf "$src_dir/$orig" -C "$w/src" --strip-components=1
	(
		cd "$w/src"
		export GIT_AUTHOR_NAME=rxc GIT_AUTHOR_EMAIL=rxc@invalid
		export GIT_COMMITTER_NAME=rxc GIT_COMMITTER_EMAIL=rxc@invalid
		git init -q
		git add -A
		git commit -q -m "libfabric 2.1.0 ($orig)"
		series | while read -r p; do git am -q "$here/$p" || exit 1; done
		git log --oneline | sed 's/^/libfabric-build:   /' >&2
	)
}

# build DIR PREFIX: libfabric, then fabtests against it, into PREFIX.
build() {
	local w=$1 prefix=$2

	"$sid_root" run -b "$w" -b "$prefix" sh -ec "
		cd '$w/src'
		./autogen.sh
		./configure --prefix='$prefix' ${configure_args[*]}
		grep -q 'define VERBS_HAVE_COMP_CNTR 1' config.h
		make -j$jobs
		make install
		cd fabtests
		./autogen.sh
		./configure --prefix='$prefix' --with-libfabric='$prefix'
		make -j$jobs
		make install"
}

make_prefix() {
	local out=$1 start

	rm -rf "$work" "$out"
	trap 'rm -rf "$work"' EXIT
	mkdir -p "$out"
	unpack_and_apply "$work"
	log "autogen, configure, make (-j$jobs): libfabric, then fabtests; log in $out/build.log"
	start=$(date +%s)
	if ! build "$work" "$out" >"$out/build.log" 2>&1; then
		tail -n 30 "$out/build.log" >&2
		mv "$out/build.log" "$out.log"
		rm -rf "$out"
		log "build failed; full log: $out.log"
		return 1
	fi
	# Written last: a manifest marks a finished build.
	{
		echo "orig $(sha256sum "$src_dir/$orig")"
		echo "libibverbs-dev $(verbs_version)"
		echo "configure ${configure_args[*]}"
		series | sed 's/^/patch /'
		echo "seconds $(($(date +%s) - start))"
	} >"$out/manifest"
	log "built in $(($(date +%s) - start)) s: $out"
}

[ $# -eq 0 ] || { echo "usage: build.sh" >&2; exit 2; }
fetch_orig
build_deps
out=$cache/libfabric-$(input_hash)
if [ -s "$out/manifest" ]; then
	log "cached: $out"
else
	make_prefix "$out"
fi
echo "$out"
