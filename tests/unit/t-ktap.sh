# SPDX-License-Identifier: GPL-2.0
# tier: fast
# KTAP and JUnit the kit writes, read by the field's own tools: every KTAP
# document (check, unit runner, guest serial logs, judged boots) parses with
# the kernel's kunit_parser with the kit's own counts; the judge holds a
# guest log against expect.table by topic; out/junit.xml validates against
# the Jenkins JUnit schema (tests/junit), and an invalid one does not.
# Canned documents: tests/ktap/ (README.md); real ones from out/ when a
# run left them.

KTAP=$KIT_DIR/scripts/ktap.py
CANNED=$KIT_DIR/tests/ktap
XSD=$KIT_DIR/tests/junit/junit-10.xsd

# own_counts FILE -> "P F S" from the document's own summary line
own_counts() {
	sed -nE 's/.*[^0-9]([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\1 \2 \3/p' "$1" | tail -n1
}

# parses_with_own_counts FILE: kunit_parser accepts FILE, and where FILE
# states its counts they are the parser's
parses_with_own_counts() {
	local own
	run_kit "$KTAP" count "$1"
	expect_rc 0 "ktap.py count ${1#"$KIT_DIR"/}"
	own=$(own_counts "$1")
	[ -z "$own" ] || [ "$OUT" = "$own" ] ||
		fail "${1#"$KIT_DIR"/}: kunit_parser counts '$OUT', the document says '$own'"
}

judge() {	# judge LOG BRANCH ARGS...: the judged KTAP of a canned or kept log
	"$KTAP" judge "$1" --branch "$2" --expect "$KIT_DIR/tests/suite/expect.table" "${@:3}"
}

test_no_kernel_tree_is_one_line_error() {
	run_kit env MMBK_CACHE=$T/no-cache "$KTAP" count "$CANNED/check-6.12.ktap"
	expect_one_line_error "no cached kernel tree .* has tools/testing/kunit/kunit_parser.py; run 'make tree BRANCH=7.2'"
}

test_canned_documents_parse() {
	need_kunit_parser
	local f
	for f in "$CANNED"/check-*.ktap "$CANNED"/boot-*.log; do
		parses_with_own_counts "$f"
	done
	[ "$("$KTAP" count --prefix 'sparse ' "$CANNED/check-6.12.ktap")" = "1 1 1" ] ||
		fail "count --prefix 'sparse ' of check-6.12.ktap is not 1 1 1"
}

# the guest output before this kit's fix: "# Subtest:" before the child's
# "KTAP version 1", an extra version line before the module's document
test_old_guest_format_is_rejected() {
	need_kunit_parser
	run_kit "$KTAP" count "$CANNED/guest-old-format.log"
	expect_rc 1 "ktap.py count of the old guest format"
	grep -qE 'Expected test number 1 but found 2|missing subtest result line' <<< "$OUT" ||
		fail "the parser's complaint is not named" "$OUT"
}

