#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# export.sh BRANCH|KDIR quilt|mbox - the series a tree gets, in a form a
# vendor can take into their own tree:
#   quilt   out/export/<name>/series + the patches (quilt, or any tool that
#           reads a series file)
#   mbox    out/export/<name>.mbox: one message per patch in series order,
#           for git am
# BRANCH exports backports/<branch> (patches that are n/a or already
# upstream on the branch are not in its series, so not exported). KDIR
# exports what that tree needs: scripts/retarget.sh takes the branch series
# (or the nearest older one), leaves out what the tree already has and
# re-targets what does not apply at fuzz 0; it fails, exporting nothing,
# where a patch can be neither applied nor re-targeted.
set -eu
. "$(dirname "$0")/lib.sh"

usage() {
	die "usage: export.sh BRANCH|KDIR quilt|mbox (make export BRANCH=b|KDIR=dir FORMAT=quilt|mbox)"
}

# source_series WHAT: sets SRC_DIR (patches) and SRC_SERIES (series file)
# and NAME (of the export) for a branch name or a tree
source_series() {
	local what=$1
	if is_supported_branch "$what"; then
		SRC_DIR=$KIT_DIR/backports/$what
		SRC_SERIES=$(series_file "$what")
		NAME=$what
	elif [ -d "$what" ]; then
		tree_branch "$what" >/dev/null
		"$KIT_DIR/scripts/retarget.sh" "$what" 2>&1 | grep -v '^\[' >&2
		[ "${PIPESTATUS[0]}" -eq 0 ] ||
			die "$what: the series cannot be applied or re-targeted (see above); nothing exported"
		NAME=$(tree_name "$what")
		SRC_DIR=$OUT_DIR/$NAME
		SRC_SERIES=$SRC_DIR/series
	else
		die "'$what' is neither a supported branch ($SUPPORTED_BRANCHES) nor a directory; set BRANCH= or KDIR="
	fi
}

export_quilt() {
	local dest=$OUT_DIR/export/$NAME name
	rm -rf "$dest.tmp"
	mkdir -p "$dest.tmp"
	{
		printf '# mm-backport-kit series for %s, exported from %s\n' "$NAME" "${SRC_DIR#"$KIT_DIR"/}"
		series_patches "$SRC_SERIES"
	} > "$dest.tmp/series"
	for name in $(series_patches "$SRC_SERIES"); do
		cp "$SRC_DIR/$name" "$dest.tmp/$name"
	done
	rm -rf "$dest"
	mv "$dest.tmp" "$dest"
	printf '%s\n' "$dest"
}

export_mbox() {
	local dest=$OUT_DIR/export/$NAME.mbox name p
	mkdir -p "$OUT_DIR/export"
	for name in $(series_patches "$SRC_SERIES"); do
		p=$SRC_DIR/$name
		head -n1 "$p" | grep -q '^From [0-9a-f]\{40\} ' ||
			die "$p:1: does not start with a 'From <sha> <date>' line; it cannot go into an mbox"
		cat "$p"
		# messages are separated by a blank line before the next From line
		[ -z "$(tail -c1 "$p")" ] || echo
		[ -z "$(tail -n1 "$p")" ] || echo
	done > "$dest.tmp"
	mv "$dest.tmp" "$dest"
	printf '%s\n' "$dest"
}

main() {
	[ $# -eq 2 ] || usage
	source_series "$1"
	case $2 in
	quilt) export_quilt ;;
	mbox)  export_mbox ;;
	*) die "unknown format '$2'; use FORMAT=quilt or FORMAT=mbox" ;;
	esac
	info "$NAME: $(series_patches "$SRC_SERIES" | wc -l) patches exported ($2)"
}

main "$@"
