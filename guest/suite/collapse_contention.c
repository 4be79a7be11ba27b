// SPDX-License-Identifier: GPL-2.0
/*
 * collapse_contention - khugepaged collapse under mmap_lock contention
 * (topic khugepaged-mmap-lock).
 *
 * One process maps NREG eligible 2 MiB regions first (top-down allocation
 * puts them above everything mapped later, so khugepaged's address-order walk
 * reaches them last), populates them with small pages, then maps NSMALL
 * one-page VMAs of alternating protection (never mergeable, never eligible).
 * NWRITERS threads loop mmap/mprotect/munmap (mmap_lock for write) while the
 * eligible regions get MADV_HUGEPAGE.  Reports the seconds until khugepaged
 * has collapsed all of them (# collapse_seconds: X) and how many full
 * khugepaged scans that took (# collapse_full_scans: N), then checks the data.
 *
 *   1 collapse_under_contention: all regions collapsed within MAX_WAIT_S,
 *                                contents intact
 */
#include "common.h"
#include <pthread.h>
#include <stdatomic.h>

#define NREG 4
#define NSMALL 4000
#define NWRITERS 2
#define MAX_WAIT_S 90.0

static atomic_int stop;
static atomic_long writer_ops;

static void *writer(void *arg)
{
	long ops = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		if (mmap_write_churn() == 0)
			ops++;
	}
	atomic_fetch_add(&writer_ops, ops);
	return NULL;
}

int main(void)
{
	char *reg[NREG];
	pthread_t th[NWRITERS];
	double t0, t = 0;
	int i, done = 0, ok = 1;
	long coll0, scans0;

	ktap_header(1);
	khugepaged_fast_or_skip("collapse_under_contention");

	for (i = 0; i < NREG; i++) {
		reg[i] = map_aligned(PMD_SIZE_, PROT_READ | PROT_WRITE);
		if (!reg[i]) {
			perror("mmap");
			return 1;
		}
		fill_pattern(reg[i], PMD_SIZE_, 0xc0de0000u + i);
	}
	for (i = 0; i < NSMALL; i++) {
		char *p = mmap(NULL, page_size, (i & 1) ? PROT_READ : PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			diag("small mmap %d: %s", i, strerror(errno));
			break;
		}
		if (!(i & 1))
			p[0] = 1;
	}
	diag("%d eligible 2 MiB regions, %d small VMAs, %d writer threads", NREG, i, NWRITERS);
	for (i = 0; i < NWRITERS; i++)
		pthread_create(&th[i], NULL, writer, NULL);

	coll0 = read_num(KHP_SYS "/pages_collapsed");
	scans0 = read_num(KHP_SYS "/full_scans");
	t0 = now_s();
	for (i = 0; i < NREG; i++)
		madvise(reg[i], PMD_SIZE_, MADV_HUGEPAGE);
	while ((t = now_s() - t0) < MAX_WAIT_S) {
		done = 0;
		for (i = 0; i < NREG; i++)
			done += is_thp_mapped(reg[i]);
		if (done == NREG)
			break;
		sleep_ms(20);
	}
	atomic_store(&stop, 1);
	for (i = 0; i < NWRITERS; i++)
		pthread_join(th[i], NULL);
	if (done == NREG) {
		diag("collapse_seconds: %.2f", t);
		/* less sensitive to a loaded host than seconds */
		diag("collapse_full_scans: %ld", read_num(KHP_SYS "/full_scans") - scans0);
	} else {
		diag("collapse_seconds: timeout (%d/%d collapsed after %.0f s)", done, NREG, t);
		ok = 0;
	}
	diag("writer ops: %ld, pages_collapsed +%ld, full_scans %ld", atomic_load(&writer_ops),
	     read_num(KHP_SYS "/pages_collapsed") - coll0, read_num(KHP_SYS "/full_scans"));
	for (i = 0; i < NREG; i++)
		if (!check_pattern(reg[i], PMD_SIZE_, 0xc0de0000u + i)) {
			diag("region %d: contents changed", i);
			ok = 0;
		}
	ktap_result(ok, "collapse_under_contention", NULL);
	return ktap_exit();
}
