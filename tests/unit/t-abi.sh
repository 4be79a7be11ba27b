# SPDX-License-Identifier: GPL-2.0
# tier: fast
# mmbk abi-report on canned builds: Module.symvers pairs, trace event
# format dumps as guest/init prints them, and real abidw dumps of two
# small shared objects (gcc -g), so the verdict logic is checked against
# libabigail's own output.  Its results are records (one per topic, named
# profile/topic), read here through their KTAP.  Each test also shows the
# report catching what it must catch (a verdict that differs from the
# expectation fails the case); tables/abi-expect.table's defaults (* rows,
# a branch row wins, nothing to do is none) hold a new branch with no row.

KSM=ksm-break-ksm RO=khugepaged-ro-collapse LOCK=khugepaged-mmap-lock

# symvers DIR SYM:CRC...: a Module.symvers of vmlinux exports
symvers() {
	local d=$1 s
	shift
	mkdir -p "$d"
	for s in "$@"; do
		printf '0x%s\t%s\tvmlinux\tEXPORT_SYMBOL\t\n' "${s#*:}" "${s%%:*}"
	done > "$d/Module.symvers"
}

# formats DIR WRITABLE(0|1) [EXTRA_EVENT]: a guest dump with the
# huge_memory event 0003 changes, with or without its writable field
formats() {
	local d=$1 w=$2
	mkdir -p "$d"
	{
		echo "[    1.2] Run /init as init process"
		echo "MMBK-FORMATS 5.10.0"
		echo "MMBK-FORMAT huge_memory/mm_khugepaged_scan_pmd"
		echo "| name: mm_khugepaged_scan_pmd"
		echo "| ID: $((100 + w))"
		echo "| format:"
		echo "| 	field:unsigned long pfn;	offset:16;	size:8;	signed:0;"
		[ "$w" = 0 ] || echo "| 	field:bool writable;	offset:24;	size:1;	signed:0;"
		echo "| 	field:int referenced;	offset:28;	size:4;	signed:1;"
		echo "MMBK-FORMAT sched/sched_switch"
		echo "| name: sched_switch"
		echo "| ID: 7"
		if [ -n "${3:-}" ]; then
			echo "MMBK-FORMAT $3"
			echo "| name: ${3#*/}"
		fi
		echo "MMBK-END"
	} > "$d/formats.log"
}

# abi DIR VARIANT: abidw dump of a shared object exporting kit_lock(), whose
# struct gains a member in VARIANT "grown" and which gets a second export
# in VARIANT "added"
abi() {
	local d=$1
	mkdir -p "$d"
	cat > "$d/lib.c" <<-EOF
	struct kit_sem { long count; $([ "$2" = grown ] && echo 'long owner;') };
	int kit_lock(struct kit_sem *s) { return s->count > 0; }
	$([ "$2" = added ] && echo 'int kit_lock_nosteal(struct kit_sem *s) { return s->count; }')
	EOF
	gcc -g -shared -fPIC -o "$d/lib.so" "$d/lib.c" || fail "gcc failed"
	abidw --no-show-locs --no-corpus-path "$d/lib.so" > "$d/abi.xml" || fail "abidw failed"
}

need_tools() {
	{ command -v abidw >/dev/null && command -v gcc >/dev/null; } || skip "abigail-tools or gcc missing"
}

# builds: $T/abi/{base,same,added,broken,kabi}
builds() {
	need_tools
	rm -rf "$T/abi"
	symvers "$T/abi/base" down_read:aaaa up_read:bbbb
	formats "$T/abi/base" 1
	abi "$T/abi/base" base
	# same interface, other event ids, a console message cutting into a line
	symvers "$T/abi/same" down_read:aaaa up_read:bbbb
	formats "$T/abi/same" 1
	sed -i 's/^\(| 	field:unsigned long pfn;.*\)$/\1[    2.233875] random: crng init done/' "$T/abi/same/formats.log"
	grep -q 'crng init done' "$T/abi/same/formats.log" || fail "canned console message not placed"
	abi "$T/abi/same" base
	# a new export and a new event
	symvers "$T/abi/added" down_read:aaaa up_read:bbbb down_read_nosteal:cccc
	formats "$T/abi/added" 1 mmap_lock/mmap_lock_nosteal
	abi "$T/abi/added" added
	# the tracepoint loses its field
	symvers "$T/abi/broken" down_read:aaaa up_read:bbbb
	formats "$T/abi/broken" 0
	abi "$T/abi/broken" base
	# a CRC change alone
	symvers "$T/abi/crc" down_read:dddd up_read:bbbb
	formats "$T/abi/crc" 1
	abi "$T/abi/crc" base
	# a type change alone (what abidiff sees)
	symvers "$T/abi/type" down_read:aaaa up_read:bbbb
	formats "$T/abi/type" 1
	abi "$T/abi/type" grown
}

