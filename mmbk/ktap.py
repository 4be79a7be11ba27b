#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""ktap.py - the kit's one KTAP reader, judge and JUnit writer, built on the
kernel's own tools/testing/kunit (kunit_parser, kunit_printer, kunit_junit)
imported at run time from the newest cached tree.

  ktap.py count [--prefix P] FILE...       -> "P F S" (passed failed skipped)
  ktap.py junit -o OUT SUITE=FILE...       -> JUnit XML, one <testsuite> per file
  ktap.py judge LOG --branch B --expect T (--variant V | --topics a,b) [...]
                                           -> the judged KTAP of a guest's log
  ktap.py metrics FILE                     -> "test<TAB>name<TAB>value<TAB>unit" rows

count and the judge use the kernel parser's own counts: an "ok ... # XFAIL"
result is a pass for it (KTAP has no expected-failure state); JUnit has none
either, so there it is a <skipped> with the reason.  Exit status: 0, 1 for a
broken document (count: crashed, unparseable, plan/result mismatch; judge: a
verdict of FAIL), 2 for bad usage.
"""

import argparse
import io
import os
import re
import sys
import xml.etree.ElementTree as ET

PROG = 'ktap.py'
KUNIT_REL = os.path.join('tools', 'testing', 'kunit')
DIRECTIVE = re.compile(r'^\s*(?:not )?ok [0-9]+ [^#]*# (SKIP|XFAIL|XPASS|TODO)\b ?(.*)$')
# kernel log lines (printk timestamp); only those can carry a splat
KERNEL_LINE = re.compile(r'^\[ *[0-9]+\.[0-9]+\] ')
SPLAT = re.compile(r'Oops|BUG:|WARNING:|Kernel panic|INFO: |possible recursive locking|'
                   r'general protection fault|Call Trace:|UBSAN:|kernel BUG at')
GUEST_END = re.compile(r'^MMBK-END\b')
GUEST_BEGIN = re.compile(r'^MMBK-BEGIN (.*)$')
# figures tests print: "# name: value [unit]" or "# metric name value unit"
# (tests/bench/bench.h)
METRIC = re.compile(r'^#\s*(?:metric\s+([a-z0-9_.-]+)\s+|([a-z0-9_]+):\s+)([0-9][0-9.]*|fail)(?:\s+(.*))?$')

kunit_parser = None     # the kernel's modules, loaded by load_kunit()
kunit_printer = None
kunit_junit = None


def die(problem, fix):
    print(f'{PROG}: error: {problem}; {fix}', file=sys.stderr)
    sys.exit(2)


def cache_dir():
    """The kit cache, as scripts/lib.sh defines it (MMBK_CACHE, XDG_CACHE_HOME)."""
    if os.environ.get('MMBK_CACHE'):
        return os.environ['MMBK_CACHE']
    xdg = os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache')
    return os.path.join(xdg, 'mm-backport-kit')


def version_key(name):
    return [int(x) if x.isdigit() else 0 for x in name.split('.')]


def newest_kunit_dir():
    """tools/testing/kunit of the newest cached tree that has the parser."""
    trees = os.path.join(cache_dir(), 'trees')
    names = sorted(os.listdir(trees), key=version_key, reverse=True) if os.path.isdir(trees) else []
    for name in names:
        d = os.path.join(trees, name, 'linux', KUNIT_REL)
        if all(os.path.isfile(os.path.join(d, f)) for f in ('kunit_parser.py', 'kunit_printer.py')):
            return d
    die(f'no cached kernel tree under {trees} has {KUNIT_REL}/kunit_parser.py',
        "run 'make tree BRANCH=7.2' (the kit reads KTAP with the kernel's own parser)")
    return None


def load_kunit(explicit):
    """Import the kernel's kunit_parser/kunit_printer (and kunit_junit if the
    tree has it) from EXPLICIT or the newest cached tree."""
    global kunit_parser, kunit_printer, kunit_junit
    d = os.path.abspath(explicit) if explicit else newest_kunit_dir()
    if not os.path.isfile(os.path.join(d, 'kunit_parser.py')):
        die(f'{d} has no kunit_parser.py', f'point --kunit-dir at a tree\'s {KUNIT_REL}')
    sys.path.insert(0, d)
    sys.dont_write_bytecode = True      # never write __pycache__ into a kernel tree
    import kunit_parser as parser   # pylint: disable=import-outside-toplevel
    import kunit_printer as printer  # pylint: disable=import-outside-toplevel
    if 'printer' not in parser.parse_run_tests.__code__.co_varnames:
        die(f'{d}/kunit_parser.py is older than Linux 6.18 (parse_run_tests() takes no printer)',
            "run 'make tree BRANCH=7.2'")
    kunit_parser, kunit_printer = parser, printer
    if os.path.isfile(os.path.join(d, 'kunit_junit.py')):
        import kunit_junit as junit      # pylint: disable=import-outside-toplevel
        kunit_junit = junit
    wrap_result_parser()


def wrap_result_parser():
    """kunit_parser knows only the SKIP directive: record every directive
    (SKIP, XFAIL, ...) and its reason on the Test, from the very line the
    kernel parser accepted as the result line."""
    orig = kunit_parser.parse_test_result

    def parse_test_result(lines, test, expected_num, printer):
        line = lines.peek()
        ok = orig(lines, test, expected_num, printer)
        m = DIRECTIVE.match(line) if ok else None
        test.mmbk_directive = m.group(1) if m else ''
        test.mmbk_reason = m.group(2).strip() if m else ''
        return ok
    kunit_parser.parse_test_result = parse_test_result


class Doc:
    """One parsed KTAP document: the kernel parser's Test tree and its errors."""

    def __init__(self, lines, label):
        out = io.StringIO()
        printer = kunit_printer.Printer(print=True, output=out)
        self.label = label
        self.lines = lines
        self.test = kunit_parser.parse_run_tests(lines, printer)
        self.errors = [re.sub(r'^\[[0-9:]+\] \S*\[ERROR\]\S* ', '', l)
                       for l in out.getvalue().splitlines() if '[ERROR]' in l]

    @classmethod
    def read(cls, path):
        try:
            with open(path, encoding='utf-8', errors='replace') as f:
                return cls(f.read().splitlines(), path)
        except OSError as e:
            die(f'cannot read {path}: {e.strerror}', 'check the path')
        return None

    def counts(self):
        """(passed, failed, skipped) as the kernel parser counts them;
        crashed results count as failed."""
        c = self.test.counts
        return c.passed, c.failed + c.crashed, c.skipped

    def broken(self):
        """Why the document is not valid KTAP ('' if it is)."""
        S = kunit_parser.TestStatus
        if self.test.status == S.FAILURE_TO_PARSE_TESTS:
            return 'no KTAP document in it'
        if self.errors:
            return self.errors[0] + (f' (and {len(self.errors) - 1} more)' if len(self.errors) > 1 else '')
        if self.test.counts.crashed:
            return f'{self.test.counts.crashed} test(s) crashed'
        return ''


