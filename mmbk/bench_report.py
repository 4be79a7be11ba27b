# SPDX-License-Identifier: GPL-2.0
"""bench-report [--series BRANCH=HASH]... METRICS.TSV OUTDIR [ROUNDS] - turn
the bench step's raw figures into OUTDIR/bench.md (a table per branch),
OUTDIR/bench.json and OUTDIR/bench.svg (ratios per branch next to
upstream's reference ratios).

Each branch's section names the series its rounds measured (their
bench.series rows: the hash the kit's patched copy of the branch is named
by, lib/worktree.sh worktree_stamp) and says **stale** when --series gives
another hash for the branch (the series the kit ships now) or when its
rounds name none (measured before make bench recorded it).

Every figure is reported as patched/unpatched: the ratio of each round (the
two boots of a round ran back to back, in alternating order), then the
median of those ratios with a 95% bootstrap confidence interval (percentile
method, resampling the rounds; a fixed seed, so a report is reproducible)
and a verdict: better / worse when the interval lies on one side of 1,
"no significant difference" when it holds 1, no verdict under 3 rounds.

A value ">X" in the TSV is censored: the workload gave up at X (a timeout),
the real figure is larger.  A ratio with a censored unpatched time is an
upper bound of the real ratio (a censored patched time: a lower bound); the
report marks such figures.  A round in which both kernels hit the cap gives
no ratio, not even a bound: it is left out and counted (censored_both).
Python 3 standard library only."""

import json
import math
import os
import random
import statistics
import time
from collections import defaultdict

from mmbk import ArgumentParser, Error, tables

BRANCH_ORDER = tables.branch_names()

# figure -> (label, better, upstream reference ratio or None, its source)
KNOWN = {
    "ksm.unmerge_MiBps": (
        "KSM unmerge throughput, all sizes, ksmd stopped (58f595c66591)", "higher", 5010 / 5250,
        "58f595c66591: 5250 -> 5010 MiB/s (ksm_tests -D -s 2048)"),
    "hackbench.geomean": (
        "hackbench, geometric mean of the configurations (62b98015d988)", "lower", 0.95,
        "62b98015d988: ~5% average gain on arm64"),
    "ksm.merge_s": ("KSM: ksmd time to merge, all repetitions", "lower", None, ""),
    "maps.writer_latency_p50_us": ("mmap writer latency p50, maps readers running (mmap_lock series)", "lower", None, ""),
    "maps.writer_latency_p99_us": ("mmap writer latency p99, maps readers running (mmap_lock series)", "lower", None, ""),
    "maps.writer_latency_max_us": ("mmap writer latency max, maps readers running (mmap_lock series)", "lower", None, ""),
    "ro_collapse.ro_madv_collapse_s": ("RO 8 MiB region: MADV_COLLAPSE time (62b98015d988)", "lower", None, ""),
    "ro_collapse.ro_khugepaged_s": ("RO 8 MiB region: khugepaged collapse time (62b98015d988)", "lower", None, ""),
    "ro_collapse.ro_anon_huge_kB": ("RO 8 MiB region: AnonHugePages after collapse (62b98015d988)", "higher", None, ""),
    "ro_collapse.rw_madv_collapse_s": ("RW 8 MiB control: MADV_COLLAPSE time", "lower", None, ""),
    "ro_collapse.rw_khugepaged_s": ("RW 8 MiB control: khugepaged collapse time", "lower", None, ""),
}
# scan_contention_bench's figures, once per khugepaged setting, listed first
_SCAN = {}
for _s in ("fast", "default"):
    _SCAN.update({
        "scan.%s.collapse_s" % _s: (
            "collapse, many small VMAs + mmap_lock contention, khugepaged %s (mmap_lock series)" % _s,
            "lower", 3.6 / 10.8, "mmap_lock series cover letter: 10.8 s -> 3.6 s"),
        "scan.%s.writer_p99_us" % _s: (
            "mmap writer latency p99 while khugepaged and maps readers run, %s (mmap_lock series)" % _s,
            "lower", None, ""),
        "scan.%s.writer_p50_us" % _s: ("mmap writer latency p50, %s (mmap_lock series)" % _s, "lower", None, ""),
        "scan.%s.full_scans" % _s: ("khugepaged passes that ended before the mm collapsed, %s" % _s, "lower", None, ""),
        "scan.%s.collapsed" % _s: ("regions collapsed within the cap, %s (of the setting's regions: the workload note below)" % _s, "higher", None, ""),
    })
