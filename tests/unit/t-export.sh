# SPDX-License-Identifier: GPL-2.0
# Exports are git's own: format-patch output ([PATCH b n/m], index lines, a
# cover letter with the tree's true base) that git am takes onto a git
# checkout of the branch's tree and quilt pushes onto the tree.

EXPORT=$KIT_DIR/bin/export

# git_checkout BRANCH DIR: a git repository holding the top Makefile and the
# files the branch series touches, from the pristine tree, committed
git_checkout() {
	local src f
	src=$(pristine_dir "$1")
	rm -rf "$2"; mkdir -p "$2"
	for f in Makefile $(for p in $(series_patches "$(series_file "$1")"); do
			patch_files "$KIT_DIR/backports/$1/$p"; done | sort -u); do
		mkdir -p "$2/$(dirname "$f")"
		cp "$src/$f" "$2/$f"
	done
	git -C "$2" init -q
	git -C "$2" add -A
	git -C "$2" -c user.name=t -c user.email=t@t commit -qm "linux $1 (pristine)"
}

# base_of BRANCH -> the kit's reproducible commit of the BRANCH tree
base_of() {
	git -C "$CACHE_DIR/git/$1" rev-parse refs/tags/mmbk-base
}

# format_patch_form MBOX N BRANCH: N messages "[PATCH BRANCH i/N]" in order,
# an index line after every diff --git line
format_patch_form() {
	local i
	[ "$(grep -c '^From [0-9a-f]\{40\} Mon Sep 17 00:00:00 2001$' "$1")" -eq "$2" ] ||
		fail "$1 does not hold $2 messages"
	for i in $(seq 1 "$2"); do
		grep -q "^Subject: \[PATCH $3 $i/$2\] " "$1" || fail "$1: no [PATCH $3 $i/$2] subject"
	done
	awk '/^diff --git / { d = NR } d && NR == d + 1 && !/^index [0-9a-f]+\.\.[0-9a-f]+/ { bad++ }
	     END { exit bad > 0 }' "$1" || fail "$1: a diff without an index line"
}

# mbox_git_am BRANCH: the mbox export of BRANCH is git's format-patch
# form with a cover letter naming the tree, the upstream ids and the true
# base, and git am takes it onto a git checkout of the tree, in series order
mbox_git_am() {
	local b=$1 d mbox n p
	run_kit "$EXPORT" --branch "$b" --format mbox
	expect_rc 0 "export $b mbox"
	mbox=$OUT_DIR/export/$b.mbox
	n=$(series_patches "$(series_file "$b")" | wc -l)
	format_patch_form "$mbox" "$n" "$b"
	# the cover letter: the tree, the upstream ids, the true base
	grep -q "^Subject: \[PATCH $b 0/$n\] mm: backports for Linux $(kernel_version "$(pristine_dir "$b")")" \
		"$OUT_DIR/export/$b.cover" || fail "$b: cover letter subject"
	grep -qx "base-commit: $(base_of "$b")" "$OUT_DIR/export/$b.cover" || fail "$b: base-commit is not the tree's commit"
	for p in $(series_patches "$(series_file "$b")"); do
		grep -q "^  ${p%%-*}: $(patch_subject "$KIT_DIR/backports/$b/$p" | sed 's/[][\.*^$]/\\&/g')$" \
			"$OUT_DIR/export/$b.cover" || fail "$b: $p not listed in the cover letter"
	done
	d=$T/git-am-$b
	git_checkout "$b" "$d"
	run_kit git -C "$d" -c user.name=t -c user.email=t@t am -q "$mbox"
	expect_rc 0 "git am of the $b mbox"
	[ "$(git -C "$d" rev-list --count HEAD)" -eq $((n + 1)) ] || fail "$b: git am did not make $n commits"
	# in series order, with the patches' subjects
	diff <(git -C "$d" log --reverse --format=%s HEAD~"$n"..HEAD) \
	     <(for p in $(series_patches "$(series_file "$b")"); do
		patch_subject "$KIT_DIR/backports/$b/$p"; done) >/dev/null ||
		fail "$b: commits are not the series in order"
}

# the oldest branch here, the mainline base in t-export-all.sh: the two
# ends of the series' shapes (a repository of a whole tree costs a minute
# or two per branch)
test_mbox_git_am_oldest() {
	mbox_git_am "${SUPPORTED_BRANCHES%% *}"
}

# quilt: the series file and git's patch files; quilt pushes them all onto
# a copy of the tree at fuzz 0
test_quilt_export_applies_with_quilt() {
	local d q n
	run_kit make -s -C "$KIT_DIR" export BRANCH=5.10 FORMAT=quilt
	expect_rc 0 "make export BRANCH=5.10 FORMAT=quilt"
	d=$OUT_DIR/export/5.10
	n=$(series_patches "$(series_file 5.10)" | wc -l)
	[ "$(series_patches "$d/series" | wc -l)" -eq "$n" ] || fail "the quilt series does not list $n patches"
	{ [ -f "$d/0000-cover-letter.patch" ] && ! grep -q cover-letter "$d/series"; } ||
		fail "the cover letter is missing, or listed in the series"
	q=$(fresh 5.10 quilt-export-5.10)
	run_kit env QUILT_PATCHES="$d" QUILT_PC=.pc-export sh -c "cd '$q' && quilt push -a --fuzz=0 -q"
	expect_rc 0 "quilt push -a of the exported series"
	[ "$(cd "$q" && QUILT_PATCHES="$d" QUILT_PC=.pc-export quilt applied | wc -l)" -eq "$n" ] ||
		fail "quilt did not apply $n patches"
}

# a bad FORMAT is refused before anything else is looked at
test_bad_format() {
	run_kit "$EXPORT" --branch 6.1 --format tarball
	expect_one_line_error "unknown format 'tarball'; use FORMAT=quilt or FORMAT=mbox"
	run_kit "$EXPORT" --kdir /nonexistent --format tarball
	expect_one_line_error "unknown format 'tarball'"
}


# an export that refuses leaves no file of an earlier export of the same
# name in out/export/ (a stale mbox once stayed next to the error): a tree
# with the whole series already in it (applied by hand) needs nothing
test_refused_export_leaves_no_old_files() {
	local d
	d=$(by_hand 6.1 export-refused)
	mkdir -p "$OUT_DIR/export/export-refused"
	echo stale > "$OUT_DIR/export/export-refused.mbox"
	echo stale > "$OUT_DIR/export/export-refused/0001-stale.patch"
	run_kit "$KIT_DIR/bin/export" --kdir "$d" --format mbox
	[ "$RC" -ne 0 ] || fail "the export of a tree that needs nothing succeeded" "$OUT"
	expect_out 'needs nothing: every topic is already upstream or not applicable; nothing exported' "the refusal"
	{ [ ! -e "$OUT_DIR/export/export-refused.mbox" ] && [ ! -e "$OUT_DIR/export/export-refused" ]; } ||
		fail "the refused export left the earlier export's files"
}
