# SPDX-License-Identifier: GPL-2.0
# Commands side by side on one cache: two checks of one tree, an apply
# beside a check and an export, two applies of trees of one name, two boots
# of one branch and variant.  Each overlap is made certain, not left to
# timing: the first command is held at a point (MMBK_FAULT=pause:POINT:DIR,
# lib/state.sh state_point) while the second starts; the second must wait
# for it (one line naming it) or stay off what it uses, and both must give
# what they give one after the other (verdicts, records byte for byte).

# cc_start NAME POINT CMD...: run CMD in the background held at POINT
# (its output in $T/NAME.out, its status in $T/NAME.rc); returns once it
# is there
cc_start() {
	cc_held "$@"
	cc_reached "$1" "$2"
}

# cc_held NAME POINT CMD...: the same, returning at once
cc_held() {
	local name=$1 point=$2
	shift 2
	mkdir -p "$T/$name.pause"
	( r=0; MMBK_FAULT=pause:$point:$T/$name.pause "$@" > "$T/$name.out" 2>&1 || r=$?; echo $r > "$T/$name.rc" ) &
}

# cc_reached NAME POINT: wait until NAME is held at POINT
cc_reached() {
	local i=0
	until [ -e "$T/$1.pause/${2%#*}.reached" ]; do
		[ ! -e "$T/$1.rc" ] || fail "$1 ended before it reached $2 (exit $(cat "$T/$1.rc"))" "$(tail -n 20 "$T/$1.out")"
		[ $i -lt 6000 ] || fail "$1 did not reach $2 in 600 s"
		sleep 0.1
		i=$((i + 1))
	done
}

# cc_bg NAME CMD...: run CMD in the background (output and status as cc_start)
cc_bg() {
	local name=$1
	shift
	( r=0; "$@" > "$T/$name.out" 2>&1 || r=$?; echo $r > "$T/$name.rc" ) &
}

# cc_waits NAME: NAME, started beside a held command, either says it
# waits for it (0) or ends without waiting (1) -- before the held one goes on
cc_waits() {
	local i=0
	until grep -q 'is in use by ' "$T/$1.out" 2>/dev/null; do
		[ ! -e "$T/$1.rc" ] || return 1
		[ $i -lt 3000 ] || fail "$1 neither waited nor ended in 300 s" "$(tail -n 20 "$T/$1.out")"
		sleep 0.1
		i=$((i + 1))
	done
}

# cc_named NAME HOLDER: NAME's wait was one line naming HOLDER's command
cc_named() {
	grep -q "is in use by pid [0-9]* (.*$2" "$T/$1.out" ||
		fail "$1 waited without naming $2:" "$(grep 'is in use by' "$T/$1.out")"
}

cc_go() {	# cc_go NAME POINT: let NAME go on from POINT
	: > "$T/$1.pause/${2%#*}.go"
}

# cc_end NAME: wait for NAME; its output in OUT (the wait line left out),
# its status in RC
cc_end() {
	local i=0
	until [ -e "$T/$1.rc" ]; do
		[ $i -lt 6000 ] || fail "$1 did not end in 600 s" "$(tail -n 20 "$T/$1.out")"
		sleep 0.1
		i=$((i + 1))
	done
	RC=$(cat "$T/$1.rc")
	OUT=$(grep -v 'is in use by ' "$T/$1.out") || true
}

# cc_ktap -> the KTAP lines of OUT (no progress lines, no timings)
cc_ktap() {
	grep -E '^(not )?ok |^# (ok|not ok|SKIP)|^TAP|^1\.\.' <<< "$OUT" || true
}

# cc_same_ktap REF WHAT: OUT's KTAP is REF (WHAT: whose verdicts)
cc_same_ktap() {
	[ "$(cc_ktap)" = "$1" ] || fail "$2 differ:" "$(diff <(echo "$1") <(cc_ktap))"
}

# cc_end_both A B WHAT: A and B (two WHAT) end with status 0 and the same
# verdicts; REF holds them
cc_end_both() {
	cc_end "$1"
	expect_rc 0 "the first of two $3"
	REF=$(cc_ktap)
	cc_end "$2"
	expect_rc 0 "the second of two $3"
	cc_same_ktap "$REF" "the two $3' verdicts"
}

