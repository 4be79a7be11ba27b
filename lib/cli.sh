# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034  # CLI_* are the command's settings
# cli.sh - the options every command in bin/ shares, parsed in one place,
# and the one resolution of the tree, branch and build target a command
# then passes down as arguments.
#
#   --kdir DIR      a kernel tree (KDIR=); relative to --from
#   --branch B      a supported branch (BRANCH=); with --kdir it must agree
#   --from DIR      the caller's directory (the Makefile passes $PWD)
#   --arch A        x86_64 or arm64 (ARCH=); default: the tree's own
#   --llvm 1        build with clang/LLVM (LLVM=1)
#   --kconfig K     the tree's own config: a defconfig name or a file (KCONFIG=)
#   --verify M      strict: an object no build verifies refuses the change (VERIFY=)
#   --topics LIST   topics (TOPICS=), --profile P (PROFILE=), --strict, --force
# Anything else is left in CLI_REST for the command.
kit_use tables trees

# cli_parse ARGS...: the shared options into CLI_*, the others in CLI_REST
cli_parse() {
	CLI_KDIR=- CLI_BRANCH='' CLI_FROM=$PWD CLI_ARCH='' CLI_LLVM='' CLI_KCONFIG='' CLI_VERIFY=''
	CLI_TOPICS='' CLI_PROFILE='' CLI_STRICT=0 CLI_FORCE=0
	CLI_REST=()
	while [ $# -gt 0 ]; do
		case $1 in
		--strict) CLI_STRICT=1; shift; continue ;;
		--force) CLI_FORCE=1; shift; continue ;;
		--kdir|--branch|--from|--arch|--llvm|--kconfig|--verify|--topics|--profile)
			[ $# -ge 2 ] || usage_error "$1 needs a value"
			case $1 in
			--kdir) CLI_KDIR=$2 ;;
			--branch) CLI_BRANCH=$2 ;;
			--from) CLI_FROM=$2 ;;
			--arch) CLI_ARCH=$2 ;;
			--llvm) CLI_LLVM=$2 ;;
			--kconfig) CLI_KCONFIG=$2 ;;
			--verify) CLI_VERIFY=$2 ;;
			--topics) CLI_TOPICS=$2 ;;
			--profile) CLI_PROFILE=$2 ;;
			esac
			shift 2 ;;
		*) CLI_REST+=("$1"); shift ;;
		esac
	done
	if [ -n "$CLI_BRANCH" ]; then require_branch "$CLI_BRANCH"; fi
	if [ -n "$CLI_TOPICS" ]; then check_topics "$CLI_TOPICS" > /dev/null; fi
	case $CLI_VERIFY in ''|default|strict) ;; *) usage_error "VERIFY=$CLI_VERIFY: use VERIFY=strict or leave it out" ;; esac
	# a relative KCONFIG= file is the caller's
	if [ -n "$CLI_KCONFIG" ] && [ "${CLI_KCONFIG#/}" = "$CLI_KCONFIG" ] && [ -f "$CLI_FROM/$CLI_KCONFIG" ]; then
		CLI_KCONFIG=$CLI_FROM/$CLI_KCONFIG
	fi
	return 0
}

# cli_tree VARIANT: TREE and BRANCH of the command (resolve_tree below;
# VARIANT is the kit's copy used without --kdir)
cli_tree() {
	resolve_tree "$CLI_KDIR" "$CLI_BRANCH" "$1" "$CLI_FROM"
}

# cli_kernel_tree: TREE and BRANCH of a command that builds the kit's own
# kernels of BRANCH (TREE: the pristine tree, fetched as needed) or, with
# --kdir, the kernel of that tree; CLI_KDIR_ARGS: "--kdir TREE" then
cli_kernel_tree() {
	CLI_KDIR_ARGS=()
	if [ "$CLI_KDIR" != - ]; then
		cli_tree unpatched
		CLI_KDIR_ARGS=(--kdir "$TREE")
		return 0
	fi
	BRANCH=${CLI_BRANCH:-$DEFAULT_BRANCH}
	require_branch "$BRANCH"
	TREE=$(pristine_dir "$BRANCH")
	[ -f "$TREE/Makefile" ] || TREE=$(kit_use fetch && fetch_tree "$BRANCH")
}

# cli_target: KB_* for the command's build target on TREE (kbuild.sh)
cli_target() {
	kit_use kbuild
	kb_target "$CLI_ARCH" "$CLI_LLVM" "$CLI_KCONFIG" "$TREE"
}

# cli_verify_args -> the compile verification options of apply, one a line
cli_verify_args() {
	[ -z "$CLI_ARCH" ] || printf '%s\n' --arch "$CLI_ARCH"
	[ -z "$CLI_LLVM" ] || printf '%s\n' --llvm "$CLI_LLVM"
	[ -z "$CLI_KCONFIG" ] || printf '%s\n' --kconfig "$CLI_KCONFIG"
	[ -z "$CLI_VERIFY" ] || printf '%s\n' --verify "$CLI_VERIFY"
}

# cli_no_rest USAGE: the command takes no other argument
cli_no_rest() {
	[ ${#CLI_REST[@]} -eq 0 ] || usage_error "unknown argument '${CLI_REST[0]}'; usage: $1"
}

# resolve_tree KDIR BRANCH VARIANT [FROM] -> the tree a command works on: KDIR
# when given (BRANCH, when also given, must be the tree's own branch), else
# the kit's VARIANT copy of BRANCH (default: the default branch; VARIANT:
# scratch, patched, unpatched, ... see worktree.sh).  Sets TREE and BRANCH
# (the branch whose series the tree gets) for the command; only commands
# call it, once.  KDIR "-" means "not given"; "" is an error.
resolve_tree() {
	local kdir=$1 branch=$2 variant=$3 from=${4:-$PWD} b
	if [ "$kdir" != - ]; then
		TREE=$(tree_dir "$kdir" "$from")
		is_kernel_tree "$TREE" || not_a_tree "$TREE" "$kdir"
		b=$(tree_branch "$TREE")
		if [ -n "$branch" ]; then
			require_branch "$branch"
			[ "$b" = "$branch" ] ||
				usage_error "KDIR=$kdir is Linux $(kernel_version "$TREE") (branch $b) but BRANCH=$branch; drop BRANCH= or point KDIR= at a $branch tree"
		fi
		BRANCH=$b
		return 0
	fi
	BRANCH=${branch:-$DEFAULT_BRANCH}
	require_branch "$BRANCH"
	kit_use worktree
	TREE=$(worktree "$BRANCH" "$variant")
}
