// SPDX-License-Identifier: GPL-2.0
/*
 * ro_collapse_khugepaged - topic khugepaged-ro-collapse through khugepaged (the only proof on
 * 5.10, which has no MADV_COLLAPSE).
 *
 * khugepaged is tuned to scan continuously.  Regions are populated with
 * small pages while they have no VM_HUGEPAGE (THP "madvise" mode: neither
 * the fault path nor khugepaged touch them), and only get MADV_HUGEPAGE
 * once they have their final protection, so khugepaged never sees the
 * read-only region writable.
 *
 *   1 rw_control:  written RW region + MADV_HUGEPAGE is collapsed
 *   2 written_ro:  written, mprotect(PROT_READ), then MADV_HUGEPAGE: collapsed
 *                  within 3 full scans (unpatched: SCAN_PAGE_RO, never)
 */
#include "common.h"

#define MAX_WAIT_S 40.0

static const char *knobs[] = { "scan_sleep_millisecs", "alloc_sleep_millisecs", "pages_to_scan" };
static long saved[3];

static void tune(void)
{
	char p[128];
	long val[3] = { 0, 0, 4096 };
	int i;

	for (i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), KHP_SYS "/%s", knobs[i]);
		saved[i] = read_num(p);
		write_num(p, val[i]);
	}
}

static void untune(void)
{
	char p[128];
	int i;

	for (i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), KHP_SYS "/%s", knobs[i]);
		if (saved[i] >= 0)
			write_num(p, saved[i]);
	}
}

/* wait for a collapse of the 2 MiB at a; 1 collapsed, 0 not within 3 full scans */
static int wait_collapse(const char *name, char *a)
{
	long scans0 = read_num(KHP_SYS "/full_scans"), scans = scans0;
	double t0 = now_s(), t;

	for (;;) {
		t = now_s() - t0;
		if (smaps_field(a, "AnonHugePages:") >= 2048) {
			diag("%s: collapsed by khugepaged after %.2f s (%ld full scans)", name, t,
			     read_num(KHP_SYS "/full_scans") - scans0);
			return 1;
		}
		scans = read_num(KHP_SYS "/full_scans");
		if ((scans - scans0 >= 3 && t > 2.0) || t > MAX_WAIT_S)
			break;
		sleep_ms(20);
	}
	diag("%s: not collapsed after %.2f s and %ld full khugepaged scans (pages_collapsed=%ld)",
	     name, t, scans - scans0, read_num(KHP_SYS "/pages_collapsed"));
	return 0;
}

static int run_case(const char *name, int ro, unsigned seed)
{
	char *a = map_aligned(PMD_SIZE_, PROT_READ | PROT_WRITE);
	char perms[5] = "";
	int ok;

	if (!a) {
		diag("%s: mmap failed", name);
		return 0;
	}
	fill_pattern(a, PMD_SIZE_, seed);
	if (smaps_field(a, "AnonHugePages:") != 0) {
		diag("%s: region already THP before MADV_HUGEPAGE", name);
		return 0;
	}
	if (ro && mprotect(a, PMD_SIZE_, PROT_READ)) {
		diag("%s: mprotect: %s", name, strerror(errno));
		return 0;
	}
	if (madvise(a, PMD_SIZE_, MADV_HUGEPAGE)) {
		diag("%s: MADV_HUGEPAGE: %s", name, strerror(errno));
		return 0;
	}
	ok = wait_collapse(name, a);
	if (!check_pattern(a, PMD_SIZE_, seed)) {
		diag("%s: contents changed", name);
		ok = 0;
	}
	vma_perms(a, perms);
	if (strncmp(perms, ro ? "r--" : "rw-", 3)) {
		diag("%s: VMA permissions now %s", name, perms);
		ok = 0;
	}
	return ok;
}

int main(void)
{
	ktap_header(2);
	if (thp_setup_madvise() || read_num(KHP_SYS "/full_scans") < 0) {
		ktap_result(-1, "rw_control", "no THP/khugepaged sysfs");
		ktap_result(-1, "written_ro", "no THP/khugepaged sysfs");
		ktap_exit();
	}
	tune();
	ktap_result(run_case("rw_control", 0, 0x5151), "rw_control", NULL);
	ktap_result(run_case("written_ro", 1, 0x7272), "written_ro", NULL);
	untune();
	return ktap_exit();
}
