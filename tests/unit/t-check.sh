# SPDX-License-Identifier: GPL-2.0
# make check fails on a new W=1 or sparse warning and only on new ones.

test_check_catches_new_warnings() {
	local d
	d=$(fresh 5.10 check-bad)
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc 0 "apply"
	# a W=1 warning (unused variable) and a sparse one (__user cast), both new
	cat >> "$d/mm/ksm.c" <<-'EOT'

	int kit_test_bad(void __user *p);
	int kit_test_bad(void __user *p)
	{
		int unused;

		return *(int *)p;
	}
	EOT
	run_kit "$KIT_DIR/bin/check" --kdir "$d"
	[ "$RC" -ne 0 ] || fail "check passed on a tree with new warnings"
	grep -q '^not ok [0-9]* w1 mm/ksm.o' <<< "$OUT" || fail "W=1 warning not caught: $OUT"
	grep -q '^not ok [0-9]* sparse mm/ksm.o' <<< "$OUT" || fail "sparse warning not caught: $OUT"
	grep -q '^ok [0-9]* w1 mm/khugepaged.o' <<< "$OUT" || fail "khugepaged.o should stay clean: $OUT"
}

test_check_refuses_unapplied_tree() {
	local d
	d=$(fresh 6.1 check-unapplied)
	run_kit "$KIT_DIR/bin/check" --kdir "$d"
	expect_one_line_error "the kit's series is not applied to .*; run 'make apply KDIR="
}

# a failure the series does not cause is no failure of the series: an
# object that does not build without the series either is a skip that
# names the first real error line
test_check_does_not_blame_the_series_for_the_baseline() {
	local d
	d=$(fresh 5.10 check-baseline-broken)
	# a vendor header that is missing breaks mm/ksm.c with and without the series
	sed '0,/^#include/s//#include <vendor\/missing.h>\n#include/' "$d/mm/ksm.c" > "$d/mm/ksm.c.new"
	mv -f "$d/mm/ksm.c.new" "$d/mm/ksm.c"
	run_kit "$KIT_DIR/bin/apply" --force --kdir "$d"
	expect_rc 0 "apply over the vendor include"
	run_kit "$KIT_DIR/bin/check" --kdir "$d"
	expect_rc 5 "make check that could not verify mm/ksm.o (unverified)"
	expect_out '^ok [0-9]+ w1 mm/ksm.o # SKIP not verified by compiling: mm/ksm.o does not build without the series either \(.*vendor/missing.h' \
		"the skip names the first real error"
	expect_out 'warning: not every touched object was verified by compiling; the first: mm/ksm.o: .*vendor/missing.h' \
		"the exit names the first real error"
	! grep -q 'does not build with the series' <<< "$OUT" || fail "the series was blamed" "$OUT"
}
