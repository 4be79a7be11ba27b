#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# abi.sh [--branch B | --kdir DIR] [--profile default|kabi|both] [--topics LIST]
# - what the series changes in a kernel's module and tracepoint interface,
# topic by topic (make abi).
#
# The tree is built unpatched, then with the topics applied one after the
# other (scripts/apply.sh --topics, cumulative, in the order of ./series),
# each time as an interface kernel (configs/abi.config: MODVERSIONS, DWARF,
# no lock debugging), and each build is compared with the one before it by
# scripts/abi-report.py:
#   symbols      Module.symvers: exported symbols added, removed, CRC changed
#   types        abidiff of the two vmlinux ABI dumps (abidw: libabigail's
#                Linux kernel mode, the ABI is what __ksymtab exports)
#   tracepoints  the format file of every trace event, read in the booted
#                guest (tests/guest/init with mmbk.dump=formats)
# Verdict per topic: none, additive (only additions) or breaking.
#
# All builds of one tree share one source copy and one build dir in the
# cache (CACHE/abi/<tree>/): before each build, every file the kit may
# change gets a new mtime if its content differs from the last build and
# its old mtime otherwise, so make rebuilds exactly what changed.  A build
# whose inputs were seen before is taken from CACHE/abi/<tree>/stages/.
#
# Output: out/abi/<name>.md (name: the branch or the KDIR tree's name,
# "-kabi" appended for the kABI profile) and KTAP on stdout, one case per
# profile and topic; a case fails when its verdict differs from
# tests/abi/expect.table (branches) or is "breaking" in the kABI profile.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

EXPECT=$KIT_DIR/tests/abi/expect.table

usage() {
	die "$1; usage: abi.sh [--branch B | --kdir DIR] [--profile default|kabi|both] [--topics LIST]"
}

# fresh_source: WORK/linux becomes a new copy of the tree
fresh_source() {
	if [ -n "$BRANCH_B" ] && [ -z "$KDIR_ARG" ]; then
		scratch_copy "$BRANCH_B" "$WORK/linux"
	else
		link_copy "$SRC" "$WORK/linux"
	fi
}

# input_key -> hash of what decides a build: the files the kit may change,
# the config fragments and the guest's /init (which dumps the formats)
input_key() {
	local f
	{
		while read -r f; do
			if [ -f "$WORK/linux/$f" ]; then
				printf '%s %s\n' "$f" "$(sha256sum < "$WORK/linux/$f" | cut -c1-64)"
			else
				printf '%s absent\n' "$f"
			fi
		done < <(kit_touched_files)
		cat "$KIT_DIR/configs/base.config" "$KIT_DIR/configs/abi.config" "$KIT_DIR/tests/guest/init"
	} | sha256sum | cut -c1-16
}

# sync_mtimes: a kit-touched file keeps the mtime of the last build when its
# content is the same, else it gets a new one (make then rebuilds it)
sync_mtimes() {
	local f sum old_sum old_time
	while read -r f; do
		[ -f "$WORK/linux/$f" ] || continue
		sum=$(sha256sum < "$WORK/linux/$f" | cut -c1-64)
		read -r old_sum old_time < <(awk -F'\t' -v f="$f" '$1 == f { print $2, $3 }' "$WORK/mtimes" 2>/dev/null) || true
		if [ "${old_sum:-}" = "$sum" ]; then
			touch -d "@$old_time" "$WORK/linux/$f"
		else
			touch "$WORK/linux/$f"
		fi
		old_sum='' old_time=''
	done < <(kit_touched_files)
}

# record_mtimes: what the last build saw
record_mtimes() {
	local f
	while read -r f; do
		[ -f "$WORK/linux/$f" ] || continue
		printf '%s\t%s\t%s\n' "$f" "$(sha256sum < "$WORK/linux/$f" | cut -c1-64)" "$(stat -c %Y "$WORK/linux/$f")"
	done < <(kit_touched_files) > "$WORK/mtimes.tmp"
	mv "$WORK/mtimes.tmp" "$WORK/mtimes"
}

