# SPDX-License-Identifier: GPL-2.0
"""kunit - the kernel's own KTAP tools (a tree's tools/testing/kunit:
kunit_parser and kunit_printer),
imported from the directory the caller names (the shell finds it in the
kit's cache), and Doc: one KTAP document as kunit_parser reads it.

The kernel parser knows only the SKIP directive; load() wraps its result
parser so that every directive (SKIP, XFAIL, ...) and its reason are kept
on the Test, from the very line the parser accepted as the result line.
"""

import io
import os
import re
import sys

from mmbk import Error

KUNIT_REL = os.path.join('tools', 'testing', 'kunit')
DIRECTIVE = re.compile(r'^\s*(?:not )?ok [0-9]+ [^#]*# (SKIP|XFAIL|XPASS|TODO)\b ?(.*)$')

parser = None       # the kernel's modules, set by load()
printer = None


def load(kunit_dir):
    """Import kunit_parser and kunit_printer from KUNIT_DIR; a second call with any directory keeps the first."""
    global parser, printer
    if parser is not None:
        return
    d = os.path.abspath(kunit_dir)
    if not os.path.isfile(os.path.join(d, 'kunit_parser.py')) or \
            not os.path.isfile(os.path.join(d, 'kunit_printer.py')):
        raise Error(f'{d} has no kunit_parser.py and kunit_printer.py',
                    f"point --kunit-dir at a Linux 6.18+ tree's {KUNIT_REL}")
    sys.path.insert(0, d)
    sys.dont_write_bytecode = True      # never write __pycache__ into a kernel tree
    import kunit_parser as kparser   # pylint: disable=import-outside-toplevel
    import kunit_printer as kprinter  # pylint: disable=import-outside-toplevel
    if 'printer' not in kparser.parse_run_tests.__code__.co_varnames:
        raise Error(f'{d}/kunit_parser.py is older than Linux 6.18 (parse_run_tests() takes no printer)',
                    f"point --kunit-dir at a Linux 6.18+ tree's {KUNIT_REL}")
    parser, printer = kparser, kprinter
    orig = parser.parse_test_result

    def parse_test_result(lines, test, expected_num, prt):
        line = lines.peek()
        ok = orig(lines, test, expected_num, prt)
        m = DIRECTIVE.match(line) if ok else None
        test.mmbk_directive = m.group(1) if m else ''
        test.mmbk_reason = m.group(2).strip() if m else ''
        return ok
    parser.parse_test_result = parse_test_result


class Doc:
    """One parsed KTAP document: the kernel parser's Test tree and its errors."""

    def __init__(self, lines, label):
        out = io.StringIO()
        prt = printer.Printer(print=True, output=out)
        self.label = label
        self.lines = lines
        self.test = parser.parse_run_tests(lines, prt)
        self.errors = [re.sub(r'^\[[0-9:]+\] \S*\[ERROR\]\S* ', '', l)
                       for l in out.getvalue().splitlines() if '[ERROR]' in l]

    @classmethod
    def read(cls, path):
        try:
            with open(path, encoding='utf-8', errors='replace') as f:
                return cls(f.read().splitlines(), path)
        except OSError as e:
            raise Error(f'cannot read {path}: {e.strerror}', 'check the path') from e

    def counts(self):
        """(passed, failed, skipped) as the kernel parser counts them;
        crashed results count as failed."""
        c = self.test.counts
        return c.passed, c.failed + c.crashed, c.skipped

    def broken(self):
        """Why the document is not valid KTAP ('' if it is)."""
        if self.test.status == parser.TestStatus.FAILURE_TO_PARSE_TESTS:
            return 'no KTAP document in it'
        if self.errors:
            return self.errors[0] + (f' (and {len(self.errors) - 1} more)' if len(self.errors) > 1 else '')
        if self.test.counts.crashed:
            return f'{self.test.counts.crashed} test(s) crashed'
        return ''


def diagnostics(test):
    """The '# ...' lines of a test's log, without the '# ' and indentation."""
    return [s[1:].strip() for s in (line.strip() for line in test.log) if s.startswith('#')]


def result_of(test):
    """pass, skip, fail or crashed: a Test's status as the judge names it."""
    S = parser.TestStatus
    return {S.SUCCESS: 'pass', S.SKIPPED: 'skip', S.FAILURE: 'fail'}.get(test.status, 'crashed')
