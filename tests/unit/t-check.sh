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
