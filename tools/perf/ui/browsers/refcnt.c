// SPDX-License-Identifier: GPL-2.0
/*
 * The TUI of perf refcnt report: the finding groups as hist entries of a
 * hists of their own, with refcnt columns, in perf's hist_browser, as
 * builtin-c2c.c shows cachelines. Each entry carries its group's index as
 * raw data, which is also its only sort key, so that the rows come in the
 * order --stdio prints them. Callchains are those of the groups' sites; 't'
 * opens the selected object's timeline in a browser of its own.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/zalloc.h>
#include <sys/ttydefaults.h>

#include "ui/browser.h"
#include "ui/browsers/hists.h"
#include "ui/browsers/refcnt.h"
#include "ui/helpline.h"
#include "ui/keysyms.h"
#include "ui/libslang.h"
#include "ui/ui.h"
#include "util/addr_location.h"
#include "util/callchain.h"
#include "util/debug.h"
#include "util/event.h"
#include "util/hist.h"
#include "util/machine.h"
#include "util/map.h"
#include "util/sample.h"
#include "util/symbol.h"
#include "util/thread.h"
#include "util/refcnt/findings.h"
#include "util/refcnt/spec.h"
#include "util/refcnt/stacks.h"
#include "util/refcnt/symbolize.h"

struct refcnt_hists {
	struct hists			hists;
	struct perf_hpp_list		list;
	const struct refcnt_browse	*rb;
};

enum refcnt_column_id {
	REFCNT_COL__REFS,
	REFCNT_COL__OBJECTS,
	REFCNT_COL__TYPE,
	REFCNT_COL__FINDING,
	REFCNT_COL__SITE,
	REFCNT_COL__MAX,
};

struct refcnt_column {
	struct perf_hpp_fmt	fmt;
	enum refcnt_column_id	id;
	const char		*header;
	int			width;
};

static const struct refcnt_group *he__group(struct hist_entry *he)
{
	struct refcnt_hists *rh = container_of(he->hists, struct refcnt_hists, hists);
	u32 idx = *(u32 *)he->raw_data;

	return idx < rh->rb->findings->nr ? rh->rb->findings->groups[idx] : NULL;
}

/* The order of --stdio: the group's index, first ones first. */
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

static int refcnt_column__header(struct perf_hpp_fmt *fmt, struct perf_hpp *hpp,
				 struct hists *hists __maybe_unused, int line __maybe_unused,
				 int *span __maybe_unused)
{
	struct refcnt_column *col = container_of(fmt, struct refcnt_column, fmt);

	if (col->id == REFCNT_COL__REFS || col->id == REFCNT_COL__OBJECTS)
		return scnprintf(hpp->buf, hpp->size, "%*s", col->width, col->header);
	return scnprintf(hpp->buf, hpp->size, "%-*s", col->width, col->header);
}

static void refcnt_column__text(struct refcnt_column *col, const struct refcnt_browse *rb,
				const struct refcnt_group *g, char *buf, size_t sz)
{
	FILE *fp;

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
		fp = fmemopen(buf, sz, "w");
		if (!fp) {
			snprintf(buf, sz, "%#" PRIx64, g->ref.site);
			break;
		}
		refcnt_sym__fprintf_ref(fp, rb->sym, &g->ref);
		fclose(fp);
		break;
	}
}

static int refcnt_column__entry(struct perf_hpp_fmt *fmt, struct perf_hpp *hpp,
				struct hist_entry *he)
{
	struct refcnt_column *col = container_of(fmt, struct refcnt_column, fmt);
	struct refcnt_hists *rh = container_of(he->hists, struct refcnt_hists, hists);
	const struct refcnt_group *g = he__group(he);
	char text[256] = "";

	if (g)
		refcnt_column__text(col, rh->rb, g, text, sizeof(text));
	if (col->id == REFCNT_COL__REFS || col->id == REFCNT_COL__OBJECTS)
		return scnprintf(hpp->buf, hpp->size, "%*s", col->width, text);
	return scnprintf(hpp->buf, hpp->size, "%-*s", col->width, text);
}

static struct refcnt_column refcnt_columns[REFCNT_COL__MAX] = {
	[REFCNT_COL__REFS]	= { .header = "Refs",		.width = 8 },
	[REFCNT_COL__OBJECTS]	= { .header = "Objects",	.width = 8 },
	[REFCNT_COL__TYPE]	= { .header = "Type",		.width = 8 },
	[REFCNT_COL__FINDING]	= { .header = "Finding",	.width = 26 },
	[REFCNT_COL__SITE]	= { .header = "Site",		.width = 4 },
};

