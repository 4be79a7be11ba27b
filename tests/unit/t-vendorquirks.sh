# SPDX-License-Identifier: GPL-2.0
# Vendor trees as they are built, each quirk on a drifted copy of a branch
# tree (renamed locals in break_ksm(): the 0001 backport does not apply at
# fuzz 0 and is re-targeted, so its compile verification runs): a top
# Makefile that says "ARCH := arm64", a Kconfig "source" through a
# dangling symlink (stubbed in the compile copy), LLVM=1 in
# build.config.common, a host tool that does not build, a vendor header
# that is missing.  Each must land the right change with the right report:
# compiled for the tree's own architecture and toolchain, or, where the
# tree does not build without the change either, landed as "not verified
# by compiling" with the first real error line (VERIFY=strict refuses it,
# the tree unchanged).  Then make check on vendor trees: a top Makefile
# with -Werror and a dangling Kconfig source, an option off in the
# configuration (KSM) on a tree that can select PREEMPT_RT, an unbuildable
# vendor driver the series does not touch.

# quirk_tree BRANCH NAME -> a copy of BRANCH's tree, break_ksm() renamed
quirk_tree() {
	local d
	d=$(fresh "$1" "$2")
	"$KIT_DIR/tests/vendor/drift.py" apply rename "$d" > /dev/null || fail "test setup: drift of $d"
	printf '%s\n' "$d"
}

# quirk_apply TREE [OPTION...]: make apply of the KSM topic
quirk_apply() {
	local d=$1
	shift
	run_kit "$KIT_DIR/bin/apply" --kdir "$d" --topics ksm-break-ksm --force "$@"
}

# the record of 0001 in the apply's report line
report_0001() {
	grep -E '^0001-[^ ]+ ' <<< "$OUT" || true
}

# expect_unverified ERROR WHAT: 0001 landed unverified by compiling for
# x86_64 with GCC, the report naming ERROR (a regex), the first real error
# that the tree without the change shares
expect_unverified() {
	report_0001 | grep -qE "re-targeted from cocci; not verified by compiling for x86_64, GCC; mm/ksm.o: .*$1.* \(fails without the change too\)" ||
		fail "0001 not landed as unverified with $2" "$OUT"
}

test_makefile_arch_is_the_trees() {
	local d
	d=$(quirk_tree 6.1 quirk-arch)
	sed -i '/^ARCH[[:space:]]*?=/i ARCH := arm64' "$d/Makefile"
	grep -q '^ARCH := arm64$' "$d/Makefile" || fail "test setup: no ARCH := arm64 in the Makefile"
	quirk_apply "$d"
	expect_rc 0 "apply on a tree whose Makefile says ARCH := arm64"
	expect_out '^0001-[^ ]+ +re-targeted from cocci \(out/' "0001 re-targeted and verified"
	grep -q 'compile without and with it (arm64, GCC)' "$OUT_DIR"/quirk-arch/0001-*.patch ||
		fail "the compile verification was not for arm64" "$(grep -A3 're-targeted from' "$OUT_DIR"/quirk-arch/0001-*.patch)"
}

# a Kconfig "source" through a symlink into an absent submodule (as a
# plain clone of a tree with KernelSU has it): the compile copy gets an
# empty stub, named in the report, the user's tree keeps its link, and the
# change is verified by compiling (VERIFY=strict too)
test_kconfig_source_through_a_dangling_symlink() {
	local d
	d=$(quirk_tree 6.1 quirk-kconfig)
	own_file "$d/drivers/Kconfig"
	printf '\nsource "drivers/kernelsu/Kconfig"\n' >> "$d/drivers/Kconfig"
	ln -s ../../KernelSU/kernel "$d/drivers/kernelsu"
	quirk_apply "$d" --verify strict
	expect_rc 0 "VERIFY=strict with a Kconfig that sources a file through a dangling symlink"
	expect_out '^0001-[^ ]+ +re-targeted from cocci \(out/' "0001 re-targeted and verified by compiling"
	grep -q 'empty stubs for the absent drivers/kernelsu/Kconfig' "$OUT_DIR"/quirk-kconfig/0001-*.patch ||
		fail "the report does not name the stub" "$(grep -A6 're-targeted from' "$OUT_DIR"/quirk-kconfig/0001-*.patch)"
	if [ ! -L "$d/drivers/kernelsu" ] || [ -e "$d/drivers/kernelsu" ]; then fail "the user's tree lost its dangling link"; fi
}