# dump_formats DIR: boot DIR's kernel and keep its trace event formats
dump_formats() {
	local dir=$1 init=$WORK/initdir
	mkdir -p "$init"
	printf '#!/bin/sh\nexit 0\n' > "$init/none"
	chmod +x "$init/none"
	"$KIT_DIR/scripts/initramfs.sh" "$WORK/formats.cpio" "$init" >&2
	"$KIT_DIR/scripts/guest-run.sh" "$WORK/build/arch/x86/boot/bzImage" "$WORK/formats.cpio" \
		"$dir/formats.log" --timeout 300 --mem 512M --append "mmbk.dump=formats" >&2 ||
		die "the interface kernel did not boot (log: $dir/formats.log)"
	grep -q '^MMBK-END' "$dir/formats.log" ||
		die "the guest did not list its trace events (log: $dir/formats.log)"
}

# build_stage LABEL: build the tree as WORK/linux has it now (or take the
# cached build with the same input); prints the stage directory
build_stage() {
	local label=$1 key dir obj=$WORK/build
	key=$(input_key)
	dir=$WORK/stages/$key
	if [ -f "$dir/done" ]; then
		progress "abi: $label: build $key cached"
		printf '%s\n' "$dir"
		return 0
	fi
	progress "abi: $label: building the interface kernel ($key)"
	rm -rf "$dir"
	mkdir -p "$dir"
	sync_mtimes
	"$KIT_DIR/scripts/kbuild.sh" --no-debug --fragment "$KIT_DIR/configs/abi.config" \
		"$WORK/linux" "$obj" bzImage modules >&2
	record_mtimes
	[ -f "$obj/Module.symvers" ] || die "the build wrote no $obj/Module.symvers (is CONFIG_MODVERSIONS on?)"
	cp "$obj/Module.symvers" "$dir/Module.symvers"
	progress "abi: $label: abidw vmlinux"
	abidw --no-show-locs --no-corpus-path "$obj/vmlinux" > "$dir/abi.xml" 2> "$dir/abidw.log" ||
		die "abidw failed on $obj/vmlinux (log: $dir/abidw.log)"
	progress "abi: $label: booting it for the trace event formats"
	dump_formats "$dir"
	printf '%s\n' "$label" > "$dir/label"
	touch "$dir/done"
	printf '%s\n' "$dir"
}

# stage PROFILE TOPICS -> stage dir of the tree with TOPICS (comma list;
# empty: unpatched) applied in PROFILE; the per-topic apply results go to
# WORK/applied.topics
stage() {
	local profile=$1 topics=$2 rc=0 t
	fresh_source
	: > "$WORK/applied.topics"
	if [ -n "$topics" ]; then
		"$KIT_DIR/scripts/apply.sh" apply "$WORK/linux" --topics "$topics" --profile "$profile" \
			--report "$WORK/applied" > "$WORK/apply.log" 2>&1 || rc=$?
		# 2: nothing to do, 3: some topics did not land (reported per topic)
		case $rc in
		0|2|3) ;;
		*) die "apply of $topics ($profile profile) failed: $(tail -n1 "$WORK/apply.log")" ;;
		esac
		# exit 2 on a fresh copy: every selected topic is upstream or n/a
		# (apply.sh then reports no topic lines)
		for t in ${topics//,/ }; do
			awk -F'\t' -v t="$t" '$1 == t { f = 1 } END { exit !f }' "$WORK/applied.topics" ||
				printf '%s\tnothing to do\tupstream or not applicable\n' "$t" >> "$WORK/applied.topics"
		done
	fi
	build_stage "$profile: ${topics:-unpatched}"
}

