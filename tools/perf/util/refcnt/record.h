/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_RECORD_H
#define __PERF_REFCNT_RECORD_H

#include <stdbool.h>

/*
 * perf refcnt record once its options are parsed: find the perf binary to
 * audit, place the uprobes on its refcount API, hand them to the guardian
 * (guardian.h), run perf record (or perf stat) on the workload or the
 * process, keep the scan at exit (exit_scan.h) in the recording, and leave
 * nothing registered however it ends.
 */
/*
 * Frames of a -g fp callchain by default (or the kernel's
 * perf_event_max_stack, if lower). Measured: perf's callchains are 13 to
 * 18 frames, 26 at most; at 16, and even at 8, the findings of the seeded
 * suite, the clean commands and the survey's are the same as with the
 * kernel's 127, and an audit of perf report is 10% (28% at 8) faster
 * (BENCHMARKS.md). 16 keeps most of a chain to read.
 */
#define REFCNT_MAX_STACK	16

struct refcnt_record_opts {
	const char	*output;	/* the recording; NULL with count: stderr */
	const char	*exe;		/* -x: the perf binary to audit, or NULL */
	const char	*call_graph;	/* fp, dwarf or no */
	const char	*max_stack;	/* frames of a -g fp callchain, or NULL
					 * (REFCNT_MAX_STACK)
					 */
	const char	*mmap_pages;
	const char	*pid;		/* -p: the process to record, or NULL */
	const char	*uncover;	/* functions whose copies are uncovered */
	unsigned long	type_mask;	/* the types audited */
	bool		compress;
	bool		count;		/* perf stat's counts, not a recording */
	bool		scan;		/* scan the workload at its exit */
	bool		at_entry;	/* no probe moved past where it starts */
	bool		slots;		/* probe the slots references live in */
};

/*
 * Record workload @argv (@argc arguments, none with @opts->pid) as @opts
 * says. Returns what perf record (or perf stat) returns, or a negative
 * error after saying with pr_err what is wrong and how to fix it.
 */
int refcnt_record__run(const struct refcnt_record_opts *opts, int argc, const char **argv);

#endif /* __PERF_REFCNT_RECORD_H */
