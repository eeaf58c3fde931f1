// SPDX-License-Identifier: GPL-2.0
/*
 * The references outstanding on one lifetime: see refset.h.
 *
 * An indexed set keeps one bucket per (set, key kind, key): the positions
 * of its references with that key, oldest first. Buckets are not told of
 * releases: a bucket entry is checked when it is used (its slot live, its
 * key still the bucket's, since trailing dead slots are reused), and dead
 * entries at a bucket's end are dropped then.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>
#include <tools/libc_compat.h>

#include "../hashmap.h"
#include "refset.h"

/* key kinds: depths 0..UP, then tid, then REFSET_SCOPE, then REFSET_SLOT */
#define REFSET_BY_TID	(REFCNT_UP_FRAMES + 1)
#define REFSET_KINDS	(REFSET_SLOT + 1)

struct refset_slot {
	struct refcnt_ref	ref;
	u64			stamp;		/* of the last bucket compaction that kept it */
	bool			dead;
};

struct refset_key {
	const struct refcnt_refset *set;
	u64			value;
	int			kind;
};

struct refset_bucket {
	struct refset_key	key;		/* the hashmap's key points here */
	struct list_head	node;		/* in set->buckets */
	u32			*pos;		/* slots, oldest first */
	u32			nr;
	u32			alloc;
};

static size_t key__hash(long key, void *ctx __maybe_unused)
{
	const struct refset_key *k = (const struct refset_key *)key;

	return ((uintptr_t)k->set * 31 + k->value) * 31 + k->kind;
}

static bool key__equal(long a, long b, void *ctx __maybe_unused)
{
	const struct refset_key *ka = (const struct refset_key *)a;
	const struct refset_key *kb = (const struct refset_key *)b;

	return ka->set == kb->set && ka->value == kb->value && ka->kind == kb->kind;
}

int refcnt_refset_index__init(struct refcnt_refset_index *index, u32 index_min)
{
	index->index_min = index_min;
	index->buckets = hashmap__new(key__hash, key__equal, NULL);
	if (IS_ERR(index->buckets)) {
		index->buckets = NULL;
		return -ENOMEM;
	}
	return 0;
}

void refcnt_refset_index__exit(struct refcnt_refset_index *index)
{
	hashmap__free(index->buckets);
	index->buckets = NULL;
}

void refcnt_refset__init(struct refcnt_refset *set, struct refcnt_refset_index *index)
{
	memset(set, 0, sizeof(*set));
	set->index = index;
	INIT_LIST_HEAD(&set->buckets);
}

/* The key of kind @kind of @ref; 0 is no key. */
static u64 ref__key(const struct refcnt_ref *ref, int kind)
{
	if (kind == REFSET_BY_TID)
		return (u64)ref->tid + 1;
	if (kind == REFSET_SCOPE)
		return ref->scope;
	if (kind == REFSET_SLOT)
		return ref->slot;
	return kind ? ref->up[kind - 1] : ref->caller;
}

static void refset__drop_buckets(struct refcnt_refset *set)
{
	struct refset_bucket *b, *tmp;

	list_for_each_entry_safe(b, tmp, &set->buckets, node) {
		hashmap__delete(set->index->buckets, &b->key, NULL, NULL);
		list_del(&b->node);
		free(b->pos);
		free(b);
	}
	set->indexed = false;
}

void refcnt_refset__exit(struct refcnt_refset *set)
{
	refset__drop_buckets(set);
	zfree(&set->slots);
	zfree(&set->born_pos);
	set->nr_born_pos = 0;
	set->alloc_born_pos = 0;
	set->nr = 0;
	set->alloc = 0;
	set->live = 0;
	set->born = 0;
}

static struct refset_bucket *refset__bucket(const struct refcnt_refset *set, int kind,
					    u64 value)
{
	struct refset_key key = { .set = set, .value = value, .kind = kind };
	struct refset_bucket *b;

	return hashmap__find(set->index->buckets, &key, &b) ? b : NULL;
}

static bool bucket__holds(const struct refcnt_refset *set, const struct refset_bucket *b,
			  u32 pos);

/* Make room for one more position in @pos (@nr used of @alloc), doubling from @first. */
static int positions__grow(u32 **pos, u32 nr, u32 *alloc, u32 first)
{
	u32 n = *alloc ? *alloc * 2 : first;
	u32 *p;

	if (nr < *alloc)
		return 0;
	p = reallocarray(*pos, n, sizeof(*p));
	if (!p)
		return -ENOMEM;
	*pos = p;
	*alloc = n;
	return 0;
}

/*
 * Keep the entries of @b that hold a reference, the newest of each slot
 * (a slot reused with the same key is in twice), in order: a bucket grows
 * with the references it holds, not with those that came and went.
 */
