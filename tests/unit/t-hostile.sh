# SPDX-License-Identifier: GPL-2.0
# tier: fast
# The hostile sweep's findings, each a case: exit codes that tell done,
# nothing to do, partial, refused and bad input apart, also through make;
# a rerun on a partial tree that names what is missing; messages that name
# the real cause (an immutable file, a state dir of another user, a
# malformed patch, a series naming a missing patch, a relative or empty
# KDIR=).  On the synthetic kit of t-journal.sh (no kernel tree, no cache).

# shellcheck source=tests/unit/t-journal.sh
. "$KIT_DIR/tests/unit/t-journal.sh"

# synth_fresh DIR: the synthetic kit, and a new synthetic tree at DIR
synth_fresh() {
	synth_kit "$T/kit"
	rm -rf "$1"
	synth_tree "$1"
}

# synth_make TARGET VAR=VALUE...: make TARGET of the kit on the synthetic kit
synth_make() {
	MMBK_DATA=$T/kit run_kit env -u HOME -u XDG_CACHE_HOME -u MMBK_CACHE make -s -C "$KIT_DIR" "$@"
}

test_exit_codes_of_a_partial_tree() {
	local d=$T/hostile-partial sum
	synth_kit "$T/kit"
	synth_tree "$d"
	sum=$(tree_sum "$d")
	synth_apply status "$d"
	expect_rc 2 "status of a tree the series is not applied to"
	synth_apply apply "$d"
	expect_rc 3 "apply with a topic that does not land (partial)"
	expect_out 'partial: applied topics alpha beta; failed: gamma' "the partial apply names the topics"
	# a rerun names what is missing and stays partial, whatever is asked
	synth_apply apply "$d"
	expect_rc 3 "apply again on a partial tree"
	expect_out 'partial: already applied without gamma' "the rerun names the missing topic"
	synth_apply apply --strict "$d"
	expect_rc 3 "STRICT=1 on a partial tree"
	synth_apply apply --topics gamma "$d"
	expect_rc 3 "TOPICS=<the refused topic> on a partial tree"
	expect_out 'without gamma \(0003-bad.patch does not apply' "the reason of the missing topic"
	synth_apply apply --topics alpha,beta "$d"
	expect_rc 2 "TOPICS=<the applied topics>: nothing to do"
	synth_apply status "$d"
	expect_rc 3 "status of a partial tree"
	expect_out '^partial: not applied: gamma$' "status names the missing topic"
	# through make: nothing to do is a success, partial fails with its code
	synth_make apply KDIR="$d" TOPICS=alpha
	expect_rc 0 "make apply with nothing to do"
	synth_make apply KDIR="$d"
	expect_rc 2 "make apply on a partial tree (make's own failure status)"
	expect_out 'Error 3' "make shows the partial status"
	synth_apply unapply "$d"
	expect_rc 0 "unapply"
	expect_sum "$d" "$sum" "partial apply + unapply"
	synth_apply unapply "$d"
	expect_rc 2 "unapply of a tree the series is not applied to: nothing to do"
}

test_status_of_an_interrupted_tree() {
	local d=$T/hostile-interrupted
	synth_kit "$T/kit"
	synth_tree "$d"
	MMBK_FAULT=snapshot#1 synth_apply apply "$d"
	[ "$RC" -eq 137 ] || fail "apply killed at its first snapshot: exit $RC" "$OUT"
	synth_apply status "$d"
	expect_rc 1 "status of an interrupted tree"
	expect_out '^interrupted apply \(run make apply or make unapply to recover\)' "status says so"
	synth_apply unapply "$d"
	expect_rc 0 "unapply recovers"
	# issue 55 item 8: an unapply killed while it removed the state (the
	# tombstone .mm-backport-kit.gone-PID left): status says what was
	# interrupted (before: "interrupted  (", an empty command)
	synth_apply apply --topics alpha,beta "$d"
	expect_rc 0 "apply"
	MMBK_FAULT=drop#1 synth_apply unapply "$d"
	[ "$RC" -eq 137 ] || fail "unapply killed at drop#1: exit $RC" "$OUT"
	synth_apply status "$d"
	expect_rc 1 "status after a kill inside the state's removal"
	expect_out '^interrupted while removing the kit.s state' "status names what was interrupted"
	synth_apply unapply "$d"
	expect_rc 0 "unapply finishes it"
	[ -z "$(find "$d" -maxdepth 1 -name '.mm-backport-kit*')" ] || fail "the tombstone was left"
}

