# SPDX-License-Identifier: GPL-2.0
# The user's tree is never left wrong: concurrent commands, paths with
# blanks, edits between apply and unapply, a full disk, symlinks, a SIGKILL
# inside patch or mv, SIGINT, in-place edits of the cache, a missing HOME and
# contradicting KDIR/BRANCH.  Every case ends with the tree intact (hashed:
# content, type, mode, symlink target) and one clear line.

# same_files A B: every file the kit touches is the same in both trees
same_files() {
	local f
	for f in $(kit_touched_files); do
		[ -e "$1/$f" ] || [ -e "$2/$f" ] || continue
		cmp -s "$1/$f" "$2/$f" || fail "$f differs between $1 and $2" "$(diff -u "$1/$f" "$2/$f" | sed -n 1,30p)" "$(cat "$2/.mm-backport-kit/report" "$2/.mm-backport-kit/topics")"
	done
}

# fake_bin NAME SCRIPT -> a directory with an executable NAME for PATH
fake_bin() {
	local bin=$T/fakebin-$1-$RANDOM
	mkdir -p "$bin"
	printf '#!/bin/bash\n%s\n' "$2" > "$bin/$1"
	chmod +x "$bin/$1"
	printf '%s\n' "$bin"
}

# run_killed BIN CMD TREE: run make CMD (bin/CMD) on TREE with BIN first in
# PATH, in its own process group (so a fake tool can kill the whole command)
run_killed() {
	local bin=$1 cmd=$2 tree=$3
	( PATH=$bin:$PATH setsid "$KIT_DIR/bin/$cmd" --kdir "$tree" >/dev/null 2>&1 < /dev/null || true ) 2>/dev/null
}

test_concurrent_applies() {
	local ref d sum off rc1 rc2 out1 out2 pid
	ref=$(applied_ref 6.1)
	for off in 0 0.05 0.2 0.4 0.8 1.5; do
		d=$(mini 6.1 "concurrent-$off")
		sum=$(tree_sum "$d")
		out1=$T/c1.out out2=$T/c2.out
		"$KIT_DIR/bin/apply" --kdir "$d" > "$out1" 2>&1 &
		pid=$!
		sleep "$off"
		rc2=0
		"$KIT_DIR/bin/apply" --kdir "$d" > "$out2" 2>&1 || rc2=$?
		rc1=0
		wait "$pid" || rc1=$?
		[ "$rc1:$rc2" = 0:2 ] || [ "$rc1:$rc2" = 2:0 ] ||
			fail "offset $off: exit codes $rc1 and $rc2, expected one 0 and one 2" "$(cat "$out1" "$out2")"
		same_files "$ref" "$d"
		"$KIT_DIR/bin/unapply" --kdir "$d" > "$out1" 2>&1 || fail "offset $off: unapply failed: $(cat "$out1")"
		expect_sum "$d" "$sum" "offset $off: two applies and an unapply"
	done
}

# a path with blanks goes to the right tree; its sibling is untouched
test_kdir_with_blanks() {
	local d sib sum_sib sum
	d=$(mini 6.1 "src/linux backup")
	sib=$(mini 6.1 "src/linux")
	sum_sib=$(tree_sum "$sib")
	sum=$(tree_sum "$d")
	run_kit make -s -C "$KIT_DIR" apply KDIR="$d"
	expect_rc 0 "make apply KDIR='$d'"
	[ -d "$d/.mm-backport-kit" ] || fail "the tree with blanks was not patched" "$OUT"
	expect_sum "$sib" "$sum_sib" "the sibling tree"
	run_kit make -s -C "$KIT_DIR" status KDIR="$d"
	expect_rc 0 "make status"
	expect_out '^topic khugepaged-mmap-lock +applied' "make status"
	run_kit make -s -C "$KIT_DIR" unapply KDIR="$d"
	expect_rc 0 "make unapply"
	expect_sum "$d" "$sum" "apply + unapply with blanks in KDIR"
	expect_sum "$sib" "$sum_sib" "the sibling tree"
}

# a cache path with blanks works for BRANCH= targets
test_cache_with_blanks() {
	local c="$T/cache dir" b=5.10 d
	mkdir -p "$c/trees/$b"
	cp -al "$(pristine_dir $b)" "$c/trees/$b/linux"
	cp "$(pristine_dir $b).manifest" "$c/trees/$b/linux.manifest"
	cp "$(dirname "$(pristine_dir $b)")/source" "$c/trees/$b/source"
	MMBK_CACHE=$c run_kit make -s -C "$KIT_DIR" apply BRANCH=$b
	expect_rc 0 "make apply BRANCH=$b with MMBK_CACHE='$c'"
	d="$c/work/$b/scratch"
	[ -d "$d/.mm-backport-kit" ] || fail "no scratch copy applied in '$d'" "$OUT"
	MMBK_CACHE=$c run_kit make -s -C "$KIT_DIR" unapply BRANCH=$b
	expect_rc 0 "make unapply BRANCH=$b"
}

