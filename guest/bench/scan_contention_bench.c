// SPDX-License-Identifier: GPL-2.0
/*
 * scan_contention_bench - the khugepaged mmap_lock series' scenario: "an mm
 * with a large number of small VMAs under significant mmap_lock contention"
 * (cover letter: collapse 10.8 s -> 3.6 s).
 *
 * One mm holds NREG eligible 2 MiB regions interleaved with NSMALL one-page
 * VMAs of alternating protection (never merged, never eligible: progress 1
 * each in khugepaged's walk), NREG/NSMALL groups in address order.  While
 * khugepaged works on it, NWRITERS threads loop mmap/mprotect/munmap
 * (mmap_lock for write, each op timed) and one reader reads /proc/self/maps
 * and /proc/self/smaps_rollup in a loop (mmap_lock for read, the callers
 * 0007 switches to the nosteal lock).  Why the unpatched kernel is slow, from
 * its code: khugepaged takes the mmap_lock with a trylock, and every failed
 * trylock ends the pass over this mm (full_scans + 1 when it is the only mm)
 * and the next pass starts again at the mm's bottom; with NSMALL ineligible
 * VMAs a pass needs NSMALL/pages_to_scan uncontended wakeups to reach the top
 * regions.  0005 keeps the position across a contended pass, 0008 drops the
 * lock after skipping many VMAs so writers get through.
 *
 * Each khugepaged setting runs in its own child (a fresh mm):
 *   fast     scan_sleep_millisecs 10, alloc_sleep_millisecs 10;
 *            30000 small VMAs, 16 regions, cap 120 s;
 *            writers never pause
 *   default  scan_sleep_millisecs 10000, alloc_sleep_millisecs 60000;
 *            12000 small VMAs, 6 regions, cap 300 s;
 *            each writer busy 20 ms, then idle 20-60 ms
 * both with the default pages_to_scan (4096).  The settings to run come
 * from the kernel command line, mmbk.scan_modes=fast,default (the default).
 *
 * Why the default setting differs: at scan_sleep_millisecs 10 s the cap is
 * 30 wakeups, each worth at most pages_to_scan progress, and a collapse
 * ends khugepaged_scan_mm_slot() (the next region needs a new trylock).
 * So its mm is smaller: a region every 2000 VMAs, the last about four
 * wakeups' budget from the bottom.  Its writers pause, because with
 * writers that never pause khugepaged's trylock succeeds in only about
 * one wakeup in 20 (the fast setting's passes on 5.10: 195-234 for the
 * series' kernel to collapse all 16 regions), and 30 wakeups measured
 * trylock luck (5.10, this mm, 2 rounds: unpatched 2 and 2 of 6 regions,
 * patched 1 and 0).  With bursts the contention is significant but not
 * saturating: each writer holds or queues for the lock a third of the
 * time, and a trylock succeeds when neither is in a burst, about (2/3)^2
 * of the time.  The unpatched kernel restarts at the bottom after any
 * failed trylock, so reaching the last regions takes a run of consecutive
 * successes over several wakeups; the series' kernel resumes where it
 * stopped and needs about ten successes in all.  Measured on 5.10 (one
 * round of the production-like kernels): both collapse all 6 regions, the
 * series' kernel in 71.6 s (8 passes), the unpatched one in 133.0 s (11).
 *
 * Figures per setting S (scan.S.*):
 *   collapse_s       seconds until every region is PMD-mapped; on a timeout
 *                    ">CAP" (censored: the real time is longer)
 *   collapsed        regions PMD-mapped at the end (of NREG)
 *   full_scans       khugepaged passes over the mm list that ended meanwhile
 *                    (unpatched: each one restarts this mm at its bottom)
 *   writer_p50_us, writer_p99_us   latency of one write-locked op
 *   maps_reads_per_s complete /proc/self/maps + smaps_rollup reads per
 *                    second until the end (a rate: the unpatched kernel
 *                    runs up to the cap, the patched one stops early)
 *
 *   scan_contention_bench [nsmall] [nreg]   (default: each setting's own;
 *                                            given, they apply to every one)
 *   1.. one case per setting: regions collapsed or timed out, contents intact
 */
#include "bench.h"
#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>

#define NWRITERS 2
#define MAX_SAMPLES (1 << 18)

