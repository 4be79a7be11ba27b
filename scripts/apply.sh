#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# apply.sh apply|unapply|status TREE - apply the branch's quilt series to TREE
# atomically, or take it back out.
#
# All kit state lives in TREE/.mm-backport-kit/: quilt's backups (pc/), the
# series actually applied (series) and, while an apply runs, a journal
# (journal/) holding a copy of every file the series may touch.  The journal
# is complete before the first file changes, and it is removed only once the
# apply has succeeded or the tree is restored, so a killed apply is rolled
# back by the next apply or unapply.
#
# When the branch series does not apply at fuzz 0 (a vendor tree, or a
# version between the supported branches, which gets the nearest older
# branch's series), the tree is restored, scripts/retarget.sh rebuilds the
# failing patches for it from cocci/ into out/<tree-name>/, and that series
# is applied instead, with the same journal; a copy of it is kept in the
# state (patches/) so that unapply and check do not depend on out/.
#
# Exit codes: 0 done, 1 error (tree unchanged), 2 nothing to do.
set -eu
. "$(dirname "$0")/lib.sh"

STATE_NAME=.mm-backport-kit

quilt_in() {	# quilt_in TREE ARGS: quilt on the kit's state in TREE
	( cd "$1" && shift &&
	  QUILT_PC=$STATE_NAME/pc QUILT_PATCHES=$SERIES_DIR \
	  QUILT_SERIES=$STATE/series QUILTRC=/dev/null quilt "$@" )
}

# not_applicable BRANCH NAME -> the reason recorded in the branch series
not_applicable() {
	sed -n "s/^# n\/a: $2: //p" "$(series_file "$1")" | head -n1
}

# effective_series BRANCH TREE: walk the upstream series in order and print
# the branch patches TREE still needs; report every upstream patch's fate.
effective_series() {
	local branch=$1 tree=$2 name verdict why detected carried reason
	detected=$("$KIT_DIR/scripts/detect.sh" "$tree")
	carried=$(series_patches "$(series_file "$branch")")
	for name in $(series_patches "$KIT_DIR/series"); do
		read -r verdict why < <(printf '%s\n' "$detected" |
			awk -v n="$name" '$1 == n { $1 = ""; print; found = 1 } END { if (!found) print "absent" }')
		reason=$(not_applicable "$branch" "$name")
		if [ "$verdict" = present ] && [ -z "$reason" ]; then
			report "$name" "already upstream"
		elif printf '%s\n' "$carried" | grep -qxF "$name"; then
			[ -f "$KIT_DIR/backports/$branch/$name" ] ||
				die "backports/$branch/$name is listed in the series but missing; restore it (git checkout) or run make regen BRANCH=$branch"
			echo "$name"
		elif [ -n "$reason" ]; then
			report "$name" "not applicable: $reason"
		else
			report "$name" "missing: not carried by backports/$branch"
		fi
	done
}

# report NAME STATUS: one line per upstream patch, held back until the
# apply has passed its checks (so an error stays a single line)
report() {
	REPORTS+=$(printf '%-64s %s' "$1" "$2")$'\n'
	[ -z "${STATUS_FILE:-}" ] || printf '%s\t%s\n' "$1" "$2" >> "$STATUS_FILE"
}

flush_reports() {
	printf '%s' "${REPORTS:-}" >&2
	REPORTS=
}

# journal_files -> files the effective series touches
journal_files() {
	local name
	for name in $(series_patches "$NEW_SERIES"); do
		patch_files "$SERIES_DIR/$name"
	done | sort -u
}

# write_journal: copy every file the series touches, then publish the
# journal with one rename.  Files the series creates are listed in .absent.
write_journal() {
	local f
	rm -rf "$STATE/journal.tmp"
	mkdir -p "$STATE/journal.tmp"
	: > "$STATE/journal.tmp/.absent"
	journal_files | while read -r f; do
		if [ -e "$TREE/$f" ]; then
			mkdir -p "$STATE/journal.tmp/$(dirname "$f")"
			cp -p "$TREE/$f" "$STATE/journal.tmp/$f"
		else
			echo "$f" >> "$STATE/journal.tmp/.absent"
		fi
	done
	mv "$STATE/journal.tmp" "$STATE/journal"
}

