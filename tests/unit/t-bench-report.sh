# SPDX-License-Identifier: GPL-2.0
# tier: fast
# mmbk bench-report on canned figures (metrics.tsv as the bench step
# writes it): paired ratios, the bootstrap interval of their median, the
# verdict, censored values (">X", a workload's cap), targets, and the three
# outputs (md, json, svg: parsed by their own readers); mmbk
# bench-kit-report on canned times.

# canned METRIC UNIT ROUNDS UNPATCHED_EXPR PATCHED_EXPR [BRANCH]: TSV rows of
# BRANCH (default 6.12), round r's values from awk expressions of r (strings
# allowed)
canned() {
	awk -v m="$1" -v u="$2" -v n="$3" -v ue="$4" -v pe="$5" -v b="${6:-6.12}" 'BEGIN {
		for (r = 1; r <= n; r++) {
			uv = ue; pv = pe
			gsub(/r/, r, uv); gsub(/r/, r, pv)
			printf "%s\tunpatched\t%d\t%s\t%s\t%s\n", b, r, m, val(uv), u
			printf "%s\tpatched\t%d\t%s\t%s\t%s\n", b, r, m, val(pv), u
		}
	}
	function val(e,   p) {	# "A+B%C": A + (r-dependent noise B * ((r*7)%C)/C)
		if (e ~ /^>/ || e == "fail") return e
		split(e, p, /[+%]/)
		return sprintf("%.4f", p[1] + (p[2] ? p[2] * ((r * 7) % p[3]) / p[3] : 0))
	}'
}

# report TSV -> runs the report into $T/rep (md, json, svg)
report() {
	rm -rf "$T/rep"
	mkdir -p "$T/rep"
	kit_py bench-report "$1" "$T/rep" 10 > "$T/rep/out" 2>&1 || fail "bench-report failed: $(cat "$T/rep/out")"
}

# field METRIC KEY [BRANCH] -> the figure's KEY from bench.json (branch 6.12)
field() {
	/usr/bin/python3 -c 'import json, sys
f = json.load(open(sys.argv[1]))["branches"][sys.argv[4]]["figures"][sys.argv[2]]
print(f[sys.argv[3]])' "$T/rep/bench.json" "$1" "$2" "${3:-6.12}"
}

header() {
	printf 'branch\tvariant\tround\tmetric\tvalue\tunit\n'
}

test_clear_gain_is_better_with_an_interval_below_one() {
	{ header; canned scan.fast.collapse_s s 10 "10+1%5" "3+0.3%4"; } > "$T/m.tsv"
	report "$T/m.tsv"
	[ "$(field scan.fast.collapse_s verdict)" = better ] || fail "verdict $(field scan.fast.collapse_s verdict)"
	/usr/bin/python3 - "$T/rep/bench.json" <<'EOF' || fail "interval does not hold the median, or is not below 1"
import json, sys
f = json.load(open(sys.argv[1]))["branches"]["6.12"]["figures"]["scan.fast.collapse_s"]
assert f["rounds"] == 10, f
assert f["ci_lo"] <= f["ratio_median"] <= f["ci_hi"] < 1, f
assert 0.25 < f["ratio_median"] < 0.36, f
EOF
	grep -q 'collapse under contention, fast: ratio <= 0.33: \*\*met\*\*' "$T/rep/bench.md" ||
		fail "target line missing: $(grep Targets "$T/rep/bench.md")"
}

test_noise_is_no_significant_difference() {
	{ header; canned ksm.unmerge_MiBps MiB/s 10 "100+10%3" "100+10%4"; } > "$T/m.tsv"
	report "$T/m.tsv"
	[ "$(field ksm.unmerge_MiBps verdict)" = "no significant difference" ] ||
		fail "verdict $(field ksm.unmerge_MiBps verdict)"
}

test_slower_throughput_is_worse_and_misses_its_target() {
	# 6.1 carries ksm-break-ksm (58f595c66591), so the KSM target judges it
	{ header; canned ksm.unmerge_MiBps MiB/s 10 "100+5%3" "67+5%4" 6.1; } > "$T/m.tsv"
	report "$T/m.tsv"
	[ "$(field ksm.unmerge_MiBps verdict 6.1)" = worse ] || fail "verdict $(field ksm.unmerge_MiBps verdict 6.1)"
	grep -q 'KSM unmerge ratio >= 0.95: \*\*missed\*\*' "$T/rep/bench.md" || fail "KSM target not missed"
}

