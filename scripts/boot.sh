#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot.sh - build, run, parse, report: build a branch's small test kernel
# (scripts/kbuild.sh) and the nosteal KTAP module (scripts/kmod.sh), pack
# the C suite into an initramfs (scripts/initramfs.sh), boot it in qemu
# (scripts/guest-run.sh) and judge the serial log against
# tests/suite/expect.table (scripts/ktap.py judge).  The judged KTAP goes
# to stdout and out/boot/<tag>.ktap; exit 1 unless the verdict is PASS.
#
#   boot.sh --branch B [--variant V] [options]     (make boot BRANCH=B PATCHED=0|1)
#   boot.sh --kdir DIR [--variant V] [options]     any tree, as it is
#   boot.sh --branch B --variant V --judge LOG     re-judge a kept serial log
#
# --variant patched (default) | patched-kabi | unpatched | without-<topic>: the tree of
#     scripts/worktree.sh and the topics the judge expects in the kernel
#     (with --kdir: only the expectation)
# --suite-dir DIR   pack DIR's programs instead of building tests/suite
# --modules M       kit (default: build tests/module with DKMS), none, or
#                   a comma-separated list of .ko files
# --profile P       test (default: debug config), bench (production-like,
#                   configs/bench.config) or rt (PREEMPT_RT + debug); each
#                   has its own build dir (build-<P>) and log tag
# --no-build        boot the kernel already in the build dir
# --build-only      build the kernel (and nothing else), print its bzImage
# --no-expect       report the results as they are; exit 0
# --append ARGS     more kernel command line (e.g. mmbk.scan_modes=fast)
# --timeout S (240) --test-timeout S (150, per program) --mem M (1024M)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	die "$1; usage: boot.sh --branch B|--kdir DIR [--variant patched|patched-kabi|unpatched|without-<topic>] [--profile test|bench|rt] [--suite-dir DIR] [--modules kit|none|a.ko,...] [--no-build|--build-only] [--no-expect] [--append ARGS] [--timeout S] [--test-timeout S] [--mem M] [--judge LOG]"
}

parse_args() {
	BRANCH_ARG='' KDIR_ARG='' VARIANT=patched PROFILE=test SUITE_DIR='' MODULES=kit BUILD=1
	APPEND='' EXPECT=1 TIMEOUT=240 TEST_TIMEOUT=150 MEM=1024M JUDGE='' BUILD_ONLY=0
	while [ $# -gt 0 ]; do
		case $1 in
		--no-build) BUILD=0; shift; continue ;;
		--build-only) BUILD_ONLY=1; shift; continue ;;
		--no-expect) EXPECT=0; shift; continue ;;
		esac
		[ $# -ge 2 ] || usage "$1 needs a value"
		case $1 in
		--branch) BRANCH_ARG=$2 ;;
		--kdir) KDIR_ARG=$2 ;;
		--variant) VARIANT=$2 ;;
		--profile) PROFILE=$2 ;;
		--append) APPEND=$2 ;;
		--suite-dir) SUITE_DIR=$2 ;;
		--modules) MODULES=$2 ;;
		--timeout) TIMEOUT=$2 ;;
		--test-timeout) TEST_TIMEOUT=$2 ;;
		--mem) MEM=$2 ;;
		--judge) JUDGE=$2 ;;
		*) usage "unknown argument '$1'" ;;
		esac
		shift 2
	done
	[ "$BUILD_ONLY" = 0 ] || [ "$BUILD" = 1 ] || usage "--build-only and --no-build exclude each other"
	case $VARIANT in
	patched|patched-kabi|unpatched|without-?*) ;;
	*) usage "unknown variant '$VARIANT'" ;;
	esac
	case $PROFILE in
	test|bench|rt) mapfile -t PROFILE_ARGS < <(kernel_profile_args "$PROFILE") ;;
	*) usage "unknown profile '$PROFILE'" ;;
	esac
	case $TEST_TIMEOUT in ''|*[!0-9]*) usage "--test-timeout $TEST_TIMEOUT is not a number of seconds" ;; esac
}

profile_suffix() {	# "" for the test kernels, -<profile> for the others
	[ "$PROFILE" = test ] || printf -- '-%s' "$PROFILE"
}