KNOWN = {**_SCAN, **KNOWN}
# the figures of the plot, in order
PLOT = ["scan.fast.collapse_s", "scan.default.collapse_s", "scan.fast.writer_p99_us",
        "ksm.unmerge_MiBps", "hackbench.geomean"]
PLOT_SHORT = {
    "scan.fast.collapse_s": "collapse, khugepaged fast (s)",
    "scan.default.collapse_s": "collapse, khugepaged default (s)",
    "scan.fast.writer_p99_us": "mmap writer p99 (us)",
    "ksm.unmerge_MiBps": "KSM unmerge (MiB/s)",
    "hackbench.geomean": "hackbench pipes (s, geomean)",
}
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]
COLORS = {b: PALETTE[i % len(PALETTE)] for i, b in enumerate(BRANCH_ORDER)}

# the targets of the benchmarks issue: figure -> (text, test on the ratio CI,
# the topic of tables/topics.table whose effect it judges)
TARGETS = [
    ("scan.fast.collapse_s", "collapse under contention, fast: ratio <= 0.33",
     lambda f: f["ci_hi"] <= 0.33, "khugepaged-mmap-lock"),
    ("scan.default.collapse_s", "collapse under contention, default: ratio <= 0.33",
     lambda f: f["ci_hi"] <= 0.33, "khugepaged-mmap-lock"),
    ("scan.fast.writer_p99_us", "writer p99 no worse", lambda f: f["verdict"] != "worse",
     "khugepaged-mmap-lock"),
    ("ksm.unmerge_MiBps", "KSM unmerge ratio >= 0.95", lambda f: f["ci_lo"] >= 0.95, "ksm-break-ksm"),
    ("hackbench.geomean", "hackbench: no significant regression", lambda f: f["verdict"] != "worse",
     "khugepaged-ro-collapse"),
]
BOOTSTRAP = 4000
CONFIDENCE = 0.95
MIN_ROUNDS = 3


def num(v):
    try:
        x = float(v)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def load(path):
    """rows -> data[branch][metric][variant][round] = value (None = fail),
    censored = {(branch, metric, variant, round)} of values ">X" """
    data = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    units, info = {}, defaultdict(dict)
    censored = set()
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()[1:]
    except OSError as e:
        raise Error("cannot read %s: %s" % (path, e.strerror), "run make bench first (or name its metrics.tsv)") from e
    for line in lines:
        p = line.rstrip("\n").split("\t")
        if len(p) != 6:
            continue
        b, v, r, m, val, unit = p
        if m == "run.seconds":  # a resumed run adds its part
            info[b][m] = str((num(info[b].get(m, "0")) or 0) + (num(val) or 0))
            continue
        if m == "run.target":  # the build target (ARCH, toolchain) of each run
            if val not in info[b].get(m, "").split("; "):
                info[b][m] = "; ".join(x for x in (info[b].get(m), val) if x)
            continue
        if m.startswith("run."):  # run.date: one per (resumed) run
            info[b][m] = ", ".join(x for x in (info[b].get(m), val) if x)
            continue
        if m == "kernel.bzimage":
            info[b].setdefault("bzimage_" + v, set()).add(val)
            continue
        if m == "bench.programs":  # the sha256 of the bench programs
            info[b].setdefault("programs", set()).add(val)
            continue
        if m == "bench.series":  # the series the round's patched kernel was built from
            if r.isdigit():
                info[b].setdefault("series", defaultdict(set))[val].add(int(r))
            continue
        if val.startswith(">"):
            censored.add((b, m, v, int(r)))
            val = val[1:]
        data[b][m][v][int(r)] = num(val) if val != "fail" else None
        units[m] = unit
    return data, units, info, censored


