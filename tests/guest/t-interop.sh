#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# rxc and rdma_rxe on one wire.  rdma_rxe, which in 6.1 binds UDP/4791 in
# the initial namespace only, sits on veth6 there; rxc sits on veth7 in
# namespace "far".  The stock tools run in both directions (rxe client to
# rxc server and rxc client to rxe server) over IPv4, IPv6 global and
# IPv6 link-local GIDs, each checking its data where it can, plus rc_xfer
# for every RC operation with every byte checked, and UCX's perftest over
# the link-local GIDs.  Then the RC part runs again with 5% loss on the
# link both ways.
#
# The loss-free passes of the full matrix are captured on veth6 into
# $RESULTS/interop.pcap; once the guest is done, the host checks that
# every packet of both drivers carries a correct ICRC (recomputed
# independently by roce_pcap_check.py) and that Wireshark's InfiniBand
# dissector parses every frame, with no malformed packet and no warning
# (tests/host/t-capture.sh, run by vm/check.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=interop
IP=/usr/sbin/ip
A=veth6 B=veth7 A4=10.79.0.1 B4=10.79.0.2 A6=fd79::1 B6=fd79::2
RXE=rxe9 RXC=${DEV_TYPE}5
FAR=("$IP" netns exec far)
xfer=${RXC_REPO:-/nonexistent}/build/tests/tools/rc_xfer
PAIR_LOGS=$RESULTS/interop
CAPTURE=$RESULTS/interop.pcap
PORT=19000
# What runs.  The stock kernel: every tool in both directions over IPv4,
# IPv6 and link-local IPv6, and the RC tools under loss over both
# families.  Under KASAN and lockdep each tool takes some 15 s just to
# start, and the packets are the same as on the stock kernel, so where the
# matrix runs in part (lib.sh part_of_matrix: the debug kernel, and 6.12
# in the fast tier) it runs what covers each kernel path once: fewer
# iterations on the debug kernel;
# over IPv4 the pingpongs, rping and every rc_xfer operation (perftest
# drives the same operations, with no data check); over IPv6 the
# pingpongs (UD places an IPv6 GRH) and rping (rdma_cm resolves an IPv6
# route); under loss (IPv4) rc_xfer sends and reads.  The transport above
# the address family is the same code for both, so the IPv6 transfers
# run in the full matrix only, as does UCX (its verbs are those of the
# tools above).
if part_of_matrix; then
	N=$((SLOW > 1 ? 5 : 20)) RC_SIZES=4096 CAPTURE_RUN=false
	V4_STEPS=(pingpongs rping_pair xfers) LL_STEPS=()
	V6_STEPS=(pingpongs rping_pair) V6_XFERS=""
	LOSS_FAMILIES=ipv4 LOSS_STEPS=(xfers) LOSS_XFERS="send read"
else
	N=20 RC_SIZES="64 4096 65536" CAPTURE_RUN=true
	V4_STEPS=(pingpongs perftests rping_pair xfers) LL_STEPS=(pingpongs ucx)
	V6_STEPS=(pingpongs perftests rping_pair xfers) V6_XFERS="send write read atomic"
	LOSS_FAMILIES="ipv4 ipv6" LOSS_STEPS=(perftests xfers) LOSS_XFERS=$V6_XFERS
fi
# The fast tier runs the loss passes over IPv4 alone: below the address
# family, recovery takes the same paths.
[ "$RXC_TIER" = full ] || LOSS_FAMILIES=ipv4

if [ "$DEV_TYPE" != rxc ]; then
	skip "rdma_rxe and rxc on one wire" "only meaningful with rxc"
	exit 0
fi
mkdir -p "$PAIR_LOGS"

counter() { hw_counter "$RXC" "$1"; }
link_local() {	# link_local [NETNS-PREFIX...] DEV: its fe80:: address
	"${@:1:$#-1}" $IP -6 -o addr show dev "${!#}" scope link |
		awk '{ sub("/.*", "", $4); print $4; exit }'
}

cleanup() {
	[ -z "${cap_pid:-}" ] || kill "$cap_pid" 2>/dev/null || true
	$IP netns delete far 2>/dev/null || true
	rdma link delete "$RXE" 2>/dev/null || true
	modprobe -r rdma_rxe 2>/dev/null || true
	return 0
}

# roce_port_bound: something holds UDP/4791 in this namespace.
roce_port_bound() {
	awk '$2 ~ /:12B7$/ { found = 1 } END { exit !found }' /proc/net/udp /proc/net/udp6
}

