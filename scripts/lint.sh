#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lint.sh [PATCH...] - check every patch in patches/ and backports/ (or the
# given ones): the header rules of scripts/header-rules.table, the series
# files, then checkpatch.pl --strict (what mm maintainers run) from the
# cached 7.2 tree (--no-tree, with the kit's CHECKPATCH_IGNORE of
# scripts/lib.sh and the reviewed waivers of the table).
# Every problem is one "file:line: message" line; exit 1 if there is any.
set -eu
. "$(dirname "$0")/lib.sh"

TABLE=${MMBK_HEADER_RULES:-$KIT_DIR/scripts/header-rules.table}
PROBLEMS=0

problem() {	# problem FILE LINE MESSAGE
	printf '%s:%s: %s\n' "${1#"$KIT_DIR"/}" "$2" "$3"
	PROBLEMS=$((PROBLEMS + 1))
}

rules() {	# rules -> "rule applies kind arg message" rows, TAB separated
	grep -v '^#' "$TABLE" | grep -v '^[[:space:]]*$' | tr -s '\t'
}

header() {	# header FILE -> the header lines
	sed -n "1,$(patch_header_end "$1")p" "$1"
}

# body_first FILE -> "LINE<TAB>TEXT" of the first non-blank line after the mail headers
body_first() {
	awk 'NR > 1 && !inbody && /^$/ { inbody = 1; next }
	     inbody && !/^$/ { printf "%d\t%s\n", NR, $0; exit }' "$1"
}

tag_line() {	# tag_line FILE REGEX -> number of the first header line matching
	header "$1" | { grep -nE -- "$2" || true; } | sed -n 1p | cut -d: -f1
}

tag_value() {	# tag_value FILE TAG -> value of the first "TAG: value" header line
	header "$1" | sed -n "s/^$2: *//p" | sed -n 1p
}

upstream_of() {	# upstream_of FILE -> patches/<same name>
	printf '%s/patches/%s\n' "$KIT_DIR" "${1##*/}"
}

# kind_of FILE -> "upstream|backport[:merged|:posted]"
kind_of() {
	local f=$1 where up ml
	case $f in
	"$KIT_DIR"/patches/*) where=upstream ;;
	*) where=backport ;;
	esac
	up=$(upstream_of "$f")
	ml=$([ -f "$up" ] && tag_value "$up" Patch-mainline || true)
	case $ml in
	v*)  printf '%s:merged\n' "$where" ;;
	Not\ yet*) printf '%s:posted\n' "$where" ;;
	*)   printf '%s\n' "$where" ;;
	esac
}

applies() {	# applies KIND APPLIES
	case $2 in
	all) return 0 ;;
	upstream|backport) [ "${1%%:*}" = "$2" ] ;;
	*) [ "$1" = "$2" ] ;;
	esac
}

is_verbatim() {	# is_verbatim FILE: a backport identical to its upstream patch
	case $1 in "$KIT_DIR"/patches/*) return 1 ;; esac
	cmp -s "$1" "$(upstream_of "$1")"
}

# diff_body FILE -> the diff, without index lines, hunk positions, function
# context and the format-patch signature
diff_body() {
	sed -n '/^diff --git /,$p' "$1" |
		sed -e '/^index /d' -e 's/^@@ -[0-9,]* +[0-9,]* @@.*/@@/' -e '/^-- $/,$d'
}

