# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034  # KB_* describe the build target for the modules
# kbuild.sh - build kernels and single objects for a build target: the
# architecture (ARCH=, read from the tree when not given), the toolchain
# (GCC, or LLVM=1) and the configuration (the kit's fragments on
# tinyconfig, or with KCONFIG= the tree's own: a defconfig name or a file).
#
# kb_target sets the build target, called only by request.sh
# request_target (the request's target, resolved once: by bin/, by
# retarget.sh for its compile checks, by matrix.sh per step and build
# target); every later call uses KB_*:
#   KB_ARCH     x86_64 | arm64        (the kit's name of the architecture)
#   KB_SRCARCH  x86 | arm64           (ARCH= given to the kernel's make: always
#               on the command line, so a Makefile's own "ARCH :=" never wins)
#   KB_CROSS    CROSS_COMPILE prefix, "" for a native build
#   KB_LLVM     "" (GCC) or the LLVM version directory the build puts first
#               in PATH (/usr/lib/llvm-N/bin), with LLVM=1
#   KB_KCONFIG  "" (the kit's fragments) or the tree's own config
#   KB_IMAGE    the boot image, relative to the build dir
#   KB_TAG      "" for x86_64+GCC+fragments, else "-arm64", "-llvm", ... :
#               build dirs and logs of other targets never mix
kit_use tables trees

# kb_norm_arch NAME -> x86_64 | arm64, or nothing for an unknown name
kb_norm_arch() {
	case $1 in
	x86_64|x86|amd64) echo x86_64 ;;
	arm64|aarch64) echo arm64 ;;
	esac
}

# kb_config_values FILE [DEPTH] -> "KEY=value" lines of an Android
# build.config file and of the files it includes (". ${ROOT_DIR}/
# ${KERNEL_DIR}/build.config.common"), read as text: they are shell
# fragments for build/build.sh (functions, ${VAR:-x}, includes of files a
# kernel checkout may lack), never sourced
# shellcheck disable=SC2094  # FILE is only read (the name goes to the recursion)
kb_config_values() {
	local f=$1 depth=${2:-0} line inc re='^([A-Z_][A-Z0-9_]*)="?([^"$]*)"?[[:space:]]*$'
	[ -f "$f" ] && [ "$depth" -lt 8 ] || return 0
	while IFS= read -r line; do
		case $line in
		.\ *|source\ *)
			inc=${line#* }
			inc=${inc//\$\{ROOT_DIR\}\/\$\{KERNEL_DIR\}\//}
			inc=${inc//\$\{KERNEL_DIR\}\//}
			inc=${inc//\$\{ROOT_DIR\}\//}
			kb_config_values "$(dirname "$f")/$inc" $((depth + 1)) ;;
		[A-Z_]*=*)
			if [[ $line =~ $re ]]; then printf '%s=%s\n' "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"; fi ;;
		esac
	done < "$f"
}

# kb_tree_arch TREE -> the architecture the tree is meant for, read from
# the tree, and where it was read ("arm64<TAB>Makefile:12"): a top Makefile
# that sets ARCH to a literal value (":=", "=", "?=", "override", as SoC
# trees do; upstream has "ARCH ?= $(SUBARCH)"), else ARCH= of Android's
# build.config (and what it includes), else of the build.config.* files
# (one value; with several, as ACK ships build.config.aarch64 and
# build.config.x86_64, arm64), else nothing
kb_tree_arch() {
	local tree=$1 mk a f vals
	[ -f "$tree/Makefile" ] || return 0
	mk=$(grep -nE '^[[:space:]]*(export[[:space:]]+|override[[:space:]]+)?ARCH[[:space:]]*(:=|\?=|=)[[:space:]]*[A-Za-z0-9_]+[[:space:]]*(#.*)?$' \
		"$tree/Makefile" | sed -n 1p) || true
	if [ -n "$mk" ]; then
		a=$(sed -E 's/^[0-9]+:[[:space:]]*(export[[:space:]]+|override[[:space:]]+)?ARCH[[:space:]]*(:=|\?=|=)[[:space:]]*([A-Za-z0-9_]+).*/\3/' <<< "$mk")
		if [ -n "$(kb_norm_arch "$a")" ]; then
			printf '%s\tMakefile:%s\n' "$(kb_norm_arch "$a")" "${mk%%:*}"
			return 0
		fi
	fi
	if [ -f "$tree/build.config" ]; then
		a=$(kb_config_values "$tree/build.config" | sed -n 's/^ARCH=//p' | tail -n1)
		if [ -n "$(kb_norm_arch "$a")" ]; then
			printf '%s\tbuild.config\n' "$(kb_norm_arch "$a")"
			return 0
		fi
	fi
	vals=$(for f in "$tree"/build.config.*; do
		if [ -f "$f" ]; then
			kb_config_values "$f" | sed -n 's/^ARCH=//p' | while read -r a; do kb_norm_arch "$a"; done
		fi
	done | sort -u)
	case $(wc -w <<< "$vals") in
	0) ;;
	1) printf '%s\tbuild.config.*\n' "$vals" ;;
	*) grep -qx arm64 <<< "$vals" && printf 'arm64\tbuild.config.* (%s)\n' "$(paste -sd, <<< "$vals")" ;;
	esac
	return 0
}

