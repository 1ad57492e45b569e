# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# shellcheck shell=bash
#
# Helpers for a guest of vm/run-pair.sh (sourced after lib.sh): the two
# guests are two hosts, a and b, on one virtio link.  Both run the same
# script; each step that involves the other host starts with a barrier
# (wire_sync) so that the two scripts stay in step.  Guest a is the
# client of every pair of programs, guest b the server.
#
# Addresses: a 10.78.0.1, b 10.78.0.2, on the NIC whose MAC vm/run-vm.sh
# passed as RXC_WIRE_MAC; its name is in WIRE_NIC once wire_up ran.

WIRE_ROLE=${RXC_WIRE_ROLE:?a guest of vm/run-pair.sh has RXC_WIRE_ROLE}
case $WIRE_ROLE in
a) WIRE_IP=10.78.0.1 WIRE_PEER_IP=10.78.0.2 ;;
b) WIRE_IP=10.78.0.2 WIRE_PEER_IP=10.78.0.1 ;;
*) echo "wire.sh: RXC_WIRE_ROLE must be a or b" >&2; exit 2 ;;
esac
WIRE_NIC=
WIRE_SYNC=$(dirname "${BASH_SOURCE[0]}")/wire_sync.py

# wire_sync TAG [SECS]: wait until the other guest reaches the barrier
# TAG as well; fails when it does not within SECS (default 600), or
# waits at another barrier.
wire_sync() { /usr/bin/python3 "$WIRE_SYNC" "$WIRE_ROLE" "$WIRE_PEER_IP" "$@"; }

wire_nic_of() {	# wire_nic_of MAC: the interface with that address
	local d
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "$1" ] && { basename "$d"; return 0; }
	done
	return 1
}

# wire_up: the link up with this guest's address, its IPv6 link-local
# address past DAD (UCX's UD wire-up routes by the link-local GID, index
# 0), and the peer reached.  The other guest may boot a minute later (or
# twice, see vm/run-vm.sh).
wire_up() {
	run "lo up" 30 ip link set lo up
	modprobe virtio_net 2>/dev/null || true	# built in on the debug kernel
	if ! wait_for 30 wire_nic_of "$RXC_WIRE_MAC"; then
		fail "a NIC with address $RXC_WIRE_MAC"
		return 1
	fi
	WIRE_NIC=$(wire_nic_of "$RXC_WIRE_MAC")
	run "$WIRE_NIC up as $WIRE_IP" 30 sh -c \
		"ip addr add $WIRE_IP/24 dev $WIRE_NIC && ip link set $WIRE_NIC up"
	check "$WIRE_NIC has a link-local address" wait_for 20 sh -c \
		"ip -6 addr show dev $WIRE_NIC scope link -tentative | grep -q inet6"
	if wire_sync up 900; then
		pass "the other guest reached over $WIRE_NIC"
	else
		fail "the other guest reached over $WIRE_NIC" "no answer in 900 s"
		return 1
	fi
}

# wire_mtu MTU: both ends of the link at MTU.
wire_mtu() {
	ip link set "$WIRE_NIC" mtu "$1"
	wire_sync "mtu-$1"
}

# wire_dev_up DRV DEV: an RDMA device DEV of driver DRV on the link;
# prints its GID index for the IPv4 address, or fails.
wire_dev_up() { dev_link_up "$1" "$2" "$WIRE_NIC" "$WIRE_IP"; }

port_listening() { ss -Hltn "sport = :$1" | grep -q .; }

# wire_alive: does the other guest's kernel still answer over the link?
# A live peer refuses a TCP connection to a port nobody listens on at
# once; behind a dead link the attempt times out (status 124).
WIRE_ALIVE_SECS=10
wire_alive() {
	local rc=0
	timeout "$WIRE_ALIVE_SECS" bash -c "exec 3<>/dev/tcp/$WIRE_PEER_IP/9" \
		2>/dev/null || rc=$?
	[ "$rc" -ne 124 ]
}

# wire_nic_reset: this guest's end of the link anew.  Its virtio-net
# device is unbound from its driver and bound again, which resets the
# device: QEMU then drops what it had queued for it, in both directions,
# and the guest's driver starts from empty rings.  The new netdev gets
# the old one's address and MTU; an RDMA device on the old one went with
# it, and WIRE_RELINK_HOOK (a command, if set) puts it back.
WIRE_RELINK_HOOK=
wire_nic_reset() {
	local mtu dev drv=/sys/bus/virtio/drivers/virtio_net

	mtu=$(cat "/sys/class/net/$WIRE_NIC/mtu") || return 1
	dev=$(basename "$(readlink -f "/sys/class/net/$WIRE_NIC/device")")
	echo "$dev" >"$drv/unbind" && echo "$dev" >"$drv/bind" || return 1
	wait_for 30 wire_nic_of "$RXC_WIRE_MAC" || return 1
	WIRE_NIC=$(wire_nic_of "$RXC_WIRE_MAC")
	ip link set "$WIRE_NIC" mtu "$mtu" &&
		ip addr add "$WIRE_IP/24" dev "$WIRE_NIC" &&
		ip link set "$WIRE_NIC" up
}

