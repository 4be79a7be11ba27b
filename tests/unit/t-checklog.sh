# SPDX-License-Identifier: GPL-2.0
# tier: fast
# make check's reading of a make log (lib/check.sh check_split, then
# check_normalise) on canned logs (tests/check/, README.md there): only the
# object's own compiler and sparse output count, whatever kbuild built
# before it (arm64's vDSO in the prepare stage) and however parallel jobs
# interleave their lines; a warning in the object's own output is new.

LOGS=$KIT_DIR/tests/check
BASE_ROOT=/root/.cache/mm-backport-kit/trees/5.10/linux
TREE_ROOT=/root/.cache/mm-backport-kit/work/5.10/patched/linux

# new_warnings KIND BASELOG TREELOG: the check's new KIND warnings of
# kernel/locking/rwsem.o between the two make logs
new_warnings() {
	in_kit check check_split "$2" kernel/locking/rwsem.o "$T/base"
	in_kit check check_split "$3" kernel/locking/rwsem.o "$T/tree"
	comm -13 <(in_kit check check_normalise "$BASE_ROOT" < "$T/base.$1") \
		<(in_kit check check_normalise "$TREE_ROOT" < "$T/tree.$1")
}

test_prepare_stage_is_not_the_object() {
	local kind new
	in_kit check check_split "$LOGS/rwsem-arm64-llvm-5.10.patched.log" kernel/locking/rwsem.o "$T/split"
	! grep -q vgettimeofday "$T/split.w1" "$T/split.sparse" || fail "the vDSO's output was taken for rwsem.o's" "$(cat "$T/split.w1" "$T/split.sparse")"
	grep -q "stdarg.h:26:5: warning: undefined preprocessor identifier" "$T/split.sparse" ||
		fail "sparse's output for rwsem.c is missing" "$(cat "$T/split.sparse")"
	for kind in w1 sparse; do
		new=$(new_warnings $kind "$LOGS/rwsem-arm64-llvm-5.10.unpatched.log" "$LOGS/rwsem-arm64-llvm-5.10.patched.log")
		[ -z "$new" ] || fail "new $kind warnings where the two builds differ only in other objects' line order" "$new"
	done
}

# the check still sees a warning the series adds, for the compiler and sparse
test_own_warning_is_new() {
	local log=$T/with-warning.log new
	sed -e '/^  CC      kernel\/locking\/rwsem.o$/a ../linux/kernel/locking/rwsem.c:1500:6: warning: unused variable '"'"'x'"'"' [-Wunused-variable]' \
	    -e '/^  CHECK   .*\/kernel\/locking\/rwsem.c$/a '"$TREE_ROOT"'/kernel/locking/rwsem.c:1501:1: warning: symbol '"'"'y'"'"' was not declared. Should it be static?' \
		"$LOGS/rwsem-arm64-llvm-5.10.patched.log" > "$log"
	[ "$(grep -c 'rwsem.c:150[01]' "$log")" = 2 ] || fail "test setup: the warnings were not added"
	new=$(new_warnings w1 "$LOGS/rwsem-arm64-llvm-5.10.unpatched.log" "$log")
	[ "$new" = "../linux/kernel/locking/rwsem.c: warning: unused variable 'x' [-Wunused-variable]" ] ||
		fail "the compiler warning in rwsem.o was not new" "$new"
	new=$(new_warnings sparse "$LOGS/rwsem-arm64-llvm-5.10.unpatched.log" "$log")
	[ "$new" = "kernel/locking/rwsem.c: warning: symbol 'y' was not declared. Should it be static?" ] ||
		fail "the sparse warning in rwsem.c was not new" "$new"
}
