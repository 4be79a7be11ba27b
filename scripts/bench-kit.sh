#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-kit.sh [BRANCH...] - how long the kit itself takes, per branch
# (default: all): wall time of
#   apply        scripts/apply.sh apply on a fresh scratch copy
#   check cold   scripts/check.sh on the patched tree, its build dirs removed
#   check warm   the same again
#   matrix cold  scripts/matrix.sh BRANCH, build dirs removed
#   matrix warm  the same again
# and what share of check is kbuild (the W=1 + sparse builds of kbuild.sh,
# timed from its own progress lines) against the total.  (make bench-kit)
#
# It runs in a private kit cache ($CACHE_DIR/work/bench-kit/cache: the
# pristine trees hard-linked, tools/ and bin/ linked, its own work/ and build
# dirs) so that "cold" can remove build dirs without touching the ones that
# make boot/check share, and with the shared ccache (CCACHE_DIR), which is
# never wiped: cold = no build dir, warm ccache.  Reports go to
# out/bench-kit.md and out/bench-kit.json; the check/matrix output of the
# runs to out/bench-kit/.  The host is shared, so times are +-20% or worse.
set -eu
set -o pipefail
. "$(dirname "$0")/lib.sh"

[ "$#" -gt 0 ] || set -- $SUPPORTED_BRANCHES
for b in "$@"; do require_branch "$b"; done

KC=$CACHE_DIR/work/bench-kit/cache
KOUT=$OUT_DIR/bench-kit
TSV=$KOUT/times.tsv
mkdir -p "$KC/trees" "$KC/work" "$KOUT"
export CCACHE_DIR=${CCACHE_DIR:-$CACHE_DIR/ccache}
for d in tools bin apt; do
	[ -e "$KC/$d" ] || ln -s "$CACHE_DIR/$d" "$KC/$d"
done
if [ -f "$TSV" ]; then
	awk -F'\t' -v drop=" $* " 'NR == 1 || index(drop, " " $1 " ") == 0' "$TSV" > "$TSV.tmp"
	mv "$TSV.tmp" "$TSV"
else
	printf 'branch\tstep\tseconds\tkbuild_seconds\tstatus\n' > "$TSV"