# an edit after apply: unapply refuses and names the file, nothing changes;
# with the edit undone it works; FORCE=1 restores the original
test_edit_then_unapply() {
	local d sum sum_applied
	d=$(mini 6.1 edit-unapply)
	sum=$(tree_sum "$d")
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc 0 "apply"
	cp "$d/mm/ksm.c" "$T/ksm.applied"
	echo '/* local edit */' >> "$d/mm/ksm.c"
	sum_applied=$(tree_sum "$d")
	run_kit "$KIT_DIR/bin/unapply" --kdir "$d"
	expect_one_line_error "mm/ksm.c changed after the series was applied; undo that change .* or rerun with FORCE=1"
	expect_sum "$d" "$sum_applied" "refused unapply"
	run_kit "$KIT_DIR/bin/status" --kdir "$d"
	expect_out '^warning: mm/ksm.c changed after the series was applied' "status"
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc 2 "apply on the applied tree"
	expect_out 'already applied' "apply on the applied tree"
	run_kit "$KIT_DIR/bin/unapply" --force --kdir "$d"
	expect_rc 0 "unapply --force"
	expect_sum "$d" "$sum" "unapply --force after an edit"
	# and without FORCE once the edit is undone
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc 0 "second apply"
	rm "$d/mm/ksm.c"
	run_kit "$KIT_DIR/bin/unapply" --kdir "$d"
	expect_one_line_error "mm/ksm.c changed after the series was applied"
	cp "$T/ksm.applied" "$d/mm/ksm.c"
	unapply_to "$d" "$sum" "unapply after undoing the edit"
}

# small_fs DIR KIB: a tmpfs of KIB KiB at DIR (skips the test where mounting
# is not allowed)
small_fs() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=${2}k" mmbk-test "$1" 2>/dev/null ||
		skip "cannot mount a tmpfs here (not root or no CAP_SYS_ADMIN)"
	MOUNTS+=("$1")
}

umount_all() {
	local m
	for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" || true; done
}

# fill DIR LEFT_KIB: fill DIR's file system so that about LEFT_KIB remain
fill() {
	local free
	free=$(df -Pk "$1" | awk 'NR == 2 { print $4 }')
	[ "$free" -gt "$2" ] || return 0
	dd if=/dev/zero of="$1/.filler" bs=1k count=$((free - $2)) status=none 2>/dev/null || true
}

# a full disk before and in the middle of the apply: one clear line, the
# tree unchanged (the rollback renames, it needs no space)
test_full_disk() {
	local m=$T/smallfs d sum left rc bin
	MOUNTS=()
	trap umount_all EXIT
	small_fs "$m" 8192
	for left in 16 200 900 1500; do
		rm -rf "$m/linux" "$m/.filler"
		d=$m/linux
		mkdir -p "$d"
		cp -a "$(mini 6.1 fs-src)/." "$d/"
		fill "$m" "$left"
		sum=$(tree_sum "$d")
		run_kit "$KIT_DIR/bin/apply" --kdir "$d"
		expect_one_line_error "(not enough free space on the file system of .* \(need [0-9]+ KiB, [0-9]+ KiB free\)|no space left on the file system of .*); .*rerun"
		expect_sum "$d" "$sum" "apply with ${left} KiB free"
	done
	# enough space at the start, none left once quilt runs
	for left in 0 64 256; do
		rm -rf "$m/linux" "$m/.filler"
		d=$m/linux
		mkdir -p "$d"
		cp -a "$(mini 6.1 fs-src)/." "$d/"
		sum=$(tree_sum "$d")
		bin=$(fake_bin quilt "if [ \"\$1\" = push ]; then free=\$(df -Pk . | awk 'NR == 2 { print \$4 }'); dd if=/dev/zero of=$m/.filler bs=1k count=\$((free - $left)) status=none 2>/dev/null; fi
exec $(command -v quilt) \"\$@\"")
		rc=0
		OUT=$(PATH=$bin:$PATH "$KIT_DIR/bin/apply" --kdir "$d" 2>&1) || rc=$?
		# shellcheck disable=SC2034  # read by expect_one_line_error
		RC=$rc
		expect_one_line_error "no space left on the file system of .*; the tree is unchanged; free some space and rerun"
		expect_sum "$d" "$sum" "apply that ran out of space with ${left} KiB left"
		[ ! -e "$d/.mm-backport-kit" ] || fail "kit state left behind"
	done
}

