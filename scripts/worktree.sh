#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# worktree.sh BRANCH patched|unpatched|scratch - print the path of a source
# tree of BRANCH: the pristine cached tree, a copy with the branch series
# applied, or a scratch copy for the user's own make apply/unapply.
# The patched copy is remade only when the series changed (or MMBK_FRESH=1).
set -eu
. "$(dirname "$0")/lib.sh"

series_stamp() {	# hash of everything that decides the patched tree
	cat "$(series_file "$1")" "$KIT_DIR"/backports/"$1"/*.patch \
	    "$KIT_DIR/backports/detect.table" 2>/dev/null | sha256sum | cut -c1-16
}

main() {
	local branch=${1:-} kind=${2:-} dir stamp
	require_branch "$branch"
	case $kind in
	unpatched)
		dir=$(pristine_dir "$branch")
		[ -f "$dir/Makefile" ] || die "no cached tree for $branch; run 'make tree BRANCH=$branch' first"
		;;
	patched)
		dir=$(patched_dir "$branch")
		stamp=$(series_stamp "$branch")
		[ "${MMBK_FRESH:-0}" = 0 ] || rm -f "$dir.stamp"
		if [ "$(cat "$dir.stamp" 2>/dev/null)" != "$stamp" ]; then
			progress "worktree: $branch patched copy (series $stamp)"
			rm -f "$dir.stamp"
			scratch_copy "$branch" "$dir"
			"$KIT_DIR/scripts/apply.sh" apply "$dir" || [ $? -eq 2 ]
			echo "$stamp" > "$dir.stamp"
		fi
		;;
	scratch)
		# the user's playground for BRANCH=: made once, kept across runs
		dir=$CACHE_DIR/work/$branch/scratch
		[ -f "$dir/Makefile" ] || scratch_copy "$branch" "$dir"
		;;
	*) die "unknown kind '$kind'; use patched, unpatched or scratch" ;;
	esac
	printf '%s\n' "$dir"
}

main "$@"
