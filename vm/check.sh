#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The project's test command: build everything, run the guest test suite
# in a VM on each of Debian 12's stock kernels (6.1 and 6.12) and on the
# debug kernel (KASAN, lockdep, kmemleak, KUnit), check each kernel log,
# print where the time went, and close with
#   N passed, N failed, N skipped
# Exit status is non-zero when anything failed (a VM timeout included).
#
#   vm/check.sh          the fast tier: what CI runs, within 50 minutes on a
#                        fresh machine (packages and debug kernel included)
#   vm/check.sh --full   the whole matrix: every group on every kernel that
#                        can run it, at full size (about 75 minutes warm)
#
# The tiers differ only in which groups run on which kernel (groups_of
# below) and in RXC_TIER, which a few guest groups read to run a
# representative part of a large matrix.  Every group runs on at least one
# kernel in the fast tier; nothing runs only in --full except repeats.
#
# Environment: RXC_KERNELS (default "stock stock-6.12 stock-7.3 stock-7.2
# debug debug-compat", names from
# vm/kernels.sh), RXC_GROUPS (some guest groups only, on every kernel, see
# tests/guest/run-all.sh), RXC_FUZZ_PACKETS /
# RXC_FUZZ_SEED (the packet fuzzer's length and seed),
# RXC_UVERBS_FUZZ_CALLS / RXC_UVERBS_FUZZ_SEED / RXC_UVERBS_FUZZ_THREADS
# (the uverbs fuzzer's), RXC_RING_FUZZ_ACTIONS / RXC_RING_FUZZ_SEED (the
# ring fuzzer's), RXC_FAULT_PCT / RXC_FAULT_SECS (t-faults' skb fault
# rate and time), NETEM_MIB / NETEM_LOSS / NETEM_SECS / NETEM_TIMEOUT /
# NETEM_WINDOW / NETEM_SEND_ONLY (t-netem's transfer, see there),
# LIVENESS_FIRST / LIVENESS_SEEDS / LIVENESS_LANES / LIVENESS_SIZE /
# LIVENESS_SOFTIRQ_MS / LIVENESS_ONLY / LIVENESS_EXTRA (t-liveness's
# scenarios, see there),
# DEV_TYPE=rxc|rxe (default rxc once
# vm/build-modules.sh exists, else rxe), RXC_RESULTS (default
# build/vm-results), RXC_TIMEOUT_STOCK / RXC_TIMEOUT_DEBUG (seconds per VM
# run: a stock kernel's 1800, 3600 in --full; the debug kernels' 3600),
# RXC_BENCH_SMOKE=0 (leave out the benchmark's smoke run).
set -euo pipefail

tier=fast
case ${1:-} in
'') ;;
--full) tier=full ;;
*) echo "usage: vm/check.sh [--full]" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
kernels=${RXC_KERNELS:-stock stock-6.12 stock-7.3 stock-7.2 debug debug-compat}
all_groups=$(sed -n 's/^all_groups="\(.*\)"$/\1/p' "$repo/tests/guest/run-all.sh")

