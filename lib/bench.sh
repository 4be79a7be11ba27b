# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# bench.sh - before/after benchmarks (make bench).
# bench_run [BRANCH...] (make bench [RESUME=1|REPORT=1|SAVE=1] [ROUNDS=n] [SCAN_MODES=..];
#           bin/bench also takes --boot-timeout S, --test-timeout S): for each
# branch (default: all), boot the unpatched and the patched benchmark kernel (boot.sh,
# the bench profile: production-like configs/bench.config, no lockdep or
# DEBUG_VM, full preemption on every branch; built and cached in build-bench/
# next to the test kernels) with the bench initramfs (guest/bench/ plus the
# suite's maps_consistency), --rounds times each (default 10), and report
# every figure as the ratio patched/unpatched: the median over the rounds
# with a 95% bootstrap confidence interval and a verdict (mmbk/bench_report.py).
# (make bench [BRANCH=b])
#
# Rounds: one boot runs every workload once; a round is one unpatched and
# one patched boot back to back, in alternating order (U P, P U, ...).  The
# ratio of a round is taken between its two boots, so a change in host load
# (the 2 CPUs are shared; qemu TCG slows with them) hits both sides of a
# ratio alike instead of all runs of one kernel: that is why it is 5 boots
# per kernel rather than one boot running the workloads 5 times.
#
# Output: out/bench.md, out/bench.json, out/bench.svg (mmbk/bench_report.py,
# rewritten after every branch), raw figures out/bench/metrics.tsv, serial
# logs out/bench/runs/<branch>/r<N>/boot/.  Benchmarks never fail the test
# suite: a broken boot or workload is reported, and the script goes on.
# metrics.tsv keeps the figures of branches not named this time.
# Both kernels of a branch are built first; every boot then runs them as
# built.  --resume (make bench RESUME=1) keeps a branch's finished rounds
# (both boots completed) when they ran the very kernels and programs built now (bzImage
# and bench programs sha256) and runs only the others; without it a branch is measured anew.
# The trees are fetched as needed (fetch.sh, cached): the branches
# measured and the newest branch, whose kselftest.h the programs build on.
# A branch whose kernels do not build gets no figures, the others go on,
# and the script exits 1 at the end.
# The figures measured for the kit are committed in tables/bench-results.tsv
# (kernels are built reproducibly, lib/kbuild.sh, so their sha256 is the
# same on every machine with the same trees and compiler): a checkout
# without out/bench/metrics.tsv starts from it, so --resume continues the
# rounds measured elsewhere and the report shows every branch measured.
# --report writes the report of those figures without booting anything.
# Every boot records the series its round measured (bench.series: the hash
# the kit's patched copy of the branch is named by, worktree_stamp), and
# the report names it per branch and says stale when the kit now ships
# another series.
# --save (make bench SAVE=1) puts the finished rounds of the branches named
# (default: all measured) from out/bench/metrics.tsv into
# tables/bench-results.tsv, in place of the branch's committed rows: rounds
# whose two boots completed, and the runs' dates and times.
# The request's fields (bin/bench's options): --rounds (default 10), --scan-modes (khugepaged settings of
# scan_contention_bench, default "fast,default"), --boot-timeout (default
# 1500), --test-timeout (per workload, default 600).
kit_use tables trees kbuild guest request boot fetch worktree

# bench_save_branch BRANCH: BRANCH's rows of $BENCH_RESULTS replaced by its finished
# rounds in $BENCH_TSV (lib/bench-rounds.awk), which must have run one pair of
# kernels and one build of the programs; prints the rounds
bench_save_branch() {
	local kept=$BENCH_DIR/save.kept rows=$BENCH_DIR/save.rows kernels=$BENCH_DIR/save.kernels
	: > "$kept"
	: > "$kernels"
	awk -F'\t' -f "$LIB_DIR/bench-rounds.awk" -v b="$1" -v su='*' -v sp='*' -v sw='*' \
		-v resume=1 -v kf="$kept" -v kk="$kernels" "$BENCH_TSV" "$BENCH_TSV" > "$rows" || die "reading $BENCH_TSV failed"
	[ "$(sort -u "$kernels" | wc -l)" -le 1 ] ||
		die "$1: the finished rounds in $BENCH_TSV ran different kernels ($(sort -u "$kernels" | paste -sd, -)); measure anew: make bench BRANCH=$1"
	{
		awk -F'\t' -v b="$1" '$1 != b' "$BENCH_RESULTS" &&
		awk -F'\t' -v b="$1" '$1 == b' "$rows"
	} > "$BENCH_RESULTS.tmp" || die "writing $BENCH_RESULTS.tmp failed"
	mv "$BENCH_RESULTS.tmp" "$BENCH_RESULTS"
	sort -n "$kept" | paste -sd' '
	rm -f "$kept" "$rows" "$kernels"
}

