// SPDX-License-Identifier: GPL-2.0
/*
 * A conservative scan of a stopped process's memory at its exit: see
 * scan.h. perf has no heap walker or reachability scan of another process;
 * this one knows glibc 2.3x malloc's chunk layout on 64-bit machines.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <elf.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/zalloc.h>

#include "scan.h"

/* glibc malloc, 64-bit */
#define CHUNK_HDR		16		/* prev_size, size: user data after */
#define CHUNK_MIN		REFCNT_CHUNK_MIN
#define CHUNK_ALIGN		16
#define PREV_INUSE		1ULL
#define IS_MMAPPED		2ULL
#define CHUNK_FLAGS		REFCNT_CHUNK_FLAGS
#define HEAP_MAX_SIZE		(64ULL << 20)	/* a non-main arena's heap, aligned so */
#define HEAP_INFO_SIZE		48		/* struct _heap_info */
#define HEAP_INFO_SIZE_OLD	32		/* before glibc 2.35 */
#define ARENA_SIZE_MIN		2048		/* struct malloc_state, about 2200 */
#define ARENA_SIZE_MAX		2560
#define ARENA_TOP		96		/* offsetof(struct malloc_state, top) */
#define ARENA_FASTBINS		16		/* offsetof(..., fastbinsY) */
#define NFASTBINS		10
#define FASTBIN_CHUNK_MAX	176		/* MAX_FAST_SIZE's chunk on 64-bit */
#define TCACHE_STRUCT_SIZE	0x290		/* tcache_perthread_struct's chunk */
#define TCACHE_BINS		64
#define REFCNT_PLAUSIBLE	0x1000000	/* a refcount above is no refcount */
#define REFCNT_FLEX_MAX		0x10000		/* elements of a flexible array, at most */
#define REFCNT_FLEX_SLACK	(PATH_MAX + 64)	/* a dso's name */
#define FREE_LIST_MAX		100000		/* steps of one free list, at most */
#define ARENA_TRUST_CHUNKS	8		/* a damaged arena's walk: from a start so deep */
/* elements of an array: counts are u32, and the stack of blocks holds one more */
#define SCAN_ARRAY_MAX		0x80000000U
#define SCAN_CLOCK_STEPS	4096		/* of a loop between two looks at the clock */
#define SCAN_READ_PIECE		(256ULL << 20)	/* the time budget is looked at between */

enum region_kind {
	REGION__ROOT,
	REGION__HEAP,		/* the main arena's [heap] */
	REGION__ARENA,		/* a heap of another arena */
	REGION__MMAPPED,	/* one mmapped chunk */
};

struct region {
	u64		start, end;
	const u8	*data;		/* its memory, read */
	u64		heap_end;	/* of its chunks: a heap's in-use part */
	enum region_kind kind;
	bool		stack;		/* [stack]: scanned from the stack pointer up */
	bool		libc;		/* libc's data: the main arena is there */
};

struct block {
	u64		addr;		/* user data: the chunk + CHUNK_HDR */
	u64		end;		/* of user data: into the next chunk's
					 * prev_size, which an in-use chunk uses
					 */
	const u8	*data;		/* its copy */
	/*
	 * Of an object's block, the bytes its objects span (what was asked
	 * of malloc), 0: all. Only those are scanned, as LSan scans what was
	 * asked: the rest of the chunk is stale, what its last user left. Of
	 * an array an object keeps, its elements in use (scanner__bound_arrays()).
	 */
	u32		used;
	bool		bounded;	/* @used bounds it even when 0: an array */
	u32		first_object;	/* index + 1 in the objects found, 0: none */
	u8		nr_objects;
	u8		reached;	/* enum refcnt_scan_reach */
	bool		indirect;	/* unreachable, pointed to by another unreachable block */
	bool		visited;	/* by the pass from unreachable objects */
	bool		free;
};

struct scanner {
	pid_t		pid;
	struct region	*regions;
	u32		nr_regions;
	struct block	*blocks;
	u32		nr_blocks, alloc_blocks;
	u32		*stack;		/* of blocks to scan */
	u32		nr_stack;
	struct refcnt_scan_object *objects;
	u32		nr_objects, alloc_objects;
	struct refcnt_scan_freed *freed;
	u32		nr_freed, alloc_freed;
	const struct refcnt_scan_type *types;
	struct refcnt_scan_result *result;
	u8		reach;		/* what the roots scanned now are */
	u64		page;		/* the page size */
	u64		deadline;	/* of the time budget, CLOCK_MONOTONIC ns */
	u64		max_bytes;	/* the memory budget */
	u64		copied;		/* of it, by scanner__read_maps() */
	u32		ticks;		/* scanner__timed_out()'s calls */
	bool		timed_out;
};

static const char * const status_names[REFCNT_SCAN__MAX] = {
	[REFCNT_SCAN__DONE]		= "done",
	[REFCNT_SCAN__NOT_RUN]		= "not run (--no-scan)",
	[REFCNT_SCAN__NOT_STOPPED]	= "the process could not be stopped at its exit",
	[REFCNT_SCAN__DETACHED]		= "the recording ended before the process did",
	[REFCNT_SCAN__NO_HEAP]		= "no glibc malloc heap found",
	[REFCNT_SCAN__FAILED]		= "its memory could not be read",
};

const char *refcnt_scan_status__name(enum refcnt_scan_status status)
{
	return (unsigned int)status < REFCNT_SCAN__MAX ? status_names[status] : "unknown";
}

static const char * const partial_names[] = {
	"a mapping could not be read",
	"a heap could not be walked",
	"a heap is damaged",
	"out of time or memory",
	"the scanner ran out of memory",
};

const char *refcnt_scan_partial__names(u32 partial)
{
	static char buf[256];
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < ARRAY_SIZE(partial_names) && len < sizeof(buf); i++) {
		if (partial & (1U << i))
			len += scnprintf(buf + len, sizeof(buf) - len, "%s%s", len ? ", " : "",
					 partial_names[i]);
	}
	if (partial & ~(REFCNT_SCAN_PARTIAL__MAX - 1))
		scnprintf(buf + len, sizeof(buf) - len, "%sunknown reasons", len ? ", " : "");
	return buf;
}

static u64 word(const u8 *p)
{
	u64 w;

	memcpy(&w, p, sizeof(w));
	return w;
}

static u64 scan__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/*
 * Is the time budget spent? Once it is, it stays so, and the scan says it
 * did not cover everything (REFCNT_SCAN_PARTIAL__BUDGET).
 */
static bool scanner__clock(struct scanner *s)
{
	if (!s->timed_out && scan__now() >= s->deadline) {
		s->timed_out = true;
		s->result->partial |= REFCNT_SCAN_PARTIAL__BUDGET;
	}
	return s->timed_out;
}

