// SPDX-License-Identifier: GPL-2.0
/*
 * Check the semantics of down_read[_killable]_nosteal()
 *
 * Loaded into a kernel that carries the "locking/rwsem: add
 * down_read[_killable]_nosteal()" patch of mm-backport-kit, it runs its tests
 * from module init and reports them in KTAP to the kernel log.  Built for a
 * kernel without that patch, it tests the down_read()/down_read_killable()
 * fallback instead, where cases 3 and 4 fail (on 5.10, where readers spin,
 * also 6 and 7):
 *
 *   1 down_read_nosteal_uncontended
 *	the lock is taken at once when nobody waits
 *   2 down_read_steals_from_queued_writer
 *	down_read() behaves as before: a reader that drops the lock while a
 *	writer is queued and takes it right back gets it ahead of the writer
 *	(with PREEMPT_RT, rwbase readers do that only where __rwbase_read_lock()
 *	has the reader shortcut, RWBASE_READER_SHORTCUT from Kbuild; elsewhere
 *	the expectation on RT is that the writer goes first, as before)
 *   3 down_read_nosteal_waits_for_queued_writer
 *	the same with down_read_nosteal(): the writer has had the lock by the
 *	time the reader gets it
 *   4 down_read_killable_nosteal_waits_for_queued_writer
 *	the same with down_read_killable_nosteal()
 *   5 down_read_killable_nosteal_fatal_signal
 *	down_read_killable_nosteal() blocked behind a writer returns -EINTR
 *	when its task gets SIGKILL
 *   6 down_read_nosteal_queues_while_writer_runs
 *	a writer holds the lock and busy-waits (on one CPU, at most
 *	NOSTEAL_RUNNING_MS) until the rwsem shows a waiter, while the reader
 *	calls down_read_nosteal() on another CPU with nobody queued: the
 *	reader must queue at once, the writer then sees it.  A reader that
 *	spins on the running owner instead (plain down_read() where readers
 *	spin, or a nosteal reader that only tested for waiters on entry)
 *	never queues and the writer times out.  Needs two online CPUs
 *	(skipped otherwise).
 *   7 down_read_killable_nosteal_queues_while_writer_runs
 *	the same with down_read_killable_nosteal()
 *
 * The "drop and retake" tests run the reader and the writer as kthreads
 * bound to one CPU, the writer with SCHED_IDLE (nice 19 where
 * sched_setattr_nocheck() is not exported), so that the woken writer cannot
 * run between the reader's up_read() and its retake unless the retake
 * blocks. The module always loads; the verdicts are in the log.
 *
 * Where readers spin (RWSEM_READERS_SPIN from Kbuild: the rwsem before
 * v5.11), a plain reader takes the lock ahead of a queued writer only by
 * spinning, and a writer that spins on the reader-owned lock until its
 * time limit turns reader spinning off (RWSEM_RD_NONSPINNABLE): whether
 * down_read() overtakes then depends on timing. There the reader runs
 * with SCHED_FIFO and the writer with a lower SCHED_FIFO priority: the
 * writer still runs only when the reader sleeps, and an RT writer stops
 * spinning on a reader-owned lock after one look without turning reader
 * spinning off, so plain down_read() overtakes it every time and only a
 * reader that does not spin waits for it.
 */

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <uapi/linux/sched/types.h>

#ifndef HAVE_DOWN_READ_NOSTEAL
/*
 * The kernel lacks the API (Kbuild looked at its rwsem.h): test what a
 * caller gets without it.  The nosteal cases then fail, which proves they
 * can.
 */
#define down_read_nosteal(sem)			down_read(sem)
#define down_read_killable_nosteal(sem)		down_read_killable(sem)
#endif

#define NOSTEAL_NR_TESTS	7
/* How long to wait for a thread to get to a given point before giving up. */
#define NOSTEAL_TIMEOUT		(5 * HZ)
/* How long the running writer of cases 6-7 waits for the reader to queue. */
#define NOSTEAL_RUNNING_MS	100
/*
 * How often a drop and retake is run when the reader was preempted between
 * its up_read() and the retake (the writer could run then: the attempt
 * proves nothing either way).
 */
#define NOSTEAL_RETAKE_TRIES	5

enum nosteal_mode {
	MODE_PLAIN,		/* down_read() */
	MODE_NOSTEAL,		/* down_read_nosteal() */
	MODE_KILLABLE_NOSTEAL,	/* down_read_killable_nosteal() */
};

