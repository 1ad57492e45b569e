#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The packet fuzzer (roce_fuzz.py) against a live RC connection: rc_xfer
# moves data from $DEV to the peer's device and checks every byte, while
# the fuzzer, in the peer's namespace, captures the connection's packets
# and sends mutated copies at $DEV.  Every mutation must be dropped: the
# transfer completes with every byte right, the drops are counted, and
# the kernel log stays clean (scan-dmesg).
#
# RXC_FUZZ_PACKETS (default 2000, the CI smoke; a quarter of that on a
# slow debug kernel, 100 there in the fast tier) sets how many packets go
# out; the transfer grows with
# it in rounds.  RXC_FUZZ_SEED fixes the mutations.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=fuzz-packets
count=${RXC_FUZZ_PACKETS:-$(by_kernel 2000 500 100)}
seed=${RXC_FUZZ_SEED:-$RANDOM}

skip_unless_peer_xfer "packet fuzzer" && exit 0
PAIR_LOGS=$RESULTS/fuzz-packets
mkdir -p "$PAIR_LOGS"
stop=$PAIR_LOGS/stop
trap 'touch "$stop"; peer_cleanup' EXIT
peer_up
PORT=18950

drops="rcv_wrong_peer rcv_icrc_errors rcv_truncated rcv_malformed rcv_no_qp rcv_qp_dropped"
declare -A moved
# shellcheck disable=SC2086  # the names are words
counters_snap moved "$CLI_DEV" $drops

rm -f "$stop"
"${SRV[@]}" /usr/bin/python3 "$here/roce_fuzz.py" --iface veth1 \
	--target "$IPADDR" --peer "$SRV_IP" --seed "$seed" --count "$count" \
	--seconds $((600 * SLOW + count / 10)) --stop-file "$stop" >"$PAIR_LOGS/fuzz.log" 2>&1 &
fpid=$!

# Transfers back to back, each with every byte checked, for as long as
# the fuzzer runs: one buffer cannot hold a long run's worth of messages.
# The round cap bounds a fuzzer that stalls; the client stops it when done.
# The debug kernel's fast tier sends its 100 packets within two rounds of
# 1000 (4000 took 100 s there).
n=$(by_kernel 4000 4000 1000)
max_rounds=$((2 + count / 1000))
round=0
while :; do
	round=$((round + 1))
	PAIR_SECS=300 pair "round $round: rc_xfer: $n RDMA WRITEs with immediate under the fuzzer, every byte checked" chk_xfer -- \
		"$XFER" -d "$SRV_DEV" -g "$SRV_GID" -p "$PORT" -o write -s 2000 -n "$n" -w 8 -T $((280 * SLOW)) -- \
		"$XFER" -d "$CLI_DEV" -g "$CLI_GID" -p "$PORT" -o write -s 2000 -n "$n" -w 8 -T $((280 * SLOW)) "$SRV_IP"
	kill -0 "$fpid" 2>/dev/null || break
	[ "$round" -lt "$max_rounds" ] || break
done
touch "$stop"
rc=0
wait "$fpid" || rc=$?
cat "$PAIR_LOGS/fuzz.log"
check "the fuzzer ran (seed $seed)" test "$rc" -eq 0
sent=$(sed -n 's/^roce_fuzz: sent \([0-9]*\):.*/\1/p' "$PAIR_LOGS/fuzz.log")
check "the fuzzer sent packets during the transfer" test "${sent:-0}" -gt 0

total=0
counters_delta moved
for c in $drops; do
	echo "$CLI_DEV $c: +${moved[$CLI_DEV/$c]}"
	total=$((total + moved[$CLI_DEV/$c]))
done
# Some mutations never reach the device (the IP layer drops a bad
# length), so the drops may fall short of what was sent, never exceed it
# by much (the transfer itself causes none).
check "$CLI_DEV dropped fuzzed packets and counted why" test "$total" -gt 0
check "$DEV port still active" port_active

peer_down
