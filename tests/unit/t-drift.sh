# SPDX-License-Identifier: GPL-2.0
# Re-targeting on drifted trees: for every branch and drift class of
# tables/drift.table, a plain quilt push of the branch series at fuzz
# 0 fails, lib/retarget.sh lands what it can (re-targeted, compiled,
# the clean change once the drift is taken out) and fails cleanly on the
# rest, as tables/drift-expect.table says. Plus the Android GKI 6.1
# rwsem.c of tests/vendor (see its README).

CASE=$KIT_DIR/tests/vendor/drift-case.sh
EXPECT=$KIT_DIR/tables/drift-expect.table

# drift_case BRANCH CLASS: run the case, compare the statuses with drift.expect
drift_case() {
	local b=$1 c=$2 got want
	run_kit "$CASE" "$b" "$c" "$T/drift-$b-$c"
	[ "$(printf '%s\n' "$OUT" | tail -n1)" = ok ] || fail "$b $c:" "$OUT"
	got=$(printf '%s\n' "$OUT" | sed -n 's/^\([0-9]\{4\}\)-[^ ]* \(.*\) [0-9]*s$/\1 \2/p')
	want=$(awk -F'\t' -v b="$b" -v c="$c" '$1 == b && $2 == c { print $3 " " $4 }' "$EXPECT")
	[ -n "$want" ] || fail "no rows for $b $c in $EXPECT"
	[ "$got" = "$want" ] || fail "$b $c: statuses differ from tables/drift-expect.table:" \
		"$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got"))" "$OUT"
}

# make test runs one drift class (5.15 rename: the case in which a topic
# fails cleanly and the others land; vendor hooks and #ifdef blocks are
# t-vendor.sh's drift on 6.12, renamed locals t-vendorquirks'); the first
# compile on a branch prepares its build dir, so a case costs about two
# minutes on 2 cores in a cold run: t-drift-all.sh has the other 41 (make
# test FULL=1), changed APIs, moved functions and changed argument lists
# among them
test_5_15_rename() { drift_case 5.15 rename; }

# lines_of DIFF-INPUT: the added and removed lines of a diff, sorted
lines_of() {
	grep -E '^[-+]' | grep -vE '^(---|\+\+\+) |^-- $' | LC_ALL=C sort
}

# Android's GKI 6.1 rwsem.c (vendor hooks and locals inside the slowpath)
# over the 6.1 tree: 0006 does not apply at fuzz 0, is re-targeted from its
# recipe, and adds and removes exactly the lines the 6.1 backport does on
# Debian's rwsem.c; the other files of 0006 are the clean result
test_android_gki_6_1_rwsem() {
	local d f clean want got
	d=$(fresh 6.1 android-6.1)
	f=kernel/locking/rwsem.c
	cp "$KIT_DIR/tests/vendor/android14-6.1/$f" "$d/$f.new"
	mv -f "$d/$f.new" "$d/$f"
	if patch -d "$d" -p1 -F0 --dry-run -s < "$KIT_DIR"/backports/6.1/0006-*.patch >/dev/null 2>&1; then
		fail "the 6.1 backport of 0006 applies to Android's rwsem.c: the fixture is void"
	fi
	run_kit in_kit retarget retarget_run "" 0 "$d" 6.1 0006-locking-rwsem-add-down_read-_killable-_nosteal.patch
	expect_rc 0 "retarget_run on Android's rwsem.c"
	grep -qE '^0006-[^ ]+ +re-targeted from cocci$' <<< "$OUT" || fail "0006 not re-targeted from cocci" "$OUT"
	want=$(sed -n "\|^diff --git a/$f|,\|^diff --git|p" "$KIT_DIR"/backports/6.1/0006-*.patch | lines_of)
	got=$(sed -n "\|^diff --git a/$f|,\|^diff --git|p" "$OUT_DIR"/android-6.1/0006-*.patch | lines_of)
	[ "$got" = "$want" ] || fail "Android rwsem.c: the re-targeted change is not the backport's:" "$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got"))"
	( cd "$d" && QUILT_PATCHES=$OUT_DIR/android-6.1 QUILT_PC=.kit-test-pc QUILTRC=/dev/null quilt push -a --fuzz=0 ) >/dev/null 2>&1 ||
		fail "the re-targeted 0006 does not apply with quilt"
	grep -c 'trace_android_vh_' "$d/$f" | grep -qx 41 || fail "Android's hooks are not all kept"
	clean=$T/android-6.1-clean
	scratch_copy 6.1 "$clean"
	patch -d "$clean" -p1 -F0 -s < "$KIT_DIR"/backports/6.1/0006-*.patch || fail "clean 6.1 apply"
	for f in include/linux/rwsem.h kernel/locking/rwbase_rt.c; do
		cmp -s "$d/$f" "$clean/$f" || fail "$f differs from the clean result"
	done
}

