# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034  # variables for the scripts that source it
# lib.sh - functions shared by the mm-backport-kit scripts (sourced, never run).
#
# What the kit knows about branches and topics lives in two data tables,
# backports/branches.table and backports/topics.table; every script asks the
# functions below instead of keeping its own copy (Python: scripts/kitdata.py).
set -o pipefail

KIT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# the kit's data (series, patches, backports, tables); tests point it at a
# synthetic kit with MMBK_DATA
DATA_DIR=${MMBK_DATA:-$KIT_DIR}
OUT_DIR=${MMBK_OUT:-$KIT_DIR/out}
BRANCHES_TABLE=$DATA_DIR/backports/branches.table
TOPICS_TABLE=$DATA_DIR/backports/topics.table

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

# progress LABEL: a time-stamped line; keeps long steps visible in CI logs
progress() {
	printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2
}

# --- cache ---------------------------------------------------------------
# The cache is only needed by commands that fetch, build or copy trees, so a
# missing HOME is an error only there (need_cache).
if [ -n "${MMBK_CACHE:-}" ]; then
	CACHE_DIR=$MMBK_CACHE
elif [ -n "${XDG_CACHE_HOME:-}" ]; then
	CACHE_DIR=$XDG_CACHE_HOME/mm-backport-kit
elif [ -n "${HOME:-}" ]; then
	CACHE_DIR=$HOME/.cache/mm-backport-kit
else
	CACHE_DIR=
fi

need_cache() {
	[ -n "$CACHE_DIR" ] ||
		die "no cache directory: HOME is not set; set MMBK_CACHE= (or HOME or XDG_CACHE_HOME) to a writable directory"
}

# path_key PATH -> short stable name for a path (build dirs, DKMS trees)
path_key() {
	printf '%s' "$1" | sha256sum | cut -c1-12
}

# table_rows FILE -> the data rows of a kit table: comments, "@" settings
# and blank lines dropped, runs of blanks squeezed to one TAB
table_rows() {
	sed -e 's/[[:space:]]*#.*//' -e '/^@/d' -e '/^[[:space:]]*$/d' "$1" |
		sed -E 's/[[:space:]]+/\t/g'
}

# table_setting FILE NAME -> value of an "@NAME value" line
table_setting() {
	sed -n "s/^@$2[[:space:]]\{1,\}//p" "$1" | sed -n 1p
}

# --- branches ------------------------------------------------------------
# branch_field BRANCH COLUMN -> one column of branches.table:
# source origin pin config rt role
branch_field() {
	local col
	case $2 in
	source) col=2 ;; origin) col=3 ;; pin) col=4 ;; config) col=5 ;;
	rt) col=6 ;; role) col=7 ;;
	*) die "branch_field: unknown column '$2'" ;;
	esac
	table_rows "$BRANCHES_TABLE" | awk -F'\t' -v b="$1" -v c="$col" '$1 == b { print $c }'
}

[ -f "$BRANCHES_TABLE" ] || die "no branch table $BRANCHES_TABLE"
SUPPORTED_BRANCHES=$(table_rows "$BRANCHES_TABLE" | cut -f1 | paste -sd' ')
DEFAULT_BRANCH=$(table_rows "$BRANCHES_TABLE" | awk -F'\t' '$7 == "default" && !n++ { print $1 }')

