# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# check.sh - check the kit's series as applied to a tree (make check):
# checkpatch.pl --strict from the tree on every applied patch, then a W=1
# build and sparse (C=1) of every object the series touches, for the build
# target (ARCH=, LLVM=1, KCONFIG=: kbuild.sh), failing only on warnings
# that are new against the same tree without the series; where the tree
# can select PREEMPT_RT every such object again with configs/rt.config.
# An object that does not build without the series either is not the
# series' fault: it is a skip that names the first real error.
# Results are records (results.sh); the KTAP document goes to stdout, the
# records, JUnit and logs to out/check/<name>/.
kit_use tables trees state kbuild results fetch worktree

# check_touched_files -> the files the applied series changes
check_touched_files() {
	local name paths=()
	for name in $(applied_patches "$CK_TREE"); do
		paths+=("$(applied_patch "$CK_TREE" "$name")")
	done
	[ ${#paths[@]} -eq 0 ] || patch_files "${paths[@]}"
}

# check_touched_objects -> the objects that compile them (kbuild.sh)
check_touched_objects() {
	# shellcheck disable=SC2046
	kb_file_objects $(check_touched_files) | cut -f2 | sort -u
}

check_checkpatch() {
	local name out
	for name in $(applied_patches "$CK_TREE"); do
		out=$(cd "$CK_TREE" && perl scripts/checkpatch.pl --no-tree -q --no-summary --strict \
			--ignore "$CHECKPATCH_IGNORE$(checkpatch_waivers "$DATA_DIR/backports/$CK_BRANCH/$name")" \
			"$(applied_patch "$CK_TREE" "$name")" 2>&1) || true
		if [ -z "$out" ]; then
			result "$CK_RECORDS" case check "$CK_NAME" "$(result_name "checkpatch $name")" pass "$(topic_of "$name")"
		else
			result "$CK_RECORDS" case check "$CK_NAME" "$(result_name "checkpatch $name")" fail "$(topic_of "$name")" - \
				"$out"$'\n'"checkpatch --strict: $(grep -cE '^(ERROR|WARNING|CHECK):' <<< "$out") finding(s) in $name"
		fi
	done
}

# check_normalise ROOT: warnings as "file: warning: text", relative to ROOT
# and without line/column, so that moved lines do not count as new warnings
check_normalise() {
	sed -nE -e "s|^$1/||" -e 's/^([^ :]+):[0-9]+(:[0-9]+)?: (warning|error): /\1: \3: /p' | sort
}

# check_prepare SRC OBJDIR LOG: the configuration and the prerequisites of
# every object (prepare: generated headers, arm64's vDSO, host tools) as
# the tree builds them, without W=1 (a tree's -Werror would make the
# vDSO's W=1 warnings fatal); LOG.rc gets the status
check_prepare() {
	local rc=0
	kb_objects "$1" "$2" test "$3" prepare || rc=$?
	echo "$rc" > "$3.rc"
}

# make arguments that demote errors to warnings (check_build)
CK_NOERROR=(KCFLAGS=-Wno-error CFLAGS_KERNEL=-Wno-error CFLAGS_MODULE=-Wno-error)

# check_build SRC OBJDIR OBJECT LOG: compile OBJECT with W=1 and sparse
# (C=1 checks what is compiled; the object is removed first so it is),
# errors demoted to warnings, so that the warnings are collected and
# compared: KCFLAGS follows KBUILD_CFLAGS (CONFIG_WERROR), CFLAGS_KERNEL
# and CFLAGS_MODULE come after a directory's ccflags-y and after what a
# vendor Makefile adds to KBUILD_CFLAGS anywhere (Makefile.lib).
# LOG.all gets make's output, LOG.rc the status, LOG.w1 and LOG.sparse
# OBJECT's own sections of it (check_split)
check_build() {
	local src=$1 obj=$2 o=$3 log=$4 rc=0
	kb_objects "$src" "$obj" test "$log.all" W=1 C=1 CHECK="$CK_SPARSE" "${CK_NOERROR[@]}" "$o" || rc=$?
	echo "$rc" > "$log.rc"
	check_split "$log.all" "$o" "$log"
}

# check_split MAKELOG OBJECT LOG: the compiler's output for OBJECT to
# LOG.w1, sparse's to LOG.sparse.  kbuild prints "  CC      OBJECT" before
# the compiler's output and "  CHECK   SOURCE" before the checker's; what
# it builds before OBJECT (the prepare targets: arm64's vDSO, host tools) is
# other objects' output, and with -j its lines interleave, so a section
# ends at the next kbuild line of any kind
check_split() {
	awk -v w1="$3.w1" -v sp="$3.sparse" -v o="$2" -v c="${2%.o}.c" '
		function is(path, rel) {	# path is rel, or ends in /rel
			return path == rel || substr(path, length(path) - length(rel)) == "/" rel
		}
		/^  [A-Z]+( \[M\])? +[^ ]+$/ {
			out = ""
			if ($1 == "CHECK" && is($NF, c)) out = sp
			else if ($1 == "CC" && is($NF, o)) out = w1
			next
		}
		out != "" { print > out }
	' "$1"
	touch "$3.w1" "$3.sparse"
}

# check_unbuilt OBJECT: the configuration builds none of the series' files
# that OBJECT compiles: a skip per file that names the option (no compile)
check_unbuilt() {
	local o=$1 f obj why topic
	# shellcheck disable=SC2046
	kb_unbuilt "$CK_BASE" "$CK_OBJ_BASE" "$o" $(check_touched_files) > /dev/null || return 1
	# shellcheck disable=SC2046
	while IFS=$'\t' read -r f obj; do
		[ "$obj" = "$o" ] || continue
		why=$(kb_not_built "$CK_BASE" "$CK_OBJ_BASE" "$f" "$o")
		topic=$(check_topic_of_object "$f")
		result "$CK_RECORDS" case check "$CK_NAME" "$(result_name "build $f")" skip "$topic" - \
			"not built by this configuration ($(kb_describe)): $why"
	done < <(kb_file_objects $(check_touched_files))
	echo "$o" >> "$CK_LOGDIR/not-built"
}

# check_included OBJECT: a skip for each file of the series that OBJECT
# compiles only under an option that is off (rwbase_rt.c in rwsem.o
# without PREEMPT_RT): what this configuration does not prove
check_included() {
	local o=$1 f obj why
	# shellcheck disable=SC2046
	while IFS=$'\t' read -r f obj; do
		if [ "$obj" != "$o" ] || [ "$f" = "${o%.o}.c" ]; then continue; fi
		why=$(kb_not_built "$CK_BASE" "$CK_OBJ_BASE" "$f" "$o") || continue
		result "$CK_RECORDS" case check "$CK_NAME" "$(result_name "build $f")" skip "$(check_topic_of_object "$f")" - \
			"not built by this configuration ($(kb_describe)): $why"
	done < <(kb_file_objects $(check_touched_files))
}

# check_object OBJECT: build it with and without the series, compare;
# CK_LOGDIR/verified or /unverified gets its name (the proof's count)
check_object() {
	local o=$1 log=$CK_LOGDIR/${1//\//_} kind new rc_base rc topic
	topic=$(check_topic_of_object "$o")
	if check_unbuilt "$o"; then return 0; fi
	check_included "$o"
	check_build "$CK_BASE" "$CK_OBJ_BASE" "$o" "$log.unpatched"
	state_point check-object
	check_build "$CK_SRC" "$CK_OBJ_TREE" "$o" "$log.patched"
	rc_base=$(cat "$log.unpatched.rc")
	rc=$(cat "$log.patched.rc")
	for kind in w1 sparse; do
		new=$(comm -13 <(check_normalise "$CK_BASE" < "$log.unpatched.$kind") \
			       <(check_normalise "$CK_SRC" < "$log.patched.$kind"))
		if [ "$rc_base" != 0 ] && [ "$rc" != 0 ]; then
			result "$CK_RECORDS" case check "$CK_NAME" "$(result_name "$kind $o")" skip "$topic" - \
				"not verified by compiling: $o does not build without the series either ($(kb_first_error "$log.unpatched.all"); log: $log.unpatched.all)"
		elif [ "$rc" != 0 ]; then
			result "$CK_RECORDS" case check "$CK_NAME" "$(result_name "$kind $o")" fail "$topic" - \
				"$(kb_first_error "$log.patched.all")"$'\n'"$o does not build with the series; it builds without it (log: $log.patched.all)"
		elif [ -n "$new" ]; then
			result "$CK_RECORDS" case check "$CK_NAME" "$(result_name "$kind $o")" fail "$topic" - \
				"$new"$'\n'"$(wc -l <<< "$new") new $kind warning(s) in $o"
		else
			result "$CK_RECORDS" case check "$CK_NAME" "$(result_name "$kind $o")" pass "$topic"
		fi
	done
	if [ "$rc_base" != 0 ] && [ "$rc" != 0 ]; then
		printf '%s\t%s (log: %s)\n' "$o" "$(kb_first_error "$log.unpatched.all")" "$log.unpatched.all" >> "$CK_LOGDIR/unverified"
	else
		echo "$o" >> "$CK_LOGDIR/verified"
	fi
}

# check_topic_of_object OBJECT -> the topic of the first applied patch that
# touches its source
check_topic_of_object() {
	local name src=${1%.o}.c
	case $1 in *.o) ;; *) src=$1 ;; esac
	for name in $(applied_patches "$CK_TREE"); do
		# matched by the shell: grep -q would stop reading early and fail
		# patch_files with SIGPIPE under pipefail
		if [[ $'\n'$(patch_files "$(applied_patch "$CK_TREE" "$name")")$'\n' == *$'\n'"$src"$'\n'* ]]; then
			topic_of "$name"
			return
		fi
	done
	echo -
}

# check_rt_unselectable -> why the build target cannot have PREEMPT_RT:
# nothing (status 1) when the RT build dir's .config, the configuration
# with configs/rt.config merged, ends with CONFIG_PREEMPT_RT=y
check_rt_unselectable() {
	local cfg=$CK_OBJ_RT/.config
	if [ ! -f "$cfg" ]; then
		echo "the configuration with configs/rt.config could not be made ($(kb_first_error "$CK_LOGDIR/rt-prepare"); log: $CK_LOGDIR/rt-prepare)"
	elif grep -qx 'CONFIG_PREEMPT_RT=y' "$cfg"; then
		return 1
	elif ! grep -qx 'CONFIG_ARCH_SUPPORTS_RT=y' "$cfg"; then
		echo "the tree's Kconfig has PREEMPT_RT, but $KB_SRCARCH does not select ARCH_SUPPORTS_RT"
	else
		echo "the tree's Kconfig has PREEMPT_RT, but its dependencies are not met with configs/rt.config merged ($cfg)"
	fi
}

# check_rt: where the tree can select PREEMPT_RT for the build target (its
# configuration, the kit's or KCONFIG=, with configs/rt.config merged ends
# with CONFIG_PREEMPT_RT=y), every object the series touches builds with
# PREEMPT_RT as well; an object the RT config does not build (THP needs
# !PREEMPT_RT on some branches) is a skip that says so.  A tree whose
# Kconfig has PREEMPT_RT but cannot select it is one skip that says why; a
# tree without PREEMPT_RT, nothing
check_rt() {
	local o log rc topic off why
	kb_kconfig_has "$CK_SRC" PREEMPT_RT || return 0
	progress "check: the configuration with configs/rt.config ($(kb_describe))"
	rc=0
	kb_objects "$CK_SRC" "$CK_OBJ_RT" rt "$CK_LOGDIR/rt-prepare" || rc=$?
	if why=$(check_rt_unselectable); then
		result "$CK_RECORDS" case check "$CK_NAME" PREEMPT_RT skip - - "not built with PREEMPT_RT ($(kb_describe)): $why"
		return 0
	fi
	# the configuration selects PREEMPT_RT: its prerequisites
	progress "check: prepare with PREEMPT_RT ($(kb_describe))"
	[ "$rc" != 0 ] || kb_objects "$CK_SRC" "$CK_OBJ_RT" rt "$CK_LOGDIR/rt-prepare" prepare || rc=$?
	# prerequisites that do not build without the series either (a host
	# tool, a vDSO source the tree lacks) are the tree's, not the series'
	if [ "$rc" != 0 ] && [ "$(cat "$CK_LOGDIR/prepare.unpatched.rc")" != 0 ]; then
		result "$CK_RECORDS" case check "$CK_NAME" PREEMPT_RT skip - - \
			"not verified with PREEMPT_RT: prepare does not build without the series either ($(kb_first_error "$CK_LOGDIR/rt-prepare"); log: $CK_LOGDIR/rt-prepare)"
		return 0
	fi
	for o in $(check_touched_objects); do
		log=$CK_LOGDIR/rt-${o//\//_}
		topic=$(check_topic_of_object "$o")
		progress "check: $o with PREEMPT_RT"
		rc=0
		kb_objects "$CK_SRC" "$CK_OBJ_RT" rt "$log" W=1 "${CK_NOERROR[@]}" "$o" || rc=$?
		# shellcheck disable=SC2046
		if off=$(kb_unbuilt "$CK_SRC" "$CK_OBJ_RT" "$o" $(check_touched_files)); then
			result "$CK_RECORDS" case check "$CK_NAME" "$(result_name "PREEMPT_RT $o")" skip "$topic" - "not built with PREEMPT_RT on $CK_BRANCH: $off"
		elif [ $rc = 0 ]; then
			result "$CK_RECORDS" case check "$CK_NAME" "$(result_name "PREEMPT_RT $o")" pass "$topic"
		elif grep -qF "No rule to make target '$o'" "$log"; then
			result "$CK_RECORDS" case check "$CK_NAME" "$(result_name "PREEMPT_RT $o")" skip "$topic" - "not built with PREEMPT_RT on $CK_BRANCH"
		else
			result "$CK_RECORDS" case check "$CK_NAME" "$(result_name "PREEMPT_RT $o")" fail "$topic" - \
				"$(kb_first_error "$log")"$'\n'"$o does not build with PREEMPT_RT (log: $log)"
		fi
	done
}

# check_proof: the record of what the check compiled: every object the
# configuration builds and the series touches, verified by compiling with
# and without the series, or a skip that counts those it could not
check_proof() {
	local v=0 u=0 n=0 first
	[ ! -f "$CK_LOGDIR/verified" ] || v=$(wc -l < "$CK_LOGDIR/verified")
	[ ! -f "$CK_LOGDIR/unverified" ] || u=$(wc -l < "$CK_LOGDIR/unverified")
	[ ! -f "$CK_LOGDIR/not-built" ] || n=$(wc -l < "$CK_LOGDIR/not-built")
	CK_SUMMARY="$v of $((v + u)) objects the configuration builds verified by compiling, $u not verified, $n not built by this configuration ($(kb_describe_from))"
	[ -z "${CK_STUBS:-}" ] || CK_SUMMARY="$CK_SUMMARY; empty stubs in the build copies for the absent $CK_STUBS"
	if [ "$u" = 0 ]; then
		result "$CK_RECORDS" case check "$CK_NAME" "compile proof" pass - - "$CK_SUMMARY"
	else
		first=$(sed -n 1p "$CK_LOGDIR/unverified")
		result "$CK_RECORDS" case check "$CK_NAME" "compile proof" skip - - \
			"not verified by compiling: $CK_SUMMARY; first real error: ${first#*$'\t'}"
	fi
}

# check_verdict FAILED: the status of the check: 1 when a case failed,
# EXIT_UNVERIFIED when a touched object could not be verified by compiling
# (named with its first real error), else 0
check_verdict() {
	local first
	info "$CK_SUMMARY"
	[ "$1" -eq 0 ] || return 1
	[ -s "$CK_LOGDIR/unverified" ] || return 0
	first=$(sed -n 1p "$CK_LOGDIR/unverified")
	warn "not every touched object was verified by compiling; the first: ${first%%$'\t'*}: ${first#*$'\t'}"
	return "$EXIT_UNVERIFIED"
}

# check_run -> the KTAP document of the check of the request's tree
# (REQ_TREE, REQ_BRANCH) on stdout; the build target is KB_*
# (request_target).  0 when nothing failed.
check_run() (
	local o name failed
	CK_TREE=$REQ_TREE CK_BRANCH=$REQ_BRANCH CK_STUBS=
	need_cache
	state_init "$CK_TREE"
	# the kit's own copy is not remade while it is checked (its directory
	# first, as the command that remakes it locks them)
	[ "$CK_TREE" != "$(variant_dir "$CK_BRANCH" patched)" ] || worktree_hold "$CK_BRANCH" patched
	lock_tree "$CK_TREE" shared
	[ -n "$(applied_patches "$CK_TREE")" ] ||
		die "the kit's series is not applied to $CK_TREE; run 'make apply KDIR=$CK_TREE' first"
	CK_SPARSE=$(sparse_path)
	CK_NAME=$(tree_name "$CK_TREE")
	[ "$CK_TREE" != "$(variant_dir "$CK_BRANCH" patched)" ] || CK_NAME=$CK_BRANCH
	CK_NAME=$CK_NAME${KB_TAG:-}
	CK_LOGDIR=$OUT_DIR/check/$CK_NAME
	# out/check/<name>/ is this check's until it ends: a second check of
	# the tree (or branch) and target waits for it
	mkdir -p "$OUT_DIR/check"
	lock_tree "$CK_LOGDIR.lock"
	rm -rf "$CK_LOGDIR"
	mkdir -p "$CK_LOGDIR"
	CK_RECORDS=$CK_LOGDIR/results.tsv
	: > "$CK_RECORDS"
	request_hand_back "$CK_RECORDS"
	check_checkpatch
	# the sources: the kit's own trees as they are (never written; their
	# build dirs are shared with make boot), any other tree through a
	# hard-link copy (its current content, no blanks in the path)
	if [ "$CK_TREE" = "$(variant_dir "$CK_BRANCH" patched)" ]; then
		CK_SRC=$CK_TREE
		CK_BASE=$(pristine_dir "$CK_BRANCH")
		pristine_verify "$CK_BRANCH"
		CK_OBJ_BASE=$(build_dir "$CK_BRANCH" unpatched)
		CK_OBJ_TREE=$(build_dir "$CK_BRANCH" patched)
	else
		o=$CACHE_DIR/work/check/$(path_key "$CK_TREE")
		# the copies are made afresh: the area is this check's alone
		mkdir -p "$o"
		lock_tree "$o"
		progress "check: hard-link copies of $CK_TREE with and without the series"
		link_copy "$CK_TREE" "$o/linux" clean
		original_copy "$CK_TREE" "$o/base/linux" clean
		CK_SRC=$o/linux CK_BASE=$o/base/linux
		CK_STUBS=$(kb_stub_copy "$CK_SRC" "$CK_TREE")
		kb_stub_absent "$CK_BASE" > /dev/null
		CK_OBJ_TREE=$o/build${KB_TAG:-}
		CK_OBJ_BASE=$o/base/build${KB_TAG:-}
	fi
	CK_OBJ_RT=$CK_OBJ_TREE-rt
	progress "check: the build target is $(kb_describe_from)"
	progress "check: configuration and prepare (without W=1), without and with the series"
	check_prepare "$CK_BASE" "$CK_OBJ_BASE" "$CK_LOGDIR/prepare.unpatched"
	check_prepare "$CK_SRC" "$CK_OBJ_TREE" "$CK_LOGDIR/prepare.patched"
	for o in $(check_touched_objects); do
		progress "check: W=1 + sparse of $o, without and with the series ($(kb_describe))"
		check_object "$o"
	done
	check_rt
	check_proof
	read -r _ failed _ < <(kit_py results count "$CK_RECORDS")
	kit_py results junit -o "$CK_LOGDIR/junit.xml" "$CK_NAME.check=$CK_RECORDS" ||
		warn "$CK_LOGDIR/junit.xml not written"
	kit_py results ktap "$CK_RECORDS" \
		--title "check: Linux $(kernel_version "$CK_TREE") ($CK_BRANCH, $(kb_describe)) in $CK_TREE" \
		--summary "$CK_BRANCH"
	check_verdict "$failed"
)
