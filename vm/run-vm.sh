#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Boot a throw-away QEMU guest that sees the host's root filesystem and run
# one script in it.
#
#   vm/run-vm.sh --kernel stock|stock-6.12|debug|debug-compat|stock-7.2|stock-7.3
#                --guest-script PATH --results DIR
#                [--modules DIR] [--timeout SECS] [--env K=V ...]
#                [--cpus N] [--cpu-model MODEL] [--wire LOCAL:PEER:MAC]
#                [--pin CORES]
#
# --cpu-model is QEMU's -cpu (its default, qemu64, when not given).
# --wire gives the guest one virtio NIC with address MAC on a QEMU
# datagram netdev: it receives on LOCAL and sends to PEER, where another
# guest listens (vm/run-pair.sh starts both).  Two port numbers make it
# UDP on 127.0.0.1, which drops a frame when the peer's socket buffer is
# full; two socket paths make it a Unix datagram socket, which holds the
# sender back instead, a lossless link.  The guest learns MAC as
# RXC_WIRE_MAC.  Without it the guest has no NIC at all.
# --pin keeps QEMU on the host cores CORES (a comma-separated list) and
# each vCPU's thread on one of them, vCPU i on the i-th (modulo their
# number), and says so in DIR/pinning.txt (bench/run.sh: the host's
# scheduler moving vCPUs between cores is part of a run's noise).  Give
# a guest as many cores as vCPUs: two vCPUs on one core leave a guest's
# kworker no room beside the thread that waits for it.
#
# DIR starts empty (vm/results-dir.sh).  In it afterwards: console.log
# (serial console), guest.log (the script's output), dmesg.txt,
# kmemleak.txt (debug kernel), results.tap (whatever the script reported).
# Exit status: the guest script's, 124 if the VM timed out, 125 if the
# guest died before finishing (e.g. a panic).
#
# The machine's own kernel cannot load modules and KVM guests hang here, so
# this is TCG emulation: slow, but the only way to run kernel code.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
kernel=stock script='' results='' modules='' tmo=900 envs=() cpus=2 wire=''
cpu_model=() pin=''
usage() { sed -n '4,24p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2 ;;
	--guest-script) script=$2 ;;
	--results) results=$2 ;;
	--modules) modules=$2 ;;
	--timeout) tmo=$2 ;;
	--env) envs+=("$2") ;;
	--cpus) cpus=$2 ;;
	--cpu-model) cpu_model=(-cpu "$2") ;;
	--wire) wire=$2 ;;
	--pin) pin=$2 ;;
	*) usage ;;
	esac
	shift 2
done
if [ -z "$script" ] || [ -z "$results" ]; then usage; fi
script=$(realpath "$script")
log() { echo "run-vm: $*" >&2; }
case $cpus in [1-9]) ;; *) log "--cpus: 1 to 9"; exit 2 ;; esac
pin_cores=()
if [ -n "$pin" ]; then
	IFS=, read -r -a pin_cores <<<"$pin"
	for c in "${pin_cores[@]}"; do
		if ! [[ $c =~ ^[0-9]+$ ]] || [ "$c" -ge "$(nproc)" ]; then
			log "--pin $pin: $c is not a core of this host (0 to $(($(nproc) - 1)))"
			exit 2
		fi
	done
	# More vCPUs than cores share them, which starves a guest's kworker
	# beside its poller: allowed, but said.
	[ "${#pin_cores[@]}" -ge "$cpus" ] ||
		log "--pin $pin: ${#pin_cores[@]} core(s) for $cpus vCPUs, so vCPUs share cores"
fi
nic=(-nic none)
if [ -n "$wire" ]; then
	if ! [[ $wire =~ ^([^:]+):([^:]+):(([0-9a-f]{2}:){5}[0-9a-f]{2})$ ]]; then
		log "--wire LOCAL:PEER:MAC, e.g. 20001:20002:52:54:00:77:00:01"
		exit 2
	fi
	local_end=${BASH_REMATCH[1]} peer_end=${BASH_REMATCH[2]} mac=${BASH_REMATCH[3]}
	if [[ $local_end$peer_end =~ ^[0-9]+$ ]]; then
		link="socket,udp=127.0.0.1:$peer_end,localaddr=127.0.0.1:$local_end"
	else
		link="dgram,local.type=unix,local.path=$local_end,remote.type=unix,remote.path=$peer_end"
	fi
	nic+=(-netdev "$link,id=wire" -device "virtio-net-pci,netdev=wire,mac=$mac")
	envs+=("RXC_WIRE_MAC=$mac")
