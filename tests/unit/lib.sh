# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# lib.sh - helpers for the kit's unit tests (sourced by tests/unit/harness.sh,
# which runs every test in its own `bash -euo pipefail` process).

# shellcheck source=lib/kit.sh
. "$KIT_DIR/lib/kit.sh"
kit_use tables trees fetch state results
prog=unit

T=$UNIT_SCRATCH		# scratch trees of this run (made by run.sh)

fail() {
	printf '# %s\n' "$@"
	exit 1
}

# skip REASON: the test does not apply here (KTAP SKIP).  A skip is said,
# never signalled by a status: the reason goes to the test's skip file
# (harness.sh UNIT_SKIP_FILE, a path no kit command is given) and the test
# ends with 0; any non-zero status, 4 (EXIT_REFUSED) included, is a failure
skip() {
	printf '# %s\n' "$*"
	printf '%s\n' "$*" > "$UNIT_SKIP_FILE"
	exit 0
}

# tree_sum DIR -> one hash over every path, type, mode, symlink target and
# file content; any error (an unreadable file, a missing DIR) fails the test
tree_sum() {
	local d=${1:-} list sums
	{ [ -n "$d" ] && [ -d "$d" ]; } || fail "tree_sum: '$d' is not a directory"
	list=$(cd "$d" && find . -printf '%y %m %p %l\n' | LC_ALL=C sort) ||
		fail "tree_sum: cannot list $d"
	sums=$(cd "$d" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha1sum) ||
		fail "tree_sum: cannot read every file of $d"
	printf '%s\n%s\n' "$list" "$sums" | sha1sum | cut -c1-40
}

# kit_copy NAME -> path of a new copy of the kit's tracked files ($T/NAME),
# for tests that break or stub out one piece of the kit
kit_copy() {
	local k=$T/$1
	rm -rf "$k"
	mkdir -p "$k"
	( cd "$KIT_DIR" && git ls-files -z | xargs -0 cp --parents -t "$k" ) || fail "test setup: copy of the kit"
	printf '%s\n' "$k"
}

# fresh BRANCH NAME -> path of a new scratch copy of BRANCH's pristine tree
fresh() {
	local dir=$T/$2
	require_branch "$1"
	scratch_copy "$1" "$dir" >&2
	[ -f "$dir/Makefile" ] || fail "fresh: no tree made in $dir"
	printf '%s\n' "$dir"
}

# own_file FILE...: a file of a scratch tree gets its own inode before a
# test writes it in place (`>>`): scratch copies share the inodes of every
# file the kit does not touch with the cached pristine trees (link_copy),
# and root's writes ignore their read-only mode
own_file() {
	local f
	for f; do
		{ cp -p "$f" "$f.own" && chmod u+w "$f.own" && mv -f "$f.own" "$f"; } ||
			fail "test setup: a private copy of $f"
	done
}

# by_hand BRANCH NAME -> a fresh tree of BRANCH with the branch series
# applied by patch(1), as a user who took the patches by hand has it (no
# kit state)
by_hand() {
	local d name
	d=$(fresh "$1" "$2")
	for name in $(series_patches "$(series_file "$1")"); do
		patch -d "$d" -p1 -F0 -s < "$KIT_DIR/backports/$1/$name" || fail "patch $name by hand"
	done
	printf '%s\n' "$d"
}

# unapply_to TREE SUM WHAT: make unapply of TREE succeeds and leaves it
# as SUM (tree_sum) again
unapply_to() {
	run_kit "$KIT_DIR/bin/unapply" --kdir "$1"
	expect_rc 0 "unapply: $3"
	expect_sum "$1" "$2" "$3"
}

# applied_ref BRANCH -> a mini tree of BRANCH with the whole series applied
applied_ref() {
	local d
	d=$(mini "$1" "ref-$1")
	"$KIT_DIR/bin/apply" --kdir "$d" >/dev/null 2>&1 || fail "reference apply on $1 failed"
	printf '%s\n' "$d"
}

# probed_files -> the files the kit's code-based decisions read
# (tables/plan.table, tables/detect.table)
probed_files() {
	{
		table_rows "$TABLES_DIR/plan.table" | awk -F'\t' '$3 ~ /\// { print $3 }'
		table_rows "$TABLES_DIR/detect.table" | awk -F'\t' '$2 ~ /\// { print $2 }'
	} | sort -u
}

