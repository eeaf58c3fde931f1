// SPDX-License-Identifier: GPL-2.0
/*
 * The findings of perf refcnt report as perf hists: the one table that
 * --stdio prints with hists__fprintf() and the TUI browses.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <linux/kernel.h>

#include "../addr_location.h"
#include "../callchain.h"
#include "../hashmap.h"
#include "../map_symbol.h"
#include "../sample.h"
#include "../symbol.h"
#include "../thread.h"
#include "findings.h"
#include "hists.h"
#include "spec.h"
#include "stacks.h"
#include "symbolize.h"

static struct refcnt_hists *he__refcnt_hists(struct hist_entry *he)
{
	return container_of(he->hists, struct refcnt_hists, hists);
}

const struct refcnt_group *refcnt_hists__group(struct hist_entry *he)
{
	struct refcnt_hists *rh = he__refcnt_hists(he);
	u32 idx = *(u32 *)he->raw_data;

	return idx < rh->findings->nr ? rh->findings->groups[idx] : NULL;
}

/* The order of the findings: the group's index, first ones first. */
static int64_t refcnt_order__cmp(struct perf_hpp_fmt *fmt __maybe_unused,
				 struct hist_entry *a, struct hist_entry *b)
{
	return (int64_t)*(u32 *)a->raw_data - *(u32 *)b->raw_data;
}

static int64_t refcnt_order__sort(struct perf_hpp_fmt *fmt, struct hist_entry *a,
				  struct hist_entry *b)
{
	return refcnt_order__cmp(fmt, b, a);
}

static bool refcnt_fmt__equal(struct perf_hpp_fmt *a, struct perf_hpp_fmt *b)
{
	return a == b;
}

static int refcnt_column__width(struct perf_hpp_fmt *fmt, struct perf_hpp *hpp __maybe_unused,
				struct hists *hists __maybe_unused)
{
	return container_of(fmt, struct refcnt_column, fmt)->width;
}

static bool refcnt_column__right(const struct refcnt_column *col)
{
	return col->id == REFCNT_COL__REFS || col->id == REFCNT_COL__OBJECTS;
}

static int refcnt_column__header(struct perf_hpp_fmt *fmt, struct perf_hpp *hpp,
				 struct hists *hists __maybe_unused, int line __maybe_unused,
				 int *span __maybe_unused)
{
	struct refcnt_column *col = container_of(fmt, struct refcnt_column, fmt);

	if (col->id == REFCNT_COL__SITE)
		return scnprintf(hpp->buf, hpp->size, "%s", col->header);
	return scnprintf(hpp->buf, hpp->size, refcnt_column__right(col) ? "%*s" : "%-*s",
			 col->width, col->header);
}

/*
 * The site: where the reference was taken or released, why that site
 * (bugs), what the probe read (mismatches), and what the group's leaked
 * objects alone reach (held by a leak).
 */
static void refcnt_site__text(const struct refcnt_hists *rh, const struct refcnt_group *g,
			      char *buf, size_t sz)
{
	FILE *fp = fmemopen(buf, sz, "w");

	if (!fp) {
		snprintf(buf, sz, "%#" PRIx64, g->ref.site);
		return;
	}
	refcnt_sym__fprintf_ref(fp, rh->sym, &g->ref);
	if (g->kind == REFCNT_FINDING__MISMATCH)
		fprintf(fp, "  (counted %d, live %d)", g->expected, g->live);
	else if (refcnt_finding__is_bug(g->kind))
		fprintf(fp, "  [%s]", refcnt_site_why__name(g->why));
	if (g->held_refs)
		fprintf(fp, "  holds %" PRIu64 " reference(s) on %" PRIu64
			" object(s) only leaked objects reach", g->held_refs, g->held_objects);
	fclose(fp);
}