# run_report PROFILE EXPECTFILE SPEC...: report of branch 9.9 into
# $T/abi/out.md, its records in $T/abi/out.tsv and their KTAP in
# $T/abi/out.ktap; returns the report's exit code
run_report() {
	local profile=$1 expect=$2 rc=0
	shift 2
	rm -f "$T/abi/out.tsv"
	kit_py abi-report --name test --profile "$profile" --branch 9.9 --expect "$expect" \
		--out "$T/abi/out.md" --records "$T/abi/out.tsv" "$@" > "$T/abi/out.err" 2>&1 || rc=$?
	: > "$T/abi/out.ktap"
	[ ! -f "$T/abi/out.tsv" ] || kit_py results ktap "$T/abi/out.tsv" > "$T/abi/out.ktap"
	return $rc
}

verdict_of() {	# verdict_of TOPIC -> the verdict the KTAP states
	sed -n "s/^ *# $1: \([a-z ]*\).*/\1/p" "$T/abi/out.ktap" | sed -n 1p
}

# expect_verdicts KSM RO LOCK SPEC...: the default-profile report of SPEC
# (expectations in $T/abi/expect) passes and gives the three topics
# these verdicts
expect_verdicts() {
	local want="$1 / $2 / $3" got
	shift 3
	run_report default "$T/abi/expect" "$@" || fail "report failed: $(cat "$T/abi/out.err" "$T/abi/out.ktap")"
	got="$(verdict_of $KSM) / $(verdict_of $RO) / $(verdict_of $LOCK)"
	[ "$got" = "$want" ] || fail "verdicts (ksm / ro-collapse / mmap-lock): $got, expected $want"
}

test_verdicts_none_additive_breaking() {
	local kd
	builds
	: > "$T/abi/expect"
	# same interface with other ids; a new export, event and function; a
	# removed field and event/export
	expect_verdicts none additive breaking "$KSM=$T/abi/base=$T/abi/same=applied" \
		"$RO=$T/abi/same=$T/abi/added=applied" "$LOCK=$T/abi/added=$T/abi/broken=applied"
	grep -q 'field:bool writable' "$T/abi/out.md" || fail "the removed field is not shown as evidence"
	grep -q 'new export down_read_nosteal' "$T/abi/out.md" || fail "the new export is not shown"
	# (the kernel's parser, where a cached tree has it)
	if kd=$(kunit_dir 2>/dev/null); then
		kit_py ktap count --kunit-dir "$kd" "$T/abi/out.ktap" > /dev/null || fail "the report's KTAP is not valid KTAP"
	fi
	grep -qP "^case\tabi\t9\.9\tdefault/$RO\tpass\t$RO\t-\t" "$T/abi/out.tsv" || fail "no record default/$RO" "$(cat "$T/abi/out.tsv")"
	# a CRC change; nothing applied; a struct grown behind an export (abidiff)
	expect_verdicts breaking none breaking "$KSM=$T/abi/base=$T/abi/crc=applied" \
		"$RO=$T/abi/base=$T/abi/base=nothing to do" "$LOCK=$T/abi/base=$T/abi/type=applied"
	grep -q 'CRC of down_read changed' "$T/abi/out.md" || fail "the CRC change is not shown"
	grep -q 'kit_lock' "$T/abi/out.md" || fail "abidiff's type change is not shown"
}

