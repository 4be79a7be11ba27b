# SPDX-License-Identifier: GPL-2.0
# lib.sh - functions shared by the mm-backport-kit scripts (sourced, never run).
#
# Everything the kit knows about branches lives in the table below; every
# script asks these functions instead of keeping its own copy.

KIT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE_DIR=${MMBK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mm-backport-kit}
OUT_DIR=${MMBK_OUT:-$KIT_DIR/out}

# branch  debian-suite       suite-kind  package
BRANCH_TABLE="\
5.10  bullseye           main      linux-source-5.10
5.15  tarball            tarball   -
6.1   bookworm-security  security  linux-source-6.1
6.6   tarball            tarball   -
6.12  bookworm-security  security  linux-source-6.12
6.18  tarball            tarball   -
7.2   sid                main      linux-source-7.2"

SUPPORTED_BRANCHES=$(printf '%s\n' "$BRANCH_TABLE" | awk '{print $1}' | paste -sd' ')
DEFAULT_BRANCH=6.12

prog=${0##*/}

die() {
	printf '%s: error: %s\n' "$prog" "$*" >&2
	exit 1
}

warn() {
	printf '%s: warning: %s\n' "$prog" "$*" >&2
}

info() {
	printf '%s: %s\n' "$prog" "$*" >&2
}

# branch_field BRANCH COLUMN -> one column of BRANCH_TABLE (2 suite, 3 kind, 4 package)
branch_field() {
	printf '%s\n' "$BRANCH_TABLE" | awk -v b="$1" -v c="$2" '$1 == b { print $c }'
}

is_supported_branch() {
	case " $SUPPORTED_BRANCHES " in *" $1 "*) return 0 ;; esac
	return 1
}

require_branch() {
	[ -n "$1" ] || die "no branch given; set BRANCH= to one of: $SUPPORTED_BRANCHES"
	is_supported_branch "$1" ||
		die "unsupported branch '$1'; set BRANCH= to one of: $SUPPORTED_BRANCHES"
}

# kernel_version DIR -> "VERSION.PATCHLEVEL.SUBLEVEL" from the top-level Makefile
kernel_version() {
	awk -F' *= *' '
		$1 == "VERSION"    { v = $2 }
		$1 == "PATCHLEVEL" { p = $2 }
		$1 == "SUBLEVEL"   { s = $2 }
		v != "" && p != "" && s != "" { print v "." p "." s; exit }
	' "$1/Makefile"
}

# is_kernel_tree DIR: a top-level kernel Makefile plus the files the kit touches
is_kernel_tree() {
	[ -f "$1/Makefile" ] && [ -f "$1/mm/khugepaged.c" ] && [ -f "$1/mm/ksm.c" ] &&
		grep -q '^PATCHLEVEL *=' "$1/Makefile"
}

# branch_number BRANCH -> comparable number ("6.12" -> 6012)
branch_number() {
	awk -v b="$1" 'BEGIN { split(b, v, "."); print v[1] * 1000 + v[2] }'
}

# nearest_branch VERSION -> the newest supported branch not newer than
# VERSION ("6.6.0" -> 6.1), or nothing if VERSION is older than them all
nearest_branch() {
	local want b best=
	want=$(branch_number "${1%.*}")
	for b in $SUPPORTED_BRANCHES; do
		[ "$(branch_number "$b")" -le "$want" ] || continue
		if [ -z "$best" ] || [ "$(branch_number "$b")" -gt "$(branch_number "$best")" ]; then
			best=$b
		fi
	done
	printf '%s
' "$best"
}

# tree_branch DIR -> branch whose series the tree gets: its own, or for a
# version between the supported branches (5.15, 6.6, ...) the nearest older
# one (re-targeted by scripts/retarget.sh where it does not apply); dies
# for versions older than every supported branch
tree_branch() {
	local dir=$1 ver branch
	[ -d "$dir" ] || die "KDIR=$dir does not exist; point KDIR= at a kernel source tree"
	is_kernel_tree "$dir" ||
		die "KDIR=$dir is not a kernel source tree (no top-level Makefile with mm/khugepaged.c); point KDIR= at the top of a Linux tree"
	ver=$(kernel_version "$dir")
	branch=$(nearest_branch "$ver")
	[ -n "$branch" ] ||
		die "KDIR=$dir is Linux $ver, an unsupported branch; supported branches: $SUPPORTED_BRANCHES"
	printf '%s
' "$branch"
}

