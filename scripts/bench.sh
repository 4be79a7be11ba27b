#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh [--resume | --report | --save] [BRANCH...] - before/after benchmarks: for each branch (default:
# all), boot the unpatched and the patched benchmark kernel (scripts/boot.sh
# --profile bench: production-like configs/bench.config, no lockdep or
# DEBUG_VM, full preemption on every branch; built and cached in build-bench/
# next to the test kernels) with the bench initramfs (tests/bench/ plus the
# suite's maps_consistency), BENCH_ROUNDS times each (default 10), and report
# every figure as the ratio patched/unpatched: the median over the rounds
# with a 95% bootstrap confidence interval and a verdict (bench-report.py).
# (make bench [BRANCH=b])
#
# Rounds: one boot runs every workload once; a round is one unpatched and
# one patched boot back to back, in alternating order (U P, P U, ...).  The
# ratio of a round is taken between its two boots, so a change in host load
# (the 2 CPUs are shared; qemu TCG slows with them) hits both sides of a
# ratio alike instead of all runs of one kernel: that is why it is 5 boots
# per kernel rather than one boot running the workloads 5 times.
#
# Output: out/bench.md, out/bench.json, out/bench.svg (scripts/bench-report.py,
# rewritten after every branch), raw figures out/bench/metrics.tsv, serial
# logs out/bench/runs/<branch>/r<N>/boot/.  Benchmarks never fail the test
# suite: a broken boot or workload is reported, and the script goes on.
# metrics.tsv keeps the figures of branches not named this time.
# Both kernels of a branch are built first; every boot then runs them as
# built.  --resume (make bench RESUME=1) keeps a branch's finished rounds
# (both boots completed) when they ran the very kernels and programs built now (bzImage
# and bench programs sha256) and runs only the others; without it a branch is measured anew.
# The trees are fetched as needed (scripts/tree.sh, cached): the branches
# measured and the newest branch, whose kselftest.h the programs build on.
# A branch whose kernels do not build gets no figures, the others go on,
# and the script exits 1 at the end.
# The figures measured for the kit are committed in tests/bench/results.tsv
# (kernels are built reproducibly, scripts/kbuild.sh, so their sha256 is the
# same on every machine with the same trees and compiler): a checkout
# without out/bench/metrics.tsv starts from it, so --resume continues the
# rounds measured elsewhere and the report shows every branch measured.
# --report writes the report of those figures without booting anything.
# --save (make bench SAVE=1) puts the finished rounds of the branches named
# (default: all measured) from out/bench/metrics.tsv into
# tests/bench/results.tsv, in place of the branch's committed rows: rounds
# whose two boots completed, and the runs' dates and times.
# Environment: BENCH_ROUNDS (default 10), BENCH_SCAN_MODES (khugepaged
# settings of scan_contention_bench, default "fast,default"), BOOT_TIMEOUT
# (default 1500), TEST_TIMEOUT (per workload, default 600).
set -eu
set -o pipefail
. "$(dirname "$0")/lib.sh"

ROUNDS=${BENCH_ROUNDS:-10}
case $ROUNDS in ''|*[!0-9]*|0) die "BENCH_ROUNDS=$ROUNDS: use a count >= 1 (10 for the report)" ;; esac
SCAN_MODES=${BENCH_SCAN_MODES:-fast,default}
case $SCAN_MODES in *[!a-z,]*|'') die "BENCH_SCAN_MODES=$SCAN_MODES: use a comma-separated list of fast, default" ;; esac
RESUME=0 REPORT_ONLY=0 SAVE=0
case ${1:-} in
--resume) RESUME=1; shift ;;
--report) REPORT_ONLY=1; shift ;;
--save) SAVE=1; shift ;;
esac
[ "$#" -gt 0 ] || set -- $SUPPORTED_BRANCHES
for b in "$@"; do require_branch "$b"; done

BENCH_DIR=$OUT_DIR/bench
BIN=$BENCH_DIR/bin
TSV=$BENCH_DIR/metrics.tsv
RESULTS=$KIT_DIR/tests/bench/results.tsv

