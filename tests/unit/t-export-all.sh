# SPDX-License-Identifier: GPL-2.0
# tier: full
# The export cases t-export.sh leaves to make test FULL=1: the mainline
# base's mbox through git am (two minutes of a cold CI run), the mbox of a
# drifted vendor tree (a re-targeted apply with compile, then git am; over
# a minute) and the byte-for-byte reproducibility of two exports (45 s
# cold).

# shellcheck source=tests/unit/t-export.sh
. "$KIT_DIR/tests/unit/t-export.sh"

# the mainline base's mbox through git am (the oldest branch's: t-export.sh)
test_mbox_git_am_mainline() {
	mbox_git_am "$(branches_with role mainline)"
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

# the same tree gives the same base commit and the same patches: the
# export makes its commits with a fixed author, committer and date
test_export_is_reproducible() {
	local first
	run_kit "$EXPORT" --branch 5.10 --format mbox
	expect_rc 0 "export 5.10 mbox"
	first=$(sha256sum < "$OUT_DIR/export/5.10.mbox")
	cp "$OUT_DIR/export/5.10.cover" "$T/cover.1"
	run_kit "$EXPORT" --branch 5.10 --format mbox
	expect_rc 0 "export 5.10 mbox again"
	[ "$(sha256sum < "$OUT_DIR/export/5.10.mbox")" = "$first" ] || fail "a second export gave another mbox"
	cmp -s "$T/cover.1" "$OUT_DIR/export/5.10.cover" || fail "a second export gave another cover letter"
}