def fmt(x):
    if x is None:
        return "fail"
    if x == 0:
        return "0"
    a = abs(x)
    if a >= 1000:
        return "%.0f" % x
    if a >= 100:
        return "%.1f" % x
    if a >= 1:
        return "%.2f" % x
    return "%.3g" % x


def spread(vals):
    ok = [v for v in vals if v is not None]
    nfail = len(vals) - len(ok)
    if not ok:
        return "fail (%d/%d)" % (nfail, len(vals)) if vals else "-"
    s = "%s (%s–%s)" % (fmt(statistics.median(ok)), fmt(min(ok)), fmt(max(ok)))
    if nfail:
        s += ", fail %d/%d" % (nfail, len(vals))
    return s


def round_list(rounds):
    """[1, 2, 3, 5] -> '1-3, 5'"""
    out, run = [], []
    for r in sorted(rounds) + [None]:
        if run and (r is None or r != run[-1] + 1):
            out.append("%d-%d" % (run[0], run[-1]) if len(run) > 1 else "%d" % run[0])
            run = []
        if r is not None:
            run.append(r)
    return ", ".join(out)


def series_of(measured, current):
    """the series a branch's rounds measured ({hash: {round}}) against the
    one the kit ships (None: unknown) -> the report's series entry"""
    measured = {h: sorted(rs) for h, rs in sorted(measured.items(), key=lambda x: (min(x[1]), x[0]))}
    stale = current is not None and (not measured or set(measured) != {current})
    return {"measured": measured, "current": current, "stale": stale}


def series_line(b, s):
    """the Series line of branch b's section"""
    if s["measured"]:
        text = ", ".join("series %s (rounds %s)" % (h, round_list(rs)) for h, rs in s["measured"].items())
    else:
        text = "not recorded (rounds measured before make bench recorded their series)"
    if s["stale"]:
        return "Series: %s; **stale**: the kit now ships series %s (make bench BRANCH=%s measures it)." % (
            text, s["current"], b)
    if s["current"] is None:
        return "Series: %s; the kit ships no series of %s to compare." % (text, b)
    return "Series: %s, the series the kit ships now." % text


def bootstrap_ci(vals, seed=1):
    """95% percentile bootstrap interval of the median of vals"""
    if len(vals) < 2:
        return (vals[0], vals[0]) if vals else (None, None)
    rng = random.Random(seed)
    n = len(vals)
    meds = sorted(statistics.median(rng.choice(vals) for _ in range(n)) for _ in range(BOOTSTRAP))
    a = (1 - CONFIDENCE) / 2
    return meds[int(a * BOOTSTRAP)], meds[min(BOOTSTRAP - 1, int((1 - a) * BOOTSTRAP))]


