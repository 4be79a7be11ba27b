# SPDX-License-Identifier: GPL-2.0
"""results - the kit's one result model and its writers.

Every step of the kit writes records (lib/results.sh `result`, or a Python
tool's --records); KTAP, JUnit, JSON and the matrix's Markdown are each
written from records by exactly one writer, here.

A record file is TSV, one record a line, no header, 10 fields:

  kind     step | patch | topic | case
  step     the kit step: tree, apply, check, abi, boot-<variant>[-<profile>], unit, ...
  branch   the branch, or the name of a KDIR tree
  name     a path, "/" between its levels (nosteal_test/down_read_..._writer,
           default/khugepaged-ro-collapse); a record named by a parent path
           that follows its children's records gives that parent's own
           status and diagnostics (a name may otherwise repeat: each such
           record is a test of its own, as in a guest's log).  Within a level
           "\\/" is a "/" and "\\\\" a backslash; no "#" (KTAP reads it as a
           directive)
  status   one of STATUSES
  topic    a topic of tables/topics.table, or -
  seconds  a number, or -
  text     the human text, "\\n", "\\t" and "\\\\" escaped: the diagnostic lines,
           the last one the reason (a patch's: the apply report's phrase,
           "re-targeted from cocci (out/x/0002-...patch)", "not applicable: ...")
  version  the Linux version of the tree the record is of (5.15.145), or -
  target   the build target it was built for (x86_64, arm64, x86_64-llvm,
           arm64-kconfig-...), or - (apply, status: no build)
Both come from the command's request (lib/request.sh), never from text.

The step's kind (STEP_KINDS: tree, apply, check, abi, boot, selftests,
unit, run) tells every writer what the step is; a step of no kind is an
error of every writer (check()), never a record a writer leaves out.

Text from guests and tools is made safe here, once, when a Record is made
(clean(): names and text): colour escapes (ESC [ ... letter) dropped, other
control characters but tab and newline written as their Unicode control
pictures (ESC as U+241B), C1 controls, line and paragraph separators,
lone surrogates, U+FFFE/U+FFFF and bytes that are not UTF-8 (a record
file is read with errors replaced) as U+FFFD; so every writer's output is
UTF-8 that XML, JSON and the kernel's KTAP parser accept, whatever a guest
printed.  The KTAP writer also keeps a diagnostic line from reading as
KTAP ("# Subtest: ", the phrases kunit_parser ends a document at).

How a status reads in KTAP (and so in the counts and in JUnit):
  ok                  applied re-targeted re-anchored upstream not-selected
                      nothing-to-do pass
  ok ... # SKIP why   n/a skip
  ok ... # XFAIL why  xfail (kunit_parser counts it as passed; JUnit: skipped)
  not ok              failed not-tried fail error

A step record (kind step) carries the step's time and outcome; it is a
test of its own only where no other record of its step and branch tells
the outcome: when the step has no other record, or when it failed and none
of its other records did.  Counts ("P passed, F failed, S skipped") are
kunit_parser's counts of the KTAP the records make: its leaves.

  results ktap [--plan PLAN] FILE... [--title T] [--summary LABEL]
  results count FILE...                       -> "P F S"
  results junit -o OUT.xml [--name N] [--plan PLAN] [--steps FILE]... SUITE=FILE...
  results json -o OUT.json [--plan PLAN] FILE...
  results markdown -o OUT.md --branches "B..." [--plan PLAN] FILE...
  results expect --plan PLAN -o OUT FILE...   -> "BRANCH STEP" of each missing step

A run's plan (lib/steps.sh step_plan, read by read_plan) is the run's one
step list: a TSV file whose first line is the header
"branch<TAB>step<TAB>kind<TAB>target<TAB>variant" and whose every other
line is one planned step: its branch, its step name, its step kind
(STEP_KINDS; it must be the kind of its name), the build target it is
planned for (the matrix's: default, arm64, llvm, arm64-llvm, or x86_64 ...
when ARCH=/LLVM= were given; - when it builds nothing) and its variant
(the kernel or series it is of: patched, unpatched, without-TOPIC,
patched@rt, ...; - when none).  A file of the older "BRANCH<TAB>STEP"
lines, without the header, is read too (kind from the name, target and
variant -).  `expect` writes to OUT an error record for every planned step
that left no record (of any kind) in FILE..., so that a step that never
ran or whose records were lost is a failure, named.  Given --plan, every
writer shows every planned step, in plan order, with its target and
variant, a planned step that left no record as such (that same error
record; in the Markdown its cells say "not run"); the counts of its
output count that error record as a failure.
"""

