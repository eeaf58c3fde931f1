// SPDX-License-Identifier: GPL-2.0
/*
 * Compare two recordings by names: their findings new, gone and changed,
 * and the functions whose balance of references per call changed.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "../hashmap.h"
#include "diff.h"
#include "findings.h"

static size_t finding__hash(long key, void *ctx __maybe_unused)
{
	const struct refcnt_summary_finding *f = (const void *)key;

	return ((str_hash(f->site) * 31 + str_hash(f->chain)) * 31 + f->kind) * 31 +
	       (f->type << 1 | f->uncertain);
}

static bool finding__equal(long a, long b, void *ctx __maybe_unused)
{
	const struct refcnt_summary_finding *fa = (const void *)a, *fb = (const void *)b;

	return fa->kind == fb->kind && fa->type == fb->type && fa->uncertain == fb->uncertain &&
	       !strcmp(fa->site, fb->site) && !strcmp(fa->chain, fb->chain);
}

static size_t balance__hash(long key, void *ctx __maybe_unused)
{
	const struct refcnt_summary_balance *b = (const void *)key;

	return str_hash(b->func) * 31 + b->type;
}

static bool balance__equal(long a, long b, void *ctx __maybe_unused)
{
	const struct refcnt_summary_balance *ba = (const void *)a, *bb = (const void *)b;

	return ba->type == bb->type && !strcmp(ba->func, bb->func);
}

int refcnt_summary__init(struct refcnt_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->findings = hashmap__new(finding__hash, finding__equal, NULL);
	if (IS_ERR(s->findings)) {
		s->findings = NULL;
		return -ENOMEM;
	}
	s->balance = hashmap__new(balance__hash, balance__equal, NULL);
	if (IS_ERR(s->balance)) {
		s->balance = NULL;
		return -ENOMEM;
	}
	return 0;
}

void refcnt_summary__exit(struct refcnt_summary *s)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (s->findings) {
		hashmap__for_each_entry(s->findings, cur, bkt) {
			struct refcnt_summary_finding *f = cur->pvalue;

			free(f->site);
			free(f->chain);
			free(f);
		}
		hashmap__free(s->findings);
		s->findings = NULL;
	}
	if (s->balance) {
		hashmap__for_each_entry(s->balance, cur, bkt) {
			struct refcnt_summary_balance *b = cur->pvalue;

			free(b->func);
			free(b);
		}
		hashmap__free(s->balance);
		s->balance = NULL;
	}
}

int refcnt_summary__add_finding(struct refcnt_summary *s, enum refcnt_finding_kind kind,
				u8 type, bool uncertain, const char *site, const char *chain,
				u64 refs)
{
	struct refcnt_summary_finding key = {
		.kind = kind, .type = type, .uncertain = uncertain,
		.site = (char *)site, .chain = (char *)(chain ?: ""),
	};
	struct refcnt_summary_finding *f;

	if (hashmap__find(s->findings, &key, &f)) {
		f->refs += refs;
		return 0;
	}
	f = zalloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	*f = key;
	f->refs = refs;
	f->site = strdup(site);
	f->chain = strdup(key.chain);
	if (!f->site || !f->chain || hashmap__add(s->findings, f, f)) {
		free(f->site);
		free(f->chain);
		free(f);
		return -ENOMEM;
	}
	return 0;
}

int refcnt_summary__add_site(struct refcnt_summary *s, u8 type, const char *func, u64 gets,
			     u64 puts)
{
	struct refcnt_summary_balance key = { .type = type, .func = (char *)func };
	struct refcnt_summary_balance *b;

	if (!hashmap__find(s->balance, &key, &b)) {
		b = zalloc(sizeof(*b));
		if (!b)
			return -ENOMEM;
		b->type = type;
		b->func = strdup(func);
		if (!b->func || hashmap__add(s->balance, b, b)) {
			free(b->func);
			free(b);
			return -ENOMEM;
		}
	}
	b->gets += gets;
	b->puts += puts;
	b->calls = max(b->calls, gets + puts);
	b->sites++;
	return 0;
}

const char *refcnt_diff_status__name(enum refcnt_diff_status status)
{
	static const char * const names[] = {
		[REFCNT_DIFF__NEW] = "new",
		[REFCNT_DIFF__CHANGED] = "changed",
		[REFCNT_DIFF__GONE] = "gone",
		[REFCNT_DIFF__SAME] = "same",
	};

	return status <= REFCNT_DIFF__SAME ? names[status] : "?";
}

static enum refcnt_diff_status diff__status(const void *base, const void *new, bool same)
{
	if (!base)
		return REFCNT_DIFF__NEW;
	if (!new)
		return REFCNT_DIFF__GONE;
	return same ? REFCNT_DIFF__SAME : REFCNT_DIFF__CHANGED;
}

static const struct refcnt_summary_finding *finding__of(const struct refcnt_diff_finding *r)
{
	return r->new ?: r->base;
}

/* Are @a and @b callchains of one row: one kind, type and site? */
static int finding__row_cmp(const struct refcnt_summary_finding *a,
			    const struct refcnt_summary_finding *b)
{
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	if (a->uncertain != b->uncertain)
		return a->uncertain ? 1 : -1;
	return strcmp(a->site, b->site);
}

