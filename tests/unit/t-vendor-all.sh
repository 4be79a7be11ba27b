# SPDX-License-Identifier: GPL-2.0
# tier: full
# The vendor-drift apply cases t-vendor.sh leaves to make test FULL=1 (each
# a re-targeted make apply with compile, then unapply: about a minute of a
# cold CI run): 0001-0003 on drifted 5.10 and 6.1 trees, and a drifted tree
# between two branches.

# shellcheck source=tests/unit/t-vendor.sh
. "$KIT_DIR/tests/unit/t-vendor.sh"

test_drifted_5_10() {
	vendor_case 5.10 0001 0002 0003
}

test_drifted_6_1() {
	vendor_case 6.1 0001 0002 0003
}

# the same with vendor drift: the nearest older series is re-targeted
test_between_branches_drifted() {
	local d
	d=$(fresh 6.1 vendor-6.4)
	set_patchlevel "$d" 4
	drift_tree "$d"
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc 0 "apply on a drifted 6.4 tree"
	expect_out '^topic khugepaged-ro-collapse +applied: 6\.1 \(re-targeted\)$' "the 6.1 series, re-targeted"
	printf '%s\n' "$OUT" | grep -qE '^0003-[^ ]+ +re-targeted from cocci \(out/vendor-6.4/' || fail "0003 not re-targeted" "$OUT"
	in_kit plan detect_tree "$d" | awk -F'\t' '$2 != "present" { bad = 1 } END { exit bad }' ||
		fail "changes not present"
}