# kb_tree_llvm TREE -> "1<TAB>where" when the tree is built with LLVM: a
# top Makefile that sets LLVM to 1 (as it sets ARCH), else LLVM=1 in
# Android's build.config (and what it includes), else in one of the
# build.config.* files (ACK: build.config.common); nothing otherwise
kb_tree_llvm() {
	local tree=$1 mk f
	[ -f "$tree/Makefile" ] || return 0
	mk=$(grep -nE '^[[:space:]]*(export[[:space:]]+|override[[:space:]]+)?LLVM[[:space:]]*(:=|\?=|=)[[:space:]]*1[[:space:]]*(#.*)?$' \
		"$tree/Makefile" | sed -n 1p) || true
	if [ -n "$mk" ]; then
		printf '1\tMakefile:%s\n' "${mk%%:*}"
		return 0
	fi
	for f in "$tree/build.config" "$tree"/build.config.*; do
		[ -f "$f" ] || continue
		if grep -qx 'LLVM=1' < <(kb_config_values "$f"); then
			printf '1\t%s\n' "${f##*/}"
			return 0
		fi
	done
}

# kb_host_arch -> the machine's architecture (x86_64 | arm64)
kb_host_arch() {
	kb_norm_arch "$(uname -m)"
}

# kb_llvm_dir TREE -> the oldest installed LLVM (/usr/lib/llvm-N/bin) that
# the tree accepts (scripts/min-tool-version.sh llvm; 10 before it existed):
# the fewest new warnings on an old tree; or a one-line error
kb_llvm_dir() {
	local tree=$1 min=10 d v best='' bestv=999
	if [ -f "$tree/scripts/min-tool-version.sh" ]; then
		min=$(sh "$tree/scripts/min-tool-version.sh" llvm 2>/dev/null | cut -d. -f1)
	fi
	case $min in ''|*[!0-9]*) min=10 ;; esac
	for d in /usr/lib/llvm-*/bin; do
		{ [ -x "$d/clang" ] && [ -x "$d/ld.lld" ]; } || continue
		v=${d#/usr/lib/llvm-}
		v=${v%%/*}
		case $v in ''|*[!0-9]*) continue ;; esac
		if [ "$v" -ge "$min" ] && [ "$v" -lt "$bestv" ]; then best=$d bestv=$v; fi
	done
	[ -n "$best" ] ||
		usage_error "LLVM=1: no installed clang and lld of version $min or newer for $tree; install clang-19 lld-19 llvm-19 (bin/deps does as root)"
	printf '%s\n' "$best"
}

# kb_target ARCH LLVM KCONFIG TREE: set KB_* for the build target.  ARCH
# empty: the tree's own (kb_tree_arch), else the machine's; LLVM "", 0 or
# 1; KCONFIG empty, a defconfig name of the tree's arch/<arch>/configs/,
# or a file
kb_target() {
	local arch=$1 llvm=$2 kconfig=$3 tree=$4 want
	KB_ARCH_FROM="ARCH="
	if [ -z "$arch" ]; then
		arch=$(kb_tree_arch "$tree")
		KB_ARCH_FROM="the tree's ${arch#*$'\t'}"
		arch=${arch%%$'\t'*}
		[ -n "$arch" ] || { arch=$(kb_host_arch); KB_ARCH_FROM="the machine"; }
	fi
	want=$(kb_norm_arch "$arch")
	[ -n "$want" ] || usage_error "unknown ARCH=$arch; use ARCH=x86_64 or ARCH=arm64"
	KB_ARCH=$want
	case $KB_ARCH in
	x86_64) KB_SRCARCH=x86 KB_IMAGE=arch/x86/boot/bzImage ;;
	arm64) KB_SRCARCH=arm64 KB_IMAGE=arch/arm64/boot/Image ;;
	esac
	KB_CROSS=
	if [ "$KB_ARCH" != "$(kb_host_arch)" ]; then
		case $KB_ARCH in
		arm64) KB_CROSS=aarch64-linux-gnu- ;;
		x86_64) KB_CROSS=x86_64-linux-gnu- ;;
		esac
	fi
	KB_LLVM='' KB_LLVM_FROM="LLVM="
	if [ -z "$llvm" ]; then
		llvm=$(kb_tree_llvm "$tree")
		KB_LLVM_FROM="the tree's ${llvm#*$'\t'}"
		llvm=${llvm%%$'\t'*}
		[ -n "$llvm" ] || KB_LLVM_FROM="the default: no LLVM=, none in the tree"
	fi
	case ${llvm:-0} in
	0|'') ;;
	1) KB_LLVM=$(kb_llvm_dir "$tree") ;;
	*) usage_error "LLVM=$llvm: use LLVM=1 (the newest installed clang the tree accepts) or leave it out" ;;
	esac
	if [ -n "$KB_CROSS" ] && [ -z "$KB_LLVM" ] && ! command -v "${KB_CROSS}gcc" >/dev/null; then
		usage_error "ARCH=$KB_ARCH needs the cross compiler ${KB_CROSS}gcc; install gcc-aarch64-linux-gnu (bin/deps does as root), or use LLVM=1"
	fi
	KB_KCONFIG=
	if [ -n "$kconfig" ]; then
		if [ -f "$kconfig" ]; then
			KB_KCONFIG=$(cd "$(dirname "$kconfig")" && pwd)/${kconfig##*/}
		elif [ -f "$tree/arch/$KB_SRCARCH/configs/$kconfig" ]; then
			KB_KCONFIG=$kconfig
		elif [ -f "$tree/arch/$KB_SRCARCH/configs/${kconfig}_defconfig" ]; then
			KB_KCONFIG=${kconfig}_defconfig
		else
			usage_error "KCONFIG=$kconfig is neither a file nor a defconfig of $tree/arch/$KB_SRCARCH/configs/; give a .config file or a defconfig name (e.g. KCONFIG=gki_defconfig)"
		fi
	fi
	KB_TAG=
	[ "$KB_ARCH" = x86_64 ] || KB_TAG=$KB_TAG-$KB_ARCH
	[ -z "$KB_LLVM" ] || KB_TAG=$KB_TAG-llvm
	[ -z "$KB_KCONFIG" ] || KB_TAG=$KB_TAG-kconfig-$(kb_kconfig_key)
}

