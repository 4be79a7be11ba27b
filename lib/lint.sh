# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# lint.sh - check every patch in patches/ and backports/ (or the given
# ones, make lint): the header rules of tables/header-rules.table, the
# series files, then checkpatch.pl --strict (what mm maintainers run) from
# the mainline branch's tree (fetch.sh tools_tree; --no-tree, with the kit's CHECKPATCH_IGNORE of
# lib/tables.sh and the reviewed waivers of the table), and shellcheck of
# every shell file of the kit.
# Every problem is one "file:line: message" line; status 1 if there is any.
kit_use tables trees

lint_problem() {	# lint_problem FILE LINE MESSAGE
	printf '%s:%s: %s\n' "${1#"$DATA_DIR"/}" "$2" "$3"
	LINT_PROBLEMS=$((LINT_PROBLEMS + 1))
}

lint_header() {	# lint_header FILE -> the header lines
	sed -n "1,$(patch_header_end "$1")p" "$1"
}

# lint_body_first FILE -> "LINE<TAB>TEXT" of the first non-blank line after the mail headers
lint_body_first() {
	awk 'NR > 1 && !inbody && /^$/ { inbody = 1; next }
	     inbody && !/^$/ { printf "%d\t%s\n", NR, $0; exit }' "$1"
}

lint_tag_line() {	# lint_tag_line FILE REGEX -> number of the first header line matching
	lint_header "$1" | { grep -nE -- "$2" || true; } | sed -n 1p | cut -d: -f1
}

lint_tag_value() {	# lint_tag_value FILE TAG -> value of the first "TAG: value" header line
	lint_header "$1" | sed -n "s/^$2: *//p" | sed -n 1p
}

lint_upstream_of() {	# lint_upstream_of FILE -> patches/<same name>
	printf '%s/patches/%s\n' "$KIT_DIR" "${1##*/}"
}

# lint_kind_of FILE -> "upstream|backport[:merged|:posted]"
lint_kind_of() {
	local f=$1 where up ml
	case $f in
	"$DATA_DIR"/patches/*) where=upstream ;;
	*) where=backport ;;
	esac
	up=$(lint_upstream_of "$f")
	ml=$(if [ -f "$up" ]; then lint_tag_value "$up" Patch-mainline; fi)
	case $ml in
	v*)  printf '%s:merged\n' "$where" ;;
	Not\ yet*) printf '%s:posted\n' "$where" ;;
	*)   printf '%s\n' "$where" ;;
	esac
}

lint_applies() {	# lint_applies KIND APPLIES
	case $2 in
	all) return 0 ;;
	upstream|backport) [ "${1%%:*}" = "$2" ] ;;
	*) [ "$1" = "$2" ] ;;
	esac
}

lint_is_verbatim() {	# lint_is_verbatim FILE: a backport identical to its upstream patch
	case $1 in "$DATA_DIR"/patches/*) return 1 ;; esac
	cmp -s "$1" "$(lint_upstream_of "$1")"
}

# lint_diff_body FILE -> the diff, without index lines, hunk positions, function
# context and the format-patch signature
lint_diff_body() {
	sed -n '/^diff --git /,$p' "$1" |
		sed -e '/^index /d' -e 's/^@@ -[0-9,]* +[0-9,]* @@.*/@@/' -e '/^-- $/,$d'
}