def figure(m, byvar, unit, cens=frozenset()):
    """cens: {(variant, round)} whose value is censored (">X")"""
    u, p = byvar.get("unpatched", {}), byvar.get("patched", {})
    ratios = []
    cu = cp = both = 0
    for r in sorted(set(u) & set(p)):
        if u[r] is not None and p[r] is not None and u[r] > 0:
            if ("unpatched", r) in cens and ("patched", r) in cens:
                both += 1	# both at the cap: no ratio, not even a bound
                continue
            ratios.append(p[r] / u[r])
            cu += ("unpatched", r) in cens
            cp += ("patched", r) in cens
    label, better, upref, upnote = KNOWN.get(m, (m, "lower" if unit in ("s", "us") else "higher", None, ""))
    lo, hi = bootstrap_ci(ratios)
    f = {
        "label": label, "unit": unit, "better": better,
        "unpatched": [u[r] for r in sorted(u)], "patched": [p[r] for r in sorted(p)],
        "ratios": ratios, "rounds": len(ratios),
        "ratio_median": statistics.median(ratios) if ratios else None,
        "ratio_min": min(ratios) if ratios else None,
        "ratio_max": max(ratios) if ratios else None,
        "ci_lo": lo, "ci_hi": hi, "confidence": CONFIDENCE,
        "censored_unpatched": cu, "censored_patched": cp, "censored_both": both,
        "bound": "upper" if cu and not cp else "lower" if cp and not cu else "none" if not cu else "both",
        "upstream_ratio": upref, "upstream_ref": upnote,
    }
    f["verdict"] = verdict(f)
    return f


def hackbench_geomean(d):
    """per variant and round: geometric mean of the hackbench configurations
    that ran in every boot of both kernels"""
    names = sorted(m for m in d if m.startswith("hackbench.") and m != "hackbench.geomean")
    # rounds in which both boots ran hackbench (a lost boot drops its round)
    rounds = None
    for v in ("unpatched", "patched"):
        rv = set()
        for m in names:
            rv |= {r for r, x in d[m][v].items() if x is not None}
        rounds = rv if rounds is None else rounds & rv
    rounds = sorted(rounds or [])
    good = [m for m in names
            if all(d[m][v].get(r) for v in ("unpatched", "patched") for r in rounds)]
    out = {}
    for v in ("unpatched", "patched"):
        out[v] = {}
        for r in rounds:
            vals = [d[m][v][r] for m in good]
            if vals:
                out[v][r] = math.exp(sum(math.log(x) for x in vals) / len(vals))
    return out, good


def verdict(f):
    """better / worse / no significant difference, from the CI of the ratio"""
    rm = f["ratio_median"]
    if rm is None:
        return "undecided (both capped)" if f.get("censored_both") else ""
    if f["rounds"] < MIN_ROUNDS:
        return "too few rounds (%d)" % f["rounds"]
    lo, hi = f["ci_lo"], f["ci_hi"]
    if lo <= 1.0 <= hi:
        return "no significant difference"
    lower = hi < 1.0
    # a bound only supports the verdict on its own side
    if (f["bound"] == "upper" and not lower) or (f["bound"] == "lower" and lower) or f["bound"] == "both":
        return "undecided (censored)"
    return "better" if lower == (f["better"] == "lower") else "worse"


def ratio_cell(f):
    if f["ratio_median"] is None:
        u = [x for x in f["unpatched"] if x is not None]
        p = [x for x in f["patched"] if x is not None]
        if p and not u:
            return "only patched works"
        if u and not p:
            return "only unpatched works"
        if f.get("censored_both"):
            return "both at the cap in every round (%d)" % f["censored_both"]
        if u and p and statistics.median(u) == 0 and statistics.median(p) > 0:
            return "unpatched 0, patched %s" % fmt(statistics.median(p))
        return "n/a"
    mark = {"upper": "≤ ", "lower": "≥ "}.get(f["bound"], "")
    dropped = "; %d rounds both at the cap left out" % f["censored_both"] if f.get("censored_both") else ""
    return "%s**%.3f** [%.3f, %.3f]%s" % (mark, f["ratio_median"], f["ci_lo"], f["ci_hi"], dropped)