# bench_keep_rounds BRANCH SHA_UNPATCHED SHA_PATCHED: drop BRANCH's rows from $BENCH_TSV
# but those of the rounds lib/bench-rounds.awk keeps (with --resume: the
# finished rounds of these kernels and these programs); print the rounds
# kept, one a line
bench_keep_rounds() {
	: > "$BENCH_TSV.kept"
	awk -F'\t' -f "$LIB_DIR/bench-rounds.awk" -v b="$1" -v su="$2" -v sp="$3" \
		-v sw="$BENCH_PROGRAMS_SHA" -v resume="$BENCH_RESUME" -v kf="$BENCH_TSV.kept" "$BENCH_TSV" "$BENCH_TSV" > "$BENCH_TSV.tmp" ||
		die "rewriting $BENCH_TSV failed"
	mv "$BENCH_TSV.tmp" "$BENCH_TSV"
	sort -n "$BENCH_TSV.kept"
	rm -f "$BENCH_TSV.kept"
}

# bench_kernel_shas BRANCH: build the unpatched and the patched benchmark
# kernel (a no-op when up to date); print the first 12 hex digits of each
# kernel image's sha256, "UNPATCHED PATCHED" (run it through kit_try)
bench_kernel_shas() {
	local v img
	for v in unpatched patched; do
		img=$(request_call BRANCH="$1" VARIANT="$v" BUILD_PROFILE=bench BUILD_ONLY=1 -- boot_run | tail -n1)
		[ -f "$img" ] || die "$1 $v: the build named no kernel image"
		sha256sum "$img" | cut -c1-12
	done | paste -sd' '
}

