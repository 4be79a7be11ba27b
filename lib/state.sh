# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# state.sh - the kit's state in a patched tree, TREE/.mm-backport-kit/: the
# only code that reads or writes it (apply.sh changes trees through these
# functions; check, export and worktree read it through the accessors).
#
#   orig/      the original of every file the series changed (symlinks and
#              modes kept), taken before the file first changes; .absent
#              lists files the series created
#   pc/ series patches/   quilt's state, the applied series and its patches
#   manifest   what each changed file looked like right after the apply:
#              unapply refuses to run over later edits (FORCE=1 discards them)
#   topics report profile   per topic / per patch results (the apply's
#              result records, tables "topic status detail" and "patch
#              status"), the profile (default or kabi)
#   txn        present while an apply or unapply runs; the next command
#              finishes an interrupted unapply and rolls back an interrupted
#              apply, both by renaming orig/ back (no free space needed)
#   journal/   during one topic: its files, quilt state and series as they
#              were before it, to roll that topic alone back
#   id         while txn is there: who wrote the state, for which tree, in
#              which format (NUL-separated); a journal is trusted only
#              with this kit's id for this tree (state_foreign)
# Recovery checks before it restores (state_unexpected): every file it
# would overwrite or delete must hold what the interrupted transaction can
# have left -- its original, the topic journal's copy, the applied state,
# or a state the journalled patches take the original through -- or the
# recovery is refused (an edit made after a kill is never thrown away).
# The state goes away by one rename (to .mm-backport-kit.gone-<pid>, then
# removed): a kill at any point leaves either the whole state or a
# tombstone the next command removes.  Every step is a rename or a file
# published by rename, so a SIGKILL anywhere is recovered by the next
# command (tests/unit/t-killpoints.sh kills at every state_point).
kit_use tables trees

STATE_NAME=.mm-backport-kit
# the format of the state this kit writes (the first field of STATE/id)
STATE_FORMAT='mm-backport-kit state 2'

# state_init TREE: STATE is TREE's state directory; STATE_SERIES,
# STATE_RECORDS and STATE_PATCHES name the files others may read (the
# applied series, the apply's result records, the applied patches); only
# the functions below write there
state_init() {
	STATE=$1/$STATE_NAME
	STATE_TREE=$1
	# shellcheck disable=SC2034  # read by apply.sh
	STATE_SERIES=$STATE/series
	# shellcheck disable=SC2034
	STATE_RECORDS=$STATE/records
	# shellcheck disable=SC2034
	STATE_PATCHES=$STATE/patches
}

# state_in_txn: an apply or unapply is in progress (or was killed in it)
state_in_txn() {
	[ -f "$STATE/txn" ]
}

# state_save_records FILE: the apply's records become FILE's (published
# by rename)
state_save_records() {
	cp "$1" "$STATE/records.tmp" && mv "$STATE/records.tmp" "$STATE/records"
}

# state_point NAME: a step boundary of apply or unapply.  MMBK_FAULT is a
# test hook (tests/unit/t-killpoints.sh): "list:FILE" appends every point
# reached to FILE, NAME or NAME#N SIGKILLs the command (every shell from
# this one up to the command's own process) at the (Nth) point NAME, and
# fail:NAME or fail:NAME#N makes that point fail as a command would;
# pause:NAME:DIR holds the command at NAME (creates DIR/NAME.reached, goes
# on once DIR/NAME.go exists), so that a test runs another command beside
# it at that point (tests/unit/t-concurrency.sh).  check, boot and
# re-targeting have points of their own for that.
declare -gA STATE_POINTS=()
state_point() {
	local n
	[ -n "${MMBK_FAULT:-}" ] || return 0
	n=$(( ${STATE_POINTS[$1]:-0} + 1 ))
	STATE_POINTS[$1]=$n
	case $MMBK_FAULT in
	list:*) printf '%s#%d\n' "$1" "$n" >> "${MMBK_FAULT#list:}" ;;
	"$1"|"$1#$n") state_kill_command ;;
	"fail:$1"|"fail:$1#$n") echo "state_point: failing at $1#$n (MMBK_FAULT)" >&2; return 1 ;;
	"pause:$1:"*|"pause:$1#$n:"*) state_pause "${MMBK_FAULT#pause:*:}" "$1" ;;
	esac
}

