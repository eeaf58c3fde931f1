// SPDX-License-Identifier: GPL-2.0
/*
 * The pairs model of perf refcnt: which functions' references a put
 * function released where the history left one choice (see pair_model.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <linux/err.h>
#include <linux/zalloc.h>

#include "../hashmap.h"
#include "hash.h"
#include "pair_model.h"

/*
 * What one put function (or put site) released, most often first: get
 * functions (or the call sites the references were handed through).
 */
struct pair_row {
	u64	got[REFCNT_PAIR_MODEL_WAYS];
	u32	count[REFCNT_PAIR_MODEL_WAYS];
	u32	nr;
};

struct refcnt_pair_model {
	struct hashmap	*rows;		/* type and put function -> struct pair_row */
	struct hashmap	*sites;		/* type and put site -> struct pair_row of hand sites */
	struct hashmap	*clean;		/* type and put function -> lifetimes */
	bool		frozen;		/* learns no more */
};

struct refcnt_pair_model *refcnt_pair_model__new(void)
{
	struct refcnt_pair_model *model = zalloc(sizeof(*model));

	if (!model)
		return NULL;
	model->rows = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
	model->sites = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
	model->clean = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
	if (IS_ERR(model->rows) || IS_ERR(model->sites) || IS_ERR(model->clean)) {
		if (!IS_ERR(model->rows))
			hashmap__free(model->rows);
		if (!IS_ERR(model->sites))
			hashmap__free(model->sites);
		if (!IS_ERR(model->clean))
			hashmap__free(model->clean);
		free(model);
		return NULL;
	}
	return model;
}

void refcnt_pair_model__delete(struct refcnt_pair_model *model)
{
	if (!model)
		return;
	refcnt_hashmap__free_values(model->rows);
	refcnt_hashmap__free_values(model->sites);
	hashmap__free(model->clean);
	free(model);
}

/* Count one more for @got in @row, and keep the row sorted. */
static void pair_row__add(struct pair_row *row, u64 got)
{
	u32 i;

	for (i = 0; i < row->nr && row->got[i] != got; i++)
		;
	if (i == row->nr) {
		/*
		 * A full row: a new one takes the place of the rarest only
		 * once that has worn down to one (Misra-Gries): a one-off
		 * never evicts what was seen often
		 */
		if (row->nr == REFCNT_PAIR_MODEL_WAYS && row->count[row->nr - 1] > 1) {
			row->count[row->nr - 1]--;
			return;
		}
		if (row->nr < REFCNT_PAIR_MODEL_WAYS)
			row->nr++;
		i = row->nr - 1;
		row->got[i] = got;
		row->count[i] = 0;
	}
	row->count[i]++;
	for (; i > 0 && row->count[i] > row->count[i - 1]; i--) {
		u64 fn = row->got[i];
		u32 count = row->count[i];

		row->got[i] = row->got[i - 1];
		row->count[i] = row->count[i - 1];
		row->got[i - 1] = fn;
		row->count[i - 1] = count;
	}
}

/* One more @got for @put of @type in @rows. */
static int pair_rows__learn(struct hashmap *rows, u8 type, u64 got, u64 put)
{
	long key = refcnt_type_addr__key(put, type);
	struct pair_row *row;

	if (!hashmap__find(rows, key, &row)) {
		row = zalloc(sizeof(*row));
		if (!row)
			return -ENOMEM;
		if (hashmap__add(rows, key, row)) {
			free(row);
			return -ENOMEM;
		}
	}
	pair_row__add(row, got);
	return 0;
}

/* What @put of @type released in @rows, most often first, in @got: how many. */
static int pair_rows__releases(const struct hashmap *rows, u8 type, u64 put, u64 *got,
			       int max)
{
	struct pair_row *row;
	int nr = 0;

	if (!put || !hashmap__find(rows, refcnt_type_addr__key(put, type), &row))
		return 0;
	for (u32 i = 0; i < row->nr && nr < max; i++, nr++)
		got[nr] = row->got[i];
	return nr;
}

int refcnt_pair_model__learn(struct refcnt_pair_model *model, u8 type, u64 get_fn,
			     u64 put_fn)
{
	if (!get_fn || !put_fn || model->frozen)
		return 0;
	return pair_rows__learn(model->rows, type, get_fn, put_fn);
}

int refcnt_pair_model__releases(const struct refcnt_pair_model *model, u8 type, u64 put_fn,
				u64 *get_fns, int max)
{
	return pair_rows__releases(model->rows, type, put_fn, get_fns, max);
}

int refcnt_pair_model__learn_site(struct refcnt_pair_model *model, u8 type, u64 hand_site,
				  u64 put_site)
{
	if (!hand_site || !put_site || model->frozen)
		return 0;
	return pair_rows__learn(model->sites, type, hand_site, put_site);
}

int refcnt_pair_model__site_releases(const struct refcnt_pair_model *model, u8 type,
				     u64 put_site, u64 *hand_sites, int max)
{
	return pair_rows__releases(model->sites, type, put_site, hand_sites, max);
}

int refcnt_pair_model__clean_release(struct refcnt_pair_model *model, u8 type, u64 put_fn,
				     int delta)
{
	long key = refcnt_type_addr__key(put_fn, type), count = 0;

	if (!put_fn || model->frozen)
		return 0;
	hashmap__find(model->clean, key, &count);
	count += delta;
	if (count < 0)
		count = 0;
	return hashmap__set(model->clean, key, count, NULL, NULL);
}

long refcnt_pair_model__clean_releases(const struct refcnt_pair_model *model, u8 type,
				       u64 put_fn)
{
	long count = 0;

	hashmap__find(model->clean, refcnt_type_addr__key(put_fn, type), &count);
	return count;
}

void refcnt_pair_model__freeze(struct refcnt_pair_model *model)
{
	model->frozen = true;
}

bool refcnt_pair_model__learns(const struct refcnt_pair_model *model)
{
	return !model->frozen;
}
