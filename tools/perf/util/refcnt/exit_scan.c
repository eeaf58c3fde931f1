// SPDX-License-Identifier: GPL-2.0
/*
 * Stop the audited process at its exit and scan it: see exit_scan.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "../debug.h"
#include "exit_scan.h"

/* how often the helper looks for the workload perf record forks */
#define REFCNT_FIND_CHILD_US	1000
/*
 * How long the recorder waits for the helper once the workload is gone:
 * the scan is done by then (it happens before the exit), only its writing
 * may be left.
 */
#define REFCNT_HELPER_WAIT_MS	10000

/* The parent of process @pid, from /proc, or -1. */
static pid_t proc__ppid(pid_t pid)
{
	char path[64], buf[512], *p;
	int fd, ppid = -1;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "pid (comm) state ppid": comm may hold anything but the last ')' */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

/* A child of @parent that is neither @not nor @not2, or 0. */
static pid_t proc__find_child(pid_t parent, pid_t not, pid_t not2)
{
	struct dirent *d;
	pid_t found = 0;
	DIR *proc = opendir("/proc");

	while (proc && (d = readdir(proc)) != NULL && !found) {
		pid_t pid = atoi(d->d_name);

		if (pid > 0 && pid != not && pid != not2 && proc__ppid(pid) == parent)
			found = pid;
	}
	if (proc)
		closedir(proc);
	return found;
}

static void helper__write(int fd, const struct refcnt_scan *scan)
{
	size_t sz = scan->result.nr_objects * sizeof(*scan->objects);
	size_t freed = scan->result.nr_freed * sizeof(*scan->freed);

	if (write(fd, &scan->result, sizeof(scan->result)) != sizeof(scan->result) ||
	    (sz && write(fd, scan->objects, sz) != (ssize_t)sz) ||
	    (freed && write(fd, scan->freed, freed) != (ssize_t)freed))
		pr_warning("perf refcnt: cannot keep the scan at exit: %s\n", strerror(errno));
}

/*
 * The helper's keeper: the child of the recorder that started the helper
 * stays until the recorder ends, however it ends (@alive is the read end
 * of a pipe only the recorder writes to: EOF then), and ends the helper
 * with SIGKILL, the one signal a stopped or busy helper cannot miss. A
 * tracer that ends lets its tracee go, even from its exit stop: nothing
 * is left stopped. It ends no sooner: perf record would take its end for
 * the workload's.
 */
static void __noreturn keeper__run(int alive, pid_t helper)
{
	char c;

	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	/* nor stopped or ended by the terminal's other keys: a group of its own */
	setpgid(0, 0);
	if (alive > 0)
		close_range(0, alive - 1, 0);
	close_range(alive + 1, ~0U, 0);
	while (read(alive, &c, 1) < 0 && errno == EINTR)
		;
	kill(helper, SIGKILL);
	_exit(0);
}

/*
 * At the exit stop of @pid: how it ends (a crash stops it mid-work: the
 * report says so), then its memory.
 */
static void helper__scan(struct refcnt_scan *scan, pid_t pid,
			 const struct refcnt_scan_type *types)
{
	unsigned long exit_status = 0;
	bool known = !ptrace(PTRACE_GETEVENTMSG, pid, NULL, &exit_status);

	if (refcnt_scan__process(scan, pid, types))
		scan->result.status = REFCNT_SCAN__FAILED;
	if (known && WIFSIGNALED(exit_status))
		scan->result.signal = WTERMSIG(exit_status);
	else if (known)
		scan->result.exit_code = WEXITSTATUS(exit_status);
	for (unsigned int t = 0; t < REFCNT_TYPE__MAX_NR && t < 32; t++)
		scan->result.types |= types[t].size ? 1U << t : 0;
}

/* The helper: never returns. */
static void __noreturn helper__run(int fd, int done, pid_t pid, pid_t parent,
				   pid_t other_child, pid_t starter,
				   const struct refcnt_scan_type *types)
{
	const char seized = 'S';
	pid_t self = getpid();
	struct refcnt_scan scan = { .result = { .magic = REFCNT_SCAN_MAGIC } };
	int status;

	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	/* first on the pipe, before anything else it says: who it is */
	if (write(done, &self, sizeof(self)) != sizeof(self))
		_exit(1);
	scan.result.status = REFCNT_SCAN__NOT_STOPPED;
	while (!pid) {
		/*
		 * perf record's workload: the recorder's child that is
		 * neither the guardian nor the child that started us
		 */
		pid = proc__find_child(parent, other_child, starter);
		if (!pid) {
			if (kill(parent, 0))
				goto out;
			usleep(REFCNT_FIND_CHILD_US);
		}
	}
	scan.result.pid = pid;
	if (ptrace(PTRACE_SEIZE, pid, NULL, (void *)PTRACE_O_TRACEEXIT))
		goto out;
	/* the recorder waits for a scan only once there is one to wait for */
	if (write(done, &seized, 1) != 1)
		goto out;

	while (waitpid(pid, &status, __WALL) == pid) {
		int event;

		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		if (!WIFSTOPPED(status))
			continue;
		event = status >> 16;
		if (event == PTRACE_EVENT_EXIT) {
			helper__scan(&scan, pid, types);
			ptrace(PTRACE_CONT, pid, NULL, NULL);
		} else if (event == PTRACE_EVENT_STOP && WSTOPSIG(status) != SIGTRAP) {
			/* a group stop (SIGSTOP, a terminal's): it stays stopped */
			ptrace(PTRACE_LISTEN, pid, NULL, NULL);
		} else if (event == PTRACE_EVENT_STOP) {
			/* the end of a group stop (SIGCONT): it runs on */
			ptrace(PTRACE_CONT, pid, NULL, NULL);
		} else {
			/* a signal for it: deliver it */
			ptrace(PTRACE_CONT, pid, NULL, (void *)(long)WSTOPSIG(status));
		}
	}
out:
	helper__write(fd, &scan);
	_exit(0);
}

/* Close every descriptor but stdio, @a and @b. */
static void helper__close_fds(int a, int b)
{
	int lo = min(a, b), hi = max(a, b);

	if (lo > 3)
		close_range(3, lo - 1, 0);
	if (hi > lo + 1)
		close_range(lo + 1, hi - 1, 0);
	close_range(hi + 1, ~0U, 0);
}

/* The recorder is done with the helper: its keeper ends it, and itself. */
static void keeper__end(struct refcnt_exit_scan *es)
{
	if (es->alive >= 0)
		close(es->alive);
	es->alive = -1;
	if (es->keeper > 0)
		waitpid(es->keeper, NULL, 0);
	es->keeper = -1;
}

int refcnt_exit_scan__start(struct refcnt_exit_scan *es, pid_t pid, pid_t other_child,
			    const struct refcnt_scan_type types[REFCNT_TYPE__MAX_NR])
{
	pid_t parent = getpid(), child;
	int fds[2], alive[2] = { -1, -1 }, err;

	es->helper = -1;
	es->pid = pid;
	es->done = -1;
	es->alive = -1;
	es->keeper = -1;
	es->fd = memfd_create("perf-refcnt-scan", MFD_CLOEXEC);
	if (es->fd < 0 || pipe2(alive, O_CLOEXEC) || pipe2(fds, O_CLOEXEC)) {
		err = -errno;
		goto out_err;
	}
	child = fork();
	if (child < 0) {
		err = -errno;
		close(fds[0]);
		close(fds[1]);
		goto out_err;
	}
	if (child == 0) {
		/* the helper is the child's child: no child of the recorder */
		pid_t starter = getpid(), helper = fork();

		if (helper == 0) {
			/*
			 * Hold nothing of the recorder's: the guardian's pipe
			 * among them, whose end it waits for
			 */
			helper__close_fds(es->fd, fds[1]);
			helper__run(es->fd, fds[1], pid, parent, other_child, starter, types);
		}
		if (helper < 0)
			_exit(1);
		keeper__run(alive[0], helper);
	}
	es->keeper = child;
	close(fds[1]);
	close(alive[0]);
	alive[0] = -1;
	es->alive = alive[1];
	alive[1] = -1;
	if (read(fds[0], &es->helper, sizeof(es->helper)) != sizeof(es->helper)) {
		err = -ECHILD;
		es->helper = -1;
		close(fds[0]);
		goto out_err;
	}
	es->done = fds[0];	/* EOF once the helper is gone */
	return 0;

out_err:
	pr_warning("perf refcnt: no scan at exit, cannot start its helper: %s\n", strerror(-err));
	for (int i = 0; i < 2; i++) {
		if (alive[i] >= 0)
			close(alive[i]);
	}
	keeper__end(es);
	if (es->fd >= 0)
		close(es->fd);
	es->fd = -1;
	return err;
}

/*
 * What the helper said on its pipe within @ms: 'S' once it holds the
 * process, EOF (0) when it is done, -1 if nothing.
 */
static int helper__said(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c;
	int n;

	do {
		n = poll(&pfd, 1, ms);
	} while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -1;
	n = read(fd, &c, 1);
	return n == 1 ? c : n == 0 ? 0 : -1;
}

int refcnt_exit_scan__finish(struct refcnt_exit_scan *es, struct refcnt_scan *scan)
{
	struct refcnt_scan_result *res = &scan->result, written;
	bool stop;
	size_t sz;
	int said;

	memset(scan, 0, sizeof(*scan));
	res->magic = REFCNT_SCAN_MAGIC;
	res->status = REFCNT_SCAN__NOT_RUN;
	if (es->helper <= 0)
		return 0;
	res->status = REFCNT_SCAN__NOT_STOPPED;

	/*
	 * It never held the process: stop it. It holds it: with -p and the
	 * process running on, stop it (its death detaches it); else the
	 * process is gone and the helper done (EOF), or nearly.
	 */
	said = helper__said(es->done, 0);
	if (said == 0) {
		stop = false;	/* done, and gone: nothing to stop */
	} else if (said != 'S') {
		stop = true;
	} else if (es->pid && !kill(es->pid, 0) && helper__said(es->done, 0) != 0) {
		stop = true;
		res->status = REFCNT_SCAN__DETACHED;
	} else {
		stop = helper__said(es->done, REFCNT_HELPER_WAIT_MS) != 0;
	}
	if (stop)
		kill(es->helper, SIGKILL);
	if (!stop && pread(es->fd, &written, sizeof(written), 0) == sizeof(written) &&
	    written.magic == REFCNT_SCAN_MAGIC && written.status < REFCNT_SCAN__MAX)
		*res = written;
	sz = res->nr_objects * sizeof(*scan->objects);
	if (sz) {
		scan->objects = malloc(sz);
		if (!scan->objects)
			return -ENOMEM;
		if (pread(es->fd, scan->objects, sz, sizeof(*res)) != (ssize_t)sz) {
			zfree(&scan->objects);
			res->nr_objects = 0;
			res->status = REFCNT_SCAN__FAILED;
		}
	}
	if (res->nr_freed > REFCNT_SCAN_FREED_MAX || !res->nr_objects)
		res->nr_freed = 0;
	if (res->nr_freed) {
		size_t freed = res->nr_freed * sizeof(*scan->freed);

		/* what freed memory says is evidence beside the objects: lose it alone */
		scan->freed = malloc(freed);
		if (!scan->freed ||
		    pread(es->fd, scan->freed, freed, sizeof(*res) + sz) != (ssize_t)freed) {
			zfree(&scan->freed);
			res->nr_freed = 0;
		}
	}
	close(es->fd);
	close(es->done);
	keeper__end(es);
	es->fd = -1;
	es->done = -1;
	es->helper = -1;
	return 0;
}
