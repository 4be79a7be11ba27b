# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034  # STEP_* are the step's results for the caller
# steps.sh - the one step runner of the kit (make matrix, make test, make
# bench-kit): run one step, time it, and make sure a step that broke is a
# failure in its records, never a silent pass.
kit_use results

# step_run OUT CMD...: run CMD with stdout and stderr to OUT (a log); sets
# STEP_RC (its status) and STEP_SECONDS (wall time)
step_run() {
	local out=$1 t0
	shift
	t0=$(date +%s.%N)
	kit_try "$@" > "$out" 2>&1
	STEP_RC=$KIT_RC
	STEP_SECONDS=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
}

# step_run_split OUT ERR CMD...: the same with stdout to OUT, stderr to ERR
step_run_split() {
	local out=$1 err=$2 t0
	shift 2
	t0=$(date +%s.%N)
	kit_try "$@" > "$out" 2> "$err"
	STEP_RC=$KIT_RC
	STEP_SECONDS=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
}

# step_close RECORDS STEP BRANCH LOG: the step's own record (kind step,
# with its time; "pass" or "error"); a step that exited non-zero without
# a failed record of its own (RECORDS holds this step's records only,
# whatever step name they carry: the unit runner's say "unit" in the fast
# step too) gets an "error" case naming its status and the last lines of
# LOG, so a crash is never a pass, and a failure is not counted twice
step_close() {
	local records=$1 step=$2 branch=$3 log=$4 failed
	failed=$(awk -F'\t' '$1 != "step" && ($5 == "fail" || $5 == "failed" || $5 == "error" || $5 == "not-tried") { n++ } END { print n + 0 }' "$records" 2>/dev/null || echo 0)
	if [ "$STEP_RC" -ne 0 ] && [ "$failed" -eq 0 ]; then
		result "$records" case "$step" "$branch" "$step" error - "$STEP_SECONDS" \
			"$(grep -v '^\[[0-9:]*\] ' "$log" 2>/dev/null | tail -n 5)"$'\n'"$step exited with status $STEP_RC without a failed result"
	fi
	result "$records" step "$step" "$branch" "$step" "$([ "$STEP_RC" -eq 0 ] && echo pass || echo error)" - "$STEP_SECONDS" \
		"exit status $STEP_RC; log: $log"
}

# step_plan PLAN BRANCH KIND TARGET VARIANT STEP...: the run means to run
# these steps of BRANCH, of step kind KIND (mmbk/results.py STEP_KINDS),
# for the build target TARGET and of VARIANT (- for none): each is
# expected to leave a record (step_missing).  PLAN is the run's one step
# list, which the writers read (results markdown|junit|json|ktap --plan):
# a TSV file with a header line, one line a step (mmbk/results.py
# read_plan), written here only
step_plan() {
	local plan=$1 branch=$2 kind=$3 target=$4 variant=$5 s
	shift 5
	[ -s "$plan" ] || printf 'branch\tstep\tkind\ttarget\tvariant\n' > "$plan"
	for s; do
		printf '%s\t%s\t%s\t%s\t%s\n' "$branch" "$s" "$kind" "${target:--}" "${variant:--}" >> "$plan"
	done
}

# step_missing PLAN OUT FILE...: an error record in OUT (rewritten) for
# every step of PLAN that left no record in FILE...; a warning names each
step_missing() {
	local plan=$1 out=$2 lost b s
	shift 2
	[ -f "$plan" ] || : > "$plan"
	if ! lost=$(kit_py results expect --plan "$plan" -o "$out" "$@"); then
		: > "$out"
		result "$out" case plan plan "$plan" error - - "the records of the run could not be checked against its plan $plan"
		warn "the records could not be checked against the plan $plan"
		return 0
	fi
	while read -r b s; do
		[ -z "$b" ] || warn "missing: $b $s: the planned step left no record (it did not run, or its records were lost)"
	done <<< "$lost"
}