test_refused_local_change() {
	local d=$T/hostile-local sum
	synth_kit "$T/kit"
	synth_tree "$d"
	git_tree "$d"
	echo 'int local;' >> "$d/mm/ksm.c"
	sum=$(tree_sum "$d")
	synth_apply apply --topics alpha "$d"
	expect_rc 4 "apply over a local change (refused)"
	expect_one_line_error 'mm/ksm.c has local changes; commit or revert them first, or rerun with FORCE=1'
	expect_sum "$d" "$sum" "refused apply"
}

test_immutable_file_named() {
	local d=$T/hostile-immutable sum
	synth_kit "$T/kit"
	synth_tree "$d"
	sum=$(tree_sum "$d")
	chattr +i "$d/mm/ksm.c" 2>/dev/null || skip "chattr +i is not possible here (not root, or the file system has no attributes)"
	synth_apply apply --topics alpha "$d"
	chattr -i "$d/mm/ksm.c"
	expect_one_line_error 'mm/ksm.c is immutable or append-only \(chattr \+i/\+a\); clear it \(chattr -i -a\)'
	expect_sum "$d" "$sum" "apply on an immutable file"
	[ ! -e "$d/.mm-backport-kit" ] || fail "a transaction was left behind"
}

test_state_of_another_user_named() {
	local w d kit
	{ command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; } || skip "needs root and setpriv to act as another user"
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$KIT_DIR/bin/unapply" ||
		skip "the kit's checkout ($KIT_DIR) is not reachable by another user (a private home directory)"
	# the synthetic kit and tree where the other user reaches them ($T may
	# sit in root's private home)
	w=$(mktemp -d /tmp/mmbk-hostile.XXXXXX)
	# shellcheck disable=SC2064  # the path now: the trap runs after this function
	trap "rm -rf '$w'" EXIT
	kit=$w/kit d=$w/hostile-owner
	synth_kit "$kit"
	synth_tree "$d"
	MMBK_DATA=$kit run_kit env -u HOME -u XDG_CACHE_HOME -u MMBK_CACHE "$KIT_DIR/bin/apply" --topics alpha --kdir "$d"
	expect_rc 0 "apply as root"
	chmod -R a+rX "$w"
	MMBK_DATA=$kit run_kit setpriv --reuid=65534 --regid=65534 --clear-groups \
		env -u HOME -u XDG_CACHE_HOME -u MMBK_CACHE TMPDIR=/tmp "$KIT_DIR/bin/unapply" --kdir "$d"
	expect_one_line_error "\.mm-backport-kit is owned by root; run the command as root$"
	# issue 55 item 8: refused (4), as the README says (before: 1, and
	# "run the command as root (or as root)")
	expect_rc 4 "unapply by another user of a root-owned state"
	MMBK_DATA=$kit run_kit env -u HOME -u XDG_CACHE_HOME -u MMBK_CACHE "$KIT_DIR/bin/unapply" --kdir "$d"
	expect_rc 0 "unapply as root"
}

test_malformed_patch_named() {
	local d=$T/hostile-malformed sum
	synth_kit "$T/kit"
	# a hunk cut short: its header promises three lines, two follow
	sed -i '$d' "$T/kit/backports/9.9/0001-ksm.patch"
	synth_tree "$d"
	sum=$(tree_sum "$d")
	synth_apply apply --topics alpha,beta "$d"
	expect_rc 3 "apply with a malformed patch in one topic"
	expect_out '^topic alpha +failed: backports/9.9/0001-ksm.patch is not a well-formed patch \(the hunk at line [0-9]+ is cut short\); restore it' \
		"the malformed patch is named as such"
	! grep -q 'run make regen' <<< "$(grep '^topic alpha' <<< "$OUT")" || fail "a malformed patch blamed on regen" "$OUT"
	synth_apply unapply "$d"
	expect_sum "$d" "$sum" "malformed patch"
}

