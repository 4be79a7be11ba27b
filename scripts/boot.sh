#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot.sh - build a branch's test kernel, boot it in qemu (TCG) with the
# shared C suite in an initramfs, and judge the KTAP it prints.
#
#   BRANCH=<b> [PATCHED=1|0] scripts/boot.sh      (make boot BRANCH=.. PATCHED=..)
#   KDIR=<tree> [PATCHED=1|0] scripts/boot.sh     (any tree; PATCHED picks the
#                                                  expectation column)
# Environment: KMODS="a.ko b.ko" (insmod'ed before the suite; their kernel-log
# KTAP is a subtest), BOOT_TIMEOUT (s, default 240), TEST_TIMEOUT (s per test
# binary, default 150), QEMU_MEM (default 1024M), KCONFIG_FRAGMENTS (extra),
# NOBUILD=1 (boot the kernel already built in the build dir, as it is).
#
# The verdict: every case's result must equal tests/suite/expect.table
# (unpatched baselines are expected to fail where the series changes the
# kernel), every test binary must finish, the run must reach its end, and the
# kernel log must hold no oops, lockdep splat, BUG, WARNING or panic.
# JUDGE_LOG=<log> re-judges a kept serial log without building or booting.
# Logs: out/boot/<branch>-<patched|unpatched>.log (serial console),
# .result (case, result, expected, status; metrics; verdict).
set -eu
set -o pipefail
. "$(dirname "$0")/lib.sh"

PATCHED=${PATCHED:-1}
case $PATCHED in
1|yes|y|true) variant=patched ;;
0|no|n|false) variant=unpatched ;;
*) die "PATCHED=$PATCHED: use PATCHED=1 (branch series applied) or PATCHED=0 (pristine)" ;;
esac
BOOT_TIMEOUT=${BOOT_TIMEOUT:-240}
QEMU_MEM=${QEMU_MEM:-1024M}
# --- hooks for scripts/bench.sh: SUITE_DIR=<dir> packs that directory's
# static binaries instead of building tests/suite; EXPECT=none reports
# (log, .result, metrics) without judging against expect.table
SUITE_DIR=${SUITE_DIR:-}
EXPECT_MODE=${EXPECT:-}
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"

# --- source tree and build dir ---------------------------------------------
if [ -n "${KDIR:-}" ]; then
	SRC=$(cd "$KDIR" 2>/dev/null && pwd) || die "KDIR=$KDIR does not exist; point KDIR= at a kernel source tree"
	branch=$(tree_branch "$SRC")
	[ -z "${BRANCH:-}" ] || [ "$BRANCH" = "$branch" ] ||
		die "KDIR=$KDIR is branch $branch but BRANCH=$BRANCH; drop BRANCH= or fix KDIR="
	tag=$branch-kdir-$(printf '%s' "$SRC" | sha256sum | cut -c1-8)
	logtag=$branch-kdir-$variant
else
	branch=${BRANCH:-$DEFAULT_BRANCH}
	require_branch "$branch"
	tag=$branch-$variant
	logtag=$tag
	if [ "$variant" = patched ] && [ -z "$(series_patches "$(series_file "$branch")")" ]; then
		# nothing to carry (all upstream): the patched kernel is the pristine one
		progress "boot: $branch series is empty: patched kernel = pristine kernel"
		variant_src=unpatched
		tag=$branch-unpatched
	else
		variant_src=$variant
	fi
	if [ -z "${JUDGE_LOG:-}" ]; then
		SRC=$("$KIT_DIR/scripts/worktree.sh" "$branch" "$variant_src" | tail -n1)
		[ -f "$SRC/Makefile" ] || die "worktree.sh gave no tree for $branch $variant_src"
	fi
	OBJ=$(build_dir "$branch" "$variant_src")	# shared with make check
fi
OBJ=${OBJ:-$CACHE_DIR/build/$tag}
BOOT_DIR=$OUT_DIR/boot
mkdir -p "$BOOT_DIR"
LOG=$BOOT_DIR/$logtag.log
RESULT=$BOOT_DIR/$logtag.result
EXPECT=$KIT_DIR/tests/suite/expect.table
[ "$EXPECT_MODE" != none ] || EXPECT=/dev/null	# bench hook

if [ -n "${JUDGE_LOG:-}" ]; then
	# re-judge an existing serial log (no build, no boot)
	[ -f "$JUDGE_LOG" ] || die "JUDGE_LOG=$JUDGE_LOG does not exist"
	LOG=$JUDGE_LOG
	RESULT=${LOG%.log}.result
	build_s=0 boot_s=0
	timed_out=0
	grep -q '^MMBK-END' "$LOG" || timed_out=1
