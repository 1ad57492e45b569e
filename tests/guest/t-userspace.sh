#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# librxc (userspace/): its ABI test, its API contract against the device,
# and the examples with their output checked.  Uses the programs built on
# the host into build/userspace/ (vm/check.sh builds them); builds them
# into a scratch directory here when they are missing.
#
# The traffic examples (credit_flow, unsignaled_writes) need rxc's data
# path: on rxc they run only with RXC_DATA_PATH=1, else they are skips.
# udmabuf_cntr needs a dma-buf exporter (udmabuf, or the system dma-heap
# on kernels before 6.2; the debug kernel has both) and dma-buf counter
# memory in the kernel: "not supported" (exit 77) is a skip unless
# RXC_CNTR_EXT_MEM=1 says the kernel must have it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=userspace
repo=${RXC_REPO:-$(cd "$here/../.." && pwd)}
dir=${USERSPACE_DIR:-$repo/build/userspace}
secs=$((${USERSPACE_TIMEOUT:-120} * SLOW))

if [ ! -x "$dir/tests/t_api" ] || [ ! -x "$dir/examples/credit_flow" ]; then
	dir=$(mktemp -d /var/tmp/librxc.XXXXXX)
	run "build librxc, its tests and examples" $((300)) \
		make -s -C "$repo/userspace" O="$dir" lib tests examples
fi
if [ ! -x "$dir/tests/t_api" ]; then
	skip "librxc tests" "not built in $dir"
	exit 0
fi

