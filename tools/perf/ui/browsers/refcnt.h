/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _PERF_UI_BROWSERS_REFCNT_H_
#define _PERF_UI_BROWSERS_REFCNT_H_

#include <linux/types.h>

struct refcnt_findings;
struct refcnt_symbolizer;

/* What the perf refcnt report browser shows, and how it asks for more. */
struct refcnt_browse {
	const struct refcnt_findings	*findings;	/* sorted */
	const struct refcnt_symbolizer	*sym;
	const char			*title;		/* the header totals */
	/* every operation on the object at @obj, as text lines; malloc'ed */
	char *(*history)(void *priv, u64 obj);
	void				*priv;
};

#ifdef HAVE_SLANG_SUPPORT
/* One row per finding group, as hists in a hist_browser; 0 or -errno. */
int refcnt__tui_browse(const struct refcnt_browse *rb);
#else
static inline int refcnt__tui_browse(const struct refcnt_browse *rb __maybe_unused)
{
	return -1;
}
#endif

#endif /* _PERF_UI_BROWSERS_REFCNT_H_ */
