/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common.h - helpers for the mm-backport-kit shared C suite.
 *
 * Every test binary prints one KTAP document on stdout through the kernel's
 * kselftest.h (the newest cached tree's, found by kselftest.mk) and exits 0
 * when all its cases passed, 4 (KSFT_SKIP) when all were skipped, 1 else.
 * Static binaries: built once, run on every branch.
 */
#ifndef MMBK_COMMON_H
#define MMBK_COMMON_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* tools/testing/selftests/kselftest.h of the newest cached tree (kselftest.mk) */
#include "kselftest.h"

#ifndef MADV_HUGEPAGE
#define MADV_HUGEPAGE 14
#endif
#ifndef MADV_MERGEABLE
#define MADV_MERGEABLE 12
#endif
#ifndef MADV_UNMERGEABLE
#define MADV_UNMERGEABLE 13
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define PMD_SIZE_ (2UL << 20)

#define THP_SYS "/sys/kernel/mm/transparent_hugepage"
#define KHP_SYS THP_SYS "/khugepaged"
#define KSM_SYS "/sys/kernel/mm/ksm"

static long page_size;

/* the KTAP header and plan (kselftest: no version line under the guest's
 * /init, which sets KSFT_TAP_LEVEL and nests the document) */
static inline void ktap_header(int plan)
{
	page_size = sysconf(_SC_PAGESIZE);
	ksft_print_header();
	ksft_set_plan(plan);
}

/* a diagnostic line; put it before the result line it explains */
#define diag(fmt, ...) ksft_print_msg(fmt "\n", ##__VA_ARGS__)

/* result: 1 pass, 0 fail, -1 skip (reason in skip) */
static inline void ktap_result(int res, const char *name, const char *skip)
{
	if (res < 0)
		ksft_test_result_code(KSFT_SKIP, name, "%s", skip ? skip : "");
	else if (res)
		ksft_test_result_pass("%s\n", name);
	else
		ksft_test_result_fail("%s\n", name);
}

/* exit with the kselftest status: 0 all passed, 4 all skipped, 1 else */
static inline int ktap_exit(void)
{
	if (!ksft_get_pass_cnt() && !ksft_get_fail_cnt() && ksft_get_xskip_cnt()) {
		ksft_print_cnts();
		exit(KSFT_SKIP);
	}
	ksft_finished();
}

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* qsort() comparator of doubles, ascending (latency percentiles, medians) */
static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static inline void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* sysfs / procfs knobs */
static inline int read_file_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

static inline long read_num(const char *path)
{
	char buf[64];

	if (read_file_str(path, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 10);
}

static inline int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0) {
		diag("open %s: %s", path, strerror(errno));
		return -1;
	}
	n = write(fd, val, strlen(val));
	close(fd);
	if (n != (ssize_t)strlen(val)) {
		diag("write '%s' to %s: %s", val, path, strerror(errno));
		return -1;
	}
	return 0;
}

static inline int write_num(const char *path, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", v);
	return write_str(path, buf);
}

/*
 * A 2 MiB-aligned anonymous region of len bytes with PROT_NONE guard VMAs on
 * both sides, so it never merges with a neighbour.
 */
static inline char *map_aligned(size_t len, int prot)
{
	size_t resv = len + 2 * PMD_SIZE_ + PMD_SIZE_;
	char *r, *a;

	r = mmap(NULL, resv, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)r + 2 * PMD_SIZE_) & ~(PMD_SIZE_ - 1));
	if (mmap(a, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		return NULL;
	return a;
}

/* smaps field (kB) of the VMA that contains addr, -1 if not found */
static inline long smaps_field(void *addr, const char *field)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	unsigned long s, e, a = (unsigned long)addr;
	int in = 0;
	long val = -1;
	size_t fl = strlen(field);

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			if (in)
				break;
			in = (a >= s && a < e);
			continue;
		}
		if (in && !strncmp(line, field, fl)) {
			val = strtol(line + fl, NULL, 10);
			break;
		}
	}
	fclose(f);
	return val;
}

