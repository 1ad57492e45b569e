# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# shellcheck shell=bash
#
# What the long runs share (vm/diff-long.sh, vm/liveness-long.sh), sourced
# by them: COUNT items (programs, scenarios) from seed FIRST, in guests of
# CHUNK items each, one after the other, on Debian's 6.1 kernel.  Each
# chunk is a whole run of one guest group, so a long run can be stopped
# between chunks and still says what it covered.
#
# long_run NAME GROUP FIRSTVAR SEEDSVAR FIRST COUNT CHUNK TENTHS [K=V...]
#	Runs guest group GROUP with FIRSTVAR and SEEDSVAR (the group's own
#	knobs) naming each chunk's seeds, and K=V in its environment; a
#	chunk's VM may take TENTHS tenths of a second an item and ten
#	minutes more.  Results in
#	build/NAME/SEED.  After each chunk it calls
#		chunk_done RESULTS SEED N ELAPSED
#	which the caller defines: it prints the chunk's line, adds to the
#	caller's totals and fails if the chunk did.  Returns non-zero if any
#	chunk or VM failed.

long_run() {
	local name=$1 group=$2 first_var=$3 seeds_var=$4 first=$5 count=$6
	local chunk=$7 tenths=$8 here repo out mods rc=0 seed n r t0 envs=()
	shift 8
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	repo=$(cd "$here/.." && pwd)
	out=$repo/build/$name
	mkdir -p "$out"
	for kv in "$@"; do envs+=(--env "$kv"); done

	mods=$(bash "$here/build-modules.sh" stock)
	make -s -C "$repo/tests/verbs"
	seed=$first
	while [ "$seed" -lt $((first + count)) ]; do
		n=$((first + count - seed))
		[ "$n" -le "$chunk" ] || n=$chunk
		r=$out/$seed
		rm -rf "$r"
		t0=$(date +%s)
		"$here/run-vm.sh" --kernel stock --guest-script "$repo/tests/guest/run-all.sh" \
			--results "$r" --modules "$mods" --timeout $((600 + n * tenths / 10)) \
			--env DEV_TYPE=rxc --env "VERBS_DIR=$repo/build/tests/verbs" \
			--env "RXC_GROUPS=$group" --env "$first_var=$seed" \
			--env "$seeds_var=$n" ${envs[@]+"${envs[@]}"} || rc=1
		chunk_done "$r" "$seed" "$n" $(($(date +%s) - t0)) || rc=1
		seed=$((seed + n))
	done
	return "$rc"
}
