# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# boot.sh - build, run, judge (make boot): build a branch's small kernel for
# the build target (kbuild.sh) and the nosteal module (guest.sh, DKMS), pack
# the C suite into an initramfs, boot it in qemu and judge the serial log
# against tables/boot-expect.table (mmbk ktap judge).  The judged KTAP goes
# to stdout and out/boot/<tag>.ktap, its records to out/boot/<tag>.tsv;
# the status is 1 unless the verdict is PASS.
kit_use tables trees fetch kbuild guest results worktree

# boot_run (make boot): the request's kernel (request.sh): REQ_BRANCH, and
# with KDIR= REQ_TREE, the user's tree; the build target KB_*
# (request_target, by the command)
#   VARIANT patched (default) | patched-kabi | unpatched | without-<topic>:
#       the tree (worktree.sh) and the topics the judge expects in the
#       kernel (with KDIR=: only the expectation)
#   BUILD_PROFILE test (default) | bench | rt: the kernel's configuration
#       (kbuild.sh kb_profile_fragments); each has its own build dir and tag
#   SUITE_DIR DIR   pack DIR's programs instead of building guest/suite
#   MODULES M       kit (default: guest/module with DKMS), none, or .ko files a,b
#   BUILD 0         boot the kernel already in the build dir (--no-build)
#   BUILD_ONLY 1    build the kernel (and nothing else), print its image
#   EXPECT 0        report the results as they are; status 0 (--no-expect)
#   APPEND ARGS     more kernel command line (e.g. mmbk.scan_modes=fast)
#   TIMEOUT S (240) TEST_TIMEOUT S (150, per program) MEM M (1024M)
#   JUDGE LOG       only judge a kept serial log
#   OUT DIR         where out/boot/ goes (default: the kit's out/)
boot_run() (
	local branch=$REQ_BRANCH kdir='' variant=${REQ_VARIANT:-patched} profile=$REQ_BUILD_PROFILE
	local suite=$REQ_SUITE_DIR modules=$REQ_MODULES build=$REQ_BUILD build_only=$REQ_BUILD_ONLY
	local expect=$REQ_EXPECT append=$REQ_APPEND timeout=$REQ_TIMEOUT test_timeout=$REQ_TEST_TIMEOUT
	local mem=$REQ_MEM judge_log=$REQ_JUDGE out=$REQ_OUT
	local src obj tag dir log t0 build_s boot_s list mods=() rc=0 src_variant
	[ "$REQ_KDIR" = - ] || kdir=$REQ_TREE
	[ "$build_only" = 0 ] || [ "$build" = 1 ] || usage_error "--build-only and --no-build exclude each other"
	case $variant in
	patched|patched-kabi|unpatched|without-?*) ;;
	*) usage_error "unknown variant '$variant'; use patched, patched-kabi, unpatched or without-<topic>" ;;
	esac
	kb_profile_fragments "$profile" > /dev/null
	case $test_timeout in ''|*[!0-9]*) usage_error "--test-timeout $test_timeout is not a number of seconds" ;; esac
	need_cache
	# the tree, its build dir and the tag of its logs
	if [ -n "$kdir" ]; then
		src=$kdir
		obj=$CACHE_DIR/build/$branch-kdir-$(path_key "$src")$(boot_profile_tag "$profile")${KB_TAG:-}
		tag=$branch-kdir-$variant$(boot_profile_tag "$profile")${KB_TAG:-}
	else
		tag=$branch-$variant$(boot_profile_tag "$profile")${KB_TAG:-}
		src_variant=$variant
		if [ "$variant" = patched ] && [ -z "$(series_patches "$(series_file "$branch")")" ]; then
			progress "boot: the $branch series is empty: the patched kernel is the pristine one"
			src_variant=unpatched
		fi
		obj=$(build_dir "$branch" "$src_variant" "$profile")
		if [ -z "$judge_log" ]; then
			[ "$src_variant" != unpatched ] || pristine_verify "$branch"
			src=$(worktree "$branch" "$src_variant")
			worktree_hold "$branch" "$src_variant"
		fi
	fi
	if [ -n "$judge_log" ]; then
		[ -f "$judge_log" ] || usage_error "--judge $judge_log does not exist; give a kept serial log (out/boot/*.log)"
		boot_judge "$judge_log" "$out/boot" "$branch" "$variant" "$profile" "$expect" "re-judged; log $judge_log"
		return
	fi
	dir=$out/boot
	log=$dir/$tag.log
	# out/boot/<tag>.* are this boot's until it ends: a second boot of
	# the branch, variant and target waits for it; its build dir is
	# locked by kbuild (exclusive, until the boot ends)
	mkdir -p "$dir"
	lock_tree "$dir/$tag.lock"
	[ -z "$kdir" ] || lock_tree "$src" shared
	progress "boot: $branch $variant ($(kb_describe)): kernel from $src"
	t0=$(date +%s)
	if [ "$build" = 0 ]; then
		warn "--no-build: booting the kernel already in $obj, not rebuilt"
		[ ! -d "$obj" ] || lock_tree "$obj/.kit-lock" shared
	else
		# "modules" writes Module.symvers, which the test module links against
		kbuild "$src" "$obj" "$profile" "${KB_IMAGE##*/}" modules
	fi
	[ -f "$obj/$KB_IMAGE" ] || die "no $obj/$KB_IMAGE; build it (drop --no-build)"
	if [ "$build_only" = 1 ]; then
		printf '%s\n' "$obj/$KB_IMAGE"
		return 0
	fi
	case $modules in
	none) list= ;;
	kit) list=$(guest_module "$obj") || die "the test module did not build for $branch $variant; see the message above" ;;
	*) list=${modules//,/$'\n'} ;;
	esac
	[ -z "$list" ] || mapfile -t mods <<< "$list"
	build_s=$(( $(date +%s) - t0 ))
	[ -n "$suite" ] || suite=$(guest_programs "$KIT_DIR/guest/suite" "$OUT_DIR/suite$([ "$KB_ARCH" = x86_64 ] || echo "-$KB_ARCH")")
	guest_initramfs "$dir/$tag.cpio" "$suite" ${mods[@]+"${mods[@]}"}
	t0=$(date +%s)
	guest_run "$obj/$KB_IMAGE" "$dir/$tag.cpio" "$log" "$timeout" "$mem" \
		"mmbk.test_timeout=$test_timeout${append:+ $append}" || rc=$?
	boot_s=$(( $(date +%s) - t0 ))
	state_point boot-ran
	[ "$rc" = 0 ] || progress "boot: qemu exit status $rc (124: timed out); judging what the log holds"
	boot_judge "$log" "$dir" "$branch" "$variant" "$profile" "$expect" "build ${build_s}s, boot ${boot_s}s; log $log"
)