test_target_of_a_patch_upstream_in_the_branch_is_not_judged() {
	# 6.12 has ksm-break-ksm upstream: both kernels run the same break_ksm(), the
	# ratio is noise and the target says so instead of met / missed
	{ header; canned ksm.unmerge_MiBps MiB/s 10 "100+5%3" "67+5%4"; } > "$T/m.tsv"
	report "$T/m.tsv"
	[ "$(field ksm.unmerge_MiBps verdict)" = worse ] || fail "verdict $(field ksm.unmerge_MiBps verdict)"
	grep -q 'KSM unmerge ratio >= 0.95: \*\*not applicable: ksm-break-ksm upstream in this branch\*\* (' "$T/rep/bench.md" ||
		fail "KSM target judged on a branch without ksm-break-ksm: $(grep Targets "$T/rep/bench.md")"
}

test_censored_unpatched_gives_an_upper_bound() {
	{ header; canned scan.default.collapse_s s 10 ">300" "60+5%3"; } > "$T/m.tsv"
	report "$T/m.tsv"
	[ "$(field scan.default.collapse_s bound)" = upper ] || fail "bound $(field scan.default.collapse_s bound)"
	[ "$(field scan.default.collapse_s verdict)" = better ] || fail "verdict $(field scan.default.collapse_s verdict)"
	grep -q '≤ \*\*0.2' "$T/rep/bench.md" || fail "no upper-bound mark in bench.md"
	# an upper bound above 1 says nothing: the real ratio may be below 1
	{ header; canned scan.default.collapse_s s 10 ">100" "150+5%3"; } > "$T/m.tsv"
	report "$T/m.tsv"
	[ "$(field scan.default.collapse_s verdict)" = "undecided (censored)" ] ||
		fail "verdict with an upper bound > 1: $(field scan.default.collapse_s verdict)"
	# a censored patched time is a lower bound: above 1 it still says worse
	{ header; canned scan.default.collapse_s s 10 "60+5%3" ">300"; } > "$T/m.tsv"
	report "$T/m.tsv"
	[ "$(field scan.default.collapse_s bound)" = lower ] || fail "bound $(field scan.default.collapse_s bound)"
	[ "$(field scan.default.collapse_s verdict)" = worse ] ||
		fail "verdict with censored patched: $(field scan.default.collapse_s verdict)"
}

# a round in which both kernels hit the cap says nothing about the ratio
# (it once counted as 1.000 and gave "no significant difference"): it is
# left out; when every round is, there is no ratio and the target is
# undecided
test_both_capped_rounds_give_no_ratio() {
	{ header; canned scan.default.collapse_s s 10 ">300" ">300"; } > "$T/m.tsv"
	report "$T/m.tsv"
	[ "$(field scan.default.collapse_s rounds)" = 0 ] || fail "rounds $(field scan.default.collapse_s rounds)"
	[ "$(field scan.default.collapse_s censored_both)" = 10 ] || fail "censored_both $(field scan.default.collapse_s censored_both)"
	[ "$(field scan.default.collapse_s verdict)" = "undecided (both capped)" ] ||
		fail "verdict $(field scan.default.collapse_s verdict)"
	grep -q 'collapse under contention, default: ratio <= 0.33: \*\*undecided: both kernels at the cap\*\*' "$T/rep/bench.md" ||
		fail "target line: $(grep Targets "$T/rep/bench.md")"
	# rounds 1-4 both capped, 5-10 patched finished: six upper bounds
	{ header; canned scan.default.collapse_s s 10 ">300" "60+5%3" |
		awk -F'\t' -v OFS='\t' '$2 == "patched" && $3 <= 4 { $5 = ">300" } 1'; } > "$T/m.tsv"
	report "$T/m.tsv"
	[ "$(field scan.default.collapse_s rounds)" = 6 ] || fail "rounds $(field scan.default.collapse_s rounds)"
	[ "$(field scan.default.collapse_s bound)" = upper ] || fail "bound $(field scan.default.collapse_s bound)"
	grep -q '; 4 rounds both at the cap left out' "$T/rep/bench.md" || fail "no count of the rounds left out"
}

test_too_few_rounds_get_no_verdict() {
	{ header; canned hackbench.process-pipes-4 s 2 "10+1%5" "3+0.3%4"; } > "$T/m.tsv"
	report "$T/m.tsv"
	[ "$(field hackbench.process-pipes-4 verdict)" = "too few rounds (2)" ] ||
		fail "verdict $(field hackbench.process-pipes-4 verdict)"
}