# mini BRANCH NAME -> a small kernel tree: the top Makefile, every file the
# kit's patches touch and every file its decisions read, copied from
# BRANCH's pristine tree.  Enough for apply, unapply, status and detection;
# fast to hash.
mini() {
	local src dir=$T/$2 f
	require_branch "$1"
	src=$(pristine_dir "$1")
	[ -f "$src/Makefile" ] || fail "mini: no cached tree for $1"
	rm -rf "$dir"
	mkdir -p "$dir"
	for f in Makefile $(kit_touched_files) $(probed_files); do
		[ -f "$src/$f" ] || continue
		mkdir -p "$dir/$(dirname "$f")"
		cp "$src/$f" "$dir/$f"
		chmod u+w "$dir/$f"
	done
	printf '%s\n' "$dir"
}

# git_tree DIR: make DIR a git repository with everything committed
git_tree() {
	{ git -C "$1" init -q &&
		git -C "$1" add -A &&
		git -C "$1" -c user.name=t -c user.email=t@t commit -qm base; } ||
		fail "git_tree: cannot make $1 a git repository"
}

# run_kit CMD... : run a kit command, keep stdout+stderr in $OUT and exit code in $RC
run_kit() {
	RC=0
	OUT=$("$@" 2>&1) || RC=$?
}

expect_rc() {	# expect_rc N CONTEXT
	[ "$RC" -eq "$1" ] || fail "$2: exit code $RC, expected $1" "output: $OUT"
}

# expect_make_rc N CONTEXT: make ended a command whose status was N (make's
# own status is then 2, its "*** [...] Error N" line names N)
expect_make_rc() {
	{ [ "$RC" -eq 2 ] && grep -qE "^make(\[[0-9]+\])?: \*\*\* .* Error $1\$" <<< "$OUT"; } ||
		fail "$2: exit code $RC, expected make's 2 with 'Error $1'" "output: $OUT"
}

# expect_one_line_error PATTERN: the command failed with exactly one
# "error:" line naming the problem (PATTERN) and no other output
expect_one_line_error() {
	[ "$RC" -ne 0 ] || fail "command succeeded, expected an error matching '$1'" "output: $OUT"
	[ "$(printf '%s\n' "$OUT" | wc -l)" -eq 1 ] || fail "expected one line, got:" "$OUT"
	grep -q 'error: ' <<< "$OUT" || fail "no 'error:' in: $OUT"
	grep -qE -- "$1" <<< "$OUT" || fail "error does not match '$1': $OUT"
}

# expect_make_error PATTERN: like expect_one_line_error for a make target:
# make's own "make: *** ... Error" line (make[N]: when make test runs it) is not counted
expect_make_error() {
	OUT=$(printf '%s\n' "$OUT" | grep -vE '^make(\[[0-9]+\])?: \*\*\* ') || true
	expect_one_line_error "$1"
}

expect_sum() {	# expect_sum DIR SUM CONTEXT
	local now
	now=$(tree_sum "$1")
	[ "$now" = "$2" ] || fail "$3: tree changed ($2 -> $now)"
}

# expect_out PATTERN CONTEXT: the output has a line matching PATTERN (grep -E)
expect_out() {
	grep -qE -- "$1" <<< "$OUT" || fail "$2: no line matching '$1' in:" "$OUT"
}

# need_kunit_parser: skip unless a cached tree has the kernel's KTAP parser
# (mmbk ktap reads KTAP with it); KUNIT_DIR is its directory
need_kunit_parser() {
	# shellcheck disable=SC2034  # KUNIT_DIR: for the test that called it
	{ [ -n "$CACHE_DIR" ] && KUNIT_DIR=$( (kunit_dir) 2>/dev/null ); } ||
		skip "no cached tree has tools/testing/kunit/kunit_parser.py (make tree BRANCH=$NEWEST_BRANCH)"
}

# kit CMD ARGS...: a command of the kit's bin/ (as make runs it)
kit() {
	"$KIT_DIR/bin/$1" "${@:2}"
}

# in_kit MODULE FUNCTION ARGS...: a library entry point, in a subshell of
# this test (as the commands call them)
in_kit() {
	( kit_use "$1" && "${@:2}" )
}