import collections
import json
import math
import os
import re
import time
import xml.etree.ElementTree as ET

from mmbk import ArgumentParser, Error, tables

KINDS = ('step', 'patch', 'topic', 'case')
STATUSES = ('applied', 're-targeted', 're-anchored', 'upstream', 'n/a', 'not-selected', 'failed',
            'not-tried', 'nothing-to-do', 'pass', 'fail', 'skip', 'xfail', 'error')
BAD = frozenset(('failed', 'not-tried', 'fail', 'error'))
SKIPPED = frozenset(('n/a', 'skip'))
FIELDS = ('kind', 'step', 'branch', 'name', 'status', 'topic', 'seconds', 'text', 'version', 'target')
RECORD_FIX = 'write records with lib/results.sh result (fields: ' + ' '.join(FIELDS) + ')'
# The step kinds, in the order the reports show them: (kind, its step
# names).  tree and apply: make matrix's first steps (retarget: a
# re-targeting apply's own records); check: the check of the default build
# target and check-TARGET (check-llvm, check-arm64, ...); abi; boot: a
# boot-VARIANT[-PROFILE][-TARGET] (boot: a judge run by hand); selftests:
# the tree's own selftests (selftests, selftests-arm64, selftests-rt);
# unit: make test's steps (fast, unit, outputs, matrix); run: a run's own
# checks (writer: a writer that failed; plan: a plan that could not be
# read).
STEP_KINDS = (
    ('tree', re.compile(r'tree')),
    ('apply', re.compile(r'apply|retarget')),
    ('check', re.compile(r'check(-[a-z0-9]+)*')),
    ('abi', re.compile(r'abi')),
    ('boot', re.compile(r'boot(-[A-Za-z0-9_.@-]+)?')),
    ('selftests', re.compile(r'selftests(-[A-Za-z0-9_.-]+)?')),
    ('unit', re.compile(r'fast|unit|outputs|matrix|cocci')),
    ('run', re.compile(r'writer|plan')),
)
# statuses as the matrix's cells spell them
DISPLAY = {'nothing-to-do': 'nothing to do', 'not-selected': 'not selected', 'not-tried': 'not tried'}


def step_kind(step):
    """The kind of the step STEP (STEP_KINDS), or None."""
    for kind, names in STEP_KINDS:
        if names.fullmatch(step):
            return kind
    return None


# an ANSI escape sequence (CSI: colours, cursor moves): dropped
CSI = re.compile('\x1b\\[[0-?]*[ -/]*[@-~]')
# what no output may hold: C0 controls but tab and newline, DEL, C1
# controls, line/paragraph separators (Python's splitlines() splits on
# them), surrogates, U+FFFE and U+FFFF (not XML characters)
UNSAFE = re.compile('[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]')


def _safe(m):
    c = ord(m.group())
    if c < 0x20:
        return chr(0x2400 + c)      # the control picture: ESC -> U+241B
    return '\u2421' if c == 0x7f else '\ufffd'


def clean(s):
    """S made safe for every writer (see the module's docstring): colour
    escapes dropped, CR LF a newline, other controls their control
    pictures, what is no XML character U+FFFD; tab and newline kept."""
    if not s:
        return s
    s = CSI.sub('', s).replace('\r\n', '\n')
    return UNSAFE.sub(_safe, s)


def escape(s):
    return s.replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n')


def unescape(s):
    """"\\n", "\\t", "\\\\" undone (a backslash before any other character
    drops, as lib/results.sh result_unescape does)."""
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == '\\' and i + 1 < len(s):
            i += 1
            c = {'n': '\n', 't': '\t'}.get(s[i], s[i])
        out.append(c)
        i += 1
    return ''.join(out)