fi

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# kbuild_seconds DIR: sum over the kbuild logs check.sh keeps (*.all) of the
# time from kbuild.sh's first progress line to its "done" line
kbuild_seconds() {
	local f
	for f in "$1"/*.all; do
		[ -f "$f" ] || continue
		awk '
			function sec(t) { split(t, a, ":"); return a[1] * 3600 + a[2] * 60 + a[3] }
			/^\[[0-9:]+\] kbuild: / { t = substr($1, 2, 8); if (first == "") first = t; last = t }
			END { if (first != "") { d = sec(last) - sec(first); if (d < 0) d += 86400; print d } }
		' "$f"
	done | awk '{ s += $1 } END { printf "%d", s }'
}

# step BRANCH NAME KBUILD-LOGDIR CMD...: time CMD (output to out/bench-kit/)
step() {
	local b=$1 name=$2 logdir=$3 t rc=0 kb=-
	shift 3
	progress "bench-kit: $b $name: $*"
	t=$(now)
	"$@" > "$KOUT/$b-${name// /-}.log" 2>&1 || rc=$?
	t=$(since "$t")
	[ -z "$logdir" ] || kb=$(kbuild_seconds "$logdir")
	progress "bench-kit: $b $name: ${t}s ($([ "$kb" = - ] || echo "kbuild ${kb}s, ")rc $rc)"
	printf '%s\t%s\t%s\t%s\t%s\n' "$b" "$name" "$t" "$kb" "$rc" >> "$TSV"
}

kit() {	# run a kit script against the private cache and output dir
	MMBK_CACHE=$KC MMBK_OUT=$KOUT/out KDIR='' BRANCH='' "$@"
}

for b in "$@"; do
	progress "bench-kit: === $b ==="
	# the private cache's pristine tree: a hard-link copy (never written)
	if [ ! -f "$KC/trees/$b/linux/Makefile" ]; then
		mkdir -p "$KC/trees/$b"
		rm -rf "$KC/trees/$b/linux.tmp"
		cp -al "$(pristine_dir "$b")" "$KC/trees/$b/linux.tmp"
		mv "$KC/trees/$b/linux.tmp" "$KC/trees/$b/linux"
		cp -p "$CACHE_DIR/trees/$b/source" "$KC/trees/$b/" 2>/dev/null || true
	fi
	scratch=$KC/work/$b/bench-apply/linux
	kit bash -c ". '$KIT_DIR/scripts/lib.sh'; scratch_copy '$b' '$scratch'"
	step "$b" apply "" kit "$KIT_DIR/scripts/apply.sh" apply "$scratch"

	# the patched tree check.sh works on (made and applied here, untimed)
	tree=$(kit "$KIT_DIR/scripts/worktree.sh" "$b" patched 2>/dev/null | tail -n1)
	rm -rf "$KC/trees/$b/build" "$KC/work/$b/patched/build"
	step "$b" "check cold" "$KOUT/out/check/$b" kit "$KIT_DIR/scripts/check.sh" "$tree"
	step "$b" "check warm" "$KOUT/out/check/$b" kit "$KIT_DIR/scripts/check.sh" "$tree"
	rm -rf "$KC/trees/$b/build" "$KC/work/$b/patched/build"
	for temp in cold warm; do
		step "$b" "matrix $temp" "$KOUT/out/check/$b" kit "$KIT_DIR/scripts/matrix.sh" "$b"
		# matrix.sh's own split (tree, apply = fresh patched copy, check)
		awk -v b="$b" -v s="matrix $temp" 'NF == 2 { printf "%s\t%s: %s\t%s\t-\t0\n", b, s, $1, $2 }' \
			"$KOUT/out/status/$b.times" >> "$TSV" 2>/dev/null || true
	done
done

/usr/bin/python3 - "$TSV" "$OUT_DIR" <<'PY'
import json, sys, time
tsv, out = sys.argv[1], sys.argv[2]
rows = [l.rstrip("\n").split("\t") for l in open(tsv)][1:]
res = {}
for b, step, sec, kb, rc in rows:
    res.setdefault(b, {})[step] = {"seconds": float(sec), "kbuild_seconds": None if kb == "-" else float(kb), "rc": int(rc)}
order = ["5.10", "6.1", "6.12", "7.2"]
bs = [b for b in order if b in res] + sorted(b for b in res if b not in order)
json.dump({"generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "branches": res},
          open(out + "/bench-kit.json", "w"), indent=1, sort_keys=True)
steps = ["apply", "check cold", "check warm", "matrix cold", "matrix warm"]
L = ["# The kit's own wall times", "",
     "`make bench-kit` (scripts/bench-kit.sh), %s. Seconds of wall time on a 2-CPU host shared with "
     "other jobs (+-20%% or worse). cold = no build dirs (private kit cache), shared ccache warm; "
     "warm = the same command again. kbuild = time inside scripts/kbuild.sh (W=1 + sparse builds), "
     "its share of the check's total in parentheses. A non-zero rc is shown as [rc N]." % time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
     "", "| branch | " + " | ".join(steps) + " |", "|---|" + "---|" * len(steps)]
for b in bs:
    cells = []
    for s in steps:
        r = res[b].get(s)
        if not r:
            cells.append("-")
            continue
        c = "%.0f s" % r["seconds"]
        if r["kbuild_seconds"] is not None and r["seconds"] > 0:
            c += " (kbuild %.0f s, %.0f%%)" % (r["kbuild_seconds"], 100 * r["kbuild_seconds"] / r["seconds"])
        if r["rc"]:
            c += " [rc %d]" % r["rc"]
        cells.append(c)
    L.append("| %s | %s |" % (b, " | ".join(cells)))
L.append("")
L.append("matrix.sh's own split of its run (tree / apply = a fresh patched copy / check):")
L.append("")
L.append("| branch | matrix cold | matrix warm |")
L.append("|---|---|---|")
for b in bs:
    cells = []
    for t in ("cold", "warm"):
        parts = ["%s %.0f s" % (k.split(": ")[1], v["seconds"]) for k, v in res[b].items()
                 if k.startswith("matrix %s: " % t)]
        cells.append(", ".join(parts) or "-")
    L.append("| %s | %s |" % (b, " | ".join(cells)))
L.append("")
L.append("Cold check = the W=1 + sparse build of every object the series touches, with and without "
         "the series, into empty build dirs (kbuild first generates the config and prepares the "
         "build dir: that is most of the cold time); warm = only those objects again.")
L.append("")
open(out + "/bench-kit.md", "w").write("\n".join(L))
print("\n".join(L))
PY