static void bucket__compact(struct refcnt_refset *set, struct refset_bucket *b)
{
	u64 stamp = ++set->index->stamp;
	u32 n = b->nr;

	for (u32 i = b->nr; i-- > 0;) {
		struct refset_slot *slot;

		if (!bucket__holds(set, b, b->pos[i]))
			continue;
		slot = &set->slots[b->pos[i]];
		if (slot->stamp == stamp)
			continue;
		slot->stamp = stamp;
		b->pos[--n] = b->pos[i];
	}
	memmove(b->pos, b->pos + n, (b->nr - n) * sizeof(*b->pos));
	b->nr -= n;
}

/* Index the slot at @pos under its key of kind @kind, if it has one. */
static int refset__index_kind(struct refcnt_refset *set, u32 pos, int kind)
{
	u64 value = ref__key(&set->slots[pos].ref, kind);
	struct refset_bucket *b;
	bool grow;

	if (!value)
		return 0;
	b = refset__bucket(set, kind, value);
	if (!b) {
		b = zalloc(sizeof(*b));
		if (!b)
			return -ENOMEM;
		b->key = (struct refset_key){ .set = set, .value = value, .kind = kind };
		if (hashmap__add(set->index->buckets, &b->key, b)) {
			free(b);
			return -ENOMEM;
		}
		list_add_tail(&b->node, &set->buckets);
	}
	/*
	 * A full bucket is compacted, and grown too if it stays over half
	 * full: compacting is then paid for by as many pushes.
	 */
	grow = false;
	if (b->nr == b->alloc) {
		bucket__compact(set, b);
		grow = b->nr >= b->alloc / 2;
	}
	if (grow && positions__grow(&b->pos, b->alloc, &b->alloc, 4))
		return -ENOMEM;
	b->pos[b->nr++] = pos;
	return 0;
}

static int refset__index_slot(struct refcnt_refset *set, u32 pos)
{
	int err = 0;

	for (int kind = 0; kind < REFSET_KINDS && !err; kind++)
		err = refset__index_kind(set, pos, kind);
	return err;
}

int refcnt_refset__set_slot(struct refcnt_refset *set, u32 pos, u64 slot)
{
	int err;

	if (pos >= set->nr || set->slots[pos].dead || set->slots[pos].ref.slot)
		return 0;
	set->slots[pos].ref.slot = slot;
	if (!set->indexed)
		return 0;
	err = refset__index_kind(set, pos, REFSET_SLOT);
	if (err)
		refset__drop_buckets(set);	/* fall back to scanning, as a push does */
	return 0;
}

void refcnt_refset__set_static_slot(struct refcnt_refset *set, u32 pos)
{
	if (pos < set->nr && !set->slots[pos].dead)
		set->slots[pos].ref.static_slot = true;
}

bool refcnt_refset__set_home(struct refcnt_refset *set, u32 pos, u64 owner, u64 site)
{
	struct refcnt_ref *ref;

	if (pos >= set->nr || set->slots[pos].dead || (owner && set->slots[pos].ref.home))
		return false;
	ref = &set->slots[pos].ref;
	ref->home = owner;
	ref->home_site = site;
	return true;
}

bool refcnt_refset__set_lost(struct refcnt_refset *set, u32 pos, u64 site, u64 caller,
			     bool freed)
{
	if (pos >= set->nr || set->slots[pos].dead || set->slots[pos].ref.lost_site)
		return false;
	set->slots[pos].ref.lost_site = site;
	set->slots[pos].ref.lost_caller = caller;
	set->slots[pos].ref.lost_freed = freed;
	return true;
}

bool refcnt_refset__set_freed(struct refcnt_refset *set, u32 pos, u64 site, u64 caller)
{
	if (pos >= set->nr || set->slots[pos].dead || set->slots[pos].ref.freed_site)
		return false;
	set->slots[pos].ref.freed_site = site;
	set->slots[pos].ref.freed_caller = caller;
	return true;
}

bool refcnt_refset__set_kin(struct refcnt_refset *set, u32 pos, u64 site, u64 caller)
{
	if (pos >= set->nr || set->slots[pos].dead || set->slots[pos].ref.kin_site)
		return false;
	set->slots[pos].ref.kin_site = site;
	set->slots[pos].ref.kin_caller = caller;
	return true;
}

/* (Re)build the index from the live slots. */
static int refset__build_index(struct refcnt_refset *set)
{
	struct refset_bucket *b;
	int err = 0;

	list_for_each_entry(b, &set->buckets, node)
		b->nr = 0;
	set->indexed = true;
	for (u32 i = 0; i < set->nr && !err; i++) {
		if (!set->slots[i].dead)
			err = refset__index_slot(set, i);
	}
	if (err)
		refset__drop_buckets(set);	/* fall back to scanning */
	return err;
}

