// SPDX-License-Identifier: GPL-2.0
/*
 * perf test -w refcnt [clean|buggy|holder] [wait|segv|abort|fail|fork|exec [PROG [ARG...]]]:
 * the ground truth of perf refcnt; the second word says how the run starts
 * or ends.
 *
 * Calls perf's real refcount API (dso, map, maps, thread, nsinfo,
 * perf_cpu_map) in the shapes perf uses: nested get/put, a get in one
 * function and its put in another, a get on one thread and its put on
 * another, objects freed and made again at a reused address, and map__get
 * in its inlined form. "buggy" adds, per type, in functions of their own
 * so that a report can name them:
 *  - refcnt_<type>_leak: a get never put;
 *  - refcnt_<type>_over_release: an extra put while a holder remains; the
 *    holder's put then lands on the freed object (refcount_t refuses the
 *    underflow, so the process survives);
 *  - refcnt_<type>_use_after_put: a get on a freed object (refcount_t
 *    refuses to increment 0).
 * The last two need the refcount out of the 16 bytes malloc reuses in a
 * free chunk: perf_cpu_map keeps it at offset 0, so it has the leak only.
 * "holder" runs the clean shapes, then fills an array with references to
 * dsos (refcnt_holder_fill) that its teardown (refcnt_holder_exit) frees
 * without putting them: a leak no event of the teardown shows; then makes
 * a list of entries that each hold a reference to one dso, which their
 * teardown (refcnt_holder_entry_delete) frees without putting it, by a
 * tail call to free().
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <linux/compiler.h>
#include <linux/list.h>
#include <linux/zalloc.h>
#include <perf/cpumap.h>

#include "../tests.h"
#include "../refcnt-tests.h"
#include "../../util/dso.h"
#include "../../util/map.h"
#include "../../util/maps.h"
#include "../../util/namespaces.h"
#include "../../util/thread.h"

/* a dso for the maps to point to */
static struct dso *refcnt_map_dso;

static struct dso *refcnt_dso_new(void)
{
	return dso__new("[refcnt workload]");
}

static struct map *refcnt_map_new(void)
{
	return map__new2(0x1000, refcnt_map_dso);
}

static struct maps *refcnt_maps_new(void)
{
	return maps__new(NULL);
}

static struct thread *refcnt_thread_new(void)
{
	return thread__new(getpid(), getpid());
}

static struct nsinfo *refcnt_nsinfo_new(void)
{
	return nsinfo__new(getpid());
}

static struct perf_cpu_map *refcnt_cpu_map_new(void)
{
	return perf_cpu_map__new("0");
}

/*
 * The shapes of one type, as functions of their own. A macro makes them
 * for each type so that each has its own name in the report.
 */
#define REFCNT_WORKLOAD_TYPE(name, type, get_fn, put_fn)			\
static inline struct type *refcnt_##name##_get(struct type *obj)		\
{										\
	return get_fn(obj);							\
}										\
										\
static inline void refcnt_##name##_put(struct type *obj)			\
{										\
	put_fn(obj);								\
}										\
										\
static noinline void refcnt_##name##_nested(struct type *obj)			\
{										\
	/* put what get returned: RC_CHK builds return a new pointer */		\
	struct type *outer = refcnt_##name##_get(obj);				\
	struct type *inner = refcnt_##name##_get(obj);				\
										\
	refcnt_##name##_put(inner);						\
	refcnt_##name##_put(outer);						\
}										\
										\
static noinline struct type *refcnt_##name##_take(struct type *obj)		\
{										\
	return refcnt_##name##_get(obj);					\
}										\
										\
static noinline void refcnt_##name##_drop(struct type *obj)			\
{										\
	refcnt_##name##_put(obj);						\
}										\
										\
static void *refcnt_##name##_thread_put(void *obj)				\
{										\
	refcnt_##name##_drop(obj);						\
	return NULL;								\
}										\
										\
static noinline void refcnt_##name##_leak(struct type *obj)			\
{										\
	refcnt_##name##_get(obj);						\
}										\
										\
static noinline void refcnt_##name##_over_release(struct type *obj)		\
{										\
	refcnt_##name##_put(obj);						\
}										\
										\
static noinline void refcnt_##name##_use_after_put(struct type *obj)		\
{										\
	refcnt_##name##_get(obj);						\
}										\
										\