def diagnostics(test):
    """The '# ...' lines of a test's log, without the '# ' and indentation."""
    out = []
    for line in test.log:
        s = line.strip()
        if s.startswith('#'):
            out.append(s[1:].strip())
    return out


def reason_of(test):
    """The reason a result gives: its directive's text, else the diagnostic
    line directly before the result line."""
    if getattr(test, 'mmbk_reason', ''):
        return test.mmbk_reason
    d = diagnostics(test)
    return d[-1] if d else ''


# --- count -------------------------------------------------------------------

def leaves(test, prefix=''):
    """(full name, Test) of every leaf below TEST."""
    for sub in test.subtests:
        full = f'{prefix}{sub.name}'
        if sub.subtests:
            yield from leaves(sub, f'{full}.')
        else:
            yield full, sub


def cmd_count(args):
    total = [0, 0, 0]
    bad = 0
    for path in args.files:
        doc = Doc.read(path)
        if args.prefix is None:
            counts = doc.counts()
        else:
            got = [result_of(t) for name, t in leaves(doc.test) if name.startswith(args.prefix)]
            counts = (got.count('pass'), got.count('fail') + got.count('crashed'), got.count('skip'))
        for i, n in enumerate(counts):
            total[i] += n
        why = doc.broken()
        if why:
            bad += 1
            print(f'{PROG}: error: {path}: {why}; the document is not valid KTAP for the kernel\'s parser',
                  file=sys.stderr)
    print(*total)
    return 1 if bad else 0


# --- junit -------------------------------------------------------------------

class Case:
    """One JUnit test case: a leaf of a KTAP document (or a parent whose own
    result is bad while no leaf of it failed, or the document itself)."""

    def __init__(self, classname, name, kind, message='', text=''):
        self.classname, self.name, self.kind = classname, name, kind
        self.message, self.text = message, text


