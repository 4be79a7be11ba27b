# SPDX-License-Identifier: GPL-2.0
# make selftests KDIR= (lib/kselftest.sh ksft_kdir_trees): the sources of
# the two kernels made from a tree of the user's.  A tree without the
# series is the unpatched kernel, and a copy of it gets the series; a tree
# with the kit's series applied is the patched kernel, and a copy of it
# has the series taken out.  The user's tree is only read: byte for byte
# the same after either, its kit state included.

# kdir_trees TREE -> "unpatched patched" sources of TREE (6.12), from a
# process of its own (as make selftests runs it: errexit in force)
kdir_trees() {
	# shellcheck disable=SC2016  # the child's own arguments
	bash -c 'set -euo pipefail; . "$1/lib/kit.sh"; kit_use kselftest; ksft_kdir_trees "$2" 6.12' _ \
		"$KIT_DIR" "$1" > "$T/trees" 2> "$T/err" || fail "ksft_kdir_trees $1 failed" "$(cat "$T/err")"
	paste -sd' ' "$T/trees"
}

# drop_copies TREE: the copies this test made in the kit's cache
drop_copies() {
	rm -rf "$(in_kit kselftest ksft_kdir_base "$1")"
}

test_kdir_without_the_series() {
	local k sum out u p
	k=$(mini 6.12 kd)
	sum=$(tree_sum "$k")
	out=$(kdir_trees "$k")
	read -r u p <<< "$out"
	[ "$u" = "$k" ] || fail "the unpatched kernel is not the user's tree" "$out"
	{ [ "$p" != "$k" ] && [ -f "$p/Makefile" ]; } || fail "no copy for the patched kernel" "$out"
	[ -n "$(in_kit state applied_patches "$p")" ] || fail "the copy for the patched kernel has no series" "$(cat "$T/err")"
	cmp -s "$k/mm/khugepaged.c" "$p/mm/khugepaged.c" && fail "the patched copy's khugepaged.c is the user's"
	expect_sum "$k" "$sum" "the user's tree"
	drop_copies "$k"
}

test_kdir_with_the_series() {
	local k sum out u p f
	k=$(mini 6.12 kd)
	cp -a "$k" "$T/orig"
	run_kit kit apply --kdir "$k"
	expect_rc 0 "the series applied to the user's tree"
	sum=$(tree_sum "$k")
	out=$(kdir_trees "$k")
	read -r u p <<< "$out"
	[ "$p" = "$k" ] || fail "the patched kernel is not the user's tree" "$out"
	{ [ "$u" != "$k" ] && [ -f "$u/Makefile" ]; } || fail "no copy for the unpatched kernel" "$out"
	[ -z "$(in_kit state applied_patches "$u")" ] || fail "the unpatched copy still carries the series"
	for f in mm/khugepaged.c mm/ksm.c; do
		cmp -s "$T/orig/$f" "$u/$f" || fail "$f of the unpatched copy is not the tree as it was before the series"
	done
	expect_sum "$k" "$sum" "the user's patched tree, kit state included"
	run_kit kit status --kdir "$k"
	expect_rc 0 "make status of the user's tree after"
	drop_copies "$k"
}

# refused_trees K WHAT REASON: ksft_kdir_trees refuses the tree K (WHAT)
# with a line matching REASON, and K is byte for byte as it was
refused_trees() {
	local sum
	sum=$(tree_sum "$1")
	# shellcheck disable=SC2016  # the child's own arguments
	run_kit bash -c 'set -euo pipefail; . "$1/lib/kit.sh"; kit_use kselftest; ksft_kdir_trees "$2" 6.12' _ "$KIT_DIR" "$1"
	[ "$RC" -ne 0 ] || fail "$2 gave two kernels to compare" "$OUT"
	expect_out "$3" "the reason named"
	expect_sum "$1" "$sum" "the user's tree"
	rm -rf "$(in_kit kselftest ksft_kdir_base "$1")"
}

test_kdir_with_nothing_to_compare() {
	local k
	k=$(mini 6.12 kd)
	run_kit kit apply --kdir "$k"
	expect_rc 0 "the series applied"
	# the series by hand: the kit's state gone, the changes left in
	in_kit state state_copy_to "$T/nowhere-$$" "$k"
	refused_trees "$k" "a tree that already has the series" 'nothing of the 6\.12 series is missing from'
}

test_kdir_with_an_interrupted_apply() {
	local k
	k=$(mini 6.12 kd)
	run_kit kit apply --kdir "$k"
	expect_rc 0 "the series applied"
	# what a killed apply leaves: the transaction mark
	echo "apply $$" > "$k/.mm-backport-kit/txn"
	refused_trees "$k" "a tree with an interrupted apply" 'holds an interrupted make apply of the kit; run make unapply'
}
