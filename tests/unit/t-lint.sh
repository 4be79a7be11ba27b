# SPDX-License-Identifier: GPL-2.0
# The table-driven header checker: clean on the kit's patches, and a broken
# header gives a "file:line: message" line.

LINT=$KIT_DIR/bin/lint

# broken NAME SED: a copy of backports/6.1/NAME edited by SED, in $T/lint
broken() {
	local d=$T/lint
	mkdir -p "$d"
	sed -e "$2" "$KIT_DIR/backports/6.1/$1" > "$d/$1"
	printf '%s\n' "$d/$1"
}

test_no_signed_off_by() {
	local f end
	f=$(broken 0001-mm-ksm-simplify-break_ksm-to-not-rely-on-VM_FAULT_WR.patch '/^Signed-off-by:/d')
	end=$(grep -n '^---$' "$f" | sed -n 1p | cut -d: -f1)
	run_kit "$LINT" "$f"
	expect_rc 1 "lint of a patch without Signed-off-by"
	grep -qxF "$f:$end: Signed-off-by: missing [signed-off-by]" <<< "$OUT" ||
		fail "no file:line message for the missing Signed-off-by" "$OUT"
}

test_wrong_stable_line() {
	local f
	f=$(broken 0003-mm-drop-all-references-of-writable-and-SCAN_PAGE_RO.patch \
		's/^commit 473b73222f3d8cc66bcd840bf9c3260619620789 upstream\.$/commit 473b73222f3d upstream./')
	run_kit "$LINT" "$f"
	expect_rc 1 "lint of a short stable line"
	grep -q "^$f:6: backport of a merged commit must start its body with \"commit <40-hex sha> upstream.\" \[stable-line\]$" <<< "$OUT" ||
		fail "stable line not caught" "$OUT"
}

test_missing_deviation_note() {
	local f
	f=$(broken 0003-mm-drop-all-references-of-writable-and-SCAN_PAGE_RO.patch '/^\[ mm-backport-kit: /,/ \]$/d')
	run_kit "$LINT" "$f"
	expect_rc 1 "lint of a backport without its note"
	grep -q "^$f:[0-9]*: the diff differs from the upstream patch: .*\[deviation-note\]$" <<< "$OUT" ||
		fail "missing note not caught" "$OUT"
}

test_kit_patches_clean() {
	run_kit make -s -C "$KIT_DIR" lint
	expect_rc 0 "make lint"
}

# checkpatch runs with --strict (what mm maintainers run): a CHECK-only
# finding (continuation line out of alignment) is reported
test_strict_check_reported() {
	local f n
	n=$(grep -n '^+[[:space:]]*FAULT_FLAG_WRITE | FAULT_FLAG_REMOTE,$' \
		"$KIT_DIR/backports/6.1/0001-mm-ksm-simplify-break_ksm-to-not-rely-on-VM_FAULT_WR.patch" | cut -d: -f1)
	[ -n "$n" ] || fail "backports/6.1/0001 no longer has the line this test edits"
	f=$(broken 0001-mm-ksm-simplify-break_ksm-to-not-rely-on-VM_FAULT_WR.patch "${n}s/^+[[:space:]]*/+\t\t\t\t/")
	run_kit "$LINT" "$f"
	expect_rc 1 "lint of a patch with a misaligned continuation line"
	grep -q "^$f:[0-9]*: CHECK:PARENTHESIS_ALIGNMENT: .*\[checkpatch\]$" <<< "$OUT" ||
		fail "the --strict CHECK was not reported" "$OUT"
}

# every checkpatch waiver of the table names a type and gives its reason
test_waivers_have_reasons() {
	local bad
	bad=$(header_rules |
		awk -F'\t' '$3 == "checkpatch-waive" && ($4 !~ /^[A-Z_]+$/ || length($5) < 20) { print $1 }')
	[ -z "$bad" ] || fail "waivers without a type or a reason: $bad"
}
