/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_REFSET_H
#define __PERF_REFCNT_REFSET_H

/*
 * The references outstanding on one lifetime, for the pairing engine: in
 * the order they were taken, and once a lifetime holds many of them (the
 * kernel maps holds thousands: callchain nodes and hist entries), indexed
 * by the keys the pairing rules look them up by: the function at each
 * depth of where they were taken, and the thread. A put then costs the
 * same whatever the number of references outstanding.
 *
 * A released reference leaves a dead slot behind, so that positions stay
 * put for the index; the slots are compacted when the dead outnumber the
 * live.
 */

#include <stdbool.h>
#include <linux/list.h>
#include <linux/types.h>

#include "pairing.h"

#define REFSET_NONE	((u32)-1)
/* A bounded pick's bound that looks at every reference */
#define REFSET_ALL	((u32)-1)

/* The buckets of every indexed set: one per engine. */
struct refcnt_refset_index {
	struct hashmap	*buckets;	/* struct refset_key * -> struct refset_bucket */
	u32		index_min;	/* index a set from this many references */
	u64		stamp;		/* of bucket compactions */
};

struct refset_slot;

struct refcnt_refset {
	struct refcnt_refset_index *index;
	struct refset_slot	*slots;
	u32			nr;		/* slots in use, dead or live */
	u32			alloc;
	u32			live;
	u32			born;		/* live references of op BORN */
	/* where births were pushed (few: the birth, an unseen start), to check */
	u32			*born_pos;
	u32			nr_born_pos;
	u32			alloc_born_pos;
	bool			indexed;
	/*
	 * The picks below pass over references stored in a static
	 * variable (refcnt_ref.static_slot) unless function
	 * @hide_unless_lost_by stored over them there: a put that did not
	 * load one from there releases another, if there is another.
	 */
	bool			hide_static;
	u64			hide_unless_lost_by;
	struct list_head	buckets;	/* this set's, when indexed */
};

int refcnt_refset_index__init(struct refcnt_refset_index *index, u32 index_min);
void refcnt_refset_index__exit(struct refcnt_refset_index *index);

void refcnt_refset__init(struct refcnt_refset *set, struct refcnt_refset_index *index);
void refcnt_refset__exit(struct refcnt_refset *set);

int refcnt_refset__push(struct refcnt_refset *set, const struct refcnt_ref *ref);
void refcnt_refset__remove(struct refcnt_refset *set, u32 pos);
/* Release the @n oldest references. */
void refcnt_refset__drop_oldest(struct refcnt_refset *set, u32 n);

/* Positions: refcnt_refset__at() is NULL for a dead one. */
static inline u32 refcnt_refset__slots(const struct refcnt_refset *set)
{
	return set->nr;
}

const struct refcnt_ref *refcnt_refset__at(const struct refcnt_refset *set, u32 pos);

/* A depth of the picks below: the inlined function that took them (its scope) */
#define REFSET_SCOPE	(REFCNT_UP_FRAMES + 2)
/* Another: the slot they were stored to (slot_code.h) */
#define REFSET_SLOT	(REFSET_SCOPE + 1)

/* The reference at @pos was stored to @slot (once: a copy keeps the first). */
int refcnt_refset__set_slot(struct refcnt_refset *set, u32 pos, u64 slot);

/* The reference at @pos was stored in a static variable (refcnt_ref.static_slot). */
void refcnt_refset__set_static_slot(struct refcnt_refset *set, u32 pos);

/*
 * The reference at @pos was stored in the frame of @owner, which holds
 * @site: it is that function's (once: the first store's; an @owner of 0
 * unsets it). Returns false if it was already, or is no reference.
 */
bool refcnt_refset__set_home(struct refcnt_refset *set, u32 pos, u64 owner, u64 site);

/*
 * The reference at @pos was lost at @site in @caller: stored over, or
 * with @freed a block that held it freed (once: the first). Returns false
 * if it already was, or is no reference.
 */
bool refcnt_refset__set_lost(struct refcnt_refset *set, u32 pos, u64 site, u64 caller,
			     bool freed);

/*
 * The block holding the reference at @pos was freed at @site in @caller
 * (once: the first). Returns false if it already was, or is no reference.
 */
bool refcnt_refset__set_freed(struct refcnt_refset *set, u32 pos, u64 site, u64 caller);

/*
 * A put at @site in @caller released a reference stored beside the one
 * at @pos (refcnt_ref.kin_site; once: the first). Returns false if one
 * already did, or it is no reference.
 */
bool refcnt_refset__set_kin(struct refcnt_refset *set, u32 pos, u64 site, u64 caller);

/*
 * The references taken where the function @depth frames above the site
 * (0: its caller) is @key, that @ok accepts (all if @ok is NULL): the
 * oldest birth among them if there is one, else the most recent;
 * REFSET_NONE if none.
 */
u32 refcnt_refset__pick_frame(struct refcnt_refset *set, int depth, u64 key,
			      bool (*ok)(const struct refcnt_ref *ref, const void *arg),
			      const void *arg);

/*
 * The most recent of the references taken where the function @depth
 * frames above the site is @key that @ok accepts (any if @ok is NULL),
 * looking at no more than the @max most recent of them: a pick whose
 * filter may refuse most of a large set costs a bounded time. REFSET_NONE
 * if none.
 */
u32 refcnt_refset__pick_frame_recent(struct refcnt_refset *set, int depth, u64 key,
				     bool (*ok)(const struct refcnt_ref *ref, const void *arg),
				     const void *arg, u32 max);

/*
 * The oldest reference that @ok accepts, if it refuses no more than @max
 * older ones: REFSET_NONE if none. The walk also passes the released
 * slots among them, at most as many as there are live ones (a push
 * compacts a set whose slots are more than half released).
 */
u32 refcnt_refset__pick_oldest(struct refcnt_refset *set,
			       bool (*ok)(const struct refcnt_ref *ref, const void *arg),
			       const void *arg, u32 max);

/*
 * The most recent reference, of thread @tid unless it is -1, that @ok
 * accepts; REFSET_NONE if none.
 */
u32 refcnt_refset__pick_recent(struct refcnt_refset *set, s64 tid,
			       bool (*ok)(const struct refcnt_ref *ref, const void *arg),
			       const void *arg);

#endif /* __PERF_REFCNT_REFSET_H */
