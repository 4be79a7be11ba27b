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

SPATCH=${SPATCH:-spatch}
COCCI_DIR=$KIT_DIR/cocci
RECIPES=$COCCI_DIR/recipes
SPATCH_OPTS="--very-quiet --no-includes --include-headers --macro-file $COCCI_DIR/macros.h -D patch"

pristine=$(pristine_dir "$branch")
series=$(series_file "$branch")
bpdir=$KIT_DIR/backports/$branch
[ -d "$pristine" ] || die "no pristine tree for $branch at $pristine; run 'make tree BRANCH=$branch' first"
[ -f "$series" ] || die "no series file $series"
[ -f "$RECIPES" ] || die "no recipe table $RECIPES"
command -v "$SPATCH" >/dev/null || die "spatch not found; install coccinelle or set SPATCH="

tmp=$(mktemp -d "${TMPDIR:-/tmp}/regen.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# $tmp/tree: the files touched so far, in the state after the patches done so far
mkdir -p "$tmp/tree" "$tmp/out"

# need_file F: bring tree file F into $tmp/tree (from the pristine tree)
need_file() {
	[ -e "$tmp/tree/$1" ] && return 0
	[ -f "$pristine/$1" ] || die "$1 not found in $pristine"
	mkdir -p "$tmp/tree/$(dirname "$1")"
	cp "$pristine/$1" "$tmp/tree/$1"
}

# recipe_steps PATCH -> "file step" lines of PATCH's recipe, in order
recipe_steps() {
	sed -e 's/#.*//' "$RECIPES" | awk -v p="$1" '$1 == p { print $2, $3 }'
}

# run_step FILE STEP: run one recipe step on $tmp/tree/FILE, in place
run_step() {
	local f=$tmp/tree/$1 step=$COCCI_DIR/$2 want got
	[ -f "$step" ] || die "recipe step $2 not found in $COCCI_DIR"
	cp "$f" "$tmp/step.before"
	case $step in
	*.cocci)
		# shellcheck disable=SC2086
		"$SPATCH" $SPATCH_OPTS --sp-file "$step" --in-place "$f" \
			>"$tmp/spatch.log" 2>&1 ||
			{ cat "$tmp/spatch.log" >&2; die "spatch $2 failed on $1"; }
		;;
	*.sed)
		sed -i -f "$step" "$f"
		;;
	*)	die "unknown step type: $2" ;;
	esac
	cmp -s "$tmp/step.before" "$f" &&
		die "$2 did not change $1 on $branch: the code no longer has the expected shape"
	# a sed script may declare "# lines: -R +A" (lines removed/added):
	# a partial match is an error, not a half-done edit
	want=$(sed -n 's/^# lines: \(-[0-9]* +[0-9]*\)$/\1/p' "$step")
	if [ -n "$want" ]; then
		got=$(LC_ALL=C diff "$tmp/step.before" "$f" |
			awk '/^</ { r++ } /^>/ { a++ } END { printf "-%d +%d", r, a }')
		[ "$got" = "$want" ] ||
			die "$2 changed $got lines of $1 on $branch, expected $want: the code no longer has the expected shape"
	fi
	return 0
}

# file_diff FILE: git-style diff of $tmp/before/FILE -> $tmp/tree/FILE
file_diff() {
	local f=$1 old new
	old=$(git hash-object --no-filters "$tmp/before/$f")
	new=$(git hash-object --no-filters "$tmp/tree/$f")
	printf 'diff --git a/%s b/%s\n' "$f" "$f"
	printf 'index %s..%s 100644\n' "${old:0:12}" "${new:0:12}"
	LC_ALL=C diff -u -p --label "a/$f" --label "b/$f" \
		"$tmp/before/$f" "$tmp/tree/$f" && die "recipe left $f unchanged"
	return 0
}

# regen_one NAME OUT: write the regenerated backport NAME to OUT
regen_one() {
	local name=$1 out=$2 old=$bpdir/$1 files f step
	[ -f "$old" ] || die "$old does not exist: write its header (up to the '---' line) first"
	grep -q '^---$' "$old" || die "$old has no '---' line ending its header"
	files=$(recipe_steps "$name" | awk '{ print $1 }' | LC_ALL=C sort -u)
	rm -rf "$tmp/before"
	for f in $files; do
		need_file "$f"
		mkdir -p "$tmp/before/$(dirname "$f")"
		cp "$tmp/tree/$f" "$tmp/before/$f"
	done
	while read -r f step; do
		progress "$branch: $name: $step on $f"
		run_step "$f" "$step"
	done <<EOF
$(recipe_steps "$name")
EOF
	for f in $files; do
		file_diff "$f"
	done >"$tmp/body"
	{
		sed -n '1,/^---$/p' "$old"
		patch_diffstat "$tmp/body"
		printf '\n'
		cat "$tmp/body"
	} >"$out"
}

# apply_plain NAME: apply a patch without recipe to the files it touches
apply_plain() {
	local p=$bpdir/$1 f
	for f in $(patch_files "$p"); do
		need_file "$f"
	done
	patch -s -p1 -F0 -N -d "$tmp/tree" -i "$p" >/dev/null ||
		die "$1 does not apply at fuzz 0 on $branch (after the patches before it)"
}

status=0
n=0
for name in $(series_patches "$series"); do
	if [ -n "$(recipe_steps "$name")" ]; then
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
		apply_plain "$name"
	fi
done

if [ $check -eq 1 ] && [ $status -eq 0 ]; then
	info "$branch: $n regenerated patch(es) identical to backports/$branch"
fi
exit $status