# restore_journal: put every journalled file back (by rename, never writing
# into an existing inode), delete created files, drop quilt state, and only
# then the journal.  Safe to rerun after being interrupted itself.
restore_journal() {
	local j=$STATE/journal f
	( cd "$j" && find . -type f ! -name .absent -printf '%P\n' ) | while read -r f; do
		cp -p "$j/$f" "$TREE/$f.kit-restore"
		mv -f "$TREE/$f.kit-restore" "$TREE/$f"
	done
	while read -r f; do
		[ -n "$f" ] && rm -f "$TREE/$f"
	done < "$j/.absent"
	rm -rf "$STATE/pc" "$STATE/series" "$STATE/series.new"
	rm -rf "$j"
	rm -rf "$STATE"
}

recover_interrupted() {
	rm -rf "$STATE/journal.tmp"
	if [ -d "$STATE/journal" ]; then
		warn "$TREE: an earlier apply was interrupted; restoring the tree from the kit's journal"
		restore_journal
		RECOVERED=1
	elif [ -d "$STATE" ] && [ ! -s "$STATE/pc/applied-patches" ]; then
		rm -rf "$STATE"		# killed before the journal existed
	fi
}

is_applied() {
	[ -s "$STATE/pc/applied-patches" ]
}

# require_writable: permission bits are checked, not access(2), so that a
# tree marked read-only is respected even by root
require_writable() {
	local f d bad=
	for f in $(journal_files); do
		d=$(dirname "$TREE/$f")
		[ -d "$d" ] || continue		# the patch itself will say what is missing
		if [ -e "$TREE/$f" ] && [ ! -w "$TREE/$f" -o -z "$(find "$TREE/$f" -maxdepth 0 -perm -u+w)" ]; then
			bad=$f
		elif [ -z "$(find "$d" -maxdepth 0 -perm -u+w)" ]; then
			bad=$(dirname "$f")/
		fi
		[ -z "$bad" ] || break
	done
	if [ -z "$bad" ] && [ -z "$(find "$TREE" -maxdepth 0 -perm -u+w)" ]; then
		bad=.
	fi
	if [ -z "$bad" ] && ! ( touch "$TREE/$STATE_NAME.probe" && rm "$TREE/$STATE_NAME.probe" ) 2>/dev/null; then
		bad=.
	fi
	[ -z "$bad" ] ||
		die "$TREE/$bad is read-only; make the tree writable (chmod -R u+w) or apply to a copy"
}

# require_clean: refuse local changes to files the series touches
require_clean() {
	local f dirty= pristine
	[ "${FORCE:-0}" = 1 ] && return 0
	if git -C "$TREE" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		dirty=$(cd "$TREE" && git --no-optional-locks status --porcelain -- $(journal_files) | awk '{print $2}' | head -n1)
	else
		pristine=$(pristine_dir "$BRANCH")
		if [ -f "$pristine/Makefile" ] &&
		   [ "$(kernel_version "$pristine")" = "$(kernel_version "$TREE")" ] &&
		   [ "$(cd "$pristine" && pwd -P)" != "$(cd "$TREE" && pwd -P)" ]; then
			for f in $(journal_files); do
				if ! cmp -s "$pristine/$f" "$TREE/$f"; then
					dirty=$f
					break
				fi
			done
		fi
	fi
	[ -z "$dirty" ] ||
		die "$TREE/$dirty has local changes; commit or revert them first, or rerun with FORCE=1 to apply on top"
}

# save_rejects NAME: rerun the failing patch on a copy to keep its rejects
save_rejects() {
	local name=$1 dir tmp f
	dir=$OUT_DIR/rejects/$BRANCH/$name
	tmp=$(mktemp -d)
	for f in $(patch_files "$SERIES_DIR/$name"); do
		[ -e "$TREE/$f" ] || continue
		mkdir -p "$tmp/$(dirname "$f")"
		cp -p "$TREE/$f" "$tmp/$f"
	done
	patch -d "$tmp" -p1 -F0 -s --no-backup-if-mismatch < "$SERIES_DIR/$name" > "$tmp/.log" 2>&1 || true
	rm -rf "$dir"
	mkdir -p "$dir"
	( cd "$tmp" && find . -name '*.rej' -printf '%P\n' ) | while read -r f; do
		mkdir -p "$dir/$(dirname "$f")"
		cp "$tmp/$f" "$dir/$f"
	done
	rm -rf "$tmp"
	printf '%s\n' "$dir"
}