static void refcnt_column__text(const struct refcnt_column *col, const struct refcnt_hists *rh,
				const struct refcnt_group *g, char *buf, size_t sz)
{
	switch (col->id) {
	case REFCNT_COL__REFS:
		snprintf(buf, sz, "%" PRIu64, g->refs);
		break;
	case REFCNT_COL__OBJECTS:
		snprintf(buf, sz, "%" PRIu64, g->objects);
		break;
	case REFCNT_COL__TYPE:
		snprintf(buf, sz, "%s", refcnt_type_specs[g->type].name);
		break;
	case REFCNT_COL__FINDING:
		snprintf(buf, sz, "%s%s", refcnt_finding_kind__name(g->kind),
			 g->uncertain ? " (uncertain)" : "");
		break;
	case REFCNT_COL__SITE:
	case REFCNT_COL__MAX:
	default:
		refcnt_site__text(rh, g, buf, sz);
		break;
	}
}

static int refcnt_column__entry(struct perf_hpp_fmt *fmt, struct perf_hpp *hpp,
				struct hist_entry *he)
{
	struct refcnt_column *col = container_of(fmt, struct refcnt_column, fmt);
	const struct refcnt_group *g = refcnt_hists__group(he);
	char text[512] = "";

	if (g)
		refcnt_column__text(col, he__refcnt_hists(he), g, text, sizeof(text));
	/* the last column is not padded: no trailing blanks */
	if (col->id == REFCNT_COL__SITE)
		return scnprintf(hpp->buf, hpp->size, "%s", text);
	return scnprintf(hpp->buf, hpp->size, refcnt_column__right(col) ? "%*s" : "%-*s",
			 col->width, text);
}

void refcnt_hists__init(struct refcnt_hists *rh, const struct refcnt_findings *findings,
			const struct refcnt_symbolizer *sym, u32 max_stack)
{
	static const struct refcnt_column columns[REFCNT_COL__MAX] = {
		[REFCNT_COL__REFS]	= { .header = "Refs",		.width = 8 },
		[REFCNT_COL__OBJECTS]	= { .header = "Objects",	.width = 8 },
		[REFCNT_COL__TYPE]	= { .header = "Type",		.width = 8 },
		[REFCNT_COL__FINDING]	= { .header = "Finding",	.width = 24 },
		[REFCNT_COL__SITE]	= { .header = "Site",		.width = 4 },
	};

	memset(rh, 0, sizeof(*rh));
	rh->findings = findings;
	rh->sym = sym;
	rh->max_stack = max_stack;
	__hists__init(&rh->hists, &rh->list);
	perf_hpp_list__init(&rh->list);
	rh->list.nr_header_lines = 1;

	rh->order.name = "refcnt order";
	rh->order.cmp = refcnt_order__cmp;
	rh->order.collapse = refcnt_order__cmp;
	rh->order.sort = refcnt_order__sort;
	rh->order.equal = refcnt_fmt__equal;
	INIT_LIST_HEAD(&rh->order.list);
	INIT_LIST_HEAD(&rh->order.sort_list);
	perf_hpp_list__register_sort_field(&rh->list, &rh->order);

	for (int i = 0; i < REFCNT_COL__MAX; i++) {
		struct refcnt_column *col = &rh->columns[i];
		struct perf_hpp_fmt *fmt = &col->fmt;

		*col = columns[i];
		col->id = i;
		fmt->name = col->header;
		fmt->header = refcnt_column__header;
		fmt->width = refcnt_column__width;
		fmt->entry = refcnt_column__entry;
		fmt->cmp = refcnt_order__cmp;
		fmt->collapse = refcnt_order__cmp;
		fmt->sort = refcnt_order__sort;
		fmt->equal = refcnt_fmt__equal;
		INIT_LIST_HEAD(&fmt->list);
		INIT_LIST_HEAD(&fmt->sort_list);
		perf_hpp_list__column_register(&rh->list, fmt);
	}
}