# lint_check_rule FILE RULE KIND ARG MESSAGE
lint_check_rule() {
	local f=$1 rule=$2 kind=$3 arg=$4 msg=$5 end up line bf v
	end=$(patch_header_end "$f")
	up=$(lint_upstream_of "$f")
	case $kind in
	first-line)
		head -n1 "$f" | grep -qE -- "$arg" || lint_problem "$f" 1 "$msg [$rule]" ;;
	header)
		[ -n "$(lint_tag_line "$f" "$arg")" ] || lint_problem "$f" "$end" "$msg [$rule]" ;;
	no-header)
		line=$(lint_tag_line "$f" "$arg")
		[ -z "$line" ] || lint_problem "$f" "$line" "$msg [$rule]" ;;
	body-first)
		lint_is_verbatim "$f" && return 0
		bf=$(lint_body_first "$f")
		grep -qE -- "$arg" <<< "${bf#*$'\t'}" || lint_problem "$f" "${bf%%$'\t'*}" "$msg [$rule]" ;;
	git-commit-from)
		v=$(lint_tag_value "$f" Git-commit)
		[ -z "$v" ] || sed -n 1p "$f" | grep -q "^From $v " ||
			lint_problem "$f" "$(lint_tag_line "$f" '^Git-commit:')" "$msg [$rule]" ;;
	stable-id)
		[ -f "$up" ] || return 0
		bf=$(lint_body_first "$f")
		v=$(printf '%s\n' "${bf#*$'\t'}" | sed -n 's/^commit \([0-9a-f]\{40\}\) upstream\.$/\1/p')
		[ -z "$v" ] || [ "$v" = "$(lint_tag_value "$up" Git-commit)" ] || lint_problem "$f" "${bf%%$'\t'*}" "$msg [$rule]" ;;
	upstream-exists)
		[ -f "$up" ] || lint_problem "$f" 1 "$msg [$rule]" ;;
	same-subject)
		[ -f "$up" ] || return 0
		[ "$(patch_subject "$f")" = "$(patch_subject "$up")" ] ||
			lint_problem "$f" "$(lint_tag_line "$f" '^Subject:')" "$msg: \"$(patch_subject "$up")\" [$rule]" ;;
	same-author)
		[ -f "$up" ] || return 0
		[ "$(lint_tag_value "$f" From)" = "$(lint_tag_value "$up" From)" ] ||
			lint_problem "$f" "$(lint_tag_line "$f" '^From:')" "$msg: \"$(lint_tag_value "$up" From)\" [$rule]" ;;
	deviation-note)
		[ -f "$up" ] || return 0
		cmp -s <(lint_diff_body "$f") <(lint_diff_body "$up") && return 0
		{ grep -q '^\[ ' <<< "$(lint_header "$f")" && grep -q '\]$' <<< "$(lint_header "$f")"; } ||
			lint_problem "$f" "$end" "$msg [$rule]" ;;
	*) die "$LINT_TABLE: unknown rule kind '$kind' (rule $rule)" ;;
	esac
}

lint_check_patch() {	# lint_check_patch FILE: every header rule that applies to FILE
	local f=$1 kind rule app k arg msg
	kind=$(lint_kind_of "$f")
	while IFS=$'\t' read -r rule app k arg msg; do
		case $k in series-order|checkpatch-waive) continue ;; esac
		lint_applies "$kind" "$app" || continue
		lint_check_rule "$f" "$rule" "$k" "$arg" "$msg"
	done < <(header_rules "$LINT_TABLE")
}

