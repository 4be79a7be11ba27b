#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# retarget.sh TREE [BRANCH [PATCH...]] - rebuild a branch series for a tree
# it does not apply to at fuzz 0 (a vendor tree, or a version between the
# supported branches), from the semantic patches in cocci/.
#
# TREE is only read. The patches (default: the BRANCH series, less what
# scripts/detect.sh finds already upstream in TREE) are taken in order on a
# scratch copy of the files they touch:
#   applied as-is           the branch patch applies at fuzz 0
#   re-targeted from cocci  it does not, and its recipe (cocci/recipes, the
#                           steps of scripts/regen.sh) rebuilt it for TREE;
#                           the result is checked: detect.table says the
#                           change is present, and it changes the same
#                           functions by the same number of lines as the
#                           branch patch does on the branch's own tree
#   failed                  anything else: the reason and the rejects; the
#                           patches after it are not tried
# Nothing is forced or fuzzed. The result is a quilt directory
# out/<tree-name>/ (series, patches, status; rejects/ of the patches that
# did not apply as they were); re-targeted patches carry a
# "[ re-targeted from backports/<b>/<name> by mm-backport-kit: ... ]" note.
#
# Exit codes: 0 every patch applied as-is or re-targeted, 1 otherwise.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/regen-lib.sh"

report() {	# report NAME STATUS
	printf '%-64s %s\n' "$1" "$2" >&2
	printf '%s\t%s\n' "$1" "$2" >> "$DEST/status"
}

# default_patches -> the branch series less what TREE already has
default_patches() {
	local detected name
	detected=$("$KIT_DIR/scripts/detect.sh" "$TREE")
	for name in $(series_patches "$(series_file "$BRANCH")"); do
		if printf '%s\n' "$detected" | awk -v n="$name" '$1 == n && $2 == "present" { f = 1 } END { exit !f }'; then
			report "$name" "already upstream"
		else
			echo "$name"
		fi
	done
}

# save_rejects NAME: the rejects of the branch patch on the current state
# (in DEST/rejects/NAME); prints a one-line summary of the failed hunks
save_rejects() {
	local name=$1 tmp=$RG_TMP/rej f dir=$DEST/rejects/$1
	rm -rf "$tmp" "$dir"
	mkdir -p "$tmp" "$dir"
	for f in $(patch_files "$BPDIR/$name"); do
		[ -e "$RG_TMP/tree/$f" ] || continue
		mkdir -p "$tmp/$(dirname "$f")"
		cp "$RG_TMP/tree/$f" "$tmp/$f"
	done
	patch -d "$tmp" -p1 -F0 --no-backup-if-mismatch < "$BPDIR/$name" > "$RG_TMP/rej.log" 2>&1 || true
	( cd "$tmp" && find . -name '*.rej' -printf '%P\n' ) | while read -r f; do
		mkdir -p "$dir/$(dirname "$f")"
		cp "$tmp/$f" "$dir/$f"
	done
	sed -n 's/^\([0-9]* out of [0-9]* hunks\{0,1\} FAILED\).* to file \(.*\)\.rej$/\1 in \2/p' "$RG_TMP/rej.log" |
		paste -sd';' | sed 's/;/; /g'
}

