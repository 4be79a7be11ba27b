# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# matrix.sh - tree, apply and check on every branch, and with --boot the
# boots (make matrix): the kernels tables/boot-baselines.table names per
# branch; --full: the patched kernel, every baseline, the PREEMPT_RT boot
# on the branches whose "rt" column in tables/branches.table is yes, and
# every boot and check on every other build target too (arm64, LLVM).
# With the boots, the tree's own selftests (kselftest.sh) run on the kernel
# of the branch's first patched boot, judged against the committed
# expectations; with --full on every patched boot's kernel, against the
# kernel without the series (matrix_ksft_runs).
#
# Every step writes result records (results.sh) to out/results/; from them
# the one writer of each format makes out/ktap/<branch>-<step>.ktap,
# out/junit.xml, out/results.json and out/matrix.md.  Status 1 if anything
# failed.
kit_use tables trees kbuild results request steps fetch worktree check boot abi kselftest

# matrix_tokens BRANCH FULL -> the table's tokens of the branch: VARIANT
# [@PROFILE][/TARGET] boots and check/TARGET checks (TARGET: arm64, llvm,
# arm64-llvm); with FULL every variant of every target
matrix_tokens() {
	local b=$1 full=$2 t v target
	if [ "$full" = 1 ]; then
		for target in "" /arm64 /llvm; do
			echo "patched$target"
			echo "unpatched$target"
			for t in $(matrix_carried_topics "$b"); do echo "without-$t$target"; done
			[ ! -d "$DATA_DIR/backports/$b/kabi" ] || echo "patched-kabi$target"
			[ "$(branch_field "$b" rt)" != yes ] || echo "patched@rt$target"
			[ -z "$target" ] || echo "check$target"
		done
		return
	fi
	for v in $(table_for_branch "$TABLES_DIR/boot-baselines.table" "$b"); do
		[ "$v" = - ] || echo "$v"
	done
}

# matrix_carried_topics BRANCH -> topics the branch's patched tree carries
matrix_carried_topics() {
	result_names "$OUT_DIR/results/$1-apply.tsv" topic applied
}

# matrix_target TREE BRANCH TARGET: the request of a step on TREE, a tree
# of BRANCH, for TARGET ("", arm64, llvm, arm64-llvm; "": the matrix's
# own ARCH= and LLVM=), its build target resolved (KB_*; in the step's
# subshell)
matrix_target() {
	local arch='' llvm=''
	case $3 in
	'') arch=$MX_ARCH llvm=$MX_LLVM ;;
	arm64) arch=arm64 ;;
	llvm) arch=$MX_ARCH llvm=1 ;;
	arm64-llvm) arch=arm64 llvm=1 ;;
	*) die "tables/boot-baselines.table: unknown target '/$3' (arm64, llvm or arm64-llvm)" ;;
	esac
	request_with TREE="$1" BRANCH="$2" ARCH="$arch" LLVM="$llvm" KCONFIG=''
	request_target
}

# matrix_tag TREE BRANCH TARGET -> the build target's tag (kbuild.sh KB_TAG)
matrix_tag() {
	( matrix_target "$1" "$2" "$3" && printf '%s\n' "${KB_TAG:-}" ) 2>/dev/null || true
}

# matrix_listed FILE: FILE is one of the matrix's record files: listed in
# out/status/records.list, the file matrix_run hands back to its caller
matrix_listed() {
	grep -qxF -- "$1" "$OUT_DIR/status/records.list" 2>/dev/null || printf '%s\n' "$1" >> "$OUT_DIR/status/records.list"
}

# matrix_records -> the record files of the matrix (records.list), each
# once, those that exist
matrix_records() {
	local f
	[ -f "$OUT_DIR/status/records.list" ] || return 0
	while IFS= read -r f; do
		[ -z "$f" ] || [ ! -f "$f" ] || printf '%s\n' "$f"
	done < "$OUT_DIR/status/records.list"
}

