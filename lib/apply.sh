# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# apply.sh - make apply: the kit's series onto a kernel tree one topic at a
# time (tables/topics.table), each topic atomically; and apply_frame, the
# frame (options, locks, recovery of an interrupted command) in which
# make unapply (unapply.sh) and make status (status.sh) run too.
#
# The series a tree gets is planned from its code (plan.sh): per upstream
# patch "carry" (from a branch series), "upstream" (the tree has the
# change) or "n/a".  Each topic's patches are pushed with quilt at fuzz 0;
# a topic that does not apply is rolled back and re-targeted for the tree
# from the semantic patches (retarget.sh); a topic that still cannot land
# leaves no trace and the other topics land anyway ("partial"), unless
# --strict asks for all or nothing.  --profile kabi: a patch with a kABI
# variant (backports/<b>/kabi/<patch>) is applied in that form; such a
# topic is not re-targeted (the recipes rebuild the default form).
# The tree's state is state.sh's; every command locks the tree.
#
# Exit codes (lib/kit.sh): apply 0 done, 2 nothing to do (already applied
# as asked, or every selected topic upstream/n/a), 3 partial (some topics
# landed; a rerun on such a tree names the missing topics and exits 3
# again), 4 refused (local changes, edits since the apply, edits since an
# interrupted command that its recovery would overwrite, a state this kit
# did not write for the tree, some patched files reverted by hand), 1
# failed (no topic landed, or --strict and one failed: the tree is
# unchanged), 64 bad input (also: a touched file with CRLF line ends or
# NUL bytes, KDIR= in the kit's cache, an unwritable TMPDIR).  unapply's
# and status's: their modules.
kit_use tables trees state plan results request

# KiB of slack on top of what the journal and quilt's backups need
APPLY_SPACE_SLACK=1024

# ---- output ---------------------------------------------------------------
# messages go to the stderr the command started with, also from traps that
# run while a command's output is redirected to a log
apply_say() { printf '%s\n' "$*" >&"$APPLY_ERR"; }

# apply_fail MESSAGE [STATUS]: one error line on the saved stderr, exit
# shellcheck disable=SC2154  # prog: lib/kit.sh
apply_fail() {
	printf '%s: error: %s\n' "$prog" "$1" >&"$APPLY_ERR"
	exit "${2:-$EXIT_ERROR}"
}

# apply_record NAME STATUS TEXT: the result of one upstream patch (printed
# at the end, in ./series order, so that an error before it stays a
# single line)
apply_record() {
	result "$APPLY_RUN/records" patch apply "$BRANCH" "$1" "$2" "$(topic_of "$1")" - "$3"
}

# apply_topic_record TOPIC STATUS DETAIL
apply_topic_record() {
	result "$APPLY_RUN/records" topic apply "$BRANCH" "$1" "$2" "$1" - "$3"
}

# apply_report: the per-patch lines in the order of ./series, then the
# topic lines
apply_report() {
	local name
	for name in $(series_patches "$DATA_DIR/series"); do
		if [ -n "$(result_get "$APPLY_RUN/records" patch "$name" status)" ]; then
			printf '%-64s %s\n' "$name" "$(result_get "$APPLY_RUN/records" patch "$name" text)"
		fi
	done >&"$APPLY_ERR"
	apply_topic_lines "$APPLY_RUN/records"
	# the compile verification of the re-targeted patches (apply only)
	if declare -F retarget_summary > /dev/null; then retarget_summary "$APPLY_RT" >&"$APPLY_ERR"; fi
}

# apply_topic_lines RECORDS: "topic NAME status: detail" lines
apply_topic_lines() {
	local t
	for t in $(result_names "$1" topic); do
		printf 'topic %-28s %s\n' "$t" "$(result_get "$1" topic "$t" text)"
	done >&"$APPLY_ERR"
}

# apply_topics_with STATUS [RECORDS] -> the topics with that status
apply_topics_with() {
	result_names "${2:-$APPLY_RUN/records}" topic "$1" | paste -sd' '
}