# a touched file that is a symlink: its topic fails cleanly, the others land,
# and unapply brings the symlink back
test_symlinked_touched_file() {
	local d sum
	d=$(mini 6.1 symlink)
	mv "$d/mm/ksm.c" "$d/mm/ksm-real.c"
	ln -s ksm-real.c "$d/mm/ksm.c"
	sum=$(tree_sum "$d")
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc 3 "apply with a symlinked mm/ksm.c"
	expect_out '^topic ksm-break-ksm +failed: mm/ksm.c is a symbolic link' "the ksm topic"
	expect_out '^topic khugepaged-ro-collapse +applied' "the other topics"
	expect_out 'partial: applied topics khugepaged-ro-collapse khugepaged-mmap-lock; failed: ksm-break-ksm' "last line"
	[ -L "$d/mm/ksm.c" ] || fail "mm/ksm.c is no longer a symlink after the apply"
	unapply_to "$d" "$sum" "apply + unapply with a symlink"
	run_kit "$KIT_DIR/bin/apply" --strict --kdir "$d"
	expect_rc 1 "strict apply"
	grep -q "error: ksm-break-ksm: mm/ksm.c is a symbolic link.*; the tree is unchanged" <<< "$(tail -n1 <<< "$OUT")" ||
		fail "last line is not the error" "$OUT"
	expect_sum "$d" "$sum" "strict apply"
}

