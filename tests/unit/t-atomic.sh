# SPDX-License-Identifier: GPL-2.0
# Atomicity: apply/unapply round trips byte for byte, a second apply is a
# no-op, and an apply killed half way (SIGINT or SIGKILL) is recovered.

APPLY=$KIT_DIR/scripts/apply.sh

test_apply_unapply_roundtrip() {
	local d sum b
	for b in 5.10 6.1; do
		d=$(fresh "$b" roundtrip-$b)
		sum=$(tree_sum "$d")
		run_kit "$APPLY" apply "$d"
		expect_rc 0 "apply $b"
		[ "$(tree_sum "$d")" != "$sum" ] || fail "apply $b changed nothing"
		run_kit "$APPLY" unapply "$d"
		expect_rc 0 "unapply $b"
		expect_sum "$d" "$sum" "apply + unapply on $b"
	done
}

test_apply_twice_is_noop() {
	local d sum
	d=$(fresh 6.1 twice)
	run_kit "$APPLY" apply "$d"
	expect_rc 0 "first apply"
	sum=$(tree_sum "$d")
	run_kit "$APPLY" apply "$d"
	expect_rc 2 "second apply"
	printf '%s\n' "$OUT" | grep -qE 'already applied \([0-9]+ patches\); nothing to do' || fail "$OUT"
	expect_sum "$d" "$sum" "second apply"
	run_kit make -s -C "$KIT_DIR" apply KDIR="$d"
	expect_rc 0 "make apply on an applied tree"
}

# a quilt that applies one patch, then kills the whole apply with SIGNAL
interrupting_quilt() {
	local bin=$T/fakebin-$1
	rm -rf "$bin"; mkdir -p "$bin"
	cat > "$bin/quilt" <<-EOT
	#!/bin/bash
	if [ "\$1" = push ]; then
		$(command -v quilt) push --fuzz=0 >/dev/null 2>&1
		kill -$1 -- -\$(ps -o pgid= \$\$ | tr -d ' ')
		sleep 10
	fi
	exec $(command -v quilt) "\$@"
	EOT
	chmod +x "$bin/quilt"
	printf '%s\n' "$bin"
}

# apply_interrupted SIGNAL DIR: run apply in its own process group, killed
apply_interrupted() {
	local bin
	bin=$(interrupting_quilt "$1")
	( PATH=$bin:$PATH setsid "$APPLY" apply "$2" >/dev/null 2>&1 < /dev/null || true ) 2>/dev/null
}

test_sigkill_then_unapply_restores() {
	local d sum
	d=$(fresh 5.10 sigkill-unapply)
	sum=$(tree_sum "$d")
	apply_interrupted KILL "$d"
	[ -d "$d/.mm-backport-kit/journal" ] || fail "no journal left by the killed apply"
	[ "$(tree_sum "$d")" != "$sum" ] || fail "the kill came before any change: test is void"
	run_kit "$APPLY" unapply "$d"
	expect_rc 0 "unapply after SIGKILL"
	printf '%s\n' "$OUT" | grep -q 'interrupted; restoring' || fail "no recovery message: $OUT"
	expect_sum "$d" "$sum" "unapply after SIGKILL"
}

test_sigkill_then_apply_completes() {
	local d ref sum
	ref=$(fresh 5.10 sigkill-ref)
	run_kit "$APPLY" apply "$ref"
	expect_rc 0 "reference apply"
	d=$(fresh 5.10 sigkill-apply)
	apply_interrupted KILL "$d"
	[ -d "$d/.mm-backport-kit/journal" ] || fail "no journal left by the killed apply"
	run_kit "$APPLY" apply "$d"
	expect_rc 0 "apply after SIGKILL"
	for f in mm/ksm.c mm/khugepaged.c include/trace/events/huge_memory.h; do
		cmp -s "$ref/$f" "$d/$f" || fail "$f differs from a clean apply"
	done
	[ ! -e "$d/.mm-backport-kit/journal" ] || fail "journal left after a good apply"
}

test_sigint_rolls_back_at_once() {
	local d sum
	d=$(fresh 6.1 sigint)
	sum=$(tree_sum "$d")
	apply_interrupted INT "$d"
	expect_sum "$d" "$sum" "apply interrupted by SIGINT"
}
