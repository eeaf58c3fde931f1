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
#include <linux/zalloc.h>

#include "scan.h"

/* glibc malloc, 64-bit */
#define CHUNK_HDR		16		/* prev_size, size: user data after */
#define CHUNK_MIN		32
#define CHUNK_ALIGN		16
#define PREV_INUSE		1ULL
#define IS_MMAPPED		2ULL
#define CHUNK_FLAGS		7ULL
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

enum region_kind {
	REGION__ROOT,
	REGION__HEAP,		/* the main arena's [heap] */
	REGION__ARENA,		/* a heap of another arena */
	REGION__MMAPPED,	/* one mmapped chunk */
};

struct region {
	u64		start, end;
	u8		*data;		/* a copy of its memory */
	u64		heap_end;	/* of its chunks: a heap's in-use part */
	enum region_kind kind;
	bool		owns;		/* @data, with the regions after it of its mapping */
	bool		stack;		/* [stack]: scanned from the stack pointer up */
	bool		libc;		/* libc's data: the main arena is there */
};

struct block {
	u64		addr;		/* user data: the chunk + CHUNK_HDR */
	u64		end;		/* of user data: into the next chunk's
					 * prev_size, which an in-use chunk uses
					 */
	const u8	*data;		/* its copy */
	u32		first_object;	/* index + 1 in the objects found, 0: none */
	u8		nr_objects;
	bool		reached;
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
	const struct refcnt_scan_type *types;
	struct refcnt_scan_result *result;
	u64		page;		/* the page size */
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

static u64 word(const u8 *p)
{
	u64 w;

	memcpy(&w, p, sizeof(w));
	return w;
}

static struct region *scanner__region(struct scanner *s, u64 addr)
{
	for (u32 i = 0; i < s->nr_regions; i++) {
		if (addr >= s->regions[i].start && addr + 8 <= s->regions[i].end)
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
	u64 size = word(p + 8) & ~CHUNK_FLAGS;

	if (room < CHUNK_MIN || word(p) || (word(p + 8) & CHUNK_FLAGS) != IS_MMAPPED ||
	    !size || size % s->page || size > room)
		return 0;
	return size;
}

/*
 * [@start, @end) of mapping @m, of @kind: its copy is @m's, freed with the
 * region that starts where @m does.
 */
static struct region *scanner__sub(struct scanner *s, const struct region *m, u64 start, u64 end,
				   enum region_kind kind)
{
	struct region *sub = scanner__new_region(s);

	if (!sub)
		return NULL;
	*sub = *m;
	sub->owns = start == m->start;
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
	u32 nr = s->nr_regions;

	while (pos < m->end) {
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
			goto out_enomem;
		sub = scanner__sub(s, m, pos, pos + len, kind);
		if (!sub)
			goto out_enomem;
		if (kind == REGION__ARENA)
			sub->heap_end = pos + word(p + 16);
		pos += len;
		root = pos;
	}
	if (root < m->end && !scanner__sub(s, m, root, m->end, REGION__ROOT))
		goto out_enomem;
	return 0;

out_enomem:
	if (s->nr_regions == nr)	/* no region owns the copy yet */
		free(m->data);
	return -ENOMEM;
}

/* The writable mappings of @pid, with what they are, and a copy of each. */
static int scanner__read_maps(struct scanner *s)
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
		struct region m = { .kind = REGION__ROOT, .owns = true }, *r;

		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %4095[^\n]", &start, &end, perms,
			   name) < 3 || perms[0] != 'r' || perms[1] != 'w')
			continue;
		/* perf's ring buffers, devices: no pointers of the process's own */
		if (strstarts(name, "anon_inode:") || strstarts(name, "/dev/"))
			continue;
		m.start = start;
		m.end = end;
		m.heap_end = end;
		m.data = malloc(end - start);
		if (!m.data) {
			err = -ENOMEM;
			break;
		}
		if (pread(mem, m.data, end - start, start) != (ssize_t)(end - start)) {
			free(m.data);	/* gone, or not readable: left out */
			continue;
		}
		s->result->bytes += end - start;
		if (!strcmp(name, "[heap]"))
			m.kind = REGION__HEAP;
		m.stack = !strcmp(name, "[stack]");
		m.libc = strstr(name, "/libc.so") || strstr(name, "/libc-");
		if (!name[0]) {
			err = scanner__split(s, &m);
			continue;
		}
		r = scanner__new_region(s);
		if (!r) {
			free(m.data);
			err = -ENOMEM;
			break;
		}
		*r = m;
	}
