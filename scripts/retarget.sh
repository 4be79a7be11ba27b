#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# retarget.sh [--no-compile] TREE [BRANCH [PATCH...]] - rebuild the
# backports a tree needs when they do not apply to it at fuzz 0 (a vendor
# tree, or a version between the supported branches).
#
# TREE is only read. The patches are PATCH... from backports/BRANCH, or,
# without PATCH, what scripts/plan.sh says TREE needs ("carry" lines, each
# from the branch plan.sh chose for it; with BRANCH, from BRANCH). They are
# taken in order on a scratch copy of the files they touch, each on the
# result of the ones before it; per patch the first method whose result
# verifies wins:
#   already upstream        backports/detect.table finds the change in TREE
#   applied as-is           the branch patch applies at fuzz 0
#   re-targeted from cocci  its recipe (cocci/recipes: semantic patches,
#                           textual edits, re-anchored new definitions)
#                           rebuilt it on TREE's code
#   re-anchored             scripts/reanchor.py carried each definition the
#                           branch patch changes to TREE's copy of it (3-way
#                           merge per definition, new ones after their anchor)
#   failed: <reason>        none did; the rejects of the branch patch are in
#                           out/<tree-name>/rejects/<patch>/, the patches after
#                           it in this call are not tried
# A re-targeted result verifies when detect.table finds the change in it,
# the definitions it changes are among those the branch patch changes on the
# branch (so a look-alike vendor function is never rewritten), and the
# objects built from the files it changes compile (a build dir per kernel
# version in the kit cache, configured like scripts/kbuild.sh does;
# --no-compile skips this, for quick tests only). Nothing is fuzzed.
#
# The result is the quilt directory out/<tree-name>/ (series, patches,
# status: "<patch><TAB><status>" lines, times: "<patch><TAB><seconds>" of
# this call, rejects/). A call with PATCH... replaces only the entries of
# its own patches, so callers may take one topic at a time (the series stays
# in upstream order; a failing patch stops only the patches after it in the
# same call); a call without PATCH starts out/<tree-name>/ afresh.
# Re-targeted patches carry a
# "[ re-targeted from backports/<b>/<name> by mm-backport-kit: ... ]" note.
#
# Exit codes: 0 every patch landed (or is already upstream), 1 otherwise.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/regen-lib.sh
. "$(dirname "$0")/regen-lib.sh"

# the object that compiles a file the series changes, where it is not the
# file's own .o (headers, and .c files #included by another one)
COMPILED_BY="\
include/linux/rwsem.h kernel/locking/rwsem.o
include/linux/mmap_lock.h mm/khugepaged.o
include/trace/events/huge_memory.h mm/khugepaged.o
kernel/locking/rwbase_rt.c kernel/locking/rwsem.o"

report() {	# report NAME STATUS
	printf '%-64s %s\n' "$1" "$2" >&2
	printf '%s\t%s\n' "$1" "$2" >> "$DEST/status.new"
	printf '%s\t%s\n' "$1" "$(( $(date +%s) - STARTED ))" >> "$DEST/times.new"
}

# save_rejects NAME: the rejects of the branch patch on the current state
# (in DEST/rejects/NAME); prints a one-line summary of the failed hunks
save_rejects() {
	patch_rejects "$RG_BPDIR/$1" "$RG_TMP/tree" "$RG_TMP/rej" "$DEST/rejects/$1"
}

# reference_step BRANCH NAME: bring the branch's own tree (RG_TMP/ref-BRANCH,
# its series applied in order) up to NAME, and set RG_REF to the states of
# the files NAME touches before and after it there
reference_step() {
	local b=$1 name=$2 dir=$RG_TMP/ref-$1 p
	mkdir -p "$dir/tree"
	touch "$dir/done"
	for p in $(series_patches "$(series_file "$b")"); do
		[ "$p" != "$name" ] || break
		grep -qxF "$p" "$dir/done" && continue
		set_patch_files "$dir/tree" "$(pristine_dir "$b")" "$KIT_DIR/backports/$b/$p"
		patch -s -p1 -F0 -N --no-backup-if-mismatch -d "$dir/tree" -i "$KIT_DIR/backports/$b/$p" >/dev/null 2>&1 ||
			die "backports/$b/$p does not apply to the $b tree; run 'make regen BRANCH=$b REGEN_CHECK=1'"
		echo "$p" >> "$dir/done"
	done
	RG_REF=$dir/states
	set_ref_states "$KIT_DIR/backports/$b/$name" "$dir/tree" "$(pristine_dir "$b")" ||
		die "backports/$b/$name does not apply to the $b tree; run 'make regen BRANCH=$b REGEN_CHECK=1'"
}

