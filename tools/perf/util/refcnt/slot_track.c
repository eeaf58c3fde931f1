// SPDX-License-Identifier: GPL-2.0
/*
 * What a thread's slot events say of the operations next to them: see
 * slot_track.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/zalloc.h>

#include "../hashmap.h"
#include "hash.h"
#include "pairing.h"
#include "slot_code.h"
#include "slot_track.h"

/* A get or a birth that a store may say the slot of. */
struct slot_take {
	bool	valid;
	u64	space, obj, site, time;
	u64	hand_sites[REFCNT_HAND_SITES];	/* a lookup's: as in the event */
	u32	pos;			/* its reference, in its set */
};

/*
 * One thread's: its last two takes, or its last load, not yet followed by
 * another operation. Two: a probe of an inlined get can sit on the store
 * of the call before it, and fire first.
 */
struct slot_thread {
	struct slot_take take[2];	/* [0] the last */
	bool	load;
	u64	space, obj, site;	/* of the load */
	u64	slot;
	u64	copy_space, copy_obj, copy_slot;	/* its copy, until its next operation */
	u64	stack_lo, stack_hi;	/* the locals its frames stored to, 0: none seen */
};

struct refcnt_slot_track {
	struct hashmap	*threads;	/* tid -> struct slot_thread */
	struct hashmap	*words;		/* slot address -> struct refcnt_slot_word */
};

struct refcnt_slot_track *refcnt_slot_track__new(void)
{
	struct refcnt_slot_track *st = zalloc(sizeof(*st));

	if (!st)
		return NULL;
	st->threads = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
	st->words = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
	if (IS_ERR(st->threads) || IS_ERR(st->words)) {
		if (!IS_ERR(st->threads))
			hashmap__free(st->threads);
		if (!IS_ERR(st->words))
			hashmap__free(st->words);
		free(st);
		return NULL;
	}
	return st;
}

void refcnt_slot_track__delete(struct refcnt_slot_track *st)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!st)
		return;
	hashmap__for_each_entry(st->threads, cur, bkt)
		free(cur->pvalue);
	hashmap__for_each_entry(st->words, cur, bkt)
		free(cur->pvalue);
	hashmap__free(st->threads);
	hashmap__free(st->words);
	free(st);
}

static struct slot_thread *slot_track__thread(struct refcnt_slot_track *st, u32 tid,
					      bool create)
{
	struct slot_thread *t;

	if (hashmap__find(st->threads, tid, &t))
		return t;
	if (!create)
		return NULL;
	t = zalloc(sizeof(*t));
	if (t && hashmap__add(st->threads, tid, t)) {
		free(t);
		t = NULL;
	}
	return t;
}

/* Is store @ev next to the call @k was taken by, or one it came back through? */
static bool slot_take__of(const struct slot_take *k, const struct refcnt_event *ev)
{
	bool call = k->site == ev->site;

	for (int i = 0; !call && i < REFCNT_HAND_SITES && k->hand_sites[i]; i++)
		call = k->hand_sites[i] == ev->site;
	return k->valid && call && k->space == ev->space && k->obj == ev->obj &&
	       k->time <= ev->time;
}

/* A get right after a copy, of what it copied: the copy took its reference. */
static void slot_track__copy_counted(struct refcnt_slot_track *st, struct slot_thread *t,
				     const struct refcnt_event *ev)
{
	struct refcnt_slot_word *w;

	if (t->copy_slot && ev->op == REFCNT_OP__GET && ev->obj == t->copy_obj &&
	    ev->space == t->copy_space && hashmap__find(st->words, t->copy_slot, &w) &&
	    w->obj == ev->obj && w->space == ev->space)
		w->borrowed = false;
	t->copy_slot = 0;
}

int refcnt_slot_track__op(struct refcnt_slot_track *st, const struct refcnt_event *ev,
			  bool took, u32 pos)
{
	struct slot_thread *t = slot_track__thread(st, ev->tid, took);

	if (!t)
		return took ? -ENOMEM : 0;
	slot_track__copy_counted(st, t, ev);
	t->load = false;
	if (!took) {
		t->take[0].valid = false;
		t->take[1].valid = false;
		return 0;
	}
	t->take[1] = t->take[0];
	t->take[0] = (struct slot_take){
		.valid = true, .space = ev->space, .obj = ev->obj, .site = ev->site,
		.time = ev->time, .pos = pos,
	};
	memcpy(t->take[0].hand_sites, ev->hand_sites, sizeof(ev->hand_sites));
	return 0;
}

bool refcnt_slot_track__store(struct refcnt_slot_track *st, const struct refcnt_event *ev,
			      u32 *pos, u64 *time, u64 *site)
{
	struct slot_thread *t = slot_track__thread(st, ev->tid, false);

	for (int i = 0; t && i < 2; i++) {
		if (slot_take__of(&t->take[i], ev)) {
			t->take[i].valid = false;
			*pos = t->take[i].pos;
			*time = t->take[i].time;
			*site = t->take[i].site;
			return true;
		}
	}
	return false;
}

