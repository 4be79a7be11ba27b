# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# retarget.sh - rebuild the backports a tree needs when they do not apply to
# it at fuzz 0 (a vendor tree, or a version between the supported branches).
#
# retarget_run [--dest DIR] [--no-compile] [--arch A] [--llvm L]
#              [--kconfig K] [--verify strict|default] TREE [BRANCH [PATCH...]]
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
kit_use tables trees plan recipes kbuild results

# rt_record NAME STATUS TEXT: NAME's record of this call
rt_record() {
	printf '%-64s %s\n' "$1" "$3" >&2
	result "$RT_DEST/results.new" patch retarget "$RT_TREE_NAME" "$1" "$2" "$(topic_of "$1")" \
		"$(( $(date +%s) - RT_STARTED ))" "$3"
}

# rt_save_rejects NAME: the rejects of the branch patch on the current
# state (in DIR/rejects/NAME); prints a one-line summary of the failed hunks
rt_save_rejects() {
	patch_rejects "$RG_BPDIR/$1" "$RG_TMP/tree" "$RG_TMP/rej" "$RT_DEST/rejects/$1"
}

# rt_reference_step BRANCH NAME: bring the branch's own tree
# (work/ref-BRANCH, its series applied in order) up to NAME, and set the
# reference states of the files NAME touches before and after it there
rt_reference_step() {
	local b=$1 name=$2 dir=$RG_TMP/ref-$1 p
	mkdir -p "$dir/tree"
	touch "$dir/done"
	for p in $(series_patches "$(series_file "$b")"); do
		[ "$p" != "$name" ] || break
		grep -qxF "$p" "$dir/done" && continue
		rt_patch_files "$dir/tree" "$(pristine_dir "$b")" "$DATA_DIR/backports/$b/$p"
		patch -s -p1 -F0 -N --no-backup-if-mismatch -d "$dir/tree" -i "$DATA_DIR/backports/$b/$p" >/dev/null 2>&1 ||
			die "backports/$b/$p does not apply to the $b tree; run 'make regen BRANCH=$b REGEN_CHECK=1'"
		echo "$p" >> "$dir/done"
	done
	set_ref_states "$DATA_DIR/backports/$b/$name" "$dir/tree" "$(pristine_dir "$b")" "$dir/states" ||
		die "backports/$b/$name does not apply to the $b tree; run 'make regen BRANCH=$b REGEN_CHECK=1'"
}

# rt_patch_files DIR SRC PATCHFILE: copy into DIR the files PATCHFILE
# touches that DIR does not have yet (from SRC)
rt_patch_files() {
	local f
	for f in $(patch_files "$3"); do
		[ -e "$1/$f" ] || [ ! -f "$2/$f" ] || { mkdir -p "$1/$(dirname "$f")"; cp "$2/$f" "$1/$f"; }
	done
}

# rt_detect_state NAME -> detect.table's "verdict<TAB>why" for NAME on the
# current state: a tree that has the current state of every file
# detect.table reads (the scratch copy where it has one, else TREE)
rt_detect_state() {
	local d=$RG_TMP/detect f
	rm -rf "$d"
	mkdir -p "$d"
	cp "$RT_TREE/Makefile" "$d/"
	for f in $(table_rows "$DETECT_TABLE" | awk -F'\t' 'NF >= 5 { print $2 }' | sort -u); do
		if [ -e "$RG_TMP/tree/$f" ]; then
			mkdir -p "$d/$(dirname "$f")"; cp "$RG_TMP/tree/$f" "$d/$f"
		elif [ -e "$RT_TREE/$f" ]; then
			mkdir -p "$d/$(dirname "$f")"; cp "$RT_TREE/$f" "$d/$f"
		fi
	done
	# is_kernel_tree wants these two
	for f in mm/khugepaged.c mm/ksm.c; do
		[ -e "$d/$f" ] || { mkdir -p "$d/mm"; : > "$d/$f"; }
	done
	detect_tree "$d" | awk -F'\t' -v n="$1" '$1 == n { print $2 "\t" $3 }'
}