# retarget: rebuild the effective series for TREE (scripts/retarget.sh);
# its per-patch report goes to stderr
retarget() {
	# shellcheck disable=SC2046
	"$KIT_DIR/scripts/retarget.sh" "$TREE" "$BRANCH" $(series_patches "$NEW_SERIES") 2>&1 |
		grep -v '^\[' >&2
	[ "${PIPESTATUS[0]}" -eq 0 ]
}

# retarget_failure QUILT-FAILED REJDIR: report the patch re-targeting failed
# on (the one quilt failed on, or a later one) and die
retarget_failure() {
	local name=$1 rejdir=$2 dest st why
	dest=$OUT_DIR/$(tree_name "$TREE")
	st=$(awk -F'\t' '$2 ~ /^failed/ { print; exit }' "$dest/status" 2>/dev/null)
	if [ -n "$st" ]; then
		name=${st%%$'\t'*}
		why=${st#*$'\t'failed: }
		why=${why%; rejects in *}
		rejdir=$dest/rejects/$name
	else
		why="scripts/retarget.sh failed"
	fi
	report "$name" "failed"
	flush_reports
	die "$name does not apply to $TREE at fuzz 0 (rejects in $rejdir, log in $OUT_DIR/apply-$BRANCH.log) and re-targeting failed ($why); the tree is unchanged; resolve the conflict or use a tree without the conflicting change"
}

# push_retargeted: apply the re-targeted series from out/<tree-name>/,
# atomically as the branch series, and keep a copy of it in the state
push_retargeted() {
	local dest rc=0 name status
	dest=$OUT_DIR/$(tree_name "$TREE")
	SERIES_DIR=$dest
	series_patches "$dest/series" > "$NEW_SERIES"
	trap 'restore_journal; die "interrupted; $TREE restored"' INT TERM HUP
	mkdir -p "$STATE"
	cp "$NEW_SERIES" "$STATE/series.new"
	write_journal
	mv "$STATE/series.new" "$STATE/series"
	quilt_in "$TREE" push -a --fuzz=0 > "$STATE/push.log" 2>&1 || rc=$?
	if [ $rc -ne 0 ]; then
		cp "$STATE/push.log" "$OUT_DIR/apply-$BRANCH.log"
		restore_journal
		trap - INT TERM HUP
		die "the re-targeted series in $dest does not apply to $TREE (log in $OUT_DIR/apply-$BRANCH.log); the tree is unchanged"
	fi
	mkdir -p "$STATE/patches.tmp"
	for name in $(series_patches "$STATE/series"); do
		cp "$dest/$name" "$STATE/patches.tmp/$name"
		status=$(awk -F'\t' -v n="$name" '$1 == n { print $2 }' "$dest/status")
		case $status in
		re-targeted*) report "$name" "re-targeted from cocci (out/${dest##*/}/$name)" ;;
		re-anchored*) report "$name" "re-anchored (out/${dest##*/}/$name)" ;;
		*) report "$name" "applied as-is" ;;
		esac
	done
	flush_reports
	mv "$STATE/patches.tmp" "$STATE/patches"
	rm -rf "$STATE/journal"
	trap - INT TERM HUP
	info "$TREE: applied $(wc -l < "$STATE/series") patches of the $BRANCH series, re-targeted for this tree ($dest)"
}

