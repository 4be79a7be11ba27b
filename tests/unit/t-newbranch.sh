# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2016  # the code strings are expanded by an inner bash
# tier: fast
# Adding a branch is one row of tables/branches.table plus its
# backports/<branch>/ folder: in a copy of the kit with a hypothetical
# branch 9.9 (the mainline form's series), every table reader, the
# matrix's boots and the expectation tables take it with no other edit.

# new_branch_kit NAME -> a kit copy with branch 9.9 added (row + folder only)
new_branch_kit() {
	local k
	k=$(kit_copy "$1")
	printf '9.9       deb      sid:linux-source-9.9                     -       -           yes  lts\n' \
		>> "$k/tables/branches.table"
	mkdir -p "$k/backports/9.9"
	cp "$k"/backports/7.2/*.patch "$k/backports/9.9/"
	sed 's/^# quilt series for linux-7.2/# quilt series for linux-9.9/' "$k/backports/7.2/series" > "$k/backports/9.9/series"
	# the reference data make regen BRANCH=9.9 writes (7.2's, as its series)
	sed 's/^"branch": "7.2",$/"branch": "9.9",/' "$k/backports/7.2/reference.json" > "$k/backports/9.9/reference.json"
	cp "$k/backports/7.2/touched.sums" "$k/backports/9.9/"
	printf '%s\n' "$k"
}

# in_copy KIT CODE: CODE run by bash with KIT's library loaded (the code
# strings of this file are expanded by that bash)
in_copy() {
	bash -c '. "$1/lib/kit.sh"; kit_use tables trees matrix; shift; eval "$1"' - "$1" "$2"
}

test_new_branch_needs_only_row_and_folder() {
	local k out
	k=$(new_branch_kit kit-newbranch)
	out=$(in_copy "$k" 'echo "$SUPPORTED_BRANCHES"')
	[ "${out##* }" = 9.9 ] || fail "the shell does not see branch 9.9: $out"
	out=$(PYTHONPATH=$k /usr/bin/python3 -B -P -m mmbk tables branches)
	[ "${out##* }" = 9.9 ] || fail "mmbk tables does not see branch 9.9: $out"
	# the boots of a branch without a row in boot-baselines.table: the default row
	out=$(in_copy "$k" 'matrix_tokens 9.9 0' | paste -sd' ')
	[ "$out" = "$(table_rows "$TABLES_DIR/boot-baselines.table" | awk -F'\t' '$1 == "*" { $1 = ""; print substr($0, 2) }' | tr '\t' ' ')" ] ||
		fail "9.9 does not boot the default kernels: $out"
	# the series of the folder is planned and linted as any other
	run_kit "$k/bin/lint" "$k"/backports/9.9/*.patch
	expect_rc 0 "make lint of the new branch's patches"
	run_kit bash -c '. "$1/lib/kit.sh"; kit_use lint; lint_check_series' - "$k"
	expect_rc 0 "series-order of the new branch"
	[ -z "$OUT" ] || fail "series-order problems with the new branch" "$OUT"
	# the CI templates take the branch from the table (make ci-templates)
	run_kit "$k/bin/ci-templates"
	expect_rc 0 "make ci-templates in the kit copy"
	grep -q '"9.9"' "$k/templates/github-actions.yml" || fail "the GitHub template does not list 9.9"
	grep -q '"9.9"' "$k/templates/gitlab-ci.yml" || fail "the GitLab template does not list 9.9"
}

# the check proves something: a branch with a row but no folder is caught
test_new_branch_without_folder_is_caught() {
	local k
	k=$(new_branch_kit kit-newbranch-nofolder)
	rm -rf "$k/backports/9.9"
	run_kit bash -c '. "$1/lib/kit.sh"; kit_use apply; BRANCH=9.9; apply_check_series' - "$k"
	[ "$RC" -ne 0 ] || fail "a branch without backports/9.9/series was not caught" "$OUT"
	expect_out 'no series file backports/9\.9/series' "the missing folder is named"
}

# a branch folder without the reference data the plan reads is caught by
# make lint, which names make regen
test_new_branch_without_reference_data_is_caught() {
	local k
	k=$(new_branch_kit kit-newbranch-noref)
	rm -f "$k/backports/9.9/reference.json"
	run_kit bash -c '. "$1/lib/kit.sh"; kit_use lint; lint_check_series' - "$k"
	expect_out 'backports/9\.9 has no reference data .*make regen BRANCH=9\.9' "the missing reference data is named"
	k=$(new_branch_kit kit-newbranch-otherref)
	cp "$k/backports/6.12/reference.json" "$k/backports/9.9/reference.json"
	run_kit bash -c '. "$1/lib/kit.sh"; kit_use lint; lint_check_series' - "$k"
	expect_out 'backports/9\.9/reference.json:1: not the reference data of 9\.9' "another branch's reference data is named"
}
