#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Differential testing against rdma_rxe: the same random verbs programs
# (tests/diff/vdiff, one per seed) run on rdma_rxe and on rxc, and their
# traces must agree, per work request: status, opcode, length, immediate
# data, completion order, the bytes placed and the final QP states.
#
# The reference is rdma_rxe's loopback (rxe8, two QPs on one device, in
# the initial namespace, the only one 6.1's rdma_rxe serves).  Compared
# with it:
#   rxc-lo	two QPs on one rxc device (rxc9, namespace dfb)
#   rxc-ns	rxc10 in namespace dfc to rxc11 in namespace dfd, over veth
#   mixed	side A on rdma_rxe (rxe8), side B on rxc (rxc9), over veth
# What a program observes does not depend on where its QPs live, so one
# reference serves all three.  A difference that tests/diff/known-rxe.txt
# explains (a documented rdma_rxe bug or limit) passes; any other fails
# and is printed with its seed and a minimal program; a kernel's own list
# (known-rxe-6.12.txt) adds its rdma_rxe's.  rxc-ns must also agree with
# rxc-lo exactly: no known list excuses rxc from itself.  So must
# rxc-ns-aw with rxc-lo-aw, programs that may hold ATOMIC_WRITE, and,
# from 6.2, where rdma_rxe has ATOMIC_WRITE, rxc-lo-aw with rxe-lo-aw;
# and every rxc run's counters with what its completions say they hold.
#
# RXC_DIFF_SEEDS programs from RXC_DIFF_FIRST, RXC_DIFF_JOBS processes at
# a time: a smoke in CI; the long run is documented in
# Documentation/rxc.rst ("Differential testing").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
SUITE=differential
IP=/usr/sbin/ip
repo=${RXC_REPO:-/nonexistent}
VDIFF=$repo/build/tests/diff/vdiff
COMPARE=$repo/tests/diff/compare.py
# rdma_rxe's known differences: those of every kernel, and those of the
# newest release with a list at or below this one (7.2's and 7.3's
# rdma_rxe show 6.12's).
KERNEL=$(uname -r | cut -d. -f1-2)
KNOWN=("--known=$repo/tests/diff/known-rxe.txt")
list=$(release_list "$KERNEL" "$repo"/tests/diff/known-rxe-*.txt)
[ -z "$list" ] || KNOWN+=("--known=$list")
# rdma_rxe has ATOMIC_WRITE from 6.2: there it is the -w runs' reference.
RXE_AW=0
[ "$(printf '6.2\n%s\n' "$KERNEL" | sort -V | head -n 1)" != 6.2 ] || RXE_AW=1
FIRST=${RXC_DIFF_FIRST:-1}
SEEDS=${RXC_DIFF_SEEDS:-$(by_kernel 400 40 20)}
QUIET=$((50 * SLOW))
# Programs mostly wait (vdiff sleeps between polls): processes share the
# seeds.  16 keeps two vCPUs busy without slowing the transport so much
# that a quiet CQ stops meaning a finished step.
JOBS=${RXC_DIFF_JOBS:-16}
OUT=$RESULTS/diff
# Seeds left different after the comparison that get a minimal program.
MINIMIZE=3

if [ "$DEV_TYPE" != rxc ]; then
	skip "rdma_rxe against rxc" "only meaningful with rxc"
	exit 0
fi
if [ ! -x "$VDIFF" ]; then
	skip "rdma_rxe against rxc" "vdiff not built (make -C tests/diff)"
	exit 0
fi
mkdir -p "$OUT"

cleanup() {
	local ns
	rdma link delete rxe8 2>/dev/null || true
	for ns in dfb dfc dfd; do $IP netns delete "$ns" 2>/dev/null || true; done
	modprobe -r rdma_rxe 2>/dev/null || true
	return 0
}

# in_ns NS DEV ADDR: a command moving DEV into NS with ADDR/24, up.
in_ns() {
	echo "$IP link set $2 netns $1 && $IP -n $1 addr add $3/24 dev $2 &&
	      $IP -n $1 link set $2 up && $IP -n $1 link set lo up"
}

# rdma_rxe binds UDP/4791 in the initial namespace when it loads: free it.
run "rdma link delete $DEV" 30 rdma link delete "$DEV"
modprobe crc32_generic 2>/dev/null || modprobe crc32-pclmul 2>/dev/null || true
trap cleanup EXIT
run "modprobe rdma_rxe" 60 modprobe rdma_rxe
for ns in dfb dfc dfd; do run "create namespace $ns" 30 $IP netns add "$ns"; done
run "create veth8/veth9 and veth10/veth11" 30 sh -c \
	"$IP link add veth8 type veth peer name veth9 &&
	 $IP link add veth10 type veth peer name veth11"
run "veth8 up with 10.81.0.1" 30 sh -c \
	"$IP addr add 10.81.0.1/24 dev veth8 && $IP link set veth8 up"
