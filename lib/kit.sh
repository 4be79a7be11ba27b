# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034  # constants for the modules and commands
# kit.sh - the base of the kit's shell library: every command in bin/ sources
# this file once, then the modules it needs with kit_use.  Nothing here runs
# a command; it defines paths, messages, exit codes and the module loader.
#
# Layers (docs/CONVENTIONS.md):
#   bin/<command>   one per make target: parses its arguments, resolves the
#                   tree, branch and build target once, calls a module
#   lib/<module>.sh functions only; a module's entry point that may exit
#                   (die) is called in a subshell by other modules
#   mmbk/           Python package: tables, KTAP, results and reports
#   tables/         every data table
set -o pipefail
# a command started with SIGPIPE ignored (a parent's trap '' PIPE, which
# bash cannot undo) runs again with it at its default: else every writer
# of a pipe whose reader stopped early prints "write error: Broken pipe"
# (only bin/ commands, which source this file themselves; no process
# unless it is ignored)
kit_sigpipe_ignored() {
	local k v
	while read -r k v; do
		[ "$k" != SigIgn: ] || { (( 16#$v & 0x1000 )); return; }
	done < /proc/$$/status
	return 1
}
if [ "${BASH_SOURCE[1]:-}" = "$0" ] && [ -z "${KIT_SIGPIPE_RESET:-}" ] && kit_sigpipe_ignored; then
	KIT_SIGPIPE_RESET=1 exec env --default-signal=PIPE "$0" "$@"
fi
# a command substitution fails with the first failing command in it, as
# the rest of the kit does (bash clears errexit there otherwise)
shopt -s inherit_errexit

# file_dir PATH -> PATH's directory, as dirname(1) gives it ("mm/ksm.c" ->
# "mm", "Makefile" -> "."), without a process
file_dir() {
	local d
	case $1 in
	*/*) d=${1%/*}; printf '%s\n' "${d:-/}" ;;
	*) printf '.\n' ;;
	esac
}

KIT_DIR=$(cd "$(file_dir "${BASH_SOURCE[0]}")/.." && pwd)
LIB_DIR=$KIT_DIR/lib
# the kit's data (series, patches, backports, tables); the unit tests point
# it at a synthetic kit with MMBK_DATA.  Code is always KIT_DIR's.
DATA_DIR=${MMBK_DATA:-$KIT_DIR}
TABLES_DIR=$DATA_DIR/tables
OUT_DIR=$KIT_DIR/out

# Exit codes of every command (README "Exit codes"); make keeps them
# (the Makefile passes a command's status on, see its header).
EXIT_OK=0		# done
EXIT_ERROR=1		# failed: a check failed or a step broke (the tree is unchanged)
EXIT_NOTHING=2		# nothing to do: already applied / not applied / all upstream
EXIT_PARTIAL=3		# partial: some topics landed, the others left no trace
EXIT_REFUSED=4		# refused: the kit will not do it as asked (local edits, STRICT)
EXIT_UNVERIFIED=5	# unverified: a check could not compile what it must prove (make check)
EXIT_USAGE=64		# bad input: unknown option, branch, topic, ARCH, ...

prog=${0##*/}

die() {		# die MESSAGE: one error line, exit 1
	printf '%s: error: %s\n' "$prog" "$*" >&2
	exit "$EXIT_ERROR"
}

usage_error() {	# usage_error MESSAGE: one error line for bad input, exit 64
	printf '%s: error: %s\n' "$prog" "$*" >&2
	exit "$EXIT_USAGE"
}

warn() {
	printf '%s: warning: %s\n' "$prog" "$*" >&2
}

info() {
	printf '%s: %s\n' "$prog" "$*" >&2
}

# progress LABEL: a time-stamped line; keeps long steps visible in CI logs
progress() {
	printf '[%(%H:%M:%S)T] %s\n' -1 "$*" >&2
}

# --- the cache -------------------------------------------------------------
# The cache is only needed by commands that fetch, build or copy trees, so a
# missing HOME is an error only there (need_cache).  The Python tools never
# look for the cache: they are given what they need (--kunit-dir).
if [ -n "${MMBK_CACHE:-}" ]; then
	CACHE_DIR=$MMBK_CACHE
elif [ -n "${XDG_CACHE_HOME:-}" ]; then
	CACHE_DIR=$XDG_CACHE_HOME/mm-backport-kit
elif [ -n "${HOME:-}" ]; then
	CACHE_DIR=$HOME/.cache/mm-backport-kit
else
	CACHE_DIR=
fi

need_cache() {
	[ -n "$CACHE_DIR" ] ||
		die "no cache directory: HOME is not set; set MMBK_CACHE= (or HOME or XDG_CACHE_HOME) to a writable directory"
}

# join_lines [SEP]: stdin's lines on one line, SEP ("; ") between them
join_lines() {
	awk -v sep="${1-; }" '{ printf "%s%s", (NR > 1 ? sep : ""), $0 } END { if (NR) print "" }'
}

# path_key PATH -> short stable name for a path (build dirs, DKMS trees)
path_key() {
	printf '%s' "$1" | sha256sum | cut -c1-12
}

# kit_try CMD...: run CMD in a subshell with errexit in force and go on;
# its status in KIT_RC.  (errexit is ignored inside anything whose status
# is tested -- if, ||, && , ! -- so a module's entry point whose status the
# caller needs is run through this, never as "f || rc=$?".)  Where errexit
# is ignored already, "set -e" cannot turn it on again: CMD would run on
# past its failures and could end in 0, so kit_try refuses to run there.
kit_try() {
	local e=${-//[^e]/} probe
	probe=$(set +e; (set -e; false; echo ignored); true)
	[ -z "$probe" ] || die "internal error: kit_try $1 runs where errexit is ignored (under if, ||, && or !); call its caller as a plain command, or through kit_try"
	set +e
	( set -e; "$@" )
	KIT_RC=$?
	[ -z "$e" ] || set -e
}

# --- modules ---------------------------------------------------------------
# kit_use MODULE...: source lib/MODULE.sh once (and, first, the modules it
# names in its own kit_use line)
declare -A KIT_LOADED=()
kit_use() {
	local m
	for m in "$@"; do
		[ -z "${KIT_LOADED[$m]:-}" ] || continue
		KIT_LOADED[$m]=1
		[ -f "$LIB_DIR/$m.sh" ] || die "kit_use: no module lib/$m.sh"
		# shellcheck disable=SC1090
		. "$LIB_DIR/$m.sh"
	done
}

# kit_py TOOL ARGS...: a tool of the Python package (python3 -m mmbk TOOL);
# -B: no __pycache__ in the kit or a kernel tree; -P: the package is this
# kit's, whatever directory the command runs in
kit_py() {
	PYTHONPATH=$KIT_DIR /usr/bin/python3 -B -P -m mmbk "$@"
}
