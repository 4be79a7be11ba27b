// SPDX-License-Identifier: GPL-2.0
/*
 * khugepaged_budget - khugepaged's scan budget on the skip path of 0008
 * (topic khugepaged-mmap-lock).
 *
 * A child process ("churn") registers with khugepaged (MADV_HUGEPAGE on a
 * region emptied after a fault: a VMA without an anon_vma does not register)
 * and maps KEEP one-page, never-eligible VMAs at rising addresses, one per
 * 2 MiB (so each is a VMA the scan skips).  As soon as khugepaged is proven
 * to be walking them (below), NWRITERS threads start mapping more of them
 * above the others, unmapping the oldest in batches.  Every writer queues on
 * mmap_lock while khugepaged holds it, so each relock of 0008 (after 64
 * skipped VMAs, taken back behind the queued writers) lets all of them add a
 * VMA above the scan cursor: more than khugepaged skipped.  Then this
 * process, registered after the child, populates an eligible 2 MiB region
 * and gives it MADV_HUGEPAGE.  khugepaged must still reach it: a scan call
 * relocks at most once (each relock waits for every queued writer) and not
 * once its pass's progress reaches pages_to_scan; it then moves on to the
 * next mm, as the next call's failed mmap_lock trylock on the contended
 * child does.  Without that bound on the relock path one call stays in the
 * child for as long as the churn lasts (no full scan completes, nothing else
 * is collapsed); with the budget alone, one call could relock
 * pages_to_scan / 64 times, each time behind all NWRITERS writers, which took
 * longer than MAX_WAIT_S on a 6.12 TCG guest in 3 of 18 boots.
 *
 * khugepaged cannot get into an mm that is already churning (its trylock
 * fails), hence the start.  Its proof: one more mapping of the child's own
 * had to sleep on the mmap_lock (the thread's voluntary context switches,
 * getrusage(RUSAGE_THREAD), went up across the mmap()) while no other thread
 * of the child ran; the only other task that takes the child's mmap_lock is
 * khugepaged, whose scan of this mm (the only one registered) holds it for
 * read while it walks the VMAs.  Without that proof within START_WAIT_S, or
 * with fewer VMAs mapped than the case needs (KEEP before the start, NWRITERS
 * during the churn, and no mmap() of the churn failing), the case is a skip
 * that says why: it would not have tested anything.
 *
 * khugepaged runs at nice 19.  Once it has left the churning mm, the
 * writers run freely: 128 nice-0 threads that leave a nice-19 thread next
 * to no CPU on a 2-CPU guest, so the collapse would wait for the CPU, not
 * for the scan (one suspect of the 6.12 timeouts above, EEVDF).  The test
 * therefore runs khugepaged at nice -20 and puts it back on every way out:
 * at exit, in a handler of every signal that ends the program (which then
 * ends the same way), and for SIGKILL (the guest's timeout) in a guardian
 * process that waits for the end of this one on a pipe.  The churn child
 * dies with this process (PR_SET_PDEATHSIG).  What the case measures is the
 * scan's bound alone.
 *
 *   1 other_mm_collapses_under_vma_churn: the region is collapsed within
 *     MAX_WAIT_S seconds of churn; prints # budget_start: ..., the proof,
 *     # budget_churn: ..., the VMAs mapped, # budget_collapse_seconds: X and
 *     # budget_full_scans: N, pages_collapsed +M (during the churn)
 */
#include "common.h"
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <dirent.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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
#define START_WAIT_S 10.0	/* for khugepaged to be seen holding the lock */
#define PROBE_GAP_MS 1		/* between two probes of the start */
#define WARMUP_MS 500
#define MAX_WAIT_S 20.0
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static atomic_long next_slot;
static pthread_mutex_t go_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go_cond = PTHREAD_COND_INITIALIZER;
static int go;

/* what the churn did, in memory shared with the parent (MAP_SHARED) */
struct churn_stats {
	atomic_long mapped;	/* one-page VMAs the churn mapped */
	atomic_long failed;	/* mmap() calls of the churn that failed */
	atomic_int first_errno;	/* errno of the first failure (-1: mapped elsewhere) */
};
static struct churn_stats *stats;

/* khugepaged's pid and nice value before the boost; the churn child */
static int boost_pid, boost_old_nice = 19;
static pid_t churn_pid;
/* the signals that end the program and that a handler can see */
static const int fatal_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGABRT, SIGFPE, SIGSEGV, SIGBUS,
	SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ,
};
#define NR_FATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))