/* Callchain @id, callee first, into @cursor: at most rh->max_stack frames. */
static int refcnt_hists__cursor(const struct refcnt_hists *rh, struct callchain_cursor *cursor,
				struct thread *thread, u32 id)
{
	const struct refcnt_stack *stack = refcnt_stacks__get(rh->sym->stacks, id);
	u32 nr = stack ? stack->nr : 0;

	if (rh->max_stack)
		nr = min(nr, rh->max_stack);
	callchain_cursor_reset(cursor);
	for (u32 i = 0; i < nr; i++) {
		struct addr_location al;
		struct map_symbol ms;
		int err;

		addr_location__init(&al);
		/* callers' frames are return addresses: look up the call */
		thread__find_symbol(thread, PERF_RECORD_MISC_USER,
				    refcnt_sym__lookup_addr(stack->ips[i], i > 0), &al);
		ms.maps = al.maps;
		ms.map = al.map;
		ms.sym = al.sym;
		err = callchain_cursor_append(cursor, stack->ips[i], &ms, false, NULL,
					      0, 0, 0, NULL);
		addr_location__exit(&al);
		if (err)
			return err;
	}
	callchain_cursor_commit(cursor);
	return 0;
}

/* The callchains of @g's references into @he, each with its references. */
static int refcnt_hists__callchains(const struct refcnt_hists *rh, struct hist_entry *he,
				    struct thread *thread, const struct refcnt_group *g)
{
	struct callchain_cursor *cursor = get_tls_callchain_cursor();
	struct hashmap_entry *cur;
	size_t bkt;
	int err;

	if (!cursor)
		return -ENOMEM;
	if (!g->stacks || !hashmap__size(g->stacks)) {
		err = refcnt_hists__cursor(rh, cursor, thread, g->ref.stack);
		return err ?: callchain_append(he->callchain, cursor, g->refs);
	}
	hashmap__for_each_entry(g->stacks, cur, bkt) {
		err = refcnt_hists__cursor(rh, cursor, thread, cur->key);
		if (!err)
			err = callchain_append(he->callchain, cursor, cur->value);
		if (err)
			return err;
	}
	return 0;
}

static int refcnt_hists__add_group(struct refcnt_hists *rh, u32 idx)
{
	const struct refcnt_group *g = rh->findings->groups[idx];
	struct perf_sample sample = {
		.period	  = g->refs,
		.raw_data = &idx,
		.raw_size = sizeof(idx),
	};
	struct addr_location al;
	struct hist_entry *he;
	struct thread *thread;
	int err = -ENOMEM;

	thread = refcnt_sym__thread(rh->sym, g->ref.space);
	if (!thread)
		return -ENOMEM;

	addr_location__init(&al);
	thread__find_symbol(thread, PERF_RECORD_MISC_USER, g->ref.caller ?: g->ref.site, &al);
	if (!al.thread)
		al.thread = thread__get(thread);
	al.addr = g->ref.site;
	he = hists__add_entry(&rh->hists, &al, NULL, NULL, NULL, NULL, &sample, true);
	if (he)
		err = symbol_conf.use_callchain ?
		      refcnt_hists__callchains(rh, he, thread, g) : 0;
	addr_location__exit(&al);
	thread__put(thread);
	return err;
}

int refcnt_hists__fill(struct refcnt_hists *rh, u32 first, u32 nr)
{
	struct refcnt_column *site = &rh->columns[REFCNT_COL__SITE];

	for (u32 i = first; i < first + nr && i < rh->findings->nr; i++) {
		char text[512];
		int err = refcnt_hists__add_group(rh, i);

		if (err)
			return err;
		refcnt_site__text(rh, rh->findings->groups[i], text, sizeof(text));
		site->width = max_t(int, site->width, strlen(text));
	}
	hists__collapse_resort(&rh->hists, NULL);
	hists__output_resort(&rh->hists, NULL);
	return 0;
}

void refcnt_hists__exit(struct refcnt_hists *rh)
{
	hists__delete_entries(&rh->hists);
}