# set_patch_files DIR SRC PATCHFILE: copy into DIR the files PATCHFILE
# touches that DIR does not have yet (from SRC)
set_patch_files() {
	local f
	for f in $(patch_files "$3"); do
		[ -e "$1/$f" ] || [ ! -f "$2/$f" ] || { mkdir -p "$1/$(dirname "$f")"; cp "$2/$f" "$1/$f"; }
	done
}

# overlay DIR: a tree DIR that has the current state of every file detect.table
# reads (the scratch copy where it has one, else TREE)
overlay() {
	local d=$1 f
	rm -rf "$d"
	mkdir -p "$d"
	cp "$TREE/Makefile" "$d/"
	for f in $(grep -v '^#' "$KIT_DIR/backports/detect.table" | awk -F'\t' 'NF >= 5 { print $2 }' | sort -u); do
		if [ -e "$RG_TMP/tree/$f" ]; then
			mkdir -p "$d/$(dirname "$f")"; cp "$RG_TMP/tree/$f" "$d/$f"
		elif [ -e "$TREE/$f" ]; then
			mkdir -p "$d/$(dirname "$f")"; cp "$TREE/$f" "$d/$f"
		fi
	done
	# is_kernel_tree wants these two
	for f in mm/khugepaged.c mm/ksm.c; do
		[ -e "$d/$f" ] || { mkdir -p "$d/mm"; : > "$d/$f"; }
	done
}

# detect_state NAME -> detect.sh verdict for NAME on the current state
detect_state() {
	overlay "$RG_TMP/detect"
	"$KIT_DIR/scripts/detect.sh" "$RG_TMP/detect" | awk -v n="$1" '$1 == n { $1 = ""; sub(/^ /, ""); print }'
}

# changed_defs BEFORE AFTER FILE... -> "file: kind name" of every top-level
# definition that differs
changed_defs() {
	local b=$1 a=$2 f
	shift 2
	for f in "$@"; do
		if [ ! -f "$b/$f" ] || [ ! -s "$b/$f" ]; then
			echo "$f: (new file)"
		else
			"$REANCHOR" changed "$b/$f" "$a/$f" | sed "s|^|$f: |"
		fi
	done | LC_ALL=C sort -u
}

# objects FILE... -> the objects to compile for the changed files
objects() {
	local f
	for f in "$@"; do
		if printf '%s\n' "$COMPILED_BY" | awk -v f="$f" '$1 == f { print $2; found = 1 } END { exit !found }'; then
			:
		else
			case $f in *.c) echo "${f%.c}.o" ;; esac
		fi
	done | sort -u
}

# build_root -> the cached build area for TREE's kernel version: linux/ (a
# hard-link copy of the tree the last check came from, with the files under
# test laid over it) and build/ (O=, configured by scripts/kbuild.sh)
build_root() {
	printf '%s/work/retarget-build/%s\n' "$CACHE_DIR" "$(kernel_version "$TREE")"
}

# sync_source ROOT: ROOT/linux mirrors TREE (a fresh hard-link copy when the
# tree changed, else the files the kit touches linked again); never written
# into: files are replaced by rename
sync_source() {
	local root=$1 f
	if [ "$(cat "$root/tree" 2>/dev/null)" != "$TREE" ] || [ ! -d "$root/linux" ]; then
		rm -rf "$root/linux" "$root/linux.tmp"
		cp -al "$TREE" "$root/linux.tmp"
		rm -rf "$root/linux.tmp/.git" "$root/linux.tmp/.mm-backport-kit" "$root/linux.tmp/.config" \
			"$root/linux.tmp/include/config" "$root/linux.tmp/include/generated"
		mv "$root/linux.tmp" "$root/linux"
		printf '%s\n' "$TREE" > "$root/tree"
	fi
	{ kit_touched_files; ( cd "$RG_TMP/tree" && find . -type f -printf '%P\n' ); } | sort -u | while read -r f; do
		if [ -f "$TREE/$f" ]; then
			ln -f "$TREE/$f" "$root/linux/$f"
		else
			rm -f "$root/linux/$f"
		fi
	done
}