int refcnt_slot_track__load(struct refcnt_slot_track *st, const struct refcnt_event *ev)
{
	struct slot_thread *t = slot_track__thread(st, ev->tid, true);

	if (!t)
		return -ENOMEM;
	/* not the end of a take's: a store can be probed on the put's call too */
	t->load = true;
	t->space = ev->space;
	t->obj = ev->obj;
	t->site = ev->site;
	t->slot = ev->slot;
	return 0;
}

u64 refcnt_slot_track__loaded(struct refcnt_slot_track *st, const struct refcnt_event *ev)
{
	struct slot_thread *t = slot_track__thread(st, ev->tid, false);

	return t && t->load && t->space == ev->space && t->obj == ev->obj && t->site == ev->site ?
	       t->slot : 0;
}

/* A local of @ev's frame: its thread's stack reaches there. */
static void slot_track__framed(struct refcnt_slot_track *st, const struct refcnt_event *ev)
{
	struct slot_thread *t = slot_track__thread(st, ev->tid, true);

	if (!t || !ev->slot)
		return;
	if (!t->stack_lo || ev->slot < t->stack_lo)
		t->stack_lo = ev->slot;
	if (ev->slot > t->stack_hi)
		t->stack_hi = ev->slot;
}

bool refcnt_slot_track__on_stack(struct refcnt_slot_track *st, u32 tid, u64 addr)
{
	struct slot_thread *t = slot_track__thread(st, tid, false);

	return t && t->stack_lo && addr + REFCNT_STACK_SLACK >= t->stack_lo &&
	       addr <= t->stack_hi + REFCNT_STACK_SLACK;
}

/*
 * One word per address, whichever address space stored there last: a
 * store of another process's at the same address ends what was followed
 * there (a lost overwrite, never a wrong one: the caller checks the space).
 * A frame's local is not followed: the store ends what was.
 */
int refcnt_slot_track__overwrite(struct refcnt_slot_track *st, const struct refcnt_event *ev,
				 struct refcnt_slot_word *prev)
{
	struct refcnt_slot_word *w;
	int ret = 1;

	if (ev->slot_where == REFCNT_SLOT_WHERE__FRAME) {
		slot_track__framed(st, ev);
		if (hashmap__delete(st->words, ev->slot, NULL, &w))
			free(w);
		/* a borrowed copy into its own frame is followed; what it stored over is not */
		if (ev->slot_op != REFCNT_SLOT__COPY)
			return 0;
	}
	if (!hashmap__find(st->words, ev->slot, &w)) {
		if (hashmap__size(st->words) >= REFCNT_SLOT_WORDS_MAX)
			return -E2BIG;
		w = zalloc(sizeof(*w));
		if (!w || hashmap__add(st->words, ev->slot, w)) {
			free(w);
			return -ENOMEM;
		}
		ret = 0;
	}
	*prev = *w;
	*w = (struct refcnt_slot_word){
		.space = ev->space, .obj = ev->obj, .site = ev->site, .caller = ev->caller,
		.time = ev->time, .type = ev->type, .borrowed = ev->slot_op == REFCNT_SLOT__COPY,
		.frame = ev->slot_where == REFCNT_SLOT_WHERE__FRAME,
	};
	return w->frame ? 0 : ret;
}

void refcnt_slot_track__word_ref(struct refcnt_slot_track *st, u64 slot, u64 time, u64 site)
{
	struct refcnt_slot_word *w;

	if (slot && hashmap__find(st->words, slot, &w)) {
		w->ref_time = time;
		w->ref_site = site;
	}
}

int refcnt_slot_track__copied(struct refcnt_slot_track *st, const struct refcnt_event *ev)
{
	struct slot_thread *t = slot_track__thread(st, ev->tid, true);

	if (!t)
		return -ENOMEM;
	t->copy_space = ev->space;
	t->copy_obj = ev->obj;
	t->copy_slot = ev->slot;
	return 0;
}

void refcnt_slot_track__cleared(struct refcnt_slot_track *st, const struct refcnt_event *ev)
{
	struct slot_thread *t = slot_track__thread(st, ev->tid, false);
	struct refcnt_slot_word w;

	if (!refcnt_slot_track__word(st, ev->slot, &w) || w.space != ev->space)
		return;
	for (int i = 0; t && i < 2; i++) {
		if (t->take[i].valid && t->take[i].time == w.ref_time &&
		    t->take[i].site == w.ref_site)
			return;
	}
	refcnt_slot_track__forget(st, ev->space, ev->slot, &w);
}

bool refcnt_slot_track__forget(struct refcnt_slot_track *st, u64 space, u64 slot,
			       struct refcnt_slot_word *word)
{
	struct refcnt_slot_word *w;

	/* another process's word at the same address is not this block's */
	if (!slot || !hashmap__find(st->words, slot, &w) || w->space != space)
		return false;
	*word = *w;
	hashmap__delete(st->words, slot, NULL, NULL);
	free(w);
	return true;
}

bool refcnt_slot_track__has_words(const struct refcnt_slot_track *st)
{
	return hashmap__size(st->words) > 0;
}

bool refcnt_slot_track__word(struct refcnt_slot_track *st, u64 slot,
			     struct refcnt_slot_word *word)
{
	struct refcnt_slot_word *w;

	if (!slot || !hashmap__find(st->words, slot, &w))
		return false;
	*word = *w;
	return true;
}
