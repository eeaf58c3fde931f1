// SPDX-License-Identifier: GPL-2.0
/*
 * Group the findings of the pairing engine for the user.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/zalloc.h>

#include "../hashmap.h"
#include "findings.h"
#include "hash.h"

struct group_key {
	u64	site;
	u64	obj;
	u64	space;
	const char *comm;
	u8	kind;
	u8	type;
	u8	uncertain;
};

static size_t key__hash(long key, void *ctx __maybe_unused)
{
	const struct group_key *k = (const struct group_key *)key;

	return (((k->site * 31 + k->obj) * 31 + k->space) * 31 + (uintptr_t)k->comm) * 31 +
	       ((k->kind << 16) | (k->type << 8) | k->uncertain);
}

static bool key__equal(long a, long b, void *ctx __maybe_unused)
{
	const struct group_key *ka = (const struct group_key *)a;
	const struct group_key *kb = (const struct group_key *)b;

	return ka->site == kb->site && ka->obj == kb->obj && ka->space == kb->space &&
	       ka->comm == kb->comm &&
	       ka->kind == kb->kind &&
	       ka->type == kb->type && ka->uncertain == kb->uncertain;
}

int refcnt_findings__init(struct refcnt_findings *f, const char *sort)
{
	static const char * const names[REFCNT_SORT__MAX] = {
		[REFCNT_SORT__TYPE] = "type",
		[REFCNT_SORT__SITE] = "site",
		[REFCNT_SORT__OBJECT] = "object",
		[REFCNT_SORT__COMM] = "comm",
	};
	char *copy, *tok, *saveptr = NULL;
	int err = 0;

	memset(f, 0, sizeof(*f));
	copy = strdup(sort ?: "type,site");
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &saveptr); tok; tok = strtok_r(NULL, ",", &saveptr)) {
		int k;

		for (k = 0; k < REFCNT_SORT__MAX; k++) {
			if (!strcmp(strim(tok), names[k]))
				break;
		}
		if (k == REFCNT_SORT__MAX) {
			err = -EINVAL;
			break;
		}
		f->sort_by[k] = true;
	}
	free(copy);
	if (err)
		return err;

	f->map = hashmap__new(key__hash, key__equal, NULL);
	if (IS_ERR(f->map))
		return PTR_ERR(f->map);
	f->leaked = hashmap__new(refcnt_space_addr__hash, refcnt_space_addr__equal, NULL);
	if (IS_ERR(f->leaked))
		return PTR_ERR(f->leaked);
	f->held_stacks = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
	return IS_ERR(f->held_stacks) ? PTR_ERR(f->held_stacks) : 0;
}

/* One more reference with callchain @stack in @map (created on first use). */
static int stacks__add(struct hashmap **map, u32 stack)
{
	long refs = 0;

	if (!*map) {
		*map = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
		if (IS_ERR(*map)) {
			*map = NULL;
			return -ENOMEM;
		}
	}
	hashmap__find(*map, stack, &refs);
	return hashmap__set(*map, stack, refs + 1, NULL, NULL) ? -ENOMEM : 0;
}

void refcnt_findings__exit(struct refcnt_findings *f)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!IS_ERR_OR_NULL(f->map)) {
		hashmap__for_each_entry(f->map, cur, bkt) {
			struct refcnt_group *g = cur->pvalue;

			hashmap__free(g->stacks);
			free((void *)cur->key);
			free(g);
		}
		hashmap__free(f->map);
	}
	f->map = NULL;
	if (!IS_ERR_OR_NULL(f->held_stacks))
		hashmap__free(f->held_stacks);
	f->held_stacks = NULL;
	if (!IS_ERR_OR_NULL(f->leaked)) {
		hashmap__for_each_entry(f->leaked, cur, bkt)
			free((void *)cur->key);
		hashmap__free(f->leaked);
	}
	f->leaked = NULL;
	zfree(&f->groups);
}

bool refcnt_finding__outstanding(enum refcnt_finding_kind kind)
{
	return kind == REFCNT_FINDING__LEAK || kind == REFCNT_FINDING__OWNED_AT_EXIT ||
	       kind == REFCNT_FINDING__HELD_BY_LEAK ||
	       kind == REFCNT_FINDING__STILL_REFERENCED;
}

