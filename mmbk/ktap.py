# SPDX-License-Identifier: GPL-2.0
"""ktap - the kit's KTAP reader and judge, built on the kernel's own
kunit_parser (mmbk/kunit.py; --kunit-dir names a Linux 6.18+ tree's
tools/testing/kunit, which the shell finds in the kit's cache).

  ktap count [--prefix P] --kunit-dir DIR FILE...
      "P F S" (passed failed skipped) of KTAP files, as kunit_parser counts
      them; exit 1 when a file is not valid KTAP for it (crashed,
      unparseable, plan/result mismatch)
  ktap judge LOG --kunit-dir DIR --branch B --expect TABLE
             (--variant V | --topics a,b | --no-expect) [--profile test|bench|rt]
             [--title T] [--note N] [--records OUT.tsv]
      a guest's serial log held against tables/boot-expect.table: the
      results as records (step: the title), printed as KTAP by the one KTAP
      writer (mmbk/results.py) with a last line "# T: PASS|FAIL (counts)";
      exit 1 on FAIL (never with --no-expect)
  ktap metrics --kunit-dir DIR FILE
      "test<TAB>name<TAB>value<TAB>unit" rows of the figures tests print

kunit_parser counts an "ok ... # XFAIL" result as passed (KTAP has no
expected-failure state).
"""

import os
import re
import sys

from mmbk import EXIT_FAILED, ArgumentParser, Error, kunit, results, tables

# kernel log lines (printk timestamp); only those can carry a splat
KERNEL_LINE = re.compile(r'^\[ *[0-9]+\.[0-9]+\] ')
SPLAT = re.compile(r'Oops|BUG:|WARNING:|Kernel panic|INFO: |possible recursive locking|'
                   r'general protection fault|Call Trace:|UBSAN:|kernel BUG at')
GUEST_END = re.compile(r'^MMBK-END\b')
GUEST_BEGIN = re.compile(r'^MMBK-BEGIN (.*)$')
# figures tests print: "# name: value [unit]" or "# metric name value unit"
# (guest/bench/bench.h)
METRIC = re.compile(r'^#\s*(?:metric\s+([a-z0-9_.-]+)\s+|([a-z0-9_]+):\s+)([0-9][0-9.]*|fail)(?:\s+(.*))?$')
RESULTS = ('pass', 'fail', 'skip', 'any')


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
        doc = kunit.Doc.read(path)
        if args.prefix is None:
            counts = doc.counts()
        else:
            got = [kunit.result_of(t) for name, t in leaves(doc.test) if name.startswith(args.prefix)]
            counts = (got.count('pass'), got.count('fail') + got.count('crashed'), got.count('skip'))
        for i, n in enumerate(counts):
            total[i] += n
        why = doc.broken()
        if why:
            bad += 1
            print(f"ktap: error: {path}: {why}; the document is not valid KTAP for the kernel's parser",
                  file=sys.stderr)
    print(*total)
    return EXIT_FAILED if bad else 0


# --- judge -------------------------------------------------------------------

