# SPDX-License-Identifier: GPL-2.0
"""kselftest - judge the tree's own selftests, patched against unpatched.

Reads the guest logs of make selftests (lib/kselftest.sh; the guest's
runner is guest/kselftest-run) and splits each program's run into cases:

  * its own KTAP/TAP result lines ("ok 3 desc", "not ok 4 desc",
    "ok 5 desc # SKIP why"), top level only;
  * else the coloured result words of the older khugepaged test
    ("Collapse fully populated PTE table.... OK" in green, Fail in red,
    Skip in yellow), named by the line and the "Run test:" header above;
  * always "exit": how the program ended (exit 0 pass, 4 skip, any other
    status, a timeout, a hang that SIGKILL did not end, the OOM killer,
    or the guest going down under it: fail);
  * always "kernel_log_clean": no oops/lockdep/BUG/WARNING/panic line in
    the kernel log while it ran.

Then each case is judged: passes or skips without the series but fails
(or is missing) with it = REGRESSION (exit 1); fails on both =
pre-existing (xfail, with its output); fails only without the series =
fixed by the series.  The committed expectations (tables/kselftest-expect.table:
every case that fails on either kernel or whose outcome the series changes,
with what it does without the series and why) are re-checked: a difference fails the run until the
table is updated (--write-expect writes the observed rows).  With only
--patched (the matrix's hook) each case is judged against that table.

  kselftest judge --branch B --arch A --patched LOG [--unpatched LOG]
      [--notrun TSV] [--expect TABLE] [--write-expect FILE] [--no-judge]
      [--regressed OUT] [--retry LOG] --records OUT.tsv [--markdown OUT.md]

A regression is confirmed by a second run: --regressed writes the
programs with one, lib/kselftest.sh runs them once more on the same
patched kernel, and the judge given that run (--retry) takes a case that
failed in the first run only as flaky (its second run's outcome, the
first failure in its text), never as a regression; a case that fails
again, or is missing from the second run, stays one.
"""

import os
import re

from mmbk import EXIT_FAILED, ArgumentParser, Error, results, tables
from mmbk.ktap import KERNEL_LINE, SPLAT

STEP = 'selftests'
BEGIN = re.compile(r'MMBK-KSFT-BEGIN (\d+) (\S+)')
END = re.compile(r'MMBK-KSFT-END (\d+) (\S+) rc=(\S+) secs=(\S+) end=(\w+)')
OUT = re.compile(r'MMBK-KSFT-OUT (\d+)\| ?(.*)$')
DOWN = re.compile(r'^MMBK-KSFT-GUEST-DOWN (\d+) qemu=(\S+)')
OOM = re.compile(r'Out of memory|oom-kill|invoked oom-killer')
TAP = re.compile(r'^(not )?ok (\d+)(?: -)? ?(.*?)(?:\s*#\s*(SKIP|XFAIL|TODO)\b\s*(.*))?$')
ANSI_RESULT = re.compile(r'^(.*?)\s*\x1b\[3([123])m(\w[^\x1b]*)\x1b\[0m\s*$')
RUN_TEST = re.compile(r'^Run test: (.*)$')
TAP_RUN = re.compile(r'^# \[RUN\] (.*)$')
RESULTS = ('pass', 'fail', 'skip')