# matrix_step BRANCH STEP CMD...: run one step of a branch in a subshell;
# the records of the entry point CMD runs (the file it hands back:
# request.sh request_hand_back) go to out/results/, with a record of its
# time and an error record when it broke without a failure or ended
# without handing back its records
matrix_step() {
	local b=$1 step=$2 at=$OUT_DIR/status/$1-$2.records-at records=$OUT_DIR/results/$1-$2.tsv
	local log=$OUT_DIR/status/$1-$2.log from=''
	shift 2
	rm -f "$at"
	step_run_split "$OUT_DIR/status/$b-$step.out" "$log" request_call RECORDS_AT="$at" -- "$@"
	[ ! -f "$at" ] || from=$(sed -n 1p "$at")
	: > "$records"
	if [ -n "$from" ] && [ -f "$from" ]; then
		# the records of the step, as this branch's step
		awk -F'\t' -v OFS='\t' -v s="$step" -v b="$b" '{ $2 = s; $3 = b; print }' "$from" > "$records"
	elif [ "$STEP_RC" -eq 0 ]; then
		result "$records" case "$step" "$b" "$step" error - "$STEP_SECONDS" \
			"$step ended without handing back its records (request.sh request_hand_back)"
	fi
	matrix_listed "$records"
	step_close "$records" "$step" "$b" "$log"
	awk -F'\t' '$1 == "step"' "$records" >> "$OUT_DIR/results/$b.steps.tsv"
	awk -F'\t' '$1 != "step"' "$records" > "$records.tmp"
	mv "$records.tmp" "$records"
	progress "matrix: $b $step: $(kit_py results count "$records" | awk '{ printf "%s passed, %s failed, %s skipped", $1, $2, $3 }') (${STEP_RC})"
}

# the steps: each runs in a subshell of its own (matrix_step)
matrix_fetch() (	# BRANCH
	fetch_tree "$1"
)

matrix_apply() (	# BRANCH
	local tree
	# a fresh copy: worktree hands back its apply's records (also when
	# the series fails)
	tree=$(worktree "$1" patched fresh)
	printf '%s\n' "$tree" > "$OUT_DIR/status/$1.tree"
)

matrix_check() (	# BRANCH TREE TARGET
	matrix_target "$2" "$1" "$3"
	check_run
)

matrix_boot() (	# BRANCH VARIANT PROFILE TARGET
	matrix_target "$(pristine_dir "$1")" "$1" "$4"
	request_with VARIANT="$2" BUILD_PROFILE="$3"
	boot_run
)

matrix_selftests() (	# BRANCH PROFILE TARGET ONLY
	matrix_target "$(pristine_dir "$1")" "$1" "$3"
	request_with BUILD_PROFILE="$2" OUT="$OUT_DIR" ONLY="${4#-}"
	ksft_run
)

matrix_abi() (	# BRANCH PROFILE [TOPICS]
	matrix_target "$(pristine_dir "$1")" "$1" ""
	request_with SERIES_PROFILE="$2" TOPICS="${3:-}"
	abi_run
)

# matrix_abi_profile BRANCH FULL -> the profile(s) make abi reports on
# BRANCH in this run, or nothing: every branch with FULL, else the one
# branch named by @test-branch in tables/abi-expect.table; "both" where
# the branch has kABI variants
matrix_abi_profile() {
	[ "$2" = 1 ] || [ "$1" = "$(table_setting "$TABLES_DIR/abi-expect.table" test-branch)" ] || return 0
	if [ -d "$DATA_DIR/backports/$1/kabi" ]; then echo both; else echo default; fi
}

# matrix_checks BRANCH FULL -> the check steps of BRANCH: check (the
# default build target) and check-TARGET of each check/TARGET token
matrix_checks() {
	local token
	echo check
	for token in $(matrix_tokens "$1" "$2"); do
		case $token in check/*) echo "check-${token#check/}" ;; esac
	done
}

# matrix_boots BRANCH FULL -> "STEP VARIANT PROFILE TARGET" of each boot
# of BRANCH (TARGET - for the default); its STEP names its out/boot/ files
matrix_boots() {
	local b=$1 token v p target tag
	for token in $(matrix_tokens "$b" "$2"); do
		case $token in check/*) continue ;; esac
		target=
		case $token in */*) target=${token#*/} token=${token%%/*} ;; esac
		v=${token%%@*} p=test
		case $token in *@*) p=${token#*@} ;; esac
		tag=$b-$v$([ "$p" = test ] || echo "-$p")$(matrix_tag "$(pristine_dir "$b")" "$b" "$target")
		printf '%s %s %s %s\n' "boot-${tag#"$b"-}" "$v" "$p" "${target:--}"
	done
}