class Expect:
    """tables/boot-expect.table: case topic branch unpatched patched (the
    semantics are in the table's header)."""

    def __init__(self, path):
        self.rows = {}
        self.topics = set()
        for n, cols in tables.read_table(path, fix='pass --expect tables/boot-expect.table'):
            if len(cols) != 5 or any(r not in RESULTS for r in cols[3:]):
                raise Error(f'{path}:{n}: expected "case topic branch unpatched patched" with results '
                            + '|'.join(RESULTS), 'fix the row')
            case, topic, branch, unpatched, patched = cols
            self.rows[(case, branch)] = (topic, unpatched, patched)
            self.topics.add(topic)

    def topics_of(self, variant):
        """The topics a kernel of VARIANT (patched, patched-kabi, unpatched,
        without-<topic>) carries."""
        if variant in ('patched', 'patched-kabi'):
            return set(self.topics)
        if variant == 'unpatched':
            return set()
        if variant.startswith('without-') and variant[8:] in self.topics:
            return self.topics - {variant[8:]}
        raise Error(f"unknown variant '{variant}'",
                    'use patched, unpatched or without-<topic> with a topic of the table: ' +
                    ' '.join(sorted(self.topics)))

    def expected(self, case, branch, present, profile='test'):
        """(result, why, topic) for CASE on BRANCH with the topics PRESENT; a
        kernel of another PROFILE (rt) looks for rows of "<branch>-<profile>"
        and "*-<profile>" first."""
        keys = (branch, '*')
        if profile != 'test':
            keys = (f'{branch}-{profile}', f'*-{profile}') + keys
        for b in keys:
            if (case, b) in self.rows:
                topic, unpatched, patched = self.rows[(case, b)]
                have = topic in present
                return (patched if have else unpatched,
                        f'{"with" if have else "without"} {topic}, expect.table row {b}', topic)
        return 'pass', 'not in expect.table', None

    def listed(self, branch, profile='test'):
        keys = {branch, '*'} | ({f'{branch}-{profile}', f'*-{profile}'} if profile != 'test' else set())
        return sorted({c for (c, b) in self.rows if b in keys})


def upstream_topics(branch):
    """The topics BRANCH has upstream: none of their patches is carried by
    backports/BRANCH/series nor marked there '# n/a:' (not applicable)."""
    path = tables.branch_series_path(branch)
    if not os.path.isfile(path):
        raise Error(f'no {path}', 'pass --branch a branch of tables/branches.table')
    carried = set(tables.series(path))
    with open(path, encoding='utf-8') as f:
        na = {m.group(1) for m in (re.match(r'#\s*n/a:\s*(\S+?):', l) for l in f) if m}
    return {t for t, patches in tables.topics().items() if not set(patches) & (carried | na)}


