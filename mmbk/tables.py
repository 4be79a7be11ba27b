# SPDX-License-Identifier: GPL-2.0
"""tables - the kit's data tables for the Python tools.

Reads tables/branches.table and tables/topics.table, the same files
lib/tables.sh reads for the shell, so that no tool keeps its own list of
branches or topics: the branch order everywhere is the table's order.
MMBK_DATA points at another kit's data (the unit tests' synthetic kits).

  tables branches    the branches, in table order, on one line
  tables topics      one line a topic: the topic, then its patches
  tables lacks       what a branch or a topic of the tables still lacks
                     for make test, one line each (exit 1 if any): the
                     list README's "Adding a branch" asks for

for_branch(): boot-baselines.table's "per branch, * default" (a branch's
own rows, where it has any, replace the * rows).
"""

import functools
import os
import re

from mmbk import ArgumentParser, Error

KIT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA_DIR = os.environ.get('MMBK_DATA') or KIT_DIR
TABLES_DIR = os.path.join(DATA_DIR, 'tables')

BRANCH_COLUMNS = ('branch', 'source', 'origin', 'pin', 'config', 'rt', 'role', 'overlay')


def read_table(path, tabs=False, fix='check the kit checkout (or MMBK_DATA)'):
    """[(line number, fields)] of the data rows of the kit table PATH, the
    one reader of tables in Python: blank lines, comment lines and '@'
    settings left out; the fields split at blanks with a trailing
    "# comment" dropped, or, with TABS, the TAB-separated fields of the
    line as it is (a free-text column may hold '#')."""
    rows = []
    try:
        with open(path, encoding='utf-8') as f:
            for n, line in enumerate(f, 1):
                if tabs:
                    line = line.rstrip('\n')
                    if line.strip() and not line.startswith(('#', '@')):
                        rows.append((n, line.split('\t')))
                    continue
                line = re.sub(r'\s*#.*', '', line).strip()
                if line and not line.startswith('@'):
                    rows.append((n, line.split()))
    except OSError as e:
        raise Error(f'cannot read {path}: {e.strerror}', fix) from e
    return rows


def table_rows(path):
    """Data rows of a kit table: comments, '@' settings and blank lines dropped."""
    return [fields for _, fields in read_table(path)]


@functools.lru_cache(maxsize=None)
def branches():
    """The rows of branches.table as dicts, in table order."""
    path = os.path.join(TABLES_DIR, 'branches.table')
    return [dict(zip(BRANCH_COLUMNS, row)) for row in table_rows(path)]


def branch_names():
    """The branch names, in table order (the kit's one branch order)."""
    return [b['branch'] for b in branches()]


def series(path=None):
    """Patch file names of a quilt series file (default ./series), in order."""
    path = path or os.path.join(DATA_DIR, 'series')
    try:
        with open(path, encoding='utf-8') as f:
            return [l.split()[0] for l in (re.sub(r'#.*', '', x).strip() for x in f) if l]
    except OSError as e:
        raise Error(f'cannot read {path}: {e.strerror}', 'check the kit checkout (or MMBK_DATA)') from e


def branch_series_path(branch):
    """backports/BRANCH/series of the kit's data."""
    return os.path.join(DATA_DIR, 'backports', branch, 'series')


@functools.lru_cache(maxsize=None)
def topics():
    """{topic: [patch, ...]}, topics in the order of their first patch in
    ./series, each topic's patches in ./series order."""
    path = os.path.join(TABLES_DIR, 'topics.table')
    of = {patch: topic for topic, patch in table_rows(path)}
    out = {}
    for patch in series():
        if patch in of:
            out.setdefault(of[patch], []).append(patch)
    return out


def for_branch(rows, branch, col=0):
    """The rows of ROWS (table_rows) that hold for BRANCH: its own (column
    COL is BRANCH) where it has any, else the "*" rows."""
    own = [r for r in rows if r[col] == branch]
    return own or [r for r in rows if r[col] == '*']


def ksft_target(token):
    """The kselftest-expect.table target of a boot-baselines token
    (VARIANT[@PROFILE][/TARGET]): x86_64, arm64, x86_64-llvm, arm64-llvm,
    with -rt for a PREEMPT_RT kernel (lib/kselftest.sh ksft_key)."""
    token, _, target = token.partition('/')
    profile = token.partition('@')[2] or 'test'
    arch = 'arm64' if target.startswith('arm64') else 'x86_64'
    return arch + ('-llvm' if target.endswith('llvm') else '') + ('' if profile == 'test' else f'-{profile}')


def _read(path):
    try:
        with open(path, encoding='utf-8') as f:
            return f.read()
    except OSError:
        return None


