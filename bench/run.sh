#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The performance benchmark: rdma_rxe against rxc in one VM boot.
#
#   bench/run.sh [--smoke | --profile [TESTS]] [--kernel stock|stock-6.12]
#                [--rounds N] [--no-pin] [--cpu-model MODEL]
#                [--wire [--cpus N] [--transfers] [--link udp|unix]]
#
# Installs what it needs, builds rdma_rxc for the kernel (vm/kernels.sh
# names it), librxc and rxc_bench, boots one VM and runs bench/guest.sh
# there: both drivers alternately, N rounds each (default 5).  The
# guest's two vCPUs run on host cores 0 and 1, one each, and the rest of
# its QEMU on either (vm/run-vm.sh --pin); --no-pin leaves them to the
# host's scheduler, as does a host with fewer cores than vCPUs.  Then
# bench/report.py prints the tables (medians, rxc/rxe ratios, the paired
# statistics of each round's own ratio, their geometric mean, the
# targets).  --smoke runs every test
# with tiny counts (CI); its figures mean nothing.  --profile runs the
# 8-byte round trips and write on each driver under perf stat and perf
# record instead and prints the hottest symbols; TESTS, a ';'-separated
# list of rxc_bench arguments such as "cntr_unsig -s 8 -n 200000",
# profiles those instead (rdma_rxe, which has no counters, reports the
# counter tests skipped).
# --cpu-model is QEMU's -cpu for the guests (default qemu64, which lacks
# PCLMULQDQ: the ICRC's CRC-32 then runs table-driven in both drivers, as
# on no x86 host since 2010; Westmere has it).
# Logs: build/bench-results/KERNEL[-MODEL]/.
#
# --wire runs between two guests on one virtio link instead, with N vCPUs
# each (default 1), guest a's vCPUs on the first N host cores and b's on
# the next N unless --no-pin (or fewer cores): vm/run-pair.sh boots both
# and bench/wire-guest.sh runs the wire's tests and the middleware in
# them; the table then compares the wire's figures, beside the link's
# TCP throughput;
# --link unix joins them by a Unix datagram socket, which holds the
# sender back when the receiver is full (a lossless link, as RoCE's PFC
# Ethernet is), instead of UDP, which drops (vm/run-pair.sh --link);
# --transfers runs only the write, read and send transfers there, and
# the environment's BENCH_OPS ("write read send"), BENCH_SIZES ("8 4096
# 65536") and BENCH_MTUS ("1024:1500 4096:9000", path:link) narrow them
# (BENCH_OPS=none runs none), BENCH_QPS ("1 4 16") adds the 8-byte writes
# on that many QPs, BENCH_LATS ("8 4096") the round trips of those sizes,
# BENCH_EVENTS=1 has their requester sleep on its completion channel
# instead of spinning (rxc_bench -e), and BENCH_PAIRS ("rxe rxc") names
# the drivers of each round: "rxc-rxe" runs rxc on the requester's
# guest and rdma_rxe on the responder's (the report's mixed columns).
# BENCH_MW_ROUNDS (default the rounds) sets how often the middleware
# runs, each time with every pairing.
# --wire --profile runs those transfers once (unless --rounds says
# otherwise) under perf record in both guests, and leaves each run's
# reports in the guest's logs (perf-DRV-STEP*.txt).
# Logs: build/bench-results/KERNEL[-MODEL]-wire-Ncpu[-transfers|-profile]/{a,b}/.
#
# A full run (none of --smoke, --profile, --transfers, and no BENCH_*
# narrowing) also has bench/report.py write its record of runs file,
# Documentation/results/DATE-{loop,wire}-full-COMMIT.rst (see its
# README.md); BENCH_RECORD=0 leaves it out, BENCH_RECORD_DIR puts it
# elsewhere.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
args="$*"
kernel=stock rounds=5 rounds_set=0 smoke=0 profile=0 ptests='' wire=0 cpus=1 transfers=0
pin=1 cpu_model='' link=udp
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) smoke=1 ;;
	--profile)
		profile=1
		if [ $# -gt 1 ] && [ "${2#-}" = "$2" ]; then
			ptests=$2
			shift
		fi ;;
	--kernel) kernel=$2; shift ;;
	--rounds) rounds=$2; rounds_set=1; shift ;;
	--wire) wire=1 ;;
	--cpus) cpus=$2; shift ;;
	--transfers) transfers=1 ;;
	--no-pin) pin=0 ;;
	--cpu-model) cpu_model=$2; shift ;;
	--link) link=$2; shift ;;
	*) sed -n '4,59p' "$0" >&2; exit 2 ;;
	esac
	shift
