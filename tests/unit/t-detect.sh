# SPDX-License-Identifier: GPL-2.0
# Already-upstream detection works on the code, not on patch text.

DETECT=$KIT_DIR/scripts/detect.sh

# detected BRANCH-TREE NAME-PREFIX -> present|absent|unknown
detected() {
	"$DETECT" "$1" | awk -v p="$2" 'index($1, p) == 1 { print $2 }'
}

test_detect_per_branch() {
	local b want got p
	# branch: expected verdict for 0001 0002 0003
	while read -r b want; do
		got=
		for p in 0001 0002 0003; do got="$got $(detected "$(pristine_dir "$b")" $p)"; done
		[ "$got" = " $want" ] || fail "$b: got$got, expected $want"
	done <<-EOT
	5.10 absent absent absent
	5.15 absent absent absent
	6.1 absent absent absent
	6.6 present absent absent
	6.12 present absent absent
	6.18 present present present
	7.2 present present present
	EOT
}

# Detection reads the code: a 7.2 tree with SCAN_PAGE_RO brought back is
# noticed, while the rest of the change is still recognised.
test_reintroduced_code_is_noticed() {
	local d
	d=$T/detect-72
	rm -rf "$d"; mkdir -p "$d"
	( cd "$(pristine_dir 7.2)" && cp -a --parents Makefile mm/ksm.c mm/khugepaged.c "$d/" )
	sed -i '0,/SCAN_PTE_NON_PRESENT,/s//SCAN_PTE_NON_PRESENT,\n\tSCAN_PAGE_RO,/' "$d/mm/khugepaged.c"
	grep -q 'SCAN_PAGE_RO,' "$d/mm/khugepaged.c" || fail "test setup: enum not edited"
	[ "$(detected "$d" 0003)" = absent ] || fail "a reintroduced SCAN_PAGE_RO went unnoticed"
	[ "$(detected "$d" 0002)" = present ] || fail "0002 should still be recognised"
}

# a tree with the backports applied by hand (no quilt state) is recognised:
# apply reports each as already upstream and does nothing
test_hand_applied_tree_is_recognised() {
	local d name
	d=$(fresh 6.1 by-hand)
	for name in $(series_patches "$(series_file 6.1)"); do
		patch -d "$d" -p1 -F0 -s < "$KIT_DIR/backports/6.1/$name" || fail "patch $name"
	done
	for p in 0001 0002 0003; do
		[ "$(detected "$d" $p)" = present ] || fail "$p not recognised after a hand apply"
	done
}

test_superseded_break_ksm_forms() {
	# 6.12: folio_walk + FAULT_FLAG_UNSHARE; 7.2: walk_page_range_vma
	grep -q folio_walk_start "$(pristine_dir 6.12)/mm/ksm.c" || fail "6.12 break_ksm is not the folio_walk form"
	grep -q walk_page_range_vma "$(pristine_dir 7.2)/mm/ksm.c" || fail "7.2 break_ksm is not the range walk form"
	[ "$(detected "$(pristine_dir 6.12)" 0001)" = present ] || fail "6.12 folio_walk form not recognised"
	[ "$(detected "$(pristine_dir 7.2)" 0001)" = present ] || fail "7.2 range-walk form not recognised"
}

test_unknown_when_code_missing() {
	local d=$T/detect-nocode
	rm -rf "$d"; mkdir -p "$d/mm"
	cp "$(pristine_dir 6.1)/Makefile" "$d/"
	printf 'int main_ksm;\n' > "$d/mm/ksm.c"; : > "$d/mm/khugepaged.c"
	[ "$(detected "$d" 0001)" = unknown ] || fail "missing break_ksm not reported as unknown"
}
