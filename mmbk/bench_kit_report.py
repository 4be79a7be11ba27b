# SPDX-License-Identifier: GPL-2.0
"""bench-kit-report TSV OUTDIR - the report of `make bench-kit`: how long
the kit itself takes per branch (apply, check and matrix, cold and warm),
from the TSV the bench-kit step writes (header, then "branch step seconds
kbuild_seconds rc" rows; a step "matrix cold: tree" is the matrix's own
time of its tree step).  Writes OUTDIR/bench-kit.md (also printed) and
OUTDIR/bench-kit.json; branches in the order of tables/branches.table.
Status 1, after writing both, when a step's rc is not 0 (its time measures
nothing, and apply's ratio to quilt is not given).
"""

import json
import os
import sys
import time

from mmbk import ArgumentParser, Error, tables

STEPS = ('apply', 'quilt push -a', 'check cold', 'check warm', 'matrix cold', 'matrix warm')
FIX = 'name the times.tsv of make bench-kit (columns: branch step seconds kbuild_seconds rc)'


def read(path):
    """{branch: {step: {seconds, kbuild_seconds, rc}}} of the TSV."""
    try:
        with open(path, encoding='utf-8') as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise Error(f'cannot read {path}: {e.strerror}', FIX) from e
    res = {}
    for n, line in enumerate(lines[1:], 2):
        cols = line.split('\t')
        try:
            b, step, sec, kb, rc = cols
            res.setdefault(b, {})[step] = {'seconds': float(sec),
                                           'kbuild_seconds': None if kb == '-' else float(kb),
                                           'rc': int(rc)}
        except ValueError:
            raise Error(f'{path}:{n}: not "branch step seconds kbuild_seconds rc"', FIX) from None
    return res


def markdown(res, branches, generated):
    L = ["# The kit's own wall times", '',
         '`make bench-kit`, %s. Seconds of wall time on a 2-CPU host shared with '
         'other jobs (+-20%% or worse). cold = no build dirs (private kit cache), shared ccache warm; '
         'warm = the same command again. kbuild = time inside the kit\'s kernel builds (W=1 + sparse), '
         'its share of the check\'s total in parentheses. A non-zero rc is shown as [rc N].' % generated,
         '', '| branch | ' + ' | '.join(STEPS) + ' |', '|---|' + '---|' * len(STEPS)]
    for b in branches:
        cells = []
        for s in STEPS:
            r = res[b].get(s)
            if not r:
                cells.append('-')
                continue
            c = '%.0f s' % r['seconds']
            if r['kbuild_seconds'] is not None and r['seconds'] > 0:
                c += ' (kbuild %.0f s, %.0f%%)' % (r['kbuild_seconds'], 100 * r['kbuild_seconds'] / r['seconds'])
            if r['rc']:
                c += ' [rc %d]' % r['rc']
            cells.append(c)
        L.append('| %s | %s |' % (b, ' | '.join(cells)))
    L += ['', 'apply against its floor, `quilt push -a` of the same series on the same tree '
          '(what the kit adds: the plan from the code, the journal, the records):', '',
          '| branch | apply / quilt push -a |', '|---|---|']
    for b in branches:
        a, q = res[b].get('apply'), res[b].get('quilt push -a')
        ratio = '%.1fx (%.1f s / %.1f s)' % (a['seconds'] / q['seconds'], a['seconds'], q['seconds']) \
            if a and q and q['seconds'] > 0 and not a['rc'] and not q['rc'] else '-'
        L.append('| %s | %s |' % (b, ratio))
    L += ['', "The matrix's own split of its run (tree / apply = a fresh patched copy / check):", '',
          '| branch | matrix cold | matrix warm |', '|---|---|---|']
    for b in branches:
        cells = []
        for t in ('cold', 'warm'):
            parts = ['%s %.0f s' % (k.split(': ')[1], v['seconds']) for k, v in res[b].items()
                     if k.startswith('matrix %s: ' % t)]
            cells.append(', '.join(parts) or '-')
        L.append('| %s | %s |' % (b, ' | '.join(cells)))
    L += ['', 'Cold check = the W=1 + sparse build of every object the series touches, with and without '
          'the series, into empty build dirs (kbuild first generates the config and prepares the '
          'build dir: that is most of the cold time); warm = only those objects again.', '']
    return L


def main(argv):
    ap = ArgumentParser(prog='bench-kit-report', description=__doc__.split('\n\n', 1)[0])
    ap.add_argument('tsv', metavar='TSV')
    ap.add_argument('outdir', metavar='OUTDIR')
    args = ap.parse_args(argv)
    res = read(args.tsv)
    order = tables.branch_names()
    branches = [b for b in order if b in res] + sorted(b for b in res if b not in order)
    now = time.gmtime()
    with open(os.path.join(args.outdir, 'bench-kit.json'), 'w', encoding='utf-8') as f:
        json.dump({'generated': time.strftime('%Y-%m-%dT%H:%M:%SZ', now), 'branches': res},
                  f, indent=1, sort_keys=True)
    text = '\n'.join(markdown(res, branches, time.strftime('%Y-%m-%d %H:%M UTC', now)))
    with open(os.path.join(args.outdir, 'bench-kit.md'), 'w', encoding='utf-8') as f:
        f.write(text)
    print(text)
    failed = ['%s %s (rc %d)' % (b, s, r['rc']) for b in branches for s, r in res[b].items() if r['rc']]
    if failed:
        print('bench-kit-report: %d step(s) failed, their times measure nothing: %s (their logs: out/bench-kit/)'
              % (len(failed), ', '.join(failed)), file=sys.stderr)
        return 1
    return 0
