#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check.sh [TREE | --kdir DIR | --branch B] - check the kit's series as
# applied to TREE: checkpatch.pl --strict from TREE on every applied patch, then a W=1
# build and sparse (C=1 on objects that are rebuilt first) of every object
# the series touches, failing only on warnings that are new against the same
# tree without the series.  Output is KTAP; the last line is the
# branch summary.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

TESTNUM=0
PASSED=0
FAILED=0
SKIPPED=0

# ktap ok|not-ok NAME [DIAGNOSTIC]: the diagnostic lines, then the KTAP
# result line they explain (the last diagnostic line is the reason)
ktap() {
	TESTNUM=$((TESTNUM + 1))
	[ -z "${3:-}" ] || printf '%s\n' "$3" | sed 's/^/# /'
	if [ "$1" = ok ] && [[ $2 == *"# SKIP"* ]]; then
		SKIPPED=$((SKIPPED + 1))
		echo "ok $TESTNUM $2"
	elif [ "$1" = ok ]; then
		PASSED=$((PASSED + 1))
		echo "ok $TESTNUM $2"
	else
		FAILED=$((FAILED + 1))
		echo "not ok $TESTNUM $2"
	fi
}

# baseline_tree: the same tree without the series: a hard-link copy in which
# every file the series changed is replaced by its original (TREE is never
# written; anything changed in TREE after the apply counts as part of what is
# checked)
baseline_tree() {
	local base f orig
	if [ "$TREE" = "$(cd "$(patched_dir "$BRANCH")" 2>/dev/null && pwd)" ]; then
		pristine_dir "$BRANCH"
		return
	fi
	base=$CACHE_DIR/work/check-base/$(path_key "$TREE")
	rm -rf "$base"
	mkdir -p "$(dirname "$base")"
	cp -al "$TREE" "$base" || die "could not copy $TREE to $base"
	rm -rf "${base:?}/$KIT_STATE"
	while read -r f; do
		rm -f "$base/$f"
		orig=$(original_of "$TREE" "$f")
		[ -z "$orig" ] || cp -a "$orig" "$base/$f" || die "could not restore $f in $base"
	done < <(applied_files "$TREE")
	printf '%s\n' "$base"
}

touched_files() {
	local name
	for name in $(applied_patches "$TREE"); do
		patch_files "$(applied_patch "$TREE" "$name")"
	done | sort -u
}

touched_objects() {
	touched_files | sed -n 's/\.c$/.o/p'
}

check_checkpatch() {
	local name out
	for name in $(applied_patches "$TREE"); do
		out=$(cd "$TREE" && perl scripts/checkpatch.pl --no-tree -q --no-summary --strict \
			--ignore "$CHECKPATCH_IGNORE$(checkpatch_waivers "$DATA_DIR/backports/$BRANCH/$name")" \
			"$(applied_patch "$TREE" "$name")" 2>&1) || true
		if [ -z "$out" ]; then
			ktap ok "checkpatch $name"
		else
			ktap not-ok "checkpatch $name" "$out"$'\n'"checkpatch --strict: $(grep -cE '^(ERROR|WARNING|CHECK):' <<< "$out") finding(s) in $name"
		fi
	done
}

# normalise ROOT: warnings as "file: warning: text", relative to ROOT and
# without line/column, so that moved lines do not count as new warnings
normalise() {
	sed -nE -e "s|^$1/||" -e 's/^([^ :]+):[0-9]+(:[0-9]+)?: (warning|error): /\1: \3: /p' | sort
}

# build_object SRC OBJDIR OBJECT LOG: compile OBJECT with W=1 and sparse
# (C=1 checks what is compiled; the object is removed first so it is).
# LOG.w1 gets the compiler's output, LOG.sparse sparse's, LOG.rc the status.
build_object() {
	local src=$1 obj=$2 o=$3 log=$4 rc=0
	rm -f "$obj/$o"
	"$KIT_DIR/scripts/kbuild.sh" "$src" "$obj" W=1 C=1 CHECK="$SPARSE" "$o" > "$log.all" 2>&1 || rc=$?
	echo "$rc" > "$log.rc"
	# kbuild runs the compiler, then the checker: split at the CHECK line
	awk -v w1="$log.w1" -v sp="$log.sparse" '
		/^  CHECK / { out = sp; next }
		/^  (CC|AS|LD|AR) / { out = w1 }
		{ print > (out ? out : w1) }
	' "$log.all"
	touch "$log.w1" "$log.sparse"
}

