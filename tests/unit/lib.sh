# SPDX-License-Identifier: GPL-2.0
# lib.sh - helpers for the kit's unit tests (sourced by tests/unit/run.sh).

. "$KIT_DIR/scripts/lib.sh"
prog=unit

T=$UNIT_SCRATCH		# scratch trees of this run (made by run.sh)

# tree_sum DIR -> one hash over every path, type, mode and file content
tree_sum() {
	( cd "$1" &&
	  find . -printf '%y %m %p %l\n' | LC_ALL=C sort | sha1sum &&
	  find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha1sum | sha1sum ) |
		sha1sum | cut -c1-40
}

# fresh BRANCH NAME -> path of a new scratch copy of BRANCH's pristine tree
fresh() {
	local dir=$T/$2
	scratch_copy "$1" "$dir"
	printf '%s\n' "$dir"
}

# run_kit CMD... : run a kit command, keep stdout+stderr in $OUT and exit code in $RC
run_kit() {
	RC=0
	OUT=$("$@" 2>&1) || RC=$?
}

fail() {
	printf '# %s\n' "$@"
	exit 1
}

expect_rc() {	# expect_rc N CONTEXT
	[ "$RC" -eq "$1" ] || fail "$2: exit code $RC, expected $1" "output: $OUT"
}

# expect_one_line_error PATTERN: the command failed with exactly one
# "error:" line naming the problem (PATTERN) and no other output
expect_one_line_error() {
	[ "$RC" -ne 0 ] || fail "command succeeded, expected an error matching '$1'"
	[ "$(printf '%s\n' "$OUT" | wc -l)" -eq 1 ] || fail "expected one line, got:" "$OUT"
	printf '%s\n' "$OUT" | grep -q 'error: ' || fail "no 'error:' in: $OUT"
	printf '%s\n' "$OUT" | grep -qE -- "$1" || fail "error does not match '$1': $OUT"
}

expect_sum() {	# expect_sum DIR SUM CONTEXT
	local now
	now=$(tree_sum "$1")
	[ "$now" = "$2" ] || fail "$3: tree changed ($2 -> $now)"
}
