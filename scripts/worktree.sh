#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# worktree.sh BRANCH KIND [--report FILE] - print the path of a source tree of
# BRANCH in the kit's cache:
#   unpatched        the pristine cached tree (never modified)
#   patched          a copy with every topic of the branch series applied
#   patched-kabi     the same in the kABI profile (apply.sh --profile kabi:
#                    the kABI variants of backports/BRANCH/kabi/)
#   without-<topic>  a copy with every topic but <topic> applied: the
#                    baseline that proves <topic>'s tests fail without it
#   scratch          the user's playground for make apply/unapply BRANCH=
# A patched copy is remade only when what decides it changed (series,
# patches, tables) or with --fresh; --report passes apply.sh's per-patch
# report on.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# stamp BRANCH KIND: hash of everything that decides a patched copy
stamp() {
	local f
	{
		cat "$(series_file "$1")"
		# a branch may have no kABI variants: only the files that exist
		for f in "$DATA_DIR"/backports/"$1"/*.patch "$DATA_DIR"/backports/"$1"/kabi/*.patch \
			 "$DATA_DIR/backports/detect.table" "$TOPICS_TABLE"; do
			[ ! -f "$f" ] || cat "$f"
		done
		printf '%s\n' "$2"
	} | sha256sum | cut -c1-16
}

# topics_for KIND -> the topics a patched copy of that kind carries
topics_for() {
	case $1 in
	patched|patched-kabi) all_topics | paste -sd, ;;
	without-*)
		is_topic "${1#without-}" ||
			die "unknown variant '$1'; topics: $(all_topics | paste -sd' ')"
		all_topics | grep -vxF -- "${1#without-}" | paste -sd, ;;
	esac
}

make_patched() {
	local branch=$1 kind=$2 report=$3 fresh=$4 dir s rc=0 topics
	dir=$(variant_dir "$branch" "$kind")
	s=$(stamp "$branch" "$kind")
	topics=$(topics_for "$kind")
	mkdir -p "$(dirname "$dir")"
	lock_tree "$(dirname "$dir")"
	[ "$fresh" = 0 ] || rm -f "$dir.stamp"
	if [ "$(cat "$dir.stamp" 2>/dev/null)" = "$s" ] && [ -f "$dir/Makefile" ]; then
		[ -z "$report" ] || cp "$dir.report" "$report" 2>/dev/null || true
		[ -z "$report" ] || cp "$dir.report.topics" "$report.topics" 2>/dev/null || true
		return 0
	fi
	progress "worktree: $branch $kind copy (series $s)"
	rm -f "$dir.stamp"
	scratch_copy "$branch" "$dir"
	"$KIT_DIR/scripts/apply.sh" apply "$dir" --topics "$topics" --strict \
		--profile "$([ "$kind" = patched-kabi ] && echo kabi || echo default)" \
		--report "$dir.report" || rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 2 ] ||
		die "the $branch series does not apply to the kit's own $branch tree ($dir); run 'make regen BRANCH=$branch REGEN_CHECK=1' and check backports/$branch"
	[ -f "$dir.report" ] || : > "$dir.report"
	[ -z "$report" ] || cp "$dir.report" "$report"
	[ -z "$report" ] || [ ! -f "$dir.report.topics" ] || cp "$dir.report.topics" "$report.topics"
	echo "$s" > "$dir.stamp"
}

main() {
	local branch=${1:-} kind=${2:-} report='' fresh=0 dir
	[ $# -lt 2 ] || shift 2
	while [ $# -gt 0 ]; do
		case $1 in
		--report) report=${2:-}; shift 2 ;;
		--fresh) fresh=1; shift ;;
		*) die "usage: worktree.sh BRANCH patched|patched-kabi|unpatched|without-<topic>|scratch [--report FILE] [--fresh]" ;;
		esac
	done
	require_branch "$branch"
	need_cache
	case $kind in
	unpatched)
		dir=$(pristine_dir "$branch")
		[ -f "$dir/Makefile" ] || die "no cached tree for $branch; run 'make tree BRANCH=$branch' first"
		;;
	patched|patched-kabi|without-*)
		make_patched "$branch" "$kind" "$report" "$fresh"
		dir=$(variant_dir "$branch" "$kind")
		;;
	scratch)
		# the user's playground for BRANCH=: made once, kept across runs
		dir=$CACHE_DIR/work/$branch/scratch
		[ -f "$dir/Makefile" ] || scratch_copy "$branch" "$dir"
		;;
	*) die "unknown kind '$kind'; use patched, patched-kabi, unpatched, without-<topic> or scratch" ;;
	esac
	printf '%s\n' "$dir"
}

main "$@"