# rdma_rxe up to 6.12 binds UDP/4791 in the initial namespace when it
# loads, and then rxc must refuse the port; later ones bind it with their
# first device in a namespace, as rxc does.  Free the port first.
run "rdma link delete $DEV" 30 rdma link delete "$DEV"
modprobe crc32_generic 2>/dev/null || modprobe crc32-pclmul 2>/dev/null || true
run "modprobe rdma_rxe" 60 modprobe rdma_rxe
trap cleanup EXIT
if roce_port_bound; then
	out=$(rdma link add "$DEV" type rxc netdev "$NETDEV" 2>&1) && rc=0 || rc=$?
	check "rxc cannot take rdma_rxe's port: EADDRINUSE" \
		sh -c "[ $rc -ne 0 ] && echo '$out' | grep -q 'Address already in use'"
else
	skip "rxc cannot take rdma_rxe's port: EADDRINUSE" \
		"this rdma_rxe binds UDP/4791 only with a device"
fi

ucm_was_loaded=false
mod_loaded rdma_ucm && ucm_was_loaded=true
run "modprobe rdma_ucm" 60 modprobe rdma_ucm
run "create namespace far" 30 $IP netns add far
run "create $A/$B" 30 $IP link add "$A" type veth peer name "$B" netns far
run "addresses on $A" 30 sh -c "$IP addr add $A4/24 dev $A &&
	$IP addr add $A6/64 dev $A nodad"
run "addresses on $B" 30 sh -c "${FAR[*]} $IP addr add $B4/24 dev $B &&
	${FAR[*]} $IP addr add $B6/64 dev $B nodad"
run "links up" 30 sh -c "$IP link set $A up && ${FAR[*]} $IP link set $B up &&
	${FAR[*]} $IP link set lo up && $IP link set lo up"
run "$RXE on $A" 30 rdma link add "$RXE" type rxe netdev "$A"
run "$RXC on $B inside far" 30 "${FAR[@]}" rdma link add "$RXC" type rxc netdev "$B"
# Link-local addresses come once DAD is done; GIDs follow addresses.
check "link-local addresses" wait_for 20 sh -c \
	"$IP -6 addr show dev $A scope link -tentative | grep -q inet6 &&
	 ${FAR[*]} $IP -6 addr show dev $B scope link -tentative | grep -q inet6"
A_LL=$(link_local "$A") B_LL=$(link_local "${FAR[@]}" "$B")
declare -A GID
for dev in $RXE $RXC; do
	check "$dev port active" wait_for 20 sh -c \
		"grep -q ACTIVE /sys/class/infiniband/$dev/ports/1/state"
done
for dev_addr in "$RXE $A4" "$RXE $A6" "$RXE $A_LL" "$RXC $B4" "$RXC $B6" "$RXC $B_LL"; do
	read -r dev addr <<<"$dev_addr"
	check "$dev has a RoCE v2 GID for $addr" wait_for 20 gid_index_of "$dev" "$addr"
	GID[$dev_addr]=$(gid_index_of "$dev" "$addr" || echo 1)
done

# direction FROM FAMILY: the client runs on FROM's device (rxe or rxc),
# the server on the other driver's; pair() runs servers behind $SRV,
# clients are run behind $CLI.
direction() {
	local fam=$2 to
	case $1 in
	rxe)
		to=rxc
		CLI_DEV=$RXE SRV_DEV=$RXC SRV_IP=$B4
		CLI=()
		SRV=("${FAR[@]}")
		;;
	rxc)
		to=rxe
		CLI_DEV=$RXC SRV_DEV=$RXE SRV_IP=$A4
		CLI=("${FAR[@]}")
		SRV=()
		;;
	esac
	local cli_a srv_a
	case $fam in
	ipv4) cli_a=$A4 srv_a=$B4 ;;
	ipv6) cli_a=$A6 srv_a=$B6 ;;
	link-local) cli_a=$A_LL srv_a=$B_LL ;;
	esac
	# Addresses above are rxe's then rxc's: swap for an rxc client.
	if [ "$1" = rxc ]; then local t=$cli_a; cli_a=$srv_a srv_a=$t; fi
	CLI_GID=${GID[$CLI_DEV $cli_a]} SRV_GID=${GID[$SRV_DEV $srv_a]}
	# rdma_cm connects to the family's own address (TCP stays on IPv4).
	CM_IP=$srv_a
	LABEL="$1 client -> $to server, $fam${LABEL_SUFFIX:-}"
}

