# SPDX-License-Identifier: GPL-2.0
# tier: full
# make bench-kit end to end on one branch (about three minutes: two checks
# and two matrices without boots), so make test FULL=1 runs it and make
# test does not: every step it times ran and passed (a failed step's time
# measures nothing: apply once failed on the read-only pristine tree, and
# the JUnit writers on a private cache without a KUnit parser, and the
# report said nothing), the check's kbuild share was measured, and the
# matrix's own split of its steps is in the table.  The report itself is
# tested on canned times (t-bench-report).

test_every_step_timed_and_passed() {
	local b=6.12 tsv=$OUT_DIR/bench-kit/times.tsv step row
	require_branch "$b"
	rm -f "$tsv"
	run_kit "$KIT_DIR/bin/bench-kit" "$b"
	expect_rc 0 "make bench-kit BRANCH=$b"
	[ -f "$tsv" ] || fail "no $tsv"
	for step in apply 'quilt push -a' 'check cold' 'check warm' 'matrix cold' 'matrix warm' \
		'matrix cold: tree' 'matrix cold: apply' 'matrix cold: check'; do
		row=$(awk -F'\t' -v b="$b" -v s="$step" '$1 == b && $2 == s' "$tsv")
		[ -n "$row" ] || fail "no '$step' row in $tsv" "$(cat "$tsv")"
		[ "$(cut -f5 <<< "$row")" = 0 ] || fail "'$step' failed: $row" "$OUT"
	done
	awk -F'\t' -v b="$b" '$1 == b && $2 == "check cold" && $4 > 0 { ok = 1 } END { exit !ok }' "$tsv" ||
		fail "the cold check's kbuild time was not measured" "$(cat "$tsv")"
	grep -qE "^\| $b \| [0-9.]+x \(" "$OUT_DIR/bench-kit.md" || fail "no apply / quilt push -a ratio" "$(cat "$OUT_DIR/bench-kit.md")"
}
