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

#endif /* __PERF_REFCNT_SLOT_TRACK_H */