# save_branch BRANCH: BRANCH's rows of $RESULTS replaced by its finished
# rounds in $TSV (scripts/bench-rounds.awk), which must have run one pair of
# kernels and one build of the programs; prints the rounds
save_branch() {
	local kept=$BENCH_DIR/save.kept rows=$BENCH_DIR/save.rows kernels=$BENCH_DIR/save.kernels
	: > "$kept"
	: > "$kernels"
	awk -F'\t' -f "$KIT_DIR/scripts/bench-rounds.awk" -v b="$1" -v su='*' -v sp='*' -v sw='*' \
		-v resume=1 -v kf="$kept" -v kk="$kernels" "$TSV" "$TSV" > "$rows" || die "reading $TSV failed"
	[ "$(sort -u "$kernels" | wc -l)" -le 1 ] ||
		die "$1: the finished rounds in $TSV ran different kernels ($(sort -u "$kernels" | paste -sd, -)); measure anew: make bench BRANCH=$1"
	{
		awk -F'\t' -v b="$1" '$1 != b' "$RESULTS" &&
		awk -F'\t' -v b="$1" '$1 == b' "$rows"
	} > "$RESULTS.tmp" || die "writing $RESULTS.tmp failed"
	mv "$RESULTS.tmp" "$RESULTS"
	sort -n "$kept" | paste -sd' '
	rm -f "$kept" "$rows" "$kernels"
}

if [ $SAVE = 1 ]; then
	[ -f "$TSV" ] || die "nothing to save: no $TSV; run make bench first"
	[ -f "$RESULTS" ] || printf 'branch\tvariant\tround\tmetric\tvalue\tunit\n' > "$RESULTS"
	for b in "$@"; do
		awk -F'\t' -v b="$b" '$1 == b { found = 1; exit } END { exit !found }' "$TSV" || continue
		kept=$(save_branch "$b")
		n=$(wc -w <<< "$kept")
		[ "$n" -ge "$ROUNDS" ] || warn "$b: $n finished rounds of $ROUNDS (make bench BRANCH=$b RESUME=1 measures the rest)"
		progress "bench: $b: rounds ${kept:-none} -> tests/bench/results.tsv"
	done
	exit 0
fi
mkdir -p "$BENCH_DIR"
start_all=$(date +%s)
if [ ! -f "$TSV" ] && [ -f "$RESULTS" ]; then
	cp "$RESULTS" "$TSV"
	progress "bench: starting from the committed figures (tests/bench/results.tsv)"
fi

# report: out/bench.{md,json,svg} from $TSV; the status of bench-report.py
report() {
	/usr/bin/python3 "$KIT_DIR/scripts/bench-report.py" "$TSV" "$OUT_DIR" "$ROUNDS" >&2
}

if [ $REPORT_ONLY = 1 ]; then
	[ -f "$TSV" ] || die "no figures to report: no $TSV and no tests/bench/results.tsv; run make bench first"
	report || die "bench-report.py failed on $TSV"
	cat "$OUT_DIR/bench.md"
	exit 0
fi

# get_tree BRANCH: the cached source tree of BRANCH (downloads it once)
get_tree() {
	"$KIT_DIR/scripts/tree.sh" "$1" > /dev/null || die "no source tree for $1 (scripts/tree.sh failed; see above)"
}

newest=$(printf '%s\n' $SUPPORTED_BRANCHES | sort -V | tail -n1)
for b in "$newest" "$@"; do get_tree "$b"; done
progress "bench: building the benchmarks -> $BIN"
make -s -C "$KIT_DIR/tests/bench" O="$BIN" >&2 || die "building tests/bench failed"
progress "bench: binaries: $(cd "$BIN" && ls | paste -sd' ')"
# the workloads' identity: a resumed run keeps only rounds measured with them
programs_sha=$(mkdir -p "$BIN" && cd "$BIN" && find . -maxdepth 1 -type f -perm -u+x -print0 | LC_ALL=C sort -z |
	xargs -0 -r cat | sha256sum | cut -c1-12) || die "cannot hash the bench programs in $BIN"

