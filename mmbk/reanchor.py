# SPDX-License-Identifier: GPL-2.0-only
"""reanchor - carry a patch's changes to a drifted copy of a C file, one
top-level definition at a time (the re-targeting of a topic).

usage:
  reanchor merge BASE THEIRS OURS [--done ORIG] [-o OUT]
      BASE and THEIRS are a file as the branch patch found it and as it left
      it, OURS is the same file in the target tree. Every top-level item the
      patch changes (function with its leading comment, struct/union/enum,
      macro, prototype, global, top-level macro call such as EXPORT_SYMBOL()
      or TRACE_EVENT(), standalone comment, preprocessor line) is looked up
      in OURS by kind and name (and its ordinal within its #if context) and
      3-way merged (git merge-file: base BASE, ours OURS, theirs THEIRS);
      items the patch adds go after their anchor (the item before them in
      THEIRS, found in OURS), items it removes are removed. Any conflict,
      missing item or missing anchor is an error naming the item; nothing is
      fuzzed. With --done ORIG, items that already differ between ORIG and
      OURS (done by an earlier recipe step) are left alone. The result goes
      to OUT (default: stdout); the items handled are listed on stderr.
  reanchor changed BEFORE AFTER
      the items that differ ("kind name" a line, added and removed included)
  reanchor items FILE
      the top-level items of FILE ("start-end kind name [ctx] #ordinal")
  reanchor reference BRANCH VERSION STATES PATCH... [-o OUT]
      the committed reference data of a branch (make regen writes it to
      backports/BRANCH/reference.json): for each PATCH, every definition it
      changes or removes, as the branch has it before PATCH
      (STATES/PATCH/before and STATES/PATCH/after hold the files PATCH
      changes, as the branch has them before and after it), kept as the
      hashes of its text and of each of its lines (no kernel text is kept)
  reanchor nearness-ref TREE REFERENCE...
      how near TREE's code is to each branch's, from the branches'
      reference data: "BRANCH PATCH identical total similarity" for every
      patch of every REFERENCE file: of the definitions PATCH changes that
      exist before it, how many are identical in TREE, how many there are,
      and the sum of their line similarities (difflib ratio over the lines'
      hashes, 0 for a missing one)

Errors: one line "reanchor: error: FILE: <kind> <name>: <problem>; <fix>",
exit 1 (a definition that cannot be carried); bad usage or an unreadable
file: "reanchor: error: <problem>; <fix>", exit 64.
"""

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

from mmbk import EXIT_FAILED, Error

USAGE = ("usage: reanchor merge BASE THEIRS OURS [--done ORIG] [-o OUT] | changed BEFORE AFTER | "
         "items FILE | reference BRANCH VERSION STATES PATCH... [-o OUT] | "
         "nearness-ref TREE REFERENCE...")

# attribute-like macros that take arguments and may precede or follow a
# declarator; never the name of what is declared
ATTRS = {
    "__attribute__", "__attribute", "__printf", "__scanf", "__releases",
    "__acquires", "__must_hold", "__cond_acquires", "__cond_releases",
    "__acquires_shared", "__releases_shared", "__cond_acquires_shared",
    "__must_hold_shared", "__section", "__aligned", "__alloc_size",
    "__realloc_size", "__diagnose_as", "__assume_aligned", "__cleanup",
    "__counted_by", "__guarded_by", "__pt_guarded_by", "__no_sanitize",
    "__diag_ignore", "__nocfi", "__weak_alias", "__free",
}
# attribute-like words without arguments that may follow a declarator
WORD_ATTRS = re.compile(
    r"^__(ro_after_init|read_mostly|initdata|initconst|exitdata|refdata|"
    r"maybe_unused|used|percpu|cacheline_aligned\w*|page_aligned\w*|weak|"
    r"meminitdata|init|exit|rcu|iomem|user|kernel|force|must_check|"
    r"no_context_analysis|sched|always_inline|noinline|cold|hot|pure|"
    r"visible|nocfi|unused|packed|randomize_layout|latent_entropy)$")
STORAGE = {"static", "extern", "inline", "const", "volatile", "__always_inline",
           "noinline", "__init", "__exit", "__cold", "__hot", "asmlinkage",
           "__visible", "__maybe_unused", "__used", "notrace", "__read_mostly",
           "__ro_after_init", "__initdata", "__cacheline_aligned"}
