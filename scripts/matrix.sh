#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# matrix.sh [--boot] [--full] [BRANCH...] - tree, apply and check on every
# branch; with --boot also the boots: the kernels tests/suite/baselines.table
# names per branch (its patched kernel, or that kernel's PREEMPT_RT build,
# and the baselines; --full: the patched kernel, every baseline, and the
# PREEMPT_RT boot on the branches whose "rt" column in
# backports/branches.table is yes).
# Writes out/matrix.md (per patch, per topic, per check and boot), the KTAP
# of every step in out/ktap/ and out/junit.xml.  Exit 1 if anything failed.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

KTAP_DIR=$OUT_DIR/ktap
STATUS_DIR=$OUT_DIR/status
BASELINES=$KIT_DIR/tests/suite/baselines.table
ABI_EXPECT=$KIT_DIR/tests/abi/expect.table

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }'; }

# record BRANCH STEP SECONDS
record() { printf '%s\t%s\n' "$2" "$3" >> "$STATUS_DIR/$1.times"; }

# carried_topics BRANCH -> topics the branch's patched tree carries
carried_topics() {
	awk -F'\t' '$2 == "applied" { print $1 }' "$STATUS_DIR/$1.apply.topics" 2>/dev/null
}

# baselines BRANCH FULL -> with FULL every baseline variant (unpatched,
# without each carried topic, the kABI profile's patched-kabi), else the
# kernels the branch's row of tests/suite/baselines.table names (its patched
# kernel in one build among them)
baselines() {
	local b=$1 full=$2 t
	if [ "$full" = 1 ]; then
		echo unpatched
		for t in $(carried_topics "$b"); do echo "without-$t"; done
		[ ! -d "$DATA_DIR/backports/$b/kabi" ] || echo patched-kabi
		return
	fi
	table_rows "$BASELINES" | awk -F'\t' -v b="$b" '$1 == b { for (i = 2; i <= NF; i++) if ($i != "-") print $i }'
}

# step BRANCH NAME KTAPFILE CMD...: run one step, its KTAP to KTAPFILE and
# its log to status/, its time recorded; a failing step is a "not ok" in
# its KTAP (written here when the step crashed before writing any)
step() {
	local b=$1 name=$2 ktap=$3 t rc=0
	shift 3
	t=$(now)
	"$@" > "$ktap" 2> "$STATUS_DIR/$b-$name.log" || rc=$?
	record "$b" "$name" "$(elapsed "$t")"
	if [ $rc -ne 0 ] && ! grep -q '^not ok ' "$ktap"; then
		{
			echo "KTAP version 1"
			echo "1..1"
			sed -e '/^\[/d' "$STATUS_DIR/$b-$name.log" | tail -n 5 | sed 's/^/# /'
			echo "not ok 1 $name"
		} > "$ktap"
	fi
	progress "matrix: $b $name: $(tail -n1 "$ktap") (${rc})"
	return 0
}

# apply_ktap BRANCH: the per-patch apply report as KTAP (one case a patch)
apply_ktap() {
	local b=$1 report=$STATUS_DIR/$1.apply rc=0
	"$KIT_DIR/scripts/worktree.sh" "$b" patched --fresh --report "$report" \
		> "$STATUS_DIR/$b.tree" || rc=$?
	[ -f "$report" ] || : > "$report"
	awk -F'\t' -v b="$b" -v rc="$rc" '
		BEGIN { print "KTAP version 1"; print "# apply: backports/" b }
		{ line[++n] = $0; name[n] = $1; st[n] = $2 }
		END {
			if (rc != 0 && n == 0) { print "1..1"; print "not ok 1 apply"; exit }
			print "1.." n
			for (i = 1; i <= n; i++) {
				if (st[i] ~ /^not applicable/)
					printf "ok %d %s # SKIP %s\n", i, name[i], st[i]
				else if (st[i] ~ /^(applied|re-targeted|re-anchored|already upstream|not selected)/)
					printf "# %s\nok %d %s\n", st[i], i, name[i]
				else
					printf "# %s\nnot ok %d %s\n", st[i], i, name[i]
			}
		}' "$report"
}

# abi_profile BRANCH FULL -> the profile(s) make abi reports on BRANCH in
# this run, or nothing: every branch with FULL, else the one branch named by
# @test-branch in tests/abi/expect.table; "both" where the branch has kABI
# variants
abi_profile() {
	[ "$2" = 1 ] || [ "$1" = "$(table_setting "$ABI_EXPECT" test-branch)" ] || return 0
	if [ -d "$DATA_DIR/backports/$1/kabi" ]; then echo both; else echo default; fi
}

