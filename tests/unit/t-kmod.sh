# SPDX-License-Identifier: GPL-2.0
# The nosteal DKMS module: dkms.conf does what it says on dkms 3.0.x (no
# autoinstall), the build detects the API, kmod.sh refuses a tree that
# cannot link a module.

# dkms_pkg DIR [EXTRA-LINE]: guest/module as a dkms package in DIR's
# private trees (dkms.conf plus EXTRA-LINE), added
dkms_pkg() {
	mkdir -p "$1/src" "$1/tree" "$1/inst"
	cp -a "$KIT_DIR/guest/module" "$1/src/nosteal-test-1.0"
	[ -z "${2:-}" ] || printf '%s\n' "$2" >> "$1/src/nosteal-test-1.0/dkms.conf"
	dkms --sourcetree "$1/src" --dkmstree "$1/tree" --installtree "$1/inst" \
		add nosteal-test/1.0 >/dev/null || fail "dkms add failed in $1"
}

autoinstall() {	# autoinstall DIR: dkms autoinstall on DIR's trees for a kernel without headers
	dkms --sourcetree "$1/src" --dkmstree "$1/tree" --installtree "$1/inst" \
		autoinstall -k 0.0.0-mmbk-unit
}

test_dkms_autoinstall_skips_it() {
	command -v dkms >/dev/null || skip "dkms not installed"
	dkms_pkg "$T/dkms-kit"
	run_kit autoinstall "$T/dkms-kit"
	expect_rc 0 "dkms autoinstall with the kit's dkms.conf"
	[ -z "$OUT" ] || fail "dkms autoinstall acted on nosteal-test:" "$OUT"
	# the control: with an AUTOINSTALL line, even "no", dkms 3.0.x tries to build it
	dkms_pkg "$T/dkms-no" 'AUTOINSTALL="no"'
	run_kit autoinstall "$T/dkms-no"
	{ [ "$RC" -ne 0 ] && grep -q 'kernel headers' <<< "$OUT"; } ||
		fail "with AUTOINSTALL=\"no\" dkms autoinstall did not try to build (rc $RC):" "$OUT"
}

# the flags Kbuild gives the module for a kernel source tree
kbuild_flags() {	# kbuild_flags SRCTREE
	# shellcheck disable=SC2016  # $(ccflags-y) is make's
	printf 'include %s/guest/module/Kbuild\nall:\n\t@echo "$(ccflags-y)"\n' "$KIT_DIR" |
		make -s --no-print-directory -f - srctree="$1"
}

test_kbuild_detects_nosteal_api() {
	local d=$T/kbuild-api
	mkdir -p "$d/include/linux"
	grep -q down_read_nosteal "$(pristine_dir 7.2)/include/linux/rwsem.h" &&
		fail "the pristine 7.2 tree declares down_read_nosteal(); pick another tree"
	[ "$(kbuild_flags "$(pristine_dir 7.2)")" = "" ] || fail "pristine 7.2: got $(kbuild_flags "$(pristine_dir 7.2)")"
	sed '/^extern int __must_check down_read_killable(/a extern int __must_check down_read_killable_nosteal(struct rw_semaphore *sem);' \
		"$(pristine_dir 7.2)/include/linux/rwsem.h" > "$d/include/linux/rwsem.h"
	[ "$(kbuild_flags "$d")" = "-DHAVE_DOWN_READ_NOSTEAL" ] ||
		fail "a tree declaring down_read_killable_nosteal(): got '$(kbuild_flags "$d")'"
}

test_kmod_refuses_tree_without_symvers() {
	local d=$T/prepared-only
	mkdir -p "$d/include/config"
	echo 6.12.117 > "$d/include/config/kernel.release"
	run_kit in_kit guest guest_module "$d"
	expect_one_line_error "has no Module.symvers .*; build the kernel and its modules first"
}
