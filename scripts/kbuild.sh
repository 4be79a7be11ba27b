#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kbuild.sh [--fragment FILE]... [--no-debug] SRC OBJ [make targets/args...]
# - build the kit's small test kernel.
#
# OBJ/.config is tinyconfig + configs/base.config + the branch's own fragment
# (the "config" column of backports/branches.table, for SRC's branch) +
# configs/debug.config (not with --no-debug: benchmark kernels) + every
# --fragment, produced in one allnoconfig pass with KCONFIG_ALLCONFIG (what
# tinyconfig + merge_config.sh do, without writing into SRC).  It is regenerated only when that input
# changed; every "=y" of the fragments is then checked in OBJ/.config (a symbol
# the branch has no Kconfig entry for is skipped).  The build runs
# make -C SRC O=OBJ CC="ccache gcc" with ccache in the kit cache; make decides
# what to rebuild.  Default targets: bzImage modules.  SRC is never written.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

extra=() debug=1
while [ $# -gt 0 ]; do
	case $1 in
	--fragment) extra+=("${2:-}"); shift 2 ;;
	--no-debug) debug=0; shift ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || die "usage: kbuild.sh [--fragment FILE]... [--no-debug] SRC OBJ [make targets/args...]"
SRC=$1
OBJ=$2
shift 2
[ -f "$SRC/Makefile" ] || die "SRC=$SRC is not a kernel tree (no Makefile)"
SRC=$(cd "$SRC" && pwd)
mkdir -p "$OBJ"
OBJ=$(cd "$OBJ" && pwd)
[ "$SRC" != "$OBJ" ] || die "OBJ must differ from SRC (SRC is never written)"
[ $# -gt 0 ] || set -- bzImage modules

# One build at a time in OBJ (make boot and make check share build dirs).
exec 9>"$OBJ/.kit-lock"
if ! flock -n 9; then
	progress "kbuild: $OBJ is busy (another build); waiting"
	flock 9
fi

export CCACHE_DIR=${CCACHE_DIR:-$CACHE_DIR/ccache}
# source paths relative to the build dir: patched and unpatched trees share objects
export CCACHE_BASEDIR=$CACHE_DIR CCACHE_NOHASHDIR=1
mkdir -p "$CCACHE_DIR"
command -v ccache >/dev/null || die "ccache not installed (apt-get install ccache)"
KCC="ccache gcc"
# one job more than CPUs: a compile waiting on ccache or the disk leaves a
# CPU idle otherwise (measured: 3-7% faster on 2 cores)
JOBS=$(( $(nproc) + 1 ))

# the branch's own fragment, if the tree is of a supported branch
branch_config=
if is_kernel_tree "$SRC" && tree_is_branch "$SRC"; then
	v=$(kernel_version "$SRC")
	c=$(branch_field "${v%.*}" config)
	[ "$c" = - ] || [ -z "$c" ] || branch_config=$KIT_DIR/configs/$c
fi
fragments=("$KIT_DIR/configs/base.config")
[ -z "$branch_config" ] || fragments+=("$branch_config")
[ $debug = 0 ] || fragments+=("$KIT_DIR/configs/debug.config")
fragments+=(${extra[@]+"${extra[@]}"})
for f in "${fragments[@]}"; do
	[ -f "$f" ] || die "config fragment $f does not exist"
done

# The allconfig input: the tree's own tinyconfig fragments, then ours (later wins).
allconfig_new=$OBJ/.kit-allconfig.new
{
	for f in kernel/configs/tiny-base.config kernel/configs/tiny.config \
		 arch/x86/configs/tiny.config; do
		[ -f "$SRC/$f" ] || continue
		printf '# ---- %s (tree)\n' "$f"
		cat "$SRC/$f"
	done
	for f in "${fragments[@]}"; do
		printf '# ---- %s\n' "$f"
		cat "$f"
	done
} > "$allconfig_new"

# kconfig_has SYMBOL: the tree defines the symbol somewhere in a Kconfig file
kconfig_has() {
	grep -rqsE --include='Kconfig*' "^[[:space:]]*(menu)?config[[:space:]]+$1[[:space:]]*$" \
		"$SRC/arch/x86" "$SRC/init" "$SRC/kernel" "$SRC/mm" "$SRC/lib" "$SRC/fs" \
		"$SRC/drivers/tty" "$SRC/usr" "$SRC/security" "$SRC/net" "$SRC/Kconfig" 2>/dev/null
}

# A fragment may waive what an earlier one requires where its own options
# exclude it: "# kit-waive: CONFIG_A CONFIG_B" (e.g. THP needs !PREEMPT_RT
# on some branches)
verify_config() {
	local f sym missing="" waived
	waived=" $(sed -n 's/^# kit-waive: //p' "${fragments[@]}" | tr '\n' ' ') "
	for f in "${fragments[@]}"; do
		for sym in $(sed -n 's/^CONFIG_\([A-Za-z0-9_]*\)=y[[:space:]]*$/\1/p' "$f"); do
			grep -qx "CONFIG_$sym=y" "$OBJ/.config" && continue
			[[ $waived != *" CONFIG_$sym "* ]] || continue
			if kconfig_has "$sym"; then
				missing="$missing CONFIG_$sym(${f##*/})"
			fi
		done
	done
	[ -z "$missing" ] ||
		die "required option(s) not =y in $OBJ/.config after the merge:$missing; check their dependencies in $SRC (make -C $SRC O=$OBJ menuconfig, search the symbol)"
}

if [ -f "$OBJ/.config" ] && [ -f "$OBJ/.kit-allconfig" ] &&
   cmp -s "$allconfig_new" "$OBJ/.kit-allconfig"; then
	rm -f "$allconfig_new"
	progress "kbuild: $OBJ/.config up to date"
else
	progress "kbuild: generating $OBJ/.config (tinyconfig + ${fragments[*]})"
	if [ -f "$OBJ/.kit-allconfig" ]; then
		progress "kbuild: config input changed:"
		diff "$OBJ/.kit-allconfig" "$allconfig_new" | grep '^[<>]' | head -n 20 >&2 || true
	fi
	# If a previous .config exists, keep its mtime when the result is identical
	# so that make sees nothing new.
	[ -f "$OBJ/.config" ] && cp -p "$OBJ/.config" "$OBJ/.config.kit-prev"
	make -s -C "$SRC" O="$OBJ" CC="$KCC" KCONFIG_ALLCONFIG="$allconfig_new" allnoconfig \
		> "$OBJ/.kit-kconfig.log" 2>&1 ||
		{ cat "$OBJ/.kit-kconfig.log" >&2; die "kconfig failed (log: $OBJ/.kit-kconfig.log)"; }
	if [ -f "$OBJ/.config.kit-prev" ] && cmp -s "$OBJ/.config" "$OBJ/.config.kit-prev"; then
		mv "$OBJ/.config.kit-prev" "$OBJ/.config"
	else
		rm -f "$OBJ/.config.kit-prev"
	fi
	verify_config
	mv "$allconfig_new" "$OBJ/.kit-allconfig"
fi
verify_config

# Reproducible (Documentation/kbuild/reproducible-builds.rst): the same
# tree, config and compiler give the same bzImage on any machine and day,
# so make bench --resume can key finished rounds by the bzImage's sha256
# wherever they ran.  The caller's own values win.
export KBUILD_BUILD_TIMESTAMP=${KBUILD_BUILD_TIMESTAMP:-1970-01-01 00:00:00 UTC}
export KBUILD_BUILD_USER=${KBUILD_BUILD_USER:-mmbk}
export KBUILD_BUILD_HOST=${KBUILD_BUILD_HOST:-mmbk}
export KBUILD_BUILD_VERSION=${KBUILD_BUILD_VERSION:-1}
progress "kbuild: make -C $SRC O=$OBJ -j$JOBS $* (log: $OBJ/kbuild.log)"
start=$(date +%s)
make -C "$SRC" O="$OBJ" CC="$KCC" -j"$JOBS" "$@" 2>&1 | tee "$OBJ/kbuild.log" |
	sed -u -E '/^make(\[[0-9]+\])?: (Entering|Leaving) directory/d' >&2 ||
	die "kernel build failed: make -C $SRC O=$OBJ $* (log: $OBJ/kbuild.log)"
progress "kbuild: done in $(( $(date +%s) - start ))s: $OBJ"
