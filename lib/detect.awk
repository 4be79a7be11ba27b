# SPDX-License-Identifier: GPL-2.0
# detect.awk - tables/detect.table judged on a tree in one process (with
# scope.awk; lib/plan.sh detect_tree).  Input: the table.  -v tree=DIR,
# -v patches="NAME=ID ..." (the series' patches and their upstream ids, in
# order).  Output: "NAME<TAB>verdict<TAB>why" for each patch with rules:
# present when every rule holds; absent with the first rule that fails; or
# unknown with the first rule whose file or function is not in the tree
# (that ends the patch's rules).  A rule holds when some line of its scope
# matches its regex (an ERE) and it expects "present", or none does and it
# expects "absent".
BEGIN { FS = "\t" }
/^#/ || NF < 5 { next }
{
	rule[$1, ++nrules[$1]] = $0
}

# holds(file, scope, expect, re) -> 0 holds, 1 fails, 2 code not found
function holds(file, scope, expect, re,    path, i, n, r, line, in_scope, seen, hit) {
	path = tree "/" file
	if (!(path in nlines)) {
		n = 0
		while ((r = (getline line < path)) > 0)
			text[path, ++n] = line
		close(path)
		nlines[path] = r < 0 ? -1 : n	# -1: no such file
	}
	if (nlines[path] < 0)
		return 2
	scope_reset()
	seen = hit = 0
	for (i = 1; i <= nlines[path]; i++) {
		in_scope = scope_line(scope, text[path, i])
		if (in_scope < 0)
			break
		if (!in_scope)
			continue
		seen = 1
		if (text[path, i] ~ re) {
			hit = 1
			break
		}
	}
	if (!seen && scope != "-")
		return 2
	return (hit ? expect == "present" : expect == "absent") ? 0 : 1
}

END {
	np = split(patches, list, " ")
	for (p = 1; p <= np; p++) {
		eq = index(list[p], "=")
		name = substr(list[p], 1, eq - 1)
		id = substr(list[p], eq + 1)
		if (!(id in nrules))
			continue
		verdict = "present"
		why = ""
		for (r = 1; r <= nrules[id]; r++) {
			split(rule[id, r], f, "\t")
			rc = holds(f[2], f[3], f[4], f[5])
			if (rc == 2) {
				verdict = "unknown"
				why = f[2] ":" f[3] ": code not found"
				break
			}
			if (rc && verdict == "present") {
				verdict = "absent"
				why = f[2] ":" f[3] ": expected " f[4] " /" f[5] "/"
			}
		}
		print name "\t" verdict "\t" why
	}
}
