/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_GUARDIAN_H
#define __PERF_REFCNT_GUARDIAN_H

/*
 * The process that outlives a recorder and ends its uprobes.
 *
 * A recorder killed by SIGKILL or SIGHUP cannot remove its uprobes, and
 * tracefs keeps them. The guardian, forked before they are installed,
 * waits until the recorder is gone (its end of a socket closes, whatever
 * the way it ends) and removes what is left of the group.
 *
 * It also ends the events on the recorder's normal path. The last close
 * of the perf events of a uprobe waits for a tracepoint grace period
 * (perf_trace_event_unreg(): some 80 ms each, 7 s for the 88 uprobes of
 * perf 6.12), and no uprobe can be removed while an event is open on it.
 * So the recorder hands the pins (pin.h), one event per uprobe that it
 * opens before perf record's own, to the guardian (SCM_RIGHTS): perf
 * record's closes and its own are then not the last, and return at once.
 * At the end the recorder says it is done and returns; the guardian closes
 * the pins, paying the grace periods, then removes the group.
 */

#include <stdbool.h>
#include <sys/types.h>

struct refcnt_guardian {
	pid_t	pid;	/* 0 if none */
	int	sock;	/* the recorder's end, -1 once done */
	bool	holds;	/* it holds events: it removes the group */
};

/* Fork the guardian of @group; returns 0 or a negative errno. */
int refcnt_guardian__start(struct refcnt_guardian *g, const char *group);

/*
 * Hand it copies of the @nr event fds @fds to close after the recorder.
 * Returns 0, or a negative errno when it took none: the recorder closes
 * its own and removes the group then.
 */
int refcnt_guardian__hold(struct refcnt_guardian *g, const int *fds, int nr);

/*
 * The recorder is done with its events (closed on its side): returns true
 * if the guardian ends them and removes the group, false if that is the
 * recorder's to do. Idempotent.
 */
bool refcnt_guardian__end(struct refcnt_guardian *g);

#endif /* __PERF_REFCNT_GUARDIAN_H */