# tree_is_branch DIR: the tree is of a supported branch itself
tree_is_branch() {
	local ver
	ver=$(kernel_version "$1")
	is_supported_branch "${ver%.*}"
}

# tree_name DIR -> short name of a tree for out/<name>/ ("linux" trees are
# named after their parent directory too: work/6.1/linux -> 6.1-linux)
tree_name() {
	local dir base
	dir=$(cd "$1" && pwd)
	base=${dir##*/}
	case $base in
	linux|src|source|kernel) base=$(basename "$(dirname "$dir")")-$base ;;
	esac
	printf '%s
' "$base"
}

# Ignored checkpatch types (scripts/check.sh, scripts/lint.sh), each for a
# reason outside the patch:
#   GIT_COMMIT_ID        the stable-kernel header "commit <sha> upstream."
#   UNKNOWN_COMMIT_ID    is required as is, and the trees are not git
#                        trees, so the sha cannot be looked up
#   COMMIT_LOG_LONG_LINE upstream's commit message is carried verbatim
#                        (62b98015d988 has a benchmark table)
CHECKPATCH_IGNORE=GIT_COMMIT_ID,UNKNOWN_COMMIT_ID,COMMIT_LOG_LONG_LINE

# checkpatch_waivers PATCHFILE -> ",TYPE..." reviewed and waived for that
# patch in scripts/header-rules.table (rows of kind checkpatch-waive)
checkpatch_waivers() {
	local rel=${1#"$KIT_DIR"/} rule glob kind arg msg
	while IFS=$'\t' read -r rule glob kind arg msg; do
		[ "$kind" = checkpatch-waive ] || continue
		# shellcheck disable=SC2254
		case $rel in $glob) printf ',%s' "$arg" ;; esac
	done < <(grep -v '^#' "$KIT_DIR/scripts/header-rules.table" | grep -v '^[[:space:]]*$' | tr -s '\t')
}

pristine_dir() {	# BRANCH -> path of the extracted, never-modified tree
	printf '%s/trees/%s/linux\n' "$CACHE_DIR" "$1"
}

# resolve_target: sets TARGET_DIR and TARGET_BRANCH from KDIR= or BRANCH=.
# With BRANCH= only, a scratch hard-link copy of the cached tree is used
# (made fresh by scratch_copy so runs never see each other's state).
resolve_target() {
	if [ -n "${KDIR:-}" ]; then
		TARGET_DIR=$(cd "$KDIR" 2>/dev/null && pwd) ||
			die "KDIR=$KDIR does not exist; point KDIR= at a kernel source tree"
		TARGET_BRANCH=$(tree_branch "$TARGET_DIR")
		if [ -n "${BRANCH:-}" ] && [ "$BRANCH" != "$TARGET_BRANCH" ]; then
			die "KDIR=$KDIR is branch $TARGET_BRANCH but BRANCH=$BRANCH; drop BRANCH= or fix KDIR="
		fi
	else
		TARGET_BRANCH=${BRANCH:-$DEFAULT_BRANCH}
		require_branch "$TARGET_BRANCH"
		[ -d "$(pristine_dir "$TARGET_BRANCH")" ] ||
			die "no cached tree for $TARGET_BRANCH; run 'make tree BRANCH=$TARGET_BRANCH' first"
		TARGET_DIR=$CACHE_DIR/work/$TARGET_BRANCH/linux
	fi
}

# kit_touched_files -> every file any patch of the kit touches
kit_touched_files() {
	local p
	for p in "$KIT_DIR"/patches/*.patch "$KIT_DIR"/backports/*/*.patch; do
		[ -f "$p" ] && patch_files "$p"
	done | sort -u
}