# a check and an apply on one tree at once, then two checks of it at once
# (two checks once shared one work copy and out/check/<name>/, and blamed
# the series): a check waits for an apply of its tree (make export and
# make coccicheck take the tree's lock as check does), and a second check
# waits for the first; the first check runs alone and passes, the second
# gives the same verdicts and records byte for byte
test_check_beside_apply_and_check() {
	local d name ref
	d=$(fresh 5.10 cc-check)
	name=$(tree_name "$d")
	# an apply held after its first topic; the check waits for the rest
	cc_start ap topic-done "$KIT_DIR/bin/apply" --kdir "$d"
	cc_held chk-a check-object nice -n 10 "$KIT_DIR/bin/check" --kdir "$d"
	cc_waits chk-a || fail "the check ran beside an apply of its tree (it did not wait)" "$(cat "$T/chk-a.out")"
	cc_go ap topic-done
	cc_end ap
	expect_rc 0 "the apply"
	# the check, held at its first object, and a second one beside it
	cc_reached chk-a check-object
	cp "$OUT_DIR/check/$name/results.tsv" "$T/chk-a.records"
	cc_bg chk-b nice -n 10 "$KIT_DIR/bin/check" --kdir "$d"
	cc_waits chk-b || {
		cc_go chk-a check-object
		cc_end chk-a
		fail "a second check of $d ran beside the first (it did not wait)" \
			"the first check's records, held at check-object:" "$(cat "$T/chk-a.records")" \
			"after the second one ran:" "$(cat "$OUT_DIR/check/$name/results.tsv")" \
			"the first check: exit $RC" "$(cc_ktap | grep '^not ok')"
	}
	cmp -s "$T/chk-a.records" "$OUT_DIR/check/$name/results.tsv" ||
		fail "the waiting check changed the first one's records"
	cc_go chk-a check-object
	cc_end_both chk-a chk-b checks
	ref=$REF
	# the second one's records (the first one's are gone: it starts its
	# own) begin with the first one's, byte for byte, and hold one record
	# per case of the same KTAP
	cmp -s "$T/chk-a.records" <(head -c "$(stat -c %s "$T/chk-a.records")" "$OUT_DIR/check/$name/results.tsv") ||
		fail "the two checks' records differ"
	[ "$(grep -c . "$OUT_DIR/check/$name/results.tsv")" = "$(grep -cE '^(not )?ok ' <<< "$ref")" ] ||
		fail "the records are not one per case:" "$(cat "$OUT_DIR/check/$name/results.tsv")"
	! grep -q 'does not build with the series' "$T/chk-a.out" "$T/chk-b.out" || fail "the series was blamed"
	cc_named chk-a bin/apply
	cc_named chk-b bin/check
}

# an export reads the tree: beside an apply held after its first topic
# it waits and exports the whole series (it once exported one topic)
test_export_beside_apply() {
	local d ref
	d=$(mini 6.1 cc-export)
	run_kit "$KIT_DIR/bin/apply" --kdir "$d"
	expect_rc 0 "apply"
	run_kit "$KIT_DIR/bin/export" --kdir "$d"
	expect_rc 0 "an export alone"
	ref=$(ls "$OUT_DIR/export/$(tree_name "$d")")
	run_kit "$KIT_DIR/bin/unapply" --kdir "$d"
	expect_rc 0 "unapply"
	cc_start exap topic-done "$KIT_DIR/bin/apply" --kdir "$d"
	cc_bg ex "$KIT_DIR/bin/export" --kdir "$d"
	cc_waits ex || {
		cc_go exap topic-done
		cc_end exap
		fail "the export read the tree while an apply changed it (it did not wait):" \
			"$(ls "$OUT_DIR/export/$(tree_name "$d")" 2>&1)" "alone it exports:" "$ref"
	}
	cc_go exap topic-done
	cc_end exap
	expect_rc 0 "the apply"
	cc_end ex
	expect_rc 0 "the export"
	[ "$(ls "$OUT_DIR/export/$(tree_name "$d")")" = "$ref" ] || fail "the export differs from one alone"
	cc_named ex bin/apply
}

