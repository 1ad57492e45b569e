#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   tests/host/t-perf-tree.sh
#
# Host-side test of bench/perf-tree.py on a profile of six samples in
# perf script's format: one in user space, one in a system call, one in an
# interrupt taken during that system call, one idle, one in a kworker and
# one in another kernel thread.
# The interrupt's sample is the one to get right: its stack holds the
# system call's frames too, and counting it as theirs would put a
# softirq's cost on the doorbell it interrupted.
#
# Prints TAP ("ok - ...", "not ok - ...") and exits non-zero on a failure.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/rxc-perf-tree.XXXXXX)
trap 'rm -rf "$work"' EXIT
nfail=0
# shellcheck source=SCRIPTDIR/tap.sh
. "$repo/tests/host/tap.sh"
expect() { tap_same perf-tree "$@"; }	# expect NAME GOT WANT
tree() { python3 "$repo/bench/perf-tree.py" "$@"; }

# sample COMM FRAME...: one sample, innermost frame first.
sample() {
	local f
	echo "$1 "
	shift
	for f in "$@"; do printf '\tffffffff81000000 %s\n' "$f"; done
	echo
}
doorbell=(rxc_qp_run_claimed rxc_qp_kick rxc_qp_doorbell do_syscall_64
	  entry_SYSCALL_64_after_hwframe __GI___libc_write)
{
	sample rxc_bench run_rate __libc_start_call_main
	sample rxc_bench rxc_pkt_send rxc_req_run "${doorbell[@]}"
	sample rxc_bench rxc_recv handle_softirqs __irq_exit_rcu \
		common_interrupt asm_common_interrupt rxc_req_run "${doorbell[@]}"
	sample swapper native_safe_halt default_idle_call do_idle
	sample kworker/0:1H rxc_req_run process_one_work worker_thread kthread \
		ret_from_fork
	sample rcu_preempt rcu_gp_kthread kthread ret_from_fork
} >"$work/a.txt"
cp "$work/a.txt" "$work/b.txt"
sample rxc_bench rxc_pkt_send rxc_req_run "${doorbell[@]}" >>"$work/b.txt"

# rows OUT: a table's rows as "COUNT KEY", one per line, sorted.
rows() { sed -n 's/^ *\([0-9]\+\) \+[0-9.]\+%  /\1 /p' <<<"$1" | LC_ALL=C sort; }

expect "split counts each context once" \
	"$(rows "$(tree split "$work/a.txt")" | tr '\n' ';')" \
	"1 idle;1 interrupt;1 kernel thread: rcu_preempt;1 kworker;1 system call;1 user: rxc_bench;"
expect "under names the frames below FUNC, an interrupt as [irq]" \
	"$(rows "$(tree under "$work/a.txt" rxc_qp_doorbell)" | tr '\n' ';')" \
	"1 rxc_qp_kick;1 rxc_qp_kick > [irq];"
expect "under N gives N frames and cuts at the interrupt" \
	"$(rows "$(tree under "$work/a.txt" rxc_qp_kick 2)" | tr '\n' ';')" \
	"1 rxc_qp_run_claimed > rxc_req_run;1 rxc_qp_run_claimed > rxc_req_run > [irq];"
expect "under counts a function's own samples as (self)" \
	"$(rows "$(tree under "$work/a.txt" rxc_pkt_send)")" "1 (self)"
expect "under reports the total and FUNC's share" \
	"$(tree under "$work/a.txt" rxc_req_run | head -n 1)" \
	"$work/a.txt: 6 samples, 3 under rxc_req_run"
expect "diff counts self samples, B minus A" \
	"$(tree diff "$work/a.txt" "$work/b.txt" | sed -n 3p | tr -s ' ')" \
	" +1 1 2 rxc_pkt_send"
expect "an unknown command fails" \
	"$(tree bogus >/dev/null 2>&1 && echo "exit status 0" || echo failed)" failed
exit $((nfail > 0))