def lacks():
    """What each branch and topic still lacks, one sentence each: the
    files and rows make test needs of a new branch or topic that no "*"
    row or default gives it."""
    out = []
    t = lambda name: os.path.join(TABLES_DIR, name)      # noqa: E731
    upstream = series()
    tops = topics()
    ksft = {tuple(r[:2]) for _, r in read_table(t('kselftest-expect.table'), tabs=True)}
    drift = {r[0] for _, r in read_table(t('drift-expect.table'), tabs=True)}
    baselines = table_rows(t('boot-baselines.table'))
    templates = [(_read(os.path.join(DATA_DIR, 'templates', n)) or '', n)
                 for n in ('github-actions.yml', 'gitlab-ci.yml')]
    for b in branch_names():
        path = branch_series_path(b)
        text = _read(path)
        if text is None:
            out.append(f'{b}: no backports/{b}/series (make regen BRANCH={b} writes the patches a semantic patch covers)')
            continue
        carried = set(series(path))
        na = set(re.findall(r'^#\s*n/a:\s*(\S+?):', text, re.M))
        for p in sorted(carried):
            if not os.path.isfile(os.path.join(DATA_DIR, 'backports', b, p)):
                out.append(f'{b}: backports/{b}/series names {p}, which backports/{b}/ lacks')
        if any(not os.path.isfile(os.path.join(DATA_DIR, 'backports', b, f))
               for f in ('reference.json', 'touched.sums')):
            out.append(f'{b}: no reference data (backports/{b}/reference.json, touched.sums): the plan compares '
                       f'trees with it (make regen BRANCH={b} writes it)')
        for topic, patches in tops.items():
            done = [p for p in patches if p in carried | na]
            if done and len(done) < len(patches):
                out.append(f'{b}: backports/{b}/series neither carries nor marks "# n/a:" '
                           f'{", ".join(p[:4] for p in patches if p not in done)} of topic {topic} '
                           f'(it carries the rest of it)')
        tokens = ([r[1:] for r in for_branch(baselines, b)] or [[]])[0]
        patched = [k for k in tokens if k.split('/')[0].split('@')[0] == 'patched']
        if patched and (b, ksft_target(patched[0])) not in ksft:
            out.append(f'{b}: no rows for {ksft_target(patched[0])} in tables/kselftest-expect.table: make test '
                       f'judges its selftests step against them and fails without them '
                       f'(make selftests BRANCH={b}{" ARCH=arm64" if "arm64" in patched[0] else ""}'
                       f'{" RT=1" if "@rt" in patched[0] else ""} SAVE=1 writes them)')
        if drift and b not in drift:
            out.append(f'{b}: no rows in tables/drift-expect.table: make test FULL=1 re-targets nothing onto '
                       f'its drifted copies (tests/vendor/drift-table.sh --write-expect writes them)')
        for text, name in templates:
            if f'"{b}"' not in text:
                out.append(f'{b}: not in templates/{name} (make ci-templates)')
    detect = {r[0] for r in table_rows(t('detect.table'))}
    recipes = {r[0] for r in table_rows(t('recipes.table'))}
    abi = {(r[1], r[2]) for r in table_rows(t('abi-expect.table')) if r[0] == '*'}
    for topic, patches in tops.items():
        for p in patches:
            head = _read(os.path.join(DATA_DIR, 'patches', p))
            if head is None:
                out.append(f'topic {topic}: no patches/{p}')
                continue
            m = re.match(r'From ([0-9a-f]{12})', head)
            if not m or m.group(1) not in detect:
                out.append(f'topic {topic}: {p[:4]}: no rule of tables/detect.table for its commit '
                           f'{m.group(1) if m else "?"} (a tree that has it upstream is not recognised)')
            if p not in recipes:
                out.append(f'topic {topic}: {p[:4]}: no row in tables/recipes.table (it cannot be re-targeted)')
        for profile in ('default', 'kabi'):
            if (profile, topic) not in abi:
                out.append(f'topic {topic}: no "*" row of the {profile} profile in tables/abi-expect.table')
    return out


def main(argv):
    ap = ArgumentParser(prog='tables', description='the branches and topics of the kit\'s tables')
    ap.add_argument('what', choices=('branches', 'topics', 'lacks'))
    args = ap.parse_args(argv)
    if args.what == 'lacks':
        missing = lacks()
        for line in missing:
            print(line)
        return 1 if missing else 0
    if args.what == 'branches':
        print(' '.join(branch_names()))
    else:
        for t, ps in topics().items():
            print(t, ' '.join(ps))
    return 0
