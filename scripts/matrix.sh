#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# matrix.sh [BRANCH...] - tree, apply and check on every branch (and with
# BOOT=1 the patched and unpatched boots), then out/matrix.md, out/junit.xml
# and the KTAP logs in out/ktap/.  Exit 1 if anything failed.
set -eu
. "$(dirname "$0")/lib.sh"

KTAP_DIR=$OUT_DIR/ktap
STATUS_DIR=$OUT_DIR/status

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# run_branch BRANCH: writes STATUS_DIR/BRANCH.{apply,check,times,boot-*}
run_branch() {
	local b=$1 t rc tree
	: > "$STATUS_DIR/$b.times"
	t=$(now)
	"$KIT_DIR/scripts/tree.sh" "$b" >/dev/null
	echo "tree $(elapsed "$t")" >> "$STATUS_DIR/$b.times"

	t=$(now)
	: > "$STATUS_DIR/$b.apply"
	rc=0
	tree=$(STATUS_FILE=$STATUS_DIR/$b.apply MMBK_FRESH=1 \
		"$KIT_DIR/scripts/worktree.sh" "$b" patched) || rc=$?
	echo "apply $(elapsed "$t")" >> "$STATUS_DIR/$b.times"
	apply_ktap "$b" > "$KTAP_DIR/$b-apply.ktap"
	if [ $rc -ne 0 ]; then
		printf 'KTAP version 1\n1..1\n# %s: the series does not apply; nothing to check\nnot ok 1 apply\n' "$b" > "$KTAP_DIR/$b-check.ktap"
		return 0
	fi

	t=$(now)
	"$KIT_DIR/scripts/check.sh" "$tree" > "$KTAP_DIR/$b-check.ktap" || true
	echo "check $(elapsed "$t")" >> "$STATUS_DIR/$b.times"
	tail -n1 "$KTAP_DIR/$b-check.ktap"

	if [ "${BOOT:-0}" = 1 ]; then
		for v in patched unpatched; do
			t=$(now)
			"$KIT_DIR/scripts/boot.sh" --branch "$b" --variant "$v" \
				> "$KTAP_DIR/$b-boot-$v.ktap" 2> "$STATUS_DIR/$b-boot-$v.log" || true
			echo "boot-$v $(elapsed "$t")" >> "$STATUS_DIR/$b.times"
			tail -n1 "$KTAP_DIR/$b-boot-$v.ktap"
		done
	fi
}

# cell BRANCH PATCH -> matrix cell for one upstream patch
cell() {
	local s
	s=$(awk -F'\t' -v n="$2" '$1 == n { print $2 }' "$STATUS_DIR/$1.apply" | tail -n1)
	printf '%s' "${s:-not run}"
}

short() {	# the matrix shows "n/a"; the reason goes to the notes below it
	case $1 in "not applicable"*) printf 'n/a' ;; *) printf '%s' "$1" ;; esac
}

# apply_ktap BRANCH: the apply status of every upstream patch as KTAP (a
# patch the branch does not need is skipped with the reason)
apply_ktap() {
	awk -F'\t' '
		{ n++; name[n] = $1; st[n] = $2 }
		END {
			print "KTAP version 1"
			print "1.." n
			for (i = 1; i <= n; i++) {
				if (st[i] ~ /^(already upstream|not applicable)/)
					printf "ok %d %s # SKIP %s\n", i, name[i], st[i]
				else if (st[i] ~ /^applied/)
					printf "ok %d %s\n", i, name[i]
				else if (st[i] ~ /^re-targeted/)
					printf "# %s\nok %d %s\n", st[i], i, name[i]
				else
					printf "# %s\nnot ok %d %s\n", st[i], i, name[i]
			}
		}' "$STATUS_DIR/$1.apply"
}

