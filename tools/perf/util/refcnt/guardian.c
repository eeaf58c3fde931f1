// SPDX-License-Identifier: GPL-2.0
/*
 * The process that outlives a recorder and ends its uprobes: see
 * guardian.h. perf has nothing of the kind (perf probe leaves removing
 * its probes to the user), hence this unit.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/kernel.h>

#include "../debug.h"
#include "guardian.h"
#include "probe.h"

#define GUARDIAN_FDS_PER_MSG	250	/* the kernel takes up to SCM_MAX_FD, 253 */
#define GUARDIAN_REMOVE_TRIES	50	/* 100 ms apart: until the last event closes */

enum guardian_msg {
	GUARDIAN_MSG__FDS	= 'f',	/* fds to hold, in the control data */
	GUARDIAN_MSG__DONE	= 'd',	/* the recorder ended normally */
};

union guardian_cmsg {
	char		buf[CMSG_SPACE(sizeof(int) * GUARDIAN_FDS_PER_MSG)];
	struct cmsghdr	align;
};

/* Close the fds from @from to @to (~0U: all above), with or without close_range(). */
static void guardian__close_range(unsigned int from, unsigned int to)
{
	long max;

	if (from > to || !close_range(from, to, 0))
		return;
	max = min(sysconf(_SC_OPEN_MAX), 65536L);
	for (long fd = from; fd < max && fd <= (long)to; fd++)
		close(fd);
}

/* Point @fd at /dev/null: nobody reads it any more, and a pipe on it ends. */
static void guardian__null(int fd)
{
	int null = open("/dev/null", O_RDWR);

	if (null < 0)
		return;
	dup2(null, fd);
	if (null != fd)
		close(null);
}

/* Is stderr something a reader waits on the end of (a pipe, a socket)? */
static bool guardian__stderr_waited_on(void)
{
	struct stat st;

	return fstat(STDERR_FILENO, &st) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
}

/*
 * Out of the recorder's way: a session of its own, so that a signal to
 * the recorder's process group (timeout -s KILL, ^\, a job's kill) does
 * not end it too; none of the recorder's fds but @sock (a lock, a
 * harness's pipe); stdin and stdout on /dev/null. stderr stays, for the
 * one thing it may say.
 */
static void guardian__detach(int sock)
{
	setsid();
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTSTP, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	guardian__close_range(3, sock - 1);
	guardian__close_range(sock + 1, ~0U);
	guardian__null(STDIN_FILENO);
	guardian__null(STDOUT_FILENO);
}

/*
 * Hold what the recorder hands over until it is done or gone; then close
 * it all, paying the grace periods, and remove the group. The fds passed
 * stay open in this process without being looked at.
 */
static void __noreturn guardian__run(int sock, const char *group, pid_t recorder)
{
	char name[16];
	bool done = false;

	/* as 'refcnt-<recorder>': who the group's uprobes wait for (probe.c) */
	snprintf(name, sizeof(name), "refcnt-%d", recorder);
	prctl(PR_SET_NAME, name);
	guardian__detach(sock);
	for (;;) {
		union guardian_cmsg cmsg;
		char c = 0;
		struct iovec iov = { .iov_base = &c, .iov_len = 1 };
		struct msghdr msg = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cmsg.buf, .msg_controllen = sizeof(cmsg.buf),
		};
		ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;	/* the recorder is gone */
		if (c == GUARDIAN_MSG__DONE) {
			done = true;
			break;
		}
	}
	/* on the normal path nobody reads what it says; a killed recorder's user may */
	if (done || guardian__stderr_waited_on())
		guardian__null(STDERR_FILENO);
	/* the pins, and the socket: each last close of an event waits a grace period */
	guardian__close_range(3, ~0U);
	for (int i = 0; i < GUARDIAN_REMOVE_TRIES; i++) {
		int nr = refcnt_probes__remove_group(group);

		if (nr > 0 && !done)
			pr_warning("perf refcnt: removed %d uprobes of group %s left by the recorder\n",
				   nr, group);
		if (nr >= 0)
			break;
		usleep(100000);
	}
	_exit(0);
}

int refcnt_guardian__start(struct refcnt_guardian *g, const char *group)
{
	pid_t recorder = getpid(), pid;
	int fds[2];

	g->pid = 0;
	g->sock = -1;
	g->holds = false;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(fds[0]);
		close(fds[1]);
		return err;
	}
	if (pid == 0) {
		close(fds[1]);
		guardian__run(fds[0], group, recorder);
	}
	close(fds[0]);
	/* fds[1] stays open until this process ends; CLOEXEC keeps it from the workload */
	g->pid = pid;
	g->sock = fds[1];
	return 0;
}

/* Send @nr (at most GUARDIAN_FDS_PER_MSG) fds in one message. */
static int guardian__send(int sock, const int *fds, int nr)
{
	union guardian_cmsg cmsg;
	char c = GUARDIAN_MSG__FDS;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cmsg.buf, .msg_controllen = CMSG_SPACE(sizeof(int) * nr),
	};
	struct cmsghdr *h;

	memset(&cmsg, 0, sizeof(cmsg));
	h = CMSG_FIRSTHDR(&msg);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int) * nr);
	memcpy(CMSG_DATA(h), fds, sizeof(int) * nr);
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

int refcnt_guardian__hold(struct refcnt_guardian *g, const int *fds, int nr)
{
	int err = 0;

	if (g->sock < 0)
		return -EBADF;
	for (int sent = 0; sent < nr; sent += GUARDIAN_FDS_PER_MSG) {
		err = guardian__send(g->sock, fds + sent, min(nr - sent, GUARDIAN_FDS_PER_MSG));
		if (err)
			break;
		/* from the first it holds, the guardian removes the group */
		g->holds = true;
	}
	if (err)
		pr_debug("perf refcnt: the guardian holds %s of the events: %s\n",
			 g->holds ? "some" : "none", strerror(-err));
	return g->holds ? 0 : err;
}

bool refcnt_guardian__end(struct refcnt_guardian *g)
{
	char c = GUARDIAN_MSG__DONE;

	/* not holding: it waits for this process to end, as if killed */
	if (g->sock < 0 || !g->holds)
		return g->holds;
	/* gone (killed): it holds nothing any more, removing is ours */
	if (send(g->sock, &c, 1, MSG_NOSIGNAL) != 1)
		g->holds = false;
	close(g->sock);
	g->sock = -1;
	if (g->holds)
		pr_debug("perf refcnt: the guardian (pid %d) ends the events and removes the uprobes\n",
			 g->pid);
	return g->holds;
}
