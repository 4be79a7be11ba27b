#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sparse.sh - print the path of a sparse that can check every supported
# branch.  Debian 12's sparse 0.6.4 lacks __typeof_unqual__, which 7.2's
# scripts/checker-valid.sh requires (make C=2 then silently skips sparse), so
# the kit builds Debian sid's sparse source package once into its cache.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/apt-lib.sh"

TOOLS_DIR=$CACHE_DIR/tools

# sparse_ok BIN: the probe 7.2's checker-valid.sh uses
sparse_ok() {
	printf 'void f(int *q) { __typeof_unqual__(*q) v = *q; (void)v; }\n' |
		"$1" -Wno-decl - 2>&1 | awk '/error/ { bad = 1 } END { exit bad }'
}

build_sparse() {
	local src=$TOOLS_DIR/src/sparse dir
	update_lists
	rm -rf "$src"
	mkdir -p "$src"
	progress "sparse: fetching Debian sid's sparse source package"
	( cd "$src" && kit_apt apt-get source --download-only sparse >/dev/null ) ||
		die "could not fetch the sparse source package from sid; check the machine's apt mirror"
	( cd "$src" && dpkg-source -x --no-check ./*.dsc build >/dev/null ) ||
		die "could not unpack the sparse source package in $src"
	progress "sparse: building $(basename "$src"/*.dsc .dsc)"
	make -C "$src/build" -j"$(nproc)" sparse CC=gcc HAVE_LLVM=no HAVE_GTK=no HAVE_SQLITE=no \
		> "$src/build.log" 2>&1 || die "sparse build failed; see $src/build.log"
	mkdir -p "$TOOLS_DIR/bin"
	cp "$src/build/sparse" "$TOOLS_DIR/bin/sparse.new"
	mv "$TOOLS_DIR/bin/sparse.new" "$TOOLS_DIR/bin/sparse"
}

main() {
	local bin=$TOOLS_DIR/bin/sparse
	if [ -x "$bin" ] && sparse_ok "$bin"; then
		printf '%s\n' "$bin"
		return
	fi
	build_sparse
	sparse_ok "$bin" || die "$bin still lacks __typeof_unqual__; report the sparse version in $TOOLS_DIR/src"
	printf '%s\n' "$bin"
}

main "$@"
