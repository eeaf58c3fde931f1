/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_PAIR_MODEL_H
#define __PERF_REFCNT_PAIR_MODEL_H

/*
 * What a recording's unambiguous pairs teach about its ambiguous ones.
 *
 * A put that finds one reference outstanding releases that one: the pair
 * is exact whatever the code. Counted per type, by the function that took
 * the reference and the function that put it, those pairs say which
 * functions' references a put function releases (__maps__remove() the
 * reference __maps__insert() took, map_symbol__exit() that of add_child()
 * or of merge_chain_branch(), each as often as it did). Where several
 * references are outstanding, the pairing engine asks the model before it
 * falls back to recency: a lookup's reference that its caller never put
 * is then left outstanding, not the older reference that a container's
 * remove releases.
 *
 * The model learns while the replay goes: a put is decided by the exact
 * pairs seen before it. A report replays twice: the first replay's model,
 * frozen, decides the second's puts: those of a teardown, which come
 * before the last puts that teach how it pairs, are decided by what the
 * whole recording teaches. Its memory grows with the number of distinct put
 * functions and put sites, at most REFCNT_PAIR_MODEL_WAYS get functions or
 * call sites each, and a count each of the lifetimes that died clean after
 * such a put.
 */

#include <stdbool.h>
#include <linux/types.h>

#define REFCNT_PAIR_MODEL_WAYS	8	/* get functions (sites) kept per put function (site) */

struct refcnt_pair_model;

struct refcnt_pair_model *refcnt_pair_model__new(void);
void refcnt_pair_model__delete(struct refcnt_pair_model *model);

/* A put in @put_fn released the only reference, which @get_fn took. */
int refcnt_pair_model__learn(struct refcnt_pair_model *model, u8 type, u64 get_fn,
			     u64 put_fn);

/*
 * The functions whose references a put in @put_fn released, in @get_fns
 * (@max long), most often first: how many.
 */
int refcnt_pair_model__releases(const struct refcnt_pair_model *model, u8 type, u64 put_fn,
				u64 *get_fns, int max);

/*
 * The functions that put references they did not take, on objects that
 * died with nothing over-released: destructors and removes, whose puts are
 * how the code works (map_symbol__exit(), __maps__remove(), dsos__exit()).
 * A put in @put_fn released no reference of its own function in a lifetime
 * that died clean (@delta 1), or in one that a double put then showed was
 * not (@delta -1). Returns 0 or -ENOMEM.
 */
int refcnt_pair_model__clean_release(struct refcnt_pair_model *model, u8 type, u64 put_fn,
				     int delta);

/* In how many lifetimes that died clean @put_fn put a reference not its own. */
long refcnt_pair_model__clean_releases(const struct refcnt_pair_model *model, u8 type,
				       u64 put_fn);

/*
 * Where a put's function was handed more than one reference by its calls
 * (a lookup's, a constructor's), the function alone does not say which it
 * puts. The call sites do: a put at @put_site, made while one reference
 * handed to its function was outstanding, released the one that came back
 * through the call at @hand_site (the return address there: the owner's
 * site of the reference, pairing.h). map__new() puts the dso that
 * machine__findnew_dso_id() returned it, not the one that its later
 * dsos__find() did. Returns 0 or -ENOMEM.
 */
int refcnt_pair_model__learn_site(struct refcnt_pair_model *model, u8 type, u64 hand_site,
				  u64 put_site);

/*
 * The call sites whose handed references a put at @put_site released,
 * in @hand_sites (@max long), most often first: how many.
 */
int refcnt_pair_model__site_releases(const struct refcnt_pair_model *model, u8 type,
				     u64 put_site, u64 *hand_sites, int max);

/* From now on, learn, learn_site and clean_release change nothing: a replay's model. */
void refcnt_pair_model__freeze(struct refcnt_pair_model *model);

/* Does @model still learn (not frozen)? */
bool refcnt_pair_model__learns(const struct refcnt_pair_model *model);

#endif /* __PERF_REFCNT_PAIR_MODEL_H */
