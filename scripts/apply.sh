#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# apply.sh apply|unapply|status [TREE | --kdir DIR | --branch B]
#          [--topics LIST] [--profile default|kabi] [--strict] [--force]
#          [--report FILE]
# Apply the kit's series to a kernel tree one topic at a time
# (backports/topics.table), each topic atomically; take it out again; or
# tell where a tree stands.
#
# The series a tree gets is planned from its code (scripts/plan.sh when
# present): per upstream patch "carry" (from a branch series), "upstream"
# (the tree has the change) or "n/a".  Each topic's patches are pushed with
# quilt at fuzz 0; a topic that does not apply is rolled back and re-targeted
# for the tree from the semantic patches (scripts/retarget.sh); a topic that
# still cannot land leaves no trace and the other topics land anyway (exit 3,
# "partial"), unless --strict asks for all or nothing.
# --profile kabi: the series for trees with a frozen module/tracepoint
# interface: a patch with a kABI variant (backports/<b>/kabi/<patch>) is
# applied in that form ("applied (kABI variant)"); such a topic is not
# re-targeted (the recipes rebuild the default form).
#
# All kit state lives in TREE/.mm-backport-kit/ while the series is applied:
#   orig/      the original of every file the series changed (symlinks and
#              modes kept), taken before the file first changes; .absent
#              lists files the series created
#   pc/ series patches/   quilt's state, the applied series and its patches
#   manifest   what each changed file looked like right after the apply:
#              unapply refuses to run over later edits (--force discards them)
#   topics report branch profile   per topic / per patch results, source
#              branch, the profile (default or kabi)
#   txn        present while an apply or unapply runs; the next command
#              finishes an interrupted unapply and rolls back an interrupted
#              apply, both by renaming orig/ back (no free space needed)
#   journal/   during one topic: its files, quilt state and series as they
#              were before it, to roll that topic alone back
# Every command locks the tree (flock on its top directory).
#
# Exit codes: 0 done, 1 error (tree unchanged), 2 nothing to do,
# 3 partial (some topics applied, the others failed and left no trace).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

STATE_NAME=$KIT_STATE
# KiB of slack on top of what the journal and quilt's backups need
SPACE_SLACK=1024

# ---- output ---------------------------------------------------------------
# messages go to the stderr the script started with, also from traps that
# run while a command's output is redirected to a log
exec {ERR}>&2

say() { printf '%s\n' "$*" >&$ERR; }

fail() {		# fail MESSAGE: one error line on the saved stderr, exit 1
	printf '%s: error: %s\n' "$prog" "$*" >&$ERR
	exit 1
}

# report NAME STATUS: one line per upstream patch, printed at the end (so
# that an error before it stays a single line)
report() {
	printf '%s\t%s\n' "$1" "$2" >> "$RUN_DIR/report"
}

# flush_reports: the report lines in the order of ./series
flush_reports() {
	local name
	for name in $(series_patches "$DATA_DIR/series"); do
		awk -F'\t' -v n="$name" '$1 == n { printf "%-64s %s\n", $1, $2 }' "$RUN_DIR/report"
	done >&$ERR
}

# ---- the plan: what each upstream patch is for this tree -------------------
# plan_tree -> "PATCH<TAB>carry<TAB>BRANCH" | "PATCH<TAB>upstream<TAB>WHY" |
# "PATCH<TAB>n/a<TAB>REASON" lines in ./series order
plan_tree() {
	if [ -x "$KIT_DIR/scripts/plan.sh" ]; then
		"$KIT_DIR/scripts/plan.sh" "$TREE" | awk '{ p = $1; v = $2; $1 = $2 = ""; sub(/^ +/, ""); printf "%s\t%s\t%s\n", p, v, $0 }'
		return
	fi
	plan_by_version
}

# plan_by_version: the branch series of the tree's version (or the nearest
# older one), less what scripts/detect.sh finds already upstream
plan_by_version() {
	local branch name verdict why detected carried reason
	branch=$(tree_branch "$TREE") || exit 1
	detected=$("$KIT_DIR/scripts/detect.sh" "$TREE") || exit 1
	carried=$(series_patches "$(series_file "$branch")")
	for name in $(series_patches "$DATA_DIR/series"); do
		read -r verdict why < <(printf '%s\n' "$detected" |
			awk -v n="$name" '$1 == n { $1 = ""; print; found = 1 } END { if (!found) print "absent" }')
		reason=$(sed -n "s/^# n\/a: $name: //p" "$(series_file "$branch")" | sed -n 1p)
		if [ "$verdict" = present ]; then
			printf '%s\tupstream\t%s\n' "$name" "the tree has the change (backports/detect.table)"
		elif grep -qxF "$name" <<< "$carried"; then
			printf '%s\tcarry\t%s\n' "$name" "$branch"
		elif [ -n "$reason" ]; then
			printf '%s\tn/a\t%s\n' "$name" "$reason"
		else
			printf '%s\tmissing\tnot carried by backports/%s\n' "$name" "$branch"
		fi
	done
}

