# SPDX-License-Identifier: GPL-2.0
# tier: fast
# make selftests (lib/kselftest.sh, guest/kselftest-run, mmbk kselftest):
# the judge on canned guest logs (tests/kselftest/, README.md there): a
# clean run, the deliberately broken 0002 (a range shared with a fork
# child collapsed without the COW recheck) reported as a regression, a
# program that takes the guest down, times out, hangs, is OOM-killed or is
# cut off (each a named failure, never a pass), the committed
# expectations (written, re-checked, the patched-only hook); the guest
# runner run on the host with programs that time out, crash and skip; the
# table's rows per branch; a tree without selftests.

LOGS=$KIT_DIR/tests/kselftest

# judge [ARGS...]: mmbk kselftest judge of branch 6.12 into $T/j.*; RC, OUT
judge() {
	run_kit kit_py kselftest judge --branch 6.12 --arch x86_64 --records "$T/j.tsv" --markdown "$T/j.md" "$@"
}

# status NAME -> the status of the record NAME in $T/j.tsv
status() {
	awk -F'\t' -v n="$1" '$4 == n { print $5 }' "$T/j.tsv"
}

# text NAME -> the text of the record NAME in $T/j.tsv
text() {
	awk -F'\t' -v n="$1" '$4 == n { print $8 }' "$T/j.tsv"
}

test_ksft_clean_run() {
	judge --patched "$LOGS/patched.log" --unpatched "$LOGS/unpatched.log"
	expect_rc 0 "patched against unpatched, no regression"
	[ "$(status 'madv_populate/MADV_POPULATE_WRITE on file mapping')" = xfail ] ||
		fail "a case failing on both kernels is not pre-existing (xfail)" "$(cat "$T/j.tsv")"
	grep -q 'pre-existing: fails without the series too' <<< "$(text 'madv_populate/MADV_POPULATE_WRITE on file mapping')" ||
		fail "the pre-existing failure has no reason"
	grep -q 'with base page`: without the series: not ok 4 Longterm R/O pin is reliable' "$T/j.md" ||
		fail "the case the series fixes is not listed" "$(cat "$T/j.md")"
	[ "$(status 'khugepaged/collapse_full (khugepaged:anon): Collapse fully populated PTE table')" = pass ] ||
		fail "khugepaged's coloured OK is not a passing case" "$(cut -f4,5 "$T/j.tsv")"
	[ "$(status 'cow/R\/O-mapping a page registered as iouring fixed buffer ... with base page')" = skip ] ||
		fail "a TAP SKIP is not a skip named by its [RUN] line" "$(cut -f4,5 "$T/j.tsv")"
	grep -q 'io_uring not supported' <<< "$(text 'cow/R\/O-mapping a page registered as iouring fixed buffer ... with base page')" ||
		fail "the SKIP's reason is not in the record"
	# a case is named by its [RUN] line, not by how it ended: cow's
	# collapse after fork() SKIPs without the series ("MADV_COLLAPSE
	# failed") and passes with it ("No leak ..."); named by the result
	# line it was a regression, "missing on the patched kernel"
	[ "$(status 'cow/Basic COW after fork() when collapsing after fork() (fully shared)')" = pass ] ||
		fail "the collapse after fork() is not one case that passes" "$(cut -f4,5 "$T/j.tsv")"
	grep -q 'collapsing after fork() (fully shared)`: without the series: ok 5 # SKIP MADV_COLLAPSE failed' "$T/j.md" ||
		fail "the case the series makes run is not listed" "$(cat "$T/j.md")"
	run_kit kit_py results ktap "$T/j.tsv" --title selftests
	expect_rc 0 "the records through the one KTAP writer"
	! grep -q '^not ok' <<< "$OUT" || fail "a clean run has a failing record" "$OUT"
}

test_ksft_broken_0002_is_a_regression() {
	judge --patched "$LOGS/broken-0002.patched.log" --unpatched "$LOGS/unpatched.log"
	expect_rc 1 "the broken 0002"
	expect_out '^kselftest: REGRESSION 6\.12 x86_64 khugepaged/collapse_fork \(khugepaged:anon\): Collapse PTE table with single page shared with parent process' \
		"the fork-shared collapse case"
	expect_out '^kselftest: REGRESSION 6\.12 x86_64 khugepaged/kernel_log_clean: 2 kernel log line' "the WARNING splat"
	[ "$(status 'khugepaged/kernel_log_clean')" = fail ] || fail "the splat is not a failing case"
	grep -q 'WARNING: CPU: 1 PID: 41 at mm/khugepaged.c' <<< "$(text 'khugepaged/kernel_log_clean')" ||
		fail "the splat's text is not in the record"
	grep -q -- '- `khugepaged/collapse_fork' "$T/j.md" || fail "the regression is not in the report" "$(cat "$T/j.md")"
}

