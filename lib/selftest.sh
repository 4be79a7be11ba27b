# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# selftest.sh - everything make test runs, in order (bin/test): the trees,
# the fast tier of the unit tests (needs no kernel tree), the unit tests
# that need trees, then the matrix (tree, apply, check, boots) on every
# branch.  Every stage is a step (steps.sh) whose results are records; a
# crashed stage counts as a failure.  The total is counted from the
# records (the one result model), so it is true with or without a kernel
# tree; the KTAP the stages print is read with the kernel's own parser by
# the unit tests (t-ktap.sh).  Ends with one "N passed, N failed, N skipped"
# line.
kit_use tables trees results steps deps fetch

# selftest_stage NAME RECORDS CMD...: run a stage; its KTAP to
# out/test/NAME.ktap, its stderr to out/test/NAME.log
selftest_stage() {
	local name=$1 records=$2
	shift 2
	progress "test: $name"
	step_run_split "$ST_DIR/$name.ktap" "$ST_DIR/$name.log" "$@"
	[ -f "$records" ] || : > "$records"
	step_close "$records" "$name" unit "$ST_DIR/$name.log"
	awk -F'\t' '$1 != "step"' "$records" > "$records.tmp" && mv "$records.tmp" "$records"
	grep -E '^(not ok|# [a-z]+: [0-9]+ passed)' "$ST_DIR/$name.ktap" >&2 || true
}

selftest_run() (
	local fast=0 full=0 boot=1 b passed failed skipped margs=() uargs=() f files=() unit_pid
	while [ $# -gt 0 ]; do
		case $1 in
		--fast) fast=1; shift ;;
		--full) full=1; shift ;;
		--no-boot) boot=0; shift ;;
		*) usage_error "usage: make test [FULL=1] [BOOT=0] | make test-fast" ;;
		esac
	done
	ST_DIR=$OUT_DIR/test
	START=$(date +%s)
	rm -rf "$ST_DIR"
	mkdir -p "$ST_DIR"
	deps_run
	if [ $fast = 0 ]; then
		# the trees first: the unit tests and the matrix use them
		need_cache
		for b in $SUPPORTED_BRANCHES; do
			( fetch_tree "$b" ) >/dev/null
			# its content was checked: the matrix's steps inherit that
			# shellcheck disable=SC2034  # read by fetch.sh and trees.sh
			PRISTINE_VERIFIED["$b"]=1
		done
		sparse_path >/dev/null
	fi
	selftest_stage fast "$ST_DIR/fast.tsv" "$KIT_DIR/tests/unit/run.sh" --tier fast --records "$ST_DIR/fast.tsv"
	files=("$ST_DIR/fast.tsv")
	if [ $fast = 0 ]; then
		uargs=(--tier tree --records "$ST_DIR/unit.tsv")
		[ $full = 0 ] || uargs+=(--full)
		# the unit tests and the matrix run side by side: the unit tests
		# are mostly one process at a time (quilt, spatch, the shell),
		# the matrix's kernel builds use every CPU and its boots one, so
		# together they take much less than one after the other (their
		# out/ and cache paths are apart: the unit tests' trees have
		# names of their own; shared cache areas are locked)
		selftest_stage unit "$ST_DIR/unit.tsv" "$KIT_DIR/tests/unit/run.sh" "${uargs[@]}" &
		unit_pid=$!
		progress "test: matrix on $SUPPORTED_BRANCHES ($([ $full = 1 ] && echo 'every baseline and target' || echo 'the kernels of tables/boot-baselines.table'))"
		[ $boot = 0 ] || margs+=(--boot)
		[ $full = 0 ] || margs+=(--full)
		kit_use matrix
		# its failures are in its records (counted below); through kit_try,
		# not "|| true", so that errexit holds in every step
		kit_try matrix_run "${margs[@]}" > "$ST_DIR/matrix.log" 2>&1
		progress "test: matrix done; waiting for the unit tests"
		# the unit stage records its own failures (a crash is one)
		wait "$unit_pid" || true
		grep -v '^\[' "$ST_DIR/matrix.log" || true
		files+=("$ST_DIR/unit.tsv")
		for f in "$OUT_DIR"/results/*-*.tsv; do
			[ -f "$f" ] && files+=("$f")
		done
	fi
	read -r passed failed skipped < <(kit_py results count "${files[@]}") ||
		{ passed=0 failed=1 skipped=0; warn "the records in $ST_DIR and out/results could not be counted"; }
	progress "test: done in $(( $(date +%s) - START ))s"
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
)
