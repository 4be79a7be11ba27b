# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# export.sh - the series a tree gets (make export), made by git itself: "git am" of the series onto a git commit of the tree, then "git
# format-patch --cover-letter --base": numbered "[PATCH <b> n/m]" subjects,
# index lines, a cover letter naming the upstream commits and the tree, and
# a base-commit: that is the tree the series applies to.
#   quilt   out/export/<name>/: series + the format-patch files (and the
#           cover letter, 0000-cover-letter.patch, not in the series)
#   mbox    out/export/<name>.mbox: the patches, one git-am-able file, and
#           out/export/<name>.cover: the cover letter
# The base commit: a KDIR that is a git tree: its HEAD.  Otherwise the
# kit's reproducible commit of the whole tree (fixed author, committer and
# date, so the same tree always gives the same id; cached per branch in
# CACHE/git/<branch>).
# BRANCH exports backports/<branch> onto the pristine tree; KDIR exports
# what that tree needs, made exactly as make apply makes it (apply.sh, per
# topic, re-targeted where needed) on a copy of the tree; nothing is
# exported when no topic can be applied.  A refused export leaves no file
# of an earlier export of the same name in out/export/.
kit_use tables trees fetch state request apply

EXP_BASE_REF=refs/tags/mmbk-base
EXP_WORK_BRANCH=mmbk-export

# exp_source_series WHAT: sets SRC_DIR (patches), SRC_SERIES (series file),
# NAME (of the export), TREE (the tree the series applies to), LABEL
# and ORIGIN (how the cover letter names that tree)
exp_source_series() {
	local what=$1 src
	if is_supported_branch "$what"; then
		SRC_DIR=$DATA_DIR/backports/$what
		SRC_SERIES=$(series_file "$what")
		NAME=$what
		TREE=$(pristine_dir "$what")
		# a branch's tree is fetched when the cache has none yet
		[ -f "$TREE/Makefile" ] || TREE=$(fetch_tree "$what")
		pristine_hold "$what"
		LABEL="Linux $(kernel_version "$TREE")"
		src=$(sed -n 1p "$(dirname "$TREE")/source" 2>/dev/null || true)
		case $(branch_field "$what" source) in
		deb)	src=${src%.deb}
			ORIGIN="Debian's ${src%%_*} ${src#*_}"
			ORIGIN=${ORIGIN%_*} ;;
		*)	ORIGIN="the release tarball $src ($(branch_field "$what" pin))" ;;
		esac
	elif [ -d "$what" ]; then
		TREE=$what
		# read only: an apply or unapply of the tree waits, and this waits for it
		lock_tree "$TREE" shared
		NAME=$(tree_name "$TREE")
		# out/<tree name>/ as make apply writes it
		mkdir -p "$OUT_DIR"
		lock_tree "$OUT_DIR/$NAME.lock"
		exp_plan_tree_copy
		SRC_DIR=$OUT_DIR/$NAME
		SRC_SERIES=$SRC_DIR/series
		LABEL="Linux $(kernel_version "$TREE")"
		ORIGIN=$TREE
	else
		die "'$what' is neither a supported branch ($SUPPORTED_BRANCHES) nor a directory; set BRANCH= or KDIR="
	fi
}

# exp_plan_tree_copy: what the tree needs, made exactly as make apply makes it
# (per topic, re-targeted where needed) on a scratch copy of the tree, whose
# quilt directory then is out/<tree-name>/; the tree itself is only read
exp_plan_tree_copy() {
	local tmp copy
	need_cache
	mkdir -p "$CACHE_DIR/work"
	tmp=$(mktemp -d "$CACHE_DIR/work/export-tree.XXXXXX")
	COPY_DIR=$tmp
	copy=$tmp/$NAME
	progress "export: applying the series to a copy of $TREE"
	if [ -n "$(applied_patches "$TREE")" ]; then
		# an applied tree: export what was applied, as it was applied
		rm -rf "${OUT_DIR:?}/$NAME"
		mkdir -p "$OUT_DIR/$NAME"
		applied_patches "$TREE" > "$OUT_DIR/$NAME/series"
		while read -r f; do cp "$(applied_patch "$TREE" "$f")" "$OUT_DIR/$NAME/$f"; done < "$OUT_DIR/$NAME/series"
		# the base is the tree without the series
		original_copy "$TREE" "$copy"
		TREE=$copy
		return 0
	fi
	link_copy "$TREE" "$copy" clean
	kit_try request_call TREE="$copy" BRANCH="$EXP_BRANCH" FORCE=1 -- apply_run >&2
	case $KIT_RC in
	0) ;;
	"$EXIT_PARTIAL") warn "$TREE: some topics cannot be applied (see above); exporting the others" ;;
	"$EXIT_NOTHING") die "$TREE needs nothing: every topic is already upstream or not applicable; nothing exported" ;;
	*) die "$TREE: no topic of the series can be applied or re-targeted (see above); nothing exported" ;;
	esac
}

