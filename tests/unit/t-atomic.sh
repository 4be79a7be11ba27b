# SPDX-License-Identifier: GPL-2.0
# Atomicity: apply/unapply round trips byte for byte on every branch, a
# second apply is a no-op, an apply killed half way (SIGKILL) is rolled back
# by the next command, and topics land independently.


test_apply_unapply_roundtrip() {
	local d sum b n=0
	for b in $SUPPORTED_BRANCHES; do
		[ -f "$(series_file "$b")" ] || continue
		d=$(mini "$b" "roundtrip-$b")
		sum=$(tree_sum "$d")
		run_kit "$KIT_DIR/bin/apply" --kdir "$d"
		[ "$RC" -eq 0 ] || [ "$RC" -eq 2 ] || fail "apply $b: exit $RC" "$OUT"
		if [ "$RC" -eq 0 ]; then
			[ "$(tree_sum "$d")" != "$sum" ] || fail "apply $b changed nothing"
			unapply_to "$d" "$sum" "apply + unapply on $b"
		else
			expect_sum "$d" "$sum" "apply that did nothing on $b"
		fi
		n=$((n + 1))
	done
	[ $n -ge 4 ] || fail "only $n branches have a series"
}

test_apply_twice_is_noop() {
	local d sum
	d=$(mini 6.1 twice)
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc 0 "first apply"
	sum=$(tree_sum "$d")
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc 2 "second apply"
	expect_out 'already applied \([0-9]+ patches; topics: ' "second apply"
	expect_sum "$d" "$sum" "second apply"
	run_kit make -s -C "$KIT_DIR" apply KDIR="$d"
	expect_rc 0 "make apply on an applied tree"
}

# a quilt that applies one patch, then kills the whole apply with SIGKILL
killing_quilt() {
	local bin=$T/fakebin-kill
	rm -rf "$bin"; mkdir -p "$bin"
	cat > "$bin/quilt" <<-EOT
	#!/bin/bash
	if [ "\$1" = push ]; then
		$(command -v quilt) push --fuzz=0 >/dev/null 2>&1
		kill -KILL -- -\$(ps -o pgid= \$\$ | tr -d ' ')
		sleep 10
	fi
	exec $(command -v quilt) "\$@"
	EOT
	chmod +x "$bin/quilt"
	printf '%s\n' "$bin"
}

apply_killed() {	# apply_killed DIR: run apply in its own process group, killed
	local bin
	bin=$(killing_quilt)
	( PATH=$bin:$PATH setsid "$KIT_DIR/bin/apply" --kdir "$1" >/dev/null 2>&1 < /dev/null || true ) 2>/dev/null
}

test_sigkill_then_unapply_restores() {
	local d sum
	d=$(mini 5.10 sigkill-unapply)
	sum=$(tree_sum "$d")
	apply_killed "$d"
	[ -f "$d/.mm-backport-kit/txn" ] || fail "no transaction left by the killed apply"
	[ "$(tree_sum "$d")" != "$sum" ] || fail "the kill came before any change: test is void"
	run_kit "$KIT_DIR/bin/unapply" --kdir "$d"
	expect_rc 0 "unapply after SIGKILL"
	expect_out 'an earlier apply was interrupted; restoring' "recovery message"
	expect_sum "$d" "$sum" "unapply after SIGKILL"
}

test_sigkill_then_apply_completes() {
	local d ref f
	ref=$(mini 5.10 sigkill-ref)
	run_kit "$KIT_DIR/bin/apply" --kdir "$ref"
	expect_rc 0 "reference apply"
	d=$(mini 5.10 sigkill-apply)
	apply_killed "$d"
	[ -f "$d/.mm-backport-kit/txn" ] || fail "no transaction left by the killed apply"
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc 0 "apply after SIGKILL"
	for f in $(kit_touched_files); do
		[ -e "$ref/$f" ] || continue
		cmp -s "$ref/$f" "$d/$f" || fail "$f differs from a clean apply"
	done
	{ [ ! -e "$d/.mm-backport-kit/journal" ] && [ ! -e "$d/.mm-backport-kit/txn" ]; } ||
		fail "journal left after a good apply"
}

