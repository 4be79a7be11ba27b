# SPDX-License-Identifier: GPL-2.0
# Bad input: every case gets one "error:" line naming the problem and the fix,
# its documented exit code (README "Exit codes": 64 bad input, 4 refused,
# 1 failed with the tree unchanged; through make: make's 2 with the
# command's status in its "Error N" line), and the tree is left exactly as
# it was.


test_no_tree_given() {
	run_kit "$KIT_DIR/bin/apply" --kdir ""
	expect_rc "$EXIT_USAGE" "apply KDIR=''"
	expect_one_line_error 'KDIR= is empty; set KDIR= to a kernel source tree'
}

test_missing_kdir() {
	run_kit "$KIT_DIR/bin/apply" --kdir /nonexistent/linux
	expect_rc "$EXIT_USAGE" "apply KDIR=/nonexistent/linux"
	expect_one_line_error 'KDIR=/nonexistent/linux does not exist'
}

test_not_a_kernel_tree() {
	local d=$T/not-a-tree sum
	rm -rf "$d"; mkdir -p "$d/mm"; echo 'all:' > "$d/Makefile"
	sum=$(tree_sum "$d")
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc "$EXIT_USAGE" "apply on a tree that is no kernel tree"
	expect_one_line_error 'is not a kernel source tree'
	expect_sum "$d" "$sum" "not a kernel tree"
}

test_unsupported_version() {
	local d=$T/linux-4.19 sum
	rm -rf "$d"; mkdir -p "$d/mm"
	printf 'VERSION = 4\nPATCHLEVEL = 19\nSUBLEVEL = 325\nEXTRAVERSION =\n' > "$d/Makefile"
	touch "$d/mm/khugepaged.c" "$d/mm/ksm.c"
	sum=$(tree_sum "$d")
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc "$EXIT_USAGE" "apply on Linux 4.19"
	expect_one_line_error "Linux 4.19.325, an unsupported branch; supported branches: $SUPPORTED_BRANCHES"
	expect_sum "$d" "$sum" "unsupported version"
}

test_unknown_branch_variable() {
	run_kit make -s -C "$KIT_DIR" apply BRANCH=4.19
	expect_make_rc "$EXIT_USAGE" "make apply BRANCH=4.19"
	expect_make_error "unsupported branch '4.19'; set BRANCH= to one of: $SUPPORTED_BRANCHES"
}

# a local change right inside the code the series rewrites, which the
# semantic patch cannot see through: that topic fails with its rejects and
# leaves no trace, the others land
test_conflicting_local_change() {
	local d sum
	d=$(mini 6.1 conflict)
	sed -i 's/if (unlikely(!writable)) {/if (unlikely(!writable \&\& !vendor_ro_ok(vma))) {/' "$d/mm/khugepaged.c"
	grep -q vendor_ro_ok "$d/mm/khugepaged.c" || fail "test setup: pattern not found"
	sum=$(tree_sum "$d")
	run_kit "$KIT_DIR/bin/apply" --force --strict --kdir "$d"
	expect_rc 1 "strict apply"
	grep -qE 'error: khugepaged-ro-collapse: 0002-.*does not apply at fuzz 0 \(rejects in .*/rejects/conflict/0002-[^)]*\) and re-targeting failed: .*; the tree is unchanged' <<< "$(tail -n1 <<< "$OUT")" ||
		fail "no error naming the failing patch" "$OUT"
	expect_sum "$d" "$sum" "failed apply"
	ls "$OUT_DIR"/rejects/conflict/0002-*/mm/khugepaged.c.rej >/dev/null || fail "no rejects kept"
}

# without FORCE=1 the same tree is refused before anything happens
test_dirty_tree_refused() {
	local d sum
	d=$(mini 6.1 dirty)
	echo '/* vendor: local note */' >> "$d/mm/ksm.c"
	sum=$(tree_sum "$d")
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc "$EXIT_REFUSED" "apply on local changes"
	expect_one_line_error "mm/ksm.c has local changes; commit or revert them first, or rerun with FORCE=1"
	expect_sum "$d" "$sum" "refused apply"
	run_kit "$KIT_DIR/bin/apply" --force --kdir "$d"
	expect_rc 0 "FORCE=1 apply"
	unapply_to "$d" "$sum" "FORCE=1 apply + unapply"
}

test_dirty_git_tree_refused() {
	local d sum
	d=$(mini 6.1 gitdirty)
	git_tree "$d"
	echo '/* wip */' >> "$d/mm/khugepaged.c"
	sum=$(tree_sum "$d")
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc "$EXIT_REFUSED" "apply on local changes in a git tree"
	expect_one_line_error "mm/khugepaged.c has local changes"
	expect_sum "$d" "$sum" "git tree"
}

