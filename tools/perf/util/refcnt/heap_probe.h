/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_HEAP_PROBE_H
#define __PERF_REFCNT_HEAP_PROBE_H
/*
 * Where the uprobe on the C library's free() (heap_free.h) goes, placed
 * with --slots (probe.c): REFCNT_FREE_EVENT, which fetches the block, its chunk's size word, the
 * return address and the one in the caller's frame (8(%bp)), so that a
 * call from a free wrapper names the wrapper's caller without a callchain.
 *
 * The C library is the one this perf runs with: the perf audited is built
 * and run on the same machine, and links the same libc.so.6. A perf linked
 * against another one would not hit the probe, and the evidence would
 * simply be missing.
 */
#include <stdbool.h>
#include <linux/types.h>

struct refcnt_heap_probe {
	char	*lib;		/* the C library's path */
	u64	offset;		/* free()'s, in it */
};

/* Find free() in the C library: 0, or a negative error (then no probe). */
int refcnt_heap_probe__resolve(struct refcnt_heap_probe *hp);
void refcnt_heap_probe__exit(struct refcnt_heap_probe *hp);

#endif /* __PERF_REFCNT_HEAP_PROBE_H */
