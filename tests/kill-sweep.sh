#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kill-sweep.sh [-n N] [-b BRANCH] [-s SEED] [-d DIR] - random kills of
# apply and unapply with an edit between the kill and the recovery
# (issue 55): N times (default 50), on a mini tree of BRANCH (default
# 6.12; the files the kit touches and reads, copied from the cached
# pristine tree), apply or unapply is started in a process group of its
# own and killed (SIGKILL or SIGTERM) at a random moment (two rounds in
# three: of its transaction, from the txn mark on; else of its measured
# run time); then a line is appended to a file the branch's series
# touches, and the next command (apply or unapply, without FORCE) runs.
# The edit must either survive it, or the command must refuse with 4
# naming the edited file (the line still there).  Prints one line per
# round and the counts; exit 1 if any edit was lost (or a recovery
# failed otherwise), 0 else.  Not part of make test (it takes minutes):
# run by hand, e.g. tests/kill-sweep.sh -n 60.
set -euo pipefail
KIT_DIR=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/kit.sh
. "$KIT_DIR/lib/kit.sh"
kit_use tables trees

rounds=50 branch=6.12 seed=$$ work=
while getopts n:b:s:d: o; do
	case $o in
	n) rounds=$OPTARG ;;
	b) branch=$OPTARG ;;
	s) seed=$OPTARG ;;
	d) work=$OPTARG ;;
	*) usage_error "usage: kill-sweep.sh [-n N] [-b BRANCH] [-s SEED] [-d DIR]" ;;
	esac
done
RANDOM=$seed
[ -n "$work" ] || work=$(mktemp -d "${TMPDIR:-/tmp}/kill-sweep.XXXXXX")
mkdir -p "$work"
src=$(pristine_dir "$branch")
[ -f "$src/Makefile" ] || die "no cached tree of $branch ($src); run bin/tree --branch $branch first"

# the mini tree: as tests/unit/lib.sh mini
ref=$work/ref
rm -rf "$ref"
mkdir -p "$ref"
probed=$({ table_rows "$TABLES_DIR/plan.table" | awk -F'\t' '$3 ~ /\// { print $3 }'
	   table_rows "$TABLES_DIR/detect.table" | awk -F'\t' '$2 ~ /\// { print $2 }'; } | sort -u)
for f in Makefile $(kit_touched_files) $probed; do
	[ -f "$src/$f" ] || continue
	mkdir -p "$ref/$(file_dir "$f")"
	cp "$src/$f" "$ref/$f"
	chmod u+w "$ref/$f"
done
# the files this branch's series touches (and the tree has): the edits go there
mapfile -t series < <(series_patches "$(series_file "$branch")")
mapfile -t touched < <(patch_files "${series[@]/#/$DATA_DIR/backports/$branch/}")
edits=()
for f in "${touched[@]}"; do [ ! -f "$ref/$f" ] || edits+=("$f"); done
[ ${#edits[@]} -gt 0 ] || die "no file of the $branch series in the mini tree"

d=$work/kill-sweep-tree
applied=$work/applied
rm -rf "$applied"
cp -a "$ref" "$applied"
"$KIT_DIR/bin/apply" --kdir "$applied" > /dev/null 2>&1 || die "the reference apply on $branch failed"

# run time of each command, measured once (ms)
ms() { local s; s=$EPOCHREALTIME; s=${s/./}; printf '%s\n' "$((s / 1000))"; }
rm -rf "$d"; cp -a "$ref" "$d"
t0=$(ms); "$KIT_DIR/bin/apply" --kdir "$d" > /dev/null 2>&1 || true; t1=$(ms)
"$KIT_DIR/bin/unapply" --kdir "$d" > /dev/null 2>&1 || true; t2=$(ms)
apply_ms=$((t1 - t0)) unapply_ms=$((t2 - t1))
printf '# %s: apply %d ms, unapply %d ms; %d rounds, seed %s, in %s\n' "$branch" "$apply_ms" "$unapply_ms" "$rounds" "$seed" "$work"

declare -A count=()
lost=0
for ((i = 1; i <= rounds; i++)); do
	cmds=(apply unapply) sigs=(KILL TERM)
	cmd=${cmds[RANDOM % 2]} sig=${sigs[RANDOM % 2]} next=${cmds[RANDOM % 2]}
	f=${edits[RANDOM % ${#edits[@]}]}
	rm -rf "$d"
	if [ "$cmd" = apply ]; then cp -a "$ref" "$d"; span=$apply_ms; else cp -a "$applied" "$d"; span=$unapply_ms; fi
	# two rounds in three: a random moment of the transaction (from its
	# txn mark on: up to 1.5 s of apply, 0.4 s of unapply); the others: of
	# the whole command
	txn=0
	if ((RANDOM % 3)); then
		txn=1
		if [ "$cmd" = apply ]; then delay=$((RANDOM % 1500)); else delay=$((RANDOM % 400)); fi
	else
		delay=$((RANDOM % (span + 1)))
	fi
	setsid "$KIT_DIR/bin/$cmd" --kdir "$d" > "$work/cmd.log" 2>&1 < /dev/null &
	pid=$!
	if [ "$txn" = 1 ]; then
		for _ in $(seq 2000); do [ ! -f "$d/.mm-backport-kit/txn" ] || break; kill -0 "$pid" 2> /dev/null || break; sleep 0.005; done
	fi
	sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
	kill -"$sig" -- -"$pid" 2> /dev/null || true
	wait "$pid" 2> /dev/null || true
	# every process of the command has ended (a trap may still restore)
	for _ in $(seq 200); do kill -0 -- -"$pid" 2> /dev/null || break; sleep 0.05; done
	# where the kill left the tree: inside a transaction (txn mark), or not
	where=outside
	[ ! -f "$d/.mm-backport-kit/txn" ] || where=in-txn
	count[$where]=$(( ${count[$where]:-0} + 1 ))
	line="/* kill-sweep edit $i */"
	printf '%s\n' "$line" >> "$d/$f"
	rc=0
	out=$("$KIT_DIR/bin/$next" --kdir "$d" 2>&1) || rc=$?
	if ! grep -qxF -- "$line" "$d/$f"; then
		outcome=LOST
		lost=$((lost + 1))
	elif [ "$rc" -eq 4 ]; then
		if grep -qF -- "/$f " <<< "$out" || grep -qF -- "$d/$f" <<< "$out"; then
			outcome=refused-naming-it
		else
			outcome=refused-naming-another
			lost=$((lost + 1))
		fi
	elif [ "$rc" -eq 0 ] || [ "$rc" -eq 2 ]; then
		outcome=survived
	else
		outcome=failed-$rc
		lost=$((lost + 1))
	fi
	count[$outcome]=$(( ${count[$outcome]:-0} + 1 ))
	count[$cmd-$sig]=$(( ${count[$cmd-$sig]:-0} + 1 ))
	printf '%3d %-7s SIG%-4s at %5d ms%s (%s), edit %s, then %-7s -> %d %s\n' "$i" "$cmd" "$sig" "$delay" \
		"$([ "$txn" = 0 ] || echo ' of its txn')" "$where" "$f" "$next" "$rc" "$outcome"
	case $outcome in survived|refused-naming-it) ;; *) printf '    %s\n' "${out//$'\n'/$'\n'    }" ;; esac
done
printf '# counts:'
for k in $(printf '%s\n' "${!count[@]}" | sort); do printf ' %s=%d' "$k" "${count[$k]}"; done
printf '\n'
[ "$lost" -eq 0 ]