struct setting {
	const char *name;
	long scan_sleep_ms, alloc_sleep_ms;
	double cap_s;
	long nsmall;	/* one-page VMAs */
	int nreg;	/* eligible 2 MiB regions */
	long busy_ms;	/* each writer: write-locked ops for this long, */
	long idle_ms;	/* then idle about this long (0: never idle) */
};

static const struct setting settings[] = {
	{ "fast", 10, 10, 120, 30000, 16, 0, 0 },
	{ "default", 10000, 60000, 300, 12000, 6, 20, 40 },
};

#define NSETTINGS (int)(sizeof(settings) / sizeof(settings[0]))

static atomic_int stop;
static atomic_long maps_reads;

struct writer {
	pthread_t th;
	double *lat_us;
	long n;
	long busy_ms, idle_ms;
	unsigned int seed;
};

static void *writer(void *arg)
{
	struct writer *w = arg;
	double busy_end = now_s() + w->busy_ms / 1e3;

	while (!atomic_load(&stop)) {
		double t0 = now_s();

		if (w->idle_ms && t0 >= busy_end) {
			/* idle 0.5..1.5 idle_ms: no phase lock with khugepaged's timer */
			sleep_ms(w->idle_ms / 2 + rand_r(&w->seed) % (w->idle_ms + 1));
			busy_end = now_s() + w->busy_ms / 1e3;
			continue;
		}
		if (mmap_write_churn())
			continue;
		if (w->n < MAX_SAMPLES)
			w->lat_us[w->n++] = (now_s() - t0) * 1e6;
	}
	return NULL;
}

static void read_all(const char *path)
{
	static char buf[1 << 16];
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

static void *reader(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		read_all("/proc/self/maps");
		read_all("/proc/self/smaps_rollup");
		atomic_fetch_add(&maps_reads, 1);
	}
	return NULL;
}

/* map NREG regions, each followed by nsmall/nreg small VMAs; 0 or -1 */
static int build_mm(char **reg, int nreg, long nsmall)
{
	long i, per = nsmall / nreg;
	int g;

	for (g = 0; g < nreg; g++) {
		reg[g] = map_aligned(PMD_SIZE_, PROT_READ | PROT_WRITE);
		if (!reg[g]) {
			diag("region %d: %s", g, strerror(errno));
			return -1;
		}
		fill_pattern(reg[g], PMD_SIZE_, 0x5ca40000u + g);
		for (i = 0; i < per; i++) {
			char *p = mmap(NULL, page_size, (i & 1) ? PROT_READ : PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED) {
				diag("small VMA %ld: %s", g * per + i, strerror(errno));
				return -1;
			}
			if (!(i & 1))
				p[0] = 1;
		}
	}
	return 0;
}

