# SPDX-License-Identifier: GPL-2.0
# tier: fast
# Every kill survivable: apply and unapply SIGKILLed at each of their step
# boundaries (lib/state.sh state_point, reached in order; MMBK_FAULT=list
# names them), not at random moments.  After each kill the tree reports
# itself interrupted, and the next command -- apply, unapply or
# unapply FORCE=1 -- recovers it: a killed apply is rolled back, a killed
# unapply finished, the state's own removal included (the "patched by an
# older mm-backport-kit" dead end), and the tree ends byte for byte as it
# was.  On the synthetic kit of t-journal.sh (no kernel tree, no cache).

# shellcheck source=tests/unit/t-journal.sh
. "$KIT_DIR/tests/unit/t-journal.sh"

# kp_run CMD [OPTION...] TREE: synth_apply with MMBK_FAULT as set by the caller
kp_run() {
	synth_apply "$@"
}

# kp_points CMD TREE -> the kill points CMD reaches on TREE, "NAME#N" a line
kp_points() {
	rm -f "$T/kp-points"
	if [ "$1" = apply ]; then
		MMBK_FAULT=list:$T/kp-points kp_run apply --topics alpha,beta "$2"
	else
		MMBK_FAULT=list:$T/kp-points kp_run "$1" "$2"
	fi
	[ "$RC" -eq 0 ] || fail "$1 with MMBK_FAULT=list: exit $RC" "$OUT"
	cat "$T/kp-points"
}

# kp_clean TREE SUM WHAT: TREE is SUM again and holds no kit state
kp_clean() {
	expect_sum "$1" "$2" "$3"
	[ -z "$(find "$1" -maxdepth 1 -name '.mm-backport-kit*')" ] || fail "$3: kit state left in the tree"
}

# kp_setup TREE REF -> the sum of a new synthetic tree REF (for the
# synthetic kit in $T/kit), copied to TREE
kp_setup() {
	synth_kit "$T/kit"
	synth_tree "$2"
	rm -rf "$1"; cp -a "$2" "$1"
	tree_sum "$2"
}

test_apply_killed_at_every_point() {
	local d=$T/kp-apply sum points p n=0 next
	sum=$(kp_setup "$d" "$T/kp-ref")
	points=$(kp_points apply "$d")
	kp_run unapply "$d"
	for p in begin-apply save-original snapshot topic-done commit; do
		grep -q "^$p#" <<< "$points" || fail "apply never reached the kill point $p" "$points"
	done
	for p in $points; do
		# the next command after the kill: each in turn
		next=$(printf '%s\n' apply unapply force | sed -n "$((n % 3 + 1))p")
		{
			rm -rf "$d"; cp -a "$T/kp-ref" "$d"
			MMBK_FAULT=$p kp_run apply --topics alpha,beta "$d"
			[ "$RC" -eq 137 ] || fail "apply killed at $p: exit $RC, expected 137 (SIGKILL)" "$OUT"
			n=$((n + 1))
			kp_run status "$d"
			case $p in
			commit#*) [ "$RC" -eq 1 ] || [ "$RC" -eq 0 ] || fail "status after a kill at $p: exit $RC" "$OUT" ;;
			*) expect_rc 1 "status after apply killed at $p"
			   expect_out '^interrupted apply' "status after apply killed at $p" ;;
			esac
			case $next in
			apply)	kp_run apply --topics alpha,beta "$d"
				[ "$RC" -eq 0 ] || [ "$RC" -eq 2 ] || fail "apply after a kill at $p: exit $RC" "$OUT"
				grep -qx 'int b2;' "$d/mm/ksm.c" || fail "apply after a kill at $p did not apply alpha"
				kp_run unapply "$d"
				expect_rc 0 "unapply after apply, after a kill at $p" ;;
			unapply) kp_run unapply "$d"
				[ "$RC" -eq 0 ] || [ "$RC" -eq 2 ] || fail "unapply after a kill at $p: exit $RC" "$OUT"
				# a kill after the commit left a complete apply: take it out
				[ ! -d "$d/.mm-backport-kit" ] || { kp_run unapply "$d"; expect_rc 0 "second unapply after a kill at $p"; } ;;
			force)	kp_run unapply --force "$d"
				[ "$RC" -eq 0 ] || [ "$RC" -eq 2 ] || fail "unapply FORCE=1 after a kill at $p: exit $RC" "$OUT" ;;
			esac
			kp_clean "$d" "$sum" "apply killed at $p, then $next"
		}
	done
	echo "# $n kills at $(wc -w <<< "$points") points"
}