# scratch_copy BRANCH DEST: fresh hard-link copy of the pristine tree in which
# every file the kit may change is a private copy, so nothing done in DEST can
# reach the pristine inode.
scratch_copy() {
	local src dest=$2 f
	src=$(pristine_dir "$1")
	[ -d "$src" ] || die "no cached tree for $1; run 'make tree BRANCH=$1' first"
	rm -rf "$dest"
	mkdir -p "$(dirname "$dest")"
	rm -rf "$dest.tmp"
	cp -al "$src" "$dest.tmp"
	kit_touched_files | while read -r f; do
		[ -f "$dest.tmp/$f" ] || continue
		cp -p "$src/$f" "$dest.tmp/$f.kit-copy"
		chmod u+w "$dest.tmp/$f.kit-copy"	# the pristine tree may be read-only
		mv -f "$dest.tmp/$f.kit-copy" "$dest.tmp/$f"
	done
	mv "$dest.tmp" "$dest"
}

# patched_dir BRANCH -> the kit's own patched copy of BRANCH (scripts/worktree.sh)
patched_dir() {
	printf '%s/work/%s/patched/linux\n' "$CACHE_DIR" "$1"
}

# build_dir BRANCH patched|unpatched -> kernel build dir (O=) for that tree.
# Each sits next to its source tree, so both see the source as "../linux":
# with CCACHE_BASEDIR the compiler runs of the two trees are the same and
# the patched build reuses every unpatched object the series does not touch.
build_dir() {
	case $2 in
	patched)   printf '%s/work/%s/patched/build\n' "$CACHE_DIR" "$1" ;;
	unpatched) printf '%s/trees/%s/build\n' "$CACHE_DIR" "$1" ;;
	esac
}

series_file() {		# BRANCH -> the branch's quilt series
	printf '%s/backports/%s/series\n' "$KIT_DIR" "$1"
}

# series_patches SERIESFILE -> patch names in order (comments, blanks dropped)
series_patches() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$1" | awk '{print $1}'
}

# patch_upstream_id PATCHFILE -> upstream commit id from the stable header,
# "Git-commit:" tag, or the format-patch "From <sha>" line
patch_upstream_id() {
	sed -nE -e 's/^commit ([0-9a-f]{12,40}) upstream\.$/\1/p' \
		-e 's/^Git-commit: ([0-9a-f]{12,40}).*/\1/p' \
		-e 's/^From ([0-9a-f]{40}) .*/\1/p' "$1" | head -n1
}

# patch_subject PATCHFILE -> the subject, folded lines joined, "[PATCH]" dropped
patch_subject() {
	awk '/^Subject: / {
		s = $0
		while ((getline l) > 0 && l ~ /^[ \t]/) s = s l
		sub(/^Subject: (\[PATCH[^]]*\] )?/, "", s)
		print s
		exit
	}' "$1"
}

# patch_files PATCHFILE -> files the patch touches (relative to the tree top)
patch_files() {
	awk '/^\+\+\+ / { f = $2; sub(/^b\//, "", f); sub(/\t.*/, "", f); if (f != "/dev/null") print f }' "$1" | sort -u
}

# progress LABEL: print a line; keeps long steps visible in CI logs
progress() {
	printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2
}

# patch_diffstat PATCHFILE -> git format-patch style diffstat of the diff in PATCHFILE
# (git apply --stat, with the change counts right-aligned to their widest
# value as format-patch prints them)
patch_diffstat() {
	git apply --stat "$1" | awk '
		{ line[NR] = $0 }
		/\|/ { split($0, a, "|"); split(a[2], b, " "); if (length(b[1]) > w) w = length(b[1]) }
		END {
			for (i = 1; i <= NR; i++) {
				if (split(line[i], a, "|") == 2) {
					n = split(a[2], b, " ")
					printf "%s| %*s%s\n", a[1], w, b[1], (n > 1 ? " " b[2] : "")
				} else
					print line[i]
			}
		}'
}
