# SPDX-License-Identifier: GPL-2.0
# tier: fast
# The kit's data tables (tables/) are well formed, and shell (lib/tables.sh)
# and Python (mmbk/tables.py) read them the same way.

test_branch_table() {
	local b src origin pin cfg rt role n_default=0 n_main=0
	[ -n "$SUPPORTED_BRANCHES" ] || fail "no branches"
	for b in $SUPPORTED_BRANCHES; do
		[[ $b =~ ^[0-9]+\.[0-9]+$ ]] || fail "branch '$b' is not X.Y"
		src=$(branch_field "$b" source); origin=$(branch_field "$b" origin)
		pin=$(branch_field "$b" pin); cfg=$(branch_field "$b" config)
		rt=$(branch_field "$b" rt); role=$(branch_field "$b" role)
		case $src in
		deb) [[ $origin =~ ^[a-z-]+:linux-source-$b$ ]] || fail "$b: deb origin '$origin' is not <suite>:linux-source-$b" ;;
		tarball)
			[[ $origin =~ ^linux-$b\.[0-9]+\.tar\.xz$ ]] || fail "$b: tarball '$origin' is not linux-$b.N.tar.xz"
			[[ $pin =~ ^sha256:[0-9a-f]{64}$ ]] || fail "$b: tarball pin '$pin' is not sha256:<64 hex>" ;;
		*) fail "$b: unknown source '$src'" ;;
		esac
		[ "$cfg" = - ] || [ -f "$KIT_DIR/configs/$cfg" ] || fail "$b: config fragment configs/$cfg missing"
		case $rt in yes|no) ;; *) fail "$b: rt '$rt' is not yes/no" ;; esac
		case $role in
		default) n_default=$((n_default + 1)) ;;
		mainline) n_main=$((n_main + 1)) ;;
		lts) ;;
		*) fail "$b: unknown role '$role'" ;;
		esac
	done
	{ [ $n_default = 1 ] && [ $n_main = 1 ]; } || fail "need exactly one default and one mainline branch"
	[ "$(kit_py tables branches)" = "$SUPPORTED_BRANCHES" ] ||
		fail "mmbk/tables.py and lib/tables.sh disagree on the branches"
	local url
	url=$(table_setting "$BRANCHES_TABLE" tarball-url)
	[ -z "$url" ] || [[ $url == *'{file}'* ]] || fail "@tarball-url has no {file}"
}

test_topic_table() {
	local p t n=0
	for p in $(series_patches "$DATA_DIR/series"); do
		t=$(topic_of "$p")
		[ -n "$t" ] || fail "$p has no topic in tables/topics.table"
		n=$((n + 1))
	done
	[ "$(table_rows "$TOPICS_TABLE" | wc -l)" -eq $n ] || fail "topics.table names patches that are not in ./series"
	diff <(for t in $(all_topics); do printf '%s %s\n' "$t" "$(topic_patches "$t" | paste -sd' ')"; done) \
	     <(kit_py tables topics) >/dev/null ||
		fail "mmbk/tables.py and lib/tables.sh disagree on the topics"
}

test_baselines_table() {
	local b v t tok
	while IFS=$'\t' read -r b v; do
		[ "$b" = '*' ] || is_supported_branch "$b" || fail "boot-baselines.table: unknown branch $b"
		[[ " ${v//\/[a-z0-9-]*/} " == *" patched "* || " ${v//\/[a-z0-9-]*/} " == *" patched@rt "* ]] ||
			fail "boot-baselines.table: $b boots neither its patched kernel nor patched@rt"
		for tok in $v; do
			case $tok in
			*/arm64|*/llvm|*/arm64-llvm) tok=${tok%/*} ;;
			*/*) fail "boot-baselines.table: $b: unknown target in $tok (arm64, llvm, arm64-llvm)" ;;
			esac
			case $tok in
			-|unpatched|patched|check) ;;
			patched@rt) [ "$b" = '*' ] || [ "$(branch_field "$b" rt)" = yes ] ||
				fail "boot-baselines.table: $b: patched@rt on a branch without PREEMPT_RT (rt column)" ;;
			without-*) t=${tok#without-}; is_topic "$t" || fail "boot-baselines.table: $b: unknown topic in $tok" ;;
			patched-kabi) [ -d "$KIT_DIR/backports/$b/kabi" ] ||
				fail "boot-baselines.table: $b: patched-kabi on a branch without kABI variants (backports/$b/kabi/)" ;;
			*) fail "boot-baselines.table: $b: unknown variant $tok" ;;
			esac
		done
	done < <(table_rows "$TABLES_DIR/boot-baselines.table" | sed 's/\t/ /2g')
	# rows in table order after the "*" row (a branch without a row boots "*")
	[ "$(table_rows "$TABLES_DIR/boot-baselines.table" | cut -f1 | grep -vx '[*]' | paste -sd' ')" = \
	  "$(tr ' ' '\n' <<< "$SUPPORTED_BRANCHES" | grep -xF -f <(table_rows "$TABLES_DIR/boot-baselines.table" | cut -f1) | paste -sd' ')" ] ||
		fail "boot-baselines.table does not list its branches in table order"
}

