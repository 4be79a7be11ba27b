# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2016  # the scripts in single quotes are expanded by the new bash
# tier: fast
# errexit in the kit's own code: kit_try runs a step with errexit in force
# and refuses to run where bash ignores errexit (under if, ||, && or !),
# where a step would run on past its failures and could end in 0 (make
# test once ran the whole matrix under "|| true": abi's builds failed on
# an undefined function and the step still passed); and every function the
# kit's shell code calls is defined (a renamed function was still called by
# its old name).

# kit_sh SCRIPT: run SCRIPT in a new bash with the kit's library loaded, as
# a command in bin/ has it
kit_sh() {
	bash -c 'set -euo pipefail; . "$1/lib/kit.sh"; eval "$2"' kit_sh "$KIT_DIR" "$1"
}

test_kit_try_keeps_errexit() {
	local out
	out=$(kit_sh 'half() { x=$(false); echo "reached with x=$x"; }
		kit_try half; echo "KIT_RC=$KIT_RC"')
	[ "$out" = "KIT_RC=1" ] || fail "kit_try ran on past a failing command substitution" "$out"
}

test_kit_try_refuses_where_errexit_is_ignored() {
	local out rc=0
	out=$(kit_sh 'half() { x=$(false); echo "reached with x=$x"; }
		step() { kit_try half; echo "KIT_RC=$KIT_RC"; }
		step || true; echo "the caller went on"' 2>&1) || rc=$?
	[ "$rc" = 1 ] || fail "kit_try under || exited $rc, not 1" "$out"
	grep -q "error: internal error: kit_try half runs where errexit is ignored" <<< "$out" ||
		fail "no error naming kit_try's caller context" "$out"
	! grep -qE "reached|KIT_RC=0|went on" <<< "$out" || fail "the step ran on with errexit ignored" "$out"
	# the same step through kit_try from a plain command is in force
	out=$(kit_sh 'half() { x=$(false); echo "reached with x=$x"; }
		step() { kit_try half; echo "KIT_RC=$KIT_RC"; }
		kit_try step; echo "outer KIT_RC=$KIT_RC"' 2>&1)
	[ "$out" = $'KIT_RC=1\nouter KIT_RC=0' ] || fail "kit_try inside kit_try" "$out"
}

# every word in a command position of lib/ and bin/ that looks like a kit
# function (lower case with an underscore) is a function the kit defines,
# a builtin or a command
test_every_called_function_is_defined() {
	local funcs f w missing=''
	funcs=$(grep -ho '^[[:space:]]*[a-zA-Z_][a-zA-Z0-9_]*()' "$KIT_DIR"/lib/*.sh "$KIT_DIR"/bin/* | tr -d '() \t' | sort -u)
	for f in "$KIT_DIR"/lib/*.sh "$KIT_DIR"/bin/*; do
		for w in $(undefined_candidates "$f"); do
			grep -qxF "$w" <<< "$funcs" || type -t "$w" > /dev/null 2>&1 ||
				missing+="${f#"$KIT_DIR"/}: $w"$'\n'
		done
	done
	[ -z "$missing" ] || fail "called but not defined anywhere in lib/ or bin/" "$missing"
}

# undefined_candidates FILE -> the function-like words FILE runs as commands
# (at a line's start, after ; && || ! ( { $( then do else, or as the command
# of kit_try, step_run OUT, in_kit MODULE)
undefined_candidates() {
	grep -v '^[[:space:]]*#' "$1" |
		grep -oE '(^[[:space:]]*|; |&& |\|\| |\$\(|then |do |else |! |\{ |\( |kit_try |step_run [^ ]+ )[a-z][a-z0-9]*_[a-z0-9_]*( |$|\))' |
		sed -E 's/^([[:space:]]*|; |&& |\|\| |\$\(|then |do |else |! |\{ |\( |kit_try |step_run [^ ]+ )//; s/[ )]$//' |
		sort -u || true
}
