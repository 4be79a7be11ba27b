# SPDX-License-Identifier: GPL-2.0
# tier: fast
# make test cannot lose a result: in a copy of the kit whose trees, unit
# suite and matrix steps are stubs (no kernel tree, no build), a matrix
# killed between branches and a writer that fails each make bin/test (what
# make test runs) exit non-zero with the missing step or the failed writer
# named, and the last line counts them as failures.

# stub_kit NAME -> a kit copy whose make test runs in seconds: no
# dependencies or trees to fetch, a unit suite of passing stubs, and
# matrix steps that write one passing record each.  The environment
# variable STUB_KILL=BRANCH makes the matrix kill itself (SIGKILL) when
# it reaches BRANCH.
stub_kit() {
	local k
	k=$(kit_copy "$1")
	rm -f "$k"/tests/unit/t-*.sh
	printf '# tier: fast\ntest_stub_passes() {\n\t[ 1 -eq 1 ]\n}\n' > "$k/tests/unit/t-stub.sh"
	# the test make test runs on its own outputs last (t-ktap's needs the
	# kernel's KTAP parser and real outputs); STUB_OUTPUTS_FAIL=1 makes it
	# fail in that step only (out/test/outputs.ktap is that step's)
	# shellcheck disable=SC2016  # the stub's own text
	printf '# tier: tree\ntest_kit_outputs_parse() {\n\t[ -z "${STUB_OUTPUTS_FAIL:-}" ] || [ ! -f "$OUT_DIR/test/outputs.ktap" ]\n}\n' \
		> "$k/tests/unit/t-ktap.sh"
	cat >> "$k/lib/test.sh" <<-'STUB'
	deps_run() { :; }
	need_cache() { :; }
	fetch_tree() { :; }
	sparse_path() { :; }
	STUB
	cat >> "$k/lib/matrix.sh" <<-'STUB'
	need_cache() { :; }
	kernel_version() { echo 9.9.9; }
	pristine_dir() { echo "$OUT_DIR/stub-tree"; }
	kunit_dir() { [ -n "${STUB_KUNIT:-}" ] || die "no kunit parser"; echo "$STUB_KUNIT"; }
	matrix_tag() { :; }
	matrix_fetch() ( : )
	matrix_apply() (
		request_hand_back "$OUT_DIR/status/$1-stub-apply.tsv"
		result "$OUT_DIR/status/$1-stub-apply.tsv" case apply "$1" stub pass
		echo "$OUT_DIR/stub-tree" > "$OUT_DIR/status/$1.tree"
	)
	matrix_check() (
		mkdir -p "$OUT_DIR/check/$1"
		request_hand_back "$OUT_DIR/check/$1/results.tsv"
		result "$OUT_DIR/check/$1/results.tsv" case check "$1" stub pass
	)
	eval "$(declare -f matrix_branch | sed '1s/^matrix_branch/matrix_branch_real/')"
	matrix_branch() {
		[ "$1" != "${STUB_KILL:-}" ] || kill -KILL "$BASHPID"
		matrix_branch_real "$@"
	}
	STUB
	printf '%s\n' "$k"
}

# stub_test KIT -> make test (bin/test --no-boot) of KIT: its output in
# $OUT, its status in $RC
stub_test() {
	run_kit env MMBK_CACHE="$T/test-cache" "$1/bin/test" --no-boot
}

# the control: the stubbed run passes, so that the failures below are the
# kill's and the writer's (the JUnit writer needs the kernel's parser)
test_stubbed_make_test_passes() {
	local k
	need_kunit_parser
	k=$(stub_kit kit-test-ok)
	STUB_KUNIT=$KUNIT_DIR stub_test "$k"
	expect_rc 0 "make test of the stubbed kit"
	grep -qE '^[1-9][0-9]* passed, 0 failed, 0 skipped$' <<< "$(tail -n1 <<< "$OUT")" ||
		fail "the stubbed run does not pass" "$OUT"
	expect_out "matrix: ${SUPPORTED_BRANCHES##* } check: 1 passed" "the matrix ran to its last branch"
}

