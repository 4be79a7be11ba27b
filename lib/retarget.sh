# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# retarget.sh - rebuild the backports a tree needs when they do not apply to
# it at fuzz 0 (a vendor tree, or a version between the supported branches).
#
# retarget_run DEST COMPILE TREE [BRANCH [PATCH...]]
# DEST: where the patches go ("": out/<tree name>/); COMPILE 1: verify by
# compiling, for the request's build target and VERIFY= (request.sh), 0 not.
# TREE is only read. The patches are PATCH... from backports/BRANCH, or,
# without PATCH, what plan_tree says TREE needs ("carry" lines, each from
# the branch plan_tree chose for it; with BRANCH, from BRANCH). They are
# taken in order on a scratch copy of the files they touch, each on the
# result of the ones before it; per patch the first method whose result
# verifies wins (the record's status):
#   upstream      tables/detect.table finds the change in TREE
#   applied       the branch patch applies at fuzz 0 ("applied as-is")
#   re-targeted   its recipe (tables/recipes.table: semantic patches,
#                 textual edits, re-anchored new definitions) rebuilt it
#                 on TREE's code ("re-targeted from cocci")
#   re-anchored   mmbk/reanchor.py carried each definition the branch
#                 patch changes to TREE's copy of it (3-way merge per
#                 definition, new ones after their anchor)
#   failed        none did; the rejects of the branch patch are in
#                 DIR/rejects/<patch>/, the patches after it in this call
#                 are not tried (not-tried)
# A re-targeted result verifies when detect.table finds the change in it,
# the definitions it changes are among those the branch patch changes on
# the branch (so a look-alike vendor function is never rewritten), and it
# compiles fairly: every object built from the files it changes is
# compiled without and with the change, for the build target (the tree's
# ARCH unless --arch, --llvm, --kconfig: kbuild.sh), in a hard-link copy
# of TREE made for this call (its current content, whatever its path).  A
# failure the change introduces refuses it; an object that does not build
# without the change either cannot be verified by compiling: the change
# lands and its record names the object and the first real error
# (--verify strict refuses it too); an object the configuration does not
# build (kb_not_built: its option off) is named as such.  In the copy, a
# Kconfig source or Makefile include of an absent file is an empty stub
# (kb_stub_absent), named in the note.  The toolchain is the tree's too
# (LLVM from its Makefile or build.config*); DIR/compile.counts counts the
# objects verified by compiling (apply's report).  --no-compile skips
# this (quick tests).  Nothing is fuzzed.
#
# DIR (default out/<tree-name>/) gets the quilt directory: series,
# patches, results.tsv (records, results.sh), rejects/, and the work
# files of this call (work/, retarget.log) for inspecting a refusal. A
# call with PATCH... replaces only the entries of its own patches, so
# callers may take one topic at a time; a call without PATCH starts DIR
# afresh.  Re-targeted patches carry a "[ re-targeted from
# backports/<b>/<name> by mm-backport-kit: ... ]" note.
# Status: 0 every patch landed (or is already upstream), 1 otherwise.
kit_use tables trees fetch plan recipes kbuild results request

# retarget_record NAME STATUS TEXT: NAME's record of this call
retarget_record() {
	printf '%-64s %s\n' "$1" "$3" >&2
	result "$RETARGET_DEST/results.new" patch retarget "$RETARGET_TREE_NAME" "$1" "$2" "$(topic_of "$1")" \
		"$(( $(date +%s) - RETARGET_STARTED ))" "$3"
}

# retarget_save_rejects NAME: the rejects of the branch patch on the current
# state (in DIR/rejects/NAME); prints a one-line summary of the failed hunks
retarget_save_rejects() {
	patch_rejects "$RG_BPDIR/$1" "$RG_TMP/tree" "$RG_TMP/rej" "$RETARGET_DEST/rejects/$1"
}

