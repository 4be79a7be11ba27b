# SPDX-License-Identifier: GPL-2.0
"""ci-templates [--check] DIR - the kit's CI templates, generated: writes
DIR/github-actions.yml and DIR/gitlab-ci.yml (the kit's are in
templates/) with the branches of tables/branches.table, in its order, as
the parallel jobs, the mainline branch as the lint job's tree, and the
tarball branches named where the templates say where their trees come
from.  Every branch needs its backports/<branch>/
series.  --check writes nothing and exits 1 naming the first file in DIR
that differs from what would be written (a stale template).
"""

import os

from mmbk import EXIT_FAILED, ArgumentParser, Error, tables

# the steps every GitHub job starts with: a bare Debian container, the
# checkout, the kit's deps and its cache (each job's key follows)
GITHUB_SETUP = '''      - name: bootstrap
        run: apt-get update && apt-get install -y --no-install-recommends make git ca-certificates
      - uses: actions/checkout@v4
      - name: deps
        run: bin/deps
      - uses: actions/cache@v4
        with:
          path: ~/.cache/mm-backport-kit'''

GITHUB = '''# SPDX-License-Identifier: GPL-2.0
# mm-backport-kit on GitHub Actions (example; copy to .github/workflows/).
# One job per branch runs "make matrix" in parallel (tree, apply, check);
# a lint job checks the patch headers and runs checkpatch. The kit's cache
# (~/.cache/mm-backport-kit: Debian trees, builds, ccache) is kept per
# branch between runs. Each branch publishes out/junit.xml and
# out/matrix.md as artifacts, the JUnit file as a test report and the
# matrix in the job summary.
name: mm-backport-kit

on:
  push:
  pull_request:

jobs:
  lint:
    runs-on: ubuntu-latest
    container: debian:bookworm  # the kit targets Debian 12; as root it installs its deps
    steps:
@SETUP@
          key: mmbk-lint-${{ hashFiles('lib/fetch.sh', 'lib/apt.sh') }}
      - name: checkpatch tree
        run: make tree BRANCH=@MAINLINE@
      - name: make lint
        run: make lint

  matrix:
    runs-on: ubuntu-latest
    container: debian:bookworm
@TARBALLS_GHA@: store yours in the cache's tarballs/ dir, or
    # set TARBALL_URL (a template with {file}) to where you keep them and pin
    # an upstream release tarball with TARBALL_SHA256 (env).
    strategy:
      fail-fast: false
      matrix:
        branch: @BRANCHES@
    steps:
@SETUP@
          key: mmbk-${{ matrix.branch }}-${{ hashFiles('backports/**', 'configs/**', 'tables/**', 'lib/**', 'bin/**', 'mmbk/**') }}
          restore-keys: |
            mmbk-${{ matrix.branch }}-
      - name: make matrix
        run: make matrix BRANCHES=${{ matrix.branch }}
      - name: summary
        if: always()
        run: cat out/matrix.md >> "$GITHUB_STEP_SUMMARY"
      - name: artifacts
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: matrix-${{ matrix.branch }}
          path: |
            out/junit.xml
            out/matrix.md
            out/ktap/
      - name: test report
        if: always()
        uses: mikepenz/action-junit-report@v4
        with:
          report_paths: out/junit.xml
          check_name: mm-backport-kit ${{ matrix.branch }}
'''
GITLAB = '''# SPDX-License-Identifier: GPL-2.0
# mm-backport-kit on GitLab CI (example; copy to .gitlab-ci.yml).
# One job per branch runs "make matrix" in parallel (parallel:matrix); a
# lint job checks the patch headers and runs checkpatch. GitLab caches only
# paths inside the project, so XDG_CACHE_HOME puts the kit's cache
# (~/.cache/mm-backport-kit elsewhere) at .cache/mm-backport-kit, kept per
# branch. Each branch publishes out/junit.xml (as a JUnit test report) and
# out/matrix.md as artifacts.

stages:
  - lint
  - matrix

default:
  image: debian:bookworm   # the kit targets Debian 12; as root it installs its deps

variables:
  XDG_CACHE_HOME: "$CI_PROJECT_DIR/.cache"

before_script:
  - apt-get update && apt-get install -y --no-install-recommends make git ca-certificates
  - bin/deps

lint:
  stage: lint
  cache:
    key: mmbk-lint
    paths:
      - .cache/mm-backport-kit/
  script:
    - make tree BRANCH=@MAINLINE@
    - make lint

@TARBALLS_GL@: store yours in the cache's tarballs/ dir, or set
# TARBALL_URL (a template with {file}) to where you keep them and pin an
# upstream release tarball with TARBALL_SHA256 (CI variables).
matrix:
  stage: matrix
  parallel:
    matrix:
      - MMBK_BRANCH: @BRANCHES@
  cache:
    key: "mmbk-$MMBK_BRANCH"
    paths:
      - .cache/mm-backport-kit/
  script:
    - make matrix BRANCHES="$MMBK_BRANCH"
  artifacts:
    when: always
    paths:
      - out/junit.xml
      - out/matrix.md
      - out/ktap/
    reports:
      junit: out/junit.xml
'''


