// SPDX-License-Identifier: GPL-2.0
/*
 * perf test refcnt: the scan at exit (util/refcnt/scan.c) on a child that
 * makes the heap shapes a multi-threaded perf makes: objects in the main
 * heap and in the arena of another thread, that arena grown past its first
 * heap (which then ends in fenceposts), mmapped chunks side by side (one
 * line of /proc/pid/maps). Every object must be found, and be reachable
 * exactly when a pointer to it is. The child is perf run afresh (perf
 * test -w refcnt scan): a fork of the test's process would have its heap,
 * where stale words of earlier work may point to the chunks malloc hands
 * the child's objects again. Then the scan of synthetic memory
 * (refcnt_scan__mappings()): a well-formed heap, damaged ones, budgets.
 */
#include <errno.h>
#include <fcntl.h>
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

/* Where the child says what it made: shared, and not scanned (a /dev/shm file). */
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

/* The census the test made at @name, shared; NULL if it cannot be. */
static struct scan_census *scan_census__open(const char *name, int flags)
{
	int fd = shm_open(name, flags, 0600);
	void *p;

	if (fd < 0)
		return NULL;
	p = (flags & O_CREAT) && ftruncate(fd, sizeof(*census)) ? MAP_FAILED :
	    mmap(NULL, sizeof(*census), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

int refcnt_scan_child(const char *name)
{
	pthread_t thread;

	census = scan_census__open(name, O_RDWR);
	if (!census)
		return 1;
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

/* The child: traced, perf afresh making the heaps. */
static void __noreturn scan_child(const char *name)
{
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0)
		execl("/proc/self/exe", "perf", "test", "-w", "refcnt", "scan", name, NULL);
	_exit(1);
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
	char name[64];
	pid_t pid;

	snprintf(name, sizeof(name), "/perf-refcnt-scan-%d", getpid());
	census = scan_census__open(name, O_RDWR | O_CREAT | O_EXCL);
	if (!census) {
		pr_debug("no shared census at /dev/shm%s: %s\n", name, strerror(errno));
		shm_unlink(name);
		return TEST_FAIL;
	}
	pid = fork();
	if (pid < 0)
		goto out_unmap;
	if (!pid)
		scan_child(name);

	/* the child's stop at its exec, then its exit stop */
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
	pr_debug("scan: %" PRIu64 " blocks, %u objects, %" PRIu64 " MiB read, partial %#x\n",
		 scan.result.blocks, scan.result.nr_objects, scan.result.bytes >> 20,
		 scan.result.partial);
	/* a heap of glibc's, whole and undamaged: nothing left out */
	if (scan.result.partial) {
		pr_debug("scan: partial: %u mappings skipped, %u walks failed\n",
			 scan.result.regions_skipped, scan.result.walks_failed);
		goto out_kill;
	}

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
	shm_unlink(name);
	return ret;
}

/*
 * Synthetic memory, for refcnt_scan__mappings(): heaps of hand-made glibc
 * chunks (64-bit: prev_size, size | PREV_INUSE, then the user data; a top
 * chunk to the end), the program's data, a root, and libc's data, where the
 * main arena is. Each is a buffer of its own: a read past one is a read
 * past an allocation, for ASan to catch.
 */
#define SYN_HEAP_SIZE	0x10000			/* whole pages, whatever their size */
#define SYN_ROOM	0x1000			/* of the data and libc mappings */
#define SYN_DATA	0x555555800000ULL	/* the program's data */
#define SYN_HEAP	0x555555a00000ULL	/* [heap] */
#define SYN_ARENA_HEAP	0x7fffe4000000ULL	/* another arena's: HEAP_MAX_SIZE aligned */
#define SYN_LIBC	0x7ffff7e00000ULL
#define SYN_MAIN_ARENA	0x100			/* its offset in libc's data */
#define SYN_FASTBINS	16			/* offsetof(struct malloc_state, fastbinsY) */
#define SYN_TOP		96			/* offsetof(struct malloc_state, top) */
#define SYN_HEAP_INFO	48			/* sizeof(heap_info) */
#define SYN_PREV_INUSE	1ULL
#define SYN_CHUNK	64			/* the chunk of a struct scan_object */
#define SYN_BAD_AT	0x1000			/* how far past the bad header the heap goes on */

struct syn_heap {
	u64	start;		/* where the process has it */
	u64	pos;		/* of its next chunk */
	u64	*mem;		/* SYN_HEAP_SIZE bytes */
};

struct syn {
	struct syn_heap	heap;
	u64		*data, *libc;
	u32		nr_roots;
	struct refcnt_scan scan;
	const struct refcnt_scan_type *types;	/* NULL: syn_types */
};

static const struct refcnt_scan_type syn_types[REFCNT_TYPE__MAX_NR] = {
	[0] = { .size = sizeof(struct scan_object),
		.refcnt_offset = offsetof(struct scan_object, refcnt), .nr_offset = -1 },
};

static u64 *syn_heap__word(struct syn_heap *h, u64 addr)
{
	return &h->mem[(addr - h->start) / 8];
}

/* A chunk of @size bytes next in @h, the one before it in use: its address. */
static u64 syn_heap__chunk(struct syn_heap *h, u64 size)
{
	u64 chunk = h->start + h->pos;

	*syn_heap__word(h, chunk + 8) = size | SYN_PREV_INUSE;
	h->pos += size;
	return chunk;
}

/* A struct scan_object in a chunk of its own: its address, as malloc returns it. */
static u64 syn_heap__object(struct syn_heap *h)
{
	struct scan_object o = { .magic = SCAN_OBJECT_MAGIC, .refcnt = 1 };
	u64 obj = syn_heap__chunk(h, SYN_CHUNK) + 16;

	memcpy(syn_heap__word(h, obj), &o, sizeof(o));
	return obj;
}

/* The top chunk, to the heap's end: its address. */
static u64 syn_heap__top(struct syn_heap *h)
{
	return syn_heap__chunk(h, SYN_HEAP_SIZE - h->pos);
}

/*
 * The header of a chunk of size @size that cannot be: then the heap goes
 * on as if it were not there, and a word of it points to @target.
 */
static void syn_heap__bad(struct syn_heap *h, u64 size, u64 target)
{
	u64 bad = h->start + h->pos;

	*syn_heap__word(h, bad + 8) = size;
	*syn_heap__word(h, bad + 0x40) = target;
	h->pos += SYN_BAD_AT;
}

static void syn__delete(struct syn *syn)
{
	if (!syn)
		return;
	refcnt_scan__exit(&syn->scan);
	free(syn->heap.mem);
	free(syn->data);
	free(syn->libc);
	free(syn);
}

static struct syn *syn__new(void)
{
	struct syn *syn = calloc(1, sizeof(*syn));

	if (!syn)
		return NULL;
	syn->heap.start = SYN_HEAP;
	syn->heap.mem = calloc(1, SYN_HEAP_SIZE);
	syn->data = calloc(1, SYN_ROOM);
	syn->libc = calloc(1, SYN_ROOM);
	if (!syn->heap.mem || !syn->data || !syn->libc) {
		syn__delete(syn);
		return NULL;
	}
	return syn;
}

/* A word of the program's data, a root, that points to @addr. */
static void syn__root(struct syn *syn, u64 addr)
{
	syn->data[syn->nr_roots++] = addr;
}

/* The main arena: its top chunk @top, its first fastbin's first chunk @fastbin. */
static void syn__main_arena(struct syn *syn, u64 top, u64 fastbin)
{
	syn->libc[(SYN_MAIN_ARENA + SYN_TOP) / 8] = top;
	syn->libc[(SYN_MAIN_ARENA + SYN_FASTBINS) / 8] = fastbin;
}

/* Chunk @chunk of a fastbin links to @next (0: the last), mangled as glibc 2.32 on does. */
static void syn__fastbin_link(struct syn *syn, u64 chunk, u64 next)
{
	*syn_heap__word(&syn->heap, chunk + 16) = next ^ ((chunk + 16) >> 12);
}

/* The scan of @syn's data, [heap] and libc, and of the @nr_more mappings @more. */
static int syn__scan(struct syn *syn, const struct refcnt_scan_limits *limits,
		     const struct refcnt_scan_mapping *more, u32 nr_more)
{
	struct refcnt_scan_mapping maps[8] = {
		{ .start = SYN_DATA, .end = SYN_DATA + SYN_ROOM, .name = "/usr/bin/syn",
		  .data = (const u8 *)syn->data },
		{ .start = SYN_HEAP, .end = SYN_HEAP + SYN_HEAP_SIZE, .name = "[heap]",
		  .data = (const u8 *)syn->heap.mem },
		{ .start = SYN_LIBC, .end = SYN_LIBC + SYN_ROOM,
		  .name = "/usr/lib/x86_64-linux-gnu/libc.so.6", .data = (const u8 *)syn->libc },
	};
	const struct refcnt_scan_result *r = &syn->scan.result;
	u32 nr = 3;
	int err;

	for (u32 i = 0; i < nr_more && nr < ARRAY_SIZE(maps); i++)
		maps[nr++] = more[i];
	err = refcnt_scan__mappings(&syn->scan, maps, nr, NULL, 0, 0,
				    syn->types ?: syn_types, limits);
	pr_debug("scan: %d, %s, partial %#x, %u read, %u skipped (%" PRIu64
		 " bytes), %u walks failed, %" PRIu64 " blocks, %u objects, %" PRIu64 " ns\n", err,
		 refcnt_scan_status__name(r->status), r->partial, r->regions_read,
		 r->regions_skipped, r->bytes_skipped, r->walks_failed, r->blocks, r->nr_objects,
		 r->ns);
	return err;
}

/* Is the object at @addr found, and if so, reachable as @reachable says? */
static bool syn__object_is(const struct syn *syn, u64 addr, bool found, bool reachable)
{
	const struct refcnt_scan_object *o = scan__find(&syn->scan, addr);

	if (!o || !found)
		return !o == !found;
	return !!o->reachable == reachable;
}

/*
 * Four objects, a chunk, then a header of size @bad, the heap going on past
 * it; the first two objects pointed to by the program's data, the third
 * only from past the bad header. The walk must stop there, keep the objects
 * before (not the chunk just before, whose in-use bit the bad header
 * holds), take the rest of the heap as a root and say so.
 */
static int syn__damaged(struct syn *syn, u64 bad)
{
	const struct refcnt_scan_result *r = &syn->scan.result;
	u32 partial = REFCNT_SCAN_PARTIAL__CORRUPT | REFCNT_SCAN_PARTIAL__HEAP_WALK;
	struct syn_heap *h = &syn->heap;
	u64 obj[4], after;

	for (int i = 0; i < 4; i++)
		obj[i] = syn_heap__object(h);
	syn_heap__chunk(h, 32);
	syn_heap__bad(h, bad, obj[2]);
	after = syn_heap__object(h);
	syn_heap__top(h);
	syn__root(syn, obj[0]);
	syn__root(syn, obj[1]);

	TEST_ASSERT_VAL("scan", !syn__scan(syn, NULL, NULL, 0));
	TEST_ASSERT_VAL("done", r->status == REFCNT_SCAN__DONE);
	TEST_ASSERT_VAL("said damaged", r->partial == partial && r->walks_failed == 1);
	TEST_ASSERT_VAL("objects before", r->nr_objects == 4);
	TEST_ASSERT_VAL("pointed to by data", syn__object_is(syn, obj[0], true, true) &&
			syn__object_is(syn, obj[1], true, true));
	TEST_ASSERT_VAL("pointed to from the rest", syn__object_is(syn, obj[2], true, true));
	TEST_ASSERT_VAL("unreachable", syn__object_is(syn, obj[3], true, false));
	TEST_ASSERT_VAL("the rest is no blocks", syn__object_is(syn, after, false, false));
	return TEST_OK;
}

static int syn__damaged_heap(u64 bad)
{
	struct syn *syn = syn__new();
	int ret;

	if (!syn)
		return TEST_FAIL;
	pr_debug("a chunk size of %#" PRIx64 "\n", bad);
	ret = syn__damaged(syn, bad);
	syn__delete(syn);
	return ret;
}

int test__refcnt_scan_past_region(struct test_suite *test __maybe_unused,
				  int subtest __maybe_unused)
{
	/* past the heap's end, and more: from the bad header, exactly past it */
	if (syn__damaged_heap(2 * SYN_HEAP_SIZE | SYN_PREV_INUSE) != TEST_OK)
		return TEST_FAIL;
	return syn__damaged_heap((SYN_HEAP_SIZE - 4 * SYN_CHUNK - 32 + 16) |
					 SYN_PREV_INUSE);
}

int test__refcnt_scan_bad_size(struct test_suite *test __maybe_unused,
			       int subtest __maybe_unused)
{
	/* 0 with more heap after it (not its end), below a chunk's least, not aligned */
	if (syn__damaged_heap(0) != TEST_OK ||
	    syn__damaged_heap(16 | SYN_PREV_INUSE) != TEST_OK)
		return TEST_FAIL;
	return syn__damaged_heap(0x48 | SYN_PREV_INUSE);
}

int test__refcnt_scan_negative_size(struct test_suite *test __maybe_unused,
				    int subtest __maybe_unused)
{
	/* -0x40 would step back to the chunk before, ~0 wrap past 2^64 */
	if (syn__damaged_heap(-0x40ULL) != TEST_OK ||
	    syn__damaged_heap(-0x40ULL | SYN_PREV_INUSE) != TEST_OK)
		return TEST_FAIL;
	return syn__damaged_heap(~0ULL);
}

/*
 * Six objects @obj, the even ones pointed to by the program's data, the
 * fourth by the second only (held by that leaked object), the fifth by the
 * sixth too (a leaked object holds one of its references); the first and
 * the sixth point to the second and the fourth from past their struct, in
 * their chunk's slack, which is not scanned (LSan scans what was asked of
 * malloc), and the first and the fourth to themselves, which is no
 * reference, so that changes none of that; then two chunks
 * @a and @b that look like objects, on the main arena's first fastbin, the
 * second the last or, if @cycle, linking back to the first.
 */
static void syn__fastbin_heap(struct syn *syn, u64 *obj, u64 *a, u64 *b, bool cycle)
{
	struct syn_heap *h = &syn->heap;
	u64 top;

	for (int i = 0; i < 6; i++)
		obj[i] = syn_heap__object(h);
	*a = syn_heap__object(h) - 16;
	*b = syn_heap__object(h) - 16;
	top = syn_heap__top(h);
	syn__fastbin_link(syn, *a, *b);
	syn__fastbin_link(syn, *b, cycle ? *a : 0);
	syn__main_arena(syn, top, *a);
	for (int i = 0; i < 6; i += 2)
		syn__root(syn, obj[i]);
	*syn_heap__word(h, obj[1] + 16) = obj[3];	/* in its pad */
	*syn_heap__word(h, obj[5] + 16) = obj[4];	/* a leak holds a reachable one */
	/* to their own start (an empty list): no reference */
	*syn_heap__word(h, obj[0] + 24) = obj[0];
	*syn_heap__word(h, obj[3] + 24) = obj[3];
	/* past the struct, in its chunk: stale, what the chunk's last user left */
	*syn_heap__word(h, obj[0] + sizeof(struct scan_object)) = obj[1];
	*syn_heap__word(h, obj[5] + sizeof(struct scan_object)) = obj[3];
	/*
	 * freed memory, in a fastbin's chunk and in the top: what a block
	 * freed with a leak's address in it left (obj[1]'s, obj[5]'s), and a
	 * stale pointer to obj[0], whose reference the root's word accounts for
	 */
	*syn_heap__word(h, *a + 24) = obj[1];
	*syn_heap__word(h, *b + 24) = obj[0];
	*syn_heap__word(h, top + 0x100) = obj[5];
}

/* The words syn__fastbin_heap() left in freed memory: the leaks' only. */
static bool syn__freed_words(const struct syn *syn, const u64 *obj, u64 a)
{
	const struct refcnt_scan_freed *f = syn->scan.freed;
	u64 top = syn->libc[(SYN_MAIN_ARENA + SYN_TOP) / 8];

	return syn->scan.result.nr_freed == 2 && f[0].addr == obj[1] && f[0].word == a + 24 &&
	       f[1].addr == obj[5] && f[1].word == top + 0x100;
}

static int syn__well_formed(struct syn *syn)
{
	const struct refcnt_scan_result *r = &syn->scan.result;
	const struct refcnt_scan_object *o;
	u64 obj[6], a, b;

	syn__fastbin_heap(syn, obj, &a, &b, false);
	TEST_ASSERT_VAL("scan", !syn__scan(syn, NULL, NULL, 0));
	TEST_ASSERT_VAL("done", r->status == REFCNT_SCAN__DONE);
	TEST_ASSERT_VAL("whole", !r->partial && !r->walks_failed && !r->regions_skipped);
	TEST_ASSERT_VAL("read", r->regions_read == 3 && r->bytes == SYN_HEAP_SIZE + 2 * SYN_ROOM);
	TEST_ASSERT_VAL("objects", r->nr_objects == 6);
	for (int i = 0; i < 6; i++) {
		o = scan__find(&syn->scan, obj[i]);
		TEST_ASSERT_VAL("found", o);
		TEST_ASSERT_VAL("reachable when pointed to", !!o->reachable == !(i & 1));
		TEST_ASSERT_VAL("a word each", o->words == !(i & 1));
	}
	o = scan__find(&syn->scan, obj[3]);
	TEST_ASSERT_VAL("held by a leak", o->holder == obj[1] && o->held_words == 1);
	o = scan__find(&syn->scan, obj[4]);
	TEST_ASSERT_VAL("a reference held by a leak", o->reachable && o->words == 1 &&
			o->holder == obj[5] && o->held_words == 1);
	for (int i = 0; i < 6; i++) {
		o = scan__find(&syn->scan, obj[i]);
		TEST_ASSERT_VAL("no leak holds the others", i == 3 || i == 4 ||
				(!o->holder && !o->held_words));
	}
	TEST_ASSERT_VAL("free, on a fastbin", !scan__find(&syn->scan, a + 16) &&
			!scan__find(&syn->scan, b + 16));
	TEST_ASSERT_VAL("leaks' words in freed memory", syn__freed_words(syn, obj, a));
	return TEST_OK;
}

int test__refcnt_scan_well_formed(struct test_suite *test __maybe_unused,
				  int subtest __maybe_unused)
{
	struct syn *syn = syn__new();
	int ret;

	if (!syn)
		return TEST_FAIL;
	ret = syn__well_formed(syn);
	syn__delete(syn);
	return ret;
}

/*
 * A fastbin list that comes back to its first chunk, and one whose second
 * link goes to no chunk: each walk ends, says the heap is damaged, and the
 * chunks it went through are free. The heap itself walks whole.
 */
static int syn__fastbin_damaged(struct syn *syn, bool cycle)
{
	const struct refcnt_scan_result *r = &syn->scan.result;
	u64 obj[6], a, b;

	syn__fastbin_heap(syn, obj, &a, &b, cycle);
	if (!cycle)	/* somewhere in the heap, but no chunk's start */
		syn__fastbin_link(syn, b, obj[0] + 8);
	TEST_ASSERT_VAL("scan", !syn__scan(syn, NULL, NULL, 0));
	TEST_ASSERT_VAL("done", r->status == REFCNT_SCAN__DONE);
	TEST_ASSERT_VAL("said damaged", r->partial == REFCNT_SCAN_PARTIAL__CORRUPT);
	TEST_ASSERT_VAL("the heap walks", !r->walks_failed);
	TEST_ASSERT_VAL("objects", r->nr_objects == 6);
	for (int i = 0; i < 6; i++)
		TEST_ASSERT_VAL("found", syn__object_is(syn, obj[i], true, !(i & 1)));
	TEST_ASSERT_VAL("free, on a fastbin", !scan__find(&syn->scan, a + 16) &&
			!scan__find(&syn->scan, b + 16));
	TEST_ASSERT_VAL("leaks' words in freed memory", syn__freed_words(syn, obj, a));
	return TEST_OK;
}

int test__refcnt_scan_fastbin_cycle(struct test_suite *test __maybe_unused,
				    int subtest __maybe_unused)
{
	int ret = TEST_FAIL;

	for (int cycle = 1; cycle >= 0; cycle--) {
		struct syn *syn = syn__new();

		if (!syn)
			return TEST_FAIL;
		pr_debug("%s\n", cycle ? "a cycle" : "a link to no chunk");
		ret = syn__fastbin_damaged(syn, cycle);
		syn__delete(syn);
		if (ret != TEST_OK)
			break;
	}
	return ret;
}

/* A [heap] of @size bytes of 32-byte chunks, then the top: a long walk. */
static u64 *syn__long_heap(u64 size)
{
	u64 *mem = calloc(1, size);

	if (!mem)
		return NULL;
	for (u64 off = 0; off + 64 < size; off += 32)
		mem[off / 8 + 1] = 32 | SYN_PREV_INUSE;
	mem[(size - 64) / 8 + 1] = 64 | SYN_PREV_INUSE;
	return mem;
}

/*
 * Out of time: with 1 ns, at its first look at the clock; with 1 ms, in a
 * walk of a million chunks. Either way the scan ends soon after, done, and
 * says so; the heap not walked is a root.
 */
static int syn__out_of_time(struct syn *syn, u64 ns, u64 *mem, u64 size)
{
	const struct refcnt_scan_limits limits = { .ns = ns };
	const struct refcnt_scan_result *r = &syn->scan.result;
	const struct refcnt_scan_mapping big = {
		.start = SYN_ARENA_HEAP - size, .end = SYN_ARENA_HEAP, .name = "[heap]",
		.data = (const u8 *)mem,
	};

	for (int i = 0; i < 4; i++)
		syn__root(syn, syn_heap__object(&syn->heap));
	syn_heap__top(&syn->heap);
	TEST_ASSERT_VAL("scan", !syn__scan(syn, &limits, &big, mem ? 1 : 0));
	TEST_ASSERT_VAL("done", r->status == REFCNT_SCAN__DONE);
	TEST_ASSERT_VAL("said out of time", r->partial & REFCNT_SCAN_PARTIAL__BUDGET);
	TEST_ASSERT_VAL("a heap left a root", r->partial & REFCNT_SCAN_PARTIAL__HEAP_WALK);
	TEST_ASSERT_VAL("not damage", !(r->partial & REFCNT_SCAN_PARTIAL__CORRUPT) &&
			!r->walks_failed);
	/* what follows the walk takes time in proportion to what it walked */
	TEST_ASSERT_VAL("soon", r->ns < ns + 2000000000ULL);
	return TEST_OK;
}

int test__refcnt_scan_out_of_time(struct test_suite *test __maybe_unused,
				  int subtest __maybe_unused)
{
	const u64 size = 32 << 20;
	struct syn *syn = syn__new();
	u64 *mem = syn__long_heap(size);
	int ret = TEST_FAIL;

	if (syn && mem)
		ret = syn__out_of_time(syn, 1, NULL, 0);
	syn__delete(syn);
	syn = syn__new();
	if (syn && mem && ret == TEST_OK)
		ret = syn__out_of_time(syn, 1000000, mem, size);
	syn__delete(syn);
	free(mem);
	return ret;
}

/*
 * What the scan could not cover is said: a mapping that could not be read,
 * one past the memory budget; perf's ring buffer is not memory to cover.
 */
static int syn__coverage(struct syn *syn, const u8 *big)
{
	const struct refcnt_scan_limits limits = { .bytes = SYN_HEAP_SIZE + 2 * SYN_ROOM };
	const struct refcnt_scan_result *r = &syn->scan.result;
	const struct refcnt_scan_mapping more[] = {
		{ .start = SYN_HEAP + SYN_HEAP_SIZE, .end = SYN_HEAP + 2 * SYN_HEAP_SIZE,
		  .name = "", .data = NULL },
		{ .start = SYN_LIBC - 0x100000, .end = SYN_LIBC - 0x100000 + SYN_HEAP_SIZE,
		  .name = "anon_inode:[perf_event]", .data = big },
		{ .start = SYN_LIBC + SYN_ROOM, .end = SYN_LIBC + SYN_ROOM + SYN_HEAP_SIZE,
		  .name = "", .data = big },
	};
	u64 obj[2];

	for (int i = 0; i < 2; i++)
		obj[i] = syn_heap__object(&syn->heap);
	syn_heap__top(&syn->heap);
	syn__root(syn, obj[0]);
	TEST_ASSERT_VAL("scan", !syn__scan(syn, &limits, more, ARRAY_SIZE(more)));
	TEST_ASSERT_VAL("done", r->status == REFCNT_SCAN__DONE);
	TEST_ASSERT_VAL("said", r->partial == (REFCNT_SCAN_PARTIAL__UNREADABLE |
					       REFCNT_SCAN_PARTIAL__BUDGET));
	TEST_ASSERT_VAL("read", r->regions_read == 3 && r->bytes == limits.bytes);
	TEST_ASSERT_VAL("skipped", r->regions_skipped == 2 &&
			r->bytes_skipped == 2 * SYN_HEAP_SIZE);
	TEST_ASSERT_VAL("objects", syn__object_is(syn, obj[0], true, true) &&
			syn__object_is(syn, obj[1], true, false));
	return TEST_OK;
}

int test__refcnt_scan_coverage(struct test_suite *test __maybe_unused,
			       int subtest __maybe_unused)
{
	struct syn *syn = syn__new();
	u8 *big = calloc(1, SYN_HEAP_SIZE);
	int ret = TEST_FAIL;

	if (syn && big)
		ret = syn__coverage(syn, big);
	syn__delete(syn);
	free(big);
	return ret;
}

/*
 * Another arena's heap, not its first (heap_info, then chunks): ten
 * objects, the even ones pointed to, a chunk, a bad header. The blocks
 * before it are kept, the rest of the heap is a root.
 */
static int syn__damaged_arena(struct syn *syn, struct syn_heap *h)
{
	const struct refcnt_scan_result *r = &syn->scan.result;
	const struct refcnt_scan_mapping arena = {
		.start = h->start, .end = h->start + SYN_HEAP_SIZE, .name = "",
		.data = (const u8 *)h->mem,
	};
	u64 obj[10], after;

	/* ar_ptr: its arena, in its first heap; prev; size; mprotect_size */
	h->mem[0] = h->start - 0x4000000 + SYN_HEAP_INFO;
	h->mem[2] = SYN_HEAP_SIZE;
	h->mem[3] = SYN_HEAP_SIZE;
	h->pos = SYN_HEAP_INFO;
	for (int i = 0; i < 10; i++)
		obj[i] = syn_heap__object(h);
	syn_heap__chunk(h, 32);
	syn_heap__bad(h, -0x40ULL, 0);
	after = syn_heap__object(h);
	syn_heap__top(h);
	syn_heap__top(&syn->heap);	/* the main heap: nothing but its top */
	for (int i = 0; i < 10; i += 2)
		syn__root(syn, obj[i]);

	TEST_ASSERT_VAL("scan", !syn__scan(syn, NULL, &arena, 1));
	TEST_ASSERT_VAL("done", r->status == REFCNT_SCAN__DONE);
	TEST_ASSERT_VAL("said damaged", r->partial == (REFCNT_SCAN_PARTIAL__CORRUPT |
						       REFCNT_SCAN_PARTIAL__HEAP_WALK) &&
					r->walks_failed == 1);
	TEST_ASSERT_VAL("objects before", r->nr_objects == 10);
	for (int i = 0; i < 10; i++)
		TEST_ASSERT_VAL("found", syn__object_is(syn, obj[i], true, !(i & 1)));
	TEST_ASSERT_VAL("the rest is no blocks", syn__object_is(syn, after, false, false));
	return TEST_OK;
}

int test__refcnt_scan_damaged_arena(struct test_suite *test __maybe_unused,
				    int subtest __maybe_unused)
{
	struct syn_heap arena = { .start = SYN_ARENA_HEAP, .mem = calloc(1, SYN_HEAP_SIZE) };
	struct syn *syn = syn__new();
	int ret = TEST_FAIL;

	if (syn && arena.mem)
		ret = syn__damaged_arena(syn, &arena);
	syn__delete(syn);
	free(arena.mem);
	return ret;
}

/*
 * A holder that keeps two arrays of pointers, of @alloc elements each, of
 * which @nr are in use (as struct maps keeps its maps by address and by
 * name): 96 bytes, a size no struct scan_object's chunk fits.
 */
struct scan_holder {
	u64	magic;
	int	refcnt;
	u32	nr, alloc, unused;
	u64	by_address, by_name;
	char	pad[56];
};

#define SYN_ARRAY_ALLOC	6	/* elements: a chunk of 64 bytes */

static const struct refcnt_scan_type syn_holder_types[REFCNT_TYPE__MAX_NR] = {
	[0] = { .size = sizeof(struct scan_object),
		.refcnt_offset = offsetof(struct scan_object, refcnt), .nr_offset = -1 },
	[1] = { .size = sizeof(struct scan_holder),
		.refcnt_offset = offsetof(struct scan_holder, refcnt), .nr_offset = -1,
		.nr_arrays = 2,
		.array_offset = { offsetof(struct scan_holder, by_address),
				  offsetof(struct scan_holder, by_name) },
		.array_nr_offset = offsetof(struct scan_holder, nr),
		.array_alloc_offset = offsetof(struct scan_holder, alloc) },
};

/* A scan_holder of @nr elements in use, its arrays @by_address, @by_name. */
static u64 syn_heap__holder(struct syn_heap *h, u32 nr, u64 by_address, u64 by_name)
{
	struct scan_holder o = { .magic = SCAN_OBJECT_MAGIC, .refcnt = 1, .nr = nr,
				 .alloc = SYN_ARRAY_ALLOC,
				 .by_address = by_address, .by_name = by_name };
	u64 obj = syn_heap__chunk(h, 112) + 16;

	memcpy(syn_heap__word(h, obj), &o, sizeof(o));
	return obj;
}

/* An array of @nr words @elems, in a chunk of SYN_ARRAY_ALLOC: its address. */
static u64 syn_heap__array(struct syn_heap *h, const u64 *elems, int nr)
{
	u64 arr = syn_heap__chunk(h, 64) + 16;

	for (int i = 0; i < nr && i < SYN_ARRAY_ALLOC; i++)
		*syn_heap__word(h, arr + 8 * i) = elems[i];
	return arr;
}

/*
 * Objects A, B, C and four holders, all roots. The first has 2 elements
 * in use, by address [A, B, B] and by name [B, A, C]: the last slot of
 * each is stale, what a removal left (B's, C's only pointer). The second's
 * length is past its allocation, garbage: its [A, A] is scanned whole. The
 * third's one element is [A, 5, C]: the 5 makes the array look like an
 * object, whose stale words its holder still leaves out. The fourth says
 * its arrays have room for 20, more than their chunks: no arrays of its,
 * its [A, A] scanned whole, and its pointer into the middle of a block.
 */
static int syn__arrays(struct syn *syn)
{
	struct syn_heap *h = &syn->heap;
	const struct refcnt_scan_object *o;
	u64 obj[3], holder[4];

	for (int i = 0; i < 3; i++)
		obj[i] = syn_heap__object(h);
	holder[0] = syn_heap__holder(h, 2,
				     syn_heap__array(h, (u64[]){ obj[0], obj[1], obj[1] }, 3),
				     syn_heap__array(h, (u64[]){ obj[1], obj[0], obj[2] }, 3));
	holder[1] = syn_heap__holder(h, SYN_ARRAY_ALLOC + 1,
				     syn_heap__array(h, (u64[]){ obj[0], obj[0] }, 2), 0);
	holder[2] = syn_heap__holder(h, 1, syn_heap__array(h, (u64[]){ obj[0], 5, obj[2] }, 3),
				     0);
	holder[3] = syn_heap__holder(h, 1, syn_heap__array(h, (u64[]){ obj[0], obj[0] }, 2),
				     obj[1] + 8);
	/* room for 20: a chunk of 176 bytes, not the array's 64 */
	((struct scan_holder *)syn_heap__word(h, holder[3]))->alloc = 20;
	syn_heap__top(h);
	for (int i = 0; i < 4; i++)
		syn__root(syn, holder[i]);
	syn->types = syn_holder_types;

	TEST_ASSERT_VAL("scan", !syn__scan(syn, NULL, NULL, 0));
	TEST_ASSERT_VAL("done, whole", syn->scan.result.status == REFCNT_SCAN__DONE &&
			!syn->scan.result.partial);
	TEST_ASSERT_VAL("objects, one an array", syn->scan.result.nr_objects == 8);
	o = scan__find(&syn->scan, obj[0]);
	TEST_ASSERT_VAL("A: in use in three arrays, whole in two", o && o->reachable &&
			o->words == 7);
	o = scan__find(&syn->scan, obj[1]);
	TEST_ASSERT_VAL("B: in use in two, stale in one", o && o->reachable && o->words == 2);
	o = scan__find(&syn->scan, obj[2]);
	TEST_ASSERT_VAL("C: only stale", o && !o->reachable && !o->words);
	o = scan__find(&syn->scan, holder[0]);
	TEST_ASSERT_VAL("the holder", o && o->reachable && o->words == 1);
	return TEST_OK;
}

int test__refcnt_scan_arrays(struct test_suite *test __maybe_unused, int subtest __maybe_unused)
{
	struct syn *syn = syn__new();
	int ret;

	if (!syn)
		return TEST_FAIL;
	ret = syn__arrays(syn);
	syn__delete(syn);
	return ret;
}
