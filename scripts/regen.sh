#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# regen.sh - rebuild the backports of a branch from its pristine tree.
#
# usage: regen.sh [--check] BRANCH
#
# For every patch of backports/BRANCH/series that has a recipe in
# cocci/recipes, the files it touches are taken from the tree state left by
# the patches before it (pristine tree + earlier patches), the recipe's
# spatch and sed steps are run on them, and the resulting diff is put under
# the header of the committed backport (everything up to the first `---`
# line; the diffstat below it is regenerated). Patches without a recipe are
# applied unchanged so that later recipes see the right base.
#
#   regen.sh BRANCH          rewrite backports/BRANCH/NNNN-*.patch
#   regen.sh --check BRANCH  regenerate into a temporary directory and
#                            compare; exit 1 ("FILE: differs") on a mismatch
#
# Environment: SPATCH (default spatch), MMBK_CACHE (see scripts/lib.sh).
set -eu

# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	printf 'usage: %s [--check] BRANCH\n' "$prog" >&2
	exit 2
}

check=0
case "${1:-}" in
--check) check=1; shift ;;
-h|--help) usage ;;
esac
[ $# -eq 1 ] || usage
branch=$1
require_branch "$branch"

# shellcheck source=scripts/regen-lib.sh
. "$(dirname "$0")/regen-lib.sh"

pristine=$(pristine_dir "$branch")
series=$(series_file "$branch")
bpdir=$KIT_DIR/backports/$branch
[ -d "$pristine" ] || die "no pristine tree for $branch at $pristine; run 'make tree BRANCH=$branch' first"
[ -f "$series" ] || die "no series file $series"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/regen.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
RG_TMP=$tmp RG_SRC=$pristine RG_LABEL=$branch RG_BPDIR=$bpdir
rg_init

status=0
n=0
for name in $(series_patches "$series"); do
	if has_recipe "$name"; then
		if [ $check -eq 1 ]; then
			regen_one "$name" "$tmp/out/$name"
			if ! cmp -s "$tmp/out/$name" "$bpdir/$name"; then
				printf '%s: differs\n' "backports/$branch/$name"
				diff -u "$bpdir/$name" "$tmp/out/$name" >&2 || true
				status=1
			fi
		else
			regen_one "$name" "$tmp/out/$name"
			cmp -s "$tmp/out/$name" "$bpdir/$name" ||
				cp "$tmp/out/$name" "$bpdir/$name"
		fi
		n=$((n + 1))
	else
		progress "$branch: $name: no recipe, applied as is"
		apply_plain "$name" ||
			die "$name does not apply at fuzz 0 on $branch (after the patches before it)"
	fi
done

if [ $check -eq 1 ] && [ $status -eq 0 ]; then
	info "$branch: $n regenerated patch(es) identical to backports/$branch"
fi
exit $status