test_outputs_parse() {
	{ header; canned scan.fast.collapse_s s 10 "10+1%5" "3+0.3%4"
	  canned ksm.unmerge_MiBps MiB/s 10 "100+10%3" "100+10%4"; } > "$T/m.tsv"
	report "$T/m.tsv"
	xmllint --noout "$T/rep/bench.svg" || fail "bench.svg is not well-formed XML"
	grep -q '^| figure | unit | unpatched | patched | ratio p/u: median \[95% CI\] | verdict |' "$T/rep/bench.md" ||
		fail "no table header in bench.md"
}

# rounds FILE -> the round numbers of branch 6.12's rows in FILE, sorted, one line
rounds_in() {
	awk -F'\t' '$1 == "6.12" && $3 ~ /^[0-9]+$/ { print $3 }' "$1" | sort -un | paste -sd' '
}

# a 6.12 run of 4 rounds: 1 and 2 finished with kernels aaa/bbb, round 3's
# patched boot did not complete, round 4 ran another patched kernel; plus
# a 6.1 round and the run rows
resume_tsv() {
	header
	for r in 1 2 3 4; do
		for v in unpatched patched; do
			sha=aaa
			[ "$v" = unpatched ] || sha=bbb
			[ "$r/$v" != 4/patched ] || sha=ccc
			ok=1
			[ "$r/$v" != 3/patched ] || ok=0
			printf '6.12\t%s\t%s\tscan.fast.collapse_s\t%s\ts\n' "$v" "$r" "$r.5"
			printf '6.12\t%s\t%s\tkernel.bzimage\t%s\tsha256\n' "$v" "$r" "$sha"
			printf '6.12\t%s\t%s\tbench.programs\twww\tsha256\n' "$v" "$r"
			printf '6.12\t%s\t%s\tboot.completed\t%s\tbool\n' "$v" "$r" "$ok"
		done
	done
	printf '6.12\t-\t-\trun.date\t2026-12-01T10:00Z\tutc\n'
	printf '6.12\t-\t-\trun.seconds\t1000\ts\n'
	printf '6.1\tpatched\t1\tboot.completed\t1\tbool\n'
}

# keep RESUME SHA_U SHA_P [SHA_PROGRAMS] -> $T/new.tsv and $T/kept from $T/m.tsv
keep() {
	: > "$T/kept"
	awk -F'\t' -f "$KIT_DIR/lib/bench-rounds.awk" -v b=6.12 -v su="$2" -v sp="$3" -v sw="${4:-www}" \
		-v resume="$1" -v kf="$T/kept" "$T/m.tsv" "$T/m.tsv" > "$T/new.tsv" ||
		fail "bench-rounds.awk failed"
}

test_resume_keeps_only_finished_rounds_of_the_same_kernels() {
	resume_tsv > "$T/m.tsv"
	keep 1 aaa bbb
	[ "$(sort -n "$T/kept" | paste -sd' ')" = "1 2" ] || fail "kept rounds: $(paste -sd' ' "$T/kept")"
	[ "$(rounds_in "$T/new.tsv")" = "1 2" ] || fail "rows of rounds $(rounds_in "$T/new.tsv") left"
	grep -q '^6\.1	' "$T/new.tsv" || fail "another branch's rows were dropped"
	grep -q '^6\.12	-	-	run\.date	' "$T/new.tsv" || fail "the earlier run's date was dropped"
	[ "$(head -n1 "$T/new.tsv")" = "$(header)" ] || fail "header lost"
	# the report adds the times of the runs and lists their dates
	printf '6.12\t-\t-\trun.date\t2026-12-02T08:00Z\tutc\n6.12\t-\t-\trun.seconds\t500\ts\n' >> "$T/new.tsv"
	report "$T/new.tsv"
	/usr/bin/python3 - "$T/rep/bench.json" <<'PY' || fail "run date/seconds of a resumed run"
import json, sys
b = json.load(open(sys.argv[1]))["branches"]["6.12"]
assert b["run_seconds"] == 1500, b["run_seconds"]
assert b["run_date"] == "2026-12-01T10:00Z, 2026-12-02T08:00Z", b["run_date"]
PY
}

