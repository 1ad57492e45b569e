#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# "make install DESTDIR=..." installs a library, headers, pkg-config file
# and man pages that a program builds and links against, found through
# pkg-config alone.  Prints TAP; exits non-zero on any failure.
#
#   sh tests/check-install.sh SCRATCH_DIR     (from userspace/)
set -u
out=${1:?scratch dir}
cc=${CC:-cc}
rm -rf "$out"
mkdir -p "$out"
n=0 failed=0
res() {	# res OK NAME
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok - librxc install: $2"
	else echo "not ok - librxc install: $2"; failed=$((failed + 1)); fi
}
stage=$out/stage
prefix=/usr/local

make -s O="$out/b" PREFIX=$prefix install DESTDIR="$stage" >"$out/install.log" 2>&1
res $? "make install DESTDIR= succeeds"
# Where libibverbs declares the counter verbs (rdma-core 65), their man
# pages are rdma-core's, and the examples build only if its rxe provider
# has direct verbs (see the Makefile).
ibv_page=share/man/man3/ibv_read_err_comp_cntr.3
prog="examples/unsignaled_writes.c examples/common.c" prog_flags=
if $cc -D_GNU_SOURCE -Werror -fsyntax-only probe/ibv_comp_cntr.c 2>/dev/null; then
	ibv_page=''
	$cc -D_GNU_SOURCE -Werror -fsyntax-only probe/rxedv.c 2>/dev/null ||
		prog=tests/defer_user.c prog_flags="-shared -fPIC"
fi
for f in lib/librxc.so.1 lib/librxc.so lib/pkgconfig/librxc.pc \
	include/infiniband/rxc_comp_cntr.h include/infiniband/rxcdv.h \
	include/infiniband/rxc_config.h share/man/man3/rxcdv_wait_comp_cntr.3 \
	$ibv_page share/man/man7/rxc.7; do
	[ -e "$stage$prefix/$f" ]
	res $? "installs $f"
done

flags=$(PKG_CONFIG_SYSROOT_DIR=$stage \
	PKG_CONFIG_PATH=$stage$prefix/lib/pkgconfig \
	pkg-config --cflags --libs librxc 2>&1)
res $? "pkg-config finds librxc"
# shellcheck disable=SC2086
$cc -Wall -Werror $prog_flags -o "$out/prog" $prog $flags 2>"$out/cc.log"
res $? "a program builds and links against the installed tree alone"
LD_LIBRARY_PATH=$stage$prefix/lib ldd "$out/prog" 2>/dev/null |
	grep -q "librxc.so.1 => $stage"
res $? "it loads the installed librxc.so.1"
echo "1..$n"
[ "$failed" -eq 0 ]
