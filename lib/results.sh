# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# results.sh - the kit's one result model, shell side: every step appends
# records to a record file; KTAP, JUnit, JSON and Markdown are written from
# record files by mmbk/results.py (one writer per format).
#
# A record is one TSV line of 10 fields:
#   kind     step | patch | topic | case
#   step     tree, apply, check, abi, boot-<variant>[-<profile>], unit, ...
#   branch   the branch (or the tree's name)
#   name     a path, "/" between nesting levels (prog/case, profile/topic)
#   status   one of RESULT_STATUSES
#   topic    a topic of tables/topics.table, or -
#   seconds  a number, or -
#   text     the human text (for a patch: the apply report's phrase; for a
#            case: its diagnostics, the reason last); \n \t \\ escaped
#   version  the Linux version of the request's tree (request.sh), or -
#   target   the request's build target, once resolved, or -
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

# result FILE KIND STEP BRANCH NAME STATUS TOPIC SECONDS TEXT: append a
# record, of the request's tree version and build target
result() {
	local file=$1 kind=$2 step=$3 branch=$4 name=$5 status=$6 topic=${7:--} secs=${8:--} text=${9:-}
	case " $RESULT_STATUSES " in
	*" $status "*) ;;
	*) die "result: '$status' is not a result status ($RESULT_STATUSES)" ;;
	esac
	text=${text//\\/\\\\}
	text=${text//$'\t'/\\t}
	text=${text//$'\n'/\\n}
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$step" "$branch" "$name" "$status" \
		"${topic:--}" "${secs:--}" "$text" "${REQ_VERSION:--}" "${REQ_TARGET:--}" >> "$file"
}

# result_get FILE KIND NAME FIELD -> FIELD (status, topic, seconds, text;
# text unescaped) of the last KIND record named NAME
result_get() {
	local col f1 f4 f5 f6 f7 f8 _ v=''
	case $4 in status) col=5 ;; topic) col=6 ;; seconds) col=7 ;; text) col=8 ;;
	*) die "result_get: unknown field '$4'" ;; esac
	[ -f "$1" ] || return 0
	# read by the shell itself (no process: make apply looks up dozens);
	# every field but the text is non-empty ("-"), so tabs never collapse
	while IFS=$'\t' read -r f1 _ _ f4 f5 f6 f7 f8 _; do
		if [ "$f1" != "$2" ] || [ "$f4" != "$3" ]; then continue; fi
		case $col in 5) v=$f5 ;; 6) v=$f6 ;; 7) v=$f7 ;; *) v=$f8 ;; esac
	done < "$1"
	if [ "$col" != 8 ]; then
		printf '%s\n' "$v"
	elif [ -n "$v" ]; then
		# the escapes of result(): \\ first set aside, so "\\n" stays "\n"
		v=${v//\\\\/$'\001'}
		v=${v//\\n/$'\n'}
		v=${v//\\t/$'\t'}
		printf '%s\n' "${v//$'\001'/\\}"
	fi
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
	local f1 f4 f5 _
	[ -f "$1" ] || return 0
	while IFS=$'\t' read -r f1 _ _ f4 f5 _; do
		if [ "$f1" = "$2" ] && { [ -z "${3:-}" ] || [ "$f5" = "$3" ]; }; then
			printf '%s\n' "$f4"
		fi
	done < "$1"
}

# kunit_dir -> tools/testing/kunit of the mainline branch's tree
# (MAINLINE_BRANCH): the kernel's KTAP parser, which the kit reads and
# writes KTAP with; that branch's whatever else the cache holds (it was the
# newest cached tree's that had one: another parser on another machine).
# A command that judges KTAP fetches the tree first (fetch.sh tools_tree)
kunit_dir() {
	local d
	d=$(pristine_dir "$MAINLINE_BRANCH")/tools/testing/kunit
	if [ -f "$d/kunit_parser.py" ] && [ -f "$d/kunit_printer.py" ] &&
		grep -qs 'def parse_run_tests(.*printer' "$d/kunit_parser.py"; then
		printf '%s\n' "$d"
		return 0
	fi
	die "no cached kernel tree under $CACHE_DIR/trees has tools/testing/kunit/kunit_parser.py (the $MAINLINE_BRANCH tree's); run 'make tree BRANCH=$MAINLINE_BRANCH'"
}