# kb_kconfig_key -> short name of KB_KCONFIG (its content for a file)
kb_kconfig_key() {
	if [ -f "$KB_KCONFIG" ]; then
		sha256sum < "$KB_KCONFIG" | cut -c1-8
	else
		printf '%s\n' "${KB_KCONFIG%_defconfig}"
	fi
}

# kb_describe -> "arm64, LLVM 16, gki_defconfig" for messages and reports
kb_describe() {
	printf '%s, %s%s\n' "$KB_ARCH" \
		"$([ -n "$KB_LLVM" ] && echo "LLVM ${KB_LLVM#/usr/lib/llvm-}" | sed 's|/bin$||' || echo GCC)" \
		"$([ -z "$KB_KCONFIG" ] || echo ", KCONFIG=${KB_KCONFIG##*/}")"
}

# kb_describe_from -> the target and where each part came from, for reports:
# "arm64 (ARCH= of the tree's build.config), LLVM 16 (the tree's
# build.config.common)"
kb_describe_from() {
	printf '%s (%s), %s (%s)%s\n' "$KB_ARCH" "$KB_ARCH_FROM" \
		"$([ -n "$KB_LLVM" ] && echo "LLVM ${KB_LLVM#/usr/lib/llvm-}" | sed 's|/bin$||' || echo GCC)" "$KB_LLVM_FROM" \
		"$([ -z "$KB_KCONFIG" ] || echo ", KCONFIG=${KB_KCONFIG##*/}")"
}

# kb_make_args -> the make arguments of the target, one a line (ARCH always)
kb_make_args() {
	printf '%s\n' "ARCH=$KB_SRCARCH"
	[ -z "$KB_CROSS" ] || printf '%s\n' "CROSS_COMPILE=$KB_CROSS"
	if [ -n "$KB_LLVM" ]; then
		printf '%s\n' LLVM=1 "CC=ccache clang"
	else
		printf '%s\n' "CC=ccache ${KB_CROSS}gcc"
	fi
}

# kb_path -> the PATH of the target's make (with LLVM, the clang's
# directory first)
kb_path() {
	if [ -n "$KB_LLVM" ]; then printf '%s:%s\n' "$KB_LLVM" "$PATH"; else printf '%s\n' "$PATH"; fi
}

# build_dir BRANCH VARIANT [PROFILE] -> kernel build dir (O=) for that tree
# and the target: build/ for the test kernels, build-<profile>/ for the
# others (bench, rt, abi), each with the target's tag.  Each sits next to
# its source tree, so every variant sees its source as "../linux": with
# CCACHE_BASEDIR the compiler runs of the variants are the same and a
# variant's build reuses every object the series does not change.
build_dir() {
	local suffix=
	case ${3:-test} in test) ;; *) suffix=-$3 ;; esac
	printf '%s/build%s%s\n' "$(dirname "$(variant_dir "$1" "$2")")" "$suffix" "${KB_TAG:-}"
}

# kb_profile_fragments PROFILE -> the config fragments of a kernel profile,
# one a line, after base, the arch's and the branch's:
#   test   debug.config (lockdep, DEBUG_VM): the boot tests
#   bench  bench.config, no debug: production-like (make bench)
#   rt     debug.config + rt.config (PREEMPT_RT; make boot RT=1)
#   abi    abi.config, no debug: interface kernels (make abi)
kb_profile_fragments() {
	case $1 in
	test) printf '%s\n' "$KIT_DIR/configs/debug.config" ;;
	bench) printf '%s\n' "$KIT_DIR/configs/bench.config" ;;
	rt) printf '%s\n' "$KIT_DIR/configs/debug.config" "$KIT_DIR/configs/rt.config" ;;
	abi) printf '%s\n' "$KIT_DIR/configs/abi.config" ;;
	*) usage_error "unknown kernel profile '$1'; use test, bench, rt or abi" ;;
	esac
}

