# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# guest.sh - what a boot test puts into the guest and how it runs, for the
# build target (kbuild.sh KB_*): the shared C suite (guest/suite, static,
# cross-built for the target), the nosteal module (guest/module, built
# with DKMS against the kernel's build dir), the initramfs (busybox,
# guest/init) and qemu under TCG (x86_64: the pc machine; arm64: virt).
kit_use tables trees kbuild apt fetch

# guest_ksft_dir -> tools/testing/selftests of the kit's tools tree
# (fetch.sh tools_tree): the suite's kselftest.h (it needs
# ksft_test_result_code(), 6.8+)
guest_ksft_dir() {
	local t d
	t=$(tools_tree) || die "no tree for the suite's kselftest.h"
	d=$t/tools/testing/selftests
	grep -qs ksft_test_result_code "$d/kselftest.h" ||
		die "$d/kselftest.h has no ksft_test_result_code() (6.8+), which the suite needs; check the mainline row of tables/branches.table"
	printf '%s\n' "$d"
}

# guest_cc -> the C compiler for static guest programs of the target
guest_cc() {
	local cc=${KB_CROSS}gcc
	command -v "$cc" >/dev/null ||
		die "$cc not found: the guest programs for $KB_ARCH need it; install gcc-aarch64-linux-gnu libc6-dev-arm64-cross (bin/deps does as root)"
	printf '%s\n' "$cc"
}

# guest_programs SRCDIR OUTDIR -> OUTDIR: SRCDIR's programs (guest/suite,
# guest/bench) built static for the target
guest_programs() {
	local src=$1 out=$2
	progress "guest: building $(basename "$src") for $KB_ARCH"
	mkdir -p "$out"
	make -s -C "$src" O="$out" CC="$(guest_cc)" KSFT_DIR="$(guest_ksft_dir)" >&2 ||
		die "building $src for $KB_ARCH failed; see above"
	printf '%s\n' "$out"
}

# guest_busybox -> a static busybox for the target: the machine's own for
# a native guest, else Debian's busybox-static of the target's architecture
guest_busybox() {
	local dir
	if [ -z "$KB_CROSS" ]; then
		{ [ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1; } ||
			die "no static busybox at /bin/busybox; apt-get install busybox-static"
		printf '%s\n' /bin/busybox
		return 0
	fi
	dir=$(guest_target_package busybox-static)
	[ -x "$dir/bin/busybox" ] || die "Debian's busybox-static for $KB_ARCH has no bin/busybox ($dir)"
	printf '%s\n' "$dir/bin/busybox"
}

# guest_target_package PKG -> the dir Debian's package PKG of the target's
# architecture is unpacked in (CACHE/tools/PKG-ARCH; the release the
# machine runs), fetched once with a private apt state of that
# architecture (CACHE/apt-<arch>: the machine's mirror, that architecture
# only; apt verifies the index and the package).  The machine's dpkg
# architectures are not touched.
guest_target_package() {
	local pkg=$1 debarch dir deb main keyring=/usr/share/keyrings/debian-archive-keyring.gpg APT_DIR
	case $KB_ARCH in arm64) debarch=arm64 ;; x86_64) debarch=amd64 ;; esac
	need_cache
	dir=$CACHE_DIR/tools/$pkg-$debarch
	if [ ! -d "$dir" ]; then
		# fetched once: another command fetching it meanwhile is waited for
		mkdir -p "$CACHE_DIR/tools"
		lock_tree "$dir.lock"
	fi
	if [ ! -d "$dir" ]; then
		APT_DIR=$CACHE_DIR/apt-$debarch
		main=$(machine_mirror main)
		[ -n "$main" ] || die "no Debian mirror found in /etc/apt/sources.list*; add one (deb URI bookworm main) and retry"
		mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/archives/partial" "$APT_DIR/debs"
		: > "$APT_DIR/status"
		printf 'deb [signed-by=%s arch=%s] %s %s main\n' "$keyring" "$debarch" "$main" \
			"$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")" > "$APT_DIR/sources.list"
		progress "guest: fetching Debian's $pkg:$debarch"
		kit_apt apt-get -o APT::Architectures::="$debarch" update >&2 ||
			die "apt-get update of the $debarch index failed; check the machine's apt mirror"
		( cd "$APT_DIR/debs" && kit_apt apt-get -o APT::Architectures::="$debarch" download "$pkg:$debarch" >/dev/null ) ||
			die "could not fetch $pkg:$debarch; check the machine's apt mirror"
		deb=$(find "$APT_DIR/debs" -name "${pkg}_*_$debarch.deb" | sed -n 1p)
		[ -n "$deb" ] || die "apt fetched no ${pkg}_*_$debarch.deb into $APT_DIR/debs"
		rm -rf "$dir.tmp"
		dpkg-deb -x "$deb" "$dir.tmp" || die "could not unpack $deb"
		mv "$dir.tmp" "$dir"
	fi
	printf '%s\n' "$dir"
}

