# SPDX-License-Identifier: GPL-2.0
# Vendor trees: drifted copies of the Debian trees (vendor hooks, renamed
# locals, extra statements and #ifdef CONFIG_VENDOR_X blocks next to the
# code the series changes) do not take the branch series at fuzz 0; apply
# re-targets it from the semantic patches and applies the same change.
# Trees between the supported branches get the nearest older series.


# vendor_defs: the vendor hooks drift_tree calls, no-op macros (as
# Android's are without CONFIG_ANDROID_VENDOR_HOOKS) so that the drifted
# tree compiles
vendor_defs() {	# vendor_defs FILE NAME...
	local f=$1 n line
	shift
	# after the first #include: before any use (rwsem.c has #includes at
	# its end too)
	line=$(sed -n '/^#include/{=;q}' "$f")
	[ -n "$line" ] || fail "test setup: $f has no #include"
	for n in "$@"; do
		sed -i "${line}a #define $n(...) do { } while (0) /* vendor hook */" "$f"
	done
}

# drift_tree DIR: vendor-style drift next to the code of 0001-0003, edited
# with sed -i on the files patches touch (private copies in a scratch copy)
drift_tree() {
	local kh=$1/mm/khugepaged.c ksm=$1/mm/ksm.c
	vendor_defs "$kh" trace_android_vh_khugepaged_isolate
	vendor_defs "$ksm" trace_android_vh_break_ksm vendor_ksm_stat_inc
	sed -i \
	    -e '/^static int __collapse_huge_page_isolate(/,/^}/{' \
	    -e 's/\bnone_or_zero\b/nr_none_zero/g' \
	    -e '/^\tbool writable = false;$/a #ifdef CONFIG_VENDOR_X\n\tint vendor_hint = 0;\n#endif' \
	    -e '/^\tif (unlikely(!writable)) {$/i \\ttrace_android_vh_khugepaged_isolate(vma, referenced, \&result);' \
	    -e '}' \
	    -e '/^static int [a-z_]*scan_pmd(/,/^}/{' \
	    -e 's/\bunmapped\b/nr_unmapped/g' \
	    -e '/^\tif (!writable) {$/i #ifdef CONFIG_VENDOR_X\n\tif (vendor_x_cold_mm(mm))\n\t\treferenced = 0;\n#endif' \
	    -e '}' "$kh"
	sed -i \
	    -e '/^static int break_ksm(/,/^}/{' \
	    -e 's/\*page;$/*kpage;/' -e 's/\bpage = /kpage = /' -e 's/(page)/(kpage)/g' \
	    -e '/^\tdo {$/i \\ttrace_android_vh_break_ksm(vma, addr);\n\tvendor_ksm_stat_inc();' \
	    -e '}' "$ksm"
	{ grep -q 'trace_android_vh_khugepaged_isolate' "$kh" && grep -q 'vendor_x_cold_mm' "$kh" &&
		grep -q 'nr_none_zero' "$kh"; } || fail "test setup: khugepaged.c drift not made"
	grep -q 'trace_android_vh_break_ksm' "$ksm" || fail "test setup: ksm.c drift not made"
}

# drift_rwsem DIR: a vendor hook inside the code 0006 changes
drift_rwsem() {
	vendor_defs "$1/kernel/locking/rwsem.c" trace_android_vh_rwsem_read_wait_start
	sed -i '/^rwsem_down_read_slowpath(/,/^}/s/^\tDEFINE_WAKE_Q(wake_q);$/&\n\ttrace_android_vh_rwsem_read_wait_start(sem);/' \
		"$1/kernel/locking/rwsem.c"
	grep -q '^	trace_android_vh_rwsem_read_wait_start' "$1/kernel/locking/rwsem.c" ||
		fail "test setup: rwsem.c drift not made"
}