do_apply() {
	local name log failed rejdir rc=0
	recover_interrupted
	if is_applied; then
		info "$TREE: series for $BRANCH already applied ($(wc -l < "$STATE/pc/applied-patches") patches); nothing to do"
		return 2
	fi
	NEW_SERIES=$(mktemp)
	trap 'rm -f "$NEW_SERIES"' EXIT
	effective_series "$BRANCH" "$TREE" > "$NEW_SERIES"
	if [ ! -s "$NEW_SERIES" ]; then
		flush_reports
		info "$TREE: every patch of the $BRANCH series is already upstream; nothing to do"
		return 2
	fi
	require_writable
	require_clean
	flush_reports
	trap 'restore_journal; die "interrupted; $TREE restored"' INT TERM HUP
	mkdir -p "$STATE"
	cp "$NEW_SERIES" "$STATE/series.new"
	write_journal
	mv "$STATE/series.new" "$STATE/series"
	log=$STATE/push.log
	quilt_in "$TREE" push -a --fuzz=0 > "$log" 2>&1 || rc=$?
	if [ $rc -ne 0 ]; then
		failed=$(sed -n 's/^Applying patch \(.*\)$/\1/p' "$log" | tail -n1)
		failed=${failed##*/}
		[ -n "$failed" ] || failed=$(series_patches "$STATE/series" | head -n1)
		mkdir -p "$OUT_DIR"
		cp "$log" "$OUT_DIR/apply-$BRANCH.log"
		rejdir=$(save_rejects "$failed")
		grep -E 'FAILED|hunk|can be reverse-applied' "$log" | sed 's/^/  /' >&2 || true
		restore_journal
		trap - INT TERM HUP
		info "$failed does not apply at fuzz 0; re-targeting the $BRANCH series for $TREE from the semantic patches"
		if ! retarget; then
			retarget_failure "$failed" "$rejdir"
		fi
		push_retargeted
		return 0
	fi
	for name in $(series_patches "$STATE/series"); do
		report "$name" "applied"
	done
	flush_reports
	rm -rf "$STATE/journal"
	trap - INT TERM HUP
	info "$TREE: applied $(wc -l < "$STATE/series") patches of the $BRANCH series"
}

do_unapply() {
	recover_interrupted
	if ! is_applied; then
		rm -rf "$STATE"
		if [ "${RECOVERED:-0}" = 1 ]; then
			info "$TREE: restored to its state before the interrupted apply"
			return 0
		fi
		info "$TREE: kit series not applied; nothing to do"
		return 2
	fi
	require_writable_state
	quilt_in "$TREE" pop -a > "$STATE/pop.log" 2>&1 ||
		die "quilt pop failed in $TREE (log: $STATE/pop.log); fix the files quilt names and rerun make unapply"
	rm -rf "$STATE"
	info "$TREE: kit series removed; tree restored"
}

require_writable_state() {
	touch "$STATE/.probe" 2>/dev/null && rm -f "$STATE/.probe" ||
		die "$TREE/$STATE_NAME is read-only; make the tree writable (chmod -R u+w) and rerun make unapply"
}

do_status() {
	local name
	if [ -d "$STATE/journal" ]; then
		echo "interrupted apply (run make apply or make unapply to recover)"
	elif is_applied; then
		for name in $(cat "$STATE/pc/applied-patches"); do echo "$name applied"; done
	else
		effective_series "$BRANCH" "$TREE" | sed 's/$/ not applied/'
	fi
}

# require_known_code: a tree between the supported branches is supported
# only if the code the kit changes is there (detect.sh does not say unknown)
require_known_code() {
	local unknown
	unknown=$("$KIT_DIR/scripts/detect.sh" "$TREE" | awk '$2 == "unknown" { print $3; exit }')
	[ -z "$unknown" ] ||
		die "KDIR=$TREE is Linux $(kernel_version "$TREE"), an unsupported branch (${unknown%:} not found); supported branches: $SUPPORTED_BRANCHES"
}

main() {
	local cmd=${1:-} dir=${2:-}
	[ -n "$dir" ] || die "no tree given; set KDIR= to a kernel source tree (or BRANCH= to use a cached one)"
	TREE=$(cd "$dir" 2>/dev/null && pwd) ||
		die "KDIR=$dir does not exist; point KDIR= at a kernel source tree"
	BRANCH=$(tree_branch "$TREE")
	STATE=$TREE/$STATE_NAME
	SERIES_DIR=$KIT_DIR/backports/$BRANCH
	# a re-targeted series is popped with the copy kept in the state
	[ ! -d "$STATE/patches" ] || SERIES_DIR=$STATE/patches
	if ! tree_is_branch "$TREE" && [ "$cmd" != unapply ]; then
		require_known_code
		info "series: backports/$BRANCH (nearest older branch of $(kernel_version "$TREE"))"
	fi
	case $cmd in
	apply)   do_apply ;;
	unapply) do_unapply ;;
	status)  do_status ;;
	*) die "unknown command '$cmd'; use apply, unapply or status" ;;
	esac
}

main "$@"