# a command failing at each step boundary of apply (MMBK_FAULT=fail:NAME#N,
# as a full disk or a lost file would): apply runs with errexit in force,
# so the failure stops it inside its transaction, and the tree is rolled
# back at once: apply exits 1, the tree is byte for byte as it was, no
# state is left.  (With the apply's steps under "||", errexit was off and
# a failure at topic-done or commit went unnoticed: exit 0.)
test_apply_failing_at_every_point() {
	local d=$T/kp-fail sum points p
	sum=$(kp_setup "$d" "$T/kp-ref3")
	points=$(kp_points apply "$d")
	kp_run unapply "$d"
	for p in $points; do
		rm -rf "$d"; cp -a "$T/kp-ref3" "$d"
		MMBK_FAULT=fail:$p kp_run apply --topics alpha,beta "$d"
		expect_rc 1 "apply failing at $p"
		expect_out "state_point: failing at ${p%#*}" "apply failing at $p names the failure"
		expect_out 'the tree is unchanged' "apply failing at $p says the tree is unchanged"
		kp_clean "$d" "$sum" "apply failing at $p"
		kp_run status "$d"
		expect_rc 2 "status after apply failing at $p"
	done
	echo "# $(wc -w <<< "$points") failing points"
}

test_unapply_killed_at_every_point() {
	local d=$T/kp-unapply sum points p n=0 next
	sum=$(kp_setup "$d" "$T/kp-ref2")
	kp_run apply --topics alpha,beta "$d"
	expect_rc 0 "apply"
	points=$(kp_points unapply "$d")
	expect_sum "$d" "$sum" "unapply listing its kill points"
	for p in begin-unapply restore-original drop; do
		grep -q "^$p#" <<< "$points" || fail "unapply never reached the kill point $p" "$points"
	done
	for p in $points; do
		next=$(printf '%s\n' unapply force apply | sed -n "$((n % 3 + 1))p")
		{
			rm -rf "$d"; cp -a "$T/kp-ref2" "$d"
			kp_run apply --topics alpha,beta "$d"
			expect_rc 0 "apply before the kill at $p"
			MMBK_FAULT=$p kp_run unapply "$d"
			[ "$RC" -eq 137 ] || fail "unapply killed at $p: exit $RC, expected 137 (SIGKILL)" "$OUT"
			n=$((n + 1))
			kp_run status "$d"
			[ "$RC" -eq 1 ] || fail "status after unapply killed at $p: exit $RC, expected 1 (interrupted)" "$OUT"
			case $next in
			unapply) kp_run unapply "$d"; expect_rc 0 "unapply after a kill at $p" ;;
			force)	kp_run unapply --force "$d"; expect_rc 0 "unapply FORCE=1 after a kill at $p" ;;
			apply)	kp_run apply --topics alpha,beta "$d"
				expect_rc 0 "apply after unapply killed at $p"
				expect_out 'an earlier (unapply|command) was interrupted.*; finishing it' "apply finishes the unapply first"
				kp_run unapply "$d"
				expect_rc 0 "unapply after the apply" ;;
			esac
			kp_clean "$d" "$sum" "unapply killed at $p, then $next"
		}
	done
	echo "# $n kills at $(wc -w <<< "$points") points"
}