char *refcnt_field__escape(char *buf, size_t size, const char *s, const char *sep)
{
	const char *subst = "_.?!";
	size_t i;

	while (subst[1] && strchr(sep, *subst))
		subst++;
	for (i = 0; s[i] && i + 1 < size; i++)
		buf[i] = strchr(sep, s[i]) ? *subst : s[i];
	if (size)
		buf[i] = '\0';
	return buf;
}

bool refcnt_finding__is_bug(enum refcnt_finding_kind kind)
{
	return kind == REFCNT_FINDING__LEAK || kind == REFCNT_FINDING__OVER_RELEASE ||
	       kind == REFCNT_FINDING__DOUBLE_PUT || kind == REFCNT_FINDING__USE_AFTER_PUT;
}

const struct refcnt_ref *refcnt_finding__site(const struct refcnt_finding *finding)
{
	if ((finding->kind == REFCNT_FINDING__OVER_RELEASE ||
	     finding->kind == REFCNT_FINDING__DOUBLE_PUT ||
	     finding->kind == REFCNT_FINDING__LEAK) && finding->has_culprit)
		return &finding->culprit;
	return &finding->ref;
}

int refcnt_findings__add(struct refcnt_findings *f, const struct refcnt_finding *finding,
			 const char *comm)
{
	const struct refcnt_ref *site = refcnt_finding__site(finding);
	struct group_key key = {
		.kind = finding->kind,
		.uncertain = finding->uncertain,
	}, *k;
	struct refcnt_group *g;

	if (f->sort_by[REFCNT_SORT__TYPE])
		key.type = finding->type;
	if (f->sort_by[REFCNT_SORT__SITE])
		key.site = site->site;
	if (f->sort_by[REFCNT_SORT__OBJECT]) {
		key.obj = finding->obj;
		key.space = finding->space;
	}
	if (f->sort_by[REFCNT_SORT__COMM])
		key.comm = comm;

	if (finding->uncertain)
		f->uncertain++;
	else
		f->totals[finding->kind]++;
	if (refcnt_finding__outstanding(finding->kind))
		f->outstanding++;

	/* held by a leaked object: told under that object's leak */
	if (finding->kind == REFCNT_FINDING__HELD_BY_LEAK) {
		struct refcnt_space_addr holder = {
			.space = finding->space, .addr = finding->holder,
		};

		if (hashmap__find(f->leaked, &holder, &g)) {
			g->held_refs++;
			if (g->held_last_obj != finding->obj) {
				g->held_objects++;
				g->held_last_obj = finding->obj;
			}
			return stacks__add(&f->held_stacks, site->stack);
		}
	}

	if (!hashmap__find(f->map, &key, &g)) {
		k = malloc(sizeof(*k));
		g = zalloc(sizeof(*g));
		if (k)
			*k = key;	/* before the add, which hashes it */
		if (!k || !g || hashmap__add(f->map, k, g)) {
			free(k);
			free(g);
			return -ENOMEM;
		}
		g->kind = finding->kind;
		g->why = finding->why;
		g->type = finding->type;
		g->uncertain = finding->uncertain;
		g->ref = *site;
		g->obj = finding->obj;
		g->comm = comm;
		g->expected = finding->expected;
		g->live = finding->live;
		if (finding->kind == REFCNT_FINDING__DOUBLE_PUT ||
		    finding->kind == REFCNT_FINDING__USE_AFTER_PUT ||
		    finding->kind == REFCNT_FINDING__AFTER_EXTRA_PUT ||
		    (finding->kind == REFCNT_FINDING__OVER_RELEASE && finding->has_culprit)) {
			/* show the other put: the one that freed, or this one */
			g->other = finding->kind == REFCNT_FINDING__OVER_RELEASE ?
				   finding->ref : finding->other;
			g->has_other = true;
		}
		g->last_obj = ~0ULL;
	}
	if (finding->kind == REFCNT_FINDING__LEAK) {
		struct refcnt_space_addr obj = { .space = finding->space, .addr = finding->obj };
		struct refcnt_space_addr *leaked;

		/* an object's leaks come together: one entry for the first */
		if (!hashmap__find(f->leaked, &obj, NULL)) {
			leaked = malloc(sizeof(*leaked));
			if (!leaked)
				return -ENOMEM;
			*leaked = obj;
			if (hashmap__add(f->leaked, leaked, g)) {
				free(leaked);
				return -ENOMEM;
			}
		}
	}
	g->refs++;
	if (stacks__add(&g->stacks, site->stack))
		return -ENOMEM;
	if (g->last_obj != finding->obj || g->last_space != finding->space ||
	    g->last_gen != finding->generation) {
		g->objects++;
		g->last_obj = finding->obj;
		g->last_space = finding->space;
		g->last_gen = finding->generation;
	}
	return 0;
}