# lint_check_series: ./series and every backports/<b>/series (a problem
# names the file it reads)
# shellcheck disable=SC2094
lint_check_series() {
	local top=$DATA_DIR/series s b n line name order last p
	n=0
	while IFS= read -r line; do
		n=$((n + 1))
		name=$(printf '%s\n' "$line" | sed -e 's/#.*//' -e 's/[[:space:]]*$//')
		[ -z "$name" ] || [ -f "$DATA_DIR/patches/$name" ] ||
			lint_problem "$top" "$n" "$name is not in patches/ [series-order]"
	done < "$top"
	for p in "$DATA_DIR"/patches/*.patch; do
		grep -qxF "${p##*/}" "$top" || lint_problem "$p" 1 "not listed in ./series [series-order]"
	done
	for s in "$DATA_DIR"/backports/*/series; do
		b=$(basename "$(dirname "$s")")
		n=0 last=0
		while IFS= read -r line; do
			n=$((n + 1))
			name=$(printf '%s\n' "$line" | sed -n 's/^# n\/a: \([^:]*\): .*/\1/p')
			if [ -n "$name" ]; then
				[ -f "$DATA_DIR/patches/$name" ] || lint_problem "$s" "$n" "n/a entry $name is not in patches/ [series-order]"
				continue
			fi
			name=$(printf '%s\n' "$line" | sed -e 's/#.*//' -e 's/[[:space:]]*$//' | awk '{ print $1 }')
			[ -n "$name" ] || continue
			[ -f "$DATA_DIR/backports/$b/$name" ] || lint_problem "$s" "$n" "$name is listed but backports/$b/$name does not exist [series-order]"
			order=$(series_patches "$top" | { grep -nxF "$name" || true; } | cut -d: -f1)
			if [ -z "$order" ]; then
				lint_problem "$s" "$n" "$name is not in ./series: a backport has the file name of the upstream patch it carries [series-order]"
			elif [ "$order" -lt "$last" ]; then
				lint_problem "$s" "$n" "$name is out of the order of ./series [series-order]"
			else
				last=$order
			fi
		done < "$s"
		for p in "$DATA_DIR"/backports/"$b"/*.patch; do
			[ -f "$p" ] || continue
			grep -qxF "${p##*/}" <<< "$(series_patches "$s")" ||
				lint_problem "$p" 1 "not listed in backports/$b/series [series-order]"
		done
		# a kABI variant takes the place of a patch the branch carries
		for p in "$DATA_DIR"/backports/"$b"/kabi/*.patch; do
			[ -f "$p" ] || continue
			grep -qxF "${p##*/}" <<< "$(series_patches "$s")" ||
				lint_problem "$p" 1 "a kABI variant of a patch backports/$b/series does not carry [series-order]"
		done
		lint_check_reference "$b" "$s"
	done
}

# lint_check_reference BRANCH SERIES: the committed reference data the plan
# reads (make regen) is there, of this branch, for exactly its series
lint_check_reference() {
	local b=$1 s=$2 ref=$DATA_DIR/backports/$1/reference.json sums=$DATA_DIR/backports/$1/touched.sums got want
	if [ ! -f "$ref" ] || [ ! -f "$sums" ]; then
		lint_problem "$s" 1 "backports/$b has no reference data (reference.json, touched.sums); run make regen BRANCH=$b [reference-data]"
		return 0
	fi
	[ -n "$(sums_version "$sums")" ] ||
		lint_problem "$sums" 1 "no '# version' line; run make regen BRANCH=$b [reference-data]"
	[ "$(sed -n 's/^"branch": "\(.*\)",$/\1/p' "$ref")" = "$b" ] ||
		lint_problem "$ref" 1 "not the reference data of $b; run make regen BRANCH=$b [reference-data]"
	got=$(sed -n 's/^"\([0-9][0-9][0-9][0-9]-[^"]*\.patch\)": \[.*/\1/p' "$ref" | LC_ALL=C sort)
	want=$(series_patches "$s" | LC_ALL=C sort)
	[ "$got" = "$want" ] ||
		lint_problem "$ref" 1 "its patches are not those of backports/$b/series; run make regen BRANCH=$b [reference-data]"
}

# lint_checkpatch_tree -> the mainline branch's tree (MAINLINE_BRANCH):
# its scripts/checkpatch.pl judges the patches, the same checkpatch on every
# machine (it was the newest cached tree's); bin/lint fetches it first
# (fetch.sh tools_tree)
lint_checkpatch_tree() {
	local t
	t=$(pristine_dir "$MAINLINE_BRANCH")
	[ -f "$t/scripts/checkpatch.pl" ] || die "no cached $MAINLINE_BRANCH tree with scripts/checkpatch.pl; run 'make tree BRANCH=$MAINLINE_BRANCH' first"
	printf '%s\n' "$t"
}