test_series_naming_a_missing_patch() {
	local d=$T/hostile-series
	synth_kit "$T/kit"
	printf '0004-gone.patch\n' >> "$T/kit/backports/9.9/series"
	synth_tree "$d"
	synth_apply apply "$d"
	expect_one_line_error 'backports/9.9/series names 0004-gone.patch, but backports/9.9/0004-gone.patch does not exist'
	synth_kit "$T/kit"
	printf '0004-gone.patch\n' >> "$T/kit/series"
	synth_apply apply "$d"
	expect_one_line_error '\./series names 0004-gone.patch, but patches/0004-gone.patch does not exist'
}

test_relative_and_empty_kdir() {
	local d=$T/hostile-rel/linux
	synth_kit "$T/kit"
	synth_tree "$d"
	# KDIR= relative to the directory make runs in, not the kit's
	( cd "$T/hostile-rel" && MMBK_DATA=$T/kit env -u HOME -u XDG_CACHE_HOME -u MMBK_CACHE \
		make -s -C "$KIT_DIR" status KDIR=linux ) > "$T/rel.out" 2>&1 && rc=0 || rc=$?
	[ "$rc" -eq 0 ] || fail "make -C kit status KDIR=linux from the tree's parent: exit $rc (not applied: a success for make)" "$(cat "$T/rel.out")"
	grep -q 'not applied' "$T/rel.out" || fail "the relative KDIR= was not the caller's" "$(cat "$T/rel.out")"
	synth_make status KDIR=
	expect_make_error 'KDIR= is empty; set KDIR= to a kernel source tree'
}

# issue 55 item 7: the patched files reverted by hand (git checkout .),
# the kit's state left: status and apply read the tree, not only the
# state.  Every file back to its original: status 2 naming the stale
# state, apply drops it and applies again (0).  Only some of them: status
# 3 names them, apply refuses with 4, unapply takes the rest out (0).
# (Before: status 0 "applied", apply 2 "already applied".)
test_reverted_by_hand() {
	local d=$T/hostile-reverted ref=$T/hostile-reverted-ref sum
	synth_kit "$T/kit"
	synth_tree "$ref"
	# every topic applies (gamma too)
	printf 'int r;\nint not_there;\n' > "$ref/kernel/locking/rwsem.c"
	sum=$(tree_sum "$ref")
	rm -rf "$d"; cp -a "$ref" "$d"
	synth_apply apply "$d"
	expect_rc 0 "apply"
	# what git checkout . would do to a tree where the kit's state is untracked
	cp -p "$ref/mm/ksm.c" "$ref/mm/khugepaged.c" "$d/mm/"
	cp -p "$ref/kernel/locking/rwsem.c" "$d/kernel/locking/"
	rm "$d/mm/new.c"
	synth_apply status "$d"
	expect_rc 2 "status of a tree reverted by hand"
	expect_out 'not applied: every file the series changed is its original again' "status says what it found"
	synth_apply apply "$d"
	expect_rc 0 "apply on a tree reverted by hand"
	expect_out 'stale' "apply names the stale state"
	grep -qx 'int b2;' "$d/mm/ksm.c" || fail "apply on a reverted tree did not apply alpha"
	# only mm/ksm.c reverted
	cp -p "$ref/mm/ksm.c" "$d/mm/ksm.c"
	synth_apply status "$d"
	expect_rc 3 "status of a tree partly reverted by hand"
	expect_out '^partial: back to their original .*: mm/ksm\.c' "status names the reverted file"
	synth_apply apply "$d"
	expect_rc 4 "apply on a tree partly reverted by hand"
	expect_out 'mm/ksm\.c is its original again' "apply names the reverted file"
	synth_apply unapply "$d"
	expect_rc 0 "unapply of a tree partly reverted by hand"
	expect_sum "$d" "$sum" "unapply of a partly reverted tree"
	# every file reverted but one, which was edited: not "not applied"
	synth_apply apply "$d"
	expect_rc 0 "apply again"
	cp -p "$ref/mm/ksm.c" "$d/mm/"
	cp -p "$ref/kernel/locking/rwsem.c" "$d/kernel/locking/"
	rm "$d/mm/new.c"
	echo 'int edit;' >> "$d/mm/khugepaged.c"
	synth_apply status "$d"
	expect_rc 3 "status of a tree reverted by hand but for an edited file"
	expect_out '^warning: mm/khugepaged\.c changed after the series was applied' "status names the edited file"
	synth_apply apply "$d"
	expect_rc 4 "apply on a tree reverted by hand but for an edited file"
	synth_apply unapply --force "$d"
	expect_rc 0 "unapply FORCE=1"
	expect_sum "$d" "$sum" "unapply FORCE=1 of a reverted and edited tree"
}

