# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# cli.sh - a command's start: its command line into the request (request.sh
# request_parse, the one parser) and the one resolution of the tree it
# works on, which may need the kit's own copies of a branch (worktree.sh,
# fetch.sh).  Only bin/ calls these, once per command.
kit_use tables trees state request

# cli_parse CMD ARGS...: the command line of bin/CMD into the request
cli_parse() {
	request_parse "$@"
}

# cli_tree VARIANT: the request's tree and branch: KDIR= when given (a
# BRANCH= given too must be the tree's own), else the kit's VARIANT copy
# of the branch (scratch, patched, unpatched, ... see worktree.sh)
cli_tree() {
	local tree b
	if [ "$REQ_KDIR" != - ]; then
		tree_dir "$REQ_KDIR" "$REQ_FROM"
		tree=$TREE_DIR
		is_kernel_tree "$tree" || not_a_tree "$tree" "$REQ_KDIR"
		b=$(tree_branch "$tree")
		[ -z "$REQ_BRANCH" ] || [ "$b" = "$REQ_BRANCH" ] ||
			usage_error "KDIR=$REQ_KDIR is Linux $(kernel_version "$tree") (branch $b) but BRANCH=$REQ_BRANCH; drop BRANCH= or point KDIR= at a $REQ_BRANCH tree"
		request_tree "$tree" "$b"
		return 0
	fi
	request_branch_or_default
	kit_use worktree
	tree=$(worktree "$REQ_BRANCH" "$1")
	request_tree "$tree" "$REQ_BRANCH"
}

# cli_kernel_tree: the tree of a command that builds kernels: with KDIR=
# that tree, else the branch's pristine tree (fetched as needed), whose
# copies the command builds
cli_kernel_tree() {
	local tree
	if [ "$REQ_KDIR" != - ]; then
		cli_tree unpatched
		return 0
	fi
	request_branch_or_default
	tree=$(pristine_dir "$REQ_BRANCH")
	[ -f "$tree/Makefile" ] || tree=$(kit_use fetch && fetch_tree "$REQ_BRANCH")
	request_tree "$tree" "$REQ_BRANCH"
}

# cli_branch_tree: the branch's pristine tree without fetching it (the
# commands that work on the kit's copies of a branch: its build target)
cli_branch_tree() {
	request_branch_or_default
	request_tree "$(pristine_dir "$REQ_BRANCH")" "$REQ_BRANCH"
}

# cli_positional_branch: make tree's branch: BRANCH= or one positional
# argument (bin/tree 6.1), else the default branch
cli_positional_branch() {
	if [ ${#REQ_ARGS[@]} -gt 0 ]; then
		if [ ${#REQ_ARGS[@]} -gt 1 ] || [ -n "$REQ_BRANCH" ]; then
			usage_error "two branches given; usage: make tree BRANCH=b"
		fi
		request_with BRANCH="${REQ_ARGS[0]}"
	fi
	request_branch_or_default
}

# cli_state_tree: the tree of make unapply: a KDIR= tree that holds the
# kit's state needs nothing else (a file the series touched may be gone;
# the state says what to take out, so no branch is resolved); any other
# as cli_tree scratch
cli_state_tree() {
	local tree
	if [ "$REQ_KDIR" != - ]; then
		tree_dir "$REQ_KDIR" "$REQ_FROM"
		tree=$TREE_DIR
		if [ -d "$tree/$STATE_NAME" ]; then
			request_tree "$tree" "$REQ_BRANCH"
			return 0
		fi
	fi
	cli_tree scratch
}