class Program:
    """One program's run in one guest log."""

    def __init__(self, idx, name):
        self.idx, self.name = idx, name
        self.out, self.kernel, self.splats = [], [], []
        self.rc = self.secs = self.end = None
        self.oom = False

    def cases(self):
        """[(case, status, diagnostics, abnormal)] in the order the program
        ran them; abnormal: the exit case of a program that did not end by
        itself (timeout, hang, a signal, the guest going down)"""
        found, seen, header = [], {}, None

        def add(name, status, diag, abnormal=False):
            name = (name.strip() or 'case').replace('#', '')
            seen[name] = seen.get(name, 0) + 1
            if seen[name] > 1:
                name = f'{name} ({seen[name]})'
            found.append((name, status, diag, abnormal))

        tap = [TAP.match(l) for l in self.out]
        if any(tap):
            fresh = False
            for line, m in zip(self.out, tap):
                h = TAP_RUN.match(line)
                if h:
                    header, fresh = h.group(1).strip(), True
                if not m:
                    continue
                status = 'fail' if m.group(1) else \
                    'skip' if m.group(4) in ('SKIP', 'XFAIL', 'TODO') else 'pass'
                desc = m.group(3) or m.group(5) or f'case {m.group(2)}'
                # the first result after a "# [RUN] test" line is that
                # test: its description says how it ended ("No leak from
                # parent into child", or "MADV_COLLAPSE failed" as a
                # SKIP), which differs with and without the series, so it
                # is not part of the case's name
                if header and fresh:
                    add(header, status, [line])
                else:
                    add(f'{header}: {desc}' if header else desc, status, [line])
                fresh = False
        else:
            for line in self.out:
                h = RUN_TEST.match(line)
                if h:
                    header = h.group(1).strip()
                    continue
                m = ANSI_RESULT.match(line)
                if m:
                    # "step...step... OK": the last step (progress
                    # counters print the same step again and again)
                    desc = ([p.strip(' .') for p in m.group(1).split('...') if p.strip(' .')] or [''])[-1]
                    status = {'2': 'pass', '1': 'fail', '3': 'skip'}[m.group(2)]
                    add(f'{header}: {desc}' if header else desc, status, [line])
        status, diag = self.exit_case()
        add('exit', status, diag, status == 'fail' and not re.match(r'exit \d+$', diag[-1]))
        if self.splats:
            add('kernel_log_clean', 'fail', self.splats[:25] +
                [f'{len(self.splats)} kernel log line(s) of oops/lockdep/BUG/WARNING/panic while it ran'])
        else:
            add('kernel_log_clean', 'pass', [])
        return found

    def exit_case(self):
        tail = self.out[-15:]
        if self.end == 'guest-down':
            return 'fail', tail + self.kernel[-25:] + [f'the guest went down while it ran (qemu status {self.rc})']
        if self.end == 'hung':
            return 'fail', tail + ['hung: still running after its timeout and SIGKILL (a task stuck in the kernel)']
        if self.end == 'timeout':
            return 'fail', tail + [f'timed out: killed after {self.secs} s']
        if self.end is None:
            return 'fail', tail + ['no end in the log (the guest log is cut)']
        if self.rc == '0':
            return 'pass', []
        if self.rc == '4':
            return 'skip', tail[-3:] + ['skipped (exit 4)']
        if self.rc == '137' and self.oom:
            return 'fail', tail + ['killed by the OOM killer']
        try:
            rc = int(self.rc)
        except ValueError:
            rc = -1
        why = f'killed by signal {rc - 128}' if rc > 128 else f'exit {self.rc}'
        return 'fail', tail + [why]


def parse_log(path):
    """{program name: Program} of a guest log, in the order they ran."""
    progs, by_idx, cur = {}, {}, None
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            lines = [l.rstrip('\n') for l in f]
    except OSError as e:
        raise Error(f'cannot read {path}: {e.strerror}', 'run make selftests (it writes the guest logs)') from e
    for line in lines:
        m = BEGIN.search(line)
        if m:
            cur = Program(m.group(1), m.group(2))
            progs[cur.name] = by_idx[cur.idx] = cur
            continue
        m = OUT.search(line)
        if m:
            p = by_idx.get(m.group(1))
            if p:
                p.out.append(m.group(2))
            continue
        m = END.search(line)
        if m:
            p = by_idx.get(m.group(1))
            if p:
                p.rc, p.secs, p.end = m.group(3), m.group(4), m.group(5)
            cur = None
            continue
        m = DOWN.match(line)
        if m:
            p = by_idx.get(m.group(1))
            if p and p.end is None:
                p.end, p.rc = 'guest-down', m.group(2)
            cur = None
            continue
        if cur and KERNEL_LINE.match(line):
            cur.kernel.append(line)
            if SPLAT.search(line):
                cur.splats.append(line)
            if OOM.search(line):
                cur.oom = True
    return progs


def read_notrun(path):
    out = {}
    if path:
        with open(path, encoding='utf-8') as f:
            for line in f:
                name, _, why = line.rstrip('\n').partition('\t')
                if name:
                    out[name] = why
    return out


def read_expect(path, branch, arch):
    """{case: (without, with, why)} of the committed rows for BRANCH/ARCH."""
    rows = {}
    if not path or not os.path.exists(path):
        return rows, False
    have = False
    for n, parts in tables.read_table(path, tabs=True):
        if len(parts) != 6 or parts[3] not in RESULTS or parts[4] not in RESULTS:
            raise Error(f'{path}:{n}: not "branch<TAB>arch<TAB>case<TAB>without<TAB>with<TAB>why" '
                        f'with results {"/".join(RESULTS)}', 'fix the row, or write the table again '
                        'with make selftests SAVE=1')
        if parts[0] == branch and parts[1] == arch:
            have = True
            rows[parts[2]] = (parts[3], parts[4], parts[5])
    return rows, have


