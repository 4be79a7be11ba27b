# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# fetch.sh - get a branch's source tree into the cache once (make tree),
# and the tools the kit builds itself (sparse).  Where a tree comes from is
# the branch's row of tables/branches.table:
#   deb      Debian's linux-source-X.Y, fetched with apt in a private state
#            dir from the machine's own mirror
#   tarball  a release tarball pinned by sha256: taken from MMBK_TARBALLS
#            (default: the cache's tarballs/) or downloaded from TARBALL_URL
#            (or the table's optional @tarball-url; none by default);
#            TARBALL_SHA256 pins another digest (e.g. the upstream release
#            tarball of the version).  A tarball may have an overlay that
#            only adds files (the table's "overlays" column, e.g. the arm64
#            sources of a trimmed tree), pinned the same way.
# The extracted tree (with its overlay) is made read-only and sealed (its
# manifest and content sums, below); a changed cached tree is extracted
# again; every copy of it is made here (scratch_copy).  Resumable: a finished step is never
# redone; nothing half-extracted stays in the cache.
kit_use trees apt

# show_download_progress FILE SIZE PID: percentage until PID exits
show_download_progress() {
	local file=$1 size=$2 pid=$3 have last=-1 pct
	while kill -0 "$pid" 2>/dev/null; do
		have=$(stat -c %s "$file" 2>/dev/null || echo 0)
		pct=$((size > 0 ? have * 100 / size : 0))
		if [ "$pct" -ne "$last" ] && [ $((pct % 10)) -eq 0 ]; then
			progress "download: $pct% ($((have >> 20)) of $((size >> 20)) MiB)"
			last=$pct
		fi
		sleep 1
	done
}

