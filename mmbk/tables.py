# SPDX-License-Identifier: GPL-2.0
"""tables - the kit's data tables for the Python tools.

Reads tables/branches.table and tables/topics.table, the same files
lib/tables.sh reads for the shell, so that no tool keeps its own list of
branches or topics: the branch order everywhere is the table's order.
MMBK_DATA points at another kit's data (the unit tests' synthetic kits).

  tables branches    the branches, in table order, on one line
  tables topics      one line a topic: the topic, then its patches
"""

import functools
import os
import re

from mmbk import ArgumentParser, Error

KIT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA_DIR = os.environ.get('MMBK_DATA') or KIT_DIR
TABLES_DIR = os.path.join(DATA_DIR, 'tables')

BRANCH_COLUMNS = ('branch', 'source', 'origin', 'pin', 'config', 'rt', 'role', 'overlay')


def table_rows(path):
    """Data rows of a kit table: comments, '@' settings and blank lines dropped."""
    rows = []
    try:
        with open(path, encoding='utf-8') as f:
            for line in f:
                line = re.sub(r'\s*#.*', '', line).strip()
                if line and not line.startswith('@'):
                    rows.append(line.split())
    except OSError as e:
        raise Error(f'cannot read {path}: {e.strerror}', 'check the kit checkout (or MMBK_DATA)') from e
    return rows


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


def main(argv):
    ap = ArgumentParser(prog='tables', description='the branches and topics of the kit\'s tables')
    ap.add_argument('what', choices=('branches', 'topics'))
    args = ap.parse_args(argv)
    if args.what == 'branches':
        print(' '.join(branch_names()))
    else:
        for t, ps in topics().items():
            print(t, ' '.join(ps))
    return 0
