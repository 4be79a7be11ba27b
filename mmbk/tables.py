# SPDX-License-Identifier: GPL-2.0
"""kitdata.py - the kit's data tables for Python scripts.

Reads backports/branches.table and backports/topics.table, the same files
scripts/lib.sh reads for the shell scripts, so that no script keeps its own
list of branches or topics.  MMBK_DATA points at another kit's data (tests).
"""

import os
import re

KIT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA_DIR = os.environ.get("MMBK_DATA") or KIT_DIR

BRANCH_COLUMNS = ("branch", "source", "origin", "pin", "config", "rt", "role")


def table_rows(path):
    """Data rows of a kit table: comments, '@' settings and blank lines dropped."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = re.sub(r"\s*#.*", "", line).strip()
            if not line or line.startswith("@"):
                continue
            rows.append(line.split())
    return rows


def branches():
    """The rows of branches.table as dicts, in table order."""
    path = os.path.join(DATA_DIR, "backports", "branches.table")
    return [dict(zip(BRANCH_COLUMNS, row)) for row in table_rows(path)]


def branch_names():
    return [b["branch"] for b in branches()]


def branch_key(name):
    """Sort key of a branch name ("6.12" after "6.6")."""
    return tuple(int(x) for x in name.split("."))


def series(path=None):
    """Patch file names of a quilt series file (default ./series), in order."""
    with open(path or os.path.join(DATA_DIR, "series"), encoding="utf-8") as f:
        return [l.split()[0] for l in (re.sub(r"#.*", "", x).strip() for x in f) if l]


def topics():
    """{topic: [patch, ...]} in the order of ./series."""
    path = os.path.join(DATA_DIR, "backports", "topics.table")
    of = {patch: topic for topic, patch in table_rows(path)}
    out = {}
    for patch in series():
        if patch in of:
            out.setdefault(of[patch], []).append(patch)
    return out


if __name__ == "__main__":
    import sys
    what = sys.argv[1] if len(sys.argv) > 1 else "branches"
    if what == "branches":
        print(" ".join(branch_names()))
    elif what == "topics":
        for t, ps in topics().items():
            print(t, " ".join(ps))
    else:
        sys.exit("usage: kitdata.py branches|topics")
