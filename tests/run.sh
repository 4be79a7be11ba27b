#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh - everything "make test" runs: the kit's unit tests, then the
# matrix (tree, apply, check and, with BOOT=1, boots) on every branch.
# Ends with one "N passed, N failed" line over all KTAP results.
set -eu
. "$(dirname "$0")/../scripts/lib.sh"

BRANCHES=${BRANCHES:-$SUPPORTED_BRANCHES}
LOG_DIR=$OUT_DIR/test
mkdir -p "$LOG_DIR"

count() {	# count KTAPFILE... -> "passed failed skipped" (a broken file: one failure more)
	local out p f s rc=0
	out=$("$KIT_DIR/scripts/ktap.py" count "$@") || rc=$?
	read -r p f s <<< "$out"
	echo "${p:-0} $(( ${f:-0} + (rc != 0) )) ${s:-0}"
}

main() {
	local b passed failed skipped p f s
	"$KIT_DIR/scripts/deps.sh"
	for b in $BRANCHES; do
		"$KIT_DIR/scripts/tree.sh" "$b" >/dev/null
	done
	"$KIT_DIR/scripts/sparse.sh" >/dev/null

	progress "test: unit tests"
	"$KIT_DIR/tests/unit/run.sh" | tee "$LOG_DIR/unit.ktap" || true

	progress "test: matrix on $BRANCHES"
	"$KIT_DIR/scripts/matrix.sh" $BRANCHES > "$LOG_DIR/matrix.log" 2>&1 || true
	cat "$LOG_DIR/matrix.log" | grep -v '^\[' || true

	read -r passed failed skipped < <(count "$LOG_DIR/unit.ktap")
	read -r p f s < <(count "$OUT_DIR"/ktap/*.ktap)
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	# apply results count too (out/ktap/<b>-apply.ktap): every upstream patch
	# must be applied (as is or re-targeted), already upstream or not
	# applicable (skipped) on every branch
	progress "test: done in $(( $(date +%s) - START ))s"
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
}

START=$(date +%s)
main "$@"
