/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_HISTS_H
#define __PERF_REFCNT_HISTS_H

#include <linux/types.h>

#include "../hist.h"

/*
 * The table of perf refcnt report, one definition for --stdio and the TUI:
 * the finding groups as the entries of a hists of their own, as
 * builtin-c2c.c makes cachelines hist entries, with refcnt columns (Refs,
 * Objects, Type, Finding, Site). Each entry carries its group's index as
 * raw data, which is also its only sort key, so that the rows come in the
 * order of the findings. The callchains of a group's references are
 * appended to its entry, each with its references, and perf's callchain
 * code merges them as perf report merges a symbol's.
 */
struct refcnt_findings;
struct refcnt_group;
struct refcnt_symbolizer;

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

struct refcnt_hists {
	struct hists			hists;
	struct perf_hpp_list		list;
	struct perf_hpp_fmt		order;
	struct refcnt_column		columns[REFCNT_COL__MAX];
	const struct refcnt_findings	*findings;	/* sorted */
	const struct refcnt_symbolizer	*sym;
	u32				max_stack;	/* frames per callchain, 0: all */
};

/* symbol_conf.use_callchain and callchain_param are the caller's to set. */
void refcnt_hists__init(struct refcnt_hists *rh, const struct refcnt_findings *findings,
			const struct refcnt_symbolizer *sym, u32 max_stack);

/* Add groups [@first, @first + @nr) of the findings, then sort: 0 or -errno. */
int refcnt_hists__fill(struct refcnt_hists *rh, u32 first, u32 nr);

void refcnt_hists__exit(struct refcnt_hists *rh);

/* The group of an entry of a refcnt_hists. */
const struct refcnt_group *refcnt_hists__group(struct hist_entry *he);

#endif /* __PERF_REFCNT_HISTS_H */
