# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# worktree.sh - the kit's own source trees of a branch in the cache:
#   unpatched        the pristine cached tree (never modified)
#   patched          a copy with every topic of the branch series applied
#   patched-kabi     the same in the kABI profile (the kABI variants of
#                    backports/BRANCH/kabi/)
#   without-<topic>  a copy with every topic but <topic> applied: the
#                    baseline that proves <topic>'s tests fail without it
#   scratch          the user's playground for make apply/unapply BRANCH=
# A patched copy is remade only when what decides it changed (series,
# patches, tables) or when asked (fresh).
kit_use tables trees fetch request apply

# worktree_stamp BRANCH VARIANT: hash of everything that decides a patched copy
worktree_stamp() {
	local f
	{
		cat "$(series_file "$1")"
		# a branch may have no kABI variants: only the files that exist
		for f in "$DATA_DIR"/backports/"$1"/*.patch "$DATA_DIR"/backports/"$1"/kabi/*.patch \
			 "$TABLES_DIR/detect.table" "$TABLES_DIR/plan.table" "$TOPICS_TABLE"; do
			[ ! -f "$f" ] || cat "$f"
		done
		printf '%s\n' "$2"
	} | sha256sum | cut -c1-16
}

# worktree_topics VARIANT -> the topics a patched copy of that variant carries
worktree_topics() {
	case $1 in
	patched|patched-kabi) all_topics | paste -sd, ;;
	without-*)
		is_topic "${1#without-}" ||
			usage_error "unknown variant '$1'; topics: $(all_topics | paste -sd' ')"
		all_topics | grep -vxF -- "${1#without-}" | paste -sd, ;;
	esac
}

worktree_patched() {
	local branch=$1 variant=$2 fresh=$3 dir s topics profile=default
	dir=$(variant_dir "$branch" "$variant")
	s=$(worktree_stamp "$branch" "$variant")
	topics=$(worktree_topics "$variant")
	[ "$variant" != patched-kabi ] || profile=kabi
	mkdir -p "$(dirname "$dir")"
	# shared while it only finds the copy current (checks of one branch
	# for two targets run side by side); exclusive to remake it: it waits
	# for the commands that read the copy (worktree_hold)
	if [ -z "$fresh" ]; then
		lock_tree "$(dirname "$dir")" shared
		worktree_current "$dir" "$s" && return 0
	fi
	lock_tree "$(dirname "$dir")"
	[ -z "$fresh" ] || rm -f "$dir.stamp"
	worktree_current "$dir" "$s" && return 0
	progress "worktree: $branch $variant copy (series $s)"
	# no stamp and no records of an earlier copy while this one is made
	rm -f "$dir.stamp" "$dir.records"
	# a copy made afresh is its caller's step (the matrix's apply): the
	# apply's records are handed back to it (request.sh
	# request_hand_back), also when the series fails
	[ -z "$fresh" ] || request_hand_back "$dir.records"
	# the kit's copies are built and judged: the cache's content first
	pristine_verify "$branch"
	scratch_copy "$branch" "$dir"
	kit_try request_call TREE="$dir" BRANCH="$branch" TOPICS="$topics" STRICT=1 SERIES_PROFILE="$profile" \
		FORCE=0 RECORDS="$dir.records" -- apply_run >&2
	[ "$KIT_RC" -eq 0 ] || [ "$KIT_RC" -eq "$EXIT_NOTHING" ] ||
		die "the $branch series does not apply to the kit's own $branch tree ($dir); run 'make regen BRANCH=$branch REGEN_CHECK=1' and check backports/$branch"
	[ -f "$dir.records" ] || : > "$dir.records"
	echo "$s" > "$dir.stamp"
}

# worktree_current DIR STAMP: the copy DIR is made and of series STAMP
worktree_current() {
	[ "$(cat "$1.stamp" 2>/dev/null)" = "$2" ] && [ -f "$1/Makefile" ]
}

# worktree_hold BRANCH VARIANT: the tree of VARIANT is read by this command
# until it ends; no other command remakes it meanwhile (worktree_patched
# waits; worktree itself runs in $(...), which keeps no lock)
worktree_hold() {
	local dir
	case $2 in
	unpatched) pristine_hold "$1" ;;
	patched|patched-kabi|without-*)
		dir=$(variant_dir "$1" "$2")
		lock_tree "$(dirname "$dir")" shared
		[ -f "$dir.stamp" ] ||
			die "the kit's $1 $2 tree ($dir) was being remade by another command that did not finish; run this command again" ;;
	esac
}

# worktree BRANCH VARIANT [fresh] -> the path of the tree (made as needed)
worktree() {
	local branch=$1 variant=$2 dir
	require_branch "$branch"
	need_cache
	case $variant in
	unpatched)
		dir=$(pristine_dir "$branch")
		# fetched when the cache has none yet
		[ -f "$dir/Makefile" ] || dir=$(fetch_tree "$branch")
		;;
	patched|patched-kabi|without-*)
		kit_try worktree_patched "$branch" "$variant" "${3:-}"
		[ "$KIT_RC" = 0 ] || exit "$KIT_RC"
		dir=$(variant_dir "$branch" "$variant")
		;;
	scratch)
		# the user's playground for BRANCH=: made once, kept across runs
		dir=$CACHE_DIR/work/$branch/scratch
		[ -f "$dir/Makefile" ] || scratch_copy "$branch" "$dir" >&2
		;;
	*) usage_error "unknown variant '$variant'; use patched, patched-kabi, unpatched, without-<topic> or scratch" ;;
	esac
	printf '%s\n' "$dir"
}