# SIGKILL while patch writes its output: the next command restores the tree
# and removes patch's temporary file
test_sigkill_inside_patch() {
	local d sum bin
	d=$(mini 6.1 kill-patch)
	sum=$(tree_sum "$d")
	bin=$(fake_bin patch "f=\$(grep -m1 '^+++ ' /dev/stdin 2>/dev/null | sed 's|^+++ [^/]*/||; s|\t.*||')
[ -n \"\$f\" ] || f=mm/ksm.c
cp \"\$f\" \"\$f.oAb3xZq\" 2>/dev/null
echo partial >> \"\$f\"
kill -KILL -- -\$(ps -o pgid= \$\$ | tr -d ' ')")
	run_killed "$bin" apply "$d"
	[ -f "$d/.mm-backport-kit/txn" ] || fail "the kill came before the apply started: test is void"
	ls "$d"/mm/*.o?????? >/dev/null 2>&1 || ls "$d"/*/*/*.o?????? >/dev/null 2>&1 ||
		fail "no temporary file of patch left: test is void"
	run_kit "$KIT_DIR/bin/status" --kdir "$d"
	expect_out '^interrupted apply' "status after the kill"
	run_kit "$KIT_DIR/bin/unapply" --kdir "$d"
	expect_rc 0 "unapply after the kill"
	expect_out 'an earlier apply was interrupted; restoring' "recovery message"
	expect_sum "$d" "$sum" "recovery after SIGKILL inside patch"
	# the same, recovered by the next apply, which then completes
	run_killed "$bin" apply "$d"
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc 0 "apply after the kill"
	same_files "$(applied_ref 6.1)" "$d"
	run_kit "$KIT_DIR/bin/unapply" --kdir "$d"
	expect_sum "$d" "$sum" "apply after a killed apply, then unapply"
}

# SIGKILL in the middle of an unapply: the next command finishes it
test_sigkill_inside_unapply() {
	local d sum bin cnt=$T/mv-count
	d=$(mini 6.1 kill-unapply)
	sum=$(tree_sum "$d")
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc 0 "apply"
	: > "$cnt"
	bin=$(fake_bin mv "echo >> $cnt
if [ \$(wc -l < $cnt) -eq 3 ]; then kill -KILL -- -\$(ps -o pgid= \$\$ | tr -d ' '); fi
exec /bin/mv \"\$@\"")
	run_killed "$bin" unapply "$d"
	[ "$(wc -l < "$cnt")" -ge 3 ] || fail "the unapply was not killed half way: test is void"
	[ -f "$d/.mm-backport-kit/txn" ] || fail "no unapply in progress after the kill: test is void"
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_out 'an earlier unapply was interrupted; finishing it' "recovery"
	unapply_to "$d" "$sum" "killed unapply, recovered"
	[ -z "$(find "$d" -maxdepth 1 -name 'quilt*')" ] || fail "quilt temporary directory left"
}

# SIGINT: the tree is restored at once and the message is shown.  apply.sh
# starts with SIGINT at its default disposition, as from a terminal: a shell
# that was started in the background (nohup, '&' without job control)
# ignores SIGINT, and an ignored signal cannot be trapped by its children
test_sigint_message_shown() {
	local d sum bin rc=0 out
	d=$(mini 6.1 sigint)
	sum=$(tree_sum "$d")
	bin=$(fake_bin quilt "if [ \"\$1\" = push ]; then $(command -v quilt) push --fuzz=0 >/dev/null 2>&1; kill -INT \$PPID; sleep 5; fi
exec $(command -v quilt) \"\$@\"")
	out=$(PATH=$bin:$PATH env --default-signal=INT "$KIT_DIR/bin/apply" --kdir "$d" 2>&1) || rc=$?
	[ $rc -ne 0 ] || fail "apply interrupted by SIGINT exited 0" "$out"
	grep -q "error: interrupted; $d restored" <<< "$out" || fail "no interrupt message" "$out"
	expect_sum "$d" "$sum" "apply interrupted by SIGINT"
}

# Ctrl-C from a terminal: SIGINT to the whole process group (the command,
# apply_frame's subshell, the kit_try subshell that holds the trap, quilt);
# the shells that only wait go on, the one with the trap restores the tree
test_sigint_to_the_process_group() {
	local d sum bin rc=0 out
	d=$(mini 6.1 sigint-group)
	sum=$(tree_sum "$d")
	bin=$(fake_bin quilt "if [ \"\$1\" = push ]; then $(command -v quilt) push --fuzz=0 >/dev/null 2>&1; kill -INT -- -\$(ps -o pgid= -p \$\$ | tr -d ' '); sleep 5; fi
exec $(command -v quilt) \"\$@\"")
	out=$(PATH=$bin:$PATH env --default-signal=INT setsid "$KIT_DIR/bin/apply" --kdir "$d" 2>&1) || rc=$?
	[ $rc -ne 0 ] || fail "apply interrupted by SIGINT to its process group exited 0" "$out"
	grep -q "error: interrupted; $d restored" <<< "$out" || fail "no interrupt message" "$out"
	expect_sum "$d" "$sum" "apply interrupted by SIGINT to its process group"
	[ -z "$(find "$d" -maxdepth 1 -name '.mm-backport-kit*')" ] || fail "kit state left after SIGINT to the process group"
}

# private_tree CACHE BRANCH: BRANCH's tree made in a cache of the test's
# own, from the project's tarballs (PRIVATE_SRC: where they are); the test
# is skipped without them
private_tree() {
	PRIVATE_SRC=${MMBK_TARBALLS:-$CACHE_DIR/tarballs}
	[ -f "$PRIVATE_SRC/$(branch_field "$2" origin)" ] ||
		skip "no $(branch_field "$2" origin) in $PRIVATE_SRC for a private cache (set MMBK_TARBALLS=)"
	MMBK_CACHE=$1 MMBK_TARBALLS=$PRIVATE_SRC "$KIT_DIR/bin/tree" "$2" >/dev/null 2>&1 || fail "make tree $2 in $1"
}

# an in-place write through a scratch copy cannot silently change the
# cache: shared inodes are read-only, and a changed cached tree is
# noticed and extracted again before the next copy
test_scratch_edit_vs_cache() {
	local c=$T/cache-edit b=5.15 d shared src
	private_tree "$c" $b
	src=$PRIVATE_SRC
	d=$T/scratch-edit
	MMBK_CACHE=$c bash -c ". '$KIT_DIR/lib/kit.sh'; kit_use fetch; scratch_copy $b '$d'" || fail "scratch copy in $c"
	shared=$(find "$d" -type f -links +1 -perm /222 | sed -n 1,3p)
	[ -z "$shared" ] || fail "scratch files share a writable inode with the cache:" "$shared"
	echo 'junk' >> "$d/README"
	grep -q junk "$c/trees/$b/linux/README" || fail "test setup: the write did not reach the shared inode"
	MMBK_CACHE=$c MMBK_TARBALLS=$src run_kit bash -c ". '$KIT_DIR/lib/kit.sh'; kit_use fetch; scratch_copy $b '$T/scratch-edit-2'"
	expect_rc 0 "scratch copy of a changed cache"
	expect_out 'the cached 5.15 tree was changed in place; extracting it again' "warning"
	! grep -q junk "$c/trees/$b/linux/README" || fail "the cached tree still holds the edit"
	! grep -q junk "$T/scratch-edit-2/README" || fail "the new copy holds the edit"
}

# no HOME: commands that need no cache work, the others say what to set
test_home_unset() {
	local d
	d=$(mini 6.1 nohome)
	run_kit env -u HOME -u XDG_CACHE_HOME -u MMBK_CACHE "$KIT_DIR/bin/status" --kdir "$d"
	expect_rc 2 "status without HOME (not applied)"
	expect_out 'not applied' "status without HOME"
	run_kit env -u HOME -u XDG_CACHE_HOME -u MMBK_CACHE "$KIT_DIR/bin/tree" 6.1
	expect_one_line_error 'no cache directory: HOME is not set; set MMBK_CACHE='
}

# BRANCH= and KDIR= that disagree; BRANCH= that is no branch
test_branch_kdir_conflict() {
	local d
	d=$(mini 5.10 conflict-510)
	run_kit make -s -C "$KIT_DIR" apply BRANCH=6.1 KDIR="$d"
	expect_make_error "KDIR=$d is Linux 5\.10\.[0-9]+ \(branch 5\.10\) but BRANCH=6\.1; drop BRANCH= or point KDIR= at a 6\.1 tree"
	[ ! -e "$d/.mm-backport-kit" ] || fail "the tree was changed"
	run_kit make -s -C "$KIT_DIR" apply BRANCH=banana
	expect_make_error "unsupported branch 'banana'; set BRANCH= to one of: $SUPPORTED_BRANCHES"
}

# messages that name the real problem
test_clear_messages() {
	local d f bin
	f=$T/a-file
	: > "$f"
	run_kit "$KIT_DIR/bin/apply" --kdir "$f"
	expect_one_line_error "KDIR=$f is a file, not a directory"
	d=$(mini 6.1 noquilt)
	bin=$T/noquilt-bin
	mkdir -p "$bin"
	for f in /usr/local/bin/* /usr/bin/* /bin/*; do
		[ "${f##*/}" = quilt ] || [ -e "$bin/${f##*/}" ] || ln -s "$f" "$bin/${f##*/}"
	done
	PATH=$bin run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_one_line_error "quilt is not installed; install it"
	d=$(mini 6.1 missing-file)
	rm "$d/include/trace/events/huge_memory.h"
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc 3 "apply without include/trace/events/huge_memory.h"
	expect_out '^topic khugepaged-ro-collapse +failed: include/trace/events/huge_memory.h is missing from the tree' "missing file"
}

# the seal checks content, not only sizes and times: make tree notices a
# truncated cached file, and a byte changed in place with the same size and
# mtime is noticed before the next copy (and before make check and make
# boot use the tree): the tree is extracted again.  The cost of the content
# check is printed (measured: tables of the cold CI run's note)
test_seal_notices_truncation_and_same_size_edits() {
	local c=$T/cache-seal b=5.15 src f t0
	private_tree "$c" $b
	src=$PRIVATE_SRC
	f=$c/trees/$b/linux/mm/ksm.c
	# truncated (as a full disk or a killed writer leaves it)
	chmod u+w "$f"
	truncate -s 100 "$f"
	MMBK_CACHE=$c MMBK_TARBALLS=$src run_kit "$KIT_DIR/bin/tree" $b
	expect_rc 0 "make tree of a cache with a truncated file"
	expect_out 'the cached 5.15 tree was changed in place' "make tree notices the truncated file"
	[ "$(stat -c %s "$f")" -gt 100 ] || fail "the truncated file is still truncated"
	# the same size and mtime, one byte different
	chmod u+w "$f"
	cp -p "$f" "$T/ksm.c.orig"
	sed -i '1s/./X/' "$f"
	touch -r "$T/ksm.c.orig" "$f"
	[ "$(stat -c '%s %Y' "$f")" = "$(stat -c '%s %Y' "$T/ksm.c.orig")" ] || fail "test setup: size or mtime differ"
	# the kit's patched copy (what make check and make boot use)
	t0=$(date +%s.%N)
	MMBK_CACHE=$c MMBK_TARBALLS=$src run_kit bash -c ". '$KIT_DIR/lib/kit.sh'; kit_use worktree; worktree $b unpatched >/dev/null; worktree $b patched"
	expect_rc 0 "the patched copy of a cache with a same-size edit"
	expect_out 'the cached 5.15 tree was changed in place' "the same-size edit is noticed"
	cmp -s "$c/work/$b/patched/linux/mm/ksm.c.orig" "$T/ksm.c.orig" 2>/dev/null ||
		cmp -s "$c/trees/$b/linux/mm/ksm.c" "$T/ksm.c.orig" || fail "the cache still holds the edited file"
	echo "# content check + re-extraction: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
	t0=$(date +%s.%N)
	MMBK_CACHE=$c bash -c ". '$KIT_DIR/lib/kit.sh'; kit_use fetch; pristine_ok $b content" || fail "the re-extracted tree fails its seal"
	echo "# content check of an intact $b tree: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
}