# what a kill inside a plain "rm -rf STATE" left (the older kit's removal,
# the dead end the sweep found: txn and manifest gone, the quilt state
# still there, the tree already restored) is cleaned up by the next
# command; a series an older kit applied (quilt state, no manifest, the
# changes in the tree) is named, and the command it suggests works
test_half_removed_state_recovered() {
	local d=$T/kp-half sum cmd
	synth_kit "$T/kit"
	synth_tree "$d"
	sum=$(tree_sum "$d")
	kp_run apply --topics alpha,beta "$d"
	expect_rc 0 "apply"
	cp -a "$d/.mm-backport-kit" "$T/kp-half-state"
	kp_run unapply "$d"
	expect_rc 0 "unapply"
	# the unapply's state back, less what rm -rf took first
	cp -a "$T/kp-half-state" "$d/.mm-backport-kit"
	rm -f "$d/.mm-backport-kit/txn" "$d/.mm-backport-kit/manifest"
	kp_run status "$d"
	[ "$RC" -ne 0 ] || fail "status of a half-removed state: exit 0" "$OUT"
	kp_run unapply "$d"
	[ "$RC" -eq 0 ] || [ "$RC" -eq 2 ] || fail "unapply of a half-removed state: exit $RC" "$OUT"
	kp_clean "$d" "$sum" "half-removed state, then unapply"
	# an older kit's applied series: named, and its command takes it out
	kp_run apply --topics alpha,beta "$d"
	rm -f "$d/.mm-backport-kit/manifest" "$d/.mm-backport-kit/records"
	kp_run apply --topics alpha,beta "$d"
	expect_rc 1 "apply on an older kit's series"
	expect_out 'patched by an older mm-backport-kit; take it out with: ' "named"
	cmd=$(sed -n 's/.*take it out with: //p' <<< "$OUT")
	run_kit bash -c "$cmd"
	expect_rc 0 "the suggested command"
	kp_clean "$d" "$sum" "older kit's series taken out with the suggested command"
}

# issue 55 item 1: an edit made between a kill and the recovery is never
# thrown away.  apply killed after its last topic (topic-done#2), then
# mm/ksm.c (a file the apply had patched) edited: apply and unapply refuse
# with 4 and name the file, the tree unchanged; unapply FORCE=1 restores
# it and says what it overwrote.  (Before: apply and unapply exited 0 and
# the line was gone.)
test_edit_after_killed_apply_kept() {
	local d=$T/kp-edit sum edited cmd
	sum=$(kp_setup "$d" "$T/kp-ref-edit")
	for cmd in apply unapply; do
		rm -rf "$d"; cp -a "$T/kp-ref-edit" "$d"
		MMBK_FAULT=topic-done#2 kp_run apply --topics alpha,beta "$d"
		[ "$RC" -eq 137 ] || fail "apply killed at topic-done#2: exit $RC" "$OUT"
		echo 'int edit;' >> "$d/mm/ksm.c"
		edited=$(tree_sum "$d")
		if [ "$cmd" = apply ]; then kp_run apply --topics alpha,beta "$d"; else kp_run unapply "$d"; fi
		expect_rc 4 "$cmd after an edit of a file the killed apply touched"
		expect_out 'error: .*/mm/ksm\.c changed after the apply was interrupted' "$cmd names the edited file"
		expect_sum "$d" "$edited" "$cmd refused"
		grep -qx 'int edit;' "$d/mm/ksm.c" || fail "$cmd: the edit is gone"
	done
	kp_run unapply --force "$d"
	expect_rc 0 "unapply FORCE=1 after the edit"
	expect_out 'FORCE=1.*overwr.*mm/ksm\.c' "unapply FORCE=1 says what it overwrote"
	kp_clean "$d" "$sum" "unapply FORCE=1 after a killed apply and an edit"
}

# an edit of a file the killed apply had not reached yet, and of a file it
# created: refused the same way (mm/new.c would be deleted)
test_edit_of_created_file_after_kill_kept() {
	local d=$T/kp-edit2
	kp_setup "$d" "$T/kp-ref-edit2" > /dev/null
	MMBK_FAULT=topic-done#2 kp_run apply --topics alpha,beta "$d"
	[ "$RC" -eq 137 ] || fail "apply killed at topic-done#2: exit $RC" "$OUT"
	echo 'int mine;' >> "$d/mm/new.c"
	kp_run apply --topics alpha,beta "$d"
	expect_rc 4 "apply after an edit of a file the killed apply created"
	expect_out 'mm/new\.c changed after the apply was interrupted' "names mm/new.c"
	grep -qx 'int mine;' "$d/mm/new.c" || fail "the edit of mm/new.c is gone"
}