# compile_check FILE...: the objects of the changed files FILE build with
# the scratch state laid over the tree; prints why not
compile_check() {
	local root objs o f log rc=0
	objs=$(objects "$@")
	[ -n "$objs" ] || return 0
	root=$(build_root)
	mkdir -p "$root/build"
	exec 8>"$root/.lock"
	flock 8
	sync_source "$root"
	# every file the patches so far changed, not only this one's
	while read -r f; do
		mkdir -p "$root/linux/$(dirname "$f")"
		cp "$RG_TMP/tree/$f" "$root/linux/$f.kit-new"
		mv -f "$root/linux/$f.kit-new" "$root/linux/$f"
	done < <(cd "$RG_TMP/tree" && find . -type f -printf '%P\n')
	log=$RG_TMP/compile.log
	# an object the kit's config does not build ("No rule to make target")
	# is dropped, the others are built again
	while [ -n "$objs" ]; do
		rc=0
		for o in $objs; do
			rm -f "$root/build/$o"
		done
		# shellcheck disable=SC2086
		"$KIT_DIR/scripts/kbuild.sh" "$root/linux" "$root/build" $objs > "$log" 2>&1 || rc=$?
		[ $rc -ne 0 ] || break
		o=$(sed -n "s/.*No rule to make target '\([^']*\.o\)'.*/\1/p" "$log" | head -n1)
		[ -n "$o" ] || break
		objs=$(printf '%s\n' $objs | grep -vxF "$o" || true)
	done
	exec 8>&-
	[ $rc -eq 0 ] && return 0
	echo "does not compile: $(grep -E 'error:|Error [0-9]' "$log" | head -n 3 | sed "s|$root/linux/||g" | paste -sd';' | sed 's/;/; /g')"
	return 1
}

# verify NAME: the re-targeted change is the branch's change; prints why not
verify() {
	local name=$1 verdict files ref new other
	verdict=$(detect_state "$name")
	case $verdict in
	''|present*) ;;
	*) echo "the result does not carry the change (detect.table: $verdict)"; return 1 ;;
	esac
	files=$(cd "$RG_TMP/before" && find . -type f -printf '%P\n' | sort)
	# shellcheck disable=SC2086
	new=$(changed_defs "$RG_TMP/before" "$RG_TMP/tree" $files)
	# shellcheck disable=SC2046
	ref=$(changed_defs "$RG_REF/before" "$RG_REF/after" $(cd "$RG_REF/before" && find . -type f -printf '%P\n'))
	other=$(comm -23 <(printf '%s\n' "$new") <(printf '%s\n' "$ref") | sed '/^$/d')
	if [ -n "$other" ]; then
		echo "re-targeting was refused: the result changes other code than backports/$SRC_BRANCH/$name: $(printf '%s\n' "$other" | paste -sd';' | sed 's/;/; /g')"
		return 1
	fi
	[ "$COMPILE" = 1 ] || return 0
	# shellcheck disable=SC2086
	compile_check $files
}

