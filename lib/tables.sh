# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034  # variables for the modules
# tables.sh - the kit's data: tables/ (branches, topics, header rules, ...),
# the series files and the patches' metadata.  Every module asks these
# functions; the Python side is mmbk/tables.py.

BRANCHES_TABLE=$TABLES_DIR/branches.table
TOPICS_TABLE=$TABLES_DIR/topics.table

# table_rows FILE -> the data rows of a kit table: comments, "@" settings
# and blank lines dropped, runs of blanks squeezed to one TAB
# (the one parser of the tables' format; read by the shell itself, no
# process: it runs for every table lookup)
table_rows() {
	local line w lead IFS=$'\t'
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%%#*}
		case $line in @*) continue ;; esac
		IFS=$' \t' read -ra w <<< "$line"
		[ ${#w[@]} -gt 0 ] || continue
		lead=''
		case $line in [[:space:]]*) lead=$'\t' ;; esac
		printf '%s%s\n' "$lead" "${w[*]}"
	done < "$1"
}

# table_for_branch FILE BRANCH -> the rows of FILE (first column a branch
# or "*") that hold for BRANCH, without that column: its own rows where it
# has any, else the "*" rows (the "per branch, * default" of whole rows:
# tables/boot-baselines.table; mmbk/tables.py for_branch is the same)
table_for_branch() {
	local row own='' def=''
	while IFS= read -r row; do
		case ${row%%$'\t'*} in
		"$2") own+=${row#*$'\t'}$'\n' ;;
		'*') def+=${row#*$'\t'}$'\n' ;;
		esac
	done < <(table_rows "$1")
	printf '%s' "${own:-$def}"
}

# table_setting FILE NAME -> value of an "@NAME value" line
table_setting() {
	sed -n "s/^@$2[[:space:]]\{1,\}//p" "$1" | sed -n 1p
}

# --- branches ------------------------------------------------------------
# branch_field BRANCH COLUMN -> one column of branches.table:
# source origin pin config rt role overlay
branch_field() {
	local col
	case $2 in
	source) col=2 ;; origin) col=3 ;; pin) col=4 ;; config) col=5 ;;
	rt) col=6 ;; role) col=7 ;; overlay) col=8 ;;
	*) die "branch_field: unknown column '$2'" ;;
	esac
	[ -n "${TABLES_BRANCH[$1]-}" ] || return 0
	local -a w
	IFS=$'\t' read -ra w <<< "${TABLES_BRANCH[$1]}"
	printf '%s\n' "${w[col - 1]-}"
}

# tables_read_branches: the branch table, read once by the shell when the
# module loads (every command does): TABLES_BRANCH[branch] is its row
# (table_rows, TAB separated), SUPPORTED_BRANCHES in table order,
# which is version order (tests/unit/t-tables.sh checks it), and
# DEFAULT_BRANCH, the first whose role is "default", and MAINLINE_BRANCH,
# the first whose role is "mainline" (the newest branch where none is)
tables_read_branches() {
	local row w
	while IFS= read -r row; do
		IFS=$'\t' read -ra w <<< "$row"
		TABLES_BRANCH[${w[0]}]=$row
		SUPPORTED_BRANCHES+="${SUPPORTED_BRANCHES:+ }${w[0]}"
		[ -n "$DEFAULT_BRANCH" ] || [ "${w[6]-}" != default ] || DEFAULT_BRANCH=${w[0]}
		[ -n "$MAINLINE_BRANCH" ] || [ "${w[6]-}" != mainline ] || MAINLINE_BRANCH=${w[0]}
	done < <(table_rows "$BRANCHES_TABLE")
}

[ -f "$BRANCHES_TABLE" ] || die "no branch table $BRANCHES_TABLE"
declare -gA TABLES_BRANCH=()
SUPPORTED_BRANCHES='' DEFAULT_BRANCH='' MAINLINE_BRANCH=''
tables_read_branches
NEWEST_BRANCH=${SUPPORTED_BRANCHES##* }
MAINLINE_BRANCH=${MAINLINE_BRANCH:-$NEWEST_BRANCH}

# branches_newest_first -> the supported branches, newest first, one a line
branches_newest_first() {
	tr ' ' '\n' <<< "$SUPPORTED_BRANCHES" | tac
}

# branches_with COLUMN VALUE -> the branches whose COLUMN is VALUE
branches_with() {
	local b
	for b in $SUPPORTED_BRANCHES; do
		[ "$(branch_field "$b" "$1")" != "$2" ] || printf '%s\n' "$b"
	done | paste -sd' '
}

is_supported_branch() {
	case " $SUPPORTED_BRANCHES " in *" $1 "*) return 0 ;; esac
	return 1
}