/* A birth at @pos: kept apart, births being few and looked for first. */
static int refset__add_born(struct refcnt_refset *set, u32 pos)
{
	if (set->nr_born_pos == set->alloc_born_pos) {
		u32 n = 0;

		/* drop the entries of births released, or of reused slots */
		for (u32 i = 0; i < set->nr_born_pos; i++) {
			const struct refcnt_ref *ref = refcnt_refset__at(set, set->born_pos[i]);

			if (ref && ref->op == REFCNT_OP__BORN)
				set->born_pos[n++] = set->born_pos[i];
		}
		set->nr_born_pos = n;
	}
	if (positions__grow(&set->born_pos, set->nr_born_pos, &set->alloc_born_pos, 2))
		return -ENOMEM;
	set->born_pos[set->nr_born_pos++] = pos;
	return 0;
}

/* Move the live slots down, in order. */
static int refset__compact(struct refcnt_refset *set)
{
	u32 n = 0;

	set->nr_born_pos = 0;
	for (u32 i = 0; i < set->nr; i++) {
		if (set->slots[i].dead)
			continue;
		set->slots[n] = set->slots[i];
		/* room for every birth there was: no allocation here */
		if (set->slots[n].ref.op == REFCNT_OP__BORN)
			set->born_pos[set->nr_born_pos++] = n;
		n++;
	}
	set->nr = n;
	return set->indexed ? refset__build_index(set) : 0;
}

int refcnt_refset__push(struct refcnt_refset *set, const struct refcnt_ref *ref)
{
	int err;

	if (set->nr == set->alloc && set->live <= set->nr / 2 && set->nr) {
		err = refset__compact(set);
		if (err)
			return err;
	}
	if (set->nr == set->alloc) {
		u32 alloc = set->alloc ? set->alloc * 2 : 4;
		struct refset_slot *slots = reallocarray(set->slots, alloc, sizeof(*slots));

		if (!slots)
			return -ENOMEM;
		set->slots = slots;
		set->alloc = alloc;
	}
	set->slots[set->nr].ref = *ref;
	set->slots[set->nr].stamp = 0;
	set->slots[set->nr].dead = false;
	set->nr++;
	set->live++;
	if (ref->op == REFCNT_OP__BORN) {
		set->born++;
		err = refset__add_born(set, set->nr - 1);
		if (err)
			return err;
	}
	if (set->indexed) {
		if (refset__index_slot(set, set->nr - 1))
			refset__drop_buckets(set);	/* a partial index: scan instead */
		return 0;
	}
	if (set->index->buckets && set->live >= set->index->index_min)
		refset__build_index(set);	/* on failure it scans */
	return 0;
}

void refcnt_refset__remove(struct refcnt_refset *set, u32 pos)
{
	struct refset_slot *s = &set->slots[pos];

	if (pos >= set->nr || s->dead)
		return;
	s->dead = true;
	set->live--;
	if (s->ref.op == REFCNT_OP__BORN)
		set->born--;
	/* trailing dead slots are free again: buckets check what they hold */
	while (set->nr && set->slots[set->nr - 1].dead)
		set->nr--;
}

void refcnt_refset__drop_oldest(struct refcnt_refset *set, u32 n)
{
	for (u32 i = 0; i < set->nr && n; i++) {
		if (!set->slots[i].dead) {
			refcnt_refset__remove(set, i);
			n--;
		}
	}
}

const struct refcnt_ref *refcnt_refset__at(const struct refcnt_refset *set, u32 pos)
{
	return pos < set->nr && !set->slots[pos].dead ? &set->slots[pos].ref : NULL;
}

/* Is the bucket entry @pos still a live reference of the bucket's key? */
static bool bucket__holds(const struct refcnt_refset *set, const struct refset_bucket *b,
			  u32 pos)
{
	const struct refcnt_ref *ref = refcnt_refset__at(set, pos);

	return ref && ref__key(ref, b->key.kind) == b->key.value;
}

/* Drop the entries at @b's end that no longer hold a reference. */
static void bucket__trim(const struct refcnt_refset *set, struct refset_bucket *b)
{
	while (b->nr && !bucket__holds(set, b, b->pos[b->nr - 1]))
		b->nr--;
}

/* Do the picks pass over @ref (refcnt_refset.hide_static)? */
static bool refset__hides(const struct refcnt_refset *set, const struct refcnt_ref *ref)
{
	return set->hide_static && ref->static_slot &&
	       (!ref->lost_site || ref->lost_caller != set->hide_unless_lost_by);
}

