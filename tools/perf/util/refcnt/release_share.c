// SPDX-License-Identifier: GPL-2.0
/*
 * The release share of perf refcnt's call sites: see release_share.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <linux/err.h>
#include <linux/zalloc.h>

#include "../hashmap.h"
#include "hash.h"
#include "release_share.h"

/* A site's counts, packed in the hashmap's value: taken high, released low. */
struct refcnt_release_share {
	struct hashmap	*sites;		/* type and site -> counts */
};

#define SHARE__MAX	UINT32_MAX

struct refcnt_release_share *refcnt_release_share__new(void)
{
	struct refcnt_release_share *rs = zalloc(sizeof(*rs));

	if (!rs)
		return NULL;
	rs->sites = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
	if (IS_ERR(rs->sites)) {
		free(rs);
		return NULL;
	}
	return rs;
}

void refcnt_release_share__delete(struct refcnt_release_share *rs)
{
	if (!rs)
		return;
	hashmap__free(rs->sites);
	free(rs);
}

static u64 share__value(const struct refcnt_release_share *rs, long key)
{
	u64 value = 0;

	hashmap__find(rs->sites, key, &value);
	return value;
}

int refcnt_release_share__take(struct refcnt_release_share *rs, u8 type, u64 site)
{
	long key = refcnt_type_addr__key(site, type);
	u64 value = share__value(rs, key);

	if ((value >> 32) < SHARE__MAX)
		value += 1ULL << 32;
	return hashmap__set(rs->sites, key, value, NULL, NULL);
}

void refcnt_release_share__release(struct refcnt_release_share *rs, u8 type, u64 site)
{
	long key = refcnt_type_addr__key(site, type);
	u64 value = share__value(rs, key);

	/* never more than it took: a site first seen at a put took none here */
	if ((value & SHARE__MAX) < (value >> 32))
		hashmap__set(rs->sites, key, value + 1, NULL, NULL);
}

bool refcnt_release_share__get(const struct refcnt_release_share *rs, u8 type, u64 site,
			       u32 *taken, u32 *released)
{
	u64 value = share__value(rs, refcnt_type_addr__key(site, type));

	*taken = value >> 32;
	*released = value & SHARE__MAX;
	return *taken;
}
