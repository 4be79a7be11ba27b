# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2016  # the code strings are expanded by an inner bash
# tier: fast
# Adding a branch is one row of tables/branches.table plus its
# backports/<branch>/ folder: in a copy of the kit with a hypothetical
# branch 9.9 (the mainline form's series), every table reader, the
# matrix's boots and the expectation tables' "*" rows take it with no
# other edit; what it (or a new topic) still lacks for make test, the
# selftests' and the drift's expectation rows and the CI templates, is
# named by `mmbk tables lacks` (README "Adding a branch").

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

# lacks KIT -> `mmbk tables lacks` of KIT's data; RC, OUT
lacks() {
	run_kit env MMBK_DATA="$1" PYTHONPATH="$KIT_DIR" /usr/bin/python3 -B -P -m mmbk tables lacks
}

# what a new branch still lacks is named, rows of the expectation tables
# included, and each line goes once what it names is there: the kit
# itself lacks nothing; branch 9.9 with its row and folder lacks the
# kselftest-expect.table rows make test judges its selftests step
# against, its drift-expect.table rows and its CI templates; a branch
# whose series carries part of a topic, names a patch the folder lacks,
# or has no folder is named
test_new_branch_lacks_are_named() {
	local k
	lacks "$KIT_DIR"
	expect_rc 0 "tables lacks of the kit"
	[ -z "$OUT" ] || fail "the kit lacks something" "$OUT"
	k=$(new_branch_kit kit-newbranch-lacks)
	lacks "$k"
	expect_rc 1 "tables lacks of the kit with 9.9"
	expect_out '^9\.9: no rows for x86_64 in tables/kselftest-expect\.table: make test judges its selftests step against them and fails without them \(make selftests BRANCH=9\.9 SAVE=1 writes them\)$' \
		"the missing selftests expectations are named"
	expect_out '^9\.9: no rows in tables/drift-expect\.table' "the missing drift expectations are named"
	expect_out '^9\.9: not in templates/github-actions\.yml \(make ci-templates\)$' "the stale templates are named"
	[ "$(grep -c . <<< "$OUT")" = 4 ] || fail "not 4 lines for 9.9" "$OUT"
	printf '9.9\tx86_64\tcow/some case\tfail\tfail\twhy\n' >> "$k/tables/kselftest-expect.table"
	printf '9.9\tapi\t0001\tre-targeted from cocci\n' >> "$k/tables/drift-expect.table"
	"$k/bin/ci-templates" > /dev/null 2>&1 || fail "make ci-templates in the copy"
	lacks "$k"
	expect_rc 0 "tables lacks once 9.9 has its rows and templates"
	[ -z "$OUT" ] || fail "9.9 still lacks something" "$OUT"
	# a series that carries part of a topic; a patch it names that the
	# folder lacks; a branch without its folder
	sed -i '/^0005-/d' "$k/backports/9.9/series"
	rm "$k/backports/9.9/0006-locking-rwsem-add-down_read-_killable-_nosteal.patch"
	lacks "$k"
	expect_out '^9\.9: backports/9\.9/series neither carries nor marks "# n/a:" 0005 of topic khugepaged-mmap-lock \(it carries the rest of it\)$' \
		"the topic carried in part is named"
	expect_out '^9\.9: backports/9\.9/series names 0006-locking-rwsem-add-down_read-_killable-_nosteal\.patch, which backports/9\.9/ lacks$' \
		"the missing patch file is named"
	rm -rf "$k/backports/9.9"
	lacks "$k"
	expect_out '^9\.9: no backports/9\.9/series \(make regen BRANCH=9\.9' "the missing folder is named"
}

