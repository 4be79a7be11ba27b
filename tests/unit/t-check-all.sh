# SPDX-License-Identifier: GPL-2.0
# tier: full
# The check cases t-check.sh leaves to make test FULL=1 (each a check of
# a tree of its own: two minutes of a cold CI run).  The check's JUnit
# against the schema is also t-results.sh's (the writer, fast tier).

# a tree whose path holds a blank: Kbuild refuses such source paths, so
# make check builds through a hard-link copy at a path without one (it
# once failed every build and blamed the series: "does not build with the
# series"); and make check writes JUnit (out/check/<name>/junit.xml) that
# validates against the JUnit schema
test_check_through_a_path_with_a_blank() {
	local d
	mkdir -p "$T/with blank"
	d=$(fresh 6.1 "with blank/linux")
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc 0 "apply to a tree whose path holds a blank"
	run_kit "$KIT_DIR/bin/check" --kdir "$d"
	expect_rc 0 "make check of a tree whose path holds a blank"
	! grep -q 'does not build with the series' <<< "$OUT" || fail "the series was blamed" "$OUT"
	expect_out '^ok [0-9]+ w1 mm/khugepaged.o$' "khugepaged.o built and checked"
	[ -f "$OUT_DIR/check/with_blank-linux/junit.xml" ] || fail "no out/check/with_blank-linux/junit.xml (the name of a tree called linux is its parent's, blanks as _)"
	run_kit xmllint --noout --schema "$KIT_DIR/tests/junit/junit-10.xsd" "$OUT_DIR/check/with_blank-linux/junit.xml"
	expect_rc 0 "the check's JUnit against the schema"
}