/* The same in a loop whose step costs less than reading the clock. */
static bool scanner__timed_out(struct scanner *s)
{
	if (s->ticks++ % SCAN_CLOCK_STEPS)
		return s->timed_out;
	return scanner__clock(s);
}

/* @len bytes of a mapping left out, and why (enum refcnt_scan_partial). */
static void scanner__skip(struct scanner *s, u64 len, u32 why)
{
	s->result->regions_skipped++;
	s->result->bytes_skipped += len;
	s->result->partial |= why;
}

/* The region that holds the word at @addr (a word of the process: any value). */
static struct region *scanner__region(struct scanner *s, u64 addr)
{
	for (u32 i = 0; i < s->nr_regions; i++) {
		const struct region *r = &s->regions[i];

		if (addr >= r->start && addr < r->end && r->end - addr >= 8)
			return &s->regions[i];
	}
	return NULL;
}

/* The word at @addr of the copies, or false if none holds it. */
static bool scanner__read(struct scanner *s, u64 addr, u64 *w)
{
	struct region *r = scanner__region(s, addr);

	if (!r)
		return false;
	*w = word(r->data + (addr - r->start));
	return true;
}

/* Room for one more region, zeroed; NULL when out of memory. */
static struct region *scanner__new_region(struct scanner *s)
{
	struct region *r = reallocarray(s->regions, s->nr_regions + 1, sizeof(*r));

	if (!r)
		return NULL;
	s->regions = r;
	r += s->nr_regions++;
	memset(r, 0, sizeof(*r));
	return r;
}

/*
 * The length of the heap of a non-main arena whose heap_info is at @p, at
 * @addr, with @room bytes of the mapping from there; 0 if none is there.
 * heap_info: ar_ptr, prev, size (in use), mprotect_size (read-write).
 */
static u64 scanner__heap_len(const struct scanner *s, const u8 *p, u64 addr, u64 room)
{
	u64 size, rw;

	if (addr & (HEAP_MAX_SIZE - 1) || room < HEAP_INFO_SIZE || !word(p))
		return 0;
	size = word(p + 16);
	rw = word(p + 24);
	if (rw % s->page || rw > room || size > rw || size < HEAP_INFO_SIZE + CHUNK_MIN)
		return 0;
	return rw;
}

/*
 * The length of the mmapped chunk at @addr, the start of its mapping (its
 * header: prev_size 0, a size of whole pages with IS_MMAPPED alone), with
 * @room bytes of the mapping from there; 0 if none is there.
 */
static u64 scanner__mmapped_len(const struct scanner *s, const u8 *p, u64 room)
{
	u64 size;

	if (room < CHUNK_MIN || word(p) || (word(p + 8) & CHUNK_FLAGS) != IS_MMAPPED)
		return 0;
	size = word(p + 8) & ~CHUNK_FLAGS;
	if (!size || size % s->page || size > room)
		return 0;
	return size;
}

/*
 * [@start, @end) of mapping @m, of @kind, in @m's memory. @m must not be
 * one of the regions: they move.
 */
static struct region *scanner__sub(struct scanner *s, const struct region *m, u64 start, u64 end,
				   enum region_kind kind)
{
	struct region *sub = scanner__new_region(s);

	if (!sub)
		return NULL;
	*sub = *m;
	sub->start = start;
	sub->end = end;
	sub->heap_end = end;
	sub->data = m->data + (start - m->start);
	sub->kind = kind;
	return sub;
}

/*
 * An anonymous mapping @m: the kernel merges adjacent ones into one line
 * of /proc/pid/maps, so it may hold, one after the other, heaps of arenas
 * (at HEAP_MAX_SIZE boundaries), mmapped chunks (at page boundaries) and
 * other memory, roots.
 */
static int scanner__split(struct scanner *s, const struct region *m)
{
	u64 pos = m->start, root = m->start;

	/* out of time, the rest is a root: that hides leaks, never makes one */
	while (pos < m->end && !scanner__timed_out(s)) {
		const u8 *p = m->data + (pos - m->start);
		u64 room = m->end - pos, len;
		enum region_kind kind = REGION__ARENA;
		struct region *sub;

		len = scanner__heap_len(s, p, pos, room);
		if (!len) {
			kind = REGION__MMAPPED;
			len = scanner__mmapped_len(s, p, room);
		}
		if (!len) {
			pos += s->page;
			continue;
		}
		if (root < pos && !scanner__sub(s, m, root, pos, REGION__ROOT))
			return -ENOMEM;
		sub = scanner__sub(s, m, pos, pos + len, kind);
		if (!sub)
			return -ENOMEM;
		if (kind == REGION__ARENA)
			sub->heap_end = pos + word(p + 16);
		pos += len;
		root = pos;
	}
	if (root < m->end && !scanner__sub(s, m, root, m->end, REGION__ROOT))
		return -ENOMEM;
	return 0;
}

/* perf's ring buffers, devices: no pointers of the process's own */
static bool mapping__ignored(const char *name)
{
	return strstarts(name, "anon_inode:") || strstarts(name, "/dev/");
}

/*
 * The regions of mapping @m: what it is, by its name. One that could not
 * be read, or would take what the scan covers past the memory budget, is
 * left out, and counted.
 */
static int scanner__add_mapping(struct scanner *s, const struct refcnt_scan_mapping *m)
{
	struct refcnt_scan_result *res = s->result;
	const char *name = m->name ?: "";
	struct region r = {
		.start = m->start, .end = m->end, .heap_end = m->end, .data = m->data,
		.kind = strcmp(name, "[heap]") ? REGION__ROOT : REGION__HEAP,
		.stack = !strcmp(name, "[stack]"),
		.libc = strstr(name, "/libc.so") || strstr(name, "/libc-"),
	}, *reg;

	if (m->end <= m->start || mapping__ignored(name))
		return 0;
	if (!m->data) {
		scanner__skip(s, m->end - m->start, REFCNT_SCAN_PARTIAL__UNREADABLE);
		return 0;
	}
	if (m->end - m->start > s->max_bytes - res->bytes) {
		scanner__skip(s, m->end - m->start, REFCNT_SCAN_PARTIAL__BUDGET);
		return 0;
	}
	res->regions_read++;
	res->bytes += m->end - m->start;
	if (!name[0])
		return scanner__split(s, &r);
	reg = scanner__new_region(s);
	if (!reg)
		return -ENOMEM;
	*reg = r;
	return 0;
}

/*
 * Room for one more of the @nr elements of @size bytes at *@array: 0,
 * -E2BIG past SCAN_ARRAY_MAX elements, or -ENOMEM.
 */
static int array__grow(void *array, u32 nr, u32 *alloc, size_t size)
{
	void **p = array, *grown;
	size_t more;

	if (nr < *alloc)
		return 0;
	if (*alloc >= SCAN_ARRAY_MAX)
		return -E2BIG;
	more = *alloc ? min_t(size_t, (size_t)*alloc * 2, SCAN_ARRAY_MAX) : 1024;
	grown = reallocarray(*p, more, size);
	if (!grown)
		return -ENOMEM;
	*p = grown;
	*alloc = more;
	return 0;
}