# metrics.tsv keeps the other branches' figures, so the report shows every
# branch after 'make bench BRANCH=b'
[ -f "$TSV" ] || printf 'branch\tvariant\tround\tmetric\tvalue\tunit\n' > "$TSV"

# keep_rounds BRANCH SHA_UNPATCHED SHA_PATCHED: drop BRANCH's rows from $TSV
# but those of the rounds scripts/bench-rounds.awk keeps (with --resume: the
# finished rounds of these kernels and these programs); print the rounds
# kept, one a line
keep_rounds() {
	: > "$TSV.kept"
	awk -F'\t' -f "$KIT_DIR/scripts/bench-rounds.awk" -v b="$1" -v su="$2" -v sp="$3" \
		-v sw="$programs_sha" -v resume="$RESUME" -v kf="$TSV.kept" "$TSV" "$TSV" > "$TSV.tmp" ||
		die "rewriting $TSV failed"
	mv "$TSV.tmp" "$TSV"
	sort -n "$TSV.kept"
	rm -f "$TSV.kept"
}

# kernel_sha BRANCH VARIANT: build the benchmark kernel (a no-op when it is
# up to date), print the first 12 hex digits of its bzImage's sha256
kernel_sha() {
	local img
	img=$("$KIT_DIR/scripts/boot.sh" --branch "$1" --variant "$2" --profile bench --build-only | tail -n1) ||
		return 1
	[ -f "$img" ] || return 1
	sha256sum "$img" | cut -c1-12
}

# metrics_of LOG BRANCH VARIANT ROUND -> TSV rows of the figures in a serial log
metrics_of() {
	awk -v b="$2" -v v="$3" -v r="$4" '
	function row(m, val, u) { printf "%s\t%s\t%s\t%s\t%s\t%s\n", b, v, r, m, val, u }
	/^\[ *[0-9]+\.[0-9]+\] / { next }			# kernel log
	{ sub(/^ +/, "") }
	$1 == "#" && $2 == "metric" && NF >= 5 { row($3, $4, $5); next }
	/^# collapse_seconds: / {
		row("collapse_contention.collapse_s", ($3 ~ /^[0-9.]+$/) ? $3 : "fail", "s"); next
	}
	/^# writer_latency_us: / && NF == 5 {
		row("maps.writer_latency_p50_us", $3, "us")
		row("maps.writer_latency_p99_us", $4, "us")
		row("maps.writer_latency_max_us", $5, "us"); next
	}
	/^# [a-z_]+: exit [0-9]+, [0-9.]+ s$/ {
		w = $2; sub(/:$/, "", w); t = $5
		row("wall." w "_s", t, "s")
		if ($4 != "0,") row("exit." w, $4 + 0, "rc")
	}
	/^MMBK-END/ { end = 1 }
	END { row("boot.completed", end ? 1 : 0, "bool") }
	' "$1"
}