fi
. "$here/kernels.sh"

# Everything the guest reads comes through 9p at the same path as on the
# host; the guest mounts a tmpfs on /tmp, so only the repo may live there.
case $script in
"$repo"/*) ;;
/tmp/*) log "guest script must not be under /tmp (outside $repo)"; exit 2 ;;
esac
case "$repo$script" in *[[:space:]]*) log "paths with spaces unsupported"; exit 2 ;; esac

kmods=''
cmdline=''
case $kernel in
stock | stock-6.12)
	# The release vm/build-modules.sh built the modules under test for.
	kver=$(stock_kver "$kernel") || exit 2
	bzimage=/boot/vmlinuz-$kver
	initrd=$("$here/mkinitramfs.sh" "$kver" /)
	;;
stock-7.2 | stock-7.3)
	# Booted from this machine's /lib/modules, where
	# "vm/sid-root.sh install-kernel" puts it.
	kver=$(sid_kver "$kernel") || exit 2
	bzimage=/lib/modules/$kver/vmlinuz
	if [ ! -f "$bzimage" ]; then
		log "$kernel: no $bzimage (vm/sid-root.sh install-kernel ${kernel#stock-})"
		exit 2
	fi
	initrd=$("$here/mkinitramfs.sh" "$kver" /)
	;;
debug | debug-compat)
	# debug-compat's RDMA modules come with the modules under test.
	kdir=${RXC_DEBUG_KERNEL_DIR:-$("$here/build-debug-kernel.sh")}
	kver=$(ls "$kdir/mods/lib/modules")
	bzimage=$kdir/bzImage
	kmods=$kdir/mods/lib/modules/$kver
	# Lets tests/guest/t-faults.sh fail skb allocations alone (failslab's
	# cache filter); Linux 6.1 sets a cache's flag only at boot.
	cmdline=slub_debug=A,skbuff_head_cache
	initrd=$("$here/mkinitramfs.sh" "$kver" "$kdir/mods")
	;;
*) usage ;;
esac

# shellcheck source=SCRIPTDIR/results-dir.sh
. "$here/results-dir.sh"
results=$(results_dir_reset "$results") || exit 2
# Modules under test: copied (DIR may be under /tmp, hidden in the guest)
# into a copy of the kernel's module tree.  depmod runs here, on the host:
# in the guest it reads all ~4000 stock modules over 9p and takes minutes.
mkdir -p "$results/.vm"
if [ -n "$modules" ] && compgen -G "$modules/*.ko" >/dev/null; then
	moddir=${kmods:-/lib/modules/$kver}
	stage=$results/.vm/modroot/lib/modules/$kver
	mkdir -p "$stage/updates"
	cp "$modules"/*.ko "$stage/updates/"
	cp "$moddir"/modules.order "$moddir"/modules.builtin* "$stage/"
	ln -s "$moddir/kernel" "$stage/kernel"
	depmod -b "$results/.vm/modroot" "$kver"
	rm "$stage/kernel"
fi

# The guest stops its script early enough to still write its reports.
gtmo=$((tmo - 90 - tmo / 10))
[ "$gtmo" -gt 30 ] || { log "timeout too short"; exit 2; }
{
	for kv in "RXC_KERNEL=$kernel" "RXC_REPO=$repo" "RXC_KMODS=$kmods" \
		  "RXC_GUEST_SCRIPT=$script" "RXC_GUEST_TIMEOUT=$gtmo" \
		  "RXC_MODULES_DIR=/results/.vm/modroot/lib/modules/$kver/updates" \
		  ${envs[@]+"${envs[@]}"}; do
		printf 'export %q=%q\n' "${kv%%=*}" "${kv#*=}"
	done
} >"$results/.vm/env"

# The guest reaches guest-boot.sh within a minute or two even on a busy
# machine; a kernel that has not done so by then has hung while booting.
boot_tmo=${RXC_BOOT_TIMEOUT:-300}
booted() { grep -q 'guest-boot: ' "$results/console.log" 2>/dev/null; }

# boot_watch PID: wait for the VM at PID to reach guest-boot.sh, and stop
# it if it does not within boot_tmo seconds.
boot_watch() {
	local waited=0
	while kill -0 "$1" 2>/dev/null && ! booted; do
		if [ "$waited" -ge "$boot_tmo" ]; then
			log "no sign of guest-boot.sh after ${boot_tmo}s: the kernel hung while booting"
			kill "$1"
			return
		fi
		sleep 5
		waited=$((waited + 5))
	done
}

# pin_threads PID: the QEMU that timeout PID runs kept on $pin, each
# vCPU thread on its own core of it, and the outcome in pinning.txt.
# QEMU starts under taskset, so every thread inherits the set; its vCPU
# threads, named "CPU N/TCG" (-name debug-threads=on), are then narrowed
# to one core each, once they exist.
pin_threads() {
	local q t comm core n=0 other=0 on=0 vcpus=''
	q=$(pgrep -P "$1" | head -n 1)
	if [ -z "$q" ]; then
		echo "not pinned: no QEMU process under $1" >"$results/pinning.txt"
		return 0
	fi
	for t in /proc/"$q"/task/*; do
		comm=$(cat "$t/comm" 2>/dev/null) || continue
		n=$((n + 1))
		if [[ $comm =~ ^CPU\ ([0-9]+)/ ]]; then
			core=${pin_cores[BASH_REMATCH[1] % ${#pin_cores[@]}]}
			taskset -p -c "$core" "${t##*/}" >/dev/null 2>&1 || true
			[ "$(awk '/^Cpus_allowed_list/ { print $2 }' "$t/status" 2>/dev/null)" != "$core" ] ||
				{ on=$((on + 1)); vcpus+="${vcpus:+, }vCPU ${BASH_REMATCH[1]} on host core $core"; }
		else
			taskset -p -c "$pin" "${t##*/}" >/dev/null 2>&1 || true
			other=$((other + 1))
		fi
	done
	printf '%s of %s vCPUs pinned%s; %s other QEMU threads of %s on host cores %s\n' \
		"$on" "$cpus" "${vcpus:+ ($vcpus)}" "$other" "$n" "$pin" >"$results/pinning.txt"
}