# ---- files and space ------------------------------------------------------
# topic_files PATCHDIR PATCH... -> files those patches touch
topic_files() {
	local dir=$1
	shift
	[ $# -eq 0 ] || patch_files "${@/#/$dir/}"
}

free_kib() {		# free_kib DIR -> KiB available to us on DIR's file system
	df -Pk "$1" | awk 'NR == 2 { print $4 }'
}

# apply_require_space FILE...: the journal (orig + one topic's copy),
# quilt's backups and the patched files need about four times the files
apply_require_space() {
	local need=0 f have sizes=() size
	for f in "$@"; do
		[ ! -f "$TREE/$f" ] || sizes+=("$TREE/$f")
	done
	if [ ${#sizes[@]} -gt 0 ]; then
		sizes=("$(stat -c %s -- "${sizes[@]}")")
		for size in ${sizes[0]}; do need=$((need + size / 1024 + 1)); done
	fi
	need=$((need * 4 + APPLY_SPACE_SLACK))
	have=$(free_kib "$TREE")
	[ "$have" -ge "$need" ] ||
		apply_fail "not enough free space on the file system of $TREE for the apply journal (need $need KiB, $have KiB free); free some space and rerun; the tree is unchanged"
}

# apply_out_of_space: the tree's file system is (nearly) full
apply_out_of_space() {
	[ "$(free_kib "$TREE")" -lt "$APPLY_SPACE_SLACK" ]
}

# ---- checks before anything changes ----------------------------------------
# apply_require_writable FILE...: permission bits are checked (a tree marked
# read-only is respected even by root), and write access (an immutable
# file or directory refuses root too); a read-only mount is named as such
apply_require_writable() {
	local f d bad='' err why paths=("$TREE") ro
	if ! err=$(touch "$TREE/$STATE_NAME.probe" 2>&1); then
		case $err in
		*"Read-only file system"*)
			apply_fail "$TREE is on a read-only file system; remount it read-write or apply to a copy of the tree" ;;
		*) apply_fail "cannot write in $TREE ($err); make the tree writable (chmod u+w) or apply to a copy" ;;
		esac
	fi
	rm -f "$TREE/$STATE_NAME.probe"
	for f in "$@"; do
		[ ! -e "$TREE/$f" ] || paths+=("$TREE/$f")
		[ ! -d "$TREE/$(file_dir "$f")" ] || paths+=("$TREE/$(file_dir "$f")")
	done
	# the paths whose permission bits say read-only, found at once
	ro=$'\n'$(find "${paths[@]}" -maxdepth 0 ! -perm -u+w -print)$'\n'
	for f in "$@"; do
		d=$TREE/$(file_dir "$f")
		[ -d "$d" ] || continue
		if [ -e "$TREE/$f" ] && { [[ $ro == *$'\n'"$TREE/$f"$'\n'* ]] || [ ! -w "$TREE/$f" ]; }; then
			bad=$f
		elif [[ $ro == *$'\n'"$d"$'\n'* ]] || [ ! -w "$d" ]; then
			bad=$(file_dir "$f")/
		fi
		[ -z "$bad" ] || break
	done
	if [ -z "$bad" ] && [[ $ro == *$'\n'"$TREE"$'\n'* ]]; then
		bad=.
	fi
	[ -n "$bad" ] || return 0
	why="read-only; make the tree writable (chmod -R u+w) or apply to a copy"
	if lsattr -d "$TREE/$bad" 2>/dev/null | awk '{ exit $1 !~ /[ia]/ }'; then
		why="immutable or append-only (chattr +i/+a); clear it (chattr -i -a) or apply to a copy"
	fi
	apply_fail "$TREE/$bad is $why"
}

# apply_local_change FILE... -> the first touched file with local changes,
# or nothing.  In a git work tree: a tracked file that git status shows
# changed (its paths are the repository root's: the tree's prefix in the
# repository is taken off); a file untracked or ignored there (a tree
# inside a home or BSP repository) is judged as in a plain tree
# (apply_plain_local_change).
apply_local_change() {
	local info prefix entry st path plain=() rename=
	if info=$(git -C "$TREE" rev-parse --is-inside-work-tree --show-prefix 2>/dev/null) && [[ $info == true* ]]; then
		prefix=${info#true}
		prefix=${prefix#$'\n'}
		while IFS= read -r -d '' entry; do
			# a rename's or copy's second path: its source
			if [ -n "$rename" ]; then rename=; continue; fi
			st=${entry:0:2} path=${entry:3}
			case $st in R*|C*) rename=1 ;; esac
			path=${path#"$prefix"}
			case $st in
			'??'|'!!') plain+=("$path") ;;
			*) printf '%s\n' "$path"; return 0 ;;
			esac
		done < <(git -C "$TREE" --no-optional-locks status --porcelain=v1 -z --untracked-files=all --ignored=matching -- "$@")
		[ ${#plain[@]} -eq 0 ] || apply_plain_local_change "${plain[@]}"
		return 0
	fi
	apply_plain_local_change "$@"
}

# apply_plain_local_change FILE... -> the first of the files (of a tree
# git does not track) with local changes, or nothing.  A property of the
# tree, not of the machine: the branch's committed reference sums
# (backports/BRANCH/touched.sums: a "# version X.Y.Z" comment, then
# sha256sum lines of the pristine content of every file its series
# touches) judge a tree of that version; a file that differs is a local
# change.  A tree of another version (or a branch without the file) is not
# judged: unknown.
apply_plain_local_change() {
	local sums=$DATA_DIR/backports/$BRANCH/touched.sums f ver there=()
	ver=$(sums_version "$sums")
	{ [ -n "$ver" ] && [ "$ver" = "$(kernel_version "$TREE")" ]; } || return 0
	for f in "$@"; do
		[ ! -f "$TREE/$f" ] || there+=("$f")
	done
	[ ${#there[@]} -gt 0 ] || return 0
	f=$(sums_differing "$sums" "$TREE" "${there[@]}")
	[ -z "$f" ] || printf '%s\n' "${f%%$'\n'*}"
}

# apply_file_problem PATCHDIR PATCHES FILE -> why the series cannot change
# FILE, or nothing
apply_file_problem() {
	local dir=$1 patches=$2 f=$3 p
	if [ ! -e "$TREE/$f" ] && [ ! -L "$TREE/$f" ]; then
		for p in $patches; do
			if [[ $'\n'$(<"$dir/$p")$'\n' == *$'\n'"--- a/$f"$'\n'* ]]; then
				printf '%s is missing from the tree; restore it or leave out its topic (TOPICS=)' "$f"
				return
			fi
		done
	elif [ -L "$TREE/$f" ]; then
		printf '%s is a symbolic link, which quilt does not patch through; replace it by a copy of its target or leave out its topic (TOPICS=)' "$f"
	elif [ -e "$TREE/$f" ] && [ ! -f "$TREE/$f" ]; then
		printf '%s is not a regular file' "$f"
	fi
}

# apply_check_series: every name in ./series and in the branch series is a
# patch file of the kit (a name without its file is an error, not skipped)
apply_check_series() {
	local name s
	for name in $(series_patches "$DATA_DIR/series"); do
		[ -f "$DATA_DIR/patches/$name" ] ||
			die "./series names $name, but patches/$name does not exist; restore it (git checkout) or fix ./series"
		[ -n "$(topic_of "$name")" ] ||
			die "$name is in no topic of tables/topics.table; add its row there"
	done
	s=$(series_file "$BRANCH")
	[ -f "$s" ] || die "no series file backports/$BRANCH/series; restore it (git checkout)"
	for name in $(series_patches "$s"); do
		[ -f "$DATA_DIR/backports/$BRANCH/$name" ] ||
			die "backports/$BRANCH/series names $name, but backports/$BRANCH/$name does not exist; restore it (git checkout) or run make regen BRANCH=$BRANCH"
	done
}

# ---- one topic --------------------------------------------------------------
# apply_push_topic SRCDIR PATCH...: journal, then quilt push of the patches
# (taken from SRCDIR); on failure the topic is rolled back and the quilt
# log is in $APPLY_RUN/push.log.  Its outcome in APPLY_PUSH_RC: 0 applied,
# 1 did not apply, 2 an I/O error (its first line in $APPLY_RUN/io.err; no
# space, immutable, ...), 3 the roll-back failed.  (A plain call, with
# errexit in force: a failure it does not expect stops the apply, and
# apply_frame rolls the tree back from the journal.)
apply_push_topic() {
	local src=$1 files
	shift
	APPLY_PUSH_RC=2
	files=$(topic_files "$src" "$@")
	# shellcheck disable=SC2086
	if ! save_originals $files 2> "$APPLY_RUN/io.err" || ! state_snapshot $files 2>> "$APPLY_RUN/io.err" ||
	   ! state_add_patches "$src" "$@" 2>> "$APPLY_RUN/io.err"; then
		state_rollback_topic "$@" 2>> "$APPLY_RUN/io.err" || { APPLY_PUSH_RC=3; return 0; }
		! grep -q 'No space left on device' "$APPLY_RUN/io.err" ||
			echo "no space left on the file system of $TREE" > "$APPLY_RUN/io.err"
		APPLY_PUSH_RC=2
		return 0
	fi
	if state_quilt push -a --fuzz=0 > "$APPLY_RUN/push.log" 2>&1; then
		state_topic_done
		APPLY_PUSH_RC=0
		return 0
	fi
	state_rollback_topic "$@" 2> "$APPLY_RUN/io.err" || { APPLY_PUSH_RC=3; return 0; }
	if apply_out_of_space; then
		echo "no space left on the file system of $TREE" > "$APPLY_RUN/io.err"
		APPLY_PUSH_RC=2
		return 0
	fi
	if grep -qE 'Permission denied|Operation not permitted|Read-only file system' "$APPLY_RUN/push.log"; then
		grep -m1 -E 'Permission denied|Operation not permitted|Read-only file system' "$APPLY_RUN/push.log" > "$APPLY_RUN/io.err"
		APPLY_PUSH_RC=2
		return 0
	fi
	APPLY_PUSH_RC=1
}

# apply_io_fix -> what to do about the I/O error in $APPLY_RUN/io.err
apply_io_fix() {
	case $(head -n1 "$APPLY_RUN/io.err") in
	*"no space left"*|*"No space left"*|*"Disk quota"*) echo "free some space and rerun" ;;
	*"Read-only file system"*) echo "mount the tree read-write and rerun" ;;
	*"Operation not permitted"*) echo "clear the immutable attribute (lsattr, chattr -i) and rerun" ;;
	*"Permission denied"*) echo "make the tree writable by you (its owner: $(stat -c %U "$TREE")) and rerun" ;;
	*) echo "fix that and rerun" ;;
	esac
}