run "veth9 into dfb" 30 sh -c "$(in_ns dfb veth9 10.81.0.2)"
run "veth10 into dfc" 30 sh -c "$(in_ns dfc veth10 10.82.0.1)"
run "veth11 into dfd" 30 sh -c "$(in_ns dfd veth11 10.82.0.2)"
run "rxe8 on veth8" 30 rdma link add rxe8 type rxe netdev veth8
run "rxc9 on veth9 in dfb" 30 $IP netns exec dfb rdma link add rxc9 type rxc netdev veth9
run "rxc10 on veth10 in dfc" 30 $IP netns exec dfc rdma link add rxc10 type rxc netdev veth10
run "rxc11 on veth11 in dfd" 30 $IP netns exec dfd rdma link add rxc11 type rxc netdev veth11
declare -A END
for dev_addr in "rxe8 10.81.0.1" "rxc9 10.81.0.2" "rxc10 10.82.0.1" "rxc11 10.82.0.2"; do
	read -r dev addr <<<"$dev_addr"
	check "$dev has a RoCE v2 GID for $addr" wait_for 20 gid_index_of "$dev" "$addr"
	END[$dev]=$dev:$(gid_index_of "$dev" "$addr" || echo 1)
done

# The runs: NAME SIDE-A SIDE-B [VDIFF-OPTIONS].  Where both sides are rxc,
# -c makes a side without counters fail the setup.  The last two make
# programs with ATOMIC_WRITE (vdiff -w), which 6.1's rdma_rxe lacks: they
# compare rxc across namespaces with rxc's loopback, and the counters
# with their model.
MODES=(
	"rxe-lo ${END[rxe8]} ${END[rxe8]}"
	"rxc-lo ${END[rxc9]} ${END[rxc9]} -c"
	"rxc-ns ${END[rxc10]} ${END[rxc11]} -c"
	"mixed ${END[rxe8]} ${END[rxc9]}"
	"rxc-lo-aw ${END[rxc9]} ${END[rxc9]} -w -c"
	"rxc-ns-aw ${END[rxc10]} ${END[rxc11]} -w -c"
)
RXC_ONLY="rxc-lo rxc-ns rxc-lo-aw rxc-ns-aw"
[ "$RXE_AW" = 0 ] || MODES+=("rxe-lo-aw ${END[rxe8]} ${END[rxe8]} -w")
for m in "${MODES[@]}"; do
	read -r name a b opt <<<"$m"
	t0=$(date +%s)
	run "$name: $SEEDS programs from seed $FIRST" $((60 + SEEDS * 10 * SLOW)) \
		sh -c "'$VDIFF' run $opt -q $QUIET -j $JOBS '$a' '$b' $FIRST $SEEDS >'$OUT/$name.trace'"
	echo "# $name: $SEEDS programs in $(($(date +%s) - t0)) s"
	check "$name: every program set up" \
		sh -c "! grep -q '^setup:' '$OUT/$name.trace'"
done

# ref_odd CMP REF_A REF_B CAND GEN [--known=FILE...]: true, printing the
# seeds, when rdma_rxe's reference, re-run alone on each seed CMP left
# unexplained, agrees with CAND's trace of it (the known differences
# apart).  rdma_rxe is not under test, and under
# the load of JOBS programs it has gone wrong on its own: 7.3's responder
# reached a copy with no MR (its WARN_ON in rxe_mr_copy) and moved both
# QPs to ERR without an error completion (seed 284), and 7.3's rxe-lo
# once placed other bytes than rxc-lo, rxc-ns and mixed all did (seed
# 306).  A candidate is never re-run: a difference of its own, timing's
# or not, stays one.
# differing CMP: the seeds a comparison left unexplained, one a line.
differing() { sed -n 's/^seed \([0-9]*\) differs:$/\1/p' "$1"; }

ref_odd() {
	local cmp=$1 ra=$2 rb=$3 cand=$4 gen=$5 seeds seed
	shift 5
	seeds=$(differing "$cmp")
	[ -n "$seeds" ] || return 1
	for seed in $seeds; do
		timeout -k 5 $((300 * SLOW)) python3 "$COMPARE" recheck --quiet "$QUIET" \
			${gen:+"--gen-opt=$gen"} "$@" "$VDIFF" "$seed" "$ra" "$rb" \
			"$OUT/$cand.trace" >&2 || return 1
	done
	echo "seeds $(paste -sd" " <<<"$seeds")"
}

