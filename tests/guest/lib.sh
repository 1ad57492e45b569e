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
case ${RXC_KERNEL:-stock} in debug*) SLOW=10 ;; *) SLOW=1 ;; esac

# vm/check.sh's tier: "fast" (CI) or "full" (--full).
RXC_TIER=${RXC_TIER:-full}

# part_of_matrix: true where a large matrix (t-tools, t-interop) runs only
# a part that takes each kernel path once.  6.1 runs every matrix in full,
# and so does every kernel in the full tier.  The debug kernel, where each
# step costs ten times as much, runs the part in both tiers; 6.12 runs it
# in the fast tier, since below the verbs ABI its paths are 6.1's.
part_of_matrix() {
	[ "$SLOW" -gt 1 ] ||
		{ [ "$RXC_TIER" = fast ] && [ "${RXC_KERNEL:-stock}" != stock ]; }
}

# by_kernel STOCK DEBUG [DEBUG_FAST]: the size of a load for this guest:
# STOCK on the stock kernels, DEBUG on the debug kernel (ten times
# slower), and DEBUG_FAST there in the fast tier, where most of CI's
# time goes.
by_kernel() {
	if [ "$SLOW" -eq 1 ]; then
		echo "$1"
	elif [ "$RXC_TIER" = fast ]; then
		echo "${3:-$2}"
	else
		echo "$2"
	fi
}

