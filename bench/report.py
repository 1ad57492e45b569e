#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Turn bench/guest.sh's or bench/wire-guest.sh's log into the comparison.

    bench/report.py LOG [--pinning TEXT]
                        [--record DIR --kind loop|wire --command CMD
                         --commit COMMIT --kernel KERNEL [--link udp|unix]]

For every measurement: the median over the rounds of rdma_rxe's and of
rxc's figure and their ratio (rate or bandwidth: rxc/rxe; latency:
rxe/rxc, so that above 1 always means rxc is better), and the paired
statistics of the rounds' own ratios (see paired()): their median, their
range and a 90 % bootstrap interval of that median, with a flag where
the median is below 0.97 or the interval lies wholly below 1.  Then the
geometric mean of the RC figures' paired medians, the 64 KiB write's
share of the link's TCP (wire), and each target, met or not.

The output is reStructuredText: its tables are what the guide copies and
tests/host/t-docs.sh checks cell for cell.  --record writes it, with the
run's command, commit, kernel and pinning, as the run's file in the
record of runs (DIR/DATE-KIND-full-COMMIT.rst).  Figures are printed,
never asserted: the exit status says only whether the log could be read.

A wire log (mode=wire) has more: the link's TCP throughput (drv=link),
against which the 64 KiB writes are measured (with their requester
spinning and, mode=wire_sleep, asleep), and the middleware's figures per
pairing of drivers, guest a's first (drv=rxc-rxe: rxc on the requester's
side); rxe-rxe and rxc-rxc count as rdma_rxe and rxc.
"""
import argparse
import datetime
import math
import os
import random
import re
import statistics
import sys

LINE = re.compile(r'^bench: drv=([\w-]+) round=(\d+) rxc_bench: (\w+) size=(\d+) '
                  r'mtu=(\d+) qps=(\d+) window=(\d+) mode=(\w+) (\w+)=(\S+) (\S+)$')
LOWER_IS_BETTER = {'lat', 'lat_p50', 'wake', 'slab_per_qp', 'vmalloc_per_qp'}
LATENCY_TESTS = {'lat', 'lat_write', 'lat_read'}
RC_TESTS = {'write', 'read', 'send'} | LATENCY_TESTS
SAME_DRIVER = {'rxe-rxe': 'rxe', 'rxc-rxc': 'rxc'}
MIXED = ['rxc-rxe', 'rxe-rxc']
# IPv4, UDP, BTH and ICRC around a RoCE packet's payload.
ROCE_FRAME_HDRS = 44
# The paired statistics: a fixed seed, so that one log always gives the
# same interval, and the thresholds of the flags and targets.
BOOT_RESAMPLES = 10000
BOOT_SEED = 75
CONFIDENCE = 0.90
FLOOR = 0.97
GEOMEAN_TARGET = 1.5
FRAME_SHARE = 0.90
# Path MTU, the link MTU the transfers ran on (the share at it is
# information), and TCP's in frames as long as the write's packets.
WRITE_SHARES = ((4096, 9000), (1024, 1500))


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
    if test in LATENCY_TESTS:
        return key == 'lat'
    return key == ('bw' if size >= 4096 else 'rate')


def per_round(rounds, a, b, ratio):
    """ratio(figure a, figure b) in each round that has both, in round
    order; a and b are (measurement, driver), and a round's figure is the
    median of its runs."""
    ra = rounds.get(a[0], {}).get(a[1], {})
    rb = rounds.get(b[0], {}).get(b[1], {})
    out = []
    for r in sorted(set(ra) & set(rb)):
        x = ratio(statistics.median(ra[r]), statistics.median(rb[r]))
        if x:
            out.append(x)
    return out


def round_ratios(rounds, k):
    """Each round's own speedup.  A round runs both drivers one after
    the other, so its ratio leaves out most of the host's drift from
    round to round, which the ratio of the two medians keeps."""
    return per_round(rounds, (k, 'rxe'), (k, 'rxc'), lambda rxe, rxc: speedup(k, rxe, rxc))


def quantile_index(q, n):
    """The index, in n sorted values, of the q quantile (nearest rank)."""
    return max(0, math.ceil(q * n) - 1)


def bootstrap(values, resamples=BOOT_RESAMPLES, seed=BOOT_SEED, level=CONFIDENCE):
    """The percentile interval, at confidence level, of the median of
    values: the median of resamples resamples of values (drawn with
    replacement, as many as there are), each test from the same seed.
    With 5 rounds it spans their range: a resample's median is below
    the second-lowest round in 5.8 % of draws."""
    if min(values) == max(values):
        return values[0], values[0]
    rng = random.Random(seed)
    n = len(values)
    meds = sorted(statistics.median(rng.choices(values, k=n)) for _ in range(resamples))
    tail = (1 - level) / 2
    return meds[quantile_index(tail, resamples)], meds[quantile_index(1 - tail, resamples)]


def paired_stats(ratios):
    """The paired statistics of per-round ratios, or None without any:
    (median, lowest, highest, interval low, interval high, rounds)."""
    if not ratios:
        return None
    lo, hi = bootstrap(ratios)
    return statistics.median(ratios), min(ratios), max(ratios), lo, hi, len(ratios)


def flags(p):
    """What is wrong with paired statistics p: a median below FLOOR, an
    interval wholly below 1."""
    out = []
    if p and p[0] < FLOOR:
        out.append(f'<{FLOOR:g}')
    if p and p[4] < 1:
        out.append('CI<1')
    return out


def span(lo, hi):
    return f'{fmt(lo)}..{fmt(hi)}'


def rst_table(header, rows):
    """A reStructuredText simple table; an empty cell prints as '-'."""
    rows = [[c if c not in (None, '') else '-' for c in r] for r in rows]
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    border = '  '.join('=' * w for w in widths)

    def line(cells):
        return '  '.join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()
    return '\n'.join([border, line(header), border] + [line(r) for r in rows] + [border])


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


class Report:
    """The report of one log, as a list of reStructuredText blocks."""

    def __init__(self, path):
        self.figs, self.units, self.rounds = load(path)
        # The RC targets are judged on the wire when the log has it.
        self.primary = 'wire' if any(k[5] == 'wire' for k in self.figs) else 'loop'
        self.blocks = []
        self.targets = []

    def rxc(self, test, size, mtu=1024, qps=1, win=64, key='rate', mode=None):
        return median(self.figs, (test, size, mtu, qps, win, mode or self.primary, key), 'rxc')

    def target(self, what, met, detail):
        self.targets.append(f'- target: {what}: {"met" if met else "NOT met"} ({detail})')

    def comparison(self):
        """The table of every test, and the RC figures' paired statistics."""
        rows = sorted(k for k in self.figs if k[0] not in ('memcpy', 'tcp'))
        mixed = [d for d in MIXED if any(d in self.figs[k] for k in rows)]
        header = ['Test', 'rdma_rxe', 'rxc', 'Unit', 'rxc/rxe', 'paired', 'range',
                  f'{CONFIDENCE:.0%} CI'.replace('%', ' %'), 'flag'] + mixed
        table, rc = [], []
        for k in rows:
            rxe, rxc = median(self.figs, k, 'rxe'), median(self.figs, k, 'rxc')
            p = paired_stats(round_ratios(self.rounds, k))
            cells = [name(k), fmt(rxe), fmt(rxc), self.units[k], fmt(speedup(k, rxe, rxc))]
            cells += [fmt(p[0]), span(p[1], p[2]), span(p[3], p[4]), ','.join(flags(p))] if p else [None] * 4
            table.append(cells + [fmt(median(self.figs, k, d)) for d in mixed])
            if p and rc_figure(k, self.primary):
                rc.append((k, p))
        self.blocks.append(rst_table(header, table))
        return rc

    def rc_targets(self, rc):
        if not rc:
            return
        gm = geomean([p[0] for _, p in rc])
        self.target(f'geometric mean of the RC tests\' paired medians >= {GEOMEAN_TARGET}',
                    gm >= GEOMEAN_TARGET, f'{gm:.3f} over {len(rc)} figures')
        low = [f'{name(k)} {p[0]:.3f}' for k, p in rc if p[0] < FLOOR]
        self.target(f'no RC test with a paired median below {FLOOR}', not low,
                    '; '.join(low) or f'lowest {min(p[0] for _, p in rc):.3f}')
        below = [f'{name(k)} {span(p[3], p[4])}' for k, p in rc if p[4] < 1]
        self.target(f'no RC test whose {CONFIDENCE:.0%} interval lies wholly below 1'.replace('%', ' %'),
                    not below, '; '.join(below) or 'none')
        # How far the rounds of one run spread: compare runs with and
        # without pinning by this.
        widths = [(p[2] - p[1]) / p[0] for _, p in rc]
        self.blocks.append(f'Spread: the RC tests\' per-round ratios span a median of '
                           f'{100 * statistics.median(widths):.1f} % of their paired median '
                           f'(widest {100 * max(widths):.1f} %), over {max(p[5] for _, p in rc)} rounds.')

    def tcp(self):
        """The link's TCP throughput per MTU (wire logs only)."""
        keys = sorted(k for k in self.figs if k[0] == 'tcp')
        if not keys:
            return
        rows = []
        for k in keys:
            per = [statistics.median(v) for _, v in sorted(self.rounds[k]['link'].items())]
            rows.append([str(k[2]), fmt(median(self.figs, k, 'link')), span(min(per), max(per))])
        self.blocks.append(rst_table(['TCP, link MTU', 'MB/s', 'range'], rows))

    def write_shares(self):
        """The 64 KiB write's share of TCP, each round against that
        round's TCP: in frames as long as its packets (the target) and
        at the link MTU it ran on (information).  iperf3 sleeps while
        TCP waits for the link, so the write whose requester sleeps too
        is the like-for-like figure and the one judged; the spinning one
        stands beside it."""
        rows = []
        for ib_mtu, link_mtu in WRITE_SHARES:
            frame = ib_mtu + ROCE_FRAME_HDRS
            judged = None
            for mode, how in (('wire_sleep', 'asleep'), ('wire', 'spinning')):
                wr = ('write', 65536, ib_mtu, 1, 64, mode, 'bw')
                for mtu in (frame, link_mtu):
                    tcp = ('tcp', 0, mtu, 1, 0, 'wire', 'bw')
                    shares = self.shares(wr, tcp)
                    if not shares:
                        continue
                    s = statistics.median(shares)
                    verdict = '-'
                    if mtu == frame:
                        verdict = 'yes' if s >= FRAME_SHARE else 'no'
                        judged = judged or (s, how, min(shares), max(shares))
                    rows.append([f'path MTU {ib_mtu} {how}, TCP at MTU {mtu}', f'{100 * s:.1f} %',
                                 f'{100 * min(shares):.1f}..{100 * max(shares):.1f} %', verdict])
            if judged:
                s, how, lo, hi = judged
                self.target(f'64 KiB write at path MTU {ib_mtu} >= {FRAME_SHARE:.0%} of TCP in '
                            f'frames of its size (MTU {frame}), same round'.replace('%', ' %'),
                            s >= FRAME_SHARE,
                            f'{100 * s:.1f} % {how}, rounds {100 * lo:.1f}..{100 * hi:.1f} %')
        if rows:
            self.blocks.append(rst_table(['64 KiB write against TCP', 'share', 'range',
                                          f'>= {FRAME_SHARE:.0%}'.replace('%', ' %')], rows))

    def shares(self, wr, tcp):
        """rxc's figure wr over the link's tcp, per round that has both."""
        return per_round(self.rounds, (wr, 'rxc'), (tcp, 'link'),
                         lambda w, t: w / t if t > 0 else None)

    def other_targets(self):
        mem = [v for k, d in self.figs.items() if k[0] == 'memcpy' for v in d.get('mem', [])]
        memcpy = statistics.median(mem) if mem else None
        if memcpy:
            self.blocks.append(f'memcpy in the guest: {fmt(memcpy)} MB/s.')
        wr64 = self.rxc('write', 65536, 4096, key='bw')
        if wr64 and memcpy:
            self.target('64 KiB write at MTU 4096 >= 10 % of memcpy', wr64 >= 0.1 * memcpy,
                        f'{100 * wr64 / memcpy:.1f} %')
        unsig, sig = self.rxc('cntr_unsig', 8), self.rxc('write', 8)
        if unsig and sig:
            self.target('counter-tracked unsignaled writes >= 2x signaled', unsig >= 2 * sig,
                        f'{unsig / sig:.2f}x')
        with_cntr, without = self.rxc('cntr_sig', 8), self.rxc('cntr_base', 8)
        if with_cntr and without:
            self.target('an attached counter costs <= 3 %', with_cntr >= 0.97 * without,
                        f'{100 * (1 - with_cntr / without):.1f} %')
        q1, q16 = self.rxc('write', 8, qps=1, win=16), self.rxc('write', 8, qps=16, win=16)
        if q1 and q16:
            self.target('16 QPs >= 1.5x one QP', q16 >= 1.5 * q1, f'{q16 / q1:.2f}x')

    def text(self, pinning):
        """The whole report."""
        if pinning:
            self.blocks.append(f'Pinning: {pinning}.')
        self.blocks.append(
            f'Each row: the medians over the rounds, their ratio (above 1: rxc better, '
            f'round trips included), and the rounds\' own ratios: their median (paired), '
            f'range and {CONFIDENCE:.0%} bootstrap interval ({BOOT_RESAMPLES} resamples, '
            f'seed {BOOT_SEED}); flag: a paired median below {FLOOR:g}, an interval '
            f'wholly below 1.'.replace('%', ' %'))
        rc = self.comparison()
        self.tcp()
        self.write_shares()
        self.rc_targets(rc)
        self.other_targets()
        if self.targets:
            self.blocks.append('\n'.join(self.targets))
        return '\n\n'.join(self.blocks) + '\n'