# state_pause DIR NAME: wait at point NAME until DIR/NAME.go exists (at
# most 10 minutes)
state_pause() {
	local i=0
	: > "$1/$2.reached"
	until [ -e "$1/$2.go" ]; do
		[ $i -lt 6000 ] || die "state_point: $1/$2.go did not appear in 10 minutes (MMBK_FAULT)"
		sleep 0.1
		i=$((i + 1))
	done
}

# state_kill_command: SIGKILL each parent of this shell up to $$, then
# this shell (never init or a subreaper above $$: the walk stops at $$ or
# at PID 1)
state_kill_command() {
	local p=$BASHPID pids=()
	while [ "$p" != "$$" ]; do
		p=$(awk '{ sub(/.*\) /, ""); print $2 }' "/proc/$p/stat")
		[ "$p" -gt 1 ] || break
		pids=("$p" ${pids[@]+"${pids[@]}"})
	done
	kill -KILL ${pids[@]+"${pids[@]}"} "$BASHPID"
}

# --- accessors -------------------------------------------------------------
# applied_patches TREE -> the patches of a completed apply, in order
applied_patches() {
	local s=$1/$STATE_NAME
	[ -f "$s/manifest" ] && [ ! -f "$s/txn" ] || return 0
	series_patches "$s/series"
}

# applied_patch TREE NAME -> the applied copy of patch NAME
applied_patch() {
	printf '%s/%s/patches/%s\n' "$1" "$STATE_NAME" "$2"
}

# applied_files TREE -> the files the applied series changed
applied_files() {
	cut -f1 "$1/$STATE_NAME/manifest" 2>/dev/null || true
}

# original_of TREE FILE -> the file as it was before the apply, or nothing
# when the series created it
original_of() {
	local o=$1/$STATE_NAME/orig
	if [ -e "$o/$2" ] || [ -L "$o/$2" ]; then
		printf '%s\n' "$o/$2"
	fi
}

# state_copy_to TREE COPY: COPY (a copy of TREE) gets a private copy of
# TREE's kit state, so that a command on COPY never writes TREE's
state_copy_to() {
	rm -rf "${2:?}/$STATE_NAME"
	[ ! -d "$1/$STATE_NAME" ] || cp -a "$1/$STATE_NAME" "$2/$STATE_NAME"
}

# applied_profile TREE -> default or kabi
applied_profile() {
	cat "$1/$STATE_NAME/profile" 2>/dev/null || echo default
}

# state_is_applied: a completed apply
state_is_applied() {
	[ -f "$STATE/manifest" ] && [ ! -f "$STATE/txn" ]
}

# state_txn -> "apply" or "unapply" while one is in progress (or was killed)
state_txn() {
	[ -f "$STATE/txn" ] || return 0
	cut -d' ' -f1 "$STATE/txn"
}

# state_leftover: a state without txn mark and manifest whose series is no
# longer in the tree (no applied patch reverse-applies): what is left of a
# finished unapply whose removal was cut short by an older kit (this one
# removes its state by one rename)
state_leftover() {
	local p
	[ -d "$STATE" ] && [ ! -f "$STATE/txn" ] && [ ! -f "$STATE/manifest" ] || return 1
	[ -s "$STATE/pc/applied-patches" ] || return 0
	while read -r p; do
		[ -f "$STATE/patches/$p" ] || continue
		patch -R -s -p1 -F0 --dry-run -d "$STATE_TREE" -i "$STATE/patches/$p" >/dev/null 2>&1 && return 1
	done < "$STATE/pc/applied-patches"
	return 0
}

# state_problem -> why the state cannot be used as it is ("" if it can):
# a series applied by an older kit (quilt state, no manifest), still in the tree
state_problem() {
	[ -d "$STATE" ] || return 0
	if [ ! -f "$STATE/txn" ] && [ ! -f "$STATE/manifest" ] && [ -s "$STATE/pc/applied-patches" ] && ! state_leftover; then
		printf 'patched by an older mm-backport-kit; take it out with: cd %s && QUILT_PC=%s/pc QUILT_PATCHES=%s/patches QUILT_SERIES=%s/series quilt pop -a && rm -rf %s' \
			"$STATE_TREE" "$STATE_NAME" "$STATE_NAME" "$STATE_NAME" "$STATE_NAME"
	fi
}

# state_probe -> the file state_owner_problem writes to probe the state
# (removed on every exit of a command, also after a signal)
state_probe() {
	printf '%s\n' "$STATE/.probe"
}