# groups_of KERNEL: the guest groups KERNEL runs in this tier.
#
# 6.1 (stock), what most users run, runs every group, always.
#
# 6.12 runs what differs between the kernels: the verbs ABI and counters
# (t-verbs, t-comp-cntr, t-userspace), the tools and pyverbs against
# 6.12's own rdma_rxe, the interop matrix with it, the segmentation of
# rxc's send batches (t-batches: 6.12's UDP GSO code is its own), the
# packets handled in the receive softirq (t-softirq),
# lifetimes, removal and namespaces, UCX.  The fast tier runs the
# interop and tool matrices in part there (RXC_TIER) and leaves pyverbs,
# UCX, the Debian packages
# (DKMS under emulation, the longest group) and the teardown storms to
# 6.1; --full also runs the differential tester against 6.12's rdma_rxe,
# which has ATOMIC_WRITE.  The transport's
# loss, MTU and fuzz groups exercise code that does not depend on the
# kernel's interfaces; 6.1 and the debug kernel run them, and so the
# liveness campaign (t-liveness: its smoke on 6.1 in the fast tier and on
# the debug kernel in --full, every row on 6.1 in --full).
#
# 7.3 is the first kernel whose core has upstream's counter object: its
# fast tier runs everything that reaches the counters through it (the
# device, the verbs and counter tests, librxc).  7.2 has the interfaces of
# 7.x without that object: the device and the counter tests through rxc's
# own object.  --full runs every group on both but t-packages: the guests'
# userland is Debian 12's, whose compiler cannot build against 7.x
# headers, so DKMS is checked for 7.2 and 7.3 in the sid root instead
# (tests/host/t-packages-sid.sh, in the background job).
#
# The debug kernel's sanitizers find what functional tests cannot, on the
# paths that create, share and free objects: lifetimes, teardown,
# removal, the counters, the fuzzers' smoke, fault injection (its own
# config only), the send batches that the network stack takes apart and
# the completions and ACKs made in the receive softirq.
# Its core carries upstream's counter object
# (kernel-patches/), so its counter tests, librxc's (t-userspace)
# included, run rxc's core path, which the stock kernels cannot.  The fast tier runs those there, with smaller loads
# (lib.sh by_kernel); --full runs everything.
#
# debug-compat is the same kernel with Debian's unpatched RDMA modules
# (vm/build-debug-compat.sh), where rxc links its own counter object, the
# one 6.1, 6.12 and 7.2 run: the counter group runs there, so that the
# sanitizers watch both objects.  --full adds librxc and the paths that
# free counters under a live process (lifetimes, removal, the uverbs
# fuzzer).
#
# The time CI has is spent by the debug kernel: its build in the
# background ends about when the stock guests do, and its guests run
# last, alone.  A " | " splits a kernel's groups between guests that run at
# once: one guest keeps about one of the two CPUs busy (most groups are one
# process talking to itself), so two guests finish the debug kernel's
# share in little more than half the time.
groups_of() {
	case $1/$tier in
	stock/*) echo "$all_groups" ;;
	stock-6.12/fast) echo "t-device t-verbs t-comp-cntr t-userspace t-tools t-batches t-softirq t-lifecycle t-removal t-net t-netns-move t-interop t-kunit" ;;
	stock-6.12/full) echo "t-device t-verbs t-comp-cntr t-userspace t-tools t-batches t-softirq t-pyverbs t-lifecycle t-removal t-net t-netns-move t-ucx t-teardown t-interop t-diff t-packages t-kunit" ;;
	stock-7.3/fast) echo "t-device t-verbs t-comp-cntr t-userspace" ;;
	stock-7.2/fast) echo "t-device t-comp-cntr" ;;
	stock-7.*/full) echo "${all_groups/ t-packages/}" ;;
	debug/fast) echo "t-comp-cntr t-userspace t-lifecycle t-fuzz-packets t-kunit | t-removal t-teardown t-faults t-fuzz-uverbs t-fuzz-rings t-batches t-softirq" ;;
	debug/full) echo "$all_groups" ;;
	debug-compat/fast) echo "t-comp-cntr" ;;
	debug-compat/full) echo "t-comp-cntr t-userspace t-lifecycle t-removal t-teardown t-fuzz-uverbs" ;;
	esac
}
# cpu_model_of KERNEL: QEMU's CPU for its guests.  6.12's has PCLMULQDQ
# (Westmere, the first x86 with it), so the accelerated CRC-32 computes
# the ICRC there, against rdma_rxe's in t-interop; the others keep QEMU's
# default, without it, and crc32_le().
cpu_model_of() {
	case $1 in
	stock-6.12) echo Westmere ;;
	*) echo qemu64 ;;
	esac
}
out=${RXC_RESULTS:-$repo/build/vm-results}
if [ -z "${DEV_TYPE:-}" ]; then
	if [ -f "$here/build-modules.sh" ]; then DEV_TYPE=rxc; else DEV_TYPE=rxe; fi
fi
log() { echo "check: $*" >&2; }

mkdir -p "$out"
host_tap=$out/host.tap	# results of the host-side steps
: >"$host_tap"
res() { echo "$1 - $2" | tee -a "$host_tap"; }
# step NAME CMD...: a host build step is one test result.
step() {
	local name=$1
	shift
	if "$@"; then res ok "$name"; return 0; fi
	res "not ok" "$name"
	return 1
}

check_t0=$(date +%s)
# Where the time goes: "NAME: N s" per phase, printed before the totals.
splits=()
split_since() {	# split_since NAME T0
	splits+=("$1: $(($(date +%s) - $2)) s")
}

