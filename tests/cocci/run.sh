#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# run.sh - test cases for the kit's semantic patches and textual edits.
#
# A case is an input file and the expected output next to it:
#   tests/cocci/NAME.VARIANT.c   + .res  -> cocci/NAME.cocci  (spatch -D patch)
#   tests/cocci/text/NAME.VARIANT.{c,h} + .res -> cocci/text/NAME.sed (sed -f)
# VARIANT names the code shape (v5_10, v6_12, page, folio, ...). A case whose
# .res equals its input checks that the step leaves that shape alone.
#
# usage: tests/cocci/run.sh [PATTERN]   (only cases whose name contains PATTERN)
# Every case is a result record (lib/results.sh); the output is the KTAP
# document the kit's one writer makes of them; the exit status is 1 if any
# case fails.
set -euo pipefail

# shellcheck source=lib/kit.sh
. "$(dirname "$0")/../../lib/kit.sh"
# SPATCH, COCCI_DIR and SPATCH_OPTS: the ones make regen and re-targeting use
kit_use recipes results
TESTS=$KIT_DIR/tests/cocci
pattern=${1:-}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cocci-tests.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# case_input RES -> its input: NAME.VARIANT.{c,h}, or for textual edits of
# one header the input shared by all of them, text/<file>.VARIANT.h, where
# <file> is the part of NAME before the first "-" (huge_memory-* edits)
case_input() {
	local stem=${1%.res} base variant
	for ext in c h; do
		[ -f "$stem.$ext" ] && { printf '%s\n' "$stem.$ext"; return; }
	done
	base=${stem##*/}
	variant=${base#*.}
	[ -f "$TESTS/text/${base%%-*}.$variant.h" ] && printf '%s\n' "$TESTS/text/${base%%-*}.$variant.h"
}

cases=()
results=()
for res in "$TESTS"/*.res "$TESTS"/text/*.res; do
	[ -f "$res" ] || continue
	input=$(case_input "$res") || true
	[ -n "$input" ] || { echo "# $res: no input file" >&2; exit 1; }
	case ${res##*/} in *"$pattern"*) ;; *) continue ;; esac
	cases+=("$input")
	results+=("$res")
done

records=$tmp/records.tsv
: > "$records"
n=0
failed=0
for i in "${!cases[@]}"; do
	input=${cases[$i]}
	res=${results[$i]}
	n=$((n + 1))
	file=${res##*/}
	name=${file%%.*}
	out=$tmp/$n.out
	case $input in
	"$TESTS"/text/*)
		step=$COCCI_DIR/text/$name.sed
		label=text/${file%.*}
		;;
	*)
		step=$COCCI_DIR/$name.cocci
		label=${file%.*}
		;;
	esac
	if [ ! -f "$step" ]; then
		result "$records" case cocci - "$(result_name "$label")" fail - - "no step ${step#"$KIT_DIR"/}"
		failed=1
		continue
	fi
	case $step in
	*.cocci)
		if ! command -v "$SPATCH" >/dev/null; then
			result "$records" case cocci - "$(result_name "$label")" skip - - "spatch not installed"
			continue
		fi
		# a private .c copy, rewritten in place (-o refuses to write
		# when nothing changed)
		out=$tmp/$n.c
		cp "$input" "$out"
		# shellcheck disable=SC2086
		if ! "$SPATCH" $SPATCH_OPTS --sp-file "$step" --in-place "$out" \
			>"$tmp/$n.log" 2>&1; then
			result "$records" case cocci - "$(result_name "$label")" fail - - "$(cat "$tmp/$n.log")"$'\n'"spatch failed"
			failed=1
			continue
		fi
		;;
	*.sed)
		sed -f "$step" "$input" >"$out"
		;;
	esac
	if cmp -s "$res" "$out"; then
		result "$records" case cocci - "$(result_name "$label")" pass
	else
		result "$records" case cocci - "$(result_name "$label")" fail - - \
			"$(diff -u --label expected --label got "$res" "$out")"$'\n'"the result is not ${res#"$KIT_DIR"/}"
		failed=1
	fi
done
kit_py results ktap "$records" --title "semantic patch and textual edit cases" --summary cocci
exit $failed
