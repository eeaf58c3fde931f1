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

/* The get functions one put function released, most often first. */
struct pair_row {
	u64	get_fn[REFCNT_PAIR_MODEL_WAYS];
	u32	count[REFCNT_PAIR_MODEL_WAYS];
	u32	nr;
};

struct refcnt_pair_model {
	struct hashmap	*rows;		/* type and put function -> struct pair_row */
	struct hashmap	*clean;		/* type and put function -> lifetimes */
	bool		frozen;		/* learns no more */
};

struct refcnt_pair_model *refcnt_pair_model__new(void)
{
	struct refcnt_pair_model *model = zalloc(sizeof(*model));

	if (!model)
		return NULL;
	model->rows = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
	model->clean = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
	if (IS_ERR(model->rows) || IS_ERR(model->clean)) {
		if (!IS_ERR(model->rows))
			hashmap__free(model->rows);
		if (!IS_ERR(model->clean))
			hashmap__free(model->clean);
		free(model);
		return NULL;
	}
	return model;
}

void refcnt_pair_model__delete(struct refcnt_pair_model *model)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!model)
		return;
	hashmap__for_each_entry(model->rows, cur, bkt)
		free(cur->pvalue);
	hashmap__free(model->rows);
	hashmap__free(model->clean);
	free(model);
}

/* Count one more for @get_fn in @row, and keep the row sorted. */
static void pair_row__add(struct pair_row *row, u64 get_fn)
{
	u32 i;

	for (i = 0; i < row->nr && row->get_fn[i] != get_fn; i++)
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
		row->get_fn[i] = get_fn;
		row->count[i] = 0;
	}
	row->count[i]++;
	for (; i > 0 && row->count[i] > row->count[i - 1]; i--) {
		u64 fn = row->get_fn[i];
		u32 count = row->count[i];

		row->get_fn[i] = row->get_fn[i - 1];
		row->count[i] = row->count[i - 1];
		row->get_fn[i - 1] = fn;
		row->count[i - 1] = count;
	}
}

int refcnt_pair_model__learn(struct refcnt_pair_model *model, u8 type, u64 get_fn,
			     u64 put_fn)
{
	long key = refcnt_type_addr__key(put_fn, type);
	struct pair_row *row;

	if (!get_fn || !put_fn || model->frozen)
		return 0;
	if (!hashmap__find(model->rows, key, &row)) {
		row = zalloc(sizeof(*row));
		if (!row)
			return -ENOMEM;
		if (hashmap__add(model->rows, key, row)) {
			free(row);
			return -ENOMEM;
		}
	}
	pair_row__add(row, get_fn);
	return 0;
}

int refcnt_pair_model__releases(const struct refcnt_pair_model *model, u8 type, u64 put_fn,
				u64 *get_fns, int max)
{
	struct pair_row *row;
	int nr = 0;

	if (!put_fn || !hashmap__find(model->rows, refcnt_type_addr__key(put_fn, type), &row))
		return 0;
	for (u32 i = 0; i < row->nr && nr < max; i++, nr++)
		get_fns[nr] = row->get_fn[i];
	return nr;
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
