#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# What CI can check of a patch series without its project's source:
# every patch parses (git apply --stat), has a subject and a
# Signed-off-by, and the series file lists exactly the patches present.
# Whether the series applies and builds is checked against an upstream
# checkout by hand (see README.md), not here.  Prints TAP.
#
#   sh rdma-core-patches/check-patches.sh [DIR]
#
# DIR (default: this script's directory) holds the series; its name
# labels the results (libfabric-patches/check-patches.sh passes its own).
set -u
dir=$(cd "${1:-$(dirname "$0")}" && pwd)
name=${dir##*/}
n=0 failed=0
res() {	# res OK NAME [DETAIL]
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok - $name: $2"
	else echo "not ok - $name: $2"; [ -z "${3:-}" ] || echo "#   $3"
		failed=$((failed + 1)); fi
}

patches=$(cd "$dir" && ls ./*.patch 2>/dev/null | sed 's|^\./||')
[ -n "$patches" ]
res $? "the series has patches"
for p in $patches; do
	out=$(git apply --stat "$dir/$p" 2>&1)
	res $? "$p parses (git apply --stat)" "$out"
	grep -q '^Subject: \[PATCH' "$dir/$p" && grep -q '^Signed-off-by: ' "$dir/$p"
	res $? "$p has a subject and a Signed-off-by"
done
listed=$(grep -v '^#' "$dir/series" 2>/dev/null | grep .)
[ "$listed" = "$patches" ]
res $? "series lists the patches in order" "series: $listed"
echo "1..$n"
[ "$failed" -eq 0 ]
