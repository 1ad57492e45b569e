#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The stock RDMA tools over the device, client against server: the
# ibverbs pingpongs, perftest and rping, plus rc_xfer (tests/verbs/tools),
# which checks every byte it moves.  Each tool runs under a timeout; a
# test passes only if both ends exit 0 and the output shows the work done
# (iterations, a perftest report line, every rping line as rping builds
# it).  The topology is lib.sh's peer_up: across a veth pair into a
# namespace for rxc, loopback on one device for rdma_rxe.
#
# Iteration counts stay small: this runs under TCG, and 10x slower on
# the debug kernel.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=tools
xfer=${RXC_REPO:-/nonexistent}/build/tests/tools/rc_xfer
PAIR_LOGS=$RESULTS/tools

if ! dev_exists; then
	skip "tool matrix" "no $DEV device"
	exit 0
fi
skip_if_no_traffic "tool matrix" && exit 0
mkdir -p "$PAIR_LOGS"

# rping's rdma_cm needs rdma_ucm, which nothing autoloads in this guest.
ucm_was_loaded=false
mod_loaded rdma_ucm && ucm_was_loaded=true
run "modprobe rdma_ucm" 60 modprobe rdma_ucm
trap peer_cleanup EXIT
peer_up

PORT=18600

# ibv_rc_pingpong: sizes around the 1024-byte path MTU and up to 64 KiB
# (multi-packet messages), with -c; then the new post-send API (-N) and
# completion events (-e).
# Where the matrix runs in part (lib.sh part_of_matrix) only the sizes
# that matter most.
sizes="1 64 1023 1024 1025 4096 5000 65536"
! part_of_matrix || sizes="1 1025 65536"
for size in $sizes; do
	n=20
	pair "ibv_rc_pingpong -s $size -c" chk_pingpong $n -- \
		ibv_rc_pingpong -d "$SRV_DEV" -g "$SRV_GID" -p "$PORT" -s "$size" -n $n -c -- \
		ibv_rc_pingpong -d "$CLI_DEV" -g "$CLI_GID" -p "$PORT" -s "$size" -n $n -c "$SRV_IP"
done
for opt in -N -e; do
	pair "ibv_rc_pingpong -s 4096 -c $opt" chk_pingpong 20 -- \
		ibv_rc_pingpong -d "$SRV_DEV" -g "$SRV_GID" -p "$PORT" -s 4096 -n 20 -c $opt -- \
		ibv_rc_pingpong -d "$CLI_DEV" -g "$CLI_GID" -p "$PORT" -s 4096 -n 20 -c $opt "$SRV_IP"
done

# UD messages must fit the path MTU (1024 on a 1500-byte veth).
for size in 1 1024; do
	pair "ibv_ud_pingpong -s $size -c" chk_pingpong 20 -- \
		ibv_ud_pingpong -d "$SRV_DEV" -g "$SRV_GID" -p "$PORT" -s "$size" -n 20 -c -- \
		ibv_ud_pingpong -d "$CLI_DEV" -g "$CLI_GID" -p "$PORT" -s "$size" -n 20 -c "$SRV_IP"
done

# ibv_srq_pingpong spreads its -n iterations over the QPs.
pair "ibv_srq_pingpong -q 4 -s 4096 -c" chk_pingpong 20 -- \
	ibv_srq_pingpong -d "$SRV_DEV" -g "$SRV_GID" -p "$PORT" -q 4 -r 64 -s 4096 -n 20 -c -- \
	ibv_srq_pingpong -d "$CLI_DEV" -g "$CLI_GID" -p "$PORT" -q 4 -r 64 -s 4096 -n 20 -c "$SRV_IP"

# perftest, with the ibv_wr_* API (default) and with ibv_post_send.
# -F --report_gbits: without them the bandwidth tests cannot produce a
# report under TCG (their cycle counter calibration fails).  The two APIs
# differ only in user space (librxe fills the same ring either way), so
# a part of the matrix runs one; nor does it run the latency tests, whose
# operations reach the kernel as the bandwidth tests' do, one at a time.
tests=("ib_send_bw 65536 50" "ib_write_bw 65536 50" "ib_read_bw 65536 50"
       "ib_atomic_bw 8 100")
part_of_matrix || tests+=("ib_send_lat 4096 100" "ib_write_lat 4096 100"
			  "ib_read_lat 4096 100" "ib_atomic_lat 8 100")
for api in "" --use_old_post_send; do
	[ -z "$api" ] || ! part_of_matrix || continue
	for t in "${tests[@]}"; do
		# shellcheck disable=SC2086  # split "TOOL SIZE ITERS"
		set -- $t
		sz=(-s "$2")
		# Atomics are always 8 bytes; perftest refuses -s for them.
		[ "$2" = 8 ] && sz=()
		pair "$1 ${sz[*]}${sz:+ }-n $3${api:+ $api}" chk_perftest "$2" "$3" -- \
			"$1" -d "$SRV_DEV" -x "$SRV_GID" -p "$PORT" "${sz[@]}" -n "$3" -F --report_gbits $api -- \
			"$1" -d "$CLI_DEV" -x "$CLI_GID" -p "$PORT" "${sz[@]}" -n "$3" -F --report_gbits $api "$SRV_IP"
	done
done
pair "ib_atomic_bw -A CMP_AND_SWAP" chk_perftest 8 100 -- \
	ib_atomic_bw -d "$SRV_DEV" -x "$SRV_GID" -p "$PORT" -A CMP_AND_SWAP -n 100 -F --report_gbits -- \
	ib_atomic_bw -d "$CLI_DEV" -x "$CLI_GID" -p "$PORT" -A CMP_AND_SWAP -n 100 -F --report_gbits "$SRV_IP"

# rping over rdma_cm: -V makes the client compare what it read back with
# what it sent; the log check rebuilds every line independently.
WAIT=cm pair "rping -C 100 -v -V -S 100" chk_rping 100 100 -- \
	rping -s -a "$SRV_IP" -p "$PORT" -C 100 -v -S 100 -- \
	rping -c -a "$SRV_IP" -p "$PORT" -C 100 -v -V -S 100

# rc_xfer: a stream whose every byte is checked, with SENDs, RDMA WRITEs
# with immediate and RDMA READs of odd sizes spanning several packets, and
# atomics whose every returned value is checked.
if [ -x "$xfer" ]; then
	for op in send write read atomic; do
		pair "rc_xfer -o $op -s 5001 -n 200" chk_xfer -- \
			"$xfer" -d "$SRV_DEV" -g "$SRV_GID" -p "$PORT" -o $op -s 5001 -n 200 -w 8 -T $((50 * SLOW)) -- \
			"$xfer" -d "$CLI_DEV" -g "$CLI_GID" -p "$PORT" -o $op -s 5001 -n 200 -w 8 -T $((50 * SLOW)) "$SRV_IP"
	done
else
	skip "rc_xfer" "not built: $xfer"
fi

peer_down
if ! $ucm_was_loaded; then
	# What rping pulled in, so that later groups start from the same place.
	run "rmmod rdma_ucm" 30 modprobe -r rdma_ucm
fi
