# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# trees.sh - kernel trees: what a tree is, the kit's one lock, where the
# cache keeps a branch's pristine tree (fetch.sh gets, seals, verifies and
# copies it), hard-link copies and the kit's build directories.  Which
# tree a command works on is resolved once, by the command (cli.sh).
kit_use tables

# --- what a tree is ------------------------------------------------------
# kernel_version DIR -> "VERSION.PATCHLEVEL.SUBLEVEL" from the top-level Makefile
kernel_version() {
	local line v='' p='' s=''
	local re='^(VERSION|PATCHLEVEL|SUBLEVEL)[[:space:]]*=[[:space:]]*([^[:space:]]*)'
	# the three assignments open every kernel's top-level Makefile ("=" with
	# or without blanks); read by the shell (make apply asks it often)
	while IFS= read -r line; do
		[[ $line =~ $re ]] || continue
		case ${BASH_REMATCH[1]} in
		VERSION) v=${BASH_REMATCH[2]} ;;
		PATCHLEVEL) p=${BASH_REMATCH[2]} ;;
		SUBLEVEL) s=${BASH_REMATCH[2]} ;;
		esac
		if [ -n "$v" ] && [ -n "$p" ] && [ -n "$s" ]; then
			printf '%s.%s.%s\n' "$v" "$p" "$s"
			return 0
		fi
	done < "$1/Makefile"
}

# is_kernel_tree DIR: a top-level kernel Makefile plus the files the kit touches
is_kernel_tree() {
	[ -f "$1/Makefile" ] && [ -f "$1/mm/khugepaged.c" ] && [ -f "$1/mm/ksm.c" ] &&
		[ -n "$(kernel_version "$1")" ]
}

# not_a_tree DIR ARG: the one message for a directory that is no kernel tree
not_a_tree() {
	usage_error "KDIR=$2 is not a kernel source tree (no top-level Makefile with mm/khugepaged.c); point KDIR= at the top of a Linux tree"
}

# tree_dir ARG [FROM]: TREE_DIR is the absolute path of the kernel tree
# ARG names (KDIR=; a relative ARG is taken from FROM, the caller's
# directory), exactly (a name ending in a newline keeps it: never read
# back through a command substitution), or a one-line error that says what
# ARG is instead (64)
tree_dir() {
	local arg=$1 from=${2:-$PWD} path
	[ -n "$arg" ] || usage_error "KDIR= is empty; set KDIR= to a kernel source tree (or leave it out and set BRANCH= to use a cached one)"
	case $arg in /*) path=$arg ;; *) path=$from/$arg ;; esac
	if [ ! -e "$path" ]; then
		usage_error "KDIR=$arg does not exist; point KDIR= at a kernel source tree"
	elif [ ! -d "$path" ]; then
		usage_error "KDIR=$arg is a file, not a directory; point KDIR= at the top directory of a kernel source tree"
	fi
	# "." after pwd's newline keeps a trailing newline of the name
	TREE_DIR=$(cd "$path" 2>/dev/null && pwd && echo .) ||
		usage_error "KDIR=$arg cannot be entered (permissions); make it readable or point KDIR= elsewhere"
	TREE_DIR=${TREE_DIR%$'\n.'}
}

# file_digests NAME PATH...: the associative array NAME gets the sha256 of
# every PATH sha256sum can read (one sha256sum -z for them all: records
# NUL-terminated, the names unescaped, so any path reads back as given)
# shellcheck disable=SC2034  # file_digests_out: a nameref, the caller's array
file_digests() {
	local -n file_digests_out=$1
	local rec
	shift
	[ $# -gt 0 ] || return 0
	while IFS= read -r -d '' rec; do
		file_digests_out[${rec#*  }]=${rec%%  *}
	done < <(sha256sum -z -- "$@")
}

# differing_files A B FILE... -> the FILEs (in the order given) whose
# content differs between directories A and B, or that one of them lacks;
# one sha256sum for them all (file_digests; a file it cannot read has no
# digest and differs)
differing_files() {
	local a=$1 b=$2 f both=()
	local -A digest=()
	shift 2
	for f in "$@"; do
		[ ! -f "$a/$f" ] || [ ! -f "$b/$f" ] || both+=("$a/$f" "$b/$f")
	done
	file_digests digest ${both[@]+"${both[@]}"}
	for f in "$@"; do
		if [ -z "${digest[$a/$f]:-}" ] || [ "${digest[$a/$f]}" != "${digest[$b/$f]:-}" ]; then
			printf '%s\n' "$f"
		fi
	done
}

# The committed sums of a branch's touched files (backports/<branch>/
# touched.sums, make regen): "# version X.Y.Z" and sha256sum lines.
# sums_version SUMS -> the version they are of (nothing without the file)
sums_version() {
	local line
	[ -f "$1" ] || return 0
	while IFS= read -r line; do
		case $line in
		'# version '*) printf '%s\n' "${line#\# version }"; return 0 ;;
		'#'*) ;;
		*) return 0 ;;
		esac
	done < "$1"
}

# sums_differing SUMS TREE [FILE...] -> the files of SUMS (only FILE... when
# given) whose content in TREE is not the one SUMS records, or that TREE
# lacks, in SUMS's order; one sha256sum for them all (file_digests).
# Status 1 without SUMS.
sums_differing() {
	local sums=$1 tree=$2 line f want=() paths=()
	local -A digest=() only=()
	[ -f "$sums" ] || return 1
	shift 2
	for f in "$@"; do only[$f]=1; done
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in '#'*|'') continue ;; esac
		# "<64 hex>  <path>" (or " *<path>", sha256sum's binary mark)
		f=${line:66}
		[ $# -eq 0 ] || [ -n "${only[$f]:-}" ] || continue
		want+=("${line:0:64}" "$f")
		[ ! -f "$tree/$f" ] || paths+=("$tree/$f")
	done < "$sums"
	file_digests digest ${paths[@]+"${paths[@]}"}
	while [ ${#want[@]} -gt 0 ]; do
		[ "${digest[$tree/${want[1]}]:-}" = "${want[0]}" ] || printf '%s\n' "${want[1]}"
		want=("${want[@]:2}")
	done
}

# tree_branch DIR -> branch whose series the tree gets: its own, or for a
# version between the supported branches the nearest older one; a
# one-line error for versions older than every supported branch
tree_branch() {
	local dir=$1 ver branch
	is_kernel_tree "$dir" || not_a_tree "$dir" "$dir"
	ver=$(kernel_version "$dir")
	[[ $ver =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
		usage_error "KDIR=$dir is no kernel version its Makefile names: VERSION = ${ver%%.*}, PATCHLEVEL = $(cut -d. -f2 <<< "$ver"), SUBLEVEL = ${ver##*.} are not all numbers; point KDIR= at a Linux tree"
	branch=$(nearest_branch "$ver")
	[ -n "$branch" ] ||
		usage_error "KDIR=$dir is Linux $ver, an unsupported branch; supported branches: $SUPPORTED_BRANCHES"
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

# lock_tree PATH [shared]: the kit's one lock (tests/unit/t-concurrency.sh).
# Held until the process exits; shared for what only reads what PATH
# guards, exclusive (the default) for whoever changes, rebuilds or removes
# it.  PATH is a directory (flocked itself, so nothing is written into a
# user's tree) or a lock file (made when missing).  A command that waits
# says so in one line naming the holder.  Taken again in the same process
# or a subshell (KIT_LOCKS: PATH -> fd), it changes the mode of the held
# lock rather than waiting for itself.  Who locks what: README.md
# "Commands side by side".
declare -gA KIT_LOCKS=()
lock_tree() {
	local path=$1 mode=-x fd
	[ "${2:-}" != shared ] || mode=-s
	fd=${KIT_LOCKS[$path]:-}
	if [ -z "$fd" ]; then
		[ -e "$path" ] || : >> "$path" || die "cannot make the lock file $path"
		exec {fd}<"$path" || die "cannot open $path to lock it"
		KIT_LOCKS[$path]=$fd
	fi
	if ! flock -n "$mode" "$fd"; then
		info "$path is in use by $(lock_holders "$path"); waiting for it"
		flock "$mode" "$fd" || die "could not lock $path"
	fi
}

# lock_holders PATH -> the other commands that have PATH open (holding or
# awaiting its lock): "pid N (command line)", their subshells left out, or
# "another mm-backport-kit command"
lock_holders() {
	local fd pid pids=' ' cmd who=''
	while read -r fd; do
		pid=${fd#/proc/}
		pids="$pids${pid%%/*} "
	done < <(find /proc/[0-9]*/fd -maxdepth 1 -lname "$(readlink -f "$1")" 2>/dev/null)
	for pid in $pids; do
		! lock_is_ours "$pid" || continue
		# a subshell of a holder holds the same lock: name the holder
		[[ $pids != *" $(lock_parent "$pid") "* ]] || continue
		cmd=$( { tr '\0' ' ' < "/proc/$pid/cmdline"; } 2>/dev/null | cut -c1-100) || continue
		who="$who${who:+, }pid $pid (${cmd% })"
	done
	printf '%s\n' "${who:-another mm-backport-kit command}"
}

