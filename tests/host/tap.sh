#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Sourced by the host tests: one TAP line per comparison.

# tap_same PREFIX NAME GOT WANT: "ok - PREFIX: NAME" when GOT is WANT,
# else a "not ok" line that shows both, counted in the caller's nfail.
tap_same() {
	if [ "$3" = "$4" ]; then
		echo "ok - $1: $2"
	else
		echo "not ok - $1: $2 (got '$3', want '$4')"
		nfail=$((nfail + 1))
	fi
}
