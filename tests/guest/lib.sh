# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# shellcheck shell=bash
#
# Helpers for the guest-side test scripts (sourced, runs inside the VM).
#
# Results go to $RESULTS/results.tap, one line per test:
#   ok - <suite>: <name>
#   not ok - <suite>: <name>
#   ok - <suite>: <name> # SKIP <why>
# Every helper returns 0 so that scripts under "set -e" carry on after a
# failed test; run() leaves the command's status in $RC.

RESULTS=${RESULTS:-/results}
TAP=$RESULTS/results.tap
SUITE=${SUITE:-misc}
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# The soft-RoCE driver under test: rxc (ours) or rxe (the kernel's, used
# to validate the bench itself).
DEV_TYPE=${DEV_TYPE:-rxc}
case $DEV_TYPE in
rxc | rxe) ;;
*) echo "lib.sh: DEV_TYPE must be rxc or rxe" >&2; exit 2 ;;
esac
DRV_MOD=rdma_$DEV_TYPE
DEV=${DEV_TYPE}0
NETDEV=veth0
IPADDR=10.77.0.1
# KASAN + lockdep under TCG is about 10x slower: scale timeouts and loads.
if [ "${RXC_KERNEL:-stock}" = debug ]; then SLOW=10; else SLOW=1; fi

tap() {	# tap "ok"|"not ok" NAME [DIRECTIVE]
	local line="$1 - $SUITE: $2${3:+ # $3}"
	echo "$line" >>"$TAP"
	echo "$line"
}
pass() { tap ok "$1"; }
fail() {
	tap "not ok" "$1"
	[ $# -lt 2 ] || echo "#   $2"
}
skip() { tap ok "$1" "SKIP $2"; }

# run NAME SECS CMD...: one test, passing when CMD exits 0 within SECS
# (scaled by $SLOW).  CMD's output goes to the log.
run() {
	local name=$1 secs=$(($2 * SLOW))
	shift 2
	echo "+ $*"
	RC=0
	timeout -k 5 "$secs" "$@" || RC=$?
	if [ "$RC" -eq 0 ]; then
		pass "$name"
	elif [ "$RC" -eq 124 ]; then
		fail "$name" "timed out after ${secs}s: $*"
	else
		fail "$name" "exit status $RC: $*"
	fi
	return 0
}

# check NAME CMD...: one test on a quick condition (no timeout).
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name" "false: $*"; fi
	return 0
}

# wait_for SECS CMD...: poll (bounded) until CMD succeeds.
wait_for() {
	local i=$(($1 * 5 * SLOW))
	shift
	while [ "$i" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
		i=$((i - 1))
	done
	return 1
}

dev_exists() { [ -e "/sys/class/infiniband/$DEV" ]; }
mod_loaded() { [ -e "/sys/module/$1" ]; }
port_active() { grep -q ACTIVE "/sys/class/infiniband/$DEV/ports/1/state"; }

# The GID table index of our IPv4 address (RoCE v2, IPv4-mapped).
gid_index() {
	local f want
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' \
		${IPADDR//./ })
	for f in "/sys/class/infiniband/$DEV/ports/1/gids/"*; do
		[ "$(cat "$f" 2>/dev/null)" = "$want" ] && { basename "$f"; return 0; }
	done
	return 1
}

link_add() { rdma link add "$DEV" type "$DEV_TYPE" netdev "$NETDEV"; }
link_del() { rdma link delete "$DEV"; }