# retarget_header NAME WHY: the header of the branch patch with the re-targeting note
# inserted above the last Signed-off-by: of the header
retarget_header() {
	local name=$1 why=$2
	patch_header "$RG_BPDIR/$name" | awk -v note="$(
		printf '[ re-targeted from backports/%s/%s\n' "$SRC_BRANCH" "$name"
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

# steps_of NAME -> "a.cocci, text/b.sed, re-anchoring" for messages
steps_of() {
	recipe_steps "$1" | awk '{ sub(/^\?/, "", $2); print ($2 == "reanchor" ? "re-anchored definitions (scripts/reanchor.py)" : "cocci/" $2) }' |
		awk '!seen[$0]++' | paste -sd',' | sed 's/,/, /g'
}

# snapshot / restore: the scratch state before a method, to undo a failed one
snapshot() {
	rm -rf "$RG_TMP/snap"
	cp -a "$RG_TMP/tree" "$RG_TMP/snap"
}

restore() {
	rm -rf "$RG_TMP/tree"
	cp -a "$RG_TMP/snap" "$RG_TMP/tree"
}

# attempt NAME STEPS: run STEPS (empty: the recipe) and verify the result;
# prints why it failed
attempt() {
	local name=$1 steps=$2 err
	if ! ( regen_body "$name" "$steps" ) 2> "$RG_TMP/regen.err"; then
		err=$(grep -E 'error:' "$RG_TMP/regen.err" | tail -n1 | sed 's/^[^:]*: error: //')
		echo "${err:-see $RG_TMP/regen.err}"
		return 1
	fi
	verify "$name"
}

# land NAME KIND REJECTS: write the re-targeted patch and report it
land() {
	local name=$1 kind=$2 rejects=$3 why status
	if [ "$kind" = cocci ]; then
		why="the branch patch does not apply at fuzz 0 to $TREE_NAME (Linux $TREE_VERSION): $rejects. Regenerated on that tree from $(steps_of "$name")"
		status="re-targeted from cocci"
	else
		why="the branch patch does not apply at fuzz 0 to $TREE_NAME (Linux $TREE_VERSION): $rejects. Re-anchored by scripts/reanchor.py: each definition it changes 3-way merged into the tree's own ($(sed 's/^reanchor: [^:]*: //' "$RG_TMP/reanchor.all" | paste -sd';' | sed 's/;/; /g'))"
		status="re-anchored"
	fi
	why="$why; checked: backports/detect.table finds the change, it changes no definition the branch patch leaves alone$([ "$COMPILE" = 1 ] && echo ", and the objects it touches compile")"
	retarget_header "$name" "$why" > "$RG_TMP/header"
	assemble_patch "$RG_TMP/header" "$RG_TMP/body" > "$DEST/$name"
	echo "$name" >> "$DEST/series.new"
	report "$name" "$status"
}

# one NAME BRANCH: take patch NAME of BRANCH on the current state; 0 ok, 1 failed
one() {
	local name=$1 verdict rejects why_cocci='' why_anchor=''
	SRC_BRANCH=$2
	RG_BPDIR=$KIT_DIR/backports/$SRC_BRANCH
	if ! grep -qxF "$name" <(series_patches "$(series_file "$SRC_BRANCH")"); then
		report "$name" "failed: backports/$SRC_BRANCH does not carry it"
		return 1
	fi
	verdict=$(detect_state "$name")
	if [ "${verdict%% *}" = present ]; then
		report "$name" "already upstream"
		return 0
	fi
	reference_step "$SRC_BRANCH" "$name"
	if apply_plain "$name" "$RG_BPDIR/$name"; then
		cp "$RG_BPDIR/$name" "$DEST/$name"
		echo "$name" >> "$DEST/series.new"
		report "$name" "applied as-is"
		return 0
	fi
	rejects=$(save_rejects "$name")
	[ -n "$rejects" ] || rejects="it does not apply"
	snapshot
	if has_recipe "$name" && [ "$(recipe_kind "$name")" = cocci ]; then
		if why_cocci=$(attempt "$name" ""); then
			land "$name" cocci "$rejects"
			return 0
		fi
		restore
	fi
	if why_anchor=$(attempt "$name" "* reanchor"); then
		land "$name" reanchor "$rejects"
		return 0
	fi
	restore
	report "$name" "failed: does not apply at fuzz 0 ($rejects)${why_cocci:+; cocci recipe: $why_cocci}; re-anchoring: $why_anchor; rejects in $DEST/rejects/$name"
	return 1
}

# publish: merge this call's series and status into DEST (other patches'
# entries stay), in upstream order
publish() {
	local name
	{
		printf '# re-targeted for %s (Linux %s) by mm-backport-kit (scripts/retarget.sh)\n' "$TREE" "$TREE_VERSION"
		for name in $(series_patches "$KIT_DIR/series"); do
			if grep -qxF "$name" "$DEST/series.new"; then
				echo "$name"
			elif ! grep -qxF "$name" <(printf '%s\n' "${LIST[@]%%:*}") &&
			     [ -f "$DEST/series" ] && grep -qxF "$name" <(series_patches "$DEST/series"); then
				echo "$name"
			fi
		done
	} > "$DEST/series.tmp"
	{
		[ ! -f "$DEST/status" ] || awk -F'\t' -v mine="$(printf '%s\n' "${LIST[@]%%:*}")" '
			BEGIN { n = split(mine, m, "\n"); for (i = 1; i <= n; i++) skip[m[i]] = 1 }
			!skip[$1]' "$DEST/status"
		cat "$DEST/status.new"
	} > "$DEST/status.tmp"
	mv "$DEST/series.tmp" "$DEST/series"
	mv "$DEST/status.tmp" "$DEST/status"
	mv "$DEST/times.new" "$DEST/times"
	rm -f "$DEST/series.new" "$DEST/status.new"
}

# plan_list -> "name:branch" for every patch plan.sh says TREE carries
# (BRANCH, if given, for all of them)
plan_list() {
	"$KIT_DIR/scripts/plan.sh" "$TREE" | awk -v b="$1" '$2 == "carry" { print $1 ":" (b != "" ? b : $3) }'
}

main() {
	local dir name entry plan failed=0
	COMPILE=1
	if [ "${1:-}" = --no-compile ]; then COMPILE=0; shift; fi
	dir=${1:-}
	[ -n "$dir" ] || die "usage: retarget.sh [--no-compile] TREE [BRANCH [PATCH...]]"
	shift
	TREE=$(cd "$dir" 2>/dev/null && pwd) || die "KDIR=$dir does not exist; point KDIR= at a kernel source tree"
	is_kernel_tree "$TREE" || die "$TREE is not a kernel source tree; point KDIR= at the top of a Linux tree"
	BRANCH=${1:-}
	[ $# -eq 0 ] || shift
	[ -z "$BRANCH" ] || require_branch "$BRANCH"
	TREE_NAME=$(tree_name "$TREE")
	TREE_VERSION=$(kernel_version "$TREE")
	DEST=$OUT_DIR/$TREE_NAME
	RG_TMP=$(mktemp -d "${TMPDIR:-/tmp}/retarget.XXXXXX")
	trap 'rm -rf "$RG_TMP"' EXIT
	RG_SRC=$TREE RG_LABEL=$TREE_NAME
	rg_init
	LIST=()
	if [ $# -gt 0 ]; then
		for name in "$@"; do LIST+=("$name:$BRANCH"); done
	else
		# the whole plan: out/<tree-name>/ starts afresh
		# a failing plan.sh must not read as "nothing to carry"
		plan=$(plan_list "$BRANCH") || die "scripts/plan.sh failed on $TREE"
		[ -z "$plan" ] || mapfile -t LIST <<<"$plan"
		rm -rf "$DEST"
	fi
	for entry in "${LIST[@]}"; do
		[ -d "$(pristine_dir "${entry#*:}")" ] ||
			die "no cached tree for ${entry#*:}; run 'make tree BRANCH=${entry#*:}' first"
	done
	mkdir -p "$DEST"
	: > "$DEST/series.new"
	: > "$DEST/status.new"
	: > "$DEST/times.new"
	for entry in "${LIST[@]}"; do
		name=${entry%%:*}
		rm -rf "${DEST:?}/rejects/$name" "${DEST:?}/$name"
		STARTED=$(date +%s)
		if [ $failed = 1 ]; then
			report "$name" "not tried (an earlier patch failed)"
			continue
		fi
		one "$name" "${entry#*:}" || failed=1
	done
	publish
	[ $failed = 0 ] || return 1
	info "$TREE: series written to $DEST (QUILT_PATCHES=$DEST)"
}

main "$@"