/* The copies of a process's writable mappings (scanner__read_maps()). */
struct scan_copies {
	struct refcnt_scan_mapping *maps;
	u32		nr, alloc;
};

static void scan_copies__exit(struct scan_copies *c)
{
	for (u32 i = 0; i < c->nr; i++) {
		free((void *)c->maps[i].data);
		free((void *)c->maps[i].name);
	}
	zfree(&c->maps);
}

/*
 * Read [@start, @start + @len) of the process into @data: in pieces, as one
 * read returns at most MAX_RW_COUNT (2 GiB less a page) bytes, and a piece
 * at a time lets the time budget stop a read of gigabytes. Returns the
 * bytes read from @start: a page that cannot be read ends them.
 */
static u64 scanner__pread(struct scanner *s, int mem, u8 *data, u64 start, u64 len)
{
	u64 got = 0;

	while (got < len && !scanner__clock(s)) {
		ssize_t n = pread(mem, data + got, min_t(u64, len - got, SCAN_READ_PIECE),
				  (off_t)(start + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	return got;
}

/*
 * Copy mapping [@start, @end) named @name into @c. One past a budget is
 * left out; one that can be read in part only keeps that part. Either is
 * counted. Returns 0, or -ENOMEM when @c cannot grow.
 */
static int scanner__copy(struct scanner *s, int mem, struct scan_copies *c, u64 start,
			 u64 end, const char *name)
{
	u64 len = end - start, got;
	struct refcnt_scan_mapping *m;
	u8 *data, *fit;

	if (scanner__clock(s) || len > s->max_bytes - s->copied) {
		scanner__skip(s, len, REFCNT_SCAN_PARTIAL__BUDGET);
		return 0;
	}
	data = malloc(len);
	if (!data) {
		scanner__skip(s, len, REFCNT_SCAN_PARTIAL__NOMEM);
		return 0;
	}
	got = scanner__pread(s, mem, data, start, len);
	if (got < len)	/* gone, not readable from some page on, or out of time */
		scanner__skip(s, len - got, s->timed_out ? REFCNT_SCAN_PARTIAL__BUDGET :
						     REFCNT_SCAN_PARTIAL__UNREADABLE);
	if (!got) {
		free(data);
		return 0;
	}
	fit = got < len ? realloc(data, got) : NULL;
	data = fit ?: data;
	name = array__grow(&c->maps, c->nr, &c->alloc, sizeof(*m)) ? NULL : strdup(name);
	if (!name) {
		free(data);
		return -ENOMEM;
	}
	m = &c->maps[c->nr++];
	m->start = start;
	m->end = start + got;
	m->name = name;
	m->data = data;
	s->copied += got;
	return 0;
}

/*
 * The writable mappings of process @s->pid, as /proc/pid/maps lists them,
 * and a copy of each. Returns 0, -EACCES if they cannot be read at all, or
 * -ENOMEM.
 */
static int scanner__read_maps(struct scanner *s, struct scan_copies *c)
{
	char path[64], line[4096];
	FILE *maps;
	int mem, err = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", s->pid);
	maps = fopen(path, "r");
	snprintf(path, sizeof(path), "/proc/%d/mem", s->pid);
	mem = open(path, O_RDONLY);
	if (!maps || mem < 0) {
		err = -EACCES;
		goto out;
	}
	while (!err && fgets(line, sizeof(line), maps)) {
		char perms[8], name[4096] = "";
		unsigned long start, end;

		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %4095[^\n]", &start, &end, perms,
			   name) < 3 || perms[0] != 'r' || perms[1] != 'w' || end <= start ||
		    mapping__ignored(name))
			continue;
		err = scanner__copy(s, mem, c, start, end, name);
	}
out:
	if (maps)
		fclose(maps);
	if (mem >= 0)
		close(mem);
	return err;
}

static int scanner__add_block(struct scanner *s, const struct region *r, u64 chunk, u64 end)
{
	struct block *b;
	int err = array__grow(&s->blocks, s->nr_blocks, &s->alloc_blocks, sizeof(*b));

	if (err)
		return err;
	b = &s->blocks[s->nr_blocks++];
	memset(b, 0, sizeof(*b));
	b->addr = chunk + CHUNK_HDR;
	b->end = end;
	b->data = r->data + (b->addr - r->start);
	return 0;
}

/* The size of the chunk at @p, of region @r. */
static u64 region__chunk_size(const struct region *r, u64 p)
{
	return word(r->data + (p - r->start) + 8) & ~CHUNK_FLAGS;
}

/*
 * Does the heap end at the chunk at @p, before @end? A heap its arena grew
 * out of ends in fenceposts less than CHUNK_MIN before its end: a chunk of
 * CHUNK_HDR bytes then one of 0 (the main arena's: of CHUNK_HDR again), or
 * the 0 alone when what was left of the old top was too small to keep. A
 * heap may also end in nothing but zeroes (brk short of the mapping's end).
 * A size of 0 anywhere else is damage.
 */
static bool region__heap_ends(const struct region *r, u64 p, u64 end)
{
	u64 size = region__chunk_size(r, p);

	if (size == CHUNK_HDR && end - p >= CHUNK_MIN) {
		size = region__chunk_size(r, p + CHUNK_HDR);
		return (!size || size == CHUNK_HDR) && end - p < CHUNK_MIN + CHUNK_HDR;
	}
	if (size)
		return false;
	if (end - p < CHUNK_MIN)
		return true;
	for (u64 off = p + 16 - r->start; off + 8 <= end - r->start; off += 8) {
		if (word(r->data + off))
			return false;
	}
	return true;
}

/* How a walk of a heap's chunks ended (scanner__walk()). */
enum walk_end {
	WALK__END,		/* where the heap does */
	WALK__CORRUPT,		/* at a chunk of an implausible size */
	WALK__BUDGET,		/* out of time */
	WALK__NOMEM,		/* no room for another block */
};

struct walk {
	enum walk_end	end;
	u64		stop;	/* not at the end: the chunks from here are not known */
	u64		top;	/* at the end: the top chunk, 0 after fenceposts */
	u32		chunks;	/* of a plausible size */
};

/*
 * Walk the chunks of a heap from @first: true if they end where the heap
 * does, adding the chunks in use when @add (a free chunk clears the
 * PREV_INUSE bit of the next; tcache and fastbin chunks do not, and are
 * dropped later). The last chunk, the top, is free, as is the old top
 * before fenceposts. The heap's memory is the process's, maybe damaged:
 * every size is checked before it is followed, so each step goes forward
 * and stays in the heap. If the walk stops before the end, @w says why
 * and from where the chunks are not known: from the chunk before the one
 * it could not take, as whether that one is in use is in its header.
 */
static bool scanner__walk(struct scanner *s, const struct region *r, u64 first, bool add,
			  struct walk *w)
{
	u64 p = first, prev = first, end = r->heap_end;
	bool prev_added = false;

	memset(w, 0, sizeof(*w));
	w->end = WALK__CORRUPT;
	w->stop = first;
	if (first < r->start || first >= end || end - first < CHUNK_MIN)
		return false;
	for (;;) {
		u64 size = region__chunk_size(r, p), next;

		if (scanner__timed_out(s)) {
			w->end = WALK__BUDGET;
			break;
		}
		if (p > first && region__heap_ends(r, p, end))
			return true;
		if (size < CHUNK_MIN || size % CHUNK_ALIGN || size > end - p)
			break;
		next = p + size;
		w->chunks++;
		if (end - next < CHUNK_HDR) {	/* the top chunk, to brk */
			w->top = p;
			return true;
		}
		prev_added = add && !region__heap_ends(r, next, end) &&
			     (word(r->data + (next - r->start) + 8) & PREV_INUSE);
		prev = p;
		if (prev_added && scanner__add_block(s, r, p, next + 8)) {
			w->end = WALK__NOMEM;
			prev_added = false;
			break;
		}
		p = next;
	}
	if (prev_added)
		s->nr_blocks--;
	w->stop = prev;
	return false;
}

/*
 * The first chunk of an arena's heap: after its heap_info, and in the
 * arena's first heap after its malloc_state. Both sizes depend on glibc's
 * version (heap_info is 32 bytes before 2.35): find them, as where the
 * chunks walk to the heap's end. In a damaged heap none does: the start
 * whose walk goes farthest then, if far enough not to be chance.
 */
static u64 scanner__arena_first(struct scanner *s, const struct region *r)
{
	static const u64 info_sizes[] = { HEAP_INFO_SIZE, HEAP_INFO_SIZE_OLD };
	u64 arena = word(r->data), best = 0, best_stop = 0;
	struct walk w;

	for (unsigned int i = 0; i < ARRAY_SIZE(info_sizes); i++) {
		u64 first = r->start + info_sizes[i], off = 0, last = 0;

		if (arena == first) {	/* its first heap: the arena is there */
			off = ARENA_SIZE_MIN;
			last = ARENA_SIZE_MAX;
		}
		for (; off <= last && !s->timed_out; off += CHUNK_ALIGN) {
			if (scanner__walk(s, r, first + off, false, &w))
				return first + off;
			if (w.end == WALK__CORRUPT && w.chunks >= ARENA_TRUST_CHUNKS &&
			    w.stop > best_stop) {
				best = first + off;
				best_stop = w.stop;
			}
		}
	}
	return best;
}

static int block__cmp(const void *a, const void *b)
{
	const struct block *ba = a, *bb = b;

	return ba->addr < bb->addr ? -1 : ba->addr > bb->addr;
}

/* The block @addr points into, as LSan takes interior pointers. */
static struct block *scanner__block(struct scanner *s, u64 addr)
{
	u32 lo = 0, hi = s->nr_blocks;

	while (lo < hi) {
		u32 mid = (lo + hi) / 2;
		struct block *b = &s->blocks[mid];

		if (addr < b->addr)
			hi = mid;
		else if (addr >= b->end)
			lo = mid + 1;
		else
			return b;
	}
	return NULL;
}

/* A chunk's size, from its block: CHUNK_HDR before it, 8 bytes into the next. */
static u64 block__chunk_size(const struct block *b)
{
	return b->end - b->addr + CHUNK_HDR - 8;
}

/*
 * tcache_key, if @t is a tcache_perthread_struct: u16 counts[64], then the
 * first free chunk of each bin (of chunks of 32 + 16 * bin bytes), whose
 * second word is the key; 0 if not. Blocks come from a checked walk: each
 * one's data holds its whole chunk, so these reads stay in it.
 */
static u64 scanner__tcache_key(struct scanner *s, const struct block *t)
{
	u64 key = 0;

	if (block__chunk_size(t) != TCACHE_STRUCT_SIZE)
		return 0;
	for (u32 bin = 0; bin < TCACHE_BINS; bin++) {
		u64 entry = word(t->data + TCACHE_BINS * 2 + bin * 8);
		u16 count;
		struct block *b;

		memcpy(&count, t->data + bin * 2, sizeof(count));
		/* a bin has chunks (count) if and only if it has a first */
		if (!count != !entry)
			return 0;
		if (!entry)
			continue;
		b = scanner__block(s, entry);
		if (!b || b->addr != entry || block__chunk_size(b) != CHUNK_MIN + bin * 16 ||
		    (key && word(b->data + 8) != key))
			return 0;
		key = word(b->data + 8);
	}
	return key;
}

/* The block of the chunk at @p if it can be in a fastbin, or NULL. */
static struct block *scanner__fastbin_chunk(struct scanner *s, u64 p)
{
	struct block *b = scanner__block(s, p + CHUNK_HDR);

	if (!b || b->addr != p + CHUNK_HDR || block__chunk_size(b) > FASTBIN_CHUNK_MAX)
		return NULL;
	return b;
}

/*
 * The next chunk of a fastbin list after @p, whose block is @b: its link
 * is mangled (safe-linking, glibc 2.32 on) or not (before); 0 at the end,
 * or 1 for a link to no chunk that can be in a fastbin.
 */
static u64 scanner__fastbin_next(struct scanner *s, u64 p, const struct block *b)
{
	u64 raw = word(b->data), next = raw ^ ((p + CHUNK_HDR) >> 12);

	if (!next || scanner__fastbin_chunk(s, next))
		return next;
	if (!raw || scanner__fastbin_chunk(s, raw))
		return raw;
	return 1;
}

/*
 * The chunks on the fastbin lists of the arena at @arena. A list stops at
 * a link to no fastbin chunk, at a cycle (Brent's: one comes back to the
 * chunk saved at the last power of two steps) or after FREE_LIST_MAX
 * steps: the chunks left on it are then taken as in use, which can only
 * hide a leak among them. Each of these after a good link is damage, and
 * said; a bad first one is not, as @arena may be a guess (the main one).
 */
static void scanner__drop_fastbins(struct scanner *s, u64 arena)
{
	for (int f = 0; f < NFASTBINS; f++) {
		u64 p, seen = 0;
		u32 steps = 0;

		if (!scanner__read(s, arena + ARENA_FASTBINS + f * 8, &p))
			continue;
		while (p && !scanner__timed_out(s)) {
			struct block *b = scanner__fastbin_chunk(s, p);

			if (!b || p == seen || steps == FREE_LIST_MAX) {
				if (steps)
					s->result->partial |= REFCNT_SCAN_PARTIAL__CORRUPT;
				break;
			}
			steps++;
			if (!(steps & (steps - 1)))
				seen = p;
			b->free = true;
			p = scanner__fastbin_next(s, p, b);
		}
	}
}

/*
 * Free chunks that still look in use: those in a tcache carry tcache_key
 * in their second word, found through a tcache_perthread_struct (the
 * first chunk a thread allocates); those in fastbins are on lists from
 * their arena's fastbinsY, their links mangled (safe-linking). The main
 * arena is in libc's data: the word there that points to the top chunk
 * of the main heap is its top; the other arenas follow their first
 * heap's heap_info.
 */
static void scanner__drop_free(struct scanner *s, u64 top)
{
	u64 key = 0;

	for (u32 i = 0; i < s->nr_blocks && !key; i++)
		key = scanner__tcache_key(s, &s->blocks[i]);
	for (u32 i = 0; key && i < s->nr_blocks; i++) {
		struct block *b = &s->blocks[i];

		if (b->end - b->addr >= 16 && word(b->data + 8) == key)
			b->free = true;
	}

	for (u32 i = 0; i < s->nr_regions; i++) {
		const struct region *r = &s->regions[i];

		if (r->kind == REGION__ARENA && (word(r->data) == r->start + HEAP_INFO_SIZE ||
						 word(r->data) == r->start + HEAP_INFO_SIZE_OLD))
			scanner__drop_fastbins(s, word(r->data));
		if (r->kind != REGION__ROOT || !r->libc || !top)
			continue;
		for (u64 off = ARENA_TOP; off + 8 <= r->end - r->start; off += 8) {
			if (word(r->data + off) == top)
				scanner__drop_fastbins(s, r->start + off - ARENA_TOP);
		}
	}
}

/* Why a walk that stopped leaves a heap in part a root (enum walk_end). */
static const u32 walk_partial[] = {
	[WALK__CORRUPT]	= REFCNT_SCAN_PARTIAL__HEAP_WALK | REFCNT_SCAN_PARTIAL__CORRUPT,
	[WALK__BUDGET]	= REFCNT_SCAN_PARTIAL__HEAP_WALK | REFCNT_SCAN_PARTIAL__BUDGET,
	[WALK__NOMEM]	= REFCNT_SCAN_PARTIAL__HEAP_WALK | REFCNT_SCAN_PARTIAL__NOMEM,
};

/*
 * The chunks in use of heap region @i from its first chunk @first (0: not
 * found), as blocks. Where they stop making sense (a size that cannot be,
 * the budget, no room for more blocks), the blocks before are kept and the
 * rest of the heap is a root: its pointers are followed but its blocks are
 * not told apart, which can hide a leak there, never make one up. A heap
 * whose first chunk does not walk is a root whole: damaged, or not glibc's
 * (then not said damaged). Returns 0 or -ENOMEM.
 */
static int scanner__walk_heap(struct scanner *s, u32 i, u64 first, u64 *top)
{
	struct region heap = s->regions[i];
	u32 nr = s->nr_blocks;
	struct walk w = { .end = s->timed_out ? WALK__BUDGET : WALK__CORRUPT };
	u32 why;

	if (first && scanner__walk(s, &heap, first, true, &w)) {
		if (heap.kind == REGION__HEAP)
			*top = w.top;
		return 0;
	}
	why = walk_partial[w.end];
	if (w.end == WALK__CORRUPT) {
		s->result->walks_failed++;
		if (!w.chunks)	/* not one chunk: maybe no glibc heap */
			why &= ~REFCNT_SCAN_PARTIAL__CORRUPT;
	}
	s->result->partial |= why;
	if (!first || w.stop <= first) {
		s->nr_blocks = nr;
		s->regions[i].kind = REGION__ROOT;
		return 0;
	}
	if (!scanner__sub(s, &heap, w.stop, heap.end, REGION__ROOT))
		return -ENOMEM;
	s->regions[i].end = w.stop;
	s->regions[i].heap_end = w.stop;
	return 0;
}

/*
 * Find the chunks in use of every heap; *@top is the main heap's top
 * chunk, or 0. Returns 0 or -ENOMEM.
 */
static int scanner__find_blocks(struct scanner *s, u64 *top)
{
	*top = 0;
	for (u32 i = 0; i < s->nr_regions; i++) {
		struct region *r = &s->regions[i];
		u64 first = r->start;
		int err;

		switch (r->kind) {
		case REGION__ARENA:
			first = scanner__arena_first(s, r);
			fallthrough;
		case REGION__HEAP:
			err = scanner__walk_heap(s, i, first, top);
			if (err)
				return err;
			break;
		case REGION__MMAPPED:
			/* no next chunk: its size is the mapping's, less the header */
			if (scanner__add_block(s, r, r->start, r->end)) {
				s->result->partial |= REFCNT_SCAN_PARTIAL__NOMEM;
				r->kind = REGION__ROOT;
			}
			break;
		case REGION__ROOT:
		default:
			break;
		}
	}
	if (s->nr_blocks)	/* none: no array, and qsort() wants one */
		qsort(s->blocks, s->nr_blocks, sizeof(*s->blocks), block__cmp);
	scanner__drop_free(s, *top);
	return 0;
}

static int scanner__add_object(struct scanner *s, struct block *b, u8 type, s32 refcnt)
{
	struct refcnt_scan_object *o;
	int err = array__grow(&s->objects, s->nr_objects, &s->alloc_objects, sizeof(*o));

	if (err)
		return err;
	o = &s->objects[s->nr_objects++];
	memset(o, 0, sizeof(*o));
	o->addr = b->addr;
	o->type = type;
	o->refcnt = refcnt;
	if (!b->nr_objects++)
		b->first_object = s->nr_objects;
	return 0;
}

/* The size of the chunk malloc(@size) makes. */
static u64 chunk__size(u64 size)
{
	return max_t(u64, CHUNK_MIN, (size + 8 + CHUNK_ALIGN - 1) & ~(u64)(CHUNK_ALIGN - 1));
}

/*
 * Can a chunk of @csize bytes be what malloc(@size) returned? It returns a
 * free chunk whole when what splitting it would leave is too small to be
 * a chunk: up to CHUNK_MIN - CHUNK_ALIGN bytes more.
 */
static bool chunk__fits(u64 csize, u64 size)
{
	u64 want = chunk__size(size);

	return csize >= want && csize < want + CHUNK_MIN;
}

/*
 * What an object of type @st and @size bytes (its flexible array's
 * included, when its length is known) in block @b of chunk size @csize
 * spans: one of a length not known spans the block.
 */
static void block__use(struct block *b, const struct refcnt_scan_type *st, u64 size,
		       u64 csize)
{
	u64 len = b->end - b->addr;

	if (st->elem_size && st->nr_offset < 0)
		size = len;
	else if (!chunk__fits(csize, size))
		size += st->tail_size;
	b->used = max_t(u64, b->used, min(size, len));
}

/* The bytes of block @b to scan for pointers (see struct block's @used). */
static u64 block__scan_len(const struct block *b)
{
	u64 len = b->end - b->addr;

	return b->used || b->bounded ? min_t(u64, len, b->used) : len;
}

/*
 * The blocks that look like objects of the audited types. Out of memory
 * for more, the objects found so far are kept, and the scan says so.
 */
static void scanner__find_objects(struct scanner *s)
{
	for (u32 i = 0; i < s->nr_blocks; i++) {
		struct block *b = &s->blocks[i];
		u64 csize = block__chunk_size(b), len = b->end - b->addr;

		if (b->free)
			continue;
		for (unsigned int t = 0; t < REFCNT_TYPE__MAX_NR; t++) {
			const struct refcnt_scan_type *st = &s->types[t];
			u64 size = st->size, want;
			s32 refcnt, nr = 0;

			/* the offsets are the audited binary's: read in the block only */
			if (!st->size || st->refcnt_offset < 0 || st->size > len ||
			    (u64)st->refcnt_offset + sizeof(refcnt) > len ||
			    (st->nr_offset >= 0 && (u64)st->nr_offset + sizeof(nr) > len))
				continue;
			if (st->elem_size && st->nr_offset >= 0) {
				memcpy(&nr, b->data + st->nr_offset, sizeof(nr));
				if (nr <= 0 || nr > REFCNT_FLEX_MAX)
					continue;
				size += (u64)nr * st->elem_size;
			}
			/*
			 * What malloc(size) makes, or with the type's tail
			 * struct, or a flexible array of a length not known
			 */
			want = chunk__size(size);
			if (st->elem_size && st->nr_offset < 0 ?
			    csize < want || csize > want + REFCNT_FLEX_SLACK :
			    !chunk__fits(csize, size) &&
			    !(st->tail_size && chunk__fits(csize, size + st->tail_size)))
				continue;
			memcpy(&refcnt, b->data + st->refcnt_offset, sizeof(refcnt));
			if (refcnt <= 0 || refcnt >= REFCNT_PLAUSIBLE)
				continue;
			if (scanner__add_object(s, b, t, refcnt)) {
				s->result->partial |= REFCNT_SCAN_PARTIAL__NOMEM;
				return;
			}
			block__use(b, st, size, csize);
		}
	}
}

/*
 * The arrays that the objects found keep (refcnt_scan_type.nr_arrays):
 * only their elements in use are scanned. A slot past them is what a
 * removal that slid the later elements down left there: no reference, and
 * no pointer either (RC_CHK's perf has freed what it points to). An array
 * is a block of the size its holder allocated, which may look like an
 * object too (a stale pointer's high half is a plausible refcount): its
 * holder says what it is. Lengths that make no sense leave it as it is.
 */
static void scanner__bound_arrays(struct scanner *s)
{
	for (u32 i = 0; i < s->nr_objects; i++) {
		const struct refcnt_scan_object *o = &s->objects[i];
		const struct refcnt_scan_type *st = &s->types[o->type];
		const struct block *b = scanner__block(s, o->addr);
		u32 nr, alloc;

		/* find_objects() saw the object's size in its block */
		if (!b || !st->nr_arrays || st->nr_arrays > REFCNT_SPEC__MAX_ARRAYS ||
		    (u64)st->array_nr_offset + sizeof(nr) > st->size ||
		    (u64)st->array_alloc_offset + sizeof(alloc) > st->size)
			continue;
		memcpy(&nr, b->data + st->array_nr_offset, sizeof(nr));
		memcpy(&alloc, b->data + st->array_alloc_offset, sizeof(alloc));
		if (!alloc || nr > alloc || alloc > REFCNT_FLEX_MAX)
			continue;
		for (u32 a = 0; a < st->nr_arrays; a++) {
			struct block *arr;
			u64 addr;

			if ((u64)st->array_offset[a] + sizeof(addr) > st->size)
				continue;
			addr = word(b->data + st->array_offset[a]);
			arr = scanner__block(s, addr);
			if (!arr || arr->free || arr->addr != addr ||
			    !chunk__fits(block__chunk_size(arr), (u64)alloc * 8))
				continue;
			/* over block__use()'s; another holder's may be longer */
			arr->used = arr->bounded ? max_t(u32, arr->used, nr * 8) : nr * 8;
			arr->bounded = true;
		}
	}
}

/* The unreachable blocks that unreachable block @b points to: LSan's indirect. */
static void scanner__indirect(struct scanner *s, const struct block *b)
{
	u64 len = block__scan_len(b);

	for (u64 off = 0; off + 8 <= len; off += 8) {
		struct block *p = scanner__block(s, word(b->data + off));

		if (p && p != b && !p->reached && !p->free)
			p->indirect = true;
	}
}

/*
 * A word that points to block @b's start: one more pointer to its objects,
 * from reachable memory, or from the leaked object @from's.
 */
static void scanner__count_word(struct scanner *s, const struct block *b,
				const struct refcnt_scan_object *from)
{
	for (u32 o = 0; o < b->nr_objects; o++) {
		struct refcnt_scan_object *obj = &s->objects[b->first_object - 1 + o];

		if (!from) {
			obj->words++;
			obj->stack_words += s->reach == REFCNT_SCAN_REACH__STACK;
			continue;
		}
		if (obj == from)
			continue;
		if (obj->held_words < UINT16_MAX)
			obj->held_words++;
		if (!obj->holder)
			obj->holder = from->addr;
	}
}

/*
 * Every aligned word of [@data, @data + @len): a pointer into a block
 * reaches it; one to an object's start is counted when @count. From an
 * unreachable object (@from), the unreachable blocks it reaches are held
 * by it, and the words to an object's start are its (held_words), in
 * reachable blocks too: a leaked thread's pointer to a dso that the dsos
 * list keeps holds one of the dso's references.
 */
static void scanner__scan(struct scanner *s, const u8 *data, u64 len, bool count,
			  const struct refcnt_scan_object *from)
{
	for (u64 off = 0; off + 8 <= len; off += 8) {
		u64 w = word(data + off);
		struct block *b = scanner__block(s, w);

		/*
		 * A block's last word is the next chunk's header: malloc's
		 * own pointers (an arena's top, its bins) point there, not
		 * into the block
		 */
		if (!b || b->free || w >= b->end - 8)
			continue;
		/* a block's word to its own start (an empty list) is no reference */
		if (w == b->addr && (count || from) && b->data != data)
			scanner__count_word(s, b, from);
		if (from) {
			/* the pass from an unreachable object: what it holds */
			if (b->reached || b->visited)
				continue;
			b->visited = true;
			for (u32 o = 0; o < b->nr_objects; o++) {
				struct refcnt_scan_object *held;

				held = &s->objects[b->first_object - 1 + o];
				if (held != from && !held->holder)
					held->holder = from->addr;
			}
		} else {
			if (b->reached)
				continue;
			b->reached = s->reach;
		}
		s->stack[s->nr_stack++] = b - s->blocks;
	}
}

/* Scan the blocks reached until none is left to scan. */
static void scanner__drain(struct scanner *s, bool count, const struct refcnt_scan_object *from)
{
	while (s->nr_stack) {
		const struct block *b = &s->blocks[s->stack[--s->nr_stack]];

		scanner__scan(s, b->data, block__scan_len(b), count, from);
	}
}

/*
 * The roots. First what the program keeps: the images' data, TLS and the
 * other anonymous memory. Then the exiting thread's stack, from its stack
 * pointer up, and its registers: at the exit stop that thread is in the C
 * library's exit path (exit(), abort(), a fatal signal's delivery), whose
 * frames overlay the dead frames of the functions that returned before,
 * and a word there may be a local of a frame still live or a stale copy a
 * dead frame left: which one depends on the C library's code paths, so on
 * the machine. The blocks only they reach are told apart (REACH__STACK),
 * and so are the pointer words they hold: the report decides what they
 * are worth (pairing.h), never the layout of a stack.
 */
static void scanner__mark_roots(struct scanner *s, const u8 *regs, size_t regs_len, u64 sp)
{
	s->reach = REFCNT_SCAN_REACH__DATA;
	for (u32 i = 0; i < s->nr_regions; i++) {
		const struct region *r = &s->regions[i];

		if (r->kind != REGION__ROOT || r->stack)
			continue;
		s->result->roots += r->end - r->start;
		scanner__scan(s, r->data, r->end - r->start, true, NULL);
		scanner__drain(s, true, NULL);
	}
	s->reach = REFCNT_SCAN_REACH__STACK;
	for (u32 i = 0; i < s->nr_regions; i++) {
		const struct region *r = &s->regions[i];
		u64 start = r->start;

		if (r->kind != REGION__ROOT || !r->stack)
			continue;
		if (sp > r->start && sp < r->end)
			start = sp & ~7ULL;
		s->result->roots += r->end - start;
		s->result->stack_bytes += r->end - start;
		scanner__scan(s, r->data + (start - r->start), r->end - start, true, NULL);
		scanner__drain(s, true, NULL);
	}
	scanner__scan(s, regs, regs_len, true, NULL);
	scanner__drain(s, true, NULL);
}

static void scanner__mark(struct scanner *s, const u8 *regs, size_t regs_len, u64 sp)
{
	scanner__mark_roots(s, regs, regs_len, sp);

	/*
	 * LSan's indirect leaks: an unreachable block another unreachable one
	 * points to. An object in one is held by the unreachable object not
	 * so pointed to (a direct leak) that reaches it first; those of a
	 * cycle that no direct leak reaches are held by none.
	 */
	for (u32 i = 0; i < s->nr_blocks; i++) {
		struct block *b = &s->blocks[i];

		s->result->reached += !!b->reached;
		if (!b->reached && !b->free)
			scanner__indirect(s, b);
	}
	/*
	 * Direct leaks first; then the indirect ones no object reached (a
	 * block that is no object, or a cycle, points to them): what they
	 * reach is theirs.
	 */
	for (int indirect = 0; indirect < 2; indirect++) {
		for (u32 i = 0; i < s->nr_blocks; i++) {
			struct block *b = &s->blocks[i];
			const struct refcnt_scan_object *from;

			if (b->reached || b->free || !b->nr_objects || b->visited ||
			    b->indirect != indirect)
				continue;
			b->visited = true;
			from = &s->objects[b->first_object - 1];
			scanner__scan(s, b->data, block__scan_len(b), false, from);
			scanner__drain(s, false, from);
		}
	}
	for (u32 i = 0; i < s->nr_objects; i++) {
		struct block *b = scanner__block(s, s->objects[i].addr);

		s->objects[i].reachable = b ? b->reached : REFCNT_SCAN_REACH__NONE;
	}
}

/* The index of the first block at or above @addr. */
static u32 scanner__first_block(const struct scanner *s, u64 addr)
{
	u32 lo = 0, hi = s->nr_blocks;

	while (lo < hi) {
		u32 mid = (lo + hi) / 2;

		if (s->blocks[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The object that starts at @addr, or NULL. */
static struct refcnt_scan_object *scanner__object_at(struct scanner *s, u64 addr)
{
	u32 lo = 0, hi = s->nr_objects;

	while (lo < hi) {
		u32 mid = (lo + hi) / 2;

		if (s->objects[mid].addr == addr)
			return &s->objects[mid];
		if (s->objects[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * The words of [@start, @end) of heap region @r, freed memory, that point
 * to the start of an object that has references no pointer accounts for
 * (unreachable, or reachable by fewer words than its refcount); @per_object
 * counts them by object.
 */
static void scanner__freed_range(struct scanner *s, const struct region *r, u64 start,
				 u64 end, u8 *per_object)
{
	u64 lo = s->objects[0].addr, hi = s->objects[s->nr_objects - 1].addr;

	for (u64 a = start; a + 8 <= end && !scanner__timed_out(s); a += 8) {
		u64 w = word(r->data + (a - r->start));
		struct refcnt_scan_object *o;
		struct refcnt_scan_freed *f;
		u32 i;

		if (w < lo || w > hi || w % CHUNK_ALIGN)
			continue;
		o = scanner__object_at(s, w);
		/* reachable, are its references all pointers still? */
		if (!o || (o->reachable != REFCNT_SCAN_REACH__NONE && o->words >= (u32)o->refcnt))
			continue;
		i = o - s->objects;
		if (per_object[i] >= REFCNT_SCAN_FREED_PER_OBJECT ||
		    s->nr_freed >= REFCNT_SCAN_FREED_MAX ||
		    array__grow(&s->freed, s->nr_freed, &s->alloc_freed, sizeof(*f)))
			continue;
		per_object[i]++;
		f = &s->freed[s->nr_freed++];
		f->addr = w;
		f->word = a;
	}
}

/*
 * What freed memory of the heaps still says of the objects with
 * references unaccounted for (struct refcnt_scan_freed): every word of a heap that no block in use
 * holds, the chunk headers included (a size is no object's address).
 */
static void scanner__find_freed(struct scanner *s)
{
	u8 *per_object;

	if (!s->nr_objects)
		return;
	per_object = calloc(s->nr_objects, sizeof(*per_object));
	if (!per_object) {
		s->result->partial |= REFCNT_SCAN_PARTIAL__NOMEM;
		return;
	}
	for (u32 i = 0; i < s->nr_regions; i++) {
		const struct region *r = &s->regions[i];
		u64 at = r->start;
		u32 b;

		if (r->kind != REGION__HEAP && r->kind != REGION__ARENA)
			continue;
		/* regions are not in address order (an arena's come last): its first block */
		b = scanner__first_block(s, r->start);
		for (; b < s->nr_blocks && s->blocks[b].addr < r->heap_end; b++) {
			const struct block *blk = &s->blocks[b];

			if (blk->free)
				continue;
			/* up to its chunk's header, whose prev_size the chunk before may use */
			if (blk->addr - CHUNK_HDR > at)
				scanner__freed_range(s, r, at, blk->addr - CHUNK_HDR, per_object);
			at = max(at, blk->end);
		}
		scanner__freed_range(s, r, at, r->heap_end, per_object);
	}
	free(per_object);
}

/* The registers of the stopped thread, and its stack pointer. */
static size_t scanner__regs(pid_t pid, u8 *buf, size_t sz, u64 *sp)
{
	struct iovec iov = { .iov_base = buf, .iov_len = sz };

	*sp = 0;
	if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &iov))
		return 0;
#ifdef __x86_64__
	/* struct user_regs_struct: rsp is its 20th register */
	if (iov.iov_len >= 20 * 8)
		*sp = word(buf + 19 * 8);
#endif
	return iov.iov_len;
}

/* A quarter of the RAM, at most REFCNT_SCAN_BYTES_MAX: see refcnt_scan_limits. */
static u64 scan__default_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || page <= 0)
		return REFCNT_SCAN_BYTES_MAX;
	return min_t(u64, (u64)pages * page / 4, REFCNT_SCAN_BYTES_MAX);
}

static void scanner__init(struct scanner *s, struct refcnt_scan *scan,
			  const struct refcnt_scan_type *types,
			  const struct refcnt_scan_limits *limits)
{
	u64 ns = limits && limits->ns ? limits->ns : REFCNT_SCAN_NS_DEFAULT;
	long page = sysconf(_SC_PAGESIZE);

	memset(scan, 0, sizeof(*scan));
	memset(s, 0, sizeof(*s));
	scan->result.magic = REFCNT_SCAN_MAGIC;
	scan->result.time = scan__now();
	s->types = types;
	s->result = &scan->result;
	s->page = page > 0 ? page : 4096;
	s->deadline = scan->result.time + min_t(u64, ns, ~0ULL - scan->result.time);
	s->max_bytes = limits && limits->bytes ? limits->bytes : scan__default_bytes();
}

/*
 * Everything after reading the memory: the regions of mappings @maps, the
 * blocks of their heaps, the objects among them, marked from the roots.
 * Out of budget, what was done is the result, however little. Sets the
 * result's status; returns 0 or -ENOMEM.
 */
static int scanner__run(struct scanner *s, const struct refcnt_scan_mapping *maps, u32 nr,
			const u8 *regs, size_t regs_len, u64 sp)
{
	struct refcnt_scan_result *res = s->result;
	u64 top;
	int err = 0;

	for (u32 i = 0; i < nr && !err; i++)
		err = scanner__add_mapping(s, &maps[i]);
	if (err)
		return err;
	if (!res->regions_read && !(res->partial & REFCNT_SCAN_PARTIAL__BUDGET)) {
		res->status = REFCNT_SCAN__FAILED;
		return 0;
	}
	err = scanner__find_blocks(s, &top);
	if (err)
		return err;
	if (!s->nr_blocks && !(res->partial & REFCNT_SCAN_PARTIAL__BUDGET)) {
		res->status = REFCNT_SCAN__NO_HEAP;
		return 0;
	}
	scanner__find_objects(s);
	scanner__bound_arrays(s);
	s->stack = calloc(s->nr_blocks + 1, sizeof(*s->stack));
	if (!s->stack)
		return -ENOMEM;
	/*
	 * The marking scans every root, without a look at the clock: out of
	 * time, it is not begun, and the objects found are left unmarked
	 */
	if (!scanner__clock(s)) {
		scanner__mark(s, regs, regs_len, sp);
		scanner__find_freed(s);
	}
	res->blocks = s->nr_blocks;
	res->nr_objects = s->nr_objects;
	res->nr_freed = s->nr_freed;
	res->status = REFCNT_SCAN__DONE;
	return 0;
}

/* The end of a scan that returns @err: its time, its objects; the scanner freed. */
static int scanner__exit(struct scanner *s, struct refcnt_scan *scan, int err)
{
	scan->result.ns = scan__now() - scan->result.time;
	if (err) {
		scan->result.status = REFCNT_SCAN__FAILED;
	} else if (scan->result.status == REFCNT_SCAN__DONE) {
		scan->objects = s->objects;
		s->objects = NULL;
		scan->freed = s->freed;
		s->freed = NULL;
	} else {
		scan->result.nr_freed = 0;
	}
	free(s->regions);
	free(s->blocks);
	free(s->stack);
	free(s->objects);
	free(s->freed);
	return err;
}

int refcnt_scan__mappings(struct refcnt_scan *scan, const struct refcnt_scan_mapping *maps,
			  u32 nr, const u8 *regs, size_t regs_len, u64 sp,
			  const struct refcnt_scan_type types[REFCNT_TYPE__MAX_NR],
			  const struct refcnt_scan_limits *limits)
{
	struct scanner s;
	int err;

	scanner__init(&s, scan, types, limits);
	err = scanner__run(&s, maps, nr, regs, regs_len, sp);
	return scanner__exit(&s, scan, err);
}

int refcnt_scan__process_limits(struct refcnt_scan *scan, pid_t pid,
				const struct refcnt_scan_type types[REFCNT_TYPE__MAX_NR],
				const struct refcnt_scan_limits *limits)
{
	struct scan_copies copies = { .maps = NULL };
	struct scanner s;
	u8 regs[1024];
	size_t regs_len;
	u64 sp;
	int err;

	scanner__init(&s, scan, types, limits);
	scan->result.pid = pid;
	s.pid = pid;
	regs_len = scanner__regs(pid, regs, sizeof(regs), &sp);
	err = scanner__read_maps(&s, &copies);
	if (err == -EACCES) {
		scan->result.status = REFCNT_SCAN__FAILED;
		err = 0;
	} else if (!err) {
		err = scanner__run(&s, copies.maps, copies.nr, regs, regs_len, sp);
	}
	err = scanner__exit(&s, scan, err);
	scan_copies__exit(&copies);
	return err;
}

int refcnt_scan__process(struct refcnt_scan *scan, pid_t pid,
			 const struct refcnt_scan_type types[REFCNT_TYPE__MAX_NR])
{
	return refcnt_scan__process_limits(scan, pid, types, NULL);
}

void refcnt_scan__exit(struct refcnt_scan *scan)
{
	zfree(&scan->objects);
	zfree(&scan->freed);
}
