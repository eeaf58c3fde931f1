/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_SCAN_H
#define __PERF_REFCNT_SCAN_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

#include "spec.h"

/*
 * The audited process's memory at its exit, scanned the way LeakSanitizer
 * scans (lsan_common.cpp): roots are the writable segments of its images,
 * the other anonymous writable mappings (stacks, TLS), and the registers of
 * the stopped thread; blocks are glibc malloc's chunks in use (the main
 * heap, the heaps of other arenas, mmapped chunks), free chunks left out
 * even where they still look in use (tcache and fastbins); every aligned
 * word of a root or of a block reached is a pointer if it points into a
 * block, which is then reached too.
 *
 * The objects of the audited types are found among the blocks by their
 * size (DWARF's, or at least it for a struct ending in a flexible array)
 * and a plausible refcount at their refcount's offset. For each one, the
 * scan says whether it is reachable, how many words of reachable memory
 * point to its start (a reference is a pointer somewhere: a refcount above
 * that number is references that no reachable memory accounts for), and,
 * if unreachable, which unreachable object first reaches it (it is held by
 * that leaked object, LSan's "indirect" leak).
 *
 * What it cannot see: pointers kept only in the registers of threads other
 * than the stopped one, or in another process; pointers stored XOR-ed,
 * tagged or as offsets; memory of another allocator than glibc's malloc
 * (its blocks are roots, not blocks).
 *
 * The process is not trusted: its heap may be damaged. Every chunk size is
 * checked against its heap before it is followed, free lists are walked a
 * bounded number of steps and stop at a cycle or a bad link, and the whole
 * scan has a time and a memory budget (struct refcnt_scan_limits). What it
 * could not cover is said in refcnt_scan_result.partial: where a heap's
 * chunks stop making sense, the blocks before are kept and the rest of the
 * heap is a root (which can hide a leak there, never make one up); a
 * mapping that cannot be read or is past the memory budget is left out
 * (which can make up a leak: an object only it points to looks
 * unreachable); out of time, no more memory is read or walked, and the
 * objects already found are returned unmarked (reachable NONE, no words)
 * when the marking, which scans every root, cannot start in time.
 */

/* glibc malloc, 64-bit: the smallest chunk, the flags in its size word */
#define REFCNT_CHUNK_MIN	32ULL
#define REFCNT_CHUNK_FLAGS	7ULL

/* What an object of an audited type looks like in memory. */
struct refcnt_scan_type {
	u32	size;		/* sizeof the struct; 0: the type is not looked for */
	s32	refcnt_offset;	/* of its refcount */
	/*
	 * a flexible array of @elem_size bytes long by the int at @nr_offset,
	 * or of a length not known (@nr_offset -1): at least @size then
	 */
	s32	nr_offset;
	u32	elem_size;
	u32	tail_size;	/* some are allocated with a struct of this size after */
	/*
	 * the pointers at @array_offset[0 .. @nr_arrays) are arrays of their
	 * own allocation, of as many elements as the unsigned int at
	 * @array_alloc_offset says, of which the one at @array_nr_offset are
	 * in use: only those words are scanned
	 */
	u32	nr_arrays;
	u32	array_offset[REFCNT_SPEC__MAX_ARRAYS];
	u32	array_nr_offset, array_alloc_offset;
};

/* How an object found is reached (refcnt_scan_object.reachable). */
enum refcnt_scan_reach {
	REFCNT_SCAN_REACH__NONE,	/* from no root: leaked, or held by a leak */
	REFCNT_SCAN_REACH__DATA,	/* from the images' data, TLS or other memory */
	/*
	 * only from the exiting thread's stack or registers: a local of a
	 * live frame, or a stale word a dead frame left there; the scan
	 * cannot tell which
	 */
	REFCNT_SCAN_REACH__STACK,
};

/* One object found, as stored in the recording. */
struct refcnt_scan_object {
	u64	addr;
	/*
	 * the leaked object that reaches it first, or 0: unreachable, it is
	 * held by that leak; reachable, that leak holds some of its
	 * references (@held_words)
	 */
	u64	holder;
	s32	refcnt;		/* its refcount, as read */
	u32	words;		/* words of reachable memory that point to it */
	u8	type;		/* index in refcnt_type_specs */
	u8	reachable;	/* enum refcnt_scan_reach */
	u16	held_words;	/* words of leaked memory that point to it
				 * (saturated; 0 in a recording made before)
				 */
	u32	stack_words;	/* of @words, those in the stack or registers */
};

enum refcnt_scan_status {
	REFCNT_SCAN__DONE,
	REFCNT_SCAN__NOT_RUN,		/* --no-scan */
	REFCNT_SCAN__NOT_STOPPED,	/* the process ended without its exit stop */
	REFCNT_SCAN__DETACHED,		/* the recording ended before the process */
	REFCNT_SCAN__NO_HEAP,		/* no glibc heap found */
	REFCNT_SCAN__FAILED,		/* its memory could not be read */
	REFCNT_SCAN__MAX,
};

/*
 * Why a scan that is DONE did not cover everything (refcnt_scan_result.
 * partial): an object whose class rests on memory left out may be
 * misclassed, and the report marks it.
 */