lint_check_checkpatch() {
	local tree f
	tree=$(lint_checkpatch_tree)
	# one checkpatch per CPU (it is perl startup and regex bound): the
	# ignore list of each patch first, then the runs, findings in order
	# ($0 and $1 of the single-quoted script are sh -c's own arguments)
	# shellcheck disable=SC2016
	for f in "$@"; do
		printf '%s\0%s\0' "$CHECKPATCH_IGNORE$(checkpatch_waivers "$f")" "$f"
	done | ( cd "$tree" && xargs -0 -n 2 -P "$(nproc)" sh -c \
		'perl scripts/checkpatch.pl --no-tree -q --no-summary --emacs --terse --strict --show-types --ignore "$0" "$1" 2>&1 || true' ) |
		sed "s|^$DATA_DIR/||" | grep . | LC_ALL=C sort -t: -k1,1 -k2,2n | sed 's/$/ [checkpatch]/' || true
}

# lint_shell_files -> every shell script of the kit (by name or shebang)
lint_shell_files() {
	{ git -C "$KIT_DIR" ls-files 2>/dev/null || (cd "$KIT_DIR" && find . -type f -printf '%P\n'); } |
		while IFS= read -r f; do
			case $f in
			*.sh|.ci/run) printf '%s\n' "$f" ;;
			tests/*|bin/*|lib/*|guest/init) [ -f "$KIT_DIR/$f" ] && head -c 32 "$KIT_DIR/$f" | grep -qE '^#!/bin/(ba)?sh' && printf '%s\n' "$f" ;;
			esac
		done | sort -u
}

# lint_check_shellcheck: shellcheck at style level on every shell script,
# "file:line: message" lines
lint_check_shellcheck() {
	command -v shellcheck >/dev/null || die "shellcheck is not installed; apt-get install shellcheck (or bin/deps as root)"
	mapfile -t sh < <(lint_shell_files)
	(cd "$KIT_DIR" && shellcheck -x -S style -f gcc "${sh[@]}") |
		sed -E 's/^([^:]+:[0-9]+):[0-9]+: (.*)$/\1: \2 [shellcheck]/' || true
}

# lint_run [PATCH...]
lint_run() (
	local f files=() cp sc
	LINT_TABLE=$TABLES_DIR/header-rules.table LINT_PROBLEMS=0
	[ -f "$LINT_TABLE" ] || die "no rule table $LINT_TABLE"
	if [ $# -gt 0 ]; then
		for f in "$@"; do
			[ -f "$f" ] || usage_error "$f is not a patch file; give patch files (no argument: every patch of the kit)"
			files+=("$(cd "$(dirname "$f")" && pwd)/${f##*/}")
		done
	else
		files=("$DATA_DIR"/patches/*.patch "$DATA_DIR"/backports/*/*.patch)
		for f in "$DATA_DIR"/backports/*/kabi/*.patch; do
			[ ! -f "$f" ] || files+=("$f")
		done
		lint_check_series
	fi
	for f in "${files[@]}"; do
		lint_check_patch "$f"
	done
	cp=$(lint_check_checkpatch "${files[@]}")
	if [ -n "$cp" ]; then
		printf '%s\n' "$cp"
		LINT_PROBLEMS=$((LINT_PROBLEMS + $(printf '%s\n' "$cp" | wc -l)))
	fi
	if [ $# -eq 0 ]; then
		sc=$(lint_check_shellcheck)
		if [ -n "$sc" ]; then
			printf '%s\n' "$sc"
			LINT_PROBLEMS=$((LINT_PROBLEMS + $(printf '%s\n' "$sc" | wc -l)))
		fi
	fi
	if [ "$LINT_PROBLEMS" -ne 0 ]; then
		info "$LINT_PROBLEMS problem(s) in ${#files[@]} patches"
		return 1
	fi
	info "${#files[@]} patches: headers, series and checkpatch clean; shell scripts shellcheck clean"
)