DEF_KINDS = {"function", "struct", "union", "enum", "typedef", "macro",
             "decl", "var", "macro-call"}


class Failure(Exception):
    """a problem with one item: printed as one error line"""


def mask(text):
    """text with comments blanked and string/char contents replaced by 'x'
    (same length, newlines kept)"""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                if text[j] == "\\":
                    j += 1
                j += 1
            for k in range(i + 1, min(j, n)):
                if out[k] != "\n":
                    out[k] = "x"
            i = j + 1
        else:
            i += 1
    return "".join(out)


class Item:
    """one top-level item: lines [start, end] of the file"""

    def __init__(self, kind, name, start, end, ctx):
        self.kind, self.name, self.start, self.end, self.ctx = kind, name, start, end, ctx
        self.ordinal = 0
        self.text = ""
        self.gap = []       # the (blank) lines before it

    @property
    def key(self):
        return (self.kind, self.name, self.ctx, self.ordinal)

    @property
    def label(self):
        return "%s %s" % (self.kind, self.name)

    def is_def(self):
        return self.kind in DEF_KINDS


def paren_groups(head):
    """(identifier before it, argument text) of each '(' at depth 0"""
    groups, depth, start = [], 0, None
    for i, c in enumerate(head):
        if c == "(":
            if depth == 0:
                start = i
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0 and start is not None:
                m = re.search(r"([A-Za-z_]\w*)\s*$", head[:start])
                groups.append((m.group(1) if m else None, head[start + 1:i]))
    return groups


def strip_storage(head):
    words = head.split()
    while words and words[0] in STORAGE:
        words.pop(0)
    return " ".join(words)


def first_arg(args):
    depth = 0
    for i, c in enumerate(args):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            return args[:i].strip()
    return args.strip()


def declarator_name(head):
    """name of the function a head declares or defines"""
    for ident, args in paren_groups(head):
        if ident is None or ident in ATTRS:
            continue
        if re.match(r"^[A-Z][A-Z0-9_]*$", ident):
            return "%s(%s)" % (ident, first_arg(args))
        return ident
    return None


def depth0(head):
    """head with everything inside (), [] and {} removed"""
    out, depth = [], 0
    for c in head:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0:
            out.append(c)
    return "".join(out)


def variable_name(head):
    flat = depth0(head.split("=", 1)[0] if "=" in depth0(head) else head)
    idents = [w for w in re.findall(r"[A-Za-z_]\w*", flat)
              if not WORD_ATTRS.match(w) and w not in ATTRS]
    return idents[-1] if idents else "(anon)"


def classify(head, body):
    """kind and name of a code item from its head (masked, comments and
    strings blanked; up to its body or ';') and its body kind"""
    head = " ".join(head.split())
    bare = strip_storage(head)
    if body == "function":
        return "function", declarator_name(head) or "(anon)"
    m = re.match(r"^(typedef\s+)?(struct|union|enum)\b\s*([A-Za-z_]\w*)?", bare)
    if body == "aggregate" and m and "=" not in depth0(head):
        if m.group(1):
            return "typedef", variable_name(bare.rsplit("}", 1)[-1]) if "}" in bare else "(anon)"
        return m.group(2), m.group(3) or "(anon)"
    if bare.startswith("typedef "):
        return "typedef", declarator_name(bare) or variable_name(bare)
    m = re.match(r"^([A-Za-z_]\w*)\s*\(", bare)
    if m and "=" not in depth0(bare):
        groups = paren_groups(bare)
        return "macro-call", "%s(%s)" % (m.group(1), first_arg(groups[0][1]) if groups else "")
    if "=" not in depth0(head) and paren_groups(head):
        name = declarator_name(head)
        if name:
            return "decl", name
    return "var", variable_name(head)


def cond_update(ctx, directive):
    """new #if context stack after a conditional directive"""
    m = re.match(r"#\s*(\w+)\s*(.*)", directive)
    word, rest = m.group(1), " ".join(m.group(2).split())
    if word in ("if", "ifdef", "ifndef"):
        return ctx + [[word + " " + rest, 0]]
    if word in ("else", "elif") and ctx:
        top = ctx[-1]
        return ctx[:-1] + [[top[0], top[1] + 1]]
    if word == "endif" and ctx:
        return ctx[:-1]
    return ctx


def ctx_name(ctx):
    return "/".join("%s#%d" % (c, i) for c, i in ctx)