test_crashed_guest_is_broken() {
	need_kunit_parser
	run_kit "$KTAP" count "$CANNED/guest-crash.log"
	expect_rc 1 "ktap.py count of a guest that panicked mid-way"
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
	run_kit judge "$log" 6.12 --variant unpatched --title "boot 6.12 unpatched"
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

# what the kit wrote in out/ (a matrix, boot or test run), where present
test_kit_outputs_parse() {
	need_kunit_parser
	local f n=0
	for f in "$OUT_DIR"/ktap/*.ktap "$OUT_DIR"/boot/*.ktap "$OUT_DIR"/test/unit.ktap; do
		[ -f "$f" ] || continue
		parses_with_own_counts "$f"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || { echo "# no KTAP output of the kit in $OUT_DIR yet (make matrix / make boot)"; exit 4; }
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

# junit SUITE=FILE... -> $T/junit.xml
junit() {
	"$KTAP" junit -o "$T/junit.xml" "$@"
}

test_junit_validates_and_says_why() {
	need_kunit_parser
	local judged=$T/boot-unpatched.ktap
	judge "$CANNED/boot-6.12-unpatched.log" 6.12 --variant unpatched > "$judged"
	run_kit junit 6.12.check="$CANNED/check-6.12.ktap" 6.12.boot-unpatched="$judged" \
		6.12.crash="$CANNED/guest-crash.log"
	expect_rc 0 "ktap.py junit"
	run_kit xmllint --noout --schema "$XSD" "$T/junit.xml"
	expect_rc 0 "xmllint --schema junit-10.xsd"
	/usr/bin/python3 - "$T/junit.xml" <<'PY' || fail "junit.xml content"
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
bad = []
suites = {s.get('name'): s for s in root.findall('testsuite')}
for s in suites.values():
    cases = s.findall('testcase')
    for attr, tag in (('failures', 'failure'), ('errors', 'error'), ('skipped', 'skipped')):
        if int(s.get(attr)) != sum(1 for c in cases if c.find(tag) is not None):
            bad.append(f'{s.get("name")}: {attr}={s.get(attr)} does not count its <{tag}>')
    if int(s.get('tests')) != len(cases):
        bad.append(f'{s.get("name")}: tests={s.get("tests")} for {len(cases)} testcases')
check = {c.get('name'): c for c in suites['6.12.check'].findall('testcase')}
f = check['sparse mm/khugepaged.o'].find('failure')
if f is None or f.get('message') != '1 new sparse warning(s) in mm/khugepaged.o':
    bad.append('sparse failure message is not the diagnostic before the result line')
if check['checkpatch 0002-mm-enable-khugepaged-anonymous-collapse-on-non-writa.patch'].get('classname') != '6.12.check':
    bad.append('classname of a check case is not the suite')
boot = suites['6.12.boot-unpatched'].findall('testcase')
xf = [c for c in boot if c.get('name') == 'written_ro']
if not xf or xf[0].get('classname') != '6.12.boot-unpatched.ro_collapse':
    bad.append('written_ro has not the classname suite.program')
elif xf[0].find('skipped') is None or not xf[0].find('skipped').get('message', '').startswith('XFAIL fails without khugepaged-ro-collapse'):
    bad.append('the expected failure is not a <skipped> with the XFAIL reason')
if any('6.12' in (c.get('classname') or '').split('.', 2)[2:] for c in root.iter('testcase')):
    bad.append('a classname repeats the branch')
if not any(c.find('error') is not None for c in suites['6.12.crash'].findall('testcase')):
    bad.append('the crashed guest has no <error>')
print('\n'.join(f'# {b}' for b in bad))
sys.exit(1 if bad else 0)
PY
}

test_junit_invalid_is_rejected() {
	need_kunit_parser
	run_kit junit 6.12.check="$CANNED/check-6.12.ktap"
	expect_rc 0 "ktap.py junit"
	sed 's/<testsuite name="6.12.check" tests="[0-9]*"/<testsuite name="6.12.check"/' "$T/junit.xml" > "$T/bad.xml"
	cmp -s "$T/junit.xml" "$T/bad.xml" && fail "the edit did not drop tests="
	run_kit xmllint --noout --schema "$XSD" "$T/bad.xml"
	expect_rc 3 "xmllint of a <testsuite> without tests="
	grep -q "attribute 'tests' is required" <<< "$OUT" || fail "xmllint did not name tests=" "$OUT"
}

# a tree without kunit_junit.py (6.18): Debian's python3-junit.xml writes it
test_junit_without_kunit_junit() {
	need_kunit_parser
	local k
	k=$(pristine_dir 6.18)/tools/testing/kunit
	[ -f "$k/kunit_parser.py" ] || { echo "# no cached 6.18 tree"; exit 4; }
	[ ! -f "$k/kunit_junit.py" ] || fail "6.18 has kunit_junit.py; pick a tree without it"
	run_kit "$KTAP" --kunit-dir "$k" junit -o "$T/junit-xml.xml" 6.12.check="$CANNED/check-6.12.ktap"
	expect_rc 0 "ktap.py junit with 6.18's kunit_parser and python3-junit.xml"
	run_kit xmllint --noout --schema "$XSD" "$T/junit-xml.xml"
	expect_rc 0 "xmllint of the python3-junit.xml output"
	grep -q 'message="1 new sparse warning(s) in mm/khugepaged.o"' "$T/junit-xml.xml" ||
		fail "no failure message in the python3-junit.xml output"
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
	run_kit "$KTAP" metrics "$CANNED/boot-6.12-patched.log"
	expect_rc 0 "ktap.py metrics"
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
	for f in "$KIT_DIR"/tests/suite/*.c "$KIT_DIR"/tests/bench/*.c; do
		if grep -qE "ktap_result\([^,]*, *\"$(basename "$f" .c)\"" "$f"; then
			bad="$bad ${f#"$KIT_DIR"/}"
		fi
	done
	[ -z "$bad" ] || fail "a KTAP case named after its own program (kunit_parser reads it as the program's result):$bad"
}