done
if [ "$wire" = 1 ] && [ "$profile" = 1 ]; then
	[ -z "$ptests" ] || { echo "bench: --wire --profile takes no TESTS" >&2; exit 2; }
	transfers=1
	[ "$rounds_set" = 1 ] || rounds=1
fi

# pin_args GUESTS VCPUS: sets pins to vm/run-vm.sh's (one guest) or
# vm/run-pair.sh's (two) --pin, one host core per vCPU and none shared
# between guests, or to nothing when pinning is off or the host has
# fewer cores than vCPUs in all; and pinning to what the report says of
# it.
pin_args() {
	local cores need list=() g
	cores=$(nproc) need=$(($1 * $2))
	pins=() pinning=on
	if [ "$pin" = 0 ]; then
		pinning="off (--no-pin)"
		return
	elif [ "$cores" -lt "$need" ]; then
		pinning="off ($cores host core(s) for $1 guest(s) of $2 vCPU(s))"
		echo "bench: $cores host core(s) for $need vCPUs: not pinned" >&2
		return
	fi
	for ((g = 0; g < $1; g++)); do
		list+=("$(seq -s, $((g * $2)) $((g * $2 + $2 - 1)))")
	done
	pins=(--pin "$(IFS=:; echo "${list[*]}")")
}

# udp_drops: how many datagrams the host's UDP sockets have dropped for
# want of buffer (/proc/net/snmp's RcvbufErrors), the UDP link's losses
# among them (vm/run-pair.sh).
udp_drops() {
	awk '/^Udp:/ && !col { for (i = 2; i <= NF; i++) if ($i == "RcvbufErrors") col = i; next }
	     /^Udp:/ && col { print $col; exit }' /proc/net/snmp 2>/dev/null
}

# pinned DIR...: what each guest's vm/run-vm.sh found pinned.
pinned() {
	local d sep=''
	[ "$pinning" = on ] || { echo "$pinning"; return; }
	printf 'on: '
	for d in "$@"; do
		printf '%sguest %s, %s' "$sep" "$(basename "$d")" \
			"$(cat "$d/pinning.txt" 2>/dev/null || echo "no pinning.txt")"
		sep='; '
	done
	echo
}

# report LOG OUT KIND PINNING: bench/report.py's tables into OUT/report.txt
# and, for a full run, its record of runs file.
report() {
	local commit rec=() kver
	if [ "${BENCH_RECORD:-1}" = 1 ] && [ "$smoke$profile$transfers" = 000 ] &&
		[ -z "${BENCH_OPS:-}${BENCH_SIZES:-}${BENCH_MTUS:-}${BENCH_QPS:-}${BENCH_LATS:-}${BENCH_PAIRS:-}${BENCH_EVENTS:-}" ]; then
		commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
		! git -C "$top" status --porcelain 2>/dev/null | grep -qv ' Documentation/results/' ||
			commit=$commit-dirty
		kver=$(grep -m1 -o 'Linux version [^ ]*' "$(dirname "$1")/console.log" 2>/dev/null || true)
		rec=(--record "${BENCH_RECORD_DIR:-$top/Documentation/results}" --kind "$3" --link "$link"
		     --command "bench/run.sh${args:+ $args}" --commit "$commit"
		     --kernel "$kernel${kver:+ (${kver#Linux version })}")
	fi
	/usr/bin/python3 "$top/bench/report.py" "$1" --pinning "$4" ${rec[@]+"${rec[@]}"} |
		tee -a "$2/report.txt"
}

