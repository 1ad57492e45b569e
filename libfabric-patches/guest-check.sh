#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# fi_cntr on device counters through libfabric's verbs provider, in a
# guest: a guest script for vm/run-vm.sh.  Runs tests/libfabric's lf_cntr
# and fabtests' counter tests with libfabric 2.1.0 and this series (built
# by build.sh) on rdma-core 65 from the sid root.
#
#   rdma-core-patches/build-debs.sh install
#   lf=$(libfabric-patches/build.sh)
#   vm/sid-root.sh run -b "$PWD" -b "$lf" make -C "$PWD/tests/libfabric" LIBFABRIC="$lf"
#   vm/run-vm.sh --kernel stock-7.3 --guest-script libfabric-patches/guest-check.sh \
#       --results DIR --modules "$(vm/build-modules.sh stock-7.3)" --env RXC_LIBFABRIC="$lf"
#
# Two ends, each a process chrooted in the sid root:
#   rxc-rxc: the client on rxc0 (veth0, 10.77.0.1) in the initial
#            namespace, the server on rxc1 (veth1, 10.77.0.2) in namespace
#            "peer" (tests/guest/lib.sh peer_up): lf_cntr's cases, then
#            fabtests with -t counter;
#   rxc-rxe: rxc0 gives way to rdma_rxe's rxe0 on veth0 (rdma_rxe binds
#            UDP 4791 in the initial namespace) and rxc1 stays in "peer":
#            lf_cntr with rxc counting on either end and rxe0 (no
#            counters: fi_cntr_open must answer -FI_ENOSYS) on the other.
#
# Run by both guests of vm/run-pair.sh (RXC_WIRE_ROLE set), it runs
# between two hosts on a virtio link instead (tests/guest/wire.sh): rxc0
# on each guest's NIC, guest a the client of every pair, guest b the
# server; lf_cntr's whole table, then fabtests as below, then lf_cntr
# with rdma_rxe's rxe0 in place of b's rxc0 (a's rxc counts, b's
# answers without counters).
#
#   vm/run-pair.sh --kernel stock-7.3 --guest-script libfabric-patches/guest-check.sh \
#       --results DIR --modules "$(vm/build-modules.sh stock-7.3)" --env RXC_LIBFABRIC="$lf"
#
# RXC_TIER=full (the default) runs all of it.  The fast tier (vm/check.sh's
# smoke) runs lf_cntr's whole table rxc-rxc and rxc-rxe with rxc as the
# client, and two fabtests; --full adds fi_info, the other fabtests, and
# rxc-rxe with rxc as the server.  LF_FABTESTS=0 leaves fabtests out,
# LF_RXE=0 the rxc-rxe part.  Results: DIR/results.tap, each program's
# output in DIR/libfabric/.
#
# LF_BENCH=1 runs tests/libfabric/lf_cntr_bench instead of the tests
# (LF_BENCH_ARGS, default "-z 64 -w 64 -t 5"), its MSG modes then its
# RDM ones: in one guest rxc-rxc, then rdma_rxe at both ends (rxe1
# replacing rxc1 in "peer": a 7.x rdma_rxe binds UDP 4791 per device);
# between two guests rxc-rxc.  The clients' lines: DIR/libfabric/bench.txt.
set -uo pipefail
RXC_REPO=${RXC_REPO:?run by vm/run-vm.sh}
# shellcheck source=SCRIPTDIR/../tests/guest/lib.sh
. "$RXC_REPO/tests/guest/lib.sh"
SUITE=libfabric
IP=/usr/sbin/ip
sid=${RXC_CACHE:-/var/cache/rxc}/sid-root
lf=${RXC_LIBFABRIC:-}
lf_cntr=$RXC_REPO/build/tests/libfabric/lf_cntr
lf_bench=$RXC_REPO/build/tests/libfabric/lf_cntr_bench
bench_args=${LF_BENCH_ARGS:-"-z 64 -w 64 -t 5"}
# lf_cntr_bench's modes, one run per endpoint type: verbs MSG, then
# verbs;ofi_rxm RDM.
bench_modes="cntr,cq rxm-cntr,rxm-cq"
logs=$RESULTS/libfabric
port=19100

