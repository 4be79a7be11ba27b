#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# drift-case.sh [--no-compile] BRANCH CLASS SCRATCH - one re-targeting case:
# a copy of BRANCH's tree with the drift CLASS of tables/drift.table,
# on which a plain quilt push of backports/BRANCH at fuzz 0 must fail, goes
# through lib/retarget.sh; every patch that lands must give the branch's
# clean result once the drift is taken out again (drift.py undo), the
# re-targeted series must apply with quilt at fuzz 0, and a patch that does
# not land must fail with a reason. CLASS "none" is the tree as it is.
#
# Prints one line per patch, "<patch> <status> <seconds>s" (the status of
# its record, as the re-targeting report words it), then "ok" or
# "FAILED: <why>". Exit 0 when the case holds. SCRATCH is a directory for
# the trees (emptied first).
set -euo pipefail
# shellcheck source=lib/kit.sh
. "$(dirname "$0")/../../lib/kit.sh"
kit_use tables trees results retarget

DRIFT=$KIT_DIR/tests/vendor/drift.py

fail() {
	echo "FAILED: $*"
	exit 1
}

# quilt_fails DIR: quilt push -a --fuzz=0 of backports/BRANCH fails on DIR's
# copy of the files the kit touches
quilt_fails() {
	local q=$SCRATCH/quilt f
	rm -rf "$q"
	mkdir -p "$q"
	for f in $(kit_touched_files); do
		[ -f "$1/$f" ] || continue
		mkdir -p "$q/$(dirname "$f")"
		cp "$1/$f" "$q/$f"
	done
	if ( cd "$q" && QUILT_PATCHES=$KIT_DIR/backports/$BRANCH QUILT_PC=.pc QUILTRC=/dev/null \
	     quilt push -a --fuzz=0 ) > "$q.log" 2>&1; then
		return 1
	fi
	grep -q 'FAILED\|does not apply' "$q.log"
}

# push_series DIR SERIESDIR: quilt push -a --fuzz=0 of SERIESDIR/series on DIR
push_series() {
	( cd "$1" && QUILT_PATCHES=$2 QUILT_PC=.kit-test-pc QUILTRC=/dev/null quilt push -a --fuzz=0 ) \
		> "$SCRATCH/push.log" 2>&1
}

main() {
	local compile=1 d clean out name status secs f files rc=0 dest
	if [ "${1:-}" = --no-compile ]; then compile=0; shift; fi
	[ $# -eq 3 ] || die "usage: drift-case.sh [--no-compile] BRANCH CLASS SCRATCH"
	BRANCH=$1 CLASS=$2 SCRATCH=$3
	require_branch "$BRANCH"
	rm -rf "$SCRATCH"
	mkdir -p "$SCRATCH"
	d=$SCRATCH/vendor-$BRANCH-$CLASS
	scratch_copy "$BRANCH" "$d"
	if [ "$CLASS" != none ]; then
		files=$("$DRIFT" apply "$CLASS" "$d")
		[ -n "$files" ] || fail "drift class $CLASS changes nothing on $BRANCH"
		quilt_fails "$d" || fail "quilt push -a --fuzz=0 of backports/$BRANCH applies to the $CLASS tree: the drift is void"
	fi
	dest=$OUT_DIR/vendor-$BRANCH-$CLASS
	rm -rf "$dest"
	if [ $compile = 1 ]; then
		retarget_run "" 1 "$d" "$BRANCH" > "$SCRATCH/retarget.log" 2>&1 || rc=$?
	else
		retarget_run "" 0 "$d" "$BRANCH" > "$SCRATCH/retarget.log" 2>&1 || rc=$?
	fi
	{ [ $rc -le 1 ] && [ -s "$dest/results.tsv" ]; } || fail "retarget_run exit $rc: $(grep -v '^\[' "$SCRATCH/retarget.log" | tail -n 2)"
	while IFS=$'\t' read -r _ _ _ name status _ secs text _; do
		case $status in
		applied) printf '%s applied as-is %ss\n' "$name" "$secs" ;;
		re-targeted) printf '%s re-targeted from cocci %ss\n' "$name" "$secs" ;;
		re-anchored) printf '%s re-anchored %ss\n' "$name" "$secs" ;;
		upstream) printf '%s already upstream %ss\n' "$name" "$secs" ;;
		not-tried) printf '%s not tried (an earlier patch failed) %ss\n' "$name" "$secs" ;;
		failed)
			printf '%s failed %ss\n' "$name" "$secs"
			case $text in *"; rejects in "*|*"does not carry it"*) ;; *) fail "$name failed without a reason and rejects: $text" ;; esac ;;
		*) fail "$name: unknown status '$status'" ;;
		esac
	done < "$dest/results.tsv"
	# the re-targeted series applies at fuzz 0 to the drifted tree ...
	out=$SCRATCH/result
	cp -al "$d" "$out"
	for f in $(kit_touched_files); do
		[ -f "$out/$f" ] && { cp "$out/$f" "$out/$f.new"; mv -f "$out/$f.new" "$out/$f"; }
	done
	if [ -s "$dest/series" ] && [ -n "$(series_patches "$dest/series")" ]; then
		push_series "$out" "$dest" || fail "quilt push of $dest/series on the drifted tree: $(tail -n 3 "$SCRATCH/push.log")"
	fi
	# ... and, drift taken out, is the branch's own clean result
	clean=$SCRATCH/clean
	scratch_copy "$BRANCH" "$clean"
	for name in $(series_patches "$dest/series"); do
		patch -s -p1 -F0 --no-backup-if-mismatch -d "$clean" -i "$KIT_DIR/backports/$BRANCH/$name" ||
			fail "backports/$BRANCH/$name does not apply to the clean tree"
	done
	for f in $(kit_touched_files); do
		[ -f "$out/$f" ] || continue
		if [ "$CLASS" = none ]; then
			cmp -s "$out/$f" "$clean/$f" || fail "$f: the result differs from the clean one"
		else
			"$DRIFT" undo "$CLASS" "$f" "$(pristine_dir "$BRANCH")" < "$out/$f" > "$SCRATCH/undone" ||
				fail "$f: drift.py undo failed"
			if [ "$CLASS" = moved ]; then
				# moved back, a definition the patch added after its
				# anchor may sit elsewhere: compare the definitions
				"$DRIFT" same "$SCRATCH/undone" "$clean/$f" > "$SCRATCH/same" ||
					fail "$f: the re-targeted result does not have the clean one's definitions: $(cat "$SCRATCH/same")"
			elif ! cmp -s "$SCRATCH/undone" "$clean/$f"; then
				# spatch may wrap a line the drift made longer (a
				# renamed parameter): same tokens, other line breaks
				"$DRIFT" layout "$clean/$f" "$SCRATCH/undone" > "$SCRATCH/layout" ||
					fail "$f: the re-targeted result is not the clean one plus the drift ($(cat "$SCRATCH/layout")): $(diff "$clean/$f" "$SCRATCH/undone" | head -n 12 | paste -sd'|')"
			fi
		fi
	done
	echo ok
}

main "$@"
