# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# coccicheck.sh - run the kit's semantic patches through the kernel's own
# "make coccicheck" (make coccicheck KDIR=d|BRANCH=b MODE=... COCCI=...).
# coccicheck_run: on the request's tree (REQ_TREE) in REQ_MODE, one of
# coccicheck's modes: patch, report, context, org. The positional
# arguments (REQ_ARGS) are .cocci files (default: every cocci/*.cocci of
# the kit), each run with COCCI=<absolute path>; REQ_DIR_M (make's M=)
# limits the run to that directory of the tree (e.g. mm). The output is
# coccicheck's.
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
kit_use tables trees request

coccicheck_run() (
	local m=$REQ_DIR_M tree=$REQ_TREE mode=$REQ_MODE f rc=0 cocci=()
	case $m in
	-) m='' ;;
	'') usage_error "M= is empty; give a directory of the tree, e.g. M=mm" ;;
	esac
	for f in ${REQ_ARGS[@]+"${REQ_ARGS[@]}"}; do
		case $f in /*) cocci+=("$f") ;; *) cocci+=("$REQ_FROM/$f") ;; esac
	done
	set -- ${cocci[@]+"${cocci[@]}"}
	[ -f "$tree/scripts/coccicheck" ] || usage_error "$tree has no scripts/coccicheck; point KDIR= at the top of a Linux tree"
	case $mode in patch|report|context|org) ;; *) usage_error "unknown mode '$mode'; use MODE=patch, report, context or org" ;; esac
	command -v spatch >/dev/null || die "spatch not found; install coccinelle (bin/deps does as root)"
	[ -z "$m" ] || [ -d "$tree/$m" ] || usage_error "$tree/$m does not exist; give M= a directory of the tree"
	[ $# -gt 0 ] || set -- "$KIT_DIR"/cocci/*.cocci
	# read only: an apply or unapply of the tree waits, and this waits for it
	lock_tree "$tree" shared
	for f in "$@"; do
		[ -f "$f" ] || usage_error "$f does not exist; give COCCI= .cocci files of the kit"
		f=$(cd "$(dirname "$f")" && pwd)/${f##*/}
		make -s -C "$tree" coccicheck MODE="$mode" COCCI="$f" J=1 \
			SPFLAGS="--macro-file $KIT_DIR/cocci/macros.h" ${m:+M="$m"} || rc=1
	done
	return $rc
)