test_matrix_killed_between_branches_fails() {
	local k
	k=$(stub_kit kit-test-kill)
	STUB_KILL=6.1 stub_test "$k"
	[ "$RC" -ne 0 ] || fail "make test exit 0 after the matrix was killed at 6.1" "$OUT"
	[ "$RC" -ne "$EXIT_REFUSED" ] || fail "make test refused instead of failing" "$OUT"
	expect_out 'missing: 6\.1 tree\b' "the first step that never ran is named"
	expect_out 'missing: 7\.2 check\b' "the last branch's steps are named"
	expect_out 'matrix.*(status|exit(ed)?) 137' "the matrix's own status is reported"
	expect_out '^[0-9]+ passed, [1-9][0-9]* failed, [0-9]+ skipped$' "the last line counts the failure"
}

test_failing_writer_fails() {
	local k n=1
	k=$(stub_kit kit-test-writer)
	# the JSON writer breaks after the records are complete
	sed -i 's/^        atomic_write(args.output, json.dumps(/        raise Error("stub: the JSON writer breaks", "none")\n&/' "$k/mmbk/results.py"
	grep -q 'stub: the JSON writer breaks' "$k/mmbk/results.py" || fail "test setup: the JSON writer was not broken"
	stub_test "$k"
	[ "$RC" -ne 0 ] || fail "make test exit 0 with a failed JSON writer" "$OUT"
	expect_out 'out/results\.json not written' "the failed writer is named"
	expect_out "^[0-9]+ passed, $n failed, 0 skipped\$" "the last line counts the failed writer(s) ($n)"
}

# a failing unit test is one failure in the last line, not two (the fast
# step's own exit status is not a second, "crashed" failure)
test_failing_unit_test_counted_once() {
	local k
	k=$(stub_kit kit-test-onefail)
	printf 'test_stub_fails() {\n\tfalse\n}\n' >> "$k/tests/unit/t-stub.sh"
	run_kit env MMBK_CACHE="$T/test-cache" "$k/bin/test" --fast
	expect_rc 1 "make test-fast with one failing unit test"
	[ "$(tail -n1 <<< "$OUT")" = "1 passed, 1 failed, 0 skipped" ] ||
		fail "one failing unit test is not counted once" "$OUT"
}

# the last step, the run's own KTAP read by the kernel's parser: its
# failure is a failure of make test (exit 1, counted in the last line)
test_failing_outputs_check_fails() {
	local k
	need_kunit_parser
	k=$(stub_kit kit-test-outputs)
	run_kit env MMBK_CACHE="$T/test-cache" STUB_OUTPUTS_FAIL=1 STUB_KUNIT="$KUNIT_DIR" "$k/bin/test" --no-boot
	expect_rc 1 "make test whose outputs check fails"
	expect_out '^\[[0-9:]+\] test: outputs: [0-9]+ passed, 1 failed' "the outputs step's failure on the console"
	expect_out '^[0-9]+ passed, 1 failed, 0 skipped$' "the last line counts it"
}

