// SPDX-License-Identifier: GPL-2.0
/*
 * khugepaged_budget - khugepaged's scan budget on the skip path of 0008
 * (topic khugepaged-mmap-lock).
 *
 * A child process ("churn") registers with khugepaged (MADV_HUGEPAGE on a
 * region emptied after a fault: a VMA without an anon_vma does not register)
 * and maps KEEP one-page, never-eligible VMAs at rising addresses, one per
 * 2 MiB (so each is a VMA the scan skips).  As soon as
 * khugepaged is seen running (it is then walking them: the child's is the
 * only mm registered), NWRITERS threads start mapping more of them above the
 * others, unmapping the oldest in batches.  Every writer queues on mmap_lock
 * while khugepaged holds it, so each relock of 0008 (after 64 skipped VMAs,
 * taken back behind the queued writers) lets all of them add a VMA above the
 * scan cursor: more than khugepaged skipped.  Then this process, registered
 * after the child, populates an eligible 2 MiB region and gives it
 * MADV_HUGEPAGE.  khugepaged must still reach it: a scan call relocks at
 * most once (each relock waits for every queued writer) and not once its
 * progress reaches pages_to_scan; it then moves on to the next mm, as the
 * next call's failed mmap_lock trylock on the contended child does.  Without
 * that bound on the relock path one call stays in the child for as long as
 * the churn lasts (no full scan completes, nothing else is collapsed); with
 * the budget alone, one call could relock pages_to_scan / 64 times, each
 * time behind all NWRITERS writers, which took longer than MAX_WAIT_S on a
 * 6.12 TCG guest in 3 of 18 boots.  (khugepaged cannot get
 * into an mm that is already churning: its trylock fails; hence the start.)
 *
 * khugepaged runs at nice 19.  Once it has left the churning mm, the
 * writers run freely: 128 nice-0 threads that leave a nice-19 thread next
 * to no CPU on a 2-CPU guest, so the collapse would wait for the CPU, not
 * for the scan (one suspect of the 6.12 timeouts above, EEVDF).  The test therefore runs khugepaged at nice -20 and
 * puts it back afterwards: what it measures is the scan's bound alone.
 *
 *   1 other_mm_collapses_under_vma_churn: the region is collapsed within
 *     MAX_WAIT_S seconds of churn; prints # budget_collapse_seconds: X and
 *     # budget_full_scans: N, pages_collapsed +M (during the churn)
 */
#include "common.h"
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <dirent.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <errno.h>

#define NWRITERS 128		/* > KHUGEPAGED_RELOCK_SKIPPED_VMAS (64) */
#define CHURN_BASE 0x100000000000UL	/* 16 TiB: above the binary, below the mmap area */
/*
 * live one-page VMAs of the churn (max_map_count 65530 with BATCH and the
 * program's own): khugepaged's walk over them must still be going on when
 * the writers start, or it may leave the mm before they queue (with 16384 an
 * 0008 without the bound passed 1 of 5 boots on 6.12)
 */
#define KEEP 48000
#define BATCH 4096		/* unmapped at once, below the oldest kept */
#define START_WAIT_S 5.0	/* for khugepaged to be seen running */
#define WARMUP_MS 500
#define MAX_WAIT_S 20.0
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static atomic_long next_slot;
static pthread_mutex_t go_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go_cond = PTHREAD_COND_INITIALIZER;
static int go;

static char *slot_addr(long i)
{
	return (char *)(CHURN_BASE + (unsigned long)i * PMD_SIZE_);
}

/* map the next slot; unmap a batch of the oldest every BATCH slots */
static void churn_one(void)
{
	long i = atomic_fetch_add(&next_slot, 1);
	char *p = mmap(slot_addr(i), page_size, PROT_READ,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p != MAP_FAILED && p != slot_addr(i))
		munmap(p, page_size);	/* a kernel without MAP_FIXED_NOREPLACE */
	if (i >= KEEP + BATCH && i % BATCH == 0)
		munmap(slot_addr(i - KEEP - BATCH), BATCH * PMD_SIZE_);
}

static void *writer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&go_lock);
	while (!go)
		pthread_cond_wait(&go_cond, &go_lock);
	pthread_mutex_unlock(&go_lock);
	for (;;)
		churn_one();
	return NULL;
}

/* pid of the khugepaged kthread, 0 if none */
static int khugepaged_pid(void)
{
	char path[300], comm[32];
	struct dirent *d;
	int pid = 0;
	DIR *dir = opendir("/proc");

	while (dir && !pid && (d = readdir(dir))) {
		if (atoi(d->d_name) <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		if (!read_file_str(path, comm, sizeof(comm)) && !strcmp(comm, "khugepaged\n"))
			pid = atoi(d->d_name);
	}
	if (dir)
		closedir(dir);
	return pid;
}

/* khugepaged's scheduler state (R, S, D, ...), or 0 */
static char task_state(const char *stat_path)
{
	char buf[256], *p;

	if (read_file_str(stat_path, buf, sizeof(buf)))
		return 0;
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : 0;
}

/* lines of /proc/self/maps */
static int count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n++;
	if (f)
		fclose(f);
	return n;
}