# kb_kconfig_fragments PROFILE -> the fragments merged onto the tree's own
# configuration (KCONFIG=), one a line: the rt profile's configs/rt.config
# (make check's PREEMPT_RT pass, make boot RT=1), none for the others
kb_kconfig_fragments() {
	[ "$1" != rt ] || printf '%s\n' "$KIT_DIR/configs/rt.config"
}

# kb_fragments SRC PROFILE -> every fragment of a build, in merge order
kb_fragments() {
	local src=$1 c
	printf '%s\n' "$KIT_DIR/configs/base.config" "$KIT_DIR/configs/arch/$KB_ARCH.config"
	# a tree of the request's branch itself (not a vendor tree between
	# branches) gets the branch's fragment
	if [ -n "$REQ_BRANCH" ] && is_kernel_tree "$src" && tree_is_branch "$src"; then
		c=$(branch_field "$REQ_BRANCH" config)
		[ "$c" = - ] || [ -z "$c" ] || printf '%s\n' "$KIT_DIR/configs/$c"
	fi
	kb_profile_fragments "$2"
}

# kb_kconfig_has SRC SYMBOL: the tree defines the symbol in a Kconfig file
kb_kconfig_has() {
	grep -rqsE --include='Kconfig*' "^[[:space:]]*(menu)?config[[:space:]]+$2[[:space:]]*$" \
		"$1/arch/$KB_SRCARCH" "$1/init" "$1/kernel" "$1/mm" "$1/lib" "$1/fs" \
		"$1/drivers/tty" "$1/drivers/virtio" "$1/drivers/rtc" "$1/drivers/power" \
		"$1/usr" "$1/security" "$1/net" "$1/Kconfig" 2>/dev/null
}

# the object that compiles a file the series changes, where it is not the
# file's own .o (headers, and .c files #included by another one)
KB_COMPILED_BY="\
include/linux/rwsem.h kernel/locking/rwsem.o
include/linux/mmap_lock.h mm/khugepaged.o
include/trace/events/huge_memory.h mm/khugepaged.o
kernel/locking/rwbase_rt.c kernel/locking/rwsem.o"

# kb_file_objects FILE... -> "FILE<TAB>OBJECT" for each changed file an
# object compiles (KB_COMPILED_BY, else a .c file's own .o)
kb_file_objects() {
	local f
	for f in "$@"; do
		awk -v f="$f" '$1 == f { print f "\t" $2; found = 1 } END { exit !found }' <<< "$KB_COMPILED_BY" ||
			case $f in *.c) printf '%s\t%s\n' "$f" "${f%.c}.o" ;; esac
	done
}

# kb_option_on OBJ OPTION: OPTION is y or m in OBJ/.config
kb_option_on() {
	grep -qE "^$2=[ym]$" "$1/.config"
}