/* May a pick choose @ref, and does @ok accept it? */
static bool refset__offers(const struct refcnt_refset *set, const struct refcnt_ref *ref,
			   bool (*ok)(const struct refcnt_ref *ref, const void *arg),
			   const void *arg)
{
	return !refset__hides(set, ref) && (!ok || ok(ref, arg));
}

u32 refcnt_refset__pick_frame(struct refcnt_refset *set, int depth, u64 key,
			      bool (*ok)(const struct refcnt_ref *ref, const void *arg),
			      const void *arg)
{
	struct refset_bucket *b;
	u32 pick = REFSET_NONE;

	if (!key)
		return REFSET_NONE;
	if (!set->indexed) {
		for (u32 i = set->nr; i-- > 0;) {
			const struct refcnt_ref *ref = refcnt_refset__at(set, i);

			if (!ref || ref__key(ref, depth) != key ||
			    !refset__offers(set, ref, ok, arg))
				continue;
			if (pick == REFSET_NONE || ref->op == REFCNT_OP__BORN)
				pick = i;
		}
		return pick;
	}
	b = refset__bucket(set, depth, key);
	if (!b)
		return REFSET_NONE;
	bucket__trim(set, b);
	if (!b->nr)
		return REFSET_NONE;
	/* the oldest birth among them: the lowest live slot, births being few */
	for (u32 i = 0; set->born && i < set->nr_born_pos; i++) {
		u32 pos = set->born_pos[i];
		const struct refcnt_ref *ref = refcnt_refset__at(set, pos);

		if (ref && ref->op == REFCNT_OP__BORN && ref__key(ref, depth) == key &&
		    refset__offers(set, ref, ok, arg) && (pick == REFSET_NONE || pos < pick))
			pick = pos;
	}
	if (pick != REFSET_NONE)
		return pick;
	for (u32 i = b->nr; i-- > 0;) {
		if (bucket__holds(set, b, b->pos[i]) &&
		    refset__offers(set, &set->slots[b->pos[i]].ref, ok, arg))
			return b->pos[i];
	}
	return REFSET_NONE;
}

u32 refcnt_refset__pick_frame_recent(struct refcnt_refset *set, int depth, u64 key,
				     bool (*ok)(const struct refcnt_ref *ref, const void *arg),
				     const void *arg, u32 max)
{
	struct refset_bucket *b;
	u32 seen = 0;

	if (!key)
		return REFSET_NONE;
	if (!set->indexed) {
		for (u32 i = set->nr; i-- > 0 && seen < max;) {
			const struct refcnt_ref *ref = refcnt_refset__at(set, i);

			if (!ref || ref__key(ref, depth) != key)
				continue;
			seen++;
			if (refset__offers(set, ref, ok, arg))
				return i;
		}
		return REFSET_NONE;
	}
	b = refset__bucket(set, depth, key);
	if (!b)
		return REFSET_NONE;
	bucket__trim(set, b);
	for (u32 i = b->nr; i-- > 0 && seen < max;) {
		if (!bucket__holds(set, b, b->pos[i]))
			continue;
		seen++;
		if (refset__offers(set, &set->slots[b->pos[i]].ref, ok, arg))
			return b->pos[i];
	}
	return REFSET_NONE;
}

u32 refcnt_refset__pick_oldest(struct refcnt_refset *set,
			       bool (*ok)(const struct refcnt_ref *ref, const void *arg),
			       const void *arg, u32 max)
{
	for (u32 i = 0, seen = 0; i < set->nr && seen < max; i++) {
		const struct refcnt_ref *ref = refcnt_refset__at(set, i);

		if (!ref)
			continue;
		if (refset__offers(set, ref, ok, arg))
			return i;
		seen++;
	}
	return REFSET_NONE;
}

u32 refcnt_refset__pick_recent(struct refcnt_refset *set, s64 tid,
			       bool (*ok)(const struct refcnt_ref *ref, const void *arg),
			       const void *arg)
{
	struct refset_bucket *b;

	if (!set->indexed || tid < 0) {
		for (u32 i = set->nr; i-- > 0;) {
			const struct refcnt_ref *ref = refcnt_refset__at(set, i);

			if (ref && (tid < 0 || ref->tid == tid) &&
			    refset__offers(set, ref, ok, arg))
				return i;
		}
		return REFSET_NONE;
	}
	b = refset__bucket(set, REFSET_BY_TID, (u64)tid + 1);
	if (!b)
		return REFSET_NONE;
	bucket__trim(set, b);
	for (u32 i = b->nr; i-- > 0;) {
		if (bucket__holds(set, b, b->pos[i]) &&
		    refset__offers(set, &set->slots[b->pos[i]].ref, ok, arg))
			return b->pos[i];
	}
	return REFSET_NONE;
}
