// SPDX-License-Identifier: GPL-2.0
/*
 * Interned callchains of perf refcnt. perf's callchain_cursor and
 * callchain_node trees merge chains to show them; here each distinct chain
 * needs a stable identity to compare and count by, hence this table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/zalloc.h>

#include "../hashmap.h"
#include "stacks.h"

/* ids the table starts with: a short recording has a few hundred stacks */
#define REFCNT_STACKS__FIRST_ALLOC	1024

static size_t stack__hash(long key, void *ctx __maybe_unused)
{
	const struct refcnt_stack *s = (const struct refcnt_stack *)key;
	size_t h = s->nr * 31 + s->space;

	for (u32 i = 0; i < s->nr; i++)
		h = h * 31 + (s->ips[i] ^ (s->ips[i] >> 17));
	return h;
}

static bool stack__equal(long key1, long key2, void *ctx __maybe_unused)
{
	const struct refcnt_stack *a = (const struct refcnt_stack *)key1;
	const struct refcnt_stack *b = (const struct refcnt_stack *)key2;

	return a->nr == b->nr && a->space == b->space &&
	       !memcmp(a->ips, b->ips, a->nr * sizeof(a->ips[0]));
}

int refcnt_stacks__init(struct refcnt_stacks *stacks)
{
	memset(stacks, 0, sizeof(*stacks));
	stacks->map = hashmap__new(stack__hash, stack__equal, NULL);
	return IS_ERR(stacks->map) ? PTR_ERR(stacks->map) : 0;
}

void refcnt_stacks__exit(struct refcnt_stacks *stacks)
{
	for (u32 i = 0; i < stacks->nr; i++)
		free(stacks->by_id[i]);
	zfree(&stacks->by_id);
	if (!IS_ERR_OR_NULL(stacks->map))
		hashmap__free(stacks->map);
	stacks->map = NULL;
	stacks->nr = 0;
}

u32 refcnt_stacks__intern(struct refcnt_stacks *stacks, const u64 *ips, u32 nr, u64 space)
{
	struct refcnt_stack *s;
	long id;

	if (!nr)
		return 0;

	s = malloc(sizeof(*s) + nr * sizeof(s->ips[0]));
	if (!s)
		return 0;
	s->nr = nr;
	s->space = space;
	memcpy(s->ips, ips, nr * sizeof(ips[0]));

	if (hashmap__find(stacks->map, s, &id)) {
		free(s);
		return id;
	}

	if (stacks->nr == stacks->alloc) {
		u32 alloc = stacks->alloc ? stacks->alloc * 2 : REFCNT_STACKS__FIRST_ALLOC;
		struct refcnt_stack **by_id = reallocarray(stacks->by_id, alloc,
							   sizeof(*by_id));

		if (!by_id)
			goto out_free;
		stacks->by_id = by_id;
		stacks->alloc = alloc;
	}
	id = stacks->nr + 1;
	if (hashmap__add(stacks->map, s, id))
		goto out_free;
	stacks->by_id[stacks->nr++] = s;
	return id;

out_free:
	free(s);
	return 0;
}