# state_owner_problem -> why this user cannot change the state ("" if it can)
state_owner_problem() {
	local uid owner
	[ -d "$STATE" ] || return 0
	read -r uid owner <<< "$(stat -c '%u %U' "$STATE")"
	if [ "$uid" != "$EUID" ] && [ "$EUID" != 0 ]; then
		printf '%s is owned by %s; run the command as %s' "$STATE" "$owner" "$owner"
		[ "$uid" = 0 ] || printf ' (or as root)'
	elif [ ! -w "$STATE" ] || ! touch "$STATE/.probe" 2>/dev/null; then
		printf '%s is not writable (read-only or immutable); make it writable (chmod -R u+w, chattr -i) and rerun' "$STATE"
	fi
	rm -f "$STATE/.probe" 2>/dev/null || true
}

# --- files -----------------------------------------------------------------
# file_sig PATH -> what a tree entry is: "file <sha256>", "link <target>" or "absent"
file_sig() {
	if [ -L "$1" ]; then
		printf 'link %s\n' "$(readlink "$1")"
	elif [ -f "$1" ]; then
		local sum
		sum=$(sha256sum < "$1")
		printf 'file %s\n' "${sum%% *}"
	else
		printf 'absent\n'
	fi
}

# state_write NAME: stdin becomes STATE/NAME, published by rename
state_write() {
	local data=''
	IFS= read -r -d '' data || true		# all of stdin (read stops at its end)
	printf '%s' "$data" > "$STATE/$1.tmp" && mv "$STATE/$1.tmp" "$STATE/$1"
}

# --- the transaction ------------------------------------------------------
# state_begin apply|unapply: the txn mark (published by rename); creates
# the state on an apply
state_begin() {
	if [ "$1" = apply ]; then
		mkdir -p "$STATE/orig" || return 1
		[ -f "$STATE/orig/.absent" ] || : > "$STATE/orig/.absent" || return 1
	fi
	# a half-written mark (a full disk) does not stay
	if ! { printf '%s\0%s\0%s\0' "$STATE_FORMAT" "$EUID" "$STATE_TREE" > "$STATE/id.tmp" &&
		mv "$STATE/id.tmp" "$STATE/id" &&
		TZ=UTC printf '%s %s %(%FT%TZ)T\n' "$1" "$$" -1 | state_write txn; }; then
		rm -f "$STATE/id.tmp" "$STATE/txn.tmp"
		return 1
	fi
	state_point "begin-$1"
}

# state_commit: an apply is complete (the txn mark goes last, and with it
# the id, which only a journal needs: a committed state holds no path)
state_commit() {
	rm -rf "$STATE/journal"
	state_point commit
	rm -f "$STATE/txn" "$STATE/id"
}

