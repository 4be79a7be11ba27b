# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# abi.sh - what the series changes in a kernel's module and tracepoint
# interface, topic by topic (make abi).
# abi_run (make abi BRANCH=b|KDIR=dir [PROFILE=default|kabi|both] [TOPICS=..])
# (the request's tree: the branch's pristine tree, or a KDIR= tree)
#
# The tree is built unpatched, then with the topics applied one after the
# other (apply.sh, --topics cumulative, in the order of ./series),
# each time as an interface kernel (configs/abi.config, the "abi" profile: MODVERSIONS, DWARF,
# no lock debugging), and each build is compared with the one before it by
# mmbk/abi_report.py:
#   symbols      Module.symvers: exported symbols added, removed, CRC changed
#   types        abidiff of the two vmlinux ABI dumps (abidw: libabigail's
#                Linux kernel mode, the ABI is what __ksymtab exports)
#   tracepoints  the format file of every trace event, read in the booted
#                guest (guest/init with mmbk.dump=formats)
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
# tables/abi-expect.table or is "breaking" in the kABI profile.
kit_use tables trees fetch kbuild guest request apply results

# abi_fresh_source: WORK/linux becomes a new copy of the tree
abi_fresh_source() {
	if [ "$ABI_KDIR" = 0 ]; then
		scratch_copy "$ABI_BRANCH" "$WORK/linux"
	else
		link_copy "$SRC" "$WORK/linux" clean
	fi
}

# abi_input_key -> hash of what decides a build: the files the kit may change,
# the config fragments and the guest's /init (which dumps the formats)
abi_input_key() {
	local f
	{
		while read -r f; do
			if [ -f "$WORK/linux/$f" ]; then
				printf '%s %s\n' "$f" "$(sha256sum < "$WORK/linux/$f" | cut -c1-64)"
			else
				printf '%s absent\n' "$f"
			fi
		done < <(kit_touched_files)
		cat "$KIT_DIR/configs/base.config" "$KIT_DIR/configs/arch/$KB_ARCH.config" "$KIT_DIR/configs/abi.config" "$KIT_DIR/guest/init"
		kb_describe
	} | sha256sum | cut -c1-16
}

# abi_sync_mtimes: a kit-touched file keeps the mtime of the last build when its
# content is the same, else it gets a new one (make then rebuilds it)
abi_sync_mtimes() {
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

# abi_record_mtimes: what the last build saw
abi_record_mtimes() {
	local f
	while read -r f; do
		[ -f "$WORK/linux/$f" ] || continue
		printf '%s\t%s\t%s\n' "$f" "$(sha256sum < "$WORK/linux/$f" | cut -c1-64)" "$(stat -c %Y "$WORK/linux/$f")"
	done < <(kit_touched_files) > "$WORK/mtimes.tmp"
	mv "$WORK/mtimes.tmp" "$WORK/mtimes"
}

# abi_dump_formats DIR: boot DIR's kernel and keep its trace event formats
abi_dump_formats() {
	local dir=$1 init=$WORK/initdir
	mkdir -p "$init"
	printf '#!/bin/sh\nexit 0\n' > "$init/none"
	chmod +x "$init/none"
	guest_initramfs "$WORK/formats.cpio" "$init" >&2
	guest_run "$WORK/build/$KB_IMAGE" "$WORK/formats.cpio" "$dir/formats.log" 300 512M "mmbk.dump=formats" >&2 ||
		die "the interface kernel did not boot (log: $dir/formats.log)"
	grep -q '^MMBK-END' "$dir/formats.log" ||
		die "the guest did not list its trace events (log: $dir/formats.log)"
}

# abi_build_stage LABEL: build the tree as WORK/linux has it now (or take the
# cached build with the same input); prints the abi_stage directory
abi_build_stage() {
	local label=$1 key dir obj=$WORK/build
	key=$(abi_input_key)
	dir=$WORK/stages/$key
	if [ -f "$dir/done" ]; then
		progress "abi: $label: build $key cached"
		printf '%s\n' "$dir"
		return 0
	fi
	progress "abi: $label: building the interface kernel ($key)"
	rm -rf "$dir"
	mkdir -p "$dir"
	abi_sync_mtimes
	kbuild "$WORK/linux" "$obj" abi "${KB_IMAGE##*/}" modules >&2
	abi_record_mtimes
	[ -f "$obj/Module.symvers" ] || die "the build wrote no $obj/Module.symvers (is CONFIG_MODVERSIONS on?)"
	cp "$obj/Module.symvers" "$dir/Module.symvers"
	progress "abi: $label: abidw vmlinux"
	abidw --no-show-locs --no-corpus-path "$obj/vmlinux" > "$dir/abi.xml" 2> "$dir/abidw.log" ||
		die "abidw failed on $obj/vmlinux (log: $dir/abidw.log)"
	progress "abi: $label: booting it for the trace event formats"
	abi_dump_formats "$dir"
	printf '%s\n' "$label" > "$dir/label"
	touch "$dir/done"
	printf '%s\n' "$dir"
}

# abi_stage PROFILE TOPICS -> abi_stage dir of the tree with TOPICS (comma list;
# empty: unpatched) applied in PROFILE; the per-topic apply results go to
# WORK/applied.topics
abi_stage() {
	local profile=$1 topics=$2 rc=0 t
	abi_fresh_source
	: > "$WORK/applied"
	if [ -n "$topics" ]; then
		kit_try request_call TREE="$WORK/linux" BRANCH="$ABI_BRANCH" TOPICS="$topics" SERIES_PROFILE="$profile" \
			RECORDS="$WORK/applied" -- apply_run > "$WORK/apply.log" 2>&1
		rc=$KIT_RC
		# nothing to do, partial: some topics did not land (recorded per topic)
		case $rc in
		0|"$EXIT_NOTHING"|"$EXIT_PARTIAL") ;;
		*) die "apply of $topics ($profile profile) failed: $(tail -n1 "$WORK/apply.log")" ;;
		esac
	fi
	abi_build_stage "$profile: ${topics:-unpatched}"
}