# ---- files and space ------------------------------------------------------
# topic_files PATCHDIR PATCH... -> files those patches touch
topic_files() {
	local dir=$1 p
	shift
	for p in "$@"; do
		patch_files "$dir/$p"
	done | sort -u
}

# file_sig PATH -> what a tree entry is: "file <sha256>", "link <target>" or "absent"
file_sig() {
	if [ -L "$1" ]; then
		printf 'link %s\n' "$(readlink "$1")"
	elif [ -f "$1" ]; then
		printf 'file %s\n' "$(sha256sum < "$1" | cut -d' ' -f1)"
	else
		printf 'absent\n'
	fi
}

free_kib() {		# free_kib DIR -> KiB available to us on DIR's file system
	df -Pk "$1" | awk 'NR == 2 { print $4 }'
}

# require_space FILE...: the journal (orig + one topic's copy), quilt's
# backups and the patched files need about four times the touched files
require_space() {
	local need=0 f have
	for f in "$@"; do
		if [ -f "$TREE/$f" ]; then need=$((need + $(stat -c %s "$TREE/$f") / 1024 + 1)); fi
	done
	need=$((need * 4 + SPACE_SLACK))
	have=$(free_kib "$TREE")
	[ "$have" -ge "$need" ] ||
		fail "not enough free space on the file system of $TREE for the apply journal (need $need KiB, $have KiB free); free some space and rerun; the tree is unchanged"
}

# out_of_space: true when the tree's file system is (nearly) full, to name
# that as the cause of a failed step
out_of_space() {
	[ "$(free_kib "$TREE")" -lt "$SPACE_SLACK" ]
}

# ---- checks before anything changes ----------------------------------------
# require_writable FILE...: permission bits are checked, not access(2), so
# that a tree marked read-only is respected even by root; a read-only mount
# is named as such
require_writable() {
	local f d bad='' err
	if ! err=$(touch "$TREE/$STATE_NAME.probe" 2>&1); then
		case $err in
		*"Read-only file system"*)
			fail "$TREE is on a read-only file system; remount it read-write or apply to a copy of the tree" ;;
		*) fail "cannot write in $TREE ($err); make the tree writable (chmod u+w) or apply to a copy" ;;
		esac
	fi
	rm -f "$TREE/$STATE_NAME.probe"
	for f in "$@"; do
		d=$(dirname "$TREE/$f")
		[ -d "$d" ] || continue
		if [ -e "$TREE/$f" ] && [ -z "$(find "$TREE/$f" -maxdepth 0 -perm -u+w)" ]; then
			bad=$f
		elif [ -z "$(find "$d" -maxdepth 0 -perm -u+w)" ]; then
			bad=$(dirname "$f")/
		fi
		[ -z "$bad" ] || break
	done
	if [ -z "$bad" ] && [ -z "$(find "$TREE" -maxdepth 0 -perm -u+w)" ]; then
		bad=.
	fi
	[ -z "$bad" ] ||
		fail "$TREE/$bad is read-only; make the tree writable (chmod -R u+w) or apply to a copy"
}

# local_change FILE... -> the first touched file with local changes (git
# trees: git status; a plain tree of the version of a cached tree: compared
# with it), or nothing
local_change() {
	local f pristine branch
	if git -C "$TREE" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$TREE" && git --no-optional-locks status --porcelain -- "$@") |
			awk '!n++ { print $NF }'
		return
	fi
	[ -n "$CACHE_DIR" ] || return 0
	branch=$(tree_branch "$TREE") || exit 1
	pristine=$(pristine_dir "$branch")
	[ -f "$pristine/Makefile" ] || return 0
	[ "$(kernel_version "$pristine")" = "$(kernel_version "$TREE")" ] || return 0
	[ "$(cd "$pristine" && pwd -P)" != "$(cd "$TREE" && pwd -P)" ] || return 0
	for f in "$@"; do
		[ -e "$pristine/$f" ] && [ -e "$TREE/$f" ] || continue
		if ! cmp -s "$pristine/$f" "$TREE/$f"; then
			printf '%s\n' "$f"
			return
		fi
	done
}