test_new_kernels_or_no_resume_drop_the_branch() {
	resume_tsv > "$T/m.tsv"
	keep 1 aaa ccc		# only round 4 ran these two kernels
	[ "$(rounds_in "$T/new.tsv")" = 4 ] || fail "with kernels aaa/ccc: rounds $(rounds_in "$T/new.tsv") left"
	keep 1 xxx yyy
	[ -z "$(rounds_in "$T/new.tsv")" ] || fail "rebuilt kernels: rounds $(rounds_in "$T/new.tsv") left"
	! grep -q 'run\.' "$T/new.tsv" || fail "run rows of a run that was not resumed are left"
	keep 0 aaa bbb
	{ [ -z "$(rounds_in "$T/new.tsv")" ] && [ ! -s "$T/kept" ]; } || fail "without --resume rounds were kept"
	keep 1 aaa bbb zzz	# the same kernels, other bench programs
	[ -z "$(rounds_in "$T/new.tsv")" ] || fail "rebuilt workloads: rounds $(rounds_in "$T/new.tsv") left"
	grep -q '^6\.1	' "$T/new.tsv" || fail "another branch's rows were dropped"
}

# a branch whose benchmark kernels do not build gets no figures, and
# make bench exits 1 at the end (it once reported and exited 0).  A copy of
# the kit: fetching the tree and the benchmark build stubbed out, the boot
# failing (a module's function redefined at the end of its file).
test_bench_exits_nonzero_when_a_kernel_does_not_build() {
	local k
	k=$(kit_copy kit-bench)
	bench_stub "$k" fail
	run_kit "$k/bin/bench" --branch 6.12
	expect_rc 1 "make bench with a kernel that does not build"
	grep -q '^bench: error: no figures for 6.12: a benchmark kernel did not build' <<< "$OUT" ||
		fail "no error line naming 6.12" "$OUT"
	grep -q 'boot.completed	0' "$k/out/bench/metrics.tsv" || fail "no boot.completed 0 row" "$(cat "$k/out/bench/metrics.tsv")"
}

# bench_stub KIT MODE: in KIT, a boot_run that builds a fake kernel image
# and, for MODE 1, writes a serial log of figures where boot.sh writes it
# for the build target ($KB_TAG: -arm64 for ARCH=arm64); MODE 0 writes no
# log, MODE fail builds no kernel (an error)
bench_stub() {
	printf '\nfetch_tree() { echo /nonexistent/linux; }\n' >> "$1/lib/fetch.sh"
	cat >> "$1/lib/boot.sh" <<EOF
boot_run() {
	local out=\$REQ_OUT v=\$REQ_VARIANT b=\$REQ_BRANCH build=\$REQ_BUILD_ONLY
	[ "$2" != fail ] || { echo "boot: error: stub: no kernel" >&2; exit 1; }
	if [ \$build = 1 ]; then echo "\$v" > "$1/img-\$v"; echo "$1/img-\$v"; return 0; fi
	[ "$2" = 1 ] || return 0
	mkdir -p "\$out/boot"
	printf '# metric ksm.unmerge_MiBps 100 MiB/s\nMMBK-END\n' > "\$out/boot/\$b-\$v-bench\${KB_TAG:-}.log"
}
EOF
	printf 'all:\n\t@:\n' > "$1/guest/bench/Makefile"
}

# an arm64 run: the figures are found in the serial log named for the
# target, and the report names the target; a boot that leaves no figures
# makes bench fail (it once exited 0 with "boot.completed 0" for both)
test_bench_arm64_figures_and_target() {
	local k
	k=$(kit_copy kit-bench-arm64)
	bench_stub "$k" 1
	run_kit "$k/bin/bench" --branch 6.12 --arch arm64 --rounds 1
	expect_rc 0 "make bench ARCH=arm64 ROUNDS=1"
	[ "$(grep -c '^6.12	[a-z]*	1	boot.completed	1	bool$' "$k/out/bench/metrics.tsv")" = 2 ] ||
		fail "the two boots' figures were not found" "$OUT"
	grep -q '^6.12	-	-	run.target	arm64, GCC	text$' "$k/out/bench/metrics.tsv" ||
		fail "no run.target row" "$(cat "$k/out/bench/metrics.tsv")"
	# each boot names the series of its round: the kit copy's patched series
	[ "$(grep -cE '^6.12	[a-z]+	1	bench.series	[0-9a-f]{16}	stamp$' "$k/out/bench/metrics.tsv")" = 2 ] ||
		fail "the two boots' bench.series rows" "$(cat "$k/out/bench/metrics.tsv")"
	grep -qE '^Series: series [0-9a-f]{16} \(rounds 1\), the series the kit ships now\.$' "$k/out/bench.md" ||
		fail "the report does not name the series measured as the current one" "$(grep -A3 '^## 6.12' "$k/out/bench.md")"
	grep -q '^Run .*, arm64, GCC; boots completed: unpatched 1/1, patched 1/1' "$k/out/bench.md" ||
		fail "the report does not name the target" "$(grep '^Run ' "$k/out/bench.md")"
	k=$(kit_copy kit-bench-nolog)
	bench_stub "$k" 0
	run_kit "$k/bin/bench" --branch 6.12 --arch arm64 --rounds 1
	expect_rc 1 "make bench whose boots leave no serial log"
	grep -q '^bench: error: boots without figures: 6.12/unpatched/r1 6.12/patched/r1' <<< "$OUT" ||
		fail "no error line naming the boots" "$OUT"
}