# issue 55 item 3: local changes judged inside git relative to the tree,
# not to the repository's root.  A pristine tree sitting untracked (or
# ignored) inside another work tree (a home or dotfiles repository) has
# no local changes: applied (0); in a BSP repository with the kernel in
# kernel/, a real change is refused with 4 and named by its own path.
# (Before: the untracked tree was refused with 4 and a doubled path
# ".../linux-9.9/linux-9.9/ has local changes", the BSP change named
# ".../kernel/kernel/mm/ksm.c".)
test_local_changes_inside_another_repository() {
	local home=$T/hostile-home bsp=$T/hostile-bsp
	synth_kit "$T/kit"
	rm -rf "$home" "$bsp"
	mkdir -p "$home"
	printf 'dotfile\n' > "$home/.profile"
	git_tree "$home"
	synth_tree "$home/linux-9.9"
	synth_apply apply --topics alpha,beta "$home/linux-9.9"
	expect_rc 0 "apply to a pristine tree untracked inside a git work tree"
	synth_apply unapply "$home/linux-9.9"
	expect_rc 0 "unapply"
	printf 'linux-*/\n' > "$home/.gitignore"
	synth_apply apply --topics alpha,beta "$home/linux-9.9"
	expect_rc 0 "apply to a pristine tree ignored inside a git work tree"
	mkdir -p "$bsp"
	synth_tree "$bsp/kernel"
	printf 'bsp\n' > "$bsp/README"
	git_tree "$bsp"
	echo 'int local;' >> "$bsp/kernel/mm/ksm.c"
	synth_apply apply --topics alpha,beta "$bsp/kernel"
	expect_rc 4 "apply over a local change in a BSP repository"
	expect_one_line_error "error: $bsp/kernel/mm/ksm.c has local changes"
}

# issue 55 item 2: a KDIR= is used exactly as given.  Beside the tree
# .../victim, a tree .../victim<newline>: apply KDIR=".../victim<newline>"
# patches that tree, never .../victim, and unapply takes it out.  (Before:
# the command substitution that resolved the path dropped the trailing
# newline, and .../victim was patched, exit 0.)
test_kdir_with_trailing_newline() {
	local victim=$T/hostile-nl/victim nl sum_victim sum_nl
	nl=$victim$'\n'
	synth_kit "$T/kit"
	rm -rf "$T/hostile-nl"
	synth_tree "$victim"
	synth_tree "$nl"
	sum_victim=$(tree_sum "$victim")
	sum_nl=$(tree_sum "$nl")
	synth_apply apply --topics alpha,beta "$nl"
	expect_sum "$victim" "$sum_victim" "apply KDIR=victim<newline> left victim alone"
	if [ "$RC" -eq 0 ]; then
		grep -qx 'int b2;' "$nl/mm/ksm.c" || fail "apply KDIR=victim<newline>: exit 0, but that tree is not patched" "$OUT"
		synth_apply status "$nl"
		expect_rc 3 "status KDIR=victim<newline> (gamma not selected: partial)"
		synth_apply unapply "$nl"
		expect_rc 0 "unapply KDIR=victim<newline>"
		expect_sum "$nl" "$sum_nl" "apply + unapply of victim<newline>"
	else
		expect_rc "$EXIT_USAGE" "apply KDIR=victim<newline>: used as given or refused as bad input"
	fi
	expect_sum "$victim" "$sum_victim" "victim untouched"
}

# issue 55 item 5: names with a newline (or a backslash), which sha256sum
# escapes in its output: differing_files compares the content, whatever
# the paths of the two trees are.  (Before: every file of a tree whose path
# held a newline differed, and a pristine tree there was refused with 4.)
test_differing_files_with_newline_paths() {
	local a=$T/hostile-sums/a$'\n'tree b=$T/hostile-sums/b\\tree$'\n' out
	rm -rf "$T/hostile-sums"
	synth_tree "$a"
	synth_tree "$b"
	echo 'int other;' >> "$b/mm/khugepaged.c"
	out=$(differing_files "$a" "$b" mm/ksm.c mm/khugepaged.c Makefile)
	[ "$out" = mm/khugepaged.c ] || fail "differing_files with a newline and a backslash in the paths: '$out', expected mm/khugepaged.c"
}