# TOPICS= selects topics; the others are reported as not selected
test_topics_selection() {
	local d sum
	d=$(mini 6.1 topics)
	sum=$(tree_sum "$d")
	run_kit make -s -C "$KIT_DIR" apply KDIR="$d" TOPICS=ksm-break-ksm
	expect_rc 0 "make apply TOPICS=ksm-break-ksm"
	expect_out '^0002-[^ ]+ +not selected \(TOPICS=ksm-break-ksm\)$' "0002 not selected"
	expect_out '^topic ksm-break-ksm +applied' "ksm topic applied"
	cmp -s "$(pristine_dir 6.1)/mm/khugepaged.c" "$d/mm/khugepaged.c" || fail "khugepaged.c changed"
	run_kit make -s -C "$KIT_DIR" unapply KDIR="$d"
	expect_sum "$d" "$sum" "apply TOPICS= + unapply"
	run_kit make -s -C "$KIT_DIR" apply KDIR="$d" TOPICS=no-such-topic
	expect_make_error "unknown topic 'no-such-topic'; set TOPICS= to some of: ksm-break-ksm khugepaged-ro-collapse khugepaged-mmap-lock"
}

# a topic that does not apply fails alone, leaves no trace, the others land:
# exit 3 and a last line that says "partial"; STRICT=1 is all or nothing
test_independent_topics() {
	local d sum
	d=$(mini 6.1 partial)
	# a change the ksm semantic patch cannot see through: a vendor moved
	# break_ksm()'s retry loop into a helper of its own
	sed -i '/^static int break_ksm(/,/^}/{
		/^\tdo {$/,/^\t} while/c\
\tret = vendor_break_cow(vma, addr, VM_FAULT_WRITE);
	}' "$d/mm/ksm.c"
	grep -q 'vendor_break_cow(vma, addr, VM_FAULT_WRITE)' "$d/mm/ksm.c" || fail "the vendor helper was not made"
	sum=$(tree_sum "$d")
	FORCE=1 run_kit "$KIT_DIR/bin/apply" --force --kdir "$d"
	expect_rc 3 "apply with a ksm.c the ksm topic cannot take"
	expect_out '^topic ksm-break-ksm +failed: ' "ksm topic failed"
	expect_out '^topic khugepaged-ro-collapse +applied' "ro-collapse applied"
	expect_out '^topic khugepaged-mmap-lock +applied' "mmap-lock applied"
	grep -q 'partial: applied topics khugepaged-ro-collapse khugepaged-mmap-lock; failed: ksm-break-ksm' <<< "$(tail -n1 <<< "$OUT")" ||
		fail "last line does not say partial" "$OUT"
	unapply_to "$d" "$sum" "partial apply + unapply"
	run_kit "$KIT_DIR/bin/apply" --force --strict --kdir "$d"
	expect_rc 1 "strict apply"
	expect_sum "$d" "$sum" "strict apply"
}

# PROFILE=kabi: on every branch with kABI variants the variant is what
# lands (reported so, the interface of 0003 kept in the tree), the round
# trip is exact, and make apply passes PROFILE= on; a bad profile is one
# line and changes nothing
test_kabi_profile_roundtrip() {
	local d sum b n=0
	for b in $SUPPORTED_BRANCHES; do
		[ -d "$KIT_DIR/backports/$b/kabi" ] || continue
		d=$(mini "$b" "kabi-$b")
		sum=$(tree_sum "$d")
		run_kit make -s -C "$KIT_DIR" apply KDIR="$d" PROFILE=kabi
		expect_rc 0 "make apply PROFILE=kabi on $b"
		expect_out '^0003-[^ ]+ +applied \(kABI variant\)$' "$b: 0003 in its kABI form"
		expect_out '^topic khugepaged-ro-collapse +applied: [0-9.]+ \(kabi profile\)$' "$b: topic line"
		grep -q 'kABI: unused since 62b98015d988' "$d/mm/khugepaged.c" || fail "$b: the kABI placeholder comment is missing"
		grep -q 'EM( SCAN_PAGE_RO,' "$d/include/trace/events/huge_memory.h" || fail "$b: the trace status table lost SCAN_PAGE_RO"
		grep -q 'bool writable' "$d/include/trace/events/huge_memory.h" || fail "$b: the trace events lost their writable field"
		run_kit "$KIT_DIR/bin/status" --kdir "$d"
		expect_out '^profile kabi$' "$b: status names the profile"
		unapply_to "$d" "$sum" "kabi apply + unapply on $b"
		n=$((n + 1))
	done
	[ $n -ge 5 ] || fail "only $n branches have kABI variants"
	run_kit "$KIT_DIR/bin/apply" --kdir "$d" --profile frozen
	expect_one_line_error "unknown profile 'frozen'; set PROFILE= to default or kabi"
	expect_sum "$d" "$sum" "bad profile"
}
