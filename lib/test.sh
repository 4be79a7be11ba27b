# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# test.sh - everything make test runs, in order (bin/test): the trees,
# the fast tier of the unit tests (needs no kernel tree), the unit tests
# that need trees, then the matrix (tree, apply, check, boots, the tree's
# own selftests on a patched boot's kernel) on every branch, and last the
# run's own KTAP read by the kernel's parser.  Each is a step (steps.sh)
# whose results are records; the run plans its steps (out/test/plan.tsv) and
# the matrix its own (matrix.sh matrix_plan), and a step that crashes (exits
# non-zero with no failed record), a writer that fails or a planned step
# that left no record is a failure record of its own, named on stderr.  The
# total is counted from the records (the one result model), so it is true
# with or without a kernel tree; the KTAP the steps print is read with the
# kernel's own parser by the unit tests (t-ktap.sh).  A timestamped line on
# stderr per unit-test file and per matrix step as it ends, with its counts.
# Ends with one "N passed, N failed, N skipped" line.
kit_use tables trees results request steps deps fetch

# tests_step NAME RECORDS CMD...: run a step; its KTAP to
# out/test/NAME.ktap, its stderr to out/test/NAME.log, its step record to
# out/test/steps.tsv
tests_step() {
	local name=$1 records=$2
	shift 2
	progress "test: $name"
	step_run_split "$TS_DIR/$name.ktap" "$TS_DIR/$name.log" "$@"
	[ -f "$records" ] || : > "$records"
	step_close "$records" "$name" unit "$TS_DIR/$name.log"
	awk -F'\t' '$1 == "step"' "$records" >> "$TS_DIR/steps.tsv"
	awk -F'\t' '$1 != "step"' "$records" > "$records.tmp" && mv "$records.tmp" "$records"
	progress "test: $name: $(kit_py results count "$records" | awk '{ printf "%s passed, %s failed, %s skipped", $1, $2, $3 }') (exit status $STEP_RC)"
	grep -E '^not ok' "$TS_DIR/$name.ktap" >&2 || true
}

# tests_matrix BOOT FULL: the matrix as a step: its stdout to
# out/test/matrix.log, its progress on stderr; every step it planned and
# did not record is a failure (matrix_expect), and so is a status other
# than 0 with no failure counted, or any status but 0 and 1 (a crash).
# TS_MATRIX_FILES: the matrix's record files, as it handed them back (the
# list of matrix_run) and matrix_expect's
tests_matrix() {
	local records=$TS_DIR/matrix.tsv at=$TS_DIR/matrix.records-at list='' lost f failed err tee_pid
	kit_use matrix
	# its stderr to the console and to matrix.err through a tee, which is
	# given up to 10 s to end (so that nothing of it comes after the last
	# line), not more: a process the matrix left behind may hold its pipe
	exec {err}> >(tee "$TS_DIR/matrix.err" >&2)
	tee_pid=$!
	# through kit_try (step_run_split), not "|| true", so that errexit
	# holds in every step
	rm -f "$at"
	step_run_split "$TS_DIR/matrix.log" "/dev/fd/$err" request_call RECORDS_AT="$at" BOOT="$1" FULL="$2" -- matrix_run
	exec {err}>&-
	for _ in $(seq 50); do
		kill -0 "$tee_pid" 2>/dev/null || break
		sleep 0.2
	done
	# a matrix that broke off did not check its plan: checked here
	lost=$(matrix_expect) || lost=''
	[ ! -f "$at" ] || list=$(cat "$at")
	TS_MATRIX_FILES=()
	while IFS= read -r f; do
		[ -z "$f" ] || [ ! -f "$f" ] || TS_MATRIX_FILES+=("$f")
	done < <({ [ -z "$list" ] || cat "$list" 2>/dev/null || true; printf '%s\n' "$lost"; } | awk '!seen[$0]++')
	: > "$records"
	failed=$(kit_py results count ${TS_MATRIX_FILES[@]+"${TS_MATRIX_FILES[@]}"} "$records" | awk '{ print $2 }') || failed=0
	if [ "$STEP_RC" -gt 1 ] || { [ "$STEP_RC" -ne 0 ] && [ "$failed" -eq 0 ]; }; then
		warn "the matrix exited with status $STEP_RC"
		result "$records" case matrix matrix matrix error - "$STEP_SECONDS" "the matrix exited with status $STEP_RC (its log: $TS_DIR/matrix.log, matrix.err)"
	fi
	result "$TS_DIR/steps.tsv" step matrix unit matrix "$([ "$STEP_RC" -eq 0 ] && echo pass || echo error)" - "$STEP_SECONDS" \
		"exit status $STEP_RC; log: $TS_DIR/matrix.log"
	grep -v '^\[' "$TS_DIR/matrix.log" || true
}

