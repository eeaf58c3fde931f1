/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_DIFF_H
#define __PERF_REFCNT_DIFF_H

#include <stdbool.h>
#include <linux/types.h>

#include "pairing.h"

/*
 * What changed between two recordings, as perf diff compares two perf.data
 * files. Each recording is first summarized by names, not addresses: two
 * builds of perf put the same function at other addresses, two runs put the
 * same object at others.
 *
 * A finding is keyed by its kind, type, site function and callchain (the
 * functions, outermost first, ';' separated), with its references.
 *
 * The balance of a function is the references its sites took and released,
 * per type. Its calls are estimated as the most events at one of its sites:
 * outside loops a site runs at most once per call, so a function that took
 * one reference per call and now takes two shows its gets per call double
 * even where the pairing cannot say which of the two was the extra one.
 */
struct hashmap;

struct refcnt_summary_finding {
	enum refcnt_finding_kind kind;
	u8	type;
	bool	uncertain;
	char	*site;		/* function */
	char	*chain;		/* "outer;...;inner", "" if none */
	u64	refs;
};

struct refcnt_summary_balance {
	u8	type;
	char	*func;
	u64	gets, puts;
	u64	calls;		/* the most events at one of its sites */
	u32	sites;
};

struct refcnt_summary {
	struct hashmap	*findings;	/* struct refcnt_summary_finding * -> itself */
	struct hashmap	*balance;	/* struct refcnt_summary_balance * -> itself */
};

int refcnt_summary__init(struct refcnt_summary *s);
void refcnt_summary__exit(struct refcnt_summary *s);

/* @refs more references of finding (@kind, @type, @site, @chain) */
int refcnt_summary__add_finding(struct refcnt_summary *s, enum refcnt_finding_kind kind,
				u8 type, bool uncertain, const char *site, const char *chain,
				u64 refs);

/* One more site of function @func: its @gets and @puts on objects of @type. */
int refcnt_summary__add_site(struct refcnt_summary *s, u8 type, const char *func, u64 gets,
			     u64 puts);

enum refcnt_diff_status {
	REFCNT_DIFF__NEW,
	REFCNT_DIFF__CHANGED,
	REFCNT_DIFF__GONE,
	REFCNT_DIFF__SAME,
};

const char *refcnt_diff_status__name(enum refcnt_diff_status status);

/* A callchain of a finding in either recording, @base or @new NULL where it is not. */
struct refcnt_diff_finding {
	const struct refcnt_summary_finding *base, *new;
	enum refcnt_diff_status status;
	s64	delta;		/* references, new less base */
};

/*
 * A row: the callchains of one (kind, type, site function), those that
 * changed in findings[first, first + nr), most changed first.
 */
struct refcnt_diff_group {
	const struct refcnt_summary_finding *key;	/* of its first callchain */
	enum refcnt_diff_status status;
	u64	base, new;	/* references, of all its callchains */
	u32	first, nr;
	bool	in_base;	/* the baseline has its kind, type and site, certain or not */
};

struct refcnt_diff_balance {
	const struct refcnt_summary_balance *base, *new;
	enum refcnt_diff_status status;
	double	base_per_call, new_per_call;	/* net references per call */
	s64	delta;				/* net references, new less base */
};

/*
 * The differences of two summaries, those that differ only: rows new, then
 * changed, then gone, each in report's order of kinds (bugs first), then
 * the most changed first;
 * the balances whose net references per call changed most first, then
 * those whose net changed most. The rows point into the summaries.
 */
struct refcnt_diff {
	struct refcnt_diff_finding	*findings;
	u32				nr_findings;
	struct refcnt_diff_group	*groups;
	u32				nr_groups;
	u32				nr[REFCNT_DIFF__SAME];	/* groups per status */
	struct refcnt_diff_balance	*balance;
	u32				nr_balance;
	/* the kinds (1 << kind) of the new recording's rows per type: certain, uncertain */
	u32				new_kinds[REFCNT_TYPE__MAX_NR][2];
	/* the kinds of the baseline's uncertain rows per type */
	u32				base_uncertain[REFCNT_TYPE__MAX_NR];
};

int refcnt_diff__compute(struct refcnt_diff *d, const struct refcnt_summary *base,
			 const struct refcnt_summary *new);
/*
 * What diff --fail-on holds against the new recording, for @kinds (a mask
 * of 1 << kind). Two runs of one perf on one input do not take the same
 * references: their counts, and the callchains that key the rows, drift.
 * What does not drift is which (kind, type, site function) rows there are
 * and the references a function takes per call. So a row is worse when the
 * baseline has no row of its kind, type and site, certain or not, on any
 * callchain; a function is worse when it ran at least
 * REFCNT_DIFF_WORSE_CALLS times in both and its net references per call
 * moved by at least REFCNT_DIFF_WORSE_PER_CALL, up for the kinds alive at
 * the end (leak...), down for the extra puts (double put, over-release,
 * use after put), on a type of which the new recording has rows of those
 * kinds. Half a reference per call over ten calls is five references one
 * function took or left consistently: what loops and branches make of an
 * estimate of calls stays under it, and a function with too few calls, or
 * whose sites one run left uncovered (no calls), is not judged.
 *
 * @certain counts the rows and functions worse with a certain row of their
 * kinds, @uncertain those whose rows are all uncertain (events lost,
 * uncovered sites, a partial scan): the recording could not be judged. A
 * new key of a kind and type of which the baseline has uncertain rows is
 * uncertain too (@base_uncertain counts them): what the baseline missed
 * may have been that key.
 */
#define REFCNT_DIFF_WORSE_PER_CALL	0.5
#define REFCNT_DIFF_WORSE_CALLS		10

struct refcnt_diff_worse {
	u32	certain;
	u32	uncertain;
	u32	uncertain_kinds;	/* 1 << kind of the uncertain ones */
	u32	base_uncertain;		/* of them, for the baseline's uncertain rows */
};

/* Fills @w; returns w->certain. */
u32 refcnt_diff__worse(const struct refcnt_diff *d, u32 kinds, struct refcnt_diff_worse *w);

void refcnt_diff__exit(struct refcnt_diff *d);

#endif /* __PERF_REFCNT_DIFF_H */
