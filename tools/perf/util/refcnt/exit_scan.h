/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_EXIT_SCAN_H
#define __PERF_REFCNT_EXIT_SCAN_H

#include <sys/types.h>

#include "scan.h"

/*
 * Stop the audited process at its exit and scan it (scan.h), from a
 * process of its own: it ptraces the process with PTRACE_O_TRACEEXIT,
 * passes on every signal, scans it at the exit stop, before its memory is
 * released, and writes the result to a memfd the recorder reads when the
 * recording is done. The audited process runs as it would otherwise; the
 * scan happens after its last instruction.
 *
 * The helper is not a child of the recorder: perf record takes any child
 * that ends for its workload (SIGCHLD, wait()). Its parent, the recorder's
 * child, stays until the recorder ends, however it ends, and then kills
 * the helper: a killed recorder leaves no helper, and no process stopped.
 */
struct refcnt_exit_scan {
	pid_t	helper;
	pid_t	pid;		/* the process scanned, 0: perf record's workload */
	int	fd;		/* the result: struct refcnt_scan_result, objects */
	int	done;		/* end of a pipe the helper holds until it is done */
	int	alive;		/* end of a pipe whose close ends the helper */
	pid_t	keeper;		/* the recorder's child that ends it then */
};

/*
 * Start the helper for process @pid, or, if @pid is 0, for the first child
 * this process forks from now on other than @other_child (perf record's
 * workload). Returns 0 or a negative error, after saying why.
 */
int refcnt_exit_scan__start(struct refcnt_exit_scan *es, pid_t pid, pid_t other_child,
			    const struct refcnt_scan_type types[REFCNT_TYPE__MAX_NR]);

/*
 * The recording is done: wait for the helper, or end it if the process
 * still runs (-p), and read its result into @scan (its status says if the
 * scan could not run). Returns 0 or -ENOMEM.
 */
int refcnt_exit_scan__finish(struct refcnt_exit_scan *es, struct refcnt_scan *scan);

#endif /* __PERF_REFCNT_EXIT_SCAN_H */
