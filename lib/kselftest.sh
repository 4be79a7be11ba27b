# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# kselftest.sh - the tree's own mm selftests as a second oracle (make
# selftests): the programs of tables/kselftests.table built from the tree
# (its era's tools/testing/selftests/vm or mm, and proc) with the tree's own
# Makefiles and its exported headers, statically for the target, cached by
# the tree's hash and the target; then run in the guest (guest/kselftest-run)
# on the patched kernel and on the kernel without the series (same tree,
# configuration and programs: boot.sh's kernels), and judged case by case
# (mmbk kselftest): passes or skips unpatched but fails, hangs or leaves a
# kernel splat patched is a regression.
kit_use tables trees fetch kbuild guest results request boot state apply unapply

KSFT_TABLE=$TABLES_DIR/kselftests.table
KSFT_EXPECT=$TABLES_DIR/kselftest-expect.table
# the guest's memory: khugepaged's collapse_compound_extreme needs 512
# THPs (1 GiB) besides the kernel; with 1 GiB it stops at "Failed to
# allocate huge page" and skips every later test
KSFT_MEM=2048M

# ksft_rows BRANCH -> the table's rows for BRANCH (name dir program args
# timeout needs cflags), tab separated
ksft_rows() {
	local branch=$1
	[ -f "$KSFT_TABLE" ] || die "no $KSFT_TABLE"
	awk -v b="$branch" '
	function ver(s,  a) { split(s, a, "."); return a[1] * 1000 + a[2] }
	function on(sel,  n, i, p) {
		if (sel == "*") return 1
		if (sel ~ /-$/) return ver(b) >= ver(substr(sel, 1, length(sel) - 1))
		if (sel ~ /^-/) return ver(b) <= ver(substr(sel, 2))
		n = split(sel, p, ",")
		for (i = 1; i <= n; i++) if (p[i] == b) return 1
		return 0
	}
	/^[#@]/ || NF < 9 { next }
	on($4) { printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", $1, $2, $3, $5, $6, $7, $8 }' "$KSFT_TABLE"
}

# ksft_programs_branch BRANCH -> the branch whose tree's programs BRANCH
# runs: the table's "@programs-from BRANCH OTHER" line, else BRANCH itself
ksft_programs_branch() {
	local b
	b=$(awk -v b="$1" '$1 == "@programs-from" && $2 == b { print $3; exit }' "$KSFT_TABLE")
	printf '%s\n' "${b:-$1}"
}

# ksft_srcdir TREE DIR -> the tree's selftest dir of that kind (mm: mm, or
# vm before 6.3), or nothing
ksft_srcdir() {
	local t=$1/tools/testing/selftests
	case $2 in
	mm) if [ -d "$t/mm" ]; then echo "$t/mm"; elif [ -d "$t/vm" ]; then echo "$t/vm"; fi ;;
	*) [ ! -d "$t/$2" ] || echo "$t/$2" ;;
	esac
}