# scopes BEFORE AFTER -> "file-scope -R +A" for every top-level definition
# (function, struct/enum, TRACE_EVENT) whose lines differ, with the count
# of removed and added lines
scopes() {
	LC_ALL=C diff -U0 "$1" "$2" | awk -v before="$1" '
		BEGIN {
			n = 0
			while ((getline l < before) > 0) {
				n++
				if (l ~ /^[A-Za-z_]/ && l !~ /^[A-Za-z_][A-Za-z0-9_]*:/) {
					s = l
					if (match(s, /^[A-Z_]+\([A-Za-z0-9_]+/)) {
						s = substr(s, 1, RLENGTH) ")"
					} else if (match(s, /[A-Za-z0-9_]+\(/)) {
						s = substr(s, RSTART, RLENGTH - 1)
					} else {
						sub(/[ \t]*[{;=].*$/, "", s)
					}
					cur = s
				}
				scope[n] = cur
			}
		}
		/^@@ / {
			split($2, o, ","); line = substr(o[1], 2) + 0
			at = scope[line]; if (at == "") at = "(top)"
			next
		}
		/^-/ && !/^--- / { k = scope[line++]; if (k == "") k = "(top)"; del[k]++; seen[k] = 1; next }
		/^\+/ && !/^\+\+\+ / { add[at]++; seen[at] = 1; next }
		END { for (k in seen) printf "%s -%d +%d\n", k, del[k], add[k] }
	' | LC_ALL=C sort
}

# change_scopes DIR_BEFORE DIR_AFTER FILE... -> scopes of every file
change_scopes() {
	local b=$1 a=$2 f
	shift 2
	for f in "$@"; do
		scopes "$b/$f" "$a/$f" | sed "s|^|$f: |"
	done
}

# reference_step NAME: apply the branch patch to the branch's own tree
# (REF, kept in step) and record the scopes it changes in $RG_TMP/ref.scopes
reference_step() {
	local name=$1 p=$BPDIR/$1 f files
	files=$(patch_files "$p")
	rm -rf "$REF/before"
	for f in $files; do
		if [ ! -e "$REF/tree/$f" ]; then
			mkdir -p "$REF/tree/$(dirname "$f")"
			cp "$REF_SRC/$f" "$REF/tree/$f"
		fi
		mkdir -p "$REF/before/$(dirname "$f")"
		cp "$REF/tree/$f" "$REF/before/$f"
	done
	patch -s -p1 -F0 -N -d "$REF/tree" -i "$p" >/dev/null 2>&1 ||
		die "backports/$BRANCH/$name does not apply to the $BRANCH tree; run 'make regen BRANCH=$BRANCH REGEN_CHECK=1'"
	# shellcheck disable=SC2086
	change_scopes "$REF/before" "$REF/tree" $files > "$RG_TMP/ref.scopes"
}

# detect_state NAME -> detect.sh verdict for NAME on the current state
detect_state() {
	local d=$RG_TMP/detect f
	rm -rf "$d"
	mkdir -p "$d/mm"
	for f in Makefile mm/khugepaged.c mm/ksm.c; do
		if [ -e "$RG_TMP/tree/$f" ]; then cp "$RG_TMP/tree/$f" "$d/$f"; else cp "$TREE/$f" "$d/$f"; fi
	done
	"$KIT_DIR/scripts/detect.sh" "$d" | awk -v n="$1" '$1 == n { $1 = ""; sub(/^ /, ""); print }'
}

# verify NAME: the re-targeted change is the branch's change; prints why not
verify() {
	local name=$1 verdict
	verdict=$(detect_state "$name")
	case $verdict in
	''|present*) ;;
	*) echo "the result does not carry the change (detect.table: $verdict)"; return 1 ;;
	esac
	# shellcheck disable=SC2046
	change_scopes "$RG_TMP/before" "$RG_TMP/tree" $(recipe_files "$name") > "$RG_TMP/new.scopes"
	if ! cmp -s "$RG_TMP/ref.scopes" "$RG_TMP/new.scopes"; then
		echo "the result changes other code than backports/$BRANCH/$name: $(diff "$RG_TMP/ref.scopes" "$RG_TMP/new.scopes" | sed -n 's/^[<>] //p' | paste -sd';' | sed 's/;/; /g')"
		return 1
	fi
}

# retarget_header NAME WHY: the header of the branch patch with the re-targeting note
# inserted above the last Signed-off-by: of the header
retarget_header() {
	local name=$1 why=$2
	patch_header "$BPDIR/$name" | awk -v note="$(
		printf '[ re-targeted from backports/%s/%s\n' "$BRANCH" "$name"
		printf 'by mm-backport-kit: %s ]\n' "$why" | fold -s -w 70 | sed -e 's/ *$//' -e 's/^/  /')" '
		{ line[NR] = $0 }
		/^Signed-off-by:/ { last = NR }
		END {
			if (!last) last = NR
			for (i = 1; i <= NR; i++) {
				if (i == last) print note
				print line[i]
			}
		}'
}