def leaf_cases(test, classname):
    S = kunit_parser.TestStatus
    cases = []
    for n, sub in enumerate(test.subtests, 1):
        name = sub.name or f'(missing subtest {n})'
        log = '\n'.join(diagnostics(sub))
        if sub.subtests:
            cases += leaf_cases(sub, f'{classname}.{name}')
            bad_leaf = any(not t.ok_status() for t in sub.subtests)
            if not sub.ok_status() and not bad_leaf:
                cases.append(Case(classname, name, 'error',
                                  reason_of(sub) or f'{name} failed without a failing case', log))
            continue
        directive = getattr(sub, 'mmbk_directive', '')
        if sub.status == S.SUCCESS and directive == 'XFAIL':
            cases.append(Case(classname, name, 'skipped', f'XFAIL {reason_of(sub)}'.strip(), log))
        elif sub.status == S.SUCCESS:
            cases.append(Case(classname, name, 'passed', '', log))
        elif sub.status == S.SKIPPED:
            cases.append(Case(classname, name, 'skipped', reason_of(sub), log))
        elif sub.status == S.FAILURE:
            cases.append(Case(classname, name, 'failure', reason_of(sub) or 'failed', log))
        else:
            cases.append(Case(classname, name, 'error',
                              reason_of(sub) or f'{sub.status.name.lower()}: no result line', log))
    return cases


def doc_cases(doc, suite):
    cases = leaf_cases(doc.test, suite)
    why = doc.broken()
    if why and not any(c.kind == 'error' for c in cases):
        cases.append(Case(suite, '(document)', 'error', why, '\n'.join(doc.errors)))
    return cases


def suite_element_kunit(suite, cases):
    """<testsuite> from the kernel's kunit_junit, given the flat case list,
    with what it leaves out added: classname, message, XFAIL as skipped."""
    S = kunit_parser.TestStatus
    top = kunit_parser.Test()
    top.name = suite
    kind_status = {'passed': S.SUCCESS, 'failure': S.FAILURE, 'skipped': S.SKIPPED, 'error': S.TEST_CRASHED}
    for c in cases:
        t = kunit_parser.Test()
        t.name, t.status, t.skip_reason = c.name, kind_status[c.kind], c.message
        t.log = c.text.splitlines()
        t.counts.add_status(t.status)
        top.subtests.append(t)
        top.counts.add_subtest_counts(t.counts)
    el = kunit_junit.get_test_suite(top, None)
    for c, tc in zip(cases, el.findall('testcase')):
        tc.set('classname', c.classname)
        for child in tc:
            if child.tag in ('failure', 'error', 'skipped'):
                child.set('message', c.message)
                child.text = c.text or c.message
    return el


def suite_element_junit_xml(suite, cases):
    """<testsuite> from Debian's python3-junit.xml (trees without kunit_junit)."""
    try:
        import junit_xml   # pylint: disable=import-outside-toplevel
    except ImportError:
        die('the kernel tree has no kunit_junit.py and python3-junit.xml is not installed',
            'run scripts/deps.sh (or make tree BRANCH=7.2)')
    tcs = []
    for c in cases:
        tc = junit_xml.TestCase(c.name, classname=c.classname, stdout=c.text or None)
        if c.kind == 'failure':
            tc.add_failure_info(message=c.message, output=c.text or c.message)
        elif c.kind == 'error':
            tc.add_error_info(message=c.message, output=c.text or c.message)
        elif c.kind == 'skipped':
            tc.add_skipped_info(message=c.message, output=c.text or None)
        tcs.append(tc)
    xml = junit_xml.to_xml_report_string([junit_xml.TestSuite(suite, tcs)], prettyprint=False)
    return ET.fromstring(xml).find('testsuite')


def cmd_junit(args):
    root = ET.Element('testsuites', {'name': args.name})
    totals = {'tests': 0, 'failures': 0, 'errors': 0}
    for spec in args.suites:
        suite, sep, path = spec.partition('=')
        if not sep or not suite or not path:
            die(f"'{spec}' is not SUITE=FILE", 'name each document, e.g. 6.12.check=out/ktap/6.12-check.ktap')
        cases = doc_cases(Doc.read(path), suite)
        if kunit_junit:
            el = suite_element_kunit(suite, cases)
        else:
            el = suite_element_junit_xml(suite, cases)
        el.set('tests', str(len(cases)))
        el.set('failures', str(sum(c.kind == 'failure' for c in cases)))
        el.set('errors', str(sum(c.kind == 'error' for c in cases)))
        el.set('skipped', str(sum(c.kind == 'skipped' for c in cases)))
        for k in totals:
            totals[k] += int(el.get(k))
        root.append(el)
    for k, v in totals.items():
        root.set(k, str(v))
    ET.indent(root)
    tmp = args.output + '.tmp'
    ET.ElementTree(root).write(tmp, encoding='utf-8', xml_declaration=True)
    os.replace(tmp, args.output)
    return 0