class Judge:
    """The judged results of a guest's log: the guest's nested structure,
    every case's result held against its expectation, as records."""

    def __init__(self, args, expect, present):
        self.args, self.expect, self.present = args, expect, present
        self.records = []
        self.bad = 0

    def add(self, levels, status, lines, topic=None):
        self.records.append(results.Record('case', self.args.title, self.args.branch,
                                           results.join_name(levels), status, topic, None, '\n'.join(lines)))

    def expected(self, case):
        return self.expect.expected(case, self.args.branch, self.present, self.args.profile)

    def judge_case(self, levels, n, full, test):
        got = kunit.result_of(test)
        diag = kunit.diagnostics(test)
        if not test.name:
            self.add(levels, 'error', diag + [f'{full.rsplit(".", 1)[0]}: case {n} not reported '
                                              '(the program stopped before it: crash, kill or panic)'])
            self.bad += 1
            return
        if self.args.no_expect:
            want, why, topic = got, 'not judged (--no-expect)', None
        else:
            want, why, topic = self.expected(full)
        if want == 'any' and got in ('pass', 'fail'):
            want = got
        if got == want == 'pass':
            self.add(levels, 'pass', diag, topic)
        elif got == want == 'skip':
            self.add(levels, 'skip', diag + [getattr(test, 'mmbk_reason', '')], topic)
        elif got == want == 'fail' and not self.args.no_expect:
            self.add(levels, 'xfail', diag + [f'fails {why}'], topic)
        elif got == want:     # --no-expect: reported as it is
            self.add(levels, 'fail' if got == 'fail' else 'error', diag, topic)
        else:
            what = 'UNEXPECTED PASS: the test no longer shows the failure it must' if got == 'pass' else 'MISMATCH'
            self.add(levels, 'error' if got == 'crashed' else 'fail',
                     diag + [f'{full}: got {got}, expected {want} ({why}): {what}'], topic)
            self.bad += 1

    def judge_parent(self, levels, test, prefix):
        """A test with subtests (a test program or module)."""
        full = f'{prefix}{test.name}'
        k = 0
        for k, sub in enumerate(test.subtests, 1):
            name = sub.name or f'missing_{k}'
            if sub.subtests:
                self.judge_parent(levels + [name], sub, f'{full}.')
            else:
                self.judge_case(levels + [name], k, f'{full}.{name}', sub)
        for case in self.missing_in(full, test):
            want, why, topic = self.expected(case)
            self.add(levels + [case[len(full) + 1:]], 'error',
                     [f'{case}: not reported, expected {want} ({why})'], topic)
            self.bad += 1
        diag = kunit.diagnostics(test)
        failing_leaf = any(kunit.result_of(t) == 'fail' for t in test.subtests)
        if kunit.result_of(test) in ('fail', 'crashed') and not failing_leaf:
            self.add(levels, 'error', diag + [f'{full}: {kunit.result_of(test)} without a failing case '
                                              '(killed, crashed or an unplanned exit)'])
            self.bad += 1
        else:
            self.add(levels, 'pass', diag)

    def missing_in(self, full, test):
        """Cases the table lists for this branch, with an expectation other
        than pass, that TEST did not report."""
        if self.args.no_expect:
            return []
        seen = {f'{full}.{t.name}' for t in test.subtests}
        return [case for case in self.expect.listed(self.args.branch, self.args.profile)
                if case.startswith(full + '.') and '.' not in case[len(full) + 1:] and case not in seen
                and self.expected(case)[0] != 'pass']

    def run(self, doc):
        top = doc.test
        tops = top.subtests if top.status != kunit.parser.TestStatus.FAILURE_TO_PARSE_TESTS else []
        plan = top.expected_count or 0
        for n, t in enumerate(tops, 1):
            if t.subtests:
                self.judge_parent([t.name], t, '')
            elif t.name:
                ok = kunit.result_of(t) in ('pass', 'skip')
                self.bad += not ok
                self.add([t.name], 'pass' if ok else 'error' if kunit.result_of(t) == 'crashed' else 'fail',
                         [f'{t.name}: no KTAP document of its own'] + kunit.diagnostics(t))
            else:
                self.add([f'missing_{n}'], 'error', [f'test program {n}: not reported (the guest stopped before it)'])
                self.bad += 1
        splats = [i for i, l in enumerate(doc.lines) if KERNEL_LINE.match(l) and SPLAT.search(l)]
        if splats:
            self.add(['kernel_log_clean'], 'fail', doc.lines[splats[0]:splats[0] + 25] +
                     [f'{len(splats)} kernel log line(s) of oops/lockdep/BUG/WARNING/panic in {doc.label}'])
        else:
            self.add(['kernel_log_clean'], 'pass', [])
        self.bad += bool(splats)
        ended = any(GUEST_END.match(l) for l in doc.lines)
        reported = sum(hasattr(t, 'mmbk_directive') for t in tops)
        if ended and reported == plan and not doc.broken():
            self.add(['guest_completed'], 'pass', [])
        else:
            self.add(['guest_completed'], 'fail', [f'kunit_parser: {e}' for e in doc.errors] + [
                f'{reported} of {plan} test programs reported; '
                f'{"the guest reached MMBK-END" if ended else "no MMBK-END: timeout, panic or hang"}'])
            self.bad += 1
        return self.records