require_branch() {
	[ -n "$1" ] || usage_error "no branch given; set BRANCH= to one of: $SUPPORTED_BRANCHES"
	is_supported_branch "$1" ||
		usage_error "unsupported branch '$1'; set BRANCH= to one of: $SUPPORTED_BRANCHES"
}

# branch_number BRANCH -> comparable number ("6.12" -> 6012); the shell's
# own arithmetic (nearest_branch asks it for every branch)
branch_number() {
	local major minor
	IFS=. read -r major minor _ <<< "$1"
	printf '%d\n' "$(( 10#${major:-0} * 1000 + 10#${minor:-0} ))"
}

# nearest_branch VERSION -> the newest supported branch not newer than
# VERSION ("6.7.0" -> 6.6), or nothing if VERSION is older than them all
nearest_branch() {
	local want b best=
	want=$(branch_number "${1%.*}")
	for b in $SUPPORTED_BRANCHES; do
		[ "$(branch_number "$b")" -le "$want" ] && best=$b
	done
	printf '%s\n' "$best"
}

# --- topics --------------------------------------------------------------
# The topic lookups are read by the shell itself (no process): make apply
# asks them for every patch.
# all_topics -> topic names in the order of their first patch in ./series
all_topics() {
	local name t seen=' '
	for name in $(series_patches "$DATA_DIR/series"); do
		t=$(topic_of "$name")
		case $seen in *" $t "*) continue ;; esac
		seen="$seen$t "
		printf '%s\n' "$t"
	done
}

# topic_of PATCH -> the topic of a patch of ./series (the first row of
# tables/topics.table that names it; table_rows' rules)
topic_of() {
	local topic patch _
	while IFS=$'\t' read -r topic patch _; do
		if [ "$patch" = "$1" ]; then
			printf '%s\n' "$topic"
			return 0
		fi
	done < <(table_rows "$TOPICS_TABLE")
}

# topic_patches TOPIC -> its patches, in ./series order
topic_patches() {
	local name
	for name in $(series_patches "$DATA_DIR/series"); do
		[ "$(topic_of "$name")" != "$1" ] || printf '%s\n' "$name"
	done
}

is_topic() {
	local t
	for t in $(all_topics); do
		[ "$t" != "$1" ] || return 0
	done
	return 1
}

# check_topics LIST -> LIST (comma or blank separated) one per line,
# after checking every name
check_topics() {
	local t
	for t in $(printf '%s' "$1" | tr ',' ' '); do
		is_topic "$t" || usage_error "unknown topic '$t'; set TOPICS= to some of: $(all_topics | paste -sd' ')"
		printf '%s\n' "$t"
	done
}

# --- series and patches ----------------------------------------------------
series_file() {		# BRANCH -> the branch's quilt series
	printf '%s/backports/%s/series\n' "$DATA_DIR" "$1"
}

# series_patches SERIESFILE -> patch names in order (comments, blanks dropped)
series_patches() {
	local line w
	while IFS= read -r line || [ -n "$line" ]; do
		read -ra w <<< "${line%%#*}"
		[ ${#w[@]} -eq 0 ] || printf '%s\n' "${w[0]}"
	done < "$1"
}

# patch_upstream_id PATCHFILE -> upstream commit id from the stable header,
# "Git-commit:" tag, or the format-patch "From <sha>" line
patch_upstream_id() {
	local line
	local commit='^commit ([0-9a-f]{12,40}) upstream\.$' tag='^Git-commit: ([0-9a-f]{12,40})'
	local from='^From ([0-9a-f]{40}) '
	# the first such line, read by the shell (detect_tree asks it for
	# every patch)
	while IFS= read -r line; do
		if [[ $line =~ $commit || $line =~ $tag || $line =~ $from ]]; then
			printf '%s\n' "${BASH_REMATCH[1]}"
			return 0
		fi
	done < "$1"
}

# patch_subject PATCHFILE -> the subject, folded lines joined, "[PATCH]" dropped
patch_subject() {
	awk '/^Subject: / {
		s = $0
		while ((getline l) > 0 && l ~ /^[ \t]/) s = s l
		sub(/^Subject: (\[PATCH[^]]*\] )?/, "", s)
		print s
		exit
	}' "$1"
}

