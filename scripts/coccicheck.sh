#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# coccicheck.sh [-M DIR] TREE MODE [COCCI...] - run the kit's semantic
# patches through the kernel's own "make coccicheck" in TREE.
#
# MODE is one of coccicheck's modes: patch, report, context, org. COCCI are
# .cocci files (default: every cocci/*.cocci of the kit), each run with
# COCCI=<absolute path>; -M DIR limits the run to that directory of the
# tree (coccicheck's M=, e.g. mm). The output is coccicheck's.
#
# The macro file: scripts/coccicheck appends the "// Options:" line of a
# .cocci file to spatch's arguments, and runs spatch from the kernel tree,
# so a path there (such as --macro-file cocci/macros.h) would be read
# relative to the kernel tree and point nowhere. The kit's .cocci files
# therefore name no macro file; this wrapper passes the kit's one with an
# absolute path through coccicheck's SPFLAGS (which it appends last).
# Without it the semantic patches still work on the files the kit changes,
# but constructs such as `} for_each_vma(vmi, vma);` (show_smaps_rollup(),
# 6.12+) leave whole functions unparsed. To run coccicheck by hand:
#   make coccicheck MODE=report COCCI=$KIT/cocci/<name>.cocci \
#        SPFLAGS="--macro-file $KIT/cocci/macros.h" [M=mm]
# TREE is only read.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

main() {
	local m='' tree mode f rc=0
	if [ "${1:-}" = -M ]; then
		m=${2:-}
		[ -n "$m" ] || die "usage: coccicheck.sh [-M DIR] TREE MODE [COCCI...]"
		shift 2
	fi
	[ $# -ge 2 ] || die "usage: coccicheck.sh [-M DIR] TREE MODE [COCCI...]"
	tree=$(cd "$1" 2>/dev/null && pwd) || die "KDIR=$1 does not exist; point KDIR= at a kernel source tree"
	mode=$2
	shift 2
	[ -f "$tree/scripts/coccicheck" ] || die "$tree has no scripts/coccicheck; point KDIR= at the top of a Linux tree"
	case $mode in patch|report|context|org) ;; *) die "unknown mode '$mode'; use patch, report, context or org" ;; esac
	command -v spatch >/dev/null || die "spatch not found; install coccinelle"
	[ -z "$m" ] || [ -d "$tree/$m" ] || die "$tree/$m does not exist; give -M a directory of the tree"
	[ $# -gt 0 ] || set -- "$KIT_DIR"/cocci/*.cocci
	for f in "$@"; do
		[ -f "$f" ] || die "$f does not exist; give .cocci files of the kit"
		f=$(cd "$(dirname "$f")" && pwd)/${f##*/}
		make -s -C "$tree" coccicheck MODE="$mode" COCCI="$f" J=1 \
			SPFLAGS="--macro-file $KIT_DIR/cocci/macros.h" ${m:+M="$m"} || rc=1
	done
	return $rc
}

main "$@"
