// SPDX-License-Identifier: GPL-2.0
/*
 * The puts an over-release may be blamed on (see suspects.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/zalloc.h>
#include <tools/libc_compat.h>

#include "pair_model.h"
#include "suspects.h"

void refcnt_suspects__reset(struct refcnt_suspects *s)
{
	s->nr = 0;
	s->taught = false;
}

void refcnt_suspects__exit(struct refcnt_suspects *s)
{
	zfree(&s->puts);
	s->alloc = 0;
	refcnt_suspects__reset(s);
}

/*
 * Has a clean lifetime seen @fn put what it did not take? Not this one: a
 * double put takes back what its death taught before anyone asks.
 */
static bool suspects__seen_clean(const struct refcnt_pair_model *model, u8 type, u64 fn)
{
	return refcnt_pair_model__clean_releases(model, type, fn) > 0;
}

bool refcnt_suspects__wants(const struct refcnt_suspects *s,
			    const struct refcnt_pair_model *model, u8 type, u64 put_fn)
{
	if (!put_fn || suspects__seen_clean(model, type, put_fn))
		return false;
	for (u8 i = 0; i < s->nr; i++) {
		if (s->puts[i].caller == put_fn)
			return false;
	}
	return true;
}

int refcnt_suspects__add(struct refcnt_suspects *s, const struct refcnt_pair_model *model,
			 u8 type, const struct refcnt_ref *put)
{
	u8 i;

	if (!refcnt_suspects__wants(s, model, type, put->caller))
		return 0;
	if (s->nr == REFCNT_SUSPECTS) {
		/* one that a clean lifetime has seen since gives way */
		for (i = 0; i < s->nr; i++) {
			if (suspects__seen_clean(model, type, s->puts[i].caller))
				break;
		}
		if (i == s->nr)
			return 0;
		memmove(&s->puts[i], &s->puts[i + 1], (s->nr - i - 1) * sizeof(*s->puts));
		s->nr--;
	} else if (s->nr == s->alloc) {
		u8 alloc = s->alloc ? s->alloc * 2 : 2;
		struct refcnt_ref *puts = reallocarray(s->puts, alloc, sizeof(*puts));

		if (!puts)
			return -ENOMEM;
		s->puts = puts;
		s->alloc = alloc;
	}
	s->puts[s->nr++] = *put;
	return 0;
}

int refcnt_suspects__teach(struct refcnt_suspects *s, struct refcnt_pair_model *model,
			   u8 type, bool clean)
{
	if (clean == s->taught)
		return 0;
	for (u8 i = 0; i < s->nr; i++) {
		if (refcnt_pair_model__clean_release(model, type, s->puts[i].caller,
						     clean ? 1 : -1))
			return -ENOMEM;
	}
	s->taught = clean;
	return 0;
}

const struct refcnt_ref *refcnt_suspects__pick(const struct refcnt_suspects *s,
					       const struct refcnt_pair_model *model, u8 type)
{
	for (u8 i = 0; i < s->nr; i++) {
		if (!suspects__seen_clean(model, type, s->puts[i].caller))
			return &s->puts[i];
	}
	return NULL;
}
