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
 */

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
};

/* One object found, as stored in the recording. */
struct refcnt_scan_object {
	u64	addr;
	u64	holder;		/* unreachable: the leaked object that reaches it, or 0 */
	s32	refcnt;		/* its refcount, as read */
	u32	words;		/* words of reachable memory that point to it */
	u8	type;		/* index in refcnt_type_specs */
	u8	reachable;
	u8	pad[6];
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

/* The result, as stored in the recording: this header, then the objects. */
struct refcnt_scan_result {
	u32	magic;			/* REFCNT_SCAN_MAGIC */
	u32	status;			/* enum refcnt_scan_status */
	u32	pid;			/* the process scanned */
	u32	nr_objects;
	u32	signal;			/* that killed it (a crash), or 0 */
	u32	reserved;
	u64	time;			/* of the exit stop, CLOCK_MONOTONIC ns */
	u64	bytes;			/* of memory read */
	u64	ns;			/* the scan took */
	u64	roots, blocks, reached;	/* root bytes, blocks in use, reached */
};

#define REFCNT_SCAN_MAGIC	0x4e435352	/* "RSCN" */

struct refcnt_scan {
	struct refcnt_scan_result	result;
	struct refcnt_scan_object	*objects;	/* by address */
};

/*
 * Scan process @pid, stopped (at its exit): what @types look like is
 * indexed as refcnt_type_specs. Returns 0 with @scan->result.status DONE,
 * or with another status saying why not; < 0 only when out of memory.
 */
int refcnt_scan__process(struct refcnt_scan *scan, pid_t pid,
			 const struct refcnt_scan_type types[REFCNT_TYPE__MAX_NR]);
void refcnt_scan__exit(struct refcnt_scan *scan);

const char *refcnt_scan_status__name(enum refcnt_scan_status status);

#endif /* __PERF_REFCNT_SCAN_H */