# --- judge -------------------------------------------------------------------

class Expect:
    """tests/suite/expect.table: case topic branch unpatched patched."""

    def __init__(self, path):
        self.rows = {}
        self.topics = set()
        try:
            f = open(path, encoding='utf-8')
        except OSError as e:
            die(f'cannot read {path}: {e.strerror}', 'pass --expect tests/suite/expect.table')
        with f:
            for n, line in enumerate(f, 1):
                cols = line.split('#', 1)[0].split()
                if not cols:
                    continue
                if len(cols) != 5 or any(r not in ('pass', 'fail', 'skip', 'any') for r in cols[3:]):
                    die(f'{path}:{n}: expected "case topic branch unpatched patched" with results '
                        'pass|fail|skip|any', 'fix the row')
                case, topic, branch, unpatched, patched = cols
                self.rows[(case, branch)] = (topic, unpatched, patched)
                self.topics.add(topic)

    def topics_of(self, variant):
        """The topics present in a kernel of VARIANT (patched, unpatched,
        without-<topic>)."""
        if variant in ('patched', 'patched-kabi'):
            return set(self.topics)
        if variant == 'unpatched':
            return set()
        if variant.startswith('without-') and variant[8:] in self.topics:
            return self.topics - {variant[8:]}
        die(f"unknown variant '{variant}'",
            'use patched, unpatched or without-<topic> with a topic of expect.table: ' +
            ' '.join(sorted(self.topics)))
        return None

    def expected(self, case, branch, present, profile='test'):
        """(result, why) for CASE on BRANCH with the topics PRESENT; a kernel
        of another PROFILE (rt) looks for rows of "<branch>-<profile>" and
        "*-<profile>" first."""
        keys = (branch, '*')
        if profile != 'test':
            keys = (f'{branch}-{profile}', f'*-{profile}') + keys
        for b in keys:
            if (case, b) in self.rows:
                topic, unpatched, patched = self.rows[(case, b)]
                have = topic in present
                return (patched if have else unpatched,
                        f'{"with" if have else "without"} {topic}, expect.table row {b}')
        return 'pass', 'not in expect.table'

    def listed(self, branch, profile='test'):
        keys = {branch, '*'} | ({f'{branch}-{profile}', f'*-{profile}'} if profile != 'test' else set())
        return sorted({c for (c, b) in self.rows if b in keys})


def result_of(test):
    S = kunit_parser.TestStatus
    if test.status == S.SUCCESS:
        return 'pass'
    if test.status == S.SKIPPED:
        return 'skip'
    if test.status == S.FAILURE:
        return 'fail'
    return 'crashed'


