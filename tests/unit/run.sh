#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh [FILTER] - run the kit's unit tests (tests/unit/t-*.sh, one test_*
# function each case), each in its own subshell; KTAP output.
set -eu
KIT_DIR=$(cd "$(dirname "$0")/../.." && pwd)
export KIT_DIR
filter=${1:-}

tests=()
for f in "$KIT_DIR"/tests/unit/t-*.sh; do
	for t in $(sed -n 's/^\(test_[a-z0-9_]*\)() {$/\1/p' "$f"); do
		n=${f##*/t-}; n=${n%.sh}.${t#test_}
		[ -z "$filter" ] || [[ $n == *$filter* ]] || continue
		tests+=("$f:$t")
	done
done

# every run gets its own scratch area, so that runs never see each other's trees
CACHE_DIR=$(. "$KIT_DIR/scripts/lib.sh" && echo "$CACHE_DIR")
mkdir -p "$CACHE_DIR/work"
UNIT_SCRATCH=$(mktemp -d "$CACHE_DIR/work/unit.XXXXXX")
export UNIT_SCRATCH
trap 'chmod -R u+w "$UNIT_SCRATCH" 2>/dev/null; rm -rf "$UNIT_SCRATCH"' EXIT

echo "KTAP version 1"
echo "1..${#tests[@]}"
n=0 pass=0 failed=0 skipped=0
for entry in "${tests[@]}"; do
	f=${entry%%:*} t=${entry#*:}
	n=$((n + 1))
	rc=0
	# shellcheck source=/dev/null
	log=$( ( set -eu; . "$KIT_DIR/tests/unit/lib.sh"; . "$f"; "$t" ) 2>&1 ) || rc=$?
	name="${f##*/t-}"; name="${name%.sh}.${t#test_}"
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)); echo "ok $n $name"
	elif [ $rc -eq 4 ]; then
		skipped=$((skipped + 1)); echo "ok $n $name # SKIP $(printf '%s' "$log" | tail -n1 | sed 's/^# //')"
	else
		# the reasons directly before the result line they explain (KTAP)
		failed=$((failed + 1))
		printf '%s\n' "$log" | tail -n 15 | sed -e 's/^\([^#]\)/# \1/' -e 's/^$/#/'
		echo "not ok $n $name"
	fi
done
echo "# unit: $pass passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