t0=$(date +%s)
"$here/install-deps.sh"
split_since "install" "$t0"

# The debug kernel builds in the background at the lowest CPU priority
# while the host steps and the stock guests run: those leave about a third
# of the two CPUs idle (guests waiting on timers and peers), and the build
# takes it.  It is waited for only when the debug guest is due.  A cached
# build returns at once.  Its source, which checkpatch comes from, is
# unpacked first.
debug_dir='' debug_pid='' debug_t0=$(date +%s)
if [[ " $kernels " == *" debug"[\ -]* ]]; then
	t0=$(date +%s)
	"$here/build-debug-kernel.sh" --source >/dev/null
	split_since "debug kernel source (checkpatch's too)" "$t0"
	log "debug kernel: building in the background (cached after the first build, about 10 minutes alone)"
	# shellcheck disable=SC2094 # one writer at a time
	(nice -n 19 "$here/build-debug-kernel.sh" >"$out/debug-kernel.dir" &&
	 if [[ " $kernels " == *" debug-compat "* ]]; then
		RXC_DEBUG_KERNEL_DIR=$(cat "$out/debug-kernel.dir") \
			nice -n 19 "$here/build-debug-compat.sh" >/dev/null
	 fi) 2>"$out/debug-kernel.log" &
	# shellcheck disable=SC2034 # bg_wait reads it by name
	debug_pid=$!
fi

# The sid root, which builds rxc for Linux 7.x, the 7.x kernels the
# guests boot, and with 7.3, rdma-core 65 built from sid's source with
# rdma-core-patches/ and librxc built against it (its host checks' TAP in
# librxc-sid.tap), then libfabric 2.1.0 with libfabric-patches/ and its
# fabtests, and tests/libfabric against them, and in --full the Debian
# packages built and installed there beside rdma-core 65
# (tests/host/t-packages-sid.sh, packages-sid.tap): made in the
# background, at the lowest CPU priority, while the host steps and the
# Debian 12 guests run.  Cached: a rerun returns at once.
sid_pid='' sid_t0=$(date +%s)
sid_kernels=$(for k in $kernels; do case $k in stock-7.*) echo "${k#stock-}" ;; esac; done)
rdma_core_65=0
[[ " $kernels " != *" stock-7.3 "* ]] || rdma_core_65=1
# build_libfabric: libfabric 2.1.0 with libfabric-patches/ and fabtests
# (libfabric-patches/build.sh, cached), then lf_cntr against them; the
# prefix goes to libfabric.dir once both are built.
build_libfabric() {
	local lf

	rm -f "$out/libfabric.dir"
	lf=$(nice -n 19 "$repo/libfabric-patches/build.sh") &&
		nice -n 19 "$here/sid-root.sh" run -b "$repo" -b "$lf" \
			make -s -C "$repo/tests/libfabric" LIBFABRIC="$lf" &&
		echo "$lf" >"$out/libfabric.dir"
}
if [ -n "$sid_kernels" ]; then
	log "sid root and Linux ${sid_kernels//$'\n'/, }: preparing in the background"
	# shellcheck disable=SC2086 # one word per series
	(nice -n 19 "$here/sid-root.sh" >/dev/null &&
	 for s in $sid_kernels; do "$here/sid-root.sh" install-kernel "$s" || exit; done &&
	 if [ "$rdma_core_65" = 1 ]; then
		RXC_RDMA_CORE=patched nice -n 19 "$repo/userspace/tests/check-sid.sh" \
			>"$out/librxc-sid.tap"
		build_libfabric
	 fi &&
	 if [ "$rdma_core_65" = 1 ] && [ "$tier" = full ]; then
		# Its results are its TAP's, read by sid_root_wait.
		nice -n 19 "$repo/tests/host/t-packages-sid.sh" >"$out/packages-sid.tap" || true
	 fi) >"$out/sid-root.log" 2>&1 &
	# shellcheck disable=SC2034 # bg_wait reads it by name
	sid_pid=$!
fi