def main(argv):
    ap = ArgumentParser(prog='bench-report', description=__doc__.split('\n\n', 1)[0])
    ap.add_argument('tsv', metavar='METRICS.TSV')
    ap.add_argument('outdir', metavar='OUTDIR')
    ap.add_argument('rounds', metavar='ROUNDS', type=int, nargs='?', default=5,
                    help='the rounds the run asked for (default 5)')
    ap.add_argument('--series', action='append', default=[], metavar='BRANCH=HASH',
                    help='the series the kit ships for BRANCH (worktree_stamp of its patched copy)')
    args = ap.parse_args(argv)
    tsv, outdir, rounds = args.tsv, args.outdir, args.rounds
    shipped = {}
    for arg in args.series:
        b, eq, h = arg.partition("=")
        if not eq or not b or not h:
            raise Error("--series %s: not BRANCH=HASH" % arg, "give the series the kit ships as BRANCH=HASH")
        shipped[b] = h
    data, units, info, censored = load(tsv)
    branches = [b for b in BRANCH_ORDER if b in data] + sorted(b for b in data if b not in BRANCH_ORDER)
    report = {
        "generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "rounds": rounds,
        "note": "qemu TCG guests (2 vCPUs, 1 GiB) on a shared 2-CPU host; production-like benchmark kernels: "
                "tinyconfig + the kit's base config + configs/bench.config (no lockdep, DEBUG_VM, "
                "DEBUG_RWSEMS; CONFIG_PREEMPT, full preemption, on every branch): absolute numbers "
                "mean little, only the ratios patched/unpatched from one run count.",
        "kernel_config": "tinyconfig + configs/base.config + configs/bench.config (CONFIG_PREEMPT)",
        "statistics": "median of the per-round ratios, %d%% percentile bootstrap CI (%d resamples)" % (
            CONFIDENCE * 100, BOOTSTRAP),
        "branches": {},
    }
    for b in branches:
        d = data[b]
        if not any(m not in ("boot.completed",) for m in d):
            continue
        gm, gm_names = hackbench_geomean(d)
        if gm["unpatched"] or gm["patched"]:
            d["hackbench.geomean"] = gm
            units["hackbench.geomean"] = "s"
        figs = {}
        for m in sorted(d):
            if m.startswith(("wall.", "boot.", "exit.")) and m not in ("boot.completed",):
                continue
            cens = frozenset((v, r) for (cb, cm, v, r) in censored if cb == b and cm == m)
            figs[m] = figure(m, d[m], units.get(m, ""), cens)
        boots = d.get("boot.completed", {})
        completed = {v: "%d/%d" % (sum(1 for x in boots.get(v, {}).values() if x), len(boots.get(v, {})))
                     for v in ("unpatched", "patched")}
        failed_exits = sorted({m[5:] for m in d if m.startswith("exit.")})
        report["branches"][b] = {
            "run_date": info[b].get("run.date"), "run_seconds": num(info[b].get("run.seconds", "")),
            # figures from before the kit recorded the target were all x86_64, GCC
            "target": info[b].get("run.target", "x86_64, GCC"),
            "bzimage_sha256": {v: sorted(info[b].get("bzimage_" + v, [])) for v in ("unpatched", "patched")},
            "programs_sha256": sorted(info[b].get("programs", [])),
            "series": series_of(info[b].get("series", {}), shipped.get(b)),
            "boots_completed": completed,
            "hackbench_configs_in_geomean": gm_names,
            "workloads_with_nonzero_exit": failed_exits,
            "figures": {m: f for m, f in figs.items() if m != "boot.completed"},
            "targets": targets(figs, carried_set(b)),
        }

    with open(outdir + "/bench.json", "w") as f:
        json.dump(report, f, indent=1, sort_keys=True)
    write_md(report, outdir + "/bench.md")
    write_svg(report, outdir + "/bench.svg")
    print("bench-report: %s/bench.md, bench.json, bench.svg (%s)" % (outdir, " ".join(branches)))