def tarball_note(indent):
    """The comment lines naming the tarball branches (up to ': store yours')."""
    names = [b['branch'] for b in tables.branches() if b['source'] == 'tarball']
    if not names:
        return None
    listed = names[0] if len(names) == 1 else ', '.join(names[:-1]) + ' and ' + names[-1]
    what = 'comes from a release tarball' if len(names) == 1 else 'come from release tarballs'
    return f'{indent}# {listed} {what} pinned in\n{indent}# tables/branches.table'


def render(text, indent, marker):
    branches = tables.branch_names()
    for b in branches:
        if not os.path.isfile(tables.branch_series_path(b)):
            raise Error(f'tables/branches.table names {b} but backports/{b}/series is missing',
                        f'add the branch\'s series (make regen BRANCH={b}) or drop its row')
    text = text.replace('@BRANCHES@', '[' + ', '.join(f'"{b}"' for b in branches) + ']')
    # the lint job's checkpatch.pl comes from the mainline branch's tree
    mainline = [b['branch'] for b in tables.branches() if b['role'] == 'mainline']
    if len(mainline) != 1:
        raise Error(f'tables/branches.table has {len(mainline)} branches of role mainline',
                    'give exactly one branch the role mainline')
    text = text.replace('@MAINLINE@', mainline[0])
    note = tarball_note(indent)
    if note is None:
        # no tarball branch: the comment block that would name them goes
        start = text.index(marker)
        end = text.index('\n', text.index('TARBALL_SHA256', start)) + 1
        return text[:start] + text[end:]
    return text.replace(marker, note)


def templates():
    """{file name: content} of the CI templates."""
    return {'github-actions.yml': render(GITHUB.replace('@SETUP@', GITHUB_SETUP), '    ', '@TARBALLS_GHA@'),
            'gitlab-ci.yml': render(GITLAB, '', '@TARBALLS_GL@')}


def main(argv):
    ap = ArgumentParser(prog='ci-templates', description=__doc__.split('\n\n', 1)[0])
    ap.add_argument('--check', action='store_true', help='only compare DIR\'s files with what would be written')
    ap.add_argument('dir', metavar='DIR')
    args = ap.parse_args(argv)
    if not os.path.isdir(args.dir):
        raise Error(f'{args.dir} is not a directory', 'name the directory of the templates (templates/)')
    for name, text in templates().items():
        path = os.path.join(args.dir, name)
        if args.check:
            try:
                with open(path, encoding='utf-8') as f:
                    same = f.read() == text
            except OSError:
                same = False
            if not same:
                raise Error(f'{path} is stale or missing: it is not what tables/branches.table makes of it',
                            f'regenerate it: python3 -m mmbk ci-templates {args.dir}', EXIT_FAILED)
        else:
            with open(path + '.tmp', 'w', encoding='utf-8') as f:
                f.write(text)
            os.replace(path + '.tmp', path)
    return 0
