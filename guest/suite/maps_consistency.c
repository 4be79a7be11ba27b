// SPDX-License-Identifier: GPL-2.0
/*
 * maps_consistency - /proc/<pid>/maps and smaps_rollup readers against mmap
 * writers (the mmap_lock series changes how the maps readers take mmap_lock).
 *
 * NSTABLE one-page r-x VMAs separated by PROT_NONE pages live for the whole
 * test, among NFILL other small VMAs (so a maps read takes many read()
 * calls and the lock is dropped in between).  Reader threads read
 * /proc/<pid>/maps (small read() chunks) and /proc/<pid>/smaps_rollup in a
 * loop; writer threads mmap/mprotect/munmap.  Every maps snapshot must show
 * each stable VMA exactly once, in address order, with nothing overlapping
 * it.  Reports the writer latency (# writer_latency_us: p50 p99 max).
 *
 *   1 maps_consistent
 *   2 smaps_rollup_ok
 *   3 writers_progress
 */
#include "common.h"
#include <pthread.h>
#include <stdatomic.h>

#define NSTABLE 64
#define NFILL 2000
#define NWRITERS 2
#define RUN_S 6.0
#define MAXLAT 400000

static unsigned long st_start[NSTABLE], st_end[NSTABLE];
static atomic_int stop;
static atomic_long maps_reads, maps_bad, rollup_reads, rollup_bad;
static double lat[NWRITERS][MAXLAT];
static long nlat[NWRITERS];
static char pidpath_maps[64], pidpath_rollup[64];

static int check_snapshot(char *buf)
{
	int seen[NSTABLE] = { 0 };
	unsigned long s, e, last_stable_end = 0;
	char *line = buf, *nl;
	int i, bad = 0, idx;

	for (; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		if (sscanf(line, "%lx-%lx", &s, &e) != 2)
			continue;
		idx = -1;
		for (i = 0; i < NSTABLE; i++) {
			if (s == st_start[i] && e == st_end[i]) {
				idx = i;
				break;
			}
			if (s < st_end[i] && e > st_start[i]) {
				if (!bad)
					printf("# maps: %lx-%lx overlaps stable VMA %lx-%lx\n",
					       s, e, st_start[i], st_end[i]);
				bad++;
			}
		}
		if (idx >= 0) {
			if (seen[idx]++ && !bad++)
				printf("# maps: stable VMA %lx-%lx shown twice\n", s, e);
			if (s < last_stable_end && !bad++)
				printf("# maps: stable VMA %lx-%lx out of order\n", s, e);
			last_stable_end = e;
		}
	}
	for (i = 0; i < NSTABLE; i++)
		if (!seen[i]) {
			if (!bad)
				printf("# maps: stable VMA %lx-%lx missing\n", st_start[i], st_end[i]);
			bad++;
		}
	return bad;
}

static void *maps_reader(void *arg)
{
	size_t cap = 1 << 20;
	char *buf = malloc(cap);

	(void)arg;
	while (!atomic_load(&stop)) {
		int fd = open(pidpath_maps, O_RDONLY);
		size_t len = 0;
		ssize_t n;

		if (fd < 0)
			break;
		/* 1 KiB reads: the kernel restarts the walk many times */
		while (len + 1024 < cap && (n = read(fd, buf + len, 1024)) > 0)
			len += n;
		close(fd);
		buf[len] = 0;
		if (check_snapshot(buf))
			atomic_fetch_add(&maps_bad, 1);
		atomic_fetch_add(&maps_reads, 1);
	}
	free(buf);
	return NULL;
}

static void *rollup_reader(void *arg)
{
	char buf[4096];

	(void)arg;
	while (!atomic_load(&stop)) {
		if (read_file_str(pidpath_rollup, buf, sizeof(buf)) ||
		    !strstr(buf, "Rss:") || !strstr(buf, "[rollup]"))
			atomic_fetch_add(&rollup_bad, 1);
		atomic_fetch_add(&rollup_reads, 1);
	}
	return NULL;
}

static void *writer(void *arg)
{
	long w = (long)arg;

	while (!atomic_load(&stop) && nlat[w] < MAXLAT) {
		double t0 = now_s();

		if (mmap_write_churn())
			continue;
		lat[w][nlat[w]++] = (now_s() - t0) * 1e6;
	}
	return NULL;
}

int main(void)
{
	pthread_t r[2], w[NWRITERS];
	char *resv;
	double *all;
	long i, n = 0;

	ktap_header(3);
	snprintf(pidpath_maps, sizeof(pidpath_maps), "/proc/%d/maps", getpid());
	snprintf(pidpath_rollup, sizeof(pidpath_rollup), "/proc/%d/smaps_rollup", getpid());

	resv = mmap(NULL, 2 * NSTABLE * page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (resv == MAP_FAILED)
		return 1;
	for (i = 0; i < NSTABLE; i++) {
		char *p = resv + 2 * i * page_size;

		if (mmap(p, page_size, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			 -1, 0) == MAP_FAILED)
			return 1;
		st_start[i] = (unsigned long)p;
		st_end[i] = (unsigned long)p + page_size;
	}
	for (i = 0; i < NFILL; i++)
		mmap(NULL, page_size, (i & 1) ? PROT_READ : PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	pthread_create(&r[0], NULL, maps_reader, NULL);
	pthread_create(&r[1], NULL, rollup_reader, NULL);
	for (i = 0; i < NWRITERS; i++)
		pthread_create(&w[i], NULL, writer, (void *)i);
	sleep_ms((long)(RUN_S * 1000));
	atomic_store(&stop, 1);
	pthread_join(r[0], NULL);
	pthread_join(r[1], NULL);
	for (i = 0; i < NWRITERS; i++)
		pthread_join(w[i], NULL);

	all = malloc(sizeof(double) * NWRITERS * MAXLAT);
	for (i = 0; i < NWRITERS; i++) {
		memcpy(all + n, lat[i], nlat[i] * sizeof(double));
		n += nlat[i];
	}
	qsort(all, n, sizeof(double), cmp_double);
	if (n)
		diag("writer_latency_us: %.0f %.0f %.0f", all[n / 2], all[(n * 99) / 100], all[n - 1]);
	diag("writer ops %ld, maps reads %ld (inconsistent %ld), smaps_rollup reads %ld (bad %ld)",
	     n, atomic_load(&maps_reads), atomic_load(&maps_bad), atomic_load(&rollup_reads),
	     atomic_load(&rollup_bad));
	ktap_result(atomic_load(&maps_reads) > 0 && atomic_load(&maps_bad) == 0,
		    "maps_consistent", NULL);
	ktap_result(atomic_load(&rollup_reads) > 0 && atomic_load(&rollup_bad) == 0,
		    "smaps_rollup_ok", NULL);
	ktap_result(n > 100, "writers_progress", NULL);
	return ktap_exit();
}