# two applies of two copies with the same content and the same name
# (out/<name>/ and the re-targeting area are keyed by it): the second
# waits; each tree and its records end as an apply alone leaves them
test_two_applies_of_one_name() {
	local a b ref sum
	mkdir -p "$T/cc-one" "$T/cc-two" "$T/cc-ref"
	a=$(mini 6.1 cc-one/tree)
	b=$(mini 6.1 cc-two/tree)
	run_kit "$KIT_DIR/bin/apply" --kdir "$(mini 6.1 cc-ref/tree)"
	expect_rc 0 "an apply alone"
	ref=$(cut -f1-6,8 "$OUT_DIR/tree/results.tsv")
	sum=$(tree_sum "$T/cc-ref/tree")
	[ "$(tree_name "$a")" = "$(tree_name "$b")" ] || fail "test setup: the two trees' names differ"
	cc_start ap-a topic-done "$KIT_DIR/bin/apply" --kdir "$a"
	cc_bg ap-b "$KIT_DIR/bin/apply" --kdir "$b"
	cc_waits ap-b || {
		cc_go ap-a topic-done
		cc_end ap-a
		fail "a second apply wrote out/$(tree_name "$b")/ while the first one was applying (it did not wait)" "$(cat "$T/ap-b.out")"
	}
	cc_go ap-a topic-done
	for c in ap-a ap-b; do
		cc_end $c
		expect_rc 0 "$c"
	done
	expect_sum "$a" "$sum" "the first tree"
	expect_sum "$b" "$sum" "the second tree"
	[ "$(cut -f1-6,8 "$OUT_DIR/$(tree_name "$b")/results.tsv" | sed "s|$b|TREE|g")" = "${ref//$T\/cc-ref\/tree/TREE}" ] ||
		fail "the records differ from an apply alone"
	cc_named ap-b bin/apply
}

# cc_boot_kit -> a kit copy whose boot builds and runs nothing: kbuild
# makes an empty image, qemu's serial log is the canned log $CC_LOG; the
# rest (its locks, the judge, out/boot/) is the kit's
cc_boot_kit() {
	local k
	k=$(kit_copy cc-boot-kit)
	cat >> "$k/lib/boot.sh" <<-'EOT'
	# t-concurrency: no build, no qemu
	kbuild() { mkdir -p "$2/$(dirname "$KB_IMAGE")"; : > "$2/$KB_IMAGE"; }
	guest_initramfs() { mkdir -p "$(dirname "$1")"; : > "$1"; }
	guest_run() { cp "$CC_LOG" "$3"; }
	EOT
	printf '%s\n' "$k"
}

# two boots of one branch and variant at once (a stub for build and qemu:
# the canned 6.12 serial logs of tests/ktap/): the second waits for the
# first, which judges its own log, not the other's
test_two_boots_of_one_branch() {
	local k d pass fail_log
	k=$(cc_boot_kit)
	d=$(mini 6.12 cc-boot)
	pass=$KIT_DIR/tests/ktap/boot-6.12-patched.log
	fail_log=$KIT_DIR/tests/ktap/boot-6.12-unpatched.log
	mkdir -p "$T/cc-suite"
	CC_LOG=$pass run_kit "$k/bin/boot" --kdir "$d" --modules none --suite-dir "$T/cc-suite"
	expect_rc 0 "a boot alone (the patched log)"
	CC_LOG=$fail_log run_kit "$k/bin/boot" --kdir "$d" --modules none --suite-dir "$T/cc-suite"
	expect_rc 1 "a boot alone (the unpatched log, judged as patched)"
	CC_LOG=$pass cc_start bt-a boot-ran "$k/bin/boot" --kdir "$d" --modules none --suite-dir "$T/cc-suite"
	CC_LOG=$fail_log cc_bg bt-b "$k/bin/boot" --kdir "$d" --modules none --suite-dir "$T/cc-suite"
	cc_waits bt-b || {
		cc_go bt-a boot-ran
		cc_end bt-a
		fail "a second boot of 6.12 patched wrote the first one's out/boot/ files (it did not wait); the first one's verdict: exit $RC" \
			"$(grep -E '^# (PASS|FAIL)|^not ok' <<< "$OUT" | head -n 5)"
	}
	cc_go bt-a boot-ran
	cc_end bt-a
	expect_rc 0 "the first boot (the patched log)"
	cc_end bt-b
	expect_rc 1 "the second boot (the unpatched log)"
	cc_named bt-b bin/boot
}
