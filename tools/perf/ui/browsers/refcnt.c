// SPDX-License-Identifier: GPL-2.0
/*
 * The TUI of perf refcnt report: the table --stdio prints (util/refcnt/hists.c)
 * in perf's hist_browser, as builtin-c2c.c shows cachelines; 't' opens the
 * selected object's timeline in a browser of its own.
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
#include "util/callchain.h"
#include "util/debug.h"
#include "util/hist.h"
#include "util/symbol.h"
#include "util/refcnt/findings.h"
#include "util/refcnt/hists.h"
#include "util/refcnt/spec.h"

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
	struct hist_entry *he = b->hb.he_selection;
	const struct refcnt_group *g = he ? refcnt_hists__group(he) : NULL;
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

	refcnt_hists__init(&rh, rb->findings, rb->sym, 0);
	err = refcnt_hists__fill(&rh, 0, rb->findings->nr);
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
	refcnt_hists__exit(&rh);
	return err;
}
