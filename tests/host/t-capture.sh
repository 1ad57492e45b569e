#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   tests/host/t-capture.sh RESULTS-DIR
#
# The wire-format check of the interop group's capture.  The guest
# (tests/guest/t-interop.sh) captures every RoCEv2 packet rdma_rxe and
# rxc exchange in its loss-free passes into RESULTS-DIR/interop.pcap and
# names the four addresses in interop.pcap.addrs.  vm/check.sh runs this
# on the host once the guest is done, where it takes seconds instead of
# the minute and a half it took under TCG.  roce_pcap_check.py recomputes
# every ICRC, and Wireshark's InfiniBand dissector must parse every frame
# with no malformed packet and no warning.  Prints TAP lines under the
# guest group's name; nothing at all when the guest took no capture.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dir=${1:?usage: t-capture.sh RESULTS-DIR}
pcap=$dir/interop.pcap
[ -f "$pcap" ] || exit 0

res() { echo "$1 - interop: $2"; }
check() {	# check NAME CMD...
	local name=$1
	shift
	if "$@"; then res ok "$name"; else res "not ok" "$name"; fi
}

read -r a4 b4 a6 b6 <"$pcap.addrs" || {
	res "not ok" "capture: $pcap.addrs names the addresses"
	exit 0
}
pcap_check() {	# its per-address summary as TAP comments
	python3 "$here/../guest/roce_pcap_check.py" "$pcap" "$a4" "$b4" "$a6" "$b6" |
		sed 's/^/# /'
	return "${PIPESTATUS[0]}"
}
check "every captured packet well-formed, ICRC recomputed" pcap_check

# Payloads are test data: keep the heuristics that guess at upper-layer
# protocols (RPC-over-RDMA, SMB Direct, ...) out of the dissection.
mapfile -t no_guess < <(tshark -G heuristic-decodes 2>/dev/null |
	awk '$1 == "infiniband.payload" && $3 == "T" { print "--disable-protocol"; print $2 }')
count() {	# count FILTER: how many captured frames match
	tshark -n "${no_guess[@]}" -r "$pcap" -Y "$1" 2>/dev/null | wc -l
}
frames=$(count "udp.dstport == 4791")
echo "# tshark: $frames RoCEv2 frames captured"
check "tshark sees the RoCEv2 frames" test "$frames" -gt 0
check "tshark dissects every RoCEv2 frame as InfiniBand" \
	test "$(count "udp.dstport == 4791 && infiniband.bth.opcode")" = "$frames"
check "tshark: no malformed frame" test "$(count "_ws.malformed")" = 0
# Wireshark flags every zero UDP checksum over IPv6, which RoCEv2 uses
# (RFC 6935) as rdma_rxe does; roce_pcap_check.py checks it is zero.  Any
# other warning or error is a finding.
experts=$(tshark -n "${no_guess[@]}" -r "$pcap" -q -z expert,warn 2>/dev/null |
	awk '$1 ~ /^[0-9]+$/ && !($3 == "UDP" && /Illegal checksum value \(0\)$/)')
[ -z "$experts" ] || echo "# ${experts//$'\n'/$'\n'# }"
check "tshark: no expert warning or error from the RoCE layers" test -z "$experts"