class Judge:
    """Builds the judged document: the guest's nested structure, every
    case's result held against its expectation."""

    def __init__(self, args, expect, present):
        self.args, self.expect, self.present = args, expect, present
        self.out = []
        self.bad = 0

    def emit(self, depth, text):
        self.out.append('    ' * depth + text)

    def judge_case(self, depth, n, name, full, test):
        got = result_of(test)
        for d in diagnostics(test):
            self.emit(depth, f'# {d}')
        if not test.name:
            self.emit(depth, f'# {full.rsplit(".", 1)[0]}: case {n} not reported '
                      '(the program stopped before it: crash, kill or panic)')
            self.emit(depth, f'not ok {n} {name}')
            self.bad += 1
            return False
        if self.args.no_expect:
            want, why = got, 'not judged (--no-expect)'
        else:
            want, why = self.expect.expected(full, self.args.branch, self.present, self.args.profile)
        if want == 'any' and got in ('pass', 'fail'):
            want = got
        reason = getattr(test, 'mmbk_reason', '')
        if got == want == 'pass':
            self.emit(depth, f'ok {n} {name}')
            return True
        if got == want == 'skip':
            self.emit(depth, f'ok {n} {name} # SKIP {reason}'.rstrip())
            return True
        if got == want == 'fail' and not self.args.no_expect:
            self.emit(depth, f'ok {n} {name} # XFAIL fails {why}')
            return True
        if got == want:     # --no-expect: report as it is
            self.emit(depth, f'not ok {n} {name}')
            return False
        what = 'UNEXPECTED PASS: the test no longer shows the failure it must' if got == 'pass' else 'MISMATCH'
        self.emit(depth, f'# {full}: got {got}, expected {want} ({why}): {what}')
        self.emit(depth, f'not ok {n} {name}')
        self.bad += 1
        return False

    def judge_parent(self, depth, n, test, prefix):
        """A test with subtests (a test binary or module): nested document."""
        full = f'{prefix}{test.name}'
        self.emit(depth + 1, 'KTAP version 1')
        self.emit(depth + 1, f'# Subtest: {test.name}')
        self.emit(depth + 1, f'1..{len(test.subtests) + len(self.missing_in(full, test))}')
        ok = True
        k = 0
        for k, sub in enumerate(test.subtests, 1):
            name = sub.name or f'missing_{k}'
            if sub.subtests:
                ok &= self.judge_parent(depth + 1, k, sub, f'{full}.')
            else:
                ok &= self.judge_case(depth + 1, k, name, f'{full}.{name}', sub)
        for case in self.missing_in(full, test):
            k += 1
            want, why = self.expect.expected(case, self.args.branch, self.present, self.args.profile)
            self.emit(depth + 1, f'# {case}: not reported, expected {want} ({why})')
            self.emit(depth + 1, f'not ok {k} {case[len(full) + 1:]}')
            self.bad += 1
            ok = False
        for d in diagnostics(test):
            self.emit(depth + 1, f'# {d}')
        failing_leaf = any(result_of(t) == 'fail' for t in test.subtests)
        if result_of(test) in ('fail', 'crashed') and not failing_leaf:
            self.emit(depth, f'# {full}: {result_of(test)} without a failing case '
                      '(killed, crashed or an unplanned exit)')
            self.bad += 1
            ok = False
        self.emit(depth, f'{"ok" if ok else "not ok"} {n} {test.name}')
        return ok

    def missing_in(self, full, test):
        """Cases expect.table lists for this branch, with an expectation
        other than pass, that TEST did not report."""
        if self.args.no_expect:
            return []
        seen = {f'{full}.{t.name}' for t in test.subtests}
        out = []
        for case in self.expect.listed(self.args.branch, self.args.profile):
            if case.startswith(full + '.') and '.' not in case[len(full) + 1:] and case not in seen:
                if self.expect.expected(case, self.args.branch, self.present, self.args.profile)[0] != 'pass':
                    out.append(case)
        return out

    def run(self, doc):
        top = doc.test
        tops = top.subtests if top.status != kunit_parser.TestStatus.FAILURE_TO_PARSE_TESTS else []
        plan = top.expected_count or 0
        begin = next((m.group(1) for m in map(GUEST_BEGIN.match, doc.lines) if m), 'no MMBK-BEGIN line')
        self.emit(0, 'KTAP version 1')
        self.emit(0, f'# {self.args.title}: {begin}; topics: {",".join(sorted(self.present)) or "none"}')
        self.emit(0, f'1..{len(tops) + 2}')
        for n, t in enumerate(tops, 1):
            if t.subtests or t.name:
                if not t.subtests:
                    self.emit(0, f'# {t.name}: no KTAP document of its own')
                    for d in diagnostics(t):
                        self.emit(0, f'# {d}')
                    ok = result_of(t) in ('pass', 'skip')
                    self.bad += not ok
                    self.emit(0, f'{"ok" if ok else "not ok"} {n} {t.name}')
                else:
                    self.judge_parent(0, n, t, '')
            else:
                self.emit(0, f'# test program {n}: not reported (the guest stopped before it)')
                self.emit(0, f'not ok {n} missing_{n}')
                self.bad += 1
        n = len(tops)
        splats = [i for i, l in enumerate(doc.lines) if KERNEL_LINE.match(l) and SPLAT.search(l)]
        if splats:
            first = splats[0]
            for l in doc.lines[first:first + 25]:
                self.emit(0, f'# {l}')
            self.emit(0, f'# {len(splats)} kernel log line(s) of oops/lockdep/BUG/WARNING/panic in {doc.label}')
        self.emit(0, f'{"not ok" if splats else "ok"} {n + 1} kernel_log_clean')
        self.bad += bool(splats)
        ended = any(GUEST_END.match(l) for l in doc.lines)
        reported = sum(hasattr(t, 'mmbk_directive') for t in tops)
        complete = ended and reported == plan and not doc.broken()
        if not complete:
            for e in doc.errors:
                self.emit(0, f'# kunit_parser: {e}')
            self.emit(0, f'# {reported} of {plan} test programs reported; '
                      f'{"the guest reached MMBK-END" if ended else "no MMBK-END: timeout, panic or hang"}')
        self.emit(0, f'{"ok" if complete else "not ok"} {n + 2} guest_completed')
        self.bad += not complete
        return self.out