# bg_wait PIDVAR T0 WHAT LOG: wait for the background job whose pid is in
# the variable PIDVAR (none: return at once) and started at T0; record
# one split and the result "WHAT", with LOG's tail when it failed.
# Fails when the job did.
bg_wait() {
	local -n pid_ref=$1
	local t0 rc=0
	[ -n "$pid_ref" ] || return 0
	t0=$(date +%s)
	wait "$pid_ref" || rc=$?
	pid_ref=''
	split_since "$3 (in the background, then waited for $(($(date +%s) - t0)) s)" "$2"
	if [ "$rc" -eq 0 ]; then
		res ok "$3"
		return 0
	fi
	tail -n 30 "$4" >&2
	res "not ok" "$3"
	return 1
}

# sid_root_wait: the sid root, the 7.x kernels and rdma-core 65, and
# librxc's checks on 65 as results of their own.
sid_root_wait() {
	bg_wait sid_pid "$sid_t0" "sid root, the 7.x kernels and rdma-core 65 with the series" \
		"$out/sid-root.log" || true
	[ ! -f "$out/librxc-sid.tap" ] ||
		grep -E '^(not )?ok - ' "$out/librxc-sid.tap" |
		sed 's/^\(\(not \)\?ok\) - /\1 - librxc on libibverbs 65: /' |
		tee -a "$host_tap"
	[ ! -f "$out/packages-sid.tap" ] ||
		grep -E '^(not )?ok - ' "$out/packages-sid.tap" | tee -a "$host_tap" ||
		res "not ok" "packages on sid: no results (see sid-root.log)"
	[ "$rdma_core_65" = 1 ] || return 0
	if [ -s "$out/libfabric.dir" ]; then
		res ok "build: libfabric 2.1.0 with libfabric-patches/, fabtests, lf_cntr"
	else
		res "not ok" "build: libfabric 2.1.0 with libfabric-patches/, fabtests, lf_cntr (see sid-root.log)"
	fi
}

# debug_kernel_wait: the debug kernel (and debug-compat's modules); sets
# debug_dir when it was built.
debug_kernel_wait() {
	bg_wait debug_pid "$debug_t0" "build: debug kernel" "$out/debug-kernel.log" &&
		debug_dir=$(cat "$out/debug-kernel.dir")
}

t0=$(date +%s)
step "style: checkpatch --strict on every C file" make -s -C "$repo" checkpatch || true
step "build: core completion counter probe picks each path" make -s -C "$repo" check-probe || true
step "tests: the guest helper pair() fails every failed run" "$repo/tests/host/t-guest-lib.sh" || true
step "tests: the bench's round order and report's paired statistics" "$repo/tests/host/t-bench-report.sh" || true
step "tests: perf-tree splits a profile's samples by context and stage" "$repo/tests/host/t-perf-tree.sh" || true
step "tests: scan-dmesg skips only expected allocation-failure reports" "$repo/tests/host/t-scan-dmesg.sh" || true
step "tests: each VM run starts from an empty results dir" "$repo/tests/host/t-results-dir.sh" || true
step "tests: install-deps gets a bare machine to apt-get install" "$repo/tests/host/t-install-deps.sh" || true
step "tests: the liveness tool's requests follow from the seed alone" "$repo/tests/host/t-liveness-draws.sh" || true

if [ -f "$repo/tests/verbs/Makefile" ]; then
	step "build: C verbs tests" make -s -C "$repo/tests/verbs" || true
fi
if [ -f "$repo/tests/diff/Makefile" ]; then
	step "build: vdiff, the differential tester" make -s -C "$repo/tests/diff" || true
fi

# tap_of NAME CMD...: CMD prints TAP lines; they count as host results.  A
# failing CMD that printed no "not ok" line adds one of its own.
tap_of() {
	local name=$1 out rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	echo "$out" | grep -E '^((not )?ok - |#)' | tee -a "$host_tap"
	if [ "$rc" -ne 0 ] && ! echo "$out" | grep -q '^not ok - '; then
		echo "$out" | tail -n 20 >&2
		res "not ok" "$name: exit status $rc"
	fi
	return 0
}

tap_of "vdiff's comparison ignores when a completion was polled" "$repo/tests/host/t-diff-compare.sh"

# librxc (userspace/): built here for the guest's t-userspace group; its
# ABI test, header-deferral check and man page check need no device.
if [ -f "$repo/userspace/Makefile" ]; then
	if step "build: librxc, its tests and examples" make -s -C "$repo/userspace"; then
		tap_of "librxc host checks" make -s -C "$repo/userspace" check-host
	fi