# a step's records are where its entry point says they are: the matrix
# reads the file a step hands back (request.sh request_hand_back), not a
# path of its own making; a check step that writes its failing record to
# a place of its own choosing is one failure of make test, named by the
# matrix's progress line, and a step that hands back nothing is an error
test_matrix_reads_the_records_a_step_hands_back() {
	local k
	k=$(stub_kit kit-test-handback)
	cat >> "$k/lib/matrix.sh" <<-'STUB'
	matrix_check() (
		mkdir -p "$OUT_DIR/somewhere-else"
		request_hand_back "$OUT_DIR/somewhere-else/$1.tsv"
		: > "$OUT_DIR/somewhere-else/$1.tsv"
		[ "$1/$3" != 6.1/ ] || result "$OUT_DIR/somewhere-else/$1.tsv" case check "$1" stub fail - - "why it failed"
		[ "$1/$3" = 6.1/ ] || result "$OUT_DIR/somewhere-else/$1.tsv" case check "$1" stub pass
	)
	STUB
	stub_test "$k"
	expect_rc 1 "make test with a failing check on 6.1"
	expect_out '^\[[0-9:]+\] matrix: 6\.1 check: 0 passed, 1 failed, 0 skipped' "the handed-back failure is 6.1's check"
	expect_out '^[0-9]+ passed, 1 failed, 0 skipped$' "the last line counts it once"
	grep -q '^- 6\.1 check: stub: why it failed$' "$k/out/matrix.md" || fail "the failure is not in out/matrix.md" "$(cat "$k/out/matrix.md")"
	# the check writes its records but hands back nothing: no record is
	# taken from where it wrote, and each check step is an error
	# shellcheck disable=SC2016  # the stub's own text
	sed -i 's|^request_hand_back "$OUT_DIR/somewhere-else/$1.tsv"$|:|' "$k/lib/matrix.sh"
	# shellcheck disable=SC2016  # the stub's own text
	! grep -qF 'request_hand_back "$OUT_DIR/somewhere-else' "$k/lib/matrix.sh" || fail "test setup: the hand-back was not removed"
	stub_test "$k"
	[ "$RC" -ne 0 ] || fail "make test exit 0 with check steps that hand back nothing" "$OUT"
	expect_out '^\[[0-9:]+\] matrix: 6\.1 check: 0 passed, 1 failed, 0 skipped' "a step that hands back nothing is one failure"
	expect_out 'check ended without handing back its records' "the step that handed back nothing is named"
}

# the matrix's reports read its plan: in the stubbed kit whose check step
# of 6.1 is skipped (it leaves no record), out/matrix.md has the check
# row with its build target and variant, "not run" in 6.1's column and a
# line of the failure; out/junit.xml validates, with an <error> of it and
# the step's kind, target and variant as properties; out/results.json's
# plan says 6.1's check was not run; make test counts it once
test_matrix_reports_every_planned_step() {
	local k md
	k=$(stub_kit kit-test-plan)
	cat >> "$k/lib/matrix.sh" <<-'STUB'
	eval "$(declare -f matrix_step | sed '1s/^matrix_step/matrix_step_real/')"
	matrix_step() {
		[ "$1/$2" != 6.1/check ] || return 0
		matrix_step_real "$@"
	}
	STUB
	stub_test "$k"
	expect_rc 1 "make test with 6.1's planned check skipped"
	expect_out '^[0-9]+ passed, 1 failed, 0 skipped$' "the last line counts the step that left no record once"
	md=$(cat "$k/out/matrix.md")
	grep -qE '^\| \*\*check\*\* \*default, patched\* \| (1 passed, 0 failed, 0 skipped \| )*not run \|' <<< "$md" ||
		fail "out/matrix.md has no check row with its target and variant and 6.1 not run" "$md"
	grep -qxF -- '- 6.1 check: check: the step check of 6.1 left no record: it did not run, or the run that should have run it broke off, or its records were lost' <<< "$md" ||
		fail "out/matrix.md does not list 6.1's check as failed" "$md"
	run_kit xmllint --noout --schema "$KIT_DIR/tests/junit/junit-10.xsd" "$k/out/junit.xml"
	expect_rc 0 "xmllint --schema of the stubbed matrix's junit.xml"
	/usr/bin/python3 - "$k/out/junit.xml" "$k/out/results.json" <<'PY' || fail "the matrix's JUnit or JSON" "$(cat "$k/out/junit.xml")"
import json, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
err = [c for c in root.iter('testcase') if c.find('error') is not None]
assert [c.get('name') for c in err] == ['check'], [c.get('name') for c in err]
suites = {s.get('name'): s for s in root.findall('testsuite')}
props = {p.get('name'): p.get('value') for p in suites['6.12-check'].findall('properties/property')}
assert props == {'kind': 'check', 'target': 'default', 'variant': 'patched'}, props
assert '6.12-tree' in suites, list(suites)
plan = {(p['branch'], p['step']): p['outcome'] for p in json.load(open(sys.argv[2]))['plan']}
assert plan[('6.1', 'check')] == 'not run', plan
assert plan[('6.12', 'check')] == 'passed', plan
PY
}