# ksft_tree_key TREE BRANCH -> hash of what the programs are built from:
# the selftest dirs, the kselftest headers, the uapi headers, the branch's
# rows of the table and the target's compiler
ksft_tree_key() {
	local tree=$1 branch=$2 d dirs=()
	for d in tools/testing/selftests/mm tools/testing/selftests/vm tools/testing/selftests/proc \
		 tools/testing/selftests/lib.mk tools/testing/selftests/kselftest.h \
		 tools/testing/selftests/kselftest include/uapi "arch/$KB_SRCARCH/include/uapi" tools/include; do
		[ ! -e "$tree/$d" ] || dirs+=("$d")
	done
	{
		[ ${#dirs[@]} -eq 0 ] || ( cd "$tree" && find "${dirs[@]}" -type f -print0 | sort -z | xargs -0 sha256sum )
		ksft_rows "$branch"
		"$(guest_cc)" --version | sed -n 1p
		# a cross build links the target's libnuma-dev (ksft_build)
		printf '%s%s\n' "$KB_ARCH" "${KB_CROSS:+ libnuma-dev:$KB_ARCH}"
	} | sha256sum | cut -c1-16
}

# ksft_build TREE BRANCH -> the dir of the built programs (cached): bin/
# holds them, built.tsv one line per table row: name, status (built |
# skip), the text (the first real error of a program that does not build,
# or why it was not built)
ksft_build() {
	local tree=$1 branch=$2 key dir work copy cc name sdir pname args tmo needs cflags why src n=0 nb=0 t0 log lockfd
	local numa libs=
	need_cache
	key=$(ksft_tree_key "$tree" "$branch")
	dir=$CACHE_DIR/kselftest/$branch-$KB_ARCH-$key
	mkdir -p "${dir%/*}"
	# one build of a key at a time: a second make selftests waits, then
	# finds it built
	exec {lockfd}>"$dir.lock"
	flock "$lockfd"
	if [ -f "$dir/built.tsv" ]; then
		progress "selftests: programs of $branch for $KB_ARCH cached: $dir"
		printf '%s\n' "$dir"
		return 0
	fi
	t0=$(date +%s)
	cc=$(guest_cc)
	work=$dir.tmp
	rm -rf "$work"
	mkdir -p "$work/bin" "$work/log"
	copy=$work/linux
	if [ -z "$(ksft_srcdir "$tree" mm)$(ksft_srcdir "$tree" proc)" ]; then
		# nothing to build: every row is a skip naming the missing dir
		warn "$tree has no tools/testing/selftests/mm, vm or proc: no selftest to build"
		copy=$tree
	else
		# the build writes into the selftest dirs (check_config.sh's
		# local_config.h): a hard-link copy of the tree, never the tree
		link_copy "$tree" "$copy" clean
		progress "selftests: make headers_install ($KB_SRCARCH) for $branch"
		make -s -C "$copy" headers_install O="$work/hdr" ARCH="$KB_SRCARCH" \
			INSTALL_HDR_PATH="$copy/usr" > "$work/log/headers.log" 2>&1 ||
			die "make headers_install failed for $tree: $(kb_first_error "$work/log/headers.log") (log: $work/log/headers.log)"
	fi
	# the target's libnuma (ksm_tests link -lnuma statically): the
	# machine's libnuma-dev for a native build, Debian's of the target's
	# architecture for a cross build (the cross compiler searches neither
	# /usr/include nor /usr/lib/<machine>)
	if [ -n "$KB_CROSS" ]; then
		numa=$(guest_target_package libnuma-dev)
		libs="-I$numa/usr/include -L$numa/usr/lib/${KB_CROSS%-}"
	fi
	while IFS=$'\t' read -r name sdir pname args tmo needs cflags; do
		n=$((n + 1))
		src=$(ksft_srcdir "$copy" "$sdir")
		if [ -z "$src" ] || [ ! -f "$src/$pname.c" ]; then
			why="the tree has no tools/testing/selftests/${src:+${src##*/selftests/}/}$pname.c"
			[ -n "$src" ] || why="the tree has no tools/testing/selftests/$([ "$sdir" = mm ] && echo 'mm or vm' || echo "$sdir") (a trimmed tree keeps only mm/vm and the kselftest headers)"
			printf '%s\tskip\t%s\n' "$name" "$why" >> "$work/built.tsv"
			continue
		fi
		log=$work/log/$pname.log
		if [ -x "$work/bin/$pname" ]; then
			printf '%s\tbuilt\t%s\n' "$name" "$pname" >> "$work/built.tsv"
			continue
		fi
		# the tree's own Makefile: lib.mk's rule for OUTPUT/<program>,
		# the exported headers in the copy's usr/include (lib.mk's
		# default KHDR_INCLUDES, the ../../../../usr/include of older
		# trees); -static in CC: it compiles and links every program,
		# whatever the directory's Makefile does with CFLAGS/LDFLAGS
		[ "$cflags" != - ] || cflags=
		if make -C "$src" OUTPUT="$work/bin" ARCH="$KB_ARCH" CROSS_COMPILE="$KB_CROSS" \
			CC="$cc -static${libs:+ $libs}${cflags:+ ${cflags//,/ }}" "$work/bin/$pname" > "$log" 2>&1 < /dev/null &&
			[ -x "$work/bin/$pname" ]; then
			if grep -q 'program interpreter' < <(readelf -l "$work/bin/$pname" 2>/dev/null); then
				rm -f "$work/bin/$pname"
				printf '%s\tskip\tdoes not build: linked dynamically although -static was given (log: %s)\n' \
					"$name" "$dir/log/$pname.log" >> "$work/built.tsv"
				continue
			fi
			nb=$((nb + 1))
			printf '%s\tbuilt\t%s\n' "$name" "$pname" >> "$work/built.tsv"
		else
			printf '%s\tskip\tdoes not build for %s: %s (log: %s)\n' "$name" "$KB_ARCH" \
				"$(kb_first_error "$log")" "$dir/log/$pname.log" >> "$work/built.tsv"
		fi
	done < <(ksft_rows "$branch")
	[ "$n" -gt 0 ] || die "$KSFT_TABLE has no program for $branch"
	[ "$copy" = "$tree" ] || rm -rf "$copy"
	rm -rf "$work/hdr"
	rm -rf "$dir"
	mv "$work" "$dir"
	progress "selftests: $nb program(s) of $branch built for $KB_ARCH in $(( $(date +%s) - t0 ))s: $dir"
	exec {lockfd}>&-
	printf '%s\n' "$dir"
}

# ksft_plan BRANCH BUILT OBJ RUN: what runs in the guest.  RUN/list (the guest's
# /ksft/list: index, name, timeout, file, args), RUN/extra (the programs'
# gen_init_cpio lines), RUN/notrun.tsv (name, why: a program not built,
# not in the tree, or needing an option the kernel OBJ lacks); prints the
# sum of the timeouts
ksft_plan() {
	local branch=$1 built=$2 obj=$3 run=$4 name sdir pname args tmo needs cflags st text o miss why i=0 sum=0
	mkdir -p "$run"
	: > "$run/list"
	: > "$run/notrun.tsv"
	printf '%s\n' "dir /ksft 0755 0 0" > "$run/extra"
	while IFS=$'\t' read -r name sdir pname args tmo needs cflags; do
		st=$(awk -F'\t' -v n="$name" '$1 == n { print $2 }' "$built/built.tsv")
		text=$(awk -F'\t' -v n="$name" '$1 == n { print $3 }' "$built/built.tsv")
		if [ "$st" != built ]; then
			printf '%s\t%s\n' "$name" "${text:-not built (no row in $built/built.tsv)}" >> "$run/notrun.tsv"
			continue
		fi
		miss=
		if [ "$needs" != - ]; then
			for o in ${needs//,/ }; do
				grep -qx "CONFIG_$o=y" "$obj/.config" || miss="$miss CONFIG_$o"
			done
		fi
		if [ -n "$miss" ]; then
			why="configs/base.config does not enable it"
			if [[ $miss == *CONFIG_TRANSPARENT_HUGEPAGE* ]] && grep -qx 'CONFIG_PREEMPT_RT=y' "$obj/.config"; then
				why="a PREEMPT_RT kernel, and THP needs !PREEMPT_RT; configs/base.config does not enable the rest"
				[ "$miss" != " CONFIG_TRANSPARENT_HUGEPAGE" ] || why="a PREEMPT_RT kernel, and THP needs !PREEMPT_RT"
			fi
			printf '%s\tthe test kernel lacks%s (%s)\n' "$name" "$miss" "$why" >> "$run/notrun.tsv"
			continue
		fi
		i=$((i + 1))
		sum=$((sum + tmo + 20))
		printf '%s %s %s %s %s\n' "$i" "$name" "$tmo" "$pname" "$args" >> "$run/list"
		grep -q "^file /ksft/$pname " "$run/extra" ||
			printf 'file /ksft/%s %s/bin/%s 0755 0 0\n' "$pname" "$built" "$pname" >> "$run/extra"
	done < <(ksft_rows "$branch")
	printf 'file /ksft/list %s/list 0644 0 0\n' "$run" >> "$run/extra"
	echo "$sum"
}

# ksft_guest IMAGE RUN LOG SUM: boot IMAGE with RUN's programs until every
# one ran: a program that takes the guest down (panic, hang, the guest's
# time is up) is marked in LOG ("MMBK-KSFT-GUEST-DOWN INDEX qemu=RC") and
# the guest boots again from the next one
ksft_guest() {
	local image=$1 run=$2 log=$3 sum=$4 from=1 boots=0 rc part last total
	total=$(wc -l < "$run/list")
	mkdir -p "$run/tests"
	cp "$KIT_DIR/guest/kselftest-run" "$run/tests/kselftests"
	chmod 755 "$run/tests/kselftests"
	guest_initramfs --extra "$run/extra" "$run/ksft.cpio" "$run/tests"
	: > "$log"
	while [ "$from" -le "$total" ]; do
		boots=$((boots + 1))
		part=$run/boot$boots.log
		rc=0
		guest_run "$image" "$run/ksft.cpio" "$part" "$((sum + 180))" "$KSFT_MEM" \
			"mmbk.test_timeout=$((sum + 60)) mmbk.ksft_from=$from" || rc=$?
		cat "$part" >> "$log"
		grep -q '^MMBK-END' "$part" && break
		last=$(sed -n 's/.*# MMBK-KSFT-BEGIN \([0-9]*\) .*/\1/p' "$part" | tail -n1)
		if [ -z "$last" ]; then
			echo "MMBK-KSFT-GUEST-DOWN $from qemu=$rc before any program" >> "$log"
			warn "the guest went down (qemu $rc) before running program $from; see $part"
			return 1
		fi
		echo "MMBK-KSFT-GUEST-DOWN $last qemu=$rc" >> "$log"
		warn "program $last took the guest down (qemu status $rc); booting again from $((last + 1))"
		from=$((last + 1))
	done
}

# ksft_key PROFILE -> the build target and build profile the results and
# the committed expectations are kept by (the arch column of
# tables/kselftest-expect.table): x86_64, arm64, x86_64-llvm, x86_64-rt...
ksft_key() {
	printf '%s%s\n' "$REQ_TARGET" "$(boot_profile_tag "$1")"
}

# ksft_variant BRANCH VARIANT PROFILE BUILT OUT [SRC]: the kernel of VARIANT
# and build PROFILE (boot.sh's: same tree, configuration and build dir as
# make boot; with SRC, the kernel of that tree), the programs run
# on it; OUT/VARIANT.log (the guest log), OUT/VARIANT/ (list, notrun.tsv).
# A log is kept by the kernel image's and the programs' hash
# (CACHE/kselftest/results/): the same unpatched kernel never boots twice.
ksft_variant() {
	local branch=$1 variant=$2 profile=$3 built=$4 out=$5 src=${6:-} image obj run sum key cached t0
	image=$(request_call BRANCH="$branch" ${src:+KDIR="$src" TREE="$src"} VARIANT="$variant" \
		BUILD_PROFILE="$profile" BUILD_ONLY=1 OUT="$OUT_DIR" RECORDS_AT= -- boot_run | tail -n1)
	obj=${image%/"$KB_IMAGE"}
	run=$out/$variant
	rm -rf "$run"
	sum=$(ksft_plan "$(ksft_programs_branch "$branch")" "$built" "$obj" "$run")
	printf '%s\n' "$image" > "$run/image"
	key=$({ sha256sum < "$image"; cat "$run/list" "$KIT_DIR/guest/kselftest-run" "$KIT_DIR/guest/init"
		printf '%s\n' "$built" "$KSFT_MEM"; } | sha256sum | cut -c1-16)
	cached=$CACHE_DIR/kselftest/results/$branch-$variant-$(ksft_key "$profile")-$key.log
	if [ -f "$cached" ]; then
		progress "selftests: $branch $variant: the results of this kernel and these programs are cached ($cached)"
		cp "$cached" "$out/$variant.log"
		return 0
	fi
	if [ ! -s "$run/list" ]; then
		: > "$out/$variant.log"
		return 0
	fi
	t0=$(date +%s)
	ksft_guest "$image" "$run" "$out/$variant.log" "$sum"
	echo "$(( $(date +%s) - t0 ))" > "$run/seconds"
	progress "selftests: $branch $variant: guest time $(cat "$run/seconds")s"
	if [ "$variant" = unpatched ]; then
		mkdir -p "${cached%/*}"
		cp "$out/$variant.log" "$cached.tmp" && mv "$cached.tmp" "$cached"
	fi
}

# ksft_retry DIR: the programs of DIR/regressed (the judge's: those with
# a regression) run once more, in the order of the patched run, on the
# patched kernel of that run; their guest log is DIR/patched-retry.log
ksft_retry() {
	local dir=$1 run=$1/patched retry=$1/patched/retry i=0 sum=0 idx name tmo pname args
	rm -rf "$retry"
	mkdir -p "$retry"
	: > "$retry/list"
	while read -r idx name tmo pname args; do
		if [ -z "$idx" ] || ! grep -qxF -- "$name" "$dir/regressed"; then continue; fi
		i=$((i + 1))
		sum=$((sum + tmo + 20))
		printf '%s %s %s %s %s\n' "$i" "$name" "$tmo" "$pname" "$args" >> "$retry/list"
	done < "$run/list"
	[ "$i" -gt 0 ] || die "selftests: none of $(paste -sd' ' "$dir/regressed") is in $run/list"
	sed "s|^file /ksft/list .*|file /ksft/list $retry/list 0644 0 0|" "$run/extra" > "$retry/extra"
	progress "selftests: a regression in $(paste -sd' ' "$dir/regressed"): running $i program(s) once more on the same patched kernel"
	ksft_guest "$(cat "$run/image")" "$retry" "$dir/patched-retry.log" "$sum"
}

# ksft_kdir_base KDIR -> where the copies of KDIR are kept
ksft_kdir_base() {
	printf '%s/work/kdir-%s\n' "$CACHE_DIR" "$(path_key "$1")"
}

# ksft_kdir_trees KDIR BRANCH -> two lines, the source of the unpatched
# and of the patched kernel for a tree of the user's (make selftests
# KDIR=): KDIR itself and a copy of it that gets the series, or, when the
# kit's series is applied in KDIR, a copy of it that has the series taken
# out and KDIR itself.  The copies are in the cache (one path per KDIR, so
# their build dirs are kept); KDIR is only read.
ksft_kdir_trees() {
	local kdir=$1 branch=$2 base copy
	base=$(ksft_kdir_base "$kdir")
	state_init "$kdir"
	[ -z "$(state_txn)" ] ||
		die "$kdir holds an interrupted make $(state_txn) of the kit; run make unapply KDIR=$kdir (it rolls that back), then make selftests again"
	if [ -n "$(applied_patches "$kdir")" ]; then
		copy=$base/unpatched/linux
		progress "selftests: $kdir carries the kit's series; the unpatched kernel is a copy with it taken out: $copy"
		link_copy "$kdir" "$copy"
		# the copy's own kit state: unapply rewrites it, never KDIR's
		state_copy_to "$kdir" "$copy"
		kit_try request_call TREE="$copy" BRANCH="$branch" -- unapply_run >&2
		[ "$KIT_RC" -eq 0 ] ||
			die "the kit's series could not be taken out of a copy of $kdir (make unapply status $KIT_RC, see above); run make status KDIR=$kdir"
		printf '%s\n%s\n' "$copy" "$kdir"
		return 0
	fi
	copy=$base/patched/linux
	progress "selftests: the patched kernel is a copy of $kdir with the $branch series applied: $copy"
	link_copy "$kdir" "$copy" clean
	kit_try request_call TREE="$copy" BRANCH="$branch" RECORDS="$copy.records" -- apply_run >&2
	case $KIT_RC in
	0) ;;
	"$EXIT_NOTHING") die "nothing of the $branch series is missing from $kdir (upstream, or applied without the kit): there is no kernel without it to compare; point KDIR= at a tree without the series, or apply it with make apply KDIR=" ;;
	"$EXIT_PARTIAL") warn "only part of the $branch series applies to $kdir: the patched kernel carries the topics that landed (see above)" ;;
	*) die "the $branch series does not apply to a copy of $kdir (make apply status $KIT_RC, see above); run make apply KDIR=$kdir for the details" ;;
	esac
	printf '%s\n%s\n' "$kdir" "$copy"
}

