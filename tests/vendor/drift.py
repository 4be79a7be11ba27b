#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""drift.py - make (and undo) vendor-style drift in a copy of a kernel tree,
for the re-targeting tests (tests/unit/t-drift.sh).

usage:
  drift.py apply CLASS TREE        apply the rows of CLASS (drift.table) to
                                   TREE's files, in place (they must be
                                   private copies); prints the files changed
  drift.py undo CLASS FILE PRISTINE
                                   FILE (a path in the tree, read from
                                   stdin) with the drift of CLASS taken out
                                   again, on stdout; PRISTINE is the tree the
                                   drift was made from (for moved functions)
  drift.py same A B                exit 0 if files A and B have the same
                                   top-level items, in any order (what a
                                   moved definition leaves to compare)
  drift.py layout A B              exit 0 if files A and B hold the same C
                                   tokens, in the same order (they differ
                                   at most in spaces and line breaks: what
                                   spatch leaves when it wraps a line);
                                   else print the first tokens that differ
  drift.py classes                 the classes of drift.table

Errors: one line "drift.py: error: ...", exit 1.
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.join(HERE, "..", "..")
sys.path.insert(0, KIT)
from mmbk import reanchor  # noqa: E402  (the kit's package, next to tests/)

TABLE = os.path.join(KIT, "tables", "drift.table")


def die(msg):
    print("drift.py: error: %s" % msg, file=sys.stderr)
    sys.exit(1)


def unescape(s):
    return s.replace("\\n", "\n").replace("\\t", "\t")


def rows(cls):
    out = []
    with open(TABLE) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            if cols[0] == cls:
                out.append(cols[1:])
    return out


def functions(text, name):
    """(start, end) line ranges of the top-level functions called NAME
    ("a|b" alternatives), in file order"""
    items, _ = reanchor.parse(text)
    names = name.split("|")
    return [(it.start, it.end) for it in items if it.kind == "function" and it.name in names]


def item_range(text, name, kinds=("function", "decl")):
    items, _ = reanchor.parse(text)
    names = name.split("|")
    for it in items:
        if it.kind in kinds and it.name in names:
            return it
    return None


def rename_code(body, old, new):
    """BODY with the identifier OLD renamed NEW in code (not in comments,
    strings or struct/union/enum tags)"""
    masked = reanchor.mask(body)
    out, last = [], 0
    for m in re.finditer(r"\b%s\b" % re.escape(old), masked):
        if re.search(r"\b(struct|union|enum)\s+$", masked[:m.start()]):
            continue        # a tag, not the identifier
        out.append(body[last:m.start()])
        out.append(new)
        last = m.end()
    out.append(body[last:])
    return "".join(out)


def first_function(text, name):
    r = functions(text, name)
    return r[0] if r else None


def apply_op(text, op, args):
    """TEXT with one operation applied; None if the tree lacks its target"""
    lines = text.split("\n")
    if op == "define":
        # after the last #include before the first function (rwsem.c has
        # another one, of rwbase_rt.c, far below)
        first = next((it.start for it in reanchor.parse(text)[0] if it.kind == "function"), len(lines))
        last = max((i for i, l in enumerate(lines[:first]) if l.startswith("#include")), default=None)
        if last is None:
            return None
        return "\n".join(lines[:last + 1] + [unescape(args[0])] + lines[last + 1:])
    if op == "move":
        it = item_range(text, args[0])
        anchor = item_range(text, args[1])
        if it is None or anchor is None:
            return None
        block = lines[it.start:it.end + 1]
        # the item and the blank lines before it go; they come back after
        # the anchor
        gap = len(it.gap)
        rest = lines[:it.start - gap] + lines[it.end + 1:]
        anchor2 = item_range("\n".join(rest), args[1])
        at = anchor2.end + 1
        return "\n".join(rest[:at] + it.gap + block + rest[at:])
    rng = first_function(text, args[0])
    if rng is None:
        return None
    s, e = rng
    if op == "rename":
        body = "\n".join(lines[s:e + 1])
        new = rename_code(body, args[1], args[2])
        if new == body:
            return None
        return "\n".join(lines[:s] + new.split("\n") + lines[e + 1:])
    for i in range(s, e + 1):
        if re.search(args[1], lines[i]):
            break
    else:
        return None
    if op == "before":
        add = unescape(args[2]).split("\n")
        return "\n".join(lines[:i] + add + lines[i:])
    if op == "after":
        add = unescape(args[2]).split("\n")
        return "\n".join(lines[:i + 1] + add + lines[i + 1:])
    if op == "ifdef":
        add = ["#ifdef CONFIG_VENDOR_X"] + unescape(args[2]).split("\n") + ["#endif"]
        return "\n".join(lines[:i] + add + lines[i:])
    if op == "replace":
        if args[2] not in lines[i]:
            return None
        lines[i] = lines[i].replace(args[2], args[3], 1)
        return "\n".join(lines)
    die("unknown operation '%s' in %s" % (op, TABLE))