else
	# --- build -------------------------------------------------------------------
	progress "boot: $branch $variant: kernel from $SRC"
	t0=$(date +%s)
	if [ "${NOBUILD:-0}" = 1 ]; then
		warn "NOBUILD=1: booting the kernel already in $OBJ, not rebuilt"
	else
		# "modules" writes Module.symvers, which the test module links against
		"$KIT_DIR/scripts/kbuild.sh" "$SRC" "$OBJ" bzImage modules
	fi
	# the nosteal KTAP module (DKMS): required where the series carries the
	# API, skipped with the reason where the kernel lacks it
	if [ -z "$SUITE_DIR" ]; then
		rc=0
		ko=$("$KIT_DIR/scripts/kmod.sh" "$OBJ") || rc=$?
		if [ $rc -eq 0 ]; then
			KMODS="${KMODS:-} $ko"
		elif [ $rc -eq 2 ] && { [ "${variant_src:-$variant}" != patched ] ||
			! grep -q '^0006-' "$(series_file "$branch")"; }; then
			progress "boot: nosteal_test module skipped on $branch $variant (no down_read_nosteal)"
		else
			die "the nosteal_test module did not build for $branch $variant; see the message above"
		fi
	fi
	build_s=$(( $(date +%s) - t0 ))
	KIMG=$OBJ/arch/x86/boot/bzImage
	[ -f "$KIMG" ] || die "no $KIMG after the build"

	if [ -z "$SUITE_DIR" ]; then
		progress "boot: building the C suite"
		make -s -C "$KIT_DIR/tests/suite" O="$OUT_DIR/suite" >&2 ||
			die "building tests/suite failed"
	fi
	# shellcheck disable=SC2086
	"$KIT_DIR/scripts/initramfs.sh" "$BOOT_DIR/$logtag.cpio" "${SUITE_DIR:-$OUT_DIR/suite}" ${KMODS:-}

	# --- boot --------------------------------------------------------------------
	progress "boot: qemu (tcg, 2 cpus, $QEMU_MEM, timeout ${BOOT_TIMEOUT}s) -> $LOG"
	t0=$(date +%s)
	qrc=0
	timeout -k 5 "$BOOT_TIMEOUT" qemu-system-x86_64 -accel tcg -smp 2 -m "$QEMU_MEM" \
		-kernel "$KIMG" -initrd "$BOOT_DIR/$logtag.cpio" \
		-append "console=ttyS0 panic=-1 rdinit=/init transparent_hugepage=madvise clocksource=hpet" \
		-display none -monitor none -serial stdio -no-reboot </dev/null 2>&1 |
		tr -d '\r' | tee "$LOG" |
		grep --line-buffered -E '^ *(KTAP version|# Subtest:|(not )?ok [0-9]+ |# (collapse_seconds|collapse_full_scans|writer_latency_us|SKIP))|MMBK-|Kernel panic|BUG:|WARNING:' >&2 ||
		qrc=$?
	boot_s=$(( $(date +%s) - t0 ))
	# pipefail: the status is timeout's (124 = timed out) or grep's (1 = no line)
	timed_out=0
	grep -q '^MMBK-END' "$LOG" || timed_out=1
fi

# --- judge -------------------------------------------------------------------
# splats: kernel lines (printk timestamp) only, so test output cannot match
splat_re='Oops|BUG:|WARNING:|Kernel panic|INFO: |possible recursive locking|WARNING: possible circular|general protection fault|Call Trace:|UBSAN:|kernel BUG at'
splats=$(grep -nE "^\[ *[0-9]+\.[0-9]+\] .*($splat_re)" "$LOG" || true)

awk -v branch="$branch" -v variant="$variant" -v expfile="$EXPECT" \
    -v timed_out="$timed_out" -v build_s="$build_s" -v boot_s="$boot_s" '
