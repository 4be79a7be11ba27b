# SPDX-License-Identifier: GPL-2.0
# tier: fast
# Trees from pinned tarballs (lib/fetch.sh, "tarball" rows of
# tables/branches.table), on a synthetic kit and a tiny tarball: found
# in MMBK_TARBALLS, or downloaded from a file:// URL; a wrong checksum, a
# truncated or a missing tarball is a one-line error and nothing
# half-extracted or half-downloaded stays in the cache.

TREE_SH=$KIT_DIR/bin/tree

# synth_tarball DIR -> sha256 of DIR/linux-9.9.1.tar.xz, a minimal kernel tree
synth_tarball() {
	local d=$1 src=$T/tarball-src
	rm -rf "$src"
	mkdir -p "$src/linux-9.9.1/mm" "$d"
	printf 'VERSION = 9\nPATCHLEVEL = 9\nSUBLEVEL = 1\n' > "$src/linux-9.9.1/Makefile"
	printf 'int x;\n' > "$src/linux-9.9.1/mm/khugepaged.c"
	tar -C "$src" -cJf "$d/linux-9.9.1.tar.xz" linux-9.9.1
	sha256sum < "$d/linux-9.9.1.tar.xz" | cut -d' ' -f1
}

# synth_kit DIR SHA256 [URL]: a kit whose only branch 9.9 comes from that
# tarball; with URL, its table names a download template
synth_kit() {
	mkdir -p "$1/backports" "$1/tables"
	: > "$1/series"
	{
		[ -z "${3:-}" ] || printf '@tarball-url %s\n' "$3"
		printf '9.9 tarball linux-9.9.1.tar.xz sha256:%s - no default\n' "$2"
	} > "$1/tables/branches.table"
	: > "$1/tables/topics.table"
	: > "$1/tables/detect.table"
}

# tree CACHE ARGS...: make tree on the synthetic kit with its own cache
tree() {
	local c=$1
	shift
	MMBK_DATA=$T/kit MMBK_CACHE=$c run_kit "$@" "$TREE_SH" 9.9
}

# no_leftovers CACHE: no partial tree or download in the cache
no_leftovers() {
	local left
	left=$(find "$1" -name '*.partial' -o -name '*.part' 2>/dev/null)
	[ -z "$left" ] || fail "left in the cache:" "$left"
	[ ! -e "$1/trees/9.9/linux" ] || fail "a tree was extracted"
}

# the last line of $OUT is one error naming the problem
expect_last_error() {
	[ "$RC" -ne 0 ] || fail "command succeeded, expected an error matching '$1'" "$OUT"
	[ "$(grep -c 'error: ' <<< "$OUT")" -eq 1 ] || fail "not exactly one error line:" "$OUT"
	printf '%s\n' "$OUT" | tail -n1 | grep -qE -- "error: .*$1" || fail "last line does not match '$1':" "$OUT"
}

test_local_tarball() {
	local sha c=$T/cache-local
	sha=$(synth_tarball "$T/tarballs")
	synth_kit "$T/kit" "$sha"
	MMBK_TARBALLS=$T/tarballs tree "$c" env
	expect_rc 0 "tree.sh with the tarball in MMBK_TARBALLS"
	[ "$(printf '%s\n' "$OUT" | tail -n1)" = "$c/trees/9.9/linux" ] || fail "last line is not the tree" "$OUT"
	grep -qx 'SUBLEVEL = 1' "$c/trees/9.9/linux/Makefile" || fail "tree not extracted"
	[ "$(stat -c %a "$c/trees/9.9/linux/mm/khugepaged.c")" = 444 ] || fail "the cached tree is not read-only"
	[ -f "$c/trees/9.9/linux.manifest" ] || fail "the cached tree is not sealed"
	MMBK_TARBALLS=$T/tarballs tree "$c" env
	expect_out 'already extracted \(9\.9\.1\)' "second run resumes from the cache"
}

test_file_url_download() {
	local sha c=$T/cache-url
	sha=$(synth_tarball "$T/mirror")
	synth_kit "$T/kit" "$sha"
	tree "$c" env MMBK_TARBALLS="$T/empty" TARBALL_URL="file://$T/mirror/{file}"
	expect_rc 0 "tree.sh downloading from a file:// URL"
	expect_out "download: file://$T/mirror/linux-9\.9\.1\.tar\.xz" "download shown"
	cmp -s "$c/tarballs/linux-9.9.1.tar.xz" "$T/mirror/linux-9.9.1.tar.xz" || fail "download not kept in the cache"
	[ -f "$c/trees/9.9/linux/mm/khugepaged.c" ] || fail "tree not extracted"
}

test_wrong_checksum() {
	local c=$T/cache-wrong
	synth_tarball "$T/tarballs" >/dev/null
	synth_kit "$T/kit" "$(printf '0%.0s' {1..64})"
	MMBK_TARBALLS=$T/tarballs tree "$c" env
	expect_last_error "linux-9\.9\.1\.tar\.xz has sha256 [0-9a-f]{64}, not the pinned 0{64}"
	no_leftovers "$c"
	# the same from a download: the bad file is not kept for a resume
	tree "$c" env MMBK_TARBALLS="$T/empty" TARBALL_URL="file://$T/tarballs/{file}"
	expect_last_error "the download of file://.* has sha256 [0-9a-f]{64}, not the pinned"
	no_leftovers "$c"
	[ ! -e "$c/tarballs/linux-9.9.1.tar.xz" ] || fail "a bad download was kept"
}

test_truncated_tarball() {
	local sha c=$T/cache-trunc
	sha=$(synth_tarball "$T/full")
	synth_kit "$T/kit" "$sha"
	mkdir -p "$T/trunc"
	head -c 100 "$T/full/linux-9.9.1.tar.xz" > "$T/trunc/linux-9.9.1.tar.xz"
	MMBK_TARBALLS=$T/trunc tree "$c" env
	expect_last_error "linux-9\.9\.1\.tar\.xz is truncated or not an xz tarball"
	no_leftovers "$c"
}

test_missing_tarball() {
	local sha c=$T/cache-missing
	sha=$(synth_tarball "$T/elsewhere")
	synth_kit "$T/kit" "$sha" 'file:///nonexistent/{file}'
	tree "$c" env MMBK_TARBALLS="$T/empty"
	expect_last_error "cannot download file:///nonexistent/linux-9\.9\.1\.tar\.xz; put linux-9\.9\.1\.tar\.xz into MMBK_TARBALLS="
	no_leftovers "$c"
	# no download location anywhere (the kit names no host): say where to put it
	synth_kit "$T/kit" "$sha"
	c=$T/cache-nowhere
	tree "$c" env MMBK_TARBALLS="$T/empty"
	expect_last_error "linux-9\.9\.1\.tar\.xz \(9\.9\) is not in MMBK_TARBALLS=$T/empty; put it there .* or set TARBALL_URL="
	no_leftovers "$c"
	[ ! -e "$c/tarballs" ] || fail "a download directory was created without a download"
}