static struct perf_hpp_fmt refcnt_order = {
	.name	  = "refcnt order",
	.cmp	  = refcnt_order__cmp,
	.collapse = refcnt_order__cmp,
	.sort	  = refcnt_order__sort,
	.equal	  = refcnt_fmt__equal,
};

static void refcnt_hists__init(struct refcnt_hists *rh, const struct refcnt_browse *rb)
{
	rh->rb = rb;
	__hists__init(&rh->hists, &rh->list);
	perf_hpp_list__init(&rh->list);
	rh->list.nr_header_lines = 1;

	INIT_LIST_HEAD(&refcnt_order.list);
	INIT_LIST_HEAD(&refcnt_order.sort_list);
	perf_hpp_list__register_sort_field(&rh->list, &refcnt_order);

	for (int i = 0; i < REFCNT_COL__MAX; i++) {
		struct perf_hpp_fmt *fmt = &refcnt_columns[i].fmt;

		refcnt_columns[i].id = i;
		fmt->name = refcnt_columns[i].header;
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

/* The site's callchain, callee first, into the thread's callchain cursor. */
static int refcnt__fill_cursor(struct callchain_cursor *cursor, struct thread *thread,
			       const struct refcnt_stack *stack)
{
	callchain_cursor_reset(cursor);
	for (u32 i = 0; stack && i < stack->nr; i++) {
		struct addr_location al;
		int err;

		struct map_symbol ms;

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

static int refcnt_hists__add_group(struct refcnt_hists *rh, u32 idx)
{
	const struct refcnt_browse *rb = rh->rb;
	const struct refcnt_group *g = rb->findings->groups[idx];
	struct perf_sample sample = {
		.period	  = g->refs,
		.raw_data = &idx,
		.raw_size = sizeof(idx),
	};
	struct callchain_cursor *cursor = get_tls_callchain_cursor();
	struct addr_location al;
	struct hist_entry *he;
	struct thread *thread;
	int err = -ENOMEM;

	thread = refcnt_sym__thread(rb->sym, g->ref.space);
	if (!thread || !cursor)
		goto out_put;

	addr_location__init(&al);
	thread__find_symbol(thread, PERF_RECORD_MISC_USER, g->ref.caller ?: g->ref.site, &al);
	if (!al.thread)
		al.thread = thread__get(thread);
	al.addr = g->ref.site;
	he = hists__add_entry(&rh->hists, &al, NULL, NULL, NULL, NULL, &sample, true);
	if (he) {
		err = refcnt__fill_cursor(cursor, thread,
					  refcnt_stacks__get(rb->sym->stacks, g->ref.stack));
		if (!err)
			err = callchain_append(he->callchain, cursor, sample.period);
	}
	addr_location__exit(&al);
out_put:
	thread__put(thread);
	return err;
}

static int refcnt_hists__fill(struct refcnt_hists *rh)
{
	const struct refcnt_findings *f = rh->rb->findings;
	struct refcnt_column *site = &refcnt_columns[REFCNT_COL__SITE];

	for (u32 i = 0; i < f->nr; i++) {
		char text[256];
		int err = refcnt_hists__add_group(rh, i);

		if (err)
			return err;
		refcnt_column__text(site, rh->rb, f->groups[i], text, sizeof(text));
		site->width = max_t(int, site->width, strlen(text));
	}
	hists__collapse_resort(&rh->hists, NULL);
	hists__output_resort(&rh->hists, NULL);
	return 0;
}

struct refcnt_browser {
	struct hist_browser	hb;
	const struct refcnt_browse *rb;
};

static int refcnt_browser__title(struct hist_browser *hb, char *bf, size_t size)
{
	struct refcnt_browser *b = container_of(hb, struct refcnt_browser, hb);

	scnprintf(bf, size, "perf refcnt: %s", b->rb->title);
	return 0;
}

static void refcnt_browser__update_nr_entries(struct hist_browser *hb)
{
	struct rb_node *nd = rb_first_cached(&hb->hists->entries);
	u64 nr = 0;

	for (; nd; nd = rb_next(nd))
		nr += !rb_entry(nd, struct hist_entry, rb_node)->filtered;
	hb->nr_non_filtered_entries = nr;
}

static void refcnt_text__write(struct ui_browser *browser, void *entry, int row)
{
	char **line = entry;

	ui_browser__set_color(browser, ui_browser__is_current_entry(browser, row) ?
			      HE_COLORSET_SELECTED : HE_COLORSET_NORMAL);
	ui_browser__write_nstring(browser, *line, browser->width);
}

/* The timeline of the selected group's object, a line per operation. */
static void refcnt_browser__timeline(struct refcnt_browser *b)
{
	static const char help[] =
	" UP/DOWN/PGUP/PGDN  Navigate\n"
	" q/ESC/LEFT         Back to the findings";
	const struct refcnt_group *g = b->hb.he_selection ? he__group(b->hb.he_selection) : NULL;
	struct ui_browser tb = {
		.refresh = ui_browser__argv_refresh,
		.seek	 = ui_browser__argv_seek,
		.write	 = refcnt_text__write,
	};
	char **lines = NULL, *text, *pos, title[128];
	int nr = 0, key;

	if (!g)
		return;
	ui_helpline__push("Replaying the recording for the object's timeline...");
	text = b->rb->history(b->rb->priv, g->obj);
	ui_helpline__pop();
	if (!text) {
		ui__error("Cannot replay the recording for the object at %#" PRIx64 "\n", g->obj);
		return;
	}
	for (pos = text; *pos; nr++) {
		char **more = reallocarray(lines, nr + 1, sizeof(*lines));
		char *eol = strchr(pos, '\n');

		if (!more)
			goto out;
		lines = more;
		lines[nr] = pos;
		if (!eol)
			break;
		*eol = '\0';
		pos = eol + 1;
	}
	tb.entries = lines;
	tb.nr_entries = nr;
	scnprintf(title, sizeof(title), "Timeline of the %s at %#" PRIx64 " (%s)",
		  refcnt_type_specs[g->type].name, g->obj, refcnt_finding_kind__name(g->kind));
	if (ui_browser__show(&tb, title, "q: back to the findings, ?: help") < 0)
		goto out;
	while (1) {
		key = ui_browser__run(&tb, 0);
		if (key == '?' || key == 'h' || key == K_F1) {
			ui_browser__help_window(&tb, help);
			continue;
		}
		if (key == 'q' || key == K_ESC || key == K_LEFT || key == CTRL('c'))
			break;
	}
	ui_browser__hide(&tb);
out:
	free(lines);
	free(text);
}

static void refcnt_browser__filter(struct refcnt_browser *b, char *buf, size_t sz)
{
	struct hists *hists = b->hb.hists;

	if (ui_browser__input_window("Site symbol to show",
				     "Show the findings whose site's function contains it.\n"
				     "To remove the filter, press / and ENTER.",
				     buf, "ENTER: OK, ESC: Cancel", 0) != K_ENTER)
		return;
	buf[sz - 1] = '\0';
	hists->symbol_filter_str = *buf ? buf : NULL;
	hists__filter_by_symbol(hists);
	refcnt_browser__update_nr_entries(&b->hb);
}

int refcnt__tui_browse(const struct refcnt_browse *rb)
{
	static const char help[] =
	" ENTER/+       Expand or collapse the callchain of the site\n"
	" e/c           Expand/collapse the selected entry, E/C all of them\n"
	" t             Timeline of the selected group's (first) object\n"
	" /             Show only sites in a function whose name contains...\n"
	" H             Show or hide the column headers\n"
	" h/?/F1        This help\n"
	" q/ESC         Quit";
	struct refcnt_browser b = { .rb = rb };
	struct refcnt_hists rh;
	char filter[BUFSIZ] = "";
	int key, err;

	symbol_conf.use_callchain = true;
	callchain_param.min_percent = 0;
	if (callchain_register_param(&callchain_param) < 0)
		return -EINVAL;

	refcnt_hists__init(&rh, rb);
	err = refcnt_hists__fill(&rh);
	if (err)
		goto out;

	hist_browser__init(&b.hb, &rh.hists);
	b.hb.title = refcnt_browser__title;

	key = 0;
	while (1) {
		/* ENTER toggles the fold, as '+' does */
		key = hist_browser__run(&b.hb, "?: help, t: timeline, q: quit", false,
					key == K_ENTER ? '+' : 0);
		switch (key) {
		case K_ENTER:
			continue;
		case 't':
			refcnt_browser__timeline(&b);
			break;
		case '/':
			refcnt_browser__filter(&b, filter, sizeof(filter));
			break;
		case 'h':
		case '?':
		case K_F1:
			ui_browser__help_window(&b.hb.b, help);
			break;
		case 'q':
		case K_ESC:
		case CTRL('c'):
		case -1:
			goto out;
		default:
			break;
		}
		key = 0;
	}
out:
	hists__delete_entries(&rh.hists);
	return err;
}
