/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_SLOT_TRACK_H
#define __PERF_REFCNT_SLOT_TRACK_H
/*
 * What a thread's slot events (slot_code.h) say of its next operation or
 * of its last one, for the pairing engine: a store right after a get is
 * where that get's reference lives; a load right before a put is where
 * the reference the put releases lived. Right after and right before: no
 * other operation of the thread in between, the same object, the same
 * call (the site the slot probe gives is the get's or the put's own).
 * And what each word of memory stored to holds: the last store's object,
 * to tell a reference stored over, or a put of a pointer copied without
 * a get (pairing.h).
 */
#include <stdbool.h>
#include <linux/types.h>

struct refcnt_event;
struct refcnt_slot_track;

struct refcnt_slot_track *refcnt_slot_track__new(void);
void refcnt_slot_track__delete(struct refcnt_slot_track *st);

/*
 * After the engine took (a get or a birth) or did anything else with
 * operation @ev: a take is remembered, as the reference at @pos of its
 * lifetime's set, for the store that may follow.
 */
int refcnt_slot_track__op(struct refcnt_slot_track *st, const struct refcnt_event *ev,
			  bool took, u32 pos);

/*
 * A store event @ev: if it stores what its thread just took, next to the
 * call that took it or one that handed it back (a lookup's: @ev's
 * hand_sites), the position that reference had, when it was taken and its
 * site (true); its pending take is over. The position may have moved
 * since: check.
 */
bool refcnt_slot_track__store(struct refcnt_slot_track *st, const struct refcnt_event *ev,
			      u32 *pos, u64 *time, u64 *site);

/*
 * A load event @ev: pending until the thread's next operation; a take
 * stays pending across it.
 */
int refcnt_slot_track__load(struct refcnt_slot_track *st, const struct refcnt_event *ev);

/*
 * A put @ev: the slot its argument was loaded from, if its thread's last
 * event loaded it for this call; else 0.
 */
u64 refcnt_slot_track__loaded(struct refcnt_slot_track *st, const struct refcnt_event *ev);

/* What a word of memory holds: the last store to it (its object and call). */
struct refcnt_slot_word {
	u64	space, obj, site, caller;
	u64	time;		/* the store's */
	/* the reference the store joined (its take's time and site), 0: none */
	u64	ref_time, ref_site;
	u8	type;
	bool	borrowed;	/* a copy (REFCNT_SLOT__COPY): no reference of its own */
	/*
	 * a copy into a local of the copying function's frame (@caller's):
	 * the word is that call's only while it runs, for the puts below it
	 */
	bool	frame;
};

/* The most words followed at once: past it, stores to new ones are not. */
#define REFCNT_SLOT_WORDS_MAX	1048576U

/*
 * A copy event @ev (REFCNT_SLOT__COPY): if its thread's next operation is
 * a get of what it copied, the word holds that get's reference after all
 * (dst->p = src->p; map__get(dst->p)).
 */
int refcnt_slot_track__copied(struct refcnt_slot_track *st, const struct refcnt_event *ev);

/* The store to @slot, the last, joined the reference taken at @time at @site. */
void refcnt_slot_track__word_ref(struct refcnt_slot_track *st, u64 slot, u64 time, u64 site);

/*
 * A load event @ev read NULL from its word: what a store put there is gone
 * (memset() cleared it), unless it is the reference the thread just took:
 * a load is probed at the put's call, after a store to the same word
 * between (old = s->p; s->p = get(n); put(old)).
 */
void refcnt_slot_track__cleared(struct refcnt_slot_track *st, const struct refcnt_event *ev);

/* What the word at @slot holds, if a store to it was seen: @word. */
bool refcnt_slot_track__word(struct refcnt_slot_track *st, u64 slot,
			     struct refcnt_slot_word *word);

/*
 * The word at @slot of address space @space was freed: what it held, if
 * a store of that space to it was seen (@word), is followed there no more.
 */
bool refcnt_slot_track__forget(struct refcnt_slot_track *st, u64 space, u64 slot,
			       struct refcnt_slot_word *word);

/* How far past the locals seen a thread's stack may reach, in bytes */
#define REFCNT_STACK_SLACK	(256 * 1024ULL)

/*
 * Is @addr on thread @tid's stack, as far as the locals its frames stored
 * to say (within REFCNT_STACK_SLACK of them)? False if none was seen: a
 * frame's struct can be told from a heap block only by where it is.
 */
bool refcnt_slot_track__on_stack(struct refcnt_slot_track *st, u32 tid, u64 addr);

/* Does @st follow any word? */
bool refcnt_slot_track__has_words(const struct refcnt_slot_track *st);

/*
 * A store or copy event @ev: @ev's object is what its word holds now,
 * unless it is a local of the storing frame (not followed, but for a
 * borrowed copy: refcnt_slot_word's frame). Returns 1
 * with what it held before in @prev, 0 if no store to it was seen (or a
 * local's), -E2BIG if too many words are followed to add it, or -ENOMEM.
 */
int refcnt_slot_track__overwrite(struct refcnt_slot_track *st, const struct refcnt_event *ev,
				 struct refcnt_slot_word *prev);

#endif /* __PERF_REFCNT_SLOT_TRACK_H */