# retarget_reference_step BRANCH NAME: bring the branch's own tree
# (work/ref-BRANCH, its series applied in order) up to NAME, and set the
# reference states of the files NAME touches before and after it there
retarget_reference_step() {
	local b=$1 name=$2 dir=$RG_TMP/ref-$1 p
	mkdir -p "$dir/tree"
	touch "$dir/done"
	for p in $(series_patches "$(series_file "$b")"); do
		[ "$p" != "$name" ] || break
		grep -qxF "$p" "$dir/done" && continue
		retarget_patch_files "$dir/tree" "$(pristine_dir "$b")" "$DATA_DIR/backports/$b/$p"
		patch -s -p1 -F0 -N --no-backup-if-mismatch -d "$dir/tree" -i "$DATA_DIR/backports/$b/$p" >/dev/null 2>&1 ||
			die "backports/$b/$p does not apply to the $b tree; run 'make regen BRANCH=$b REGEN_CHECK=1'"
		echo "$p" >> "$dir/done"
	done
	set_ref_states "$DATA_DIR/backports/$b/$name" "$dir/tree" "$(pristine_dir "$b")" "$dir/states" ||
		die "backports/$b/$name does not apply to the $b tree; run 'make regen BRANCH=$b REGEN_CHECK=1'"
}

# retarget_patch_files DIR SRC PATCHFILE: copy into DIR the files PATCHFILE
# touches that DIR does not have yet (from SRC)
retarget_patch_files() {
	local f
	for f in $(patch_files "$3"); do
		[ -e "$1/$f" ] || [ ! -f "$2/$f" ] || { mkdir -p "$1/$(dirname "$f")"; cp "$2/$f" "$1/$f"; }
	done
}

# retarget_detect_state NAME -> detect.table's "verdict<TAB>why" for NAME on the
# current state: a tree that has the current state of every file
# detect.table reads (the scratch copy where it has one, else TREE)
retarget_detect_state() {
	local d=$RG_TMP/detect f
	rm -rf "$d"
	mkdir -p "$d"
	cp "$RETARGET_TREE/Makefile" "$d/"
	for f in $(table_rows "$DETECT_TABLE" | awk -F'\t' 'NF >= 5 { print $2 }' | sort -u); do
		if [ -e "$RG_TMP/tree/$f" ]; then
			mkdir -p "$d/$(dirname "$f")"; cp "$RG_TMP/tree/$f" "$d/$f"
		elif [ -e "$RETARGET_TREE/$f" ]; then
			mkdir -p "$d/$(dirname "$f")"; cp "$RETARGET_TREE/$f" "$d/$f"
		fi
	done
	# is_kernel_tree wants these two
	for f in mm/khugepaged.c mm/ksm.c; do
		[ -e "$d/$f" ] || { mkdir -p "$d/mm"; : > "$d/$f"; }
	done
	detect_tree "$d" | awk -F'\t' -v n="$1" '$1 == n { print $2 "\t" $3 }'
}

# retarget_changed_defs BEFORE AFTER FILE... -> "file: kind name" of every
# top-level definition that differs
retarget_changed_defs() {
	local b=$1 a=$2 f
	shift 2
	for f in "$@"; do
		if [ ! -f "$b/$f" ] || [ ! -s "$b/$f" ]; then
			echo "$f: (new file)"
		else
			kit_py reanchor changed "$b/$f" "$a/$f" | sed "s|^|$f: |"
		fi
	done | LC_ALL=C sort -u
}

# retarget_build_root -> the compile area of TREE's version and the build
# target in the cache: linux/ (the compile copy) and build/ (O=), one
# source path per area so that the build dir's dependency files stay true
retarget_build_root() {
	printf '%s/work/retarget-build/%s%s\n' "$CACHE_DIR" "$RETARGET_TREE_VERSION" "${KB_TAG:-}"
}

# retarget_build_copy -> the compile copy of this call: a hard-link copy of TREE
# as it is now, made afresh once per call (so it is the tree's current
# content whatever happened at its path or in the area before), without
# the kit's state, VCS data or an in-tree configuration; the area is
# locked for the rest of the call (retarget_run makes it before the first
# patch)
retarget_build_copy() {
	local root
	root=$(retarget_build_root)
	mkdir -p "$root"
	lock_tree "$root/.lock"
	progress "retarget: compile copy of $RETARGET_TREE (hard links)"
	link_copy "$RETARGET_TREE" "$root/linux" clean
	RETARGET_STUBS=$(kb_stub_copy "$root/linux" "$RETARGET_TREE")
}

# retarget_lay DIR COPY: the files of DIR (a state of the touched files) replace
# COPY's, by rename (COPY's files are hard links to the tree's)
retarget_lay() {
	local f
	while read -r f; do
		mkdir -p "$2/$(dirname "$f")"
		cp "$1/$f" "$2/$f.kit-new"
		mv -f "$2/$f.kit-new" "$2/$f"
	done < <(cd "$1" && find . -type f -printf '%P\n')
}