# conflict_rwsem DIR: a vendor slowpath with a parameter of its own, in the
# very line 0006 changes: neither the semantic patch nor re-anchoring fits
conflict_rwsem() {
	sed -i -e 's/^rwsem_down_read_slowpath(struct rw_semaphore \*sem, long count, unsigned int state)$/rwsem_down_read_slowpath(struct rw_semaphore *sem, long count, unsigned int state, int vendor_prio)/' \
	    -e 's/rwsem_down_read_slowpath(sem, count, state)/rwsem_down_read_slowpath(sem, count, state, 0)/' \
		"$1/kernel/locking/rwsem.c"
	grep -q 'int vendor_prio)$' "$1/kernel/locking/rwsem.c" || fail "test setup: rwsem.c conflict not made"
}

# set_patchlevel DIR N: the top Makefile is hard-linked to the pristine tree:
# write a new file and rename it over the link
set_patchlevel() {
	sed "s/^PATCHLEVEL = .*/PATCHLEVEL = $2/" "$1/Makefile" > "$1/Makefile.kit-new"
	mv -f "$1/Makefile.kit-new" "$1/Makefile"
}

# quilt_fails BRANCH DIR: a plain quilt push of the branch series at fuzz 0
# fails on (a copy of the touched files of) DIR
quilt_fails() {
	local q=$2-quilt f
	rm -rf "$q"; mkdir -p "$q"
	for f in $(kit_touched_files); do
		[ -f "$2/$f" ] || continue
		mkdir -p "$q/$(dirname "$f")"; cp "$2/$f" "$q/$f"
	done
	if ( cd "$q" && QUILT_PATCHES=$KIT_DIR/backports/$1 QUILT_PC=.pc QUILTRC=/dev/null \
	     quilt push -a --fuzz=0 ) > "$q.log" 2>&1; then
		fail "quilt push --fuzz=0 of backports/$1 applied to the drifted tree: the drift is void"
	fi
	grep -q FAILED "$q.log" || fail "quilt failed without a FAILED hunk: $(tail -n3 "$q.log")"
	rm -rf "$q" "$q.log"
}

# undrift FILE: FILE with the vendor drift of drift_tree taken out again
# (renames undone in the functions drift_tree renamed in, vendor lines and
# CONFIG_VENDOR_X blocks deleted)
undrift() {
	sed -e '/^#ifdef CONFIG_VENDOR_X$/,/^#endif$/d' -e '/ \/\* vendor hook \*\/$/d' \
	    -e '/trace_android_vh_/d' -e '/^\tvendor_ksm_stat_inc();$/d' \
	    -e '/^static int __collapse_huge_page_isolate(/,/^}/s/\bnr_none_zero\b/none_or_zero/g' \
	    -e '/^static int [a-z_]*scan_pmd(/,/^}/s/\bnr_unmapped\b/unmapped/g' \
	    -e '/^static int break_ksm(/,/^}/s/\bkpage\b/page/g' "$1"
}

# same_change PRISTINE DRIFTED CLEAN RESULT FILE: the re-targeted RESULT is
# the clean apply CLEAN plus the vendor drift: without the drift they are
# the same file (and so are the drifted and the pristine file)
same_change() {
	cmp -s <(undrift "$2/$5") "$1/$5" || fail "test setup: undrift does not undo the drift of $5"
	cmp -s "$2/$5" "$1/$5" && fail "test setup: $5 has no drift"
	cmp -s <(undrift "$4/$5") "$3/$5" ||
		fail "$5: the re-targeted result is not the clean apply plus the vendor lines:" \
			"$(diff <(undrift "$4/$5") "$3/$5" | sed -n 1,20p)"
	grep -q 'trace_android_vh_' "$4/$5" || fail "$5: the vendor hooks are gone"
}

