#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Boot two guests joined by one virtio link, as two hosts on a wire, and
# run one script in each.
#
#   vm/run-pair.sh --kernel K --guest-script PATH --results DIR
#                  [--modules DIR] [--timeout SECS] [--cpus N] [--env K=V ...]
#                  [--cpu-model MODEL] [--pin CORES_A:CORES_B] [--link udp|unix]
#
# Guest "a" gets its results in DIR/a, guest "b" in DIR/b (see
# vm/run-vm.sh for what each holds).  Both run PATH, knowing their role
# as RXC_WIRE_ROLE (a or b) and their NIC by RXC_WIRE_MAC; the script
# gives the NICs their addresses (tests/guest/wire.sh).  The link is a
# QEMU datagram netdev: no root, no bridge, and unlike a stream no Nagle
# stalls.  --link udp (the default) carries it over UDP on 127.0.0.1,
# which drops frames when a guest falls behind, as an Ethernet without
# flow control does; --link unix over a Unix datagram socket, whose
# sender waits for room instead, as on the lossless (PFC) Ethernet that
# RoCE is deployed on.  --pin runs guest a's QEMU on the host cores
# CORES_A and b's on CORES_B, comma-separated lists (vm/run-vm.sh
# --pin).  Exit status: a's, unless a passed and b did not.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
results='' args=() pin_a=() pin_b=() link=udp
while [ $# -gt 0 ]; do
	case $1 in
	--results) results=$2 ;;
	--pin) pin_a=(--pin "${2%:*}") pin_b=(--pin "${2#*:}") ;;
	--link) link=$2 ;;
	--kernel | --guest-script | --modules | --timeout | --cpus | --env | --cpu-model)
		args+=("$1" "$2") ;;
	*) sed -n '4,22p' "$0" >&2; exit 2 ;;
	esac
	shift 2
done
if [ -z "$results" ] || ! [[ $link =~ ^(udp|unix)$ ]]; then
	sed -n '4,22p' "$0" >&2
	exit 2
fi
log() { echo "run-pair: $*" >&2; }

# Two UDP ports nobody here listens on, so that concurrent pairs (CI runs
# several guests at once) never hear each other; or two socket paths in a
# directory of this pair's own.
udp_busy() { ss -Hunl "sport = :$1" 2>/dev/null | grep -q .; }
if [ "$link" = udp ]; then
	for _ in $(seq 50); do
		pa=$((20000 + RANDOM % 20000 * 2))
		pb=$((pa + 1))
		udp_busy "$pa" || udp_busy "$pb" || break
	done
else
	sockets=$(mktemp -d "${TMPDIR:-/tmp}/rxc-link.XXXXXX")
	trap 'rm -rf "$sockets"' EXIT
	pa=$sockets/a pb=$sockets/b
fi

mkdir -p "$results"
rc_a=0 rc_b=0
"$here/run-vm.sh" "${args[@]}" ${pin_b[@]+"${pin_b[@]}"} --results "$results/b" \
	--wire "$pb:$pa:52:54:00:77:00:02" --env RXC_WIRE_ROLE=b &
pid_b=$!
"$here/run-vm.sh" "${args[@]}" ${pin_a[@]+"${pin_a[@]}"} --results "$results/a" \
	--wire "$pa:$pb:52:54:00:77:00:01" --env RXC_WIRE_ROLE=a || rc_a=$?
wait "$pid_b" || rc_b=$?
log "guest a: status $rc_a, guest b: status $rc_b ($link link, $pa, $pb)"
[ "$rc_a" -ne 0 ] && exit "$rc_a"
exit "$rc_b"