# wire_relink: bring a dead link back: reset this end (wire_nic_reset),
# then wait up to WIRE_RELINK_SECS for the other guest, which finds the
# link dead too after its own failed step and resets its end, to answer;
# then run WIRE_RELINK_HOOK.  Fails when the link stays dead.
WIRE_RELINK_SECS=240
wire_relink() {
	local end=$((SECONDS + WIRE_RELINK_SECS * SLOW))

	echo "# the link is dead after step $WIRE_STEP: resetting $WIRE_NIC"
	wire_nic_reset || return 1
	until wire_alive; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 1
	done
	[ -z "$WIRE_RELINK_HOOK" ] || $WIRE_RELINK_HOOK
}

# wire_check_link: after a failed step, make sure the link itself still
# works.  virtio-net's link between the guests has been seen to stop for
# good under QEMU, with or without a transmit timeout in a guest's log
# (NETDEV WATCHDOG), always while rdma_rxe ran at both ends; every later
# step then timed out in turn, for hours, and measured nothing.  A dead
# link is reset at both ends (wire_relink); the run goes on when the link
# comes back and stops here when it does not.
wire_check_link() {
	wire_alive && return 0
	if wire_relink; then
		pass "the link came back after step $WIRE_STEP, its NIC reset"
		return 0
	fi
	fail "the link still works after step $WIRE_STEP" \
		"the other guest does not answer over $WIRE_NIC, even after a reset: stopping here"
	exit 1
}

# wire_pair NAME SECS PORT CHECK -- SERVER... -- CLIENT...: one program
# pair across the link.  Guest b runs SERVER, which must come to listen
# on TCP PORT; guest a then runs CLIENT.  Each guest reports its own side
# as one test: it passes when its program exits 0 within SECS and, on a,
# "CHECK LOG" accepts the client's output.  On a, WIRE_OUT names the
# client's output afterwards.  A server whose client gave up is stopped.
# A failed step whose link died resets it, or ends the run (wire_check_link).
#
# PORT "-" says that the client retries until the server listens and
# that the server ends with its client's run (rxc_bench): then the two
# need no barriers, which cost a Python start each under TCG.
WIRE_STEP=0
wire_pair() {
	local name=$1 secs=$(($2 * SLOW)) port=$3 chk=$4 srv=() pid rc=0 why=''
	shift 5
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	WIRE_STEP=$((WIRE_STEP + 1))
	mkdir -p "$RESULTS/wire-logs"
	WIRE_OUT=$RESULTS/wire-logs/$WIRE_STEP-$WIRE_ROLE.log
	if [ "$port" = - ]; then
		[ "$WIRE_ROLE" = a ] || { name="$name (server)"; set -- "${srv[@]}"; }
		echo "+ [$WIRE_STEP] $*"
		timeout -k 5 "$secs" "$@" >"$WIRE_OUT" 2>&1 || rc=$?
	elif [ "$WIRE_ROLE" = b ]; then
		name="$name (server)"
		echo "+ [$WIRE_STEP server] ${srv[*]}"
		timeout -k 5 "$secs" "${srv[@]}" >"$WIRE_OUT" 2>&1 &
		pid=$!
		wait_for 30 port_listening "$port" || echo "# the server does not listen on port $port"
		wire_sync "go-$WIRE_STEP" || why="the client never came"
		wire_sync "end-$WIRE_STEP" $((secs + 60)) || why="the client did not finish"
		wait_for 15 pid_gone "$pid" || kill "$pid" 2>/dev/null || true
		wait "$pid" || rc=$?
	else
		wire_sync "go-$WIRE_STEP" || why="the server never came"
		echo "+ [$WIRE_STEP client] $*"
		[ -n "$why" ] || timeout -k 5 "$secs" "$@" >"$WIRE_OUT" 2>&1 || rc=$?
		wire_sync "end-$WIRE_STEP" || why=${why:-"the server side is out of step"}
	fi
	if [ -z "$why" ] && [ "$rc" -eq 124 ]; then
		why="timed out after ${secs}s"
	elif [ -z "$why" ] && [ "$rc" -ne 0 ]; then
		why="exit status $rc"
	elif [ -z "$why" ] && [ "$WIRE_ROLE" = a ] && ! why=$("$chk" "$WIRE_OUT"); then
		why=${why:-"$chk failed without saying why"}
	fi
	if [ -z "$why" ]; then
		pass "$name"
	else
		tail -n 20 "$WIRE_OUT"
		fail "$name" "$why"
		wire_check_link
	fi
}
