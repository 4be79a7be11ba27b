# SPDX-License-Identifier: GPL-2.0
# Exports: the mbox of every branch goes onto a git checkout of the branch's
# tree with git am; the quilt export is the branch series.

EXPORT=$KIT_DIR/scripts/export.sh

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

test_mbox_git_am_every_branch() {
	local b d mbox n
	for b in $SUPPORTED_BRANCHES; do
		run_kit "$EXPORT" "$b" mbox
		expect_rc 0 "export $b mbox"
		mbox=$OUT_DIR/export/$b.mbox
		n=$(series_patches "$(series_file "$b")" | wc -l)
		[ "$(grep -c '^From [0-9a-f]\{40\} ' "$mbox")" -eq "$n" ] || fail "$b: mbox does not hold $n messages"
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
	done
}

test_quilt_export_is_the_series() {
	local d p
	run_kit make -s -C "$KIT_DIR" export BRANCH=6.1 FORMAT=quilt
	expect_rc 0 "make export BRANCH=6.1 FORMAT=quilt"
	d=$OUT_DIR/export/6.1
	diff <(series_patches "$d/series") <(series_patches "$(series_file 6.1)") >/dev/null ||
		fail "exported series differs from backports/6.1/series"
	for p in $(series_patches "$d/series"); do
		cmp -s "$d/$p" "$KIT_DIR/backports/6.1/$p" || fail "$p differs"
	done
}

test_bad_format() {
	run_kit "$EXPORT" 6.1 tarball
	expect_one_line_error "unknown format 'tarball'; use FORMAT=quilt or FORMAT=mbox"
}

# KDIR= exports what that tree needs: on a drifted vendor tree the
# re-targeted series, which git am takes onto a git checkout of it
test_mbox_of_a_drifted_tree() {
	local d g f n
	. "$KIT_DIR/tests/unit/t-vendor.sh"	# drift_tree
	d=$(fresh 6.12 export-vendor-6.12)
	drift_tree "$d"
	run_kit make -s -C "$KIT_DIR" export KDIR="$d" FORMAT=mbox
	expect_rc 0 "make export KDIR=<drifted 6.12> FORMAT=mbox"
	grep -q '^\[ re-targeted from backports/6.12/0002-' "$OUT_DIR/export/export-vendor-6.12.mbox" ||
		fail "the mbox does not hold the re-targeted 0002"
	g=$T/git-am-vendor
	rm -rf "$g"; mkdir -p "$g"
	for f in Makefile $(kit_touched_files); do
		[ -f "$d/$f" ] || continue
		mkdir -p "$g/$(dirname "$f")"; cp "$d/$f" "$g/$f"
	done
	git -C "$g" init -q && git -C "$g" add -A && git -C "$g" -c user.name=t -c user.email=t@t commit -qm vendor
	run_kit git -C "$g" -c user.name=t -c user.email=t@t am -q "$OUT_DIR/export/export-vendor-6.12.mbox"
	expect_rc 0 "git am of the re-targeted mbox"
	n=$(series_patches "$OUT_DIR/export-vendor-6.12/series" | wc -l)
	[ "$(git -C "$g" rev-list --count HEAD)" -eq $((n + 1)) ] || fail "git am did not make $n commits"
	grep -q trace_android_vh_khugepaged_isolate "$g/mm/khugepaged.c" || fail "vendor hook lost"
}