# a state this kit did not write for this tree is never applied: a copy
# of another tree's interrupted state (its orig/ holds another mm/ksm.c),
# and a state without the kit's identity record (an older kit's, or
# someone else's), are refused with 4 and the tree is left as it is
test_foreign_journal_refused() {
	local d=$T/kp-foreign other=$T/kp-foreign-other sum
	kp_setup "$other" "$T/kp-ref-foreign" > /dev/null
	MMBK_FAULT=topic-done#2 kp_run apply --topics alpha,beta "$other"
	[ "$RC" -eq 137 ] || fail "apply killed at topic-done#2: exit $RC" "$OUT"
	synth_tree "$d"
	printf 'int another;\n' > "$d/mm/ksm.c"
	cp -a "$other/.mm-backport-kit" "$d/"
	sum=$(tree_sum "$d")
	kp_run apply --topics alpha,beta "$d"
	expect_rc 4 "apply on a tree holding another tree's interrupted state"
	expect_out 'not written .*for this tree|written for the tree' "names the foreign state"
	expect_sum "$d" "$sum" "a foreign state refused by apply"
	kp_run unapply --force "$d"
	expect_rc 4 "unapply FORCE=1 on another tree's state"
	expect_sum "$d" "$sum" "a foreign state refused by unapply FORCE=1"
	# without the identity record
	rm -rf "$d/.mm-backport-kit"
	cp -a "$other/.mm-backport-kit" "$d/"
	rm -f "$d/.mm-backport-kit/id"
	sum=$(tree_sum "$d")
	kp_run unapply "$d"
	expect_rc 4 "unapply of a state without the kit's identity record"
	expect_sum "$d" "$sum" "a state without identity refused"
}

# issue 55: an edit between a kill and the recovery, at every kill point
# of apply and of unapply: a line appended to a file the series touches
# (mm/ksm.c, mm/khugepaged.c, or mm/new.c, which it creates), then the
# next command (apply or unapply, in turn, without FORCE=1).  The edit
# survives it, or the command refuses with 4 naming that file.
test_edit_after_a_kill_at_every_point() {
	local d=$T/kp-edits sum points p cmd next f n=0 refused=0 line
	local files=(mm/ksm.c mm/khugepaged.c mm/new.c)
	sum=$(kp_setup "$d" "$T/kp-ref-edits")
	points=$(kp_points apply "$d" | sed 's/^/apply /')
	points+=$'\n'$(kp_points unapply "$d" | sed 's/^/unapply /')
	while read -r cmd p; do
		f=${files[n % 3]}
		next=$([ $((n / 3 % 2)) -eq 0 ] && echo apply || echo unapply)
		n=$((n + 1))
		rm -rf "$d"; cp -a "$T/kp-ref-edits" "$d"
		if [ "$cmd" = unapply ]; then
			kp_run apply --topics alpha,beta "$d"
			expect_rc 0 "apply before the kill of unapply at $p"
		fi
		if [ "$cmd" = apply ]; then
			MMBK_FAULT=$p kp_run apply --topics alpha,beta "$d"
		else
			MMBK_FAULT=$p kp_run unapply "$d"
		fi
		[ "$RC" -eq 137 ] || fail "$cmd killed at $p: exit $RC" "$OUT"
		line="int edit_$n;"
		printf '%s\n' "$line" >> "$d/$f"
		if [ "$next" = apply ]; then kp_run apply --topics alpha,beta "$d"; else kp_run unapply "$d"; fi
		grep -qxF "$line" "$d/$f" || fail "$cmd killed at $p, $f edited, then $next: exit $RC and the edit is gone" "$OUT"
		case $RC in
		0|2|3) ;;
		4) expect_out "$f (changed after|has local changes|is its original)" "$cmd killed at $p, $f edited, then $next refused: names $f"
		   refused=$((refused + 1)) ;;
		*) fail "$cmd killed at $p, $f edited, then $next: exit $RC" "$OUT" ;;
		esac
	done <<< "$points"
	echo "# $n kills with an edit after them: $refused refused naming the file, $((n - refused)) with the edit kept"
}