# kb_rules DIR NAME -> what DIR's Makefile (or Kbuild) builds NAME (an
# object, or "sub/" for a directory) under, one a line: "y" for a rule
# without an option ("obj-y += NAME", "foo-y := NAME"), the option of
# "xxx-$(CONFIG_X) += ... NAME ..." otherwise (continuation lines joined)
kb_rules() {
	local mk
	for mk in "$1/Makefile" "$1/Kbuild"; do
		[ -f "$mk" ] || continue
		sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' "$mk" |
			awk -v n="$2" '
				match($0, /^[ \t]*[A-Za-z0-9_.-]+-(y|\$\(CONFIG_[A-Za-z0-9_]+\))[ \t]*[:+]?=/) {
					head = substr($0, 1, RLENGTH)
					k = split(substr($0, RLENGTH + 1), w, /[ \t]+/)
					for (i = 1; i <= k; i++) if (w[i] == n) {
						if (match(head, /CONFIG_[A-Za-z0-9_]+/)) print substr(head, RSTART, RLENGTH)
						else print "y"
						break
					}
				}'
	done | sort -u
}

# kb_include_guards SOURCE NAME -> the options that must be set for
# SOURCE's '#include "NAME"' to be compiled (#ifdef CONFIG_X, #if
# [defined|IS_ENABLED](CONFIG_X), #ifndef ... #else), one a line
kb_include_guards() {
	awk -v inc="$2" '
		function sym(s) { return match(s, /CONFIG_[A-Za-z0-9_]+/) ? substr(s, RSTART, RLENGTH) : "" }
		/^[ \t]*#[ \t]*ifdef[ \t]/ { c[++n] = sym($0); neg[n] = 0; next }
		/^[ \t]*#[ \t]*ifndef[ \t]/ { c[++n] = sym($0); neg[n] = 1; next }
		/^[ \t]*#[ \t]*if[ \t(]/ {
			simple = $0 ~ /^[ \t]*#[ \t]*if[ \t]*(defined|IS_ENABLED|IS_BUILTIN)?[ \t(]*CONFIG_[A-Za-z0-9_]+[ \t)]*(\/[*\/].*)?$/
			c[++n] = simple ? sym($0) : ""; neg[n] = 0; next
		}
		/^[ \t]*#[ \t]*elif/ { c[n] = ""; next }
		/^[ \t]*#[ \t]*else/ { neg[n] = !neg[n]; next }
		/^[ \t]*#[ \t]*endif/ { if (n > 0) n--; next }
		/^[ \t]*#[ \t]*include[ \t]*"/ {
			if (index($0, "\"" inc "\"")) { for (i = 1; i <= n; i++) if (c[i] != "" && !neg[i]) print c[i]; exit }
		}' "$1"
}

# kb_not_built SRC OBJ FILE OBJECT: the configuration of OBJ/.config does
# not build FILE (compiled in OBJECT): prints why ("CONFIG_KSM is off
# (mm/Makefile: ksm.o)"), status 0; 1 when it is built or nothing says
# it is not.  Read from the tree's own Makefiles (every rule naming the
# object, then its directory in the parent's, up to the top) and, for a
# file #included by OBJECT's source, the #if around the include.  ("make
# dir/x.o" compiles a single object whether it is configured or not.)
kb_not_built() {
	local src=$1 obj=$2 file=$3 o=$4 dir name rules opt on
	[ -f "$obj/.config" ] || return 1
	if [ "$file" != "${o%.o}.c" ] && [ "${file%.c}" != "$file" ] && [ -f "$src/${o%.o}.c" ]; then
		for opt in $(kb_include_guards "$src/${o%.o}.c" "${file##*/}"); do
			kb_option_on "$obj" "$opt" || { echo "$opt is off ($file is compiled in $o only with it)"; return 0; }
		done
	fi
	dir=$(dirname "$o") name=$(basename "$o")
	while [ "$dir" != . ]; do
		rules=$(kb_rules "$src/$dir" "$name")
		if [ -n "$rules" ] && ! grep -qx y <<< "$rules"; then
			on=0
			for opt in $rules; do if kb_option_on "$obj" "$opt"; then on=1; fi; done
			if [ $on = 0 ]; then
				echo "$(paste -sd/ <<< "$rules") is off ($dir/Makefile: $name)"
				return 0
			fi
		fi
		name=$(basename "$dir")/ dir=$(dirname "$dir")
	done
	return 1
}

# kb_unbuilt SRC OBJ OBJECT FILE...: the configuration builds none of
# the changed files FILE... that OBJECT compiles (kb_file_objects): prints
# why (kb_not_built, each), status 0; 1 when it builds one of them
kb_unbuilt() {
	local src=$1 obj=$2 o=$3 f pair reasons=''
	shift 3
	while IFS=$'\t' read -r f pair; do
		[ "$pair" = "$o" ] || continue
		pair=$(kb_not_built "$src" "$obj" "$f" "$o") || return 1
		case ", $reasons, " in *", $pair, "*) ;; *) reasons="$reasons${reasons:+, }$pair" ;; esac
	done < <(kb_file_objects "$@")
	[ -n "$reasons" ] && printf '%s\n' "$reasons"
}