/* what the child tells the parent once the writers are started */
struct churn_start {
	int threads;		/* writer threads started */
	int proven;		/* khugepaged was seen holding the child's mmap_lock */
	long probes;		/* mappings tried until then */
	double wait_ms;		/* how long the proving mapping waited */
	long mapped;		/* stats->mapped at the start (>= KEEP) */
	int maps;		/* lines of the child's /proc/self/maps then */
};

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
	int none = 0;

	if (p == MAP_FAILED || p != slot_addr(i)) {
		atomic_fetch_add(&stats->failed, 1);
		atomic_compare_exchange_strong(&stats->first_errno, &none,
					       p == MAP_FAILED ? errno : -1);
		if (p != MAP_FAILED)
			munmap(p, page_size);	/* no MAP_FIXED_NOREPLACE */
	} else {
		atomic_fetch_add(&stats->mapped, 1);
	}
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

/* voluntary context switches of the calling thread */
static long thread_nvcsw(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nvcsw;
}

/*
 * The start: map the next VMA of the churn, PROBE_GAP_MS apart, until one
 * mapping sleeps (its voluntary context switches go up) on the mmap_lock
 * khugepaged holds for read while it walks this mm: no other thread of the
 * child runs (the writers wait for go) and nothing else takes the lock of
 * this mm.  A probe that did not sleep took the lock at once and proves
 * nothing.  Returns whether that was seen within START_WAIT_S.
 */
static int khugepaged_seen_walking(struct churn_start *st)
{
	double t0 = now_s(), t;
	long v0;

	while (now_s() - t0 < START_WAIT_S) {
		st->probes++;
		v0 = thread_nvcsw();
		t = now_s();
		churn_one();
		t = now_s() - t;
		if (v0 >= 0 && thread_nvcsw() > v0) {
			st->wait_ms = t * 1e3;
			return 1;
		}
		sleep_ms(PROBE_GAP_MS);
	}
	return 0;
}

/* the churn child: never returns; killed by the parent, or dies with it */
static void churn(int ready_fd, pid_t parent)
{
	struct churn_start st = { 0 };
	pthread_attr_t attr;
	pthread_t th;
	char *reg = map_aligned(PMD_SIZE_, PROT_READ | PROT_WRITE);
	int i;
	double t0 = now_s();

	/* the parent's handlers put khugepaged's nice value back: not its job */
	for (i = 0; i < (int)NR_FATAL; i++)
		signal(fatal_signals[i], SIG_DFL);
	/* a SIGKILLed parent (the guest's timeout) must not leave it churning */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(2);
	/* registers the mm: only a VMA with an anon_vma (a fault) is taken */
	if (!reg)
		_exit(2);
	reg[0] = 1;
	if (madvise(reg, PMD_SIZE_, MADV_DONTNEED) || madvise(reg, PMD_SIZE_, MADV_HUGEPAGE))
		_exit(2);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (i = 0; i < NWRITERS; i++)
		st.threads += !pthread_create(&th, &attr, writer, NULL);
	while (atomic_load(&next_slot) < KEEP)
		churn_one();
	st.maps = count_maps();
	dprintf(1, "# churn: %ld of %d VMAs mapped (%d lines of maps) in %.1f s\n",
		atomic_load(&stats->mapped), KEEP, st.maps, now_s() - t0);
	/* start the writers while khugepaged walks this mm (uncontended) */
	if (atomic_load(&stats->mapped) >= KEEP)
		st.proven = khugepaged_seen_walking(&st);
	st.mapped = atomic_load(&stats->mapped);
	pthread_mutex_lock(&go_lock);
	go = 1;
	pthread_cond_broadcast(&go_cond);
	pthread_mutex_unlock(&go_lock);
	if (write(ready_fd, &st, sizeof(st)) != sizeof(st))
		_exit(2);
	for (;;)
		pause();
}

/* khugepaged's nice value back (the suite's later tests); async-signal-safe */
static void khugepaged_unboost(void)
{
	if (boost_pid)
		syscall(SYS_setpriority, PRIO_PROCESS, boost_pid, boost_old_nice);
}

