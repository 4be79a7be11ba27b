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
	if [ $rc -ne 0 ]; then
		printf 'KTAP version 1\n1..1\nnot ok 1 apply\n# %s: 0 passed, 1 failed\n' "$b" > "$KTAP_DIR/$b-check.ktap"
		return 0
	fi

	t=$(now)
	"$KIT_DIR/scripts/check.sh" "$tree" > "$KTAP_DIR/$b-check.ktap" || true
	echo "check $(elapsed "$t")" >> "$STATUS_DIR/$b.times"
	tail -n1 "$KTAP_DIR/$b-check.ktap"

	if [ "${BOOT:-0}" = 1 ]; then
		for p in 1 0; do
			t=$(now)
			BRANCH=$b PATCHED=$p KDIR= "$KIT_DIR/scripts/boot.sh" \
				> "$KTAP_DIR/$b-boot-$p.ktap" 2> "$STATUS_DIR/$b-boot-$p.log" || true
			echo "boot$p $(elapsed "$t")" >> "$STATUS_DIR/$b.times"
			tail -n1 "$KTAP_DIR/$b-boot-$p.ktap"
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

ktap_counts() {	# ktap_counts FILE -> "P passed, F failed"
	[ -f "$1" ] || { printf 'not run'; return; }
	awk '/^ok / { p++ } /^not ok / { f++ } END { printf "%d passed, %d failed", p, f }' "$1"
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
				printf ' %s |' "$(grep -E "^(not )?ok [0-9]+ $kind " "$KTAP_DIR/$b-check.ktap" 2>/dev/null |
					awk '/# SKIP/ { s++; next } /^ok/ { p++ } /^not ok/ { f++ }
					     END { printf "%d ok, %d failed%s", p, f, s ? ", " s " skipped" : "" }')"
			done
			echo
		done
		if [ "${BOOT:-0}" = 1 ]; then
			for p in 1 0; do
				printf '| **boot %s** |' "$([ $p = 1 ] && echo patched || echo unpatched)"
				for b in "$@"; do printf ' %s |' "$(tail -n1 "$KTAP_DIR/$b-boot-$p.ktap" 2>/dev/null | sed -e 's/^# boot [^:]*: //' -e 's/; log [^)]*//')"; done
				echo
			done
		fi
		for k in tree apply check boot1 boot0; do
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

xml_escape() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'; }

write_junit() {
	local b name s f
	{
		echo '<?xml version="1.0" encoding="UTF-8"?>'
		echo '<testsuites name="mm-backport-kit">'
		for b in "$@"; do
			echo "  <testsuite name=\"$b\">"
			for name in $(series_patches "$KIT_DIR/series"); do
				s=$(cell "$b" "$name")
				echo "    <testcase classname=\"$b.apply\" name=\"$name\">"
				case $s in
				applied*|re-targeted*|"already upstream"*|"not applicable"*) echo "      <system-out>$(printf '%s' "$s" | xml_escape)</system-out>" ;;
				*) echo "      <failure message=\"$(printf '%s' "$s" | xml_escape)\"/>" ;;
				esac
				echo "    </testcase>"
			done
			for f in "$KTAP_DIR/$b"-*.ktap; do
				[ -f "$f" ] || continue
				awk -v cls="$b.$(basename "$f" .ktap)" '
					function esc(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); gsub(/"/, "\\&quot;", s); return s }
					function flush() {
						if (name == "") return
						printf "    <testcase classname=\"%s\" name=\"%s\">\n", cls, esc(name)
						if (skip) printf "      <skipped message=\"%s\"/>\n", esc(skip)
						else if (bad) printf "      <failure message=\"%s\">%s</failure>\n", esc(name), esc(diag)
						print "    </testcase>"
						name = ""
					}
					/^(not )?ok [0-9]+ / {
						flush()
						bad = /^not ok/
						line = $0; sub(/^(not )?ok [0-9]+ /, "", line)
						skip = ""
						if (line ~ /# SKIP/) { skip = line; sub(/.*# SKIP */, "", skip); sub(/ *# SKIP.*/, "", line) }
						name = line; diag = ""
						next
					}
					/^# / && name != "" { diag = diag substr($0, 3) "\n" }
					END { flush() }
				' "$f"
			done
			echo "  </testsuite>"
		done
		echo '</testsuites>'
	} > "$OUT_DIR/junit.xml"
}

main() {
	local b t fail=0
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
		grep -qE $'\t(failed|missing)' "$STATUS_DIR/$b.apply" && fail=1
		grep -q '^not ok' "$KTAP_DIR/$b"-*.ktap 2>/dev/null && fail=1
	done
	return $fail
}

main "$@"