/* by row, then the most changed callchain first */
static int chain__cmp(const void *a, const void *b)
{
	const struct refcnt_diff_finding *ra = a, *rb = b;
	const struct refcnt_summary_finding *fa = finding__of(ra), *fb = finding__of(rb);
	int cmp = finding__row_cmp(fa, fb);

	if (cmp)
		return cmp;
	if (llabs(ra->delta) != llabs(rb->delta))
		return llabs(ra->delta) > llabs(rb->delta) ? -1 : 1;
	return strcmp(fa->chain, fb->chain);
}

static s64 group__delta(const struct refcnt_diff_group *g)
{
	return (s64)g->new - (s64)g->base;
}

static int group__cmp(const void *a, const void *b)
{
	const struct refcnt_diff_group *ga = a, *gb = b;
	int rank_a = refcnt_finding_kind__rank(ga->key->kind);
	int rank_b = refcnt_finding_kind__rank(gb->key->kind);

	if (ga->status != gb->status)
		return ga->status < gb->status ? -1 : 1;
	/* as report orders its rows */
	if (ga->key->uncertain != gb->key->uncertain)
		return ga->key->uncertain ? 1 : -1;
	if (rank_a != rank_b)
		return rank_a < rank_b ? -1 : 1;
	if (llabs(group__delta(ga)) != llabs(group__delta(gb)))
		return llabs(group__delta(ga)) > llabs(group__delta(gb)) ? -1 : 1;
	return finding__row_cmp(ga->key, gb->key);
}

/*
 * Make the rows of the callchains in d->findings, sorted by row: keep the
 * callchains that changed, in place, and the rows that have one.
 */
static void diff__group(struct refcnt_diff *d)
{
	u32 kept = 0, i = 0;

	while (i < d->nr_findings) {
		const struct refcnt_summary_finding *key = finding__of(&d->findings[i]);
		struct refcnt_diff_group *g = &d->groups[d->nr_groups];

		memset(g, 0, sizeof(*g));
		g->key = key;
		g->first = kept;
		for (; i < d->nr_findings; i++) {
			const struct refcnt_diff_finding *r = &d->findings[i];

			if (finding__row_cmp(finding__of(r), key))
				break;
			g->base += r->base ? r->base->refs : 0;
			g->new += r->new ? r->new->refs : 0;
			if (r->status != REFCNT_DIFF__SAME)
				d->findings[kept++] = *r;
		}
		g->nr = kept - g->first;
		if (!g->nr)
			continue;
		g->key = finding__of(&d->findings[g->first]);
		g->status = !g->base ? REFCNT_DIFF__NEW :
			    !g->new ? REFCNT_DIFF__GONE : REFCNT_DIFF__CHANGED;
		d->nr[g->status]++;
		d->nr_groups++;
	}
	d->nr_findings = kept;
}

/* Has @s a row of @key's kind, type and site, certain or not, on any callchain? */
static bool summary__has_row(const struct refcnt_summary *s,
			     const struct refcnt_summary_finding *key)
{
	struct hashmap_entry *cur;
	size_t bkt;

	hashmap__for_each_entry(s->findings, cur, bkt) {
		const struct refcnt_summary_finding *f = cur->pvalue;

		if (f->kind == key->kind && f->type == key->type && !strcmp(f->site, key->site))
			return true;
	}
	return false;
}