# branches_with COLUMN VALUE -> the branches whose COLUMN is VALUE
branches_with() {
	local b
	for b in $SUPPORTED_BRANCHES; do
		[ "$(branch_field "$b" "$1")" != "$2" ] || printf '%s\n' "$b"
	done | paste -sd' '
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

# branch_number BRANCH -> comparable number ("6.12" -> 6012)
branch_number() {
	awk -v b="$1" 'BEGIN { split(b, v, "."); print v[1] * 1000 + v[2] }'
}

# nearest_branch VERSION -> the newest supported branch not newer than
# VERSION ("6.7.0" -> 6.6), or nothing if VERSION is older than them all
nearest_branch() {
	local want b best=
	want=$(branch_number "${1%.*}")
	for b in $SUPPORTED_BRANCHES; do
		[ "$(branch_number "$b")" -le "$want" ] || continue
		if [ -z "$best" ] || [ "$(branch_number "$b")" -gt "$(branch_number "$best")" ]; then
			best=$b
		fi
	done
	printf '%s\n' "$best"
}

# --- topics --------------------------------------------------------------
# all_topics -> topic names in the order of their first patch in ./series
all_topics() {
	local name
	for name in $(series_patches "$DATA_DIR/series"); do
		topic_of "$name"
	done | awk '!seen[$0]++'
}

# topic_of PATCH -> the topic of a patch of ./series
topic_of() {
	table_rows "$TOPICS_TABLE" | awk -F'\t' -v p="$1" '$2 == p && !n++ { print $1 }'
}

# topic_patches TOPIC -> its patches, in ./series order
topic_patches() {
	local name
	for name in $(series_patches "$DATA_DIR/series"); do
		[ "$(topic_of "$name")" != "$1" ] || printf '%s\n' "$name"
	done
}

is_topic() {
	grep -qxF -- "$1" <<< "$(all_topics)"
}

# check_topics LIST -> LIST (comma or blank separated) one per line,
# after checking every name
check_topics() {
	local t
	for t in $(printf '%s' "$1" | tr ',' ' '); do
		is_topic "$t" || die "unknown topic '$t'; set TOPICS= to some of: $(all_topics | paste -sd' ')"
		printf '%s\n' "$t"
	done
}

# --- trees ---------------------------------------------------------------
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

# tree_dir ARG -> absolute path of the kernel tree ARG names (KDIR=),
# or a one-line error that says what ARG is instead
tree_dir() {
	local arg=$1
	[ -n "$arg" ] || die "no tree given; set KDIR= to a kernel source tree (or BRANCH= to use a cached one)"
	if [ ! -e "$arg" ]; then
		die "KDIR=$arg does not exist; point KDIR= at a kernel source tree"
	elif [ ! -d "$arg" ]; then
		die "KDIR=$arg is a file, not a directory; point KDIR= at the top directory of a kernel source tree"
	fi
	(cd "$arg" 2>/dev/null && pwd) ||
		die "KDIR=$arg cannot be entered (permissions); make it readable or point KDIR= elsewhere"
}

# resolve_tree KDIR BRANCH KIND -> the tree a command works on: KDIR when
# given (BRANCH, when also given, must be the tree's own branch), else the
# kit's KIND copy of BRANCH (default: the default branch) made by
# scripts/worktree.sh (KIND: scratch, patched, unpatched, ...)
resolve_tree() {
	local kdir=$1 branch=$2 kind=$3 dir b
	if [ -n "$kdir" ]; then
		dir=$(tree_dir "$kdir") || exit 1
		if [ -n "$branch" ]; then
			require_branch "$branch"
			b=$(tree_branch "$dir") || exit 1
			[ "$b" = "$branch" ] ||
				die "KDIR=$kdir is Linux $(kernel_version "$dir") (branch $b) but BRANCH=$branch; drop BRANCH= or point KDIR= at a $branch tree"
		fi
		printf '%s\n' "$dir"
		return 0
	fi
	branch=${branch:-$DEFAULT_BRANCH}
	require_branch "$branch"
	"$KIT_DIR/scripts/worktree.sh" "$branch" "$kind"
}

# tree_branch DIR -> branch whose series the tree gets: its own, or for a
# version between the supported branches the nearest older one; dies for
# versions older than every supported branch
tree_branch() {
	local dir=$1 ver branch
	is_kernel_tree "$dir" ||
		die "KDIR=$dir is not a kernel source tree (no top-level Makefile with mm/khugepaged.c); point KDIR= at the top of a Linux tree"
	ver=$(kernel_version "$dir")
	branch=$(nearest_branch "$ver")
	[ -n "$branch" ] ||
		die "KDIR=$dir is Linux $ver, an unsupported branch; supported branches: $SUPPORTED_BRANCHES"
	printf '%s\n' "$branch"
}

# tree_is_branch DIR: the tree is of a supported branch itself
tree_is_branch() {
	local ver
	ver=$(kernel_version "$1")
	is_supported_branch "${ver%.*}"
}

# tree_name DIR -> short name of a tree for out/<name>/ ("linux" trees are
# named after their parent directory too: work/6.1/linux -> 6.1-linux);
# blanks become "_"
tree_name() {
	local dir base
	dir=$(cd "$1" && pwd)
	base=${dir##*/}
	case $base in
	linux|src|source|kernel) base=$(basename "$(dirname "$dir")")-$base ;;
	esac
	printf '%s\n' "${base//[[:space:]]/_}"
}

# lock_tree DIR [shared]: hold a lock on DIR until the script exits (flock on
# the directory itself, so nothing is written into the tree); waits, saying
# so, while another kit command holds it
lock_tree() {
	local dir=$1 mode=-x
	[ "${2:-}" != shared ] || mode=-s
	exec {KIT_LOCK_FD}<"$dir" || die "cannot open $dir to lock it"
	if ! flock -n "$mode" "$KIT_LOCK_FD"; then
		info "$dir is in use by another mm-backport-kit command; waiting for it"
		flock "$mode" "$KIT_LOCK_FD" || die "could not lock $dir"
	fi
}

# --- the kit's cache of pristine trees -----------------------------------
pristine_dir() {	# BRANCH -> path of the extracted, never-modified tree
	need_cache
	printf '%s/trees/%s/linux\n' "$CACHE_DIR" "$1"
}

# tree_manifest DIR -> one line per entry (path, type, mode; for files and
# links also size, mtime and link target): an in-place write through a hard
# link changes size or mtime.  Directory sizes and times are left out: they
# differ in every copy.
tree_manifest() {
	(cd "$1" && find . \( -type d -printf '%P\td\t%m\n' \) -o -printf '%P\t%y\t%m\t%s\t%T@\t%l\n') |
		LC_ALL=C sort
}

# seal_pristine BRANCH: make the pristine tree's files read-only and record
# its manifest (scratch copies hard-link these files)
seal_pristine() {
	local dir
	dir=$(pristine_dir "$1")
	find "$dir" -type f -perm /222 -exec chmod a-w {} + ||
		die "could not make $dir read-only"
	tree_manifest "$dir" | sha256sum | cut -d' ' -f1 > "$dir.manifest.tmp"
	mv "$dir.manifest.tmp" "$dir.manifest"
}

# pristine_ok BRANCH: the pristine tree still matches its manifest (an
# older cache without one is sealed now)
pristine_ok() {
	local dir
	dir=$(pristine_dir "$1")
	[ -f "$dir/Makefile" ] || return 1
	if [ ! -f "$dir.manifest" ]; then
		seal_pristine "$1"
		return 0
	fi
	[ "$(tree_manifest "$dir" | sha256sum | cut -d' ' -f1)" = "$(cat "$dir.manifest")" ]
}

# kit_touched_files -> every file any patch of the kit touches
kit_touched_files() {
	local p
	for p in "$DATA_DIR"/patches/*.patch "$DATA_DIR"/backports/*/*.patch; do
		[ -f "$p" ] && patch_files "$p"
	done | sort -u
}

# scratch_copy BRANCH DEST: fresh hard-link copy of the pristine tree (checked
# against its manifest first, re-extracted if it was changed).  Every file
# the kit may change is a private writable copy; every other file shares a
# read-only inode with the cache.
scratch_copy() {
	local src dest=$2 f
	src=$(pristine_dir "$1")
	[ -d "$src" ] || die "no cached tree for $1; run 'make tree BRANCH=$1' first"
	if ! pristine_ok "$1"; then
		warn "the cached $1 tree was changed in place; extracting it again"
		"$KIT_DIR/scripts/tree.sh" --refresh "$1" >/dev/null
	fi
	link_copy "$src" "$dest"
}

# link_copy SRC DEST: DEST becomes a hard-link copy of the tree SRC in which
# every file the kit may change is a private writable copy (same mtime);
# every other file shares its inode with SRC, so it must never be written
# in place (builds use O=)
link_copy() {
	local src=$1 dest=$2 f
	# the tree itself, not a symlink to it: cp -al of a symlink copies the
	# link, and DEST would then be the source tree
	src=$(cd "$src" && pwd -P)
	rm -rf "$dest" "$dest.tmp"
	mkdir -p "$(dirname "$dest")"
	# hard links need one file system; a tree elsewhere (KDIR= on another
	# mount) is copied in full
	cp -al "$src" "$dest.tmp" 2>/dev/null || { rm -rf "$dest.tmp"; cp -a "$src" "$dest.tmp"; } ||
		die "could not copy $src to $dest.tmp (free space in $(dirname "$dest")?)"
	while read -r f; do
		[ -f "$dest.tmp/$f" ] || continue
		cp "$src/$f" "$dest.tmp/$f.kit-copy" &&
			chmod u+w "$dest.tmp/$f.kit-copy" &&
			touch -r "$src/$f" "$dest.tmp/$f.kit-copy" &&
			mv -f "$dest.tmp/$f.kit-copy" "$dest.tmp/$f" ||
			die "could not make a private copy of $f in $dest.tmp"
	done < <(kit_touched_files)
	mv "$dest.tmp" "$dest"
}

# patched_dir BRANCH -> the kit's own patched copy of BRANCH (scripts/worktree.sh)
patched_dir() {
	need_cache
	printf '%s/work/%s/patched/linux\n' "$CACHE_DIR" "$1"
}

# variant_dir BRANCH VARIANT -> source tree of a build variant: patched,
# unpatched (the pristine tree) or without-<topic>
variant_dir() {
	need_cache
	case $2 in
	unpatched) pristine_dir "$1" ;;
	*) printf '%s/work/%s/%s/linux\n' "$CACHE_DIR" "$1" "$2" ;;
	esac
}