# LLVM=1 only in build.config.common (Android): apply verifies with clang
test_llvm_from_build_config_common() {
	local d
	d=$(quirk_tree 6.1 quirk-llvm)
	printf 'BRANCH=android14-6.1\nLLVM=1\n' > "$d/build.config.common"
	quirk_apply "$d"
	expect_rc 0 "apply on a tree whose build.config.common says LLVM=1"
	expect_out "^compile verification \\(x86_64 \\(the machine\\), LLVM [0-9]+ \\(the tree's build.config.common\\)\\): [1-9][0-9]* object build\\(s\\) verified by compiling, none not verified" \
		"the report names the toolchain, where it came from, and the count"
	grep -q 'compile without and with it (x86_64, LLVM [0-9]*)' "$OUT_DIR"/quirk-llvm/0001-*.patch ||
		fail "the compile verification was not with LLVM" "$(grep -A6 're-targeted from' "$OUT_DIR"/quirk-llvm/0001-*.patch)"
}

test_host_tool_that_does_not_build() {
	local d
	d=$(quirk_tree 5.10 quirk-objtool)
	own_file "$d/tools/objtool/builtin-check.c"
	printf '#error "vendor: objtool does not build here"\n' >> "$d/tools/objtool/builtin-check.c"
	quirk_apply "$d"
	expect_rc 0 "apply with an objtool that does not build"
	expect_unverified 'vendor: objtool does not build here' "objtool's error"
}

test_vendor_header_missing() {
	local d
	d=$(quirk_tree 6.1 quirk-header)
	sed -i '0,/^#include/s//#include <vendor\/ksm_hooks.h>\n#include/' "$d/mm/ksm.c"
	quirk_apply "$d"
	expect_rc 0 "apply to a ksm.c that includes a missing vendor header"
	expect_unverified 'vendor/ksm_hooks.h' "the missing header"
}

# the check proves something: a change that itself breaks the build is
# refused with its error (the recipe's result, made not to compile)
test_change_that_breaks_the_build_is_refused() {
	local d k sum
	k=$(kit_copy kit-quirk-broken)
	# the semantic patch of 0001 now also adds a call that cannot compile
	sed -i 's/^+\tbool ksm_page = false;$/&\n+\tvendor_does_not_exist();/' "$k/cocci/ksm-break_ksm-no-vm_fault_write.cocci"
	grep -q vendor_does_not_exist "$k/cocci/ksm-break_ksm-no-vm_fault_write.cocci" ||
		fail "test setup: the semantic patch has no ksm_page declaration to break"
	d=$(quirk_tree 6.1 quirk-broken)
	sum=$(tree_sum "$d")
	run_kit "$k/bin/apply" --kdir "$d" --topics ksm-break-ksm --force
	expect_rc 1 "apply of a change that does not compile"
	expect_out 'does not compile with the change for x86_64, GCC; mm/ksm.o: .*vendor_does_not_exist' "the error is named"
	expect_sum "$d" "$sum" "refused change"
}

# a vendor top Makefile that adds -Werror after everything (and a W=1
# warning that the tree has with and without the series), and a Kconfig
# "source" through a dangling symlink: make check stubs the absent file in
# its build copies and names it, builds prepare as the tree does and
# collects the touched objects' W=1 warnings instead of failing on them;
# every touched object is verified.  6.1 has PREEMPT_RT in its Kconfig but
# x86 cannot select it there: one skip says so, no RT build is claimed
test_check_with_werror_in_the_top_makefile() {
	local d
	d=$(fresh 6.1 quirk-werror)
	own_file "$d/Makefile" "$d/mm/ksm.c" "$d/drivers/Kconfig"
	printf '\nKBUILD_CFLAGS += -Werror\n' >> "$d/Makefile"
	printf '\nint kit_vendor_no_prototype(void)\n{\n\treturn 0;\n}\n' >> "$d/mm/ksm.c"
	printf '\nsource "drivers/kernelsu/Kconfig"\n' >> "$d/drivers/Kconfig"
	ln -s ../../KernelSU/kernel "$d/drivers/kernelsu"
	run_kit "$KIT_DIR/bin/apply" --kdir "$d" --force
	expect_rc 0 "apply"
	run_kit "$KIT_DIR/bin/check" --kdir "$d"
	expect_rc 0 "make check of a tree with -Werror and a dangling Kconfig source"
	expect_out '^ok [0-9]+ w1 mm/ksm.o$' "mm/ksm.o compiled with W=1, its warning collected"
	expect_out '^ok [0-9]+ compile proof$' "every touched object verified by compiling"
	! grep -q 'SKIP not verified' <<< "$OUT" || fail "an object was not verified" "$OUT"
	expect_out '^check: .*; empty stubs in the build copies for the absent drivers/kernelsu/Kconfig$' \
		"the summary names the stub"
	expect_out '^ok [0-9]+ PREEMPT_RT # SKIP not built with PREEMPT_RT .*x86 does not select ARCH_SUPPORTS_RT' \
		"the skip says why there is no PREEMPT_RT build"
	! grep -qE '^ok [0-9]+ PREEMPT_RT [a-z]' <<< "$OUT" || fail "a PREEMPT_RT build claimed on a tree that cannot select it" "$OUT"
	if [ ! -L "$d/drivers/kernelsu" ] || [ -e "$d/drivers/kernelsu" ]; then fail "the user's tree lost its dangling link"; fi
}

