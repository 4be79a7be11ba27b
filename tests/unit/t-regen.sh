# SPDX-License-Identifier: GPL-2.0
# The committed backports are exactly what the semantic patches produce.

test_regen_matches_committed() {
	local b
	for b in $SUPPORTED_BRANCHES; do
		run_kit "$KIT_DIR/bin/regen" --check --branch "$b"
		expect_rc 0 "regen --check $b"
		# the reference data the plan reads: compared wherever the cached
		# tree is the version it is of (always for a pinned tarball)
		if [ "$(branch_field "$b" source)" = tarball ] ||
		   [ "$(sums_version "$KIT_DIR/backports/$b/touched.sums")" = "$(kernel_version "$(pristine_dir "$b")")" ]; then
			expect_out "backports/$b/reference.json, touched.sums: identical" "regen --check $b compares the reference data"
		fi
		# the kABI variants too (the patches after them must apply as they are)
		[ -d "$KIT_DIR/backports/$b/kabi" ] || continue
		run_kit "$KIT_DIR/bin/regen" --check --profile kabi --branch "$b"
		expect_rc 0 "regen --check --profile kabi $b"
		expect_out 'kabi|1 regenerated' "regen --check --profile kabi $b"
	done
}

# a kABI variant that no longer matches its recipe fails regen --check
test_regen_checks_kabi_variant() {
	local k=$T/kit-kabi
	rm -rf "$k"
	cp -a "$KIT_DIR" "$k"
	rm -rf "$k/out" "$k/.git"
	sed -i 's/kept so SCAN_\* keep their values/kept for no reason/' \
		"$k/backports/6.1/kabi/0003-mm-drop-all-references-of-writable-and-SCAN_PAGE_RO.patch"
	run_kit "$k/bin/regen" --check --profile kabi --branch 6.1
	expect_rc 1 "regen --check of a changed kABI variant"
	expect_out 'backports/6.1/kabi/0003-[^:]*: differs' "regen names the variant"
}

# reference data that is not what the branch's tree and series give fails
# regen --check, naming the file (a kit copy whose 6.6 data lost a line
# hash, and whose touched.sums has a changed sum)
test_regen_checks_reference_data() {
	local k
	k=$(kit_copy kit-ref)
	sed -i '0,/"lines": "[0-9a-f]* /s/"lines": "[0-9a-f]* /"lines": "/' "$k/backports/6.6/reference.json"
	sed -i '0,/^[0-9a-f]\{64\}  /s/^[0-9a-f]/0/' "$k/backports/6.6/touched.sums"
	run_kit "$k/bin/regen" --check --branch 6.6
	expect_rc 1 "regen --check of changed reference data"
	expect_out '^backports/6\.6/reference\.json: differs' "regen names reference.json"
	expect_out '^backports/6\.6/touched\.sums: differs' "regen names touched.sums"
}

test_cocci_cases() {
	run_kit "$KIT_DIR/tests/cocci/run.sh"
	expect_rc 0 "tests/cocci/run.sh"
}

# a hand-written backport whose recipe no longer reproduces it fails
# regen --check (a kit copy with the slowpath comment edit broken)
test_regen_checks_hand_written() {
	local k
	k=$(kit_copy kit-copy)
	sed -i 's/so queue behind it\./so queue behind it!/' "$k/cocci/text/rwsem-slowpath-comment.sed"
	run_kit "$k/bin/regen" --check --branch 6.12
	expect_rc 1 "regen --check with a broken recipe"
	grep -q '^backports/6.12/0006-.*: its recipe (tables/recipes.table) does not reproduce it in kernel/locking/rwsem.c$' <<< "$OUT" ||
		fail "no reproduction failure for 0006" "$OUT"
}

# the semantic patches run through the kernel's own "make coccicheck" in
# each of its four modes (lib/coccicheck.sh passes the kit's macro
# file through SPFLAGS): patch mode gives a diff that applies and carries
# the change, report/org name the three places, context marks them
test_coccicheck_modes() {
	local d cocci=$KIT_DIR/cocci/khugepaged-no-scan-page-ro.cocci
	d=$(fresh 6.12 coccicheck)
	run_kit "$KIT_DIR/bin/coccicheck" --kdir "$d" -M mm --mode patch "$cocci"
	expect_rc 0 "coccicheck MODE=patch"
	printf '%s\n' "$OUT" | sed -n '/^diff -u -p a\/mm\/khugepaged.c/,$p' > "$T/cc.patch"
	[ -s "$T/cc.patch" ] || fail "no diff from MODE=patch" "$OUT"
	patch -d "$d" -p1 -F0 -s < "$T/cc.patch" || fail "the MODE=patch diff does not apply"
	run_kit in_kit plan detect_tree "$d"
	printf '%s\n' "$OUT" | awk -F'\t' '$1 ~ /^0002-/ && $2 == "present" { f = 1 } END { exit !f }' ||
		fail "MODE=patch result lacks 0002" "$OUT"
	d=$(fresh 6.12 coccicheck)
	run_kit "$KIT_DIR/bin/coccicheck" --kdir "$d" -M mm --mode report "$cocci"
	expect_rc 0 "coccicheck MODE=report"
	[ "$(printf '%s\n' "$OUT" | grep -cE '^mm/khugepaged.c:[0-9]+:[0-9]+-[0-9]+: SCAN_PAGE_RO is still produced or handled')" -eq 3 ] ||
		fail "MODE=report: not 3 reports" "$OUT"
	run_kit "$KIT_DIR/bin/coccicheck" --kdir "$d" -M mm --mode org "$cocci"
	expect_rc 0 "coccicheck MODE=org"
	[ "$(printf '%s\n' "$OUT" | grep -c '^\* TODO \[\[view:mm/khugepaged.c::face=ovl-face1::linb=[0-9]*::')" -eq 3 ] ||
		fail "MODE=org: not 3 TODO lines" "$OUT"
	run_kit "$KIT_DIR/bin/coccicheck" --kdir "$d" -M mm --mode context "$cocci"
	expect_rc 0 "coccicheck MODE=context"
	grep -q '^-		result = SCAN_PAGE_RO;$' <<< "$OUT" || fail "MODE=context does not mark the test" "$OUT"
	# the macro file reaches spatch: show_smaps_rollup() (`} for_each_vma(vmi,
	# vma);`) parses only with it
	run_kit "$KIT_DIR/bin/coccicheck" --kdir "$d" -M fs/proc --mode report "$KIT_DIR/cocci/mmap-read-lock-nosteal.cocci"
	grep -q '^fs/proc/task_mmu.c:[0-9]*:[0-9-]*: mmap read lock retaken after contention' <<< "$OUT" ||
		fail "show_smaps_rollup() not reported through the wrapper" "$OUT"
	run_kit make -s -C "$d" coccicheck MODE=report COCCI="$KIT_DIR/cocci/mmap-read-lock-nosteal.cocci" M=fs/proc J=1
	grep -q '^fs/proc/task_mmu.c' <<< "$OUT" && fail "show_smaps_rollup() parsed without the macro file: the test proves nothing"
	return 0
}

# make coccicheck BRANCH=b runs on the branch's (pristine, read-only) tree
# (it once failed with "has no scripts/coccicheck")
test_coccicheck_branch() {
	run_kit "$KIT_DIR/bin/coccicheck" --branch 6.12 -M mm --mode report "$KIT_DIR/cocci/khugepaged-no-scan-page-ro.cocci"
	expect_rc 0 "make coccicheck BRANCH=6.12"
	expect_out 'khugepaged.c:[0-9]+' "coccicheck reports on the 6.12 tree"
}