# a regression is confirmed by a second run of its programs: the judge
# names them (--regressed); a case that fails in the first run and passes
# in the second is flaky, not a regression (status 0, the first failure in
# its text); one that fails again, or is missing from the second run,
# stays a regression
test_ksft_flaky_case_is_not_a_regression() {
	judge --patched "$LOGS/broken-0002.patched.log" --unpatched "$LOGS/unpatched.log" --regressed "$T/regressed"
	expect_rc 1 "the first run"
	[ "$(cat "$T/regressed")" = $'cow\nkhugepaged' ] || fail "the programs to run again" "$(cat "$T/regressed")"
	judge --patched "$LOGS/broken-0002.patched.log" --unpatched "$LOGS/unpatched.log" --retry "$LOGS/patched.log"
	expect_rc 0 "a second run in which the cases pass"
	expect_out '^kselftest: FLAKY 6\.12 x86_64 khugepaged/collapse_fork \(khugepaged:anon\): .*: failed in the first run' \
		"the flaky case named"
	! grep -q REGRESSION <<< "$OUT" || fail "a flaky case reported as a regression" "$OUT"
	# shellcheck disable=SC2016  # backquotes of Markdown
	grep -q '^- `khugepaged/collapse_fork (khugepaged:anon): .*`: first run: ' "$T/j.md" ||
		fail "the flaky case is not in the report" "$(cat "$T/j.md")"
	[ "$(status 'khugepaged/collapse_fork (khugepaged:anon): Collapse PTE table with single page shared with parent process')" = pass ] ||
		fail "the flaky case is not its second run's pass" "$(cut -f4,5 "$T/j.tsv")"
	grep -q 'flaky: failed in the first run' <<< "$(text 'khugepaged/collapse_fork (khugepaged:anon): Collapse PTE table with single page shared with parent process')" ||
		fail "the first failure is not in the record" "$(text 'khugepaged/collapse_fork (khugepaged:anon): Collapse PTE table with single page shared with parent process')"
	judge --patched "$LOGS/broken-0002.patched.log" --unpatched "$LOGS/unpatched.log" --retry "$LOGS/broken-0002.patched.log"
	expect_rc 1 "a second run that fails again"
	expect_out '^kselftest: REGRESSION 6\.12 x86_64 khugepaged/collapse_fork' "the confirmed regression"
	judge --patched "$LOGS/broken-0002.patched.log" --unpatched "$LOGS/unpatched.log" --retry "$LOGS/cut.patched.log"
	expect_rc 1 "a second run without the cases"
}

# retry_with_a_stub_guest DIR: ksft_retry DIR with a guest that prints
# what it was given
retry_with_a_stub_guest() {
	# shellcheck disable=SC2317  # called by ksft_retry
	ksft_guest() { printf '%s %s %s\n' "$1" "$3" "$4"; cat "$2/list" "$2/extra"; }
	ksft_retry "$1"
}

