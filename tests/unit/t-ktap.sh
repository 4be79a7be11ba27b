# SPDX-License-Identifier: GPL-2.0
# tier: fast
# KTAP the kit reads and writes, read by the field's own tool: every KTAP
# document (check, unit runner, guest serial logs, judged boots) parses
# with the kernel's kunit_parser with the kit's own counts (mmbk ktap
# count); the judge holds a guest log against tables/boot-expect.table by
# topic and gives its results as records.  The writers of records (KTAP,
# JUnit, JSON, Markdown) are tested in t-results.sh.
# Canned documents: tests/ktap/ (README.md); real ones from out/ when a
# run left them (make test runs kit_outputs_parse once more as its last
# step, on the outputs of that run).

CANNED=$KIT_DIR/tests/ktap

ktap() {	# ktap CMD ARGS...: mmbk ktap with the kernel's kunit dir
	kit_py ktap "$1" --kunit-dir "$KUNIT_DIR" "${@:2}"
}

# own_counts FILE -> "P F S" from the document's own summary line
own_counts() {
	sed -nE 's/.*[^0-9]([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\1 \2 \3/p' "$1" | tail -n1
}

# parses_with_own_counts FILE: kunit_parser accepts FILE, and where FILE
# states its counts they are the parser's
parses_with_own_counts() {
	local own
	run_kit ktap count "$1"
	expect_rc 0 "ktap count ${1#"$KIT_DIR"/}"
	own=$(own_counts "$1")
	[ -z "$own" ] || [ "$OUT" = "$own" ] ||
		fail "${1#"$KIT_DIR"/}: kunit_parser counts '$OUT', the document says '$own'"
}

judge() {	# judge LOG BRANCH ARGS...: the judged KTAP of a canned or kept log
	ktap judge "$1" --branch "$2" --expect "$TABLES_DIR/boot-expect.table" "${@:3}"
}

# the kernel's parser is found by the shell (kunit_dir, the one place that
# knows the cache); without a cached tree that has it: one line naming the
# fix.  The Python side takes the directory it is given, and a directory
# without the parser is one line too.
test_no_kernel_tree_is_one_line_error() {
	# shellcheck disable=SC2016  # expanded by the inner bash
	run_kit env MMBK_CACHE="$T/no-cache" bash -c '. "$KIT_DIR/tests/unit/lib.sh"; kunit_dir'
	expect_one_line_error "no cached kernel tree .* has tools/testing/kunit/kunit_parser.py.*; run 'make tree BRANCH=7.2'"
	mkdir -p "$T/no-kunit"
	run_kit kit_py ktap count --kunit-dir "$T/no-kunit" "$CANNED/check-6.12.ktap"
	expect_rc 64 "ktap count with a --kunit-dir without the parser"
	expect_one_line_error "^ktap: error: .*/no-kunit has no kunit_parser.py and kunit_printer.py; point --kunit-dir at"
	run_kit kit_py ktap count "$CANNED/check-6.12.ktap"
	expect_rc 64 "ktap count without --kunit-dir"
	expect_one_line_error "^ktap: error: the following arguments are required: --kunit-dir; usage: ktap count"
}

test_canned_documents_parse() {
	need_kunit_parser
	local f
	for f in "$CANNED"/check-*.ktap "$CANNED"/boot-*.log; do
		parses_with_own_counts "$f"
	done
	[ "$(ktap count --prefix 'sparse ' "$CANNED/check-6.12.ktap")" = "1 1 1" ] ||
		fail "count --prefix 'sparse ' of check-6.12.ktap is not 1 1 1"
}

# the guest output before this kit's fix: "# Subtest:" before the child's
# "KTAP version 1", an extra version line before the module's document
test_old_guest_format_is_rejected() {
	need_kunit_parser
	run_kit ktap count "$CANNED/guest-old-format.log"
	expect_rc 1 "ktap count of the old guest format"
	grep -qE 'Expected test number 1 but found 2|missing subtest result line' <<< "$OUT" ||
		fail "the parser's complaint is not named" "$OUT"
}