# vendor_case BRANCH RETARGETED...: drift a copy of BRANCH, check quilt
# fails, apply re-targets the given patches (numbers) and gives the same
# change as on the clean tree, unapply restores the drifted tree
vendor_case() {
	local b=$1 d clean orig sum n f
	shift
	d=$(fresh "$b" "vendor-$b")
	drift_tree "$d"
	orig=$T/vendor-$b-orig
	rm -rf "$orig"; mkdir -p "$orig/mm"
	cp "$d/mm/khugepaged.c" "$d/mm/ksm.c" "$orig/mm/"
	quilt_fails "$b" "$d"
	sum=$(tree_sum "$d")
	# FORCE=1: the drift makes the files differ from Debian's tree of the
	# same version, which apply otherwise refuses as local changes
	run_kit "$KIT_DIR/bin/apply" --force --kdir "$d"
	expect_rc 0 "apply on the drifted $b tree"
	for n in "$@"; do
		grep -qE "^$n-[^ ]+ +re-targeted from cocci \(out/vendor-$b/$n-" <<< "$OUT" ||
			fail "$n not reported re-targeted" "$OUT"
		grep -q "^\[ re-targeted from backports/$b/$n-" "$OUT_DIR/vendor-$b/$n"-*.patch ||
			fail "no re-targeting note in out/vendor-$b/$n-*"
	done
	[ -s "$OUT_DIR/vendor-$b/series" ] || fail "no out/vendor-$b/series"
	in_kit plan detect_tree "$d" | grep -F -f <(series_patches "$(series_file "$b")") |
		awk '$2 != "present" { print; bad = 1 } END { exit bad }' ||
		fail "detect_tree does not find every change of the series after the re-targeted apply"
	clean=$(applied_ref "$b")	# the clean apply
	for f in mm/khugepaged.c mm/ksm.c; do
		same_change "$(pristine_dir "$b")" "$orig" "$clean" "$d" "$f"
	done
	unapply_to "$d" "$sum" "re-targeted apply + unapply on $b"
}

# 5.10 and 6.1 (0001-0003 re-targeted): t-vendor-all.sh (make test FULL=1)

# 6.12 already has 0001 (reported as such); 0002 and 0003 are re-targeted
test_drifted_6_12() {
	vendor_case 6.12 0002 0003
}

# a vendor hook in the rwsem read slowpath: 0006 lands re-targeted (its
# recipe or re-anchoring) and compiles; the result is the clean one plus
# the hook
test_drifted_rwsem_lands() {
	local d orig clean f
	d=$(fresh 6.12 vendor-rwsem)
	drift_tree "$d"
	drift_rwsem "$d"
	orig=$T/vendor-rwsem-orig
	rm -rf "$orig"; mkdir -p "$orig/kernel/locking"
	cp "$d/kernel/locking/rwsem.c" "$orig/kernel/locking/"
	run_kit "$KIT_DIR/bin/apply" --force --kdir "$d"
	expect_rc 0 "apply with a drifted rwsem.c"
	grep -qE '^0006-[^ ]+ +(re-targeted from cocci|re-anchored) \(out/vendor-rwsem/0006-' <<< "$OUT" ||
		fail "0006 not re-targeted" "$OUT"
	clean=$(applied_ref 6.12)
	f=kernel/locking/rwsem.c
	cmp -s <(grep -v 'trace_android_vh_rwsem_read_wait_start' "$d/$f") <(grep -v 'trace_android_vh_rwsem_read_wait_start' "$clean/$f") ||
		fail "$f: the re-targeted result is not the clean one plus the hook:" \
			"$(diff <(grep -v trace_android_vh_rwsem_read_wait_start "$clean/$f") <(grep -v trace_android_vh_rwsem_read_wait_start "$d/$f") | head -n 20)"
	grep -q '^	trace_android_vh_rwsem_read_wait_start(sem);$' "$d/$f" || fail "$f: the vendor hook is gone"
}