# expectation_problems DIR -> the unknown branches and topics of the
# expectation tables in DIR (nothing when there is none)
expectation_problems() {
	local f b t
	for f in boot-expect abi-expect; do
		while read -r b t; do
			case $b in
			'*'|'*-rt') ;;
			*-rt) is_supported_branch "${b%-rt}" || printf ' %s:%s' "$f" "$b" ;;
			*) is_supported_branch "$b" || printf ' %s:%s' "$f" "$b" ;;
			esac
			is_topic "$t" || printf ' %s:%s' "$f" "$t"
		done < <(table_rows "$1/$f.table" | awk -F'\t' -v f="$f" '{ print (f == "abi-expect" ? $1 " " $3 : $3 " " $2) }')
	done
}

# the expectation tables read by Python name only branches of
# branches.table (or * for every branch, *-rt for every PREEMPT_RT
# kernel) and topics of topics.table; a copy with a row of an unknown
# branch is caught.  No branch needs a row of its own (the * rows and the
# topics upstream in a branch give its expectations: t-ktap.sh, t-abi.sh)
test_expectation_tables() {
	local bad
	bad=$(expectation_problems "$TABLES_DIR")
	[ -z "$bad" ] || fail "unknown branches or topics in the expectation tables:$bad"
	mkdir -p "$T/tables"
	cp "$TABLES_DIR"/boot-expect.table "$TABLES_DIR"/abi-expect.table "$T/tables/"
	printf '4.19 default ksm-break-ksm none\n' >> "$T/tables/abi-expect.table"
	[ "$(expectation_problems "$T/tables")" = ' abi-expect:4.19' ] || fail "a row of an unknown branch is not caught"
}

# The patch readers make apply asks once for many patches: patch_files gives
# the union, sorted and unique; patch_is_wellformed names the one bad patch
# among several (first or last) and what is wrong; kernel_version reads a
# Makefile with or without blanks around "=".
test_patch_readers_over_several_files() {
	local ok=$KIT_DIR/backports/6.12 a b out n
	a=$(ls "$ok"/0002-*.patch) b=$(ls "$ok"/0003-*.patch)
	[ "$(patch_files "$a" "$b" "$a")" = "$( { patch_files "$a"; patch_files "$b"; } | sort -u)" ] ||
		fail "patch_files of several patches is not the sorted union"
	patch_is_wellformed "$a" "$b" >/dev/null || fail "two good patches reported bad"
	n=$(grep -n '^@@' "$a" | head -n1 | cut -d: -f1)
	head -n $((n + 4)) "$a" > "$T/cut.patch"
	for out in "$(patch_is_wellformed "$T/cut.patch" "$b" || true)" "$(patch_is_wellformed "$b" "$T/cut.patch" || true)"; do
		[[ $out == "$T/cut.patch"$'\t'"the hunk at line $n is cut short" ]] ||
			fail "a cut-short first hunk was reported as '$out'"
	done
	: > "$T/empty.patch"
	[[ $(patch_is_wellformed "$a" "$T/empty.patch" || true) == "$T/empty.patch"$'\t'"no hunk in it" ]] ||
		fail "an empty patch among good ones was not named"
	mkdir -p "$T/mk"
	printf 'VERSION=6\nPATCHLEVEL = 12\nSUBLEVEL\t=  40\n' > "$T/mk/Makefile"
	[ "$(kernel_version "$T/mk")" = 6.12.40 ] || fail "kernel_version: '$(kernel_version "$T/mk")', not 6.12.40"
}