# steps_of NAME -> "a.cocci, text/b.sed" for messages
steps_of() {
	recipe_steps "$1" | awk '{ print "cocci/" $2 }' | paste -sd',' | sed 's/,/, /g'
}

# one NAME: take patch NAME on the current state; 0 ok, 1 failed
one() {
	local name=$1 rejects why err
	if apply_plain "$name" "$BPDIR/$name"; then
		reference_step "$name"
		cp "$BPDIR/$name" "$DEST/$name"
		echo "$name" >> "$DEST/series"
		report "$name" "applied as-is"
		return 0
	fi
	rejects=$(save_rejects "$name")
	if ! has_recipe "$name"; then
		report "$name" "failed: does not apply at fuzz 0 ($rejects) and no semantic patch covers it (cocci/recipes); rejects in $DEST/rejects/$name"
		return 1
	fi
	reference_step "$name"
	if ! ( regen_body "$name" ) 2> "$RG_TMP/regen.err"; then
		err=$(grep 'error:' "$RG_TMP/regen.err" | tail -n1 | sed 's/^[^:]*: error: //')
		report "$name" "failed: does not apply at fuzz 0 ($rejects) and its recipe does not fit this tree: ${err:-see $RG_TMP/regen.err}; rejects in $DEST/rejects/$name"
		return 1
	fi
	if ! why=$(verify "$name"); then
		report "$name" "failed: does not apply at fuzz 0 ($rejects) and re-targeting was refused: $why; rejects in $DEST/rejects/$name"
		return 1
	fi
	why="the branch patch does not apply at fuzz 0 to $TREE_NAME (Linux $(kernel_version "$TREE")): $rejects. Regenerated from $(steps_of "$name") on that tree; checked: backports/detect.table finds the change, and it changes the same functions by the same number of lines as the branch patch"
	retarget_header "$name" "$why" > "$RG_TMP/header"
	assemble_patch "$RG_TMP/header" "$RG_TMP/body" > "$DEST/$name"
	echo "$name" >> "$DEST/series"
	report "$name" "re-targeted from cocci"
}

main() {
	local dir=${1:-} name failed=0 list
	[ -n "$dir" ] || die "usage: retarget.sh TREE [BRANCH [PATCH...]]"
	shift
	TREE=$(cd "$dir" 2>/dev/null && pwd) || die "KDIR=$dir does not exist; point KDIR= at a kernel source tree"
	BRANCH=${1:-}
	[ $# -eq 0 ] || shift
	[ -n "$BRANCH" ] || BRANCH=$(tree_branch "$TREE")
	require_branch "$BRANCH"
	BPDIR=$KIT_DIR/backports/$BRANCH
	REF_SRC=$(pristine_dir "$BRANCH")
	[ -d "$REF_SRC" ] || die "no cached tree for $BRANCH; run 'make tree BRANCH=$BRANCH' first"
	TREE_NAME=$(tree_name "$TREE")
	DEST=$OUT_DIR/$TREE_NAME
	RG_TMP=$(mktemp -d "${TMPDIR:-/tmp}/retarget.XXXXXX")
	trap 'rm -rf "$RG_TMP"' EXIT
	RG_SRC=$TREE RG_LABEL=$TREE_NAME RG_BPDIR=$BPDIR
	REF=$RG_TMP/ref
	mkdir -p "$REF/tree"
	rg_init
	rm -rf "$DEST"
	mkdir -p "$DEST"
	: > "$DEST/status"
	printf '# re-targeted for %s (Linux %s) from backports/%s by mm-backport-kit (scripts/retarget.sh)\n' \
		"$TREE" "$(kernel_version "$TREE")" "$BRANCH" > "$DEST/series"
	list=$*
	[ -n "$list" ] || list=$(default_patches)
	for name in $list; do
		if [ $failed = 1 ]; then
			report "$name" "not tried (an earlier patch failed)"
			continue
		fi
		one "$name" || failed=1
	done
	[ $failed = 0 ] || return 1
	info "$TREE: series written to $DEST (QUILT_PATCHES=$DEST)"
}

main "$@"