# rt_changed_defs BEFORE AFTER FILE... -> "file: kind name" of every
# top-level definition that differs
rt_changed_defs() {
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

# rt_build_root -> the compile area of TREE's version and the build
# target in the cache: linux/ (the compile copy) and build/ (O=), one
# source path per area so that the build dir's dependency files stay true
rt_build_root() {
	printf '%s/work/retarget-build/%s%s\n' "$CACHE_DIR" "$RT_TREE_VERSION" "${KB_TAG:-}"
}

# rt_build_copy -> the compile copy of this call: a hard-link copy of TREE
# as it is now, made afresh once per call (so it is the tree's current
# content whatever happened at its path or in the area before), without
# the kit's state, VCS data or an in-tree configuration; the area is
# locked for the rest of the call (retarget_run makes it before the first
# patch)
rt_build_copy() {
	local root
	root=$(rt_build_root)
	mkdir -p "$root"
	exec {RT_LOCK}>"$root/.lock"
	if ! flock -n "$RT_LOCK"; then
		progress "retarget: $root is in use by another re-targeting; waiting"
		flock "$RT_LOCK"
	fi
	progress "retarget: compile copy of $RT_TREE (hard links)"
	link_copy "$RT_TREE" "$root/linux" clean
	RT_STUBS=$(kb_stub_absent "$root/linux" | join_lines ', ')
	[ -z "$RT_STUBS" ] || warn "the compile copy has empty stubs for what $RT_TREE lacks: $RT_STUBS"
}

# rt_lay DIR COPY: the files of DIR (a state of the touched files) replace
# COPY's, by rename (COPY's files are hard links to the tree's)
rt_lay() {
	local f
	while read -r f; do
		mkdir -p "$2/$(dirname "$f")"
		cp "$1/$f" "$2/$f.kit-new"
		mv -f "$2/$f.kit-new" "$2/$f"
	done < <(cd "$1" && find . -type f -printf '%P\n')
}

# rt_compile COPY OBJ LOG OBJECT...: compile the objects in COPY; prints
# "object<TAB>first error" for each object that does not build
rt_compile() {
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

# rt_count KIND OBJECT: one object's outcome (verified, unverified or
# not-built) in DEST/compile.counts, kept over the calls of one apply
# (a call for the whole plan starts DEST afresh); DEST/compile.target the
# build target and where it came from
rt_count() {
	printf '%s\t%s\n' "$1" "$2" >> "$RT_DEST/compile.counts"
	kb_describe_from > "$RT_DEST/compile.target"
}

# rt_compile_check NAME FILE...: the objects of the changed files FILE
# compiled without (RG_TMP/before over the compile copy) and with the
# change (RG_TMP/tree); prints why the change is refused (status 1) or,
# status 0, "unverified: ..." for the objects no build could verify (an
# object the configuration does not build is named, never "unverified")
rt_compile_check() {
	local name=$1 objs copy obj log base new o why='' unverified='' unbuilt='' off
	shift
	objs=$(kb_file_objects "$@" | cut -f2 | sort -u)
	[ -n "$objs" ] || return 0
	copy=$(rt_build_root)/linux
	obj=$(rt_build_root)/build
	log=$RT_DEST/work/compile-$name
	# without the change: every patch before it in this call, not this one
	rt_lay "$RG_TMP/tree" "$copy"
	rt_lay "$RG_TMP/before" "$copy"
	# shellcheck disable=SC2086
	base=$(rt_compile "$copy" "$obj" "$log.without.log" $objs)
	rt_lay "$RG_TMP/tree" "$copy"
	# shellcheck disable=SC2086
	new=$(rt_compile "$copy" "$obj" "$log.with.log" $objs)
	for o in $objs; do
		if grep -q "^$o	" <<< "$new"; then
			if ! grep -q "^$o	" <<< "$base"; then
				why="$why; $o: $(grep "^$o	" <<< "$new" | cut -f2-) (builds without the change; log: ${log#"$OUT_DIR"/}.with.log)"
			elif off=$(kb_unbuilt "$copy" "$obj" "$o" "$@"); then
				unbuilt="$unbuilt; $o: not built by this configuration: $off"
				rt_count not-built "$o"
			else
				unverified="$unverified; $o: $(grep "^$o	" <<< "$base" | cut -f2-) (fails without the change too)"
				rt_count unverified "$o"
			fi
		else
			rt_count verified "$o"
		fi
	done
	if [ -n "$why" ]; then
		echo "does not compile with the change for $(kb_describe)${why}"
		return 1
	fi
	if [ -n "$unverified" ]; then
		if [ "$RT_VERIFY" = strict ]; then
			echo "not verified by compiling for $(kb_describe) (VERIFY=strict)${unverified}"
			return 1
		fi
		echo "unverified: not verified by compiling for $(kb_describe)${unverified}${unbuilt}"
	elif [ -n "$unbuilt" ]; then
		echo "unverified: compiled for $(kb_describe) where the configuration builds it${unbuilt}"
	fi
	return 0
}

# rt_verify NAME: the re-targeted change is the branch's change; prints
# why not (status 1), or a note on what could not be verified
rt_verify() {
	local name=$1 verdict files ref new other
	verdict=$(rt_detect_state "$name")
	case $verdict in
	''|present*) ;;
	*) echo "the result does not carry the change (detect.table: ${verdict//$'\t'/ })"; return 1 ;;
	esac
	files=$(cd "$RG_TMP/before" && find . -type f -printf '%P\n' | sort)
	# shellcheck disable=SC2086
	new=$(rt_changed_defs "$RG_TMP/before" "$RG_TMP/tree" $files)
	# shellcheck disable=SC2046
	ref=$(rt_changed_defs "$RG_REF/before" "$RG_REF/after" $(cd "$RG_REF/before" && find . -type f -printf '%P\n'))
	other=$(comm -23 <(printf '%s\n' "$new") <(printf '%s\n' "$ref") | sed '/^$/d')
	if [ -n "$other" ]; then
		echo "re-targeting was refused: the result changes other code than backports/$RT_SRC_BRANCH/$name: $(printf '%s\n' "$other" | join_lines)"
		return 1
	fi
	[ "$RT_COMPILE" = 1 ] || return 0
	# shellcheck disable=SC2086
	rt_compile_check "$name" $files
}