lock_parent() {	# lock_parent PID -> its parent's PID
	awk '$1 == "PPid:" { print $2 }' "/proc/$1/status" 2>/dev/null
}

# lock_is_ours PID: PID is this command or one of its subshells
lock_is_ours() {
	local p=$1
	while [ -n "$p" ] && [ "$p" -gt 1 ]; do
		[ "$p" != "$$" ] || return 0
		p=$(lock_parent "$p")
	done
	return 1
}

# --- the kit's cache of pristine trees -----------------------------------
pristine_dir() {	# BRANCH -> path of the extracted, never-modified tree
	need_cache
	printf '%s/trees/%s/linux\n' "$CACHE_DIR" "$1"
}

# link_copy SRC DEST [clean]: DEST becomes a hard-link copy of the tree SRC
# in which every file the kit may change is a private writable copy (same
# mtime); every other file shares its inode with SRC, so it is SRC's
# current content and must never be written in place (builds use O=).
# "clean": without the kit's state, VCS data and an in-tree configuration
# (a build copy of a user's tree).  The one way the kit copies a tree.
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
	if [ "${3:-}" = clean ]; then
		rm -rf "$dest.tmp/.mm-backport-kit" "$dest.tmp"/.mm-backport-kit.gone-* "$dest.tmp/.git" \
			"$dest.tmp/.config" "$dest.tmp/include/config" "$dest.tmp/include/generated" \
			"$dest.tmp"/arch/*/include/generated
	fi
	while read -r f; do
		[ -f "$dest.tmp/$f" ] || continue
		{ cp "$src/$f" "$dest.tmp/$f.kit-copy" &&
			chmod u+w "$dest.tmp/$f.kit-copy" &&
			touch -r "$src/$f" "$dest.tmp/$f.kit-copy" &&
			mv -f "$dest.tmp/$f.kit-copy" "$dest.tmp/$f"; } ||
			die "could not make a private copy of $f in $dest.tmp"
	done < <(kit_touched_files)
	mv "$dest.tmp" "$dest"
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
