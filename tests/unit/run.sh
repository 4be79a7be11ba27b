#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh [--tier fast|tree|all] [--full] [--dir DIR] [--records FILE]
#        [--guard-cache] [--progress-fd FD] [FILTER]
# - run the kit's unit tests: every test_* function of DIR/t-*.sh (default:
# tests/unit), each in its own `bash -euo pipefail` process
# (tests/unit/harness.sh), so that a failing command anywhere in a test
# fails it.  A file's tier is its "# tier: fast" line (no kernel tree
# needed), "# tier: full" (tree tests that only `make test FULL=1` runs:
# --full, or --tier all) or else "tree".
# Every test's result is a record (lib/results.sh; FILE keeps them); the
# KTAP document on stdout is written from them by the kit's one KTAP writer:
# diagnostics (the test's time; the last lines of a failed test) directly
# before its result line.  A line per finished test goes to stderr, and a
# timestamped line per finished test file, with its counts, to FD (default
# stderr; make test gives its console, the tests' lines go to a log).  A
# test skips only by saying so (lib.sh skip: its reason in its skip file,
# status 0); every non-zero status, 4 (the kit's EXIT_REFUSED) included,
# is a failure.  The kit's own
# tests (the default DIR, or --guard-cache) end with one more result: no
# test changed a cached pristine tree.
set -euo pipefail
KIT_DIR=$(cd "$(dirname "$0")/../.." && pwd)
export KIT_DIR
# shellcheck source=lib/kit.sh
. "$KIT_DIR/lib/kit.sh"
kit_use results

tier=all
full=0
dir=$KIT_DIR/tests/unit
filter=
records=
guard=0
progress_fd=2
while [ $# -gt 0 ]; do
	case $1 in
	--tier) tier=${2:-}; shift 2 ;;
	--full) full=1; shift ;;
	--dir) dir=$(cd "${2:-}" && pwd); shift 2 ;;
	--records) records=${2:-}; shift 2 ;;
	--guard-cache) guard=1; shift ;;
	--progress-fd) progress_fd=${2:-}; shift 2 ;;
	-*) usage_error "usage: run.sh [--tier fast|tree|all] [--full] [--dir DIR] [--records FILE] [--guard-cache] [--progress-fd FD] [FILTER]" ;;
	*) filter=$1; shift ;;
	esac
done
case $tier in fast|tree|all) ;; *) usage_error "unknown tier '$tier'; use fast, tree or all" ;; esac
[[ $progress_fd =~ ^[0-9]+$ ]] || usage_error "--progress-fd '$progress_fd' is not a file descriptor number"
[ "$dir" != "$KIT_DIR/tests/unit" ] || guard=1

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
	while read -r t; do
		n=${f##*/t-}; n=${n%.sh}.${t#test_}
		[ -z "$filter" ] || [[ $n == *$filter* ]] || continue
		tests+=("$f:$t")
	done < <(sed -n 's/^\(test_[a-z0-9_]*\)() {.*$/\1/p' "$f")
done
# a filter that selects nothing proves nothing: bad input, not "1..0"
[ -z "$filter" ] || [ ${#tests[@]} -gt 0 ] ||
	usage_error "no test of tier '$tier' has '$filter' in its name (file.test, e.g. check.check_catches; --tier all for every tier)"

# every run gets its own scratch area, so that runs never see each other's
# trees; without a cache (fast tier) it is a plain temporary directory
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

# file_done FILE SECONDS: the line of a finished test file, with its counts
file_done() {
	printf '[%s] unit %s (%s tier): %s passed, %s failed, %s skipped in %ss\n' "$(date +%H:%M:%S)" \
		"${1##*/}" "$(file_tier "$1")" "$fp" "$ff" "$fs" "$2" >&"$progress_fd"
}

RECORDS=${records:-$LOGS/records.tsv}
: > "$RECORDS"
n=0 failed=0 cur='' fp=0 ff=0 fs=0 f0=$(date +%s)
for entry in "${tests[@]}"; do
	f=${entry%%:*} t=${entry#*:}
	if [ "$f" != "$cur" ]; then
		[ -z "$cur" ] || file_done "$cur" $(( $(date +%s) - f0 ))
		cur=$f fp=0 ff=0 fs=0 f0=$(date +%s)
	fi
	n=$((n + 1))
	name="${f##*/t-}"; name="${name%.sh}.${t#test_}"
	log=$LOGS/$n.log
	skipfile=$LOGS/$n.skip
	rc=0
	t0=$(date +%s)
	bash "$KIT_DIR/tests/unit/harness.sh" "$f" "$t" "$skipfile" > "$log" 2>&1 < /dev/null || rc=$?
	secs=$(( $(date +%s) - t0 ))
	if [ $rc -eq 0 ] && [ -s "$skipfile" ]; then
		fs=$((fs + 1))
		result "$RECORDS" case unit unit "$name" skip - "$secs" "$name: $secs s"$'\n'"$(tail -n1 "$skipfile")"
	elif [ $rc -eq 0 ]; then
		fp=$((fp + 1))
		result "$RECORDS" case unit unit "$name" pass - "$secs" "$name: $secs s"
	else
		failed=$((failed + 1)) ff=$((ff + 1))
		result "$RECORDS" case unit unit "$name" fail - "$secs" \
			"$name: $secs s"$'\n'"$(tail -n 15 "$log" | sed -e 's/^# //')"$'\n'"$name: exit code $rc"
	fi
	printf '[%s] unit %d/%d %s: %s\n' "$(date +%H:%M:%S)" "$n" "${#tests[@]}" "$name" \
		"$(result_get "$RECORDS" case "$name" status)" >&2
done
[ -z "$cur" ] || file_done "$cur" $(( $(date +%s) - f0 ))
# a test that writes in place through a scratch copy's shared inodes
# changes the cached pristine tree, and with it every copy the matrix makes
# beside the unit tests: one more result says so (tests/unit/lib.sh own_file)
if [ $guard = 1 ] && [ "$tier" != fast ] && [ -n "$CACHE_DIR" ] && [ $n -gt 0 ]; then
	kit_use fetch
	changed=
	for m in "$CACHE_DIR"/trees/*/linux.manifest; do
		[ -f "$m" ] || continue
		b=${m%/linux.manifest}; b=${b##*/}
		# shared lock: never judged while the matrix extracts it again
		( lock_tree "${m%/linux.manifest}" shared && pristine_ok "$b" ) || changed="$changed $b"
	done
	n=$((n + 1))
	if [ -z "$changed" ]; then
		result "$RECORDS" case unit unit cached_trees_unchanged pass - 0 "no test changed a cached pristine tree"
	else
		failed=$((failed + 1))
		result "$RECORDS" case unit unit cached_trees_unchanged fail - 0 \
			"a test wrote through a scratch copy into the cached tree of:$changed (give the file its own inode first: own_file)"
	fi
fi
kit_py results ktap "$RECORDS" --title "unit tests ($tier tier) from ${dir#"$KIT_DIR"/}" --summary unit
[ $failed -eq 0 ]