pingpongs() {	# the pingpongs, -c checking the data they receive
	local size
	for size in $RC_SIZES; do
		pair "$LABEL: ibv_rc_pingpong -s $size -c" chk_pingpong $N -- \
			ibv_rc_pingpong -d "$SRV_DEV" -g "$SRV_GID" -p "$PORT" -s "$size" -n $N -c -- \
			"${CLI[@]}" ibv_rc_pingpong -d "$CLI_DEV" -g "$CLI_GID" -p "$PORT" -s "$size" -n $N -c "$SRV_IP"
	done
	# UD messages must fit the 1024-byte path MTU.
	pair "$LABEL: ibv_ud_pingpong -s 1024 -c" chk_pingpong $N -- \
		ibv_ud_pingpong -d "$SRV_DEV" -g "$SRV_GID" -p "$PORT" -s 1024 -n $N -c -- \
		"${CLI[@]}" ibv_ud_pingpong -d "$CLI_DEV" -g "$CLI_GID" -p "$PORT" -s 1024 -n $N -c "$SRV_IP"
}

perftests() {	# perftest's bandwidth tests: pass or fail, no data check
	local t sz
	for t in ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw; do
		sz=(-s 16384)
		[ $t = ib_atomic_bw ] && sz=()
		pair "$LABEL: $t ${sz[*]}${sz:+ }-n $N" chk_perftest "${sz[1]:-8}" $N -- \
			$t -d "$SRV_DEV" -x "$SRV_GID" -p "$PORT" "${sz[@]}" -n $N -F --report_gbits -- \
			"${CLI[@]}" $t -d "$CLI_DEV" -x "$CLI_GID" -p "$PORT" "${sz[@]}" -n $N -F --report_gbits "$SRV_IP"
	done
}

rping_pair() {	# rping over rdma_cm, every line read back checked
	WAIT=cm pair "$LABEL: rping -C $N -v -V" chk_rping $N 100 -- \
		rping -s -a "$CM_IP" -p "$PORT" -C $N -v -S 100 -- \
		"${CLI[@]}" rping -c -a "$CM_IP" -p "$PORT" -C $N -v -V -S 100
}

# UCX (ucx-utils 1.13) over its verbs transports, each test checked for
# its final report.  Its UD transport fails on IPv4 GIDs with either
# driver, so UCX runs in the link-local pass only.
ucx() {
	local t
	if ! command -v ucx_perftest >/dev/null; then
		skip "$LABEL: ucx_perftest" "not installed (ucx-utils)"
		return 0
	fi
	# shellcheck disable=SC2046  # ucx_env prints words to split
	for t in $UCX_TESTS; do
		pair "$LABEL: ucx_perftest -t $t" chk_ucx -- \
			$(ucx_env "$SRV_DEV" "$SRV_GID") ucx_perftest -p "$PORT" -- \
			"${CLI[@]}" $(ucx_env "$CLI_DEV" "$CLI_GID") \
			ucx_perftest -p "$PORT" -t "$t" -n 200 "$SRV_IP"
	done
}

xfers() {	# rc_xfer: every byte of every RC operation ($XFERS) checked
	local op what
	for op in ${XFERS:-send write read atomic}; do
		what="every byte checked"
		[ "$op" = atomic ] && what="every returned value checked"
		pair "$LABEL: rc_xfer -o $op, $what" chk_xfer -- \
			"$xfer" -d "$SRV_DEV" -g "$SRV_GID" -p "$PORT" -o "$op" -s 5001 -n $((5 * N)) -w 8 -T $((250 * SLOW)) -- \
			"${CLI[@]}" "$xfer" -d "$CLI_DEV" -g "$CLI_GID" -p "$PORT" -o "$op" -s 5001 -n $((5 * N)) -w 8 -T $((250 * SLOW)) "$SRV_IP"
	done
}

matrix() {	# FAMILY STEP...: the steps, in both directions
	local fam=$1 from step
	shift
	for from in rxe rxc; do
		direction $from "$fam"
		for step in "$@"; do $step; done
	done
}

skip_if_no_traffic "interop matrix" && exit 0
if [ ! -x "$xfer" ]; then
	fail "interop matrix" "rc_xfer not built: $xfer"
	exit 0
fi

capture_start() {	# dumpcap on veth6, into $CAPTURE
	dumpcap -q -P -i "$A" -f "udp port 4791" -w "$CAPTURE" >"$PAIR_LOGS/dumpcap.log" 2>&1 &
	cap_pid=$!
	check "capture started" wait_for 10 test -s "$CAPTURE"
}

capture_stop() {	# and name the addresses for tests/host/t-capture.sh
	sleep 1
	kill -INT "$cap_pid"
	wait "$cap_pid" || true
	cap_pid=
	echo "$A4 $B4 $A6 $B6" >"$CAPTURE.addrs"
}

