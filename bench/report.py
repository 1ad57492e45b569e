#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Turn bench/guest.sh's or bench/wire-guest.sh's log into the comparison table.

    bench/report.py build/bench-results/stock/bench.log
    bench/report.py build/bench-results/stock-wire-1cpu/a/bench.log

For every measurement: the median over the rounds of rdma_rxe's and of
rxc's figure, and the speedup of rxc over rxe (rate or bandwidth: rxc/rxe;
latency: rxe/rxc, so that above 1 always means rxc is faster), and
beside it the "paired" speedup, the median of each round's own (see
paired()).  Then the geometric mean of the speedups over the RC tests,
and each target of the performance issue, met or not.  Figures are
printed, never asserted: the exit status says only whether the log
could be read.

A wire log (mode=wire) has more: the link's TCP throughput (drv=link),
against which the 64 KiB writes are measured (with their requester
spinning and, mode=wire_sleep, asleep), and the middleware's
figures per pairing of drivers, guest a's first (drv=rxc-rxe: rxc on
the requester's side); rxe-rxe and rxc-rxc count as rdma_rxe and rxc.
"""
import math
import re
import statistics
import sys

LINE = re.compile(r'^bench: drv=([\w-]+) round=(\d+) rxc_bench: (\w+) size=(\d+) '
                  r'mtu=(\d+) qps=(\d+) window=(\d+) mode=(\w+) (\w+)=(\S+) (\S+)$')
LOWER_IS_BETTER = {'lat', 'lat_p50', 'wake', 'slab_per_qp', 'vmalloc_per_qp'}
RC_TESTS = {'write', 'read', 'send', 'lat'}
SAME_DRIVER = {'rxe-rxe': 'rxe', 'rxc-rxc': 'rxc'}
MIXED = ['rxc-rxe', 'rxe-rxc']
# IPv4, UDP, BTH and ICRC around a RoCE packet's payload.
ROCE_FRAME_HDRS = 44


def load(path):
    """Each measurement's figures per driver, their unit, and the figures
    per driver and round."""
    figures = {}
    units = {}
    rounds = {}
    for ln in open(path):
        m = LINE.match(ln.strip())
        if not m:
            continue
        drv, r, test, size, mtu, qps, win, mode, key, value, unit = m.groups()
        drv = SAME_DRIVER.get(drv, drv)
        k = (test, int(size), int(mtu), int(qps), int(win), mode, key)
        figures.setdefault(k, {}).setdefault(drv, []).append(float(value))
        rounds.setdefault(k, {}).setdefault(drv, {}).setdefault(int(r), []).append(float(value))
        units[k] = unit
    return figures, units, rounds


def median(figs, k, drv):
    v = figs.get(k, {}).get(drv)
    return statistics.median(v) if v else None


def speedup(k, rxe, rxc):
    if rxe is None or rxc is None or rxe <= 0 or rxc <= 0:
        return None
    return rxe / rxc if k[6] in LOWER_IS_BETTER else rxc / rxe


def name(k):
    test, size, mtu, qps, win, mode, key = k
    if test == 'idle_qps':
        return f'idle RC QP, {win}-WR queues [{key}]'
    s = f'{test} {size} B'
    if test in RC_TESTS:
        s += f' mtu {mtu}'
    if qps > 1 or win not in (64, 0):
        s += f', {qps} QP{"s" if qps > 1 else ""} x {win} WRs'
    if mode == 'pair':
        s += ', across netns'
    if mode == 'wire_sleep':
        s += ', requester asleep'
    if test == 'tcp':
        s = f'TCP over the link, netdev MTU {mtu}'
    return f'{s} [{key}]'


def fmt(v):
    if v is None:
        return '-'
    return f'{v:.0f}' if abs(v) >= 1000 else f'{v:.3g}'


def rc_figure(k, primary):
    """Is k one of the RC figures the targets judge?  One QP, default
    window; bandwidth for 4 KiB and up, message rate for 8 B, and the
    mean round trip (its median, lat_p50, is shown beside it)."""
    test, size, _, qps, win, mode, key = k
    if test not in RC_TESTS or mode != primary or qps != 1 or win != 64:
        return False
    if test == 'lat':
        return key == 'lat'
    return key == ('bw' if size >= 4096 else 'rate')


def paired(rounds, k):
    """The median over the rounds of each round's speedup.  A round runs
    both drivers one after the other, so its ratio leaves out most of
    the host's drift from round to round, which the ratio of the two
    medians keeps."""
    by = rounds.get(k, {})
    rxe, rxc = by.get('rxe', {}), by.get('rxc', {})
    sps = [speedup(k, statistics.median(rxe[r]), statistics.median(rxc[r]))
           for r in sorted(set(rxe) & set(rxc))]
    sps = [x for x in sps if x]
    return statistics.median(sps) if sps else None


def main():
    figs, units, rounds = load(sys.argv[1])
    if not figs:
        print(f'report: no figures in {sys.argv[1]}')
        return 1
    # The RC targets are judged on the wire when the log has it.
    primary = 'wire' if any(k[5] == 'wire' for k in figs) else 'loop'
    rows = sorted(k for k in figs if k[0] not in ('memcpy', 'tcp'))
    mixed = [d for d in MIXED if any(d in figs[k] for k in rows)]
    w = max(len(name(k)) for k in rows)
    print(f'{"test":{w}}  {"rdma_rxe":>10}  {"rxc":>10}  {"unit":7}  {"rxc speedup":>11}'
          + f'  {"paired":>7}' + ''.join(f'  {d:>10}' for d in mixed))
    rc_speedups = []
    worst = None
    for k in rows:
        rxe, rxc = median(figs, k, 'rxe'), median(figs, k, 'rxc')
        sp = speedup(k, rxe, rxc)
        print(f'{name(k):{w}}  {fmt(rxe):>10}  {fmt(rxc):>10}  {units[k]:7}  {fmt(sp):>11}'
              + f'  {fmt(paired(rounds, k)):>7}' + ''.join(f'  {fmt(median(figs, k, d)):>10}' for d in mixed))
        if sp and rc_figure(k, primary):
            rc_speedups.append(sp)
            worst = sp if worst is None else min(worst, sp)
    for k in sorted(k for k in figs if k[0] == 'tcp'):
        print(f'{name(k)}: {fmt(median(figs, k, "link"))} {units[k]}')
    mem = [v for k, d in figs.items() if k[0] == 'memcpy' for v in d.get('mem', [])]
    memcpy = statistics.median(mem) if mem else None
    print(f'memcpy in the guest: {fmt(memcpy)} MB/s')
    print()
    if rc_speedups:
        gm = math.exp(sum(math.log(x) for x in rc_speedups) / len(rc_speedups))
        target('geometric mean of the RC speedups >= 1.5', gm >= 1.5, f'{gm:.3f} over {len(rc_speedups)} figures')
        target('no RC test below 1.0', worst >= 1.0, f'worst {worst:.3f}')

    def rxc(test, size, mtu=1024, qps=1, win=64, key='rate', mode=primary):
        return median(figs, (test, size, mtu, qps, win, mode, key), 'rxc')

    for ib_mtu, link_mtu, share in ((4096, 9000, 0.75), (1024, 1500, 0.5)):
        tcp = median(figs, ('tcp', 0, link_mtu, 1, 0, 'wire', 'bw'), 'link')
        wr = rxc('write', 65536, ib_mtu, key='bw')
        asleep = rxc('write', 65536, ib_mtu, key='bw', mode='wire_sleep')
        if tcp and wr:
            # iperf3 sleeps while TCP waits for the link, so the write
            # whose requester sleeps too is the like-for-like figure
            # (bench/wire-guest.sh, sleeping_writes); the spinning one
            # stands beside it.
            shares = f'{100 * wr / tcp:.1f} %'
            if asleep:
                shares = f'{100 * asleep / tcp:.1f} % with the requester asleep, {shares} spinning'
            target(f'64 KiB write at path MTU {ib_mtu} >= {share:.0%} of TCP at MTU {link_mtu}',
                   (asleep or wr) >= share * tcp, shares)
        # Beside the target: TCP with frames as long as the write's packets
        # (bench/wire-guest.sh, roce_frame_mtu).
        frame = median(figs, ('tcp', 0, ib_mtu + ROCE_FRAME_HDRS, 1, 0, 'wire', 'bw'), 'link')
        if frame and wr:
            print(f'64 KiB write at path MTU {ib_mtu}: {100 * wr / frame:.1f} % of TCP with '
                  f'frames of its packets\' size (MTU {ib_mtu + ROCE_FRAME_HDRS})')
    wr64 = rxc('write', 65536, 4096, key='bw')
    if wr64 and memcpy:
        target('64 KiB write at MTU 4096 >= 10% of memcpy', wr64 >= 0.1 * memcpy,
               f'{100 * wr64 / memcpy:.1f} %')
    unsig, sig = rxc('cntr_unsig', 8), rxc('write', 8)
    if unsig and sig:
        target('counter-tracked unsignaled writes >= 2x signaled', unsig >= 2 * sig,
               f'{unsig / sig:.2f}x')
    with_cntr, without = rxc('cntr_sig', 8), rxc('cntr_base', 8)
    if with_cntr and without:
        target('an attached counter costs <= 3%', with_cntr >= 0.97 * without,
               f'{100 * (1 - with_cntr / without):.1f} %')
    q1, q16 = rxc('write', 8, qps=1, win=16), rxc('write', 8, qps=16, win=16)
    if q1 and q16:
        target('16 QPs >= 1.5x one QP', q16 >= 1.5 * q1, f'{q16 / q1:.2f}x')
    return 0


def target(what, met, detail):
    print(f'target: {what}: {"met" if met else "NOT met"} ({detail})')


if __name__ == '__main__':
    sys.exit(main())
