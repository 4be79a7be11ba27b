# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034  # REQ_* are the request, read by the modules
# request.sh - the request: what a command was asked, parsed once from its
# command line (request_parse, in bin/ only: the one option parser, driven
# by tables/options.table) and resolved once (the tree, its branch and
# version, the build target); every module entry point reads it and takes
# no option of its own (after kunit's KunitRequest, built once in
# run_handler and handed to every stage).
#
# The fields (REQ_<FIELD>; only this file assigns them):
#   CMD             the command (apply, check, boot, ...)
#   KDIR FROM       the user's tree as given ("-": none) and the caller's directory
#   TREE BRANCH VERSION  the tree the command works on, the branch whose
#                   series it gets, its Linux version (request_tree)
#   ARCH LLVM KCONFIG    the build target as asked; TARGET the resolved one's
#                   name (x86_64, arm64, x86_64-llvm, ...; request_target,
#                   which sets kbuild.sh's KB_*)
#   TOPICS SERIES_PROFILE STRICT FORCE VERIFY RECORDS   apply, unapply, status
#   RECORDS_AT      a file the entry point hands its record file's path
#                   back in (request_hand_back), for a caller that runs it
#                   as a step (the matrix; make test runs the matrix so,
#                   which hands back the list of its record files): no
#                   caller computes another module's output path
#   BUILD_PROFILE VARIANT ...   boot and selftests; the rest: one command each
#   ARGS            the positional arguments of a command that takes them
# A module that runs a command's entry point for a tree of its own (the
# kit's patched copies, the matrix's steps, make selftests' two kernels)
# derives a request in a subshell with request_with, never by options.
kit_use tables trees kbuild

# the options are the commands': the kit's own table, also for a kit of other data (MMBK_DATA)
REQ_OPTIONS_TABLE=$KIT_DIR/tables/options.table

# request_reset CMD: every field at its default
request_reset() {
	REQ_CMD=$1 REQ_KDIR=- REQ_FROM=$PWD REQ_TREE='' REQ_BRANCH='' REQ_VERSION=''
	REQ_ARCH='' REQ_LLVM='' REQ_KCONFIG='' REQ_TARGET=''
	REQ_TOPICS='' REQ_SERIES_PROFILE=default REQ_STRICT=0 REQ_FORCE=0 REQ_VERIFY=default REQ_RECORDS='' REQ_RECORDS_AT=''
	REQ_BUILD_PROFILE=test REQ_VARIANT='' REQ_PATCHED='' REQ_JUDGE='' REQ_BUILD=1 REQ_BUILD_ONLY=0 REQ_EXPECT=1
	REQ_APPEND='' REQ_SUITE_DIR='' REQ_MODULES=kit REQ_TIMEOUT=240 REQ_TEST_TIMEOUT=150 REQ_MEM=1024M
	REQ_OUT=$OUT_DIR REQ_SAVE=0 REQ_ONLY='' REQ_FORMAT=quilt REQ_MODE=report REQ_DIR_M=- REQ_REGEN_CHECK=0
	REQ_BOOT='' REQ_FULL=0 REQ_FAST=0 REQ_BENCH_MODE=measure REQ_ROUNDS=10 REQ_SCAN_MODES=fast,default
	REQ_BENCH_BOOT_TIMEOUT=1500 REQ_BENCH_TEST_TIMEOUT=600
	REQ_ARGS=()
}

# request_spec CMD: REQ_SPEC[OPTION] "FIELD TAKES" for the options of CMD,
# REQ_TAKES_ARGS what its positional arguments are ("" if none); read by
# the shell itself from tables/options.table
request_spec() {
	local line opt field takes cmds
	declare -gA REQ_SPEC=()
	REQ_TAKES_ARGS=''
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%%#*}
		read -r opt field takes cmds <<< "$line" || true
		[ -n "$opt" ] || continue
		if [ "$opt" = @args ]; then
			[ "$field" != "$1" ] || REQ_TAKES_ARGS=$takes
			continue
		fi
		case ",$cmds," in *",$1,"*) REQ_SPEC[$opt]="$field $takes" ;; esac
	done < "$REQ_OPTIONS_TABLE"
}

# request_parse CMD ARGS...: the command line of bin/CMD into the request,
# and what every command checks of it (a branch, the topics, VERIFY=, a
# relative KCONFIG= file is the caller's); a bad one is a usage error
request_parse() {
	local spec
	request_reset "$1"
	request_spec "$1"
	shift
	while [ $# -gt 0 ]; do
		spec=${REQ_SPEC[$1]-}
		if [ -z "$spec" ]; then
			case $1 in
			-?*) usage_error "unknown option '$1'; make help lists the options of each command" ;;
			esac
			[ -n "$REQ_TAKES_ARGS" ] || usage_error "unknown argument '$1'; make help lists the arguments of each command"
			REQ_ARGS+=("$1")
			shift
			continue
		fi
		case ${spec#* } in
		value)	[ $# -ge 2 ] || usage_error "$1 needs a value"
			printf -v "REQ_${spec%% *}" '%s' "$2"
			shift 2 ;;
		=*)	printf -v "REQ_${spec%% *}" '%s' "${spec#* =}"
			shift ;;
		esac
	done
	if [ -n "$REQ_BRANCH" ]; then require_branch "$REQ_BRANCH"; fi
	if [ -n "$REQ_TOPICS" ]; then check_topics "$REQ_TOPICS" > /dev/null; fi
	case $REQ_VERIFY in default|strict) ;; *) usage_error "VERIFY=$REQ_VERIFY: use VERIFY=strict or leave it out" ;; esac
	if [ -n "$REQ_KCONFIG" ] && [ "${REQ_KCONFIG#/}" = "$REQ_KCONFIG" ] && [ -f "$REQ_FROM/$REQ_KCONFIG" ]; then
		REQ_KCONFIG=$REQ_FROM/$REQ_KCONFIG
	fi
	request_variant
	return 0
}

