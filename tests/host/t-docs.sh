#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   tests/host/t-docs.sh
#
# The documents against the tree, in seconds (vm/check.sh runs it as
# "docs"):
#
# - every reStructuredText file under Documentation/ (the record of runs
#   in Documentation/results/ included) parses with docutils without a
#   warning: a table whose columns drift, or a broken literal, renders as
#   an error block in the kernel's documentation build;
# - every shell command in a code block of the guide and the READMEs
#   (DOCS below), and every inline one that starts with a script of
#   bench/, vm/ or tests/, runs a file of the tree or a tool of
#   SYSTEM_TOOLS; every --flag it gives a script is one of the script's
#   case labels; every make target is in the Makefile it runs; every
#   environment variable it sets is read under vm/, bench/ or tests/; and
#   every RXC_GROUPS group is one of tests/guest/run-all.sh's;
# - every table of Documentation/performance.rst follows a
#   ".. figures-from: results/FILE" line, and each of its rows is a row
#   of that record file, cell for cell, so a figure that moves stays
#   identical;
# - the guide (rxc.rst) is at most 1500 lines and names no dated run:
#   runs belong in performance.rst and the record of runs.
#
# Debian's own python3, which python3-docutils (vm/install-deps.sh) is
# for.  Prints TAP ("ok - ...", "not ok - ...") and exits non-zero on a
# failure.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
nfail=0