struct nosteal_ctx {
	struct rw_semaphore sem;
	enum nosteal_mode mode;
	int cpu;
	/* set by the writer once it has held the write lock */
	atomic_t writer_done;
	/* what the reader saw when it got the lock back */
	int writer_done_at_retake;
	/* the reader was preempted between its up_read() and the retake */
	bool preempted;
	int retake_ret;
	struct completion writer_exit;
	struct completion reader_exit;
	struct completion killable_blocked;
	/* cases 6-7: the writer holds the lock; it saw the reader queued */
	struct completion writer_locked;
	bool writer_saw_waiter;
	const char *failure;
};

static int nosteal_test_nr;
static int nosteal_test_failed;

static void nosteal_report_skip(const char *name, const char *reason)
{
	nosteal_test_nr++;
	pr_info("ok %d %s # SKIP %s\n", nosteal_test_nr, name, reason);
}

static void nosteal_report(const char *name, const char *failure)
{
	nosteal_test_nr++;
	if (failure) {
		nosteal_test_failed++;
		pr_info("# %s: %s\n", name, failure);
		pr_info("not ok %d %s\n", nosteal_test_nr, name);
	} else {
		pr_info("ok %d %s\n", nosteal_test_nr, name);
	}
}

#ifndef RWSEM_READERS_SPIN
static void nosteal_make_idle(struct task_struct *t)
{
	/* 5.10 does not export sched_setattr_nocheck(); 6.1 and later do. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_IDLE,
	};

	if (!sched_setattr_nocheck(t, &attr))
		return;
#endif
	sched_set_normal(t, MAX_NICE);
}
#endif

/*
 * The reader's and the writer's priorities: the writer runs only when the
 * reader sleeps (see the top of the file).
 */
static void nosteal_set_prio(struct task_struct *reader,
			     struct task_struct *writer)
{
#ifdef RWSEM_READERS_SPIN
	if (reader)
		sched_set_fifo(reader);
	if (writer)
		sched_set_fifo_low(writer);
#else
	if (writer)
		nosteal_make_idle(writer);
#endif
}

/* Wait (sleeping, so that other threads on this CPU run) for a waiter. */
static bool nosteal_wait_contended(struct rw_semaphore *sem)
{
	unsigned long timeout = jiffies + NOSTEAL_TIMEOUT;

	while (!rwsem_is_contended(sem)) {
		if (time_after(jiffies, timeout))
			return false;
		usleep_range(1000, 2000);
	}
	return true;
}

static int nosteal_writer_fn(void *data)
{
	struct nosteal_ctx *ctx = data;

	down_write(&ctx->sem);
	atomic_set(&ctx->writer_done, 1);
	up_write(&ctx->sem);
	complete(&ctx->writer_exit);
	return 0;
}

/*
 * The reader: hold the lock until a writer is queued behind it, then drop it
 * and take it right back with the mode under test, and record whether the
 * writer had the lock in between.
 */
static int nosteal_reader_fn(void *data)
{
	struct nosteal_ctx *ctx = data;
	struct task_struct *writer;
	unsigned long nivcsw;

	down_read(&ctx->sem);

	writer = kthread_create(nosteal_writer_fn, ctx, "nosteal_writer");
	if (IS_ERR(writer)) {
		up_read(&ctx->sem);
		ctx->failure = "cannot create the writer thread";
		complete(&ctx->writer_exit);
		goto out;
	}
	kthread_bind(writer, ctx->cpu);
	nosteal_set_prio(NULL, writer);
	wake_up_process(writer);

	if (!nosteal_wait_contended(&ctx->sem)) {
		up_read(&ctx->sem);
		ctx->failure = "the writer never queued on the rwsem";
		goto out;
	}

	/*
	 * Nothing may sleep or yield between the up_read() and the retake.  A
	 * preemption there (a tick that finds the reader past its slice, as
	 * when the host stalls the guest's CPU) lets the woken writer run:
	 * counted by the involuntary context switches, the attempt is then
	 * inconclusive.
	 */
	nivcsw = current->nivcsw;
	up_read(&ctx->sem);
	switch (ctx->mode) {
	case MODE_PLAIN:
		down_read(&ctx->sem);
		break;
	case MODE_NOSTEAL:
		down_read_nosteal(&ctx->sem);
		break;
	case MODE_KILLABLE_NOSTEAL:
		ctx->retake_ret = down_read_killable_nosteal(&ctx->sem);
		break;
	}
	ctx->writer_done_at_retake = atomic_read(&ctx->writer_done);
	ctx->preempted = current->nivcsw != nivcsw;
	if (!ctx->retake_ret)
		up_read(&ctx->sem);
out:
	complete(&ctx->reader_exit);
	return 0;
}

/*
 * A context for MODE and its reader thread, created (not yet woken) to
 * run READER_FN; NULL with *why set when either cannot be made.
 */
static struct nosteal_ctx *nosteal_ctx_new(enum nosteal_mode mode,
					   int (*reader_fn)(void *),
					   struct task_struct **reader,
					   const char **why)
{
	struct nosteal_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx) {
		*why = "out of memory";
		return NULL;
	}
	init_rwsem(&ctx->sem);
	ctx->mode = mode;
	atomic_set(&ctx->writer_done, 0);
	init_completion(&ctx->writer_locked);
	init_completion(&ctx->writer_exit);
	init_completion(&ctx->reader_exit);

	*reader = kthread_create(reader_fn, ctx, "nosteal_reader");
	if (IS_ERR(*reader)) {
		kfree(ctx);
		*why = "cannot create the reader thread";
		return NULL;
	}
	return ctx;
}