test_crashed_guest_is_broken() {
	need_kunit_parser
	run_kit ktap count "$CANNED/guest-crash.log"
	expect_rc 1 "ktap count of a guest that panicked mid-way"
	run_kit judge "$CANNED/guest-crash.log" 6.12 --variant patched
	expect_rc 1 "judge of a guest that panicked mid-way"
	grep -qx 'not ok 5 guest_completed' <<< "$OUT" || fail "guest_completed is not failed" "$OUT"
	grep -qx 'not ok 4 kernel_log_clean' <<< "$OUT" || fail "the oops is not reported" "$OUT"
	grep -q '^    # ksm_unmerge: case 3 not reported' <<< "$OUT" || fail "the missing case is not named" "$OUT"
}

test_splat_fails_a_complete_run() {
	need_kunit_parser
	run_kit judge "$CANNED/guest-splat.log" 6.12 --variant patched
	expect_rc 1 "judge of a complete run with a WARNING in the kernel log"
	grep -qx 'not ok 2 kernel_log_clean' <<< "$OUT" || fail "kernel_log_clean not failed" "$OUT"
	grep -q '^# \[ *[0-9.]*\] WARNING: CPU: 0 PID: 31 at mm/khugepaged.c' <<< "$OUT" ||
		fail "the WARNING is not quoted before the result" "$OUT"
}

# the unpatched baseline: the expected failures are XFAIL, and the same log
# judged as a patched kernel fails; a topic subset uses each column
test_judge_by_topic() {
	need_kunit_parser
	local log=$CANNED/boot-6.12-unpatched.log v
	[ -f "$log" ] || fail "no $log"
	run_kit judge "$log" 6.12 --variant unpatched --title boot-unpatched
	expect_rc 0 "judge of the unpatched 6.12 log as unpatched"
	grep -q '^    ok [0-9]* written_ro # XFAIL fails without khugepaged-ro-collapse' <<< "$OUT" ||
		fail "ro_collapse.written_ro is not an XFAIL" "$OUT"
	grep -q '^    ok [0-9]* down_read_nosteal_waits_for_queued_writer # XFAIL fails without khugepaged-mmap-lock' <<< "$OUT" ||
		fail "the nosteal case is not an XFAIL" "$OUT"
	run_kit judge "$log" 6.12 --variant patched
	expect_rc 1 "judge of the unpatched 6.12 log as patched"
	grep -q '# ro_collapse.written_ro: got fail, expected pass (with khugepaged-ro-collapse' <<< "$OUT" ||
		fail "the mismatch is not explained" "$OUT"
	# only the mmap-lock topic present: the nosteal cases mismatch, the
	# RO-collapse cases are still expected to fail
	run_kit judge "$log" 6.12 --topics khugepaged-mmap-lock
	expect_rc 1 "judge with --topics khugepaged-mmap-lock"
	grep -q 'nosteal_test.down_read_nosteal_waits_for_queued_writer: got fail, expected pass' <<< "$OUT" ||
		fail "nosteal case not judged with the mmap-lock topic" "$OUT"
	grep -q 'written_ro # XFAIL fails without khugepaged-ro-collapse' <<< "$OUT" ||
		fail "RO-collapse case not judged without its topic" "$OUT"
	for v in without-khugepaged-ro-collapse without-khugepaged-mmap-lock; do
		run_kit judge "$log" 6.12 --variant "$v"
		expect_rc 1 "judge of the unpatched log as $v"
	done
	run_kit judge "$log" 6.12 --variant without-nothing
	expect_one_line_error "unknown variant 'without-nothing'"
}

test_patched_log_passes() {
	need_kunit_parser
	run_kit judge "$CANNED/boot-6.12-patched.log" 6.12 --variant patched
	expect_rc 0 "judge of the patched 6.12 log"
	run_kit judge "$CANNED/boot-6.12-patched.log" 6.12 --variant unpatched
	expect_rc 1 "judge of the patched 6.12 log as unpatched (unexpected passes)"
	grep -q 'UNEXPECTED PASS' <<< "$OUT" || fail "no unexpected pass named" "$OUT"
}