# a checkout without out/bench starts from the committed figures
# (tables/bench-results.tsv): --report reports them without booting; with
# neither, --report fails with one line naming the fix
test_report_from_committed_figures() {
	local k
	k=$(kit_copy kit-bench-results)
	printf '\nboot_run() { echo "boot: stub: must not run" >&2; exit 1; }\n' >> "$k/lib/boot.sh"
	{
		printf 'branch\tvariant\tround\tmetric\tvalue\tunit\n'
		canned ksm.unmerge_MiBps MiB/s 10 '100+4%5' '98+4%5'
	} > "$k/tables/bench-results.tsv"
	run_kit "$k/bin/bench" --report
	expect_rc 0 "make bench REPORT=1 with committed figures"
	/usr/bin/python3 -c 'import json, sys
f = json.load(open(sys.argv[1]))["branches"]["6.12"]["figures"]["ksm.unmerge_MiBps"]
sys.exit(f["rounds"] != 10)' "$k/out/bench.json" || fail "bench.json has not 6.12's 10 rounds of KSM figures" "$OUT"
	cmp -s "$k/tables/bench-results.tsv" "$k/out/bench/metrics.tsv" || fail "out/bench/metrics.tsv is not the committed figures"
	rm -rf "$k/out" "$k/tables/bench-results.tsv"
	run_kit "$k/bin/bench" --report
	expect_one_line_error 'no figures to report: .*run make bench first'
}

# series_rows HASH [BRANCH] -> a bench.series row per boot of canned's 10
# rounds: the series the patched kernel of each round was built from
series_rows() {
	local r v
	for r in 1 2 3 4 5 6 7 8 9 10; do
		for v in unpatched patched; do
			printf '%s\t%s\t%s\tbench.series\t%s\tstamp\n' "${2:-6.12}" "$v" "$r" "$1"
		done
	done
}

# series_line [BRANCH] -> the Series line of BRANCH's section of bench.md
series_line() {
	awk -v b="## ${1:-6.12}" '$0 == b { in_b = 1; next } /^## / { in_b = 0 } in_b && /^Series: / { print; exit }' "$T/rep/bench.md"
}

# each branch's section names the series its rounds measured (the hash
# the kit's patched copies are named by, lib/worktree.sh worktree_stamp)
# and says stale when the kit now ships another one, or when the rounds
# name none (measured before make bench recorded it); bench.json says the
# same.  Shown failing before bench.series existed: no Series line.
test_report_names_the_series_and_says_stale() {
	local line
	{ header; canned ksm.unmerge_MiBps MiB/s 10 '100+4%5' '98+4%5' 6.1; series_rows 1a2b3c4d5e6f7a8b 6.1; } > "$T/m.tsv"
	rm -rf "$T/rep"; mkdir -p "$T/rep"
	run_kit kit_py bench-report --series 6.1=1a2b3c4d5e6f7a8b "$T/m.tsv" "$T/rep" 10
	expect_rc 0 "bench-report of the series the kit ships"
	line=$(series_line 6.1)
	[ "$line" = 'Series: series 1a2b3c4d5e6f7a8b (rounds 1-10), the series the kit ships now.' ] ||
		fail "the Series line of the current series: '$line'" "$(cat "$T/rep/bench.md")"
	/usr/bin/python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["branches"]["6.1"]["series"]
assert s == {"measured": {"1a2b3c4d5e6f7a8b": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]},
             "current": "1a2b3c4d5e6f7a8b", "stale": False}, s' "$T/rep/bench.json" || fail "bench.json series of a current run"
	# the kit ships another series now
	run_kit kit_py bench-report --series 6.1=ffff000011112222 "$T/m.tsv" "$T/rep" 10
	expect_rc 0 "bench-report of a series the kit no longer ships"
	line=$(series_line 6.1)
	[ "$line" = 'Series: series 1a2b3c4d5e6f7a8b (rounds 1-10); **stale**: the kit now ships series ffff000011112222 (make bench BRANCH=6.1 measures it).' ] ||
		fail "the Series line of a stale series: '$line'"
	/usr/bin/python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["branches"]["6.1"]["series"]
