// SPDX-License-Identifier: GPL-2.0
/*
 * ksm_unmerge - 58f595c66591 (topic ksm-break-ksm: break_ksm() without VM_FAULT_WRITE).
 *
 * NREG regions of NPG pages; page i has the same contents in every region.
 * Regions 0,1 stay PROT_READ|PROT_WRITE, regions 2,3 are written and then made
 * PROT_READ before MADV_MERGEABLE.  A page counts as merged when its PFN
 * (/proc/self/pagemap) is mapped by another region too.
 *
 *   1 merge:        all pages become KSM, pages_sharing rises by (NREG-1)*NPG
 *   2 unmerge_rw:   MADV_UNMERGEABLE on a writable VMA: no page of it is KSM,
 *                   pages_sharing drops by NPG, contents intact
 *   3 unmerge_ro:   the same on a read-only VMA; the VMA stays read-only
 *   4 writes_private: writes to the unmerged regions change only them; the
 *                   still-merged regions keep their KSM pages and contents
 *   5 unmerge_all:  run=2 unmerges everything, pages_sharing back to 0
 *
 * Note: on 5.10/6.1 the unpatched break_ksm() loops until handle_mm_fault()
 * reports VM_FAULT_WRITE; the patched one until follow_page() finds no KSM
 * page.  do_wp_page() always copies a KSM page (also in a VMA without
 * VM_WRITE, where the copy is mapped read-only) and reports VM_FAULT_WRITE,
 * so both end in the same state: this is a regression test, expected to pass
 * with and without the series.
 */
#include "common.h"

#define NREG 4
#define NPG 32
#define MAX_WAIT_S 60.0

static char *reg[NREG];
static size_t rlen;

static unsigned seed_of(int page)
{
	return 0x4b534d00u + page;	/* same for every region */
}

static void fill_region(char *r)
{
	int i;

	for (i = 0; i < NPG; i++)
		fill_pattern(r + i * page_size, page_size, seed_of(i));
}

static int region_ok(char *r)
{
	int i;

	for (i = 0; i < NPG; i++)
		if (!check_pattern(r + i * page_size, page_size, seed_of(i)))
			return 0;
	return 1;
}

/*
 * Pages of region r that are KSM-merged: their page is the very page another
 * region maps at the same index (identical contents only meet in KSM).
 * /proc/kpageflags' KPF_KSM is not used: 6.12's fs/proc/page.c tests
 * "mapping & PAGE_MAPPING_KSM", true for every anonymous page.
 */
static int count_ksm(char *r)
{
	int i, x, n = 0;

	for (i = 0; i < NPG; i++) {
		uint64_t pfn = page_pfn(r + i * page_size);

		if (!pfn)
			continue;
		for (x = 0; x < NREG; x++)
			if (reg[x] != r && page_pfn(reg[x] + i * page_size) == pfn) {
				n++;
				break;
			}
	}
	return n;
}

static long sharing(void)
{
	return read_num(KSM_SYS "/pages_sharing");
}

/* pages_sharing once it equals want, or after a bounded wait */
static long wait_sharing(long want)
{
	double t0 = now_s();
	long s;

	while ((s = sharing()) != want && now_s() - t0 < 30.0)
		sleep_ms(50);
	return s;
}

static int unmerge_case(const char *name, int r, long *expect_sharing, int ro)
{
	long s0 = sharing(), s1;
	int ok = 1, k;
	char perms[5] = "";

	if (madvise(reg[r], rlen, MADV_UNMERGEABLE)) {
		diag("%s: MADV_UNMERGEABLE: %s", name, strerror(errno));
		return 0;
	}
	/* the page state changes at once; the counters when ksmd next scans */
	k = count_ksm(reg[r]);
	*expect_sharing -= NPG;
	s1 = wait_sharing(*expect_sharing);
	diag("%s: region %d: %d KSM pages left, pages_sharing %ld -> %ld", name, r, k, s0, s1);
	if (k) {
		diag("%s: %d pages still KSM after MADV_UNMERGEABLE", name, k);
		ok = 0;
	}
	if (s1 != *expect_sharing) {
		diag("%s: pages_sharing %ld, expected %ld", name, s1, *expect_sharing);
		ok = 0;
	}
	if (!region_ok(reg[r])) {
		diag("%s: contents changed", name);
		ok = 0;
	}
	vma_perms(reg[r], perms);
	if (strncmp(perms, ro ? "r--" : "rw-", 3)) {
		diag("%s: VMA permissions now %s", name, perms);
		ok = 0;
	}
	return ok;
}

