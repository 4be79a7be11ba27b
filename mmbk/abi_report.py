# SPDX-License-Identifier: GPL-2.0
"""abi-report - compare the interface kernels the abi step built and write
the per-topic report and its records.

usage: abi-report --name N --profile P [--branch B] [--tree DIR]
                  [--expect TABLE] --out FILE.md --records OUT.tsv
                  TOPIC=OLD=NEW=STATE...

OLD and NEW are build directories of the abi step (Module.symvers, abi.xml
from abidw, formats.log from the guest); each TOPIC is judged on what
changed from OLD to NEW:
  symbols      exported symbols removed or with another CRC: breaking;
               added: additive
  types        abidiff of the two ABI dumps: removed or changed functions
               and variables: breaking; added: additive
  tracepoints  trace event format files (the "ID:" line left out: ids are
               given out at boot): an event removed or its format changed:
               breaking; added: additive
The verdict of a topic is the worst of the three.  STATE is the topic's
apply result ("applied...", "nothing to do...", anything else: not
applied).  Appends one record a topic to OUT.tsv (kind case, step abi,
name PROFILE/TOPIC: the KTAP writer nests the profiles), and exits 1 when a
verdict is not the one TABLE (tables/abi-expect.table, its header has the
rules) expects for the branch, or is "breaking" in the kABI profile.
"""
import difflib
import os
import re
import subprocess

from mmbk import EXIT_FAILED, ArgumentParser, Error, results, tables

RANK = {'none': 0, 'additive': 1, 'breaking': 2}
MAX_LINES = 40


def read_symvers(path):
    """Module.symvers -> {symbol: crc} (vmlinux and module exports)."""
    syms = {}
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            cols = line.rstrip('\n').split('\t')
            if len(cols) >= 4:
                syms[cols[1]] = cols[0]
    return syms


KMSG = re.compile(r'\[ *\d+\.\d+\] .*$')


def read_formats(path):
    """The guest's dump -> {system/event: [format lines without ID]}."""
    events, cur, seen_end = {}, None, False
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('MMBK-FORMAT '):
                cur = line.split(' ', 1)[1].strip()
                events[cur] = []
            elif line.startswith('MMBK-END'):
                seen_end = True
                cur = None
            elif cur is not None and line.startswith('| '):
                # a console message that still cut into the line
                body = KMSG.sub('', line[2:])
                if not body.startswith('ID:'):
                    events[cur].append(body)
    if not seen_end:
        raise Error(f'{path}: the format dump is incomplete (no MMBK-END)',
                    'boot the interface kernel again (its guest log is next to the dump)', EXIT_FAILED)
    return events


def compare(a, b):
    """Two {name: value} maps -> (removed, added, changed) names, sorted,
    and the verdict: breaking if any is removed or changed, additive if
    any is added, else none."""
    removed = sorted(set(a) - set(b))
    added = sorted(set(b) - set(a))
    changed = sorted(k for k in set(a) & set(b) if a[k] != b[k])
    verdict = 'breaking' if removed or changed else 'additive' if added else 'none'
    return removed, added, changed, verdict


def diff_symbols(old, new):
    a, b = read_symvers(old), read_symvers(new)
    removed, added, changed, verdict = compare(a, b)
    ev = [f'removed export {s}' for s in removed]
    ev += [f'CRC of {s} changed ({a[s]} -> {b[s]})' for s in changed]
    ev += [f'new export {s}' for s in added]
    return verdict, ev


SUMMARY = re.compile(r'(Functions|Variables) changes summary: (\d+) Removed(?: \(\d+ filtered out\))?, '
                     r'(\d+) Changed(?: \(\d+ filtered out\))?, (\d+) Added')


def diff_types(old, new, keep):
    proc = subprocess.run(['abidiff', '--no-show-locs', old, new],
                          capture_output=True, text=True, check=False)
    # abidiff: bit 0 error, bit 1 usage error, bit 2 ABI change, bit 3
    # incompatible change
    if proc.returncode & 3:
        raise Error(f'abidiff {old} {new} failed: {" ".join(proc.stderr.split())[:300]}',
                    'check the two abidw dumps', EXIT_FAILED)
    with open(keep, 'w', encoding='utf-8') as f:
        f.write(proc.stdout)
    removed = changed = added = 0
    for m in SUMMARY.finditer(proc.stdout):
        removed += int(m.group(2))
        changed += int(m.group(3))
        added += int(m.group(4))
    ev = []
    if removed or changed or added:
        ev.append(f'abidiff: {removed} removed, {changed} changed, {added} added functions/variables')
        ev += ['  ' + l for l in proc.stdout.splitlines()
               if l.strip() and not l.startswith('Functions changes summary')
               and not l.startswith('Variables changes summary')][:MAX_LINES]
    if proc.returncode & 8 or removed or changed:
        verdict = 'breaking'
    elif added or proc.returncode & 4:
        verdict = 'additive'
    else:
        verdict = 'none'
    return verdict, ev


def diff_formats(old, new):
    a, b = read_formats(old), read_formats(new)
    removed, added, changed, verdict = compare(a, b)
    ev = [f'trace event {e} removed' for e in removed]
    for e in changed:
        ev.append(f'trace event {e}: format changed')
        ev += ['  ' + l for l in difflib.unified_diff(a[e], b[e], lineterm='', n=0)
               if not l.startswith(('---', '+++', '@@'))]
    ev += [f'new trace event {e}' for e in added]
    return verdict, ev