assert s["stale"] is True and s["current"] == "ffff000011112222", s' "$T/rep/bench.json" || fail "bench.json of a stale series"
	# rounds that name no series (the figures measured before it was recorded)
	{ header; canned ksm.unmerge_MiBps MiB/s 10 '100+4%5' '98+4%5' 6.1; } > "$T/m.tsv"
	run_kit kit_py bench-report --series 6.1=ffff000011112222 "$T/m.tsv" "$T/rep" 10
	expect_rc 0 "bench-report of rounds without a series"
	line=$(series_line 6.1)
	[ "$line" = 'Series: not recorded (rounds measured before make bench recorded their series); **stale**: the kit now ships series ffff000011112222 (make bench BRANCH=6.1 measures it).' ] ||
		fail "the Series line of rounds without a series: '$line'"
	# half the rounds of one series, half of another (a resumed run)
	{ header; canned ksm.unmerge_MiBps MiB/s 10 '100+4%5' '98+4%5' 6.1
	  series_rows aaaa 6.1 | awk -F'\t' '$3 <= 5'; series_rows bbbb 6.1 | awk -F'\t' '$3 > 5'; } > "$T/m.tsv"
	run_kit kit_py bench-report --series 6.1=bbbb "$T/m.tsv" "$T/rep" 10
	line=$(series_line 6.1)
	[ "$line" = 'Series: series aaaa (rounds 1-5), series bbbb (rounds 6-10); **stale**: the kit now ships series bbbb (make bench BRANCH=6.1 measures it).' ] ||
		fail "the Series line of rounds of two series: '$line'"
	run_kit kit_py bench-report --series 6.1 "$T/m.tsv" "$T/rep" 10
	expect_one_line_error "--series 6.1: not BRANCH=HASH"
}

# make bench REPORT=1 judges the committed figures against the series the
# kit ships now: the hash of its patched copy of the branch
# (worktree_stamp); a patch changed after the rounds makes them stale
test_report_of_committed_figures_against_the_shipped_series() {
	local k s
	k=$(kit_copy kit-bench-series)
	printf '\nboot_run() { echo "boot: stub: must not run" >&2; exit 1; }\n' >> "$k/lib/boot.sh"
	s=$(bash -c '. "$1/lib/kit.sh" && kit_use worktree && worktree_stamp 6.12 patched' _ "$k") ||
		fail "worktree_stamp of the kit copy"
	[[ $s =~ ^[0-9a-f]{16}$ ]] || fail "worktree_stamp gave '$s'"
	{ header; canned ksm.unmerge_MiBps MiB/s 10 '100+4%5' '98+4%5'; series_rows "$s"; } > "$k/tables/bench-results.tsv"
	run_kit "$k/bin/bench" --report
	expect_rc 0 "make bench REPORT=1 of the shipped series"
	grep -qxF "Series: series $s (rounds 1-10), the series the kit ships now." "$k/out/bench.md" ||
		fail "no Series line naming the shipped series $s" "$(grep -A3 '^## 6.12' "$k/out/bench.md")"
	printf ' \n' >> "$k/backports/6.12/0008-mm-khugepaged-drop-reacquire-mmap-read-lock-if-skipp.patch"
	rm -rf "$k/out"
	run_kit "$k/bin/bench" --report
	expect_rc 0 "make bench REPORT=1 after a patch changed"
	grep -q "^Series: series $s (rounds 1-10); \*\*stale\*\*: the kit now ships series [0-9a-f]\{16\} " "$k/out/bench.md" ||
		fail "rounds of the series before a patch changed are not stale" "$(grep -A3 '^## 6.12' "$k/out/bench.md")"
}

