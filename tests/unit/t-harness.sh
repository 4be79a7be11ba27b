# SPDX-License-Identifier: GPL-2.0
# tier: fast
# The harness proves itself: a deliberately broken probe test is reported
# as failed, a passing one as passed, a skipped one as skipped, and the
# runner's exit status and KTAP plan say so.

# probe_suite DIR: a test file with one test per outcome
probe_suite() {
	mkdir -p "$1"
	cat > "$1/t-probe.sh" <<-'PROBE'
	test_broken_setup() {
		false
		cp /nonexistent/a /nonexistent/b
		true
	}
	test_broken_in_pipe() {
		cat /nonexistent/file | sort
		true
	}
	test_bad_branch_tree() {
		local d
		d=$(fresh 9.99 probe)
		tree_sum "$d"
	}
	test_empty_tree_sum() {
		tree_sum "" >/dev/null
	}
	test_passes() {
		[ 1 -eq 1 ]
	}
	test_skips() {
		skip "not on this machine"
	}
	PROBE
}

test_broken_probe_reported_failed() {
	local d=$T/harness-probe rc=0 out
	probe_suite "$d"
	out=$("$KIT_DIR/tests/unit/run.sh" --dir "$d") || rc=$?
	[ $rc -eq 1 ] || fail "run.sh exit $rc on a suite with failing tests, expected 1" "$out"
	grep -qx '1\.\.6' <<< "$out" || fail "no plan 1..6" "$out"
	for t in broken_setup broken_in_pipe bad_branch_tree empty_tree_sum; do
		grep -qE "^not ok [0-9]+ probe\.$t$" <<< "$out" || fail "probe.$t not reported failed" "$out"
	done
	grep -qE '^ok [0-9]+ probe\.passes$' <<< "$out" || fail "probe.passes not ok" "$out"
	grep -qE '^ok [0-9]+ probe\.skips # SKIP not on this machine$' <<< "$out" || fail "probe.skips not a SKIP" "$out"
	grep -qx '# unit: 1 passed, 4 failed, 1 skipped' <<< "$out" || fail "wrong summary" "$out"
}

# the reason of a failure is a diagnostic directly before its result line
test_diagnostics_before_result() {
	local d=$T/harness-diag out
	mkdir -p "$d"
	printf 'test_says_why() {\n\tfail "the reason"\n}\n' > "$d/t-diag.sh"
	out=$("$KIT_DIR/tests/unit/run.sh" --dir "$d") || true
	grep -B3 '^not ok 1 diag.says_why$' <<< "$out" | grep -x '# the reason' >/dev/null ||
		fail "the reason is not right before the result line" "$out"
	[ "$(printf '%s\n' "$out" | tail -n1)" = '# unit: 0 passed, 1 failed, 0 skipped' ] ||
		fail "diagnostics after the result" "$out"
}

# the count needs no kernel tree: a fast tier in a cache with no tree at
# all counts every result (it once said "0 passed, 1 failed": the count
# needed the kernel's KTAP parser from a cached tree)
test_count_without_any_tree() {
	local d=$T/harness-notree rc=0 out
	probe_suite "$d"
	out=$(MMBK_CACHE=$T/no-tree-cache "$KIT_DIR/tests/unit/run.sh" --dir "$d" --records "$T/notree.tsv" 2>/dev/null) || rc=$?
	[ $rc -eq 1 ] || fail "run.sh exit $rc without a tree, expected 1" "$out"
	[ ! -d "$T/no-tree-cache/trees" ] || fail "test void: the cache has trees"
	[ "$(kit_py results count "$T/notree.tsv")" = "1 4 1" ] ||
		fail "the records count $(kit_py results count "$T/notree.tsv"), expected 1 passed, 4 failed, 1 skipped"
	grep -qx '# unit: 1 passed, 4 failed, 1 skipped' <<< "$out" || fail "wrong summary without a tree" "$out"
}

# the guard of the cached trees reports a test that wrote through a
# scratch copy's shared inode into a cached pristine tree
test_cache_write_through_reported() {
	local c=$T/guard-cache d=$T/guard-suite rc=0 out
	rm -rf "$c" "$d"
	mkdir -p "$c/trees/9.9/linux" "$d"
	printf 'VERSION = 9\n' > "$c/trees/9.9/linux/Makefile"
	MMBK_CACHE=$c bash -c '. "$1/lib/kit.sh"; kit_use fetch; seal_pristine 9.9' - "$KIT_DIR" ||
		fail "test setup: seal of the fixture tree"
	printf 'test_writes_through() {\n\tchmod u+w "%s"\n\techo junk >> "%s"\n}\n' "$c/trees/9.9/linux/Makefile" "$c/trees/9.9/linux/Makefile" > "$d/t-writer.sh"
	out=$(MMBK_CACHE=$c "$KIT_DIR/tests/unit/run.sh" --dir "$d" --guard-cache 2>/dev/null) || rc=$?
	[ $rc -eq 1 ] || fail "run.sh exit $rc after a write into a cached tree, expected 1" "$out"
	grep -qx 'not ok 2 cached_trees_unchanged' <<< "$out" || fail "the write was not reported" "$out"
	grep -q 'into the cached tree of: 9.9 ' <<< "$out" || fail "the changed tree is not named" "$out"
	grep -qx 'ok 1 writer.writes_through' <<< "$out" || fail "the writing test itself passes" "$out"
}

# a refusal is never a skip: a kit command that refuses (exit 4,
# EXIT_REFUSED) inside a test, or a test that exits 4 itself, fails that
# test; only skip (a record of its reason) makes a SKIP
test_refusal_inside_a_test_fails_it() {
	local d=$T/harness-refusal rc=0 out
	mkdir -p "$d"
	cat > "$d/t-refusal.sh" <<-'PROBE'
	test_kit_command_refuses() {
		bash -c '. "$KIT_DIR/lib/kit.sh"; printf "%s: error: refused\n" "$prog" >&2; exit "$EXIT_REFUSED"'
	}
	test_exits_4() {
		exit 4
	}
	test_says_skip() {
		skip "the reason of the skip"
	}
	PROBE
	out=$("$KIT_DIR/tests/unit/run.sh" --dir "$d" 2>/dev/null) || rc=$?
	[ $rc -eq 1 ] || fail "run.sh exit $rc on a suite with a refused command, expected 1" "$out"
	grep -qx 'not ok 1 refusal.kit_command_refuses' <<< "$out" || fail "a refused kit command was not a failure" "$out"
	grep -qx 'not ok 2 refusal.exits_4' <<< "$out" || fail "a test's exit 4 was not a failure" "$out"
	grep -qx 'ok 3 refusal.says_skip # SKIP the reason of the skip' <<< "$out" || fail "skip is not a SKIP with its reason" "$out"
}

# a filter that selects no test is bad input (exit 64, one line naming it),
# never a run of nothing that passes (it once printed "1..0" and exited 0)
test_filter_selecting_nothing_refused() {
	local d=$T/harness-filter rc=0 out
	probe_suite "$d"
	out=$("$KIT_DIR/tests/unit/run.sh" --dir "$d" no_such_test 2>&1) || rc=$?
	[ $rc -eq 64 ] || fail "run.sh exit $rc on a filter that selects nothing, expected 64" "$out"
	{ [ "$(grep -c . <<< "$out")" = 1 ] && grep -q "no_such_test" <<< "$out"; } ||
		fail "not one line naming the filter:" "$out"
}