# tests_run: make test (REQ_FAST=1: make test-fast; REQ_FULL=1 the full
# tier; REQ_BOOT=0 no boots)
tests_run() (
	local fast=$REQ_FAST full=$REQ_FULL boot=${REQ_BOOT:-1} b passed failed skipped uargs=() f files=() unit_pid unit_rc=0 console
	TS_DIR=$OUT_DIR/test
	# out/test is this run's until it ends: a second make test of this
	# checkout waits for it
	mkdir -p "$OUT_DIR"
	lock_tree "$OUT_DIR/test.lock"
	START=$(date +%s)
	rm -rf "$TS_DIR"
	mkdir -p "$TS_DIR"
	: > "$TS_DIR/steps.tsv"
	step_plan "$TS_DIR/plan.tsv" unit unit - - fast
	[ "$fast" = 1 ] || step_plan "$TS_DIR/plan.tsv" unit unit - - unit matrix outputs
	# the unit runner's line per test file goes to the console (this
	# stderr), its line per test to the step's log
	exec {console}>&2
	deps_run
	if [ "$fast" = 0 ]; then
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
	tests_step fast "$TS_DIR/fast.tsv" "$KIT_DIR/tests/unit/run.sh" --tier fast --records "$TS_DIR/fast.tsv" --progress-fd "$console"
	files=("$TS_DIR/fast.tsv")
	if [ "$fast" = 0 ]; then
		uargs=(--tier tree --records "$TS_DIR/unit.tsv" --progress-fd "$console")
		[ "$full" = 0 ] || uargs+=(--full)
		# the unit tests and the matrix run side by side: the unit tests
		# are mostly one process at a time (quilt, spatch, the shell),
		# the matrix's kernel builds use every CPU and its boots one, so
		# together they take much less than one after the other (their
		# out/ and cache paths are apart: the unit tests' trees have
		# names of their own; shared cache areas are locked).  Both at
		# the same priority: with the unit tests at nice 10 a cold run
		# took 83 minutes, not 80 (the matrix gained 80 s, and the unit
		# tests ran 4 minutes past it)
		tests_step unit "$TS_DIR/unit.tsv" "$KIT_DIR/tests/unit/run.sh" "${uargs[@]}" &
		unit_pid=$!
		progress "test: matrix on $SUPPORTED_BRANCHES ($([ "$full" = 1 ] && echo 'every baseline and target' || echo 'the kernels of tables/boot-baselines.table'))"
		tests_matrix "$boot" "$full"
		progress "test: matrix done; waiting for the unit tests"
		wait "$unit_pid" || unit_rc=$?
		if [ "$unit_rc" -ne 0 ]; then
			warn "the unit step exited with status $unit_rc"
			result "$TS_DIR/unit-step.tsv" case unit unit unit-step error - - "the unit step (tests_step) exited with status $unit_rc"
			files+=("$TS_DIR/unit-step.tsv")
		fi
		# this run's own outputs (the matrix's and the boots' KTAP, the
		# unit runner's) read by the kernel's KTAP parser, their counts
		# checked (t-ktap kit_outputs_parse): the fast tier ran before
		# they existed, and skipped it
		tests_step outputs "$TS_DIR/outputs.tsv" "$KIT_DIR/tests/unit/run.sh" --tier all \
			--records "$TS_DIR/outputs.tsv" --progress-fd "$console" ktap.kit_outputs_parse
		# the matrix's records: the files it handed back (tests_matrix)
		files+=("$TS_DIR/unit.tsv" "$TS_DIR/matrix.tsv" "$TS_DIR/outputs.tsv" ${TS_MATRIX_FILES[@]+"${TS_MATRIX_FILES[@]}"})
	fi
	# every planned step left its step record (a step that left no
	# record file at all is missing here)
	step_missing "$TS_DIR/plan.tsv" "$TS_DIR/missing.tsv" "$TS_DIR/steps.tsv"
	files+=("$TS_DIR/missing.tsv")
	for f in "${files[@]}"; do
		[ -f "$f" ] || warn "no records in $f"
	done
	read -r passed failed skipped < <(kit_py results count "${files[@]}") ||
		{ passed=0 failed=1 skipped=0; warn "the records in $TS_DIR and out/results could not be counted"; }
	progress "test: done in $(( $(date +%s) - START ))s"
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
)