# One python for every file: docutils takes a fifth of a second to load.
/usr/bin/python3 - "$repo" "$repo"/Documentation/*.rst "$repo"/Documentation/results/*.rst <<'PY' || nfail=$((nfail + 1))
import io
import sys
import docutils.core

repo, paths = sys.argv[1], sys.argv[2:]
bad = 0
for path in paths:
    name = path[len(repo) + 1:]
    err = io.StringIO()
    try:
        with open(path, encoding='utf-8') as src:
            docutils.core.publish_doctree(
                src.read(), source_path=path,
                settings_overrides={'report_level': 2, 'halt_level': 2,
                                    'warning_stream': err})
        print(f'ok - docs: {name} parses without a docutils warning')
    except Exception as e:  # docutils raises SystemMessage at halt_level
        bad += 1
        print(f'not ok - docs: {name} parses without a docutils warning')
        for ln in (str(e) or err.getvalue()).splitlines()[:3]:
            print(f'# {ln}')
sys.exit(1 if bad else 0)
PY

/usr/bin/python3 - "$repo" <<'PY' || nfail=$((nfail + 1))
import collections
import os
import re
import shlex
import sys

REPO = sys.argv[1]
DOCS = ['Documentation/rxc.rst', 'Documentation/performance.rst', 'README.md', 'bench/README.md',
        'tests/README.md', 'vm/README.md', 'Documentation/results/README.md']
# Tools from Debian packages that the documents may show.
SYSTEM_TOOLS = {
    'apt', 'bash', 'cc', 'dkms', 'dpkg-buildpackage', 'ibv_devinfo', 'insmod',
    'ip', 'make', 'modprobe', 'pkg-config', 'rdma', 'rmmod',
}
# The part of a script where it takes its flags: case labels such as
# "--wire)" or "--full|-f)".
CASE_LABEL = re.compile(r'^\s*([-\w]+(?:\s*\|\s*[-\w]+)*)\)', re.M)
ENV = re.compile(r'^[A-Z][A-Z0-9_]*=')

results = []


def ok(cond, what, why=''):
    results.append((cond, what, why))


def read(rel):
    with open(os.path.join(REPO, rel), encoding='utf-8') as f:
        return f.read()


def code_blocks(rel, text):
    """(line number, command line) of every shell code block."""
    lines = text.split('\n')
    blocks = []
    if rel.endswith('.md'):
        cur = None
        for i, ln in enumerate(lines, 1):
            if ln.startswith('```'):
                if cur is None:
                    cur = (ln[3:].strip(), [])
                else:
                    if cur[0] in ('sh', 'bash', ''):
                        blocks.append(cur[1])
                    cur = None
            elif cur is not None:
                cur[1].append((i, ln))
    else:
        i = 0
        while i < len(lines):
            if lines[i].rstrip().endswith('::') and not lines[i].lstrip().startswith('..'):
                j = i + 1
                while j < len(lines) and not lines[j].strip():
                    j += 1
                blk = []
                while j < len(lines) and (not lines[j].strip() or lines[j].startswith(' ')):
                    if lines[j].strip():
                        blk.append((j + 1, lines[j]))
                    j += 1
                blocks.append(blk)
                i = j
            else:
                i += 1
    out = []
    for blk in blocks:
        # A block is shell when its first line runs a tool or a file of
        # the tree; C, logs and listings are not.
        w = words(blk[0][1]) if blk else []
        while w and ENV.match(w[0]):
            w.pop(0)
        if not w or not (w[0] in SYSTEM_TOOLS or
                         os.path.isfile(os.path.join(REPO, w[0]))):
            continue
        joined, start = '', None
        for n, ln in blk:
            start = start or n
            s = ln.strip()
            if s.endswith('\\'):
                joined += s[:-1] + ' '
                continue
            joined += s
            out.append((start, joined))
            joined, start = '', None
    return out


def words(cmd):
    cmd = re.sub(r'\s#.*$', '', cmd)
    if cmd.lstrip().startswith('#'):
        return []
    try:
        return shlex.split(cmd)
    except ValueError:
        return cmd.split()


def script_flags(path):
    flags = set()
    for label in CASE_LABEL.findall(read(path)):
        flags.update(x.strip() for x in label.split('|') if x.strip().startswith('-'))
    return flags


def make_targets(d):
    mk = os.path.join(d, 'Makefile')
    if not os.path.exists(os.path.join(REPO, mk)):
        return set()
    return set(re.findall(r'^([\w.-]+)\s*:', read(mk), re.M))


ENV_SOURCES = None


def env_known(var):
    global ENV_SOURCES
    if ENV_SOURCES is None:
        parts = []
        for top in ('vm', 'bench', 'tests', 'Makefile'):
            p = os.path.join(REPO, top)
            files = [p] if os.path.isfile(p) else [
                os.path.join(r, f) for r, _, fs in os.walk(p) for f in fs
                if f.endswith(('.sh', '.py', '.c', 'Makefile'))]
            for f in files:
                with open(f, encoding='utf-8', errors='replace') as fh:
                    parts.append(fh.read())
        ENV_SOURCES = '\n'.join(parts)
    return re.search(r'\b' + re.escape(var) + r'\b', ENV_SOURCES) is not None


GROUPS = set(re.search(r'all_groups="([^"]*)"', read('tests/guest/run-all.sh')).group(1).split())


def check_command(where, cmd, strict):
    """strict: a code block line, whose first word must be known."""
    w = words(cmd)
    env = []
    while w and ENV.match(w[0]):
        env.append(w.pop(0))
    if not w:
        return
    prog, args = w[0], w[1:]
    if prog == 'bash' and args and '/' in args[0]:
        prog, args = args[0], args[1:]
    is_path = '/' in prog and not prog.startswith(('/', '$', '.'))
    if is_path:
        ok(os.path.exists(os.path.join(REPO, prog)), f'{where}: {prog} exists in the tree')
    elif strict:
        ok(prog in SYSTEM_TOOLS, f'{where}: {prog} is a known tool or a script of the tree',
           f'not in SYSTEM_TOOLS: {prog}')
    else:
        return
    for e in env:
        var, _, val = e.partition('=')
        ok(env_known(var), f'{where}: {var} is read by a script', f'{var} appears in no file of vm/, bench/ or tests/')
        if var == 'RXC_GROUPS':
            for g in val.split():
                ok(g in GROUPS, f'{where}: group {g} exists', 'not in run-all.sh all_groups')
    if is_path and os.path.exists(os.path.join(REPO, prog)) and prog.endswith('.sh'):
        known = script_flags(prog)
        for a in args:
            if a.startswith('--'):
                ok(a in known, f'{where}: {prog} takes {a}', f'no case label {a}) in {prog}')
    if prog == 'make':
        d, targets = '.', []
        it = iter(args)
        for a in it:
            if a == '-C':
                d = next(it, '.')
            elif not a.startswith('-') and '=' not in a:
                targets.append(a)
        known = make_targets(d)
        for t in targets:
            ok(t in known, f'{where}: make -C {d} has target {t}', f'no "{t}:" in {d}/Makefile')


INLINE_RST = re.compile(r'``([^`]+)``')
INLINE_MD = re.compile(r'(?<!`)`([^`]+)`(?!`)')
SCRIPT_START = re.compile(r'^(?:[A-Z][A-Z0-9_]*=\S*\s+)*(?:bash\s+)?((?:bench|vm|tests)/[\w./-]+\.(?:sh|py))\b')

for rel in DOCS:
    text = read(rel)
    for n, cmd in code_blocks(rel, text):
        check_command(f'{rel}:{n}', cmd, strict=True)
    pat = INLINE_MD if rel.endswith('.md') else INLINE_RST
    for n, ln in enumerate(text.split('\n'), 1):
        for m in pat.finditer(ln):
            if SCRIPT_START.match(m.group(1)):
                check_command(f'{rel}:{n}', m.group(1), strict=False)

# (b) the figures of performance.rst
perf = read('Documentation/performance.rst').split('\n')
end = len(perf)
BORDER = re.compile(r'^=+( +=+)+$')


def cells(ln):
    return tuple(re.split(r'\s{2,}', ln.strip()))


i = 0
cited = None
section = None
tables = collections.Counter()
while i < end:
    ln = perf[i]
    if i + 1 < end and re.fullmatch(r'=+', perf[i + 1]) and ln.strip():
        section = ln.strip()
    m = re.match(r'^\.\. figures-from: (\S+)$', ln)
    if m:
        cited = m.group(1)
        path = os.path.join('Documentation', cited)
        ok(os.path.exists(os.path.join(REPO, path)), f'performance.rst:{i + 1}: record {cited} exists')
    if BORDER.match(ln):
        tables[section] += 1
        j, borders = i, 0
        rows = []
        while j < end and borders < 3:
            if BORDER.match(perf[j]):
                borders += 1
            elif perf[j].strip():
                rows.append((j + 1, perf[j]))
            j += 1
        ok(cited is not None, f'performance.rst:{i + 1}: the table names its record (.. figures-from:)')
        if cited and os.path.exists(os.path.join(REPO, 'Documentation', cited)):
            rec = {cells(x) for x in read(os.path.join('Documentation', cited)).split('\n') if x.strip()}
            bad = [(n, r) for n, r in rows if cells(r) not in rec]
            ok(not bad, f'performance.rst:{i + 1}: {len(rows)} rows match {cited}',
               '; '.join(f'line {n}: {" | ".join(cells(r))}' for n, r in bad[:3]))
        cited = None
        i = j
        continue
    i += 1
for section in ('Loopback', 'Between two guests'):
    ok(tables[section] >= 1, f'performance.rst: "{section}" shows a table of a full run')

# The guide: at most 1500 lines, and no dated run.
guide = read('Documentation/rxc.rst').split('\n')
ok(len(guide) - (1 if guide[-1] == '' else 0) <= 1500, f'rxc.rst is at most 1500 lines ({len(guide)})')
dated = [n + 1 for n, ln in enumerate(guide)
         if re.search(r'\b20\d\d-\d\d-\d\d\b', ln)]
ok(not dated, 'rxc.rst names no dated run',
   'dates on lines ' + ', '.join(map(str, dated[:5])))

nfail = 0
for good, what, why in results:
    if good:
        continue
    nfail += 1
    print(f'not ok - docs: {what}')
    if why:
        print(f'# {why}')
print(f'ok - docs: {len(results) - nfail} of {len(results)} command, flag and figure checks pass'
      if nfail == 0 else f'# {nfail} of {len(results)} checks failed')
sys.exit(1 if nfail else 0)
PY
[ "$nfail" -eq 0 ]