/* What diff --fail-on needs: which new rows' keys the baseline has, the kinds of new's */
static void diff__keys(struct refcnt_diff *d, const struct refcnt_summary *base,
		       const struct refcnt_summary *new)
{
	struct hashmap_entry *cur;
	size_t bkt;

	for (u32 i = 0; i < d->nr_groups; i++) {
		struct refcnt_diff_group *g = &d->groups[i];

		g->in_base = g->status != REFCNT_DIFF__NEW || summary__has_row(base, g->key);
	}
	hashmap__for_each_entry(new->findings, cur, bkt) {
		const struct refcnt_summary_finding *f = cur->pvalue;

		if (f->type < REFCNT_TYPE__MAX_NR && f->refs)
			d->new_kinds[f->type][f->uncertain] |= 1U << f->kind;
	}
	hashmap__for_each_entry(base->findings, cur, bkt) {
		const struct refcnt_summary_finding *f = cur->pvalue;

		if (f->type < REFCNT_TYPE__MAX_NR && f->refs && f->uncertain)
			d->base_uncertain[f->type] |= 1U << f->kind;
	}
}

static int diff__findings(struct refcnt_diff *d, const struct refcnt_summary *base,
			  const struct refcnt_summary *new)
{
	size_t max = hashmap__size(base->findings) + hashmap__size(new->findings);
	struct hashmap_entry *cur;
	size_t bkt;

	d->findings = calloc(max ?: 1, sizeof(*d->findings));
	d->groups = calloc(max ?: 1, sizeof(*d->groups));
	if (!d->findings || !d->groups)
		return -ENOMEM;
	hashmap__for_each_entry(new->findings, cur, bkt) {
		const struct refcnt_summary_finding *f = cur->pvalue, *old = NULL;
		struct refcnt_diff_finding *r = &d->findings[d->nr_findings++];

		hashmap__find(base->findings, f, &old);
		r->status = diff__status(old, f, old && old->refs == f->refs);
		r->base = old;
		r->new = f;
		r->delta = (s64)f->refs - (s64)(old ? old->refs : 0);
	}
	hashmap__for_each_entry(base->findings, cur, bkt) {
		const struct refcnt_summary_finding *f = cur->pvalue;
		struct refcnt_diff_finding *r = &d->findings[d->nr_findings];

		if (hashmap__find(new->findings, f, NULL))
			continue;
		r->status = REFCNT_DIFF__GONE;
		r->base = f;
		r->delta = -(s64)f->refs;
		d->nr_findings++;
	}
	qsort(d->findings, d->nr_findings, sizeof(*d->findings), chain__cmp);
	diff__group(d);
	diff__keys(d, base, new);
	qsort(d->groups, d->nr_groups, sizeof(*d->groups), group__cmp);
	return 0;
}

static double balance__per_call(const struct refcnt_summary_balance *b)
{
	if (!b || !b->calls)
		return 0;
	return ((double)b->gets - (double)b->puts) / b->calls;
}

static int balance_row__cmp(const void *a, const void *b)
{
	const struct refcnt_diff_balance *ra = a, *rb = b;
	const struct refcnt_summary_balance *ba = ra->new ?: ra->base, *bb = rb->new ?: rb->base;
	double da = fabs(ra->new_per_call - ra->base_per_call);
	double db = fabs(rb->new_per_call - rb->base_per_call);
	int cmp;

	if (da != db)
		return da > db ? -1 : 1;
	if (llabs(ra->delta) != llabs(rb->delta))
		return llabs(ra->delta) > llabs(rb->delta) ? -1 : 1;
	cmp = strcmp(ba->func, bb->func);
	return cmp ?: ba->type - bb->type;
}