/* a signal that ends the program: nice value back, churn gone, then die of it */
static void unboost_and_die(int sig)
{
	khugepaged_unboost();
	if (churn_pid > 0)
		kill(churn_pid, SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * For SIGKILL, which no handler sees: a process that holds the read end of
 * a pipe whose write end only this process holds (the churn child closes
 * it); when that end closes, at this process's end however it came, the
 * guardian puts khugepaged's nice value back.
 */
static int khugepaged_guardian(void)
{
	int pfd[2];
	char c;
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		unsigned int i;

		for (i = 0; i < NR_FATAL; i++)
			signal(fatal_signals[i], SIG_DFL);
		/* it holds no end of the console: the suite's runner waits for those */
		close(pfd[1]);
		close(1);
		close(2);
		while (read(pfd[0], &c, 1) < 0 && errno == EINTR)
			;
		khugepaged_unboost();
		_exit(0);
	}
	close(pfd[0]);
	return pfd[1];
}

/*
 * khugepaged at nice -20 until this process ends (see above); returns the
 * guardian's pipe end, which the churn child must close, or -1
 */
static int khugepaged_boost(int kpid)
{
	struct sigaction sa = { .sa_handler = unboost_and_die };
	unsigned int i;
	int old, guard;

	errno = 0;
	old = getpriority(PRIO_PROCESS, kpid);
	if (old != -1 || !errno)
		boost_old_nice = old;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NR_FATAL; i++)
		sigaction(fatal_signals[i], &sa, NULL);
	boost_pid = kpid;
	atexit(khugepaged_unboost);
	guard = khugepaged_guardian();
	if (guard < 0)
		diag("no guardian of khugepaged's nice value: %s", strerror(errno));
	if (setpriority(PRIO_PROCESS, kpid, -20))
		diag("cannot renice khugepaged (pid %d): %s", kpid, strerror(errno));
	return guard;
}

#define CASE "other_mm_collapses_under_vma_churn"

/* the churn child gone (it also dies with this process: PR_SET_PDEATHSIG) */
static void stop_churn(pid_t pid)
{
	int st;

	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	churn_pid = 0;
}

/* the first error of the churn's mmap() calls, as text */
static const char *churn_error(void)
{
	int e = atomic_load(&stats->first_errno);

	return e > 0 ? strerror(e) : e < 0 ? "mapped elsewhere (no MAP_FIXED_NOREPLACE)" : "none";
}

int main(void)
{
	struct churn_start cs = { 0 };
	int pfd[2], ok = 0, kpid, guard = -1;
	long scans0, coll0, churned, failed;
	double t0, t = 0;
	pid_t pid, parent = getpid();
	char *reg, why[256];

	ktap_header(1);
	khugepaged_fast_or_skip(CASE);
	stats = mmap(NULL, sizeof(*stats), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stats == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	kpid = khugepaged_pid();
	if (kpid)
		guard = khugepaged_boost(kpid);

	if (pipe(pfd) || (pid = fork()) < 0) {
		perror("pipe/fork");
		return 1;
	}
	if (!pid) {
		close(pfd[0]);
		if (guard >= 0)
			close(guard);
		churn(pfd[1], parent);
	}
	churn_pid = pid;
	close(pfd[1]);
	if (read(pfd[0], &cs, sizeof(cs)) != sizeof(cs) || cs.threads < NWRITERS) {
		diag("churn child did not start its %d writers (%d)", NWRITERS, cs.threads);
		stop_churn(pid);
		ktap_result(0, CASE, NULL);
		return ktap_exit();
	}
	/* a case whose churned mm is not there, or not walked, tests nothing */
	if (cs.mapped < KEEP) {
		snprintf(why, sizeof(why), "only %ld of the %d one-page VMAs the case needs were mapped (first mmap error: %s)",
			 cs.mapped, KEEP, churn_error());
		stop_churn(pid);
		ktap_result(-1, CASE, why);
		return ktap_exit();
	}
	if (!cs.proven) {
		snprintf(why, sizeof(why), "khugepaged was not seen walking the churned mm within %.0f s: none of %ld mappings waited for its mmap_lock",
			 START_WAIT_S, cs.probes);
		stop_churn(pid);
		ktap_result(-1, CASE, why);
		return ktap_exit();
	}
	diag("budget_start: khugepaged walking the churned mm (%d lines of maps): mapping %ld of the start slept %.2f ms on its mmap_lock",
	     cs.maps, cs.probes, cs.wait_ms);
	sleep_ms(WARMUP_MS);

	reg = map_aligned(PMD_SIZE_, PROT_READ | PROT_WRITE);
	if (!reg) {
		perror("mmap");
		stop_churn(pid);
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
	stop_churn(pid);
	churned = atomic_load(&stats->mapped) - cs.mapped;
	failed = atomic_load(&stats->failed);
	diag("budget_churn: %ld VMAs mapped before the writers started, %ld while they ran, %ld mmap() calls failed (first: %s)",
	     cs.mapped, churned, failed, churn_error());
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
	/* the writers must have put VMAs above the cursor, every one they tried */
	if (failed || churned < NWRITERS) {
		snprintf(why, sizeof(why), "the writers mapped %ld VMAs (at least %d needed) and %ld mmap() calls of the churn failed (first: %s)",
			 churned, NWRITERS, failed, churn_error());
		ktap_result(-1, CASE, why);
		return ktap_exit();
	}
	ktap_result(ok, CASE, NULL);
	return ktap_exit();
}
