#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# initramfs.sh OUT.cpio TESTDIR [MODULE.ko...] - pack the boot-test
# initramfs: busybox-static, tests/guest/init as /init, every executable of
# TESTDIR in /tests and the given modules in /modules (the guest's /init
# finds them there).  Uses the kernel's gen_init_cpio (no root, no mknod).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

BUSYBOX=/bin/busybox
INIT=$KIT_DIR/tests/guest/init

# gen_init_cpio -> path of the kernel's usr/gen_init_cpio, built once from
# any cached tree
gen_init_cpio() {
	local gen=$CACHE_DIR/bin/gen_init_cpio b f
	if [ ! -x "$gen" ]; then
		for b in $SUPPORTED_BRANCHES; do
			f=$(pristine_dir "$b")/usr/gen_init_cpio.c
			[ -f "$f" ] || continue
			mkdir -p "$CACHE_DIR/bin"
			gcc -O2 -o "$gen.tmp" "$f" || die "building $f failed"
			mv "$gen.tmp" "$gen"
			break
		done
	fi
	[ -x "$gen" ] || die "no usr/gen_init_cpio.c in the cached trees; run 'make tree' first"
	printf '%s\n' "$gen"
}

# cpio_list TESTDIR MODULE... -> gen_init_cpio's list of the initramfs
cpio_list() {
	local dir=$1 t m d
	shift
	printf '%s\n' "dir /bin 0755 0 0" "dir /dev 0755 0 0" \
		"nod /dev/console 0600 0 0 c 5 1" "nod /dev/null 0666 0 0 c 1 3" \
		"dir /proc 0755 0 0" "dir /sys 0755 0 0" "dir /tmp 1777 0 0" \
		"dir /tests 0755 0 0" "dir /modules 0755 0 0" \
		"file /bin/busybox $BUSYBOX 0755 0 0" "slink /bin/sh busybox 0777 0 0" \
		"file /init $INIT 0755 0 0"
	for t in "$dir"/*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		echo "file /tests/${t##*/} $t 0755 0 0"
	done
	for m in "$@"; do
		d=$(cd "$(dirname "$m")" && pwd)
		echo "file /modules/${m##*/} $d/${m##*/} 0644 0 0"
	done
}

main() {
	local out=${1:-} dir=${2:-} gen m n
	[ $# -ge 2 ] || die "usage: initramfs.sh OUT.cpio TESTDIR [MODULE.ko...]"
	shift 2
	[ -d "$dir" ] || die "test dir $dir does not exist; build it: make -C $KIT_DIR/tests/suite"
	dir=$(cd "$dir" && pwd)
	n=$(find "$dir" -maxdepth 1 -type f -perm -u+x | wc -l)
	[ "$n" -gt 0 ] || die "no test programs in $dir; build them: make -C $KIT_DIR/tests/suite"
	for m in "$@"; do
		[ -f "$m" ] || die "module $m does not exist; build it: scripts/kmod.sh OBJ"
	done
	[ -x "$BUSYBOX" ] && ! ldd "$BUSYBOX" >/dev/null 2>&1 ||
		die "no static busybox at $BUSYBOX; apt-get install busybox-static"
	gen=$(gen_init_cpio)
	mkdir -p "$(dirname "$out")"
	cpio_list "$dir" "$@" > "$out.list"
	"$gen" "$out.list" > "$out.tmp" || die "gen_init_cpio failed on $out.list"
	mv "$out.tmp" "$out"
	progress "initramfs: $out ($(du -k "$out" | cut -f1) kB: $n programs, $# modules)"
}

main "$@"