def flat(progs):
    """{prog/case: (status, diagnostics, abnormal)}"""
    out = {}
    for p in progs.values():
        for case, status, diag, abnormal in p.cases():
            out[results.join_name([p.name, case])] = (status, diag, abnormal)
    return out


def prog_of(name):
    return results.split_name(name)[0]


def reason(diag):
    for line in reversed(diag):
        line = re.sub(r'\x1b\[[0-9;]*m', '', line).strip()
        if line:
            return line[:160]
    return 'no output'


def report(branch, patched, notrun):
    """One kernel's cases as they are (not judged): records"""
    recs = [results.Record('case', STEP, branch, name, p, None, None,
                           '\n'.join(d + ([reason(d)] if p != 'pass' and d else [])))
            for name, (p, d, _) in patched.items()]
    return recs + [results.Record('case', STEP, branch, results.join_name([name]), 'skip', None, None,
                                  f'not run: {why}') for name, why in notrun.items()]


def judge(branch, arch, patched, unpatched, notrun, expect, have_expect, retry=None, flakes=None):
    """(records, regressions, pre-existing, fixed, expectation mismatches, observed rows);
    RETRY: the cases of a second run of the programs with a regression on
    the patched kernel: a case that failed only in the first run is flaky
    (appended to FLAKES), judged by its second run"""
    recs, regress, pre, fixed, mismatch, observed = [], [], [], [], [], {}
    names = list(patched)
    if unpatched is not None:
        names += [n for n in unpatched if n not in patched]
    # programs that did not end by themselves on the patched kernel: their
    # missing cases were not run (the exit case says why)
    ended = {prog_of(n) for n, v in patched.items() if v[2]}
    ran = {prog_of(n) for n in patched}
    for name in names:
        prog = prog_of(name)
        if name in patched:
            p, pdiag, pab = patched[name]
        elif prog not in ran:
            p, pdiag, pab = ('fail', ['not run on the patched kernel: the guest log ends before it'], True) \
                if name.endswith('/exit') else ('skip', ['not run on the patched kernel (see its exit case)'], False)
        elif prog in ended:
            p, pdiag, pab = 'skip', [f'not run on the patched kernel: {prog} ended early (see its exit case)'], False
        else:
            p, pdiag, pab = 'fail', ['missing on the patched kernel, reported without the series'], False
        if unpatched is None:
            # no row: it passes or skips on both kernels
            e = expect.get(name)
            u, udiag, uab = (e[0], [], False) if e else ('skip' if p == 'skip' else 'pass', [], False)
        else:
            u, udiag, uab = unpatched.get(name, ('pass', [], False))
            if name not in unpatched and p != 'fail':
                u = p
        first = None
        if p == 'fail' and (u != 'fail' or (pab and not uab)) and retry and name in retry and \
                retry[name][0] != 'fail':
            first = pdiag
            p, pdiag, pab = retry[name]
            if flakes is not None:
                flakes.append((name, first))
        text, status = [], p
        if p == 'fail' and (u != 'fail' or (pab and not uab)):
            e = expect.get(name)
            if unpatched is None and e and e[1] == 'fail':
                status = 'xfail'
                text = pdiag + [f'known failure: {e[2]}']
                pre.append((name, pdiag, e[2]))
            else:
                status = 'fail'
                text = pdiag + [f'REGRESSION: {u} without the series, fails with it']
                regress.append((name, pdiag, udiag))
        elif p == 'fail':
            why = expect.get(name, (None, None, 'fails without the series too'))[2]
            status = 'xfail'
            text = pdiag + [f'pre-existing: {why}']
            pre.append((name, pdiag, why))
        elif u == 'fail':
            text = pdiag + ['fixed by the series: fails without it: ' + reason(udiag)]
            fixed.append((name, udiag))
        elif u == 'skip' and p == 'pass':
            # e.g. cow's MADV_COLLAPSE of a range with no writable PTE:
            # the test can run only with the series
            text = pdiag + ['runs with the series: skips without it: ' + reason(udiag)]
            fixed.append((name, udiag))
        elif p == 'skip':
            text = pdiag[-3:] + [reason(pdiag)]
        # the table keeps what the judge needs (LKFT's known failures): a
        # failure on either kernel or an outcome the series changes; a case
        # that skips on both (a THP size or feature the guest lacks) is no row
        if 'fail' in (u, p) or u != p:
            observed[name] = (u, p, expect.get(name, (None, None, reason(udiag if u == 'fail' else pdiag)))[2])
        if first is not None:
            text = text + [f'flaky: failed in the first run ({reason(first)}); {p} when its program ran '
                           f'again on the same kernel, so not a regression']
        recs.append(results.Record('case', STEP, branch, name, status, None, None, '\n'.join(text)))
    for name, why in notrun.items():
        recs.append(results.Record('case', STEP, branch, results.join_name([name]), 'skip', None, None,
                                   f'not run: {why}'))
    if have_expect:
        for name in sorted(set(expect) | set(observed)):
            want, got = expect.get(name), observed.get(name)
            if unpatched is None and got and want:
                got = (want[0], got[1], got[2])
            if (want and want[:2]) != (got and got[:2]):
                mismatch.append((name, want, got))
    return recs, regress, pre, fixed, mismatch, observed