static noinline int refcnt_##name##_clean(void)					\
{										\
	struct type *obj = refcnt_##name##_new(), *again;			\
	pthread_t th;								\
										\
	if (!obj)								\
		return -1;							\
	refcnt_##name##_nested(obj);						\
	refcnt_##name##_drop(refcnt_##name##_take(obj));			\
	/* a get on this thread, its put on another */				\
	if (pthread_create(&th, NULL, refcnt_##name##_thread_put,		\
			   refcnt_##name##_take(obj)) ||			\
	    pthread_join(th, NULL))						\
		return -1;							\
	refcnt_##name##_put(obj);						\
	/* made again, most likely at the address just freed */			\
	again = refcnt_##name##_new();						\
	if (!again)								\
		return -1;							\
	refcnt_##name##_nested(again);						\
	refcnt_##name##_put(again);						\
	return 0;								\
}										\
										\
static noinline int refcnt_##name##_buggy(bool freed_ok)			\
{										\
	struct type *obj = refcnt_##name##_new(), *held;			\
										\
	if (!obj)								\
		return -1;							\
	refcnt_##name##_leak(obj);						\
	refcnt_##name##_put(obj);			/* the leak keeps it alive */ \
	if (!freed_ok)								\
		return 0;							\
										\
	obj = refcnt_##name##_new();						\
	if (!obj)								\
		return -1;							\
	held = refcnt_##name##_take(obj);					\
	refcnt_##name##_over_release(obj);					\
	refcnt_##name##_put(obj);			/* frees it under the holder */ \
	refcnt_##name##_drop(held);	/* the put on a freed object */		\
										\
	obj = refcnt_##name##_new();						\
	if (!obj)								\
		return -1;							\
	refcnt_##name##_put(obj);						\
	refcnt_##name##_use_after_put(obj);					\
	return 0;								\
}

REFCNT_WORKLOAD_TYPE(dso, dso, dso__get, dso__put)
REFCNT_WORKLOAD_TYPE(map, map, map__get, map__put)
REFCNT_WORKLOAD_TYPE(maps, maps, maps__get, maps__put)
REFCNT_WORKLOAD_TYPE(thread, thread, thread__get, thread__put)
REFCNT_WORKLOAD_TYPE(nsinfo, nsinfo, nsinfo__get, nsinfo__put)
REFCNT_WORKLOAD_TYPE(cpu_map, perf_cpu_map, perf_cpu_map__get, perf_cpu_map__put)

#define REFCNT_HOLDER_DSOS	8

/* A holder's array of references, the dsos' creator's dropped. */
static noinline struct dso **refcnt_holder_fill(void)
{
	struct dso **array = calloc(REFCNT_HOLDER_DSOS, sizeof(*array));

	for (int i = 0; array && i < REFCNT_HOLDER_DSOS; i++) {
		struct dso *dso = refcnt_dso_new();

		array[i] = dso__get(dso);
		dso__put(dso);
	}
	return array;
}

/* The holder's teardown: the bug, no dso__put() of each first. */
static noinline void refcnt_holder_exit(struct dso **array)
{
	zfree(&array);
}

#define REFCNT_HOLDER_ENTRIES	4

/* Entries of a list, each holding a reference to one dso. */
struct refcnt_holder_entry {
	struct list_head	node;
	struct dso		*dso;
};

/*
 * An entry's teardown: the bug, no dso__put(). Its last act, free(), is a
 * jump (a tail call): free() returns to the caller's loop.
 */
/* The workload is built without tail calls (Build): this one function has its own. */
__attribute__((optimize("optimize-sibling-calls")))
static noinline void refcnt_holder_entry_delete(struct refcnt_holder_entry *entry)
{
	free(entry);
}

/* A list of entries that all hold one dso, torn down by the entries' teardown. */
static noinline int refcnt_holder_entries(void)
{
	struct dso *dso = refcnt_dso_new();
	struct refcnt_holder_entry *entry, *next;
	LIST_HEAD(list);
	int err = 0;

	for (int i = 0; dso && i < REFCNT_HOLDER_ENTRIES; i++) {
		entry = malloc(sizeof(*entry));
		if (!entry) {
			err = 1;
			break;
		}
		entry->dso = dso__get(dso);
		list_add_tail(&entry->node, &list);
	}
	dso__put(dso);
	list_for_each_entry_safe(entry, next, &list, node) {
		list_del(&entry->node);
		refcnt_holder_entry_delete(entry);
	}
	return err || !dso;
}

static noinline int refcnt_holder(void)
{
	struct dso **array = refcnt_holder_fill();

	if (!array)
		return 1;
	refcnt_holder_exit(array);
	return refcnt_holder_entries();
}

/* the shapes of every type, with the bugs if @buggy */
static int refcnt_run(bool buggy)
{
	int err = 0;

	refcnt_map_dso = refcnt_dso_new();
	if (!refcnt_map_dso)
		return 1;

	err |= refcnt_dso_clean();
	err |= refcnt_map_clean();
	err |= refcnt_maps_clean();
	err |= refcnt_thread_clean();
	err |= refcnt_nsinfo_clean();
	err |= refcnt_cpu_map_clean();

	if (buggy) {
		err |= refcnt_dso_buggy(true);
		err |= refcnt_map_buggy(true);
		err |= refcnt_maps_buggy(true);
		err |= refcnt_thread_buggy(true);
		err |= refcnt_nsinfo_buggy(true);
		err |= refcnt_cpu_map_buggy(false);
	}

	/* as perf's zput: a pointer kept after its put would hold the dso for the scan at exit */
	dso__zput(refcnt_map_dso);
	return err ? 1 : 0;
}

/*
 * How the run ends, for the recorder's sake: it waits for SIGUSR1 first
 * (for -p), dies of SIGSEGV or abort() after it, exits 1 after it (a
 * command that fails: its scan is kept), runs the buggy shapes in a
 * forked child (the parent runs the clean ones), or execs perf to run them;
 * "exec PROG ARG..." runs them, then execs PROG: a report must name what
 * happened before with the image that ran it, not with PROG's.
 */
static const char * const refcnt_ends[] = {
	"wait", "segv", "abort", "fail", "fork", "exec", NULL
};

static int refcnt(int argc, const char **argv)
{
	const char *mode = argc > 0 ? argv[0] : "clean";
	const char *end = argc > 1 ? argv[1] : "";
	bool buggy = !strcmp(mode, "buggy");
	int status, err, i;
	pid_t pid;

	for (i = 0; refcnt_ends[i] && strcmp(end, refcnt_ends[i]); i++)
		;
	/* perf test refcnt's scan child (refcnt-scan.c): not for users */
	if (!strcmp(mode, "scan") && argc == 2)
		return refcnt_scan_child(argv[1]);
	if (!strcmp(mode, "holder") && argc == 1)
		return refcnt_run(false) | refcnt_holder();
	if ((!buggy && strcmp(mode, "clean")) || (argc > 1 && !refcnt_ends[i]) ||
	    (argc > 2 && strcmp(end, "exec"))) {
		fprintf(stderr, "usage: perf test -w %s [clean|buggy|holder] [%s]\n", __func__,
			"wait|segv|abort|fail|fork|exec [PROG [ARG...]]");
		return 1;
	}
	if (!strcmp(end, "wait")) {
		sigset_t set;
		int sig;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		if (sigprocmask(SIG_BLOCK, &set, NULL) || sigwait(&set, &sig))
			return 1;
	} else if (!strcmp(end, "fork")) {
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0)
			_exit(refcnt_run(buggy));
		err = refcnt_run(false);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			return 1;
		return err | WEXITSTATUS(status);
	} else if (!strcmp(end, "exec") && argc > 2) {
		err = refcnt_run(buggy);
		if (err)
			return err;
		execv(argv[2], (char * const *)&argv[2]);
		return 1;
	} else if (!strcmp(end, "exec")) {
		err = refcnt_run(false);
		if (err)
			return err;
		execl("/proc/self/exe", "perf", "test", "-w", "refcnt", mode, NULL);
		return 1;
	}

	err = refcnt_run(buggy);
	if (!strcmp(end, "segv"))
		raise(SIGSEGV);
	else if (!strcmp(end, "abort"))
		abort();
	else if (!strcmp(end, "fail"))
		return 1;
	return err;
}

DEFINE_WORKLOAD(refcnt);