# abi_topic_state TOPIC -> its line of the last apply ("applied: ...",
# "nothing to do: ...", "failed: ..."); a topic the apply did not record
# (every selected topic upstream or n/a) has nothing to do
abi_topic_state() {
	local t
	t=$(result_get "$WORK/applied" topic "$1" text)
	printf '%s\n' "${t:-nothing to do: upstream or not applicable}"
}

# abi_run_profile PROFILE: the builds of PROFILE and their report; one
# record a topic (PROFILE/TOPIC) in WORK/results.tsv
abi_run_profile() {
	local profile=$1 prev cur topics='' t args=() name state
	name=$NAME
	[ "$profile" = default ] || name=$NAME-$profile
	prev=$(abi_stage "$profile" "")
	for t in $TOPIC_LIST; do
		topics=${topics:+$topics,}$t
		cur=$(abi_stage "$profile" "$topics")
		state=$(abi_topic_state "$t")
		args+=("$t=$prev=$cur=${state:-not applied}")
		prev=$cur
	done
	kit_py abi-report --name "$name" --profile "$profile" \
		${ABI_EXPECT_BRANCH:+--branch "$ABI_EXPECT_BRANCH"} --tree "$SRC" --expect "$TABLES_DIR/abi-expect.table" \
		--out "$OUT_DIR/abi/$name.md" --records "$WORK/results.tsv" \
		--version "$REQ_VERSION" --target "$REQ_TARGET" "${args[@]}"
}

# abi_run: the KTAP document of the interface report of the request's
# tree (REQ_TREE, REQ_BRANCH; KDIR=: a tree of the user's, named by its
# own name) on stdout, for REQ_SERIES_PROFILE (default, kabi or both) and
# REQ_TOPICS; the target is KB_* (request_target)
abi_run() (
	local profile=$REQ_SERIES_PROFILE profiles t rc=0 topics=$REQ_TOPICS
	SRC=$REQ_TREE ABI_BRANCH=$REQ_BRANCH NAME=$REQ_BRANCH ABI_KDIR=0
	if [ "$REQ_KDIR" != - ]; then ABI_KDIR=1 NAME=$(tree_name "$SRC"); fi
	case $profile in
	default|kabi) profiles=$profile ;;
	both) profiles="default kabi" ;;
	*) usage_error "unknown profile '$profile'; set PROFILE= to default, kabi or both" ;;
	esac
	need_cache
	for t in abidw abidiff; do
		command -v "$t" >/dev/null || die "$t is not installed; run bin/deps as root (abigail-tools)"
	done
	# the expectations of a branch's rows hold for trees of that branch
	ABI_EXPECT_BRANCH=
	! tree_is_branch "$SRC" || ABI_EXPECT_BRANCH=$ABI_BRANCH
	if [ "$ABI_KDIR" = 1 ]; then
		WORK=$CACHE_DIR/abi/kdir-$(path_key "$SRC")${KB_TAG:-}
	else
		WORK=$CACHE_DIR/abi/$ABI_BRANCH${KB_TAG:-}
	fi
	TOPIC_LIST=$(check_topics "${topics:-$(all_topics | paste -sd' ')}" | paste -sd' ')
	mkdir -p "$WORK" "$OUT_DIR/abi"
	# WORK (its copies, builds, records) is this command's; a KDIR is read
	lock_tree "$WORK"
	[ "$ABI_KDIR" = 0 ] || lock_tree "$SRC" shared
	: > "$WORK/results.tsv"
	request_hand_back "$WORK/results.tsv"
	for profile in $profiles; do
		kit_try abi_run_profile "$profile"
		if [ "$KIT_RC" != 0 ] && ! grep -q "^case	[^	]*	[^	]*	$profile/" "$WORK/results.tsv"; then
			# the builds broke before the report: the profile failed
			result "$WORK/results.tsv" case abi "$NAME" "$profile" error - - "the builds of the $profile profile failed (see above)"
		fi
		[ "$KIT_RC" = 0 ] || rc=1
	done
	kit_py results ktap "$WORK/results.tsv" \
		--title "abi: $NAME (Linux $(kernel_version "$SRC"), $(kb_describe)), profiles: $profiles" --summary "abi $NAME"
	return $rc
)