fi
# The rdma-core and libfabric series: here, only that every patch parses
# (their READMEs); the sid job builds them, the 7.3 stage tests them.
if [ -f "$repo/rdma-core-patches/check-patches.sh" ]; then
	tap_of "rdma-core-patches" sh "$repo/rdma-core-patches/check-patches.sh"
fi
if [ -f "$repo/libfabric-patches/check-patches.sh" ]; then
	tap_of "libfabric-patches" sh "$repo/libfabric-patches/check-patches.sh"
fi
# Documentation/*.rst: each parses without a docutils warning.
tap_of "docs" "$repo/tests/host/t-docs.sh"
# The Debian packages: built, linted, their contents, DKMS for each
# installed kernel (tests/host/t-packages.sh); installed in the guests.
if [ -f "$repo/debian/control" ]; then
	tap_of "Debian packages" "$repo/tests/host/t-packages.sh" "$repo/build/packages"
fi
split_since "host tests and builds" "$t0"

# count FILE...: "P F S" for the TAP lines in FILEs.
count() {
	local p f s
	p=$(cat "$@" 2>/dev/null | grep -E '^ok ' | grep -cvE ' # SKIP( |$)' || true)
	s=$(cat "$@" 2>/dev/null | grep -E '^ok ' | grep -cE ' # SKIP( |$)' || true)
	f=$(cat "$@" 2>/dev/null | grep -cE '^not ok ' || true)
	echo "$p $f $s"
}

# tap_label NAME: put "NAME: " in front of each TAP test name on stdin.
tap_label() { sed "s/^\\(\\(not \\)\\?ok\\) - /\\1 - $1: /"; }

# dmesg_verdict DIR NAME: one TAP line, whether DIR's kernel log is clean.
dmesg_verdict() {
	if "$here/scan-dmesg.sh" "$1"; then
		echo "ok - $2: kernel log clean (scan-dmesg)"
	else
		echo "not ok - $2: kernel log clean (scan-dmesg)"
	fi
}

# run_guest K LABEL GROUPS: one VM run of the guest suite on kernel K
# with GROUPS, results in $out/LABEL; everything counted for it goes to
# $out/LABEL.guest.tap, each name prefixed with LABEL.  Reads
# run_kernel's mods and tmo.
run_guest() {
	local k=$1 label=$2 groups=$3 r=$out/$2 gtap=$out/$2.guest.tap rc=0
	gres() { echo "$1 - $label: $2" | tee -a "$gtap"; }
	rm -rf "$r"
	mkdir -p "$r"
	: >"$gtap"
	log "$label: groups $groups"
	RXC_DEBUG_KERNEL_DIR=$debug_dir "$here/run-vm.sh" --kernel "$k" \
		--cpu-model "$(cpu_model_of "$k")" \
		--guest-script "$repo/tests/guest/run-all.sh" --results "$r" \
		--modules "$mods" --timeout "$tmo" \
		--env "DEV_TYPE=$DEV_TYPE" --env "VERBS_DIR=$repo/build/tests/verbs" \
		--env "RXC_DATA_PATH=${RXC_DATA_PATH:-1}" \
		--env "RXC_NETNS_TRAFFIC=${RXC_NETNS_TRAFFIC:-1}" \
		--env "RXC_GROUPS=$groups" --env "RXC_TIER=$tier" \
		--env "RXC_FUZZ_PACKETS=${RXC_FUZZ_PACKETS:-}" \
		--env "RXC_FUZZ_SEED=${RXC_FUZZ_SEED:-}" \
		--env "RXC_UVERBS_FUZZ_CALLS=${RXC_UVERBS_FUZZ_CALLS:-}" \
		--env "RXC_UVERBS_FUZZ_SEED=${RXC_UVERBS_FUZZ_SEED:-}" \
		--env "RXC_UVERBS_FUZZ_THREADS=${RXC_UVERBS_FUZZ_THREADS:-}" \
		--env "RXC_RING_FUZZ_ACTIONS=${RXC_RING_FUZZ_ACTIONS:-}" \
		--env "RXC_RING_FUZZ_SEED=${RXC_RING_FUZZ_SEED:-}" \
		--env "RXC_FAULT_PCT=${RXC_FAULT_PCT:-}" \
		--env "RXC_FAULT_SECS=${RXC_FAULT_SECS:-}" \
		--env "RXC_DIFF_FIRST=${RXC_DIFF_FIRST:-}" \
		--env "RXC_DIFF_SEEDS=${RXC_DIFF_SEEDS:-}" \
		--env "RXC_DIFF_JOBS=${RXC_DIFF_JOBS:-}" \
		--env "NETEM_MIB=${NETEM_MIB:-}" \
		--env "NETEM_LOSS=${NETEM_LOSS:-}" \
		--env "NETEM_SECS=${NETEM_SECS:-}" \
		--env "NETEM_TIMEOUT=${NETEM_TIMEOUT:-}" \
		--env "NETEM_WINDOW=${NETEM_WINDOW:-}" \
		--env "NETEM_SEND_ONLY=${NETEM_SEND_ONLY:-}" \
		--env "LIVENESS_FIRST=${LIVENESS_FIRST:-}" \
		--env "LIVENESS_SEEDS=${LIVENESS_SEEDS:-}" \
		--env "LIVENESS_LANES=${LIVENESS_LANES:-}" \
		--env "LIVENESS_SIZE=${LIVENESS_SIZE:-}" \
		--env "LIVENESS_SOFTIRQ_MS=${LIVENESS_SOFTIRQ_MS:-}" \
		--env "LIVENESS_ONLY=${LIVENESS_ONLY:-}" \
		--env "LIVENESS_EXTRA=${LIVENESS_EXTRA:-}" || rc=$?
	case $rc in
	0) gres ok "vm: guest suite completed" ;;
	124) gres "not ok" "vm: timed out after ${tmo}s" ;;
	125) gres "not ok" "vm: guest died before finishing (see $r/console.log)" ;;
	*) gres "not ok" "vm: guest suite exited with status $rc (see $r/guest.log)" ;;
	esac
	# The guest's own results, then KUnit's from the kernel log.
	if [ -f "$r/results.tap" ]; then tap_label "$label" <"$r/results.tap" >>"$gtap"; fi
	"$here/parse-ktap.sh" "$r" | tap_label "$label" >>"$gtap"
	# The interop group's capture is checked here, at native speed.
	"$repo/tests/host/t-capture.sh" "$r" | tap_label "$label" | tee -a "$gtap"
	dmesg_verdict "$r" "$label" | tee -a "$gtap"
}

