#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Sourced by bench/guest.sh and bench/wire-guest.sh: the order in which a
# round runs the drivers.

# round_order R DRV...: DRV... in the order round R runs them: as given
# in odd rounds, reversed in even ones.  A driver that always ran first
# would always meet the guest as the boot or the other driver's unload
# left it, and the host's drift over a round would always favour the
# same one.
round_order() {
	local r=$1 out=()
	shift
	if [ $((r % 2)) = 1 ]; then
		echo "$*"
		return
	fi
	while [ $# -gt 0 ]; do
		out=("$1" "${out[@]}")
		shift
	done
	echo "${out[*]}"
}