/*
 * One drop and retake in MODE; *preempted is set when the reader was
 * preempted between its up_read() and the retake.
 */
static const char *nosteal_retake_once(enum nosteal_mode mode,
				       bool expect_writer_first,
				       bool *preempted)
{
	struct nosteal_ctx *ctx;
	struct task_struct *reader;
	const char *failure = NULL;

	ctx = nosteal_ctx_new(mode, nosteal_reader_fn, &reader, &failure);
	if (!ctx)
		return failure;
	ctx->cpu = get_cpu();
	put_cpu();
	kthread_bind(reader, ctx->cpu);
	nosteal_set_prio(reader, NULL);
	wake_up_process(reader);

	/*
	 * A broken lock would leave the threads blocked on ctx: leak it
	 * rather than free memory they may still use.
	 */
	if (!wait_for_completion_timeout(&ctx->reader_exit, NOSTEAL_TIMEOUT) ||
	    !wait_for_completion_timeout(&ctx->writer_exit, NOSTEAL_TIMEOUT))
		return "timed out waiting for the reader or the writer";

	*preempted = ctx->preempted;
	if (ctx->failure)
		failure = ctx->failure;
	else if (ctx->retake_ret)
		failure = "down_read_killable_nosteal() failed without a signal";
	else if (expect_writer_first && !ctx->writer_done_at_retake)
		failure = "the reader took the lock ahead of the queued writer";
	else if (!expect_writer_first && ctx->writer_done_at_retake)
		failure = "the queued writer got the lock before the reader";
	kfree(ctx);
	return failure;
}

/*
 * The drop and retake in MODE, run again (up to NOSTEAL_RETAKE_TRIES
 * times) while the reader is preempted in the window: only an attempt in
 * which it was not decides, whichever way it went.
 */
static const char *nosteal_run_retake(const char *name, enum nosteal_mode mode,
				      bool expect_writer_first)
{
	const char *failure;
	bool preempted;
	int try;

	for (try = 1; try <= NOSTEAL_RETAKE_TRIES; try++) {
		preempted = false;
		failure = nosteal_retake_once(mode, expect_writer_first,
					      &preempted);
		if (!preempted)
			return failure;
		pr_info("# %s: attempt %d inconclusive: the reader was preempted between up_read() and the retake (%s)\n",
			name, try, failure ? failure : "passed");
	}
	return "inconclusive: the reader was preempted between up_read() and the retake in every attempt";
}

/* A drop and retake case: its verdict reported as NAME. */
static void nosteal_case_retake(const char *name, enum nosteal_mode mode,
				bool expect_writer_first)
{
	nosteal_report(name, nosteal_run_retake(name, mode,
						expect_writer_first));
}

static int nosteal_killable_fn(void *data)
{
	struct nosteal_ctx *ctx = data;

	allow_signal(SIGKILL);
	complete(&ctx->killable_blocked);
	ctx->retake_ret = down_read_killable_nosteal(&ctx->sem);
	if (!ctx->retake_ret)
		up_read(&ctx->sem);
	complete(&ctx->reader_exit);
	return 0;
}