# ksft_run (make selftests): the request's branch (REQ_BRANCH; with KDIR=
# its tree REQ_TREE) on both kernels of build profile REQ_BUILD_PROFILE
# (test: the default; rt: PREEMPT_RT): the programs built, run, judged;
# REQ_OUT/selftests/<branch>-<key>/: the guest logs, records.tsv,
# selftests.ktap, junit.xml, results.json, selftests.md.  REQ_SAVE=1
# writes the observed rows into tables/kselftest-expect.table.  Status 1 on
# a regression or a difference from the committed expectations.  REQ_ONLY
# patched: the patched kernel alone, judged against the committed
# expectations (the matrix's hook); unpatched: the kernel without the
# series alone, reported as it is (not judged).  KDIR=: the user's tree
# (ksft_kdir_trees), judged patched against unpatched only (the committed
# expectations are the kit's trees'; neither SAVE=1 nor ONLY=).
ksft_run() (
	local branch=$REQ_BRANCH kdir='' save=$REQ_SAVE out=$REQ_OUT only=$REQ_ONLY profile=$REQ_BUILD_PROFILE
	local tree built dir v rc=0 args=() t0 tb variants srcs=() name src pbranch ptree
	[ "$REQ_KDIR" = - ] || kdir=$REQ_TREE
	[ -n "$branch" ] || usage_error "selftests: --branch is required"
	case $only in
	'') variants="unpatched patched" ;;
	patched|unpatched) variants=$only ;;
	*) usage_error "selftests: --only $only: use patched or unpatched" ;;
	esac
	[ -z "$only" ] || [ "$save" = 0 ] || usage_error "selftests: --save needs both kernels (drop --only)"
	kb_profile_fragments "$profile" > /dev/null
	if [ -n "$kdir" ] && { [ "$save" = 1 ] || [ -n "$only" ]; }; then
		usage_error "selftests: KDIR= is judged patched against unpatched only; SAVE=1 and ONLY= are for the kit's own trees (BRANCH=)"
	fi
	need_cache
	name=$branch
	if [ -n "$kdir" ]; then
		# the copies of KDIR are this run's until it ends
		mkdir -p "$(ksft_kdir_base "$kdir")"
		lock_tree "$(ksft_kdir_base "$kdir")"
		# a plain command (errexit sees its failure), then read
		ksft_kdir_trees "$kdir" "$branch" > "$(ksft_kdir_base "$kdir")/trees"
		mapfile -t srcs < "$(ksft_kdir_base "$kdir")/trees"
		[ ${#srcs[@]} -eq 2 ] || die "selftests: no patched and unpatched tree made from $kdir"
		tree=${srcs[0]}
		name=$branch-kdir-$(path_key "$kdir")
	else
		tree=$(pristine_dir "$branch")
		pristine_verify "$branch"
	fi
	# the programs: the tree's own, or those of the branch the table names
	pbranch=$(ksft_programs_branch "$branch")
	ptree=$tree
	if [ "$pbranch" != "$branch" ]; then
		ptree=$(fetch_tree "$pbranch")
		progress "selftests: $branch runs the programs of $pbranch's tree (tables/kselftests.table @programs-from)"
	fi
	dir=$out/selftests/$name-$(ksft_key "$profile")
	rm -rf "$dir"
	mkdir -p "$dir"
	request_hand_back "$dir/records.tsv"
	t0=$(date +%s)
	built=$(ksft_build "$ptree" "$pbranch")
	tb=$(( $(date +%s) - t0 ))
	for v in $variants; do
		if [ -n "$kdir" ]; then
			if [ "$v" = unpatched ]; then src=${srcs[0]}; else src=${srcs[1]}; fi
			ksft_variant "$branch" "$v" "$profile" "$built" "$dir" "$src"
		else
			ksft_variant "$branch" "$v" "$profile" "$built" "$dir"
		fi
	done
	args=(--branch "$branch" --arch "$(ksft_key "$profile")" --records "$dir/records.tsv" --markdown "$dir/selftests.md"
		--version "$REQ_VERSION" --target "$REQ_TARGET")
	case $only in
	'') args+=(--patched "$dir/patched.log" --unpatched "$dir/unpatched.log")
	    [ -n "$kdir" ] || args+=(--expect "$KSFT_EXPECT") ;;
	patched) args+=(--patched "$dir/patched.log" --expect "$KSFT_EXPECT") ;;
	unpatched) args+=(--patched "$dir/unpatched.log" --no-judge) ;;
	esac
	args+=(--notrun "$dir/${variants##* }/notrun.tsv")
	[ "$save" = 0 ] || args+=(--write-expect "$KSFT_EXPECT")
	kit_py kselftest judge "${args[@]}" --regressed "$dir/regressed" || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 1 ] || die "the selftest judge failed (status $rc); see above"
	# a regression is confirmed by a second run of its programs on the
	# same patched kernel: a case that fails once (timing under TCG, on a
	# loaded machine) is flaky, not a regression of the series
	if [ "$rc" = 1 ] && [ -s "$dir/regressed" ] && [ -f "$dir/patched/image" ]; then
		kit_try ksft_retry "$dir"
		if [ "$KIT_RC" = 0 ]; then
			rc=0
			kit_py kselftest judge "${args[@]}" --retry "$dir/patched-retry.log" || rc=$?
			[ "$rc" = 0 ] || [ "$rc" = 1 ] || die "the selftest judge failed (status $rc); see above"
		else
			warn "selftests: the second run of $(paste -sd' ' "$dir/regressed") failed (status $KIT_RC): the regressions stand"
		fi
	fi
	kit_py results ktap "$dir/records.tsv" --title "selftests $name ($(kb_describe))" \
		--summary "selftests $name" > "$dir/selftests.ktap"
	kit_py results junit -o "$dir/junit.xml" "selftests-$name=$dir/records.tsv"
	kit_py results json -o "$dir/results.json" "$dir/records.tsv"
	{
		printf '\n## Times\n\n'
		printf -- '- programs built (or taken from the cache) in %ss: %s\n' "$tb" "$built"
		for v in $variants; do
			printf -- '- %s guest: %ss%s\n' "$v" "$(cat "$dir/$v/seconds" 2>/dev/null || echo 0)" \
				"$([ -f "$dir/$v/seconds" ] || echo ' (results cached by the kernel hash)')"
		done
	} >> "$dir/selftests.md"
	grep -E '^(not ok|# selftests)' "$dir/selftests.ktap" || true
	progress "selftests: $dir/selftests.md"
	return "$rc"
)
