# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# results.sh - the kit's one result model, shell side: every step appends
# records to a record file; KTAP, JUnit, JSON and Markdown are written from
# record files by mmbk/results.py (one writer per format).
#
# A record is one TSV line of 8 fields:
#   kind     step | patch | topic | case
#   step     tree, apply, check, abi, boot-<variant>[-<profile>], unit, ...
#   branch   the branch (or the tree's name)
#   name     a path, "/" between nesting levels (prog/case, profile/topic)
#   status   one of RESULT_STATUSES
#   topic    a topic of tables/topics.table, or -
#   seconds  a number, or -
#   text     the human text (for a patch: the apply report's phrase; for a
#            case: its diagnostics, the reason last); \n \t \\ escaped
kit_use tables trees

RESULT_STATUSES="applied re-targeted re-anchored upstream n/a not-selected failed not-tried nothing-to-do pass fail skip xfail error"

# result_name LEVEL... -> a record name of those levels ("/" inside a
# level escaped)
result_name() {
	local l out=
	for l in "$@"; do
		l=${l//\\/\\\\}
		out=${out:+$out/}${l//\//\\/}
	done
	printf '%s\n' "$out"
}

# result FILE KIND STEP BRANCH NAME STATUS TOPIC SECONDS TEXT: append a record
result() {
	local file=$1 kind=$2 step=$3 branch=$4 name=$5 status=$6 topic=${7:--} secs=${8:--} text=${9:-}
	case " $RESULT_STATUSES " in
	*" $status "*) ;;
	*) die "result: '$status' is not a result status ($RESULT_STATUSES)" ;;
	esac
	text=${text//\\/\\\\}
	text=${text//$'\t'/\\t}
	text=${text//$'\n'/\\n}
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$step" "$branch" "$name" "$status" \
		"${topic:--}" "${secs:--}" "$text" >> "$file"
}

# result_get FILE KIND NAME FIELD -> FIELD (status, topic, seconds, text;
# text unescaped) of the last KIND record named NAME
result_get() {
	local col
	case $4 in status) col=5 ;; topic) col=6 ;; seconds) col=7 ;; text) col=8 ;;
	*) die "result_get: unknown field '$4'" ;; esac
	[ -f "$1" ] || return 0
	awk -F'\t' -v k="$2" -v n="$3" -v c="$col" '$1 == k && $4 == n { v = $c } END { printf "%s", v }' "$1" |
		if [ "$col" = 8 ]; then result_unescape; else cat; fi
	[ "$col" = 8 ] || echo
}

# result_unescape: stdin's \n \t \\ escapes undone
result_unescape() {
	awk '{
		out = ""; s = $0
		while ((i = index(s, "\\")) > 0) {
			c = substr(s, i + 1, 1)
			out = out substr(s, 1, i - 1) (c == "n" ? "\n" : c == "t" ? "\t" : c)
			s = substr(s, i + 2)
		}
		print out s
	}'
}

# result_names FILE KIND [STATUS] -> names of the KIND records (with STATUS)
result_names() {
	[ -f "$1" ] || return 0
	awk -F'\t' -v k="$2" -v s="${3:-}" '$1 == k && (s == "" || $5 == s) { print $4 }' "$1"
}

# kunit_dir -> tools/testing/kunit of the newest cached tree that has the
# kernel's KTAP parser (the kit reads and writes KTAP with it), or a
# one-line error
kunit_dir() {
	local b d
	for b in $(branches_newest_first); do
		d=$(pristine_dir "$b")/tools/testing/kunit
		[ -f "$d/kunit_parser.py" ] && [ -f "$d/kunit_printer.py" ] &&
			grep -qs 'def parse_run_tests(.*printer' "$d/kunit_parser.py" && { printf '%s\n' "$d"; return 0; }
	done
	die "no cached kernel tree under $CACHE_DIR/trees has tools/testing/kunit/kunit_parser.py (Linux 6.18 or later); run 'make tree BRANCH=$NEWEST_BRANCH'"
}