# the second run: only the programs with a regression, numbered anew, on
# the patched run's kernel, the initramfs's list the second run's
test_ksft_retry_runs_only_the_regressed_programs() {
	local d=$T/retry-sel
	mkdir -p "$d/patched"
	printf '1 khugepaged 900 khugepaged -\n2 cow 900 cow -\n3 mremap_test 600 mremap_test -\n' > "$d/patched/list"
	printf 'dir /ksft 0755 0 0\nfile /ksft/list %s 0644 0 0\n' "$d/patched/list" > "$d/patched/extra"
	echo /img/bzImage > "$d/patched/image"
	printf 'mremap_test\nkhugepaged\n' > "$d/regressed"
	run_kit in_kit kselftest retry_with_a_stub_guest "$d"
	expect_rc 0 "ksft_retry"
	[ "$(grep -v '^\[' <<< "$OUT")" = "/img/bzImage $d/patched-retry.log 1540
1 khugepaged 900 khugepaged -
2 mremap_test 600 mremap_test -
dir /ksft 0755 0 0
file /ksft/list $d/patched/retry/list 0644 0 0" ] || fail "the second run's kernel, list and initramfs" "$OUT"
}

test_ksft_guest_trouble_is_a_named_failure() {
	local f want
	for f in guest-down:cow:'the guest went down while it ran' bad:khugepaged:'timed out: killed after 900' \
		 bad:cow:'hung: still running after its timeout and SIGKILL' bad:ksm_tests_unmerge:'killed by the OOM killer' \
		 cut:cow:'no end in the log' cut:proc-pid-vm:'not run on the patched kernel: the guest log ends before it'; do
		want=${f#*:}
		judge --patched "$LOGS/${f%%:*}.patched.log" --unpatched "$LOGS/unpatched.log"
		expect_rc 1 "${f%%:*}: ${want%%:*}"
		[ "$(status "${want%%:*}/exit")" = fail ] || fail "${f%%:*}: ${want%%:*}/exit is $(status "${want%%:*}/exit"), not fail"
		grep -q "${want#*:}" <<< "$(text "${want%%:*}/exit")" ||
			fail "${f%%:*}: ${want%%:*}/exit does not say '${want#*:}'" "$(text "${want%%:*}/exit")"
		expect_out "^kselftest: REGRESSION 6\.12 x86_64 ${want%%:*}/exit: " "${f%%:*}: ${want%%:*} as a regression"
	done
	# cow fails without the series too (exit 1): the guest going down is
	# still a regression, and its cases not run after the panic are skips
	judge --patched "$LOGS/guest-down.patched.log" --unpatched "$LOGS/unpatched.log"
	[ "$(status 'cow/R\/O GUP pin on R\/O-mapped shared page ... with base page')" = skip ] ||
		fail "a case not run after the guest went down is not a skip" "$(cut -f4,5 "$T/j.tsv")"
	[ "$(status 'madv_populate/range is not populated')" = pass ] || fail "the programs after the reboot were not judged"
}

test_ksft_expectations() {
	judge --patched "$LOGS/patched.log" --unpatched "$LOGS/unpatched.log" --write-expect "$T/expect.table"
	expect_rc 0 "writing the expectations"
	grep -qP '^6\.12\tx86_64\tmadv_populate/MADV_POPULATE_WRITE on file mapping\tfail\tfail\t' "$T/expect.table" ||
		fail "the pre-existing failure is not in the written table" "$(cat "$T/expect.table")"
	! grep -qP '^6\.12\tx86_64\tkhugepaged/exit\t' "$T/expect.table" || fail "a case passing on both was written"
	! grep -q 'iouring' "$T/expect.table" || fail "a case that skips on both was written" "$(cat "$T/expect.table")"
	grep -qP '^6\.12\tx86_64\tcow/Basic COW after fork\(\) when collapsing after fork\(\) \(fully shared\)\tskip\tpass\t' "$T/expect.table" ||
		fail "the case the series makes run is not in the written table" "$(cat "$T/expect.table")"
	judge --patched "$LOGS/patched.log" --unpatched "$LOGS/unpatched.log" --expect "$T/expect.table"
	expect_rc 0 "re-checked against what was written"
	grep -q '^as committed$' "$T/j.md" || fail "the report does not say the expectations hold" "$(cat "$T/j.md")"
	sed -i 's/^\(6\.12\tx86_64\tmadv_populate\/MADV_POPULATE_WRITE on file mapping\t\)fail\tfail/\1pass\tpass/' "$T/expect.table"
	judge --patched "$LOGS/patched.log" --unpatched "$LOGS/unpatched.log" --expect "$T/expect.table"
	expect_rc 1 "a committed row that no longer holds"
	expect_out '^kselftest: expectation 6\.12 x86_64 madv_populate/MADV_POPULATE_WRITE on file mapping: committed pass/pass, observed fail/fail' \
		"the stale row named"
	# the matrix's hook: the patched boot alone, against the table
	judge --patched "$LOGS/patched.log" --unpatched "$LOGS/unpatched.log" --write-expect "$T/expect.table"
	judge --patched "$LOGS/patched.log" --expect "$T/expect.table"
	expect_rc 0 "the patched log alone against the table"
	[ "$(status 'madv_populate/MADV_POPULATE_WRITE on file mapping')" = xfail ] || fail "a known failure is not xfail in the hook"
	judge --patched "$LOGS/broken-0002.patched.log" --expect "$T/expect.table"
	expect_rc 1 "the broken 0002 against the table"
	expect_out 'REGRESSION 6\.12 x86_64 khugepaged/collapse_fork' "the broken 0002 in the hook"
	printf '6.12\tx86_64\tbad row\n' >> "$T/expect.table"
	judge --patched "$LOGS/patched.log" --expect "$T/expect.table"
	expect_one_line_error 'expect.table:[0-9]+: not "branch<TAB>arch<TAB>case'
}

test_ksft_runner_on_the_host() {
	local d=$T/runner
	mkdir -p "$d" "$T/rtmp"
	# shellcheck disable=SC2016  # the program's own $(pwd)
	printf '#!/bin/sh\necho "TAP version 13"; echo "# cwd $(pwd)"; echo "1..2"; echo "ok 1 first"; echo "not ok 2 second"; exit 1\n' > "$d/tapok"
	printf '#!/bin/sh\necho starting; exec sleep 30\n' > "$d/slow"
	printf '#!/bin/sh\necho "args: $*"; kill -SEGV $$\n' > "$d/segv"
	printf '#!/bin/sh\necho "ok 1 # SKIP not here"; exit 4\n' > "$d/skipper"
	chmod +x "$d"/*
	printf '1 tapok 5 tapok -\n2 slow 1 slow -\n3 segv 5 segv a,b\n4 skipper 5 skipper -\n' > "$d/list"
	echo "console=ttyS0 mmbk.ksft_from=1" > "$d/cmdline"
	KSFT_DIR=$d KSFT_CMDLINE=$d/cmdline KSFT_TMP=$T/rtmp sh "$KIT_DIR/guest/kselftest-run" > "$T/runner.log" 2>&1 ||
		fail "the runner failed" "$(cat "$T/runner.log")"
	grep -q '^MMBK-KSFT-OUT 3| args: a b$' "$T/runner.log" || fail "the table's args did not reach the program" "$(cat "$T/runner.log")"
	# from the programs' own directory (ksm_functional_tests execs ./itself)
	grep -qxF "MMBK-KSFT-OUT 1| # cwd $d" "$T/runner.log" || fail "a program does not run from its own directory" "$(cat "$T/runner.log")"
	judge --patched "$T/runner.log"
	expect_rc 1 "failures against an empty table"
	[ "$(status 'tapok/second')" = fail ] || fail "a TAP 'not ok' is not a failing case" "$(cut -f4,5,8 "$T/j.tsv")"
	[ "$(status 'tapok/first')" = pass ] || fail "a TAP 'ok' is not a passing case" "$(cut -f4,5,8 "$T/j.tsv")"
	grep -q 'timed out: killed after' <<< "$(text slow/exit)" || fail "the timeout is not named" "$(text slow/exit)"
	grep -q 'killed by signal 11' <<< "$(text segv/exit)" || fail "the crash is not named" "$(text segv/exit)"
	[ "$(status skipper/exit)" = skip ] || fail "exit 4 is not a skip"
	# from the program after one that took the guest down
	echo "mmbk.ksft_from=3" > "$d/cmdline"
	KSFT_DIR=$d KSFT_CMDLINE=$d/cmdline KSFT_TMP=$T/rtmp sh "$KIT_DIR/guest/kselftest-run" > "$T/runner.log" 2>&1
	! grep -q 'MMBK-KSFT-BEGIN [12] ' "$T/runner.log" || fail "mmbk.ksft_from=3 ran the programs before 3" "$(cat "$T/runner.log")"
	grep -q '^1\.\.2$' "$T/runner.log" || fail "mmbk.ksft_from=3: the plan is not 2 programs" "$(cat "$T/runner.log")"
}

test_ksft_rows_by_branch() {
	local rows
	rows=$(in_kit kselftest ksft_rows 5.10)
	grep -qP '^userfaultfd\tmm\tuserfaultfd\tanon,20,16\t' <<< "$rows" || fail "5.10 has no userfaultfd row" "$rows"
	! grep -q '^uffd-unit-tests' <<< "$rows" || fail "5.10 got the 6.6+ uffd-unit-tests"
	grep -qP '^khugepaged\t.*\t-$' <<< "$rows" || fail "5.10's khugepaged builds as released" "$rows"
	rows=$(in_kit kselftest ksft_rows 6.12)
	grep -qP '^khugepaged\t.*\t-include,../kselftest.h$' <<< "$rows" || fail "6.12's khugepaged row" "$rows"
	[ "$(grep -c '^khugepaged' <<< "$rows")" = 1 ] || fail "6.12 has two khugepaged rows" "$rows"
	! grep -q '^userfaultfd' <<< "$rows" || fail "6.12 got the pre-6.6 userfaultfd"
	awk '!/^[#@]/ && NF { if (NF < 9 || $2 !~ /^(mm|proc)$/ || $6 !~ /^[0-9]+$/) { print; bad = 1 } } END { exit bad }' \
		"$KIT_DIR/tables/kselftests.table" || fail "malformed rows in tables/kselftests.table"
	# 5.10 runs 5.15's programs (its own khugepaged.c writes a sysfs file
	# 5.10 does not have), so it has 5.15's rows: ksm_tests among them
	[ "$(in_kit kselftest ksft_programs_branch 5.10)" = 5.15 ] || fail "5.10's programs are not 5.15's"
	[ "$(in_kit kselftest ksft_programs_branch 6.1)" = 6.1 ] || fail "6.1 does not run its own programs"
	awk '$1 == "@programs-from" { print $2; print $3 }' "$KIT_DIR/tables/kselftests.table" | while read -r b; do
		in_kit tables require_branch "$b" || fail "@programs-from names an unsupported branch $b"
	done
}

# build_in_cache TREE: ksft_build of TREE as branch 6.12 for x86_64, with a
# cache of this test's own
build_in_cache() (
	# shellcheck disable=SC2034  # the kit's cache, read by kselftest.sh
	CACHE_DIR=$T/cache
	kit_use kselftest
	kb_target x86_64 "" "" "$1"
	ksft_build "$1" 6.12
)

test_ksft_tree_without_selftests() {
	local t=$T/notests dir
	mkdir -p "$t"
	printf 'VERSION = 6\nPATCHLEVEL = 12\n' > "$t/Makefile"
	dir=$(build_in_cache "$t" 2> "$T/err") ||
		fail "building from a tree without selftests failed" "$(cat "$T/err")"
	grep -q 'has no tools/testing/selftests/mm, vm or proc' "$T/err" || fail "no warning naming the missing dirs" "$(cat "$T/err")"
	[ "$(awk -F'\t' '$2 != "skip"' "$dir/built.tsv" | wc -l)" = 0 ] || fail "a program was built from nothing" "$(cat "$dir/built.tsv")"
	grep -qP '^khugepaged\tskip\tthe tree has no tools/testing/selftests/mm or vm' "$dir/built.tsv" ||
		fail "the skip does not name what is missing" "$(cat "$dir/built.tsv")"
}

test_ksft_bad_input() {
	run_kit kit selftests --kdir /nonexistent
	expect_rc 64 "KDIR= that does not exist"
	expect_one_line_error 'KDIR=/nonexistent'
	mkdir -p "$T/kd"
	printf 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\n' > "$T/kd/Makefile"
	mkdir -p "$T/kd/mm"
	: > "$T/kd/mm/khugepaged.c"
	: > "$T/kd/mm/ksm.c"
	run_kit kit selftests --kdir "$T/kd" --save
	expect_rc 64 "KDIR= with SAVE=1"
	expect_one_line_error 'KDIR= is judged patched against unpatched only'
	run_kit kit selftests --kdir "$T/kd" --only patched
	expect_rc 64 "KDIR= with ONLY="
	expect_one_line_error 'KDIR= is judged patched against unpatched only'
	run_kit kit selftests --kdir "$T/kd" --profile nonsense
	expect_rc 64 "an unknown build profile"
	run_kit kit selftests --branch 9.9
	expect_rc 64 "an unknown branch"
	run_kit kit_py kselftest judge --branch 6.12 --arch x86_64 --patched "$T/none.log" --records "$T/j.tsv"
	expect_one_line_error 'cannot read .*none.log'
	: > "$T/empty.log"
	run_kit kit_py kselftest judge --branch 6.12 --arch x86_64 --patched "$T/empty.log" --records "$T/j.tsv"
	expect_rc 1 "a guest log without a selftest run"
	expect_one_line_error 'holds no selftest run'
}

test_ksft_real_log() {
	judge --patched "$LOGS/debian-6.1.192.log" --no-judge
	expect_rc 0 "one kernel's log, reported"
	[ "$(status 'khugepaged/collapse_full (khugepaged:anon): Collapse multiple fully populated PTE table')" = pass ] ||
		fail "khugepaged's first collapse case" "$(cut -f4,5 "$T/j.tsv")"
	[ "$(status 'khugepaged/collapse_full_of_compound (madvise:anon): Collapse PTE table full of compound pages')" = pass ] ||
		fail "the madvise context of khugepaged's cases" "$(cut -f4,5 "$T/j.tsv")"
	[ "$(status 'khugepaged/exit')" = fail ] || fail "khugepaged's exit 1 is not a failure"
	[ "$(status 'mremap_test/2GB mremap - Source PUD-aligned, Destination PMD-aligned')" = fail ] ||
		fail "mremap_test's failing TAP case" "$(cut -f4,5 "$T/j.tsv")"
	[ "$(status 'mremap_test/mremap - Source and Destination Regions Overlapping')" = skip ] ||
		fail "an XFAIL directive's text names its case" "$(cut -f4,5 "$T/j.tsv")"
	[ "$(status 'userfaultfd/exit')" = pass ] || fail "userfaultfd's exit 0"
	[ "$(awk -F'\t' '$5 == "pass"' "$T/j.tsv" | wc -l)" = 75 ] || fail "not the 75 passing cases of the log" "$(cut -f4,5 "$T/j.tsv")"
	! grep -q REGRESSION "$T/j.tsv" || fail "a report of one kernel speaks of regressions"
}

test_ksft_patched_alone_needs_the_table() {
	judge --patched "$LOGS/patched.log" --expect "$T/none.table"
	expect_rc 1 "the patched kernel alone without committed expectations"
	expect_one_line_error 'no committed expectations for 6\.12 x86_64'
	! grep -q REGRESSION "$T/j.tsv" || fail "unjudged records speak of regressions"
	grep -q 'madv_populate/MADV_POPULATE_WRITE on file mapping' "$T/j.md" || fail "the report lacks the failing case"
}

test_ksft_matrix_runs() {
	local boots runs
	boots=$'boot-patched-arm64 patched test arm64\nboot-without-khugepaged-ro-collapse-arm64 without-khugepaged-ro-collapse test arm64'
	runs=$(in_kit matrix matrix_ksft_runs "$boots" 0)
	[ "$runs" = "selftests-arm64 test arm64 patched" ] || fail "make test's run on 6.12's arm64 boot" "$runs"
	runs=$(in_kit matrix matrix_ksft_runs $'boot-without-x without-x test -\nboot-patched-rt patched rt -' 0)
	[ "$runs" = "selftests-rt rt - patched" ] || fail "the first patched boot is the PREEMPT_RT one" "$runs"
	runs=$(in_kit matrix matrix_ksft_runs $'boot-patched patched test -\nboot-patched-kabi patched-kabi test -\nboot-patched-arm64 patched test arm64' 0)
	[ "$runs" = "selftests test - patched" ] || fail "make test runs the programs once per branch, on its first patched boot" "$runs"
	runs=$(in_kit matrix matrix_ksft_runs $'boot-unpatched unpatched test -\nboot-without-x without-x test -' 0)
	[ -z "$runs" ] || fail "a run without a patched boot" "$runs"
	boots=$'boot-patched patched test -\nboot-unpatched unpatched test -\nboot-patched-arm64 patched test arm64\nboot-patched-llvm patched test llvm'
	runs=$(in_kit matrix matrix_ksft_runs "$boots" 1)
	[ "$runs" = $'selftests test - -\nselftests-arm64 test arm64 -\nselftests-llvm test llvm -' ] ||
		fail "FULL=1: both kernels on every patched boot's target" "$runs"
}

# key_of ARCH TAG PROFILE -> ksft_key PROFILE of the request whose target
# kbuild.sh resolved to KB_ARCH=ARCH, KB_TAG=TAG (request_target names it)
key_of() (
	kit_use kselftest
	# shellcheck disable=SC2317,SC2034  # called by request_target; KB_* read by it
	kb_target() { KB_ARCH=$KEY_ARCH KB_TAG=$KEY_TAG; }
	KEY_ARCH=$1 KEY_TAG=$2
	request_target
	ksft_key "$3"
)

# the results' and expectations' key is the request's target and the
# build profile
test_ksft_key() {
	local k
	k=$(key_of x86_64 '' test)
	[ "$k" = x86_64 ] || fail "x86_64, GCC" "$k"
	k=$(key_of arm64 -arm64 test)
	[ "$k" = arm64 ] || fail "arm64" "$k"
	k=$(key_of arm64 -arm64-llvm test)
	[ "$k" = arm64-llvm ] || fail "arm64 with LLVM" "$k"
	k=$(key_of x86_64 -llvm test)
	[ "$k" = x86_64-llvm ] || fail "x86_64 with LLVM" "$k"
	k=$(key_of x86_64 '' rt)
	[ "$k" = x86_64-rt ] || fail "the PREEMPT_RT kernel" "$k"
}

# real guest logs (tests/kselftest/README.md): the kernel with a 0002 that
# no longer checks max_ptes_shared, booted by hand, is a regression by the
# tree's own khugepaged test; the series as carried is not
test_ksft_real_broken_0002_is_a_regression() {
	run_kit kit_py kselftest judge --branch 6.6 --arch x86_64 --records "$T/j.tsv" --markdown "$T/j.md" \
		--patched "$LOGS/real-6.6-broken-0002.patched.log" --unpatched "$LOGS/real-6.6.unpatched.log"
	expect_rc 1 "the broken 0002's real boot"
	expect_out '^kselftest: REGRESSION 6\.6 x86_64 khugepaged/collapse_max_ptes_shared \(khugepaged:anon\): Maybe collapse with max_ptes_shared exceeded' \
		"the max_ptes_shared case as a regression"
	[ "$(status 'khugepaged/collapse_max_ptes_shared (khugepaged:anon): Maybe collapse with max_ptes_shared exceeded')" = fail ] ||
		fail "the record of the regressing case" "$(cut -f4,5 "$T/j.tsv")"
	run_kit kit_py kselftest judge --branch 6.6 --arch x86_64 --records "$T/j.tsv" \
		--patched "$LOGS/real-6.6.patched.log" --unpatched "$LOGS/real-6.6.unpatched.log"
	expect_rc 0 "the series as carried"
	! grep -q REGRESSION <<< "$OUT" || fail "the series as carried reads as a regression" "$OUT"
	[ "$(status 'khugepaged/collapse_max_ptes_shared (khugepaged:anon): Maybe collapse with max_ptes_shared exceeded')" = pass ] ||
		fail "the max_ptes_shared case with the series as carried" "$(cut -f4,5 "$T/j.tsv")"
}

# what the guest printed (khugepaged's "ESC[31mFail ESC[0m", in the
# regression's and the pre-existing failures' text) reaches no report as
# a control character: the records, selftests.md, the KTAP (read by the
# kernel's parser) and the JUnit (valid against the schema) of a judged
# run with a regression
test_ksft_reports_hold_no_guest_escapes() {
	need_kunit_parser
	local f bad
	judge --patched "$LOGS/broken-0002.patched.log" --unpatched "$LOGS/unpatched.log"
	expect_rc 1 "the broken 0002"
	grep -qP '\x1b' "$LOGS/broken-0002.patched.log" || fail "the fixture has no escape sequence to test with"
	kit_py results ktap "$T/j.tsv" --title selftests > "$T/j.ktap"
	run_kit kit_py ktap count --kunit-dir "$KUNIT_DIR" "$T/j.ktap"
	expect_rc 0 "kunit_parser on the selftests' KTAP"
	run_kit kit_py results junit -o "$T/j.xml" selftests-6.12-x86_64="$T/j.tsv"
	expect_rc 0 "results junit of the selftests' records"
	run_kit xmllint --noout --schema "$KIT_DIR/tests/junit/junit-10.xsd" "$T/j.xml"
	expect_rc 0 "xmllint --schema of the selftests' JUnit"
	for f in "$T/j.md" "$T/j.ktap" "$T/j.xml"; do
		bad=$(grep -naP '[\x00-\x08\x0b-\x1f\x7f]' "$f" | head -3 | cat -v || true)
		[ -z "$bad" ] || fail "${f##*/} holds control characters" "$bad"
	done
}
