// SPDX-License-Identifier: GPL-2.0
/*
 * hackbench [LOOPS] [THP-MODE] - 62b98015d988 reported a ~5% average hackbench
 * gain (arm64, mmtests): the same messaging pattern, small enough for a
 * 2-vCPU TCG guest.
 *
 * Like hackbench: each group has NFD receivers, each with its own pipe or
 * AF_UNIX stream socketpair, and NFD senders that each write LOOPS
 * messages of DATASIZE bytes to every receiver of the group.  Tasks are
 * processes (fork) or threads; all start together (one byte each from a
 * start pipe) and the figure is the wall time until all have finished.
 * Groups: 1, 2, 4.  Kernels without AF_UNIX (the kit's tinyconfig has no
 * CONFIG_NET) run the pipe configurations only.  THP runs in THP-MODE (default "always", as on the
 * distribution kernels mmtests ran on; the guest's default is "madvise")
 * while the benchmark runs, then goes back to "madvise".
 *
 *   # metric hackbench.<process|thread>-<pipes|sockets>-<groups> <s> s
 *   1 hackbench: every configuration ran to completion
 */
#include "bench.h"
#include <pthread.h>
#include <sys/socket.h>
#include <sys/wait.h>

#define NFD 20
#define DATASIZE 100
#define MAXGROUPS 4

static int loops = 200;
static int start_fd;

struct task {
	int is_sender;
	int in_fd;		/* receiver */
	int out_fds[NFD];	/* sender: the group's receivers */
};

static int wait_start(void)
{
	char c;

	return read(start_fd, &c, 1) == 1 ? 0 : -1;
}

static int run_task(struct task *t)
{
	char buf[DATASIZE];
	int i, j;

	if (wait_start())
		return -1;
	if (t->is_sender) {
		memset(buf, 0x5a, sizeof(buf));
		for (i = 0; i < loops; i++)
			for (j = 0; j < NFD; j++) {
				size_t done = 0;

				while (done < sizeof(buf)) {
					ssize_t n = write(t->out_fds[j], buf + done, sizeof(buf) - done);

					if (n <= 0)
						return -1;
					done += n;
				}
			}
	} else {
		size_t want = (size_t)NFD * loops * DATASIZE, got = 0;

		while (got < want) {
			ssize_t n = read(t->in_fd, buf, sizeof(buf));

			if (n <= 0)
				return -1;
			got += n;
		}
	}
	return 0;
}

static void *thread_fn(void *arg)
{
	return (void *)(long)run_task(arg);
}

/* one run: seconds, or -1 on error */
static double run(int groups, int sockets, int threads)
{
	static struct task tasks[MAXGROUPS * 2 * NFD];
	pthread_t th[MAXGROUPS * 2 * NFD];
	pid_t pid[MAXGROUPS * 2 * NFD];
	int fds[MAXGROUPS * NFD][2], sp[2];
	int g, i, n = 0, err = 0, ntasks = groups * 2 * NFD;
	pthread_attr_t attr;
	char go[MAXGROUPS * 2 * NFD];
	size_t nstart;
	double t0, t;

	if (groups < 1 || groups > MAXGROUPS || pipe(sp))
		return -1;
	start_fd = sp[0];
	for (i = 0; i < groups * NFD; i++) {
		int r = sockets ? socketpair(AF_UNIX, SOCK_STREAM, 0, fds[i]) : pipe(fds[i]);

		if (r) {
			diag("%s: %s", sockets ? "socketpair" : "pipe", strerror(errno));
			return -1;
		}
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 << 10);
	for (g = 0; g < groups; g++) {
		for (i = 0; i < NFD; i++) {	/* receivers read fds[..][0] */
			struct task *t = &tasks[n++];

			t->is_sender = 0;
			t->in_fd = fds[g * NFD + i][0];
		}
		for (i = 0; i < NFD; i++) {	/* senders write fds[..][1] */
			struct task *t = &tasks[n++];
			int j;

			t->is_sender = 1;
			for (j = 0; j < NFD; j++)
				t->out_fds[j] = fds[g * NFD + j][1];
		}
	}
	for (i = 0; i < ntasks; i++) {
		if (threads) {
			if (pthread_create(&th[i], &attr, thread_fn, &tasks[i])) {
				diag("pthread_create failed");
				return -1;
			}
		} else {
			pid[i] = fork();
			if (pid[i] < 0) {
				diag("fork: %s", strerror(errno));
				return -1;
			}
			if (!pid[i])
				_exit(run_task(&tasks[i]) ? 1 : 0);
		}
	}
	memset(go, 1, sizeof(go));
	t0 = now_s();
	nstart = (size_t)ntasks < sizeof(go) ? (size_t)ntasks : sizeof(go);
	if (write(sp[1], go, nstart) != (ssize_t)ntasks)
		err = 1;
	for (i = 0; i < ntasks; i++) {
		if (threads) {
			void *ret;

			pthread_join(th[i], &ret);
			err |= ret != NULL;
		} else {
			int st;

			waitpid(pid[i], &st, 0);
			err |= !WIFEXITED(st) || WEXITSTATUS(st);
		}
	}
	t = now_s() - t0;
	for (i = 0; i < groups * NFD; i++) {
		close(fds[i][0]);
		close(fds[i][1]);
	}
	close(sp[0]);
	close(sp[1]);
	pthread_attr_destroy(&attr);
	return err ? -1 : t;
}

int main(int argc, char **argv)
{
	static const int groups[] = { 1, 2, 4 };
	const char *thp = argc > 2 ? argv[2] : "always";
	int g, s, th, ok = 1, have_sockets = 1, sv[2];
	char name[64];

	loops = arg_num(argc, argv, 1, 200);
	guest_only(argv);
	ktap_header(1);
	if (write_str(THP_SYS "/enabled", thp))
		diag("THP mode stays as it was");
	diag("hackbench: %d fds per group, %d loops, %d-byte messages, THP %s", NFD, loops,
	     DATASIZE, thp);
	/* the kit's tinyconfig kernels have no CONFIG_NET: pipes only */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		diag("no AF_UNIX sockets (%s): the socket runs are left out", strerror(errno));
		have_sockets = 0;
	} else {
		close(sv[0]);
		close(sv[1]);
	}
	for (th = 0; th < 2; th++)
		for (s = 0; s < 1 + have_sockets; s++)
			for (g = 0; g < (int)(sizeof(groups) / sizeof(groups[0])); g++) {
				double t = run(groups[g], s, th);

				snprintf(name, sizeof(name), "hackbench.%s-%s-%d",
					 th ? "thread" : "process", s ? "sockets" : "pipes", groups[g]);
				if (t < 0) {
					metric_fail(name, "s", "a task failed");
					ok = 0;
				} else {
					metric(name, t, "s");
				}
			}
	thp_setup_madvise();
	ktap_result(ok, "runs_completed", NULL);
	return ktap_exit();
}
