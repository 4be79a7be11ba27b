#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# detect.sh TREE - tell, for every upstream patch of the kit that has rules in
# backports/detect.table, whether TREE already has the change.
# Output, one line per patch: "<patch file name> present|absent|unknown <why>".
# "unknown" means the code the change touches was not found at all.
set -eu
. "$(dirname "$0")/lib.sh"

TABLE=$DATA_DIR/backports/detect.table

# function_body FILE NAME -> lines of the definition of C function NAME
# (NAME may list alternatives, "a|b", for a function renamed upstream)
function_body() {
	awk -v name="$2" '
		!inside && ($0 ~ "^(" name ")\\(" || $0 ~ "^[a-zA-Z].*[ *](" name ")\\(") &&
		    $0 !~ /;[ \t]*$/ { inside = 1 }
		inside { print }
		inside && /^}/ { exit }
	' "$1"
}

# rule_holds TREE FILE SCOPE EXPECT REGEX -> 0 holds, 1 fails, 2 code not found
rule_holds() {
	local tree=$1 file=$2 scope=$3 expect=$4 regex=$5 text
	[ -f "$tree/$file" ] || return 2
	if [ "$scope" = - ]; then
		text=$(cat "$tree/$file")
	else
		text=$(function_body "$tree/$file" "$scope")
		[ -n "$text" ] || return 2
	fi
	if grep -Eq -- "$regex" <<< "$text"; then
		[ "$expect" = present ]
	else
		[ "$expect" = absent ]
	fi
}

# detect_id TREE ID -> present|absent|unknown plus the first failing rule
detect_id() {
	local tree=$1 id=$2 rid file scope expect regex rc verdict=present why=
	while IFS=$'\t' read -r rid file scope expect regex; do
		case $rid in ''|\#*) continue ;; esac
		[ "$rid" = "$id" ] || continue
		rc=0
		rule_holds "$tree" "$file" "$scope" "$expect" "$regex" || rc=$?
		if [ $rc -eq 2 ]; then
			echo "unknown $file:${scope}: code not found"
			return
		elif [ $rc -ne 0 ] && [ $verdict = present ]; then
			verdict=absent
			why="$file:$scope: expected $expect /$regex/"
		fi
	done < "$TABLE"
	echo "$verdict $why"
}

# has_rules ID
has_rules() {
	grep -q "^$1	" "$TABLE"
}

main() {
	local tree=${1:?usage: detect.sh TREE} name id
	is_kernel_tree "$tree" || die "$tree is not a kernel source tree; point KDIR= at the top of a Linux tree"
	for name in $(series_patches "$DATA_DIR/series"); do
		id=$(patch_upstream_id "$DATA_DIR/patches/$name")
		id=${id:0:12}
		[ -n "$id" ] && has_rules "$id" || continue
		printf '%s %s\n' "$name" "$(detect_id "$tree" "$id")"
	done
}

main "$@"
