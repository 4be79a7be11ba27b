# SPDX-License-Identifier: GPL-2.0
# tier: fast
# The comparison the drift cases (tests/vendor/drift-case.sh) fall back on
# when a re-targeted file, drift taken out, is not byte-identical to the
# clean result: `drift.py layout` accepts a difference in spaces and line
# breaks only (spatch wraps a signature that a renamed parameter made
# longer than 80 columns) and rejects any other.

DRIFT=$KIT_DIR/tests/vendor/drift.py

# the clean result: a 5.10-style declaration and a call
clean() {
	cat <<'C'
extern void __sched down_read_killable_nosteal(struct rw_semaphore *sem, int subclass);

static int scan(struct mm_struct *mm)
{
	if (down_read_killable_nosteal(&mm->mmap_lock, 0))
		return -EINTR;
	return 0;
}
C
}

test_line_breaks_only_are_the_same_layout() {
	clean > "$T/clean.c"
	# what spatch wrote: the declaration wrapped, other indentation
	cat > "$T/wrapped.c" <<'C'
extern void __sched down_read_killable_nosteal(struct rw_semaphore *sem,
					       int subclass);

static int scan(struct mm_struct *mm)
{
	if (down_read_killable_nosteal(&mm->mmap_lock,0))
		return -EINTR;
	return 0;
}
C
	run_kit "$DRIFT" layout "$T/clean.c" "$T/wrapped.c"
	expect_rc 0 "layout of a wrapped declaration"
}

# each of these changes one token: the comparison must see it
test_a_changed_token_is_not_the_same_layout() {
	local edit
	clean > "$T/clean.c"
	for edit in 's/subclass)/sub)/' 's/return -EINTR/return -EAGAIN/' \
		's/mmap_lock, 0/mmap_lock, 1/' 's/->mmap_lock/.mmap_lock/' \
		's/^\treturn 0;$//' 's/down_read_killable_nosteal(&/down_read_killable(\&/'; do
		sed "$edit" "$T/clean.c" > "$T/edited.c"
		! cmp -s "$T/clean.c" "$T/edited.c" || fail "test setup: '$edit' changed nothing"
		run_kit "$DRIFT" layout "$T/clean.c" "$T/edited.c"
		expect_rc 1 "layout after '$edit'"
		grep -q '^token [0-9]*: \|tokens vs ' <<< "$OUT" || fail "'$edit': no account of the difference" "$OUT"
	done
}

# joining two words is a token change, though only a space went away
test_a_space_between_words_counts() {
	printf 'static int x;\n' > "$T/a.c"
	printf 'staticint x;\n' > "$T/b.c"
	run_kit "$DRIFT" layout "$T/a.c" "$T/b.c"
	expect_rc 1 "layout of 'static int' vs 'staticint'"
}
