// SPDX-License-Identifier: GPL-2.0
/*
 * ksm_unmerge_bench [MiB] - seed 003: KSM unmerge throughput (MiB/s), like
 * tools/testing/selftests/mm/ksm_tests -D, sized for a 1 GiB guest
 * (default 128 MiB instead of 2 GiB).
 *
 * MiB identical pages (memset '*' as ksm_tests does) get MADV_MERGEABLE;
 * ksmd runs flat out (run=1, sleep_millisecs=0, pages_to_scan=16384) until
 * pages_shared + pages_sharing cover the region; then MADV_UNMERGEABLE is
 * timed: it breaks every KSM page (break_ksm(), the function seed 003
 * changes) and copies it back to a private page.
 *
 *   # metric ksm.unmerge_MiBps <MiB/s> MiB/s   (higher is better)
 *   # metric ksm.merge_s <s> s                  (ksmd time to merge it all)
 *   1 ksm_unmerge_bench: merged, unmerged, contents intact
 */
#include "bench.h"

#define MAX_MERGE_S 120.0

int main(int argc, char **argv)
{
	long mib = arg_num(argc, argv, 1, 128);
	size_t len = (size_t)mib << 20, i;
	long npages, shared, sharing, left;
	double t0, tm, tu;
	char *p;
	int ok = 1;

	guest_only(argv);
	ktap_header(1);
	if (read_num(KSM_SYS "/run") < 0) {
		ktap_result(-1, "ksm_unmerge_bench", "no KSM sysfs");
		ktap_exit();
	}
	npages = len / page_size;
	write_num(KSM_SYS "/run", 2);
	write_num(KSM_SYS "/run", 0);
	write_num(KSM_SYS "/sleep_millisecs", 0);
	write_num(KSM_SYS "/pages_to_scan", 16384);

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memset(p, '*', len);
	if (madvise(p, len, MADV_MERGEABLE)) {
		diag("MADV_MERGEABLE: %s", strerror(errno));
		ktap_result(0, "ksm_unmerge_bench", NULL);
		ktap_exit();
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
	diag("%ld MiB (%ld pages): pages_shared %ld, pages_sharing %ld after %.2f s",
	     mib, npages, shared, sharing, tm);
	if (shared + sharing < npages) {
		metric_fail("ksm.unmerge_MiBps", "MiB/s", "region not fully merged");
		write_num(KSM_SYS "/run", 2);
		write_num(KSM_SYS "/run", 0);
		ktap_result(0, "ksm_unmerge_bench", NULL);
		ktap_exit();
	}
	metric("ksm.merge_s", tm, "s");

	t0 = now_s();
	if (madvise(p, len, MADV_UNMERGEABLE)) {
		diag("MADV_UNMERGEABLE: %s", strerror(errno));
		ok = 0;
	}
	tu = now_s() - t0;
	metric("ksm.unmerge_MiBps", mib / tu, "MiB/s");
	diag("unmerge of %ld MiB: %.3f s", mib, tu);

	for (i = 0, left = 0; i < len; i += page_size)
		if (p[i] != '*' || p[i + page_size - 1] != '*')
			left++;
	if (left) {
		diag("%ld pages changed contents", left);
		ok = 0;
	}
	write_num(KSM_SYS "/run", 2);
	write_num(KSM_SYS "/run", 0);
	munmap(p, len);
	ktap_result(ok, "ksm_unmerge_bench", NULL);
	return ktap_exit();
}