test_expectation_mismatch_fails() {
	builds
	printf '9.9 default %s none\n9.9 default %s additive\n' $KSM $RO > "$T/abi/expect"
	if run_report default "$T/abi/expect" "$KSM=$T/abi/base=$T/abi/same=applied" \
		"$RO=$T/abi/same=$T/abi/broken=applied"; then
		fail "a breaking change expected to be additive passed"
	fi
	grep -q "^    not ok 2 $RO\$" "$T/abi/out.ktap" || fail "$RO not reported failed: $(cat "$T/abi/out.ktap")"
	grep -q "^    ok 1 $KSM\$" "$T/abi/out.ktap" || fail "$KSM (as expected) not ok"
	grep -q "^not ok 1 default\$" "$T/abi/out.ktap" || fail "the profile is not failed with its topic"
}

# the expectation of a topic on a branch: its branch row, else none when
# there is nothing to do on the branch, else the * row; the committed
# table holds a branch it has no row for (9.9: the * rows)
test_expectation_defaults() {
	builds
	printf '*  default %s additive\n*  default %s additive\n9.9 default %s breaking\n' $RO $LOCK $LOCK > "$T/abi/expect"
	run_report default "$T/abi/expect" "$RO=$T/abi/base=$T/abi/base=nothing to do" \
		"$LOCK=$T/abi/added=$T/abi/broken=applied" ||
		fail "nothing to do (none over the * row) or the branch row (breaking) not taken: $(cat "$T/abi/out.ktap")"
	if run_report default "$T/abi/expect" "$RO=$T/abi/base=$T/abi/base=applied"; then
		fail "an applied topic whose verdict differs from the * row passed"
	fi
	grep -q "expected additive (tables/abi-expect.table, row \*)" "$T/abi/out.ktap" || fail "the * row is not named" "$(cat "$T/abi/out.ktap")"
	run_report default "$KIT_DIR/tables/abi-expect.table" "$KSM=$T/abi/base=$T/abi/base=nothing to do" \
		"$RO=$T/abi/same=$T/abi/broken=applied" "$LOCK=$T/abi/same=$T/abi/added=applied" ||
		fail "the committed table does not hold a new branch 9.9: $(cat "$T/abi/out.ktap")"
	run_report kabi "$KIT_DIR/tables/abi-expect.table" "$RO=$T/abi/same=$T/abi/same=applied" ||
		fail "the committed kabi * row does not hold 9.9: $(cat "$T/abi/out.ktap")"
}

test_kabi_profile_must_not_break() {
	builds
	: > "$T/abi/expect"
	run_report kabi "$T/abi/expect" "$LOCK=$T/abi/base=$T/abi/added=applied" ||
		fail "an additive change failed the kABI profile"
	if run_report kabi "$T/abi/expect" "$RO=$T/abi/base=$T/abi/broken=applied"; then
		fail "a breaking change passed the kABI profile"
	fi
	grep -q 'must not break' "$T/abi/out.ktap" || fail "no reason given: $(cat "$T/abi/out.ktap")"
}

test_incomplete_dump_is_an_error() {
	builds
	sed -i '/MMBK-END/d' "$T/abi/broken/formats.log"
	: > "$T/abi/expect"
	local rc=0
	run_report default "$T/abi/expect" "$RO=$T/abi/base=$T/abi/broken=applied" || rc=$?
	[ $rc = 1 ] || fail "a truncated guest dump: exit $rc, expected 1"
	{ [ "$(wc -l < "$T/abi/out.err")" = 1 ] && grep -q '^abi-report: error: .*formats.log: the format dump is incomplete' "$T/abi/out.err"; } ||
		fail "no one-line reason: $(cat "$T/abi/out.err")"
}

test_not_applied_topic_is_skipped() {
	builds
	: > "$T/abi/expect"
	run_report kabi "$T/abi/expect" "$LOCK=$T/abi/base=$T/abi/base=failed: does not apply" ||
		fail "a topic that did not land failed the report"
	grep -q "^    ok 1 $LOCK # SKIP not applied\$" "$T/abi/out.ktap" || fail "not reported as SKIP: $(cat "$T/abi/out.ktap")"
}
