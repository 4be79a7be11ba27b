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
	[ "$bad" = "trees.sh (row 3) loads worktree.sh (row 8)" ] ||
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

# default_branch_below KITDIR: lines of KITDIR/lib outside tables.sh (which
# defines it) and cli.sh (which resolves the command's tree) that use the
# default branch
default_branch_below() {
	grep -n 'DEFAULT_BRANCH' "$1"/lib/*.sh | grep -v '^[^:]*/lib/\(tables\|cli\)\.sh:' || true
}

# the default branch is the command's choice (cli.sh resolve_tree, bin/):
# no module below falls back to it; caught in a copy of the library with
# retarget.sh's old fallback
test_no_default_branch_below_the_commands() {
	# shellcheck disable=SC2016  # the text of a shell line
	rule_holds default_branch_below retarget 'echo "${branch:-$DEFAULT_BRANCH}"' \
		"a module below the commands falls back to the default branch" "a fallback to the default branch in retarget.sh was not caught"
}
