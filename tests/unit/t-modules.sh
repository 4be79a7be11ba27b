# SPDX-License-Identifier: GPL-2.0
# tier: fast
# The library's rooms (docs/CONVENTIONS.md): modules load only modules
# above them in the documented order (no cycle), and only state.sh names a
# path under a tree's state directory.
# modules_out_of_order KITDIR: one line per module of KITDIR/lib that loads
# (kit_use, at its top or in a function) a module of its own row or a later
# row of docs/CONVENTIONS.md's module table, or that the table lacks
modules_out_of_order() {
	awk '
	FNR == 1 { doc = FILENAME ~ /CONVENTIONS\.md$/ }
	doc && /^The shell modules, bottom up/ { in_table = 1; next }
	doc && in_table && /^## / { in_table = 0 }
	doc && in_table && /^\| `/ {
		row++
		n = split($0, cell, "|")
		while (match(cell[2], /`[a-z-]+\.sh`/)) {
			rank[substr(cell[2], RSTART + 1, RLENGTH - 5)] = row
			cell[2] = substr(cell[2], RSTART + RLENGTH)
		}
		next
	}
	!doc && /^[ \t]*(\([a-z]+\) )?kit_use [a-z]/ {
		m = FILENAME; sub(/.*\//, "", m); sub(/\.sh$/, "", m)
		line = $0; sub(/.*kit_use /, "", line); sub(/[;)].*/, "", line)
		k = split(line, dep, " ")
		for (i = 1; i <= k; i++) uses[m] = uses[m] " " dep[i]
		seen[m] = 1
	}
	!doc && FNR == 1 { m = FILENAME; sub(/.*\//, "", m); sub(/\.sh$/, "", m); seen[m] = 1 }
	END {
		for (m in seen) {
			if (!(m in rank)) { print m ".sh: not in the module table"; continue }
			k = split(uses[m], dep, " ")
			for (i = 1; i <= k; i++)
				if (!(dep[i] in rank)) print m ".sh loads " dep[i] ".sh, which the module table lacks"
				else if (rank[dep[i]] >= rank[m]) print m ".sh (row " rank[m] ") loads " dep[i] ".sh (row " rank[dep[i]] ")"
		}
	}' "$1/docs/CONVENTIONS.md" "$1"/lib/*.sh | LC_ALL=C sort
}

# the modules load only modules of earlier rows of the documented order
# (no cycle); a module that loads a later one is caught (trees.sh loading
# worktree.sh, as it did before cli.sh resolved the command's tree)
test_modules_in_order() {
	local bad k=$T/modules-kit
	bad=$(modules_out_of_order "$KIT_DIR")
	[ -z "$bad" ] || fail "modules out of the order of docs/CONVENTIONS.md" "$bad"
	mkdir -p "$k"
	cp -r "$KIT_DIR/lib" "$KIT_DIR/docs" "$k/"
	printf '\nf() {\n\tkit_use worktree\n}\n' >> "$k/lib/trees.sh"
	bad=$(modules_out_of_order "$k")
	[ "$bad" = "trees.sh (row 3) loads worktree.sh (row 9)" ] ||
		fail "a module loading a later one was not caught" "$bad"
}

# state_paths_outside KITDIR: lines of KITDIR/lib outside state.sh that
# name a path under the state directory
state_paths_outside() {
	# shellcheck disable=SC2016  # the text $STATE/, not its value
	grep -n -e '$STATE/' -e '${STATE}/' "$1"/lib/*.sh | grep -v '^[^:]*/lib/state\.sh:' || true
}

# rule_holds CHECK MODULE LINE BROKEN MISSED: CHECK KITDIR (the lines of a
# library that break a rule) finds nothing in the kit (else BROKEN), and
# finds LINE added to lib/MODULE.sh of a copy (else MISSED)
rule_holds() {
	local check=$1 module=$2 line=$3 k bad
	bad=$("$check" "$KIT_DIR")
	[ -z "$bad" ] || fail "$4" "$bad"
	k=$(mktemp -d "$T/rule.XXXXXX")
	cp -r "$KIT_DIR/lib" "$k/"
	printf '\nf() {\n\t%s\n}\n' "$line" >> "$k/lib/$module.sh"
	[ -n "$("$check" "$k")" ] || fail "$5"
}

# only state.sh names a path under $STATE (the others read STATE_SERIES,
# STATE_RECORDS, STATE_PATCHES and its accessors); caught in a copy of the
# library that reads the txn mark itself, as apply.sh did
test_state_dir_owned_by_state_sh() {
	# shellcheck disable=SC2016  # the text of a shell line
	rule_holds state_paths_outside apply '[ -f "$STATE/txn" ]' \
		"a path under the state directory outside lib/state.sh" "a read of the txn mark in apply.sh was not caught"
}

# grep_q_after_printf KITDIR: lines of KITDIR's lib/ and tests/unit/ that
# pipe printf or echo into grep -q: bash's printf and echo write a line at
# a time, grep -q exits at its first match, and under pipefail the
# writer's SIGPIPE turns the match into "no match" (t-vendor's
# retarget_refuses_other_changes failed so in a CI run); a here-string
# (grep -q RE <<< "$OUT") or a process substitution has no such race
grep_q_after_printf() {
	grep -nE '(^|[;&|({[:space:]])(printf|echo)[[:space:]][^|]*\|[[:space:]]*grep[[:space:]]+-[a-zA-Z]*q' \
		"$1"/lib/*.sh "$1"/tests/unit/*.sh 2>/dev/null || true
}

# no grep -q after printf or echo in a pipeline; caught in a copy of the
# library with the line that failed
test_no_grep_q_after_printf() {
	# shellcheck disable=SC2016  # the text of a shell line
	rule_holds grep_q_after_printf kbuild "printf '%s\\n' \"\$OUT\" | grep -qE '^0002-[^ ]+ +failed: ' || fail" \
		"printf or echo piped into grep -q" "printf piped into grep -q was not caught"
}

# default_branch_below KITDIR: lines of KITDIR/lib outside tables.sh (which
# defines it) and request.sh (request_branch_or_default, the one fallback
# of a command without KDIR= or BRANCH=) that use the default branch
default_branch_below() {
	grep -n 'DEFAULT_BRANCH' "$1"/lib/*.sh | grep -v '^[^:]*/lib/\(tables\|request\)\.sh:' || true
}

# the default branch is the request's (request.sh, for bin/): no module
# below falls back to it; caught in a copy of the library with
# retarget.sh's old fallback
test_no_default_branch_below_the_commands() {
	# shellcheck disable=SC2016  # the text of a shell line
	rule_holds default_branch_below retarget 'echo "${branch:-$DEFAULT_BRANCH}"' \
		"a module below the commands falls back to the default branch" "a fallback to the default branch in retarget.sh was not caught"
}

# options_parsed_below KITDIR: lines of KITDIR/lib outside request.sh that
# parse options: a case arm of an option (--name) or -X)), a loop over the
# arguments, or a parser of options of its own
options_parsed_below() {
	grep -nE -e '^[[:space:]]*-(-[a-z][a-z0-9-]*|[A-Za-z])(\|[^)]*)?\)' -e '[[:space:]]in[[:space:]]+-(-[a-z]|[A-Za-z]\))' \
		-e 'while \[ \$# -gt 0 \]' \
		-e '^[[:space:]]*(kit|[a-z]+)_options[[:space:]]' "$1"/lib/*.sh | grep -v '^[^:]*/lib/request\.sh:' || true
}

# one parser (request.sh request_parse, tables/options.table): no module
# parses options; an entry point reads the request.  Caught in a copy of
# the library where boot.sh takes --no-build again
test_options_parsed_only_by_the_request() {
	# shellcheck disable=SC2016  # the text of shell lines
	rule_holds options_parsed_below boot 'case $1 in --no-build) build=0 ;; esac' \
		"a module below the commands parses options" "an option parsed in boot.sh was not caught"
	rule_holds options_parsed_below apply 'while [ $# -gt 0 ]; do shift; done' \
		"a module below the commands loops over its arguments" "an argument loop in apply.sh was not caught"
}

# rederived_below KITDIR: lines of KITDIR/lib that resolve the build
# target (kb_target) outside kbuild.sh and request.sh, or the branch of a
# tree (tree_branch, nearest_branch) outside trees.sh, cli.sh and plan.sh
# (whose plan picks, per patch, the branch whose code is nearest)
rederived_below() {
	grep -nE 'kb_target[[:space:]]+"' "$1"/lib/*.sh | grep -v '^[^:]*/lib/\(kbuild\|request\)\.sh:' || true
	grep -nE '(tree_branch|nearest_branch)[[:space:]]+"' "$1"/lib/*.sh |
		grep -v '^[^:]*/lib/\(trees\|cli\|plan\)\.sh:' || true
}

# the tree's branch and the build target are resolved once, into the
# request: no module derives them again; caught in copies of the library
# where matrix.sh calls kb_target and kbuild.sh reads a tree's branch (as
# both did)
test_branch_and_target_resolved_once() {
	# shellcheck disable=SC2016  # the text of a shell line
	rule_holds rederived_below matrix 'kb_target "$arch" "$llvm" "" "$1"' \
		"the build target resolved below the request" "kb_target in matrix.sh was not caught"
	# shellcheck disable=SC2016
	rule_holds rederived_below kbuild 'c=$(branch_field "$(nearest_branch "$(kernel_version "$src")")" config)' \
		"a tree's branch derived again below the commands" "nearest_branch in kbuild.sh was not caught"
}

# the records take the tree's version and the build target from the
# request: the matrix's Markdown reads the version field, never the text
test_the_markdown_reads_the_version_not_the_text() {
	local r=$T/tree.tsv
	printf 'step\ttree\t6.1\ttree\tpass\t-\t1\tfetched\t6.1.999\t-\n' > "$r"
	kit_py results markdown -o "$T/m.md" --branches 6.1 "$r" || fail "results markdown failed"
	grep -q '^| \*\*tree\*\* | 6.1.999 |' "$T/m.md" || fail "the tree cell is not the record's version" "$(grep tree "$T/m.md")"
}

# every option the Makefile passes to a command (make -n with every
# variable given) is one that command takes in tables/options.table; a
# Makefile option the table lacks is caught (--kconfig given to bench
# before bench's row named it)
test_every_make_option_is_in_the_table() {
	local vars t line cmd opt bad='' k=$T/options-kit
	vars=(KDIR=x BRANCH=6.1 ARCH=arm64 LLVM=1 KCONFIG=k TOPICS=t PROFILE=kabi STRICT=1 FORCE=1
		VERIFY=strict BOOT=1 FULL=1 RT=1 SAVE=1 ONLY=patched JUDGE=l FORMAT=mbox MODE=org M=mm PATCHED=0
		COCCI=c.cocci REGEN_CHECK=1 RESUME=1 ROUNDS=2 SCAN_MODES=fast BRANCHES=6.1 VARIANT=patched)
	missing_options() {
		for t in demo tree apply unapply status check matrix regen boot selftests abi export \
			 coccicheck lint test-fast test bench bench-kit; do
			make -s -n -C "$1" "$t" "${vars[@]}" 2>/dev/null | sed -e ':a' -e '/\\$/N; s/\\\n//; ta'
		done | sed 's/ || .*//' | while read -r line; do
			[[ $line =~ ^bin/([a-z-]+)[[:space:]](.*)$ ]] || continue
			cmd=${BASH_REMATCH[1]}
			( # shellcheck disable=SC2034  # read by request_spec
			  REQ_OPTIONS_TABLE=$1/tables/options.table
			  request_spec "$cmd"
			  for opt in ${BASH_REMATCH[2]}; do
				case $opt in -*) [ -n "${REQ_SPEC[$opt]-}" ] || echo "make's $cmd passes $opt" ;; esac
			  done )
		done
	}
	kit_use request
	bad=$(missing_options "$KIT_DIR")
	[ -z "$bad" ] || fail "options the Makefile passes that tables/options.table lacks" "$bad"
	mkdir -p "$k"
	cp -r "$KIT_DIR/Makefile" "$KIT_DIR/tables" "$k/"
	mkdir -p "$k/bin"
	sed -i 's/^\(--kconfig .*\),bench$/\1/' "$k/tables/options.table"
	bad=$(missing_options "$k")
	[ "$bad" = "make's bench passes --kconfig" ] || fail "a Makefile option missing from the table was not caught" "$bad"
}

# entry_points_off_name KITDIR: one line per command of KITDIR/bin whose
# entry point (the last FUNC_run it calls) is not defined in the module
# named after the command (lib/<command>.sh), but for the commands whose
# module has another name, each with why; a command that runs no *_run
# (tree, ci-templates) is left out
entry_points_off_name() {
	local f cmd fn def want
	for f in "$1"/bin/*; do
		cmd=${f##*/}
		fn=$(grep -v '^[[:space:]]*#' "$f" | grep -oE '\b[a-z_]+_run\b' | tail -n1 || true)
		[ -n "$fn" ] || continue
		case $cmd in
		selftests) want=kselftest ;;	# the kernel's kselftests: ksft_, mmbk/kselftest.py
		demo) want=check ;;		# make: tree, apply, then make check's entry point
		*) want=$cmd ;;
		esac
		def=$(grep -lE "^$fn\(\)" "$1"/lib/*.sh || true)
		[ "$def" = "$1/lib/$want.sh" ] || echo "bin/$cmd runs $fn from ${def:-nowhere}, not lib/$want.sh"
	done
}

# each command's entry point is in the module named after it (make test's
# in lib/test.sh: it was lib/selftest.sh, a name one letter from make
# selftests' kselftest.sh), and make unapply and make status run in
# apply.sh's apply_frame, not in make apply's entry point; a command moved
# to a module of another name is named
test_entry_points_are_named_after_their_command() {
	local bad k=$T/names-kit
	bad=$(entry_points_off_name "$KIT_DIR")
	[ -z "$bad" ] || fail "entry points off their command's name" "$bad"
	bad=$(grep -nE '^[^#]*\bapply_run [a-z]' "$KIT_DIR"/lib/*.sh "$KIT_DIR"/bin/* || true)
	[ -z "$bad" ] || fail "apply_run called as a frame of another command" "$bad"
	mkdir -p "$k/bin" "$k/lib"
	cp "$KIT_DIR/bin/test" "$KIT_DIR/bin/check" "$k/bin/"
	cp "$KIT_DIR/lib/check.sh" "$k/lib/"
	cp "$KIT_DIR/lib/test.sh" "$k/lib/selftest.sh"
	bad=$(entry_points_off_name "$k")
	[ "$bad" = "bin/test runs tests_run from $k/lib/selftest.sh, not lib/test.sh" ] ||
		fail "the check does not name make test's entry point in lib/selftest.sh" "$bad"
}

# every module-level constant of mmbk/ is read somewhere (kselftest.py's
# EXPECT_COLUMNS named columns the table does not have, and nothing read it)
test_no_dead_python_constants() {
	local f c bad=''
	for f in "$KIT_DIR"/mmbk/*.py; do
		while read -r c; do
			[ -z "$c" ] || [ "$(cat "$KIT_DIR"/mmbk/*.py | grep -cw -- "$c")" -gt 1 ] || bad="$bad ${f##*/}:$c"
		done < <(sed -nE 's/^([A-Z][A-Z0-9_]+) ?=.*/\1/p' "$f")
	done
	[ -z "$bad" ] || fail "constants nothing reads:$bad"
}

# stages hand back their records (request.sh request_hand_back): the
# matrix computes no other module's output path (it did in four places:
# out/check/<name>/results.tsv, out/boot/<tag>.tsv, the selftests'
# records.tsv and the abi stage's results.tsv; and worktree's apply
# records by worktree_records), make test (lib/test.sh) none of the
# matrix's (it globbed out/results/*-*.tsv: it reads the list matrix_run
# hands back), and every entry point run as a step hands its records back
# (worktree's fresh copy, the matrix's list too)
test_matrix_computes_no_other_modules_path() {
	local bad m
	bad=$(grep -nE 'OUT_DIR/(check|boot|selftests|abi)/|CACHE_DIR/abi|records\.tsv|results\.tsv|worktree_records|\.records([^-]|$)|%\.tsv\}\.ktap' "$KIT_DIR/lib/matrix.sh" |
		grep -v '^[0-9]*:[[:space:]]*#' || true)
	[ -z "$bad" ] || fail "lib/matrix.sh computes another module's output path" "$bad"
	# make test: the matrix's records are the list it hands back
	bad=$(grep -nE 'OUT_DIR"?/(results|status|check|boot|selftests|abi|ktap)\b|CACHE_DIR/abi|records\.list' "$KIT_DIR/lib/test.sh" |
		grep -v '^[0-9]*:[[:space:]]*#' || true)
	[ -z "$bad" ] || fail "lib/test.sh computes the matrix's or another module's output path" "$bad"
	for m in check boot kselftest abi worktree matrix; do
		grep -q 'request_hand_back ' "$KIT_DIR/lib/$m.sh" || bad="$bad $m.sh"
	done
	[ -z "$bad" ] || fail "entry points that do not hand back their records:$bad"
}

# the Makefile maps make variables onto options and nothing else: no
# default of its own (?=) and no variable derived from others (make boot's
# kernel came from PATCHED= and PROFILE= in a VARIANT_ of the Makefile);
# the request derives it once, where it is parsed (request.sh
# request_variant), and rejects a PATCHED= it does not know
test_makefile_maps_variables_only() {
	local bad v
	bad=$(grep -nE '^[A-Za-z_]+[[:space:]]*\?=' "$KIT_DIR/Makefile" || true)
	[ -z "$bad" ] || fail "defaults in the Makefile (tables/options.table and the request hold them)" "$bad"
	bad=$(grep -nE '^[A-Za-z_]+[[:space:]]*:?=' "$KIT_DIR/Makefile" | grep -vE '^[0-9]+:(SHELL|B|given|opt|flag|FROM|TREE|TARGET|APPLY|OK2)[[:space:]]' || true)
	[ -z "$bad" ] || fail "variables the Makefile derives beyond its option helpers" "$bad"
	kit_use request
	for v in "--patched 0=unpatched" "--patched no=unpatched" "--patched 1=patched" "=patched" \
		"--series-profile kabi=patched-kabi" "--patched 0 --series-profile kabi=unpatched" \
		"--patched 0 --variant without-ksm-break-ksm=without-ksm-break-ksm"; do
		# shellcheck disable=SC2086  # the options of one case
		( request_parse boot ${v%=*} && [ "$REQ_VARIANT" = "${v#*=}" ] ) ||
			fail "bin/boot ${v%=*}: the variant is not ${v#*=}"
	done
	# shellcheck disable=SC2016  # expanded by the inner bash
	run_kit bash -c '. "$1/lib/kit.sh"; kit_use request; request_parse boot --patched maybe' - "$KIT_DIR"
	expect_one_line_error "PATCHED=maybe: use PATCHED=1 or PATCHED=0"
	run_kit make -s -n -C "$KIT_DIR" boot BRANCH=6.12 PATCHED=0 PROFILE=kabi
	expect_out '--patched "0"' "make boot does not pass PATCHED= as it is"
	expect_out '--series-profile "kabi"' "make boot does not pass PROFILE= as it is"
}

# one reader of tables per language: in mmbk/ only tables.py splits a
# table's lines (tables.read_table; ktap.py's boot-expect, abi_report.py's
# abi-expect and kselftest.py's kselftest-expect readers had their own,
# with their own comment rules), but for kselftest.py's write_expect,
# which keeps the comment lines of the table it rewrites
test_one_python_table_reader() {
	local bad
	bad=$({
		grep -nE "split\('#'|^[^#]*\\\\s\*#\.\*" "$KIT_DIR"/mmbk/*.py | grep -v "^$KIT_DIR/mmbk/tables.py:" || true
		awk -v q="'" '/^def /{ fn = $2 } index($0, "startswith(" q "#" q ")") && fn !~ /^write_expect/ && FILENAME !~ /(tables|kunit)\.py$/ {
			print FILENAME ":" FNR ": " $0 }' "$KIT_DIR"/mmbk/*.py
	})
	[ -z "$bad" ] || fail "table lines split outside mmbk/tables.py read_table" "$bad"
}
