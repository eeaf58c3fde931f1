// SPDX-License-Identifier: GPL-2.0
/*
 * The heap blocks the audited process freed, and the functions that put
 * each object: see heap_free.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "../hashmap.h"
#include "hash.h"
#include "heap_free.h"

/* block addresses kept at most: ~100 bytes each */
#define REFCNT_FREES_MAX	1048576
/* blocks that start below a word looked at for the one that holds it, at most */
#define REFCNT_FREES_WALK	256

struct free_entry {
	struct refcnt_space_addr key;	/* first: the hashmap's key points here */
	struct refcnt_free	f;
};

struct refcnt_frees {
	/* struct refcnt_space_addr * of a block -> struct free_entry */
	struct hashmap		*by_block;
	struct free_entry	**sorted;	/* by space, then block, once asked */
	u32			nr;
	u64			dropped;
	bool			sealed;
};

struct refcnt_frees *refcnt_frees__new(void)
{
	struct refcnt_frees *fs = zalloc(sizeof(*fs));

	if (!fs)
		return NULL;
	fs->by_block = hashmap__new(refcnt_space_addr__hash, refcnt_space_addr__equal, NULL);
	if (IS_ERR(fs->by_block)) {
		free(fs);
		return NULL;
	}
	return fs;
}

void refcnt_frees__delete(struct refcnt_frees *fs)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!fs)
		return;
	hashmap__for_each_entry(fs->by_block, cur, bkt)
		free(cur->pvalue);
	hashmap__free(fs->by_block);
	free(fs->sorted);
	free(fs);
}

int refcnt_frees__add(struct refcnt_frees *fs, const struct refcnt_free *f)
{
	struct refcnt_space_addr key = { .space = f->space, .addr = f->block };
	struct free_entry *e;

	if (fs->sealed)
		return 0;
	if (hashmap__find(fs->by_block, &key, &e)) {
		e->f = *f;
		return 0;
	}
	if (fs->nr >= REFCNT_FREES_MAX) {
		fs->dropped++;
		return 0;
	}
	e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->key = key;
	e->f = *f;
	if (hashmap__add(fs->by_block, &e->key, e)) {
		free(e);
		return -ENOMEM;
	}
	fs->nr++;
	return 0;
}

u64 refcnt_frees__dropped(const struct refcnt_frees *fs)
{
	return fs->dropped;
}

static int free_entry__cmp(const void *pa, const void *pb)
{
	const struct free_entry *a = *(const struct free_entry **)pa;
	const struct free_entry *b = *(const struct free_entry **)pb;

	if (a->key.space != b->key.space)
		return a->key.space < b->key.space ? -1 : 1;
	return a->key.addr < b->key.addr ? -1 : a->key.addr > b->key.addr;
}

static void frees__seal(struct refcnt_frees *fs)
{
	struct hashmap_entry *cur;
	size_t bkt;
	u32 n = 0;

	fs->sealed = true;
	fs->sorted = calloc(fs->nr ?: 1, sizeof(*fs->sorted));
	if (!fs->sorted)
		return;
	hashmap__for_each_entry(fs->by_block, cur, bkt)
		fs->sorted[n++] = cur->pvalue;
	qsort(fs->sorted, n, sizeof(*fs->sorted), free_entry__cmp);
}

/* The index of the last block of @space that starts at or below @word, or -1. */
static long frees__below(const struct refcnt_frees *fs, u64 space, u64 word)
{
	long lo = 0, hi = fs->nr;

	while (lo < hi) {
		long mid = (lo + hi) / 2;
		const struct free_entry *e = fs->sorted[mid];

		if (e->key.space < space || (e->key.space == space && e->key.addr <= word))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

const struct refcnt_free *refcnt_frees__find(struct refcnt_frees *fs, u64 space, u64 word)
{
	const struct refcnt_free *last = NULL;
	long i;

	if (!fs->sealed)
		frees__seal(fs);
	/* a block not kept may have been the last to hold the word: no answer */
	if (!fs->sorted || fs->dropped)
		return NULL;
	/*
	 * Blocks of every size started below: a bigger one freed later over
	 * the same memory is the last that held it (malloc reuses memory)
	 */
	i = frees__below(fs, space, word);
	for (long n = 0; i >= 0 && n < REFCNT_FREES_WALK; i--, n++) {
		const struct free_entry *e = fs->sorted[i];

		if (e->key.space != space)
			break;
		if (word - e->key.addr < e->f.size && (!last || e->f.time > last->time))
			last = &e->f;
	}
	return last;
}

/* @key's entry in @p, or NULL */
static struct refcnt_putter *putters__find(const struct refcnt_putters *p, u64 key)
{
	for (u16 i = 0; i < p->nr; i++) {
		if (p->putters[i].key == key)
			return &p->putters[i];
	}
	return NULL;
}

int refcnt_putters__add(struct refcnt_putters *p, u64 key, u64 slot)
{
	struct refcnt_putter *putters, *known;

	if (!key || p->full)
		return 0;
	known = putters__find(p, key);
	if (known) {
		if (known->slot != slot)
			known->slot = 0;
		return 0;
	}
	if (p->nr >= REFCNT_PUTTERS_MAX) {
		p->full = true;
		refcnt_putters__exit(p);
		return 0;
	}
	if (p->nr == p->alloc) {
		u16 alloc = p->alloc ? p->alloc * 2 : 4;

		putters = reallocarray(p->putters, alloc, sizeof(*putters));
		if (!putters)
			return -ENOMEM;
		p->putters = putters;
		p->alloc = alloc;
	}
	p->putters[p->nr++] = (struct refcnt_putter){ .key = key, .slot = slot };
	return 0;
}

bool refcnt_putters__has(const struct refcnt_putters *p, u64 key)
{
	return p->full || putters__find(p, key);
}

bool refcnt_putters__in(const struct refcnt_putters *p, u64 key, u64 lo, u64 size)
{
	const struct refcnt_putter *known;

	if (p->full)
		return true;
	known = putters__find(p, key);
	return known && (!known->slot || known->slot - lo < size);
}

void refcnt_putters__exit(struct refcnt_putters *p)
{
	zfree(&p->putters);
	p->nr = 0;
	p->alloc = 0;
}
