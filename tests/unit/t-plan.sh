# SPDX-License-Identifier: GPL-2.0
# One plan for one tree on any machine: lib/plan.sh decides from the tree
# and the committed reference data (backports/<branch>/reference.json and
# touched.sums), never from what the cache holds; what needs a branch's
# tree (re-targeting) fetches it; a sealed tree is read under a shared lock.

# cache_with NAME BRANCH... -> a kit cache holding only BRANCH's pristine
# trees (links to the real ones: nothing is extracted)
cache_with() {
	local c=$T/cache-$1 b
	shift
	rm -rf "$c"
	mkdir -p "$c/trees"
	for b in "$@"; do
		[ -f "$(pristine_dir "$b")/Makefile" ] || fail "test setup: no cached $b tree"
		mkdir -p "$c/trees/$b"
		ln -s "$(pristine_dir "$b")" "$c/trees/$b/linux"
	done
	printf '%s\n' "$c"
}

# plan_with CACHE TREE -> plan_tree's decisions for TREE with CACHE as the
# kit's cache ("NNNN verdict [branch]" a patch, on one line)
plan_with() {
	local out
	out=$(MMBK_CACHE=$1 bash -c '. "$1/lib/kit.sh"; kit_use plan; plan_tree "$2"' - "$KIT_DIR" "$2" 2>&1) ||
		fail "plan_tree of $2 with the cache $1 failed" "$out"
	awk -F'\t' '{ printf "%s%s %s%s", (NR > 1 ? " " : ""), substr($1, 1, 4), $2, ($2 == "carry" ? " " $3 : "") }
		END { print "" }' <<< "$out"
}

# vendor_drift DIR: vendor-style edits inside the definitions the series
# changes (renamed locals, a hook call), so that no branch's files are the
# tree's and the plan must compare code
vendor_drift() {
	local kh=$1/mm/khugepaged.c ksm=$1/mm/ksm.c rw=$1/kernel/locking/rwsem.c
	sed -i -e '/^static [a-z ]*__collapse_huge_page_isolate(/,/^}/s/\bnone_or_zero\b/nr_none_zero/g' \
	       -e '/scan_mm_slot(/,/^}/s/\bprogress\b/vendor_progress/g' "$kh"
	sed -i -e '/^static int break_ksm(/,/^}/s/\bvma\b/kvma/g' "$ksm"
	sed -i -e '/^rwsem_down_read_slowpath(/,/^}/s/^\tDEFINE_WAKE_Q(wake_q);$/&\n\ttrace_android_vh_rwsem_read_wait_start(sem);/' "$rw"
	{ grep -q 'vendor_progress' "$kh" && grep -q 'kvma' "$ksm" && grep -q 'trace_android_vh_rwsem_read_wait_start' "$rw"; } ||
		fail "test setup: the vendor drift was not made in $1"
}

# The plan of every branch's touched files as they are, of two drifted
# vendor-like trees and of a version between two branches is the same with
# an empty cache, with only the default branch's tree, with two trees and
# with all of them.  (Before the reference data: with only 6.12 cached, a
# 5.10 tree was planned from 6.12 throughout, 0001 included, which 6.12's
# series does not carry.)
test_plan_same_whatever_the_cache_holds() {
	local b fx=() t st want got bad='' caches=()
	for b in $SUPPORTED_BRANCHES; do fx+=("$(mini "$b" "plan-$b")"); done
	fx+=("$(mini 5.10 plan-drift-5.10)" "$(mini 6.1 plan-drift-6.1)" "$(mini 5.10 plan-5.12)")
	vendor_drift "$T/plan-drift-5.10"
	vendor_drift "$T/plan-drift-6.1"
	vendor_drift "$T/plan-5.12"
	sed -i 's/^PATCHLEVEL = 10$/PATCHLEVEL = 12/' "$T/plan-5.12/Makefile"
	# shellcheck disable=SC2086  # the branch list
	caches=("$(cache_with all $SUPPORTED_BRANCHES)" "$(cache_with empty)" "$(cache_with one "$DEFAULT_BRANCH")"
		"$(cache_with two "$DEFAULT_BRANCH" 6.6)")
	for t in "${fx[@]}"; do
		want=$(plan_with "${caches[0]}" "$t")
		printf '# %s: %s\n' "${t##*/}" "$want"
		for st in "${caches[@]:1}"; do
			got=$(plan_with "$st" "$t")
			[ "$got" = "$want" ] || bad+="${t##*/} with ${st##*/cache-}: $got"$'\n'"  (all trees cached: $want)"$'\n'
		done
	done
	[ -z "$bad" ] || fail "the plan depends on the cache:" "$bad"
	# and each branch's own files come from that branch, every patch
	for b in $SUPPORTED_BRANCHES; do
		got=$(plan_with "${caches[1]}" "$T/plan-$b")
		for t in $(series_patches "$(series_file "$b")"); do
			[[ " $got " == *" ${t:0:4} carry $b "* ]] || fail "$b's own files: ${t:0:4} is not carried from $b" "$got"
		done
	done
}