if [ -z "$lf" ] || [ ! -x "$lf/bin/fi_info" ] || [ ! -x "$lf_cntr" ] ||
	! grep -qs . "$sid/var/lib/rxc-rdma-core-debs"; then
	fail "suite" "needs the sid root with rdma-core 65, RXC_LIBFABRIC (build.sh) and $lf_cntr"
	exit 0
fi
mkdir -p "$logs"

# The sid root, with the repository and libfabric at their own paths.
mkdir -p "$sid$RXC_REPO" "$sid$lf"
mount -t proc none "$sid/proc"
mount --rbind /sys "$sid/sys"
mount --rbind /dev "$sid/dev"
mount --bind "$RXC_REPO" "$sid$RXC_REPO"
mount --bind "$lf" "$sid$lf"
# in_sid [NS] -- CMD...: CMD in the sid root, in namespace NS if given.
in_sid() {
	local ns=$1
	shift 2
	if [ -n "$ns" ]; then
		$IP netns exec "$ns" chroot "$sid" "$@"
	else
		chroot "$sid" "$@"
	fi
}

# listening PORT: an rdma_cm ID listens on PORT (any namespace: rdma
# resource lists by process, not by network namespace).  Clients start
# once their server listens; under TCG a libfabric server takes seconds.
# shellcheck disable=SC2317 # called through wait_for
listening() {
	rdma resource show cm_id 2>/dev/null |
		grep -Eq "LISTEN.*src-addr [^ ]*:$1( |\$)"
}

# tap_of LOG: lf_cntr's TAP lines into the results.
tap_of() { grep -E '^(not )?ok - ' "$1" >>"$TAP"; grep -E '^(not )?ok - ' "$1"; }

# bench_lines LOG: lf_cntr_bench's result lines, into the log and
# DIR/libfabric/bench.txt.
bench_lines() { grep -E '^(lf_cntr_bench:|# skip)' "$1" | tee -a "$logs/bench.txt"; }

# two_ends NAME SRV_NS CLI_NS SRV_ARGS CLI_ARGS [PROG]: lf_cntr's (or
# PROG's) server and client, each one result for its exit status plus its
# own TAP lines.
two_ends() {
	local name=$1 sns=$2 cns=$3 srv_args=$4 cli_args=$5 prog=${6:-$lf_cntr} spid rc=0
	# shellcheck disable=SC2086 # argument lists
	in_sid "$sns" -- timeout -k 5 300 "$prog" -s -a "$PEER_IP_OF" -p "$port" \
		-T "$name server" $srv_args >"$logs/$name.server" 2>&1 &
	spid=$!
	wait_for 30 listening "$port"
	# shellcheck disable=SC2086
	in_sid "$cns" -- timeout -k 5 300 "$prog" -a "$PEER_IP_OF" -p "$port" \
		-T "$name client" $cli_args >"$logs/$name.client" 2>&1 || rc=$?
	check "$name: ${prog##*/} client exits 0" [ "$rc" = 0 ]
	rc=0
	wait "$spid" || rc=$?
	check "$name: ${prog##*/} server exits 0" [ "$rc" = 0 ]
	tap_of "$logs/$name.server"
	tap_of "$logs/$name.client"
	port=$((port + 1))
}

# fabtest NAME ARG...: one fabtests program, its server in "peer" and its
# client here, over verbs; one result.  One transfer size (-S): with
# every size, each end allocates a gigabyte, and two do not fit a guest.
# Between two guests, wire_fabtest runs it instead.
fabtest() {
	local name=$1 spid rc=0
	[ -z "${RXC_WIRE_ROLE:-}" ] || { wire_fabtest "$@"; return; }
	shift
	in_sid peer -- timeout -k 5 120 "$lf/bin/$name" -p verbs "$@" -B "$port" \
		-s "$PEER_IP" >"$logs/$name.$port.server" 2>&1 &
	spid=$!
	wait_for 30 listening "$port"
	in_sid "" -- timeout -k 5 120 "$lf/bin/$name" -p verbs "$@" -P "$port" \
		"$PEER_IP" >"$logs/$name.$port.client" 2>&1 || rc=$?
	wait "$spid" || rc=$((rc ? rc : $?))
	check "fabtests: $name $* (rxc-rxc)" [ "$rc" = 0 ]
	[ "$rc" = 0 ] || tail -n 5 "$logs/$name.$port.client" "$logs/$name.$port.server"
	port=$((port + 1))
}