# kb_kconfig_sources COPY -> "file<TAB>sourced path" for every Kconfig
# "source"/"rsource" that the configuration reads, from the top Kconfig
# down (paths relative to COPY; $(SRCARCH) is the target's)
kb_kconfig_sources() {
	local copy=$1 list=Kconfig seen=' ' file path next
	while [ -n "$list" ]; do
		next=''
		while IFS=$'\t' read -r file path; do
			[ -n "$path" ] || continue
			printf '%s\t%s\n' "$file" "$path"
			if [ -f "$copy/$path" ] && [[ $seen != *" $path "* ]]; then
				seen="$seen$path "
				next="$next$path"$'\n'
			fi
		done < <(cd "$copy" && while read -r file; do [ -z "$file" ] || [ ! -f "$file" ] || printf '%s\n' "$file"; done <<< "$list" |
			xargs -r -d '\n' grep -HE '^[[:space:]]*r?source[[:space:]]+"[^"]+"' |
			awk -v arch="$KB_SRCARCH" '{
				file = $0; sub(/:.*/, "", file)
				line = substr($0, length(file) + 2)
				kind = (line ~ /^[ \t]*rsource/) ? "r" : ""
				match(line, /"[^"]+"/); p = substr(line, RSTART + 1, RLENGTH - 2)
				gsub(/\$\(SRCARCH\)|\$SRCARCH/, arch, p)
				if (kind == "r") { d = file; if (sub(/\/[^\/]*$/, "", d)) p = d "/" p }
				if (p ~ /[$*]/ || p ~ /^\// || p ~ /\.\./) next
				print file "\t" p
			}')
		list=$next
	done
}

# kb_stub_absent COPY -> in a build copy (never the user's tree): every
# Kconfig "source"/"rsource" the configuration reads of a file that does
# not exist (an absent submodule, a dangling symlink) and every kernel
# Makefile's "include $(srctree)/..." of a missing fragment becomes an
# empty file, so that the configuration and the build run; prints the
# stubs, one a line
kb_stub_absent() {
	local copy=$1 file path pre
	while IFS=$'\t' read -r file path; do
		[ ! -e "$copy/$path" ] || continue
		# a dangling symlink on the way (a submodule's link) goes
		pre=$path
		while [ "$pre" != . ]; do
			if [ -L "$copy/$pre" ] && [ ! -e "$copy/$pre" ]; then rm -f "$copy/$pre"; fi
			pre=$(dirname "$pre")
		done
		{ mkdir -p "$copy/$(dirname "$path")" &&
			printf '# empty: mm-backport-kit stub for the absent %s (%s)\n' "$path" "$file" > "$copy/$path"; } ||
			die "could not stub the absent $path in $copy"
		printf '%s\n' "$path"
	done < <(kb_kconfig_sources "$copy"
		cd "$copy" && grep -rHE --include=Makefile --include=Kbuild --exclude-dir=tools --exclude-dir=Documentation \
			--exclude-dir=tests '^include[[:space:]]+\$\(srctree\)/[^[:space:]$]+[[:space:]]*$' . |
			sed -E 's|^\./||; s|^([^:]+):include[[:space:]]+\$\(srctree\)/([^[:space:]]+).*|\1\t\2|' | sort -u)
}

# kb_stub_copy COPY TREE -> the stubs kb_stub_absent makes in COPY, a
# build copy of TREE, on one line (", "), and a warning that names them
kb_stub_copy() {
	local stubs
	stubs=$(kb_stub_absent "$1" | join_lines ', ')
	[ -z "$stubs" ] || warn "the compile copy has empty stubs for what $2 lacks: $stubs"
	printf '%s\n' "$stubs"
}

# kb_first_error LOG -> the first line of LOG that names a real error (not
# make's own "*** [target] Error N" echo of it; make's "*** No rule to
# make target" is one), else its last line
kb_first_error() {
	local line
	line=$(grep -v -E '^make(\[[0-9]+\])?: \*\*\* (\[|Waiting)|^make(\[[0-9]+\])?: (Entering|Leaving)' "$1" |
		grep -m1 -iE "error[: ]|can't open|cannot open|no such file|not found|undefined reference|No rule to make target|fatal:" ) ||
		line=$(grep -v -E '^make(\[[0-9]+\])?: ' "$1" | grep . | tail -n1) || line=
	[ -n "$line" ] || line=$(tail -n1 "$1")
	printf '%s\n' "$line"
}

# kb_make SRC OBJ LOG ARGS...: the kernel's make for the target, output to LOG
kb_make() {
	local src=$1 obj=$2 log=$3 args=()
	shift 3
	mapfile -t args < <(kb_make_args)
	PATH=$(kb_path) make -C "$src" O="$obj" "${args[@]}" "$@" > "$log" 2>&1
}

# kb_verify_config OBJ SRC FRAGMENT...: every "=y" of the fragments is set
# (a symbol the tree has no Kconfig entry for is skipped; a fragment may
# waive what an earlier one requires: "# kit-waive: CONFIG_A CONFIG_B")
kb_verify_config() {
	local obj=$1 src=$2 f sym missing="" waived
	shift 2
	waived=" $(sed -n 's/^# kit-waive: //p' "$@" | tr '\n' ' ') "
	for f in "$@"; do
		while read -r sym; do
			grep -qx "CONFIG_$sym=y" "$obj/.config" && continue
			[[ $waived != *" CONFIG_$sym "* ]] || continue
			if kb_kconfig_has "$src" "$sym"; then
				missing="$missing CONFIG_$sym(${f##*/})"
			fi
		done < <(sed -n 's/^CONFIG_\([A-Za-z0-9_]*\)=y[[:space:]]*$/\1/p' "$f")
	done
	[ -z "$missing" ] ||
		die "required option(s) not =y in $obj/.config after the merge for $(kb_describe):$missing; check their dependencies on ARCH=$KB_SRCARCH in $src (make -C $src O=$obj ARCH=$KB_SRCARCH menuconfig, search the symbol)"
}

# kb_merge_fragments SRC OBJ LOG FRAGMENT...: the fragments merged onto
# OBJ/.config (a later assignment wins, as in merge_config.sh), then
# olddefconfig; nothing without fragments
kb_merge_fragments() {
	local src=$1 obj=$2 log=$3
	shift 3
	[ $# -gt 0 ] || return 0
	cat "$@" >> "$obj/.config" && kb_make "$src" "$obj" "$log" -s olddefconfig
}

# kb_config SRC OBJ PROFILE: OBJ/.config for the target and profile,
# regenerated only when its input changed (its mtime is kept when the
# result is the same, so make sees nothing new).  With KB_KCONFIG the
# tree's own configuration and the profile's kb_kconfig_fragments, else
# tinyconfig + the kit's fragments in one allnoconfig pass with
# KCONFIG_ALLCONFIG (what tinyconfig + merge_config.sh do, without
# writing into SRC).  A failure is one line
# with its first real error.
kb_config() {
	local src=$1 obj=$2 profile=$3 new=$2/.kit-allconfig.new f frags=() log=$2/.kit-kconfig.log
	if [ -n "$KB_KCONFIG" ]; then
		mapfile -t frags < <(kb_kconfig_fragments "$profile")
	else
		mapfile -t frags < <(kb_fragments "$src" "$profile")
	fi
	for f in "${frags[@]}"; do
		[ -f "$f" ] || die "config fragment $f does not exist"
	done
	{
		printf '# target: %s\n' "$(kb_describe)"
		if [ -n "$KB_KCONFIG" ]; then
			printf '# ---- KCONFIG=%s\n' "$KB_KCONFIG"
			if [ -f "$KB_KCONFIG" ]; then cat "$KB_KCONFIG"; else cat "$src/arch/$KB_SRCARCH/configs/$KB_KCONFIG"; fi
			for f in "${frags[@]}"; do
				printf '# ---- %s\n' "$f"
				cat "$f"
			done
		else
			for f in kernel/configs/tiny-base.config kernel/configs/tiny.config \
				 "arch/$KB_SRCARCH/configs/tiny.config"; do
				[ -f "$src/$f" ] || continue
				printf '# ---- %s (tree)\n' "$f"
				cat "$src/$f"
			done
			for f in "${frags[@]}"; do
				printf '# ---- %s\n' "$f"
				cat "$f"
			done
		fi
	} > "$new"
	if [ -f "$obj/.config" ] && [ -f "$obj/.kit-allconfig" ] && cmp -s "$new" "$obj/.kit-allconfig"; then
		rm -f "$new"
		progress "kbuild: $obj/.config up to date"
		return 0
	fi
	progress "kbuild: generating $obj/.config ($(kb_describe))"
	[ -f "$obj/.config" ] && cp -p "$obj/.config" "$obj/.config.kit-prev"
	if [ -n "$KB_KCONFIG" ]; then
		if [ -f "$KB_KCONFIG" ]; then
			cp "$KB_KCONFIG" "$obj/.config" && kb_make "$src" "$obj" "$log" -s olddefconfig
		else
			kb_make "$src" "$obj" "$log" -s "$KB_KCONFIG"
		fi && kb_merge_fragments "$src" "$obj" "$log" "${frags[@]}"
	else
		kb_make "$src" "$obj" "$log" -s KCONFIG_ALLCONFIG="$new" allnoconfig
	fi || {
		rm -f "$obj/.config.kit-prev"
		die "kconfig failed for $(kb_describe): $(kb_first_error "$log") (log: $log)"
	}
	if [ -f "$obj/.config.kit-prev" ] && cmp -s "$obj/.config" "$obj/.config.kit-prev"; then
		mv "$obj/.config.kit-prev" "$obj/.config"
	else
		rm -f "$obj/.config.kit-prev"
	fi
	[ -n "$KB_KCONFIG" ] || kb_verify_config "$obj" "$src" "${frags[@]}"
	mv "$new" "$obj/.kit-allconfig"
}

# kbuild SRC OBJ PROFILE [make targets/args...]: build the kit's kernel of
# PROFILE for the target (default targets: the image and modules) with
# ccache in the kit cache; make decides what to rebuild.  SRC is never
# written.  OBJ is this command's until it ends (lock_tree: one build at a
# time, and nothing rebuilds a kernel that is being booted or judged).
# Dies with the first real error.
kbuild() {
	local src=$1 obj=$2 profile=$3 start log
	shift 3
	[ -f "$src/Makefile" ] || die "$src is not a kernel tree (no Makefile)"
	src=$(cd "$src" && pwd)
	mkdir -p "$obj"
	obj=$(cd "$obj" && pwd)
	[ "$src" != "$obj" ] || die "the build dir must differ from the source tree (the source is never written)"
	[ $# -gt 0 ] || set -- "${KB_IMAGE##*/}" modules
	lock_tree "$obj/.kit-lock"
	command -v ccache >/dev/null || die "ccache not installed (apt-get install ccache)"
	need_cache
	mkdir -p "$CACHE_DIR/ccache"
	kb_config "$src" "$obj" "$profile"
	log=$obj/kbuild.log
	progress "kbuild: make -C $src O=$obj $(kb_make_args | paste -sd' ') $* (log: $log)"
	start=$(date +%s)
	# one job more than CPUs: a compile waiting on ccache or the disk
	# leaves a CPU idle otherwise (measured: 3-7% faster on 2 cores).
	# Reproducible (Documentation/kbuild/reproducible-builds.rst): the same
	# tree, config and compiler give the same image on any machine and
	# day (make bench --resume keys rounds by the image's sha256).
	CCACHE_DIR=$CACHE_DIR/ccache CCACHE_BASEDIR=$CACHE_DIR CCACHE_NOHASHDIR=1 \
	KBUILD_BUILD_TIMESTAMP='1970-01-01 00:00:00 UTC' KBUILD_BUILD_USER=mmbk \
	KBUILD_BUILD_HOST=mmbk KBUILD_BUILD_VERSION=1 \
		kb_make "$src" "$obj" "$log" -j"$(( $(nproc) + 1 ))" "$@" ||
		die "kernel build failed for $(kb_describe): $(kb_first_error "$log") (make -C $src O=$obj $*; log: $log)"
	progress "kbuild: done in $(( $(date +%s) - start ))s: $obj"
}

# kb_objects SRC OBJ PROFILE LOG OBJECT...: compile single objects (each
# removed first, so it is compiled; make arguments such as W=1 may come
# first); 0 when all built, 1 when make failed, 2 when the configuration
# could not be made; LOG holds the output.  OBJ is locked as by kbuild.
# Without OBJECT arguments, only the configuration is made.
kb_objects() {
	local src=$1 obj=$2 profile=$3 log=$4 o rc=0
	shift 4
	mkdir -p "$obj"
	lock_tree "$obj/.kit-lock"
	need_cache
	mkdir -p "$CACHE_DIR/ccache"
	( kb_config "$src" "$obj" "$profile" ) > "$log" 2>&1 || return 2
	[ $# -gt 0 ] || return 0
	for o in "$@"; do case $o in *.o) rm -f "$obj/$o" ;; esac; done
	CCACHE_DIR=$CACHE_DIR/ccache CCACHE_BASEDIR=$CACHE_DIR CCACHE_NOHASHDIR=1 \
		kb_make "$src" "$obj" "$log.make" -j"$(( $(nproc) + 1 ))" "$@" || rc=1
	cat "$log.make" >> "$log"
	rm -f "$log.make"
	return $rc
}