# paired_rounds_problem TSV -> prints the first problem of figures meant to be
# committed (a round without both boots completed, a measurement given twice),
# nothing when they are fine
paired_rounds_problem() {
	awk -F'\t' 'NR == 1 || $3 == "-" { next }
	{ key = $1 "\t" $2 "\t" $3 "\t" $4
	  if (seen[key]++) { print "twice: " key; bad = 1; exit }
	  rounds[$1 "\t" $3] = 1
	  if ($4 == "boot.completed" && $5 == 1) done[$1 "\t" $3 "\t" $2] = 1 }
	END { if (bad) exit
	  for (r in rounds)
		if (!done[r "\tunpatched"] || !done[r "\tpatched"]) { print "round without both boots: " r; exit } }' "$1"
}

# the committed figures (tables/bench-results.tsv, which the closing notes
# cite) hold only paired rounds whose two boots completed, each measurement
# once; the check itself reports a copy with one boot's row removed
test_committed_figures_are_paired_rounds() {
	local res=$TABLES_DIR/bench-results.tsv p
	p=$(paired_rounds_problem "$res")
	[ -z "$p" ] || fail "tables/bench-results.tsv: $p"
	awk -F'\t' '!($4 == "boot.completed" && $2 == "patched" && !cut++)' "$res" > "$T/cut.tsv"
	p=$(paired_rounds_problem "$T/cut.tsv")
	[ -n "$p" ] || fail "a round with one boot missing passed the check"
	awk -F'\t' 'NR == 1 { print; next } $3 != "-" { print; print; exit }' "$res" > "$T/twice.tsv"
	p=$(paired_rounds_problem "$T/twice.tsv")
	case $p in twice:*) ;; *) fail "a measurement given twice passed the check: '$p'" ;; esac
}

# bench.sh --save (make bench SAVE=1) puts a run's finished rounds into
# tables/bench-results.tsv in place of the branch's committed rows: round 3
# (its patched boot did not complete) stays out, rounds 1, 2 and 4 (round
# 4 here with the same kernels as 1 and 2) and the run rows go in, the
# other branches' committed rows stay; the result passes the
# committed-figures check.  Finished rounds of different kernels (round 4
# as resume_tsv has it) are refused and results.tsv is left alone; with no
# run there is nothing to save
test_save_puts_finished_rounds_into_committed_figures() {
	local k res p
	k=$(kit_copy kit-bench-save)
	res=$k/tables/bench-results.tsv
	{ header; printf '5.10\tpatched\t1\tboot.completed\t1\tbool\n5.10\tunpatched\t1\tboot.completed\t1\tbool\n'
	  printf '6.12\tpatched\t9\tboot.completed\t1\tbool\n6.12\tunpatched\t9\tboot.completed\t1\tbool\n'; } > "$res"
	mkdir -p "$k/out/bench"
	resume_tsv > "$k/out/bench/metrics.tsv"
	cp "$res" "$T/res.before"
	run_kit "$k/bin/bench" --save --rounds 4 --branch 6.12
	expect_one_line_error '6\.12: the finished rounds in .* ran different kernels \(aaa bbb www,aaa ccc www\); measure anew'
	cmp -s "$res" "$T/res.before" || fail "a refused save changed results.tsv"
	resume_tsv | sed 's/	ccc	/	bbb	/' > "$k/out/bench/metrics.tsv"
	run_kit "$k/bin/bench" --save --rounds 4 --branch 6.12
	expect_rc 0 "make bench SAVE=1 BRANCH=6.12"
	grep -q 'bench: 6.12: rounds 1 2 4 -> tables/bench-results.tsv' <<< "$OUT" || fail "rounds saved not reported" "$OUT"
	grep -q '6.12: 3 finished rounds of 4' <<< "$OUT" || fail "no warning about the missing round" "$OUT"
	[ "$(awk -F'\t' '$1 == "6.12" && $3 ~ /^[0-9]+$/ { print $3 }' "$res" | sort -nu | paste -sd' ')" = "1 2 4" ] ||
		fail "6.12 rounds in results.tsv" "$(cat "$res")"
	grep -q '^6\.12	-	-	run\.seconds	1000	' "$res" || fail "the run's time was not saved" "$(cat "$res")"
	grep -q '^5\.10	patched	1	boot\.completed	1' "$res" || fail "another branch's committed rows were lost"
	! grep -q '^6\.1	' "$res" || fail "a branch not named was saved"
	[ "$(head -n1 "$res")" = "$(header)" ] || fail "header lost"
	p=$(paired_rounds_problem "$res")
	[ -z "$p" ] || fail "saved figures fail the committed-figures check: $p"
	rm -rf "$k/out"
	run_kit "$k/bin/bench" --save
	expect_one_line_error 'nothing to save: no .*metrics.tsv; run make bench first'
}

