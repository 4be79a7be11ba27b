// SPDX-License-Identifier: GPL-2.0
/*
 * ro_collapse_bench [MODE] - 62b98015d988: what collapsing read-only anonymous
 * memory gives: AnonHugePages of a read-only region and the time to
 * collapse it.  Same approach as guest/suite/ro_collapse{,_khugepaged}.c:
 * THP "madvise" mode, a region written with small pages, then
 * mprotect(PROT_READ).
 *
 * MODE "auto" (default): MADV_COLLAPSE where the kernel has it (6.1+; timed
 * around the madvise() call), khugepaged otherwise (5.10: MADV_HUGEPAGE
 * after the mprotect, khugepaged scanning flat out, timed until smaps shows
 * the whole region as AnonHugePages, at most KHP_WAIT_S).  MODE
 * "khugepaged" forces the khugepaged path.  A writable region of the same
 * size is the control (it collapses on every kernel).
 *
 *   # metric ro_collapse.rw_<how>_s <s> s           control, writable region
 *   # metric ro_collapse.ro_<how>_s <s>|fail s      read-only region
 *   # metric ro_collapse.ro_anon_huge_kB <kB> kB    AnonHugePages afterwards
 *   1 ro_collapse_bench: the workload ran, contents intact
 * <how> is madv_collapse or khugepaged.
 */
#include "bench.h"

#define NPMD 4
#define LEN (NPMD * PMD_SIZE_)
#define KHP_WAIT_S 8.0

static char *make_region(int ro, unsigned seed)
{
	char *a = map_aligned(LEN, PROT_READ | PROT_WRITE);

	if (!a)
		return NULL;
	fill_pattern(a, LEN, seed);
	if (ro && mprotect(a, LEN, PROT_READ))
		return NULL;
	return a;
}

/* seconds MADV_COLLAPSE took, -1 if it failed (errno in *err) */
static double madv_collapse(char *a, int *err)
{
	double t0 = now_s();
	int ret = madvise(a, LEN, MADV_COLLAPSE);

	*err = ret ? errno : 0;
	return ret ? -1 : now_s() - t0;
}

/* seconds until khugepaged collapsed all of a, -1 after KHP_WAIT_S */
static double khugepaged_collapse(char *a)
{
	double t0 = now_s(), t;

	if (madvise(a, LEN, MADV_HUGEPAGE))
		return -1;
	while ((t = now_s() - t0) < KHP_WAIT_S) {
		if (smaps_field(a, "AnonHugePages:") >= (long)(LEN >> 10))
			return t;
		sleep_ms(10);
	}
	return -1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "auto";
	int use_khp = !strcmp(mode, "khugepaged"), err, ok = 1;
	char *rw, *ro, name[64];
	const char *how;
	double t;
	long huge;

	guest_only(argv);
	ktap_header(1);
	if (thp_setup_madvise()) {
		ktap_result(-1, "ro_contents_intact", "no THP sysfs");
		ktap_exit();
	}
	if (!use_khp) {
		/* probe: a writable range collapses wherever MADV_COLLAPSE exists */
		rw = make_region(0, 0x1111);
		if (!rw)
			return 1;
		t = madv_collapse(rw, &err);
		if (t < 0 && err == EINVAL) {
			diag("no MADV_COLLAPSE (EINVAL on a writable range): khugepaged path");
			use_khp = 1;
		} else if (t < 0) {
			diag("MADV_COLLAPSE on the writable control: %s", strerror(err));
			metric_fail("ro_collapse.rw_madv_collapse_s", "s", strerror(err));
		} else {
			metric("ro_collapse.rw_madv_collapse_s", t, "s");
		}
		munmap(rw, LEN);
	}
	how = use_khp ? "khugepaged" : "madv_collapse";
	if (use_khp) {
		write_num(KHP_SYS "/scan_sleep_millisecs", 0);
		write_num(KHP_SYS "/alloc_sleep_millisecs", 0);
		write_num(KHP_SYS "/pages_to_scan", 4096);
		rw = make_region(0, 0x1111);
		if (!rw)
			return 1;
		t = khugepaged_collapse(rw);
		if (t < 0)
			metric_fail("ro_collapse.rw_khugepaged_s", "s", "writable control not collapsed");
		else
			metric("ro_collapse.rw_khugepaged_s", t, "s");
		munmap(rw, LEN);
	}

	ro = make_region(1, 0x2222);
	if (!ro)
		return 1;
	t = use_khp ? khugepaged_collapse(ro) : madv_collapse(ro, &err);
	huge = smaps_field(ro, "AnonHugePages:");
	snprintf(name, sizeof(name), "ro_collapse.ro_%s_s", how);
	if (t < 0 || huge < (long)(LEN >> 10))
		metric_fail(name, "s", use_khp ? "not collapsed within the wait" :
			    t < 0 ? strerror(err) : "MADV_COLLAPSE succeeded, AnonHugePages short");
	else
		metric(name, t, "s");
	metric("ro_collapse.ro_anon_huge_kB", huge, "kB");
	diag("read-only %lu MiB region via %s: AnonHugePages %ld kB", LEN >> 20, how, huge);
	if (!check_pattern(ro, LEN, 0x2222)) {
		diag("read-only region: contents changed");
		ok = 0;
	}
	ktap_result(ok, "ro_contents_intact", NULL);
	return ktap_exit();
}