def remove_lines(lines, add, lo, hi):
    """LINES without the first run of ADD within [lo, hi]"""
    n = len(add)
    for i in range(lo, hi + 2 - n):
        if lines[i:i + n] == add:
            return lines[:i] + lines[i + n:]
    die("undo: %r not found" % add[0])


def undo_op(text, op, args, pristine):
    lines = text.split("\n")
    if op == "define":
        return "\n".join(remove_lines(lines, [unescape(args[0])], 0, len(lines) - 1))
    if op == "move":
        it = item_range(text, args[0])
        if it is None:
            return text
        items, _ = reanchor.parse(pristine)
        orig = item_range(pristine, args[0])
        prev = items[[x.start for x in items].index(orig.start) - 1]
        block = lines[it.start:it.end + 1]
        rest = lines[:it.start - len(it.gap)] + lines[it.end + 1:]
        back = reanchor.find(reanchor.parse("\n".join(rest))[0], prev)
        at = back.end + 1
        return "\n".join(rest[:at] + orig.gap + block + rest[at:])
    rng = first_function(text, args[0])
    if rng is None:
        return text
    s, e = rng
    if op == "rename":
        body = "\n".join(lines[s:e + 1])
        new = rename_code(body, args[2], args[1])
        return "\n".join(lines[:s] + new.split("\n") + lines[e + 1:])
    if op in ("before", "after"):
        add = unescape(args[2]).split("\n")
        return "\n".join(remove_lines(lines, add, s, e))
    if op == "ifdef":
        add = ["#ifdef CONFIG_VENDOR_X"] + unescape(args[2]).split("\n") + ["#endif"]
        return "\n".join(remove_lines(lines, add, s, e))
    if op == "replace":
        for i in range(s, e + 1):
            if args[3] in lines[i]:
                lines[i] = lines[i].replace(args[3], args[2], 1)
                return "\n".join(lines)
        return text     # the patch removed the line the drift was in
    die("unknown operation '%s'" % op)


def read(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def write(path, text):
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)


# a C token for the layout comparison: a word, a number or one other
# character (operators split into characters compare the same either way)
TOKEN = re.compile(r"\w+|\S")


def layout_diff(a, b):
    """None if texts A and B have the same tokens, else where they part"""
    ta, tb = TOKEN.findall(a), TOKEN.findall(b)
    for i, (x, y) in enumerate(zip(ta, tb)):
        if x != y:
            return "token %d: '%s' vs '%s' (after '%s')" % (i + 1, x, y, " ".join(ta[max(0, i - 4):i]))
    if len(ta) != len(tb):
        return "%d tokens vs %d" % (len(ta), len(tb))
    return None


def main(argv):
    if len(argv) >= 2 and argv[1] == "classes":
        seen = []
        with open(TABLE) as f:
            for line in f:
                c = line.split("\t")[0]
                if not line.startswith("#") and line.strip() and c not in seen:
                    seen.append(c)
        print("\n".join(seen))
        return 0
    if len(argv) == 4 and argv[1] == "same":
        a = sorted((x.kind, x.name, x.text) for x in reanchor.parse(read(argv[2]))[0])
        b = sorted((x.kind, x.name, x.text) for x in reanchor.parse(read(argv[3]))[0])
        if a == b:
            return 0
        diff = [x for x in a if x not in b] + [x for x in b if x not in a]
        print("%s %s differs" % (diff[0][0], diff[0][1]))
        return 1
    if len(argv) == 4 and argv[1] == "layout":
        why = layout_diff(read(argv[2]), read(argv[3]))
        if why is None:
            return 0
        print(why)
        return 1
    if len(argv) == 4 and argv[1] == "apply":
        cls, tree = argv[2], argv[3]
        changed = []
        todo = rows(cls)
        if not todo:
            die("no rows for class '%s' in %s" % (cls, TABLE))
        for cols in todo:
            path = os.path.join(tree, cols[0])
            if not os.path.isfile(path):
                continue
            new = apply_op(read(path), cols[1], cols[2:])
            if new is None:
                continue
            write(path, new)
            if cols[0] not in changed:
                changed.append(cols[0])
        print("\n".join(changed))
        return 0
    if len(argv) == 5 and argv[1] == "undo":
        cls, rel, pristine = argv[2], argv[3], argv[4]
        text = sys.stdin.read()
        orig = read(os.path.join(pristine, rel)) if os.path.isfile(os.path.join(pristine, rel)) else ""
        for cols in reversed(rows(cls)):
            if cols[0] != rel:
                continue
            # undo only what apply did on the pristine file
            if apply_op(orig, cols[1], cols[2:]) is None:
                continue
            text = undo_op(text, cols[1], cols[2:], orig)
        sys.stdout.write(text)
        return 0
    die("usage: drift.py apply CLASS TREE | undo CLASS FILE PRISTINE | same A B | layout A B | classes")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