int main(void)
{
	long s0, s, expect, ps0;
	double t0;
	int i, k, ok;

	ktap_header(5);
	if (read_num(KSM_SYS "/run") < 0) {
		static const char * const names[] = {
			"merge", "unmerge_rw", "unmerge_ro", "writes_private", "unmerge_all"
		};

		for (i = 0; i < 5; i++)
			ktap_result(-1, names[i], "no KSM sysfs");
		ktap_exit();
	}
	rlen = NPG * page_size;
	write_num(KSM_SYS "/run", 2);	/* start from a clean state */
	write_num(KSM_SYS "/run", 0);
	write_num(KSM_SYS "/sleep_millisecs", 10);
	write_num(KSM_SYS "/pages_to_scan", 1000);
	s0 = sharing();
	ps0 = read_num(KSM_SYS "/pages_shared");

	for (i = 0; i < NREG; i++) {
		reg[i] = mmap(NULL, rlen, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (reg[i] == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		/* guard page so that the regions never merge into one VMA */
		mmap(reg[i] + rlen, page_size, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		fill_region(reg[i]);
		if (i >= 2 && mprotect(reg[i], rlen, PROT_READ)) {
			perror("mprotect");
			return 1;
		}
		if (madvise(reg[i], rlen, MADV_MERGEABLE)) {
			diag("MADV_MERGEABLE: %s", strerror(errno));
			return 1;
		}
	}

	/* 1: merge */
	write_num(KSM_SYS "/run", 1);
	expect = s0 + (NREG - 1) * NPG;
	t0 = now_s();
	do {
		sleep_ms(50);
		s = sharing();
		k = 0;
		for (i = 0; i < NREG; i++)
			k += count_ksm(reg[i]);
	} while ((s < expect || k < NREG * NPG) && now_s() - t0 < MAX_WAIT_S);
	diag("merge: after %.2f s: pages_sharing %ld -> %ld, pages_shared %ld -> %ld, KSM pages %d/%d",
	     now_s() - t0, s0, s, ps0, read_num(KSM_SYS "/pages_shared"), k, NREG * NPG);
	ok = s == expect && k == NREG * NPG;
	for (i = 0; i < NREG; i++)
		if (!region_ok(reg[i])) {
			diag("merge: region %d contents changed", i);
			ok = 0;
		}
	ktap_result(ok, "merge", NULL);
	if (!ok) {
		/* nothing below is meaningful without a merge */
		for (i = 0; i < 4; i++)
			ktap_result(0, i == 0 ? "unmerge_rw" : i == 1 ? "unmerge_ro" :
				    i == 2 ? "writes_private" : "unmerge_all", NULL);
		write_num(KSM_SYS "/run", 2);
		ktap_exit();
	}
	/* ksmd keeps running: it updates the counters after an unmerge */
	expect = s;

	/* 2, 3: unmerge a writable and a read-only VMA */
	ktap_result(unmerge_case("unmerge_rw", 0, &expect, 0), "unmerge_rw", NULL);
	ktap_result(unmerge_case("unmerge_ro", 2, &expect, 1), "unmerge_ro", NULL);

	/* 4: later writes are private */
	ok = 1;
	memset(reg[0], 0xa5, rlen);
	if (mprotect(reg[2], rlen, PROT_READ | PROT_WRITE)) {
		diag("writes_private: mprotect RW: %s", strerror(errno));
		ok = 0;
	} else {
		memset(reg[2], 0x5a, rlen);
	}
	for (i = 0; i < (int)rlen; i++)
		if ((unsigned char)reg[0][i] != 0xa5 || (ok && (unsigned char)reg[2][i] != 0x5a)) {
			diag("writes_private: write lost at offset %d", i);
			ok = 0;
			break;
		}
	k = count_ksm(reg[0]) + count_ksm(reg[2]);
	if (k) {
		diag("writes_private: %d written pages still shared", k);
		ok = 0;
	}
	if (!region_ok(reg[1]) || !region_ok(reg[3])) {
		diag("writes_private: a write leaked into a still-merged region");
		ok = 0;
	}
	k = count_ksm(reg[1]) + count_ksm(reg[3]);
	if (k != 2 * NPG) {
		diag("writes_private: regions 1 and 3 have %d KSM pages, expected %d", k, 2 * NPG);
		ok = 0;
	}
	if (wait_sharing(expect) != expect) {
		diag("writes_private: pages_sharing %ld, expected %ld", sharing(), expect);
		ok = 0;
	}
	ktap_result(ok, "writes_private", NULL);

	/* 5: unmerge everything */
	write_num(KSM_SYS "/run", 2);
	s = sharing();
	k = count_ksm(reg[1]) + count_ksm(reg[3]);
	diag("unmerge_all: pages_sharing %ld, KSM pages left %d", s, k);
	ok = s == s0 && k == 0 && region_ok(reg[1]) && region_ok(reg[3]);
	ktap_result(ok, "unmerge_all", NULL);
	write_num(KSM_SYS "/run", 0);
	return ktap_exit();
}
