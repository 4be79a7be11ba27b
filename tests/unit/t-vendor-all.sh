# SPDX-License-Identifier: GPL-2.0
# tier: full
# The vendor-drift apply cases t-vendor.sh leaves to make test FULL=1 (each
# a re-targeted make apply with compile, then unapply: about a minute of a
# cold CI run): 0001-0003 on drifted 5.10 and 6.1 trees, a drifted tree
# between two branches, and a 6.12 rwsem.c whose drift conflicts with 0006
# (two minutes of a cold run; make test keeps t-atomic's partial apply,
# a failed topic that leaves no trace).

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
	grep -qE '^0003-[^ ]+ +re-targeted from cocci \(out/vendor-6.4/' <<< "$OUT" || fail "0003 not re-targeted" "$OUT"
	in_kit plan detect_tree "$d" | awk -F'\t' '$2 != "present" { bad = 1 } END { exit bad }' ||
		fail "changes not present"
}

# drift in the very line 0006 changes: a clear failure of that topic with
# the reasons of both methods and the rejects, nothing forced, its files
# unchanged, its later patches not applied; the other topics land
test_conflicting_rwsem_fails_clearly() {
	local d f sums
	d=$(fresh 6.12 vendor-rwsem-conflict)
	drift_tree "$d"
	conflict_rwsem "$d"
	sums=$(for f in $(topic_files khugepaged-mmap-lock); do [ ! -f "$d/$f" ] || sha256sum "$d/$f"; done)
	run_kit "$KIT_DIR/bin/apply" --force --kdir "$d"
	expect_rc 3 "apply with a conflicting rwsem.c (partial)"
	expect_out '^0002-[^ ]+ +re-targeted from cocci' "0002 re-targeted"
	expect_out '^0006-[^ ]+ +failed: does not apply at fuzz 0 \([0-9]+ out of [0-9]+ hunks FAILED in kernel/locking/rwsem.c\); cocci recipe: .*; re-anchoring: reanchor: function rwsem_down_read_slowpath: the target.s version conflicts with the change .*; rejects in ' "0006 fails clearly"
	expect_out '^0007-[^ ]+ +not applied \(topic khugepaged-mmap-lock failed\)' "0007 not applied"
	printf '%s\n' "$OUT" | tail -n1 | grep -q 'partial: applied topics khugepaged-ro-collapse; failed: khugepaged-mmap-lock (the failed topics left no trace)' ||
		fail "last line is not the partial result" "$OUT"
	ls "$OUT_DIR"/rejects/vendor-rwsem-conflict/0006-* >/dev/null 2>&1 || fail "no rejects kept"
	[ "$(for f in $(topic_files khugepaged-mmap-lock); do [ ! -f "$d/$f" ] || sha256sum "$d/$f"; done)" = "$sums" ] ||
		fail "the failed topic changed its files"
}
