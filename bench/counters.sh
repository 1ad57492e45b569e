# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# shellcheck shell=bash
#
# What one rxc_bench run moved, sourced by the bench's guests (guest.sh,
# wire-guest.sh; lib.sh first, for counter_lines): the device's port
# counters (retransmits, NAKs, timeouts, window shrinks, pace waits) and
# the guest's own.  Both drivers do the same work for a message, so where
# two runs' counts differ says where a gap lies without a profiler, which
# perturbs a small message's time too much.
#
#   moved_begin DEV     before the run
#   moved_end DEV       after it: two comment lines on stdout,
#                       "# port counters: NAME=DELTA ..." and
#                       "# guest counters: NAME=DELTA ...", those that moved

# guest_counters: what this guest spent, a "name value" line each: CPU
# ticks by kind (user, sys, irq, softirq, idle), context switches,
# interrupts by source (a device's by its queue's name and IRQ) and
# softirqs by kind.  A hop to a kworker is two context switches.
guest_counters() {
	awk '$1 == "cpu" { print "user", $2; print "sys", $4; print "idle", $5
			   print "irq", $7; print "softirq", $8 }
	     $1 == "ctxt" { print $1, $2 }' /proc/stat
	awk 'NR > 1 { s = 0
		      for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i
		      sub(":", "", $1); n = $1 ~ /^[0-9]+$/ ? $NF "/" $1 : $1
		      print "irq_" n, s }' /proc/interrupts
	awk 'NR > 1 { s = 0; for (i = 2; i <= NF; i++) s += $i
		      sub(":", "", $1); print "softirq_" $1, s }' /proc/softirqs
}

# lines_moved BEFORE AFTER: "name=delta" for each counter that moved
# (lib.sh's counters_moved is for its arrays).
lines_moved() {
	awk 'NR == FNR { v[$1] = $2; next }
	     $2 != v[$1] { printf "%s%s=%d", sep, $1, $2 - v[$1]; sep = " " }
	     END { print "" }' <(echo "$1") <(echo "$2")
}

MOVED_PORT='' MOVED_GUEST=''
moved_begin() {
	MOVED_PORT=$(counter_lines "$1")
	MOVED_GUEST=$(guest_counters)
}
moved_end() {
	echo "# port counters: $(lines_moved "$MOVED_PORT" "$(counter_lines "$1")")"
	echo "# guest counters: $(lines_moved "$MOVED_GUEST" "$(guest_counters)")"
}