/* one setting in a fresh mm (the child's); exit status 0 ok, 1 broken */
static int run_setting(const struct setting *s, long nsmall, int nreg)
{
	struct writer w[NWRITERS];
	char **reg = calloc(nreg, sizeof(*reg));
	double t0, t = 0, *all;
	long scans0, n = 0;
	pthread_t rd;
	int i, done = 0, ok = 1;
	char name[96];

	write_num(KHP_SYS "/scan_sleep_millisecs", s->scan_sleep_ms);
	write_num(KHP_SYS "/alloc_sleep_millisecs", s->alloc_sleep_ms);
	write_num(KHP_SYS "/pages_to_scan", 4096);
	if (!reg || build_mm(reg, nreg, nsmall))
		return 1;
	diag("%s: %d eligible 2 MiB regions among %ld small VMAs, %d writers (busy %ld ms, idle %ld ms), 1 maps reader, cap %.0f s",
	     s->name, nreg, nsmall, NWRITERS, s->busy_ms, s->idle_ms, s->cap_s);
	for (i = 0; i < NWRITERS; i++) {
		w[i].n = 0;
		w[i].busy_ms = s->busy_ms;
		w[i].idle_ms = s->idle_ms;
		w[i].seed = 0x5ca4 + i;
		w[i].lat_us = malloc(MAX_SAMPLES * sizeof(double));
		if (!w[i].lat_us)
			return 1;
		pthread_create(&w[i].th, NULL, writer, &w[i]);
	}
	pthread_create(&rd, NULL, reader, NULL);

	scans0 = read_num(KHP_SYS "/full_scans");
	t0 = now_s();
	for (i = 0; i < nreg; i++)
		madvise(reg[i], PMD_SIZE_, MADV_HUGEPAGE);
	while ((t = now_s() - t0) < s->cap_s) {
		for (i = 0, done = 0; i < nreg; i++)
			done += is_thp_mapped(reg[i]);
		if (done == nreg)
			break;
		sleep_ms(50);
	}
	atomic_store(&stop, 1);
	pthread_join(rd, NULL);
	for (i = 0; i < NWRITERS; i++)
		pthread_join(w[i].th, NULL);

	snprintf(name, sizeof(name), "scan.%s.collapse_s", s->name);
	if (done == nreg)
		metric(name, t, "s");
	else
		printf("# metric %s >%.0f s\n", name, s->cap_s);
	snprintf(name, sizeof(name), "scan.%s.collapsed", s->name);
	metric(name, done, "regions");
	snprintf(name, sizeof(name), "scan.%s.full_scans", s->name);
	metric(name, read_num(KHP_SYS "/full_scans") - scans0, "passes");
	snprintf(name, sizeof(name), "scan.%s.maps_reads_per_s", s->name);
	metric(name, t > 0 ? atomic_load(&maps_reads) / t : 0, "reads/s");

	all = malloc(NWRITERS * MAX_SAMPLES * sizeof(double));
	for (i = 0; all && i < NWRITERS; i++) {
		memcpy(all + n, w[i].lat_us, w[i].n * sizeof(double));
		n += w[i].n;
	}
	if (all && n) {
		qsort(all, n, sizeof(double), cmp_double);
		snprintf(name, sizeof(name), "scan.%s.writer_p50_us", s->name);
		metric(name, all[n / 2], "us");
		snprintf(name, sizeof(name), "scan.%s.writer_p99_us", s->name);
		metric(name, all[(n * 99) / 100], "us");
	}
	diag("%s: %d/%d collapsed after %.1f s, %ld writer ops", s->name, done, nreg, t, n);
	for (i = 0; i < nreg; i++)
		if (!check_pattern(reg[i], PMD_SIZE_, 0x5ca40000u + i)) {
			diag("%s: region %d: contents changed", s->name, i);
			ok = 0;
		}
	fflush(stdout);
	return ok ? 0 : 1;
}

/* the settings named by mmbk.scan_modes= on the kernel command line */
static int wanted(const char *name)
{
	char cmdline[4096], *p, *end;
	size_t len = strlen(name);

	if (read_file_str("/proc/cmdline", cmdline, sizeof(cmdline)))
		return 1;
	p = strstr(cmdline, "mmbk.scan_modes=");
	if (!p)
		return 1;
	p += strlen("mmbk.scan_modes=");
	end = p + strcspn(p, " \n");
	while (p < end) {
		size_t n = strcspn(p, ", \n");

		if (n == len && !strncmp(p, name, len))
			return 1;
		p += n + (p[n] == ',');
	}
	return 0;
}

int main(int argc, char **argv)
{
	long nsmall;
	int nreg, i, st;
	pid_t pid;

	guest_only(argv);
	ktap_header(NSETTINGS);
	if (thp_setup_madvise() || read_num(KHP_SYS "/full_scans") < 0) {
		for (i = 0; i < NSETTINGS; i++)
			ktap_result(-1, settings[i].name, "no THP/khugepaged sysfs");
		ktap_exit();
	}
	for (i = 0; i < NSETTINGS; i++) {
		if (!wanted(settings[i].name)) {
			ktap_result(-1, settings[i].name, "not in mmbk.scan_modes=");
			continue;
		}
		fflush(stdout);
		nsmall = arg_num(argc, argv, 1, settings[i].nsmall);
		nreg = arg_num(argc, argv, 2, settings[i].nreg);
		pid = fork();
		if (pid == 0)
			_exit(run_setting(&settings[i], nsmall, nreg));
		if (pid < 0 || waitpid(pid, &st, 0) != pid) {
			ktap_result(0, settings[i].name, NULL);
			continue;
		}
		ktap_result(WIFEXITED(st) && WEXITSTATUS(st) == 0, settings[i].name, NULL);
	}
	return ktap_exit();
}
