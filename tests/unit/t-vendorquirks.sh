# SPDX-License-Identifier: GPL-2.0
# Vendor trees as they are built, each quirk on a drifted copy of a branch
# tree (renamed locals in break_ksm(): the 0001 backport does not apply at
# fuzz 0 and is re-targeted, so its compile verification runs): a top
# Makefile that says "ARCH := arm64", a Kconfig "source" of an absent file,
# a host tool that does not build, a vendor header that is missing.  Each
# must land the right change with the right report: compiled for the tree's
# own architecture, or, where the tree does not build without the change
# either, landed as "not verified by compiling" with the first real error
# line (VERIFY=strict refuses it, the tree unchanged).

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

test_kconfig_source_of_an_absent_file() {
	local d sum
	d=$(quirk_tree 6.1 quirk-kconfig)
	own_file "$d/drivers/Kconfig"
	printf '\nsource "drivers/vendor-absent/Kconfig"\n' >> "$d/drivers/Kconfig"
	sum=$(tree_sum "$d")
	quirk_apply "$d" --verify strict
	expect_rc 1 "VERIFY=strict with a Kconfig that sources an absent file"
	expect_out "can't open file \"drivers/vendor-absent/Kconfig\"" "strict: the first real error is named"
	expect_sum "$d" "$sum" "VERIFY=strict refusal"
	quirk_apply "$d"
	expect_rc 0 "apply with a Kconfig that sources an absent file"
	expect_unverified "can't open file \"drivers/vendor-absent/Kconfig\"" "the Kconfig error"
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
