# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# plan.sh - what a tree needs, decided from its code, not its version.
#
# detect_tree TREE: for every upstream patch of ./series that has rules in
# tables/detect.table, whether TREE already has the change:
#   "<patch>\t<present|absent|unknown>\t<why>"   ("unknown": the code the
#   change touches was not found at all).
#
# plan_tree TREE: one line per upstream patch of ./series, in that order:
#   <patch>\tcarry\t<branch>   backports/<branch>/<patch> is the nearest
#                              backport (retarget.sh takes it from there)
#   <patch>\tupstream\t<why>   TREE has the change (tables/detect.table)
#   <patch>\tn/a\t<reason>     the reason holds for TREE (tables/plan.table
#                              probes, with file:line), or TREE lacks the code
#                              the patch changes (detect.table: unknown)
# The source branch of a patch is the supported branch that carries it (its
# series lists it) whose code is nearest to TREE's: for the top-level
# definitions its backport changes, the mean line similarity of TREE's
# definition to the branch's (0 for one TREE lacks), then the share of
# identical ones, then the nearest version. Patches of one "group" row come
# from one branch, and a branch qualifies only if it agrees with TREE on
# every "dep" row (see tables/plan.table). TREE is only read.
# The branches' code is compared from the committed reference data beside
# each series (backports/<branch>/reference.json and touched.sums, written
# by make regen): no cached tree is ever read, so a tree gets the same plan
# on any machine, whatever the cache holds.
kit_use tables trees

DETECT_TABLE=$TABLES_DIR/detect.table
PLAN_TABLE=$TABLES_DIR/plan.table

# detect_tree TREE -> "patch<TAB>verdict<TAB>why" lines (see the top): the
# rules of every patch of the series judged by one awk (detect.awk)
detect_tree() {
	local tree=$1 name id list=
	for name in $(series_patches "$DATA_DIR/series"); do
		id=$(patch_upstream_id "$DATA_DIR/patches/$name")
		[ -z "$id" ] || list+="$name=${id:0:12} "
	done
	awk -f "$LIB_DIR/scope.awk" -f "$LIB_DIR/detect.awk" -v tree="$tree" -v patches="$list" "$DETECT_TABLE"
}

# plan_rows KIND -> "patch<TAB>arg1<TAB>arg2<TAB>arg3<TAB>reason" rows of KIND;
# plan_rows KIND NUMBER -> "arg1<TAB>arg2<TAB>arg3<TAB>reason" of NUMBER's
# rows of KIND.  The table is read once per command by the shell itself
# (no process: the plan asks for every patch and branch); its fields are
# single-TAB separated, some empty.
declare -gA PLAN_ROWS=()
plan_rows() {
	local line f key
	if [ -z "${PLAN_ROWS[.]:-}" ]; then
		while IFS= read -r line || [ -n "$line" ]; do
			case $line in '#'*) continue ;; esac
			f=()
			while [[ $line == *$'\t'* ]]; do
				f+=("${line%%$'\t'*}")
				line=${line#*$'\t'}
			done
			f+=("$line")
			[ ${#f[@]} -ge 6 ] || continue
			PLAN_ROWS[${f[1]}]+="${f[0]}"$'\t'"${f[2]}"$'\t'"${f[3]}"$'\t'"${f[4]}"$'\t'"${f[5]}"$'\n'
			key="${f[1]} ${f[0]}"
			PLAN_ROWS[$key]+="${f[2]}"$'\t'"${f[3]}"$'\t'"${f[4]}"$'\t'"${f[5]}"$'\n'
		done < "$PLAN_TABLE"
		PLAN_ROWS[.]='read'
	fi
	key=$1${2:+ $2}
	printf '%s' "${PLAN_ROWS[$key]:-}"
}

# plan_scope_match FILE SCOPE REGEX -> "START<TAB>HIT": the first line of
# SCOPE in FILE and the first line of it that matches REGEX, each empty if
# there is none (one awk, scope.awk)
plan_scope_match() {
	if [ -f "$1" ]; then
		awk -f "$LIB_DIR/scope.awk" -v match_scope="$2" -v first_match="$3" "$1"
	else
		printf '\t\n'
	fi
}

# plan_probe_na NUMBER -> the n/a reason of the first probe that fires, if any
plan_probe_na() {
	local num=$1 kind file scope regex reason start hit where line found
	while IFS=$'\t' read -r kind file scope regex reason; do
		found=$(plan_scope_match "$TREE/$file" "$scope" "$regex")
		IFS=$'\t' read -r start hit <<< "$found"
		case $kind in
		na-if-present)
			[ -n "$hit" ] && { printf '%s (%s:%s)\n' "$reason" "$file" "$hit"; return; } ;;
		na-if-absent)
			[ -z "$hit" ] || continue
			if [ ! -f "$TREE/$file" ]; then
				where="$file does not exist"
			elif [ -z "$start" ]; then
				where="$file has no $scope()"
			elif [ "$scope" = - ]; then
				where="$file has no /$regex/"
			else
				where="$file:$start: $scope() has no /$regex/"
			fi
			printf '%s (%s)\n' "$reason" "$where"
			return ;;
		esac
	done < <(for kind in na-if-present na-if-absent; do
			plan_rows "$kind" "$num" | while IFS= read -r line; do printf '%s\t%s\n' "$kind" "$line"; done
		done)
	# no probe fired (the loop's status is that of the last probe tried)
	return 0
}