# guest_gen_init_cpio -> path of the kernel's usr/gen_init_cpio, built once
# from any cached tree
guest_gen_init_cpio() {
	local gen=$CACHE_DIR/bin/gen_init_cpio b f
	if [ ! -x "$gen" ]; then
		for b in $SUPPORTED_BRANCHES; do
			f=$(pristine_dir "$b")/usr/gen_init_cpio.c
			[ -f "$f" ] || continue
			mkdir -p "$CACHE_DIR/bin"
			gcc -O2 -o "$gen.tmp" "$f" || die "building $f failed"
			mv "$gen.tmp" "$gen"
			break
		done
	fi
	[ -x "$gen" ] || die "no usr/gen_init_cpio.c in the cached trees; run 'make tree' first"
	printf '%s\n' "$gen"
}

# guest_initramfs [--extra LIST] OUT.cpio TESTDIR [MODULE.ko...]: busybox,
# guest/init as /init, every executable of TESTDIR in /tests, the modules
# in /modules, and LIST's gen_init_cpio lines (more files: the selftests
# of lib/kselftest.sh) (the kernel's gen_init_cpio: no root, no mknod)
guest_initramfs() {
	local out dir gen busybox t m n extra=
	if [ "$1" = --extra ]; then extra=$2; shift 2; fi
	out=$1 dir=$2
	shift 2
	[ -d "$dir" ] || die "test dir $dir does not exist; build it: make -C $KIT_DIR/guest/suite"
	dir=$(cd "$dir" && pwd)
	n=$(find "$dir" -maxdepth 1 -type f -perm -u+x | wc -l)
	[ "$n" -gt 0 ] || die "no test programs in $dir; build them: make -C $KIT_DIR/guest/suite"
	for m in "$@"; do
		[ -f "$m" ] || die "module $m does not exist; build it (guest_module)"
	done
	busybox=$(guest_busybox)
	gen=$(guest_gen_init_cpio)
	mkdir -p "$(dirname "$out")"
	{
		printf '%s\n' "dir /bin 0755 0 0" "dir /dev 0755 0 0" \
			"nod /dev/console 0600 0 0 c 5 1" "nod /dev/null 0666 0 0 c 1 3" \
			"dir /proc 0755 0 0" "dir /sys 0755 0 0" "dir /tmp 1777 0 0" \
			"dir /tests 0755 0 0" "dir /modules 0755 0 0" \
			"file /bin/busybox $busybox 0755 0 0" "slink /bin/sh busybox 0777 0 0" \
			"file /init $KIT_DIR/guest/init 0755 0 0"
		for t in "$dir"/*; do
			{ [ -f "$t" ] && [ -x "$t" ]; } || continue
			echo "file /tests/${t##*/} $t 0755 0 0"
		done
		for m in "$@"; do
			echo "file /modules/${m##*/} $(cd "$(dirname "$m")" && pwd)/${m##*/} 0644 0 0"
		done
		[ -z "$extra" ] || cat "$extra"
	} > "$out.list"
	"$gen" "$out.list" > "$out.tmp" || die "gen_init_cpio failed on $out.list"
	mv "$out.tmp" "$out"
	progress "initramfs: $out ($(du -k "$out" | cut -f1) kB: $n programs, $# modules)"
}