# check_rule FILE RULE KIND ARG MESSAGE
check_rule() {
	local f=$1 rule=$2 kind=$3 arg=$4 msg=$5 end up line bf v
	end=$(patch_header_end "$f")
	up=$(upstream_of "$f")
	case $kind in
	first-line)
		head -n1 "$f" | grep -qE -- "$arg" || problem "$f" 1 "$msg [$rule]" ;;
	header)
		[ -n "$(tag_line "$f" "$arg")" ] || problem "$f" "$end" "$msg [$rule]" ;;
	no-header)
		line=$(tag_line "$f" "$arg")
		[ -z "$line" ] || problem "$f" "$line" "$msg [$rule]" ;;
	body-first)
		is_verbatim "$f" && return 0
		bf=$(body_first "$f")
		grep -qE -- "$arg" <<< "${bf#*$'\t'}" || problem "$f" "${bf%%$'\t'*}" "$msg [$rule]" ;;
	git-commit-from)
		v=$(tag_value "$f" Git-commit)
		[ -z "$v" ] || sed -n 1p "$f" | grep -q "^From $v " ||
			problem "$f" "$(tag_line "$f" '^Git-commit:')" "$msg [$rule]" ;;
	stable-id)
		[ -f "$up" ] || return 0
		bf=$(body_first "$f")
		v=$(printf '%s\n' "${bf#*$'\t'}" | sed -n 's/^commit \([0-9a-f]\{40\}\) upstream\.$/\1/p')
		[ -z "$v" ] || [ "$v" = "$(tag_value "$up" Git-commit)" ] || problem "$f" "${bf%%$'\t'*}" "$msg [$rule]" ;;
	upstream-exists)
		[ -f "$up" ] || problem "$f" 1 "$msg [$rule]" ;;
	same-subject)
		[ -f "$up" ] || return 0
		[ "$(patch_subject "$f")" = "$(patch_subject "$up")" ] ||
			problem "$f" "$(tag_line "$f" '^Subject:')" "$msg: \"$(patch_subject "$up")\" [$rule]" ;;
	same-author)
		[ -f "$up" ] || return 0
		[ "$(tag_value "$f" From)" = "$(tag_value "$up" From)" ] ||
			problem "$f" "$(tag_line "$f" '^From:')" "$msg: \"$(tag_value "$up" From)\" [$rule]" ;;
	deviation-note)
		[ -f "$up" ] || return 0
		cmp -s <(diff_body "$f") <(diff_body "$up") && return 0
		grep -q '^\[ ' <<< "$(header "$f")" && grep -q '\]$' <<< "$(header "$f")" ||
			problem "$f" "$end" "$msg [$rule]" ;;
	*) die "$TABLE: unknown rule kind '$kind' (rule $rule)" ;;
	esac
}

check_patch() {	# check_patch FILE: every header rule that applies to FILE
	local f=$1 kind rule app k arg msg
	kind=$(kind_of "$f")
	while IFS=$'\t' read -r rule app k arg msg; do
		case $k in series-order|checkpatch-waive) continue ;; esac
		applies "$kind" "$app" || continue
		check_rule "$f" "$rule" "$k" "$arg" "$msg"
	done < <(rules)
}

# check_series: ./series and every backports/<b>/series
check_series() {
	local top=$KIT_DIR/series s b n line name order last p
	n=0
	while IFS= read -r line; do
		n=$((n + 1))
		name=$(printf '%s\n' "$line" | sed -e 's/#.*//' -e 's/[[:space:]]*$//')
		[ -z "$name" ] || [ -f "$KIT_DIR/patches/$name" ] ||
			problem "$top" "$n" "$name is not in patches/ [series-order]"
	done < "$top"
	for p in "$KIT_DIR"/patches/*.patch; do
		grep -qxF "${p##*/}" "$top" || problem "$p" 1 "not listed in ./series [series-order]"
	done
	for s in "$KIT_DIR"/backports/*/series; do
		b=$(basename "$(dirname "$s")")
		n=0 last=0
		while IFS= read -r line; do
			n=$((n + 1))
			name=$(printf '%s\n' "$line" | sed -n 's/^# n\/a: \([^:]*\): .*/\1/p')
			if [ -n "$name" ]; then
				[ -f "$KIT_DIR/patches/$name" ] || problem "$s" "$n" "n/a entry $name is not in patches/ [series-order]"
				continue
			fi
			name=$(printf '%s\n' "$line" | sed -e 's/#.*//' -e 's/[[:space:]]*$//' | awk '{ print $1 }')
			[ -n "$name" ] || continue
			[ -f "$KIT_DIR/backports/$b/$name" ] || problem "$s" "$n" "$name is listed but backports/$b/$name does not exist [series-order]"
			order=$(series_patches "$top" | { grep -nxF "$name" || true; } | cut -d: -f1)
			if [ -z "$order" ]; then
				problem "$s" "$n" "$name is not in ./series: a backport has the file name of the upstream patch it carries [series-order]"
			elif [ "$order" -lt "$last" ]; then
				problem "$s" "$n" "$name is out of the order of ./series [series-order]"
			else
				last=$order
			fi
		done < "$s"
		for p in "$KIT_DIR"/backports/"$b"/*.patch; do
			[ -f "$p" ] || continue
			grep -qxF "${p##*/}" <<< "$(series_patches "$s")" ||
				problem "$p" 1 "not listed in backports/$b/series [series-order]"
		done
		# a kABI variant takes the place of a patch the branch carries
		for p in "$KIT_DIR"/backports/"$b"/kabi/*.patch; do
			[ -f "$p" ] || continue
			grep -qxF "${p##*/}" <<< "$(series_patches "$s")" ||
				problem "$p" 1 "a kABI variant of a patch backports/$b/series does not carry [series-order]"
		done
	done
}

