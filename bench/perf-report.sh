#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Sourced by bench/guest.sh and bench/wire-guest.sh: the reports of one
# perf record run.

# perf_reports DATA OUT: OUT.txt, the hottest symbols with their objects;
# OUT.callers.txt, who calls them; OUT.children.txt, inclusive time, what
# each stage costs with all it calls; OUT.script.txt, every sample's call
# chain, for bench/perf-tree.py to take apart on the host (what one stage
# spent its time on, two runs compared).  Prints the 30 hottest.
perf_reports() {
	perf report -i "$1" --stdio --no-children -g none \
		--sort dso,sym --percent-limit 0.5 2>/dev/null >"$2.txt" || true
	perf report -i "$1" --stdio --no-children -g caller \
		--sort sym --percent-limit 1 2>/dev/null >"$2.callers.txt" || true
	perf report -i "$1" --stdio --children -g none \
		--sort sym --percent-limit 1 2>/dev/null >"$2.children.txt" || true
	perf script -i "$1" -F comm,ip,sym 2>/dev/null >"$2.script.txt" || true
	grep -E '^ +[0-9.]+%' "$2.txt" | head -n 30
}