# issue 55 item 6: a touched file the patches cannot carry as it is (CRLF
# line ends, NUL bytes: UTF-16) is refused before anything changes, with
# 64 and the reason, FORCE=1 or not.  (Before: FORCE=1 went on and the
# file's topic failed or was re-targeted; on a kernel tree mm/khugepaged.c
# came out LF throughout with three extra blank lines, "applied
# (re-targeted)".)
test_crlf_touched_file_refused() {
	local d=$T/hostile-crlf sum
	synth_fresh "$d"
	printf 'int x;\r\nint z;\r\n' > "$d/mm/khugepaged.c"
	sum=$(tree_sum "$d")
	synth_apply apply --force --topics alpha,beta "$d"
	expect_rc "$EXIT_USAGE" "apply FORCE=1 with a CRLF mm/khugepaged.c"
	expect_one_line_error 'mm/khugepaged\.c has CRLF line ends'
	expect_sum "$d" "$sum" "a CRLF file refused"
	synth_apply apply --topics alpha,beta "$d"
	expect_rc "$EXIT_USAGE" "apply with a CRLF mm/khugepaged.c"
	expect_sum "$d" "$sum" "a CRLF file refused"
}

# issue 55 item 8: "VERSION = abc" in the top Makefile is bad input (64)
# named as such.  (Before: a bash arithmetic error, exit 1.)
test_non_numeric_version() {
	local d=$T/hostile-version sum
	synth_fresh "$d"
	printf 'VERSION = abc\nPATCHLEVEL = 9\nSUBLEVEL = 1\n' > "$d/Makefile"
	sum=$(tree_sum "$d")
	synth_apply apply "$d"
	expect_rc "$EXIT_USAGE" "apply on a tree whose Makefile says VERSION = abc"
	expect_one_line_error 'VERSION = abc'
	expect_sum "$d" "$sum" "VERSION = abc"
}

# issue 55 item 8: an unwritable TMPDIR is named as such, bad input (64),
# not "interrupted or stuck" (1) with mktemp's own message
test_unwritable_tmpdir() {
	local d=$T/hostile-tmpdir
	synth_fresh "$d"
	TMPDIR=$T/no-such-tmpdir synth_apply status "$d"
	expect_rc "$EXIT_USAGE" "status with TMPDIR= a missing directory"
	expect_one_line_error 'TMPDIR=.*no-such-tmpdir.*set TMPDIR= to a writable directory'
}

# issue 55 item 8: what killed commands left in TMPDIR (their work
# directories, mmbk-apply.* and plan.*) is removed by the next command
test_killed_runs_leave_no_temporary_dirs() {
	local d=$T/hostile-tmpleft tmp=$T/hostile-tmp left
	synth_kit "$T/kit"
	rm -rf "$d" "$tmp"
	mkdir -p "$tmp"
	synth_tree "$d"
	TMPDIR=$tmp MMBK_FAULT=snapshot#1 synth_apply apply --topics alpha,beta "$d"
	[ "$RC" -eq 137 ] || fail "apply killed at snapshot#1: exit $RC" "$OUT"
	[ -n "$(ls -A "$tmp")" ] || fail "test void: the killed apply left nothing in TMPDIR"
	TMPDIR=$tmp synth_apply unapply "$d"
	expect_rc 0 "unapply after the kill"
	left=$(ls -A "$tmp")
	[ -z "$left" ] || fail "left in TMPDIR after the next command:" "$left"
}

# issue 55 item 8: with SIGPIPE ignored by the parent (trap '' PIPE,
# which a bash child cannot undo), the commands print no
# "write error: Broken pipe" (they run again with SIGPIPE at its default)
test_sigpipe_ignored_by_the_parent() {
	local d=$T/hostile-sigpipe cmd
	synth_fresh "$d"
	for cmd in status apply status unapply; do
		if [ "$cmd" = apply ]; then
			(trap '' PIPE; synth_apply apply --topics alpha,beta "$d"; printf '%s\n' "$RC" > "$T/sigpipe-rc"; printf '%s' "$OUT" > "$T/sigpipe-out")
		else
			(trap '' PIPE; synth_apply "$cmd" "$d"; printf '%s\n' "$RC" > "$T/sigpipe-rc"; printf '%s' "$OUT" > "$T/sigpipe-out")
		fi
		OUT=$(<"$T/sigpipe-out")
		! grep -q 'write error' <<< "$OUT" || fail "$cmd with SIGPIPE ignored:" "$OUT"
	done
}