# an option of the configuration is off (KSM): mm/ksm.o is a skip that
# names it, never "does not build"; the other objects are compiled.  The
# tree carries RT support (x86 selects ARCH_SUPPORTS_RT, as a vendor tree
# with the RT patch set does): the PREEMPT_RT pass runs with KCONFIG= too,
# rwsem.o compiled with configs/rt.config merged (rwbase_rt.c included)
test_check_option_off_in_the_config() {
	local d
	d=$(fresh 6.1 quirk-noksm)
	own_file "$d/arch/x86/Kconfig"
	sed -i '/^config X86$/,/^$/s/^\tdef_bool y$/&\n\tselect ARCH_SUPPORTS_RT/' "$d/arch/x86/Kconfig"
	grep -q '^	select ARCH_SUPPORTS_RT$' "$d/arch/x86/Kconfig" || fail "test setup: x86 does not select ARCH_SUPPORTS_RT"
	printf 'CONFIG_TRANSPARENT_HUGEPAGE=y\n# CONFIG_KSM is not set\n' > "$T/noksm.config"
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc 0 "apply"
	run_kit "$KIT_DIR/bin/check" --kdir "$d" --kconfig "$T/noksm.config"
	expect_rc 0 "make check with KSM off"
	expect_out '^ok [0-9]+ build mm/ksm.c # SKIP not built by this configuration .*CONFIG_KSM is off' "the skip names CONFIG_KSM"
	! grep -q 'mm/ksm.o does not build' <<< "$OUT" || fail "mm/ksm.o was compiled though KSM is off" "$OUT"
	expect_out '^ok [0-9]+ w1 mm/khugepaged.o$' "khugepaged.o compiled"
	expect_out '^ok [0-9]+ compile proof$' "every object the configuration builds verified"
	expect_out '^ok [0-9]+ PREEMPT_RT kernel/locking/rwsem.o$' "rwsem.o compiled with PREEMPT_RT and KCONFIG="
	! grep -qE '^ok [0-9]+ PREEMPT_RT # SKIP' <<< "$OUT" || fail "the PREEMPT_RT pass was skipped on a tree that can select it" "$OUT"
}

# a tree that can select PREEMPT_RT (as above) whose host tool does not
# build: the RT pass's prepare fails without the series too, so it is one
# skip naming the tool's error, never a failure of the series nor "not
# built with PREEMPT_RT"
test_check_rt_with_a_host_tool_that_does_not_build() {
	local d
	d=$(fresh 6.1 quirk-rtobjtool)
	own_file "$d/arch/x86/Kconfig" "$d/tools/objtool/builtin-check.c"
	sed -i '/^config X86$/,/^$/s/^\tdef_bool y$/&\n\tselect ARCH_SUPPORTS_RT/' "$d/arch/x86/Kconfig"
	printf '#error "vendor: objtool does not build here"\n' >> "$d/tools/objtool/builtin-check.c"
	printf 'CONFIG_TRANSPARENT_HUGEPAGE=y\n' > "$T/thp.config"
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc 0 "apply"
	run_kit "$KIT_DIR/bin/check" --kdir "$d" --kconfig "$T/thp.config"
	expect_rc 5 "make check of a tree whose objtool does not build"
	expect_out '^ok [0-9]+ PREEMPT_RT # SKIP not verified with PREEMPT_RT: prepare does not build without the series either \(.*vendor: objtool does not build here' \
		"the RT pass names the tool's error"
	! grep -qE '^(not )?ok [0-9]+ PREEMPT_RT [a-z]' <<< "$OUT" || fail "an RT object was judged though prepare does not build" "$OUT"
}

# the tree's only problem is a vendor driver that does not build, which
# the series does not touch: every touched object is verified
test_check_with_an_unbuildable_vendor_driver() {
	local d
	d=$(fresh 6.1 quirk-driver)
	own_file "$d/drivers/Makefile"
	mkdir -p "$d/drivers/vendor_broken"
	printf 'obj-y += broken.o\n' > "$d/drivers/vendor_broken/Makefile"
	printf '#error "vendor: this driver does not build here"\n' > "$d/drivers/vendor_broken/broken.c"
	printf '\nobj-y += vendor_broken/\n' >> "$d/drivers/Makefile"
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc 0 "apply"
	run_kit "$KIT_DIR/bin/check" --kdir "$d"
	expect_rc 0 "make check of a tree with an unbuildable vendor driver"
	expect_out '^ok [0-9]+ compile proof$' "every touched object verified by compiling"
	expect_out 'check: ([0-9]+) of \1 objects the configuration builds verified by compiling, 0 not verified' "the count"
}
