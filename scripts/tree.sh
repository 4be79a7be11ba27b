#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tree.sh BRANCH - fetch Debian's linux-source package for BRANCH with apt in a
# private state dir and extract it once into the cache.  Prints the tree's path
# as its last line.  Resumable: a finished step is never redone.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/apt-lib.sh"

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

fetch_deb() {
	local branch=$1 pkg suite ver uri size file pid
	pkg=$(branch_field "$branch" 4)
	suite=$(branch_field "$branch" 2)
	ver=$(kit_apt apt-cache policy "$pkg" 2>/dev/null |
		awk '/Candidate:/ { print $2 }')
	[ -n "$ver" ] && [ "$ver" != "(none)" ] ||
		die "package $pkg not found in $suite; the mirror may have dropped it (check 'apt-cache policy' with the kit's sources in $APT_DIR)"
	DEB=$APT_DIR/debs/${pkg}_${ver}_all.deb
	if [ -f "$DEB" ]; then
		progress "download: $pkg $ver already in cache"
		return 0
	fi
	read -r uri file size _ < <(kit_apt apt-get --print-uris download "$pkg=$ver" | tr -d "'")
	progress "download: $pkg $ver ($((size >> 20)) MiB)"
	( cd "$APT_DIR/archives/partial" && kit_apt apt-get download "$pkg=$ver" >/dev/null ) &
	pid=$!
	show_download_progress "$APT_DIR/archives/partial/$file" "$size" "$pid"
	wait "$pid" || die "download of $pkg $ver failed; rerun 'make tree BRANCH=$branch' to retry"
	mv "$APT_DIR/archives/partial/$file" "$DEB"
	echo "$ver" > "$APT_DIR/debs/$pkg.version"
}

extract_tree() {
	local branch=$1 dest tmp tarball
	dest=$(dirname "$(pristine_dir "$branch")")
	tmp=$dest.partial
	rm -rf "$tmp"
	mkdir -p "$tmp"
	progress "extract: $(basename "$DEB")"
	dpkg-deb --fsys-tarfile "$DEB" | tar -x -C "$tmp" --wildcards './usr/src/linux-source-*.tar.xz'
	tarball=$(ls "$tmp"/usr/src/linux-source-*.tar.xz)
	xz -T2 -dc "$tarball" | tar -x -C "$tmp" \
		--checkpoint=10000 --checkpoint-action=echo='[extract] %u tar records'
	rm -rf "$tmp/usr"
	mv "$tmp"/linux-source-* "$tmp/linux"
	echo "${DEB##*/}" > "$tmp/source"
	rm -rf "$dest"
	mv "$tmp" "$dest"
}

main() {
	local branch=${1:-}
	require_branch "$branch"
	if [ -f "$(pristine_dir "$branch")/Makefile" ]; then
		progress "tree: $branch already extracted ($(kernel_version "$(pristine_dir "$branch")"))"
	else
		update_lists
		fetch_deb "$branch"
		extract_tree "$branch"
		progress "tree: $branch is Linux $(kernel_version "$(pristine_dir "$branch")")"
	fi
	pristine_dir "$branch"
}

main "$@"