# The loss-free passes, captured in the full matrix: the packets are the
# same where the matrix runs in part.
$CAPTURE_RUN && capture_start
matrix ipv4 "${V4_STEPS[@]}"
XFERS=$V6_XFERS matrix ipv6 "${V6_STEPS[@]}"
[ ${#LL_STEPS[@]} -eq 0 ] || matrix link-local "${LL_STEPS[@]}"
$CAPTURE_RUN && capture_stop

check "no ICRC errors counted by $RXC" test "$(counter rcv_icrc_errors)" = 0
check "no malformed packets counted by $RXC" test "$(counter rcv_malformed)" = 0

# The RC tools again, over a link losing 5% of its packets both ways.
# ibv_rc_pingpong and rping end as soon as they have their last message,
# so when the ACK for the peer's last one is lost that peer retransmits
# to a QP that is gone; UD does not recover losses at all.  rc_xfer and
# perftest keep their QPs until both sides are done.
NETEM_DEVS="$A $B" NETEM_FAR=FAR netem_link on "loss 5%" "loss 5%"
before=$(counter retransmits)
for fam in $LOSS_FAMILIES; do
	PAIR_SECS=300 LABEL_SUFFIX=", 5% loss" XFERS=$LOSS_XFERS matrix "$fam" "${LOSS_STEPS[@]}"
done
check "$RXC retransmitted under loss" test "$(counter retransmits)" -gt "$before"
NETEM_DEVS="$A $B" NETEM_FAR=FAR netem_link off

# A lost packet in the middle of a long RDMA WRITE to rdma_rxe, which
# acknowledges only the packets that ask for it.  rc_xfer writes four
# 512 KiB messages at MTU 1024 from PSN 0x1000; packets 0x1020, 0x1040...
# ask for an ACK.  PSN 0x1021, the first after an ACK, is lost the first
# time, and so is rdma_rxe's sequence NAK for it: rxc fills its window of
# 128 PSNs (to 0x10a0, the last to ask) and waits.  rdma_rxe NAKs a gap
# once and drops what follows silently, so a tail-loss probe must resend
# PSN 0x1021, which rdma_rxe takes, beside 0x10a0, which then draws a new
# NAK; a probe of the last packet alone went unanswered six times, until
# the retransmit timer (exponent 20: 4.3 s) fired.  The window resent
# after that NAK must ask for an ACK itself, or it waits for another
# probe (before the probes, for a second timeout); a probe that fires
# while rdma_rxe is merely slow is no error, so that costs no check.
long_write_loss() {
	local name="a packet and its NAK lost in a long RDMA WRITE" d1 d2
	local -A d
	direction rxc ipv4
	if ! drop_first_copy "$B" 0x07 0x1021 "${FAR[@]}" ||
	   ! drop_first_copy "$A" 0x11 0x1021; then
		skip "$LABEL: $name" "no tc clsact, u32 or gact here"
		return 0
	fi
	counters_snap d "$RXC" retransmit_timeouts retransmit_probes
	pair "$LABEL: rc_xfer -o write -s 524288, $name" chk_xfer -- \
		"$xfer" -d "$SRV_DEV" -g "$SRV_GID" -p "$PORT" -o write -s 524288 -n 4 -w 1 -t 20 -T $((50 * SLOW)) -- \
		"${CLI[@]}" "$xfer" -d "$CLI_DEV" -g "$CLI_GID" -p "$PORT" -o write -s 524288 -n 4 -w 1 -t 20 -T $((50 * SLOW)) "$SRV_IP"
	d1=$(dropped_copies "$B" "${FAR[@]}") d2=$(dropped_copies "$A")
	counters_delta d
	echo "filters dropped ${d1:-?} and ${d2:-?}"
	counters_show d
	check "tc dropped PSN 0x1021 of the first write and its NAK" \
		test "${d1:-0}" -ge 1 -a "${d2:-0}" -ge 1
	check "$RXC found the lost NAK by a probe, without a retransmit timeout" \
		test "${d[$RXC/retransmit_timeouts]}" -eq 0 \
		-a "${d[$RXC/retransmit_probes]}" -ge 1
	run "remove the drop filters" 30 sh -c \
		"${FAR[*]} $TC qdisc del dev $B clsact && $TC qdisc del dev $A clsact"
}
long_write_loss

trap - EXIT
# rdma_rxe first: deleting the namespace destroys veth7 and with it
# veth6, which takes rxe9 away too.
run "rdma link delete $RXE" 30 rdma link delete "$RXE"
run "delete namespace far" 60 $IP netns delete far
run "rmmod rdma_rxe" 60 rmmod rdma_rxe
$ucm_was_loaded || run "rmmod rdma_ucm" 30 modprobe -r rdma_ucm
run "re-create $DEV" 60 rdma link add "$DEV" type rxc netdev "$NETDEV"
check "$DEV port active" wait_for 20 port_active