static const char *nosteal_run_fatal_signal(void)
{
	struct nosteal_ctx *ctx;
	struct task_struct *t;
	const char *failure = NULL;
	bool done = false;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return "out of memory";
	init_rwsem(&ctx->sem);
	init_completion(&ctx->reader_exit);
	init_completion(&ctx->killable_blocked);

	down_write(&ctx->sem);
	t = kthread_create(nosteal_killable_fn, ctx, "nosteal_killable");
	if (IS_ERR(t)) {
		up_write(&ctx->sem);
		kfree(ctx);
		return "cannot create the killable reader thread";
	}
	get_task_struct(t);
	wake_up_process(t);

	wait_for_completion(&ctx->killable_blocked);
	if (!nosteal_wait_contended(&ctx->sem)) {
		failure = "the killable reader never queued on the rwsem";
	} else {
		send_sig(SIGKILL, t, 1);
		done = wait_for_completion_timeout(&ctx->reader_exit,
						   NOSTEAL_TIMEOUT);
		if (!done)
			failure = "SIGKILL did not interrupt down_read_killable_nosteal()";
		else if (ctx->retake_ret != -EINTR)
			failure = "down_read_killable_nosteal() did not return -EINTR";
	}
	up_write(&ctx->sem);
	/* Let the thread finish with ctx before it goes away. */
	if (!done)
		wait_for_completion(&ctx->reader_exit);
	put_task_struct(t);
	kfree(ctx);
	return failure;
}

/*
 * Whether a task waits for @sem.  PREEMPT_RT's rwsem_is_contended() is true
 * whenever a writer holds the lock; there a blocked reader is a waiter of
 * the rwbase's rtmutex.
 */
static bool nosteal_has_waiter(struct rw_semaphore *sem)
{
#ifdef CONFIG_PREEMPT_RT
	return !RB_EMPTY_ROOT(&sem->rwbase.rtmutex.waiters.rb_root);
#else
	return rwsem_is_contended(sem);
#endif
}

/*
 * Cases 6-7, the writer: take the lock and stay on the CPU (no sleep, so
 * that the owner is running the whole time) until a waiter shows, for at
 * most NOSTEAL_RUNNING_MS.
 */
static int nosteal_running_writer_fn(void *data)
{
	struct nosteal_ctx *ctx = data;
	unsigned long timeout;

	down_write(&ctx->sem);
	complete(&ctx->writer_locked);
	timeout = jiffies + msecs_to_jiffies(NOSTEAL_RUNNING_MS);
	while (!nosteal_has_waiter(&ctx->sem)) {
		if (time_after(jiffies, timeout))
			break;
		cpu_relax();
	}
	ctx->writer_saw_waiter = nosteal_has_waiter(&ctx->sem);
	up_write(&ctx->sem);
	complete(&ctx->writer_exit);
	return 0;
}

/* Cases 6-7, the reader: once the writer holds the lock, take it. */
static int nosteal_running_reader_fn(void *data)
{
	struct nosteal_ctx *ctx = data;

	wait_for_completion(&ctx->writer_locked);
	if (ctx->mode == MODE_KILLABLE_NOSTEAL)
		ctx->retake_ret = down_read_killable_nosteal(&ctx->sem);
	else
		down_read_nosteal(&ctx->sem);
	if (!ctx->retake_ret)
		up_read(&ctx->sem);
	complete(&ctx->reader_exit);
	return 0;
}

/*
 * Cases 6-7: the writer on this CPU, the reader on another one, both with
 * SCHED_FIFO so that no other task's wake-up ends a spin early (a spinning
 * reader stops at need_resched(), or when the owner is preempted, and
 * queues).  *skip is set when there is no second CPU.
 */