guest_dirs=()	# every guest's results, for the failure report
# run_kernel K: build the modules for kernel K, run its guests (one per
# " | "-separated part of its groups, at once) and collect everything
# counted for K into $out/K.tap.
run_kernel() {
	local k=$1 ktap=$out/$1.tap mods='' tmo groups parts i label pids=() labels=()
	kres() { echo "$1 - $k: $2" | tee -a "$ktap"; }
	: >"$ktap"
	case $k in
	debug*) debug_kernel_wait || true ;;
	stock-7.*) sid_root_wait ;;
	esac
	if [[ $k == debug* ]] && [ -z "$debug_dir" ]; then
		kres "not ok" "vm: no debug kernel to boot"
		return
	fi
	if [ -f "$here/build-modules.sh" ]; then
		if mods=$(bash "$here/build-modules.sh" "$k"); then
			kres ok "build: driver modules, W=1 and sparse clean"
		else
			kres "not ok" "build: driver modules, W=1 and sparse clean"
			return
		fi
	fi
	# A 7.x kernel's --full runs every group in one guest: 1800 s was
	# too little on a busy host (7.3, 2026-12-06: cut in t-diff).
	case $k/$tier in
	debug*) tmo=${RXC_TIMEOUT_DEBUG:-3600} ;;
	*/full) tmo=${RXC_TIMEOUT_STOCK:-3600} ;;
	*) tmo=${RXC_TIMEOUT_STOCK:-1800} ;;
	esac
	groups=${RXC_GROUPS:-$(groups_of "$k")}
	IFS='|' read -ra parts <<<"$groups"
	log "$k kernel: running the guest suite in ${#parts[@]} guest(s), $tier tier (DEV_TYPE=$DEV_TYPE, timeout ${tmo}s)"
	# A kernel with one guest labels its results with its own name.
	for i in "${!parts[@]}"; do
		label=$k
		[ ${#parts[@]} -eq 1 ] || label=$k.$((i + 1))
		labels+=("$label")
		guest_dirs+=("$out/$label")
		run_guest "$k" "$label" "${parts[i]}" &
		pids+=($!)
	done
	wait "${pids[@]}" || true
	for label in "${labels[@]}"; do cat "$out/$label.guest.tap" >>"$ktap"; done
}

# The benchmark's smokes on the 6.1 kernel: every measurement runs on
# both drivers with tiny counts and must finish; the figures are printed
# and never judged.
#
# run_bench_smoke NAME TAP "RUN.SH ARGS" DIR...: one bench/run.sh --smoke
# run; each DIR is a guest's results, whose TAP lines and kernel log are
# counted in TAP.
run_bench_smoke() {
	local name=$1 btap=$2 args r rc=0 label
	read -ra args <<<"$3"
	shift 3
	bres() { echo "$1 - $name: $2" | tee -a "$btap"; }
	: >"$btap"
	log "$name: bench/run.sh --smoke ${args[*]}"
	bash "$repo/bench/run.sh" --smoke --rounds 1 "${args[@]}" >&2 || rc=$?
	if [ "$rc" -eq 0 ]; then
		bres ok "VM run and report"
	else
		bres "not ok" "VM run and report: exit status $rc (see $1/guest.log)"
	fi
	for r in "$@"; do
		if [ -f "$r/results.tap" ]; then
			tap_label "$name" <"$r/results.tap" >>"$btap"
		fi
		label=$name
		[ $# -eq 1 ] || label="$name, guest $(basename "$r")"
		dmesg_verdict "$r" "$label" | tee -a "$btap"
	done
}

# run_sid_guest NAME LABEL SCRIPT [--pair] [--env K=V]...: one 7.3 guest
# running SCRIPT (rdma-core-patches/ or libfabric-patches/guest-check.sh),
# whose userspace is the sid root's rdma-core 65; counted in NAME.tap,
# each result named LABEL, the guest's files in $out/NAME.  --pair: two
# such guests on a virtio link (vm/run-pair.sh), their files in
# $out/NAME/a and $out/NAME/b.
run_sid_guest() {
	local name=$1 label=$2 script=$3 r=$out/$1 rtap=$out/$1.tap mods rc=0
	local runner=run-vm.sh dirs=("$out/$1") d
	shift 3
	if [ "${1:-}" = --pair ]; then
		runner=run-pair.sh dirs=("$r/a" "$r/b")
		shift
	fi
	: >"$rtap"
	rres() { echo "$1 - $label: $2" | tee -a "$rtap"; }
	if ! mods=$(bash "$here/build-modules.sh" stock-7.3); then
		rres "not ok" "build: driver modules"
		return
	fi
	rm -rf "$r"
	mkdir -p "$r"
	"$here/$runner" --kernel stock-7.3 --cpu-model "$(cpu_model_of stock-7.3)" \
		--guest-script "$script" \
		--results "$r" --modules "$mods" --timeout "${RXC_TIMEOUT_STOCK:-1800}" \
		--env DEV_TYPE=rxc --env "RXC_CACHE=${RXC_CACHE:-/var/cache/rxc}" \
		--env "RXC_TIER=$tier" "$@" || rc=$?
	case $rc in
	0) rres ok "vm: guest completed" ;;
	124) rres "not ok" "vm: timed out" ;;
	*) rres "not ok" "vm: guest exited with status $rc (see ${dirs[0]}/guest.log)" ;;
	esac
	for d in "${dirs[@]}"; do
		[ ! -f "$d/results.tap" ] || tap_label "$label" <"$d/results.tap" >>"$rtap"
		if [ "${#dirs[@]}" -eq 1 ]; then
			dmesg_verdict "$d" "$label"
		else
			dmesg_verdict "$d" "$label, guest ${d##*/}"
		fi | tee -a "$rtap"
		guest_dirs+=("$d")
	done
}