# rt_header NAME WHY: the header of the branch patch with the re-targeting
# note inserted above the last Signed-off-by: of the header
rt_header() {
	local name=$1 why=$2
	patch_header "$RG_BPDIR/$name" | awk -v note="$(
		printf '[ re-targeted from backports/%s/%s\n' "$RT_SRC_BRANCH" "$name"
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

# rt_steps_of NAME -> "a.cocci, text/b.sed, re-anchoring" for messages
rt_steps_of() {
	recipe_steps "$1" | awk '{ sub(/^\?/, "", $2); print ($2 == "reanchor" ? "re-anchored definitions (mmbk/reanchor.py)" : "cocci/" $2) }' |
		awk '!seen[$0]++' | join_lines ', '
}

# rt_snapshot / rt_restore: the scratch state before a method, to undo a
# failed one
rt_snapshot() {
	rm -rf "$RG_TMP/snap"
	cp -a "$RG_TMP/tree" "$RG_TMP/snap"
}

rt_restore() {
	rm -rf "$RG_TMP/tree"
	cp -a "$RG_TMP/snap" "$RG_TMP/tree"
}

# rt_attempt NAME STEPS: run STEPS (empty: the recipe) and verify the
# result; prints why it failed (status 1), or the verification note
rt_attempt() {
	local name=$1 steps=$2 err
	if ! ( regen_body "$name" "$steps" ) 2> "$RG_TMP/regen.err"; then
		err=$(grep -E 'error:' "$RG_TMP/regen.err" | tail -n1 | sed 's/^[^:]*: error: //')
		echo "${err:-see ${RG_TMP#"$OUT_DIR"/}/regen.err}"
		return 1
	fi
	rt_verify "$name"
}

# rt_land NAME KIND REJECTS NOTE: write the re-targeted patch and record it
rt_land() {
	local name=$1 kind=$2 rejects=$3 note=$4 why status text checked
	if [ "$kind" = cocci ]; then
		why="the branch patch does not apply at fuzz 0 to $RT_TREE_NAME (Linux $RT_TREE_VERSION): $rejects. Regenerated on that tree from $(rt_steps_of "$name")"
		status=re-targeted text="re-targeted from cocci"
	else
		why="the branch patch does not apply at fuzz 0 to $RT_TREE_NAME (Linux $RT_TREE_VERSION): $rejects. Re-anchored by mmbk/reanchor.py: each definition it changes 3-way merged into the tree's own ($(sed 's/^reanchor: [^:]*: //' "$RG_TMP/reanchor.all" | join_lines))"
		status=re-anchored text="re-anchored"
	fi
	checked="detect.table finds the change, it changes no definition the branch patch leaves alone"
	[ -z "${RT_STUBS:-}" ] || checked="$checked; the compile copy had empty stubs for the absent $RT_STUBS"
	if [ "$RT_COMPILE" = 1 ] && [ -z "$note" ]; then
		checked="$checked, and the objects it touches compile without and with it ($(kb_describe))"
	elif [ -n "$note" ]; then
		checked="$checked; ${note#unverified: }"
		text="$text; ${note#unverified: }"
	fi
	rt_header "$name" "$why; checked: $checked" > "$RG_TMP/header"
	assemble_patch "$RG_TMP/header" "$RG_TMP/body" > "$RT_DEST/$name"
	echo "$name" >> "$RT_DEST/series.new"
	rt_record "$name" "$status" "$text"
}

# rt_one NAME BRANCH: take patch NAME of BRANCH on the current state; 0 ok
rt_one() {
	local name=$1 verdict rejects why_cocci='' why_anchor='' note
	RT_SRC_BRANCH=$2
	rg_bpdir "$DATA_DIR/backports/$RT_SRC_BRANCH"
	if ! grep -qxF "$name" <(series_patches "$(series_file "$RT_SRC_BRANCH")"); then
		rt_record "$name" failed "failed: backports/$RT_SRC_BRANCH does not carry it"
		return 1
	fi
	verdict=$(rt_detect_state "$name")
	if [ "${verdict%%$'\t'*}" = present ]; then
		rt_record "$name" upstream "already upstream"
		return 0
	fi
	rt_reference_step "$RT_SRC_BRANCH" "$name"
	if apply_plain "$name" "$RG_BPDIR/$name"; then
		cp "$RG_BPDIR/$name" "$RT_DEST/$name"
		echo "$name" >> "$RT_DEST/series.new"
		rt_record "$name" applied "applied as-is"
		return 0
	fi
	rejects=$(rt_save_rejects "$name")
	[ -n "$rejects" ] || rejects="it does not apply"
	rt_snapshot
	if has_recipe "$name" && [ "$(recipe_kind "$name")" = cocci ]; then
		if note=$(rt_attempt "$name" ""); then
			rt_land "$name" cocci "$rejects" "$note"
			return 0
		fi
		why_cocci=$note
		rt_restore
	fi
	if note=$(rt_attempt "$name" "* reanchor"); then
		rt_land "$name" reanchor "$rejects" "$note"
		return 0
	fi
	why_anchor=$note
	rt_restore
	rt_record "$name" failed "failed: does not apply at fuzz 0 ($rejects)${why_cocci:+; cocci recipe: $why_cocci}; re-anchoring: $why_anchor; rejects in $RT_DEST/rejects/$name"
	return 1
}

# rt_publish: merge this call's series and records into DEST (other
# patches' entries stay), in upstream order
rt_publish() {
	local name mine
	mine=$(printf '%s\n' "${RT_LIST[@]%%:*}")
	{
		printf '# re-targeted for %s (Linux %s) by mm-backport-kit (lib/retarget.sh)\n' "$RT_TREE" "$RT_TREE_VERSION"
		for name in $(series_patches "$DATA_DIR/series"); do
			if grep -qxF "$name" "$RT_DEST/series.new"; then
				echo "$name"
			elif ! grep -qxF "$name" <<< "$mine" &&
			     [ -f "$RT_DEST/series" ] && grep -qxF "$name" <(series_patches "$RT_DEST/series"); then
				echo "$name"
			fi
		done
	} > "$RT_DEST/series.tmp"
	{
		[ ! -f "$RT_DEST/results.tsv" ] || awk -F'\t' -v mine="$mine" '
			BEGIN { n = split(mine, m, "\n"); for (i = 1; i <= n; i++) skip[m[i]] = 1 }
			!skip[$4]' "$RT_DEST/results.tsv"
		cat "$RT_DEST/results.new"
	} > "$RT_DEST/results.tmp"
	mv "$RT_DEST/series.tmp" "$RT_DEST/series"
	mv "$RT_DEST/results.tmp" "$RT_DEST/results.tsv"
	rm -f "$RT_DEST/series.new" "$RT_DEST/results.new"
}

# rt_summary DEST -> how many object builds DEST's calls verified by
# compiling, and which objects they could not (nothing before a compile)
rt_summary() {
	local f=$1/compile.counts v u n
	[ -s "$f" ] || return 0
	v=$(grep -c '^verified' "$f") || true
	u=$(grep '^unverified' "$f" | cut -f2 | sort -u | join_lines ', ') || true
	n=$(grep '^not-built' "$f" | cut -f2 | sort -u | join_lines ', ') || true
	printf 'compile verification (%s): %s object build(s) verified by compiling, %s not verified%s\n' \
		"$(cat "$1/compile.target")" "$v" "${u:-none}" "${n:+; not built by the configuration: $n}"
}

retarget_run() (
	local name entry plan failed=0 branch='' arch='' llvm='' kconfig=''
	RT_COMPILE=1 RT_VERIFY=default RT_DEST=
	while [ $# -gt 0 ]; do
		case $1 in
		--no-compile) RT_COMPILE=0; shift ;;
		--dest) RT_DEST=${2:-}; shift 2 ;;
		--arch) arch=${2:-}; shift 2 ;;
		--llvm) llvm=${2:-}; shift 2 ;;
		--kconfig) kconfig=${2:-}; shift 2 ;;
		--verify) RT_VERIFY=${2:-}; shift 2 ;;
		-*) usage_error "retarget: unknown option '$1'" ;;
		*) break ;;
		esac
	done
	case $RT_VERIFY in default|strict) ;; *) usage_error "VERIFY=$RT_VERIFY: use VERIFY=strict or leave it out" ;; esac
	[ $# -ge 1 ] || usage_error "usage: retarget_run [options] TREE [BRANCH [PATCH...]]"
	RT_TREE=$(cd "$1" 2>/dev/null && pwd) || usage_error "KDIR=$1 does not exist; point KDIR= at a kernel source tree"
	shift
	is_kernel_tree "$RT_TREE" || not_a_tree "$RT_TREE" "$RT_TREE"
	branch=${1:-}
	[ $# -eq 0 ] || shift
	[ -z "$branch" ] || require_branch "$branch"
	RT_TREE_NAME=$(tree_name "$RT_TREE")
	RT_TREE_VERSION=$(kernel_version "$RT_TREE")
	if [ "$RT_COMPILE" = 1 ]; then
		kb_target "$arch" "$llvm" "$kconfig" "$RT_TREE"
		progress "retarget: the compile verification is for $(kb_describe_from)"
		rt_build_copy
	fi
	RT_DEST=${RT_DEST:-$OUT_DIR/$RT_TREE_NAME}
	RT_LIST=()
	if [ $# -gt 0 ]; then
		for name in "$@"; do RT_LIST+=("$name:$branch"); done
	else
		# the whole plan: DEST starts afresh (a failing plan is no "nothing to carry")
		plan=$(plan_tree "$RT_TREE") || die "the plan of $RT_TREE failed (see above)"
		mapfile -t RT_LIST < <(awk -F'\t' -v b="$branch" '$2 == "carry" { print $1 ":" (b != "" ? b : $3) }' <<< "$plan")
		rm -rf "$RT_DEST"
	fi
	for entry in "${RT_LIST[@]}"; do
		[ -d "$(pristine_dir "${entry#*:}")" ] ||
			die "no cached tree for ${entry#*:}; run 'make tree BRANCH=${entry#*:}' first"
	done
	# the work files of this call are kept for inspection (DEST/work)
	mkdir -p "$RT_DEST"
	rm -rf "$RT_DEST/work"
	mkdir -p "$RT_DEST/work"
	exec 2> >(tee "$RT_DEST/retarget.log" >&2)
	rg_init "$RT_DEST/work/scratch" "$RT_TREE" "$RT_TREE_NAME" "$DATA_DIR/backports/${branch:-$DEFAULT_BRANCH}"
	: > "$RT_DEST/series.new"
	: > "$RT_DEST/results.new"
	for entry in "${RT_LIST[@]}"; do
		name=${entry%%:*}
		rm -rf "${RT_DEST:?}/rejects/$name" "${RT_DEST:?}/$name"
		RT_STARTED=$(date +%s)
		if [ $failed = 1 ]; then
			rt_record "$name" not-tried "not tried (an earlier patch failed)"
			continue
		fi
		rt_one "$name" "${entry#*:}" || failed=1
	done
	rt_publish
	[ "$RT_COMPILE" = 0 ] || rt_summary "$RT_DEST" >&2
	[ $failed = 0 ] || return 1
	info "$RT_TREE: series written to $RT_DEST (QUILT_PATCHES=$RT_DEST)"
)
