# SPDX-License-Identifier: GPL-2.0
# tier: fast
# The kit's data tables are well formed, and shell (scripts/lib.sh) and
# Python (scripts/kitdata.py) read them the same way.

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
	[ $n_default = 1 ] && [ $n_main = 1 ] || fail "need exactly one default and one mainline branch"
	[ "$(python3 "$KIT_DIR/scripts/kitdata.py" branches)" = "$SUPPORTED_BRANCHES" ] ||
		fail "kitdata.py and lib.sh disagree on the branches"
	local url
	url=$(table_setting "$BRANCHES_TABLE" tarball-url)
	[ -z "$url" ] || [[ $url == *'{file}'* ]] || fail "@tarball-url has no {file}"
}

test_topic_table() {
	local p t n=0
	for p in $(series_patches "$DATA_DIR/series"); do
		t=$(topic_of "$p")
		[ -n "$t" ] || fail "$p has no topic in backports/topics.table"
		n=$((n + 1))
	done
	[ "$(table_rows "$TOPICS_TABLE" | wc -l)" -eq $n ] || fail "topics.table names patches that are not in ./series"
	diff <(for t in $(all_topics); do printf '%s %s\n' "$t" "$(topic_patches "$t" | paste -sd' ')"; done) \
	     <(python3 "$KIT_DIR/scripts/kitdata.py" topics) >/dev/null ||
		fail "kitdata.py and lib.sh disagree on the topics"
}

test_baselines_table() {
	local b v t
	while IFS=$'\t' read -r b v; do
		is_supported_branch "$b" || fail "baselines.table: unknown branch $b"
		[[ " $v " == *" patched "* || " $v " == *" patched@rt "* ]] ||
			fail "baselines.table: $b boots neither its patched kernel nor patched@rt"
		for v in $v; do
			case $v in
			-|unpatched|patched) ;;
			patched@rt) [ "$(branch_field "$b" rt)" = yes ] ||
				fail "baselines.table: $b: patched@rt on a branch without PREEMPT_RT (rt column)" ;;
			without-*) t=${v#without-}; is_topic "$t" || fail "baselines.table: $b: unknown topic in $v" ;;
			patched-kabi) [ -d "$KIT_DIR/backports/$b/kabi" ] ||
				fail "baselines.table: $b: patched-kabi on a branch without kABI variants (backports/$b/kabi/)" ;;
			*) fail "baselines.table: $b: unknown variant $v" ;;
			esac
		done
	done < <(table_rows "$KIT_DIR/tests/suite/baselines.table" | sed 's/\t/ /2g')
	[ "$(table_rows "$KIT_DIR/tests/suite/baselines.table" | cut -f1 | paste -sd' ')" = "$SUPPORTED_BRANCHES" ] ||
		fail "baselines.table does not list every branch in table order"
}