def cmd_judge(args):
    if not args.no_expect and not args.variant and args.topics is None:
        raise Error('no expectation given', 'pass --variant patched|unpatched|without-<topic>, --topics a,b or --no-expect')
    expect = Expect(args.expect)
    if args.topics is not None:
        present = {t for t in args.topics.split(',') if t}
        unknown = present - expect.topics
        if unknown:
            raise Error(f'unknown topic(s) {",".join(sorted(unknown))}',
                        'use topics of the table: ' + ' '.join(sorted(expect.topics)))
    else:
        present = expect.topics_of(args.variant) if args.variant else set()
    upstream = upstream_topics(args.branch)
    doc = kunit.Doc.read(args.log)
    judge = Judge(args, expect, present | upstream)
    records = judge.run(doc)
    begin = next((m.group(1) for m in map(GUEST_BEGIN.match, doc.lines) if m), 'no MMBK-BEGIN line')
    title = f'{args.title}: {begin}; topics: {",".join(sorted(present)) or "none"}'
    if upstream:
        title += f' (upstream: {",".join(sorted(upstream))})'
    lines = results.ktap_lines(records, title)
    # the summary counts are the kernel parser's, of the judged document itself
    judged = kunit.Doc(lines, 'judged')
    p, f, s = judged.counts()
    verdict = 'PASS' if judge.bad == 0 and not judged.broken() else 'FAIL'
    note = f'; {args.note}' if args.note else ''
    lines.append(f'# {args.title}: {verdict} ({p} passed, {f} failed, {s} skipped{note})')
    print('\n'.join(lines))
    if args.records:
        results.write(args.records, results.stamped(records, args))
    if judged.broken():
        raise Error(f'the judged document does not parse: {judged.broken()}', 'report a kit bug', EXIT_FAILED)
    return 0 if verdict == 'PASS' or args.no_expect else EXIT_FAILED


# --- metrics -----------------------------------------------------------------

def cmd_metrics(args):
    """Numbers the tests print as '# name: value [unit]' diagnostics, per test."""
    def walk(test, prefix):
        full = f'{prefix}{test.name}' if test.name and test.name != 'main' else prefix.rstrip('.')
        for d in kunit.diagnostics(test):
            m = METRIC.match('# ' + d)
            if m:
                print(f'{full}\t{m.group(1) or m.group(2)}\t{m.group(3)}\t{(m.group(4) or "").strip()}')
        for sub in test.subtests:
            walk(sub, f'{full}.' if full else '')
    walk(kunit.Doc.read(args.file).test, '')
    return 0


def main(argv):
    ap = ArgumentParser(prog='ktap', description=__doc__.split('\n\n', 1)[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    kunit_help = f"a Linux 6.18+ tree's {kunit.KUNIT_REL}"
    p = sub.add_parser('count', help='P F S of KTAP files')
    p.add_argument('--kunit-dir', required=True, help=kunit_help)
    p.add_argument('--prefix', help='count only the cases whose name starts with PREFIX')
    p.add_argument('files', nargs='+', metavar='FILE')
    p = sub.add_parser('judge', help='judge a guest serial log')
    p.add_argument('log', metavar='LOG')
    p.add_argument('--kunit-dir', required=True, help=kunit_help)
    p.add_argument('--branch', required=True)
    p.add_argument('--expect', required=True, metavar='TABLE')
    p.add_argument('--variant', help='patched, patched-kabi, unpatched or without-<topic>')
    p.add_argument('--topics', help='comma-separated topics the kernel carries')
    p.add_argument('--no-expect', action='store_true', help='report results as they are (exit 0)')
    p.add_argument('--profile', default='test', choices=('test', 'bench', 'rt'),
                   help='kernel profile: rt also reads the "<branch>-rt" and "*-rt" rows')
    p.add_argument('--title', default='boot', help='the title line and the records\' step')
    p.add_argument('--note', default='')
    p.add_argument('--records', metavar='OUT.tsv', help='write the judged results as records')
    results.add_request_args(p)
    p = sub.add_parser('metrics', help='numeric diagnostics of a KTAP file')
    p.add_argument('--kunit-dir', required=True, help=kunit_help)
    p.add_argument('file', metavar='FILE')
    args = ap.parse_args(argv)
    kunit.load(args.kunit_dir)
    return {'count': cmd_count, 'judge': cmd_judge, 'metrics': cmd_metrics}[args.cmd](args)