# counts FILE [PREFIX] -> "P ok, F failed[, S skipped]" (scripts/ktap.py)
counts() {
	local out p f s bad=''
	[ -f "$1" ] || { printf 'not run'; return 0; }
	out=$("$KIT_DIR/scripts/ktap.py" count ${2:+--prefix "$2"} "$1" 2>/dev/null) || bad=', not valid KTAP'
	read -r p f s <<< "$out"
	printf '%d ok, %d failed%s%s' "$p" "$f" "$([ "$s" = 0 ] || printf ', %d skipped' "$s")" "$bad"
}

time_of() { awk -v k="$2" '$1 == k { print $2 "s" }' "$STATUS_DIR/$1.times"; }

write_markdown() {
	local b name
	{
		echo "# mm-backport-kit matrix"
		echo
		printf '| patch |'; for b in "$@"; do printf ' %s |' "$b"; done; echo
		printf '|---|'; for b in "$@"; do printf -- '---|'; done; echo
		for name in $(series_patches "$KIT_DIR/series"); do
			printf '| %s |' "${name%.patch}"
			for b in "$@"; do printf ' %s |' "$(short "$(cell "$b" "$name")")"; done
			echo
		done
		printf '| **tree** |'; for b in "$@"; do printf ' %s |' "$(kernel_version "$(pristine_dir "$b")" 2>/dev/null)"; done; echo
		for kind in checkpatch w1 sparse; do
			printf '| **%s** |' "$kind"
			for b in "$@"; do
				printf ' %s |' "$(counts "$KTAP_DIR/$b-check.ktap" "$kind ")"
			done
			echo
		done
		if [ "${BOOT:-0}" = 1 ]; then
			for v in patched unpatched; do
				printf '| **boot %s** |' "$v"
				for b in "$@"; do printf ' %s |' "$(counts "$KTAP_DIR/$b-boot-$v.ktap")"; done
				echo
			done
		fi
		for k in tree apply check boot-patched boot-unpatched; do
			grep -q "^$k " "$STATUS_DIR/$1.times" 2>/dev/null || continue
			printf '| *time %s* |' "$k"; for b in "$@"; do printf ' %s |' "$(time_of "$b" "$k")"; done; echo
		done
		echo
		for b in "$@"; do
			for name in $(series_patches "$KIT_DIR/series"); do
				case $(cell "$b" "$name") in
				"not applicable: "*) printf -- '- n/a on %s, %s: %s\n' "$b" "${name%%-*}" "$(cell "$b" "$name" | sed 's/^not applicable: //')" ;;
				esac
			done
		done
		echo
		echo "KTAP logs: out/ktap/. Generated $(date -u +%Y-%m-%dT%H:%M:%SZ)."
	} > "$OUT_DIR/matrix.md"
}

# write_junit BRANCH...: out/junit.xml, one <testsuite> per KTAP file
write_junit() {
	local b f suites=()
	for b in "$@"; do
		for f in "$KTAP_DIR/$b"-*.ktap; do
			[ -f "$f" ] || continue
			f=${f##*/}
			suites+=("$b.${f#"$b"-}")
			suites[-1]=${suites[-1]%.ktap}=$KTAP_DIR/$f
		done
	done
	"$KIT_DIR/scripts/ktap.py" junit -o "$OUT_DIR/junit.xml" "${suites[@]}"
}

main() {
	local b t out f fail=0
	[ $# -gt 0 ] || set -- $SUPPORTED_BRANCHES
	for b in "$@"; do require_branch "$b"; done
	rm -rf "$KTAP_DIR" "$STATUS_DIR"
	mkdir -p "$KTAP_DIR" "$STATUS_DIR"
	t=$(now)
	for b in "$@"; do
		progress "matrix: $b"
		run_branch "$b"
	done
	write_markdown "$@"
	write_junit "$@"
	progress "matrix: $(elapsed "$t")s for $*"
	cat "$OUT_DIR/matrix.md"
	for b in "$@"; do
		out=$("$KIT_DIR/scripts/ktap.py" count "$KTAP_DIR/$b"-*.ktap) || fail=1
		read -r _ f _ <<< "$out"
		[ "$f" = 0 ] || fail=1
	done
	return $fail
}

main "$@"
