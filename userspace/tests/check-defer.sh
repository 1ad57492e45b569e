#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# librxc's headers and library defer to a libibverbs that already declares
# the completion counter verbs (rdma-core 65): the installed one where it
# does, else a stub <infiniband/verbs.h> (tests/stub) that adds the
# declarations to the installed one.  Prints TAP; exits non-zero on any
# failure.
#
#   sh tests/check-defer.sh SCRATCH_DIR     (from userspace/)
set -u
out=${1:?scratch dir}
cc=${CC:-cc}
rm -rf "$out"
mkdir -p "$out"
n=0 failed=0
res() {	# res OK NAME
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok - librxc defer: $2"
	else echo "not ok - librxc defer: $2"; failed=$((failed + 1)); fi
}
# The stub would redeclare what an rdma-core 65 verbs.h has.
if $cc -D_GNU_SOURCE -Werror -fsyntax-only probe/ibv_comp_cntr.c 2>/dev/null; then
	installed_has=1 stub=""
else
	installed_has=0 stub="-Itests/stub"
fi

# 1. The probe sees the stub's declarations; the library builds without
#    any ibv_ symbol of its own.
make -s O="$out/b" VERBS_CPPFLAGS="$stub" lib >"$out/build.log" 2>&1
rc=$?
res $rc "library builds against a verbs.h that declares the verbs"
grep -q '^#define RXC_HAVE_IBV_COMP_CNTR 1$' \
	"$out/b/include/infiniband/rxc_config.h" 2>/dev/null
res $? "the probe records that verbs.h declares them"
syms=$(nm -D --defined-only "$out/b/lib/librxc.so" 2>/dev/null | awk '{print $3}')
echo "$syms" | grep -q '^rxcdv_wait_comp_cntr@' &&
	! echo "$syms" | grep -q 'ibv_'
res $? "the library exports rxcdv_wait/notify and no ibv_ symbol"

# 1b. With the rxe provider's direct verbs (rdma-core-patches), librxc
#     forwards rxcdv_create/query_comp_cntr to them.
if $cc -D_GNU_SOURCE -Werror -fsyntax-only $stub probe/rxedv.c 2>/dev/null; then
	echo "$syms" | grep -q '^rxcdv_query_comp_cntr@' &&
		readelf -d "$out/b/lib/librxc.so" | grep -q 'NEEDED.*librxe\.so'
	res $? "with rxedv.h the library forwards create/query to librxe"
fi

# 2. A program using both headers compiles against the stub...
inc="-Iinclude -I$out/b/include $stub"
$cc -D_GNU_SOURCE -Wall -Werror $inc -c -o "$out/user.o" tests/defer_user.c \
	2>"$out/user.log"
res $? "a program including rxcdv.h compiles against it"
# ...and only because the header defers: forcing the declarations in
# must clash (this proves the check above can fail).
! $cc -D_GNU_SOURCE -DRXC_HAVE_IBV_COMP_CNTR=0 $inc -c -o "$out/clash.o" \
	tests/defer_user.c 2>/dev/null
res $? "forcing librxc's declarations in clashes (negative control)"

# 3. Against an installed libibverbs without them (44) the probe answers no.
if [ "$installed_has" = 0 ]; then
	make -s O="$out/a" lib >"$out/build-a.log" 2>&1 &&
		grep -q '^#define RXC_HAVE_IBV_COMP_CNTR 0$' \
			"$out/a/include/infiniband/rxc_config.h"
	res $? "against the installed libibverbs the library provides the verbs"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