run_branch() {
	local b=$1 boot=$2 full=$3 t tree v p topics
	: > "$STATUS_DIR/$b.times"
	t=$(now)
	if ! "$KIT_DIR/scripts/tree.sh" "$b" > /dev/null 2> "$STATUS_DIR/$b-tree.log"; then
		record "$b" tree "$(elapsed "$t")"
		printf 'KTAP version 1\n1..1\n# %s\nnot ok 1 tree\n' "$(tail -n1 "$STATUS_DIR/$b-tree.log")" > "$KTAP_DIR/$b-apply.ktap"
		return 0
	fi
	record "$b" tree "$(elapsed "$t")"
	step "$b" apply "$KTAP_DIR/$b-apply.ktap" apply_ktap "$b"
	tree=$(cat "$STATUS_DIR/$b.tree" 2>/dev/null || true)
	[ -n "$tree" ] || return 0
	step "$b" check "$KTAP_DIR/$b-check.ktap" "$KIT_DIR/scripts/check.sh" "$tree"
	[ "$boot" = 1 ] || return 0
	p=$(abi_profile "$b" "$full")
	if [ -n "$p" ]; then
		# plain make test: only the @test-topics (FULL=1: every topic)
		topics=$([ "$full" = 1 ] || table_setting "$ABI_EXPECT" test-topics)
		step "$b" abi "$KTAP_DIR/$b-abi.ktap" "$KIT_DIR/scripts/abi.sh" --branch "$b" --profile "$p" ${topics:+--topics "$topics"}
	fi
	for v in $(boots "$b" "$full"); do
		case $v in
		*@*) step "$b" "boot-${v%@*}-${v#*@}" "$KTAP_DIR/$b-boot-${v%@*}-${v#*@}.ktap" \
			"$KIT_DIR/scripts/boot.sh" --branch "$b" --variant "${v%@*}" --profile "${v#*@}" ;;
		*) step "$b" "boot-$v" "$KTAP_DIR/$b-boot-$v.ktap" \
			"$KIT_DIR/scripts/boot.sh" --branch "$b" --variant "$v" ;;
		esac
	done
}

# boots BRANCH FULL -> the kernels to boot, VARIANT or VARIANT@PROFILE:
# the row of tests/suite/baselines.table, or with FULL the patched one, every
# baseline and the PREEMPT_RT boot of the patched kernel where the branch's
# mainline has PREEMPT_RT
boots() {
	{
		[ "$2" = 0 ] || echo patched
		baselines "$1" "$2"
		if [ "$2" = 1 ] && [ "$(branch_field "$1" rt)" = yes ]; then echo patched@rt; fi
	} | awk '!seen[$0]++'
}

# ---- reports ----------------------------------------------------------------
cell() {	# cell BRANCH PATCH -> apply status of one patch
	local s
	s=$(awk -F'\t' -v n="$2" '$1 == n { s = $2 } END { print s }' "$STATUS_DIR/$1.apply" 2>/dev/null)
	case $s in
	"not applicable"*) printf 'n/a' ;;
	"") printf 'not run' ;;
	*) printf '%s' "${s%% (*}" ;;
	esac
}

topic_cell() {	# topic_cell BRANCH TOPIC
	awk -F'\t' -v t="$2" '$1 == t { s = $2 } END { print (s == "" ? "-" : s) }' \
		"$STATUS_DIR/$1.apply.topics" 2>/dev/null || printf 'not run'
}

ktap_summary() {	# ktap_summary FILE -> "P passed, F failed, S skipped" or why not
	local p f s
	[ -f "$1" ] || { printf 'not run'; return; }
	if read -r p f s < <("$KIT_DIR/scripts/ktap.py" count "$1" 2>/dev/null); then
		printf '%s passed, %s failed, %s skipped' "$p" "$f" "$s"
	else
		printf 'not valid KTAP'
	fi
}

