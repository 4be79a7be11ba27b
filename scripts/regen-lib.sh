# SPDX-License-Identifier: GPL-2.0-only
# regen-lib.sh - the machinery that rebuilds a backport from the semantic
# patches in cocci/ (sourced by scripts/regen.sh and scripts/retarget.sh,
# after scripts/lib.sh; never run).
#
# The caller sets:
#   RG_TMP     scratch directory (RG_TMP/tree holds the files touched so far,
#              in the state left by the patches done so far)
#   RG_SRC     the tree files are taken from when first needed
#   RG_LABEL   name of that tree in messages (a branch, or a tree name)
#   RG_BPDIR   where the patches (and their headers) of the series are
# cocci/recipes says which steps rebuild which patch; see its header.

SPATCH=${SPATCH:-spatch}
COCCI_DIR=$KIT_DIR/cocci
RECIPES=$COCCI_DIR/recipes
SPATCH_OPTS="--very-quiet --no-includes --include-headers --macro-file $COCCI_DIR/macros.h -D patch"

# rg_init: check the tools and make the scratch layout
rg_init() {
	[ -f "$RECIPES" ] || die "no recipe table $RECIPES"
	command -v "$SPATCH" >/dev/null || die "spatch not found; install coccinelle or set SPATCH="
	mkdir -p "$RG_TMP/tree" "$RG_TMP/out"
}

# need_file F: bring tree file F into $RG_TMP/tree (from $RG_SRC)
need_file() {
	[ -e "$RG_TMP/tree/$1" ] && return 0
	[ -f "$RG_SRC/$1" ] || die "$1 not found in $RG_SRC"
	mkdir -p "$RG_TMP/tree/$(dirname "$1")"
	cp "$RG_SRC/$1" "$RG_TMP/tree/$1"
}

# recipe_steps PATCH -> "file step" lines of PATCH's recipe, in order
recipe_steps() {
	sed -e 's/#.*//' "$RECIPES" | awk -v p="$1" '$1 == p { print $2, $3 }'
}

has_recipe() {		# has_recipe PATCH
	[ -n "$(recipe_steps "$1")" ]
}

# recipe_files PATCH -> the files PATCH's recipe edits
recipe_files() {
	recipe_steps "$1" | awk '{ print $1 }' | LC_ALL=C sort -u
}

# run_step FILE STEP: run one recipe step on $RG_TMP/tree/FILE, in place
run_step() {
	local f=$RG_TMP/tree/$1 step=$COCCI_DIR/$2 want got
	[ -f "$step" ] || die "recipe step $2 not found in $COCCI_DIR"
	cp "$f" "$RG_TMP/step.before"
	case $step in
	*.cocci)
		# shellcheck disable=SC2086
		"$SPATCH" $SPATCH_OPTS --sp-file "$step" --in-place "$f" \
			>"$RG_TMP/spatch.log" 2>&1 ||
			{ cat "$RG_TMP/spatch.log" >&2; die "spatch $2 failed on $1"; }
		;;
	*.sed)
		sed -i -f "$step" "$f"
		;;
	*)	die "unknown step type: $2" ;;
	esac
	cmp -s "$RG_TMP/step.before" "$f" &&
		die "$2 did not change $1 on $RG_LABEL: the code no longer has the expected shape"
	# a sed script may declare "# lines: -R +A" (lines removed/added):
	# a partial match is an error, not a half-done edit
	want=$(sed -n 's/^# lines: \(-[0-9]* +[0-9]*\)$/\1/p' "$step")
	if [ -n "$want" ]; then
		got=$({ LC_ALL=C diff "$RG_TMP/step.before" "$f" || true; } |
			awk '/^</ { r++ } /^>/ { a++ } END { printf "-%d +%d", r, a }')
		[ "$got" = "$want" ] ||
			die "$2 changed $got lines of $1 on $RG_LABEL, expected $want: the code no longer has the expected shape"
	fi
	return 0
}

# file_diff FILE: git-style diff of $RG_TMP/before/FILE -> $RG_TMP/tree/FILE
file_diff() {
	local f=$1 old new
	old=$(git hash-object --no-filters "$RG_TMP/before/$f")
	new=$(git hash-object --no-filters "$RG_TMP/tree/$f")
	printf 'diff --git a/%s b/%s\n' "$f" "$f"
	printf 'index %s..%s 100644\n' "${old:0:12}" "${new:0:12}"
	LC_ALL=C diff -u -p --label "a/$f" --label "b/$f" \
		"$RG_TMP/before/$f" "$RG_TMP/tree/$f" && die "recipe left $f unchanged"
	return 0
}

# regen_body NAME: run NAME's recipe on $RG_TMP/tree; the diff goes to
# $RG_TMP/body, the files as they were before to $RG_TMP/before
regen_body() {
	local name=$1 files f step
	files=$(recipe_files "$name")
	rm -rf "$RG_TMP/before"
	for f in $files; do
		need_file "$f"
		mkdir -p "$RG_TMP/before/$(dirname "$f")"
		cp "$RG_TMP/tree/$f" "$RG_TMP/before/$f"
	done
	while read -r f step; do
		progress "$RG_LABEL: $name: $step on $f"
		run_step "$f" "$step"
	done <<EOF
$(recipe_steps "$name")
EOF
	for f in $files; do
		file_diff "$f"
	done >"$RG_TMP/body"
}

# patch_header PATCHFILE: everything up to and including the first '---'
patch_header() {
	sed -n '1,/^---$/p' "$1"
}

# assemble_patch HEADERFILE BODYFILE: header, regenerated diffstat, body
assemble_patch() {
	cat "$1"
	patch_diffstat "$2"
	printf '\n'
	cat "$2"
}

# regen_one NAME OUT: write the regenerated backport NAME to OUT
regen_one() {
	local name=$1 out=$2 old=$RG_BPDIR/$1
	[ -f "$old" ] || die "$old does not exist: write its header (up to the '---' line) first"
	grep -q '^---$' "$old" || die "$old has no '---' line ending its header"
	regen_body "$name"
	patch_header "$old" >"$RG_TMP/header"
	assemble_patch "$RG_TMP/header" "$RG_TMP/body" >"$out"
}

# apply_plain NAME [PATCHFILE]: apply a patch without recipe to the files it
# touches (fuzz 0); returns 1 if it does not apply, leaving nothing changed
apply_plain() {
	local p=${2:-$RG_BPDIR/$1} f
	for f in $(patch_files "$p"); do
		need_file "$f"
	done
	patch -s -p1 -F0 -N -d "$RG_TMP/tree" -i "$p" --dry-run >/dev/null 2>&1 || return 1
	patch -s -p1 -F0 -N -d "$RG_TMP/tree" -i "$p" >/dev/null
}