/* the churn child: never returns; killed by the parent */
static void churn(int ready_fd)
{
	pthread_attr_t attr;
	pthread_t th;
	char *reg = map_aligned(PMD_SIZE_, PROT_READ | PROT_WRITE);
	char stat_path[64];
	int i, n = 0, seen = 0, kpid;
	long polls = 0, dstate = 0, fs0;
	double t0 = now_s();

	/* registers the mm: only a VMA with an anon_vma (a fault) is taken */
	if (!reg)
		_exit(2);
	reg[0] = 1;
	if (madvise(reg, PMD_SIZE_, MADV_DONTNEED) || madvise(reg, PMD_SIZE_, MADV_HUGEPAGE))
		_exit(2);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (i = 0; i < NWRITERS; i++)
		n += !pthread_create(&th, &attr, writer, NULL);
	while (atomic_load(&next_slot) < KEEP)
		churn_one();
	dprintf(1, "# churn: %d VMAs mapped in %.1f s\n", count_maps(), now_s() - t0);
	/* start the writers while khugepaged walks this mm (uncontended) */
	fs0 = read_num(KHP_SYS "/full_scans");
	kpid = khugepaged_pid();
	snprintf(stat_path, sizeof(stat_path), "/proc/%d/stat", kpid);
	for (t0 = now_s(); kpid && now_s() - t0 < START_WAIT_S; ) {
		char c = task_state(stat_path);

		polls++;
		if (c == 'R') {
			seen = 1;
			break;
		}
		if (c == 'D')
			dstate++;
	}
	pthread_mutex_lock(&go_lock);
	go = 1;
	pthread_cond_broadcast(&go_cond);
	pthread_mutex_unlock(&go_lock);
	dprintf(1, "# churn: khugepaged pid %d, %ld polls (%ld in D), seen running: %d, full scans %ld\n",
		kpid, polls, dstate, seen, read_num(KHP_SYS "/full_scans") - fs0);
	n = seen ? n : -n;
	if (write(ready_fd, &n, sizeof(n)) != sizeof(n))
		_exit(2);
	for (;;)
		pause();
}

static int boost_pid, boost_old_nice = 19;

/* at exit: khugepaged's nice value back (the suite's later tests) */
static void khugepaged_unboost(void)
{
	if (boost_pid)
		setpriority(PRIO_PROCESS, boost_pid, boost_old_nice);
}

/* khugepaged at nice -20 until this process exits (see above) */
static void khugepaged_boost(int kpid)
{
	int old;

	errno = 0;
	old = getpriority(PRIO_PROCESS, kpid);
	if (old != -1 || !errno)
		boost_old_nice = old;
	if (setpriority(PRIO_PROCESS, kpid, -20)) {
		diag("cannot renice khugepaged (pid %d): %s", kpid, strerror(errno));
		return;
	}
	boost_pid = kpid;
	atexit(khugepaged_unboost);
}

int main(void)
{
	int pfd[2], n = 0, ok = 0, st, kpid;
	long scans0, coll0;
	double t0, t = 0;
	pid_t pid;
	char *reg;

	ktap_header(1);
	khugepaged_fast_or_skip("other_mm_collapses_under_vma_churn");
	kpid = khugepaged_pid();
	if (kpid)
		khugepaged_boost(kpid);

	if (pipe(pfd) || (pid = fork()) < 0) {
		perror("pipe/fork");
		return 1;
	}
	if (!pid) {
		close(pfd[0]);
		churn(pfd[1]);
	}
	close(pfd[1]);
	if (read(pfd[0], &n, sizeof(n)) != sizeof(n) || abs(n) < NWRITERS) {
		diag("churn child did not start its %d writers (%d)", NWRITERS, abs(n));
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		ktap_result(0, "other_mm_collapses_under_vma_churn", NULL);
		return ktap_exit();
	}
	if (n < 0)
		diag("khugepaged not seen running within %.0f s: writers started anyway",
		     START_WAIT_S);
	sleep_ms(WARMUP_MS);

	reg = map_aligned(PMD_SIZE_, PROT_READ | PROT_WRITE);
	if (!reg) {
		perror("mmap");
		kill(pid, SIGKILL);
		return 1;
	}
	fill_pattern(reg, PMD_SIZE_, 0xb0d9e7u);
	scans0 = read_num(KHP_SYS "/full_scans");
	coll0 = read_num(KHP_SYS "/pages_collapsed");
	t0 = now_s();
	madvise(reg, PMD_SIZE_, MADV_HUGEPAGE);	/* registered after the child */
	while ((t = now_s() - t0) < MAX_WAIT_S) {
		ok = is_thp_mapped(reg);
		if (ok)
			break;
		sleep_ms(50);
	}
	/* where khugepaged is, while the churn still runs */
	if (!ok && kpid) {
		char path[64], buf[2048];
		int i;

		for (i = 0; i < 3; i++) {
			snprintf(path, sizeof(path), "/proc/%d/stat", kpid);
			diag("khugepaged state: %c", task_state(path));
			snprintf(path, sizeof(path), "/proc/%d/wchan", kpid);
			if (!read_file_str(path, buf, sizeof(buf)))
				diag("khugepaged wchan: %s", buf);
			snprintf(path, sizeof(path), "/proc/%d/stack", kpid);
			if (!read_file_str(path, buf, sizeof(buf))) {
				char *l, *save = NULL;

				for (l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
					diag("khugepaged stack: %s", l);
			}
			sleep_ms(300);
		}
	}
	/* khugepaged's counters while the churn still runs */
	scans0 = read_num(KHP_SYS "/full_scans") - scans0;
	coll0 = read_num(KHP_SYS "/pages_collapsed") - coll0;
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	if (ok) {
		diag("budget_collapse_seconds: %.2f", t);
	} else {
		diag("budget_collapse_seconds: timeout (not collapsed after %.0f s of churn)", t);
	}
	diag("budget_full_scans: %ld, pages_collapsed +%ld (during the churn)", scans0, coll0);
	if (!check_pattern(reg, PMD_SIZE_, 0xb0d9e7u)) {
		diag("region contents changed");
		ok = 0;
	}
	ktap_result(ok, "other_mm_collapses_under_vma_churn", NULL);
	return ktap_exit();
}