/* permissions string ("r--p") of the VMA that contains addr */
static inline int vma_perms(void *addr, char perms[5])
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], p[8];
	unsigned long s, e, a = (unsigned long)addr;
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s", &s, &e, p) == 3 && a >= s && a < e) {
			memcpy(perms, p, 4);
			perms[4] = 0;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* pagemap / kpageflags (root in the guest, so PFNs are visible) */
#define KPF_KSM 21
#define KPF_THP 22

static inline uint64_t pagemap_entry(void *addr)
{
	static int fd = -1;
	uint64_t ent = 0;

	if (fd < 0)
		fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return 0;
	if (pread(fd, &ent, sizeof(ent), ((uintptr_t)addr / page_size) * 8) != sizeof(ent))
		return 0;
	return ent;
}

static inline uint64_t page_pfn(void *addr)
{
	uint64_t e = pagemap_entry(addr);

	if (!(e & (1ULL << 63)))
		return 0;
	return e & ((1ULL << 55) - 1);
}

/* kpageflags of the page mapped at addr; 0 when not present */
static inline uint64_t page_kflags(void *addr)
{
	static int fd = -1;
	uint64_t pfn = page_pfn(addr), fl = 0;

	if (!pfn)
		return 0;
	if (fd < 0)
		fd = open("/proc/kpageflags", O_RDONLY);
	if (fd < 0)
		return 0;
	if (pread(fd, &fl, sizeof(fl), pfn * 8) != sizeof(fl))
		return 0;
	return fl;
}

/* the 2 MiB at addr are one PMD-mapped THP (pagemap + kpageflags) */
static inline int is_thp_mapped(char *addr)
{
	uint64_t p0 = page_pfn(addr), pl = page_pfn(addr + PMD_SIZE_ - page_size);

	if (!p0 || (p0 & 511) || pl != p0 + 511)
		return 0;
	return !!(page_kflags(addr) & (1ULL << KPF_THP));
}

/*
 * One round of mmap_lock write-side churn: map 4 pages, touch one, split the
 * VMA with mprotect, unmap.  Each step takes mmap_lock for write.
 * Returns 0, or -1 if the mmap failed.
 */
static inline int mmap_write_churn(void)
{
	char *p = mmap(NULL, 4 * page_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	p[0] = 1;
	mprotect(p + page_size, page_size, PROT_READ);
	munmap(p, 4 * page_size);
	return 0;
}

static inline void fill_pattern(char *p, size_t len, unsigned seed)
{
	size_t i;

	for (i = 0; i < len; i += sizeof(uint32_t))
		*(uint32_t *)(p + i) = (uint32_t)(i * 2654435761u) ^ seed;
}

static inline int check_pattern(const char *p, size_t len, unsigned seed)
{
	size_t i;

	for (i = 0; i < len; i += sizeof(uint32_t))
		if (*(const uint32_t *)(p + i) != ((uint32_t)(i * 2654435761u) ^ seed))
			return 0;
	return 1;
}

static inline int thp_setup_madvise(void)
{
	return write_str(THP_SYS "/enabled", "madvise");
}

/*
 * A one-case program that waits for khugepaged: THP in madvise mode,
 * khugepaged scanning 4096 pages every 10 ms.  Without THP or khugepaged's
 * sysfs, case @name is a skip that says so and the program ends.
 */
static inline void khugepaged_fast_or_skip(const char *name)
{
	if (thp_setup_madvise() || read_num(KHP_SYS "/full_scans") < 0) {
		ktap_result(-1, name, "no THP/khugepaged sysfs");
		ktap_exit();
	}
	write_num(KHP_SYS "/scan_sleep_millisecs", 10);
	write_num(KHP_SYS "/alloc_sleep_millisecs", 10);
	write_num(KHP_SYS "/pages_to_scan", 4096);
}

#endif
