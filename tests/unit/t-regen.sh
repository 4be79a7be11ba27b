# SPDX-License-Identifier: GPL-2.0
# The committed backports are exactly what the semantic patches produce.

test_regen_matches_committed() {
	local b
	for b in $SUPPORTED_BRANCHES; do
		run_kit "$KIT_DIR/scripts/regen.sh" --check "$b"
		expect_rc 0 "regen --check $b"
	done
}

test_cocci_cases() {
	run_kit "$KIT_DIR/tests/cocci/run.sh"
	expect_rc 0 "tests/cocci/run.sh"
}