def split_name(name):
    """The levels of a record name ("a\\/b/c" -> ["a/b", "c"])."""
    levels, cur, i = [], [], 0
    while i < len(name):
        c = name[i]
        if c == '\\' and i + 1 < len(name):
            i += 1
            cur.append(name[i])
        elif c == '/':
            levels.append(''.join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    levels.append(''.join(cur))
    return levels


def join_name(levels):
    """A record name of LEVELS (the inverse of split_name)."""
    return '/'.join(l.replace('\\', '\\\\').replace('/', '\\/') for l in levels)


class Record:
    """One result: see the module's docstring for the fields."""

    __slots__ = FIELDS

    def __init__(self, kind, step, branch, name, status, topic=None, seconds=None, text='',
                 version=None, target=None):
        self.kind, self.step, self.branch, self.name = kind, step, branch, clean(name)
        self.status, self.topic, self.seconds, self.text = status, topic, seconds, clean(text)
        self.version, self.target = version, target

    @property
    def ok(self):
        return self.status not in BAD

    @property
    def lines(self):
        return self.text.split('\n') if self.text else []

    def tsv(self):
        secs = '-' if self.seconds is None else \
            str(int(self.seconds)) if float(self.seconds).is_integer() else repr(float(self.seconds))
        return '\t'.join((self.kind, self.step, self.branch, self.name, self.status,
                          self.topic or '-', secs, escape(self.text), self.version or '-', self.target or '-'))

    def as_json(self):
        return {f: getattr(self, f) for f in FIELDS}


def check(rec, where=''):
    """REC's fields are valid (else a one-line Error naming WHERE)."""
    at = f'{where}: ' if where else ''

    def bad(problem, fix=RECORD_FIX):
        raise Error(at + problem, fix)
    if rec.kind not in KINDS:
        bad(f"'{rec.kind}' is not a record kind", 'use one of: ' + ' '.join(KINDS))
    if isinstance(rec.step, str) and rec.step and step_kind(rec.step) is None:
        bad(f"the step '{rec.step}' is of no step kind the writers know",
            'use a step of: ' + ' '.join(k for k, _ in STEP_KINDS) + ' (mmbk/results.py STEP_KINDS)')
    if rec.status not in STATUSES:
        bad(f"'{rec.status}' is not a result status", 'use one of: ' + ' '.join(STATUSES))
    for f in ('step', 'branch', 'name'):
        v = getattr(rec, f)
        if not v or '\t' in v or '\n' in v:
            bad(f"the {f} '{v}' is empty or holds a TAB or newline")
    for f in ('version', 'target'):
        v = getattr(rec, f)
        if v is not None and (not v or '\t' in v or '\n' in v or v == '-'):
            bad(f"the {f} '{v}' is empty, '-' or holds a TAB or newline")
    if '#' in rec.name or not all(split_name(rec.name)):
        bad(f"the name '{rec.name}' has an empty level or a '#'")
    if rec.topic is not None and rec.topic not in tables.topics():
        bad(f"'{rec.topic}' is not a topic of tables/topics.table",
            'use one of: ' + ' '.join(tables.topics()) + ', or -')
    if rec.seconds is not None and (not isinstance(rec.seconds, (int, float)) or
                                    isinstance(rec.seconds, bool) or not math.isfinite(rec.seconds)):
        bad(f"the seconds '{rec.seconds}' are not a number")
    return rec


def parse(line, where):
    """One TSV line -> a checked Record."""
    cols = line.split('\t')
    if len(cols) != len(FIELDS):
        raise Error(f'{where}: {len(cols)} fields, a record has {len(FIELDS)}', RECORD_FIX)
    kind, step, branch, name, status, topic, secs, text, version, target = cols
    seconds = None
    if secs != '-':
        try:
            seconds = float(secs)
        except ValueError:
            raise Error(f"{where}: the seconds '{secs}' are not a number", 'write a number or -') from None
    return check(Record(kind, step, branch, name, status, None if topic == '-' else topic,
                        seconds, unescape(text), None if version == '-' else version,
                        None if target == '-' else target), where)


def add_request_args(parser):
    """--version and --target: the request's (lib/request.sh REQ_VERSION,
    REQ_TARGET), which the records a tool writes carry."""
    parser.add_argument('--version', default='', help='the Linux version of the tree (the request\'s)')
    parser.add_argument('--target', default='', help='the build target (the request\'s)')


def stamped(records, args):
    """RECORDS with the version and the target of ARGS (add_request_args)."""
    for r in records:
        r.version, r.target = args.version or None, args.target or None
    return records


def read(paths):
    """The records of the files PATHS, in order."""
    out = []
    for path in paths:
        try:
            # a guest's bytes that are no UTF-8: U+FFFD (Record cleans the rest)
            with open(path, encoding='utf-8', errors='replace', newline='\n') as f:
                text = f.read()
        except OSError as e:
            raise Error(f'cannot read {path}: {e.strerror}', 'name a record file the kit wrote') from e
        for n, line in enumerate(text.split('\n'), 1):
            if line:
                out.append(parse(line, f'{path}:{n}'))
    return out


def write(path, records, mode='w'):
    """Write (mode 'a': append) RECORDS to the record file PATH."""
    with open(path, mode, encoding='utf-8') as f:
        for r in records:
            f.write(check(r).tsv() + '\n')


def atomic_write(path, text):
    tmp = path + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        f.write(text)
    os.replace(tmp, path)


# --- the tree every writer reads ----------------------------------------------

def shown(records):
    """RECORDS less the step records whose step tells its outcome through
    other records (see the module's docstring)."""
    others = {}
    for r in records:
        if r.kind != 'step':
            others.setdefault((r.branch, r.step), []).append(r)
    out = []
    for r in records:
        rest = others.get((r.branch, r.step), [])
        if r.kind != 'step' or not rest or (not r.ok and all(o.ok for o in rest)):
            out.append(r)
    return out


class Node:
    """One test of the document: a level of the records' names, its own
    record (None for a parent named only by its children's records) and
    its children, in order."""

    def __init__(self, name):
        self.name = name
        self.record = None
        self.children = []

    @property
    def ok(self):
        return (self.record is None or self.record.ok) and all(c.ok for c in self.children)

    def directive(self):
        """('SKIP'|'XFAIL'|'', reason) of an ok test."""
        r = self.record
        if not self.ok or r is None:
            return '', ''
        kind = 'SKIP' if r.status in SKIPPED else 'XFAIL' if r.status == 'xfail' else ''
        return kind, (r.lines[-1] if kind and r.lines else '')

    def diagnostics(self):
        """The diagnostic lines before the result line: the own record's
        text, less the reason a directive carries."""
        lines = self.record.lines if self.record else []
        return lines[:-1] if self.directive()[0] else lines


def tree(records):
    """The records' tests, nested by name.  A record named by a parent path
    is that parent's own result when it follows the parent's children;
    otherwise a name that repeats is another test (as in a guest's log)."""
    root = Node('')
    for r in shown(records):
        node = root
        levels = split_name(r.name)
        for i, level in enumerate(levels):
            last = i == len(levels) - 1
            same = [c for c in node.children if c.name == level]
            cand = same[-1] if same else None
            if cand is None or cand.record is not None or (last and not cand.children):
                cand = Node(level)
                node.children.append(cand)
            node = cand
        node.record = r
    return root


def leaves(node):
    for c in node.children:
        if c.children:
            yield from leaves(c)
        else:
            yield c


def counts(records):
    """(passed, failed, skipped) of the leaves, as kunit_parser counts the
    KTAP of RECORDS: an XFAIL is a pass."""
    p = f = s = 0
    for leaf in leaves(tree(records)):
        if not leaf.ok:
            f += 1
        elif leaf.directive()[0] == 'SKIP':
            s += 1
        else:
            p += 1
    return p, f, s


def count_text(records):
    return '%d passed, %d failed, %d skipped' % counts(records)


# --- KTAP ----------------------------------------------------------------------

# what kunit_parser reads as KTAP wherever a line holds it: "# Subtest: "
# opens a test (so a diagnostic line must not start with it), and the
# kernel's end-of-output phrases end the document (searched for in every
# line); the writer breaks each with a blank before its colon
KTAP_HEADER = re.compile(r'^(\s*)Subtest:')
KTAP_END = re.compile(r'(List of all partitions|Kernel panic - not syncing|reboot)(?=:)')


def ktap_text(s):
    """S as text of a KTAP line (a diagnostic, a reason): never KTAP itself."""
    return KTAP_END.sub(r'\1 ', KTAP_HEADER.sub(r'\1Subtest :', s))


def ktap_lines(records, title=None, plan=None):
    """The KTAP document of RECORDS (nested names: nested subtests); with
    PLAN (read_plan) in plan order, with a not ok of each planned step that
    left no record."""
    records = planned(records, plan)
    out = ['KTAP version 1']
    if title:
        out.append(f'# {ktap_text(clean(title))}')
    root = tree(records)
    out.append(f'1..{len(root.children)}')
    for n, child in enumerate(root.children, 1):
        _ktap_node(child, 0, n, out)
    return out


def _ktap_node(node, depth, n, out):
    ind = '    ' * depth
    if node.children:
        sub = ind + '    '
        out += [f'{sub}KTAP version 1', f'{sub}# Subtest: {ktap_text(node.name)}', f'{sub}1..{len(node.children)}']
        for k, child in enumerate(node.children, 1):
            _ktap_node(child, depth + 1, k, out)
    out += [f'{ind}# {ktap_text(l)}' for l in node.diagnostics()]
    kind, reason = node.directive()
    line = f'{ind}{"ok" if node.ok else "not ok"} {n} {ktap_text(node.name)}'
    out.append(f'{line} # {kind} {ktap_text(reason)}'.rstrip() if kind else line)


# --- JUnit ---------------------------------------------------------------------

class Case:
    """One JUnit test case: a leaf, or a parent whose own result is bad
    while none of its children is."""

    def __init__(self, classname, name, kind, message='', text=''):
        self.classname, self.name, self.kind = classname, name, kind
        self.message, self.text = message, text


def _case_of(node, classname):
    r = node.record
    text = r.text if r else ''
    if r is not None and not r.ok:
        kind = 'error' if r.status == 'error' else 'failure'
        return Case(classname, node.name, kind, r.lines[-1] if r.lines else r.status, text)
    kind, reason = node.directive()
    if kind == 'XFAIL':
        return Case(classname, node.name, 'skipped', f'XFAIL {reason}'.strip(), text)
    if kind == 'SKIP':
        return Case(classname, node.name, 'skipped', reason, text)
    return Case(classname, node.name, 'passed', '', text)


def junit_cases(node, classname):
    cases = []
    for child in node.children:
        if not child.children:
            cases.append(_case_of(child, classname))
            continue
        cases += junit_cases(child, f'{classname}.{child.name}')
        if not child.ok and all(c.ok for c in child.children):
            cases.append(_case_of(child, classname))
    return cases


def suite_element(suite, cases):
    """<testsuite> of the flat case list: a <testcase> (name, classname)
    each, with a <failure>, <error> or <skipped> (message: the reason, the
    record's text as its content; XFAIL a <skipped>), or the text of a
    passed case as its <system-out>.  The kit's own writer: it needs no
    kernel tree."""
    el = ET.Element('testsuite', {'name': suite})
    for c in cases:
        tc = ET.SubElement(el, 'testcase', {'classname': c.classname, 'name': c.name})
        if c.kind == 'passed':
            if c.text:
                ET.SubElement(tc, 'system-out').text = c.text
            continue
        ET.SubElement(tc, c.kind, {'message': c.message}).text = c.text or c.message
    return el


def planned_suites(suites, plan, steps=()):
    """SUITES ([(suite name, records)]) with a suite BRANCH-STEP of the
    step records STEPS of each step that has no record in them (the
    matrix's tree step); with PLAN in plan order (of their records'
    steps), with a suite BRANCH-STEP of the error record of each planned
    step that left no record in any of them."""
    have = {(r.branch, r.step) for _, rs in suites for r in rs}
    alone = collections.OrderedDict()
    for r in steps:
        if (r.branch, r.step) not in have:
            alone.setdefault((r.branch, r.step), []).append(r)
    suites = suites + [(f'{b}-{st}', rs) for (b, st), rs in alone.items()]
    if plan is None:
        return suites
    index = plan_index(plan)
    lost = missing(plan, [r for _, rs in suites for r in rs])
    suites = suites + [(f'{r.branch}-{r.step}', [r]) for r in lost]

    def place(suite):
        return min((index.get((r.branch, r.step), len(index)) for r in suite[1]), default=len(index))
    return sorted(suites, key=place)


def junit_document(suites, name, plan=None, steps=()):
    """<testsuites> of [(suite name, records)]: one <testsuite> each, and
    one of the step records STEPS of each step that has no other record
    (planned_suites); with PLAN (read_plan) in plan order, a suite of each
    planned step that left no record, and the kind, target and variant of
    a suite's planned step as its <properties>."""
    root = ET.Element('testsuites', {'name': clean(name)})
    suites = planned_suites(suites, plan, steps)
    steps = {(p.branch, p.step): p for p in plan or []}
    totals = {'tests': 0, 'failures': 0, 'errors': 0}
    for suite, records in suites:
        suite = clean(suite)      # a tree's name (a user's directory) is in it
        cases = junit_cases(tree(records), suite)
        el = suite_element(suite, cases)
        mine = {steps.get((r.branch, r.step)) for r in records}
        if len(mine) == 1 and None not in mine:
            p = mine.pop()
            props = ET.Element('properties')
            for k in ('kind', 'target', 'variant'):
                ET.SubElement(props, 'property', {'name': k, 'value': getattr(p, k)})
            el.insert(0, props)
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
    return root


# --- JSON ----------------------------------------------------------------------

def json_document(records, plan=None):
    """The records; with PLAN (read_plan) in plan order with the error
    records of the planned steps that left none, and "plan": each planned
    step with its kind, target, variant and outcome (passed, failed, or
    not run: no record)."""
    records = planned(records, plan)
    doc = {'generated': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
           'statuses': list(STATUSES)}
    if plan is not None:
        steps = []
        for p in plan:
            rs = [r for r in records if (r.branch, r.step) == (p.branch, p.step)]
            outcome = 'not run' if all(is_missing(r) for r in rs) else \
                'passed' if all(r.ok for r in shown(rs)) else 'failed'
            steps.append(dict(p._asdict(), outcome=outcome))
        doc['plan'] = steps
    doc['records'] = [r.as_json() for r in records]
    return doc


# --- Markdown: the matrix --------------------------------------------------------

def markdown_lines(records, branches, plan=None):
    """The matrix (make matrix): a column per branch; the tree, a
    row per topic and per patch (tables/topics.table order), a count row
    per step of every other kind, the steps' times, the n/a patches, then
    every failed record of any branch and step, one line each.  With PLAN
    (read_plan) the count rows are its steps in plan order, each labelled
    with its target and variant, then the steps of the records it does not
    plan; a planned step of a column's branch with no record is "not run"
    (and a line of the failures); without, the steps of the records in
    STEP_KINDS order (check, check-TARGET, abi, boot-*, selftests*, ...)."""
    records = planned(records, plan)
    real = [r for r in records if not is_missing(r)]
    plan = plan or []
    in_plan = {(p.branch, p.step) for p in plan}

    def of(b, step=None, kind=None):
        return [r for r in real if r.branch == b and (step is None or r.step == step)
                and (kind is None or r.kind == kind)]

    def row(label, cells):
        return f'| {label} |' + ''.join(f' {c} |' for c in cells)

    def tree_cell(b):
        r = (of(b, 'tree', 'step') or [None])[-1]
        if r is None and (b, 'tree') in in_plan:
            return 'not run'
        return r.version if r and r.version else '-'

    def topic_cell(b, topic):
        if not of(b, 'apply'):
            return 'not run'
        r = [x for x in of(b, 'apply', 'topic') if x.name == topic]
        return DISPLAY.get(r[-1].status, r[-1].status) if r else '-'

    def patch_record(b, patch):
        r = [x for x in of(b, 'apply', 'patch') if split_name(x.name)[-1] == patch]
        return r[-1] if r else None

    def patch_cell(b, patch):
        r = patch_record(b, patch)
        if r is None:
            return 'not run'
        if r.status == 'n/a':
            return 'n/a'
        phrase = r.lines[-1] if r.lines else DISPLAY.get(r.status, r.status)
        return phrase.split(' (', 1)[0]

    def count_cell(b, step, none):
        rs = of(b, step)
        return count_text(rs) if rs else 'not run' if (b, step) in in_plan else none

    def label_of(step):
        kind = step_kind(step)
        label = '**abi** (out/abi/)' if step == 'abi' else \
            f'**boot {step[5:]}**' if kind == 'boot' and step.startswith('boot-') else f'**{step}**'
        ps = [p for p in plan if p.step == step and p.branch in branches]
        if ps:
            targets = sorted({p.target for p in ps})
            variants = sorted({p.variant for p in ps})
            label += f' *{"/".join(targets)}, {"/".join(variants)}*'
        return label

    out = ['# mm-backport-kit matrix', '', '| |' + ''.join(f' {b} |' for b in branches),
           '|---|' + '---|' * len(branches), row('**tree**', [tree_cell(b) for b in branches])]
    for topic, patches in tables.topics().items():
        out.append(row(f'**topic {topic}**', [topic_cell(b, topic) for b in branches]))
        for p in patches:
            out.append(row(p[:-len('.patch')] if p.endswith('.patch') else p,
                           [patch_cell(b, p) for b in branches]))
    # a count row for every step of the columns' records, by kind (tree
    # and apply: the rows above): a step a writer does not know never
    # reached here (check())
    order = [k for k, _ in STEP_KINDS]
    first = [p.step for p in plan if p.branch in branches and step_kind(p.step) not in ('tree', 'apply')]
    first = list(dict.fromkeys(first))
    steps = {r.step for b in branches for r in of(b)} | ({'check'} if not plan else set())
    steps = first + sorted((st for st in steps if step_kind(st) not in ('tree', 'apply') and st not in first),
                           key=lambda st: (order.index(step_kind(st)), st))
    for step in steps:
        # without a plan, a branch without check records did not run it
        none = 'not run' if step == 'check' and not plan else '-'
        out.append(row(label_of(step), [count_cell(b, step, none) for b in branches]))
    for step in ['tree', 'apply'] + steps:
        cells = []
        for b in branches:
            r = [x for x in of(b, step, 'step') if x.seconds is not None]
            cells.append(f'{r[-1].seconds:.0f}' if r else '')
        out.append(row(f'*time {step} (s)*', cells))
    out.append('')
    for b in branches:
        for topic, patches in tables.topics().items():
            for p in patches:
                r = patch_record(b, p)
                if r is not None and r.status == 'n/a':
                    reason = r.lines[-1] if r.lines else ''
                    reason = reason[len('not applicable: '):] if reason.startswith('not applicable: ') else reason
                    out.append(f'- n/a on {b}, {p[:4]}: {reason}')
    # every failure, of any step and branch (a column's or not), named
    failed = [r for r in shown(records) if not r.ok]
    if failed:
        out += ['', f'Failed ({len(failed)}):', '']
        out += [f'- {r.branch} {r.step}: {r.name}: {r.lines[-1] if r.lines else r.status}' for r in failed]
    lost = [f'- {r.branch} {r.step}' for r in records if is_missing(r)]
    if lost:
        out += ['', f'Planned but not run ({len(lost)}):', ''] + lost
    out.append('')
    out.append('Baselines booted: see tables/boot-baselines.table. KTAP of every step: out/ktap/. '
               f'Generated {time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}.')
    return out


# --- the plan ------------------------------------------------------------------------

PLAN_FIELDS = ('branch', 'step', 'kind', 'target', 'variant')
PLAN_HEADER = '\t'.join(PLAN_FIELDS)
PLAN_FIX = 'write the plan with lib/steps.sh step_plan'
PlanStep = collections.namedtuple('PlanStep', PLAN_FIELDS)


def read_plan(path):
    """The planned steps (PlanStep) of the plan file PATH, in order, each
    (branch, step) once (see the module's docstring for the format)."""
    try:
        with open(path, encoding='utf-8') as f:
            lines = f.read().split('\n')
    except OSError as e:
        raise Error(f'cannot read the plan {path}: {e.strerror}', PLAN_FIX) from e
    out, seen = [], set()
    header = bool(lines) and lines[0] == PLAN_HEADER
    for n, line in enumerate(lines, 1):
        if not line or (n == 1 and header):
            continue
        fields = line.split('\t')
        if not header and len(fields) == 2 and all(fields):
            # the older form: BRANCH<TAB>STEP
            fields += [step_kind(fields[1]) or '-', '-', '-']
        if len(fields) != len(PLAN_FIELDS) or not all(fields):
            raise Error(f"{path}:{n}: '{line}' is not BRANCH<TAB>STEP<TAB>KIND<TAB>TARGET<TAB>VARIANT "
                        f"(after the header line '{PLAN_HEADER}')", PLAN_FIX)
        step = PlanStep(*fields)
        kind = step_kind(step.step)
        if kind is None:
            raise Error(f"{path}:{n}: the planned step '{step.step}' is of no step kind the writers know",
                        'use a step of: ' + ' '.join(k for k, _ in STEP_KINDS) + ' (mmbk/results.py STEP_KINDS)')
        if step.kind != kind:
            raise Error(f"{path}:{n}: the planned step '{step.step}' is of the kind {kind}, not {step.kind}", PLAN_FIX)
        if (step.branch, step.step) not in seen:
            seen.add((step.branch, step.step))
            out.append(step)
    return out


def missing_text(branch, step):
    return (f'the step {step} of {branch} left no record: it did not run, or the run '
            f'that should have run it broke off, or its records were lost')


def is_missing(r):
    """R is the error record of a planned step that left no record."""
    return r.kind == 'case' and r.status == 'error' and r.name == r.step and \
        r.text == missing_text(r.branch, r.step)


def missing(plan, records):
    """The error records of the planned steps with no record, in plan order."""
    have = {(r.branch, r.step) for r in records}
    return [Record('case', p.step, p.branch, p.step, 'error', None, None, missing_text(p.branch, p.step))
            for p in plan if (p.branch, p.step) not in have]


def plan_index(plan):
    """(branch, step) -> its place in PLAN."""
    return {(p.branch, p.step): i for i, p in enumerate(plan)}


def planned(records, plan):
    """RECORDS and the error records of PLAN's steps that left none, in
    plan order (a record of no planned step after them, in its order)."""
    if plan is None:
        return records
    index = plan_index(plan)
    return sorted(records + missing(plan, records), key=lambda r: index.get((r.branch, r.step), len(index)))


# --- the command line --------------------------------------------------------------

def suites_of(specs):
    out = []
    for spec in specs:
        suite, sep, path = spec.partition('=')
        if not sep or not suite or not path:
            raise Error(f"'{spec}' is not SUITE=FILE", 'name each record file, e.g. 6.12.check=out/results/6.12-check.tsv')
        out.append((suite, read([path])))
    return out


def main(argv):
    ap = ArgumentParser(prog='results', description='the writers of the kit\'s result records')
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('ktap', help='KTAP of record files, on stdout')
    p.add_argument('files', nargs='+', metavar='FILE')
    p.add_argument('--title', help='the "# T" line after the version line')
    p.add_argument('--summary', metavar='LABEL', help='end with "# LABEL: P passed, F failed, S skipped"')
    p.add_argument('--plan', help='the run\'s plan (lib/steps.sh step_plan): every planned step shown')
    p = sub.add_parser('count', help='"P F S" of record files')
    p.add_argument('files', nargs='+', metavar='FILE')
    p = sub.add_parser('junit', help='JUnit XML, one <testsuite> per record file')
    p.add_argument('-o', '--output', required=True)
    p.add_argument('--name', default='mm-backport-kit')
    p.add_argument('--steps', action='append', default=[], metavar='FILE',
                   help='step records: a suite of each step that has no other record (the tree step)')
    p.add_argument('--plan', help='the run\'s plan (lib/steps.sh step_plan): every planned step shown')
    p.add_argument('suites', nargs='+', metavar='SUITE=FILE')
    p = sub.add_parser('json', help='the records as one JSON document')
    p.add_argument('-o', '--output', required=True)
    p.add_argument('--plan', help='the run\'s plan (lib/steps.sh step_plan): every planned step shown')
    p.add_argument('files', nargs='+', metavar='FILE')
    p = sub.add_parser('markdown', help='the matrix in Markdown')
    p.add_argument('-o', '--output', required=True)
    p.add_argument('--branches', required=True, help='the columns, blank separated')
    p.add_argument('--plan', help='the run\'s plan (lib/steps.sh step_plan): every planned step shown')
    p.add_argument('files', nargs='+', metavar='FILE')
    p = sub.add_parser('expect', help='error records of the planned steps that left none')
    p.add_argument('--plan', required=True, help='the run\'s plan (lib/steps.sh step_plan)')
    p.add_argument('-o', '--output', required=True, help='the record file written (the missing steps)')
    p.add_argument('files', nargs='*', metavar='FILE')
    args = ap.parse_args(argv)
    if args.cmd == 'expect':
        lost = missing(read_plan(args.plan), read(args.files))
        write(args.output, lost)
        for r in lost:
            print(r.branch, r.step)
    elif args.cmd == 'ktap':
        plan = read_plan(args.plan) if args.plan else None
        records = planned(read(args.files), plan)
        lines = ktap_lines(records, args.title)
        if args.summary:
            lines.append(f'# {args.summary}: {count_text(records)}')
        print('\n'.join(lines))
    elif args.cmd == 'count':
        print(*counts(read(args.files)))
    elif args.cmd == 'junit':
        plan = read_plan(args.plan) if args.plan else None
        root = junit_document(suites_of(args.suites), args.name, plan, read(args.steps))
        atomic_write(args.output, '<?xml version=\'1.0\' encoding=\'utf-8\'?>\n' +
                     ET.tostring(root, encoding='unicode') + '\n')
    elif args.cmd == 'json':
        plan = read_plan(args.plan) if args.plan else None
        atomic_write(args.output, json.dumps(json_document(read(args.files), plan), indent=1) + '\n')
    else:
        branches = args.branches.split()
        known = tables.branch_names()
        unknown = [b for b in branches if b not in known]
        if unknown or not branches:
            raise Error(f"--branches '{args.branches}' names no branch or unknown ones ({' '.join(unknown)})",
                        'use branches of tables/branches.table: ' + ' '.join(known))
        plan = read_plan(args.plan) if args.plan else None
        atomic_write(args.output, '\n'.join(markdown_lines(read(args.files), branches, plan)) + '\n')
    return 0