function expected(c,   k) {
	k = c SUBSEP branch
	if (k in want) return want[k]
	k = c SUBSEP "*"
	if (k in want) return want[k]
	return "pass"
}
BEGIN {
	col = (variant == "patched") ? 4 : 3
	while ((getline line < expfile) > 0) {
		sub(/#.*/, "", line)
		if (split(line, f, " ") < 4) continue
		c = f[1]; b = f[2]; r = f[col]
		want[c, b] = r
		if (b == branch || b == "*") listed[c] = 1
	}
}
/^\[ *[0-9]+\.[0-9]+\] / { next }		# kernel log
/^    # Subtest: / { sub_name = $3; next }
/^    (not )?ok [0-9]+ / {
	line = $0; sub(/^    /, "", line)
	res = (line ~ /^not ok/) ? "fail" : (line ~ /# SKIP/) ? "skip" : "pass"
	sub(/^(not )?ok [0-9]+ /, "", line); sub(/ *#.*/, "", line)
	c = sub_name "." line
	if (!(c in result)) order[++ncase] = c
	result[c] = res
	leaf_fail[sub_name] += (res == "fail")
	next
}
/^(not )?ok [0-9]+ / {
	line = $0
	res = (line ~ /^not ok/) ? "fail" : (line ~ /# SKIP/) ? "skip" : "pass"
	sub(/^(not )?ok [0-9]+ /, "", line); sub(/ *#.*/, "", line)
	top[line] = res; ntop++
	next
}
/^    # (collapse_seconds|collapse_full_scans|writer_latency_us): / {
	m = $0; sub(/^    # /, "", m); metrics = metrics sub_name "." m "\n"; next
}
/^1\.\.[0-9]+$/ { plan = substr($0, 4) + 0 }
END {
	bad = 0
	for (i = 1; i <= ncase; i++) {
		c = order[i]; e = expected(c); r = result[c]
		if (e == "any" && (r == "pass" || r == "fail")) e = r	# baseline may go either way
		st = (r == e) ? ((r == "fail") ? "expected-fail" : "ok") : \
		     (e == "fail" && r == "pass") ? "UNEXPECTED-PASS" : "MISMATCH"
		if (r != e) bad++
		cnt[r]++; if (r == "fail" && e == "fail") xfail++
		printf "case %-40s %-5s expected %-5s %s\n", c, r, e, st
	}
	for (c in listed) if (!(c in result) && expected(c) != "pass") {
		printf "case %-40s %-5s expected %-5s MISSING\n", c, "none", expected(c); bad++
	}
	for (t in top) if (top[t] == "fail" && !leaf_fail[t]) {
		printf "case %-40s %-5s expected %-5s CRASHED (binary failed without a failing case)\n", t, "fail", "pass"; bad++
	}
	if (plan == 0 || ntop < plan) {
		printf "run: %d of %d test binaries reported\n", ntop, plan; bad++
	}
	if (timed_out) { print "run: did not reach MMBK-END (timeout, panic or hang)"; bad++ }
	printf "%s", metrics
	printf "counts: %d cases: %d pass, %d fail (%d expected), %d skip\n", ncase, cnt["pass"], cnt["fail"], xfail, cnt["skip"]
	printf "times: build %ds boot %ds\n", build_s, boot_s
	printf "mismatches: %d\n", bad
}' "$LOG" > "$RESULT"

nsplat=0
if [ -n "$splats" ]; then
	nsplat=$(printf '%s\n' "$splats" | wc -l)
	printf '%s\n' "---- kernel splats in $LOG ----" >&2
	# each splat with its context (up to 40 lines after the first match)
	first=$(printf '%s\n' "$splats" | head -n1 | cut -d: -f1)
	sed -n "$first,$((first + 40))p" "$LOG" >&2
	printf '%s\n' "---- ($nsplat matching lines; all in $LOG) ----" >&2
fi
echo "splats: $nsplat" >> "$RESULT"

mism=$(sed -n 's/^mismatches: //p' "$RESULT")
if [ "$mism" = 0 ] && [ "$nsplat" = 0 ]; then verdict=PASS; else verdict=FAIL; fi
echo "verdict: $verdict" >> "$RESULT"

printf '\n' >&2
grep -E '^(case|run:|counts:|times:)|\.(collapse_seconds|collapse_full_scans|writer_latency_us):' "$RESULT" >&2
counts=$(sed -n 's/^counts: //p' "$RESULT")
# stdout: the judged results as KTAP; a failure the expectation table
# predicts (the unpatched baseline) is "ok ... # XFAIL"
awk -v tag="$branch $variant" -v splats="$nsplat" '
	/^case / { n++; name[n] = $2; res[n] = $3; st[n] = $NF }
	/^run: / { incomplete = incomplete "# " $0 "\n" }
	END {
		print "KTAP version 1"
		print "# boot " tag
		print "1.." n + 2
		for (i = 1; i <= n; i++) {
			if (st[i] == "ok" && res[i] == "skip") printf "ok %d %s # SKIP not on this branch\n", i, name[i]
			else if (st[i] == "ok") printf "ok %d %s\n", i, name[i]
			else if (st[i] == "expected-fail") printf "ok %d %s # XFAIL fails without the series, as expected\n", i, name[i]
			else printf "not ok %d %s # got %s\n", i, name[i], res[i]
		}
		printf "%s %d no oops, lockdep splat, BUG or WARNING\n", splats == 0 ? "ok" : "not ok", n + 1
		printf "%s %d every test binary ran to the end\n%s", incomplete == "" ? "ok" : "not ok", n + 2, incomplete
	}
' "$RESULT"
printf '# boot %s %s: %s (%s; splats %d; build %ds, boot %ds; log %s)\n' \
	"$branch" "$variant" "$verdict" "$counts" "$nsplat" "$build_s" "$boot_s" "$LOG"
[ "$verdict" = PASS ] || [ "$EXPECT_MODE" = none ]	# bench hook: report only
