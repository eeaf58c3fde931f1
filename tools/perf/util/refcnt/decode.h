/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_DECODE_H
#define __PERF_REFCNT_DECODE_H

#include <linux/types.h>

#include "pairing.h"
#include "stacks.h"

/*
 * Turn the samples of a perf refcnt recording into refcnt_events: which
 * type and operation an event is comes from its name (see spec.h), the
 * object, live refcount and call site from its uprobe fields, the callchain
 * is interned, and the call site's function (the pairing engine's caller
 * key) is looked up once per site.
 */
struct evlist;
struct evsel;
struct hashmap;
struct machine;
struct perf_sample;

struct refcnt_stack_up {
	bool	known;
	u8	nr;		/* frames in @up */
	u64	up[REFCNT_ABOVE_FRAMES];
	u16	handoff[REFCNT_ABOVE_FRAMES];	/* types each hands on (handoff.h) */
};

/* An inlined get or put that was probed without its object. */
struct refcnt_uncovered {
	u8	type;
	u8	op;
	u64	vaddr;		/* in the binary, from the event's name */
	u64	hits;
	u64	ip;		/* of the first hit, and its address space */
	u64	space;
};

struct refcnt_decoder {
	struct refcnt_stacks	stacks;
	/* struct refcnt_space_addr * of a site -> struct refcnt_caller */
	struct hashmap		*callers;
	/*
	 * a dso (RC_CHK_ACCESS()) -> struct refcnt_dso_handoff: the
	 * reference held on it and its DWARF's table (NULL: none)
	 */
	struct hashmap		*handoffs;
	struct hashmap		*execs;		/* pid -> its execs seen */
	/* an inlined function's key (inline_scope.h) -> its name */
	struct hashmap		*scope_names;
	/* per stack id - 1: the caller keys of the frames above the site */
	struct refcnt_stack_up	*ups;
	u32			nr_ups;
	struct machine		*machine;
	unsigned long		type_mask;	/* types present in the recording */
	u64			null_ops;	/* get/put(NULL): legal, not objects */
	u64			bad_samples;	/* samples that do not decode */
	bool			has_frees;	/* free() events (REFCNT_FREE_EVENT) */
	struct refcnt_uncovered	*uncovered;
	u32			nr_uncovered;
};

/* Returns the number of perf refcnt events in @evlist, or a negative error. */
int refcnt_decoder__init(struct refcnt_decoder *d, struct evlist *evlist,
			 struct machine *machine);
void refcnt_decoder__exit(struct refcnt_decoder *d, struct evlist *evlist);

/*
 * Process @pid exec'd: the objects it has from now on are in a new address
 * space, even at the addresses of the old ones. Returns 0 or -ENOMEM.
 */
int refcnt_decoder__exec(struct refcnt_decoder *d, u32 pid);

/* The address space of an event is its pid, and its execs above bit 32. */
static inline u32 refcnt_space__pid(u64 space)
{
	return (u32)space;
}

/* The address space process @pid is in now. */
u64 refcnt_decoder__space(const struct refcnt_decoder *d, u32 pid);

/*
 * 0: @ev filled; 1: nothing to feed (NULL object, not ours); 2: an operation
 * whose object is unknown (a hit of an uncovered site, or a sample that does
 * not hold its fields), @ev has its type, op and time; < 0: error
 */
int refcnt_decoder__decode(struct refcnt_decoder *d, struct evsel *evsel,
			   struct perf_sample *sample, struct refcnt_event *ev);

/*
 * A free() of the audited process (REFCNT_FREE_EVENT): 0 and @f filled, 1
 * if @evsel's is not one, 2 if it is one that cannot be used (damaged, or
 * a chunk size that cannot be). A call from a free wrapper is told at its
 * caller.
 */
struct refcnt_free;
int refcnt_decoder__decode_free(struct refcnt_decoder *d, struct evsel *evsel,
				struct perf_sample *sample, struct refcnt_free *f);

#endif /* __PERF_REFCNT_DECODE_H */
