# SPDX-License-Identifier: GPL-2.0
# Already-upstream detection works on the code, not on patch text.

# detected BRANCH-TREE NAME-PREFIX -> present|absent|unknown
detected() {
	in_kit plan detect_tree "$1" | awk -F'\t' -v p="$2" 'index($1, p) == 1 { print $2 }'
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
	local d p
	d=$(by_hand 6.1 by-hand)
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

# detected_all TREE -> "NNNN verdict" for every patch
detected_all() {
	in_kit plan detect_tree "$1" | awk -F'\t' '{ print substr($1, 1, 4), $2 }' | paste -sd' '
}

# the mmap_lock series (0004-0008) on the unpatched trees: absent, except
# 0004 where khugepaged still has its own slot struct (6.1, 6.12: the
# revert's result is there) and 0007 where the BPF task_vma iterator it
# converts does not exist (5.10)
test_detect_mmap_lock_series_unpatched() {
	local b want got
	while read -r b want; do
		got=$(detected_all "$(pristine_dir "$b")" | cut -d' ' -f7-)
		[ "$got" = "$want" ] || fail "$b: got '$got', expected '$want'"
	done <<-EOT
	5.10 0004 absent 0005 absent 0006 absent 0007 unknown 0008 absent
	6.1 0004 present 0005 absent 0006 absent 0007 absent 0008 absent
	6.12 0004 present 0005 absent 0006 absent 0007 absent 0008 absent
	7.2 0004 absent 0005 absent 0006 absent 0007 absent 0008 absent
	EOT
}

# every patch a branch carries is found once the branch series is applied
test_detect_mmap_lock_series_patched() {
	local b d name
	for b in $SUPPORTED_BRANCHES; do
		d=$(by_hand "$b" "detect-patched-$b")
		for name in $(series_patches "$(series_file "$b")"); do
			[ "$(detected "$d" "${name%%-*}")" = present ] || fail "$b: ${name%%-*} not recognised after the series"
		done
	done
}

# 5.15's iterator keeps mmap_read_lock_killable(curr_task->mm): it holds no
# reference on that mm (see backports/5.15/0007-*); detect.table accepts
# that relock only in that form: a 6.1 iterator (curr_mm, with a
# reference) retaking the lock with the plain call is not the change
test_detect_unconverted_iterator_only_without_mm_reference() {
	local d
	d=$(by_hand 6.1 detect-iter-plain)
	[ "$(detected "$d" 0007)" = present ] || fail "6.1: 0007 not recognised after the series"
	sed -i 's/mmap_read_lock_killable_nosteal(curr_mm)/mmap_read_lock_killable(curr_mm)/' "$d/kernel/bpf/task_iter.c"
	grep -q 'mmap_read_lock_killable_nosteal' "$d/kernel/bpf/task_iter.c" &&
		fail "test setup: the 6.1 iterator still retakes with the nosteal call"
	[ "$(detected "$d" 0007)" = absent ] || fail "6.1: 0007 recognised with the plain relock of curr_mm"
	grep -q 'mmap_read_lock_killable(curr_task->mm)' "$(pristine_dir 5.15)/kernel/bpf/task_iter.c" ||
		fail "test setup: 5.15's iterator does not relock curr_task->mm"
}

# another form of the same change (other names for the helpers, the
# counter, the flag and the saved address) is recognised too
test_detect_other_form_of_the_series() {
	local d f
	d=$(by_hand 6.12 detect-other-form)
	sed -i -e 's/khugepaged_scan_skip_vma/khugepaged_skip_vma/g' -e 's/khugepaged_scan_relock/khugepaged_yield_mmap_lock/g' \
	    -e 's/\bnr_skipped\b/skipped/g' -e 's/\bcontended\b/trylock_failed/g' \
	    -e 's/mm_slot->address\b/mm_slot->resume_addr/g' -e 's/next->address\b/next->resume_addr/g' \
	    -e 's/^\tunsigned long address;$/\tunsigned long resume_addr;/' "$d/mm/khugepaged.c"
	{ grep -q resume_addr "$d/mm/khugepaged.c" && grep -q khugepaged_yield_mmap_lock "$d/mm/khugepaged.c"; } ||
		fail "test setup: the other form was not made"
	for f in 0005 0008; do
		[ "$(detected "$d" $f)" = present ] || fail "$f not recognised in its other form"
	done
	# and taking the resume cursor out again is noticed
	sed -i 's/khugepaged_scan.address = mm_slot->resume_addr;/khugepaged_scan.address = 0;/; s/khugepaged_scan.address = next->resume_addr;/khugepaged_scan.address = 0;/' "$d/mm/khugepaged.c"
	[ "$(detected "$d" 0005)" = absent ] || fail "0005 still recognised without the resume cursor"
}

# a tree without the code a patch changes: unknown
test_detect_unknown_without_the_code() {
	local d
	d=$(fresh 6.12 detect-nocode-series)
	sed -i 's/\btask_vma_seq_get_next\b/vendor_vma_walk/g' "$d/kernel/bpf/task_iter.c"
	sed -i 's/\brwsem_down_read_slowpath\b/vendor_read_slowpath/g' "$d/kernel/locking/rwsem.c"
	[ "$(detected "$d" 0007)" = unknown ] || fail "0007 not unknown without task_vma_seq_get_next"
	[ "$(detected "$d" 0006)" = unknown ] || fail "0006 not unknown without rwsem_down_read_slowpath"
}

# plan.sh decides from the code: a 7.x tree older than 7.2 (no struct
# khugepaged_mm_slot) carries 0004 from 7.2; a tree that has the struct
# says n/a with file:line; a tree without the task_vma iterator says n/a
# for 0007 naming the file, but still needs 0006 when its readers can spin
# ahead of a queued writer (5.10: 0008 retakes the lock with it); the whole
# upstream series is listed in order
test_plan_from_the_code() {
	local d out
	d=$(fresh 7.2 plan-71)
	sed "s/^PATCHLEVEL = .*/PATCHLEVEL = 1/" "$d/Makefile" > "$d/Makefile.new" && mv -f "$d/Makefile.new" "$d/Makefile"
	out=$(in_kit plan plan_tree "$d") || fail "plan_tree on 7.1 failed: $out"
	[ "$(printf '%s\n' "$out" | cut -f1)" = "$(series_patches "$KIT_DIR/series")" ] ||
		fail "plan_tree does not list ./series in order:" "$out"
	grep -qE $'^0004-[^\t]+\tcarry\t7\\.2$' <<< "$out" || fail "7.1: 0004 not carried from 7.2" "$out"
	grep -qE $'^0001-[^\t]+\tupstream\tmm/ksm.c:[0-9]+ has ' <<< "$out" || fail "7.1: 0001 not upstream with evidence" "$out"
	out=$(in_kit plan plan_tree "$(pristine_dir 6.12)")
	grep -qE $'^0004-[^\t]+\tn/a\tstruct khugepaged_mm_slot is still defined .*\\(mm/khugepaged.c:[0-9]+\\)$' <<< "$out" ||
		fail "6.12: 0004 not n/a with file:line" "$out"
	out=$(in_kit plan plan_tree "$(pristine_dir 5.10)")
	grep -qE $'^0007-[^\t]+\tn/a\t.*kernel/bpf/task_iter.c has no task_vma_seq_get_next\\(\\)' <<< "$out" ||
		fail "5.10: 0007 not n/a for the missing iterator" "$out"
	grep -qE $'^0006-[^\t]+\tcarry\t5\\.10$' <<< "$out" || fail "5.10: 0006 not carried from 5.10" "$out"
	grep -qE $'^0008-[^\t]+\tcarry\t5\\.10$' <<< "$out" || fail "5.10: 0008 not carried from 5.10" "$out"
}

# rt_tree_5_10 NAME -> a 5.10 copy with the RT rwsem excerpt of
# tests/vendor/debian-5.10-rt
rt_tree_5_10() {
	local d
	d=$(fresh 5.10 "$1")
	patch -d "$d" -p1 -F0 -s < "$KIT_DIR/tests/vendor/debian-5.10-rt/rwsem-rt.patch" ||
		fail "test setup: the RT rwsem excerpt does not apply to the 5.10 tree"
	printf '%s\n' "$d"
}

# expect_rt_na OUT WHAT REASON: plan_tree's OUT says n/a for 0006-0008,
# for the RT rwsem (REASON: a pattern of the reason) with file:line
expect_rt_na() {
	local p
	for p in 0006 0007 0008; do
		grep -qE "^$p-[^	]+	n/a	.*rwsem-rt.*$3 \(kernel/locking/rwsem-rt\.c:[0-9]+\)\$" <<< "$1" ||
			fail "$2: $p not n/a for the RT rwsem with file:line" "$1"
	done
}

# An out-of-tree PREEMPT_RT 5.10 tree (Debian's rt featureset: its rwsem-rt,
# tests/vendor/debian-5.10-rt): 5.10's 0006 still applies to its rwsem.c,
# and a PREEMPT_RT build would then lack __down_read_nosteal(); plan_tree
# finds the RT rwsem in the code and says n/a for 0006-0008 with
# file:line, while 0005 is still carried
test_plan_out_of_tree_rt_rwsem() {
	local d out
	d=$(rt_tree_5_10 plan-rt-5.10)
	patch -d "$d" -p1 --dry-run -s < "$KIT_DIR"/backports/5.10/0006-*.patch >/dev/null 2>&1 ||
		fail "5.10's 0006 does not apply to the RT tree: the fixture no longer shows the late failure"
	out=$(in_kit plan plan_tree "$d") || fail "plan_tree on the RT tree failed: $out"
	expect_rt_na "$out" 5.10-rt ''
	grep -qE $'^0005-[^\t]+\tcarry\t5\\.10$' <<< "$out" || fail "5.10-rt: 0005 not carried from 5.10" "$out"
}

# Other RT releases define rwsem-rt.c's __down_read() as
# "void __sched __down_read(": the probe finds that form too, and the
# reason says that the decision is per tree (with or without PREEMPT_RT)
test_plan_out_of_tree_rt_rwsem_sched_form() {
	local d out
	d=$(rt_tree_5_10 plan-rt-sched-5.10)
	sed -i 's/^void __down_read(struct rw_semaphore/void __sched __down_read(struct rw_semaphore/' "$d/kernel/locking/rwsem-rt.c"
	grep -q '^void __sched __down_read(struct rw_semaphore' "$d/kernel/locking/rwsem-rt.c" ||
		fail "test setup: __down_read() not in the __sched form"
	out=$(in_kit plan plan_tree "$d") || fail "plan_tree on the RT tree failed: $out"
	expect_rt_na "$out" "5.10-rt (__sched form)" '.*decided per tree.*'
}

# A tree whose rwbase_rt.c lost the reader shortcut of __rwbase_read_lock()
# to "locking/rwbase: Mitigate indefinite writer starvation" (the 6.1-rt
# queue's patch, tests/vendor/rt-6.1-rwbase; 5.15-rt carries the same
# change): 5.15's and 6.1's 0006, which change that shortcut, have no
# context there, and plan_tree carries 0006 from 6.6, whose form leaves
# rwbase_rt.c alone.  On 5.15 the code of the other files is nearest to
# 5.15's, so only the form-needs row of tables/plan.table keeps 5.15 out.
test_plan_rt_tree_without_the_reader_shortcut() {
	local b d out
	[ -d "$(pristine_dir 6.6)" ] || skip "no cached 6.6 tree (MMBK_TARBALLS)"
	for b in 5.15 6.1; do
		d=$(fresh "$b" "plan-rt-rwbase-$b")
		patch -d "$d" -p1 -F0 -s < "$KIT_DIR"/tests/vendor/rt-6.1-rwbase/0054-*.patch ||
			fail "test setup: the 6.1-rt rwbase patch does not apply to the $b tree"
		! patch -d "$d" -p1 -F0 --dry-run -s < "$KIT_DIR"/backports/"$b"/0006-*.patch >/dev/null 2>&1 ||
			fail "$b's 0006 applies to the tree without the reader shortcut: the fixture no longer shows the missing context"
		out=$(in_kit plan plan_tree "$d") || fail "plan_tree on the $b-rt tree failed: $out"
		grep -qE $'^0006-[^\t]+\tcarry\t6\\.6$' <<< "$out" || fail "$b-rt: 0006 not carried from 6.6" "$out"
	done
}

# the cached tree of a branch may be a newer point release than the one its
# backports were made on (Debian updates linux-source-6.12): once the plan
# scored branches on their cached trees, where the backports applied with
# offsets and patch(1)'s *.orig files read as definitions the tree lacks (a
# lightly drifted 6.12 tree was planned from 6.18's backports of
# 0005/0008).  The plan now reads the committed reference data only: a
# cache whose 6.12 tree has three lines more at the top of
# mm/khugepaged.c, next to the real 6.18 tree, changes nothing.
test_plan_when_the_backports_apply_with_offsets() {
	local c=$T/cache-offset d out kh
	[ -d "$(pristine_dir 6.18)" ] || skip "no cached 6.18 tree (MMBK_TARBALLS)"
	rm -rf "$c"
	mkdir -p "$c/trees/6.12" "$c/trees/6.18"
	cp -al "$(pristine_dir 6.12)" "$c/trees/6.12/linux" || fail "test setup: copy of the 6.12 tree"
	ln -s "$(pristine_dir 6.18)" "$c/trees/6.18/linux"
	kh=$c/trees/6.12/linux/mm/khugepaged.c
	chmod u+w "$(dirname "$kh")"
	{ sed '1i /* a newer point release */\n/* moves */\n/* every line */' "$kh" > "$kh.new" && mv -f "$kh.new" "$kh"; } ||
		fail "test setup: offset in the cached khugepaged.c"
	d=$(fresh 6.12 plan-offset)
	echo '/* vendor */' >> "$d/mm/khugepaged.c"
	out=$(MMBK_CACHE=$c bash -c '. "$1/lib/kit.sh"; kit_use plan; plan_tree "$2"' - "$KIT_DIR" "$d") || fail "plan_tree failed: $out"
	grep -qE $'^0005-[^\t]+\tcarry\t6\\.12$' <<< "$out" || fail "0005 not carried from 6.12" "$out"
	grep -qE $'^0008-[^\t]+\tcarry\t6\\.12$' <<< "$out" || fail "0008 not carried from 6.12" "$out"
}

