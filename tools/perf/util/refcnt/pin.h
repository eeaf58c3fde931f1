/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_PIN_H
#define __PERF_REFCNT_PIN_H

struct evlist;

/*
 * Keep the breakpoints of the uprobe events @event ("group:*") in every
 * process that maps the audited binary, for as long as the recording runs.
 *
 * This works around the kernel (seen on 6.18; the logic dates from 3.9).
 * The uprobe perf filter (trace_uprobe.c) keeps a breakpoint in an mm
 * while some per-task event on it has hw.target->mm == that mm. But the
 * scheduler swaps the perf contexts of two tasks that hold clones of the
 * same parent's events instead of switching them (perf_event_context_
 * sched_out()), and hw.target does not follow. When a thread of a
 * process exits holding the context that was made for a forked child
 * process, the child's events are closed, the filter finds no event for
 * the child's mm, and uprobe_apply() takes the child's breakpoints away:
 * the child is recorded no more.
 *
 * One disabled CPU-wide event per uprobe event makes the filter pass every
 * mm, so no breakpoint is taken away. Being disabled, it never records;
 * the price is a trap in other processes of the same binary (the
 * recorder among them) that is not recorded.
 *
 * Returns the events, to be closed with evlist__delete() before the
 * uprobe events are removed, or NULL after saying with pr_warning what
 * could not be done.
 */
struct evlist *refcnt_pins__open(const char *event);

/* The fds of @pins' events, up to @max of them in @fds: how many. */
int refcnt_pins__fds(struct evlist *pins, int *fds, int max);

#endif /* __PERF_REFCNT_PIN_H */