def targets(figs, carries):
    """[(target text, met / missed / not measured / not applicable, ratio cell)];
    carries: the branch's patch file names (None: unknown, judge every target)"""
    out = []
    topics = tables.topics()
    for m, text, test, topic in TARGETS:
        f = figs.get(m)
        if carries is not None and not set(topics.get(topic, [])) & carries:
            # both kernels have the upstream change: the ratio is noise, not the topic
            out.append((text, "not applicable: %s upstream in this branch" % topic,
                        ratio_cell(f) if f and f["ratio_median"] is not None else ""))
            continue
        if f and f["ratio_median"] is None and f.get("censored_both"):
            out.append((text, "undecided: both kernels at the cap", ratio_cell(f)))
            continue
        if not f or f["ratio_median"] is None or f["rounds"] < MIN_ROUNDS:
            out.append((text, "not measured", ""))
            continue
        out.append((text, "met" if test(f) else "missed", ratio_cell(f)))
    return out


def order_key(m):
    keys = list(KNOWN)
    if m in keys:
        return (0, keys.index(m), m)
    return (1, 0, m)


def carried_set(b):
    """patch file names of the branch series (backports/<b>/series); None when
    the kit has no series for b"""
    path = tables.branch_series_path(b)
    return set(tables.series(path)) if os.path.isfile(path) else None


def carried(b):
    """the same as text: "0002 0003 ...", "none", or "?" without a series"""
    nums = carried_set(b)
    if nums is None:
        return "?"
    return " ".join(sorted(p[:4] for p in nums)) or "none"


SEED_OF = "0001: 58f595c66591 (KSM break_ksm); 0002-0003: 62b98015d988, 473b73222f3d (RO collapse); 0004-0008: the khugepaged mmap_lock series"


