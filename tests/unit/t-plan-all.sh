# SPDX-License-Identifier: GPL-2.0
# tier: full
# The README's flow as a new user runs it, on a fresh machine's cache (an
# empty MMBK_CACHE: the 6.12 package downloaded and extracted, sparse and
# the check's builds made from nothing; several minutes, so make test
# FULL=1 only; t-plan.sh's apply_5_10_with_only_the_default_branch_cached
# is the same decision on the real cache's 6.12 tree).

# shellcheck source=tests/unit/t-plan.sh
. "$KIT_DIR/tests/unit/t-plan.sh"

# `make`, then `make apply KDIR=<a 5.10 tree>`: every topic lands (before
# the committed reference data: "backports/6.12/0001-... is listed in the
# series but missing", status 1)
test_readme_flow_on_a_fresh_cache() {
	local c=$T/fresh-cache d t
	rm -rf "$c"
	mkdir -p "$c"
	RC=0
	OUT=$(MMBK_CACHE=$c make -s -C "$KIT_DIR" 2>&1) || RC=$?
	expect_rc 0 "make (the main job) on a fresh cache"
	d=$(mini 5.10 plan-readme-fresh-5.10)
	RC=0
	OUT=$(MMBK_CACHE=$c make -s -C "$KIT_DIR" apply KDIR="$d" 2>&1) || RC=$?
	expect_rc 0 "make apply KDIR=<a 5.10 tree> after make, on a fresh cache"
	for t in $(all_topics); do
		expect_out "$t" "apply's report names $t"
	done
	[ ! -d "$c/trees/5.10" ] || fail "the 5.10 tree was fetched though the tree needs nothing re-targeted" "$OUT"
}