# build_dir BRANCH VARIANT [PROFILE] -> kernel build dir (O=) for that tree:
# build/ for the test kernels, build-<profile>/ for the others (bench, rt;
# see kernel_profile_args).  Each sits next to its source tree, so every
# variant sees its source as "../linux": with CCACHE_BASEDIR the compiler
# runs of the variants are the same and a variant's build reuses every
# object the series does not change.
build_dir() {
	local suffix=
	case ${3:-test} in test) ;; *) suffix=-$3 ;; esac
	printf '%s/build%s\n' "$(dirname "$(variant_dir "$1" "$2")")" "$suffix"
}

# kernel_profile_args PROFILE -> scripts/kbuild.sh options, one a line:
#   test   tinyconfig + base + debug.config (lockdep, DEBUG_VM): the boot tests
#   bench  production-like: base + bench.config, no debug.config (make bench)
#   rt     the test kernel with PREEMPT_RT (configs/rt.config; make boot RT=1)
kernel_profile_args() {
	case $1 in
	test) ;;
	bench) printf '%s\n' --no-debug --fragment "$KIT_DIR/configs/bench.config" ;;
	rt) printf '%s\n' --fragment "$KIT_DIR/configs/rt.config" ;;
	*) die "unknown kernel profile '$1'; use test, bench or rt" ;;
	esac
}

