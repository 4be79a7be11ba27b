// SPDX-License-Identifier: GPL-2.0
/*
 * ro_collapse - MADV_COLLAPSE of read-only anonymous memory (topic
 * khugepaged-ro-collapse: 62b98015d988, 473b73222f3d).
 *
 * THP runs in "madvise" mode and no region gets MADV_HUGEPAGE, so khugepaged
 * never scans this mm: MADV_COLLAPSE alone decides, and pages_collapsed must
 * not move (the pitfall: with MADV_HUGEPAGE khugepaged may collapse a region
 * while it is still writable, and the test then passes on unpatched kernels).
 *
 *   1 rw_control:      written PROT_READ|PROT_WRITE range collapses (proves
 *                      MADV_COLLAPSE exists; EINVAL here => SKIP everything)
 *   2 written_ro:      written, then mprotect(PROT_READ): collapses
 *                      (unpatched 6.1/6.12: -EINVAL from SCAN_PAGE_RO)
 *   3 readfault_ro:    range only ever read-faulted (zero page) in a PROT_READ
 *                      VMA that has an anon_vma: collapses (unpatched:
 *                      -EINVAL).  Without an anon_vma (VMA never written)
 *                      every kernel, 7.2 included, returns -EINVAL.
 */
#include "common.h"

static int collapse_case(const char *name, char *a, unsigned seed, int zero)
{
	long before, after, coll0, coll1;
	int ret, err, ok = 1;

	before = smaps_field(a, "AnonHugePages:");
	coll0 = read_num(KHP_SYS "/pages_collapsed");
	ret = madvise(a, PMD_SIZE_, MADV_COLLAPSE);
	err = errno;
	after = smaps_field(a, "AnonHugePages:");
	coll1 = read_num(KHP_SYS "/pages_collapsed");
	diag("%s: madvise(MADV_COLLAPSE) = %d%s%s, AnonHugePages %ld -> %ld kB, thp=%d",
	     name, ret, ret ? " errno=" : "", ret ? strerror(err) : "", before, after,
	     is_thp_mapped(a));
	if (ret) {
		ok = 0;
	}
	if (after - before != 2048) {
		diag("%s: AnonHugePages rose by %ld kB, expected 2048", name, after - before);
		ok = 0;
	}
	if (zero) {
		size_t i;

		for (i = 0; i < PMD_SIZE_; i++)
			if (a[i]) {
				diag("%s: byte %zu is %d, expected 0", name, i, a[i]);
				ok = 0;
				break;
			}
	} else if (!check_pattern(a, PMD_SIZE_, seed)) {
		diag("%s: contents changed", name);
		ok = 0;
	}
	if (coll1 != coll0) {
		diag("%s: khugepaged pages_collapsed moved %ld -> %ld: result not MADV_COLLAPSE's",
		     name, coll0, coll1);
		ok = 0;
	}
	return ok;
}

int main(void)
{
	char *rw, *ro, *rf;
	volatile char sink = 0;
	size_t i;
	int ret, err;

	ktap_header(3);
	if (thp_setup_madvise()) {
		ktap_result(-1, "rw_control", "no THP sysfs");
		ktap_result(-1, "written_ro", "no THP sysfs");
		ktap_result(-1, "readfault_ro", "no THP sysfs");
		ktap_exit();
	}

	/* 1: writable control, also the MADV_COLLAPSE facility probe */
	rw = map_aligned(PMD_SIZE_, PROT_READ | PROT_WRITE);
	if (!rw) {
		perror("mmap");
		return 1;
	}
	fill_pattern(rw, PMD_SIZE_, 0x1234);
	ret = madvise(rw, PMD_SIZE_, MADV_COLLAPSE);
	err = errno;
	if (ret && err == EINVAL) {
		diag("madvise(MADV_COLLAPSE) on a writable anon range: EINVAL: kernel has no MADV_COLLAPSE");
		ktap_result(-1, "rw_control", "MADV_COLLAPSE not supported by this kernel");
		ktap_result(-1, "written_ro", "MADV_COLLAPSE not supported by this kernel");
		ktap_result(-1, "readfault_ro", "MADV_COLLAPSE not supported by this kernel");
		ktap_exit();
	}
	/* collapse_case redoes it: on an already collapsed range it is a no-op success */
	munmap(rw, PMD_SIZE_);
	rw = map_aligned(PMD_SIZE_, PROT_READ | PROT_WRITE);
	fill_pattern(rw, PMD_SIZE_, 0x1234);
	ktap_result(collapse_case("rw_control", rw, 0x1234, 0), "rw_control", NULL);

	/* 2: written, then read-only */
	ro = map_aligned(PMD_SIZE_, PROT_READ | PROT_WRITE);
	fill_pattern(ro, PMD_SIZE_, 0xabcd);
	if (mprotect(ro, PMD_SIZE_, PROT_READ)) {
		perror("mprotect");
		return 1;
	}
	ktap_result(collapse_case("written_ro", ro, 0xabcd, 0), "written_ro", NULL);

	/*
	 * 3: a range that was only ever read (all PTEs map the shared zero
	 * page), in a read-only VMA.  The VMA needs an anon_vma, or every
	 * kernel refuses (hugepage_vma_revalidate(): SCAN_PAGE_ANON -> EINVAL):
	 * one page of a second 2 MiB of the same VMA is written first.
	 */
	rf = map_aligned(2 * PMD_SIZE_, PROT_READ | PROT_WRITE);
	rf[PMD_SIZE_] = 1;
	for (i = 0; i < PMD_SIZE_; i += page_size)
		sink += rf[i];
	if (mprotect(rf, 2 * PMD_SIZE_, PROT_READ)) {
		perror("mprotect");
		return 1;
	}
	ktap_result(collapse_case("readfault_ro", rf, 0, 1), "readfault_ro", NULL);
	(void)sink;
	return ktap_exit();
}
