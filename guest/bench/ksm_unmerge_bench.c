// SPDX-License-Identifier: GPL-2.0
/*
 * ksm_unmerge_bench [MiB,MiB,...] [reps] - 58f595c66591: KSM unmerge
 * throughput, measured like tools/testing/selftests/mm/ksm_tests -D, at
 * several sizes sized for a 1 GiB guest (default 32, 128 and 256 MiB instead of
 * 2 GiB), each size repeated (default 5 times).
 *
 * One repetition: MiB of identical pages (memset '*' as ksm_tests does) get
 * MADV_MERGEABLE; ksmd runs flat out (run=1, sleep_millisecs=0,
 * pages_to_scan=16384) until pages_shared + pages_sharing cover the region;
 * then ksmd is stopped (run=0 keeps the merged pages) so that it does not
 * compete for the CPUs, and MADV_UNMERGEABLE is timed: it breaks every KSM
 * page (break_ksm(), the function 58f595c66591 changes) and copies it back
 * to a private page.
 *
 *   # metric ksm.unmerge_MiBps <MiB/s> MiB/s     all repetitions: MiB / s
 *   # metric ksm.unmerge_<N>MiB_MiBps <MiB/s> MiB/s   median at one size
 *   # metric ksm.merge_s <s> s                    ksmd time to merge it all
 *   1 ksm_unmerge_bench: every region merged, unmerged, contents intact
 */
#include "bench.h"

#define MAX_MERGE_S 120.0
#define MAX_SIZES 8
#define MAX_REPS 16

static void ksm_reset(void)
{
	write_num(KSM_SYS "/run", 2);
	write_num(KSM_SYS "/run", 0);
}

/* one repetition: seconds of MADV_UNMERGEABLE of mib MiB, < 0 if broken */
static double one(long mib, double *merge_s)
{
	size_t len = (size_t)mib << 20, i;
	long npages = len / page_size, shared = 0, sharing = 0, left;
	double t0, tm = 0, tu;
	char *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		diag("mmap %ld MiB: %s", mib, strerror(errno));
		return -1;
	}
	memset(p, '*', len);
	if (madvise(p, len, MADV_MERGEABLE)) {
		diag("MADV_MERGEABLE: %s", strerror(errno));
		munmap(p, len);
		return -1;
	}
	t0 = now_s();
	write_num(KSM_SYS "/run", 1);
	/* identical pages: a few KSM pages (max_page_sharing) share the rest */
	for (;;) {
		shared = read_num(KSM_SYS "/pages_shared");
		sharing = read_num(KSM_SYS "/pages_sharing");
		tm = now_s() - t0;
		if (shared + sharing >= npages || tm > MAX_MERGE_S)
			break;
		sleep_ms(20);
	}
	/* stop ksmd, keep what it merged: the timing below is unmerge alone */
	write_num(KSM_SYS "/run", 0);
	if (shared + sharing < npages) {
		diag("%ld MiB: only %ld of %ld pages merged after %.1f s", mib, shared + sharing,
		     npages, tm);
		ksm_reset();
		munmap(p, len);
		return -1;
	}
	*merge_s += tm;

	t0 = now_s();
	if (madvise(p, len, MADV_UNMERGEABLE)) {
		diag("MADV_UNMERGEABLE: %s", strerror(errno));
		tu = -1;
	} else {
		tu = now_s() - t0;
	}
	for (i = 0, left = 0; i < len; i += page_size)
		if (p[i] != '*' || p[i + page_size - 1] != '*')
			left++;
	if (left) {
		diag("%ld MiB: %ld pages changed contents", mib, left);
		tu = -1;
	}
	ksm_reset();
	munmap(p, len);
	return tu;
}

int main(int argc, char **argv)
{
	const char *list = argc > 1 ? argv[1] : "32,128,256";
	int reps = arg_num(argc, argv, 2, 5), nsizes = 0, s, r, ok = 1;
	long sizes[MAX_SIZES], mib_total = 0;
	double t[MAX_REPS], total_s = 0, merge_s = 0;
	char name[64], *end;

	guest_only(argv);
	ktap_header(1);
	while (*list && nsizes < MAX_SIZES) {
		sizes[nsizes] = strtol(list, &end, 10);
		if (end == list || sizes[nsizes] <= 0) {
			fprintf(stderr, "ksm_unmerge_bench: bad size list '%s'; give MiB,MiB,...\n",
				argv[1]);
			return 1;
		}
		nsizes++;
		list = *end == ',' ? end + 1 : end;
	}
	if (reps < 1 || reps > MAX_REPS)
		reps = 5;
	if (read_num(KSM_SYS "/run") < 0) {
		ktap_result(-1, "unmerge_timed", "no KSM sysfs");
		ktap_exit();
	}
	ksm_reset();
	write_num(KSM_SYS "/sleep_millisecs", 0);
	write_num(KSM_SYS "/pages_to_scan", 16384);

	for (s = 0; s < nsizes && ok; s++) {
		for (r = 0; r < reps; r++) {
			t[r] = one(sizes[s], &merge_s);
			if (t[r] <= 0) {
				ok = 0;
				break;
			}
			total_s += t[r];
			mib_total += sizes[s];
		}
		if (!ok)
			break;
		qsort(t, reps, sizeof(double), cmp_double);
		snprintf(name, sizeof(name), "ksm.unmerge_%ldMiB_MiBps", sizes[s]);
		metric(name, sizes[s] / t[reps / 2], "MiB/s");
		diag("unmerge of %ld MiB: median %.3f s over %d repetitions", sizes[s],
		     t[reps / 2], reps);
	}
	if (ok) {
		metric("ksm.unmerge_MiBps", mib_total / total_s, "MiB/s");
		metric("ksm.merge_s", merge_s, "s");
	} else {
		metric_fail("ksm.unmerge_MiBps", "MiB/s", "a region did not merge or unmerge");
	}
	ktap_result(ok, "unmerge_timed", NULL);
	return ktap_exit();
}