# issue 55 item 8: "applied 1 patch", not "applied 1 patches"
test_one_patch_singular() {
	local d=$T/hostile-one
	synth_fresh "$d"
	synth_apply apply --topics alpha "$d"
	expect_rc 0 "apply TOPICS=alpha"
	expect_out 'applied 1 patch \(topics: alpha\)' "singular"
	synth_apply apply --topics alpha "$d"
	expect_out 'already applied \(1 patch;' "singular on the rerun"
}

# issue 55 item 8: a SIGTERM or SIGINT in apply's preflight (here: while
# the local changes are read) leaves no .mm-backport-kit.probe in the tree
test_signal_in_preflight_leaves_no_probe() {
	local d=$T/hostile-probe bin=$T/probe-bin sig
	synth_kit "$T/kit"
	mkdir -p "$bin"
	# git status is asked for the local changes, after the write probe
	cat > "$bin/git" <<-'G'
	#!/bin/bash
	case " $* " in *" status "*) touch "$GIT_STOP_FILE"; sleep 5 ;; esac
	exec /usr/bin/git "$@"
	G
	chmod +x "$bin/git"
	for sig in TERM INT; do
		rm -rf "$d" "$T/probe-stop"
		synth_tree "$d"
		git_tree "$d"
		# (a background command starts with SIGINT ignored: env puts it back)
		( GIT_STOP_FILE=$T/probe-stop PATH=$bin:$PATH MMBK_DATA=$T/kit setsid env --default-signal=INT -u HOME -u XDG_CACHE_HOME -u MMBK_CACHE \
			"$KIT_DIR/bin/apply" --topics alpha,beta --kdir "$d" > "$T/probe-log" 2>&1 & echo $! > "$T/probe-pid"; wait ) &
		for _ in $(seq 50); do [ ! -e "$T/probe-stop" ] || break; sleep 0.1; done
		[ -e "$T/probe-stop" ] || fail "test void: apply never asked git status"
		touch "$d/.mm-backport-kit.probe"	# as if the probe were being made right now
		kill -"$sig" -- -"$(cat "$T/probe-pid")"
		wait
		# the command's subshells end after its first process
		for _ in $(seq 100); do kill -0 -- -"$(cat "$T/probe-pid")" 2>/dev/null || break; sleep 0.1; done
		[ ! -e "$d/.mm-backport-kit.probe" ] || fail "SIG$sig in apply's preflight left .mm-backport-kit.probe" "$(cat "$T/probe-log")"
		[ -z "$(find "$d" -maxdepth 1 -name '.mm-backport-kit*')" ] || fail "SIG$sig in apply's preflight left kit files"
	done
}


# issue 55 item 8: KDIR= at the kit's own sealed cache tree is refused as
# bad input, naming it, before anything touches it -- never with the
# advice "chmod -R u+w", which would break its seal
test_kdir_at_the_cache_tree_refused() {
	local c=$T/hostile-cache d sum
	synth_kit "$T/kit"
	rm -rf "$c"
	d=$c/trees/9.9/linux
	synth_tree "$d"
	printf 'int r;\nint not_there;\n' > "$d/kernel/locking/rwsem.c"
	chmod -R a-w "$d"
	sum=$(tree_sum "$d")
	MMBK_DATA=$T/kit run_kit env -u HOME -u XDG_CACHE_HOME MMBK_CACHE="$c" "$KIT_DIR/bin/apply" --topics alpha,beta --kdir "$d"
	expect_sum "$d" "$sum" "the cached tree"
	expect_rc "$EXIT_USAGE" "apply KDIR=<the kit's cached tree>"
	expect_one_line_error "the kit's cached pristine tree of branch 9\.9"
	! grep -q 'chmod' <<< "$OUT" || fail "advice that would break the seal:" "$OUT"
}