# topic_files TOPIC -> the files only TOPIC's 6.12 patches touch
topic_files() {
	local p t
	for t in $(all_topics); do
		for p in $(topic_patches "$t"); do
			[ ! -f "$KIT_DIR/backports/6.12/$p" ] ||
				patch_files "$KIT_DIR/backports/6.12/$p" | sed "s|^|$t |"
		done
	done | sort -u | awk -v t="$1" '{ n[$2]++; if ($1 == t) mine[$2] = 1 }
		END { for (f in mine) if (n[f] == 1) print f }' | sort
}

# a 6.4 tree (a 6.1 copy with PATCHLEVEL = 4) takes the 6.1 series
test_between_branches_uses_older_series() {
	local d sum
	d=$(fresh 6.1 linux-6.4)
	set_patchlevel "$d" 4
	sum=$(tree_sum "$d")
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc 0 "apply on a 6.4 tree"
	expect_out '^topic ksm-break-ksm +applied: 6\.1$' "the 6.1 series (nearest code)"
	[ "$(printf '%s\n' "$OUT" | grep -c ' applied$')" -eq 7 ] || fail "not 7 patches applied" "$OUT"
	unapply_to "$d" "$sum" "apply + unapply on 6.4"
}

# between branches but without the code the kit changes: unsupported
test_between_branches_without_the_code() {
	local d sum
	d=$(fresh 6.1 linux-6.4-nocode)
	set_patchlevel "$d" 4
	sed -i 's/\bbreak_ksm\b/vendor_unshare_ksm/g' "$d/mm/ksm.c"
	sum=$(tree_sum "$d")
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_one_line_error "Linux 6.4.[0-9]+, an unsupported branch \(mm/ksm.c:break_ksm not found\); supported branches: $SUPPORTED_BRANCHES"
	expect_sum "$d" "$sum" "unsupported 6.4"
}

# re-targeting alone on a tree the series applies to: everything as-is
test_retarget_clean_tree_as_is() {
	local d
	d=$(fresh 6.12 retarget-clean)
	run_kit in_kit retarget retarget_run "" 1 "$d"
	expect_rc 0 "retarget_run on a clean tree"
	[ "$(result_names "$OUT_DIR/retarget-clean/results.tsv" patch applied | wc -l)" -eq 6 ] ||
		fail "$(cat "$OUT_DIR/retarget-clean/results.tsv")"
	for f in $(series_patches "$OUT_DIR/retarget-clean/series"); do
		cmp -s "$OUT_DIR/retarget-clean/$f" "$KIT_DIR/backports/6.12/$f" || fail "$f is not the branch patch"
	done
}

# a vendor function with a switch of the shape 0002's semantic patch edits
# (a `case SCAN_PAGE_RO:` label among others) would be rewritten too:
# re-targeting refuses a result that changes other code than the branch
# patch does, and the tree stays as it was
test_retarget_refuses_other_changes() {
	local d sum
	d=$(fresh 6.12 vendor-other)
	drift_tree "$d"
	printf '\n%s\n{\n\t%s\n\t%s\n\t%s\n\t%s\n\t%s\n\t%s\n\t%s\n\t%s\n\t%s\n}\n' \
		'static int __maybe_unused vendor_x_errno(int r)' 'switch (r) {' 'case SCAN_SUCCEED:' \
		'case SCAN_PAGE_RO:' 'case SCAN_LACK_REFERENCED_PAGE:' '	return 0;' 'default:' \
		'	break;' '}' 'return -EINVAL;' >> "$d/mm/khugepaged.c"
	sum=$(tree_sum "$d")
	run_kit "$KIT_DIR/bin/apply" --force --topics khugepaged-ro-collapse --kdir "$d"
	expect_rc 1 "apply with a look-alike vendor function"
	grep -qE '^0002-[^ ]+ +failed: .*re-targeting was refused: the result changes other code than backports/6.12/0002-[^:]*: .*vendor_x_errno' <<< "$OUT" ||
		fail "0002 not refused for touching vendor_x_errno()" "$OUT"
	expect_sum "$d" "$sum" "refused re-targeting"
}
