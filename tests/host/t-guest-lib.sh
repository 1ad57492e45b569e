#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   tests/host/t-guest-lib.sh
#
# Host-side test of pair() from tests/guest/lib.sh, the helper that runs
# every client/server tool in the guest and judges it by a check
# function.  A check that fails, says nothing, or does not exist at all
# (a typo, or a function left in another group's script) must fail the
# test: once, interop's rping passed on every run because its check was
# defined in t-tools.sh only.  Then the port counter helpers, against a
# stand-in rdma tool, and tests/guest/wire.sh's wire_pair, which must end
# a run whose link died.  Last, release_list, which picks the rdma_rxe
# list of known differences t-diff uses on a kernel.
#
# Prints TAP ("ok - ...", "not ok - ...") and exits non-zero on a failure.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/rxc-guest-lib.XXXXXX)
trap 'rm -rf "$work"' EXIT
nfail=0

# What lib.sh writes goes to $work; its own TAP lines are the subject.
RESULTS=$work SUITE=host PAIR_LOGS=$work PORT=1
# shellcheck source=SCRIPTDIR/../guest/lib.sh
. "$repo/tests/guest/lib.sh"
wait_for() { return 0; }	# no server listens here
SRV=()

chk_good() { return 0; }
chk_silent() { return 1; }
chk_says() { echo "the data differ"; return 1; }

# verdict CHECK SRV-CMD CLI-CMD: the TAP line pair() wrote for them.
verdict() {
	: >"$TAP"
	pair "subject" "$1" -- "$2" -- "$3" >"$work/out" 2>&1
	cut -d' ' -f1-2 "$TAP"
}

# shellcheck source=SCRIPTDIR/tap.sh
. "$repo/tests/host/tap.sh"
expect() {	# expect NAME WANT CHECK SRV-CMD CLI-CMD
	tap_same "guest lib: pair" "$1" "$(verdict "$3" "$4" "$5")" "$2"
}

expect "passes when both ends and the check succeed" "ok -" chk_good true true
expect "fails when the client fails" "not ok" chk_good true false
expect "fails when the server fails" "not ok" chk_good false true
expect "fails when the check fails and says why" "not ok" chk_says true true
expect "fails when the check fails silently" "not ok" chk_silent true true
expect "fails when the check does not exist" "not ok" chk_missing true true

# The port counter helpers, against a stand-in for the rdma tool that
# counts its runs (in a file: the helpers run it in a subshell): one per
# device and helper call, however many names.
declare -A fake_stats=(
	[rxc0]="link rxc0/1 sent_packets 10 rcv_packets 7 send_errors 0"
	[rxc1]="link rxc1/1 sent_packets 3 rcv_packets 5"
)
rdma() {	# rdma statistic show link DEV/1
	echo run >>"$work/rdma-runs"
	echo "${fake_stats[${4%/1}]}"
}
same() { tap_same "guest lib: counters" "$@"; }	# same NAME GOT WANT
declare -A d
counters_snap d rxc0 sent_packets rcv_packets send_errors
counters_snap d rxc1 sent_packets rcv_packets
same "a snapshot reads each device once" "$(wc -l <"$work/rdma-runs")" 2
same "a snapshot keeps each value under DEV/NAME" \
	"${d[rxc0/sent_packets]} ${d[rxc0/rcv_packets]} ${d[rxc1/rcv_packets]}" "10 7 5"
fake_stats[rxc0]="link rxc0/1 sent_packets 14 rcv_packets 7 send_errors 2"
fake_stats[rxc1]="link rxc1/1 sent_packets 4 rcv_packets 5"
: >"$work/rdma-runs"
counters_delta d
same "a delta reads each device once" "$(wc -l <"$work/rdma-runs")" 2
same "a delta is how far each counter moved" \
	"${d[rxc0/sent_packets]} ${d[rxc0/rcv_packets]} ${d[rxc0/send_errors]} ${d[rxc1/sent_packets]}" "4 0 2 1"
same "only the counters that moved are shown as moved" \
	"$(counters_show d moved | tr '\n' ,)" "rxc0 send_errors +2,rxc0 sent_packets +4,rxc1 sent_packets +1,"
same "one counter is read by its name" "$(hw_counter rxc0 send_errors)" 2
same "a counter the device lacks reads as nothing" "$(hw_counter rxc1 send_errors)" ""
same "every counter is listed once, by name" "$(counter_lines rxc0 | tr '\n' ,)" \
	"rcv_packets 7,send_errors 2,sent_packets 14,"

# wire_pair, on a's side of a pair whose client and server are the same
# run (port "-"): a failed step resets a dead link, and ends the run
# only when the link stays dead.  Once, a link whose transmit queue
# stopped made every later step time out, for hours.
RXC_WIRE_ROLE=a
# shellcheck source=SCRIPTDIR/../guest/wire.sh
. "$repo/tests/guest/wire.sh"
WIRE_NIC=eth9
wire_same() { tap_same "guest lib: wire_pair" "$@"; }	# wire_same NAME GOT WANT
# after_failed_step LINK: a step that fails on a link that is "alive", or
# "dead" until its NIC is reset ("back") or for good ("dead"); says
# whether the run went on or ended.
after_failed_step() {
	(
		link=$1
		wire_alive() { [ "$link" = alive ]; }
		wire_nic_reset() { [ "$link" = back ] && link=alive; return 0; }
		WIRE_RELINK_SECS=0
		WIRE_RELINK_HOOK="echo hook ran"
		wire_pair "step" 10 - chk_good false -- false >"$work/step.out"
		echo "went on"
	) || echo "ended with status $?"
}
wire_same "a failed step on a live link goes on" "$(after_failed_step alive)" "went on"
wire_same "a failed step on a link a reset brings back goes on" \
	"$(after_failed_step back)" "went on"
wire_same "and says so" "$(grep -c "^ok - .*: the link came back after step" "$work/step.out")" 1
wire_same "and runs the relink hook" "$(grep -c "^hook ran" "$work/step.out")" 1
wire_same "a failed step on a link that stays dead ends the run" \
	"$(after_failed_step dead)" "ended with status 1"
wire_same "and says why" "$(grep -c "^not ok - .*: the link still works after step" "$work/step.out")" 1
# Nobody listens on port 9 here: the connection is refused at once.
WIRE_PEER_IP=127.0.0.1
wire_same "a peer that refuses a connection is alive" "$(wire_alive && echo alive)" alive

# release_list: the newest list at or below a release, or none.
lists=$work/lists
mkdir -p "$lists"
touch "$lists/known-rxe-6.12.txt" "$lists/known-rxe-7.3.txt"
for row in "6.1|" "6.12|known-rxe-6.12.txt" "6.9|" "7.2|known-rxe-6.12.txt" \
	   "7.3|known-rxe-7.3.txt" "7.10|known-rxe-7.3.txt" "10.0|known-rxe-7.3.txt"; do
	got=$(release_list "${row%%|*}" "$lists"/known-rxe-*.txt)
	want=${row#*|}
	tap_same "guest lib" "release_list ${row%%|*}: ${want:-none}" "${got##*/}" "$want"
done
[ "$nfail" -eq 0 ]