out:
	if (maps)
		fclose(maps);
	if (mem >= 0)
		close(mem);
	return err;
}

/* Room for one more of the @nr elements of @size bytes at *@array. */
static int array__grow(void *array, u32 nr, u32 *alloc, size_t size)
{
	void **p = array, *grown;
	u32 more = *alloc ? *alloc * 2 : 1024;

	if (nr < *alloc)
		return 0;
	grown = reallocarray(*p, more, size);
	if (!grown)
		return -ENOMEM;
	*p = grown;
	*alloc = more;
	return 0;
}

static int scanner__add_block(struct scanner *s, const struct region *r, u64 chunk, u64 end)
{
	struct block *b;

	if (array__grow(&s->blocks, s->nr_blocks, &s->alloc_blocks, sizeof(*b)))
		return -ENOMEM;
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
 * Walk the chunks of a heap from @first: true if they end where the heap
 * does, adding the chunks in use when @add (a free chunk clears the
 * PREV_INUSE bit of the next; tcache and fastbin chunks do not, and are
 * dropped later). The last chunk, the top, is free. A heap its arena grew
 * out of ends in fenceposts instead: a chunk of CHUNK_HDR bytes, then one
 * of 0 (or the 0 alone, the old top before it grown over the other).
 */
static bool scanner__walk(struct scanner *s, const struct region *r, u64 first, bool add,
			  int *err)
{
	u64 p = first, end = r->heap_end;

	while (p + CHUNK_HDR <= end) {
		u64 size = region__chunk_size(r, p);
		u64 next = p + size;
		bool fence;

		if (!size || (size == CHUNK_HDR && next + CHUNK_HDR <= end &&
			      !region__chunk_size(r, next)))
			return p > first;
		if (size < CHUNK_MIN || size % CHUNK_ALIGN || next > end)
			return false;
		if (next + CHUNK_HDR > end)
			return end - next < s->page;	/* the top chunk, to brk */
		/* the old top, before the fenceposts, is free */
		fence = !region__chunk_size(r, next) ||
			(region__chunk_size(r, next) == CHUNK_HDR && next + CHUNK_MIN <= end &&
			 !region__chunk_size(r, next + CHUNK_HDR));
		if (add && !fence && (word(r->data + (next - r->start) + 8) & PREV_INUSE)) {
			*err = scanner__add_block(s, r, p, next + 8);
			if (*err)
				return false;
		}
		p = next;
	}
	return p == end;
}

/*
 * The first chunk of an arena's heap: after its heap_info, and in the
 * arena's first heap after its malloc_state. Both sizes depend on glibc's
 * version (heap_info is 32 bytes before 2.35): find them.
 */
static u64 scanner__arena_first(struct scanner *s, const struct region *r)
{
	static const u64 info_sizes[] = { HEAP_INFO_SIZE, HEAP_INFO_SIZE_OLD };
	u64 arena = word(r->data);
	int err = 0;

	for (unsigned int i = 0; i < ARRAY_SIZE(info_sizes); i++) {
		u64 first = r->start + info_sizes[i];

		if (arena != first) {	/* not its first heap */
			if (scanner__walk(s, r, first, false, &err))
				return first;
			continue;
		}
		for (u64 off = ARENA_SIZE_MIN; off <= ARENA_SIZE_MAX; off += CHUNK_ALIGN) {
			if (scanner__walk(s, r, first + off, false, &err))
				return first + off;
		}
	}
	return 0;
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

/*
 * Free chunks that still look in use: those in a tcache carry
 * tcache_key in their second word, found in the tcache_perthread_struct,
 * the first chunk of the main heap; those in fastbins are on lists from
 * their arena's fastbinsY, their links mangled (safe-linking).
 */
/*
 * tcache_key, if @t is a tcache_perthread_struct: u16 counts[64], then the
 * first free chunk of each bin (of chunks of 32 + 16 * bin bytes), whose
 * second word is the key; 0 if not.
 */
/* A chunk's size, from its block: CHUNK_HDR before it, 8 bytes into the next. */
static u64 block__chunk_size(const struct block *b)
{
	return b->end - b->addr + CHUNK_HDR - 8;
}

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

/* The chunks on the fastbin lists of the arena at @arena, links demangled. */
static void scanner__drop_fastbins(struct scanner *s, u64 arena)
{
	for (int f = 0; f < NFASTBINS; f++) {
		u64 p, w;
		int steps = 0;

		if (!scanner__read(s, arena + ARENA_FASTBINS + f * 8, &p))
			continue;
		while (p && steps++ < FREE_LIST_MAX) {
			struct block *b = scanner__block(s, p + CHUNK_HDR);

			if (!b || b->addr != p + CHUNK_HDR ||
			    block__chunk_size(b) > FASTBIN_CHUNK_MAX ||
			    !scanner__read(s, p + CHUNK_HDR, &w))
				break;
			b->free = true;
			p = w ^ ((p + CHUNK_HDR) >> 12);
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

/* Find the chunks in use of every heap; returns the main heap's top, or 0. */
static int scanner__find_blocks(struct scanner *s, u64 *top)
{
	int err = 0;

	*top = 0;
	for (u32 i = 0; i < s->nr_regions && !err; i++) {
		struct region *r = &s->regions[i];
		u32 nr = s->nr_blocks;
		u64 first;

		switch (r->kind) {
		case REGION__HEAP:
			if (!scanner__walk(s, r, r->start, true, &err) && !err) {
				r->kind = REGION__ROOT;	/* not glibc's: a root */
				s->nr_blocks = nr;	/* and no blocks */
				break;
			}
			/* the top chunk: the last one (none after fenceposts) */
			for (u64 p = r->start; !err; ) {
				u64 size = region__chunk_size(r, p);

				if (size < CHUNK_MIN)
					break;
				if (p + size + CHUNK_HDR > r->end) {
					*top = p;
					break;
				}
				p += size;
			}
			break;
		case REGION__ARENA:
			first = scanner__arena_first(s, r);
			if (!first || !scanner__walk(s, r, first, true, &err)) {
				r->kind = REGION__ROOT;
				s->nr_blocks = nr;
			}
			break;
		case REGION__MMAPPED:
			/* no next chunk: its size is the mapping's, less the header */
			err = scanner__add_block(s, r, r->start, r->end);
			break;
		case REGION__ROOT:
		default:
			break;
		}
	}
	if (err)
		return err;
	qsort(s->blocks, s->nr_blocks, sizeof(*s->blocks), block__cmp);
	scanner__drop_free(s, *top);
	return 0;
}

static int scanner__add_object(struct scanner *s, struct block *b, u8 type, s32 refcnt)
{
	struct refcnt_scan_object *o;

	if (array__grow(&s->objects, s->nr_objects, &s->alloc_objects, sizeof(*o)))
		return -ENOMEM;
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

/* The blocks that look like objects of the audited types. */
static int scanner__find_objects(struct scanner *s)
{
	for (u32 i = 0; i < s->nr_blocks; i++) {
		struct block *b = &s->blocks[i];
		u64 csize = block__chunk_size(b);

		if (b->free)
			continue;
		for (unsigned int t = 0; t < REFCNT_TYPE__MAX_NR; t++) {
			const struct refcnt_scan_type *st = &s->types[t];
			u64 size = st->size, want;
			s32 refcnt, nr = 0;
			int err;

			if (!st->size || st->refcnt_offset < 0 ||
			    st->size > b->end - b->addr)
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
			err = scanner__add_object(s, b, t, refcnt);
			if (err)
				return err;
		}
	}
	return 0;
}

/* The unreachable blocks that unreachable block @b points to: LSan's indirect. */
static void scanner__indirect(struct scanner *s, const struct block *b)
{
	for (u64 off = 0; off + 8 <= b->end - b->addr; off += 8) {
		struct block *p = scanner__block(s, word(b->data + off));

		if (p && p != b && !p->reached && !p->free)
			p->indirect = true;
	}
}

/*
 * Every aligned word of [@data, @data + @len): a pointer into a block
 * reaches it; one to an object's start is counted when @count. From an
 * unreachable object (@from), the unreachable blocks it reaches are held
 * by it.
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
		if (count && w == b->addr) {
			for (u32 o = 0; o < b->nr_objects; o++)
				s->objects[b->first_object - 1 + o].words++;
		}
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
			b->reached = true;
		}
		s->stack[s->nr_stack++] = b - s->blocks;
	}
}

/* Scan the blocks reached until none is left to scan. */
static void scanner__drain(struct scanner *s, bool count, const struct refcnt_scan_object *from)
{
	while (s->nr_stack) {
		const struct block *b = &s->blocks[s->stack[--s->nr_stack]];

		scanner__scan(s, b->data, b->end - b->addr, count, from);
	}
}

static void scanner__mark(struct scanner *s, const u8 *regs, size_t regs_len, u64 sp)
{
	for (u32 i = 0; i < s->nr_regions; i++) {
		const struct region *r = &s->regions[i];
		u64 start = r->start;

		if (r->kind != REGION__ROOT)
			continue;
		if (r->stack && sp > r->start && sp < r->end)
			start = sp & ~7ULL;
		s->result->roots += r->end - start;
		scanner__scan(s, r->data + (start - r->start), r->end - start, true, NULL);
		scanner__drain(s, true, NULL);
	}
	scanner__scan(s, regs, regs_len, true, NULL);
	scanner__drain(s, true, NULL);

	/*
	 * LSan's indirect leaks: an unreachable block another unreachable one
	 * points to. An object in one is held by the unreachable object not
	 * so pointed to (a direct leak) that reaches it first; those of a
	 * cycle that no direct leak reaches are held by none.
	 */
	for (u32 i = 0; i < s->nr_blocks; i++) {
		struct block *b = &s->blocks[i];

		s->result->reached += b->reached;
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
			scanner__scan(s, b->data, b->end - b->addr, false, from);
			scanner__drain(s, false, from);
		}
	}
	for (u32 i = 0; i < s->nr_objects; i++) {
		struct block *b = scanner__block(s, s->objects[i].addr);

		s->objects[i].reachable = b && b->reached;
	}
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

int refcnt_scan__process(struct refcnt_scan *scan, pid_t pid,
			 const struct refcnt_scan_type types[REFCNT_TYPE__MAX_NR])
{
	struct scanner s = {
		.pid = pid, .types = types, .result = &scan->result,
		.page = sysconf(_SC_PAGESIZE),
	};
	struct timespec t0, t1;
	u8 regs[1024];
	size_t regs_len;
	u64 top, sp;
	int err;

	memset(scan, 0, sizeof(*scan));
	scan->result.magic = REFCNT_SCAN_MAGIC;
	scan->result.pid = pid;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	scan->result.time = t0.tv_sec * 1000000000ULL + t0.tv_nsec;

	regs_len = scanner__regs(pid, regs, sizeof(regs), &sp);
	err = scanner__read_maps(&s);
	if (err == -EACCES || (!err && !s.nr_regions)) {
		scan->result.status = REFCNT_SCAN__FAILED;
		err = 0;
		goto out;
	}
	if (!err)
		err = scanner__find_blocks(&s, &top);
	if (!err && !s.nr_blocks) {
		scan->result.status = REFCNT_SCAN__NO_HEAP;
		goto out;
	}
	if (!err)
		err = scanner__find_objects(&s);
	if (!err) {
		s.stack = calloc(s.nr_blocks + 1, sizeof(*s.stack));
		if (!s.stack)
			err = -ENOMEM;
	}
	if (err)
		goto out;
	scanner__mark(&s, regs, regs_len, sp);
	scan->result.blocks = s.nr_blocks;
	scan->result.nr_objects = s.nr_objects;
	scan->objects = s.objects;
	s.objects = NULL;
	scan->result.status = REFCNT_SCAN__DONE;
out:
	clock_gettime(CLOCK_MONOTONIC, &t1);
	scan->result.ns = (t1.tv_sec - t0.tv_sec) * 1000000000ULL + t1.tv_nsec - t0.tv_nsec;
	for (u32 i = 0; i < s.nr_regions; i++) {
		if (s.regions[i].owns)
			free(s.regions[i].data);
	}
	free(s.regions);
	free(s.blocks);
	free(s.stack);
	free(s.objects);
	return err;
}

void refcnt_scan__exit(struct refcnt_scan *scan)
{
	zfree(&scan->objects);
}