# request_variant: make boot's kernel, once: VARIANT= as given, else from
# PATCHED= (1 or 0; yes/no, y/n, true/false) and the series PROFILE=
# (kabi: patched-kabi); the Makefile passes the variables only
request_variant() {
	[ -z "$REQ_PATCHED" ] || [ -n "$REQ_VARIANT" ] || case $REQ_PATCHED in
		1|yes|y|true) ;;
		0|no|n|false) REQ_VARIANT=unpatched ;;
		*) usage_error "PATCHED=$REQ_PATCHED: use PATCHED=1 or PATCHED=0 (or VARIANT=)" ;;
	esac
	if [ "$REQ_CMD" = boot ] && [ -z "$REQ_VARIANT" ]; then
		case $REQ_SERIES_PROFILE in
		default) REQ_VARIANT=patched ;;
		kabi) REQ_VARIANT=patched-kabi ;;
		*) usage_error "PROFILE=$REQ_SERIES_PROFILE: make boot takes PROFILE=kabi (RT=1 for PREEMPT_RT)" ;;
		esac
	fi
}

# request_branch_or_default: the branch asked, or the default branch (the
# one place that falls back to it: a command without KDIR= or BRANCH=)
request_branch_or_default() {
	REQ_BRANCH=${REQ_BRANCH:-$DEFAULT_BRANCH}
	require_branch "$REQ_BRANCH"
}

# request_tree TREE BRANCH: the tree the command works on and the branch
# whose series it gets; its version is read from it.  A build target
# already resolved stays (a derived request on a copy of the tree builds
# for the command's target)
request_tree() {
	REQ_TREE=$1 REQ_BRANCH=$2
	REQ_VERSION=$(kernel_version "$1" 2>/dev/null) || REQ_VERSION=''
}

# request_target: the build target of the request on its tree, resolved
# once (kbuild.sh kb_target: KB_*); REQ_TARGET its name
request_target() {
	[ -z "$REQ_TARGET" ] || return 0
	kb_target "$REQ_ARCH" "$REQ_LLVM" "$REQ_KCONFIG" "$REQ_TREE"
	REQ_TARGET=$KB_ARCH${KB_TAG#-"$KB_ARCH"}
}

# request_with FIELD=VALUE...: a request derived from this one, for an
# entry point a module runs on a tree of its own (in a subshell: the
# caller's request stays as it was; request_call); TREE= takes BRANCH= with
# it and reads the version; ARCH=, LLVM= or KCONFIG= make the target
# resolved again (request_target)
request_with() {
	local kv f tree='' branch=$REQ_BRANCH
	for kv in "$@"; do
		f=${kv%%=*}
		if [ "$f" = "$kv" ] || ! [[ $f =~ ^[A-Z_]+$ ]] || ! declare -p "REQ_$f" > /dev/null 2>&1; then
			die "internal error: request_with: '$kv' is not FIELD=VALUE of a request field"
		fi
		case $f in
		TREE) tree=${kv#*=} ;;
		BRANCH) branch=${kv#*=} ;;
		ARCH|LLVM|KCONFIG) printf -v "REQ_$f" '%s' "${kv#*=}"; REQ_TARGET='' ;;
		*) printf -v "REQ_$f" '%s' "${kv#*=}" ;;
		esac
	done
	if [ -n "$tree" ]; then request_tree "$tree" "$branch"; else REQ_BRANCH=$branch; fi
}

# request_hand_back RECORDS [KTAP]: the entry point's record file RECORDS
# (an entry point of many steps, the matrix: the file listing its record
# files, one a line) and the KTAP document it writes of them, if it writes
# one (the boot's judged KTAP), handed back to its caller, in
# REQ_RECORDS_AT (RECORDS its first line, KTAP its second) when the
# caller asked for it;
# called once RECORDS is this run's (emptied or removed), so a step that
# breaks later hands back its records so far, and one that breaks before
# hands back none
request_hand_back() {
	[ -z "$REQ_RECORDS_AT" ] || printf '%s\n' "$@" > "$REQ_RECORDS_AT"
}

# request_call FIELD=VALUE... -- FUNC [ARG...]: FUNC run with the request
# derived by request_with, in a subshell (the caller's stays as it was)
request_call() (
	local kv=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do kv+=("$1"); shift; done
	[ $# -ge 2 ] || die "internal error: request_call needs FIELD=VALUE... -- FUNC"
	shift
	[ ${#kv[@]} -eq 0 ] || request_with "${kv[@]}"
	"$@"
)

# a module loaded without a command (a unit test's) reads the defaults
request_reset ''