# make bench-kit's report: a row per branch in the order of
# tables/branches.table (6.1 before 6.12 before 7.2 whatever the TSV's
# order), cells with the kbuild share and a non-zero rc, the matrix's own
# split, and the JSON with typed figures; a failed step (rc not 0) is
# status 1 naming it, after both reports are written, and a failed apply
# gives no ratio to quilt; a TSV row that is not five columns is one error
# line
test_bench_kit_report() {
	mkdir -p "$T/bk"
	{
		printf 'branch\tstep\tseconds\tkbuild_seconds\tstatus\n'
		printf '7.2\tapply\t12.3\t-\t0\n'
		printf '6.12\tcheck cold\t100\t80\t0\n'
		printf '6.12\tmatrix cold\t300.4\t100\t1\n'
		printf '6.12\tmatrix cold: tree\t3.1\t-\t0\n'
		printf '6.1\tapply\t20\t-\t0\n'
		printf '6.1\tquilt push -a\t0.8\t-\t0\n'
	} > "$T/bk/times.tsv"
	run_kit kit_py bench-kit-report "$T/bk/times.tsv" "$T/bk"
	# the failed matrix step: both reports written, status 1, named
	expect_rc 1 "bench-kit-report with a failed step"
	grep -qF 'bench-kit-report: 1 step(s) failed, their times measure nothing: 6.12 matrix cold (rc 1)' <<< "$OUT" ||
		fail "the failed step not named" "$OUT"
	[ "$(sed -n 's/^| \([0-9.]*\) | .*/\1/p' "$T/bk/bench-kit.md" | paste -sd' ')" = "6.1 6.12 7.2 6.1 6.12 7.2 6.1 6.12 7.2" ] ||
		fail "branches not in table order" "$(cat "$T/bk/bench-kit.md")"
	grep -qx '| 6.1 | 25.0x (20.0 s / 0.8 s) |' "$T/bk/bench-kit.md" || fail "apply against quilt push -a on 6.1" "$(cat "$T/bk/bench-kit.md")"
	grep -qx '| 7.2 | - |' "$T/bk/bench-kit.md" || fail "7.2 without a quilt time" "$(cat "$T/bk/bench-kit.md")"
	grep -qx '| 6.12 | - | - | 100 s (kbuild 80 s, 80%) | - | 300 s (kbuild 100 s, 33%) \[rc 1\] | - |' "$T/bk/bench-kit.md" ||
		fail "6.12's row" "$(cat "$T/bk/bench-kit.md")"
	grep -qx '| 6.12 | tree 3 s | - |' "$T/bk/bench-kit.md" || fail "the matrix's split of 6.12"
	/usr/bin/python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))["branches"]
assert b["7.2"]["apply"] == {"seconds": 12.3, "kbuild_seconds": None, "rc": 0}, b["7.2"]
assert b["6.12"]["matrix cold"]["rc"] == 1' "$T/bk/bench-kit.json" || fail "bench-kit.json"
	# a failed apply (or quilt) gives no ratio; every rc 0 is status 0
	sed -i '/matrix cold\t/d' "$T/bk/times.tsv"
	printf '6.18\tapply\t0.4\t-\t1\n6.18\tquilt push -a\t0.1\t-\t0\n' >> "$T/bk/times.tsv"
	run_kit kit_py bench-kit-report "$T/bk/times.tsv" "$T/bk"
	expect_rc 1 "bench-kit-report with a failed apply"
	grep -qx '| 6.18 | - |' "$T/bk/bench-kit.md" || fail "a ratio of a failed apply" "$(cat "$T/bk/bench-kit.md")"
	sed -i '/^6.18\t/d' "$T/bk/times.tsv"
	run_kit kit_py bench-kit-report "$T/bk/times.tsv" "$T/bk"
	expect_rc 0 "bench-kit-report, every step passed"
	printf '6.1\tapply\ttwenty\t-\t0\n' >> "$T/bk/times.tsv"
	run_kit kit_py bench-kit-report "$T/bk/times.tsv" "$T/bk"
	expect_rc 64 "bench-kit-report of a bad row"
	expect_one_line_error 'times.tsv:7: not "branch step seconds kbuild_seconds rc"'
}