exp_git_in() {	# exp_git_in REPO ARGS...: git in the export repository
	local repo=$1
	shift
	git -C "$repo" "$@"
}

# exp_base_commit REPO -> the commit of TREE the series goes onto, as
# EXP_BASE_REF in REPO (made or updated here)
exp_base_commit() {
	local repo=$1 tree commit
	if git -C "$TREE" rev-parse --verify -q HEAD >/dev/null 2>&1 &&
	   [ "$(git -C "$TREE" rev-parse --show-toplevel)" = "$TREE" ]; then
		[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
			warn "$TREE has uncommitted changes; the export is based on its HEAD"
		rm -rf "$repo"
		git clone -q --shared --no-checkout "$TREE" "$repo" || die "git clone --shared of $TREE failed"
		exp_git_in "$repo" tag -f mmbk-base "$(git -C "$TREE" rev-parse HEAD)" >/dev/null
	else
		[ -d "$repo/.git" ] || git init -q "$repo" || die "git init $repo failed"
		progress "export: git commit of $TREE (cached in $repo)"
		# the whole tree as it is; -f: a pristine tree ignores nothing
		git --git-dir="$repo/.git" --work-tree="$TREE" add -A -f -- . \
			':(exclude).mm-backport-kit' ':(exclude).pc' ||
			die "git add of $TREE failed"
		tree=$(exp_git_in "$repo" write-tree)
		commit=$(printf '%s\n' "$LABEL" | GIT_AUTHOR_NAME=$GIT_COMMITTER_NAME \
			GIT_AUTHOR_EMAIL=$GIT_COMMITTER_EMAIL GIT_AUTHOR_DATE=$GIT_COMMITTER_DATE \
			git -C "$repo" commit-tree "$tree") || die "git commit-tree in $repo failed"
		exp_git_in "$repo" update-ref "$EXP_BASE_REF" "$commit"
	fi
	exp_git_in "$repo" rev-parse "$EXP_BASE_REF^{commit}"
}

# exp_description -> the cover letter: subject line, blank line, body
exp_description() {
	local name id ml not_carried line
	printf 'mm: backports for %s (mm-backport-kit)\n\n' "$LABEL"
	printf 'The mm-backport-kit series for %s (%s), applied with git am onto the base commit named below and exported with git format-patch.\n' \
		"$LABEL" "$ORIGIN" | fold -s -w 72 | sed 's/ $//'
	printf '\nCarried, in upstream order:\n'
	for name in $(series_patches "$SRC_SERIES"); do
		ml=$(sed -n 's/^Patch-mainline: //p' "$DATA_DIR/patches/$name" 2>/dev/null | sed -n 1p)
		case $ml in
		"Not yet"*) id="Patch-mainline: $ml" ;;
		*) id="upstream commit $(patch_upstream_id "$SRC_DIR/$name" | cut -c1-12) ($ml)" ;;
		esac
		printf '  %s: %s\n' "${name%%-*}" "$(patch_subject "$SRC_DIR/$name")"
		printf '%s\n' "$id" | fold -s -w 70 | sed 's/^/    /'
	done
	not_carried=$(sed -n 's/^# \(n\/a: \)\{0,1\}\([0-9]\{4\}\)-[^: ]*\.patch: */\2: \1/p' "$SRC_SERIES")
	if [ -n "$not_carried" ]; then
		printf '\nNot carried (%s):\n' "${SRC_SERIES#"$DATA_DIR"/}"
		while IFS= read -r line; do
			printf '%s\n' "$line" | fold -s -w 70 | sed -e '1s/^/  /' -e '2,$s/^/    /'
		done <<< "$not_carried"
	fi
	if [ -z "$(git -C "$TREE" rev-parse --show-toplevel 2>/dev/null)" ]; then
		printf '\nThe base commit is the kit'"'"'s git commit of that whole tree, made\n'
		printf 'reproducibly (mm-backport-kit make export: fixed author, committer and date).\n'
	fi
}

