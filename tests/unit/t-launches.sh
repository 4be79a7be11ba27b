# SPDX-License-Identifier: GPL-2.0
# How many processes apply, status and unapply launch (issue #40 item 5):
# each runs under `strace -f -e trace=execve` on a mini tree of 6.12 (the
# top Makefile and the files the kit touches and reads), every successful
# execve counted.  The figures are records (out/test/launches.tsv, one
# case per command, the count in its text); a count above its ceiling
# (today's figure with some room) fails, so that a change which launches
# many more processes is seen.  Not a timed test: the count does not
# depend on the machine's load.

# launches NAME CMD... -> the successful execve calls of CMD and its
# children (CMD's status must be 0)
launches() {
	local log=$T/launches-$1.strace
	shift
	strace -f -qq -e trace=execve -o "$log" "$@" > "$T/launches.out" 2>&1 ||
		fail "$* failed under strace:" "$(tail -n 5 "$T/launches.out")"
	grep -cE 'execve(\(| resumed>).* = 0$' "$log" || true
}

test_launches_of_apply_status_unapply() {
	local d sum n cmd ceiling records=$OUT_DIR/test/launches.tsv
	command -v strace >/dev/null || skip "strace is not installed (apt-get install strace)"
	d=$(mini 6.12 launches)
	sum=$(tree_sum "$d")
	mkdir -p "$OUT_DIR/test"
	rm -f "$records"
	for cmd in apply:230 status:25 unapply:60; do
		ceiling=${cmd#*:} cmd=${cmd%%:*}
		n=$(launches "$cmd" "$KIT_DIR/bin/$cmd" --kdir "$d")
		printf '# %s: %s launches\n' "$cmd" "$n"
		result "$records" case launches 6.12 "$cmd" "$([ "$n" -le "$ceiling" ] && echo pass || echo fail)" - - \
			"bin/$cmd --kdir (mini 6.12 tree): $n processes launched (execve), ceiling $ceiling"
		[ "$n" -gt 0 ] || fail "test void: no execve of bin/$cmd counted"
		[ "$n" -le "$ceiling" ] || fail "bin/$cmd launched $n processes, more than $ceiling"
	done
	expect_sum "$d" "$sum" "apply and unapply under strace"
}