static const char *nosteal_run_running_writer(enum nosteal_mode mode,
					      const char **skip)
{
	struct nosteal_ctx *ctx;
	struct task_struct *reader, *writer;
	unsigned int cpu, other;
	const char *failure = NULL;

	cpu = get_cpu();
	put_cpu();
	other = cpumask_any_but(cpu_online_mask, cpu);
	if (other >= nr_cpu_ids) {
		*skip = "needs two online CPUs (the writer runs while the reader takes the lock)";
		return NULL;
	}

	ctx = nosteal_ctx_new(mode, nosteal_running_reader_fn, &reader, &failure);
	if (!ctx)
		return failure;
	writer = kthread_create(nosteal_running_writer_fn, ctx, "nosteal_writer");
	if (IS_ERR(writer)) {
		/* the reader has not run: let it through without a lock */
		complete(&ctx->writer_locked);
		wake_up_process(reader);
		wait_for_completion(&ctx->reader_exit);
		kfree(ctx);
		return "cannot create the writer thread";
	}
	kthread_bind(reader, other);
	kthread_bind(writer, cpu);
	sched_set_fifo(reader);
	sched_set_fifo_low(writer);
	wake_up_process(reader);
	wake_up_process(writer);

	/* A broken lock would leave the threads blocked on ctx: leak it. */
	if (!wait_for_completion_timeout(&ctx->writer_exit, NOSTEAL_TIMEOUT) ||
	    !wait_for_completion_timeout(&ctx->reader_exit, NOSTEAL_TIMEOUT))
		return "timed out waiting for the reader or the writer";

	if (ctx->retake_ret)
		failure = "down_read_killable_nosteal() failed without a signal";
	else if (!ctx->writer_saw_waiter)
		failure = "the reader did not queue while the writer held the lock and ran";
	kfree(ctx);
	return failure;
}

static void nosteal_case_running_writer(const char *name,
					enum nosteal_mode mode)
{
	const char *skip = NULL;
	const char *failure = nosteal_run_running_writer(mode, &skip);

	if (skip)
		nosteal_report_skip(name, skip);
	else
		nosteal_report(name, failure);
}

static const char *nosteal_run_uncontended(void)
{
	struct rw_semaphore sem;
	const char *failure = NULL;

	init_rwsem(&sem);
	down_read_nosteal(&sem);
	up_read(&sem);
	if (down_read_killable_nosteal(&sem))
		failure = "down_read_killable_nosteal() failed on a free rwsem";
	else
		up_read(&sem);
	return failure;
}

static int __init nosteal_test_init(void)
{
	/*
	 * PREEMPT_RT's rwbase readers overtake a pending writer only through
	 * the reader shortcut of older rwbase_rt.c (see Kbuild).
	 */
#ifdef RWBASE_READER_SHORTCUT
	bool plain_writer_first = false;
#else
	bool plain_writer_first = IS_ENABLED(CONFIG_PREEMPT_RT);
#endif

	pr_info("KTAP version 1\n");
	pr_info("1..%d\n", NOSTEAL_NR_TESTS);
#ifdef HAVE_DOWN_READ_NOSTEAL
	pr_info("# nosteal_test: testing this kernel's down_read[_killable]_nosteal()\n");
#else
	pr_info("# nosteal_test: this kernel has no down_read_nosteal(): testing the down_read()/down_read_killable() fallback, the nosteal cases fail where down_read() steals from a queued writer\n");
#endif

	nosteal_report("down_read_nosteal_uncontended",
		       nosteal_run_uncontended());
	nosteal_case_retake("down_read_steals_from_queued_writer",
			    MODE_PLAIN, plain_writer_first);
	nosteal_case_retake("down_read_nosteal_waits_for_queued_writer",
			    MODE_NOSTEAL, true);
	nosteal_case_retake("down_read_killable_nosteal_waits_for_queued_writer",
			    MODE_KILLABLE_NOSTEAL, true);
	nosteal_report("down_read_killable_nosteal_fatal_signal",
		       nosteal_run_fatal_signal());
	nosteal_case_running_writer("down_read_nosteal_queues_while_writer_runs",
				    MODE_NOSTEAL);
	nosteal_case_running_writer("down_read_killable_nosteal_queues_while_writer_runs",
				    MODE_KILLABLE_NOSTEAL);

	pr_info("# nosteal_test: pass:%d fail:%d\n",
		nosteal_test_nr - nosteal_test_failed, nosteal_test_failed);
	return 0;
}

static void __exit nosteal_test_exit(void)
{
}

module_init(nosteal_test_init);
module_exit(nosteal_test_exit);

MODULE_DESCRIPTION("KTAP test of down_read[_killable]_nosteal()");
MODULE_AUTHOR("mm-backport-kit developers <kit@localhost>");
MODULE_LICENSE("GPL");
