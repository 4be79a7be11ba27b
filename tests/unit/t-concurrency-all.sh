# SPDX-License-Identifier: GPL-2.0
# tier: full
# The concurrency cases t-concurrency.sh leaves to make test FULL=1 (they
# keep a cold make test under 75 minutes): a re-targeting apply beside a
# check of the same branch (two and a half minutes warm), and the matrix
# of two branches as two processes at once on one cache, as two runner
# jobs of a self-hosted CI runner run it (a checkout each, so an out/
# each; one cache).  Two matrices of the same branches: every work area of
# the cache (trees, patched copies, build dirs, ccache, check copies) is
# shared by both; about six minutes with a warm cache, most of a cold
# run's hour without one.

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
	cc_end_both mx-a mx-b matrices
	ref=$REF
	! grep -q 'does not build with the series' "$T/mx-a.out" "$T/mx-b.out" || fail "the series was blamed"
	cmp -s <(mx_records "$a") <(mx_records "$b") ||
		fail "the two matrices' records differ:" "$(diff <(mx_records "$a") <(mx_records "$b") | head -n 20)"
	run_kit nice -n 10 "$a/bin/matrix" 5.15 6.6
	expect_rc 0 "a matrix alone"
	cc_same_ktap "$ref" "the verdicts of a matrix alone and of two at once"
	cmp -s <(mx_records "$a") <(mx_records "$b") ||
		fail "the records differ from a matrix alone:" "$(diff <(mx_records "$a") <(mx_records "$b") | head -n 20)"
}

# a re-targeting apply (a drifted 6.12 tree: 0002 and 0003 re-targeted and
# compiled) beside a check of the 6.12 branch: what they share is the
# pristine 6.12 tree (read by both, shared locks) and the ccache; their
# work areas are apart (retarget-build/<version>, the branch's build
# dirs), so the check runs while the apply is held in its compile -- or
# waits naming it -- and each gives what it gives alone
test_retarget_beside_branch_check() {
	local d sum ref ref_apply
	. "$KIT_DIR/tests/unit/t-vendor.sh"	# drift_tree
	run_kit nice -n 10 "$KIT_DIR/bin/check" --branch 6.12
	expect_rc 0 "a check of 6.12 alone"
	ref=$(cc_ktap)
	cp "$OUT_DIR/check/6.12/results.tsv" "$T/rc-check.records"
	d=$(fresh 6.12 cc-retarget)
	drift_tree "$d"
	sum=$(tree_sum "$d")
	cc_start rap retarget-compile nice -n 10 "$KIT_DIR/bin/apply" --force --kdir "$d"
	cc_bg rchk nice -n 10 "$KIT_DIR/bin/check" --branch 6.12
	# the check ends beside the held apply, or says it waits for it
	! cc_waits rchk || cc_named rchk bin/apply
	cc_go rap retarget-compile
	cc_end rap
	expect_rc 0 "the re-targeting apply beside a check"
	grep -qE '^0002-[^ ]+ +re-targeted from cocci' <<< "$OUT" || fail "0002 not re-targeted beside the check" "$OUT"
	cut -f1-6,8 "$OUT_DIR/cc-retarget/results.tsv" > "$T/rc-apply.records"
	cc_end rchk
	expect_rc 0 "the check beside a re-targeting apply"
	cc_same_ktap "$ref" "the verdicts of a check alone and of one beside a re-targeting apply"
	cmp -s "$T/rc-check.records" "$OUT_DIR/check/6.12/results.tsv" ||
		fail "the check's records differ from a check alone:" "$(diff "$T/rc-check.records" "$OUT_DIR/check/6.12/results.tsv")"
	# the apply alone on the same drifted tree: the same records
	unapply_to "$d" "$sum" "the re-targeted apply made beside a check"
	run_kit nice -n 10 "$KIT_DIR/bin/apply" --force --kdir "$d"
	expect_rc 0 "the re-targeting apply alone"
	ref_apply=$(cut -f1-6,8 "$OUT_DIR/cc-retarget/results.tsv")
	[ "$(cat "$T/rc-apply.records")" = "$ref_apply" ] ||
		fail "the apply's records differ from an apply alone:" "$(diff "$T/rc-apply.records" <(echo "$ref_apply"))"
	unapply_to "$d" "$sum" "the re-targeted apply alone"
}