# patch_files PATCHFILE... -> files the patches touch (relative to the tree
# top), sorted, each once
patch_files() {
	local line f i n p sorted=()
	for p in "$@"; do
		[ -f "$p" ] || { printf 'patch_files: no patch %s\n' "$p" >&2; return 1; }
	done
	# read by the shell (make apply asks it for every patch of every topic);
	# the names sorted and unique, as sort -u would give them
	while IFS= read -r line; do
		[[ $line == '+++ '* ]] || continue
		f=${line#+++ }
		f=${f#"${f%%[! ]*}"}
		f=${f%%[$'\t' ]*}
		f=${f#b/}
		[ "$f" != /dev/null ] || continue
		n=${#sorted[@]}
		for ((i = 0; i < n; i++)); do
			[[ $f > ${sorted[i]} ]] || break
		done
		[ "$i" -lt "$n" ] && [ "${sorted[i]}" = "$f" ] && continue
		sorted=("${sorted[@]:0:i}" "$f" "${sorted[@]:i}")
	done < <(for p in "$@"; do printf '%s\n' "$(<"$p")"; done)
	[ ${#sorted[@]} -eq 0 ] || printf '%s\n' "${sorted[@]}"
}

# patch_header PATCHFILE -> everything up to and including the first '---'
patch_header() {
	sed -n '1,/^---$/p' "$1"
}

# patch_header_end PATCHFILE -> line number of the '---' ending the header
# (or the last line when there is none)
patch_header_end() {
	awk '/^---$/ { print NR; f = 1; exit } END { if (!f) print NR }' "$1"
}

# patch_is_wellformed PATCHFILE...: each file is a patch: at least one
# hunk, every hunk's line counts match its header ("---"/"+++" pairs,
# "@@ -a,b +c,d @@"); otherwise prints "FILE<TAB>what is wrong" for the
# first that is not, status 1 (one process for a topic's patches)
patch_is_wellformed() {
	local p
	for p in "$@"; do	# awk sees no line of an empty file
		[ -s "$p" ] || { printf '%s\tno hunk in it\n' "$p"; return 1; }
	done
	awk '
		function bad(m) { print cur "\t" m; err = 1; exit 1 }
		function done() {
			if (inhunk) bad("the hunk at line " start " is cut short")
			if (!hunks) bad("no hunk in it")
			inhunk = minus = files = hunks = 0
		}
		FNR == 1 && NR > 1 { done() }
		{ cur = FILENAME }
		/^--- / && !inhunk { minus = 1; next }
		/^\+\+\+ / && !inhunk { if (!minus) bad("line " FNR ": +++ without ---"); files++; minus = 0; next }
		/^@@ / {
			if (inhunk) bad("line " FNR ": hunk starts before the previous one (line " start ") is complete")
			if (!files) bad("line " FNR ": hunk before any file header")
			if (!match($0, /^@@ -[0-9]+(,[0-9]+)? \+[0-9]+(,[0-9]+)? @@/)) bad("line " FNR ": malformed hunk header")
			split($2, a, ","); split($3, b, ",")
			old = (a[2] == "" ? 1 : a[2]) + 0; new = (b[2] == "" ? 1 : b[2]) + 0
			inhunk = (old + new > 0); start = FNR; hunks++; next
		}
		inhunk {
			c = substr($0, 1, 1)
			if (c == " " || $0 == "") { old--; new-- }
			else if (c == "-") old--
			else if (c == "+") new--
			else if (c == "\\") next
			else bad("line " FNR ": a hunk (line " start ") ends early")
			if (old < 0 || new < 0) bad("line " FNR ": more lines than the hunk header (line " start ") says")
			if (old == 0 && new == 0) inhunk = 0
		}
		END { if (err) exit 1; done() }
	' "$@"
}

# patch_diffstat PATCHFILE -> git format-patch style diffstat of the diff in PATCHFILE
# (git apply --stat, with the change counts right-aligned to their widest
# value as format-patch prints them)
patch_diffstat() {
	git apply --stat "$1" | awk '
		{ line[NR] = $0 }
		/\|/ { split($0, a, "|"); split(a[2], b, " "); if (length(b[1]) > w) w = length(b[1]) }
		END {
			for (i = 1; i <= NR; i++) {
				if (split(line[i], a, "|") == 2) {
					n = split(a[2], b, " ")
					printf "%s| %*s%s\n", a[1], w, b[1], (n > 1 ? " " b[2] : "")
				} else
					print line[i]
			}
		}'
}

# patch_rejects PATCH FROMDIR SCRATCH DEST: PATCH tried at fuzz 0 on a copy
# (in SCRATCH, emptied) of the files it touches as FROMDIR has them; its
# .rej files go to DEST (emptied); prints a one-line summary of what failed
# ("N out of M hunks FAILED in FILE; ...").  Never fails.
patch_rejects() {
	local patchfile=$1 from=$2 tmp=$3 dest=$4 f
	rm -rf "$tmp" "$dest"
	mkdir -p "$tmp" "$dest"
	for f in $(patch_files "$patchfile"); do
		[ -e "$from/$f" ] || continue
		mkdir -p "$tmp/$(dirname "$f")"
		cp "$from/$f" "$tmp/$f"
	done
	patch -d "$tmp" -p1 -F0 --no-backup-if-mismatch < "$patchfile" > "$tmp/.kit-patch.log" 2>&1 || true
	while IFS= read -r f; do
		mkdir -p "$dest/$(dirname "$f")"
		cp "$tmp/$f" "$dest/$f"
	done < <(cd "$tmp" && find . -name '*.rej' -printf '%P\n')
	sed -n -e 's/^\([0-9]* out of [0-9]* hunks\{0,1\} FAILED\).* to file \(.*\)\.rej$/\1 in \2/p' \
		-e 's/^can.t find file to patch.*/a file is missing/p' "$tmp/.kit-patch.log" |
		join_lines
}

# kit_touched_files -> every file any patch of the kit touches
kit_touched_files() {
	local p
	for p in "$DATA_DIR"/patches/*.patch "$DATA_DIR"/backports/*/*.patch; do
		if [ -f "$p" ]; then patch_files "$p"; fi
	done | sort -u
}

# --- header rules and checkpatch -------------------------------------------
# Ignored checkpatch types (make check, make lint), each for a reason
# outside the patch:
#   GIT_COMMIT_ID        the stable-kernel header "commit <sha> upstream."
#   UNKNOWN_COMMIT_ID    is required as is, and the trees are not git
#                        trees, so the sha cannot be looked up
#   COMMIT_LOG_LONG_LINE upstream's commit message is carried verbatim
#                        (62b98015d988 has a benchmark table)
CHECKPATCH_IGNORE=GIT_COMMIT_ID,UNKNOWN_COMMIT_ID,COMMIT_LOG_LONG_LINE

# header_rules [TABLE] -> "rule<TAB>applies<TAB>kind<TAB>arg<TAB>message"
# rows of the header rule table (default tables/header-rules.table): the
# one reader of that table
header_rules() {
	grep -v '^#' "${1:-$TABLES_DIR/header-rules.table}" | grep -v '^[[:space:]]*$' | tr -s '\t'
}

# checkpatch_waivers PATCHFILE [TABLE] -> ",TYPE..." reviewed and waived
# for that patch (rows of kind checkpatch-waive)
checkpatch_waivers() {
	local rel=${1#"$DATA_DIR"/} glob kind arg
	while IFS=$'\t' read -r _ glob kind arg _; do
		[ "$kind" = checkpatch-waive ] || continue
		# shellcheck disable=SC2254
		case $rel in $glob) printf ',%s' "$arg" ;; esac
	done < <(header_rules "${2:-}")
}