# retarget_compile COPY OBJ LOG OBJECT...: compile the objects in COPY; prints
# "object<TAB>first error" for each object that does not build
retarget_compile() {
	local copy=$1 obj=$2 log=$3 o rc=0
	shift 3
	kb_objects "$copy" "$obj" test "$log" "$@" || rc=$?
	[ $rc -ne 0 ] || return 0
	if [ $rc -eq 2 ]; then
		for o in "$@"; do printf '%s\t%s\n' "$o" "$(kb_first_error "$log")"; done
		return 0
	fi
	# which objects: each alone (make stops at the first failure)
	for o in "$@"; do
		kb_objects "$copy" "$obj" test "$log.$$" "$o" ||
			printf '%s\t%s\n' "$o" "$(kb_first_error "$log.$$")"
		cat "$log.$$" >> "$log"
		rm -f "$log.$$"
	done
}

# retarget_count KIND OBJECT: one object's outcome (verified, unverified or
# not-built) in DEST/compile.counts, kept over the calls of one apply
# (a call for the whole plan starts DEST afresh); DEST/compile.target the
# build target and where it came from
retarget_count() {
	printf '%s\t%s\n' "$1" "$2" >> "$RETARGET_DEST/compile.counts"
	kb_describe_from > "$RETARGET_DEST/compile.target"
}

# retarget_compile_check NAME FILE...: the objects of the changed files FILE
# compiled without (RG_TMP/before over the compile copy) and with the
# change (RG_TMP/tree); prints why the change is refused (status 1) or,
# status 0, "unverified: ..." for the objects no build could verify (an
# object the configuration does not build is named, never "unverified")
retarget_compile_check() {
	local name=$1 objs copy obj log base new o why='' unverified='' unbuilt='' off
	shift
	objs=$(kb_file_objects "$@" | cut -f2 | sort -u)
	[ -n "$objs" ] || return 0
	copy=$(retarget_build_root)/linux
	obj=$(retarget_build_root)/build
	log=$RETARGET_DEST/work/compile-$name
	# without the change: every patch before it in this call, not this one
	retarget_lay "$RG_TMP/tree" "$copy"
	retarget_lay "$RG_TMP/before" "$copy"
	state_point retarget-compile
	# shellcheck disable=SC2086
	base=$(retarget_compile "$copy" "$obj" "$log.without.log" $objs)
	retarget_lay "$RG_TMP/tree" "$copy"
	# shellcheck disable=SC2086
	new=$(retarget_compile "$copy" "$obj" "$log.with.log" $objs)
	for o in $objs; do
		if grep -q "^$o	" <<< "$new"; then
			if ! grep -q "^$o	" <<< "$base"; then
				why="$why; $o: $(grep "^$o	" <<< "$new" | cut -f2-) (builds without the change; log: ${log#"$OUT_DIR"/}.with.log)"
			elif off=$(kb_unbuilt "$copy" "$obj" "$o" "$@"); then
				unbuilt="$unbuilt; $o: not built by this configuration: $off"
				retarget_count not-built "$o"
			else
				unverified="$unverified; $o: $(grep "^$o	" <<< "$base" | cut -f2-) (fails without the change too)"
				retarget_count unverified "$o"
			fi
		else
			retarget_count verified "$o"
		fi
	done
	if [ -n "$why" ]; then
		echo "does not compile with the change for $(kb_describe)${why}"
		return 1
	fi
	if [ -n "$unverified" ]; then
		if [ "$RETARGET_VERIFY" = strict ]; then
			echo "not verified by compiling for $(kb_describe) (VERIFY=strict)${unverified}"
			return 1
		fi
		echo "unverified: not verified by compiling for $(kb_describe)${unverified}${unbuilt}"
	elif [ -n "$unbuilt" ]; then
		echo "unverified: compiled for $(kb_describe) where the configuration builds it${unbuilt}"
	fi
	return 0
}