# exp_make_patches REPO OUTDIR: the series onto the base, then format-patch
exp_make_patches() {
	local repo=$1 dir=$2 base n name files=()
	base=$(exp_base_commit "$repo")
	local list
	mapfile -t files < <(series_patches "$SRC_SERIES")
	list=$(patch_files "${files[@]/#/$SRC_DIR/}")	# a missing patch fails here
	mapfile -t files <<< "$list"
	exp_git_in "$repo" sparse-checkout set --no-cone "${files[@]/#//}" ||
		die "git sparse-checkout in $repo failed"
	exp_git_in "$repo" checkout -q -f -B "$EXP_WORK_BRANCH" "$base" || die "git checkout of the base in $repo failed"
	for name in $(series_patches "$SRC_SERIES"); do
		exp_git_in "$repo" am -q "$SRC_DIR/$name" >&2 || {
			exp_git_in "$repo" am --abort >/dev/null 2>&1 || true
			die "git am of ${SRC_DIR#"$DATA_DIR"/}/$name onto $LABEL failed (see above)"
		}
	done
	exp_git_in "$repo" config "branch.$EXP_WORK_BRANCH.description" "$(exp_description)"
	n=$(series_patches "$SRC_SERIES" | wc -l)
	rm -rf "$dir"
	exp_git_in "$repo" format-patch -q --cover-letter --cover-from-description=subject \
		--base="$base" --subject-prefix="PATCH $NAME" --numbered -o "$dir" "$base..HEAD" ||
		die "git format-patch in $repo failed"
	[ "$(find "$dir" -name '[0-9]*.patch' | wc -l)" -eq $((n + 1)) ] ||
		die "git format-patch gave $(find "$dir" -name '[0-9]*.patch' | wc -l) files for $n patches and a cover letter"
}

# exp_name_of WHAT -> the export's name (a branch, or the tree's name)
exp_name_of() {
	if is_supported_branch "$1"; then printf '%s\n' "$1"; else tree_name "$1"; fi
}

# exp_clear NAME: no file of an earlier export of NAME stays in out/export/
exp_clear() {
	rm -rf "${OUT_DIR:?}/export/$1" "$OUT_DIR/export/$1.mbox" "$OUT_DIR/export/$1.cover" "$OUT_DIR/export/.$1.tmp"
}

# export_run WHAT: WHAT is a branch (its series onto its pristine tree)
# or a tree's directory (what it needs; the request's REQ_BRANCH is the
# branch its series comes from), in the request's REQ_FORMAT (quilt or
# mbox: bin/export checked it); prints the export's path
export_run() (
	local what=$1 format=$REQ_FORMAT repo tmp f
	EXP_BRANCH=$REQ_BRANCH
	# every commit the export makes is reproducible: the same input, the same ids
	export GIT_COMMITTER_NAME="mm-backport-kit" GIT_COMMITTER_EMAIL="kit@localhost"
	export GIT_COMMITTER_DATE="2000-01-01T00:00:00+0000" GIT_CONFIG_NOSYSTEM=1
	export GIT_CONFIG_GLOBAL=/dev/null
	command -v git >/dev/null || die "git is not installed; apt-get install git"
	trap 'rm -rf "${COPY_DIR:-}"' EXIT
	# out/export/<name>* are this export's: another export of it waits
	mkdir -p "$OUT_DIR/export"
	lock_tree "$OUT_DIR/export/$(exp_name_of "$what").lock"
	exp_clear "$(exp_name_of "$what")"
	exp_source_series "$what"
	[ -n "$(series_patches "$SRC_SERIES")" ] || die "the $NAME series is empty; nothing to export"
	# a branch's repository is kept (CACHE/git/<branch>); a KDIR's is made
	# for this export only
	repo=$CACHE_DIR/git/$NAME
	if [ "$NAME" != "$what" ]; then
		mkdir -p "$CACHE_DIR/work"
		repo=$(mktemp -d "$CACHE_DIR/work/export.XXXXXX")
		TMP_REPO=$repo
		trap 'rm -rf "$TMP_REPO" "$TMP_REPO.lock" "${COPY_DIR:-}"' EXIT
	fi
	mkdir -p "$CACHE_DIR/git" "$OUT_DIR/export"
	lock_tree "$repo.lock"
	tmp=$OUT_DIR/export/.$NAME.tmp
	exp_make_patches "$repo" "$tmp"
	case $format in
	quilt)
		for f in "$tmp"/[0-9]*.patch; do
			[ "${f##*/}" = 0000-cover-letter.patch ] || printf '%s\n' "${f##*/}"
		done > "$tmp/series"
		rm -rf "${OUT_DIR:?}/export/$NAME"
		mv "$tmp" "$OUT_DIR/export/$NAME"
		printf '%s\n' "$OUT_DIR/export/$NAME"
		;;
	mbox)
		mv "$tmp/0000-cover-letter.patch" "$OUT_DIR/export/$NAME.cover"
		cat "$tmp"/[0-9]*.patch > "$OUT_DIR/export/$NAME.mbox"
		rm -rf "$tmp"
		printf '%s\n' "$OUT_DIR/export/$NAME.mbox"
		;;
	esac
	info "$NAME: $(series_patches "$SRC_SERIES" | wc -l) patches exported ($format), base $(exp_git_in "$repo" rev-parse --short=12 "$EXP_BASE_REF")"
)
