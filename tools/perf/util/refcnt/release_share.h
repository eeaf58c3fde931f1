/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_RELEASE_SHARE_H
#define __PERF_REFCNT_RELEASE_SHARE_H

/*
 * How many of the references each call site took were released, over the
 * whole replay and every object: the recording's own statistics.
 *
 * The scan at exit says how many of an object's references no reachable
 * memory accounts for, never which ones. A call site whose references
 * were all put, thousands of times, on this object and others, is not
 * where the ones nobody points to came from; a call that never put one
 * is. So the references told leaked are those of the sites that released
 * the least share of theirs (a lookup whose caller drops the result, not
 * the callchain cursor's latest get, which the cursor still points to).
 *
 * A site is the reference's call in the function that owns it (a
 * lookup's caller: struct refcnt_ref's owner_site), or the get's own call
 * site. Sites are keyed per type, by address, as the pairs model keys
 * its functions, not by address space: forks run the same code at the
 * same addresses, and two exec'd images sharing a site address mix their
 * counts, which only weighs an order. Two counts of 32 bits each,
 * saturated, packed in a hashmap value (64 bits: perf refcnt is 64-bit
 * only, as its scan at exit is).
 */

#include <stdbool.h>
#include <linux/types.h>

struct refcnt_release_share;

struct refcnt_release_share *refcnt_release_share__new(void);
void refcnt_release_share__delete(struct refcnt_release_share *rs);

/* A reference of @type was taken at @site: returns 0 or -ENOMEM. */
int refcnt_release_share__take(struct refcnt_release_share *rs, u8 type, u64 site);

/* One that @site took was released (a put paired with it). */
void refcnt_release_share__release(struct refcnt_release_share *rs, u8 type, u64 site);

/* The counts of @site: false if it took none. */
bool refcnt_release_share__get(const struct refcnt_release_share *rs, u8 type, u64 site,
			       u32 *taken, u32 *released);

#endif /* __PERF_REFCNT_RELEASE_SHARE_H */