# file_problem PATCHDIR PATCHES FILE -> why the series cannot change FILE,
# or nothing
file_problem() {
	local dir=$1 patches=$2 f=$3 p
	if [ ! -e "$TREE/$f" ] && [ ! -L "$TREE/$f" ]; then
		for p in $patches; do
			if grep -qxF -- "--- a/$f" "$dir/$p"; then
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

# ---- the transaction ------------------------------------------------------
txn_begin() {		# txn_begin apply|unapply
	mkdir -p "$STATE/orig" || fail "cannot create $STATE; the tree is unchanged"
	[ -f "$STATE/orig/.absent" ] || : > "$STATE/orig/.absent"
	printf '%s %s %s\n' "$1" "$$" "$(date -u +%FT%TZ)" > "$STATE/txn" ||
		{ rm -rf "$STATE"; fail "cannot write in $STATE (file system full?); the tree is unchanged"; }
}

# save_originals FILE...: make sure orig/ holds FILE as it is before its
# first change (a copy published by rename, so a kill leaves no half file)
save_originals() {
	local f o=$STATE/orig
	for f in "$@"; do
		[ -e "$o/$f" ] || [ -L "$o/$f" ] || grep -qxF -- "$f" "$o/.absent" && continue
		if [ -e "$TREE/$f" ] || [ -L "$TREE/$f" ]; then
			mkdir -p "$o/$(dirname "$f")" &&
				cp -a "$TREE/$f" "$o/$f.kit-tmp" 2>/dev/null &&
				mv "$o/$f.kit-tmp" "$o/$f" || return 1
		else
			printf '%s\n' "$f" >> "$o/.absent" || return 1
		fi
	done
}

# stray_files -> leftovers of a killed patch/quilt run: patch's temporary
# outputs next to a touched file, quilt's temporary directories at the top,
# our own .kit-tmp/.kit-restore files; only those newer than the txn mark
stray_files() {
	local f list=
	[ -f "$STATE/txn" ] || return 0
	list=$( { [ -d "$STATE/orig" ] && (cd "$STATE/orig" && find . ! -type d ! -name .absent -printf '%P\n');
		  cat "$STATE/orig/.absent" 2>/dev/null; } | sed 's/\.kit-tmp$//' | sort -u)
	for f in $list; do
		find "$TREE/$(dirname "$f")" -maxdepth 1 -newer "$STATE/txn" \
			\( -name "$(basename "$f").o??????" -o -name "$(basename "$f").kit-restore" \
			   -o -name "$(basename "$f").kit-tmp" \) -print 2>/dev/null
	done
	find "$TREE" -maxdepth 1 -type d -name 'quilt??????' -newer "$STATE/txn" -print 2>/dev/null
	return 0
}

# restore_originals: put every original back by rename, delete what the
# series created, remove stray temporary files, drop the state.  Used to roll
# back an apply and to do an unapply; safe to rerun after being killed.
restore_originals() {
	local o=$STATE/orig f
	while IFS= read -r f; do
		[ -n "$f" ] && rm -rf -- "$f"
	done < <(stray_files)
	if [ -d "$o" ]; then
		while IFS= read -r f; do
			case $f in *.kit-tmp) rm -f -- "$o/$f"; continue ;; esac
			mkdir -p "$TREE/$(dirname "$f")"
			mv -f -- "$o/$f" "$TREE/$f" || return 1
		done < <(cd "$o" && find . ! -type d ! -name .absent -printf '%P\n')
		while IFS= read -r f; do
			[ -z "$f" ] || rm -f -- "$TREE/$f"
		done < "$o/.absent"
	fi
	rm -rf "$STATE"
}

# recover: finish what a killed apply or unapply left behind
recover() {
	local what
	[ -d "$STATE" ] || return 0
	if [ -f "$STATE/txn" ]; then
		what=$(cut -d' ' -f1 "$STATE/txn")
		if [ "$what" = unapply ]; then
			say "$prog: $TREE: an earlier unapply was interrupted; finishing it"
		else
			say "$prog: $TREE: an earlier apply was interrupted; restoring the tree from the kit's journal"
		fi
		restore_originals || fail "could not restore $TREE from $STATE/orig; see the files left there"
		RECOVERED=$what
	elif [ ! -f "$STATE/manifest" ]; then
		if [ -s "$STATE/pc/applied-patches" ]; then
			fail "$TREE was patched by an older mm-backport-kit; take it out with: cd $TREE && QUILT_PC=$STATE_NAME/pc QUILT_PATCHES=$STATE_NAME/patches QUILT_SERIES=$STATE_NAME/series quilt pop -a && rm -rf $STATE_NAME"
		fi
		rm -rf "$STATE"		# killed before anything was journalled
	fi
}

is_applied() {
	[ -f "$STATE/manifest" ] && [ ! -f "$STATE/txn" ]
}

# ---- one topic --------------------------------------------------------------
quilt_in() {		# quilt_in ARGS: quilt on the kit's state in TREE
	(cd "$TREE" && QUILT_PC=$STATE_NAME/pc QUILT_PATCHES=$STATE_NAME/patches \
		QUILT_SERIES=$STATE_NAME/series QUILTRC=/dev/null quilt "$@")
}