# bench_metrics_of LOG BRANCH VARIANT ROUND -> TSV rows of the figures in a serial log
bench_metrics_of() {
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

# bench_boot_one BRANCH VARIANT ROUND SHA: one boot of the kernel built (bzImage
# sha256 SHA), its figures into $BENCH_TSV
bench_boot_one() {
	local branch=$1 variant=$2 round=$3 sha=$4 dir log out rc=0 t0
	dir=$BENCH_DIR/runs/$branch/r$round
	out=$dir/boot-$variant.out
	mkdir -p "$dir"
	rm -f "$out" "$dir/boot/$branch-$variant-bench${KB_TAG:-}".*
	progress "bench: $branch round $round/$BENCH_ROUNDS: $variant kernel"
	t0=$(date +%s)
	# all of boot's output in $out; live: build lines, one line per finished
	# workload, the summary
	kit_try request_call BRANCH="$branch" VARIANT="$variant" OUT="$dir" BUILD_PROFILE=bench \
		SUITE_DIR="$BENCH_BIN" MODULES=none EXPECT=0 BUILD=0 APPEND="mmbk.scan_modes=$BENCH_SCAN_MODES" \
		TIMEOUT="$BENCH_BOOT_TIMEOUT" TEST_TIMEOUT="$BENCH_TEST_TIMEOUT" -- boot_run > >(tee "$out" |
		{ grep --line-buffered -E '^\[[0-9:]+\] (kbuild|boot): |^(not )?ok [0-9]+ |^boot [0-9.]+ ' || true; } |
		sed -u 's/^/    /' >&2) 2>&1
	rc=$KIT_RC
	wait $!
	log=$dir/boot/$branch-$variant-bench${KB_TAG:-}.log
	if [ ! -f "$log" ]; then
		warn "$branch $variant round $round: no serial log (boot.sh rc=$rc; see $out)"
		BENCH_INCOMPLETE="$BENCH_INCOMPLETE $branch/$variant/r$round"
		printf '%s\t%s\t%s\tboot.completed\t0\tbool\n' "$branch" "$variant" "$round" >> "$BENCH_TSV"
		return 0
	fi
	{
		bench_metrics_of "$log" "$branch" "$variant" "$round"
		printf '%s\t%s\t%s\tkernel.bzimage\t%s\tsha256\n' "$branch" "$variant" "$round" "$sha"
		printf '%s\t%s\t%s\tbench.programs\t%s\tsha256\n' "$branch" "$variant" "$round" "$BENCH_PROGRAMS_SHA"
		printf '%s\t%s\t%s\tbench.series\t%s\tstamp\n' "$branch" "$variant" "$round" "$BENCH_SERIES"
		printf '%s\t%s\t%s\twall.boot_total_s\t%s\ts\n' "$branch" "$variant" "$round" "$(( $(date +%s) - t0 ))"
	} >> "$BENCH_TSV"
	# one line of figures per boot, so progress shows numbers
	awk -F'\t' -v b="$branch" -v v="$variant" -v r="$round" '
		$1 == b && $2 == v && $3 == r && $4 ~ /^(scan\.[a-z]+\.(collapse_s|full_scans|writer_p99_us)|ksm\.unmerge_MiBps|ro_collapse\.ro_|hackbench\.process-pipes-4)/ {
			s = s sprintf(" %s=%s", $4, $5) }
		END { print "    figures:" s }' "$BENCH_TSV" >&2
	[ "$rc" = 0 ] || warn "$branch $variant round $round: boot.sh rc=$rc (see $out)"
}

# bench_report: out/bench.{md,json,svg} from the figures, judged against
# the series the kit ships now (worktree_stamp of each branch's patched
# copy); the status of mmbk bench-report
bench_report() {
	local b branches shipped=()
	read -ra branches <<< "$SUPPORTED_BRANCHES"
	for b in "${branches[@]}"; do
		[ -f "$(series_file "$b")" ] || continue
		shipped+=(--series "$b=$(worktree_stamp "$b" patched)")
	done
	kit_py bench-report ${shipped[@]+"${shipped[@]}"} "$BENCH_TSV" "$OUT_DIR" "$BENCH_ROUNDS" >&2
}

# bench_run [BRANCH...] (make bench; none: every branch): the request's
# REQ_BENCH_MODE (measure, resume, report, save), REQ_ROUNDS,
# REQ_SCAN_MODES, REQ_BENCH_BOOT_TIMEOUT, REQ_BENCH_TEST_TIMEOUT; the
# build target KB_* (request_target)
bench_run() (
	local mode=$REQ_BENCH_MODE b kept n bstart sha_u sha_p round order variant sha unbuilt start_all
	BENCH_ROUNDS=$REQ_ROUNDS BENCH_SCAN_MODES=$REQ_SCAN_MODES BENCH_RESUME=0
	BENCH_BOOT_TIMEOUT=$REQ_BENCH_BOOT_TIMEOUT BENCH_TEST_TIMEOUT=$REQ_BENCH_TEST_TIMEOUT
	[ "$mode" != resume ] || { mode=measure; BENCH_RESUME=1; }
	case $BENCH_ROUNDS in ''|*[!0-9]*|0) usage_error "ROUNDS=$BENCH_ROUNDS: use a count >= 1 (10 for the report)" ;; esac
	case $BENCH_SCAN_MODES in *[!a-z,]*|'') usage_error "SCAN_MODES=$BENCH_SCAN_MODES: use a comma-separated list of fast, default" ;; esac
	if [ "$#" -eq 0 ]; then read -ra b <<< "$SUPPORTED_BRANCHES"; set -- "${b[@]}"; fi
	for b in "$@"; do require_branch "$b"; done
	BENCH_DIR=$OUT_DIR/bench
	BENCH_BIN=$BENCH_DIR/bin
	BENCH_TSV=$BENCH_DIR/metrics.tsv
	BENCH_RESULTS=$TABLES_DIR/bench-results.tsv
	if [ "$mode" = save ]; then
		[ -f "$BENCH_TSV" ] || die "nothing to save: no $BENCH_TSV; run make bench first"
		[ -f "$BENCH_RESULTS" ] || printf 'branch\tvariant\tround\tmetric\tvalue\tunit\n' > "$BENCH_RESULTS"
		for b in "$@"; do
			awk -F'\t' -v b="$b" '$1 == b { found = 1; exit } END { exit !found }' "$BENCH_TSV" || continue
			kept=$(bench_save_branch "$b")
			n=$(wc -w <<< "$kept")
			[ "$n" -ge "$BENCH_ROUNDS" ] || warn "$b: $n finished rounds of $BENCH_ROUNDS (make bench BRANCH=$b RESUME=1 measures the rest)"
			progress "bench: $b: rounds ${kept:-none} -> tables/bench-results.tsv"
		done
		return 0
	fi
	mkdir -p "$BENCH_DIR"
	# its figures (metrics.tsv, rounds) are one bench's at a time
	lock_tree "$BENCH_DIR/.lock"
	start_all=$(date +%s)
	if [ ! -f "$BENCH_TSV" ] && [ -f "$BENCH_RESULTS" ]; then
		cp "$BENCH_RESULTS" "$BENCH_TSV"
		progress "bench: starting from the committed figures (tables/bench-results.tsv)"
	fi
	if [ "$mode" = report ]; then
		[ -f "$BENCH_TSV" ] || die "no figures to report: no $BENCH_TSV and no tables/bench-results.tsv; run make bench first"
		bench_report || die "mmbk bench-report failed on $BENCH_TSV"
		cat "$OUT_DIR/bench.md"
		return 0
	fi
	for b in "$NEWEST_BRANCH" "$@"; do
		kit_try fetch_tree "$b" > /dev/null
		[ "$KIT_RC" = 0 ] || die "no source tree for $b (make tree failed; see above)"
	done
	guest_programs "$KIT_DIR/guest/bench" "$BENCH_BIN" > /dev/null
	progress "bench: binaries: $(find "$BENCH_BIN" -maxdepth 1 -type f -printf '%f\n' | sort | paste -sd' ')"
	# the workloads' identity: a resumed run keeps only rounds measured with them
	BENCH_PROGRAMS_SHA=$(cd "$BENCH_BIN" && find . -maxdepth 1 -type f -perm -u+x -print0 | LC_ALL=C sort -z |
		xargs -0 -r cat | sha256sum | cut -c1-12) || die "cannot hash the bench programs in $BENCH_BIN"
	# metrics.tsv keeps the other branches' figures, so the report shows every
	# branch after 'make bench BRANCH=b'
	[ -f "$BENCH_TSV" ] || printf 'branch\tvariant\tround\tmetric\tvalue\tunit\n' > "$BENCH_TSV"
	unbuilt='' BENCH_INCOMPLETE=''
	for branch in "$@"; do
		bstart=$(date +%s)
		progress "bench: === $branch: $BENCH_ROUNDS rounds (unpatched + patched boot each) ==="
		kit_try bench_kernel_shas "$branch" > "$BENCH_DIR/kernels"
		read -r sha_u sha_p < "$BENCH_DIR/kernels" || true
		if [ "$KIT_RC" != 0 ] || [ -z "${sha_p:-}" ]; then
			warn "$branch: a benchmark kernel did not build (see above); no figures for $branch"
			unbuilt="$unbuilt $branch"
			bench_keep_rounds "$branch" - - > /dev/null
			printf '%s\t%s\t1\tboot.completed\t0\tbool\n' "$branch" unpatched "$branch" patched >> "$BENCH_TSV"
			bench_report || warn "mmbk bench-report failed"
			continue
		fi
		# the series the patched kernel was built from (its copy is named by it)
		BENCH_SERIES=$(worktree_stamp "$branch" patched)
		kept=$(bench_keep_rounds "$branch" "$sha_u" "$sha_p" | paste -sd' ')
		[ -z "$kept" ] || progress "bench: $branch: --resume keeps rounds $kept (same kernels: $sha_u $sha_p)"
		printf '%s\t-\t-\trun.date\t%s\tutc\n' "$branch" "$(date -u +%Y-%m-%dT%H:%MZ)" >> "$BENCH_TSV"
		printf '%s\t-\t-\trun.target\t%s\ttext\n' "$branch" "$(kb_describe)" >> "$BENCH_TSV"
		for round in $(seq 1 "$BENCH_ROUNDS"); do
			case " $kept " in *" $round "*) continue ;; esac
			if [ $((round % 2)) = 1 ]; then order="unpatched patched"; else order="patched unpatched"; fi
			for variant in $order; do
				if [ "$variant" = patched ]; then sha=$sha_p; else sha=$sha_u; fi
				bench_boot_one "$branch" "$variant" "$round" "$sha"
			done
		done
		progress "bench: $branch done in $(( $(date +%s) - bstart ))s"
		printf '%s\t-\t-\trun.seconds\t%s\ts\n' "$branch" "$(( $(date +%s) - bstart ))" >> "$BENCH_TSV"
		bench_report || warn "mmbk bench-report failed"
	done
	progress "bench: all done in $(( $(date +%s) - start_all ))s: $OUT_DIR/bench.md, $OUT_DIR/bench.json, $OUT_DIR/bench.svg"
	cat "$OUT_DIR/bench.md" 2>/dev/null || true
	[ -z "$unbuilt" ] || die "no figures for$unbuilt: a benchmark kernel did not build (see the log above)"
	[ -z "$BENCH_INCOMPLETE" ] ||
		die "boots without figures:$BENCH_INCOMPLETE (see the warnings above); make bench RESUME=1 measures them again"
)