# ---- Debian packages ------------------------------------------------------
# fetch_deb BRANCH -> path of the cached .deb
fetch_deb() {
	local branch=$1 origin pkg suite ver uri size file pid deb
	origin=$(branch_field "$branch" origin)
	suite=${origin%%:*}
	pkg=${origin#*:}
	ver=$(kit_apt apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/ { print $2 }') || true
	{ [ -n "$ver" ] && [ "$ver" != "(none)" ]; } ||
		die "package $pkg not found in $suite; the mirror may have dropped it (check 'apt-cache policy' with the kit's sources in $APT_DIR)"
	deb=$APT_DIR/debs/${pkg}_${ver}_all.deb
	if [ -f "$deb" ]; then
		progress "download: $pkg $ver already in cache"
		printf '%s\n' "$deb"
		return 0
	fi
	read -r uri file size _ < <(kit_apt apt-get --print-uris download "$pkg=$ver" | tr -d "'") ||
		die "apt cannot locate $pkg=$ver in $suite; rerun 'make tree BRANCH=$branch'"
	: "$uri"
	progress "download: $pkg $ver ($((size >> 20)) MiB)"
	( cd "$APT_DIR/archives/partial" && kit_apt apt-get download "$pkg=$ver" >/dev/null ) &
	pid=$!
	show_download_progress "$APT_DIR/archives/partial/$file" "$size" "$pid"
	wait "$pid" || die "download of $pkg $ver failed; rerun 'make tree BRANCH=$branch' to retry"
	mv "$APT_DIR/archives/partial/$file" "$deb"
	echo "$ver" > "$APT_DIR/debs/$pkg.version"
	printf '%s\n' "$deb"
}

# extract_deb DEB DEST: the kernel source tarball inside DEB into DEST/linux
extract_deb() {
	local deb=$1 tmp=$2 tarball
	progress "extract: $(basename "$deb")"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards './usr/src/linux-source-*.tar.xz' ||
		die "$deb is damaged (no kernel source inside); delete it and rerun make tree"
	tarball=$(ls "$tmp"/usr/src/linux-source-*.tar.xz)
	xz -T2 -dc "$tarball" | tar -x -C "$tmp" \
		--checkpoint=10000 --checkpoint-action=echo='[extract] %u tar records' ||
		die "$tarball does not extract; delete $deb and rerun make tree"
	rm -rf "${tmp:?}/usr"
	mv "$tmp"/linux-source-* "$tmp/linux"
	echo "${deb##*/}" > "$tmp/source"
}

# ---- pinned tarballs ------------------------------------------------------
tarball_dir() {
	printf '%s\n' "${MMBK_TARBALLS:-$CACHE_DIR/tarballs}"
}

# tarball_url BRANCH FILE -> where to download FILE from: TARBALL_URL, else
# the table's @tarball-url; with neither, FILE must be in $(tarball_dir)
tarball_url() {
	local tmpl=${TARBALL_URL:-$(table_setting "$BRANCHES_TABLE" tarball-url)}
	[ -n "$tmpl" ] ||
		die "$2 ($1) is not in MMBK_TARBALLS=$(tarball_dir); put it there (e.g. MMBK_TARBALLS=<dir with $2>) or set TARBALL_URL=<url template with {file}>"
	tmpl=${tmpl//\{file\}/$2}
	printf '%s\n' "${tmpl//\{major\}/${1%%.*}}"
}

# pinned_sha256 BRANCH -> the digest the tarball must have
pinned_sha256() {
	local pin
	pin=${TARBALL_SHA256:-$(branch_field "$1" pin)}
	pin=${pin#sha256:}
	[[ $pin =~ ^[0-9a-f]{64}$ ]] ||
		die "no valid sha256 pin for $1 (tables/branches.table or TARBALL_SHA256=): '$pin'"
	printf '%s\n' "$pin"
}

# check_tarball FILE SHA256 WHERE: one-line errors for a missing, truncated
# or wrong tarball
check_tarball() {
	local f=$1 want=$2 where=$3 got
	[ -s "$f" ] || die "$where is empty; delete it and rerun make tree"
	got=$(sha256sum < "$f" | cut -d' ' -f1)
	if [ "$got" != "$want" ]; then
		if ! xz -t "$f" 2>/dev/null; then
			die "$where is truncated or not an xz tarball (sha256 $got, pinned $want); delete it and rerun make tree"
		fi
		die "$where has sha256 $got, not the pinned $want (tables/branches.table); use the pinned tarball, or pin this one with TARBALL_SHA256= if you trust it (e.g. an upstream release tarball checked against its signed checksums)"
	fi
}

# fetch_tarball BRANCH [FILE SHA256] -> path of a verified tarball (the
# branch's own, or FILE pinned to SHA256: its overlay)
fetch_tarball() {
	local branch=$1 file=${2:-} want=${3:-} dir url part
	[ -n "$file" ] || file=$(branch_field "$branch" origin)
	[ -n "$want" ] || want=$(pinned_sha256 "$branch")
	dir=$(tarball_dir)
	if [ -e "$dir/$file" ]; then
		check_tarball "$dir/$file" "$want" "$dir/$file"
		progress "tarball: $dir/$file (sha256 ok)"
		printf '%s\n' "$dir/$file"
		return 0
	fi
	url=$(tarball_url "$branch" "$file")
	dir=$CACHE_DIR/tarballs
	mkdir -p "$dir"
	part=$dir/$file.part
	progress "download: $url"
	curl -fL --retry 2 -C - -o "$part" "$url" >&2 ||
		die "cannot download $url; put $file into MMBK_TARBALLS=<dir> (now $(tarball_dir)) or set TARBALL_URL= to a reachable copy"
	# a complete download that fails the check is of no use to a resume
	( check_tarball "$part" "$want" "the download of $url" ) || { rm -f "$part"; exit 1; }
	mv "$part" "$dir/$file"
	printf '%s\n' "$dir/$file"
}

# extract_tarball TARBALL DEST: its single top directory becomes DEST/linux
extract_tarball() {
	local t=$1 tmp=$2 top
	progress "extract: $(basename "$t")"
	xz -T2 -dc "$t" | tar -x -C "$tmp" \
		--checkpoint=10000 --checkpoint-action=echo='[extract] %u tar records' ||
		die "$t does not extract (damaged?); delete it and rerun make tree"
	top=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d)
	{ [ "$(printf '%s\n' "$top" | wc -l)" = 1 ] && [ -f "$top/Makefile" ]; } ||
		die "$t does not hold one kernel tree at its top; is it a kernel release tarball?"
	mv "$top" "$tmp/linux"
	echo "${t##*/}" > "$tmp/source"
}

# extract_overlay BRANCH DEST: the branch's overlay (files the trimmed
# tarball leaves out, e.g. its arm64 sources) extracted over DEST/linux;
# it may only add files.  None when the row has no overlay, or when
# TARBALL_SHA256 pins another (complete) tarball than the table's.
extract_overlay() {
	local branch=$1 tmp=$2 ov file pin t top f
	ov=$(branch_field "$branch" overlay)
	[ -n "$ov" ] && [ "$ov" != - ] && [ -z "${TARBALL_SHA256:-}" ] || return 0
	file=${ov%@*} pin=${ov#*@}
	pin=${pin#sha256:}
	[[ $pin =~ ^[0-9a-f]{64}$ ]] || die "tables/branches.table: the overlay of $branch is not <file>@sha256:<hex>: '$ov'"
	t=$(fetch_tarball "$branch" "$file" "$pin")
	progress "extract: $file (overlay)"
	mkdir -p "$tmp/overlay"
	xz -T2 -dc "$t" | tar -x -C "$tmp/overlay" || die "$t does not extract (damaged?); delete it and rerun make tree"
	top=$(find "$tmp/overlay" -mindepth 1 -maxdepth 1 -type d)
	[ "$(printf '%s\n' "$top" | wc -l)" = 1 ] || die "$t does not hold one top directory"
	f=$(cd "$top" && find . ! -type d -printf '%P\n' | while read -r f; do [ ! -e "$tmp/linux/$f" ] || { echo "$f"; break; }; done)
	[ -z "$f" ] || die "the overlay $file would replace $f of the tree; an overlay may only add files"
	cp -a "$top/." "$tmp/linux/" || die "could not copy the overlay $file into $tmp/linux"
	rm -rf "$tmp/overlay"
	echo "$file" >> "$tmp/source"
}

get_tree() {
	local branch=$1 dest tmp src
	dest=$(dirname "$(pristine_dir "$branch")")
	tmp=$dest.partial
	rm -rf "$tmp"
	mkdir -p "$tmp"
	# nothing half-extracted stays in the cache when a step fails (a
	# global: the trap runs after this function's locals are gone)
	PARTIAL_DIR=$tmp
	trap 'rm -rf "$PARTIAL_DIR"' EXIT
	case $(branch_field "$branch" source) in
	deb)
		update_lists
		src=$(fetch_deb "$branch")
		extract_deb "$src" "$tmp"
		;;
	tarball)
		src=$(fetch_tarball "$branch")
		extract_tarball "$src" "$tmp"
		extract_overlay "$branch" "$tmp"
		;;
	*) die "tables/branches.table: unknown source for $branch" ;;
	esac
	# keep build dirs of an older extraction of the same branch
	if [ -d "$dest" ]; then
		chmod -R u+w "$dest/linux" 2>/dev/null || true
		rm -rf "$dest/linux" "$dest/source" "$dest/linux.manifest"
		mv "$tmp/linux" "$dest/linux"
		mv "$tmp/source" "$dest/source"
		rm -rf "$tmp"
	else
		mv "$tmp" "$dest"
	fi
	trap - EXIT
	seal_pristine "$branch"
}

# fetch_overlay_missing BRANCH: the cached tree was extracted without the
# overlay its row names (an older cache): it is extracted again
fetch_overlay_missing() {
	local ov
	ov=$(branch_field "$1" overlay)
	[ -n "$ov" ] && [ "$ov" != - ] && [ -z "${TARBALL_SHA256:-}" ] || return 1
	! grep -qxF "${ov%@*}" "$(dirname "$(pristine_dir "$1")")/source"
}

# fetch_tree BRANCH [refresh]: the pristine tree of BRANCH in the cache
# (fetched and extracted unless it is there and intact; "refresh" extracts
# it again unless another command did meanwhile); prints its path.  A
# sealed tree is only read, so it is checked under its lock held shared
# (beside every other reader: pristine_verify, scratch_copy, a make
# selftests run); the lock is taken exclusive only to extract it, and the
# tree is checked once more then (another command may have done it).
fetch_tree() {
	local branch=$1 refresh=${2:-} dir
	require_branch "$branch"
	need_cache
	dir=$(pristine_dir "$branch")
	mkdir -p "$(dirname "$dir")"
	lock_tree "$(dirname "$dir")" shared
	if [ -z "$refresh" ] && fetch_tree_intact "$branch"; then
		progress "tree: $branch already extracted ($(kernel_version "$dir"))"
		printf '%s\n' "$dir"
		return 0
	fi
	lock_tree "$(dirname "$dir")"
	if fetch_tree_intact "$branch"; then
		[ -z "$refresh" ] || progress "tree: $branch was extracted again by another command"
	else
		[ ! -f "$dir/Makefile" ] ||
			warn "the cached $branch tree was changed in place (a file differs from its seal); extracting it again"
		get_tree "$branch"
		progress "tree: $branch is Linux $(kernel_version "$dir")"
	fi
	# extracted and sealed: read by this command and others from now on
	lock_tree "$(dirname "$dir")" shared
	printf '%s\n' "$dir"
}

# tools_tree -> the mainline branch's tree (MAINLINE_BRANCH, the role
# "mainline" of tables/branches.table), fetched into the cache when it is
# not there yet: what the kit takes from a kernel tree for itself (the
# boot suite's kselftest.h, the kernel's KTAP parser, checkpatch.pl) comes
# from it whatever else the cache holds, so that every machine builds the
# same suite and judges with the same parser (it was the newest cached
# tree's, and a fresh machine with one older tree could not boot)
tools_tree() {
	local t
	t=$(pristine_dir "$MAINLINE_BRANCH")
	if [ ! -f "$t/Makefile" ]; then
		progress "tools: the kit's tools from a kernel tree (kselftest.h, the KTAP parser, checkpatch.pl) come from $MAINLINE_BRANCH, whose tree is not in the cache yet; fetching it"
		t=$(fetch_tree "$MAINLINE_BRANCH") || die "fetching the $MAINLINE_BRANCH tree (the kit's tools) failed"
	fi
	printf '%s\n' "$t"
}

# fetch_tree_intact BRANCH: the cached tree is there, complete (its overlay
# too) and what its seal says -- its content checked once per command (an
# earlier fetch_tree or pristine_verify of this command did it: the
# manifest then)
fetch_tree_intact() {
	local dir
	dir=$(pristine_dir "$1")
	[ -f "$dir/Makefile" ] && [ -f "$(dirname "$dir")/source" ] && ! fetch_overlay_missing "$1" || return 1
	if { [ -n "${PRISTINE_VERIFIED[$1]:-}" ] && pristine_ok "$1"; } || pristine_ok "$1" content; then
		# shellcheck disable=SC2034  # read by scratch_copy
		PRISTINE_VERIFIED["$1"]=1
		return 0
	fi
	unset "PRISTINE_VERIFIED[$1]"
	return 1
}

# --- sparse ----------------------------------------------------------------
# sparse_path -> a sparse that can check every supported branch.  Debian
# 12's sparse 0.6.4 lacks __typeof_unqual__, which 7.2's
# scripts/checker-valid.sh requires (make C=2 then silently skips sparse),
# so the kit builds Debian sid's sparse source package once into its cache.
sparse_ok() {	# sparse_ok BIN: the probe 7.2's checker-valid.sh uses
	printf 'void f(int *q) { __typeof_unqual__(*q) v = *q; (void)v; }\n' |
		"$1" -Wno-decl - 2>&1 | awk '/error/ { bad = 1 } END { exit bad }'
}

build_sparse() {
	local tools=$CACHE_DIR/tools src=$CACHE_DIR/tools/src/sparse
	update_lists
	rm -rf "$src"
	mkdir -p "$src"
	progress "sparse: fetching Debian sid's sparse source package"
	( cd "$src" && kit_apt apt-get source --download-only sparse >/dev/null ) ||
		die "could not fetch the sparse source package from sid; check the machine's apt mirror"
	( cd "$src" && dpkg-source -x --no-check ./*.dsc build >/dev/null ) ||
		die "could not unpack the sparse source package in $src"
	progress "sparse: building $(basename "$src"/*.dsc .dsc)"
	make -C "$src/build" -j"$(nproc)" sparse CC=gcc HAVE_LLVM=no HAVE_GTK=no HAVE_SQLITE=no \
		> "$src/build.log" 2>&1 || die "sparse build failed; see $src/build.log"
	mkdir -p "$tools/bin"
	cp "$src/build/sparse" "$tools/bin/sparse.new"
	mv "$tools/bin/sparse.new" "$tools/bin/sparse"
}

sparse_path() {
	local bin
	need_cache
	bin=$CACHE_DIR/tools/bin/sparse
	if [ -x "$bin" ] && sparse_ok "$bin"; then
		printf '%s\n' "$bin"
		return
	fi
	# built once: another command building it meanwhile is waited for
	mkdir -p "$CACHE_DIR/tools"
	lock_tree "$CACHE_DIR/tools/.sparse.lock"
	if [ ! -x "$bin" ] || ! sparse_ok "$bin"; then build_sparse; fi
	sparse_ok "$bin" || die "$bin still lacks __typeof_unqual__; report the sparse version in $CACHE_DIR/tools/src"
	printf '%s\n' "$bin"
}

# --- the kit's cache of pristine trees: sealed, verified, copied -------
# (with the fetch that extracts a changed tree again, one module: each
# needs the other)
# tree_manifest DIR -> one line per entry (path, type, mode; for files and
# links also size, mtime and link target): an in-place write through a hard
# link changes size or mtime.  Directory sizes and times are left out: they
# differ in every copy.
tree_manifest() {
	(cd "$1" && find . \( -type d -printf '%P\td\t%m\n' \) -o -printf '%P\t%y\t%m\t%s\t%T@\t%l\n') |
		LC_ALL=C sort
}

# tree_sums DIR -> "sha1  path" of every file, sorted: what a byte change
# of the same size and mtime changes
tree_sums() {
	(cd "$1" && find . -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 -r -P2 -n 2000 sha1sum) |
		LC_ALL=C sort -k2
}

# seal_pristine BRANCH: make the pristine tree's files read-only and record
# its manifest (metadata) and its content sums (scratch copies hard-link
# these files)
seal_pristine() {
	local dir
	dir=$(pristine_dir "$1")
	find "$dir" -type f -perm /222 -exec chmod a-w {} + ||
		die "could not make $dir read-only"
	tree_sums "$dir" > "$dir.sums.tmp" || die "could not read every file of $dir"
	mv "$dir.sums.tmp" "$dir.sums"
	tree_manifest "$dir" | sha256sum | cut -d' ' -f1 > "$dir.manifest.tmp"
	mv "$dir.manifest.tmp" "$dir.manifest"
}

# pristine_ok BRANCH [content]: the pristine tree still matches its
# manifest (and, with "content", every file its recorded sum: a change of
# the same size and mtime).  An older cache without them is sealed now.
pristine_ok() {
	local dir
	dir=$(pristine_dir "$1")
	[ -f "$dir/Makefile" ] || return 1
	if [ ! -f "$dir.manifest" ] || [ ! -f "$dir.sums" ]; then
		seal_pristine "$1"
		return 0
	fi
	[ "$(tree_manifest "$dir" | sha256sum | cut -d' ' -f1)" = "$(cat "$dir.manifest")" ] || return 1
	[ "${2:-}" = content ] || return 0
	cmp -s <(tree_sums "$dir") "$dir.sums"
}

# pristine_verify BRANCH: the pristine tree's content is checked against
# its sums, once per command, where a tree is used for a build that is
# judged (make tree, check, boot, the kit's patched copies): a byte
# changed with the same size and mtime is caught there.  A command that
# makes many copies (make matrix) verifies each branch once before its
# steps; the steps run in subshells that inherit the result.  The cost:
# one read of the tree (tests/unit/t-safety.sh prints it).
declare -gA PRISTINE_VERIFIED=()
pristine_verify() {
	pristine_hold "$1"
	[ -z "${PRISTINE_VERIFIED[$1]:-}" ] || return 0
	if ! pristine_ok "$1" content; then
		warn "the cached $1 tree was changed in place (a file differs from its seal); extracting it again"
		( fetch_tree "$1" refresh ) >/dev/null
	fi
	PRISTINE_VERIFIED[$1]=1
}

# pristine_hold BRANCH: the pristine tree is read by this command: no
# other one extracts it again until the command ends (fetch_tree waits)
pristine_hold() {
	local dir
	dir=$(dirname "$(pristine_dir "$1")")
	[ ! -d "$dir" ] || lock_tree "$dir" shared
}

# scratch_copy BRANCH DEST: fresh hard-link copy of the pristine tree
# (checked against its manifest first -- and against its content sums
# where pristine_verify ran before --, extracted again if it was changed).
# Every file the kit may change is a private writable copy; every other
# file shares a read-only inode with the cache.
scratch_copy() {
	local src dest=$2
	src=$(pristine_dir "$1")
	[ -d "$src" ] || die "no cached tree for $1; run 'make tree BRANCH=$1' first"
	pristine_hold "$1"
	if [ -n "${PRISTINE_VERIFIED[$1]:-}" ]; then
		pristine_ok "$1" || { unset "PRISTINE_VERIFIED[$1]"; pristine_verify "$1"; }
	elif ! pristine_ok "$1"; then
		warn "the cached $1 tree was changed in place; extracting it again"
		( fetch_tree "$1" refresh ) >/dev/null
	fi
	link_copy "$src" "$dest"
}