# snapshot FILE...: the topic's files, quilt state and series before it
snapshot() {
	local j=$STATE/journal f
	rm -rf "$j"
	mkdir -p "$j/pre" && : > "$j/pre.absent" || return 1
	for f in "$@"; do
		if [ -e "$TREE/$f" ]; then
			mkdir -p "$j/pre/$(dirname "$f")" && cp -a "$TREE/$f" "$j/pre/$f" 2>/dev/null || return 1
		else
			printf '%s\n' "$f" >> "$j/pre.absent" || return 1
		fi
	done
	if [ -d "$STATE/pc" ]; then cp -a "$STATE/pc" "$j/pc.pre" 2>/dev/null || return 1; fi
	if [ -f "$STATE/series" ]; then cp "$STATE/series" "$j/series.pre" 2>/dev/null || return 1; fi
	touch "$j/complete"
}

# rollback_topic PATCH...: back to the snapshot (renames and deletions only)
rollback_topic() {
	local j=$STATE/journal f p
	[ -f "$j/complete" ] || { rm -rf "$j"; return 0; }
	while IFS= read -r f; do
		mv -f -- "$j/pre/$f" "$TREE/$f" || return 1
	done < <(cd "$j/pre" && find . ! -type d -printf '%P\n')
	while IFS= read -r f; do
		[ -z "$f" ] || rm -f -- "$TREE/$f"
	done < "$j/pre.absent"
	rm -rf "$STATE/pc"
	if [ -d "$j/pc.pre" ]; then mv "$j/pc.pre" "$STATE/pc"; fi
	rm -f "$STATE/series"
	if [ -f "$j/series.pre" ]; then mv "$j/series.pre" "$STATE/series"; fi
	for p in "$@"; do rm -f "$STATE/patches/$p"; done
	rm -rf "$j"
}

# push_topic SRCDIR PATCH...: journal, then quilt push of the patches (taken
# from SRCDIR); on failure the topic is rolled back and the quilt log is in
# $RUN_DIR/push.log.  Returns 0 applied, 1 did not apply, 2 no space/IO.
push_topic() {
	local src=$1 p files
	shift
	files=$(topic_files "$src" "$@")
	# shellcheck disable=SC2086
	if ! save_originals $files || ! snapshot $files; then
		rollback_topic "$@" || return 3
		return 2
	fi
	mkdir -p "$STATE/patches"
	for p in "$@"; do
		cp "$src/$p" "$STATE/patches/$p" 2>/dev/null && printf '%s\n' "$p" >> "$STATE/series" 2>/dev/null || {
			rollback_topic "$@" || return 3
			return 2
		}
	done
	if quilt_in push -a --fuzz=0 > "$RUN_DIR/push.log" 2>&1; then
		rm -rf "$STATE/journal"
		return 0
	fi
	rollback_topic "$@" || return 3
	if out_of_space; then return 2; fi
	return 1
}

