#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# guest-run.sh KERNEL INITRD LOG [--timeout S] [--mem M] [--append ARGS] -
# boot KERNEL with INITRD in qemu (TCG, 2 CPUs, serial console) and write
# the serial log to LOG; KTAP result lines and kernel splats are shown on
# stderr as they come.  Exit status: qemu's, 124 if the guest ran out of
# time (the log is kept: judge it with scripts/ktap.py judge).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

LIVE='^ *(KTAP version|# Subtest:|(not )?ok [0-9]+ |# (collapse_seconds|collapse_full_scans|writer_latency_us|SKIP))|MMBK-(BEGIN|END|FORMATS )|Kernel panic|BUG:|WARNING:'

main() {
	local kernel=${1:-} initrd=${2:-} log=${3:-} timeout=240 mem=1024M append='' rc
	[ $# -ge 3 ] || die "usage: guest-run.sh KERNEL INITRD LOG [--timeout S] [--mem M] [--append ARGS]"
	shift 3
	while [ $# -gt 0 ]; do
		case $1 in
		--timeout) timeout=${2:?--timeout needs seconds}; shift 2 ;;
		--mem) mem=${2:?--mem needs a size}; shift 2 ;;
		--append) append=${2?--append needs kernel arguments}; shift 2 ;;
		*) die "unknown option '$1'; see the usage at the top of $0" ;;
		esac
	done
	case $timeout in ''|*[!0-9]*) die "--timeout $timeout is not a number of seconds; e.g. --timeout 240" ;; esac
	[ -f "$kernel" ] || die "no kernel image $kernel; build it: scripts/kbuild.sh SRC OBJ bzImage"
	[ -f "$initrd" ] || die "no initramfs $initrd; pack it: scripts/initramfs.sh"
	command -v qemu-system-x86_64 >/dev/null ||
		die "qemu-system-x86_64 not installed; apt-get install qemu-system-x86"
	mkdir -p "$(dirname "$log")"
	progress "guest-run: qemu (tcg, 2 cpus, $mem, timeout ${timeout}s) -> $log"
	# --foreground: qemu stays in the caller's process group, so a Ctrl-C or
	# a kill of the run (make, CI) stops the guest too instead of leaving it
	# running until the timeout
	{
		rc=0
		timeout --foreground -k 5 "$timeout" qemu-system-x86_64 -accel tcg -smp 2 -m "$mem" \
			-kernel "$kernel" -initrd "$initrd" \
			-append "console=ttyS0 panic=-1 rdinit=/init transparent_hugepage=madvise clocksource=hpet $append" \
			-display none -monitor none -serial stdio -no-reboot </dev/null || rc=$?
		echo "$rc" > "$log.rc"
	} 2>&1 | tr -d '\r' | tee "$log" | { grep --line-buffered -E "$LIVE" >&2 || true; }
	rc=$(cat "$log.rc")
	rm -f "$log.rc"
	[ "$rc" -ne 124 ] || warn "the guest did not finish within ${timeout}s; partial log: $log"
	return "$rc"
}

main "$@"