# plan_evidence NAME -> what tables/detect.table found for NAME in TREE:
# "file:line has /re/" for each present rule, "file has no /re/" for each
# absent rule (guards of the form "." left out)
plan_evidence() {
	local id rid file scope expect regex hit where out=()
	id=$(patch_upstream_id "$DATA_DIR/patches/$1")
	id=${id:0:12}
	while IFS=$'\t' read -r rid file scope expect regex; do
		{ [ "$rid" = "$id" ] && [ "$regex" != . ]; } || continue
		where=$file
		[ "$scope" = - ] || where="$file:$scope()"
		if [ "$expect" = present ]; then
			hit=$(plan_scope_match "$TREE/$file" "$scope" "$regex")
			out+=("$file:${hit#*$'\t'} has /$regex/")
		else
			out+=("$where has no /$regex/")
		fi
	done < "$DATA_DIR/tables/detect.table"
	printf '%s' "${out[0]}"
	[ ${#out[@]} -lt 2 ] || printf '; %s' "${out[@]:1}"
	printf '\n'
}

# plan_branch_has BRANCH NAME: the branch carries NAME or has it upstream
plan_branch_has() {
	plan_branch_series "$1"
	[ -n "${PLAN_SERIES["$1 $2"]:-}" ]
}

# plan_branch_carries BRANCH NAME: the branch's series lists NAME (only such
# a branch can be the source of NAME: it has backports/BRANCH/NAME)
plan_branch_carries() {
	plan_branch_series "$1"
	[ "${PLAN_SERIES["$1 $2"]:-}" = carry ]
}

# plan_branch_series BRANCH: PLAN_SERIES["BRANCH NAME"] is "carry" for a
# patch the branch's series lists, "upstream" for one it says is already
# upstream there (read once per branch)
declare -gA PLAN_SERIES=()
plan_branch_series() {
	local name series
	[ -z "${PLAN_SERIES[$1]:-}" ] || return 0
	series=$(series_file "$1")
	for name in $(series_patches "$series"); do PLAN_SERIES["$1 $name"]=carry; done
	while IFS= read -r name; do
		case $name in
		'# '*': already upstream'*)
			name=${name#\# }
			PLAN_SERIES["$1 ${name%%: already upstream*}"]=upstream ;;
		esac
	done < "$series"
	PLAN_SERIES[$1]='read'
}

# plan_reference BRANCH -> the branch's committed reference data (a
# one-line error naming make regen when it is missing)
plan_reference() {
	local ref=$DATA_DIR/backports/$1/reference.json
	[ -f "$ref" ] || die "backports/$1/reference.json is missing; run 'make regen BRANCH=$1' (it writes the reference data the plan reads)"
	printf '%s\n' "$ref"
}

# plan_near: TREE's nearness to every branch, computed once from the
# reference data ($WORK/near: "branch patch identical total similarity")
plan_near() {
	local b refs=()
	[ ! -f "$WORK/near" ] || return 0
	for b in $SUPPORTED_BRANCHES; do refs+=("$(plan_reference "$b")"); done
	kit_py reanchor nearness-ref "$TREE" "${refs[@]}" > "$WORK/near.tmp" ||
		die "could not compare $TREE with the branches' reference data"
	mv "$WORK/near.tmp" "$WORK/near"
}

# plan_nearest BRANCH... -- NAME... -> of the BRANCHes, the one nearest to
# TREE for the patches NAME: the highest mean similarity of the definitions
# they change, then share of identical ones, then the nearest version; the
# first one given on a tie
plan_nearest() {
	local b cands=()
	while [ "$1" != -- ]; do
		cands+=("$1:$(plan_version_distance "$1")")
		shift
	done
	shift
	plan_near
	printf '%s\n' "$@" | awk -v cands="${cands[*]}" 'NR == FNR { want[$1] = 1; next }
		want[$2] { s[$1] += $3; t[$1] += $4; r[$1] += $5 }
		END {
			n = split(cands, c, " ")
			for (i = 1; i <= n; i++) {
				split(c[i], bd, ":"); b = bd[1]
				printf "%s %.4f %.4f %d\n", b, (t[b] ? r[b] / t[b] : 0), (t[b] ? s[b] / t[b] : 0), -bd[2]
			}
		}' - "$WORK/near" | sort -s -k2,2gr -k3,3gr -k4,4gr | awk 'NR == 1 { print $1 }'
}

# plan_form_fits BRANCH NAME: the tree has the code that BRANCH's backport
# of NAME changes, where a form-needs row names it
plan_form_fits() {
	local file scope regex reason hit bp=$DATA_DIR/backports/$1/$2
	[ -f "$bp" ] || return 0	# upstream on the branch: no form of its own
	while IFS=$'\t' read -r file scope regex reason; do
		[[ $'\n'$(patch_files "$bp")$'\n' == *$'\n'"$file"$'\n'* ]] || continue
		hit=$(plan_scope_match "$TREE/$file" "$scope" "$regex")
		[ -n "${hit#*$'\t'}" ] || return 1
	done < <(plan_rows form-needs "${2%%-*}")
	return 0
}

# plan_qualifies BRANCH NAME...: BRANCH carries every NAME, in a form that
# fits the tree's code, and agrees with the tree on their dependencies
plan_qualifies() {
	local b=$1 name dep tree_has
	shift
	for name in "$@"; do
		plan_branch_carries "$b" "$name" || return 1
		plan_form_fits "$b" "$name" || return 1
		# the branch's form builds on DEP: the tree must have it too
		while IFS=$'\t' read -r dep _; do
			case ${DECISION[$dep]:-} in carry|upstream) tree_has=1 ;; *) tree_has=0 ;; esac
			if plan_branch_has "$b" "$(plan_full_name "$dep")" && [ $tree_has = 0 ]; then
				return 1
			fi
		done < <(plan_rows dep "${name%%-*}")
	done
}