# failed_patch PATCH... -> the patch quilt failed on (from push.log)
failed_patch() {
	local name
	name=$(sed -n 's/^Applying patch \(.*\)$/\1/p' "$RUN_DIR/push.log" | tail -n1)
	name=${name##*/}
	printf '%s\n' "${name:-$1}"
}

# save_rejects SRCDIR PATCH: rerun PATCH on a copy of its files (as they are
# now) to keep its rejects in out/rejects/<tree>/<patch>/; prints the dir
save_rejects() {
	local dir=$OUT_DIR/rejects/$TREE_NAME/$2
	patch_rejects "$1/$2" "$TREE" "$RUN_DIR/rej" "$dir" > /dev/null
	printf '%s\n' "$dir"
}

# retarget_topic BRANCH PATCH...: rebuild the patches for this tree with
# scripts/retarget.sh (into $RUN_DIR/rt/<tree>/); 0 if all of them could be
retarget_topic() {
	local branch=$1 rc=0
	shift
	rm -rf "$RUN_DIR/rt"
	MMBK_OUT=$RUN_DIR/rt "$KIT_DIR/scripts/retarget.sh" "$TREE" "$branch" "$@" \
		> "$RUN_DIR/retarget.log" 2>&1 || rc=$?
	RT_DIR=$RUN_DIR/rt/$TREE_NAME
	return $rc
}

# retarget_status PATCH -> its line in the re-targeting status
retarget_status() {
	awk -F'\t' -v n="$1" '$1 == n { print $2 }' "$RT_DIR/status" 2>/dev/null
}

# patch_dir BRANCH -> the directory the patches of BRANCH's series are taken
# from: backports/BRANCH, or for --profile kabi a copy of it in which every
# patch with a kABI variant (backports/BRANCH/kabi/) is that variant
patch_dir() {
	local dir=$DATA_DIR/backports/$1 p
	if [ "$PROFILE" = default ] || [ ! -d "$dir/kabi" ]; then
		printf '%s\n' "$dir"
		return 0
	fi
	if [ ! -d "$RUN_DIR/kabi-$1" ]; then
		mkdir -p "$RUN_DIR/kabi-$1.tmp"
		for p in "$dir"/*.patch "$dir"/kabi/*.patch; do
			[ ! -f "$p" ] || cp "$p" "$RUN_DIR/kabi-$1.tmp/" || fail "cannot copy $p to $RUN_DIR"
		done
		mv "$RUN_DIR/kabi-$1.tmp" "$RUN_DIR/kabi-$1"
	fi
	printf '%s\n' "$RUN_DIR/kabi-$1"
}

# kabi_variant BRANCH PATCH: --profile kabi and PATCH has a kABI variant
kabi_variant() {
	[ "$PROFILE" = kabi ] && [ -f "$DATA_DIR/backports/$1/kabi/$2" ]
}

# land_topic TOPIC BRANCH PATCH...: the topic's patches from the branch
# series, re-targeted if they do not apply; reports each patch and records
# the topic's fate in $RUN_DIR/topics.  0 landed, 1 not landed, 2 no space
land_topic() {
	local topic=$1 branch=$2 src rc=0 p q st failed rejdir why
	shift 2
	src=$(patch_dir "$branch")
	for p in "$@"; do
		[ -f "$src/$p" ] ||
			fail "backports/$branch/$p is listed in the series but missing; restore it (git checkout) or run make regen BRANCH=$branch"
	done
	push_topic "$src" "$@" || rc=$?
	case $rc in
	0)	for p in "$@"; do
			if kabi_variant "$branch" "$p"; then report "$p" "applied (kABI variant)"; else report "$p" "applied"; fi
		done
		printf '%s\tapplied\t%s%s\n' "$topic" "$branch" "$([ "$PROFILE" = default ] || echo " ($PROFILE profile)")" >> "$RUN_DIR/topics"
		return 0 ;;
	2)	return 2 ;;
	3)	return 3 ;;
	esac
	failed=$(failed_patch "$1")
	rejdir=$(save_rejects "$src" "$failed")
	for p in "$@"; do
		kabi_variant "$branch" "$p" || continue
		for q in "$@"; do report "$q" "not applied (topic $topic failed)"; done
		printf '%s\tfailed\t%s does not apply at fuzz 0 (rejects in %s); not re-targeted: the topic has kABI variants (backports/%s/kabi/) and the recipes rebuild the default form; apply it without PROFILE=kabi or port the variant\n' \
			"$topic" "$failed" "$rejdir" "$branch" >> "$RUN_DIR/topics"
		return 1
	done
	progress "$topic: $failed does not apply at fuzz 0 to $TREE; re-targeting the topic from the semantic patches"
	if retarget_topic "$branch" "$@"; then
		rc=0
		push_topic "$RT_DIR" "$@" || rc=$?
		case $rc in
		0)	for p in "$@"; do
				st=$(retarget_status "$p")
				case $st in
				re-targeted*|re-anchored*) report "$p" "$st (out/$TREE_NAME/$p)" ;;
				*) report "$p" "applied as-is" ;;
				esac
			done
			printf '%s\tapplied\t%s (re-targeted)\n' "$topic" "$branch" >> "$RUN_DIR/topics"
			return 0 ;;
		2|3)	return $rc ;;
		esac
		why="the re-targeted patches do not apply: $(grep -E 'FAILED|does not apply' "$RUN_DIR/push.log" | sed -n 1p)"
	else
		why=$(awk -F'\t' '$2 ~ /^failed/ && !n++ { sub(/^failed: /, "", $2); sub(/; rejects in [^;]*$/, "", $2); print $1 ": " $2 }' "$RT_DIR/status" 2>/dev/null)
		[ -n "$why" ] || why="scripts/retarget.sh failed: $(grep 'error:' "$RUN_DIR/retarget.log" | tail -n1)"
	fi
	for p in "$@"; do
		st=$(retarget_status "$p")
		st=${st//$RT_DIR\/rejects/$OUT_DIR\/rejects\/$TREE_NAME}
		case $st in
		failed*) report "$p" "$st" ;;
		*) report "$p" "not applied (topic $topic failed)" ;;
		esac
	done
	if [ -d "$RT_DIR/rejects" ]; then
		mkdir -p "$OUT_DIR/rejects/$TREE_NAME"
		cp -a "$RT_DIR/rejects/." "$OUT_DIR/rejects/$TREE_NAME/"
	fi
	printf '%s\tfailed\t%s does not apply at fuzz 0 (rejects in %s) and re-targeting failed: %s\n' \
		"$topic" "$failed" "$rejdir" "$why" >> "$RUN_DIR/topics"
	return 1
}

# ---- commands -------------------------------------------------------------
# write_manifest: the signature of every file the series changed
write_manifest() {
	local f
	while IFS= read -r f; do
		printf '%s\t%s\n' "$f" "$(file_sig "$TREE/$f")"
	done < <({ (cd "$STATE/orig" && find . ! -type d ! -name .absent -printf '%P\n');
		   cat "$STATE/orig/.absent"; } | sort -u) > "$STATE/manifest.tmp"
	mv "$STATE/manifest.tmp" "$STATE/manifest"
}

# changed_since_apply -> the first file whose content differs from the manifest
changed_since_apply() {
	local f sig
	while IFS=$'\t' read -r f sig; do
		if [ "$(file_sig "$TREE/$f")" != "$sig" ]; then
			printf '%s\n' "$f"
			return
		fi
	done < "$STATE/manifest"
}

on_interrupt() {
	trap - INT TERM HUP
	restore_originals || true
	fail "interrupted; $TREE restored"
}

# publish_out: out/<tree-name>/ is the applied series as a quilt directory
publish_out() {
	local dest=$OUT_DIR/$TREE_NAME p
	[ -s "$STATE/series" ] || return 0
	rm -rf "$dest.tmp"
	mkdir -p "$dest.tmp"
	{
		printf '# applied to %s (Linux %s) by mm-backport-kit\n' "$TREE" "$(kernel_version "$TREE")"
		cat "$STATE/series"
	} > "$dest.tmp/series"
	for p in $(series_patches "$STATE/series"); do
		cp "$STATE/patches/$p" "$dest.tmp/$p"
	done
	cp "$STATE/report" "$dest.tmp/status"
	cp "$STATE/topics" "$dest.tmp/topics"
	rm -rf "$dest"
	mv "$dest.tmp" "$dest"
}

do_apply() {
	local plan topics topic p v d patches branch files all_files=() problem
	local landed=0 failed=0 rc
	recover
	if is_applied; then
		info "$TREE: already applied ($(series_patches "$STATE/series" | wc -l) patches; topics: $(awk -F'\t' '$2 == "applied" { print $1 }' "$STATE/topics" | paste -sd' ')); nothing to do"
		return 2
	fi
	plan=$(plan_tree) || exit 1
	topics=$(check_topics "${TOPICS:-$(all_topics | paste -sd' ')}") || exit 1
	: > "$RUN_DIR/topics"
	: > "$RUN_DIR/report"
	# what each topic needs; the source branch of the carried patches
	declare -A CARRY=()
	declare -A SRC=()
	while IFS=$'\t' read -r p v d; do
		topic=$(topic_of "$p")
		if ! grep -qxF "$topic" <<< "$topics"; then
			report "$p" "not selected (TOPICS=$(printf '%s' "$topics" | paste -sd,))"
			continue
		fi
		case $v in
		carry) CARRY[$topic]+="$p "; SRC[$topic]=$d ;;
		upstream) report "$p" "already upstream" ;;
		n/a) report "$p" "not applicable: $d" ;;
		*) report "$p" "missing: $d"; CARRY[$topic]+="" ;;
		esac
	done <<< "$plan"
	for topic in $topics; do
		[ -n "${CARRY[$topic]:-}" ] || continue
		# shellcheck disable=SC2086
		files=$(topic_files "$(patch_dir "${SRC[$topic]}")" ${CARRY[$topic]})
		for p in $files; do all_files+=("$p"); done
	done
	if [ ${#all_files[@]} -eq 0 ]; then
		flush_reports
		info "$TREE: nothing to apply: every selected topic is already upstream or not applicable"
		return 2
	fi
	command -v quilt >/dev/null ||
		fail "quilt is not installed; install it (apt-get install quilt, or scripts/deps.sh as root)"
	require_writable "${all_files[@]}"
	if [ "$FORCE" != 1 ]; then
		p=$(local_change "${all_files[@]}")
		[ -z "$p" ] ||
			fail "$TREE/$p has local changes; commit or revert them first, or rerun with FORCE=1 to apply on top"
	fi
	require_space "${all_files[@]}"

	trap on_interrupt INT TERM HUP
	txn_begin apply
	printf '%s\n' "$(tree_branch "$TREE")" > "$RUN_DIR/branch"
	printf '%s\n' "$PROFILE" > "$RUN_DIR/profile"
	for topic in $topics; do
		patches=${CARRY[$topic]:-}
		if [ -z "$patches" ]; then
			printf '%s\tnothing to do\tupstream or not applicable\n' "$topic" >> "$RUN_DIR/topics"
			continue
		fi
		problem=
		# shellcheck disable=SC2086
		for p in $(topic_files "$(patch_dir "${SRC[$topic]}")" $patches); do
			problem=$(file_problem "$(patch_dir "${SRC[$topic]}")" "$patches" "$p")
			[ -z "$problem" ] || break
		done
		if [ -n "$problem" ]; then
			for p in $patches; do report "$p" "not applied (topic $topic failed)"; done
			printf '%s\tfailed\t%s\n' "$topic" "$problem" >> "$RUN_DIR/topics"
			failed=$((failed + 1))
		else
			rc=0
			# shellcheck disable=SC2086
			land_topic "$topic" "${SRC[$topic]}" $patches || rc=$?
			case $rc in
			0) landed=$((landed + 1)) ;;
			1) failed=$((failed + 1)) ;;
			*)	restore_originals || true
				trap - INT TERM HUP
				fail "no space left on the file system of $TREE while applying $topic; the tree is unchanged; free some space and rerun" ;;
			esac
		fi
		if [ $failed -gt 0 ] && [ "$STRICT" = 1 ]; then
			break
		fi
	done
	if [ $landed -eq 0 ] || { [ $failed -gt 0 ] && [ "$STRICT" = 1 ]; }; then
		restore_originals || fail "could not roll $TREE back; see $STATE"
		trap - INT TERM HUP
		flush_reports
		fail "$(failure_summary); the tree is unchanged"
	fi
	# commit: everything below is bookkeeping; the txn mark goes last
	cp "$RUN_DIR/topics" "$RUN_DIR/report" "$RUN_DIR/branch" "$RUN_DIR/profile" "$STATE/" &&
		write_manifest || { restore_originals || true; fail "could not record the kit's state in $STATE (file system full?); the tree is unchanged"; }
	rm -rf "$STATE/journal"
	rm -f "$STATE/txn"
	trap - INT TERM HUP
	publish_out
	flush_reports
	topic_lines
	if [ $failed -gt 0 ]; then
		info "$TREE: partial: applied topics $(awk -F'\t' '$2 == "applied" { print $1 }' "$STATE/topics" | paste -sd' '); failed: $(awk -F'\t' '$2 == "failed" { print $1 }' "$STATE/topics" | paste -sd' ') (the failed topics left no trace)"
		return 3
	fi
	info "$TREE: applied $(series_patches "$STATE/series" | wc -l) patches (topics: $(awk -F'\t' '$2 == "applied" { print $1 }' "$STATE/topics" | paste -sd' '))"
}

# failure_summary -> one line naming each failed topic and why
failure_summary() {
	awk -F'\t' '$2 == "failed" { printf "%s%s: %s", sep, $1, $3; sep = "; " }' "$RUN_DIR/topics"
}

# topic_lines: one line per topic, after the per-patch lines
topic_lines() {
	awk -F'\t' '{ printf "topic %-28s %s%s\n", $1, $2, ($3 != "" ? ": " $3 : "") }' "$RUN_DIR/topics" >&$ERR
}

do_unapply() {
	local f
	recover
	if ! is_applied; then
		case ${RECOVERED:-} in
		apply) info "$TREE: restored to its state before the interrupted apply"; return 0 ;;
		unapply) info "$TREE: kit series removed; tree restored"; return 0 ;;
		esac
		info "$TREE: kit series not applied; nothing to do"
		return 2
	fi
	[ -w "$STATE" ] && touch "$STATE/.probe" 2>/dev/null && rm -f "$STATE/.probe" ||
		fail "$TREE/$STATE_NAME is not writable; make the tree writable (chmod -R u+w) and rerun make unapply"
	f=$(changed_since_apply)
	if [ -n "$f" ] && [ "$FORCE" != 1 ]; then
		fail "$TREE/$f changed after the series was applied; undo that change (the applied version is what quilt diff shows), or rerun with FORCE=1 to restore the original and lose it"
	fi
	trap on_interrupt_unapply INT TERM HUP
	printf 'unapply %s %s\n' "$$" "$(date -u +%FT%TZ)" > "$STATE/txn.tmp" &&
		mv "$STATE/txn.tmp" "$STATE/txn" ||
		fail "cannot write in $STATE; nothing was changed"
	restore_originals || fail "could not restore every file of $TREE from $STATE/orig; rerun make unapply to finish"
	trap - INT TERM HUP
	info "$TREE: kit series removed; tree restored"
}

on_interrupt_unapply() {
	trap - INT TERM HUP
	restore_originals || true
	fail "interrupted; the unapply of $TREE was finished first"
}

do_status() {
	local p v d topic
	if [ -f "$STATE/txn" ]; then
		say "interrupted $(cut -d' ' -f1 "$STATE/txn") (run make apply or make unapply to recover)"
		return 0
	fi
	if is_applied; then
		[ ! -f "$STATE/profile" ] || [ "$(cat "$STATE/profile")" = default ] || say "profile $(cat "$STATE/profile")"
		awk -F'\t' '{ printf "%-64s %s\n", $1, $2 }' "$STATE/report"
		while IFS=$'\t' read -r topic v d; do
			printf 'topic %-28s %s%s\n' "$topic" "$v" "${d:+: $d}"
		done < "$STATE/topics"
		p=$(changed_since_apply)
		[ -z "$p" ] || printf 'warning: %s changed after the series was applied\n' "$p"
		return 0
	fi
	while IFS=$'\t' read -r p v d; do
		case $v in
		carry) printf '%-64s not applied (from backports/%s)\n' "$p" "$d" ;;
		upstream) printf '%-64s already upstream\n' "$p" ;;
		n/a) printf '%-64s not applicable: %s\n' "$p" "$d" ;;
		*) printf '%-64s %s: %s\n' "$p" "$v" "$d" ;;
		esac
	done < <(plan_tree)
}

usage() {
	fail "usage: apply.sh apply|unapply|status [TREE | --kdir DIR | --branch B] [--topics LIST] [--profile default|kabi] [--strict] [--force] [--report FILE]"
}

main() {
	local cmd=${1:-} kdir='' kdir_set=0 branch='' report_to='' rc=0
	[ $# -gt 0 ] && shift
	TOPICS='' STRICT=0 FORCE=0 PROFILE=default
	while [ $# -gt 0 ]; do
		case $1 in
		--kdir) kdir=${2-}; kdir_set=1; shift 2 || usage ;;
		--branch) branch=${2-}; shift 2 || usage ;;
		--topics) TOPICS=${2-}; shift 2 || usage ;;
		--profile) PROFILE=${2-}; shift 2 || usage ;;
		--strict) STRICT=1; shift ;;
		--force) FORCE=1; shift ;;
		--report) report_to=${2-}; shift 2 || usage ;;
		-*) usage ;;
		*) [ $kdir_set = 0 ] || usage; kdir=$1; kdir_set=1; shift ;;
		esac
	done
	case $cmd in apply|unapply|status) ;; *) fail "unknown command '$cmd'; use apply, unapply or status" ;; esac
	case $PROFILE in default|kabi) ;; *) fail "unknown profile '$PROFILE'; set PROFILE= to default or kabi" ;; esac
	[ $kdir_set = 0 ] || [ -n "$kdir" ] ||
		fail "no tree given; set KDIR= to a kernel source tree (or BRANCH= to use a cached one)"
	TREE=$(resolve_tree "$kdir" "$branch" scratch) || exit 1
	# unapply needs only the kit's state (a touched file may be gone)
	if [ "$cmd" != unapply ] || [ ! -d "$TREE/$STATE_NAME" ]; then
		is_kernel_tree "$TREE" ||
			fail "KDIR=$TREE is not a kernel source tree (no top-level Makefile with mm/khugepaged.c); point KDIR= at the top of a Linux tree"
		tree_branch "$TREE" >/dev/null || exit 1
	fi
	if [ -n "$TOPICS" ]; then check_topics "$TOPICS" >/dev/null || exit 1; fi
	STATE=$TREE/$STATE_NAME
	TREE_NAME=$(tree_name "$TREE")
	RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/mmbk-apply.XXXXXX")
	trap 'rm -rf "$RUN_DIR"' EXIT
	if [ "$cmd" = status ]; then lock_tree "$TREE" shared; else lock_tree "$TREE"; fi
	if [ "$cmd" != unapply ] && ! tree_is_branch "$TREE"; then
		require_known_code
	fi
	case $cmd in
	apply)   do_apply || rc=$? ;;
	unapply) do_unapply || rc=$? ;;
	status)  do_status || rc=$? ;;
	esac
	if [ -n "$report_to" ] && [ -f "$RUN_DIR/report" ]; then
		cp "$RUN_DIR/report" "$report_to"
		[ ! -f "$RUN_DIR/topics" ] || cp "$RUN_DIR/topics" "$report_to.topics"
	fi
	return $rc
}

# require_known_code: a tree between the supported branches is supported
# only if the code the kit changes is there (detect.sh does not say unknown)
require_known_code() {
	local unknown
	unknown=$("$KIT_DIR/scripts/detect.sh" "$TREE" | awk '$2 == "unknown" && !n++ { print $3 }') || exit 1
	[ -z "$unknown" ] ||
		fail "KDIR=$TREE is Linux $(kernel_version "$TREE"), an unsupported branch (${unknown%:} not found); supported branches: $SUPPORTED_BRANCHES"
}

main "$@"
