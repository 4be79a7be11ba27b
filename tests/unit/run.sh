#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh [--tier fast|tree|all] [--full] [--dir DIR] [FILTER] - run the
# kit's unit tests: every test_* function of DIR/t-*.sh (default:
# tests/unit), each in its own `bash -euo pipefail` process
# (tests/unit/harness.sh), so that a failing command anywhere in a test
# fails it.  A file's tier is its "# tier: fast" line (no kernel tree
# needed), "# tier: full" (tree tests that only `make test FULL=1` runs:
# --full, or --tier all) or else "tree".
# Output is KTAP: diagnostics (the test's time; the last lines of a failed
# test) directly before its result line.  Exit code 4 from a test means SKIP (its last line says why).
set -euo pipefail
KIT_DIR=$(cd "$(dirname "$0")/../.." && pwd)
export KIT_DIR

tier=all
full=0
dir=$KIT_DIR/tests/unit
filter=
while [ $# -gt 0 ]; do
	case $1 in
	--tier) tier=${2:-}; shift 2 ;;
	--full) full=1; shift ;;
	--dir) dir=$(cd "${2:-}" && pwd); shift 2 ;;
	-*) echo "usage: run.sh [--tier fast|tree|all] [--full] [--dir DIR] [FILTER]" >&2; exit 2 ;;
	*) filter=$1; shift ;;
	esac
done
case $tier in fast|tree|all) ;; *) echo "run.sh: error: unknown tier '$tier'; use fast, tree or all" >&2; exit 2 ;; esac

# file_tier FILE -> fast|full|tree
file_tier() {
	sed -n 's/^# tier: \(fast\|full\)$/\1/p; $a tree' "$1" | sed -n 1p
}

# wanted TIER: a file of TIER runs in this run
wanted() {
	case $tier:$1 in
	all:*|fast:fast|tree:tree) return 0 ;;
	tree:full) [ $full = 1 ] ;;
	*) return 1 ;;
	esac
}

tests=()
for f in "$dir"/t-*.sh; do
	[ -f "$f" ] || continue
	wanted "$(file_tier "$f")" || continue
	for t in $(sed -n 's/^\(test_[a-z0-9_]*\)() {.*$/\1/p' "$f"); do
		n=${f##*/t-}; n=${n%.sh}.${t#test_}
		[ -z "$filter" ] || [[ $n == *$filter* ]] || continue
		tests+=("$f:$t")
	done
done

# every run gets its own scratch area, so that runs never see each other's
# trees; without a cache (fast tier) it is a plain temporary directory
CACHE_DIR=$(. "$KIT_DIR/scripts/lib.sh" && echo "$CACHE_DIR")
if [ -n "$CACHE_DIR" ] && [ "$tier" != fast ]; then
	mkdir -p "$CACHE_DIR/work"
	UNIT_SCRATCH=$(mktemp -d "$CACHE_DIR/work/unit.XXXXXX")
else
	UNIT_SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/mmbk-unit.XXXXXX")
fi
export UNIT_SCRATCH
LOGS=$UNIT_SCRATCH/.logs
mkdir -p "$LOGS"
# only directories are made writable again before the removal: files in
# scratch copies are hard links to the pristine trees, whose modes are part
# of their seal
trap 'find "$UNIT_SCRATCH" -type d ! -perm -u+w -exec chmod u+w {} + 2>/dev/null; rm -rf "$UNIT_SCRATCH"' EXIT

echo "KTAP version 1"
echo "# unit tests ($tier tier) from ${dir#"$KIT_DIR"/}"
echo "1..${#tests[@]}"
n=0 pass=0 failed=0 skipped=0
for entry in "${tests[@]}"; do
	f=${entry%%:*} t=${entry#*:}
	n=$((n + 1))
	name="${f##*/t-}"; name="${name%.sh}.${t#test_}"
	log=$LOGS/$n.log
	rc=0
	t0=$(date +%s)
	bash "$KIT_DIR/tests/unit/harness.sh" "$f" "$t" > "$log" 2>&1 < /dev/null || rc=$?
	echo "# $name: $(( $(date +%s) - t0 )) s"
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)); echo "ok $n $name"
	elif [ $rc -eq 4 ]; then
		skipped=$((skipped + 1)); echo "ok $n $name # SKIP $(tail -n1 "$log" | sed 's/^# //')"
	else
		failed=$((failed + 1))
		tail -n 15 "$log" | sed -e 's/^# //' -e 's/^/# /'
		echo "# $name: exit code $rc"
		echo "not ok $n $name"
	fi
done
echo "# unit: $pass passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