checkpatch_tree() {	# -> a cached tree with scripts/checkpatch.pl, newest first
	local b
	for b in 7.2 $(printf '%s\n' $SUPPORTED_BRANCHES | sort -rV); do
		[ -f "$(pristine_dir "$b")/scripts/checkpatch.pl" ] && { pristine_dir "$b"; return 0; }
	done
	die "no cached tree with scripts/checkpatch.pl; run 'make tree BRANCH=7.2' first"
}

check_checkpatch() {
	local tree f
	tree=$(checkpatch_tree)
	for f in "$@"; do
		( cd "$tree" && perl scripts/checkpatch.pl --no-tree -q --no-summary --emacs --terse \
			--strict --show-types --ignore "$CHECKPATCH_IGNORE$(checkpatch_waivers "$f")" "$f" 2>&1 ) |
			sed "s|^$KIT_DIR/||" | grep . | while IFS= read -r line; do
				echo "$line [checkpatch]"
			done || true
	done
}

# shell_files -> every shell script of the kit (by name or shebang)
shell_files() {
	(cd "$KIT_DIR" && git ls-files 2>/dev/null || find . -type f -printf '%P\n') |
		while IFS= read -r f; do
			case $f in
			*.sh|.ci/run) printf '%s\n' "$f" ;;
			tests/*|scripts/*) [ -f "$KIT_DIR/$f" ] && head -c 32 "$KIT_DIR/$f" | grep -qE '^#!/bin/(ba)?sh' && printf '%s\n' "$f" ;;
			esac
		done | sort -u
}

# check_shellcheck: shellcheck at warning level on every shell script,
# "file:line: message" lines
check_shellcheck() {
	command -v shellcheck >/dev/null || die "shellcheck is not installed; apt-get install shellcheck (or scripts/deps.sh as root)"
	mapfile -t sh < <(shell_files)
	(cd "$KIT_DIR" && shellcheck -x -S warning -f gcc "${sh[@]}") |
		sed -E 's/^([^:]+:[0-9]+):[0-9]+: (.*)$/\1: \2 [shellcheck]/' || true
}

main() {
	local f files=() cp sc
	[ -f "$TABLE" ] || die "no rule table $TABLE"
	if [ $# -gt 0 ]; then
		for f in "$@"; do
			[ -f "$f" ] || die "$f is not a patch file; usage: lint.sh [PATCH...] (no argument: every patch of the kit)"
			files+=("$(cd "$(dirname "$f")" && pwd)/${f##*/}")
		done
	else
		files=("$KIT_DIR"/patches/*.patch "$KIT_DIR"/backports/*/*.patch)
		for f in "$KIT_DIR"/backports/*/kabi/*.patch; do
			[ ! -f "$f" ] || files+=("$f")
		done
		check_series
	fi
	for f in "${files[@]}"; do
		check_patch "$f"
	done
	cp=$(check_checkpatch "${files[@]}")
	if [ -n "$cp" ]; then
		printf '%s\n' "$cp"
		PROBLEMS=$((PROBLEMS + $(printf '%s\n' "$cp" | wc -l)))
	fi
	if [ $# -eq 0 ]; then
		sc=$(check_shellcheck)
		if [ -n "$sc" ]; then
			printf '%s\n' "$sc"
			PROBLEMS=$((PROBLEMS + $(printf '%s\n' "$sc" | wc -l)))
		fi
	fi
	if [ "$PROBLEMS" -ne 0 ]; then
		info "$PROBLEMS problem(s) in ${#files[@]} patches"
		return 1
	fi
	info "${#files[@]} patches: headers, series and checkpatch clean; shell scripts shellcheck clean"
}

main "$@"