# issue 55 item 8: unapply on a full disk says "no space left" and leaves
# no txn.tmp (or any other half-written file) in the state; with space
# again it works.  (Before: "cannot write in ...; nothing was changed",
# and txn.tmp left.)  A tmpfs of its own (skips where mounting is not
# allowed).
test_unapply_on_a_full_disk() {
	local m=$T/hostile-fullfs d applied
	mkdir -p "$m"
	mount -t tmpfs -o size=2048k mmbk-test "$m" 2>/dev/null || skip "cannot mount a tmpfs here (not root or no CAP_SYS_ADMIN)"
	# shellcheck disable=SC2064  # the path now
	trap "umount '$m' 2>/dev/null || umount -l '$m'" EXIT
	synth_kit "$T/kit"
	d=$m/hostile-fullfs-tree
	synth_tree "$d"
	synth_apply apply --topics alpha,beta "$d"
	expect_rc 0 "apply"
	applied=$(tree_sum "$d")
	dd if=/dev/zero of="$m/.filler" bs=1k count=4096 status=none 2>/dev/null || true
	synth_apply unapply "$d"
	expect_rc 1 "unapply on a full disk"
	expect_one_line_error 'no space left on the file system of'
	[ -z "$(find "$d/.mm-backport-kit" -name '*.tmp')" ] || fail "half-written files left in the state:" "$(find "$d/.mm-backport-kit" -name '*.tmp')"
	expect_sum "$d" "$applied" "unapply refused on a full disk"
	rm -f "$m/.filler"
	synth_apply unapply "$d"
	expect_rc 0 "unapply with space again"
}

# issue 55 item 4: local changes to a touched file of a plain (non-git)
# tree are refused whatever the machine's cache holds: the branch's
# committed reference sums (backports/<branch>/touched.sums: "# version
# X.Y.Z", then sha256sum lines of the pristine touched files; a fixture
# here) judge a tree of that version; a tree of another version is
# unknown, as before.  No cache at all here.  (Before: with no cache the
# edited tree was applied, exit 0.)
test_local_change_refused_without_a_cache() {
	local d=$T/hostile-sums-tree sum
	synth_fresh "$d"
	{
		printf '# the sha256 of every file of Linux 9.9.1 that backports/9.9/series touches\n'
		printf '# version 9.9.1\n'
		(cd "$d" && sha256sum kernel/locking/rwsem.c mm/khugepaged.c mm/ksm.c)
	} > "$T/kit/backports/9.9/touched.sums"
	echo 'int local;' >> "$d/mm/ksm.c"
	sum=$(tree_sum "$d")
	synth_apply apply --topics alpha,beta "$d"
	expect_rc 4 "apply over a local change of a plain tree, no cache"
	expect_one_line_error 'mm/ksm\.c has local changes; commit or revert them first, or rerun with FORCE=1'
	expect_sum "$d" "$sum" "refused apply"
	# another version: the reference does not judge it
	sed -i 's/^SUBLEVEL = 1$/SUBLEVEL = 2/' "$d/Makefile"
	synth_apply apply --topics alpha,beta "$d"
	expect_rc 0 "apply to a tree of a version without reference sums"
	synth_apply unapply "$d"
	expect_rc 0 "unapply"
	# the reference version, pristine: applied
	rm -rf "$d"
	synth_tree "$d"
	synth_apply apply --topics alpha,beta "$d"
	expect_rc 0 "apply to a pristine plain tree"
}

# issue 55 item 8: a carried patch missing from the branch series it is
# taken from is named once, in one error line.  (apply_check_series names
# a missing patch of the tree's own branch first; a topic carried from
# another branch -- a tree between the branches -- reached the plan, which
# printed "patch_files: no patch ..." twice.)  Here the first check is
# stubbed out in a copy of the kit, so that the plan meets the missing
# patch as it does for another branch's series.
test_missing_carried_patch_named_once() {
	local d=$T/hostile-missing k
	synth_fresh "$d"
	k=$(kit_copy hostile-missing-kit)
	printf '%s\n' 'apply_check_series() { :; }' >> "$k/lib/apply.sh"
	rm "$T/kit/backports/9.9/0002-hp.patch"
	MMBK_DATA=$T/kit run_kit env -u HOME -u XDG_CACHE_HOME -u MMBK_CACHE "$k/bin/apply" --topics alpha,beta --kdir "$d"
	expect_rc 1 "apply with a carried patch missing"
	expect_one_line_error 'backports/9\.9/series names 0002-hp\.patch, but backports/9\.9/0002-hp\.patch does not exist'
}