# retarget_verify NAME: the re-targeted change is the branch's change; prints
# why not (status 1), or a note on what could not be verified
retarget_verify() {
	local name=$1 verdict files ref new other
	verdict=$(retarget_detect_state "$name")
	case $verdict in
	''|present*) ;;
	*) echo "the result does not carry the change (detect.table: ${verdict//$'\t'/ })"; return 1 ;;
	esac
	files=$(cd "$RG_TMP/before" && find . -type f -printf '%P\n' | sort)
	# shellcheck disable=SC2086
	new=$(retarget_changed_defs "$RG_TMP/before" "$RG_TMP/tree" $files)
	# shellcheck disable=SC2046
	ref=$(retarget_changed_defs "$RG_REF/before" "$RG_REF/after" $(cd "$RG_REF/before" && find . -type f -printf '%P\n'))
	other=$(comm -23 <(printf '%s\n' "$new") <(printf '%s\n' "$ref") | sed '/^$/d')
	if [ -n "$other" ]; then
		echo "re-targeting was refused: the result changes other code than backports/$RETARGET_SRC_BRANCH/$name: $(printf '%s\n' "$other" | join_lines)"
		return 1
	fi
	[ "$RETARGET_COMPILE" = 1 ] || return 0
	# shellcheck disable=SC2086
	retarget_compile_check "$name" $files
}

