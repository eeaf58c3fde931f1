/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_HASH_H
#define __PERF_REFCNT_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/types.h>

#include "../hashmap.h"

/*
 * The keys of perf refcnt's hashmaps (util/hashmap.h), which has no hash
 * of its own for integer keys: an address, a tid or a pid as the key
 * itself, or an address in an address space through a pointer to a
 * struct refcnt_space_addr that the map's owner allocates.
 */
static inline size_t refcnt_addr__hash(long key, void *ctx __maybe_unused)
{
	/* hashmap multiplies by the golden ratio: fold the high bits in */
	return key ^ (key >> 21);
}

static inline bool refcnt_addr__equal(long a, long b, void *ctx __maybe_unused)
{
	return a == b;
}

/*
 * A key of an address and a type: addresses are user addresses, so the
 * type goes in the top byte (the scan's objects, the pairs model's rows).
 */
static inline long refcnt_type_addr__key(u64 addr, u8 type)
{
	return (long)(addr ^ ((u64)type << 56));
}

struct refcnt_space_addr {
	u64	space;		/* as in struct refcnt_event */
	u64	addr;
};

static inline size_t refcnt_space_addr__hash(long key, void *ctx __maybe_unused)
{
	const struct refcnt_space_addr *k = (const void *)key;

	return refcnt_addr__hash(k->addr * 31 + k->space, NULL);
}

static inline bool refcnt_space_addr__equal(long a, long b, void *ctx __maybe_unused)
{
	const struct refcnt_space_addr *ka = (const void *)a, *kb = (const void *)b;

	return ka->addr == kb->addr && ka->space == kb->space;
}

/* Free @map (an error pointer or NULL: nothing) and each value it holds, malloc()ed. */
static inline void refcnt_hashmap__free_values(struct hashmap *map)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (IS_ERR_OR_NULL(map))
		return;
	hashmap__for_each_entry(map, cur, bkt)
		free(cur->pvalue);
	hashmap__free(map);
}

#endif /* __PERF_REFCNT_HASH_H */