# matrix_ksft_runs BOOTS FULL -> "STEP PROFILE TARGET ONLY" of each run
# of the tree's own selftests (kselftest.sh) on a branch whose boots are
# BOOTS (matrix_boots): on the kernel of its first patched boot, judged
# against the committed expectations (ONLY patched); with FULL on the
# kernel of every patched boot, against the kernel without the series
# (ONLY -: both kernels).  STEP: the boot's, "boot-patched" replaced by
# "selftests" (selftests, selftests-arm64, selftests-rt).
matrix_ksft_runs() {
	local s v p target
	while read -r s v p target; do
		[ "$v" = patched ] || continue
		if [ "$2" = 1 ]; then
			printf '%s %s %s -\n' "selftests${s#boot-patched}" "$p" "$target"
		else
			printf '%s %s %s patched\n' "selftests${s#boot-patched}" "$p" "$target"
			return 0
		fi
	done <<< "$1"
}

# matrix_plan_target TARGET -> the build target of a step in the plan:
# TARGET (arm64, llvm, arm64-llvm), or for the matrix's own ("") its ARCH=
# and LLVM= ("default": neither given, the tree's or the machine's)
matrix_plan_target() {
	local t=$1
	if [ -z "$t" ]; then
		t=${MX_ARCH:-}
		case ${MX_LLVM:-} in ''|0) ;; *) t=${t:+$t-}llvm ;; esac
	fi
	printf '%s\n' "${t:-default}"
}

