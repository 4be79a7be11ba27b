# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# bench-kit.sh - how long the kit itself takes, per branch (make bench-kit):
# wall time of
#   apply        make apply on a fresh scratch copy
#   quilt push -a  quilt alone, the branch's series on a fresh copy (the
#                floor of apply: no plan, no journal, no records)
#   check cold   make check on the patched tree, its build dirs removed
#   check warm   the same again
#   matrix cold  make matrix BRANCHES=b, build dirs removed
#   matrix warm  the same again
# and what share of check is kbuild (the W=1 + sparse builds, timed from
# kbuild's own progress lines) against the total.
#
# The commands run as a user runs them: the kit's bin/ commands of a copy
# of the kit (its own out/), in a private kit cache
# ($CACHE_DIR/work/bench-kit/cache: the pristine trees hard-linked, tools/
# and bin/ linked, its own work/ and build dirs), so that "cold" can remove
# build dirs without touching the ones that make boot/check share, and
# with the shared ccache, which is never wiped: cold = no build dir, warm
# ccache.  Reports go to out/bench-kit.md and out/bench-kit.json (mmbk
# bench-kit-report); the output of the runs to out/bench-kit/.  The host is
# shared, so times are +-20% or worse.
kit_use tables trees fetch steps results

# bench_kit_kbuild_seconds DIR: the seconds make check spent in kbuild,
# from the logs it keeps in DIR (the configuration and prepare of both
# trees, each object's W=1 + sparse build, the PREEMPT_RT pass): each log
# is begun by kbuild's first progress line and last written when its build
# ended (its mtime), and the builds run one after the other
bench_kit_kbuild_seconds() {
	local f start
	for f in "$1"/prepare.unpatched "$1"/prepare.patched "$1"/*.all "$1"/rt-*; do
		[ -f "$f" ] || continue
		start=$(sed -n '1s/^\[\([0-9:]*\)\] kbuild: .*/\1/p' "$f")
		[ -z "$start" ] || printf '%s %s\n' "$start" "$(date -r "$f" +%T)"
	done | awk '
		function sec(t,  a) { split(t, a, ":"); return a[1] * 3600 + a[2] * 60 + a[3] }
		{ d = sec($2) - sec($1); if (d < 0) d += 86400; s += d }
		END { printf "%d", s }'
}

# bench_kit_step BRANCH NAME KBUILD-LOGDIR CMD...: time CMD (output to
# out/bench-kit/), one row of the times table
bench_kit_step() {
	local b=$1 name=$2 logdir=$3 kb=- secs rc
	shift 3
	progress "bench-kit: $b $name: $*"
	step_run "$BK_OUT/$b-${name// /-}.log" "$@"
	secs=$STEP_SECONDS rc=$STEP_RC
	[ -z "$logdir" ] || kb=$(bench_kit_kbuild_seconds "$logdir")
	progress "bench-kit: $b $name: ${secs}s ($([ "$kb" = - ] || echo "kbuild ${kb}s, ")rc $rc)"
	printf '%s\t%s\t%s\t%s\t%s\n' "$b" "$name" "$secs" "$kb" "$rc" >> "$BK_TSV"
}

# bench_kit_tree BRANCH: the private cache's pristine tree of BRANCH, a
# hard-link copy of the kit cache's (never written), made once
bench_kit_tree() {
	local b=$1
	[ ! -f "$BK_CACHE/trees/$b/linux/Makefile" ] || return 0
	mkdir -p "$BK_CACHE/trees/$b"
	rm -rf "$BK_CACHE/trees/$b/linux.tmp"
	cp -al "$(pristine_dir "$b")" "$BK_CACHE/trees/$b/linux.tmp"
	mv "$BK_CACHE/trees/$b/linux.tmp" "$BK_CACHE/trees/$b/linux"
	cp -p "$CACHE_DIR/trees/$b/source" "$CACHE_DIR/trees/$b/linux.manifest" \
		"$CACHE_DIR/trees/$b/linux.sums" "$BK_CACHE/trees/$b/" 2>/dev/null || true
}