int refcnt_finding_kind__rank(enum refcnt_finding_kind kind)
{
	switch (kind) {
	case REFCNT_FINDING__DOUBLE_PUT:	return 0;
	case REFCNT_FINDING__OVER_RELEASE:	return 1;
	case REFCNT_FINDING__USE_AFTER_PUT:	return 2;
	case REFCNT_FINDING__LEAK:		return 3;
	case REFCNT_FINDING__MISMATCH:		return 4;
	case REFCNT_FINDING__AFTER_EXTRA_PUT:	return 5;
	case REFCNT_FINDING__HELD_BY_LEAK:	return 6;
	case REFCNT_FINDING__OWNED_AT_EXIT:	return 7;
	case REFCNT_FINDING__STILL_REFERENCED:	return 8;
	case REFCNT_FINDING__MAX:
	default:				return 9;
	}
}

static int group__cmp(const void *a, const void *b)
{
	const struct refcnt_group *ga = *(const struct refcnt_group **)a;
	const struct refcnt_group *gb = *(const struct refcnt_group **)b;

	if (ga->uncertain != gb->uncertain)
		return ga->uncertain - gb->uncertain;
	if (refcnt_finding_kind__rank(ga->kind) != refcnt_finding_kind__rank(gb->kind))
		return refcnt_finding_kind__rank(ga->kind) - refcnt_finding_kind__rank(gb->kind);
	if (ga->refs != gb->refs)
		return ga->refs > gb->refs ? -1 : 1;
	if (ga->objects != gb->objects)
		return ga->objects > gb->objects ? -1 : 1;
	if (ga->type != gb->type)
		return ga->type - gb->type;
	if (ga->ref.site != gb->ref.site)
		return ga->ref.site < gb->ref.site ? -1 : 1;
	return ga->obj < gb->obj ? -1 : ga->obj > gb->obj;
}

int refcnt_findings__sort(struct refcnt_findings *f)
{
	struct hashmap_entry *cur;
	size_t bkt;
	u32 n = 0;

	zfree(&f->groups);
	f->nr = hashmap__size(f->map);
	f->groups = calloc(f->nr ?: 1, sizeof(*f->groups));
	if (!f->groups)
		return -ENOMEM;
	hashmap__for_each_entry(f->map, cur, bkt) {
		const struct refcnt_group *g = cur->pvalue;

		if (g->refs)
			f->groups[n++] = cur->pvalue;
	}
	f->nr = n;
	qsort(f->groups, f->nr, sizeof(*f->groups), group__cmp);
	return 0;
}

void refcnt_findings__hide(struct refcnt_findings *f, struct refcnt_group *g, u32 stack,
			   u64 refs)
{
	struct hashmap_entry *cur;
	long left = 0, most = 0;
	size_t bkt;

	refs = min(refs, g->refs);
	hashmap__find(g->stacks, stack, &left);
	left -= min_t(u64, left, refs);
	if (left)
		hashmap__set(g->stacks, stack, left, NULL, NULL);
	else
		hashmap__delete(g->stacks, stack, NULL, NULL);
	g->refs -= refs;
	if (g->uncertain)
		f->uncertain -= min(f->uncertain, refs);
	else
		f->totals[g->kind] -= min(f->totals[g->kind], refs);
	if (refcnt_finding__outstanding(g->kind))
		f->outstanding -= min(f->outstanding, refs);
	if (stack != g->ref.stack || !g->stacks)
		return;
	/* the callchain shown is gone: show the one with most references left */
	hashmap__for_each_entry(g->stacks, cur, bkt) {
		if (cur->value > most) {
			most = cur->value;
			g->ref.stack = cur->key;
		}
	}
}
