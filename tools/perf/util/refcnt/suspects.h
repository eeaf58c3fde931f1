/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_SUSPECTS_H
#define __PERF_REFCNT_SUSPECTS_H

/*
 * The puts an over-release may be blamed on: the put that releases
 * nothing. Of an object's puts, one too many released no reference at all
 * (a put of a borrowed pointer, a put on an error path that the success
 * path runs too); which one cannot be read from the count. But a put that
 * released no reference its own function took is how destructors and
 * removes work, and those run on every object of their kind: the pairs
 * model counts, per put function, the lifetimes that died clean after such
 * a put. A put whose function no clean lifetime saw do it is a suspect,
 * unless a function running above it took a reference of its own that it
 * still holds (it guards the object across a remove and a reinsert: the
 * put it calls releases the container's reference); the first suspect
 * still unseen when the object is over-released is the likely extra put.
 *
 * An object keeps up to REFCNT_SUSPECTS of them, one per function, in an
 * array that grows from the first (most objects have one or two): when
 * full, one whose function a clean lifetime has since seen gives way, else
 * the newest is not kept. At a clean death (no over-release, no mismatch,
 * no lost events) they teach the model; a double put after that death
 * takes the lesson back. A function is taught by the lifetimes that had
 * it as a suspect, those before its first clean one: the count says
 * "seen", not how often.
 */

#include <stdbool.h>
#include <linux/types.h>

#include "pairing.h"

#define REFCNT_SUSPECTS	16

struct refcnt_pair_model;

struct refcnt_suspects {
	struct refcnt_ref	*puts;		/* NULL until the first */
	u8			nr;
	u8			alloc;
	bool			taught;		/* counted in the model's clean lifetimes */
};

/* Forget all, for the next lifetime at the object's address. */
void refcnt_suspects__reset(struct refcnt_suspects *s);
void refcnt_suspects__exit(struct refcnt_suspects *s);

/* Would a put in @put_fn be a new suspect? */
bool refcnt_suspects__wants(const struct refcnt_suspects *s,
			    const struct refcnt_pair_model *model, u8 type, u64 put_fn);

/*
 * @put released none of its own function's references, and no function
 * running above it holds one it took. Returns 0 or -ENOMEM.
 */
int refcnt_suspects__add(struct refcnt_suspects *s, const struct refcnt_pair_model *model,
			 u8 type, const struct refcnt_ref *put);

/* The lifetime died with nothing over-released (@clean), or a double put says it did not. */
int refcnt_suspects__teach(struct refcnt_suspects *s, struct refcnt_pair_model *model,
			   u8 type, bool clean);

/* The first suspect whose function no other clean lifetime saw, or NULL. */
const struct refcnt_ref *refcnt_suspects__pick(const struct refcnt_suspects *s,
					       const struct refcnt_pair_model *model, u8 type);

#endif /* __PERF_REFCNT_SUSPECTS_H */