# A branch whose series does not carry a patch (upstream there) is never its
# source, whatever scores best: every "carry BRANCH" of the plans of 5.10,
# 5.15 and 6.1 trees names a branch whose series lists the patch, with the
# cache holding only the default branch's tree (before: 0001 from 6.12)
test_only_a_branch_that_carries_a_patch_is_its_source() {
	local b d c got w num src name
	c=$(cache_with carries "$DEFAULT_BRANCH")
	for b in 5.10 5.15 6.1; do
		d=$(mini "$b" "plan-carries-$b")
		vendor_drift "$d"
		got=$(plan_with "$c" "$d")
		read -ra w <<< "$got"
		while [ ${#w[@]} -gt 0 ]; do
			num=${w[0]} src=''
			if [ "${w[1]}" = carry ]; then src=${w[2]}; w=("${w[@]:3}"); else w=("${w[@]:2}"); fi
			[ -n "$src" ] || continue
			name=$(series_patches "$DATA_DIR/series" | sed -n "/^$num-/p")
			grep -qxF "$name" <<< "$(series_patches "$(series_file "$src")")" ||
				fail "$b: $num is planned from $src, whose series does not carry it" "$got"
		done
	done
}

# The README's flow on a machine whose cache holds only the default branch's
# tree (what `make` leaves): make apply of a 5.10 tree lands every topic.
# (Before: "backports/6.12/0001-... is listed in the series but missing",
# status 1.)
test_apply_5_10_with_only_the_default_branch_cached() {
	local c d
	c=$(cache_with readme "$DEFAULT_BRANCH")
	d=$(mini 5.10 plan-readme-5.10)
	RC=0
	OUT=$(MMBK_CACHE=$c "$KIT_DIR/bin/apply" --kdir "$d" 2>&1) || RC=$?
	expect_rc 0 "apply of a 5.10 tree with only $DEFAULT_BRANCH cached"
	for t in $(all_topics); do
		expect_out "$t" "apply's report names $t"
	done
	[ -z "$(sed -n '/missing/p' <<< "$OUT")" ] || fail "apply names a missing patch" "$OUT"
	RC=0
	OUT=$(MMBK_CACHE=$c "$KIT_DIR/bin/status" --kdir "$d" 2>&1) || RC=$?
	expect_rc 0 "status after the apply"
}

# Re-targeting from a branch whose tree is not cached fetches that tree
# (from the pinned tarball, with progress) instead of failing with "no
# cached tree ... run make tree".
test_retarget_fetches_the_source_branch_tree() {
	local c d b=6.6
	{ [ -n "${MMBK_TARBALLS:-}" ] && [ -d "$MMBK_TARBALLS" ]; } || skip "no MMBK_TARBALLS: the $b tarball cannot be fetched here"
	c=$(cache_with retarget-fetch)
	d=$(mini "$b" plan-retarget-$b)
	# a renamed local in the code 0002 and 0003 change: their semantic
	# patches re-target them, the other patches apply as they are
	sed -i '/^static int __collapse_huge_page_isolate(/,/^}/s/\bnone_or_zero\b/nr_none_zero/g' "$d/mm/khugepaged.c"
	grep -q nr_none_zero "$d/mm/khugepaged.c" || fail "test setup: no drift in $d/mm/khugepaged.c"
	RC=0
	OUT=$(MMBK_CACHE=$c bash -c '. "$1/lib/kit.sh"; kit_use retarget request; request_reset test; retarget_run "$3" 0 "$2"' \
		- "$KIT_DIR" "$d" "$T/plan-retarget-out" 2>&1) || RC=$?
	expect_out "whose tree is not in the cache yet; fetching it" "re-targeting names the fetch"
	[ -f "$c/trees/$b/linux/Makefile" ] || fail "the $b tree was not fetched into the cache" "$OUT"
	[ -z "$(sed -n '/no cached tree/p' <<< "$OUT")" ] || fail "re-targeting still asks for make tree" "$OUT"
	expect_rc 0 "re-targeting the drifted $b tree"
}

# make tree of a cached, intact tree returns while another command holds
# the tree shared (a make selftests run reads it for half an hour); before,
# it took the lock exclusive before it looked, and waited for that run
test_tree_returns_while_another_command_reads_it() {
	local b=$DEFAULT_BRANCH lockdir holder
	lockdir=$(dirname "$(pristine_dir "$b")")
	[ -f "$lockdir/linux/Makefile" ] || fail "test setup: no cached $b tree"
	flock -s "$lockdir" sleep 120 &
	holder=$!
	sleep 1
	RC=0
	OUT=$(timeout 60 "$KIT_DIR/bin/tree" --branch "$b" 2>&1) || RC=$?
	kill "$holder" 2>/dev/null || true
	wait "$holder" 2>/dev/null || true
	[ "$RC" -ne 124 ] || fail "make tree BRANCH=$b still waited after 60 s for a command that holds the tree shared" "$OUT"
	expect_rc 0 "make tree BRANCH=$b beside a reader"
}

# what the kit takes from a kernel tree for itself (the boot suite's
# kselftest.h, the kernel's KTAP parser that judges a boot, checkpatch.pl
# of make lint) comes from the mainline branch's tree whatever the cache
# holds, fetched when it is not there (fetch.sh tools_tree): before, each came from the newest
# cached tree that had it (with the default branch's alone: its
# kselftest.h and checkpatch, another suite and another lint than with
# every tree cached; no parser at all, so make boot on a fresh machine
# failed with "run 'make tree BRANCH=7.2'")
test_tools_from_the_mainline_branch_whatever_the_cache_holds() {
	local c want
	c=$(cache_with tools "$DEFAULT_BRANCH")
	want=$c/trees/$MAINLINE_BRANCH/linux
	tool_from "$c" guest guest_ksft_dir
	[ "$(tail -n1 <<< "$OUT")" = "$want/tools/testing/selftests" ] || fail "the suite's kselftest.h is not the $MAINLINE_BRANCH tree's" "$OUT"
	expect_out "fetching it" "the fetch of the $MAINLINE_BRANCH tree is named"
	tool_from "$c" results kunit_dir
	[ "$(tail -n1 <<< "$OUT")" = "$want/tools/testing/kunit" ] || fail "the KTAP parser is not the $MAINLINE_BRANCH tree's" "$OUT"
	tool_from "$c" lint lint_checkpatch_tree
	[ "$(tail -n1 <<< "$OUT")" = "$want" ] || fail "checkpatch.pl is not the $MAINLINE_BRANCH tree's" "$OUT"
}

# tool_from CACHE MODULE CMD...: CMD of lib/MODULE.sh with CACHE as the
# kit's cache (OUT, RC); it must succeed
tool_from() {
	local c=$1 m=$2
	shift 2
	RC=0
	OUT=$(MMBK_CACHE=$c bash -c '. "$1/lib/kit.sh"; kit_use "$2"; "${@:3}"' - "$KIT_DIR" "$m" "$@" 2>&1) || RC=$?
	expect_rc 0 "$* with only the $DEFAULT_BRANCH tree cached"
}