# save_originals FILE...: make sure orig/ holds FILE as it is before its
# first change (a copy published by rename, so a kill leaves no half file)
save_originals() {
	local f o=$STATE/orig dirs=() absent=$'\n'
	[ ! -f "$o/.absent" ] || absent+=$(<"$o/.absent")$'\n'
	for f in "$@"; do
		dirs+=("$o/$(file_dir "$f")")
	done
	[ $# -eq 0 ] || mkdir -p "${dirs[@]}" || return 1
	for f in "$@"; do
		[ -e "$o/$f" ] || [ -L "$o/$f" ] || [[ $absent == *$'\n'"$f"$'\n'* ]] && continue
		if [ -e "$STATE_TREE/$f" ] || [ -L "$STATE_TREE/$f" ]; then
			cp -a "$STATE_TREE/$f" "$o/$f.kit-tmp" &&
				mv "$o/$f.kit-tmp" "$o/$f" || return 1
		else
			printf '%s\n' "$f" >> "$o/.absent" || return 1
			absent+=$f$'\n'
		fi
		state_point save-original || return 1
	done
}

# stray_files -> leftovers of a killed patch/quilt run: patch's temporary
# outputs next to a touched file, quilt's temporary directories at the top,
# our own .kit-tmp/.kit-restore files; only those newer than the txn mark
stray_files() {
	local f saved='' name
	local -A stray_dirs=() stray_names=()
	[ -f "$STATE/txn" ] || return 0
	if [ -d "$STATE/orig" ]; then
		saved=$(cd "$STATE/orig" && find . ! -type d ! -name .absent -printf '%P\n')
		[ ! -f "$STATE/orig/.absent" ] || saved+=$'\n'$(<"$STATE/orig/.absent")
	fi
	for f in $saved; do
		f=${f%.kit-tmp}
		stray_dirs[$STATE_TREE/$(file_dir "$f")]=1
		stray_names[${f##*/}]=1
	done
	# one find for them all: the patterns of every saved file's name in
	# the directories of all of them
	if [ ${#stray_names[@]} -gt 0 ]; then
		local expr=()
		for name in "${!stray_names[@]}"; do
			expr+=(-o -name "$name.o??????" -o -name "$name.kit-restore" -o -name "$name.kit-tmp")
		done
		find "${!stray_dirs[@]}" -maxdepth 1 -newer "$STATE/txn" \( "${expr[@]:1}" \) -print 2>/dev/null || true
	fi
	find "$STATE_TREE" -maxdepth 1 -type d -name 'quilt??????' -newer "$STATE/txn" -print 2>/dev/null
	return 0
}

# state_drop: the state goes away by one rename, then the tombstone
state_drop() {
	local gone=$STATE.gone-$$
	[ -d "$STATE" ] || return 0
	mv "$STATE" "$gone" || return 1
	state_point drop
	rm -rf "$gone"
}

# state_tombstones -> state directories a killed command was removing
state_tombstones() {
	find "$STATE_TREE" -maxdepth 1 -name "$STATE_NAME.gone-*" -print 2>/dev/null || true
}

# restore_originals: put every original back by rename, delete what the
# series created, remove stray temporary files, drop the state.  Used to roll
# back an apply and to do an unapply; safe to rerun after being killed.
restore_originals() {
	local o=$STATE/orig f saved dirs
	while IFS= read -r f; do
		[ -n "$f" ] && rm -rf -- "$f"
	done < <(stray_files)
	if [ -d "$o" ]; then
		saved=$(cd "$o" && find . ! -type d ! -name .absent -printf '%P\n') || return 1
		dirs=()
		while IFS= read -r f; do
			[ -z "$f" ] || dirs+=("$STATE_TREE/$(file_dir "$f")")
		done <<< "$saved"
		[ ${#dirs[@]} -eq 0 ] || mkdir -p "${dirs[@]}" || return 1
		while IFS= read -r f; do
			[ -n "$f" ] || continue
			case $f in *.kit-tmp) rm -f -- "$o/$f"; continue ;; esac
			mv -f -- "$o/$f" "$STATE_TREE/$f" || return 1
			state_point restore-original || return 1
		done <<< "$saved"
		while IFS= read -r f; do
			[ -z "$f" ] || rm -f -- "$STATE_TREE/$f" || return 1
		done < "$o/.absent"
	fi
	state_drop
}

# state_recover -> what a killed apply or unapply left behind is finished
# (unapply) or rolled back (apply); prints "apply" or "unapply" when it
# did that ("drop" when only the state's own removal was left), nothing
# when there was nothing to do; 1 when it could not
state_recover() {
	local what t dropped=
	for t in $(state_tombstones); do rm -rf "$t" || return 1; dropped=drop; done
	[ -d "$STATE" ] || { [ -z "$dropped" ] || echo "$dropped"; return 0; }
	if [ -f "$STATE/txn" ]; then
		what=$(state_txn)
		[ "$what" = unapply ] || what=apply
		restore_originals || return 1
		printf '%s\n' "$what"
	elif [ ! -f "$STATE/manifest" ] && [ -z "$(state_problem)" ]; then
		# killed before anything was journalled, or the leftover of a
		# finished unapply
		state_drop || return 1
	fi
}

# state_foreign -> why the state's journal is not one this kit wrote for
# this tree ("" if it is): its format, its owner (the uid it records owns
# it and its txn mark) and its tree (the same directory: -ef)
state_foreign() {
	local id=() owners
	if [ ! -f "$STATE/id" ]; then
		printf 'it has no identity record (%s/id): an older kit or another program wrote it' "$STATE_NAME"
		return 0
	fi
	mapfile -d '' -t id < "$STATE/id"
	if [ "${id[0]:-}" != "$STATE_FORMAT" ]; then
		printf "its state format is '%s', not this kit's ('%s')" "${id[0]:-}" "$STATE_FORMAT"
	elif ! owners=$(stat -c %u "$STATE/id" "$STATE/txn" 2>/dev/null) ||
	     [ "$owners" != "${id[1]:-}"$'\n'"${id[1]:-}" ]; then
		printf 'it records the owner uid %s, but its files are owned by uid %s' "${id[1]:-?}" "$(paste -sd, <<< "$owners")"
	elif [ -z "${id[2]:-}" ] || ! [ "${id[2]}" -ef "$STATE_TREE" ]; then
		printf 'it was written for the tree %s, not for this tree' "${id[2]:-?}"
	fi
}

# state_replay DIR -> "file<TAB>signature" of every state the journalled
# series (its applied patches, in order) takes the files through from their
# originals; DIR: an empty scratch directory.  A file restored already
# (no longer in orig/) starts from the tree's copy, which is its original.
state_replay() {
	local dir=$1 series=$STATE/series p f absent=$'\n'
	[ -f "$series" ] || series=$STATE/journal/series.pre
	[ -f "$series" ] && [ -d "$STATE/orig" ] || return 0
	cp -a "$STATE/orig/." "$dir/" || return 1
	rm -f "$dir/.absent"
	[ ! -f "$STATE/orig/.absent" ] || absent+=$(<"$STATE/orig/.absent")$'\n'
	for p in $(series_patches "$series"); do
		[ -f "$STATE/patches/$p" ] || break
		for f in $(patch_files "$STATE/patches/$p"); do
			if [ ! -e "$dir/$f" ] && [[ $absent != *$'\n'"$f"$'\n'* ]] && [ -e "$STATE_TREE/$f" ]; then
				mkdir -p "$dir/$(file_dir "$f")" && cp -a "$STATE_TREE/$f" "$dir/$f" || return 1
			fi
		done
		patch -s -p1 -F0 -N --no-backup-if-mismatch -r - -d "$dir" -i "$STATE/patches/$p" > /dev/null 2>&1 || break
		for f in $(patch_files "$STATE/patches/$p"); do
			printf '%s\t%s\n' "$f" "$(file_sig "$dir/$f")"
		done
	done
}

# state_unexpected DIR -> the files restore_originals would overwrite or
# delete whose content the interrupted transaction cannot have left (its
# original, the topic journal's copy, the applied state of the manifest,
# a state of state_replay, which works in DIR), one a line.  A file beside
# which patch(1) was killed while it wrote it is taken as it is.
state_unexpected() {
	local o=$STATE/orig j=$STATE/journal f sig files=() replay strays
	local -A ok=()
	if [ -d "$o" ]; then
		while IFS= read -r f; do
			[ -n "$f" ] || continue
			files+=("$f")
			ok[$f$'\t'$(file_sig "$o/$f")]=1
		done < <(cd "$o" && find . ! -type d ! -name .absent ! -name '*.kit-tmp' -printf '%P\n')
		if [ -f "$o/.absent" ]; then
			while IFS= read -r f; do
				[ -z "$f" ] || { files+=("$f"); ok[$f$'\t'absent]=1; }
			done < "$o/.absent"
		fi
	fi
	[ ${#files[@]} -gt 0 ] || return 0
	if [ -f "$j/complete" ]; then
		while IFS= read -r f; do
			[ -z "$f" ] || ok[$f$'\t'$(file_sig "$j/pre/$f")]=1
		done < <(cd "$j/pre" && find . ! -type d -printf '%P\n')
		while IFS= read -r f; do
			[ -z "$f" ] || ok[$f$'\t'absent]=1
		done < "$j/pre.absent"
	fi
	if [ -f "$STATE/manifest" ]; then
		while IFS=$'\t' read -r f sig; do
			[ -z "$f" ] || ok[$f$'\t'$sig]=1
		done < "$STATE/manifest"
	fi
	replay=$(state_replay "$1") || replay=
	while IFS=$'\t' read -r f sig; do
		[ -z "$f" ] || ok[$f$'\t'$sig]=1
	done <<< "$replay"
	# a file beside which patch(1) was killed while writing it (its
	# temporary output, newer than the txn mark) may hold anything
	strays=$'\n'$(stray_files)$'\n'
	for f in "${files[@]}"; do
		[[ $strays != *$'\n'"$STATE_TREE/$f.o"??????$'\n'* ]] || continue
		[ -n "${ok[$f$'\t'$(file_sig "$STATE_TREE/$f")]:-}" ] || printf '%s\n' "$f"
	done
}

# --- one topic ---------------------------------------------------------------
# state_snapshot FILE...: the topic's files, quilt state and series before it
state_snapshot() {
	local j=$STATE/journal f present=()
	rm -rf "$j"
	mkdir -p "$j/pre" && : > "$j/pre.absent" || return 1
	for f in "$@"; do
		if [ -e "$STATE_TREE/$f" ]; then
			present+=("$f")
		else
			printf '%s\n' "$f" >> "$j/pre.absent" || return 1
		fi
	done
	# one copy of them all (the snapshot counts once "complete" is there)
	if [ ${#present[@]} -gt 0 ]; then
		(cd "$STATE_TREE" && cp -a --parents -- "${present[@]}" "$j/pre/") || return 1
	fi
	if [ -d "$STATE/pc" ]; then cp -a "$STATE/pc" "$j/pc.pre" || return 1; fi
	if [ -f "$STATE/series" ]; then cp "$STATE/series" "$j/series.pre" || return 1; fi
	touch "$j/complete"
	state_point snapshot
}

# state_rollback_topic PATCH...: back to the snapshot (renames and deletions only)
state_rollback_topic() {
	local j=$STATE/journal f p
	[ -f "$j/complete" ] || { rm -rf "$j"; return 0; }
	while IFS= read -r f; do
		mv -f -- "$j/pre/$f" "$STATE_TREE/$f" || return 1
	done < <(cd "$j/pre" && find . ! -type d -printf '%P\n')
	while IFS= read -r f; do
		[ -z "$f" ] || rm -f -- "$STATE_TREE/$f"
	done < "$j/pre.absent"
	rm -rf "$STATE/pc"
	if [ -d "$j/pc.pre" ]; then mv "$j/pc.pre" "$STATE/pc"; fi
	rm -f "$STATE/series"
	if [ -f "$j/series.pre" ]; then mv "$j/series.pre" "$STATE/series"; fi
	for p in "$@"; do rm -f "$STATE/patches/$p"; done
	rm -rf "$j"
	state_point rollback-topic
}

# state_add_patches SRCDIR PATCH...: the patches join the quilt series
state_add_patches() {
	local src=$1 p
	shift
	mkdir -p "$STATE/patches" || return 1
	for p in "$@"; do
		cp "$src/$p" "$STATE/patches/$p" && printf '%s\n' "$p" >> "$STATE/series" || return 1
	done
}

# state_quilt ARGS: quilt on the kit's state in the tree
state_quilt() {
	(cd "$STATE_TREE" && QUILT_PC=$STATE_NAME/pc QUILT_PATCHES=$STATE_NAME/patches \
		QUILT_SERIES=$STATE_NAME/series QUILTRC=/dev/null quilt "$@")
}

# state_topic_done: a topic landed (its journal is dropped)
state_topic_done() {
	rm -rf "$STATE/journal"
	state_point topic-done
}

# --- the manifest --------------------------------------------------------------
# state_write_manifest: the signature of every file the series changed
state_write_manifest() {
	local f
	while IFS= read -r f; do
		printf '%s\t%s\n' "$f" "$(file_sig "$STATE_TREE/$f")"
	done < <({ (cd "$STATE/orig" && find . ! -type d ! -name .absent -printf '%P\n');
		   cat "$STATE/orig/.absent"; } | sort -u) | state_write manifest
}

# state_file_states -> "applied|original|changed<TAB>FILE" for every file
# the applied series changed: as the apply left it (the manifest), its
# original again (taken out by hand: git checkout), or changed otherwise
state_file_states() {
	local f sig now o
	while IFS=$'\t' read -r f sig; do
		now=$(file_sig "$STATE_TREE/$f")
		if [ "$now" = "$sig" ]; then
			printf 'applied\t%s\n' "$f"
			continue
		fi
		o=$(original_of "$STATE_TREE" "$f")
		if { [ -n "$o" ] && [ "$now" = "$(file_sig "$o")" ]; } || { [ -z "$o" ] && [ "$now" = absent ]; }; then
			printf 'original\t%s\n' "$f"
		else
			printf 'changed\t%s\n' "$f"
		fi
	done < "$STATE/manifest"
}

# state_changed_file -> the first file whose content is neither what the
# apply left nor its original (restoring the original would lose it)
state_changed_file() {
	local st f
	while IFS=$'\t' read -r st f; do
		[ "$st" != changed ] || { printf '%s\n' "$f"; return; }
	done < <(state_file_states)
}

# original_copy TREE DEST [clean]: a hard-link copy (trees.sh link_copy) of
# TREE without the series: no kit state, every file the series changed is
# its original ("clean": no VCS data and in-tree configuration either)
original_copy() {
	local f orig
	link_copy "$1" "$2" "${3:-}"
	rm -rf "${2:?}/$STATE_NAME"
	while read -r f; do
		rm -f "$2/$f"
		orig=$(original_of "$1" "$f")
		[ -z "$orig" ] || cp -a "$orig" "$2/$f" || die "could not restore $f in $2"
	done < <(applied_files "$1")
}
