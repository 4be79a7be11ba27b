/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench.h - helpers for the mm-backport-kit benchmarks (guest/bench/).
 *
 * Builds on the shared suite's helpers (../suite/common.h: KTAP output,
 * sysfs knobs, aligned mappings, smaps).  A benchmark prints one KTAP
 * document and one line per figure:
 *
 *   # metric <name> <value> <unit>
 *
 * <value> is a number, or "fail" when the kernel could not do what was
 * measured (e.g. no collapse of a read-only region on an unpatched kernel).
 * Benchmarks report; their cases only fail when the workload itself broke.
 */
#ifndef MMBK_BENCH_H
#define MMBK_BENCH_H

#include "../suite/common.h"

static inline void metric(const char *name, double val, const char *unit)
{
	printf("# metric %s %.6g %s\n", name, val, unit);
	fflush(stdout);
}

static inline void metric_fail(const char *name, const char *unit, const char *why)
{
	printf("# metric %s fail %s\n", name, unit);
	diag("%s: %s", name, why);
}

/*
 * The benchmarks retune THP, khugepaged and KSM system-wide: run them only
 * as /tests/<name> (the bench initramfs) unless MMBK_BENCH_FORCE=1.
 */
static inline void guest_only(char **argv)
{
	if (strncmp(argv[0], "/tests/", 7) && !getenv("MMBK_BENCH_FORCE")) {
		fprintf(stderr, "%s: changes THP/KSM settings system-wide; runs only in the "
			"bench guest as /tests/<name> (MMBK_BENCH_FORCE=1 overrides)\n", argv[0]);
		exit(KSFT_SKIP);
	}
}

/* integer argument n of argv, or def */
static inline long arg_num(int argc, char **argv, int n, long def)
{
	return argc > n ? strtol(argv[n], NULL, 0) : def;
}

#endif