test_read_only_tree() {
	local d sum
	d=$(mini 5.10 readonly)
	chmod a-w "$d/mm/khugepaged.c" "$d/mm"
	sum=$(tree_sum "$d")
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	chmod u+w "$d/mm" "$d/mm/khugepaged.c"
	expect_rc "$EXIT_ERROR" "apply on a read-only tree"
	expect_one_line_error "is read-only; make the tree writable \(chmod -R u\+w\) or apply to a copy"
	chmod a-w "$d/mm/khugepaged.c" "$d/mm"
	expect_sum "$d" "$sum" "read-only tree"
	chmod u+w "$d/mm" "$d/mm/khugepaged.c"
}

# a read-only mount is named as such (chmod cannot help there)
test_read_only_mount() {
	local m=$T/romount d sum
	mkdir -p "$m"
	mount -t tmpfs -o size=16m mmbk-ro "$m" 2>/dev/null || skip "cannot mount a tmpfs here"
	d=$m/linux
	cp -a "$(mini 6.1 ro-src)" "$d"
	mount -o remount,ro "$m" || { umount "$m"; skip "cannot remount read-only here"; }
	sum=$(tree_sum "$d")
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc "$EXIT_ERROR" "apply on a read-only mount"
	expect_one_line_error "is on a read-only file system; remount it read-write or apply to a copy"
	expect_sum "$d" "$sum" "read-only mount"
	umount "$m"
}

test_boot_build_only_with_no_build() {
	run_kit "$KIT_DIR/bin/boot" --branch 6.12 --build-only --no-build
	expect_rc "$EXIT_USAGE" "boot --build-only --no-build"
	expect_one_line_error -- '--build-only and --no-build exclude each other'
}

# the build target of an apply (ARCH=, LLVM=, KCONFIG=, VERIFY=) is bad
# input when it cannot be built, whether or not a compile will be needed
# (the patches of 6.1 apply as they are): one line, exit 64, the tree as
# it was; make check says the same
test_unbuildable_target() {
	local d sum bin f
	d=$(mini 6.1 bad-target)
	sum=$(tree_sum "$d")
	run_kit "$KIT_DIR/bin/apply" --kdir "$d" --arch sparc
	expect_rc "$EXIT_USAGE" "apply ARCH=sparc"
	expect_one_line_error 'unknown ARCH=sparc; use ARCH=x86_64 or ARCH=arm64'
	expect_sum "$d" "$sum" "apply ARCH=sparc"
	run_kit "$KIT_DIR/bin/apply" --kdir "$d" --kconfig no_such_defconfig
	expect_rc "$EXIT_USAGE" "apply KCONFIG=no_such_defconfig"
	expect_one_line_error 'KCONFIG=no_such_defconfig is neither a file nor a defconfig of .*/arch/x86/configs/; give a .config file or a defconfig name'
	expect_sum "$d" "$sum" "apply KCONFIG=no_such_defconfig"
	run_kit "$KIT_DIR/bin/apply" --kdir "$d" --llvm 2
	expect_rc "$EXIT_USAGE" "apply LLVM=2"
	expect_one_line_error 'LLVM=2: use LLVM=1'
	run_kit "$KIT_DIR/bin/apply" --kdir "$d" --verify lax
	expect_rc "$EXIT_USAGE" "apply VERIFY=lax"
	expect_one_line_error 'VERIFY=lax: use VERIFY=strict or leave it out'
	# a PATH without the arm64 cross compiler
	bin=$T/nocross-bin
	mkdir -p "$bin"
	for f in /usr/local/bin/* /usr/bin/* /bin/*; do
		case ${f##*/} in aarch64-linux-gnu-*) continue ;; esac
		[ -e "$bin/${f##*/}" ] || ln -s "$f" "$bin/${f##*/}"
	done
	PATH=$bin run_kit "$KIT_DIR/bin/apply" --kdir "$d" --arch arm64
	expect_rc "$EXIT_USAGE" "apply ARCH=arm64 without a cross compiler"
	expect_one_line_error 'ARCH=arm64 needs the cross compiler aarch64-linux-gnu-gcc; install gcc-aarch64-linux-gnu'
	expect_sum "$d" "$sum" "apply ARCH=arm64 without a cross compiler"
	run_kit make -s -C "$KIT_DIR" check KDIR="$d" ARCH=sparc
	expect_make_rc "$EXIT_USAGE" "make check ARCH=sparc"
	expect_make_error 'unknown ARCH=sparc; use ARCH=x86_64 or ARCH=arm64'
	[ -z "$(find "$d" -maxdepth 1 -name '.mm-backport-kit*')" ] || fail "kit state left in the tree"
}
