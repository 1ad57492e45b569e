# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# shellcheck shell=bash
#
# Sourced by vm/run-vm.sh: the results directory a VM run starts from.

# results_dir_reset DIR: make DIR an empty directory and print its
# absolute path.  Stale reports, whoever wrote them (a guest script's
# own logs and profiles too), must never be mistaken for this run's.
# Only a DIR that is new, empty, or an earlier run's results (it holds
# .vm) is emptied: a mistyped --results must cost no one's files.  Fails,
# and says why, on any other.
results_dir_reset() {
	local dir
	mkdir -p "$1"
	dir=$(realpath "$1")
	if [ ! -d "$dir/.vm" ] && [ -n "$(ls -A "$dir")" ]; then
		echo "results dir $dir holds files but no earlier run's .vm: not emptying it" >&2
		return 1
	fi
	find "$dir" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
	echo "$dir"
}
