# SPDX-License-Identifier: GPL-2.0
# The shared C suite's own logic, run on the host where it needs no guest
# kernel: guest/suite/khugepaged_budget.c with its main() set aside and a
# dummy process in khugepaged's place (built on the newest cached tree's
# kselftest.h, as the suite is).

# budget_harness -> the path of a host program that boosts PID (its first
# argument) as khugepaged_budget boosts khugepaged, prints "boosted", and
# then exits (x), returns from main (r) or waits for a signal (w)
budget_harness() {
	local ksft
	ksft=$(in_kit guest guest_ksft_dir) || skip "no cached tree with a 6.8+ kselftest.h (make tree BRANCH=$NEWEST_BRANCH)"
	cat > "$T/harness.c" <<HARNESS
#define main budget_main
#include "$KIT_DIR/guest/suite/khugepaged_budget.c"
#undef main

int main(int argc, char **argv)
{
	(void)argc;
	khugepaged_boost(atoi(argv[1]));
	printf("boosted\n");
	fflush(stdout);
	if (argv[2][0] == 'x')
		exit(0);
	if (argv[2][0] == 'r')
		return 0;
	for (;;)
		pause();
}
HARNESS
	gcc -O2 -pthread -w -I "$KIT_DIR/guest/suite" -I "$ksft" -o "$T/harness" "$T/harness.c" ||
		fail "test setup: the harness of khugepaged_budget.c does not build"
	printf '%s\n' "$T/harness"
}

# nice_of PID -> its nice value
nice_of() {
	ps -o ni= -p "$1" | tr -d ' '
}

# khugepaged's nice value is back however khugepaged_budget ends: at exit,
# on return from main, on every signal that ends it and, through its
# guardian process, on SIGKILL (the guest's timeout).  Shown failing
# before (0181b4b, atexit() alone): SIGTERM, SIGSEGV and SIGKILL left the
# dummy at nice -20.
test_budget_puts_khugepaged_nice_back_on_every_way_out() {
	local h d how pid during after bad=''
	[ "$(id -u)" = 0 ] || skip "renicing a process to -20 needs root"
	h=$(budget_harness)
	nice -n 19 sleep 120 &
	d=$!
	for how in exit return TERM INT HUP SEGV ABRT KILL; do
		renice -n 19 -p "$d" > /dev/null
		case $how in
		exit|return)
			timeout 10 "$h" "$d" "$([ "$how" = exit ] && echo x || echo r)" > "$T/out" 2>&1 ||
				fail "the harness failed ($how)" "$(cat "$T/out")"
			during=-20 ;;
		*)
			timeout 10 "$h" "$d" w > "$T/out" 2>&1 &
			pid=$!
			# boosted: the program is in its run
			for _ in $(seq 50); do grep -q boosted "$T/out" && break; sleep 0.1; done
			during=$(nice_of "$d")
			pkill -"$how" -P "$pid" -x harness || fail "no harness to send SIG$how to"
			wait "$pid" || true ;;
		esac
		# the guardian runs on after the program: give it a moment
		for _ in $(seq 20); do [ "$(nice_of "$d")" = 19 ] && break; sleep 0.1; done
		after=$(nice_of "$d")
		[ "$during" = -20 ] || bad="$bad $how(not boosted: $during)"
		[ "$after" = 19 ] || bad="$bad $how(left at $after)"
	done
	kill "$d"
	[ -z "$bad" ] || fail "khugepaged's nice value (a dummy's here) was not put back:$bad"
}
