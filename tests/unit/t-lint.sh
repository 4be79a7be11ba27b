# SPDX-License-Identifier: GPL-2.0
# The table-driven header checker: clean on the kit's patches, and a broken
# header gives a "file:line: message" line.

LINT=$KIT_DIR/scripts/lint.sh

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
	end=$(grep -n '^---$' "$f" | head -n1 | cut -d: -f1)
	run_kit "$LINT" "$f"
	expect_rc 1 "lint of a patch without Signed-off-by"
	printf '%s\n' "$OUT" | grep -qxF "$f:$end: Signed-off-by: missing [signed-off-by]" ||
		fail "no file:line message for the missing Signed-off-by" "$OUT"
}

test_wrong_stable_line() {
	local f
	f=$(broken 0003-mm-drop-all-references-of-writable-and-SCAN_PAGE_RO.patch \
		's/^commit 473b73222f3d8cc66bcd840bf9c3260619620789 upstream\.$/commit 473b73222f3d upstream./')
	run_kit "$LINT" "$f"
	expect_rc 1 "lint of a short stable line"
	printf '%s\n' "$OUT" | grep -q "^$f:6: backport of a merged commit must start its body with \"commit <40-hex sha> upstream.\" \[stable-line\]$" ||
		fail "stable line not caught" "$OUT"
}

test_missing_deviation_note() {
	local f
	f=$(broken 0003-mm-drop-all-references-of-writable-and-SCAN_PAGE_RO.patch '/^\[ mm-backport-kit: /,/ \]$/d')
	run_kit "$LINT" "$f"
	expect_rc 1 "lint of a backport without its note"
	printf '%s\n' "$OUT" | grep -q "^$f:[0-9]*: the diff differs from the upstream patch: .*\[deviation-note\]$" ||
		fail "missing note not caught" "$OUT"
}

test_kit_patches_clean() {
	run_kit make -s -C "$KIT_DIR" lint
	expect_rc 0 "make lint"
}
