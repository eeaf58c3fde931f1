// SPDX-License-Identifier: GPL-2.0
/*
 * perf test refcnt: the scan at exit (util/refcnt/scan.c) on a child that
 * makes the heap shapes a multi-threaded perf makes: objects in the main
 * heap and in the arena of another thread, that arena grown past its first
 * heap (which then ends in fenceposts), mmapped chunks side by side (one
 * line of /proc/pid/maps). Every object must be found, and be reachable
 * exactly when a pointer to it is.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <linux/kernel.h>

#include "tests.h"
#include "refcnt-tests.h"
#include "debug.h"
#include "util/refcnt/scan.h"

#define SCAN_OBJECTS	64		/* of each kind, per thread */
#define SCAN_BIG_CHUNK	(100 << 10)	/* from the arena: below the mmap threshold */
#define SCAN_BIG_CHUNKS	800		/* 80 MiB: more than one heap of an arena */
#define SCAN_MMAPPED	0x100000	/* mmapped chunks: 1 MiB */
#define SCAN_MMAPPED_NR	8
#define SCAN_OBJECT_MAGIC 0x7265666373636e00ULL

/* What the scan looks for: 48 bytes, a refcount at 8. */
struct scan_object {
	u64	magic;
	int	refcnt;
	char	pad[36];
};

/* Where the child says what it made: shared, and not scanned (a /dev/zero map). */
struct scan_census {
	u64	kept[2][SCAN_OBJECTS];		/* [thread]: reachable */
	u64	leaked[2][SCAN_OBJECTS];	/* no pointer left to them */
	u64	held[SCAN_OBJECTS];		/* only in a leaked mmapped chunk */
	u64	in_big_chunk[SCAN_OBJECTS];	/* only in an mmapped chunk kept */
	int	ready;
};

static struct scan_census *census;
static void **kept;		/* an mmapped chunk, reachable from here */
static void **big_chunks;
static void **mmapped[SCAN_MMAPPED_NR];

static struct scan_object *scan_object__new(void)
{
	struct scan_object *o = calloc(1, sizeof(*o));

	if (o) {
		o->magic = SCAN_OBJECT_MAGIC;
		o->refcnt = 1;
	}
	return o;
}

/*
 * The stack below the caller's, where a pointer of a function that
 * returned may be left, cleared: it would be scanned again when exit()
 * runs there. Callee-saved registers are the caller's again on return.
 */
static noinline void clear_stack(void)
{
	char below[16384], *p = below;

	memset(p, 0, sizeof(below));
	/* the memset must not go as a store nothing reads */
	OPTIMIZER_HIDE_VAR(p);
	if (*p)
		abort();
}

/* @thread's objects: kept, or with no pointer left. */
static noinline void make_objects(int thread)
{
	for (int i = 0; i < SCAN_OBJECTS; i++) {
		struct scan_object *o = scan_object__new();

		census->leaked[thread][i] = (u64)o;
		o = scan_object__new();
		census->kept[thread][i] = (u64)o;
		kept[thread * SCAN_OBJECTS + i] = o;
	}
}

/* Another thread: its own arena, grown past its first heap. */
static void *arena_thread(void *arg __maybe_unused)
{
	make_objects(1);
	for (int i = 0; i < SCAN_BIG_CHUNKS; i++)
		big_chunks[i] = malloc(SCAN_BIG_CHUNK);
	/* in the arena's last heap too */
	for (int i = 0; i < SCAN_OBJECTS / 2; i++)
		kept[2 * SCAN_OBJECTS + i] = scan_object__new();
	return NULL;
}

/* mmapped chunks one after the other: the first kept, the last not */
static noinline void make_mmapped(void)
{
	for (int i = 0; i < SCAN_MMAPPED_NR; i++)
		mmapped[i] = malloc(SCAN_MMAPPED);
	for (int i = 0; i < SCAN_OBJECTS; i++) {
		census->in_big_chunk[i] = (u64)(mmapped[0][i] = scan_object__new());
		census->held[i] = (u64)(mmapped[SCAN_MMAPPED_NR - 1][i] = scan_object__new());
	}
	kept[3 * SCAN_OBJECTS] = mmapped[0];
	mmapped[SCAN_MMAPPED_NR - 1] = NULL;
}

static void __noreturn scan_child(void)
{
	pthread_t thread;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) || raise(SIGSTOP))
		_exit(1);
	kept = malloc(SCAN_MMAPPED);	/* mmapped */
	big_chunks = calloc(SCAN_BIG_CHUNKS, sizeof(*big_chunks));
	if (!kept || !big_chunks)
		_exit(1);
	make_objects(0);
	clear_stack();
	if (pthread_create(&thread, NULL, arena_thread, NULL) || pthread_join(thread, NULL))
		_exit(1);
	make_mmapped();
	clear_stack();
	census->ready = 1;
	exit(0);
}