def record(args, body, nrounds):
    """The run's file in the record of runs; returns its path."""
    day = datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d')
    kind = {'loop': 'Loopback', 'wire': 'Wire'}[args.kind]
    # An unpinned run, taken to compare its spread, keeps the pinned
    # run's file of the same day and commit; so does a lossless link's.
    unpinned = (args.pinning or '').startswith('off')
    unix = args.link == 'unix'
    title = (f'{day}: {kind}: full run of {day} ({args.commit}'
             f'{", unpinned" if unpinned else ""}{", lossless link" if unix else ""})')
    path = os.path.join(args.record, f'{day}-{args.kind}-full-{args.commit}'
                        f'{"-unpinned" if unpinned else ""}{"-unix" if unix else ""}.rst')
    fields = [('Kind', 'full run'),
              ('Tried', f'the full {"loopback" if args.kind == "loop" else "wire"} run, '
                        f'{nrounds} round{"s" if nrounds != 1 else ""}'),
              ('Code', f'``{args.commit}``'), ('Landed', 'n/a'),
              ('Command', f'``{args.command}``'), ('Kernel', args.kernel),
              ('Pinning', args.pinning or 'not given')]
    os.makedirs(args.record, exist_ok=True)
    with open(path, 'w', encoding='utf-8') as f:
        f.write('.. SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB\n\n')
        f.write(f'{"=" * len(title)}\n{title}\n{"=" * len(title)}\n\n')
        f.write(''.join(f':{k}: {v}\n' for k, v in fields))
        f.write('\nWritten by ``bench/report.py`` from the run\'s log; no figure was typed.\n\n')
        f.write(body)
    return path


def main():
    ap = argparse.ArgumentParser(description='the bench\'s report (see the module\'s text)')
    ap.add_argument('log')
    ap.add_argument('--pinning', help='how the guests were pinned, for the report')
    ap.add_argument('--record', metavar='DIR', help='write the run\'s record file into DIR')
    ap.add_argument('--kind', choices=('loop', 'wire'), default='loop')
    ap.add_argument('--link', choices=('udp', 'unix'), default='udp',
                    help='the wire\'s link (bench/run.sh --link), for the record\'s name')
    ap.add_argument('--command', default='bench/run.sh')
    ap.add_argument('--commit', default='unknown')
    ap.add_argument('--kernel', default='stock')
    args = ap.parse_args()
    rep = Report(args.log)
    if not rep.figs:
        print(f'report: no figures in {args.log}')
        return 1
    body = rep.text(args.pinning)
    print(body, end='')
    if args.record:
        nrounds = len({r for by in rep.rounds.values() for d in by.values() for r in d})
        print(f'bench: recorded in {record(args, body, nrounds)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