# matrix_plan PLAN BRANCH BOOT FULL: the steps of BRANCH known before its
# tree is there, with their kind, build target and variant (the boots and
# the selftests are planned once it is: matrix_branch)
matrix_plan() {
	local plan=$1 b=$2 s target p
	step_plan "$plan" "$b" tree - - tree
	step_plan "$plan" "$b" apply - patched apply
	for s in $(matrix_checks "$b" "$4"); do
		target=${s#check}
		step_plan "$plan" "$b" check "$(matrix_plan_target "${target#-}")" patched "$s"
	done
	[ "$3" = 0 ] || p=$(matrix_abi_profile "$b" "$4")
	[ -z "${p:-}" ] || step_plan "$plan" "$b" abi "$(matrix_plan_target '')" "series profile $p" abi
}

# matrix_expect -> out/results/matrix-plan.tsv, an error record for every
# step of the plan (out/status/plan.tsv) that left no record (no file and
# nothing printed when none is missing); listed among the matrix's record
# files, and its path printed for a caller whose matrix broke off before
# it handed back its list
matrix_expect() {
	local f files=()
	rm -f "$OUT_DIR/results/matrix-plan.tsv"
	for f in "$OUT_DIR"/results/*.tsv; do
		[ -f "$f" ] && files+=("$f")
	done
	step_missing "$OUT_DIR/status/plan.tsv" "$OUT_DIR/results/matrix-plan.tsv" ${files[@]+"${files[@]}"}
	# nothing missing: no empty suite in the reports
	if [ -s "$OUT_DIR/results/matrix-plan.tsv" ]; then
		matrix_listed "$OUT_DIR/results/matrix-plan.tsv"
		printf '%s\n' "$OUT_DIR/results/matrix-plan.tsv"
	else
		rm -f "$OUT_DIR/results/matrix-plan.tsv"
	fi
}

matrix_branch() {
	local b=$1 boot=$2 full=$3 tree s v p target topics boots row ksft only
	step_run "$OUT_DIR/status/$b-tree.log" matrix_fetch "$b"
	if [ "$STEP_RC" != 0 ]; then
		result "$OUT_DIR/results/$b-apply.tsv" case apply "$b" tree error - "$STEP_SECONDS" \
			"$(tail -n1 "$OUT_DIR/status/$b-tree.log")"
		matrix_listed "$OUT_DIR/results/$b-apply.tsv"
		result "$OUT_DIR/results/$b.steps.tsv" step tree "$b" tree error - "$STEP_SECONDS" \
			"exit status $STEP_RC; log: $OUT_DIR/status/$b-tree.log"
		progress "matrix: $b tree: failed ($STEP_RC)"
		return 0
	fi
	# fetch_tree verified its content: the steps' subshells inherit that
	# shellcheck disable=SC2034  # read by fetch.sh scratch_copy
	PRISTINE_VERIFIED["$b"]=1
	# the branch's records carry its tree's version
	request_with TREE="$(pristine_dir "$b")" BRANCH="$b"
	result "$OUT_DIR/results/$b.steps.tsv" step tree "$b" tree pass - "$STEP_SECONDS" \
		"Linux $(kernel_version "$(pristine_dir "$b")")"
	progress "matrix: $b tree: Linux $(kernel_version "$(pristine_dir "$b")") (${STEP_SECONDS}s)"
	matrix_step "$b" apply matrix_apply "$b"
	tree=$(cat "$OUT_DIR/status/$b.tree" 2>/dev/null || true)
	[ -n "$tree" ] || return 0
	# the boots: their names take the build target's tag (from the tree)
	# and, with FULL, the topics the tree carries
	boots=$([ "$boot" = 0 ] || matrix_boots "$b" "$full")
	ksft=$([ -z "$boots" ] || matrix_ksft_runs "$boots" "$full")
	if [ -n "$boots" ]; then
		while read -r s v p target; do
			[ "$target" != - ] || target=
			step_plan "$OUT_DIR/status/plan.tsv" "$b" boot "$(matrix_plan_target "$target")" \
				"$v$([ "$p" = test ] || echo "@$p")" "$s"
		done <<< "$boots"
	fi
	if [ -n "$ksft" ]; then
		while read -r s p target only; do
			[ "$target" != - ] || target=
			[ "$only" != - ] || only=patched+unpatched
			step_plan "$OUT_DIR/status/plan.tsv" "$b" selftests "$(matrix_plan_target "$target")" \
				"$only$([ "$p" = test ] || echo "@$p")" "$s"
		done <<< "$ksft"
	fi
	for s in $(matrix_checks "$b" "$full"); do
		target=${s#check}
		target=${target#-}
		matrix_step "$b" "$s" matrix_check "$b" "$tree" "$target"
	done
	[ "$boot" = 1 ] || return 0
	p=$(matrix_abi_profile "$b" "$full")
	if [ -n "$p" ]; then
		# plain make test: only the @test-topics (FULL=1: every topic)
		topics=$([ "$full" = 1 ] || table_setting "$TABLES_DIR/abi-expect.table" test-topics)
		matrix_step "$b" abi matrix_abi "$b" "$p" "$topics"
	fi
	[ -n "$boots" ] || return 0
	while read -r row; do
		read -r s v p target <<< "$row"
		[ "$target" != - ] || target=
		matrix_step "$b" "$s" matrix_boot "$b" "$v" "$p" "$target" < /dev/null
	done <<< "$boots"
	[ -n "$ksft" ] || return 0
	while read -r s p target only; do
		[ "$target" != - ] || target=
		matrix_step "$b" "$s" matrix_selftests "$b" "$p" "$target" "$only" < /dev/null
	done <<< "$ksft"
}

# matrix_writer_failed OUTPUT: the writer of OUTPUT failed: an error
# record, counted as any failure
matrix_writer_failed() {
	warn "$1 not written"
	result "$OUT_DIR/results/matrix-writers.tsv" case writer matrix "$1" error - - "the writer of $1 failed (its error is above in the matrix's log)"
	matrix_listed "$OUT_DIR/results/matrix-writers.tsv"
}

# matrix_run: the matrix of the request: REQ_ARGS the branches (none:
# every branch), REQ_BOOT=1 the boots, REQ_FULL=1 every kernel and target;
# REQ_ARCH and REQ_LLVM are the default build target of every step.  It
# hands back (request.sh request_hand_back) out/status/records.list, the
# list of its record files, one a line, as each is written (make test
# counts them)
matrix_run() (
	local b f from boot=${REQ_BOOT:-0} full=$REQ_FULL fail=0 t0 branches=(${REQ_ARGS[@]+"${REQ_ARGS[@]}"}) files=() args=()
	local steps=() sargs=() recs=() plan=$OUT_DIR/status/plan.tsv
	MX_ARCH=$REQ_ARCH MX_LLVM=$REQ_LLVM
	[ "$full" = 0 ] || boot=1
	# shellcheck disable=SC2206
	[ ${#branches[@]} -gt 0 ] || branches=($SUPPORTED_BRANCHES)
	for b in "${branches[@]}"; do require_branch "$b"; done
	need_cache
	# out/ktap, status, results and the reports are this matrix's until
	# it ends: a second one of this checkout waits for it
	mkdir -p "$OUT_DIR"
	lock_tree "$OUT_DIR/matrix.lock"
	rm -rf "$OUT_DIR/ktap" "$OUT_DIR/status" "$OUT_DIR/results"
	mkdir -p "$OUT_DIR/ktap" "$OUT_DIR/status" "$OUT_DIR/results"
	: > "$OUT_DIR/status/records.list"
	request_hand_back "$OUT_DIR/status/records.list"
	# the steps hand back their own records to matrix_step
	request_with RECORDS_AT=
	t0=$(date +%s)
	for b in "${branches[@]}"; do
		matrix_plan "$plan" "$b" "$boot" "$full"
	done
	for b in "${branches[@]}"; do
		progress "matrix: $b"
		# each branch's steps in a request of their own (its tree)
		request_call BRANCH="$b" -- matrix_branch "$b" "$boot" "$full"
	done
	matrix_expect > /dev/null
	# one writer per format, all from the records; a writer that fails is
	# an error record (out/results/matrix-writers.tsv)
	mapfile -t recs < <(matrix_records)
	for f in ${recs[@]+"${recs[@]}"}; do
		b=${f##*/}
		b=${b%.tsv}
		# the KTAP document the step's entry point handed back with its
		# records (matrix_step; the boot's judged KTAP, boot.sh
		# boot_judge, written by the one KTAP writer), else one of its
		# records
		from=$(sed -n 2p "$OUT_DIR/status/$b.records-at" 2>/dev/null || true)
		if [ -n "$from" ] && [ -s "$from" ]; then
			cp "$from" "$OUT_DIR/ktap/$b.ktap"
		else
			kit_py results ktap "$f" --title "$b" --summary "$b" > "$OUT_DIR/ktap/$b.ktap" ||
				matrix_writer_failed "out/ktap/$b.ktap"
		fi
		files+=("$f")
		args+=("$b=$f")
	done
	# the step records of each branch (the tree step's only records)
	for f in "$OUT_DIR"/results/*.steps.tsv; do
		[ ! -f "$f" ] || { steps+=("$f"); sargs+=(--steps "$f"); }
	done
	# the plan: every planned step in every report, in plan order, with
	# its build target and variant (a step that left no record too)
	kit_py results markdown -o "$OUT_DIR/matrix.md" --branches "${branches[*]}" --plan "$plan" \
		${files[@]+"${files[@]}"} ${steps[@]+"${steps[@]}"} || matrix_writer_failed out/matrix.md
	kit_py results junit -o "$OUT_DIR/junit.xml" --plan "$plan" ${sargs[@]+"${sargs[@]}"} ${args[@]+"${args[@]}"} ||
		matrix_writer_failed out/junit.xml
	kit_py results json -o "$OUT_DIR/results.json" --plan "$plan" ${files[@]+"${files[@]}"} ${steps[@]+"${steps[@]}"} ||
		matrix_writer_failed out/results.json
	progress "matrix: $(( $(date +%s) - t0 ))s for ${branches[*]}"
	[ ! -f "$OUT_DIR/matrix.md" ] || cat "$OUT_DIR/matrix.md"
	mapfile -t files < <(matrix_records)
	for f in ${files[@]+"${files[@]}"}; do
		read -r _ n _ < <(kit_py results count "$f") || n=invalid
		[ "$n" = 0 ] || { warn "$(basename "$f" .tsv): $n failed"; fail=1; }
	done
	return $fail
)