# boot: one run of the VM; sets rc to QEMU's exit status.
boot() {
	local pid taskset=()
	rc=0
	[ -z "$pin" ] || taskset=(taskset -c "$pin")
	# -nodefaults and -nic none: no NIC but --wire's, no VGA or monitor,
	# so the guest has no way out and nothing competes with the serial
	# console.  No -enable-kvm (hangs here).
	timeout -k 10 "$tmo" "${taskset[@]}" qemu-system-x86_64 \
		-name rxc-guest,debug-threads=on \
		-nodefaults -nographic -no-reboot -m 2G -smp "$cpus" "${cpu_model[@]}" "${nic[@]}" \
		-kernel "$bzimage" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 log_buf_len=4M printk.devkmsg=on rxc_repo=$repo rxc_boot=$here/guest-boot.sh $cmdline" \
		-serial "file:$results/console.log" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$repo,mount_tag=repo,security_model=none,readonly=on" \
		-virtfs "local,path=$results,mount_tag=results,security_model=none" \
		>"$results/qemu.log" 2>&1 </dev/null &
	pid=$!
	boot_watch "$pid"
	[ -z "$pin" ] || pin_threads "$pid"
	wait "$pid" || rc=$?
}

log "booting $kernel kernel $kver (timeout ${tmo}s), results in $results"
start=$(date +%s)
boot
# Debian's 6.12 kernel, under QEMU 7.2's multi-threaded TCG, now and then
# dies of an unhandled int3 while it patches its own code early in boot,
# and 6.1 has been seen to hang right after switching to the HPET clock
# source, long before anything of ours runs.  Such a boot (the guest never
# reached guest-boot.sh) is tried once more; its console log is kept
# apart.
if [ ! -f "$results/.vm/exit-status" ] && [ "$rc" -ne 124 ] && ! booted; then
	mv "$results/console.log" "$results/console.failed-boot.log"
	log "the kernel died or hung before the guest started (see console.failed-boot.log); booting again"
	boot
fi
log "VM ran $(($(date +%s) - start))s"

if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	log "VM timed out after ${tmo}s"
	exit 124
fi
if [ ! -f "$results/.vm/exit-status" ]; then
	log "guest did not finish (qemu status $rc); see $results/console.log"
	tail -n 20 "$results/console.log" >&2 || true
	exit 125
fi
exit "$(cat "$results/.vm/exit-status")"
