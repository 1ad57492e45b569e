# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Run rdma-core's pyverbs test modules and print one TAP line per test.

usage: python3 pyverbs_tap.py TESTS_PARENT DEV GID MODULE...

TESTS_PARENT holds the unpacked "tests" package of Debian's python3-pyverbs
(/usr/share/doc/rdma-core/tests).  MODULE names are like "test_pd"; "all"
means every test module, as the package's run_tests.py runs them.
Tracebacks and skip reasons go to stderr (the guest log).  The TAP lines
are labelled with $PYVERBS_SUITE ("pyverbs" by default).
"""
import os
import random
import sys
import traceback
import unittest

parent, dev, gid, modules = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
# The suite imports both "tests.x" and its own "args_parser" top-level module.
sys.path[:0] = [parent, parent + '/tests']
from args_parser import parser  # noqa: E402

sys.argv[1:] = ['--dev', dev, '--gid', gid]
parser.parse_args()
import tests  # noqa: E402  (imports every test_* module, as run_tests.py)


SUITE = os.environ.get('PYVERBS_SUITE', 'pyverbs')


class TapResult(unittest.TestResult):
    def _line(self, status, test, directive=''):
        name = test.id()
        if name.startswith('tests.'):
            name = name[len('tests.'):]
        print(f'{status} - {SUITE}: {name}{directive}', flush=True)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line('ok', test)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        # One line: TAP directives end at the newline.
        self._line('ok', test, ' # SKIP ' + ' '.join(str(reason).split()))

    def _bad(self, test, err, what):
        self._line('not ok', test)
        print(f'--- {what}: {test.id()}', file=sys.stderr)
        traceback.print_exception(*err, file=sys.stderr)
        sys.stderr.flush()

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._bad(test, err, 'FAIL')

    def addError(self, test, err):
        super().addError(test, err)
        self._bad(test, err, 'ERROR')

    def addSubTest(self, test, subtest, err):
        # A failed subtest fails its test, which then reports nothing else.
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._bad(subtest, err, 'SUBTEST')

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._line('ok', test)

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._line('not ok', test)


def skip_listed(path, reason):
    """Mark the tests listed in @path (module.Class.method) as skipped."""
    import importlib
    with open(path) as f:
        names = [ln.strip() for ln in f if ln.strip() and not ln.startswith('#')]
    for name in names:
        module, cls_name, method = name.rsplit('.', 2)
        cls = getattr(importlib.import_module('tests.' + module), cls_name)
        setattr(cls, method, unittest.skip(reason)(getattr(cls, method)))


if os.environ.get('PYVERBS_SKIP_FILE'):
    skip_listed(os.environ['PYVERBS_SKIP_FILE'],
                os.environ.get('PYVERBS_SKIP_REASON', 'listed as skipped'))

# The suite draws sizes and values from random: make runs repeatable.
random.seed(int(os.environ.get('PYVERBS_SEED', '0')))
if modules == ['all']:
    modules = [m.__name__[len('tests.'):] for m in tests.__test_modules__]
suite = unittest.TestLoader().loadTestsFromNames(['tests.' + m for m in modules])
result = TapResult()
suite.run(result)
sys.exit(0 if result.wasSuccessful() else 1)