# topic_state TOPIC -> its line of the last apply ("applied", "nothing to
# do: ...", "failed: ...")
topic_state() {
	awk -F'\t' -v t="$1" '$1 == t { print $2 ($3 != "" ? ": " $3 : "") }' "$WORK/applied.topics"
}

run_profile() {
	local profile=$1 prev cur topics='' t args=() name state
	name=$NAME
	[ "$profile" = default ] || name=$NAME-$profile
	# (called in an "if": every failure is checked here)
	prev=$(stage "$profile" "") || return 1
	for t in $TOPIC_LIST; do
		topics=${topics:+$topics,}$t
		cur=$(stage "$profile" "$topics") || return 1
		state=$(topic_state "$t")
		args+=("$t=$prev=$cur=${state:-not applied}")
		prev=$cur
	done
	"$KIT_DIR/scripts/abi-report.py" --name "$name" --profile "$profile" \
		${BRANCH_B:+--branch "$BRANCH_B"} --tree "$SRC" --expect "$EXPECT" \
		--out "$OUT_DIR/abi/$name.md" "${args[@]}"
}

main() {
	local profile=default profiles t rc=0 n=0
	BRANCH_B='' KDIR_ARG='' TOPICS=''
	while [ $# -gt 0 ]; do
		[ $# -ge 2 ] || usage "$1 needs a value"
		case $1 in
		--branch) BRANCH_B=$2 ;;
		--kdir) KDIR_ARG=$2 ;;
		--profile) profile=$2 ;;
		--topics) TOPICS=$2 ;;
		*) usage "unknown argument '$1'" ;;
		esac
		shift 2
	done
	case $profile in
	default|kabi) profiles=$profile ;;
	both) profiles="default kabi" ;;
	*) die "unknown profile '$profile'; set PROFILE= to default, kabi or both" ;;
	esac
	need_cache
	for t in abidw abidiff qemu-system-x86_64; do
		command -v "$t" >/dev/null || die "$t is not installed; run scripts/deps.sh (abigail-tools, qemu-system-x86)"
	done
	SRC=$(resolve_tree "$KDIR_ARG" "$BRANCH_B" unpatched) || exit 1
	if [ -n "$KDIR_ARG" ]; then
		is_kernel_tree "$SRC" ||
			die "KDIR=$KDIR_ARG is not a kernel source tree (no top-level Makefile with mm/khugepaged.c); point KDIR= at the top of a Linux tree"
		NAME=$(tree_name "$SRC")
		BRANCH_B=$(tree_branch "$SRC") || exit 1
		tree_is_branch "$SRC" || BRANCH_B=''
		WORK=$CACHE_DIR/abi/kdir-$(path_key "$SRC")
	else
		BRANCH_B=${BRANCH_B:-$DEFAULT_BRANCH}
		NAME=$BRANCH_B
		WORK=$CACHE_DIR/abi/$BRANCH_B
	fi
	TOPIC_LIST=$(check_topics "${TOPICS:-$(all_topics | paste -sd' ')}" | paste -sd' ') || exit 1
	mkdir -p "$WORK" "$OUT_DIR/abi"
	lock_tree "$WORK"
	echo "KTAP version 1"
	echo "# abi: $NAME (Linux $(kernel_version "$SRC")), profiles: $profiles"
	echo "1..$(echo "$profiles" | wc -w)"
	for profile in $profiles; do
		n=$((n + 1))
		echo "    KTAP version 1"
		echo "    # Subtest: $profile"
		# the report's own KTAP document is the subtest (its version line
		# is the one above)
		if run_profile "$profile" > "$WORK/report.ktap"; then
			sed -e '1{/^KTAP version/d}' -e 's/^/    /' "$WORK/report.ktap"
			echo "ok $n $profile"
		else
			sed -e '1{/^KTAP version/d}' -e 's/^/    /' "$WORK/report.ktap"
			echo "not ok $n $profile"
			rc=1
		fi
	done
	return $rc
}

main "$@"