def read_expect(path, branch, profile):
    """({topic: verdict} of BRANCH's rows, {topic: verdict} of the "*"
    rows) of PROFILE; both empty without a branch (a KDIR tree)."""
    own, default = {}, {}
    if not branch or not path:
        return own, default
    for n, cols in tables.read_table(path, fix='pass --expect tables/abi-expect.table'):
        if len(cols) != 4 or cols[3] not in RANK:
            raise Error(f'{path}:{n}: expected "branch profile topic verdict" with a verdict of '
                        + '|'.join(RANK), 'fix the row')
        if cols[1] == profile and cols[0] in (branch, '*'):
            (own if cols[0] == branch else default)[cols[2]] = cols[3]
    return own, default


def main(argv):
    p = ArgumentParser(prog='abi-report', description=__doc__.split('\n\n')[0])
    p.add_argument('--name', required=True)
    p.add_argument('--profile', required=True)
    p.add_argument('--branch', default='')
    p.add_argument('--tree', default='')
    p.add_argument('--expect', default='')
    p.add_argument('--out', required=True)
    p.add_argument('--records', required=True, metavar='OUT.tsv')
    results.add_request_args(p)
    p.add_argument('topics', nargs='+', metavar='TOPIC=OLD=NEW=STATE')
    args = p.parse_args(argv)
    own, default = read_expect(args.expect, args.branch, args.profile)
    detail_dir = os.path.splitext(args.out)[0]
    os.makedirs(detail_dir, exist_ok=True)
    rows, sections, records, failed = [], [], [], 0

    def record(topic, status, lines):
        records.append(results.Record('case', 'abi', args.branch or args.name,
                                      results.join_name([args.profile, topic]), status, topic, None,
                                      '\n'.join(lines)))
    for spec in args.topics:
        try:
            topic, old, new, state = spec.split('=', 3)
        except ValueError:
            raise Error(f"'{spec}' is not TOPIC=OLD=NEW=STATE", 'give each topic its two build dirs and apply result') from None
        applied = state.startswith('applied')
        nothing = state.startswith('nothing to do')
        if not applied and not nothing:
            rows.append((topic, 'not applied', state, '-', '-', '-'))
            record(topic, 'skip', [f'{topic}: not applied: {state}', 'not applied'])
            continue
        parts = {}
        if os.path.realpath(old) == os.path.realpath(new):
            parts = {k: ('none', []) for k in ('symbols', 'types', 'tracepoints')}
        else:
            parts['symbols'] = diff_symbols(f'{old}/Module.symvers', f'{new}/Module.symvers')
            parts['types'] = diff_types(f'{old}/abi.xml', f'{new}/abi.xml',
                                        os.path.join(detail_dir, f'{topic}.abidiff'))
            parts['tracepoints'] = diff_formats(f'{old}/formats.log', f'{new}/formats.log')
        verdict = max((v for v, _ in parts.values()), key=RANK.get)
        rows.append((topic, verdict, state) + tuple(
            f'{v} ({len([e for e in ev if not e.startswith("  ")])})' if v != 'none' else 'none'
            for v, ev in (parts['symbols'], parts['types'], parts['tracepoints'])))
        ev_all = [(k, e) for k in ('symbols', 'types', 'tracepoints') for e in parts[k][1]]
        sec = [f'### {topic}: {verdict}', '']
        if ev_all:
            sec.append('```')
            sec += [f'{k}: {e}' if not e.startswith('  ') else e for k, e in ev_all]
            sec.append('```')
        else:
            sec.append('No change in exported symbols, their types or the trace event formats.')
        sections += sec + ['']
        if topic in own:
            want, row = own[topic], f'row {args.branch}'
        elif nothing and args.branch:
            want, row = 'none', 'nothing to do on the branch'
        elif topic in default:
            want, row = default[topic], 'row *'
        else:
            want = row = None
        bad = ''
        if want and want != verdict:
            bad = f'expected {want} (tables/abi-expect.table, {row})'
        elif args.profile == 'kabi' and verdict == 'breaking':
            bad = 'the kABI profile must not break the interface'
        if bad:
            failed += 1
        record(topic, 'fail' if bad else 'pass', [f'{k}: {e.strip()}' for k, e in ev_all[:MAX_LINES]] +
               [f'{topic}: {verdict}' + (f'; {bad}' if bad else '')])
    with open(args.out + '.tmp', 'w', encoding='utf-8') as f:
        f.write(f'# Interface changes: {args.name}, {args.profile} profile\n\n')
        if args.tree:
            f.write(f'Tree: `{args.tree}`. ')
        f.write('Each topic is applied on top of the ones before it (the abi step); its build '
                '(configs/abi.config: MODVERSIONS, DWARF, no lock debugging) is compared with the '
                'build before it: exported symbols and CRCs (Module.symvers), types reachable from '
                'the exports (abidiff of abidw dumps), trace event formats (tracefs, read in the '
                'booted guest). Verdict: none, additive (only additions) or breaking.\n\n')
        f.write('| topic | verdict | applied | symbols | types | tracepoints |\n')
        f.write('|---|---|---|---|---|---|\n')
        for r in rows:
            f.write('| ' + ' | '.join(r) + ' |\n')
        f.write('\n' + '\n'.join(sections))
    os.replace(args.out + '.tmp', args.out)
    results.write(args.records, results.stamped(records, args), 'a')
    return EXIT_FAILED if failed else 0
