// SPDX-License-Identifier: GPL-2.0
/*
 * What perf refcnt diff shows of two recordings compared by diff.c: the
 * rows new, changed and gone with the callchains that tell them apart,
 * the functions whose balance per call changed, -x's lines, and
 * --fail-on's status.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>

#include "diff.h"
#include "diff_print.h"
#include "findings.h"
#include "report.h"
#include "spec.h"

struct refcnt_frame {
	const char	*name;
	int		len;
};

/* The frames of a folded callchain, innermost first: how many. */
static u32 refcnt_diff__chain_frames(const char *chain, struct refcnt_frame *frames)
{
	const char *end = chain + strlen(chain);
	u32 nr = 0;

	while (end > chain && nr < REFCNT_MAX_FRAMES) {
		const char *start = end;

		while (start > chain && start[-1] != ';')
			start--;
		frames[nr].name = start;
		frames[nr++].len = end - start;
		end = start > chain ? start - 1 : chain;
	}
	return nr;
}

/* How many innermost frames @a and @b have in common. */
static u32 refcnt_diff__common_frames(const struct refcnt_frame *a, u32 na,
				      const struct refcnt_frame *b, u32 nb)
{
	u32 i;

	for (i = 0; i < na && i < nb; i++) {
		if (a[i].len != b[i].len || strncmp(a[i].name, b[i].name, a[i].len))
			break;
	}
	return i;
}

/*
 * The callchains of row @g, each with its references in base and new
 * when it has several, innermost frame first: @max frames, or as many as
 * tell it apart from the others of its row.
 */
static int refcnt_diff__print_chains(const struct refcnt_diff *d,
				     const struct refcnt_diff_group *g, u32 max)
{
	struct refcnt_frame *frames = calloc(REFCNT_MAX_FRAMES * 2, sizeof(*frames));
	struct refcnt_frame *other = frames + REFCNT_MAX_FRAMES;
	const char *indent = g->nr > 1 ? "                " : "            ";

	if (!frames)
		return -ENOMEM;
	for (u32 i = g->first; i < g->first + g->nr; i++) {
		const struct refcnt_diff_finding *r = &d->findings[i];
		const struct refcnt_summary_finding *f = r->new ?: r->base;
		u32 nr = refcnt_diff__chain_frames(f->chain, frames), show = max;

		for (u32 j = g->first; j < g->first + g->nr; j++) {
			const struct refcnt_summary_finding *o = d->findings[j].new ?:
								 d->findings[j].base;
			u32 no = refcnt_diff__chain_frames(o->chain, other);

			if (j != i)
				show = max(show,
					   refcnt_diff__common_frames(frames, nr, other, no) + 1);
		}
		if (g->nr > 1)
			printf("            %+" PRId64 " (%" PRIu64 " -> %" PRIu64 "):\n", r->delta,
			       r->base ? r->base->refs : 0, r->new ? r->new->refs : 0);
		for (u32 k = 0; k < nr && k < show; k++)
			printf("%s%.*s\n", indent, frames[k].len, frames[k].name);
	}
	free(frames);
	return 0;
}

static int refcnt_diff__print_findings(const struct refcnt_diff *d, bool rows_only, u32 max)
{
	printf("# %8s %8s %8s  %-7s  %-8s %-24s %s\n", "Baseline", "New", "Delta", "Status",
	       "Type", "Finding", "Site");
	printf("# %8s %8s %8s  %-7s  %-8s %-24s %s\n", "........", "...", ".....", "......",
	       "....", ".......", "....");
	for (u32 i = 0; i < d->nr_groups; i++) {
		const struct refcnt_diff_group *g = &d->groups[i];
		char label[40];

		snprintf(label, sizeof(label), "%s%s", refcnt_finding_kind__name(g->key->kind),
			 g->key->uncertain ? " (uncertain)" : "");
		printf("  %8" PRIu64 " %8" PRIu64 " %+8" PRId64 "  %-7s  %-8s %-24s %s\n",
		       g->base, g->new, (s64)g->new - (s64)g->base,
		       refcnt_diff_status__name(g->status), refcnt_type_specs[g->key->type].name,
		       label, g->key->site);
		if (rows_only)
			continue;
		if (refcnt_diff__print_chains(d, g, max))
			return -ENOMEM;
		printf("\n");
	}
	return 0;
}

static void refcnt_diff__print_balance(const struct refcnt_diff *d)
{
	printf("# %8s %16s %21s %21s %21s  %-8s %s\n", "Net/call", "base -> new",
	       "Gets base -> new", "Puts base -> new", "Calls base -> new", "Type", "Function");
	for (u32 i = 0; i < d->nr_balance; i++) {
		const struct refcnt_diff_balance *r = &d->balance[i];
		const struct refcnt_summary_balance *b = r->new ?: r->base;
		const struct refcnt_summary_balance none = { .type = 0 };
		const struct refcnt_summary_balance *o = r->base ?: &none, *n = r->new ?: &none;

		printf("  %+8.2f %7.2f -> %5.2f %9" PRIu64 " -> %-8" PRIu64 " %9" PRIu64
		       " -> %-8" PRIu64 " %9" PRIu64 " -> %-8" PRIu64 "  %-8s %s\n",
		       r->new_per_call - r->base_per_call, r->base_per_call, r->new_per_call,
		       o->gets, n->gets, o->puts, n->puts, o->calls, n->calls,
		       refcnt_type_specs[b->type].name, b->func);
	}
}