static int diff__balance(struct refcnt_diff *d, const struct refcnt_summary *base,
			 const struct refcnt_summary *new)
{
	size_t max = hashmap__size(base->balance) + hashmap__size(new->balance);
	struct hashmap_entry *cur;
	size_t bkt;

	d->balance = calloc(max ?: 1, sizeof(*d->balance));
	if (!d->balance)
		return -ENOMEM;
	hashmap__for_each_entry(new->balance, cur, bkt) {
		const struct refcnt_summary_balance *b = cur->pvalue, *old = NULL;
		struct refcnt_diff_balance *r = &d->balance[d->nr_balance];

		hashmap__find(base->balance, b, &old);
		r->status = diff__status(old, b, old && old->gets == b->gets &&
					 old->puts == b->puts && old->calls == b->calls);
		if (r->status == REFCNT_DIFF__SAME)
			continue;
		r->base = old;
		r->new = b;
		d->nr_balance++;
	}
	hashmap__for_each_entry(base->balance, cur, bkt) {
		const struct refcnt_summary_balance *b = cur->pvalue;

		if (hashmap__find(new->balance, b, NULL))
			continue;
		d->balance[d->nr_balance].status = REFCNT_DIFF__GONE;
		d->balance[d->nr_balance++].base = b;
	}
	for (u32 i = 0; i < d->nr_balance; i++) {
		struct refcnt_diff_balance *r = &d->balance[i];
		s64 net_base = r->base ? (s64)(r->base->gets - r->base->puts) : 0;
		s64 net_new = r->new ? (s64)(r->new->gets - r->new->puts) : 0;

		r->base_per_call = balance__per_call(r->base);
		r->new_per_call = balance__per_call(r->new);
		r->delta = net_new - net_base;
	}
	qsort(d->balance, d->nr_balance, sizeof(*d->balance), balance_row__cmp);
	return 0;
}

int refcnt_diff__compute(struct refcnt_diff *d, const struct refcnt_summary *base,
			 const struct refcnt_summary *new)
{
	int err;

	memset(d, 0, sizeof(*d));
	err = diff__findings(d, base, new);
	if (!err)
		err = diff__balance(d, base, new);
	if (err)
		refcnt_diff__exit(d);
	return err;
}

/* The kinds of @kinds that function @r's change of references per call may make worse */
static u32 balance__worse_kinds(const struct refcnt_diff_balance *r, u32 kinds)
{
	double moved = r->new_per_call - r->base_per_call;
	u32 alive = 0, puts = 1U << REFCNT_FINDING__DOUBLE_PUT |
		    1U << REFCNT_FINDING__OVER_RELEASE | 1U << REFCNT_FINDING__USE_AFTER_PUT;

	if (r->status != REFCNT_DIFF__CHANGED || r->base->calls < REFCNT_DIFF_WORSE_CALLS ||
	    r->new->calls < REFCNT_DIFF_WORSE_CALLS)
		return 0;
	for (int k = 0; k < REFCNT_FINDING__MAX; k++) {
		if (refcnt_finding__outstanding(k))
			alive |= 1U << k;
	}
	if (moved >= REFCNT_DIFF_WORSE_PER_CALL)
		return kinds & alive;
	if (moved <= -REFCNT_DIFF_WORSE_PER_CALL)
		return kinds & puts;
	return 0;
}

static void worse__add(struct refcnt_diff_worse *w, bool uncertain, u32 kinds)
{
	if (!uncertain) {
		w->certain++;
		return;
	}
	w->uncertain++;
	w->uncertain_kinds |= kinds;
}

u32 refcnt_diff__worse(const struct refcnt_diff *d, u32 kinds, struct refcnt_diff_worse *w)
{
	memset(w, 0, sizeof(*w));
	for (u32 i = 0; i < d->nr_groups; i++) {
		const struct refcnt_diff_group *g = &d->groups[i];
		const struct refcnt_summary_finding *key = g->key;
		bool base_uncertain = key->type < REFCNT_TYPE__MAX_NR &&
				      (d->base_uncertain[key->type] & (1U << key->kind));

		if (g->in_base || !(kinds & (1U << key->kind)))
			continue;
		worse__add(w, key->uncertain || base_uncertain, 1U << key->kind);
		w->base_uncertain += !key->uncertain && base_uncertain;
	}
	for (u32 i = 0; i < d->nr_balance; i++) {
		const struct refcnt_diff_balance *r = &d->balance[i];
		u32 of = balance__worse_kinds(r, kinds);
		u8 type = r->new ? r->new->type : 0;

		if (!of || type >= REFCNT_TYPE__MAX_NR)
			continue;
		if (d->new_kinds[type][0] & of)
			worse__add(w, false, of);
		else if (d->new_kinds[type][1] & of)
			worse__add(w, true, d->new_kinds[type][1] & of);
	}
	return w->certain;
}

void refcnt_diff__exit(struct refcnt_diff *d)
{
	zfree(&d->findings);
	zfree(&d->groups);
	zfree(&d->balance);
	memset(d, 0, sizeof(*d));
}
