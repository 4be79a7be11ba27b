# SPDX-License-Identifier: GPL-2.0
# bench-rounds.awk - which of a branch's rounds a resumed 'make bench' keeps.
#
#   awk -F'\t' -f bench-rounds.awk -v b=BRANCH -v su=SHA -v sp=SHA -v sw=SHA \
#       -v resume=0|1 -v kf=KEPT metrics.tsv metrics.tsv > new.tsv
#
# metrics.tsv is read twice.  Pass 1 finds BRANCH's rounds whose two boots
# completed (boot.completed 1) with the kernels now built: bzImage sha256
# prefixes su (unpatched) and sp (patched), and the workloads now built:
# sw, the sha256 prefix of the bench programs (bench.programs; a round
# measured with other programs measured something else).  Pass 2 prints the header, the
# other branches' rows, the rows of those rounds and BRANCH's run.* rows (the
# earlier runs' dates and times), all only when resume is 1; the kept round
# numbers go to the file kf.  A round with another kernel, a failed boot or
# one of its two boots missing is dropped and measured again.
# su, sp or sw "*" matches any (bench.sh --save); with -v kk=FILE the kept
# rounds' kernels and programs go to FILE, one "su sp sw" line per round,
# so that --save can refuse rounds of different kernels.

FNR == NR {
	if ($1 != b || $3 !~ /^[0-9]+$/)
		next
	if ($4 == "boot.completed" && $5 == 1)
		done[$3, $2] = 1
	if ($4 == "kernel.bzimage")
		sha[$3, $2] = $5
	if ($4 == "bench.programs")
		prog[$3, $2] = $5
	rounds[$3] = 1
	next
}

FNR == 1 {
	if (resume == 1)
		for (r in rounds)
			if (done[r, "unpatched"] && done[r, "patched"] &&
			    same(sha[r, "unpatched"], su) && same(sha[r, "patched"], sp) &&
			    same(prog[r, "unpatched"], sw) && same(prog[r, "patched"], sw)) {
				keep[r] = 1
				nkeep++
				if (kk != "")
					print sha[r, "unpatched"], sha[r, "patched"], prog[r, "unpatched"] > kk
			}
	for (r in keep)
		print r > kf
	print
	next
}

$1 != b || ($3 in keep) || ($4 ~ /^run\./ && nkeep > 0) {
	print
}

function same(have, want)
{
	return want == "*" || have == want
}