boot_profile_tag() {	# "" for the test kernels, -<profile> for the others
	[ "$1" = test ] || printf -- '-%s' "$1"
}

# boot_judge LOG DIR BRANCH VARIANT PROFILE EXPECT NOTE: the judged KTAP on
# stdout and in DIR/<log name>.ktap, its records in DIR/<log name>.tsv
boot_judge() {
	local log=$1 dir=$2 branch=$3 variant=$4 profile=$5 expect=$6 note=$7 rc=0 out args=() kunit
	# the parser first, on its own: a failure inside the judge's argument
	# list would not stop the shell (errexit), the judge would run without it
	tools_tree >/dev/null
	kunit=$(kunit_dir)
	out=$dir/$(basename "$log" .log)
	mkdir -p "$dir"
	lock_tree "$out.lock"
	if [ "$expect" = 1 ]; then args=(--variant "$variant"); else args=(--no-expect); fi
	rm -f "$out.tsv" "$out.ktap"
	request_hand_back "$out.tsv" "$out.ktap"
	kit_py ktap judge "$log" --kunit-dir "$kunit" --branch "$branch" \
		--expect "$TABLES_DIR/boot-expect.table" "${args[@]}" --profile "$profile" \
		--title "boot-$variant$(boot_profile_tag "$profile")${KB_TAG:-}" --note "$note" \
		--records "$out.tsv" --version "$REQ_VERSION" --target "$REQ_TARGET" > "$out.ktap" || rc=$?
	cat "$out.ktap"
	return "$rc"
}