# retarget_header NAME WHY: the header of the branch patch with the re-targeting
# note inserted above the last Signed-off-by: of the header
retarget_header() {
	local name=$1 why=$2
	patch_header "$RG_BPDIR/$name" | awk -v note="$(
		printf '[ re-targeted from backports/%s/%s\n' "$RETARGET_SRC_BRANCH" "$name"
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

# retarget_steps_of NAME -> "a.cocci, text/b.sed, re-anchoring" for messages
retarget_steps_of() {
	recipe_steps "$1" | awk '{ sub(/^\?/, "", $2); print ($2 == "reanchor" ? "re-anchored definitions (mmbk/reanchor.py)" : "cocci/" $2) }' |
		awk '!seen[$0]++' | join_lines ', '
}

# retarget_snapshot / retarget_restore: the scratch state before a method, to undo a
# failed one
retarget_snapshot() {
	rm -rf "$RG_TMP/snap"
	cp -a "$RG_TMP/tree" "$RG_TMP/snap"
}

retarget_restore() {
	rm -rf "$RG_TMP/tree"
	cp -a "$RG_TMP/snap" "$RG_TMP/tree"
}

# retarget_attempt NAME STEPS: run STEPS (empty: the recipe) and verify the
# result; prints why it failed (status 1), or the verification note
retarget_attempt() {
	local name=$1 steps=$2 err
	if ! ( regen_body "$name" "$steps" ) 2> "$RG_TMP/regen.err"; then
		err=$(grep -E 'error:' "$RG_TMP/regen.err" | tail -n1 | sed 's/^[^:]*: error: //')
		echo "${err:-see ${RG_TMP#"$OUT_DIR"/}/regen.err}"
		return 1
	fi
	retarget_verify "$name"
}

# retarget_land NAME KIND REJECTS NOTE: write the re-targeted patch and record it
retarget_land() {
	local name=$1 kind=$2 rejects=$3 note=$4 why status text checked
	if [ "$kind" = cocci ]; then
		why="the branch patch does not apply at fuzz 0 to $RETARGET_TREE_NAME (Linux $RETARGET_TREE_VERSION): $rejects. Regenerated on that tree from $(retarget_steps_of "$name")"
		status=re-targeted text="re-targeted from cocci"
	else
		why="the branch patch does not apply at fuzz 0 to $RETARGET_TREE_NAME (Linux $RETARGET_TREE_VERSION): $rejects. Re-anchored by mmbk/reanchor.py: each definition it changes 3-way merged into the tree's own ($(sed 's/^reanchor: [^:]*: //' "$RG_TMP/reanchor.all" | join_lines))"
		status=re-anchored text="re-anchored"
	fi
	checked="detect.table finds the change, it changes no definition the branch patch leaves alone"
	[ -z "${RETARGET_STUBS:-}" ] || checked="$checked; the compile copy had empty stubs for the absent $RETARGET_STUBS"
	if [ "$RETARGET_COMPILE" = 1 ] && [ -z "$note" ]; then
		checked="$checked, and the objects it touches compile without and with it ($(kb_describe))"
	elif [ -n "$note" ]; then
		checked="$checked; ${note#unverified: }"
		text="$text; ${note#unverified: }"
	fi
	retarget_header "$name" "$why; checked: $checked" > "$RG_TMP/header"
	assemble_patch "$RG_TMP/header" "$RG_TMP/body" > "$RETARGET_DEST/$name"
	echo "$name" >> "$RETARGET_DEST/series.new"
	retarget_record "$name" "$status" "$text"
}

# retarget_one NAME BRANCH: take patch NAME of BRANCH on the current state; 0 ok
retarget_one() {
	local name=$1 verdict rejects why_cocci='' why_anchor='' note
	RETARGET_SRC_BRANCH=$2
	rg_bpdir "$DATA_DIR/backports/$RETARGET_SRC_BRANCH"
	if ! grep -qxF "$name" <(series_patches "$(series_file "$RETARGET_SRC_BRANCH")"); then
		retarget_record "$name" failed "failed: backports/$RETARGET_SRC_BRANCH does not carry it"
		return 1
	fi
	verdict=$(retarget_detect_state "$name")
	if [ "${verdict%%$'\t'*}" = present ]; then
		retarget_record "$name" upstream "already upstream"
		return 0
	fi
	retarget_reference_step "$RETARGET_SRC_BRANCH" "$name"
	if apply_plain "$name" "$RG_BPDIR/$name"; then
		cp "$RG_BPDIR/$name" "$RETARGET_DEST/$name"
		echo "$name" >> "$RETARGET_DEST/series.new"
		retarget_record "$name" applied "applied as-is"
		return 0
	fi
	rejects=$(retarget_save_rejects "$name")
	[ -n "$rejects" ] || rejects="it does not apply"
	retarget_snapshot
	if has_recipe "$name" && [ "$(recipe_kind "$name")" = cocci ]; then
		if note=$(retarget_attempt "$name" ""); then
			retarget_land "$name" cocci "$rejects" "$note"
			return 0
		fi
		why_cocci=$note
		retarget_restore
	fi
	if note=$(retarget_attempt "$name" "* reanchor"); then
		retarget_land "$name" reanchor "$rejects" "$note"
		return 0
	fi
	why_anchor=$note
	retarget_restore
	retarget_record "$name" failed "failed: does not apply at fuzz 0 ($rejects)${why_cocci:+; cocci recipe: $why_cocci}; re-anchoring: $why_anchor; rejects in $RETARGET_DEST/rejects/$name"
	return 1
}

# retarget_publish: merge this call's series and records into DEST (other
# patches' entries stay), in upstream order
retarget_publish() {
	local name mine
	mine=$(printf '%s\n' "${RETARGET_LIST[@]%%:*}")
	{
		printf '# re-targeted for %s (Linux %s) by mm-backport-kit (lib/retarget.sh)\n' "$RETARGET_TREE" "$RETARGET_TREE_VERSION"
		for name in $(series_patches "$DATA_DIR/series"); do
			if grep -qxF "$name" "$RETARGET_DEST/series.new"; then
				echo "$name"
			elif ! grep -qxF "$name" <<< "$mine" &&
			     [ -f "$RETARGET_DEST/series" ] && grep -qxF "$name" <(series_patches "$RETARGET_DEST/series"); then
				echo "$name"
			fi
		done
	} > "$RETARGET_DEST/series.tmp"
	{
		[ ! -f "$RETARGET_DEST/results.tsv" ] || awk -F'\t' -v mine="$mine" '
			BEGIN { n = split(mine, m, "\n"); for (i = 1; i <= n; i++) skip[m[i]] = 1 }
			!skip[$4]' "$RETARGET_DEST/results.tsv"
		cat "$RETARGET_DEST/results.new"
	} > "$RETARGET_DEST/results.tmp"
	mv "$RETARGET_DEST/series.tmp" "$RETARGET_DEST/series"
	mv "$RETARGET_DEST/results.tmp" "$RETARGET_DEST/results.tsv"
	rm -f "$RETARGET_DEST/series.new" "$RETARGET_DEST/results.new"
}

# retarget_summary DEST -> how many object builds DEST's calls verified by
# compiling, and which objects they could not (nothing before a compile)
retarget_summary() {
	local f=$1/compile.counts v u n
	[ -s "$f" ] || return 0
	v=$(grep -c '^verified' "$f") || true
	u=$(grep '^unverified' "$f" | cut -f2 | sort -u | join_lines ', ') || true
	n=$(grep '^not-built' "$f" | cut -f2 | sort -u | join_lines ', ') || true
	printf 'compile verification (%s): %s object build(s) verified by compiling, %s not verified%s\n' \
		"$(cat "$1/compile.target")" "$v" "${u:-none}" "${n:+; not built by the configuration: $n}"
}

retarget_run() (
	local name entry plan failed=0 branch=''
	[ $# -ge 3 ] || usage_error "usage: retarget_run DEST COMPILE TREE [BRANCH [PATCH...]]"
	RETARGET_DEST=$1 RETARGET_COMPILE=$2 RETARGET_VERIFY=$REQ_VERIFY
	RETARGET_TREE=$(cd "$3" 2>/dev/null && pwd) || usage_error "KDIR=$3 does not exist; point KDIR= at a kernel source tree"
	shift 3
	case $RETARGET_VERIFY in default|strict) ;; *) usage_error "VERIFY=$RETARGET_VERIFY: use VERIFY=strict or leave it out" ;; esac
	is_kernel_tree "$RETARGET_TREE" || not_a_tree "$RETARGET_TREE" "$RETARGET_TREE"
	branch=${1:-}
	[ $# -eq 0 ] || shift
	[ -z "$branch" ] || require_branch "$branch"
	RETARGET_TREE_NAME=$(tree_name "$RETARGET_TREE")
	RETARGET_TREE_VERSION=$(kernel_version "$RETARGET_TREE")
	if [ "$RETARGET_COMPILE" = 1 ]; then
		# the request's target, on this tree (the command's own: resolved once)
		[ "$REQ_TREE" = "$RETARGET_TREE" ] || request_with TREE="$RETARGET_TREE" BRANCH="${branch:-$REQ_BRANCH}"
		request_target
		progress "retarget: the compile verification is for $(kb_describe_from)"
		retarget_build_copy
	fi
	RETARGET_DEST=${RETARGET_DEST:-$OUT_DIR/$RETARGET_TREE_NAME}
	RETARGET_LIST=()
	if [ $# -gt 0 ]; then
		for name in "$@"; do RETARGET_LIST+=("$name:$branch"); done
	else
		# the whole plan: DEST starts afresh (a failing plan is no "nothing to carry")
		plan=$(plan_tree "$RETARGET_TREE") || die "the plan of $RETARGET_TREE failed (see above)"
		mapfile -t RETARGET_LIST < <(awk -F'\t' -v b="$branch" '$2 == "carry" { print $1 ":" (b != "" ? b : $3) }' <<< "$plan")
		rm -rf "$RETARGET_DEST"
	fi
	for entry in "${RETARGET_LIST[@]}"; do
		# the source branch's tree holds the reference states (its files
		# before and after each backport): fetched into the cache when it
		# is not there yet, and read until the call ends
		if [ ! -f "$(pristine_dir "${entry#*:}")/Makefile" ]; then
			progress "retarget: ${entry%%:*} comes from ${entry#*:}, whose tree is not in the cache yet; fetching it"
			fetch_tree "${entry#*:}" > /dev/null
		fi
		pristine_hold "${entry#*:}"
	done
	# the work files of this call are kept for inspection (DEST/work)
	mkdir -p "$RETARGET_DEST"
	rm -rf "$RETARGET_DEST/work"
	mkdir -p "$RETARGET_DEST/work"
	exec 2> >(tee "$RETARGET_DEST/retarget.log" >&2)
	# each patch's own branch series is set per patch (rg_bpdir)
	rg_init "$RETARGET_DEST/work/scratch" "$RETARGET_TREE" "$RETARGET_TREE_NAME" -
	: > "$RETARGET_DEST/series.new"
	: > "$RETARGET_DEST/results.new"
	for entry in "${RETARGET_LIST[@]}"; do
		name=${entry%%:*}
		rm -rf "${RETARGET_DEST:?}/rejects/$name" "${RETARGET_DEST:?}/$name"
		RETARGET_STARTED=$(date +%s)
		if [ $failed = 1 ]; then
			retarget_record "$name" not-tried "not tried (an earlier patch failed)"
			continue
		fi
		retarget_one "$name" "${entry#*:}" || failed=1
	done
	retarget_publish
	[ "$RETARGET_COMPILE" = 0 ] || retarget_summary "$RETARGET_DEST" >&2
	[ $failed = 0 ] || return 1
	info "$RETARGET_TREE: series written to $RETARGET_DEST (QUILT_PATCHES=$RETARGET_DEST)"
)
