# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# unapply.sh - make unapply: take the kit's series out of a tree again,
# restoring every file the apply changed from the kit's state (state.sh),
# in the frame of apply.sh's apply_frame (locks, recovery).  Exit codes: 0
# done, 2 not applied, 4 refused (a file changed since the apply, or since
# an interrupted command whose recovery would overwrite it, without
# FORCE=1; a state of another user, or one this kit did not write for
# the tree).  A file that is its original again is no change: restoring
# it loses nothing.
kit_use tables trees state apply

# unapply_run: make unapply of the request's tree (apply.sh apply_frame)
unapply_run() {
	apply_frame unapply
}

unapply_body() {
	local f problem
	if ! state_is_applied; then
		case ${APPLY_RECOVERED:-} in
		apply) info "$TREE: restored to its state before the interrupted apply"; return 0 ;;
		unapply|drop) info "$TREE: kit series removed; tree restored"; return 0 ;;
		esac
		info "$TREE: kit series not applied; nothing to do"
		return "$EXIT_NOTHING"
	fi
	problem=$(state_owner_problem)
	[ -z "$problem" ] || apply_fail "$problem" "$EXIT_REFUSED"
	f=$(state_changed_file)
	if [ -n "$f" ] && [ "$FORCE" != 1 ]; then
		apply_fail "$TREE/$f changed after the series was applied; undo that change (the applied version is what quilt diff shows), or rerun with FORCE=1 to restore the original and lose it" "$EXIT_REFUSED"
	fi
	trap unapply_on_interrupt INT TERM HUP
	if ! state_begin unapply 2> "$APPLY_RUN/io.err"; then
		trap - INT TERM HUP
		if grep -q 'No space left' "$APPLY_RUN/io.err" || apply_out_of_space; then
			apply_fail "no space left on the file system of $TREE to start the unapply; free some space and rerun; nothing was changed"
		fi
		apply_fail "cannot write in $STATE ($(sed -n 1p "$APPLY_RUN/io.err")); nothing was changed"
	fi
	restore_originals || apply_fail "could not restore every file of $TREE from $STATE; rerun make unapply to finish"
	trap - INT TERM HUP
	info "$TREE: kit series removed; tree restored"
}

unapply_on_interrupt() {
	trap - INT TERM HUP
	restore_originals || true
	apply_fail "interrupted; the unapply of $TREE was finished first"
}

