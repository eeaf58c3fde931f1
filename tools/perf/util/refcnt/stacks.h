/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_STACKS_H
#define __PERF_REFCNT_STACKS_H

#include <linux/types.h>

/*
 * Interned callchains: every distinct user callchain is kept once and named
 * by a small id, so that references and findings carry a u32, and memory
 * grows with unique stacks, not with events. Id 0 is "no callchain".
 */
struct hashmap;

struct refcnt_stack {
	u32	nr;
	u64	space;		/* the address space it was seen in, to
				 * symbolize: part of its identity, as the
				 * same addresses in two images are two stacks
				 */
	u64	ips[];
};

struct refcnt_stacks {
	struct hashmap		*map;		/* refcnt_stack * -> id */
	struct refcnt_stack	**by_id;	/* [id - 1] */
	u32			nr;
	u32			alloc;
};

int refcnt_stacks__init(struct refcnt_stacks *stacks);
void refcnt_stacks__exit(struct refcnt_stacks *stacks);

/* The id of @ips[0..nr) in @space, interned on first sight; 0 on error or empty. */
u32 refcnt_stacks__intern(struct refcnt_stacks *stacks, const u64 *ips, u32 nr, u64 space);

static inline const struct refcnt_stack *
refcnt_stacks__get(const struct refcnt_stacks *stacks, u32 id)
{
	return id && id <= stacks->nr ? stacks->by_id[id - 1] : NULL;
}

#endif /* __PERF_REFCNT_STACKS_H */