# a PREEMPT_RT boot (make boot BRANCH=6.12 RT=1): the THP cases skip, which
# only the *-rt rows of expect.table (judge --profile rt) expect; a non-RT
# log judged as RT fails the other way round
test_rt_log_judged_with_rt_rows() {
	need_kunit_parser
	run_kit judge "$CANNED/boot-6.12-patched-rt.log" 6.12 --variant patched --profile rt
	expect_rc 0 "judge of the 6.12 RT log with --profile rt"
	run_kit judge "$CANNED/boot-6.12-patched-rt.log" 6.12 --variant patched
	expect_rc 1 "judge of the 6.12 RT log as a test-profile kernel"
	grep -q '# ro_collapse.written_ro: got skip, expected pass' <<< "$OUT" ||
		fail "the skipped THP case is not named" "$OUT"
	run_kit judge "$CANNED/boot-6.12-patched.log" 6.12 --variant patched --profile rt
	expect_rc 1 "judge of the non-RT 6.12 log with --profile rt"
}

# every judged document parses, with the counts its summary line states
test_judged_documents_parse() {
	need_kunit_parser
	local f v
	for f in "$CANNED"/boot-*.log "$CANNED"/guest-*.log; do
		for v in patched unpatched; do
			judge "$f" 6.12 --variant "$v" > "$T/judged.ktap" || true
			parses_with_own_counts "$T/judged.ktap"
		done
	done
}