# summarize NAME TAP T0: add TAP to the totals and NAME's line, with the
# seconds since T0, to the summary and the time split.
summarize() {
	local p f s
	taps+=("$2")
	read -r p f s <<<"$(count "$2")"
	summaries+=("$1: $p passed, $f failed, $s skipped in $(($(date +%s) - $3))s")
	split_since "$1" "$3"
}

# run_kernels K...: each kernel's guest suite, in turn.
run_kernels() {
	local k t0
	for k in "$@"; do
		t0=$(date +%s)
		run_kernel "$k"
		summarize "$k kernel" "$out/$k.tap" "$t0"
	done
}

taps=("$host_tap")
summaries=()
# Debian 12's kernels first, then the benchmark's smokes, then 7.x, then
# the debug kernel: the background work (the sid root, the debug build)
# gets the most time.
deb12_kernels=() sid_run=()
for k in $kernels; do
	case $k in
	debug*) ;;
	stock-7.*) sid_run+=("$k") ;;
	*) deb12_kernels+=("$k") ;;
	esac
done
run_kernels ${deb12_kernels[@]+"${deb12_kernels[@]}"}
if [[ " $kernels " == *" stock "* ]] && [ "${RXC_BENCH_SMOKE:-1}" = 1 ] &&
	[ -f "$repo/bench/run.sh" ]; then
	t0=$(date +%s)
	# Unpinned: pinning puts the guest's two vCPUs on one core, which
	# would lengthen the smoke; the wire smoke runs pinned.
	run_bench_smoke "bench smoke" "$out/bench.tap" --no-pin "$repo/build/bench-results/stock"
	summarize "bench smoke" "$out/bench.tap" "$t0"
	# Two guests on a virtio link: the wire's tests and the middleware.
	t0=$(date +%s)
	w=$repo/build/bench-results/stock-wire-1cpu
	run_bench_smoke "wire bench smoke" "$out/wire.tap" --wire "$w/a" "$w/b"
	summarize "wire bench smoke" "$out/wire.tap" "$t0"
