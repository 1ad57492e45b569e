#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Compare vdiff traces of the same seeds from two drivers.

  compare.py compare REF CAND [--known FILE]...
      Per seed, the lines where CAND's trace differs from REF's.  A
      difference is explained when each of its lines matches a pattern of
      the known-differences files (rdma_rxe's documented bugs and limits);
      the rest are printed with their seed.  Exits 1 if any is left.

      The step in which a completion was polled is not compared: a step
      that something made fail waits only for its CQs to stay quiet a
      while, and on a loaded host a completion may come after that, in
      the next step.  Each CQ's completions are compared in their order
      instead, so a lost, extra, altered or reordered completion still
      differs, and so does a step whose awaited completion never came.

  compare.py minimize VDIFF SEED REF_A REF_B CAND_A CAND_B [--quiet MS]
                      [--gen-opt OPT]
      Re-runs SEED on both sides of the comparison, drops every step whose
      removal keeps the traces different, and prints the smallest program
      found with both of its traces.  OPT: vdiff run's options the traces
      were made with (-w, -c).

  compare.py recheck VDIFF SEED REF_A REF_B CAND [--quiet MS] [--gen-opt OPT]
                     [--known FILE]...
      Re-runs SEED on the reference's side alone and compares that trace
      with SEED's in the trace file CAND, as compare does.  Exits 0 when
      they agree (the reference's first trace was the odd one out), 1
      when they still differ.  t-diff asks this of rdma_rxe only, which
      is not under test and on a loaded guest now and then goes wrong on
      its own (see Documentation/rxc.rst, "Differential testing"); a
      candidate is never re-run, so a difference of its own stays one.
"""
import argparse
import difflib
import re
import subprocess
import sys


def split_lines(lines):
    """{seed: [lines]} of a trace's lines."""
    seeds, cur = {}, None
    for line in lines:
        line = line.rstrip("\n")
        m = re.match(r"^seed (\d+)$", line)
        if m:
            cur = int(m.group(1))
            seeds[cur] = []
        elif line.startswith("setup: "):
            seeds.setdefault(-1, []).append(line)
        elif cur is not None:
            seeds[cur].append(line)
    return seeds


def split_seeds(path):
    """{seed: [lines]} of a trace file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return split_lines(f)


COMPLETION = re.compile(r"^  ([AB]) (sq|rq) ")


def by_cq(trace):
    """TRACE with its completions taken out of the steps they were polled
    in and listed at the end, CQ by CQ, each CQ's in the order polled."""
    rest, cqs = [], {}
    for line in trace:
        m = COMPLETION.match(line)
        if m:
            cqs.setdefault(m.groups(), []).append(line)
        else:
            rest.append(line)
    for cq in sorted(cqs):
        rest.append("completions %s %s" % cq)
        rest.extend(cqs[cq])
    return rest


def load_known(paths):
    """{'line': [(regex, reason)], 'ref': [...], 'cand': [...]} from FILEs.

    Each entry is 'KIND<TAB>REGEX<TAB>REASON'; # starts a comment.  A
    'line' entry explains a line of a difference; a 'ref' entry, matching
    a line of the reference's own trace, explains the whole seed: the
    reference went wrong there and nothing after it compares.  A 'cand'
    entry does the same from a line of the candidate's trace: the input
    the reference mishandles shows only there (the reference dropped it
    without a word).
    """
    known = {"line": [], "ref": [], "cand": []}
    for path in paths or []:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line.strip() or line.startswith("#"):
                    continue
                kind, pattern, reason = (line.split("\t") + ["", ""])[:3]
                if kind not in known or not pattern:
                    sys.exit(f"{path}:{n}: expected KIND<TAB>REGEX<TAB>REASON")
                known[kind].append((re.compile(pattern), reason.strip()))
    return known


def differences(ref, cand):
    """The -/+ lines of a unified diff of two traces, headers left out,
    completions compared CQ by CQ (by_cq())."""
    return [d for d in difflib.unified_diff(by_cq(ref), by_cq(cand),
                                            lineterm="", n=0)
            if d[:1] in "-+" and not d.startswith(("---", "+++"))]


def explain(ref, cand, diff, known):
    """The reasons covering the difference DIFF of CAND from REF, or None."""
    for kind, trace in (("ref", ref), ("cand", cand)):
        for pattern, reason in known[kind]:
            if any(pattern.search(line) for line in trace):
                return {reason}
    reasons = set()
    for line in diff:
        hit = next((r for p, r in known["line"] if p.search(line)), None)
        if hit is None:
            return None
        reasons.add(hit)
    return reasons


def cmd_compare(args):
    ref, cand = split_seeds(args.ref), split_seeds(args.cand)
    known = load_known(args.known)
    same = explained = 0
    unexplained = []
    for seed in sorted(set(ref) | set(cand)):
        r = ref.get(seed, ["(missing)"])
        c = cand.get(seed, ["(missing)"])
        diff = differences(r, c)
        if not diff:
            same += 1
            continue
        why = explain(r, c, diff, known)
        if why is None:
            unexplained.append(seed)
            print(f"seed {seed} differs:")
            print("\n".join("  " + d for d in diff[:40]))
        else:
            explained += 1
            print(f"seed {seed}: known ({'; '.join(sorted(why))})")
    print(f"{same} same, {explained} known differences, "
          f"{len(unexplained)} unexplained"
          + (f": seeds {' '.join(map(str, unexplained))}"
             if unexplained else ""))
    return 1 if unexplained else 0


def trace(vdiff, opts, a, b, seed, keep, quiet):
    out = subprocess.run([vdiff, "run", *opts, "-q", str(quiet), "-k",
                          format(keep, "x"), a, b, str(seed)],
                         capture_output=True, text=True, timeout=600)
    return out.stdout.splitlines()


def all_steps(vdiff, opts, seed):
    """The KEEP mask of every step of SEED's program."""
    nsteps = int(re.search(r", (\d+) steps",
                           subprocess.run([vdiff, "print", *opts, str(seed)],
                                          capture_output=True, text=True,
                                          check=True).stdout).group(1))
    return (1 << nsteps) - 1


def cmd_recheck(args):
    opts = args.gen_opt.split() if args.gen_opt else []
    keep = all_steps(args.vdiff, opts, args.seed)
    fresh = split_lines(trace(args.vdiff, opts, args.ref_a, args.ref_b,
                              args.seed, keep, args.quiet))
    cand = split_seeds(args.cand)
    r = fresh.get(args.seed, ["(missing)"])
    c = cand.get(args.seed, ["(missing)"])
    diff = differences(r, c)
    if diff and explain(r, c, diff, load_known(args.known)) is None:
        print(f"seed {args.seed}: the reference re-run still differs")
        return 1
    print(f"seed {args.seed}: the reference re-run agrees")
    return 0


def cmd_minimize(args):
    opts = args.gen_opt.split() if args.gen_opt else []

    def differs(keep):
        r = trace(args.vdiff, opts, args.ref_a, args.ref_b, args.seed, keep,
                  args.quiet)
        c = trace(args.vdiff, opts, args.cand_a, args.cand_b, args.seed,
                  keep, args.quiet)
        return differences(r, c), r, c

    keep = all_steps(args.vdiff, opts, args.seed)
    diff, _, _ = differs(keep)
    if not diff:
        print(f"seed {args.seed}: no difference on a re-run (flaky)")
        return 2
    for step in reversed(range(nsteps)):
        trial = keep & ~(1 << step)
        if trial and differs(trial)[0]:
            keep = trial
    diff, r, c = differs(keep)
    print(f"seed {args.seed}: minimal program (steps {keep:#x}):")
    sys.stdout.write(subprocess.run([args.vdiff, "print", *opts,
                                     str(args.seed), format(keep, "x")],
                                    capture_output=True, text=True).stdout)
    print("difference (- reference, + candidate):")
    print("\n".join("  " + d for d in diff))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compare")
    c.add_argument("ref")
    c.add_argument("cand")
    c.add_argument("--known", action="append")
    # minimize and recheck re-run programs: VDIFF SEED REF_A REF_B, then
    # the candidate's two ends or its trace file.
    for cmd, cand in (("minimize", ["cand_a", "cand_b"]),
                      ("recheck", ["cand"])):
        r = sub.add_parser(cmd)
        r.add_argument("vdiff")
        r.add_argument("seed", type=int)
        for name in ["ref_a", "ref_b"] + cand:
            r.add_argument(name)
        r.add_argument("--quiet", type=int, default=50)
        r.add_argument("--gen-opt")
    sub.choices["recheck"].add_argument("--known", action="append")
    args = ap.parse_args()
    return {"compare": cmd_compare, "minimize": cmd_minimize,
            "recheck": cmd_recheck}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