# what the kit wrote in out/ (a matrix, boot or test run), where present:
# make test's last step (test.sh "outputs")
test_kit_outputs_parse() {
	need_kunit_parser
	local f n=0
	for f in "$OUT_DIR"/ktap/*.ktap "$OUT_DIR"/boot/*.ktap "$OUT_DIR"/test/unit.ktap; do
		[ -f "$f" ] || continue
		parses_with_own_counts "$f"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || skip "no KTAP output of the kit in $OUT_DIR yet (make matrix / make boot)"
}

# the unit runner's own output, with a failing case (its reasons come
# before the "not ok" line): a kit cache without trees makes one fail
test_unit_runner_output_parses() {
	need_kunit_parser
	local out
	out=$(MMBK_CACHE=$T/empty-cache "$KIT_DIR/tests/unit/run.sh" kmod.k 2>/dev/null) || true
	printf '%s\n' "$out" > "$T/unit.ktap"
	grep -q '^not ok ' "$T/unit.ktap" || fail "no failing case in the runner output" "$out"
	grep -q '^ok ' "$T/unit.ktap" || fail "no passing case in the runner output" "$out"
	parses_with_own_counts "$T/unit.ktap"
	grep -B1 '^not ok ' "$T/unit.ktap" | sed -n 1p | grep -q '^# ' || fail "no reason directly before the not ok line" "$out"
}

# --no-expect (benchmarks): results as they are, exit 0
test_judge_no_expect_reports() {
	need_kunit_parser
	run_kit judge "$CANNED/boot-6.12-unpatched.log" 6.12 --no-expect
	expect_rc 0 "judge --no-expect of the unpatched log"
	grep -qx '    not ok 2 written_ro' <<< "$OUT" || fail "a failure is not reported as it is" "$OUT"
}

# the figures the tests print, per test, from the guest's own log
test_metrics_from_guest_log() {
	need_kunit_parser
	run_kit ktap metrics "$CANNED/boot-6.12-patched.log"
	expect_rc 0 "ktap metrics"
	grep -qxP 'collapse_contention\.collapse_under_contention\tcollapse_seconds\t2\.98\t' <<< "$OUT" ||
		fail "collapse_seconds of collapse_contention not found" "$OUT"
}

# a bench boot is judged with --no-expect: every program and case is found
# (bench-old-case-names.log: a program's case named after the program is
# taken by kunit_parser for the program's result line, and the judged
# document loses programs)
test_bench_log_judged_whole() {
	need_kunit_parser
	local p
	run_kit judge "$CANNED/bench-6.12-patched.log" 6.12 --variant patched --no-expect --profile bench
	expect_rc 0 "judge of a bench boot"
	for p in hackbench ksm_unmerge_bench maps_consistency ro_collapse_bench scan_contention_bench guest_completed; do
		grep -qE "^ok [0-9]+ $p$" <<< "$OUT" || fail "$p is not ok in the judged bench boot" "$OUT"
	done
	! grep -qE '^ *not ok|missing_|kunit_parser' <<< "$OUT" || fail "the judged bench boot has failures" "$OUT"
	run_kit judge "$CANNED/bench-old-case-names.log" 6.12 --variant unpatched --no-expect --profile bench
	grep -qx 'not ok 7 guest_completed' <<< "$OUT" || fail "the misread old bench log is not shown broken" "$OUT"
}

# ... and no suite or bench program names one of its cases after itself
# (the sources, so that a new program cannot bring the fault back)
test_no_case_named_after_its_program() {
	local f bad=''
	for f in "$KIT_DIR"/guest/suite/*.c "$KIT_DIR"/guest/bench/*.c; do
		if grep -qE "ktap_result\([^,]*, *\"$(basename "$f" .c)\"" "$f"; then
			bad="$bad ${f#"$KIT_DIR"/}"
		fi
	done
	[ -z "$bad" ] || fail "a KTAP case named after its own program (kunit_parser reads it as the program's result):$bad"
}

# the judge's results are records (--records), and its KTAP is the one
# KTAP writer's (mmbk results ktap) of those records, with the judge's
# summary line after it; the expected failures are xfail records of their
# topic
test_judge_records_are_its_ktap() {
	need_kunit_parser
	local title
	judge "$CANNED/boot-6.12-unpatched.log" 6.12 --variant unpatched --title boot-unpatched \
		--records "$T/judged.tsv" > "$T/judged.ktap"
	grep -qP '^case\tboot-unpatched\t6\.12\tro_collapse/written_ro\txfail\tkhugepaged-ro-collapse\t-\t' "$T/judged.tsv" ||
		fail "no xfail record of ro_collapse/written_ro" "$(cat "$T/judged.tsv")"
	title=$(sed -n '2s/^# //p' "$T/judged.ktap")
	run_kit kit_py results ktap "$T/judged.tsv" --title "$title"
	expect_rc 0 "results ktap of the judged records"
	[ "$OUT" = "$(sed '$d' "$T/judged.ktap")" ] ||
		fail "the judged KTAP is not the KTAP writer's of its records" "$(diff <(printf '%s\n' "$OUT") "$T/judged.ktap")"
	[ "$(kit_py results count "$T/judged.tsv")" = "$(ktap count "$T/judged.ktap")" ] ||
		fail "results count of the records differs from kunit_parser's count of the judged KTAP"
}

# a kernel has the topics its branch has upstream: on 6.18 (RO collapse
# upstream) the * rows of boot-expect.table expect the RO-collapse cases to
# pass on every kernel, so the unpatched 6.12 log fails there; a new branch
# (a row in a copy of the kit's tables and its series, no row in
# boot-expect.table) gets the * rows' expectations
test_expectations_follow_the_branch_series() {
	need_kunit_parser
	local k
	run_kit judge "$CANNED/boot-6.12-unpatched.log" 6.18 --variant unpatched
	expect_rc 1 "the unpatched 6.12 log judged as 6.18's unpatched kernel"
	expect_out '# ro_collapse.written_ro: got fail, expected pass \(with khugepaged-ro-collapse, expect.table row \*\)' \
		"the upstream topic is not taken as present"
	expect_out 'topics: none \(upstream: khugepaged-ro-collapse,ksm-break-ksm\)' "the upstream topics are not named"
	k=$(kit_copy kit-new-branch)
	printf '9.9 deb sid:linux-source-9.9 - - - yes lts\n' >> "$k/tables/branches.table"
	mkdir -p "$k/backports/9.9"
	cp "$k/backports/6.12/series" "$k/backports/9.9/series"
	! grep -q '9\.9' "$k/tables/boot-expect.table" || fail "test setup: boot-expect.table names 9.9"
	export MMBK_DATA=$k
	run_kit ktap judge "$CANNED/boot-6.12-unpatched.log" --branch 9.9 --expect "$k/tables/boot-expect.table" --variant unpatched
	expect_rc 0 "the unpatched 6.12 log judged as the unpatched kernel of a new branch 9.9"
	expect_out 'written_ro # XFAIL fails without khugepaged-ro-collapse, expect.table row \*' "no * row expectation on 9.9"
	run_kit ktap judge "$CANNED/boot-6.12-unpatched.log" --branch 9.8 --expect "$k/tables/boot-expect.table" --variant unpatched
	expect_one_line_error "^ktap: error: no .*/backports/9.8/series; pass --branch a branch"
}
