#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh [--fast] [--full] [--no-boot] - everything "make test" runs, in
# order: the trees, the fast tier (needs no kernel tree; with one it also
# uses the kernel's KTAP parser), the unit tests that need trees, then the matrix (tree, apply, check, boots) on every
# branch.  Every result is KTAP, counted with the kernel's own KTAP parser
# (scripts/ktap.py); a crashed runner or a plan that does not match its
# results counts as a failure.  Ends with one "N passed, N failed" line.
set -euo pipefail
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"

LOG_DIR=$OUT_DIR/test
START=$(date +%s)

# stage NAME KTAPFILE CMD...: run a stage whose stdout is KTAP; a crash
# (non-zero exit without a "not ok" line) becomes a failed case
stage() {
	local name=$1 ktap=$2 rc=0
	shift 2
	progress "test: $name"
	"$@" > "$ktap" || rc=$?
	if [ $rc -ne 0 ] && ! grep -q '^ *not ok ' "$ktap"; then
		printf '# %s exited %d without a failed case\nnot ok 999 %s-crashed\n' "$name" "$rc" "$name" >> "$ktap"
	fi
	grep -E '^(not ok|# [a-z]+: [0-9]+ passed)' "$ktap" >&2 || true
}

# total FILE... -> "passed failed skipped" over every KTAP document, with
# unparsable documents and plan mismatches counted as failures
total() {
	local f p=0 q=0 s=0 a b c
	for f in "$@"; do
		[ -f "$f" ] || continue
		if read -r a b c < <("$KIT_DIR/scripts/ktap.py" count "$f" 2>> "$LOG_DIR/count.err"); then
			p=$((p + a)) q=$((q + b)) s=$((s + c))
		else
			warn "$f: not valid KTAP (see $LOG_DIR/count.err)"
			q=$((q + 1))
		fi
	done
	echo "$p $q $s"
}

main() {
	local fast=0 full=0 boot=1 b passed failed skipped margs=() uargs=()
	while [ $# -gt 0 ]; do
		case $1 in
		--fast) fast=1; shift ;;
		--full) full=1; shift ;;
		--no-boot) boot=0; shift ;;
		*) die "usage: tests/run.sh [--fast] [--full] [--no-boot]" ;;
		esac
	done
	rm -rf "$LOG_DIR"
	mkdir -p "$LOG_DIR"
	: > "$LOG_DIR/count.err"
	"$KIT_DIR/scripts/deps.sh"
	if [ $fast = 0 ]; then
		# the trees first: the fast tier then also reads KTAP with the
		# kernel's own parser (it skips those cases without a tree)
		need_cache
		for b in $SUPPORTED_BRANCHES; do
			"$KIT_DIR/scripts/tree.sh" "$b" >/dev/null
		done
		"$KIT_DIR/scripts/sparse.sh" >/dev/null
	fi
	stage "fast tier" "$LOG_DIR/fast.ktap" "$KIT_DIR/tests/unit/run.sh" --tier fast
	if [ $fast = 0 ]; then
		uargs=(--tier tree)
		[ $full = 0 ] || uargs+=(--full)
		stage "unit tests" "$LOG_DIR/unit.ktap" "$KIT_DIR/tests/unit/run.sh" "${uargs[@]}"
		progress "test: matrix on $SUPPORTED_BRANCHES ($([ $full = 1 ] && echo 'every baseline' || echo 'baselines of tests/suite/baselines.table'))"
		[ $boot = 0 ] || margs+=(--boot)
		[ $full = 0 ] || margs+=(--full)
		"$KIT_DIR/scripts/matrix.sh" "${margs[@]}" > "$LOG_DIR/matrix.log" 2>&1 || true
		grep -v '^\[' "$LOG_DIR/matrix.log" || true
		read -r passed failed skipped < <(total "$LOG_DIR/fast.ktap" "$LOG_DIR/unit.ktap" "$OUT_DIR"/ktap/*.ktap)
	else
		read -r passed failed skipped < <(total "$LOG_DIR/fast.ktap")
	fi
	progress "test: done in $(( $(date +%s) - START ))s"
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
}

main "$@"
