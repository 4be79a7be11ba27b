#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# deps.sh - make sure the host tools the kit runs are installed.  As root the
# missing Debian packages are installed with apt-get; otherwise the command
# to run is printed.  The package list below is the only one in the kit.
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
curl           curl"
# libraries and headers, checked by dpkg
LIBS="libelf-dev libssl-dev python3-yaml debian-archive-keyring"

missing_packages() {
	local cmd pkg
	printf '%s\n' "$NEEDED" | while read -r cmd pkg; do
		command -v "$cmd" >/dev/null 2>&1 || echo "$pkg"
	done
	for pkg in $LIBS; do
		dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null | grep -q 'install ok installed' || echo "$pkg"
	done
}

main() {
	local missing
	missing=$(missing_packages | sort -u | paste -sd' ')
	[ -n "$missing" ] || return 0
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
}

main "$@"