# what a new topic still lacks is named: a topic row and its patch in
# series and patches/ only lack the detection rule of its commit, its
# recipe and its interface verdicts of both profiles
test_new_topic_lacks_are_named() {
	local k p=0009-mm-a-new-topic.patch
	k=$(kit_copy kit-newtopic)
	sed '1s/^From [0-9a-f]*/From 0123456789abcdef0123456789abcdef01234567/' \
		"$k/patches/0001-mm-ksm-simplify-break_ksm-to-not-rely-on-VM_FAULT_WR.patch" > "$k/patches/$p"
	printf '%s\n' "$p" >> "$k/series"
	printf 'new-topic  %s\n' "$p" >> "$k/tables/topics.table"
	lacks "$k"
	expect_rc 1 "tables lacks of the kit with a new topic"
	expect_out '^topic new-topic: 0009: no rule of tables/detect\.table for its commit 0123456789ab' "the detection rule is named"
	expect_out '^topic new-topic: 0009: no row in tables/recipes\.table' "the recipe is named"
	expect_out '^topic new-topic: no "\*" row of the default profile in tables/abi-expect\.table$' "the default verdict is named"
	expect_out '^topic new-topic: no "\*" row of the kabi profile in tables/abi-expect\.table$' "the kABI verdict is named"
	[ "$(grep -c . <<< "$OUT")" = 4 ] || fail "not 4 lines for the new topic" "$OUT"
}

# "per branch, * default" of whole rows is one function in each language
# (lib/tables.sh table_for_branch, mmbk/tables.py for_branch): a branch
# with rows of its own gets those, one without gets the "*" rows, "-"
# cells and comments as the table reader leaves them; the matrix's boots
# read it (no awk of its own over boot-baselines.table)
test_per_branch_rule_is_one_function() {
	local py
	printf '# c\n*\tpatched\n6.1\tpatched\tunpatched # why\n6.1\twithout-x\n' > "$T/t.table"
	[ "$(table_for_branch "$T/t.table" 6.1 | paste -sd'|')" = $'patched\tunpatched|without-x' ] ||
		fail "table_for_branch 6.1: '$(table_for_branch "$T/t.table" 6.1 | paste -sd'|')'"
	[ "$(table_for_branch "$T/t.table" 9.9 | paste -sd'|')" = patched ] ||
		fail "table_for_branch 9.9 is not the * row: '$(table_for_branch "$T/t.table" 9.9)'"
	py=$(PYTHONPATH=$KIT_DIR /usr/bin/python3 -B -P -c 'import sys
from mmbk import tables
rows = tables.table_rows(sys.argv[1])
print("|".join(" ".join(r[1:]) for r in tables.for_branch(rows, "6.1")), "|".join(" ".join(r[1:]) for r in tables.for_branch(rows, "9.9")))' "$T/t.table")
	[ "$py" = "patched unpatched|without-x patched" ] || fail "for_branch: '$py'"
	! grep -q 'boot-baselines.table" | awk' "$KIT_DIR/lib/matrix.sh" || fail "matrix.sh reads boot-baselines.table with an awk of its own"
	grep -q 'table_for_branch "$TABLES_DIR/boot-baselines.table"' "$KIT_DIR/lib/matrix.sh" ||
		fail "matrix.sh does not read the boots with table_for_branch"
}

# a branch folder without the reference data the plan reads is caught by
# make lint, which names make regen
test_new_branch_without_reference_data_is_caught() {
	local k
	k=$(new_branch_kit kit-newbranch-noref)
	rm -f "$k/backports/9.9/reference.json"
	run_kit bash -c '. "$1/lib/kit.sh"; kit_use lint; lint_check_series' - "$k"
	expect_out 'backports/9\.9 has no reference data .*make regen BRANCH=9\.9' "the missing reference data is named"
	lacks "$k"
	expect_out '^9\.9: no reference data \(backports/9\.9/reference\.json, touched\.sums\): .*make regen BRANCH=9\.9' \
		"tables lacks names the missing reference data"
	k=$(new_branch_kit kit-newbranch-otherref)
	cp "$k/backports/6.12/reference.json" "$k/backports/9.9/reference.json"
	run_kit bash -c '. "$1/lib/kit.sh"; kit_use lint; lint_check_series' - "$k"
	expect_out 'backports/9\.9/reference.json:1: not the reference data of 9\.9' "another branch's reference data is named"
}