# mmbk reanchor on small files: BASE (the branch before), THEIRS (after),
# OURS (the target); ra_merge runs it into $T/ra.out, status in RC
ra_merge() {
	rm -f "$T/ra.out"
	run_kit kit_py reanchor merge "$T/ra.base" "$T/ra.theirs" "$T/ra.ours" -o "$T/ra.out"
}

ra_base() {
	# (a here-document would lose the code's tabs)
	printf '%s\n' '/* a file under test */' '#include <linux/x.h>' '' \
		'static int helper(int a)' '{' '	return a + 1;' '}' '' \
		'#ifndef CONFIG_RT' 'static int work(int a)' '{' '	int b = 0;' '' \
		'	b = helper(a);' '	return b;' '}' '#else' 'static int work(int a)' '{' \
		'	return a;' '}' '#endif' '' 'int api(int a)' '{' '	return work(a);' '}' \
		'EXPORT_SYMBOL(api);' > "$T/ra.base"
	# the patch: a line in work() (non-RT one only), a new function after
	# api()'s EXPORT_SYMBOL
	sed -e 's/^	b = helper(a);$/	b = helper(a) * 2;/' "$T/ra.base" > "$T/ra.theirs"
	printf '\n%s\n{\n\t%s\n}\n%s\n' 'int api_twice(int a)' 'return api(api(a));' 'EXPORT_SYMBOL(api_twice);' >> "$T/ra.theirs"
}

# a moved function and drift elsewhere in the changed function merge
# cleanly; the #else twin of work() is left alone; the new function follows
# its anchor wherever that is
test_reanchor_moved_and_drifted() {
	ra_base
	# target: api() moved above work(), a vendor line in work() away from
	# the changed line
	awk 'BEGIN { api = "int api(int a)\n{\n\treturn work(a);\n}\nEXPORT_SYMBOL(api);\n" }
	     /^#ifndef CONFIG_RT$/ { printf "%s\n", api }
	     /^int api\(int a\)$/ { skip = 5 } skip { skip--; next } { print }' "$T/ra.base" |
		sed 's/^	int b = 0;$/&\n	int vendor = 1;/' > "$T/ra.ours"
	grep -q 'int vendor = 1;' "$T/ra.ours" || fail "test setup"
	ra_merge
	expect_rc 0 "reanchor merge"
	grep -q '^	b = helper(a) \* 2;$' "$T/ra.out" || fail "the change did not land" "$(cat "$T/ra.out")"
	grep -q '^	int vendor = 1;$' "$T/ra.out" || fail "the vendor line is gone"
	[ "$(grep -c 'helper(a) \* 2' "$T/ra.out")" -eq 1 ] || fail "changed more than one work()"
	awk '/^EXPORT_SYMBOL\(api\);$/ { getline; getline; print; exit }' "$T/ra.out" | grep -qx 'int api_twice(int a)' ||
		fail "api_twice() not after its anchor" "$(cat "$T/ra.out")"
}

# drift in the very line the patch changes: a conflict naming the definition
test_reanchor_conflict_names_the_definition() {
	ra_base
	sed 's/^	b = helper(a);$/	b = vendor_helper(a);/' "$T/ra.base" > "$T/ra.ours"
	ra_merge
	expect_rc 1 "reanchor merge with a conflict"
	expect_one_line_error "^reanchor: error: .*function work: the target's version conflicts with the change.*; carry this definition"
	[ ! -e "$T/ra.out" ] || fail "a result was written"
}

# the anchor of a new definition missing from the target: a failure
test_reanchor_missing_anchor() {
	ra_base
	sed '/^EXPORT_SYMBOL(api);$/d' "$T/ra.base" > "$T/ra.ours"
	rm -f "$T/ra.out"
	ra_merge
	expect_rc 1 "reanchor merge without the anchor"
	expect_one_line_error "function api_twice: its anchor macro-call EXPORT_SYMBOL\(api\) is not in the target"
}
