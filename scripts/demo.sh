#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh [BRANCH] - the main job, end to end: fetch the branch's tree,
# apply the series to a fresh copy of it, check it.  Ends with the summary.
set -eu
. "$(dirname "$0")/lib.sh"

main() {
	local branch=${1:-$DEFAULT_BRANCH} tree
	require_branch "$branch"
	"$KIT_DIR/scripts/deps.sh"
	progress "demo: 1/3 tree $branch"
	"$KIT_DIR/scripts/tree.sh" "$branch" >/dev/null
	progress "demo: 2/3 apply the $branch series to a fresh copy"
	tree=$(MMBK_FRESH=1 "$KIT_DIR/scripts/worktree.sh" "$branch" patched)
	progress "demo: 3/3 check $tree"
	mkdir -p "$OUT_DIR/ktap"
	"$KIT_DIR/scripts/check.sh" "$tree" | tee "$OUT_DIR/ktap/$branch-check.ktap"
}

main "$@"
