# SPDX-License-Identifier: GPL-2.0
# scope.awk - what a "scope" of a C file is, for the probes of
# tables/plan.table and the rules of tables/detect.table (lib/plan.sh):
# "-" is the whole file; otherwise the definition of function NAME ("a|b":
# either name, for a function renamed upstream), from the line that opens
# it (NAME at the start of the line, or after a type; not a declaration
# ending in ';') to the first line that starts with '}'.

# scope_line(name, line): 1 if LINE belongs to NAME's scope, 0 if not, -1
# once the scope has ended; call it on a file's lines in order after
# scope_reset()
function scope_line(name, line) {
	if (name == "-")
		return 1
	if (scope_done)
		return -1
	if (!scope_inside && (line ~ ("^(" name ")\\(") || line ~ ("^[a-zA-Z].*[ *](" name ")\\(")) &&
	    line !~ /;[ \t]*$/)
		scope_inside = 1
	if (!scope_inside)
		return 0
	if (line ~ /^}/)
		scope_done = 1
	return 1
}

function scope_reset() {
	scope_inside = 0
	scope_done = 0
}

# run alone with -v match_scope=SCOPE -v first_match=REGEX (plan.sh
# plan_scope_match): one line "START<TAB>HIT", the scope's first line and
# its first line that matches REGEX (each empty if there is none)
match_scope != "" {
	s = scope_line(match_scope, $0)
	if (s < 0)
		exit
	if (s > 0 && !scope_start)
		scope_start = NR
	if (s > 0 && $0 ~ first_match) {
		hit = NR
		exit
	}
}
END {
	if (match_scope != "")
		print scope_start "\t" hit
}