def write_md(rep, path):
    L = ["# Benchmarks: patched / unpatched", "",
         "Generated %s by `make bench` (mmbk/bench_report.py)." % rep["generated"],
         "",
         "**Read the ratios, not the numbers.** The guests run under qemu TCG (no KVM: 10-50x "
         "slower than native), 2 vCPUs and 1 GiB, on a 2-CPU host. Kernels: production-like "
         "benchmark kernels, tinyconfig + the kit's base config + `configs/bench.config`: no "
         "lockdep, DEBUG_VM or DEBUG_RWSEMS, **full preemption (CONFIG_PREEMPT) on every "
         "branch**; the test kernels of `make test` are separate. Each round boots the unpatched "
         "and the patched kernel (same config) back to back, in alternating order, and runs every "
         "workload once per boot; the ratio is taken within a round. Value cells: median "
         "(min–max) over the rounds. Ratio cell: median of the per-round ratios [95%% bootstrap "
         "confidence interval, %d resamples of the rounds]; ≤ marks an upper bound (the "
         "unpatched kernel hit the workload's cap in some round, its real time is longer). "
         "Ratio < 1 is better for times and latencies, > 1 for throughput. Verdict: better / "
         "worse when the interval excludes 1, else no significant difference; none under %d "
         "rounds." % (BOOTSTRAP, MIN_ROUNDS),
         ""]
    for b, br in rep["branches"].items():
        L.append("## %s" % b)
        L.append("")
        sha = br["bzimage_sha256"]
        L.append("Run %s, %s s, %s; boots completed: unpatched %s, patched %s; kernels (image sha256): "
                 "unpatched %s, patched %s." % (
                     br["run_date"], "%.0f" % br["run_seconds"] if br["run_seconds"] else "?", br["target"],
                     br["boots_completed"]["unpatched"], br["boots_completed"]["patched"],
                     ",".join(sha["unpatched"]) or "?", ",".join(sha["patched"]) or "?"))
        L.append("")
        L.append(series_line(b, br["series"]))
        L.append("")
        L.append("Carries: %s (%s). A figure whose patch the branch does not carry (already "
                 "upstream) compares two kernels that are the same there: its ratio shows the noise." % (
                     carried(b), SEED_OF))
        if br["workloads_with_nonzero_exit"]:
            L.append("Workloads that exited non-zero in some boot: %s (see out/bench/runs/%s/)." % (
                ", ".join(br["workloads_with_nonzero_exit"]), b))
        L.append("")
        tg = br.get("targets") or []
        if tg:
            L.append("Targets: " + "; ".join("%s: **%s**%s" % (t, st, " (%s)" % c if c else "")
                                               for t, st, c in tg) + ".")
            L.append("")
        L.append("| figure | unit | unpatched | patched | ratio p/u: median [95% CI] | verdict | upstream reference |")
        L.append("|---|---|---|---|---|---|---|")
        for m in sorted(br["figures"], key=order_key):
            f = br["figures"][m]
            upstream = ""
            if f["upstream_ratio"] is not None:
                upstream = "%.3f (%s)" % (f["upstream_ratio"], f["upstream_ref"])
            name = f["label"] if m in KNOWN else "`%s`" % m
            if m == "hackbench.geomean":
                name += " [%d configs]" % len(br["hackbench_configs_in_geomean"])
            L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                name, f["unit"], spread(f["unpatched"]), spread(f["patched"]),
                ratio_cell(f), f["verdict"], upstream))
        L.append("")
    L += ["Notes:", "",
          "- hackbench: pipes only (the kit's tinyconfig kernels have no CONFIG_NET, so no AF_UNIX "
          "sockets); 20 senders and 20 receivers per group, groups 1, 2 and 4, processes and threads, "
          "THP set to `always` while it runs (62b98015d988's gain was measured on arm64 bare metal with "
          "mmtests; here under TCG, for the target on each branch's Run line).",
          "- KSM: like `ksm_tests -D`, 32, 128 and 256 MiB of identical pages (instead of 2 GiB), 5 "
          "repetitions each; ksmd merges, is stopped (run=0), then MADV_UNMERGEABLE is timed; "
          "MiB/s over all repetitions.",
          "- collapse under contention (`scan_contention_bench`): eligible 2 MiB regions "
          "interleaved with one-page VMAs of alternating protection, 2 writer threads "
          "(mmap/mprotect/munmap, each op timed), one reader of /proc/self/maps and smaps_rollup; "
          "khugepaged `fast` (scan_sleep 10 ms; 16 regions among 30000 VMAs, cap 120 s) and "
          "`default` (10 s; 6 regions among 12000 VMAs, cap 300 s = 30 wakeups; its writers "
          "run in bursts of 20 ms with 20-60 ms pauses, so a trylock can succeed), pages_to_scan "
          "4096, each in a fresh mm. `full_scans`: khugepaged passes that ended before "
          "the mm collapsed; on an unpatched kernel each one restarts the mm at its bottom.",
          "- mmap writer latency (maps_consistency): 2 writer threads against maps/smaps_rollup "
          "readers for 6 s, no khugepaged load.",
          "- RO collapse: MADV_COLLAPSE where the kernel has it (6.1+), khugepaged on 5.10 "
          "(given up after 8 s: \"fail\" = no collapse, the unpatched behaviour).",
          "- raw figures: out/bench/metrics.tsv; serial logs: out/bench/runs/<branch>/r<N>/boot/.",
          "- the kit's own wall times (apply, check, matrix; cold and warm) are `make bench-kit`: "
          "out/bench-kit.md (separate: it takes ~4-5 min per branch).",
          ""]
    with open(path, "w") as f:
        f.write("\n".join(L))


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write_svg(rep, path):
    branches = list(rep["branches"])
    W, H = 1100, 450
    left, top, bottom = 70, 60, 110
    ph = H - top - bottom
    n = len(PLOT)
    pw = (W - left - 20) / n
    vals = [1.0, 1.2]
    for b in branches:
        for m in PLOT:
            f = rep["branches"][b]["figures"].get(m)
            if f and f["ratio_median"] is not None:
                vals += [f["ci_lo"], f["ci_hi"]]
            if f and f["upstream_ratio"]:
                vals.append(f["upstream_ratio"])
    # ratios are multiplicative: log2 axis, 1/4..4 at least, clipped to 1/16..16
    vals = [v for v in vals if v and v > 0]
    lo = max(-4, min(-2, math.floor(math.log2(min(vals)))))
    hi = min(4, max(2, math.ceil(math.log2(max(vals)))))
    ymax = 2.0 ** hi

    def y(v):
        lv = min(max(math.log2(v), lo), hi) if v > 0 else lo
        return top + ph - (lv - lo) / (hi - lo) * ph

    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">' % (W, H),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="22" font-size="15" font-weight="bold">mm-backport-kit benchmarks: ratio patched/unpatched per branch (median, 95%% CI over %d rounds)</text>' % (left - 50, rep["rounds"]),
         '<text x="%d" y="40" fill="#555">qemu TCG guests: only ratios count. Black bar: upstream reference ratio. Log scale, clipped at 1/%d and %d.</text>' % (left - 50, 2 ** -lo, ymax)]
    # axis and grid
    for e in range(lo, hi + 1):
        t = 2.0 ** e
        yy = y(t)
        o.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-width="1"/>' % (
            left, yy, W - 20, yy, "#999" if e == 0 else "#eee"))
        o.append('<text x="%d" y="%.1f" text-anchor="end" fill="#333">%s</text>' % (
            left - 6, yy + 4, ("%g" % t) if e >= 0 else "1/%d" % (2 ** -e)))
    o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333"/>' % (left, top, left, top + ph))
    o.append('<text transform="translate(18,%d) rotate(-90)" text-anchor="middle">patched / unpatched (log scale)</text>' % (top + ph / 2))
    for i, m in enumerate(PLOT):
        x0 = left + i * pw
        o.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (x0 + pw / 2, top + ph + 20, esc(PLOT_SHORT[m])))
        better = KNOWN[m][1]
        o.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#777">%s is better</text>' % (
            x0 + pw / 2, top + ph + 36, "lower" if better == "lower" else "higher"))
        upref = KNOWN[m][2]
        if upref:
            o.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black" stroke-width="3"/>' % (
                x0 + 8, y(upref), x0 + pw - 8, y(upref)))
            o.append('<text x="%.1f" y="%.1f" font-size="10" fill="black">upstream %.2f</text>' % (x0 + 8, y(upref) - 4, upref))
        nb = max(1, len(branches))
        for j, b in enumerate(branches):
            f = rep["branches"][b]["figures"].get(m)
            cx = x0 + pw * (j + 1) / (nb + 1)
            if not f or f["ratio_median"] is None:
                o.append('<text x="%.1f" y="%.1f" text-anchor="middle" font-size="10" fill="%s">n/a</text>' % (cx, y(1.0) - 6, COLORS.get(b, "#444")))
                continue
            c = COLORS.get(b, "#444")
            o.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>' % (cx, y(f["ci_lo"]), cx, y(f["ci_hi"]), c))
            o.append('<circle cx="%.1f" cy="%.1f" r="5" fill="%s"><title>%s %s: %.3f (%.3f-%.3f)</title></circle>' % (
                cx, y(f["ratio_median"]), c, b, esc(m), f["ratio_median"], f["ci_lo"], f["ci_hi"]))
    # legend
    lx = left
    for b in branches:
        o.append('<circle cx="%d" cy="%d" r="5" fill="%s"/>' % (lx, H - 30, COLORS.get(b, "#444")))
        o.append('<text x="%d" y="%d">%s</text>' % (lx + 10, H - 26, b))
        lx += 64
    o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black" stroke-width="3"/>' % (left - 5, H - 10, left + 19, H - 10))
    o.append('<text x="%d" y="%d">upstream reference (mmap_lock series: 3.6/10.8 s, 58f595c66591: 5010/5250 MiB/s, 62b98015d988: 0.95); bars: 95%% bootstrap CI</text>' % (left + 25, H - 6))
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")