def parse(text, path="FILE"):
    """the top-level items of a C file"""
    lines = text.split("\n")
    masked = mask(text).split("\n")
    n = len(lines)
    items, ctx = [], []
    pending = None          # first line of a comment block not yet attached
    gap_start = 0           # first line after the previous item

    def add(kind, name, start, end, c):
        it = Item(kind, name, start, end, ctx_name(c))
        it.text = "\n".join(lines[start:end + 1])
        it.gap = lines[gap_start:start]
        items.append(it)
        return end + 1

    def flush_comment(upto):
        nonlocal pending, gap_start
        if pending is not None:
            body = " ".join(" ".join(lines[pending:upto]).split())
            gap_start = add("comment", body[:72], pending, upto - 1, ctx)
            pending = None

    i = 0
    while i < n:
        raw, m = lines[i], masked[i]
        if not raw.strip():
            flush_comment(i)
            i += 1
            continue
        if not m.strip():               # a comment line
            if pending is None:
                pending = i
            i += 1
            continue
        if m.lstrip().startswith("#"):
            j = i
            while lines[j].rstrip().endswith("\\") and j + 1 < n:
                j += 1
            directive = " ".join(" ".join(masked[i:j + 1]).replace("\\", " ").split())
            dm = re.match(r"#\s*define\s+([A-Za-z_]\w*)", directive)
            if dm:
                start = pending if pending is not None else i
                pending = None
                gap_start = add("macro", dm.group(1), start, j, ctx)
            else:
                flush_comment(i)
                new_ctx = cond_update(ctx, directive)
                # an #else/#endif belongs to the context it closes
                gap_start = add("cpp", directive, i, j, ctx if len(new_ctx) >= len(ctx) else ctx)
                ctx = new_ctx
            i = j + 1
            continue
        start = pending if pending is not None else i
        pending = None
        end, kind, name = scan_code(lines, masked, i, path)
        gap_start = add(kind, name, start, end, ctx)
        i = end + 1
    flush_comment(n)
    counts = {}
    for it in items:
        k = (it.kind, it.name, it.ctx)
        it.ordinal = counts.get(k, 0)
        counts[k] = it.ordinal + 1
    return items, lines


def next_code_line(masked, i):
    for j in range(i, len(masked)):
        if masked[j].strip():
            return masked[j].strip()
    return ""


def scan_code(lines, masked, i, path):
    """end line, kind and name of the code item starting at line i"""
    n = len(lines)
    bd = pd = 0
    body = None
    head = []
    cpp_stack = []
    j = i
    while j < n:
        m = masked[j]
        s = m.strip()
        if s.startswith("#") and j > i:
            # conditionals inside a definition: each branch starts at the
            # depth the #if had (unbalanced braces per branch are common)
            k = j
            while lines[k].rstrip().endswith("\\") and k + 1 < n:
                k += 1
            word = re.match(r"#\s*(\w*)", s).group(1)
            if word in ("if", "ifdef", "ifndef"):
                cpp_stack.append((bd, pd))
            elif word in ("else", "elif") and cpp_stack:
                bd, pd = cpp_stack[-1]
            elif word == "endif" and cpp_stack:
                cpp_stack.pop()
            j = k + 1
            continue
        for c in m:
            if bd == 0 and body is None:
                head.append(c)
            if c == "(":
                pd += 1
            elif c == ")":
                pd -= 1
            elif c == "{":
                if bd == 0 and body is None:
                    h = "".join(head[:-1])
                    flat = depth0(h)
                    if "=" not in flat and declarator_name(h):
                        body = "function"
                    else:
                        body = "aggregate"
                bd += 1
            elif c == "}":
                bd -= 1
                if bd == 0 and body == "function":
                    kind, name = classify("".join(head[:-1]), body)
                    return j, kind, name
            elif c == ";" and bd == 0 and pd == 0:
                kind, name = classify("".join(head), body)
                return j, kind, name
        head.append(" ")
        if bd == 0 and pd == 0 and body is None:
            flat = " ".join("".join(head).split())
            bare = strip_storage(flat)
            if re.match(r"^[A-Z_][A-Z0-9_]*$", bare) and not next_code_line(masked, j + 1).startswith("{"):
                return j, "macro-call", bare    # a bare macro expansion
            if re.match(r"^[A-Za-z_]\w*\s*\(.*\)$", bare) and \
                    not next_code_line(masked, j + 1).startswith("{") and \
                    re.match(r"^[A-Z_][A-Z0-9_]*\s*\(|^[a-z_]+initcall\(|^module_\w+\(", bare):
                kind, name = classify(flat, None)
                return j, kind, name
        j += 1
    raise Failure("%s: line %d: unterminated top-level item" % (path, i + 1))