/* -x: a callchain of a row, as refcnt_diff__print_sep() says */
static void refcnt_diff__print_chain_sep(const struct refcnt_diff_finding *r, const char *sep)
{
	const struct refcnt_summary_finding *f = r->new ?: r->base;

	printf("finding%s%s%s", sep, refcnt_diff_status__name(r->status), sep);
	refcnt_field__print(refcnt_finding_kind__name(f->kind), sep, sep);
	refcnt_field__print(refcnt_type_specs[f->type].name, sep, sep);
	refcnt_field__print(f->site, sep, sep);
	printf("%" PRIu64 "%s%" PRIu64 "%s%" PRId64 "%s", r->base ? r->base->refs : 0, sep,
	       r->new ? r->new->refs : 0, sep, r->delta, sep);
	refcnt_field__print(f->chain, sep, "\n");
}

/*
 * -x: a line per row, its first field what it is. "finding", status, kind,
 * type, site function, references in base and new, delta, the folded
 * callchain; "balance", status, type, function, gets, puts and calls in
 * base, then in new, net references per call in base and new.
 */
void refcnt_diff__print_sep(const struct refcnt_diff *d, const char *sep)
{
	for (u32 i = 0; i < d->nr_groups; i++) {
		for (u32 c = d->groups[i].first; c < d->groups[i].first + d->groups[i].nr; c++)
			refcnt_diff__print_chain_sep(&d->findings[c], sep);
	}
	for (u32 i = 0; i < d->nr_balance; i++) {
		const struct refcnt_diff_balance *r = &d->balance[i];
		const struct refcnt_summary_balance *b = r->new ?: r->base;
		const struct refcnt_summary_balance none = { .type = 0 };
		const struct refcnt_summary_balance *o = r->base ?: &none, *n = r->new ?: &none;

		printf("balance%s%s%s", sep, refcnt_diff_status__name(r->status), sep);
		refcnt_field__print(refcnt_type_specs[b->type].name, sep, sep);
		refcnt_field__print(b->func, sep, "");
		printf("%s%" PRIu64 "%s%" PRIu64 "%s%" PRIu64 "%s%" PRIu64 "%s%" PRIu64 "%s%" PRIu64
		       "%s%.2f%s%.2f\n", sep, o->gets, sep, o->puts, sep, o->calls, sep, n->gets,
		       sep, n->puts, sep, n->calls, sep, r->base_per_call, sep, r->new_per_call);
	}
}

/*
 * diff --fail-on's status: REFCNT_EXIT_FINDINGS if the new recording @new
 * made a row or function of @kinds worse (refcnt_diff__worse()), else
 * REFCNT_EXIT_UNCERTAIN if it did with uncertain rows only (of @new, or of
 * the baseline) and @fail_uncertain, saying why (@why, @base_why); 0
 * otherwise.
 */
int refcnt_diff__fail_on(const struct refcnt_diff *d, u32 kinds, bool fail_uncertain,
			 const char *new, const char *why, const char *base_why)
{
	struct refcnt_diff_worse w;
	char what[PATH_MAX + 16], whys[640];

	if (refcnt_diff__worse(d, kinds, &w))
		return REFCNT_EXIT_FINDINGS;
	if (!w.uncertain || !fail_uncertain)
		return 0;
	snprintf(what, sizeof(what), "worse in %s", new);
	if (w.base_uncertain == w.uncertain)
		snprintf(whys, sizeof(whys), "the baseline's own rows of them are uncertain: %s",
			 base_why);
	else if (w.base_uncertain)
		snprintf(whys, sizeof(whys), "%s; the baseline's: %s", why, base_why);
	else
		snprintf(whys, sizeof(whys), "%s", why);
	refcnt_report__warn_uncertain(what, w.uncertain, w.uncertain_kinds, whys);
	return REFCNT_EXIT_UNCERTAIN;
}

int refcnt_diff__print(const struct refcnt_diff *d, const char *base, const char *new,
		       bool rows_only, u32 max)
{
	printf("# perf refcnt diff of %s (baseline) and %s\n", base, new);
	printf("# findings: %u new, %u changed, %u gone\n", d->nr[REFCNT_DIFF__NEW],
	       d->nr[REFCNT_DIFF__CHANGED], d->nr[REFCNT_DIFF__GONE]);
	printf("#\n");
	if (refcnt_diff__print_findings(d, rows_only, max))
		return -ENOMEM;
	printf("#\n# balance: %u functions whose references changed, %s\n", d->nr_balance,
	       "the most changed per call first (calls: the most events at one of its sites)");
	printf("#\n");
	refcnt_diff__print_balance(d);
	return 0;
}
