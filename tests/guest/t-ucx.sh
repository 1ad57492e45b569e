#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# UCX (Debian's ucx-utils 1.13, the transport under Open MPI) between two
# rxc devices in two namespaces (lib.sh peer_up), so that every packet
# crosses the veth pair and the IP stack as it would between hosts:
# ucx_perftest's tag, RMA and active message tests over UCX's verbs
# transports, UD for wire-up, each checked for its final report.
#
# UCX 1.13's UD transport fails on IPv4 GIDs with rdma_rxe too, so both
# ends use their link-local GID (index 0), as a user between hosts must.
#
# The regression this guards: UCX's address handles carry the flow label
# ~0 (on other devices it steers the UDP source port).  rxc put all 32
# bits into the IPv6 header's first word, whose version then read 15, so
# every host dropped every packet, while two devices of one host, which
# skip the IP stack, worked.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=ucx

skip_unless_peer_xfer "UCX between namespaces" && exit 0
if ! command -v ucx_perftest >/dev/null; then
	skip "UCX between namespaces" "ucx_perftest not installed (ucx-utils)"
	exit 0
fi
PAIR_LOGS=$RESULTS/ucx
mkdir -p "$PAIR_LOGS"
trap peer_cleanup EXIT
peer_up
PORT=18700
# The link-local GIDs route only once both addresses have passed DAD.
check "link-local addresses on both ends" wait_for 20 sh -c \
	"/usr/sbin/ip -6 addr show dev $NETDEV scope link -tentative | grep -q inet6 &&
	 ${SRV[*]} /usr/sbin/ip -6 addr show dev veth1 scope link -tentative | grep -q inet6"

# shellcheck disable=SC2046  # ucx_env prints words to split
for t in $UCX_TESTS; do
	pair "ucx_perftest -t $t between namespaces, link-local GIDs" chk_ucx -- \
		$(ucx_env "$SRV_DEV" 0) ucx_perftest -p "$PORT" -- \
		$(ucx_env "$CLI_DEV" 0) ucx_perftest -p "$PORT" -t "$t" -n 200 "$SRV_IP"
done

peer_down
trap - EXIT
