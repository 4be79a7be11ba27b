#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kmod.sh OBJ - build the nosteal KTAP test module (tests/module) with DKMS
# against the built kernel tree OBJ, keeping every DKMS state dir in the kit
# cache (nothing in /var, no signing).  Prints the .ko path.  On a kernel
# without down_read_nosteal() the module tests the down_read() fallback.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKG=nosteal-test
VER=1.0

# dkms_in DIR ARGS...: dkms with its source, state and install trees in DIR
dkms_in() {
	local d=$1
	shift
	sign_file=/nonexistent dkms --sourcetree "$d/src" --dkmstree "$d/tree" --installtree "$d/inst" "$@"
}

main() {
	local obj=${1:-} rel d ko
	[ -n "$obj" ] || die "usage: kmod.sh OBJ (a built kernel tree)"
	[ -f "$obj/include/config/kernel.release" ] ||
		die "$obj is not a configured kernel tree (no include/config/kernel.release); build it: scripts/kbuild.sh SRC $obj bzImage modules"
	[ -f "$obj/Module.symvers" ] ||
		die "$obj has no Module.symvers (prepared, not built: modpost would fail); build it: scripts/kbuild.sh SRC $obj bzImage modules"
	rel=$(cat "$obj/include/config/kernel.release")
	d=$CACHE_DIR/dkms/$(printf '%s' "$obj" | sha256sum | cut -c1-12)
	rm -rf "$d"
	mkdir -p "$d/src" "$d/tree" "$d/inst"
	cp -a "$KIT_DIR/tests/module" "$d/src/$PKG-$VER"
	rm -f "$d/src/$PKG-$VER"/*.ko "$d/src/$PKG-$VER"/*.o
	dkms_in "$d" add "$PKG/$VER" > "$d/add.log" 2>&1 ||
		die "dkms add of $PKG failed (log: $d/add.log)"
	dkms_in "$d" build "$PKG/$VER" -k "$rel" --kernelsourcedir "$obj" > "$d/build.log" 2>&1 ||
		die "dkms build of $PKG failed for $rel (logs: $d/build.log, $d/tree/$PKG/$VER/build/make.log)"
	ko=$(find "$d/tree/$PKG/$VER/$rel" -name 'nosteal_test.ko*' | sed -n 1p)
	[ -n "$ko" ] || die "dkms built no nosteal_test.ko for $rel (log: $d/build.log)"
	printf '%s\n' "$ko"
}

main "$@"