write_markdown() {
	local b name topic v k
	{
		echo "# mm-backport-kit matrix"
		echo
		printf '| |'; for b in "$@"; do printf ' %s |' "$b"; done; echo
		printf '|---|'; for b in "$@"; do printf -- '---|'; done; echo
		printf '| **tree** |'; for b in "$@"; do printf ' %s |' "$(kernel_version "$(pristine_dir "$b")" 2>/dev/null || echo -)"; done; echo
		for topic in $(all_topics); do
			printf '| **topic %s** |' "$topic"
			for b in "$@"; do printf ' %s |' "$(topic_cell "$b" "$topic")"; done; echo
			for name in $(topic_patches "$topic"); do
				printf '| %s |' "${name%.patch}"
				for b in "$@"; do printf ' %s |' "$(cell "$b" "$name")"; done; echo
			done
		done
		printf '| **check** |'; for b in "$@"; do printf ' %s |' "$(ktap_summary "$KTAP_DIR/$b-check.ktap")"; done; echo
		if ls "$KTAP_DIR"/*-abi.ktap >/dev/null 2>&1; then
			printf '| **abi** (out/abi/) |'
			for b in "$@"; do
				if [ -f "$KTAP_DIR/$b-abi.ktap" ]; then printf ' %s |' "$(ktap_summary "$KTAP_DIR/$b-abi.ktap")"; else printf ' - |'; fi
			done
			echo
		fi
		for v in $(for b in "$@"; do ls "$KTAP_DIR" 2>/dev/null | sed -n "s/^$b-boot-\(.*\)\.ktap$/\1/p"; done | sort -u); do
			printf '| **boot %s** |' "$v"
			for b in "$@"; do
				if [ -f "$KTAP_DIR/$b-boot-$v.ktap" ]; then
					printf ' %s |' "$(ktap_summary "$KTAP_DIR/$b-boot-$v.ktap")"
				else printf ' - |'; fi
			done
			echo
		done
		for k in tree apply check abi $(cut -f1 "$STATUS_DIR"/*.times 2>/dev/null | grep '^boot-' | sort -u); do
			printf '| *time %s (s)* |' "$k"
			for b in "$@"; do printf ' %s |' "$(awk -F'\t' -v k="$k" '$1 == k { print $2 }' "$STATUS_DIR/$b.times" 2>/dev/null)"; done
			echo
		done
		echo
		for b in "$@"; do
			awk -F'\t' -v b="$b" '$2 ~ /^not applicable: / { sub(/^not applicable: /, "", $2); printf "- n/a on %s, %s: %s\n", b, substr($1, 1, 4), $2 }' \
				"$STATUS_DIR/$b.apply" 2>/dev/null
		done
		echo
		echo "Baselines booted: see tests/suite/baselines.table. KTAP of every step: out/ktap/. Generated $(date -u +%Y-%m-%dT%H:%M:%SZ)."
	} > "$OUT_DIR/matrix.md"
}

write_junit() {
	local f args=()
	for f in "$KTAP_DIR"/*.ktap; do
		[ -f "$f" ] || continue
		args+=("$(basename "$f" .ktap)=$f")
	done
	"$KIT_DIR/scripts/ktap.py" junit -o "$OUT_DIR/junit.xml" "${args[@]}"
}

main() {
	local b t f n boot=0 full=0 fail=0 branches=()
	while [ $# -gt 0 ]; do
		case $1 in
		--boot) boot=1; shift ;;
		--full) full=1; boot=1; shift ;;
		-*) die "usage: matrix.sh [--boot] [--full] [BRANCH...]" ;;
		*) branches+=("$1"); shift ;;
		esac
	done
	# shellcheck disable=SC2206
	[ ${#branches[@]} -gt 0 ] || branches=($SUPPORTED_BRANCHES)
	for b in "${branches[@]}"; do require_branch "$b"; done
	need_cache
	rm -rf "$KTAP_DIR" "$STATUS_DIR"
	mkdir -p "$KTAP_DIR" "$STATUS_DIR"
	t=$(now)
	for b in "${branches[@]}"; do
		progress "matrix: $b"
		run_branch "$b" "$boot" "$full"
	done
	write_markdown "${branches[@]}"
	write_junit || { warn "out/junit.xml not written"; fail=1; }
	progress "matrix: $(elapsed "$t")s for ${branches[*]}"
	cat "$OUT_DIR/matrix.md"
	for f in "$KTAP_DIR"/*.ktap; do
		read -r _ n _ < <("$KIT_DIR/scripts/ktap.py" count "$f" 2>/dev/null) || n=invalid
		[ "$n" = 0 ] || { warn "$(basename "$f"): $n failed"; fail=1; }
	done
	return $fail
}

main "$@"
