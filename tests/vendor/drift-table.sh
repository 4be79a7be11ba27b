#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# drift-table.sh [--no-compile] [--write-expect] [--classes "C..."] [--merge]
# SCRATCH [BRANCH...] - run the drift cases (tests/vendor/drift-case.sh,
# each class of drift.table, or CLASSES, on each branch; --merge keeps the
# other results of SCRATCH/results) and print a markdown table per
# branch: drift class x patch ->
# applied as-is / re-targeted from cocci / re-anchored / already upstream /
# failed / not tried, with the seconds each patch took, and whether the case
# held. --write-expect rewrites tables/drift-expect.table from the run (to
# review with git diff). SCRATCH is a scratch directory (emptied per case).
set -euo pipefail
# shellcheck source=lib/kit.sh
. "$(dirname "$0")/../../lib/kit.sh"
kit_use tables

main() {
	local opt=() write=0 merge=0 classes='' scratch b c out res name status secs patches cell bad=0
	while [ $# -gt 0 ]; do
		case $1 in
		--no-compile) opt+=(--no-compile); shift ;;
		--write-expect) write=1; shift ;;
		--merge) merge=1; shift ;;
		--classes) classes=${2:-}; shift 2 ;;
		*) break ;;
		esac
	done
	[ -n "$classes" ] || classes=$("$KIT_DIR/tests/vendor/drift.py" classes)
	[ $# -ge 1 ] || die "usage: drift-table.sh [--no-compile] [--write-expect] SCRATCH [BRANCH...]"
	scratch=$1
	shift
	[ $# -gt 0 ] || { read -ra b <<< "$SUPPORTED_BRANCHES"; set -- "${b[@]}"; }
	res=$scratch/results
	mkdir -p "$scratch"
	{ [ $merge = 1 ] && [ -f "$res" ]; } || : > "$res"
	for b in "$@"; do
		for c in $classes; do
			awk -F'\t' -v b="$b" -v c="$c" '!($1 == b && $2 == c)' "$res" > "$res.tmp" && mv "$res.tmp" "$res"
			out=$("$KIT_DIR/tests/vendor/drift-case.sh" "${opt[@]}" "$b" "$c" "$scratch/case" 2>&1) || bad=1
			printf '%s\n' "$out" | sed -n "s/^\([0-9]\{4\}\)-[^ ]* \(.*\) \([0-9]*\)s$/$b\t$c\t\1\t\2\t\3/p" >> "$res"
			printf '%s\t%s\tcase\t%s\t0\n' "$b" "$c" "$(printf '%s\n' "$out" | tail -n1)" >> "$res"
		done
	done
	while read -r b; do
		patches=$(awk -F'\t' -v b="$b" '$1 == b && $3 != "case" { print $3 }' "$res" | sort -u)
		printf '\n### %s\n\n| drift | %s | case |\n|---|%s---|\n' "$b" \
			"$(printf '%s\n' "$patches" | paste -sd'|' | sed 's/|/ | /g')" \
			"$(printf '%s\n' "$patches" | sed 's/.*/---|/' | tr -d '\n')"
		for c in $("$KIT_DIR/tests/vendor/drift.py" classes); do
			grep -q "^$b	$c	" "$res" || continue
			printf '| %s |' "$c"
			for name in $patches; do
				status=$(awk -F'\t' -v b="$b" -v c="$c" -v n="$name" '$1 == b && $2 == c && $3 == n { print $4 }' "$res")
				secs=$(awk -F'\t' -v b="$b" -v c="$c" -v n="$name" '$1 == b && $2 == c && $3 == n { print $5 }' "$res")
				cell=${status:--}
				[ -z "$secs" ] || [ "$status" = "not tried (an earlier patch failed)" ] || cell="$cell (${secs}s)"
				printf ' %s |' "$cell"
			done
			printf ' %s |\n' "$(awk -F'\t' -v b="$b" -v c="$c" '$1 == b && $2 == c && $3 == "case" { print $4 }' "$res" | cut -c1-60)"
		done
	done < <(cut -f1 "$res" | sort -uV)
	if [ $write = 1 ]; then
		{
			printf '# drift-expect.table - what lib/retarget.sh does per branch, drift class\n'
			printf '# and patch (tests/unit/t-drift.sh); written by tests/vendor/drift-table.sh\n'
			printf '# --write-expect, reviewed by hand. Columns (TAB): branch class patch status\n'
			awk -F'\t' '$3 != "case" { print $1 "\t" $2 "\t" $3 "\t" $4 }' "$res"
		} > "$KIT_DIR/tables/drift-expect.table"
	fi
	return $bad
}

main "$@"
