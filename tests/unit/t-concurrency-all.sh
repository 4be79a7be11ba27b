# SPDX-License-Identifier: GPL-2.0
# tier: full
# The concurrency case t-concurrency.sh leaves to make test FULL=1: the
# matrix of two branches as two processes at once on one cache, as two
# runner jobs of a self-hosted CI runner run it (a checkout each, so an
# out/ each; one cache).  Two matrices of the same branches: every work
# area of the cache (trees, patched copies, build dirs, ccache, check
# copies) is shared by both; about six minutes with a warm cache, most of
# a cold run's hour without one.

# shellcheck source=tests/unit/t-concurrency.sh
. "$KIT_DIR/tests/unit/t-concurrency.sh"

# mx_records KIT -> the matrix's records of KIT's out/, without their
# times, KIT's path as KIT
mx_records() {
	local f
	for f in "$1"/out/results/*.tsv "$1"/out/check/*/results.tsv; do
		printf '== %s\n' "${f#"$1"/out/}"
		cut -f1-6,8 "$f" | sed "s|$1/|KIT/|g"
	done
}

# two matrices of 5.15 and 6.6 (tree, apply, check; no boots) at once,
# each from a kit checkout of its own: both pass, with the verdicts and
# records of one run alone afterwards
test_two_matrices_on_one_cache() {
	local a b ref
	a=$(kit_copy cc-matrix-a)
	b=$(kit_copy cc-matrix-b)
	cc_bg mx-a nice -n 10 "$a/bin/matrix" 5.15 6.6
	cc_bg mx-b nice -n 10 "$b/bin/matrix" 5.15 6.6
	cc_end mx-a
	expect_rc 0 "the first of two matrices at once"
	ref=$(cc_ktap)
	cc_end mx-b
	expect_rc 0 "the second of two matrices at once"
	[ "$(cc_ktap)" = "$ref" ] || fail "the two matrices' verdicts differ:" "$(diff <(echo "$ref") <(cc_ktap))"
	! grep -q 'does not build with the series' "$T/mx-a.out" "$T/mx-b.out" || fail "the series was blamed"
	cmp -s <(mx_records "$a") <(mx_records "$b") ||
		fail "the two matrices' records differ:" "$(diff <(mx_records "$a") <(mx_records "$b") | head -n 20)"
	run_kit nice -n 10 "$a/bin/matrix" 5.15 6.6
	expect_rc 0 "a matrix alone"
	[ "$(cc_ktap)" = "$ref" ] || fail "the verdicts differ from a matrix alone:" "$(diff <(echo "$ref") <(cc_ktap))"
	cmp -s <(mx_records "$a") <(mx_records "$b") ||
		fail "the records differ from a matrix alone:" "$(diff <(mx_records "$a") <(mx_records "$b") | head -n 20)"
}