# guest_module OBJ -> the nosteal KTAP test module (guest/module) built
# with DKMS against the built kernel tree OBJ for the target, every DKMS
# state dir in the kit cache (nothing in /var, no signing).  On a kernel
# without down_read_nosteal() the module tests the down_read() fallback.
guest_module() {
	local obj=$1 pkg=nosteal-test ver=1.0 rel d ko args=()
	[ -f "$obj/include/config/kernel.release" ] ||
		die "$obj is not a configured kernel tree (no include/config/kernel.release); build it (bzImage/Image and modules)"
	[ -f "$obj/Module.symvers" ] ||
		die "$obj has no Module.symvers (prepared, not built: modpost would fail); build the kernel and its modules first"
	rel=$(cat "$obj/include/config/kernel.release")
	d=$CACHE_DIR/dkms/$(path_key "$obj")
	rm -rf "$d"
	mkdir -p "$d/src" "$d/tree" "$d/inst"
	cp -a "$KIT_DIR/guest/module" "$d/src/$pkg-$ver"
	rm -f "$d/src/$pkg-$ver"/*.ko "$d/src/$pkg-$ver"/*.o
	# dkms runs make with its own environment: the target's make
	# variables go in through it (make takes them from the environment)
	mapfile -t args < <(kb_make_args | grep -v '^CC=')
	dkms_in() {
		env "${args[@]}" PATH="$(kb_path)" sign_file=/nonexistent \
			dkms --sourcetree "$d/src" --dkmstree "$d/tree" --installtree "$d/inst" "$@"
	}
	dkms_in add "$pkg/$ver" > "$d/add.log" 2>&1 ||
		die "dkms add of $pkg failed (log: $d/add.log)"
	dkms_in build "$pkg/$ver" -k "$rel" --kernelsourcedir "$obj" > "$d/build.log" 2>&1 ||
		die "dkms build of $pkg failed for $rel ($(kb_describe)): $(kb_first_error "$d/build.log") (logs: $d/build.log, $d/tree/$pkg/$ver/build/make.log)"
	ko=$(find "$d/tree/$pkg/$ver/$rel" -name 'nosteal_test.ko*' | sed -n 1p)
	[ -n "$ko" ] || die "dkms built no nosteal_test.ko for $rel (log: $d/build.log)"
	printf '%s\n' "$ko"
}

# the lines shown live while a guest runs
GUEST_LIVE='^ *(KTAP version|# Subtest:|(not )?ok [0-9]+ |# (collapse_seconds|collapse_full_scans|writer_latency_us|SKIP))|MMBK-(BEGIN|END|FORMATS )|Kernel panic|BUG:|WARNING:'

# guest_qemu -> the qemu command line for the target, one word a line
guest_qemu() {
	case $KB_ARCH in
	x86_64)
		printf '%s\n' qemu-system-x86_64 -accel tcg -smp 2 ;;
	arm64)
		printf '%s\n' qemu-system-aarch64 -M virt -accel tcg -cpu max,pauth-impdef=on -smp 2 ;;
	esac
}

# guest_cmdline -> the target's kernel command line (console and machine)
guest_cmdline() {
	case $KB_ARCH in
	x86_64) echo "console=ttyS0 clocksource=hpet" ;;
	arm64) echo "console=ttyAMA0" ;;
	esac
}

# guest_run IMAGE INITRD LOG TIMEOUT MEM APPEND: boot IMAGE with INITRD
# under qemu (TCG, 2 CPUs, serial console), the serial log to LOG; KTAP
# result lines and kernel splats are shown on stderr as they come.
# Returns qemu's status, 124 if the guest ran out of time (the log is
# kept for the judge).
guest_run() {
	local kernel=$1 initrd=$2 log=$3 timeout=$4 mem=$5 append=$6 rc qemu=()
	case $timeout in ''|*[!0-9]*) usage_error "--timeout $timeout is not a number of seconds; e.g. --timeout 240" ;; esac
	[ -f "$kernel" ] || die "no kernel image $kernel; build it first"
	[ -f "$initrd" ] || die "no initramfs $initrd"
	mapfile -t qemu < <(guest_qemu)
	command -v "${qemu[0]}" >/dev/null ||
		die "${qemu[0]} not installed; run bin/deps as root (qemu-system-x86, qemu-system-arm)"
	mkdir -p "$(dirname "$log")"
	progress "guest: ${qemu[0]} (tcg, 2 cpus, $mem, timeout ${timeout}s) -> $log"
	# --foreground: qemu stays in the caller's process group, so a Ctrl-C or
	# a kill of the run (make, CI) stops the guest too instead of leaving it
	# running until the timeout
	{
		rc=0
		timeout --foreground -k 5 "$timeout" "${qemu[@]}" -m "$mem" \
			-kernel "$kernel" -initrd "$initrd" \
			-append "$(guest_cmdline) panic=-1 rdinit=/init transparent_hugepage=madvise $append" \
			-display none -monitor none -serial stdio -no-reboot </dev/null || rc=$?
		echo "$rc" > "$log.rc"
	} 2>&1 | tr -d '\r' | tee "$log" | { grep --line-buffered -E "$GUEST_LIVE" >&2 || true; }
	rc=$(cat "$log.rc")
	rm -f "$log.rc"
	[ "$rc" -ne 124 ] || warn "the guest did not finish within ${timeout}s; partial log: $log"
	return "$rc"
}