plan_full_name() {	# plan_full_name NNNN -> the upstream patch file name
	local p
	if [ -z "${PLAN_FULL[.]:-}" ]; then
		for p in $(series_patches "$DATA_DIR/series"); do PLAN_FULL[${p%%-*}]=$p; done
		PLAN_FULL[.]='read'
	fi
	[ -z "${PLAN_FULL[$1]:-}" ] || printf '%s\n' "${PLAN_FULL[$1]}"
}
declare -gA PLAN_FULL=()

# plan_group_of NNNN -> the numbers of the group NNNN belongs to (itself alone
# when no group row names it)
plan_group_of() {
	local members m
	while IFS=$'\t' read -r _ members _; do
		for m in $members; do
			if [ "$m" = "$1" ]; then
				printf '%s\n' "$members"
				return 0
			fi
		done
	done < <(plan_rows group)
	printf '%s\n' "$1"
}

# plan_version_distance BRANCH -> how far BRANCH's version is from TREE's
plan_version_distance() {
	local d
	d=$(( $(branch_number "$1") - $(branch_number "$TREE_VERSION") ))
	printf '%s\n' "${d#-}"
}

# plan_choose NNNN... -> the branch the needed patches NNNN... come from, or nothing
plan_choose() {
	local b names=() num cands=()
	for num in "$@"; do names+=("$(plan_full_name "$num")"); done
	# a tree whose touched files are those of a branch is that branch
	if [ -n "$SAME_AS" ] && plan_qualifies "$SAME_AS" "${names[@]}"; then
		printf '%s\n' "$SAME_AS"
		return
	fi
	for b in $SUPPORTED_BRANCHES; do
		! plan_qualifies "$b" "${names[@]}" || cands+=("$b")
	done
	case ${#cands[@]} in
	0) ;;
	1) printf '%s\n' "${cands[0]}" ;;	# nothing to compare
	*) plan_nearest "${cands[@]}" -- "${names[@]}" ;;
	esac
}