# boot_one BRANCH VARIANT ROUND SHA: one boot of the kernel built (bzImage
# sha256 SHA), its figures into $TSV
boot_one() {
	local branch=$1 variant=$2 round=$3 sha=$4 dir log out rc=0 t0
	dir=$BENCH_DIR/runs/$branch/r$round
	out=$dir/boot-$variant.out
	mkdir -p "$dir"
	rm -f "$out" "$dir/boot/$branch-$variant-bench".*
	progress "bench: $branch round $round/$ROUNDS: $variant kernel"
	t0=$(date +%s)
	MMBK_OUT=$dir "$KIT_DIR/scripts/boot.sh" --branch "$branch" --variant "$variant" \
		--profile bench --suite-dir "$BIN" --modules none --no-expect --no-build \
		--append "mmbk.scan_modes=$SCAN_MODES" \
		--timeout "${BOOT_TIMEOUT:-1500}" --test-timeout "${TEST_TIMEOUT:-600}" 2>&1 | tee "$out" |
		grep --line-buffered -E '^\[[0-9:]+\] (kbuild|boot): |^(not )?ok [0-9]+ |^boot [0-9.]+ ' |
		sed -u 's/^/    /' >&2 || rc=$?
	# live: build lines, one line per finished workload, the summary; all in $out
	log=$dir/boot/$branch-$variant-bench.log
	if [ ! -f "$log" ]; then
		warn "$branch $variant round $round: no serial log (boot.sh rc=$rc; see $out)"
		printf '%s\t%s\t%s\tboot.completed\t0\tbool\n' "$branch" "$variant" "$round" >> "$TSV"
		return 0
	fi
	{
		metrics_of "$log" "$branch" "$variant" "$round"
		printf '%s\t%s\t%s\tkernel.bzimage\t%s\tsha256\n' "$branch" "$variant" "$round" "$sha"
		printf '%s\t%s\t%s\tbench.programs\t%s\tsha256\n' "$branch" "$variant" "$round" "$programs_sha"
		printf '%s\t%s\t%s\twall.boot_total_s\t%s\ts\n' "$branch" "$variant" "$round" "$(( $(date +%s) - t0 ))"
	} >> "$TSV"
	# one line of figures per boot, so progress shows numbers
	awk -F'\t' -v b="$branch" -v v="$variant" -v r="$round" '
		$1 == b && $2 == v && $3 == r && $4 ~ /^(scan\.[a-z]+\.(collapse_s|full_scans|writer_p99_us)|ksm\.unmerge_MiBps|ro_collapse\.ro_|hackbench\.process-pipes-4)/ {
			s = s sprintf(" %s=%s", $4, $5) }
		END { print "    figures:" s }' "$TSV" >&2
	[ "$rc" = 0 ] || warn "$branch $variant round $round: boot.sh rc=$rc (see $out)"
}

unbuilt=
for branch in "$@"; do
	bstart=$(date +%s)
	progress "bench: === $branch: $ROUNDS rounds (unpatched + patched boot each) ==="
	if ! sha_u=$(kernel_sha "$branch" unpatched) || ! sha_p=$(kernel_sha "$branch" patched); then
		warn "$branch: a benchmark kernel did not build (see above); no figures for $branch"
		unbuilt="$unbuilt $branch"
		keep_rounds "$branch" - - > /dev/null
		printf '%s\t%s\t1\tboot.completed\t0\tbool\n' "$branch" unpatched "$branch" patched >> "$TSV"
		report || warn "bench-report.py failed"
		continue
	fi
	kept=$(keep_rounds "$branch" "$sha_u" "$sha_p" | paste -sd' ')
	[ -z "$kept" ] || progress "bench: $branch: --resume keeps rounds $kept (same kernels: $sha_u $sha_p)"
	printf '%s\t-\t-\trun.date\t%s\tutc\n' "$branch" "$(date -u +%Y-%m-%dT%H:%MZ)" >> "$TSV"
	for round in $(seq 1 "$ROUNDS"); do
		case " $kept " in *" $round "*) continue ;; esac
		if [ $((round % 2)) = 1 ]; then order="unpatched patched"; else order="patched unpatched"; fi
		for variant in $order; do
			if [ "$variant" = patched ]; then sha=$sha_p; else sha=$sha_u; fi
			boot_one "$branch" "$variant" "$round" "$sha"
		done
	done
	progress "bench: $branch done in $(( $(date +%s) - bstart ))s"
	printf '%s\t-\t-\trun.seconds\t%s\ts\n' "$branch" "$(( $(date +%s) - bstart ))" >> "$TSV"
	report || warn "bench-report.py failed"
done
progress "bench: all done in $(( $(date +%s) - start_all ))s: $OUT_DIR/bench.md, $OUT_DIR/bench.json, $OUT_DIR/bench.svg"
cat "$OUT_DIR/bench.md" 2>/dev/null || true
[ -z "$unbuilt" ] || die "no figures for$unbuilt: a benchmark kernel did not build (see the log above)"