# agree REF CAND [--known=FILE...]: CAND's traces against REF's, minimal
# programs for the first seeds that differ unexplained.
agree() {
	local ref=$1 cand=$2 cmp=$OUT/$2-vs-$1.cmp ra rb a b opt gen='' seed left
	shift 2
	read -r _ ra rb _ <<<"$(printf '%s\n' "${MODES[@]}" | grep "^$ref ")"
	read -r _ a b opt <<<"$(printf '%s\n' "${MODES[@]}" | grep "^$cand ")"
	# The re-runs share the generator's option; -c would fail rdma_rxe.
	[[ " $opt " != *" -w "* ]] || gen=-w
	if python3 "$COMPARE" compare "$OUT/$ref.trace" "$OUT/$cand.trace" \
		"$@" >"$cmp" 2>&1; then
		pass "$cand agrees with $ref ($(tail -n 1 "$cmp"))"
		return 0
	fi
	if [ "${ref%%-*}" = rxe ] && left=$(ref_odd "$cmp" "$ra" "$rb" "$cand" "$gen" "$@"); then
		pass "$cand agrees with $ref ($(tail -n 1 "$cmp"); rdma_rxe re-ran $left alone and agreed: its first trace was the odd one out)"
		return 0
	fi
	fail "$cand agrees with $ref" "$(tail -n 1 "$cmp")"
	grep -v ': known (' "$cmp" | head -n 60 || true
	for seed in $(differing "$cmp" | head -n "$MINIMIZE"); do
		timeout -k 5 $((600 * SLOW)) python3 "$COMPARE" minimize --quiet "$QUIET" \
			${gen:+"--gen-opt=$gen"} "$VDIFF" "$seed" "$ra" "$rb" "$a" "$b" || true
	done
}
for name in rxc-lo rxc-ns mixed; do agree rxe-lo "$name" "${KNOWN[@]}"; done
agree rxc-lo rxc-ns
agree rxc-lo-aw rxc-ns-aw
[ "$RXE_AW" = 0 ] || agree rxe-lo-aw rxc-lo-aw "${KNOWN[@]}"

# The re-check's own test, on a seed where rxc-lo and rdma_rxe agree:
# its bytes changed in a copy of one trace.  Changed in rdma_rxe's, the
# re-run reference agrees with rxc-lo; changed in rxc-lo's, it must not,
# so that the re-check cannot excuse rxc.
same=$(comm -23 <(sed -n 's/^seed \([0-9]*\)$/\1/p' "$OUT/rxe-lo.trace" | sort) \
	<(sed -n 's/^seed \([0-9]*\)[ :].*/\1/p' "$OUT/rxc-lo-vs-rxe-lo.cmp" | sort) |
	sort -n | head -n 1)
# odd_of WHICH: a copy of WHICH's trace with seed $same's first "mem A"
# line changed, as $OUT/odd-WHICH.trace, compared as $OUT/odd-WHICH.cmp.
odd_of() {
	awk -v s="seed $same" '$0 == s { in_s = 1 } /^seed / && $0 != s { in_s = 0 }
	     in_s && !done && /^mem A / { $0 = "mem A 0000000000000000"; done = 1 } 1' \
		"$OUT/$1.trace" >"$OUT/odd-$1.trace"
	if [ "$1" = rxe-lo ]; then
		python3 "$COMPARE" compare "$OUT/odd-$1.trace" "$OUT/rxc-lo.trace" "${KNOWN[@]}"
	else
		python3 "$COMPARE" compare "$OUT/rxe-lo.trace" "$OUT/odd-$1.trace" "${KNOWN[@]}"
	fi >"$OUT/odd-$1.cmp" 2>&1 || true
}
# fails CMD...: true when CMD fails.
fails() { ! "$@"; }
odd_of rxe-lo
odd_of rxc-lo
check "re-check: a reference trace changed after its run (seed $same) is re-run and agrees" \
	ref_odd "$OUT/odd-rxe-lo.cmp" "${END[rxe8]}" "${END[rxe8]}" rxc-lo "" "${KNOWN[@]}"
check "re-check: a candidate trace changed after its run (seed $same) is not excused" \
	fails ref_odd "$OUT/odd-rxc-lo.cmp" "${END[rxe8]}" "${END[rxe8]}" odd-rxc-lo "" "${KNOWN[@]}"

# Each rxc side's six counters against what its completions say they must
# hold (tests/diff/model.c): vdiff prints a "counted" line where they
# differ.  No rdma_rxe bug excuses these, and the runs above compare the
# models of both drivers.
# model_misses TRACE: each seed whose counters missed their model, with
# the model and what was counted; false if any.  A seed with a step that
# never completed is left out: without the requester's statuses the model
# cannot say what its peer counted (rdma_rxe's stalls, in mixed; below,
# a step of rxc's that never completes fails on its own).
model_misses() {
	awk '/^seed /{ s = $2; stalled = 0 } /: no completion for the step$/{ stalled = 1 }
	     /^cntr /{ m = $0 }
	     /^  cntr . counted/ && !stalled { if (n++ < 20) print "seed " s ": " m " /" $0 }
	     END { exit n > 0 }' "$1"
}
for name in $RXC_ONLY mixed; do
	check "$name: counters hold what the completions say" \
		model_misses "$OUT/$name.trace"
done
# Where rxc is both requester and responder, every step completes: the
# model's excuse above is for rdma_rxe's stalls alone, and the -aw runs
# have no rdma_rxe reference that would report one.
for name in $RXC_ONLY; do
	check "$name: every step completes" \
		sh -c "! grep -m 5 -B 30 ': no completion for the step\$' '$OUT/$name.trace'"
done

trap - EXIT
cleanup
run "re-create $DEV" 60 rdma link add "$DEV" type rxc netdev "$NETDEV"
check "$DEV port active" wait_for 20 port_active