# plan_same_as_branch -> the branch of TREE's version when every file its series
# touches is byte for byte that branch's (backports/<branch>/touched.sums:
# no scoring needed)
plan_same_as_branch() {
	local b differ
	b=$(nearest_branch "$(kernel_version "$TREE")")
	[ -n "$b" ] || return 0
	differ=$(sums_differing "$DATA_DIR/backports/$b/touched.sums" "$TREE") || return 0
	[ -z "$differ" ] || return 0
	printf '%s\n' "$b"
}


# plan_tree TREE -> the plan (see the top)
# (a subshell: its work directory and globals are its own)
plan_tree() (
	local name num verdict why reason detected g member need b
	local -A detected_verdict=() detected_why=()
	TREE=$1
	TREE_VERSION=$(kernel_version "$TREE")
	TREE_VERSION=${TREE_VERSION%.*}
	# named after the command's pid: apply_run removes what a killed one left
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/plan.$$.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
	# what the decisions below ask many times, read once here (their
	# callers run in subshells, which would each read it again)
	plan_rows . > /dev/null
	plan_full_name . > /dev/null
	for b in $SUPPORTED_BRANCHES; do plan_branch_series "$b"; done
	detected=$(detect_tree "$TREE")
	while IFS=$'\t' read -r name verdict why; do
		[ -z "$name" ] || detected_verdict[$name]=$verdict detected_why[$name]=$why
	done <<< "$detected"
	SAME_AS=$(plan_same_as_branch)
	declare -gA DECISION WHY SOURCE
	for name in $(series_patches "$DATA_DIR/series"); do
		num=${name%%-*}
		reason=$(plan_probe_na "$num")
		verdict=${detected_verdict[$name]:-absent} why=${detected_why[$name]:-}
		if [ -n "$reason" ]; then
			DECISION[$num]=n/a WHY[$num]=$reason
		elif [ "$verdict" = present ]; then
			DECISION[$num]=upstream WHY[$num]=$(plan_evidence "$name")
		elif [ "$verdict" = unknown ]; then
			DECISION[$num]=n/a WHY[$num]="the code it changes is not in the tree (${why%: code not found} not found)"
		else
			DECISION[$num]=carry
		fi
	done
	for name in $(series_patches "$DATA_DIR/series"); do
		num=${name%%-*}
		{ [ "${DECISION[$num]}" = carry ] && [ -z "${SOURCE[$num]:-}" ]; } || continue
		g=$(plan_group_of "$num")
		need=()
		for member in $g; do
			[ "${DECISION[$member]:-}" = carry ] && need+=("$member")
		done
		b=$(plan_choose "${need[@]}")
		for member in "${need[@]}"; do
			if [ -n "$b" ]; then
				SOURCE[$member]=$b
			else
				SOURCE[$member]=-
				DECISION[$member]=n/a
				WHY[$member]="no supported branch has a backport that fits (backports/*/series, and the dep rows of tables/plan.table)"
			fi
		done
	done
	for name in $(series_patches "$DATA_DIR/series"); do
		num=${name%%-*}
		case ${DECISION[$num]} in
		carry) printf '%s\tcarry\t%s\n' "$name" "${SOURCE[$num]}" ;;
		*) printf '%s\t%s\t%s\n' "$name" "${DECISION[$num]}" "${WHY[$num]}" ;;
		esac
	done
)