# tap "ok"|"not ok" NAME [DIRECTIVE]: one result.  The guest log (not the
# TAP file) also says how long a result took when it took a while: CI's
# time is counted per group, and this says where a group's goes.
TAP_AT=$SECONDS
tap() {
	local line="$1 - $SUITE: $2${3:+ # $3}"
	echo "$line" >>"$TAP"
	echo "$line"
	[ $((SECONDS - TAP_AT)) -lt 5 ] || echo "#   took $((SECONDS - TAP_AT)) s"
	TAP_AT=$SECONDS
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

# wait_or_report SECS CMD...: wait_for, and when it times out, leave what
# a stall needs explained: every link's counters and QPs, the softirq
# backlog, and (through sysrq-t, in dmesg.txt) each task's stack and the
# workqueues' state.
wait_or_report() {
	wait_for "$@" && return 0
	echo "# stall: '${*:2}' still false after $1 s" >&2
	rdma statistic show >&2 || true
	rdma resource show qp >&2 || true
	cat /proc/net/softnet_stat >&2 || true
	echo t >/proc/sysrq-trigger || true
	return 1
}

dev_exists() { [ -e "/sys/class/infiniband/$DEV" ]; }
mod_loaded() { [ -e "/sys/module/$1" ]; }
port_active() { grep -q ACTIVE "/sys/class/infiniband/$DEV/ports/1/state"; }

# The GID table index of our IPv4 address (RoCE v2, IPv4-mapped).
gid_index() { gid_index_of "$DEV" "$IPADDR"; }

link_add() { rdma link add "$DEV" type "$DEV_TYPE" netdev "$NETDEV"; }
link_del() { rdma link delete "$DEV"; }

# gid_of ADDR: the GID of an IPv4 (as IPv4-mapped) or IPv6 address, as
# sysfs prints it.  IPv4, the common case, needs no Python, whose start
# costs about a second under TCG.
gid_of() {
	local a b c d
	if [[ $1 =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
		IFS=. read -r a b c d <<<"$1"
		printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$a" "$b" "$c" "$d"
		return
	fi
	/usr/bin/python3 -c '
import ipaddress, sys
print(ipaddress.IPv6Address(sys.argv[1]).exploded)' "$1"
}

# gid_index_of DEV ADDR: the GID table index of RoCE v2 GID of an IPv4 or
# IPv6 address on device DEV, e.g. gid_index_of rxc1 10.77.0.2.  One grep
# reads the whole table: a process per entry cost seconds per lookup
# under TCG, since the glob sorts index 2 after 10..199.
gid_index_of() {
	local f want idx type port=/sys/class/infiniband/$1/ports/1
	want=$(gid_of "$2") || return 1
	while read -r f; do
		idx=${f##*/}
		read -r type <"$port/gid_attrs/types/$idx" 2>/dev/null || continue
		[ "$type" = "RoCE v2" ] && { echo "$idx"; return 0; }
	done < <(grep -lx -- "$want" "$port/gids/"* 2>/dev/null)
	return 1
}

# load_driver DRV: modprobe rdma_DRV as one test.  rdma_rxe needs a crc32
# crypto driver, which nothing autoloads here.
load_driver() {
	if [ "$1" = rxe ]; then
		modprobe crc32_generic 2>/dev/null ||
			modprobe crc32-pclmul 2>/dev/null || true
	fi
	run "modprobe rdma_$1" 60 modprobe "rdma_$1"
}

# dev_link_up DRV DEV NETDEV ADDR [PREFIX...]: an RDMA device DEV of
# driver DRV on NETDEV (its "rdma link add" run under PREFIX, e.g. "ip
# netns exec NS"), its port ACTIVE; prints the GID index of ADDR, or
# fails.
dev_link_up() {
	local drv=$1 dev=$2 netdev=$3 addr=$4
	shift 4
	"$@" rdma link add "$dev" type "$drv" netdev "$netdev" >&2 || return 1
	wait_for 20 grep -q ACTIVE "/sys/class/infiniband/$dev/ports/1/state" || return 1
	wait_for 20 gid_index_of "$dev" "$addr" || return 1
	gid_index_of "$dev" "$addr"
}

# word_after NAME: the word after NAME in the "NAME VALUE ..." lines on
# stdin, as the rdma tool prints them.
word_after() {
	tr ' ' '\n' | awk -v n="$1" 'prev == n { print; exit } { prev = $0 }'
}

# port_counters ARRAY DEV: every port counter of DEV into the associative
# array ARRAY, under "DEV/NAME", from one "rdma statistic show link",
# which takes seconds on the debug kernel.  A counter is a name followed
# by a number; the words are taken a pair at a time where they are one,
# not counted off from the line's start, so a word the tool adds (a
# device's or a mode's) never shifts the names after it.
port_counters() {
	local -n pc_=$1
	local prev='' w
	for w in $(rdma statistic show link "$2/1"); do
		if [[ $w =~ ^[0-9]+$ && $prev =~ ^[a-z] ]]; then
			pc_[$2/$prev]=$w
		fi
		prev=$w
	done
}

# hw_counter DEV NAME: one port counter of DEV, or nothing.
hw_counter() {
	local -A hc_=()
	port_counters hc_ "$1"
	echo "${hc_[$1/$2]:-}"
}

# counter_lines DEV: every port counter of DEV, a "NAME VALUE" line each,
# sorted.
counter_lines() {
	local -A cl_=()
	local k
	port_counters cl_ "$1"
	for k in "${!cl_[@]}"; do echo "${k#*/} ${cl_[$k]}"; done | sort
}

# How far port counters moved over a test.  counters_snap ARRAY DEV
# NAME... keeps DEV's counters NAME in the associative array ARRAY, under
# "DEV/NAME"; counters_delta ARRAY turns each into how far it has moved
# since; counters_show ARRAY [moved] prints "DEV NAME +N" a line, sorted,
# only those that moved with "moved"; counters_moved ARRAY LABEL does the
# delta and prints those that moved as comments, "# LABEL: DEV NAME +N".
# Each reads a device's counters once.
counters_snap() {
	local -n snap_=$1
	local dev=$2 c
	local -A now_=()
	shift 2
	port_counters now_ "$dev"
	for c in "$@"; do snap_[$dev/$c]=${now_[$dev/$c]:-0}; done
}
counters_delta() {
	local -n delta_=$1
	local -A now_=() seen_=()
	local k dev
	for k in "${!delta_[@]}"; do
		dev=${k%%/*}
		[ -n "${seen_[$dev]:-}" ] || port_counters now_ "$dev"
		seen_[$dev]=1
		delta_[$k]=$((${now_[$k]:-0} - delta_[$k]))
	done
}
counters_show() {
	local -n show_=$1
	local k
	for k in "${!show_[@]}"; do
		[ "${2:-}" != moved ] || [ "${show_[$k]}" != 0 ] || continue
		echo "${k%%/*} ${k#*/} +${show_[$k]}"
	done | sort
}
counters_moved() {
	counters_delta "$1"
	counters_show "$1" moved | sed "s/^/# $2: /"
}

# rc_connected DEV: is an RC QP of DEV in RTS?
rc_connected() {
	rdma resource show qp link "$1/1" 2>/dev/null |
		grep -q 'type RC state RTS'
}

# res_count DEV NAME: how many NAME objects "rdma resource show" counts.
res_count() { rdma resource show "$1" | word_after "$2"; }

# core_comp_cntr: true when the kernel's core has the completion counter
# object and rxc runs through it (rxc_cntr.c says so when it loads).
core_comp_cntr() { counters_through "the core's object"; }
# release_list RELEASE FILE...: of FILEs named NAME-X.Y.txt, the one for
# the newest release X.Y at or below RELEASE (e.g. 7.3), if any.  A list
# of what a release's rdma_rxe does (tests/diff/known-rxe-6.12.txt)
# holds for the releases after it until one has a list of its own.
release_list() {
	local rel=$1 f v best='' best_v=''
	shift
	for f in "$@"; do
		[ -f "$f" ] || continue
		v=${f##*-}
		v=${v%.txt}
		[ "$(printf '%s\n%s\n' "$v" "$rel" | sort -V | tail -n 1)" = "$rel" ] || continue
		[ -z "$best_v" ] ||
			[ "$(printf '%s\n%s\n' "$v" "$best_v" | sort -V | tail -n 1)" = "$v" ] || continue
		best=$f best_v=$v
	done
	[ -z "$best" ] || echo "$best"
}

# counters_through OBJECT: rdma_rxc said at load that its counters go
# through OBJECT ("the core's object" or "rxc's own object").
counters_through() { dmesg | grep -qF "completion counters through $1"; }

# Traffic on rxc needs its data path (issue 3); until the lead flips the
# gate, traffic tests on rxc run only with RXC_DATA_PATH=1.
data_path_gated() { [ "$DEV_TYPE" = rxc ] && [ "${RXC_DATA_PATH:-1}" != 1 ]; }
DATA_PATH_REASON="RXC_DATA_PATH=0 turns rxc traffic tests off"
# The tests whose traffic crosses a veth pair into another namespace (tool
# matrix, netem, interop) can be turned off alone with RXC_NETNS_TRAFFIC=0.
netns_traffic_gated() {
	[ "$DEV_TYPE" = rxc ] && [ "${RXC_NETNS_TRAFFIC:-1}" != 1 ]
}
NETNS_TRAFFIC_REASON="RXC_NETNS_TRAFFIC=0 turns cross-namespace traffic tests off"
# skip_unless_rxc_tool NAME PATH: skip NAME unless an rxc device that
# carries traffic is here and the test tool at PATH is built; true when it
# skipped.
skip_unless_rxc_tool() {
	if [ "$DEV_TYPE" != rxc ] || ! dev_exists; then
		skip "$1" "needs an rxc device"
	elif data_path_gated; then
		skip "$1" "$DATA_PATH_REASON"
	elif [ ! -x "$2" ]; then
		skip "$1" "${2##*/} not built: $2"
	else
		return 1
	fi
	return 0
}
# skip_if_no_traffic NAME: skip NAME, saying which switch turned its
# traffic off; true when it did.
skip_if_no_traffic() {
	if data_path_gated; then
		skip "$1" "$DATA_PATH_REASON"
	elif netns_traffic_gated; then
		skip "$1" "$NETNS_TRAFFIC_REASON"
	else
		return 1
	fi
}

# rc_xfer (tests/verbs/tools), which checks every byte it moves.
XFER=${RXC_REPO:-/nonexistent}/build/tests/tools/rc_xfer

# skip_unless_peer_xfer NAME: for the rxc-only groups that run rc_xfer
# between two namespaces; skip NAME, saying what is missing (an rxc
# device, its traffic, rc_xfer), and be true when something is.
skip_unless_peer_xfer() {
	if [ "$DEV_TYPE" != rxc ]; then
		skip "$1" "rdma_rxe 6.1 has no netns support: both ends would share one device"
	elif ! dev_exists; then
		skip "$1" "no $DEV device"
	elif skip_if_no_traffic "$1"; then
		:
	elif [ ! -x "$XFER" ]; then
		skip "$1" "rc_xfer not built: $XFER"
	else
		return 1
	fi
}

# Two-ended traffic topology for the tool tests (t-tools, t-netem):
#   rxc: the client is $DEV on veth0 (10.77.0.1) in the initial namespace,
#        the server is rxc1 on veth1 (10.77.0.2) moved into namespace
#        "peer", so every packet really crosses the veth pair;
#   rxe: rdma_rxe 6.1 knows no namespaces: both ends are $DEV (loopback).
# peer_up sets SRV_DEV SRV_IP SRV_GID CLI_DEV CLI_GID and the array SRV
# (the command prefix that runs a server); peer_down undoes it.  Both are
# tests themselves, so failures show up in results.tap.
PEER_NS=peer
PEER_IP=10.77.0.2
peer_up() {
	CLI_DEV=$DEV CLI_GID=${GID_INDEX:-1}
	# The guest boots with lo down, and TCP to a local address (how the
	# tools exchange QP numbers in loopback) goes through lo.
	run "lo up" 30 /usr/sbin/ip link set lo up
	if [ "$DEV_TYPE" = rxe ]; then
		SRV_DEV=$DEV SRV_IP=$IPADDR SRV_GID=$CLI_GID SRV=()
		return 0
	fi
	SRV_DEV=${DEV_TYPE}1 SRV_IP=$PEER_IP
	far_end_up peer "$PEER_NS" veth1 "$SRV_IP" "$SRV_DEV"
}

# far_end_up LABEL NS IFACE IP DEV: the far end of a veth pair whose near
# end stays here: IFACE moved into a new namespace NS with IP/24, up,
# with lo, and a DEV_TYPE device DEV on it; each step a test named
# "LABEL: ...".  Sets SRV (the command prefix that runs in NS) and
# SRV_GID (DEV's GID index for IP).
far_end_up() {
	local label=$1 ns=$2 ifc=$3 ip=$4 dev=$5

	SRV=(/usr/sbin/ip netns exec "$ns")
	run "$label: namespace $ns" 30 /usr/sbin/ip netns add "$ns"
	run "$label: $ifc into $ns" 30 /usr/sbin/ip link set "$ifc" netns "$ns"
	run "$label: address on $ifc" 30 \
		/usr/sbin/ip -n "$ns" addr add "$ip/24" dev "$ifc"
	run "$label: $ifc up" 30 /usr/sbin/ip -n "$ns" link set "$ifc" up
	run "$label: lo up" 30 /usr/sbin/ip -n "$ns" link set lo up
	run "$label: rdma link add $dev" 60 "${SRV[@]}" \
		rdma link add "$dev" type "$DEV_TYPE" netdev "$ifc"
	check "$label: $dev port active" wait_for 20 sh -c \
		"grep -q ACTIVE /sys/class/infiniband/$dev/ports/1/state"
	check "$label: $dev has a GID for $ip" wait_for 20 \
		gid_index_of "$dev" "$ip"
	SRV_GID=$(gid_index_of "$dev" "$ip" || echo 1)
}

# peer_mtu BYTES: the MTU of both ends of the veth pair (after peer_up).
peer_mtu() {
	/usr/sbin/ip link set veth0 mtu "$1" &&
		/usr/sbin/ip -n "$PEER_NS" link set veth1 mtu "$1"
}

# netem_link on FWD BACK | off: netem on both ends of a veth pair, by
# default the one peer_up made: FWD (netem arguments, one word list) on
# the near end for what this side sends, BACK on the far end for what
# the other side sends; off shows each qdisc's drop and duplicate counts
# and removes it.  NETEM_DEVS ("NEAR FAR", default "veth0 veth1") names
# another pair, and NETEM_FAR the array holding the command prefix that
# runs in the far end's namespace (default SRV).  netem_link_cleanup
# removes both quietly (an EXIT trap).
#
# A 1 ms delay each way (netem_link on "delay 1ms" "delay 1ms") moves
# the receiver out of the sender's run: over a plain veth pair the
# sender's own run receives what it sends (its softirq runs when the
# run's transmit enables bottom halves); with the delay each packet is
# handed over from the qdisc's timer instead, as a NIC's interrupt would,
# and reaches the receive softirq outside any run, as between hosts.
TC=/usr/sbin/tc
netem_link() {
	local near far_dev
	local -n far=${NETEM_FAR:-SRV}

	read -r near far_dev <<<"${NETEM_DEVS:-veth0 veth1}"
	if [ "$1" = on ]; then
		# Debian's kernel has netem as a module; the debug kernel has
		# it built in.
		modprobe sch_netem 2>/dev/null || true
		# FWD and BACK are word lists, split on purpose.
		# shellcheck disable=SC2086
		run "netem on $near: $2" 30 $TC qdisc add dev "$near" root netem $2
		# shellcheck disable=SC2086
		run "netem on $far_dev: $3" 30 \
			"${far[@]}" $TC qdisc add dev "$far_dev" root netem $3
	else
		$TC -s qdisc show dev "$near"
		"${far[@]}" $TC -s qdisc show dev "$far_dev"
		run "netem off $near" 30 $TC qdisc del dev "$near" root
		run "netem off $far_dev" 30 \
			"${far[@]}" $TC qdisc del dev "$far_dev" root
	fi
}
netem_link_cleanup() {
	local near far_dev
	local -n far=${NETEM_FAR:-SRV}

	read -r near far_dev <<<"${NETEM_DEVS:-veth0 veth1}"
	$TC qdisc del dev "$near" root 2>/dev/null || true
	"${far[@]}" $TC qdisc del dev "$far_dev" root 2>/dev/null || true
}

# peer_cleanup: undo what peer_up left behind after an aborted group,
# quietly (an EXIT trap; peer_down is the tested way).
peer_cleanup() {
	[ -e "/run/netns/$PEER_NS" ] || return 0
	echo "peer_cleanup: removing $PEER_NS left behind"
	/usr/sbin/ip netns exec "$PEER_NS" rdma link delete "${DEV_TYPE}1" 2>/dev/null
	/usr/sbin/ip -n "$PEER_NS" link set veth1 netns 1 2>/dev/null
	/usr/sbin/ip netns delete "$PEER_NS" 2>/dev/null
	/usr/sbin/ip link set veth1 up 2>/dev/null
	return 0
}

peer_down() {
	[ "$DEV_TYPE" = rxe ] && return 0
	run "peer: rdma link delete $SRV_DEV" 60 "${SRV[@]}" \
		rdma link delete "$SRV_DEV"
	# Deleting the namespace would destroy the veth pair (veth0 too):
	# bring veth1 home first.
	run "peer: veth1 back" 30 /usr/sbin/ip -n "$PEER_NS" link set veth1 netns 1
	run "peer: delete namespace $PEER_NS" 60 /usr/sbin/ip netns delete "$PEER_NS"
	run "peer: veth1 up again" 30 /usr/sbin/ip link set veth1 up
}

# pair NAME CHECK [ARG...] -- SERVER-CMD... -- CLIENT-CMD...
#
# drop_first_copy DEV OPCODE PSN [PREFIX...]: on DEV's egress (run
# behind PREFIX, e.g. a netns exec), drop the first IPv4 RoCEv2 packet
# with that BTH opcode and PSN and let its resent copy pass: tc gact's
# "determ pass 2" passes every second match and drops the others.
# Fails where tc lacks clsact, u32 or gact.
drop_first_copy() {
	local dev=$1 op=$2 psn=$3
	shift 3
	"$@" /usr/sbin/tc qdisc add dev "$dev" clsact &&
		"$@" /usr/sbin/tc filter add dev "$dev" egress protocol ip u32 \
			match ip dport 4791 0xffff match u8 "$op" 0xff at 28 \
			match u32 "$psn" 0x00ffffff at 36 \
			action gact drop random determ pass 2
}

# hold_packet DEV OPCODE PSN DELAY [PREFIX...]: on DEV's egress (run
# behind PREFIX), hold the IPv4 RoCEv2 packets with that BTH opcode and
# PSN back by DELAY (netem in the third band of a prio qdisc, which a u32
# filter sends them to); every other packet passes at once.  Fails where
# tc lacks prio, netem or u32.  held_packets DEV [PREFIX...] counts them.
hold_packet() {
	local dev=$1 op=$2 psn=$3 delay=$4
	shift 4
	modprobe -a sch_prio sch_netem cls_u32 2>/dev/null || true
	"$@" $TC qdisc add dev "$dev" root handle 1: prio &&
		"$@" $TC qdisc add dev "$dev" parent 1:3 handle 30: \
			netem delay "$delay" &&
		"$@" $TC filter add dev "$dev" parent 1: protocol ip u32 \
			match ip dport 4791 0xffff match u8 "$op" 0xff at 28 \
			match u32 "$psn" 0x00ffffff at 36 flowid 1:3
}
held_packets() {
	local dev=$1
	shift
	"$@" $TC -s qdisc show dev "$dev" |
		awk '/^qdisc netem 30:/ { f = 1 } f && /Sent/ { print $4; exit }'
}

# dropped_copies DEV [PREFIX...]: packets drop_first_copy dropped on DEV
dropped_copies() {
	local dev=$1
	shift
	"$@" /usr/sbin/tc -s filter show dev "$dev" egress |
		sed -n 's/.*(dropped \([0-9]*\),.*/\1/p'
}

# qp_dump_after SECS FILE: after SECS, the transport state of every QP on
# both ends (rdma res show qp -dd: rxc prints its requester's and
# responder's positions and waits) into FILE, once where both ends share
# this namespace.  A pair that hangs is killed, and its QPs with it, so
# pair() takes this picture first.
qp_dump_after() {
	sleep "$1"
	{
		rdma -dd res show qp
		# The server's end, where it is in a namespace of its own.
		[ "${#SRV[@]}" -eq 0 ] || "${SRV[@]}" rdma -dd res show qp
	} >"$2" 2>&1
}

# One test (after peer_up): starts the server (inside the peer namespace
# for rxc), waits until it listens on TCP port $PORT (with WAIT=cm:
# until "rdma resource" shows an rdma_cm listener on it), runs the
# client, and passes if both exit 0 within $PAIR_SECS (default 60, times
# $SLOW) and "CHECK ARG... SERVER-LOG CLIENT-LOG" succeeds; the check
# prints why when it fails.  Logs go to $PAIR_LOGS (stdout and stderr
# apart: rping's stderr would land inside its buffered stdout lines);
# $PORT moves on by one.
PAIR_SEQ=0
pair() {
	local name=$1 chk=$2 t=$((${PAIR_SECS:-60} * SLOW)) so co spid src=0 crc=0
	local args=() srv=() cli=() why='' seq dpid
	shift 2
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	shift
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	PAIR_SEQ=$((PAIR_SEQ + 1))
	seq=$PAIR_SEQ
	so=$PAIR_LOGS/$seq-srv.log co=$PAIR_LOGS/$seq-cli.log
	echo "+ [$seq server] ${srv[*]}"
	timeout -k 5 "$t" "${SRV[@]}" "${srv[@]}" >"$so" 2>"$so.err" &
	spid=$!
	if [ "${WAIT:-tcp}" = cm ]; then
		wait_for 10 sh -c "${SRV[*]} rdma resource show cm_id | grep -q 'LISTEN.*:$PORT'" ||
			{ echo "# no rdma_cm listener on $PORT seen, trying anyway"; sleep $((2 * SLOW)); }
	else
		wait_for 20 sh -c "${SRV[*]} ss -Hltn 'sport = :$PORT' | grep -q ." ||
			echo "# server is not listening on $PORT yet"
	fi
	echo "+ [$seq client] ${cli[*]}"
	qp_dump_after $((t - 2)) "$co.qp" &
	dpid=$!
	timeout -k 5 "$t" "${cli[@]}" >"$co" 2>"$co.err" || crc=$?
	kill "$dpid" 2>/dev/null || true
	# A failed client can leave the server waiting for it forever.
	[ "$crc" -eq 0 ] || kill "$spid" 2>/dev/null || true
	wait "$spid" || src=$?
	if [ "$crc" -eq 124 ]; then
		why="client timed out after ${t}s"
	elif [ "$crc" -ne 0 ]; then
		why="client exit status $crc"
	elif [ "$src" -eq 124 ]; then
		why="server timed out after ${t}s"
	elif [ "$src" -ne 0 ]; then
		why="server exit status $src"
	elif ! why=$("$chk" "${args[@]}" "$so" "$co"); then
		# A check must say why; one that cannot run says nothing.
		why=${why:-"$chk failed without saying why"}
	else
		why=''
	fi
	if [ -z "$why" ]; then
		tail -n 2 "$co"
		pass "$name"
	else
		echo "--- server output ($so, .err)"
		tail -n 20 "$so" "$so.err"
		echo "--- client output ($co, .err)"
		tail -n 20 "$co" "$co.err"
		if [ -s "$co.qp" ]; then
			echo "--- the QPs just before the timeout ($co.qp)"
			cat "$co.qp"
		fi
		fail "$name" "$why"
	fi
	PORT=$((PORT + 1))
}

# The pingpongs print "N iters in S seconds" on both ends; with -c they
# print "invalid data" for a page whose check byte differs (they check
# one byte per page: rc_xfer, chk_xfer, checks every byte).
chk_pingpong() {	# ITERS SRV-LOG CLI-LOG
	local f
	for f in "$2" "$3"; do
		grep -q "^$1 iters in" "$f" || { echo "no '$1 iters' line in $f"; return 1; }
		! grep -qi 'invalid data' "$f" || { echo "invalid data in $f"; return 1; }
	done
}

# ucx_perftest (ucx-utils) prints its final figures on the client.
chk_ucx() {	# SRV-LOG CLI-LOG
	grep -q 'Final:' "$2" || { echo "no 'Final:' line in $2"; return 1; }
}

# ucx_env DEV GID: UCX's settings for one end: its verbs transports, UD
# for wire-up, on DEV's port 1 with GID index GID.
ucx_env() {
	echo env UCX_TLS=rc_verbs,ud_verbs UCX_IB_GID_INDEX="$2" \
		UCX_NET_DEVICES="$1:1" UCX_WARN_UNUSED_ENV_VARS=n
}
UCX_TESTS="tag_lat tag_bw ucp_put_lat ucp_put_bw ucp_get ucp_am_bw"

# perftest prints one result row "SIZE ITERS ..." under its header.
chk_perftest() {	# SIZE ITERS SRV-LOG CLI-LOG
	grep -Eq "^ *$1 +$2 " "$4" || { echo "no result row for $1 bytes x $2"; return 1; }
}

# rc_xfer (tests/verbs/tools) says so when every message arrived intact.
chk_xfer() {	# SRV-LOG CLI-LOG
	if ! grep -q 'all data verified' "$1" || ! grep -q 'all data verified' "$2"; then
		echo "rc_xfer did not verify all data"
		return 1
	fi
}

# rping -v prints "ping data: " and the buffer it read back: rebuilt here
# the way rping builds it ("rdma-ping-N: " then letters from 'A'+N,
# cycling through 'A'..'z'), each line checked, none missing.
chk_rping() {	# COUNT SIZE SRV-LOG CLI-LOG
	/usr/bin/python3 - "$1" "$2" "$4" <<'EOF'
import sys
count, size, log = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
got = [ln[len('ping data: '):].rstrip('\n') for ln in open(log)
       if ln.startswith('ping data: ')]
want = []
for n in range(count):
    s = 'rdma-ping-%d: ' % n
    c = 65 + n % 58
    while len(s) < size - 1:
        s += chr(c)
        c = 65 if c == 122 else c + 1
    want.append(s[:size - 1])
if got != want:
    bad = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), None)
    print(f'{len(got)} ping lines, expected {count}; first bad line: {bad}')
    sys.exit(1)
EOF
}

# held_unsignaled_writes EXDIR DEV GID N OUT: run the unsignaled_writes
# example for N writes with -H; while it holds its QP and counter, copy
# DEV's debugfs counter listing to OUT; then let it finish.  Prints the
# example's output; returns non-zero when it failed or never held.
held_unsignaled_writes() {
	local ex=$1 dev=$2 gid=$3 n=$4 out=$5 fifo log pid fd rc=0
	fifo=$(mktemp -u) log=$(mktemp)
	mkfifo "$fifo"
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	timeout -k 5 120 "$ex/unsignaled_writes" -d "$dev" -g "$gid" -n "$n" -H \
		<"$fifo" >"$log" 2>&1 &
	pid=$!
	exec {fd}>"$fifo"	# the example's stdin: open until we close it
	if wait_for 60 grep -q '^unsignaled_writes: holding' "$log"; then
		cat "/sys/kernel/debug/rdma_rxc/$dev/comp_cntrs" >"$out" || rc=1
	else
		rc=1
	fi
	exec {fd}>&-
	wait "$pid" || rc=$?
	cat "$log"
	rm -f "$fifo" "$log"
	return "$rc"
}

# --- storm_traffic processes (tests/verbs/tools/storm_traffic.c) -----
# Checked RDMA traffic with completion counters attached, several
# processes at a time.  A group that runs them sets STORM_LOGS, the
# directory for each process's log and ready file.
STORM=${RXC_REPO:-/nonexistent}/build/tests/tools/storm_traffic
DBG_DIR=/sys/kernel/debug/rdma_rxc

counters_listed() {	# counters_listed DEV: how many counters debugfs lists
	grep -vc '^handle' "$DBG_DIR/$1/comp_cntrs" || true
}
qps_of() {	# qps_of DEV: how many QPs rdma resource lists on DEV
	rdma resource show qp link "$1/1" 2>/dev/null | grep -c 'lqpn' || true
}
counters_are() { [ "$(counters_listed "$1")" -eq "$2" ]; }	# DEV N
qps_are() { [ "$(qps_of "$1")" -eq "$2" ]; }			# DEV N
pid_gone() { ! kill -0 "$1" 2>/dev/null; }
ready_or_dead() { [ -e "$1" ] || pid_gone "$2"; }

# storm_start DEV N TAG [ARG...]: N storm_traffic processes on DEV (with
# ARGs, by default a 300 s bound), each one's ready file and log under
# $STORM_LOGS/TAG.*; their PIDs in $pids.  False if one does not get
# through its first checked round.
pids=()
storm_start() {
	local dev=$1 n=$2 tag=$3 i
	shift 3
	[ $# -gt 0 ] || set -- -T $((300 * SLOW))
	pids=()
	for ((i = 0; i < n; i++)); do
		rm -f "$STORM_LOGS/$tag.$i.ready"
		"$STORM" -d "$dev" "$@" "$STORM_LOGS/$tag.$i.ready" \
			>"$STORM_LOGS/$tag.$i.log" 2>&1 &
		pids+=($!)
	done
	for ((i = 0; i < n; i++)); do
		wait_for 60 ready_or_dead "$STORM_LOGS/$tag.$i.ready" "${pids[$i]}"
		if [ ! -e "$STORM_LOGS/$tag.$i.ready" ]; then
			echo "storm: $tag.$i did not get ready:"
			cat "$STORM_LOGS/$tag.$i.log"
			return 1
		fi
	done
}

# storm_end TAG [SECS]: wait (SECS, default 120, bounded) for every
# process; true if all exited 0.
storm_end() {
	local tag=$1 secs=${2:-120} i rc ok=0
	for i in "${!pids[@]}"; do
		wait_for "$secs" pid_gone "${pids[$i]}" ||
			kill -9 "${pids[$i]}" 2>/dev/null || true
		rc=0
		wait "${pids[$i]}" 2>/dev/null || rc=$?
		if [ "$rc" -ne 0 ]; then
			echo "storm: $tag.$i exited $rc:"
			cat "$STORM_LOGS/$tag.$i.log"
			ok=1
		fi
	done
	return $ok
}

# storm_kill: SIGKILL every process of the storm and reap them.
storm_kill() {
	local p
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