# apply_failed_patch PATCH... -> the patch quilt failed on (from push.log)
apply_failed_patch() {
	local name
	name=$(sed -n 's/^Applying patch \(.*\)$/\1/p' "$APPLY_RUN/push.log" | tail -n1)
	name=${name##*/}
	printf '%s\n' "${name:-$1}"
}

# apply_save_rejects SRCDIR PATCH: rerun PATCH on a copy of its files (as
# they are now) to keep its rejects in out/rejects/<tree>/<patch>/; prints
# the dir
apply_save_rejects() {
	local dir=$OUT_DIR/rejects/$TREE_NAME/$2
	patch_rejects "$1/$2" "$TREE" "$APPLY_RUN/rej" "$dir" > /dev/null
	printf '%s\n' "$dir"
}

# apply_patch_dir BRANCH -> the directory the patches of BRANCH's series are
# taken from: backports/BRANCH, or for --profile kabi a copy of it in which
# every patch with a kABI variant (backports/BRANCH/kabi/) is that variant
apply_patch_dir() {
	local dir=$DATA_DIR/backports/$1 p
	if [ "$PROFILE" = default ] || [ ! -d "$dir/kabi" ]; then
		printf '%s\n' "$dir"
		return 0
	fi
	if [ ! -d "$APPLY_RUN/kabi-$1" ]; then
		mkdir -p "$APPLY_RUN/kabi-$1.tmp"
		for p in "$dir"/*.patch "$dir"/kabi/*.patch; do
			[ ! -f "$p" ] || cp "$p" "$APPLY_RUN/kabi-$1.tmp/" || apply_fail "cannot copy $p to $APPLY_RUN"
		done
		mv "$APPLY_RUN/kabi-$1.tmp" "$APPLY_RUN/kabi-$1"
	fi
	printf '%s\n' "$APPLY_RUN/kabi-$1"
}

# apply_kabi_variant BRANCH PATCH: --profile kabi and PATCH has a kABI variant
apply_kabi_variant() {
	[ "$PROFILE" = kabi ] && [ -f "$DATA_DIR/backports/$1/kabi/$2" ]
}

# apply_retarget BRANCH PATCH...: rebuild the patches for this tree
# (lib/retarget.sh) into $APPLY_RT (out/<tree>.retarget/), which keeps its
# work files and log; 0 if all of them could be.  Run through kit_try.
apply_retarget() {
	local branch=$1
	shift
	retarget_run "$APPLY_RT" 1 "$TREE" "$branch" "$@" > "$APPLY_RUN/retarget.log" 2>&1
}

# apply_land_topic TOPIC BRANCH PATCH...: the topic's patches from the
# branch series, re-targeted if they do not apply; records each patch and
# the topic.  Its outcome in APPLY_LAND_RC: 0 landed, 1 not landed, 2 I/O
# error ($APPLY_RUN/io.err).  (A plain call: errexit stays in force.)
apply_land_topic() {
	local topic=$1 branch=$2 src p q failed rejdir bad
	shift 2
	APPLY_LAND_RC=1
	src=$(apply_patch_dir "$branch")
	for p in "$@"; do
		[ -f "$src/$p" ] ||
			apply_fail "backports/$branch/$p is listed in the series but missing; restore it (git checkout) or run make regen BRANCH=$branch"
	done
	if ! bad=$(patch_is_wellformed "${@/#/$src/}"); then
		p=${bad%%$'\t'*}
		for q in "$@"; do apply_record "$q" not-tried "not applied (topic $topic failed)"; done
		apply_topic_record "$topic" failed "failed: ${p#"$DATA_DIR"/} is not a well-formed patch (${bad#*$'\t'}); restore it (git checkout)"
		return 0
	fi
	apply_push_topic "$src" "$@"
	case $APPLY_PUSH_RC in
	0)	for p in "$@"; do
			if apply_kabi_variant "$branch" "$p"; then apply_record "$p" applied "applied (kABI variant)"; else apply_record "$p" applied "applied"; fi
		done
		apply_topic_record "$topic" applied "applied: $branch$([ "$PROFILE" = default ] || echo " ($PROFILE profile)")"
		APPLY_LAND_RC=0
		return 0 ;;
	2|3)	APPLY_LAND_RC=2
		return 0 ;;
	esac
	failed=$(apply_failed_patch "$1")
	rejdir=$(apply_save_rejects "$src" "$failed")
	for p in "$@"; do
		apply_kabi_variant "$branch" "$p" || continue
		for q in "$@"; do apply_record "$q" not-tried "not applied (topic $topic failed)"; done
		apply_topic_record "$topic" failed "failed: $failed does not apply at fuzz 0 (rejects in $rejdir); not re-targeted: the topic has kABI variants (backports/$branch/kabi/) and the recipes rebuild the default form; apply it without PROFILE=kabi or port the variant"
		return 0
	done
	progress "$topic: $failed does not apply at fuzz 0 to $TREE; re-targeting the topic from the semantic patches"
	apply_land_retargeted "$topic" "$branch" "$failed" "$rejdir" "$@"
}

# apply_land_retargeted TOPIC BRANCH FAILED REJDIR PATCH...: the topic
# re-targeted for the tree (retarget.sh) and pushed; else each patch and
# the topic recorded as failed, with the first reason and the rejects.
# APPLY_LAND_RC as apply_land_topic's.
apply_land_retargeted() {
	local topic=$1 branch=$2 failed=$3 rejdir=$4 p st why
	shift 4
	kit_try apply_retarget "$branch" "$@"
	if [ "$KIT_RC" -eq 0 ]; then
		apply_push_topic "$APPLY_RT" "$@"
		case $APPLY_PUSH_RC in
		0)	for p in "$@"; do
				st=$(result_get "$APPLY_RT/results.tsv" patch "$p" status)
				case $st in
				re-targeted|re-anchored) apply_record "$p" "$st" "$(result_get "$APPLY_RT/results.tsv" patch "$p" text) (out/$TREE_NAME/$p)" ;;
				upstream) apply_record "$p" upstream "already upstream" ;;
				*) apply_record "$p" applied "applied as-is" ;;
				esac
			done
			apply_topic_record "$topic" applied "applied: $branch (re-targeted)"
			APPLY_LAND_RC=0
			return 0 ;;
		2|3)	APPLY_LAND_RC=2
			return 0 ;;
		esac
		why="the re-targeted patches do not apply: $(sed -nE '/FAILED|does not apply/{p;q}' "$APPLY_RUN/push.log")"
	else
		why=$(apply_retarget_failure "$@")
	fi
	for p in "$@"; do
		if [ "$(result_get "$APPLY_RT/results.tsv" patch "$p" status)" = failed ]; then
			apply_record "$p" failed "$(result_get "$APPLY_RT/results.tsv" patch "$p" text)"
		else
			apply_record "$p" not-tried "not applied (topic $topic failed)"
		fi
	done
	if [ -d "$APPLY_RT/rejects" ]; then
		mkdir -p "$OUT_DIR/rejects/$TREE_NAME"
		cp -a "$APPLY_RT/rejects/." "$OUT_DIR/rejects/$TREE_NAME/"
	fi
	apply_topic_record "$topic" failed "failed: $failed does not apply at fuzz 0 (rejects in $rejdir) and re-targeting failed: $why (work files and log: out/$TREE_NAME.retarget/)"
}

# apply_retarget_failure PATCH... -> why re-targeting failed: the first
# failed patch's reason, else the last error of the re-targeting log
apply_retarget_failure() {
	local p why
	why=$(for p in "$@"; do
		[ "$(result_get "$APPLY_RT/results.tsv" patch "$p" status)" = failed ] || continue
		printf '%s: %s\n' "$p" "$(result_get "$APPLY_RT/results.tsv" patch "$p" text | sed -e 's/^failed: //' -e 's/; rejects in [^;]*$//')"
	done | sed -n 1p)
	[ -n "$why" ] || why=$(awk '/error:/ { l = $0 } END { sub(/^[^ ]*: error: /, "", l); print l }' "$APPLY_RUN/retarget.log")
	printf '%s\n' "$why"
}

on_interrupt_apply() {
	trap - INT TERM HUP
	restore_originals || true
	apply_fail "interrupted; $TREE restored"
}

# apply_publish: out/<tree-name>/ is the applied series as a quilt
# directory, with the apply's records
apply_publish() {
	local dest=$OUT_DIR/$TREE_NAME p
	[ -s "$STATE_SERIES" ] || return 0
	rm -rf "$dest.tmp"
	mkdir -p "$dest.tmp"
	{
		printf '# applied to %s (Linux %s) by mm-backport-kit\n' "$TREE" "$(kernel_version "$TREE")"
		cat "$STATE_SERIES"
	} > "$dest.tmp/series"
	for p in $(series_patches "$STATE_SERIES"); do
		cp "$STATE_PATCHES/$p" "$dest.tmp/$p"
	done
	cp "$STATE_RECORDS" "$dest.tmp/results.tsv"
	rm -rf "$dest"
	mv "$dest.tmp" "$dest"
}

# apply_missing -> for a tree already applied: the selected topics that are
# not applied, "topic<TAB>why"
apply_missing() {
	local t st
	for t in $APPLY_TOPICS; do
		st=$(result_get "$STATE_RECORDS" topic "$t" status)
		case $st in
		applied|nothing-to-do) ;;
		'') printf '%s\tnot selected when the tree was patched\n' "$t" ;;
		*) printf '%s\t%s\n' "$t" "$(result_get "$STATE_RECORDS" topic "$t" text)" ;;
		esac
	done
}

# apply_refuse_cache_tree: KDIR= is not a tree of the kit's cache of
# pristine trees (sealed: never written, not even probed); bad input
apply_refuse_cache_tree() {
	local here cache rest
	[ -n "$CACHE_DIR" ] && [ -d "$CACHE_DIR/trees" ] || return 0
	here=$(cd "$TREE" && pwd -P)
	cache=$(cd "$CACHE_DIR/trees" && pwd -P)
	[[ $here == "$cache"/* ]] || return 0
	rest=${here#"$cache"/}
	apply_fail "KDIR=$TREE is the kit's cached pristine tree of branch ${rest%%/*} (sealed: never written); apply to a copy of it: make apply BRANCH=${rest%%/*} (a scratch copy), or copy it (cp -a) and apply there" "$EXIT_USAGE"
}

# apply_stale_state: the kit's state says applied, but every file the
# series changed is its original again (taken out by hand): the stale
# state is dropped (nothing is lost: the tree holds every original) and
# the apply goes on.  Some of them only: refused (4), naming them.
apply_stale_state() {
	local states reverted
	states=$(state_file_states)
	reverted=$(sed -n 's/^original\t//p' <<< "$states")
	[ -n "$reverted" ] || return 1
	grep -q '^applied' <<< "$states" &&
		apply_fail "$TREE/${reverted%%$'\n'*} is its original again, but the kit's state says the series is applied (back to the original: $(paste -sd' ' <<< "$reverted")); take the rest out with make unapply, then make apply" "$EXIT_REFUSED"
	grep -q '^changed' <<< "$states" &&
		apply_fail "$TREE/$(sed -n 's/^changed\t//p' <<< "$states" | sed -n 1p) changed after the series was applied and the other files it changed are their originals again; undo that change or restore the original, then make unapply" "$EXIT_REFUSED"
	apply_say "$prog: $TREE: every file the series changed is its original again (taken out by hand); dropping the stale kit state and applying again"
	state_drop || apply_fail "cannot remove the stale kit state $STATE"
	return 0
}

# patches_count SERIES -> "1 patch", "N patches"
patches_count() {
	local n
	n=$(series_patches "$1" | wc -l)
	if [ "$n" -eq 1 ]; then echo "1 patch"; else echo "$n patches"; fi
}

# apply_rerun: the tree is applied already: nothing to do, or the topics
# it lacks named ("partial").  Its status in APPLY_STATUS.
apply_rerun() {
	local missing
	missing=$(apply_missing)
	if [ -z "$missing" ]; then
		info "$TREE: already applied ($(patches_count "$STATE_SERIES"); topics: $(apply_topics_with applied "$STATE_RECORDS")); nothing to do"
		APPLY_STATUS=$EXIT_NOTHING
		return 0
	fi
	apply_topic_lines "$STATE_RECORDS"
	apply_say "$prog: $TREE: partial: already applied without $(cut -f1 <<< "$missing" | paste -sd' ') ($(cut -f2 <<< "$missing" | sed 's/^failed: //' | join_lines)); to retry them: make unapply KDIR=$TREE, fix the cause, make apply"
	APPLY_STATUS=$EXIT_PARTIAL
}

# apply_plan: what each selected topic needs from the tree's plan: the
# carried patches (APPLY_CARRY[topic]) and the branch series they come from
# (APPLY_SRC[topic]); the other patches are recorded (not selected,
# upstream, n/a).  APPLY_FILES: every file the carried patches touch.
apply_plan() {
	local plan topic p v d src files
	declare -gA APPLY_CARRY=() APPLY_SRC=()
	APPLY_FILES=()
	plan=$(plan_tree "$TREE")
	while IFS=$'\t' read -r p v d; do
		topic=$(topic_of "$p")
		if [[ $'\n'$APPLY_TOPICS$'\n' != *$'\n'$topic$'\n'* ]]; then
			apply_record "$p" not-selected "not selected (TOPICS=$(printf '%s' "$APPLY_TOPICS" | paste -sd,))"
			continue
		fi
		case $v in
		carry) APPLY_CARRY[$topic]+="$p "; APPLY_SRC[$topic]=$d ;;
		upstream) apply_record "$p" upstream "already upstream: $d" ;;
		n/a) apply_record "$p" n/a "not applicable: $d" ;;
		*) apply_fail "plan: unknown decision '$v' for $p; report a kit bug" ;;
		esac
	done <<< "$plan"
	for topic in $APPLY_TOPICS; do
		[ -n "${APPLY_CARRY[$topic]:-}" ] || continue
		# every carried patch is there, in the series it is taken from (the
		# tree's own branch's was checked; another branch's too): named once
		src=$(apply_patch_dir "${APPLY_SRC[$topic]}")
		for p in ${APPLY_CARRY[$topic]}; do
			[ -f "$src/$p" ] ||
				apply_fail "backports/${APPLY_SRC[$topic]}/series names $p, but backports/${APPLY_SRC[$topic]}/$p does not exist; restore it (git checkout) or run make regen BRANCH=${APPLY_SRC[$topic]}"
		done
		# shellcheck disable=SC2086
		files=$(topic_files "$src" ${APPLY_CARRY[$topic]})
		for p in $files; do
			APPLY_FILES+=("$p")
		done
	done
}

# apply_require_plain_text FILE...: no touched file holds a CR or a NUL
# byte (CRLF line ends, UTF-16), which the patches cannot carry: patch
# would rewrite such a file (one grep for them all); else bad input (64)
apply_require_plain_text() {
	local f paths=() bad=() why
	for f in "$@"; do
		[ ! -f "$TREE/$f" ] || paths+=("$TREE/$f")
	done
	[ ${#paths[@]} -gt 0 ] || return 0
	while IFS= read -r -d '' f; do
		bad+=("${f#"$TREE/"}")
	done < <(grep -lZPa '[\x00\r]' -- "${paths[@]}")
	[ ${#bad[@]} -gt 0 ] || return 0
	why="has CRLF line ends"
	grep -qPa '\x00' -- "$TREE/${bad[0]}" && why="holds NUL bytes (UTF-16?)"
	apply_fail "$TREE/${bad[0]} $why, which the kit's patches (LF text) cannot carry$([ ${#bad[@]} -eq 1 ] || echo " (also: ${bad[*]:1})"); convert it to LF text (dos2unix) or restore it, and rerun; the tree is unchanged" "$EXIT_USAGE"
}

# apply_preflight FILE...: what must hold before the tree is touched:
# quilt, text the patches can carry, writable files, no local changes
# (unless FORCE=1), free space
apply_preflight() {
	local p
	command -v quilt >/dev/null ||
		apply_fail "quilt is not installed; install it (apt-get install quilt, or bin/deps as root)"
	apply_require_plain_text "$@"
	apply_require_writable "$@"
	if [ "$FORCE" != 1 ]; then
		p=$(apply_local_change "$@")
		[ -z "$p" ] ||
			apply_fail "$TREE/$p has local changes; commit or revert them first, or rerun with FORCE=1 to apply on top" "$EXIT_REFUSED"
	fi
	apply_require_space "$@"
}

# apply_topic TOPIC: lands one topic inside the transaction (or records
# why not); counts it in APPLY_LANDED or APPLY_FAILED
apply_topic() {
	local topic=$1 patches src problem='' p
	patches=${APPLY_CARRY[$topic]:-}
	if [ -z "$patches" ]; then
		apply_topic_record "$topic" nothing-to-do "nothing to do: upstream or not applicable"
		return 0
	fi
	src=$(apply_patch_dir "${APPLY_SRC[$topic]}")
	# shellcheck disable=SC2086
	for p in $(topic_files "$src" $patches); do
		problem=$(apply_file_problem "$src" "$patches" "$p")
		[ -z "$problem" ] || break
	done
	if [ -n "$problem" ]; then
		for p in $patches; do apply_record "$p" not-tried "not applied (topic $topic failed)"; done
		apply_topic_record "$topic" failed "failed: $problem"
		APPLY_FAILED=$((APPLY_FAILED + 1))
		return 0
	fi
	# shellcheck disable=SC2086
	apply_land_topic "$topic" "${APPLY_SRC[$topic]}" $patches
	case $APPLY_LAND_RC in
	0) APPLY_LANDED=$((APPLY_LANDED + 1)) ;;
	1) APPLY_FAILED=$((APPLY_FAILED + 1)) ;;
	*)	restore_originals || apply_fail "$(head -n1 "$APPLY_RUN/io.err") while applying $topic, and the roll-back failed too; rerun make apply or make unapply to finish it"
		trap - INT TERM HUP
		apply_fail "$(head -n1 "$APPLY_RUN/io.err") while applying $topic; the tree is unchanged; $(apply_io_fix)" ;;
	esac
}

# apply_commit: the transaction's end: rolled back when nothing landed (or
# --strict and a topic failed), else the records and the manifest written
# and the txn mark removed last
apply_commit() {
	if [ "$APPLY_LANDED" -eq 0 ] || { [ "$APPLY_FAILED" -gt 0 ] && [ "$STRICT" = 1 ]; }; then
		restore_originals || apply_fail "could not roll $TREE back; rerun make unapply to finish it (state: $STATE)"
		trap - INT TERM HUP
		apply_report
		apply_fail "$(apply_failure_summary); the tree is unchanged"
	fi
	{ state_save_records "$APPLY_RUN/records" &&
		state_write_manifest; } 2> "$APPLY_RUN/io.err" ||
		{ restore_originals || true; apply_fail "could not record the kit's state in $STATE ($(head -n1 "$APPLY_RUN/io.err")); the tree is unchanged"; }
	state_commit
	trap - INT TERM HUP
}

# apply_body: make apply (apply_frame's body): plan, check, then land each
# topic in one transaction
apply_body() {
	local topic
	kit_use retarget
	apply_refuse_cache_tree
	if state_is_applied && ! apply_stale_state; then
		apply_rerun
		return "$APPLY_STATUS"
	fi
	apply_check_series
	apply_plan
	if [ ${#APPLY_FILES[@]} -eq 0 ]; then
		apply_report
		info "$TREE: nothing to apply: every selected topic is already upstream or not applicable"
		return "$EXIT_NOTHING"
	fi
	apply_preflight "${APPLY_FILES[@]}"
	trap on_interrupt_apply INT TERM HUP
	state_begin apply 2> "$APPLY_RUN/io.err" ||
		{ state_drop 2>/dev/null || true; apply_fail "cannot write the kit's state in $STATE ($(head -n1 "$APPLY_RUN/io.err")); the tree is unchanged"; }
	printf '%s\n' "$PROFILE" | state_write profile
	rm -f "$APPLY_RT/compile.counts"
	APPLY_LANDED=0 APPLY_FAILED=0
	for topic in $APPLY_TOPICS; do
		apply_topic "$topic"
		[ "$APPLY_FAILED" -eq 0 ] || [ "$STRICT" != 1 ] || break
	done
	apply_commit
	apply_publish
	apply_report
	if [ "$APPLY_FAILED" -gt 0 ]; then
		info "$TREE: partial: applied topics $(apply_topics_with applied); failed: $(apply_topics_with failed) (the failed topics left no trace)"
		return "$EXIT_PARTIAL"
	fi
	info "$TREE: applied $(patches_count "$STATE_SERIES") (topics: $(apply_topics_with applied))"
}

# apply_failure_summary -> one line naming each failed topic and why
apply_failure_summary() {
	local t
	for t in $(result_names "$APPLY_RUN/records" topic failed); do
		printf '%s: %s\n' "$t" "$(result_get "$APPLY_RUN/records" topic "$t" text | sed 's/^failed: //')"
	done | join_lines
}

# apply_frame CMD: the frame of make apply, unapply and status (CMD) on the
# request's tree (request.sh: REQ_TREE, REQ_BRANCH, REQ_TOPICS,
# REQ_SERIES_PROFILE, REQ_STRICT, REQ_FORCE; REQ_RECORDS: a file the
# result records are copied to; the build target of a compile
# verification, REQ_VERIFY): the tree's locks, the recovery of an
# interrupted command, then CMD_body of CMD's module (apply.sh, unapply.sh,
# status.sh; loaded by the caller).  (A subshell: its traps, locks and
# globals are its own.)
# shellcheck disable=SC2030,SC2031  # TREE and BRANCH: this subshell's own
apply_frame() (
	local cmd=$1 rc=0
	declare -F "${cmd}_body" > /dev/null ||
		usage_error "unknown command '$cmd'; use apply, unapply or status (its module loaded)"
	TREE=$REQ_TREE BRANCH=$REQ_BRANCH
	STRICT=$REQ_STRICT FORCE=$REQ_FORCE PROFILE=$REQ_SERIES_PROFILE
	exec {APPLY_ERR}>&2
	case $PROFILE in default|kabi) ;; *) usage_error "unknown profile '$PROFILE'; set PROFILE= to default or kabi" ;; esac
	APPLY_TOPICS=$(check_topics "${REQ_TOPICS:-$(all_topics | paste -sd' ')}")
	state_init "$TREE"
	TREE_NAME=$(tree_name "$TREE")
	APPLY_RT=$OUT_DIR/$TREE_NAME.retarget
	apply_clean_stale_tmp
	# named after this command's pid: what a killed command left is removed
	# by the next one
	APPLY_RUN=$(mktemp -d "${TMPDIR:-/tmp}/mmbk-apply.$$.XXXXXX" 2>/dev/null) ||
		usage_error "cannot make a work directory in TMPDIR=${TMPDIR:-/tmp} (missing, full or not writable); set TMPDIR= to a writable directory"
	# the work directory and the write probes go on every exit; a signal
	# before a transaction (whose own traps restore the tree) is an exit
	trap 'rm -rf -- "$APPLY_RUN" "$TREE/$STATE_NAME.probe" "$(state_probe)"' EXIT
	trap 'apply_fail "interrupted (SIGINT); nothing was changed" 130' INT
	trap 'apply_fail "interrupted (SIGTERM); nothing was changed" 143' TERM
	trap 'apply_fail "interrupted (SIGHUP); nothing was changed" 129' HUP
	: > "$APPLY_RUN/records"
	if [ "$cmd" = status ]; then lock_tree "$TREE" shared; else apply_recover; fi
	if [ "$cmd" != unapply ] && ! tree_is_branch "$TREE"; then
		apply_require_known_code
	fi
	kit_try "${cmd}_body"
	rc=$KIT_RC
	if [ "$cmd" != status ] && state_in_txn; then
		apply_stopped_in_txn "$cmd" "$rc"
	fi
	[ -z "$REQ_RECORDS" ] || cp "$APPLY_RUN/records" "$REQ_RECORDS"
	return "$rc"
)

# apply_clean_stale_tmp: the work directories in TMPDIR of this user's
# commands that were killed (mmbk-apply.PID.*, plan.PID.*: PID no longer
# runs) are removed
apply_clean_stale_tmp() {
	local d pid stale=()
	for d in "${TMPDIR:-/tmp}"/mmbk-apply.*.?????? "${TMPDIR:-/tmp}"/plan.*.??????; do
		pid=${d%.*}
		pid=${pid##*.}
		if [ -d "$d" ] && [ -O "$d" ] && [[ $pid =~ ^[0-9]+$ ]] && [ ! -d "/proc/$pid" ]; then
			stale+=("$d")
		fi
	done
	[ ${#stale[@]} -eq 0 ] || rm -rf -- "${stale[@]}"
}

# apply_recover: an apply or unapply locks the tree and its out/ files,
# refuses a tree the kit cannot own, and finishes an interrupted command
# first (APPLY_RECOVERED: apply, unapply, drop or nothing)
# shellcheck disable=SC2031  # apply_frame's subshell globals, read in it
apply_recover() {
	local why
	lock_tree "$TREE"
	# out/<tree name>/, .retarget/ and rejects/<tree name>/ are this
	# command's: another tree of the same name waits
	mkdir -p "$OUT_DIR" || die "cannot make $OUT_DIR"
	lock_tree "$OUT_DIR/$TREE_NAME.lock"
	why=$(state_problem)
	[ -z "$why" ] || apply_fail "$TREE was $why"
	why=$(state_owner_problem)
	[ -z "$why" ] || ! state_in_txn || apply_fail "$why" "$EXIT_REFUSED"
	if state_in_txn; then apply_recover_check; fi
	APPLY_RECOVERED=$(state_recover 2> "$APPLY_RUN/io.err") ||
		apply_fail "could not recover $TREE from $STATE ($(head -n1 "$APPLY_RUN/io.err")); see the files left there"
	case $APPLY_RECOVERED in
	unapply) apply_say "$prog: $TREE: an earlier unapply was interrupted; finishing it" ;;
	apply) apply_say "$prog: $TREE: an earlier apply was interrupted; restoring the tree from the kit's journal" ;;
	drop) apply_say "$prog: $TREE: an earlier command was interrupted while it removed the kit's state; finishing it" ;;
	esac
}

# apply_recover_check: the interrupted transaction is one this kit wrote
# for this tree (else refused, never applied), and recovering it throws no
# change away: every file it would overwrite or delete holds what the
# transaction can have left (else refused with 4 naming it; FORCE=1
# recovers anyway and names what it overwrites)
# shellcheck disable=SC2031  # apply_frame's subshell globals, read in it
apply_recover_check() {
	local what why bad
	what=$(state_txn)
	why=$(state_foreign)
	[ -z "$why" ] ||
		apply_fail "$STATE holds an interrupted $what that this kit did not write for this tree ($why); it is not applied: if $TREE is as you want it, remove $STATE by hand" "$EXIT_REFUSED"
	mkdir -p "$APPLY_RUN/replay"
	bad=$(state_unexpected "$APPLY_RUN/replay")
	[ -n "$bad" ] || return 0
	if [ "$FORCE" != 1 ]; then
		apply_fail "$TREE/${bad%%$'\n'*} changed after the $what was interrupted (it is neither its original nor a state the $what left); recovering the tree would overwrite it: save or undo that change and rerun, or rerun with FORCE=1 to restore the original and lose it" "$EXIT_REFUSED"
	fi
	apply_say "$prog: warning: FORCE=1: recovering the interrupted $what overwrites $(join_lines ', ' <<< "$bad") (changed after the $what was interrupted; those changes are lost)"
}

# apply_stopped_in_txn CMD STATUS: CMD stopped inside its transaction on a
# failure it did not expect (errexit): the tree goes back at once, the way
# the next command would take it back, from the kit's journal
# shellcheck disable=SC2031  # apply_frame's subshell globals, read in it
apply_stopped_in_txn() {
	local how
	how=$(state_recover 2> "$APPLY_RUN/io.err") ||
		apply_fail "$1 stopped inside its transaction (status $2) and $TREE could not be restored from $STATE ($(head -n1 "$APPLY_RUN/io.err")); rerun make unapply to finish it"
	case $how in
	apply) apply_fail "apply stopped inside its transaction (status $2; see above); $TREE restored from the kit's journal: the tree is unchanged" ;;
	*) apply_fail "unapply stopped inside its transaction (status $2; see above); the unapply of $TREE was finished from the kit's journal" ;;
	esac
}

# apply_require_known_code: a tree between the supported branches is
# supported only if the code the kit changes is there (detect_tree does not
# say unknown)
# shellcheck disable=SC2031  # TREE: apply_frame's, which calls this
apply_require_known_code() {
	local unknown='' detected name verdict why
	detected=$(detect_tree "$TREE")
	while IFS=$'\t' read -r name verdict why; do
		[ "$verdict" != unknown ] || { unknown=$why; break; }
	done <<< "$detected"
	[ -z "$unknown" ] ||
		apply_fail "KDIR=$TREE is Linux $(kernel_version "$TREE"), an unsupported branch (${unknown%%: code not found} not found); supported branches: $SUPPORTED_BRANCHES" "$EXIT_USAGE"
}

# apply_run: make apply of the request's tree (in apply_frame)
apply_run() {
	apply_frame apply
}