# fabtests' MSG tests that take -t counter: sends and receives counted
# on both ends, RMA writes and reads on the initiator; -v checks the
# data.  The smoke runs one of each kind.
run_fabtests() {
	[ "${LF_FABTESTS:-1}" = 1 ] || return 0
	fabtest fi_msg_pingpong -t counter -S 4096 -I 20 -v
	fabtest fi_rma_bw -e msg -o write -t counter -S 4096 -I 20
	[ "$RXC_TIER" = full ] || return 0
	fabtest fi_msg_bw -t counter -S 4096 -I 20 -v
	fabtest fi_rma_bw -e msg -o read -t counter -S 4096 -I 20
	fabtest fi_rma_bw -e msg -o writedata -t counter -S 4096 -I 20
	fabtest fi_msg_pingpong -t queue -S 4096 -I 20
	run "fabtests: fi_cntr_test -p verbs (rxc0)" 120 \
		chroot "$sid" "$lf/bin/fi_cntr_test" -p verbs -d rxc0
}

# Between two guests (vm/run-pair.sh).  wire_pair waits for its server's
# TCP port; libfabric's verbs servers listen through rdma_cm, which ss
# does not see, so its port_listening looks at rdma_cm's listeners.
if [ -n "${RXC_WIRE_ROLE:-}" ]; then
	# shellcheck source=SCRIPTDIR/../tests/guest/wire.sh
	. "$RXC_REPO/tests/guest/wire.sh"
	SUITE=libfabric-wire
	# shellcheck disable=SC2317 # called by wire_pair
	port_listening() { listening "$1"; }
	# no_failure LOG: wire_pair's check of the client's output: no TAP
	# line failed (the first one that did is the reason).
	# shellcheck disable=SC2317
	no_failure() { ! grep -m1 '^not ok' "$1"; }
	# wire_fabtest NAME ARG...: fabtest's pair, b the server, a the client.
	wire_fabtest() {
		local name=$1
		shift
		wire_pair "fabtests: $name $* (rxc-rxc wire)" 120 "$port" true -- \
			chroot "$sid" "$lf/bin/$name" -p verbs "$@" -B "$port" -s "$WIRE_IP" -- \
			chroot "$sid" "$lf/bin/$name" -p verbs "$@" -P "$port" "$WIRE_PEER_IP"
		port=$((port + 1))
	}
	wire_up || exit 0
	load_driver rxc
	check "rxc0 on $WIRE_NIC" wire_dev_up rxc rxc0
	echo "libfabric: $lf; rdma-core in the sid root: $(cat "$sid/var/lib/rxc-rdma-core-debs")"
	if [ "${LF_BENCH:-0}" = 1 ]; then
		for modes in $bench_modes; do
			# shellcheck disable=SC2086 # argument list
			wire_pair "rxc-rxc wire: lf_cntr_bench -m $modes" 300 "$port" true -- \
				chroot "$sid" "$lf_bench" -s -a "$WIRE_IP" -p "$port" -m "$modes" $bench_args -- \
				chroot "$sid" "$lf_bench" -a "$WIRE_PEER_IP" -p "$port" -m "$modes" \
				-T wire $bench_args
			bench_lines "$WIRE_OUT"
			port=$((port + 1))
		done
		exit 0
	fi
	# lf_cntr's server is b's, at b's address, which a's client dials.
	wire_pair "rxc-rxc wire: lf_cntr" 300 "$port" no_failure -- \
		chroot "$sid" "$lf_cntr" -s -a "$WIRE_IP" -p "$port" -T "wire server" -- \
		chroot "$sid" "$lf_cntr" -a "$WIRE_PEER_IP" -p "$port" -T "wire client"
	tap_of "$WIRE_OUT"
	port=$((port + 1))
	run_fabtests
	[ "${LF_RXE:-1}" = 1 ] || exit 0
	# rxc-rxe: b's rxc0 gives way to rdma_rxe's rxe0 on its NIC; a's
	# rxc0 counts, the server answers without counters (-N).
	if [ "$WIRE_ROLE" = b ]; then
		run "rdma link delete rxc0" 60 rdma link delete rxc0
		load_driver rxe
		check "rxe0 on $WIRE_NIC" wire_dev_up rxe rxe0
	fi
	wire_pair "rxe-server-rxc-client wire: lf_cntr" 300 "$port" no_failure -- \
		chroot "$sid" "$lf_cntr" -s -a "$WIRE_IP" -p "$port" -N -T "wire rxe server" -- \
		chroot "$sid" "$lf_cntr" -a "$WIRE_PEER_IP" -p "$port" -T "wire rxc client"
	tap_of "$WIRE_OUT"
	exit 0