# make test counts the matrix's records where the matrix says they are
# (the list matrix_run hands back), not by a path of its own making: a
# record file the stubbed matrix lists outside out/results is counted, and
# a record file in out/results it does not list is not
test_make_test_counts_what_the_matrix_hands_back() {
	local k
	k=$(stub_kit kit-test-matrix-handback)
	cat >> "$k/lib/matrix.sh" <<-'STUB'
	eval "$(declare -f matrix_run | sed '1s/^matrix_run/matrix_run_real/')"
	matrix_run() {
		kit_try matrix_run_real
		[ "$KIT_RC" -eq 0 ] || return "$KIT_RC"
		if [ -n "${STUB_ELSEWHERE:-}" ]; then
			mkdir -p "$OUT_DIR/elsewhere"
			result "$OUT_DIR/elsewhere/x.tsv" case check 6.1 elsewhere fail - - "listed outside out/results"
			echo "$OUT_DIR/elsewhere/x.tsv" >> "$OUT_DIR/status/records.list"
		else
			result "$OUT_DIR/results/6.1-stray.tsv" case check 6.1 stray fail - - "in out/results, not listed"
		fi
	}
	STUB
	STUB_ELSEWHERE=1 stub_test "$k"
	expect_rc 1 "make test with a failing record the matrix lists outside out/results"
	expect_out '^[0-9]+ passed, 1 failed, 0 skipped$' "the listed record is counted"
	stub_test "$k"
	expect_rc 0 "make test with a failing record in out/results the matrix does not list"
	expect_out '^[0-9]+ passed, 0 failed, 0 skipped$' "the record the matrix did not list is not counted"
}

# a step that hands back a KTAP document of its records with them (the
# boot's judged KTAP, boot.sh boot_judge) has that document as its
# out/ktap/ file, wherever it wrote it: the matrix takes its path from
# the hand-back, never from the records' path (it took the boot's
# "${records%.tsv}.ktap"); a step that hands back none gets the KTAP of
# its records
test_matrix_takes_the_ktap_a_step_hands_back() {
	local k
	k=$(stub_kit kit-test-ktap)
	cat >> "$k/lib/matrix.sh" <<-'STUB'
	matrix_check() (
		mkdir -p "$OUT_DIR/somewhere-else"
		[ "$1" != 6.12 ] || request_hand_back "$OUT_DIR/somewhere-else/$1.tsv" "$OUT_DIR/somewhere-else/doc-$1"
		[ "$1" = 6.12 ] || request_hand_back "$OUT_DIR/somewhere-else/$1.tsv"
		result "$OUT_DIR/somewhere-else/$1.tsv" case check "$1" stub pass
		printf 'KTAP version 1\n# the document of %s\n1..1\nok 1 stub\n' "$1" > "$OUT_DIR/somewhere-else/doc-$1"
	)
	STUB
	stub_test "$k"
	expect_rc 0 "make test of the stubbed kit whose 6.12 check hands back a KTAP document"
	grep -qx '# the document of 6.12' "$k/out/ktap/6.12-check.ktap" ||
		fail "out/ktap/6.12-check.ktap is not the document the step handed back" "$(cat "$k/out/ktap/6.12-check.ktap")"
	grep -qx '# 6.1-check: 1 passed, 0 failed, 0 skipped' "$k/out/ktap/6.1-check.ktap" ||
		fail "out/ktap/6.1-check.ktap is not the KTAP of its records" "$(cat "$k/out/ktap/6.1-check.ktap")"
}