# prog NAME CMD...: a TAP-printing program; its lines are relabelled.
prog() {
	local name=$1 out rc=0
	shift
	out=$(mktemp)
	echo "+ $*"
	timeout -k 5 "$secs" "$@" >"$out" 2>&1 || rc=$?
	cat "$out"
	sed -nE "s/^(not ok|ok)( [0-9]+)? - (.*)$/\\1 - $SUITE: $name: \\3/p" \
		"$out" >>"$TAP"
	if [ "$rc" -eq 124 ]; then
		fail "$name: finished" "timed out after ${secs}s"
	elif [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$out"; then
		fail "$name: exit status" "exited $rc without reporting a failure"
	fi
	rm -f "$out"
}

# expect NAME REGEX CMD...: CMD exits 0 within the timeout and prints a
# line matching REGEX.
expect() {
	local name=$1 re=$2 out rc=0
	shift 2
	out=$(mktemp)
	echo "+ $*"
	timeout -k 5 "$secs" "$@" >"$out" 2>&1 || rc=$?
	cat "$out"
	if [ "$rc" -ne 0 ]; then
		fail "$name" "exit status $rc: $*"
	elif ! grep -qE "$re" "$out"; then
		fail "$name" "no line matching: $re"
	else
		pass "$name"
	fi
	rm -f "$out"
}

prog t_abi "$dir/tests/t_abi"

if ! dev_exists; then
	skip "librxc api" "no $DEV device"
	exit 0
fi
if [ "$DEV_TYPE" = rxe ]; then
	RXC_NO_COUNTERS=1 prog t_api "$dir/tests/t_api" "$DEV"
else
	prog t_api "$dir/tests/t_api" "$DEV"
fi

ex=$dir/examples
gid=${GID_INDEX:-1}
# The examples' loads; smaller on the debug kernel's fast tier, where
# librxc's tests are there for the core's object, not for traffic.
n_credit=$(by_kernel 2000 2000 200)
n_writes=$(by_kernel 1000 1000 100)
n_bytes=$(by_kernel 300 300 30)
n_held=$(by_kernel 500 500 50)
traffic_skip=''
if [ "$DEV_TYPE" = rxe ]; then
	traffic_skip="rdma_rxe has no completion counters"
elif data_path_gated; then
	traffic_skip="$DATA_PATH_REASON"
fi

if [ -n "$traffic_skip" ]; then
	skip "example credit_flow" "$traffic_skip"
	skip "example unsignaled_writes" "$traffic_skip"
	skip "example unsignaled_writes -B" "$traffic_skip"
	skip "example unsignaled_writes -H: debugfs lists the held counter" "$traffic_skip"
else
	# Two processes: the receiver listens, the sender connects over TCP
	# to the test netdev's address, which needs the loopback interface
	# (down when the guest boots).
	/usr/sbin/ip link set lo up || true
	rlog=$(mktemp)
	timeout -k 5 "$secs" "$ex/credit_flow" -d "$DEV" -g "$gid" -n "$n_credit" \
		-s 16 >"$rlog" 2>&1 &
	rpid=$!
	expect "example credit_flow: sender" \
		"^sender: $n_credit messages sent, $n_credit credited back, .* 0 errors\$" \
		"$ex/credit_flow" -d "$DEV" -g "$gid" -n "$n_credit" -s 16 "$IPADDR"
	rrc=0
	wait "$rpid" || rrc=$?
	cat "$rlog"
	if [ "$rrc" -eq 0 ] && grep -qE \
		"^receiver: $n_credit messages in order through 16 slots, [0-9]+ credit updates, 0 errors\$" \
		"$rlog"; then
		pass "example credit_flow: receiver"
	else
		fail "example credit_flow: receiver" "exit status $rrc"
	fi
	rm -f "$rlog"

	expect "example unsignaled_writes" \
		"^unsignaled_writes: $n_writes writes of 256 bytes complete, wrs counter $n_writes, errors 0, 0 CQEs\$" \
		"$ex/unsignaled_writes" -d "$DEV" -g "$gid" -n "$n_writes" -l 256
	expect "example unsignaled_writes -B" \
		"^unsignaled_writes: $n_bytes writes of 4000 bytes complete, bytes counter $((n_bytes * 4000)), errors 0, 0 CQEs\$" \
		"$ex/unsignaled_writes" -d "$DEV" -g "$gid" -n "$n_bytes" -l 4000 -B

	# What vm/demo.sh shows: while -H holds the counter, debugfs lists
	# it with its value and the QP whose RDMA writes (0x10) it counts.
	listing=$(mktemp)
	if ! held_unsignaled_writes "$ex" "$DEV" "$gid" "$n_held" "$listing"; then
		fail "example unsignaled_writes -H: debugfs lists the held counter" \
			"the example failed or never held its counter"
	elif grep -qE "^[0-9]+ $n_held 0 wrs [^ ]+ [^ ]+ 0x[0-9a-f]+ qp[0-9]+:0x10\$" "$listing"; then
		cat "$listing"
		pass "example unsignaled_writes -H: debugfs lists the held counter"
	else
		cat "$listing"
		fail "example unsignaled_writes -H: debugfs lists the held counter" \
			"no line '<handle> $n_held 0 wrs ... qpN:0x10'"
	fi
	rm -f "$listing"
fi

if [ "$DEV_TYPE" = rxe ]; then
	skip "example udmabuf_cntr" "rdma_rxe has no completion counters"
	exit 0
fi
modprobe udmabuf 2>/dev/null || true
out=$(mktemp)
rc=0
echo "+ $ex/udmabuf_cntr -d $DEV"
timeout -k 5 "$secs" "$ex/udmabuf_cntr" -d "$DEV" >"$out" 2>&1 || rc=$?
cat "$out"
if [ "$rc" -eq 0 ] && grep -q '^udmabuf_cntr: mapping and ibv_read agree$' "$out"; then
	pass "example udmabuf_cntr"
elif [ "$rc" -eq 77 ] && [ "${RXC_CNTR_EXT_MEM:-}" != 1 ]; then
	skip "example udmabuf_cntr" "$(sed -n 's/^udmabuf_cntr: //p' "$out" | tail -n 1)"
else
	fail "example udmabuf_cntr" "exit status $rc"
fi
rm -f "$out"