def index(items):
    return {it.key: it for it in items}


def find(items, it):
    """the item of ITEMS that is IT: same key, else the only item of the
    same kind and name; None if there is none, Failure if ambiguous"""
    for cand in items:
        if cand.key == it.key:
            return cand
    same = [c for c in items if c.kind == it.kind and c.name == it.name]
    if len(same) == 1:
        return same[0]
    if len(same) > 1:
        raise Failure("%s: %d candidates in the target (#if contexts differ)" % (it.label, len(same)))
    return None


def diff_items(before, after):
    """(changed [(b, a)], added [a], removed [b]) between two parses"""
    bidx, aidx = index(before), index(after)
    changed = [(b, aidx[b.key]) for b in before if b.key in aidx and aidx[b.key].text != b.text]
    added = [a for a in after if a.key not in bidx]
    removed = [b for b in before if b.key not in aidx]
    return changed, added, removed


def git_merge(ours, base, theirs, style):
    """git merge-file -p with STYLE ([] or ["--diff3"]): (status, text)"""
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            p = os.path.join(tmp, name)
            with open(p, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text + "\n")
            paths.append(p)
        r = subprocess.run(["git", "merge-file", "-p"] + style +
                           ["-L", "target", "-L", "branch-before", "-L", "branch-after"] + paths,
                           capture_output=True, text=True, errors="surrogateescape")
    if r.returncode < 0 or r.returncode > 127:
        raise Failure("git merge-file failed: %s" % r.stderr.strip())
    out = r.stdout[:-1] if r.stdout.endswith("\n") else r.stdout
    return r.returncode, out


def comment_only(lines):
    """the lines are all inside a comment block (" * ..." continuation
    lines of a /* */ comment, as kernel-doc member lists are)"""
    return bool(lines) and all(re.match(r"^\s*\*(\s|$)(?!.*\*/)", l) for l in lines)


