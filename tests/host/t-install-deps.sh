#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   tests/host/t-install-deps.sh
#
# Host-side test of vm/install-deps.sh against stub dpkg-query, apt-cache
# and apt-get: it must get from a machine that knows no 6.12 kernel
# package at all (dpkg-query then fails) to an apt-get install that names
# one.  Once it stopped there without a word: under pipefail the failed
# query ended the script, and the README's commands with it.
#
# Prints TAP ("ok - ...", "not ok - ...") and exits non-zero on a failure.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/rxc-install-deps.XXXXXX)
trap 'rm -rf "$work"' EXIT
nfail=0

# stub NAME BODY: a command in $work/bin that runs BODY.
stub() {
	printf '#!/bin/bash\n%s\n' "$2" >"$work/bin/$1"
	chmod +x "$work/bin/$1"
}

# run_case INSTALLED ARCHIVE612: install-deps.sh with dpkg-query knowing
# only INSTALLED ("all", or "none": no package at all) and apt-cache
# offering ARCHIVE612 as the 6.12 image (empty: none).  apt-get's calls
# go to $work/apt.log; the script's status to $work/rc.
run_case() {
	rm -rf "${work:?}/bin"
	mkdir -p "$work/bin"
	: >"$work/apt.log"
	# The stubs' own variables expand when they run.
	# shellcheck disable=SC2016
	if [ "$1" = all ]; then
		stub dpkg-query '
case "$*" in
*"\${Package}"*) echo "linux-image-6.12.9+deb12-amd64 install ok installed" ;;
*) printf "install ok installed" ;;
esac'
	else
		stub dpkg-query 'echo "dpkg-query: no packages found matching ${!#}" >&2; exit 1'
	fi
	stub apt-cache "[ -n '$2' ] && echo 'linux-image-$2'; echo linux-image-6.12.1-rt-amd64"
	stub apt-get "echo \"\$*\" >>'$work/apt.log'"
	local rc=0
	PATH=$work/bin:$PATH "$repo/vm/install-deps.sh" >"$work/out" 2>&1 || rc=$?
	echo "$rc" >"$work/rc"
}

check() {	# check NAME: the condition is the rest of the arguments
	local name=$1
	shift
	if "$@"; then
		echo "ok - install-deps: $name"
	else
		echo "not ok - install-deps: $name"
		sed 's/^/# /' "$work/out"
		nfail=$((nfail + 1))
	fi
}

installs() { grep -q -- "^install .* $1\( \|$\)" "$work/apt.log"; }
succeeded() { [ "$(cat "$work/rc")" = 0 ]; }

run_case none 6.12.57+deb12-amd64
check "a bare machine: the script succeeds" succeeded
check "a bare machine: installs the archive's 6.12 image" \
	installs linux-image-6.12.57+deb12-amd64
check "a bare machine: and its headers" installs linux-headers-6.12.57+deb12-amd64
check "a bare machine: and the stock kernel" installs linux-image-amd64

run_case none ""
check "no 6.12 in the archive: the script still succeeds" succeeded
check "no 6.12 in the archive: it says so" \
	grep -q "no linux-image-6.12" "$work/out"
check "no 6.12 in the archive: installs the rest" installs qemu-system-x86

run_case all ""
check "everything installed: the script succeeds" succeeded
check "everything installed: apt is not run" test ! -s "$work/apt.log"
[ "$nfail" -eq 0 ]