series_file() {		# BRANCH -> the branch's quilt series
	printf '%s/backports/%s/series\n' "$DATA_DIR" "$1"
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
		-e 's/^From ([0-9a-f]{40}) .*/\1/p' "$1" | sed -n 1p
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

# patch_header PATCHFILE -> everything up to and including the first '---'
patch_header() {
	sed -n '1,/^---$/p' "$1"
}

# patch_rejects PATCH FROMDIR SCRATCH DEST: PATCH tried at fuzz 0 on a copy
# (in SCRATCH, emptied) of the files it touches as FROMDIR has them; its
# .rej files go to DEST (emptied); prints a one-line summary of what failed
# ("N out of M hunks FAILED in FILE; ...").  Never fails.
patch_rejects() {
	local patchfile=$1 from=$2 tmp=$3 dest=$4 f
	rm -rf "$tmp" "$dest"
	mkdir -p "$tmp" "$dest"
	for f in $(patch_files "$patchfile"); do
		[ -e "$from/$f" ] || continue
		mkdir -p "$tmp/$(dirname "$f")"
		cp "$from/$f" "$tmp/$f"
	done
	patch -d "$tmp" -p1 -F0 --no-backup-if-mismatch < "$patchfile" > "$tmp/.kit-patch.log" 2>&1 || true
	while IFS= read -r f; do
		mkdir -p "$dest/$(dirname "$f")"
		cp "$tmp/$f" "$dest/$f"
	done < <(cd "$tmp" && find . -name '*.rej' -printf '%P\n')
	sed -n -e 's/^\([0-9]* out of [0-9]* hunks\{0,1\} FAILED\).* to file \(.*\)\.rej$/\1 in \2/p' \
		-e 's/^can.t find file to patch.*/a file is missing/p' "$tmp/.kit-patch.log" |
		paste -sd';' | sed 's/;/; /g'
}

# patch_header_end PATCHFILE -> line number of the '---' ending the header
# (or the last line when there is none)
patch_header_end() {
	awk '/^---$/ { print NR; f = 1; exit } END { if (!f) print NR }' "$1"
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
	local rel=${1#"$DATA_DIR"/} rule glob kind arg
	while IFS=$'\t' read -r rule glob kind arg _; do
		[ "$kind" = checkpatch-waive ] || continue
		# shellcheck disable=SC2254
		case $rel in $glob) printf ',%s' "$arg" ;; esac
	done < <(grep -v '^#' "$KIT_DIR/scripts/header-rules.table" | grep -v '^[[:space:]]*$' | tr -s '\t')
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

# --- the state scripts/apply.sh keeps in a patched tree ---------------------
# Read through these accessors only; the layout is apply.sh's business.
KIT_STATE=.mm-backport-kit

# applied_patches TREE -> the patches of a completed apply, in order
applied_patches() {
	local s=$1/$KIT_STATE
	[ -f "$s/manifest" ] && [ ! -f "$s/txn" ] || return 0
	series_patches "$s/series"
}

# applied_patch TREE NAME -> the applied copy of patch NAME
applied_patch() {
	printf '%s/%s/patches/%s\n' "$1" "$KIT_STATE" "$2"
}

# applied_files TREE -> the files the applied series changed
applied_files() {
	cut -f1 "$1/$KIT_STATE/manifest" 2>/dev/null || true
}

# original_of TREE FILE -> the file as it was before the apply, or nothing
# when the series created it
original_of() {
	local o=$1/$KIT_STATE/orig
	if [ -e "$o/$2" ] || [ -L "$o/$2" ]; then
		printf '%s\n' "$o/$2"
	fi
}

# applied_topics TREE -> "topic<TAB>status<TAB>detail" of the last apply
applied_topics() {
	cat "$1/$KIT_STATE/topics" 2>/dev/null || true
}