def resolve_comment_insertions(text):
    """a diff3 merge result with every conflict resolved if both sides only
    insert comment lines at the same place (e.g. two new kernel-doc
    members): ours, then theirs. None if a conflict is anything else."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        if not lines[i].startswith("<<<<<<< "):
            out.append(lines[i])
            i += 1
            continue
        sect = {"ours": [], "base": [], "theirs": []}
        cur = "ours"
        i += 1
        while i < len(lines) and not lines[i].startswith(">>>>>>> "):
            if lines[i].startswith("||||||| "):
                cur = "base"
            elif lines[i] == "=======":
                cur = "theirs"
            else:
                sect[cur].append(lines[i])
            i += 1
        i += 1
        if sect["base"] or not comment_only(sect["ours"]) or not comment_only(sect["theirs"]):
            return None
        out.extend(sect["ours"] + sect["theirs"])
    return "\n".join(out)


def merge_text(ours, base, theirs, label):
    """(merged text, note) or Failure"""
    status, out = git_merge(ours, base, theirs, [])
    if status == 0:
        return out, ""
    status3, out3 = git_merge(ours, base, theirs, ["--diff3"])
    resolved = resolve_comment_insertions(out3) if status3 else None
    if resolved is not None:
        return resolved, " (both sides add comment lines at the same place: kept both)"
    raise Failure("%s: the target's version conflicts with the change (%d conflict%s)"
                  % (label, status, "" if status == 1 else "s"))


def merge(base_text, theirs_text, ours_text, done_text=None, path="FILE"):
    """OURS with the changes BASE -> THEIRS carried over; (text, log)"""
    base, _ = parse(base_text, path)
    theirs, _ = parse(theirs_text, path)
    ours, ours_lines = parse(ours_text, path)
    changed, added, removed = diff_items(base, theirs)
    done_keys = set()
    if done_text is not None:
        orig, _ = parse(done_text, path)
        c2, a2, r2 = diff_items(orig, ours)
        done_keys = {(b.kind, b.name) for b, _ in c2} | {(a.kind, a.name) for a in a2} | \
            {(b.kind, b.name) for b in r2}
    log = []
    # edits on the items of OURS: replacement texts, insertions after an item
    replace, remove, after, before_first = {}, set(), {}, []

    for b, t in changed:
        if (b.kind, b.name) in done_keys:
            log.append("kept %s (done by an earlier step)" % b.label)
            continue
        o = find(ours, b)
        if o is None:
            raise Failure("%s: not found in the target" % b.label)
        replace[id(o)], note = merge_text(o.text, b.text, t.text, b.label)
        log.append("merged %s%s" % (b.label, note))
    for b in removed:
        if (b.kind, b.name) in done_keys:
            continue
        o = find(ours, b)
        if o is None:
            raise Failure("%s (removed by the patch): not found in the target" % b.label)
        if o.text != b.text:
            raise Failure("%s (removed by the patch): the target's version differs" % b.label)
        remove.add(id(o))
        log.append("removed %s" % b.label)
    pos = {id(t): k for k, t in enumerate(theirs)}
    inserted = {}           # id(theirs item) -> True once placed
    for a in added:
        if (a.kind, a.name) in done_keys or (a.is_def() and a.kind != "cpp" and
                                             done_text is not None and find(ours, a)):
            log.append("kept %s (done by an earlier step)" % a.label)
            inserted[id(a)] = True
            continue
        k = pos[id(a)]
        # the anchor: the definition before A in THEIRS, and the
        # preprocessor lines and comments between them
        between = []
        j = k - 1
        while j >= 0 and not theirs[j].is_def() and id(theirs[j]) not in inserted:
            between.insert(0, theirs[j])
            j -= 1
        entry = (a.gap, a.text)
        if j < 0:
            if between:
                raise Failure("%s: no definition before it to anchor it to" % a.label)
            before_first.append(entry)
        elif id(theirs[j]) in inserted:
            after.setdefault(("new", id(theirs[j])), []).append((entry, id(a)))
            if between:
                raise Failure("%s: added after preprocessor lines the target lacks" % a.label)
        else:
            anchor = find(ours, theirs[j])
            if anchor is None:
                raise Failure("%s: its anchor %s is not in the target" % (a.label, theirs[j].label))
            at = ours.index(anchor)
            for cpp in between:
                at += 1
                if at >= len(ours) or ours[at].kind != cpp.kind or ours[at].name != cpp.name:
                    raise Failure("%s: the target has no '%s' after %s" % (a.label, cpp.name, anchor.label))
            after.setdefault(("old", id(ours[at])), []).append((entry, id(a)))
        inserted[id(a)] = True
        log.append("inserted %s after %s" % (a.label, theirs[j].label if j >= 0 else "the top"))

    def emit_after(key, out):
        for (gap, text), aid in after.get(key, []):
            out.extend(gap)
            out.append(text)
            emit_after(("new", aid), out)

    out = []
    for gap, text in before_first:
        out.append(text)
        out.extend(gap)
    last = 0
    for o in ours:
        gap = ours_lines[last:o.start]
        last = o.end + 1
        if id(o) in remove:
            continue
        out.extend(gap)
        out.append(replace.get(id(o), o.text))
        emit_after(("old", id(o)), out)
    out.extend(ours_lines[last:])
    return "\n".join(out), log


def files_under(d):
    out = []
    for root, _, names in os.walk(d):
        for n in names:
            out.append(os.path.relpath(os.path.join(root, n), d))
    return sorted(out)


def line_hash(line):
    """what the reference data keeps of one line: equal lines, equal hashes"""
    return hashlib.sha1(line.encode("utf-8", "surrogateescape")).hexdigest()[:12]


def text_hash(text):
    return hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()


class RefItem(Item):
    """a definition of the reference data: its key (an Item's) and the
    hashes of its text, no text"""

    def __init__(self, d):
        super().__init__(d["kind"], d["name"], -1, -1, d["ctx"])
        self.file, self.ordinal, self.sha, self.lines = d["file"], d["ordinal"], d["sha"], d["lines"].split(" ")


class TreeFiles:
    """the top-level items of a tree's files, each file parsed once"""

    def __init__(self, root):
        self.root, self.cache = root, {}

    def items(self, rel):
        if rel not in self.cache:
            path = os.path.join(self.root, rel)
            self.cache[rel] = parse(read(path), path)[0] if os.path.isfile(path) else None
        return self.cache[rel]


def changed_defs(states, patch):
    """(file, item before PATCH) of every definition PATCH changes or removes"""
    out = []
    before_dir = os.path.join(states, patch, "before")
    files = TreeFiles(os.path.join(states, patch))
    for f in files_under(before_dir):
        before = files.items(os.path.join("before", f))
        after = files.items(os.path.join("after", f))
        if before is None or after is None:
            continue
        changed, _, removed = diff_items(before, after)
        out.extend((f, b) for b in [b for b, _ in changed] + removed)
    return out


def score(tree, defs):
    """(identical, total, similarity) of TREE's copies of DEFS [(file, item,
    sha, line hashes)]"""
    import difflib
    same = total = 0
    ratio = 0.0
    for f, it, sha, lines in defs:
        total += 1
        target = tree.items(f)
        try:
            t = find(target, it) if target is not None else None
        except Failure:
            t = None
        if t is None:
            continue
        if text_hash(t.text) == sha:
            same += 1
        ratio += difflib.SequenceMatcher(None, lines, [line_hash(x) for x in t.text.split("\n")]).ratio()
    return same, total, ratio


def reference(branch, version, states, patches, out):
    data = {"format": 1, "branch": branch, "version": version, "patches": {}}
    for patch in patches:
        data["patches"][patch] = [
            {"file": f, "kind": b.kind, "name": b.name, "ctx": b.ctx, "ordinal": b.ordinal,
             "sha": text_hash(b.text), "lines": " ".join(line_hash(x) for x in b.text.split("\n"))}
            for f, b in changed_defs(states, patch)]
    text = json.dumps(data, indent=0, sort_keys=True) + "\n"
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def nearness_ref(tree, refs):
    tree = TreeFiles(tree)
    for ref in refs:
        try:
            with open(ref, encoding="utf-8") as f:
                data = json.load(f)
            branch, patches = data["branch"], data["patches"]
        except (ValueError, KeyError, TypeError) as e:
            raise Error("%s: not the kit's reference data (%s)" % (ref, e),
                        "run 'make regen BRANCH=<branch>' to write it again")
        for patch in sorted(patches):
            defs = [(d.file, d, d.sha, d.lines) for d in map(RefItem, patches[patch])]
            print("%s %s %d %d %.3f" % ((branch, patch) + score(tree, defs)))


def read(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def main(argv):
    if not argv:
        raise Error("no command given", USAGE)
    cmd, args = argv[0], argv[1:]
    opts = {}
    pos = []
    it = iter(args)
    for a in it:
        if a in ("--done", "-o"):
            opts[a] = next(it, None)
            if opts[a] is None:
                raise Error("%s needs an argument" % a, USAGE)
        else:
            pos.append(a)
    try:
        if cmd == "items" and len(pos) == 1:
            items, _ = parse(read(pos[0]), pos[0])
            for x in items:
                print("%d-%d %s %s [%s] #%d" % (x.start + 1, x.end + 1, x.kind, x.name, x.ctx, x.ordinal))
        elif cmd == "changed" and len(pos) == 2:
            changed, added, removed = diff_items(parse(read(pos[0]), pos[0])[0], parse(read(pos[1]), pos[1])[0])
            names = {(b.kind, b.name) for b, _ in changed} | {(a.kind, a.name) for a in added} | \
                {(b.kind, b.name) for b in removed}
            for kind, name in sorted(names):
                print("%s %s" % (kind, name))
        elif cmd == "reference" and len(pos) >= 4:
            reference(pos[0], pos[1], pos[2], pos[3:], opts.get("-o"))
        elif cmd == "nearness-ref" and len(pos) >= 2:
            nearness_ref(pos[0], pos[1:])
        elif cmd == "merge" and len(pos) == 3:
            label = opts.get("-o") or pos[2]
            done = read(opts["--done"]) if opts.get("--done") else None
            text, log = merge(read(pos[0]), read(pos[1]), read(pos[2]), done, label)
            for line in log:
                print(line, file=sys.stderr)
            if opts.get("-o"):
                with open(opts["-o"], "w", encoding="utf-8", errors="surrogateescape") as f:
                    f.write(text)
            else:
                sys.stdout.write(text)
        else:
            raise Error("bad arguments for '%s'" % cmd, USAGE)
    except Failure as e:
        where = pos[2] if cmd == "merge" and len(pos) == 3 else (pos[0] if pos else "")
        raise Error("%s: %s" % (where, e), "carry this definition with a semantic patch (tables/recipes.table) "
                    "or by hand", EXIT_FAILED) from None
    except OSError as e:
        raise Error("%s: %s" % (e.filename, e.strerror), "check the path") from None
    return 0