"$top/vm/install-deps.sh"
mods=$(bash "$top/vm/build-modules.sh" "$kernel")
make -s -C "$top/userspace" lib
make -s -C "$top/bench"
[ "$wire" = 0 ] || make -s -C "$top/tests/verbs"	# rc_xfer
cpu=() model=''
if [ -n "$cpu_model" ]; then
	cpu=(--cpu-model "$cpu_model") model=-$cpu_model
fi
if [ "$wire" = 1 ]; then
	out=$top/build/bench-results/$kernel$model-wire-${cpus}cpu
	if [ "$profile" = 1 ]; then
		out=$out-profile
	elif [ "$transfers" = 1 ]; then
		out=$out-transfers
	fi
	pin_args 2 "$cpus"
	udp_before=$(udp_drops)
	# A full round, middleware included, takes some 15 minutes under TCG.
	"$top/vm/run-pair.sh" --kernel "$kernel" --guest-script "$top/bench/wire-guest.sh" \
		--results "$out" --modules "$mods" --cpus "$cpus" ${pins[@]+"${pins[@]}"} \
		${cpu[@]+"${cpu[@]}"} --link "$link" --timeout $((smoke ? 1500 : 1800 + rounds * 1500)) \
		--env "BENCH_ROUNDS=$rounds" --env "BENCH_SMOKE=$smoke" \
		--env "BENCH_TRANSFERS=$transfers" --env "BENCH_PROFILE=$profile" \
		--env "BENCH_EVENTS=${BENCH_EVENTS:-}" --env "BENCH_PAIRS=${BENCH_PAIRS:-}" \
		--env "BENCH_MTUS=${BENCH_MTUS:-}" \
		--env "BENCH_MW_ROUNDS=${BENCH_MW_ROUNDS:-}" \
		--env "BENCH_OPS=${BENCH_OPS:-}" --env "BENCH_SIZES=${BENCH_SIZES:-}" \
		--env "BENCH_QPS=${BENCH_QPS:-}" --env "BENCH_LATS=${BENCH_LATS:-}"
	pinning=$(pinned "$out/a" "$out/b")
	dropped=''
	[ -z "$udp_before" ] ||
		dropped="; the host's UDP sockets dropped $(($(udp_drops) - udp_before)) datagrams meanwhile"
	echo "bench: $kernel kernel, two guests with $cpus vCPU(s) each${cpu_model:+ ($cpu_model)} on a $link link, $(date -u +%F), $rounds rounds, pinning $pinning$dropped" |
		tee "$out/report.txt"
	report "$out/a/bench.log" "$out" wire "$pinning"
	exit 0
fi
out=$top/build/bench-results/$kernel$model
[ "$profile" = 1 ] && out=$out-profile
loop_cpus=2	# a stream's run needs a CPU beside its poster's
pin_args 1 "$loop_cpus"
# A full round takes some 3 minutes under TCG; the smoke about 2 in all.
"$top/vm/run-vm.sh" --kernel "$kernel" --guest-script "$top/bench/guest.sh" ${pins[@]+"${pins[@]}"} \
	--cpus "$loop_cpus" ${cpu[@]+"${cpu[@]}"} \
	--results "$out" --modules "$mods" --timeout $((smoke || profile ? 900 : 900 + rounds * 900)) \
	--env "BENCH_ROUNDS=$rounds" --env "BENCH_SMOKE=$smoke" \
	--env "BENCH_PROFILE=$profile" --env "BENCH_PROFILE_TESTS=$ptests"
if [ "$profile" = 1 ]; then
	cat "$out"/perf-*.stat
	exit 0
fi
pinning=$(pinned "$out")
echo "bench: $kernel kernel${cpu_model:+ ($cpu_model)}, $(date -u +%F), $rounds rounds, pinning $pinning" | tee "$out/report.txt"
report "$out/bench.log" "$out" loop "$pinning"
