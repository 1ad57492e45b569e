#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Where a profile's time went, from the call chains of `perf script`.

perf report answers "which symbol" and, with --children, "how much under
it", but not "what did this stage spend it on" for one stage, nor how
two runs compare stage by stage.  Two drivers doing the same work per
message are best told apart that way: the same count of operations in
both profiles, so a stage's samples compare directly.

Input: `perf script -F comm,ip,sym` of a `perf record -g` run, as
bench/perf-report.sh writes it (OUT.script.txt).  A sample is a line
with the command's name, then one line per frame, innermost first, then
a blank line.

  perf-tree.py split FILE...        each file's samples by context: user,
                                    system call, interrupt (softirqs in
                                    it included), ksoftirqd, kworker,
                                    other kernel threads, idle
  perf-tree.py under FILE FUNC [N]  the samples with FUNC on their stack,
                                    by the N (default 1) frames FUNC
                                    calls; an interrupt taken below FUNC
                                    counts as "[irq]", not as FUNC's
  perf-tree.py diff A B             self samples per symbol, B minus A,
                                    the largest differences each way
"""
import collections
import signal
import sys

# The frames an interrupt enters by: what lies above one on a stack was
# interrupted, not the caller of what lies below.
IRQ_ENTRIES = frozenset((
    'asm_common_interrupt', 'asm_sysvec_apic_timer_interrupt',
    'asm_sysvec_call_function_single', 'asm_sysvec_reschedule_ipi',
    'asm_sysvec_irq_work'))


def samples(path):
    """Yield (comm, frames) per sample, frames outermost first."""
    comm, frames = None, []
    with open(path, errors='replace') as f:
        for line in f:
            if not line.strip():
                if frames:
                    yield comm, frames[::-1]
                comm, frames = None, []
            elif line[0] in ' \t':
                parts = line.split(None, 1)
                frames.append(parts[1].strip() if len(parts) > 1 else '?')
            else:
                comm = line.strip()
    if frames:
        yield comm, frames[::-1]


def context(comm, frames):
    """The context a sample ran in."""
    names = set(frames)
    if names & IRQ_ENTRIES:
        return 'interrupt'
    for frame, ctx in (('run_ksoftirqd', 'ksoftirqd'),
                       ('worker_thread', 'kworker'), ('do_idle', 'idle'),
                       ('entry_SYSCALL_64_after_hwframe', 'system call'),
                       ('asm_exc_page_fault', 'page fault')):
        if frame in names:
            return ctx
    if 'ret_from_fork' in names:
        return 'kernel thread: ' + (comm or '?')
    return 'user: ' + (comm or '?')


def below(frames, func, depth):
    """The @depth frames @func calls on this stack, then "[irq]" if an
    interrupt came in anywhere below @func: its time is not @func's."""
    rest = frames[frames.index(func) + 1:]
    for i, frame in enumerate(rest):
        if frame in IRQ_ENTRIES:
            return rest[:min(i, depth)] + ['[irq]']
    return rest[:depth]


def table(counts, total, limit=30):
    for key, n in counts.most_common(limit):
        print(f'{n:8d} {100.0 * n / total:6.1f}%  {key}')


def split(paths):
    for path in paths:
        counts = collections.Counter(context(c, f) for c, f in samples(path))
        total = sum(counts.values())
        print(f'{path}: {total} samples')
        table(counts, max(total, 1))


def under(path, func, depth):
    counts, total = collections.Counter(), 0
    for _, frames in samples(path):
        total += 1
        if func in frames:
            counts[' > '.join(below(frames, func, depth)) or '(self)'] += 1
    print(f'{path}: {total} samples, {sum(counts.values())} under {func}')
    table(counts, max(total, 1), 40)


def diff(path_a, path_b, limit=25):
    a = collections.Counter(f[-1] for _, f in samples(path_a))
    b = collections.Counter(f[-1] for _, f in samples(path_b))
    print(f'self samples: {sum(a.values())} in {path_a}, '
          f'{sum(b.values())} in {path_b}')
    order = sorted(set(a) | set(b), key=lambda s: (b[s] - a[s], s))
    for title, part in (('more in B', order[::-1][:limit]),
                        ('less in B', order[:limit])):
        print(f'{"B-A":>8} {"A":>7} {"B":>7}  symbol, {title}')
        for sym in part:
            if b[sym] != a[sym]:
                print(f'{b[sym] - a[sym]:+8d} {a[sym]:7d} {b[sym]:7d}  {sym}')


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)	# | head
    if len(argv) >= 2 and argv[0] == 'split':
        split(argv[1:])
    elif len(argv) in (3, 4) and argv[0] == 'under':
        under(argv[1], argv[2], int(argv[3]) if len(argv) == 4 else 1)
    elif len(argv) == 3 and argv[0] == 'diff':
        diff(argv[1], argv[2])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv[1:])