static const struct refcnt_scan_object *scan__find(const struct refcnt_scan *scan, u64 addr)
{
	for (u32 i = 0; i < scan->result.nr_objects; i++) {
		if (scan->objects[i].addr == addr)
			return &scan->objects[i];
	}
	return NULL;
}

/* How many of the @nr objects at @addrs the scan found, and how many reachable. */
static void scan__count(const struct refcnt_scan *scan, const u64 *addrs, int nr,
			int *found, int *reachable)
{
	*found = *reachable = 0;
	for (int i = 0; i < nr; i++) {
		const struct refcnt_scan_object *o = scan__find(scan, addrs[i]);

		*found += !!o;
		*reachable += o && o->reachable;
	}
}

/* waitpid(), through signals the harness may take */
static pid_t scan__wait(pid_t pid, int *status)
{
	pid_t ret;

	do {
		ret = waitpid(pid, status, __WALL);
	} while (ret < 0 && errno == EINTR);
	return ret;
}

int test__refcnt_scan_heaps(struct test_suite *test __maybe_unused, int subtest __maybe_unused)
{
	struct refcnt_scan_type types[REFCNT_TYPE__MAX_NR] = {
		[0] = { .size = sizeof(struct scan_object),
			.refcnt_offset = offsetof(struct scan_object, refcnt),
			.nr_offset = -1 },
	};
	struct refcnt_scan scan = { .objects = NULL };
	int status, found, reachable, ret = TEST_FAIL;
	pid_t pid;

	census = mmap(NULL, sizeof(*census), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (census == MAP_FAILED)
		return TEST_FAIL;
	pid = fork();
	if (pid < 0)
		goto out_unmap;
	if (!pid)
		scan_child();

	/* the child's stop, then its exit stop */
	if (scan__wait(pid, &status) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_TRACEEXIT) ||
	    ptrace(PTRACE_CONT, pid, NULL, NULL)) {
		pr_debug("cannot trace the child: %s\n", strerror(errno));
		goto out_kill;
	}
	if (scan__wait(pid, &status) != pid ||
	    status >> 8 != (SIGTRAP | (PTRACE_EVENT_EXIT << 8)) || !census->ready) {
		pr_debug("the child did not stop at its exit: status %#x\n", status);
		goto out_kill;
	}
	if (refcnt_scan__process(&scan, pid, types) ||
	    scan.result.status != REFCNT_SCAN__DONE) {
		pr_debug("scan: %s\n", refcnt_scan_status__name(scan.result.status));
		goto out_kill;
	}
	pr_debug("scan: %" PRIu64 " blocks, %u objects, %" PRIu64 " MiB read\n",
		 scan.result.blocks, scan.result.nr_objects, scan.result.bytes >> 20);

	for (int t = 0; t < 2; t++) {
		scan__count(&scan, census->kept[t], SCAN_OBJECTS, &found, &reachable);
		pr_debug("thread %d kept: %d found, %d reachable\n", t, found, reachable);
		if (found != SCAN_OBJECTS || reachable != SCAN_OBJECTS)
			goto out_kill;
		scan__count(&scan, census->leaked[t], SCAN_OBJECTS, &found, &reachable);
		pr_debug("thread %d leaked: %d found, %d reachable\n", t, found, reachable);
		/* a stale copy of the last pointer may be left in a register */
		if (found != SCAN_OBJECTS || reachable > 1)
			goto out_kill;
	}
	scan__count(&scan, census->in_big_chunk, SCAN_OBJECTS, &found, &reachable);
	pr_debug("in a kept mmapped chunk: %d found, %d reachable\n", found, reachable);
	if (found != SCAN_OBJECTS || reachable != SCAN_OBJECTS)
		goto out_kill;
	scan__count(&scan, census->held, SCAN_OBJECTS, &found, &reachable);
	pr_debug("in a leaked mmapped chunk: %d found, %d reachable\n", found, reachable);
	if (found != SCAN_OBJECTS || reachable > 1)
		goto out_kill;
	ret = TEST_OK;
out_kill:
	refcnt_scan__exit(&scan);
	/* SIGKILL does not end an exit stop: let it go on then */
	kill(pid, SIGKILL);
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	scan__wait(pid, &status);
out_unmap:
	munmap(census, sizeof(*census));
	return ret;
}