fi
run_kernels ${sid_run[@]+"${sid_run[@]}"}
# rdma-core 65 with the series, in the sid root, on 7.3's core object:
# stock ibv_devinfo, upstream pyverbs' counter tests, librxc's examples;
# then libfabric's fi_cntr on it (lf_cntr, fabtests).
if [ "$rdma_core_65" = 1 ]; then
	t0=$(date +%s)
	run_sid_guest rdma-core-65 "rdma-core 65 on 7.3" \
		"$repo/rdma-core-patches/guest-check.sh"
	summarize "rdma-core 65 on 7.3" "$out/rdma-core-65.tap" "$t0"
	t0=$(date +%s)
	run_sid_guest libfabric "libfabric on 7.3" \
		"$repo/libfabric-patches/guest-check.sh" \
		--env "RXC_LIBFABRIC=$(cat "$out/libfabric.dir" 2>/dev/null)"
	summarize "libfabric on 7.3" "$out/libfabric.tap" "$t0"
	# --full: the same between two 7.3 guests on a virtio link (about
	# 80 s); the fast tier leaves it out for time.
	if [ "$tier" = full ]; then
		t0=$(date +%s)
		run_sid_guest libfabric-wire "libfabric wire on 7.3" \
			"$repo/libfabric-patches/guest-check.sh" --pair \
			--env "RXC_LIBFABRIC=$(cat "$out/libfabric.dir" 2>/dev/null)"
		summarize "libfabric wire on 7.3" "$out/libfabric-wire.tap" "$t0"
	fi
fi
[[ " $kernels " != *" debug "* ]] || run_kernels debug
[[ " $kernels " != *" debug-compat "* ]] || run_kernels debug-compat

echo
# context LOG: each failure in a guest log with what led to it: the
# lines since the last command the guest echoed ("+ ..."), at most 30,
# and the reason lines after it.  Only the end of CI's output may be
# seen, so a flaky failure must explain itself here.
context() {
	awk -v f="$1" '
	/^\+ / { n = 0 }
	/^not ok / {
		print "--- " f ": " $0
		s = n > 30 ? n - 30 : 0
		for (i = s; i < n; i++) print buf[i % 30]
		why = 1; n = 0; next
	}
	why && /^#/ { print; next }
	{ why = 0; buf[n % 30] = $0; n++ }' "$1"
}

echo "=== failures"
cat "${taps[@]}" | grep -E '^not ok ' || echo "(none)"
for d in ${guest_dirs[@]+"${guest_dirs[@]}"}; do
	[ ! -f "$d/guest.log" ] || context "$d/guest.log"
done
echo "=== time split ($tier tier, $(($(date +%s) - check_t0)) s in all)"
printf '%s\n' "${splits[@]}"
echo "=== summary ($tier tier, DEV_TYPE=$DEV_TYPE, results in $out)"
printf '%s\n' "${summaries[@]}"
read -r p f s <<<"$(count "${taps[@]}")"
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
