#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh [--branch B] - the main job, end to end: fetch the branch's tree,
# apply the series to a fresh copy of it, check it.  Ends with the summary.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

main() {
	local branch=$DEFAULT_BRANCH tree
	case ${1:-} in
	--branch) branch=${2:-}; shift 2 ;;
	"") ;;
	*) die "usage: demo.sh [--branch B]" ;;
	esac
	require_branch "$branch"
	"$KIT_DIR/scripts/deps.sh"
	progress "demo: 1/3 tree $branch"
	"$KIT_DIR/scripts/tree.sh" "$branch" >/dev/null
	progress "demo: 2/3 apply the $branch series to a fresh copy"
	tree=$("$KIT_DIR/scripts/worktree.sh" "$branch" patched --fresh)
	progress "demo: 3/3 check $tree"
	mkdir -p "$OUT_DIR/ktap"
	"$KIT_DIR/scripts/check.sh" "$tree" | tee "$OUT_DIR/ktap/$branch-check.ktap"
}

main "$@"