def markdown(branch, arch, recs, regress, pre, fixed, mismatch, notrun, have_expect, judged=True, flakes=()):
    c = {s: sum(r.status == s for r in recs) for s in ('pass', 'fail', 'skip', 'xfail')}
    out = [f'# make selftests: {branch} ({arch})', '',
           f'{len(recs)} cases: {c["pass"]} pass, {c["fail"]} fail, {c["skip"]} skip, '
           f'{c["xfail"]} pre-existing failures (xfail)', '']
    if not judged:
        return out + ['One kernel, not judged (ONLY=unpatched, or no committed expectations): its failing cases',
                      ''] + \
            [f'- `{r.name}`: {reason(r.lines)}' for r in recs if r.status == 'fail'] + \
            ['', '## Not run', ''] + ([f'- `{n}`: {why}' for n, why in notrun.items()] or ['none'])
    out += ['## Regressions (pass or skip without the series, fail with it)', '']
    out += [f'- `{n}`: ' + reason(d) for n, d, _ in regress] or ['none']
    if flakes:
        out += ['', '## Flaky (failed in the first run, not when its program ran again on the same kernel)', '']
        out += [f'- `{n}`: first run: ' + reason(d) for n, d in flakes]
    out += ['', '## Pre-existing failures (fail without the series too)', '']
    for n, d, why in pre:
        out += [f'- `{n}`: {why}', '', '  ```'] + ['  ' + l for l in d[-8:]] + ['  ```']
    if not pre:
        out.append('none')
    out += ['', '## Fixed or made to run by the series (fail or skip without it, pass with it)', '']
    out += [f'- `{n}`: without the series: ' + reason(d) for n, d in fixed] or ['none']
    out += ['', '## Not run', '']
    out += [f'- `{n}`: {why}' for n, why in notrun.items()] or ['none']
    out += ['', '## Committed expectations (tables/kselftest-expect.table)', '']
    if have_expect is None:
        out.append('not used: a tree of yours (make selftests KDIR=) is judged patched against unpatched only')
    elif not have_expect:
        out.append(f'no rows for {branch} {arch} yet: make selftests BRANCH={branch} SAVE=1 writes them')
    else:
        out += [f'- `{n}`: committed {w[0] + "/" + w[1] if w else "pass/pass"}, '
                f'observed {g[0] + "/" + g[1] if g else "pass/pass"}' for n, w, g in mismatch] or ['as committed']
    return out


def write_expect(path, branch, arch, observed):
    """PATH with BRANCH/ARCH's rows replaced by OBSERVED."""
    keep = []
    if os.path.exists(path):
        with open(path, encoding='utf-8') as f:
            for line in f:
                parts = line.split('\t')
                if line.startswith('#') or len(parts) < 2 or (parts[0], parts[1]) != (branch, arch):
                    keep.append(line)
    if not keep:
        keep = ['# SPDX-License-Identifier: GPL-2.0\n',
                '# kselftest-expect.table - per branch and architecture, every case of the\n',
                "# tree's own selftests (make selftests) that fails on either kernel or whose\n",
                '# outcome the series changes: what it does without the series, with it, and why\n',
                '# (LKFT style: known failures are listed with a reason, so that any new\n',
                '# failure is a regression).  Written by make selftests SAVE=1, re-checked\n',
                '# by every make selftests; a case not listed passes, or skips, on both.\n',
                '# Columns (TAB separated): branch target case without with why (target:\n',
                '# the build target and profile, x86_64, arm64, x86_64-rt, x86_64-llvm)\n']
    keep += [f'{branch}\t{arch}\t{n}\t{u}\t{p}\t{" ".join(results.clean(why).split())}\n'
             for n, (u, p, why) in observed.items()]
    results.atomic_write(path, ''.join(keep))