# bench_kit_run [BRANCH...]
bench_kit_run() (
	local b d kit scratch tree temp kunit
	if [ "$#" -eq 0 ]; then read -ra b <<< "$SUPPORTED_BRANCHES"; set -- "${b[@]}"; fi
	for b in "$@"; do require_branch "$b"; done
	need_cache
	BK_CACHE=$CACHE_DIR/work/bench-kit/cache
	BK_OUT=$OUT_DIR/bench-kit
	BK_TSV=$BK_OUT/times.tsv
	mkdir -p "$BK_CACHE/trees" "$BK_CACHE/work" "$BK_OUT"
	for d in tools bin apt ccache; do
		[ -e "$BK_CACHE/$d" ] || ln -s "$CACHE_DIR/$d" "$BK_CACHE/$d"
	done
	# the JUnit writers of check and matrix read the kernel's KUnit parser
	# from a cached tree (results.sh kunit_dir): the private cache has that
	# tree too
	tools_tree >/dev/null
	kunit=$(kunit_dir)
	kunit=${kunit#"$CACHE_DIR/trees/"}
	bench_kit_tree "${kunit%%/*}"
	# the kit as a user has it: its tracked files (its own out/)
	kit=$CACHE_DIR/work/bench-kit/kit
	rm -rf "$kit"
	mkdir -p "$kit"
	( cd "$KIT_DIR" && git ls-files -z | xargs -0 cp --parents -t "$kit" ) || die "could not copy the kit to $kit"
	if [ -f "$BK_TSV" ]; then
		awk -F'\t' -v drop=" $* " 'NR == 1 || index(drop, " " $1 " ") == 0' "$BK_TSV" > "$BK_TSV.tmp"
		mv "$BK_TSV.tmp" "$BK_TSV"
	else
		printf 'branch\tstep\tseconds\tkbuild_seconds\tstatus\n' > "$BK_TSV"
	fi
	for b in "$@"; do
		progress "bench-kit: === $b ==="
		bench_kit_tree "$b"
		scratch=$BK_CACHE/work/$b/bench-apply/linux
		MMBK_CACHE=$BK_CACHE "$kit/bin/tree" "$b" > /dev/null
		# apply and its floor, quilt alone pushing the same series, each on
		# a fresh copy of the same tree whose files the kit touches are its
		# own (the pristine tree's files are read-only)
		link_copy "$BK_CACHE/trees/$b/linux" "$scratch"
		bench_kit_step "$b" apply "" env MMBK_CACHE="$BK_CACHE" "$kit/bin/apply" --kdir "$scratch" --force
		link_copy "$BK_CACHE/trees/$b/linux" "$scratch"
		bench_kit_step "$b" "quilt push -a" "" env -C "$scratch" QUILT_PATCHES="$kit/backports/$b" \
			QUILT_SERIES="$kit/backports/$b/series" QUILT_PC=.pc quilt --quiltrc=- push -aq --fuzz=0
		# the patched tree make check works on (made and applied here, untimed)
		tree=$(MMBK_CACHE=$BK_CACHE "$kit/bin/tree" --variant patched "$b" 2>/dev/null | tail -n1)
		rm -rf "$BK_CACHE/trees/$b"/build* "$BK_CACHE/work/$b/patched"/build*
		bench_kit_step "$b" "check cold" "$kit/out/check/$b" env MMBK_CACHE="$BK_CACHE" "$kit/bin/check" --kdir "$tree"
		bench_kit_step "$b" "check warm" "$kit/out/check/$b" env MMBK_CACHE="$BK_CACHE" "$kit/bin/check" --kdir "$tree"
		rm -rf "$BK_CACHE/trees/$b"/build* "$BK_CACHE/work/$b/patched"/build*
		for temp in cold warm; do
			bench_kit_step "$b" "matrix $temp" "$kit/out/check/$b" env MMBK_CACHE="$BK_CACHE" "$kit/bin/matrix" "$b"
			# the matrix's own split (tree, apply = fresh patched copy, check)
			awk -F'\t' -v b="$b" -v s="matrix $temp" '$1 == "step" && $3 == b && $7 != "-" { printf "%s\t%s: %s\t%s\t-\t%d\n", b, s, $2, $7, $5 != "pass" }' \
				"$kit/out/results/$b.steps.tsv" >> "$BK_TSV" ||
				warn "no step records of make matrix $b in $kit/out/results"
		done
	done
	# the report is written either way; its status is 1 when a step
	# failed (a failed step's time measures nothing)
	kit_py bench-kit-report "$BK_TSV" "$OUT_DIR"
)