def cmd_judge(args):
    if not args.no_expect and not args.variant and args.topics is None:
        die('no expectation given', 'pass --variant patched|unpatched|without-<topic>, --topics a,b or --no-expect')
    expect = Expect(args.expect)
    if args.topics is not None:
        present = {t for t in args.topics.split(',') if t}
        unknown = present - expect.topics
        if unknown:
            die(f'unknown topic(s) {",".join(sorted(unknown))}',
                'use topics of expect.table: ' + ' '.join(sorted(expect.topics)))
    else:
        present = expect.topics_of(args.variant) if args.variant else set()
    doc = Doc.read(args.log)
    judge = Judge(args, expect, present)
    lines = judge.run(doc)
    # the summary counts are the kernel parser's, of the judged document itself
    judged = Doc(lines, 'judged')
    p, f, s = judged.counts()
    verdict = 'PASS' if judge.bad == 0 and not judged.broken() else 'FAIL'
    note = f'; {args.note}' if args.note else ''
    lines.append(f'# {args.title}: {verdict} ({p} passed, {f} failed, {s} skipped{note})')
    print('\n'.join(lines))
    if judged.broken():
        print(f'{PROG}: error: the judged document does not parse: {judged.broken()}; report a kit bug',
              file=sys.stderr)
        return 1
    return 0 if verdict == 'PASS' or args.no_expect else 1


# --- metrics -----------------------------------------------------------------

def cmd_metrics(args):
    """Numbers the tests print as '# name: value [unit]' diagnostics, per test."""
    def walk(test, prefix):
        full = f'{prefix}{test.name}' if test.name and test.name != 'main' else prefix.rstrip('.')
        for d in diagnostics(test):
            m = METRIC.match('# ' + d)
            if m:
                print(f'{full}\t{m.group(1) or m.group(2)}\t{m.group(3)}\t{(m.group(4) or "").strip()}')
        for sub in test.subtests:
            walk(sub, f'{full}.' if full else '')
    walk(Doc.read(args.file).test, '')
    return 0


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split('\n\n', 1)[0])
    ap.add_argument('--kunit-dir', help=f'the {KUNIT_REL} to use (default: newest cached tree)')
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('count', help='P F S of KTAP files')
    p.add_argument('--prefix', help='count only the cases whose name starts with PREFIX')
    p.add_argument('files', nargs='+', metavar='FILE')
    p = sub.add_parser('junit', help='JUnit XML of KTAP files')
    p.add_argument('-o', '--output', required=True)
    p.add_argument('--name', default='mm-backport-kit')
    p.add_argument('suites', nargs='+', metavar='SUITE=FILE')
    p = sub.add_parser('judge', help='judge a guest serial log')
    p.add_argument('log', metavar='LOG')
    p.add_argument('--branch', required=True)
    p.add_argument('--expect', required=True, metavar='TABLE')
    p.add_argument('--variant', help='patched, patched-kabi, unpatched or without-<topic>')
    p.add_argument('--topics', help='comma-separated topics present in the kernel')
    p.add_argument('--no-expect', action='store_true', help='report results as they are (exit 0)')
    p.add_argument('--profile', default='test', choices=('test', 'bench', 'rt'),
                   help='kernel profile: rt also reads the "<branch>-rt" and "*-rt" rows')
    p.add_argument('--title', default='boot')
    p.add_argument('--note', default='')
    p = sub.add_parser('metrics', help='numeric diagnostics of a KTAP file')
    p.add_argument('file', metavar='FILE')
    args = ap.parse_args()
    load_kunit(args.kunit_dir)
    return {'count': cmd_count, 'junit': cmd_junit, 'judge': cmd_judge, 'metrics': cmd_metrics}[args.cmd](args)


if __name__ == '__main__':
    sys.exit(main())