def main(argv):
    ap = ArgumentParser(prog='kselftest')
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('judge', help='judge the guest logs of make selftests')
    p.add_argument('--branch', required=True)
    p.add_argument('--arch', required=True)
    p.add_argument('--patched', required=True, metavar='LOG')
    p.add_argument('--unpatched', metavar='LOG')
    p.add_argument('--notrun', metavar='TSV')
    p.add_argument('--expect', metavar='TABLE')
    p.add_argument('--write-expect', metavar='FILE')
    p.add_argument('--records', required=True)
    results.add_request_args(p)
    p.add_argument('--markdown', metavar='OUT.md')
    p.add_argument('--regressed', metavar='OUT',
                   help='write the programs with a regression, one a line (what a retry runs again)')
    p.add_argument('--retry', metavar='LOG', help='the second run of those programs on the patched kernel')
    p.add_argument('--no-judge', action='store_true',
                   help="one kernel's results as they are (make selftests ONLY=unpatched): status 0")
    a = ap.parse_args(argv)
    patched = flat(parse_log(a.patched))
    unpatched = flat(parse_log(a.unpatched)) if a.unpatched else None
    notrun = read_notrun(a.notrun)
    if not patched and not notrun:
        raise Error(f'{a.patched} holds no selftest run (no MMBK-KSFT-BEGIN line)',
                    'check the guest log: did the guest boot?', EXIT_FAILED)
    expect, have = read_expect(a.expect, a.branch, a.arch)
    flakes = []
    # the patched kernel alone is judged only against committed rows:
    # without them every pre-existing failure would read as a regression
    unjudgeable = unpatched is None and not have and not a.no_judge
    if a.no_judge or unjudgeable:
        recs, regress, pre, fixed, mismatch, observed = report(a.branch, patched, notrun), [], [], [], [], {}
    else:
        retry = flat(parse_log(a.retry)) if a.retry else None
        recs, regress, pre, fixed, mismatch, observed = judge(a.branch, a.arch, patched, unpatched, notrun,
                                                              expect, have, retry, flakes)
    results.write(a.records, results.stamped(recs, a))
    if a.regressed:
        results.atomic_write(a.regressed, ''.join(f'{p}\n' for p in sorted({prog_of(n) for n, _, _ in regress})))
    if a.markdown:
        # the report quotes guest output: made safe as the records' text is
        results.atomic_write(a.markdown, '\n'.join(results.clean(l) for l in markdown(
            a.branch, a.arch, recs, regress, pre, fixed, mismatch, notrun, have if a.expect else None,
            not (a.no_judge or unjudgeable), flakes)) + '\n')
    if a.write_expect:
        if unpatched is None:
            raise Error('--write-expect needs --unpatched', 'the table says what a case does without the series')
        write_expect(a.write_expect, a.branch, a.arch, observed)
        mismatch = []
    for n, d in flakes:
        print(f'kselftest: FLAKY {a.branch} {a.arch} {n}: failed in the first run ({reason(d)}), '
              f'not in the second')
    for n, d, _ in regress:
        print(f'kselftest: REGRESSION {a.branch} {a.arch} {n}: {reason(d)}')
    for n, w, g in mismatch:
        print(f'kselftest: expectation {a.branch} {a.arch} {n}: committed '
              f'{"/".join(w[:2]) if w else "pass/pass"}, observed {"/".join(g[:2]) if g else "pass/pass"}')
    if unjudgeable:
        raise Error(f'no committed expectations for {a.branch} {a.arch} in {a.expect}: the patched kernel '
                    'alone cannot be judged (its cases are in the records, not judged)',
                    f'run make selftests BRANCH={a.branch} SAVE=1 (both kernels) and commit the table',
                    EXIT_FAILED)
    if a.no_judge:
        return 0
    return EXIT_FAILED if regress or mismatch else 0