enum refcnt_scan_partial {
	REFCNT_SCAN_PARTIAL__UNREADABLE	= 1 << 0,	/* a mapping could not be read */
	REFCNT_SCAN_PARTIAL__HEAP_WALK	= 1 << 1,	/* a heap's chunks did not walk: a root */
	REFCNT_SCAN_PARTIAL__CORRUPT	= 1 << 2,	/* a bad chunk or a cycle ended a walk */
	REFCNT_SCAN_PARTIAL__BUDGET	= 1 << 3,	/* the time or memory budget ran out */
	REFCNT_SCAN_PARTIAL__NOMEM	= 1 << 4,	/* the scanner ran out of memory */
	REFCNT_SCAN_PARTIAL__MAX	= 1 << 5,
};

/* The result, as stored in the recording: this header, then the objects. */
struct refcnt_scan_result {
	u32	magic;			/* REFCNT_SCAN_MAGIC */
	u32	status;			/* enum refcnt_scan_status */
	u32	pid;			/* the process scanned */
	u32	nr_objects;
	u32	signal;			/* that killed it (a crash), or 0 */
	u32	exit_code;		/* its exit status when no signal killed it */
	u64	time;			/* of the exit stop, CLOCK_MONOTONIC ns */
	u64	bytes;			/* of memory read */
	u64	ns;			/* the scan took */
	u64	roots, blocks, reached;	/* root bytes, blocks in use, reached */
	/* what it covered */
	u32	partial;		/* enum refcnt_scan_partial bits */
	u32	regions_read;		/* writable mappings read */
	u32	regions_skipped;	/* writable mappings not read, or read in part */
	u32	walks_failed;		/* heaps whose chunks could not be walked */
	u64	bytes_skipped;		/* of the mappings not read */
	u64	stack_bytes;		/* of the exiting thread's stack scanned */
	u32	types;			/* the types looked for, by index: a bit each */
	u32	nr_freed;		/* struct refcnt_scan_freed after the objects
					 * (0 in a recording made before)
					 */
};

/*
 * A word of freed heap memory (a free chunk, one in a tcache or a fastbin,
 * the top) that points to the start of an object with references no
 * pointer accounts for (unreachable, or reachable by fewer words of
 * reachable memory than its refcount): what a block
 * freed with the object's address in it left. The block that held a
 * reference and was freed without its put may be its holder's array: the
 * report asks which free() that block was (pairing.h). Up to
 * REFCNT_SCAN_FREED_PER_OBJECT per object, REFCNT_SCAN_FREED_MAX in all.
 */
struct refcnt_scan_freed {
	u64	addr;		/* the object's */
	u64	word;		/* where the word is */
};

#define REFCNT_SCAN_FREED_PER_OBJECT	16
#define REFCNT_SCAN_FREED_MAX		262144

/* "RSC2": the second layout, with what the scan covered */
#define REFCNT_SCAN_MAGIC	0x32435352

struct refcnt_scan {
	struct refcnt_scan_result	result;
	struct refcnt_scan_object	*objects;	/* by address */
	struct refcnt_scan_freed	*freed;		/* as found */
};

/* A writable mapping of the process, and its memory, read. */
struct refcnt_scan_mapping {
	u64		start, end;
	const char	*name;		/* as /proc/pid/maps: "[heap]", "[stack]", "", a path */
	const u8	*data;		/* end - start bytes; NULL: it could not be read */
};

/*
 * What one scan may take, 0 for the default. Time: the process waits,
 * stopped at its exit, for the whole scan, which takes well under a second
 * for a perf of a few hundred MiB; 20 s lets one of gigabytes finish and
 * bounds a scan a damaged heap would make long. Memory: every writable
 * mapping is copied, and the copies are kept until the scan ends, while
 * the process's own memory is still in use, and the scan adds 40 bytes
 * per heap block to them: a quarter of the RAM, at most 8 GiB (more would
 * not be scanned in the time budget anyway).
 */
struct refcnt_scan_limits {
	u64	ns;			/* of wall-clock time, from the scan's start */
	u64	bytes;			/* of memory copied (or given) */
};

#define REFCNT_SCAN_NS_DEFAULT		(20ULL * 1000000000ULL)
#define REFCNT_SCAN_BYTES_MAX		(8ULL << 30)

/*
 * Scan process @pid, stopped (at its exit): what @types look like is
 * indexed as refcnt_type_specs. Returns 0 with @scan->result.status DONE,
 * or with another status saying why not; < 0 only when out of memory.
 */
int refcnt_scan__process(struct refcnt_scan *scan, pid_t pid,
			 const struct refcnt_scan_type types[REFCNT_TYPE__MAX_NR]);
/* The same within @limits (NULL: the defaults). */
int refcnt_scan__process_limits(struct refcnt_scan *scan, pid_t pid,
				const struct refcnt_scan_type types[REFCNT_TYPE__MAX_NR],
				const struct refcnt_scan_limits *limits);
/*
 * The scan of memory already read: the @nr writable mappings @maps of a
 * process, in the order of /proc/pid/maps, the registers @regs of its
 * stopped thread and that thread's stack pointer @sp; the result keeps no
 * pointer into them. Returns as refcnt_scan__process() does.
 */
int refcnt_scan__mappings(struct refcnt_scan *scan, const struct refcnt_scan_mapping *maps,
			  u32 nr, const u8 *regs, size_t regs_len, u64 sp,
			  const struct refcnt_scan_type types[REFCNT_TYPE__MAX_NR],
			  const struct refcnt_scan_limits *limits);
void refcnt_scan__exit(struct refcnt_scan *scan);

const char *refcnt_scan_status__name(enum refcnt_scan_status status);
/* What the bits of @partial (enum refcnt_scan_partial) say, in one static string. */
const char *refcnt_scan_partial__names(u32 partial);

#endif /* __PERF_REFCNT_SCAN_H */
