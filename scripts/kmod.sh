#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kmod.sh OBJ - build the nosteal KTAP test module (tests/module) with DKMS
# against the kernel build dir OBJ, keeping every DKMS state dir in the kit
# cache (nothing in /var, no signing).  Prints the .ko path.  Exit 2 with
# the reason on stderr when the kernel lacks down_read_nosteal().
set -eu
. "$(dirname "$0")/lib.sh"

PKG=nosteal-test
VER=1.0

main() {
	local obj=${1:?usage: kmod.sh OBJ} rel d ko
	[ -f "$obj/include/config/kernel.release" ] ||
		die "$obj is not a built kernel (no include/config/kernel.release); build it first"
	rel=$(cat "$obj/include/config/kernel.release")
	if ! "$KIT_DIR/tests/module/check-api.sh" "$obj" >&2; then
		return 2
	fi
	d=$CACHE_DIR/dkms/$(printf '%s' "$obj" | sha256sum | cut -c1-12)
	rm -rf "$d"
	mkdir -p "$d/src" "$d/tree" "$d/inst"
	cp -a "$KIT_DIR/tests/module" "$d/src/$PKG-$VER"
	rm -f "$d/src/$PKG-$VER"/*.ko "$d/src/$PKG-$VER"/*.o
	dkms --sourcetree "$d/src" --dkmstree "$d/tree" --installtree "$d/inst" \
		add "$PKG/$VER" >/dev/null
	sign_file=/nonexistent dkms --sourcetree "$d/src" --dkmstree "$d/tree" \
		--installtree "$d/inst" build "$PKG/$VER" -k "$rel" \
		--kernelsourcedir "$obj" > "$d/build.log" 2>&1 ||
		die "dkms build of $PKG failed for $rel (log: $d/build.log and $d/tree/$PKG/$VER/build/make.log)"
	ko=$(find "$d/tree/$PKG/$VER/$rel" -name 'nosteal_test.ko*' | head -n1)
	[ -n "$ko" ] || die "dkms built no nosteal_test.ko for $rel (log: $d/build.log)"
	printf '%s\n' "$ko"
}

main "$@"