# boot_tree: sets BRANCH_B, SRC (unless judging), OBJ and TAG
boot_tree() {
	local src_variant=$VARIANT
	if [ -n "$KDIR_ARG" ]; then
		SRC=$(cd "$KDIR_ARG" 2>/dev/null && pwd) || usage "--kdir $KDIR_ARG does not exist"
		BRANCH_B=$(tree_branch "$SRC")
		[ -z "$BRANCH_ARG" ] || [ "$BRANCH_ARG" = "$BRANCH_B" ] ||
			die "--kdir $KDIR_ARG is branch $BRANCH_B but --branch is $BRANCH_ARG; drop --branch or fix --kdir"
		OBJ=$CACHE_DIR/build/$BRANCH_B-kdir-$(path_key "$SRC")$(profile_suffix)
		TAG=$BRANCH_B-kdir-$VARIANT$(profile_suffix)
		return 0
	fi
	BRANCH_ARG=${BRANCH_ARG:-$DEFAULT_BRANCH}
	require_branch "$BRANCH_ARG"
	BRANCH_B=$BRANCH_ARG
	TAG=$BRANCH_B-$VARIANT$(profile_suffix)
	if [ "$VARIANT" = patched ] && [ -z "$(series_patches "$(series_file "$BRANCH_B")")" ]; then
		progress "boot: the $BRANCH_B series is empty: the patched kernel is the pristine one"
		src_variant=unpatched
	fi
	OBJ=$(build_dir "$BRANCH_B" "$src_variant" "$PROFILE")
	[ -n "$JUDGE" ] && return 0
	SRC=$("$KIT_DIR/scripts/worktree.sh" "$BRANCH_B" "$src_variant" | tail -n1)
	[ -f "$SRC/Makefile" ] || die "scripts/worktree.sh gave no tree for $BRANCH_B $src_variant"
}

build_kernel() {
	if [ "$BUILD" = 0 ]; then
		warn "--no-build: booting the kernel already in $OBJ, not rebuilt"
	else
		# "modules" writes Module.symvers, which the test module links against
		"$KIT_DIR/scripts/kbuild.sh" ${PROFILE_ARGS[@]+"${PROFILE_ARGS[@]}"} "$SRC" "$OBJ" bzImage modules
	fi
	[ -f "$OBJ/arch/x86/boot/bzImage" ] || die "no $OBJ/arch/x86/boot/bzImage; build it (drop --no-build)"
}

# modules -> the .ko files to pack, one a line
modules() {
	case $MODULES in
	none) ;;
	kit) "$KIT_DIR/scripts/kmod.sh" "$OBJ" ;;
	*) printf '%s\n' "${MODULES//,/$'\n'}" ;;
	esac
}

suite_dir() {
	if [ -n "$SUITE_DIR" ]; then
		printf '%s\n' "$SUITE_DIR"
		return 0
	fi
	progress "boot: building the C suite"
	make -s -C "$KIT_DIR/tests/suite" O="$OUT_DIR/suite" >&2 || die "building tests/suite failed; see above"
	printf '%s\n' "$OUT_DIR/suite"
}

# judge LOG NOTE: the judged KTAP on stdout and in out/boot/<log name>.ktap
judge() {
	local log=$1 note=$2 rc=0 out expect=(--variant "$VARIANT")
	[ "$EXPECT" = 1 ] || expect=(--no-expect)
	out=$OUT_DIR/boot/$(basename "$log" .log).ktap
	mkdir -p "$OUT_DIR/boot"
	"$KIT_DIR/scripts/ktap.py" judge "$log" --branch "$BRANCH_B" \
		--expect "$KIT_DIR/tests/suite/expect.table" "${expect[@]}" --profile "$PROFILE" \
		--title "boot $BRANCH_B $VARIANT$(profile_suffix)" --note "$note" > "$out" || rc=$?
	cat "$out"
	return "$rc"
}

main() {
	local dir log t0 build_s boot_s list mods=() rc=0
	parse_args "$@"
	boot_tree
	if [ -n "$JUDGE" ]; then
		[ -f "$JUDGE" ] || die "--judge $JUDGE does not exist; give a kept serial log (out/boot/*.log)"
		judge "$JUDGE" "re-judged; log $JUDGE"
		return
	fi
	dir=$OUT_DIR/boot
	log=$dir/$TAG.log
	progress "boot: $BRANCH_B $VARIANT: kernel from $SRC"
	t0=$(date +%s)
	build_kernel
	if [ "$BUILD_ONLY" = 1 ]; then
		printf '%s\n' "$OBJ/arch/x86/boot/bzImage"
		return 0
	fi
	list=$(modules) || die "the test module did not build for $BRANCH_B $VARIANT; see the message above"
	[ -z "$list" ] || mapfile -t mods <<< "$list"
	build_s=$(( $(date +%s) - t0 ))
	"$KIT_DIR/scripts/initramfs.sh" "$dir/$TAG.cpio" "$(suite_dir)" "${mods[@]}"
	t0=$(date +%s)
	"$KIT_DIR/scripts/guest-run.sh" "$OBJ/arch/x86/boot/bzImage" "$dir/$TAG.cpio" "$log" \
		--timeout "$TIMEOUT" --mem "$MEM" --append "mmbk.test_timeout=$TEST_TIMEOUT${APPEND:+ $APPEND}" || rc=$?
	boot_s=$(( $(date +%s) - t0 ))
	[ "$rc" = 0 ] || progress "boot: qemu exit status $rc (124: timed out); judging what the log holds"
	judge "$log" "build ${build_s}s, boot ${boot_s}s; log $log"
}

main "$@"