fi

# to_rxe: rxc0 gives way to rdma_rxe's rxe0 on veth0; rxc1 stays in "peer".
to_rxe() {
	run "rdma link delete rxc0" 60 rdma link delete rxc0
	load_driver rxe
	run "rdma link add rxe0" 60 rdma link add rxe0 type rxe netdev veth0
	DEV=rxe0 check "rxe0 port active" wait_for 20 port_active
}

# bench_ends NAME: lf_cntr_bench's MSG modes, then its RDM ones, server
# in "peer", client here; the client's lines into bench.txt.
bench_ends() {
	local modes name
	for modes in $bench_modes; do
		name=bench-$1-msg
		[ "${modes#rxm-}" = "$modes" ] || name=bench-$1-rdm
		# shellcheck disable=SC2086 # argument list
		two_ends "$name" "$PEER_NS" "" "$bench_args -m $modes" \
			"$bench_args -m $modes" "$lf_bench"
		bench_lines "$logs/$name.client"
	done
}

# to_rxe_both: rdma_rxe at both ends, rxe0 on veth0 and rxe1 on veth1 in
# "peer".  It needs a 7.x rdma_rxe, which binds UDP 4791 per device in
# the device's namespace, as rxc does (up to 6.12 it binds it in the
# initial namespace when it loads, and "peer" would have none).
to_rxe_both() {
	to_rxe
	run "peer: rdma link delete rxc1" 60 $IP netns exec "$PEER_NS" rdma link delete rxc1
	run "peer: rdma link add rxe1" 60 $IP netns exec "$PEER_NS" \
		rdma link add rxe1 type rxe netdev veth1
	DEV=rxe1 check "rxe1 port active" wait_for 20 port_active
}

# rxc-rxc.
load_driver rxc
run "create veth pair" 30 $IP link add veth0 type veth peer name veth1
$IP addr add "$IPADDR/24" dev veth0
$IP link set veth0 up
$IP link set veth1 up
run "rdma link add rxc0" 60 rdma link add rxc0 type rxc netdev veth0
check "rxc0 port active" wait_for 20 port_active
peer_up
PEER_IP_OF=$PEER_IP
echo "libfabric: $lf; rdma-core in the sid root: $(cat "$sid/var/lib/rxc-rdma-core-debs")"
# LF_BENCH=1: lf_cntr_bench instead of the tests, every mode rxc to rxc,
# then rdma_rxe to rdma_rxe (whose client skips cntr: no counters).
if [ "${LF_BENCH:-0}" = 1 ]; then
	bench_ends rxc-rxc
	to_rxe_both
	bench_ends rxe-rxe
	exit 0
fi
# fi_info starts libfabric once more (seconds under TCG); lf_cntr checks
# the same fields through the API.
if [ "$RXC_TIER" = full ]; then
	in_sid "" -- "$lf/bin/fi_info" -p verbs -v -d rxc0 -t FI_EP_MSG \
		>"$logs/fi_info.rxc0" 2>&1
	grep -E 'cntr_cnt|caps:' "$logs/fi_info.rxc0" | head -n 3
	check "fi_info -p verbs: rxc0 has counters (cntr_cnt > 0)" \
		grep -Eq 'cntr_cnt: [1-9]' "$logs/fi_info.rxc0"
fi

two_ends rxc-rxc peer "" "" ""

run_fabtests

if [ "${LF_RXE:-1}" != 1 ]; then
	exit 0
fi
# rxc-rxe: rxc1 in "peer" counts, rxe0 in the initial namespace does not.
to_rxe
PEER_IP_OF=$IPADDR
two_ends rxe-server-rxc-client "" peer "-N" ""
if [ "$RXC_TIER" = full ]; then
	PEER_IP_OF=$PEER_IP
	two_ends rxc-server-rxe-client peer "" "-C rma,msg,bytes" "-N -C rma,msg,bytes"
fi
exit 0