# check_object OBJECT: build it with and without the series, compare
check_object() {
	local o=$1 log=$LOGDIR/${1//\//_} kind new rc_base rc
	build_object "$BASE" "$OBJ_BASE" "$o" "$log.unpatched"
	build_object "$TREE" "$OBJ_TREE" "$o" "$log.patched"
	rc_base=$(cat "$log.unpatched.rc")
	rc=$(cat "$log.patched.rc")
	for kind in w1 sparse; do
		new=$(comm -13 <(normalise "$BASE" < "$log.unpatched.$kind") \
			       <(normalise "$TREE" < "$log.patched.$kind"))
		if [ "$rc_base" != 0 ] && [ "$rc" != 0 ]; then
			ktap ok "$kind $o # SKIP not an object of this config (fails without the series too)"
		elif [ "$rc" != 0 ]; then
			ktap not-ok "$kind $o" "$(grep -E 'error|Error' "$log.patched.all" | sed -n 1,8p)"$'\n'"$o does not build with the series (log: $log.patched.all)"
		elif [ -n "$new" ]; then
			ktap not-ok "$kind $o" "$new"$'\n'"$(wc -l <<< "$new") new $kind warning(s) in $o"
		else
			ktap ok "$kind $o"
		fi
	done
}

# configured OBJDIR OBJECT: OBJECT is part of the build of OBJDIR/.config
# (its directory's Makefile adds it under obj-y or an option set there);
# "make dir/x.o" compiles a single object whether it is configured or not
configured() {
	local obj=$2 dir name opt
	dir=$(dirname "$obj") name=$(basename "$obj")
	opt=$(sed -n -E "s/^obj-\\$\((CONFIG_[A-Z0-9_]+)\)[[:space:]]*[+:]?=.*[[:space:]]${name//./\\.}([[:space:]].*)?$/\1/p" \
		"$TREE/$dir/Makefile" 2>/dev/null | sed -n 1p)
	[ -z "$opt" ] || grep -qE "^$opt=[ym]$" "$1/.config"
}

# check_rt: on a branch whose mainline has PREEMPT_RT, every object the
# series touches builds with PREEMPT_RT as well (configs/rt.config); an
# object the RT config does not build (THP needs !PREEMPT_RT on some
# branches) is a skip that says so
check_rt() {
	local o log rc
	for o in $(touched_objects); do
		log=$LOGDIR/rt-${o//\//_}
		progress "check: $o with PREEMPT_RT"
		rc=0
		rm -f "$OBJ_RT/$o"
		"$KIT_DIR/scripts/kbuild.sh" --fragment "$KIT_DIR/configs/rt.config" "$TREE" "$OBJ_RT" W=1 "$o" > "$log" 2>&1 || rc=$?
		if [ -f "$OBJ_RT/.config" ] && ! configured "$OBJ_RT" "$o"; then
			ktap ok "PREEMPT_RT $o # SKIP not built with PREEMPT_RT on $BRANCH (its option is off)"
		elif [ $rc = 0 ]; then
			ktap ok "PREEMPT_RT $o"
		elif grep -q 'No rule to make target' "$log"; then
			ktap ok "PREEMPT_RT $o # SKIP not built with PREEMPT_RT on $BRANCH"
		else
			ktap not-ok "PREEMPT_RT $o" "$(grep -E 'error|Error' "$log" | sed -n 1,8p)"$'\n'"$o does not build with PREEMPT_RT (log: $log)"
		fi
	done
}

main() {
	local kdir='' branch='' base o nobj nrt=0
	while [ $# -gt 0 ]; do
		case $1 in
		--kdir) kdir=${2:-}; shift 2 ;;
		--branch) branch=${2:-}; shift 2 ;;
		-*) die "usage: check.sh [TREE | --kdir DIR | --branch B]" ;;
		*) kdir=$1; shift ;;
		esac
	done
	need_cache
	TREE=$(resolve_tree "$kdir" "$branch" patched) || exit 1
	BRANCH=$(tree_branch "$TREE") || exit 1
	lock_tree "$TREE" shared
	[ -n "$(applied_patches "$TREE")" ] ||
		die "the kit's series is not applied to $TREE; run 'make apply KDIR=$TREE' first"
	# CHECKPATCH_IGNORE: scripts/lib.sh
	SPARSE=$("$KIT_DIR/scripts/sparse.sh")
	LOGDIR=$OUT_DIR/check/$BRANCH
	rm -rf "$LOGDIR"
	mkdir -p "$LOGDIR"
	nobj=$(touched_objects | wc -l)
	[ "$(branch_field "$BRANCH" rt)" != yes ] || nrt=$nobj
	echo "KTAP version 1"
	echo "# check: Linux $(kernel_version "$TREE") ($BRANCH) in $TREE"
	echo "1..$(( $(applied_patches "$TREE" | wc -l) + 2 * nobj + nrt ))"
	check_checkpatch
	base=$(baseline_tree)
	BASE=$base
	if [ "$base" = "$(pristine_dir "$BRANCH")" ]; then
		OBJ_BASE=$(build_dir "$BRANCH" unpatched)	# shared with make boot
		OBJ_TREE=$(build_dir "$BRANCH" patched)
	else
		OBJ_BASE=$CACHE_DIR/build/kdir-$(path_key "$TREE")
		OBJ_TREE=$OBJ_BASE-patched
		OBJ_BASE=$OBJ_BASE-unpatched
	fi
	OBJ_RT=$OBJ_TREE-rt
	for o in $(touched_objects); do
		progress "check: W=1 + sparse of $o, without and with the series"
		check_object "$o"
	done
	[ "$nrt" = 0 ] || check_rt
	echo "# $BRANCH: $PASSED passed, $FAILED failed, $SKIPPED skipped"
	[ "$FAILED" -eq 0 ]
}

main "$@"
