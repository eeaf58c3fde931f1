// SPDX-License-Identifier: GPL-2.0
/*
 * What perf refcnt report shows of a replayed recording (report.c): the
 * header with the totals, the findings as the table the TUI browses, -x's
 * lines, --folded's callchains, --balance's sites, the suppressions, and
 * the findings handed to the TUI.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "../../ui/browsers/refcnt.h"
#include "../debug.h"
#include "../hashmap.h"
#include "findings.h"
#include "hists.h"
#include "pairing.h"
#include "report.h"
#include "scan.h"
#include "spec.h"
#include "suppress.h"
#include "symbolize.h"

/* Inlined sites recorded without their object: what they may hide. */
static void refcnt_report__print_uncovered(struct refcnt_report *rep)
{
	const struct refcnt_decoder *d = &rep->decoder;
	u64 hits = 0;
	u32 hit = 0;

	if (!d->nr_uncovered)
		return;
	for (u32 i = 0; i < d->nr_uncovered; i++) {
		hits += d->uncovered[i].hits;
		hit += d->uncovered[i].hits > 0;
	}
	printf("# uncovered inlined sites: %u, %u of them hit %" PRIu64
	       " times: findings on objects of their type live then are uncertain\n",
	       d->nr_uncovered, hit, hits);
	for (u32 i = 0; i < d->nr_uncovered; i++) {
		const struct refcnt_uncovered *u = &d->uncovered[i];

		if (!u->hits && !verbose)
			continue;
		printf("#   %" PRIu64 " hits: %s %s at %#" PRIx64, u->hits,
		       refcnt_type_specs[u->type].name, refcnt_op__name(u->op), u->vaddr);
		if (u->hits) {
			printf(" in ");
			refcnt_sym__fprintf_addr(stdout, &rep->sym, u->space, u->ip, false);
		}
		putchar('\n');
	}
	printf("#\n");
}

/* The certain findings per kind: the header's and the TUI title's totals. */
static void refcnt_report__fprintf_totals(FILE *fp, const u64 *t, bool nonzero)
{
	static const struct {
		enum refcnt_finding_kind kind;
		const char *name;
	} totals[] = {
		{ REFCNT_FINDING__LEAK,			"leaks" },
		{ REFCNT_FINDING__OVER_RELEASE,		"over-releases" },
		{ REFCNT_FINDING__DOUBLE_PUT,		"double puts" },
		{ REFCNT_FINDING__USE_AFTER_PUT,	"use after put" },
		{ REFCNT_FINDING__MISMATCH,		"mismatches" },
		{ REFCNT_FINDING__AFTER_EXTRA_PUT,	"after an extra put" },
		{ REFCNT_FINDING__OWNED_AT_EXIT,	"owned at exit" },
		{ REFCNT_FINDING__HELD_BY_LEAK,		"held by a leak" },
		{ REFCNT_FINDING__STILL_REFERENCED,	"still referenced" },
	};
	const char *sep = "";

	for (size_t i = 0; i < ARRAY_SIZE(totals); i++) {
		if (nonzero && !t[totals[i].kind])
			continue;
		fprintf(fp, "%s%s: %" PRIu64, sep, totals[i].name, t[totals[i].kind]);
		sep = ", ";
	}
	if (!*sep)
		fprintf(fp, "no finding");
}

/*
 * What the engine met that the findings do not show: each when it is not
 * zero, all of them with -v.
 */
static void refcnt_report__print_engine_counters(const struct refcnt_engine_stats *st)
{
	const struct {
		u64 nr;
		const char *what;
	} counters[] = {
		{ st->missed_dies,
		  "lifetimes ended by a new object at their address, their free not seen" },
		{ st->out_of_order, "events older than one replayed before them" },
		{ st->duplicates, "events seen twice, ignored" },
		{ st->scan_missed,
		  "objects alive at the end the scan at exit did not find: rows uncertain" },
		{ st->stack_only,
		  "references only the exiting thread's stack accounts for: leaks, uncertain" },
		{ st->slot_words_full,
		  "stores to a word not followed: too many words (stored over not seen)" },
		{ st->frees_dropped,
		  "blocks freed not followed: too many (freed holding not seen)" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(counters); i++) {
		if (counters[i].nr || verbose > 0)
			printf("# %s: %" PRIu64 "\n", counters[i].what, counters[i].nr);
	}
}

/* How the scanned process ended: its status, or the signal that killed it. */
static void refcnt_report__print_scan_end(const struct refcnt_scan_result *r)
{
	if (r->signal)
		printf("# the process was killed by signal %u (%s): %s\n", r->signal,
		       strsignal(r->signal),
		       "references only its stack held are uncertain, its interrupted work's");
	else
		printf("# the process exited with status %u\n", r->exit_code);
}

/* What the scan at exit did, or why the leaks are what is outstanding. */
static void refcnt_report__print_scan(const struct refcnt_report *rep)
{
	const struct refcnt_scan_result *r = &rep->scan.result;

	if (r->status != REFCNT_SCAN__DONE) {
		printf("# scan at exit: none (%s): %s\n", rep->scan_why,
		       "leaks are the gets outstanding at exit, reachable or not");
		return;
	}
	printf("# scan at exit of pid %u: %.1f MiB read in %.3f s, %" PRIu64 " of %" PRIu64
	       " blocks reachable, %u objects of the audited types\n", r->pid,
	       r->bytes / 1048576.0, r->ns / 1e9, r->reached, r->blocks, r->nr_objects);
	printf("# scan covered %u writable mappings, skipped %u (%.1f MiB), %u heaps %s%s%s\n",
	       r->regions_read, r->regions_skipped, r->bytes_skipped / 1048576.0,
	       r->walks_failed, "not walked",
	       r->partial ? ": partial, its leaks are uncertain: " : "",
	       r->partial ? refcnt_scan_partial__names(r->partial) : "");
	refcnt_report__print_scan_end(r);
}

/* LSan's "Suppressions used:": how many references each one hid. */
static void refcnt_report__print_suppressions_used(const struct refcnt_report *rep)
{
	const struct refcnt_suppressions *sup = &rep->suppressions;
	u64 hits = 0;

	if (!rep->suppressions_path)
		return;
	for (u32 i = 0; i < sup->nr; i++)
		hits += sup->s[i].hits;
	printf("# suppressions of %s: %u, %" PRIu64 " references hidden\n",
	       rep->suppressions_path, sup->nr, hits);
	for (u32 i = 0; i < sup->nr; i++) {
		if (sup->s[i].hits)
			printf("#   %10" PRIu64 " %s:%s\n", sup->s[i].hits,
			       refcnt_finding_kind__name(sup->s[i].kind), sup->s[i].pattern);
	}
}

/* A suppression line per bug row shown, its kind's name with dashes. */
void refcnt_report__print_gen_suppressions(const struct refcnt_report *rep)
{
	char func[256], kind[32];

	printf("# suppressions for the bug rows above (--gen-suppressions)\n");
	for (u32 i = 0; i < rep->findings.nr; i++) {
		const struct refcnt_group *g = rep->findings.groups[i];

		if (!refcnt_finding__is_bug(g->kind))
			continue;
		snprintf(kind, sizeof(kind), "%s", refcnt_finding_kind__name(g->kind));
		for (char *c = kind; *c; c++)
			*c = *c == ' ' ? '-' : *c;
		printf("%s:%s\n", kind, refcnt_sym__row_func(&rep->sym, &g->ref, g->why, func,
							     sizeof(func)));
	}
}

/* One folded callchain, outermost first, with its references. */
static void refcnt_report__print_folded_stack(const struct refcnt_report *rep,
					      const struct refcnt_ref *site, u32 stack, u64 refs,
					      struct refcnt_funcs *f)
{
	u32 nr = refcnt_report__stack_funcs(rep, site, stack, f);

	while (nr--)
		printf("%s%c", f->names[nr], nr ? ';' : ' ');
	printf("%" PRIu64 "\n", refs);
}

/*
 * --folded: the callchains of the findings of @kinds (a mask of 1 << kind),
 * one line each, "frame;frame;... references", for flamegraph.pl.
 */
int refcnt_report__print_folded(const struct refcnt_report *rep, u32 kinds)
{
	struct refcnt_funcs *f = zalloc(sizeof(*f));
	struct refcnt_ref none = { .site = 0 };
	struct hashmap_entry *cur;
	size_t bkt;

	if (!f)
		return -ENOMEM;
	for (u32 i = 0; i < rep->findings.nr; i++) {
		const struct refcnt_group *g = rep->findings.groups[i];

		if (!(kinds & (1U << g->kind)) || !g->stacks)
			continue;
		hashmap__for_each_entry(g->stacks, cur, bkt)
			refcnt_report__print_folded_stack(rep, &g->ref, cur->key, cur->value, f);
	}
	if (kinds & (1U << REFCNT_FINDING__HELD_BY_LEAK)) {
		hashmap__for_each_entry(rep->findings.held_stacks, cur, bkt)
			refcnt_report__print_folded_stack(rep, &none, cur->key, cur->value, f);
	}
	free(f);
	return 0;
}

void refcnt_report__print_header(struct refcnt_report *rep, const char *input)
{
	const struct refcnt_engine_stats *st = refcnt_engine__stats(rep->engine);

	printf("# perf refcnt report of %s\n", input);
	printf("# events: %" PRIu64 " (%" PRIu64 " on NULL, not objects), lost: %" PRIu64
	       " events, %" PRIu64 " samples\n",
	       rep->samples - rep->slot_samples - rep->free_samples, rep->decoder.null_ops,
	       rep->lost,
	       rep->lost_samples);
	if (rep->decoder.bad_samples)
		printf("# %" PRIu64 " samples skipped: %s\n", rep->decoder.bad_samples,
		       "their fields are not in them (damaged recording)");
	printf("# objects:");
	for (unsigned int i = 0; i < refcnt_type_specs__nr; i++) {
		if (rep->decoder.type_mask & rep->type_mask & (1UL << i))
			printf(" %s %" PRIu64, refcnt_type_specs[i].name, st->objects[i]);
	}
	printf("\n# ");
	refcnt_report__fprintf_totals(stdout, rep->findings.totals, false);
	printf(", uncertain (%s): %" PRIu64 "\n",
	       "lost or uncovered events, a partial scan, the exiting stack",
	       rep->findings.uncertain);
	printf("# outstanding at the end: %" PRIu64 " references %s\n",
	       rep->findings.outstanding, "(--folded writes their callchains)");
	if (st->slots_stored || st->slot_loads)
		printf("# slots: %" PRIu64 " events; %" PRIu64
		       " references stored where a probe saw it (%" PRIu64
		       " in a caller's frame), %" PRIu64
		       " puts loaded from one, %" PRIu64 " of them paired by it, %" PRIu64
		       " of a member copied without a get; %" PRIu64
		       " stored over by another call\n",
		       rep->slot_samples, st->slots_stored, st->slots_homed, st->slot_loads,
		       st->slot_pairs, st->members_copied, st->overwritten);
	if (rep->free_samples)
		printf("# frees: %" PRIu64 " free() calls; %" PRIu64
		       " leaks told at the free of a block that held them\n",
		       rep->free_samples, st->freed_holding);
	refcnt_report__print_suppressions_used(rep);
	refcnt_report__print_engine_counters(st);
	refcnt_report__print_scan(rep);
	printf("#\n");
	refcnt_report__print_uncovered(rep);
}

/* -x: @s as one field (refcnt_field__escape()), then @end */
void refcnt_field__print(const char *s, const char *sep, const char *end)
{
	size_t len = strlen(s);
	char buf[256];

	for (size_t off = 0; off < len; off += sizeof(buf) - 1)
		fputs(refcnt_field__escape(buf, sizeof(buf), s + off, sep), stdout);
	fputs(end, stdout);
}

/*
 * One line per group, fields separated by @sep, for scripts and tests:
 * finding, type, refs, objects, site function, uncertain (0/1), the
 * function of the other put (the one that freed it) or "-", the address
 * of the group's first object, the command of its thread, the references
 * held by the group's leaked objects (held by a leak) and why its site.
 * A text field's characters of @sep are replaced (refcnt_field__escape()).
 */
void refcnt_report__print_findings_sep(struct refcnt_report *rep, const char *sep)
{
	for (u32 i = 0; i < rep->findings.nr; i++) {
		const struct refcnt_group *g = rep->findings.groups[i];
		char site[256], other[256] = "-";

		refcnt_sym__row_func(&rep->sym, &g->ref, g->why, site, sizeof(site));
		if (g->has_other)
			refcnt_sym__ref_func(&rep->sym, &g->other, other, sizeof(other));
		refcnt_field__print(refcnt_finding_kind__name(g->kind), sep, sep);
		refcnt_field__print(refcnt_type_specs[g->type].name, sep, sep);
		printf("%" PRIu64 "%s%" PRIu64 "%s", g->refs, sep, g->objects, sep);
		refcnt_field__print(site, sep, sep);
		printf("%d%s", g->uncertain, sep);
		refcnt_field__print(other, sep, sep);
		printf("%#" PRIx64 "%s", g->obj, sep);
		refcnt_field__print(g->comm ?: "-", sep, sep);
		printf("%" PRIu64 "%s", g->held_refs, sep);
		refcnt_field__print(refcnt_site_why__name(g->why), sep, "\n");
	}
}

/*
 * The puts that freed the objects of the rows that have one (double put,
 * use after put) or found nothing to release (over-release), with their
 * callchains: what the table cannot show in a row.
 */
static void refcnt_report__print_other_puts(struct refcnt_report *rep, u32 max)
{
	bool first = true;

	for (u32 i = 0; i < rep->findings.nr; i++) {
		const struct refcnt_group *g = rep->findings.groups[i];

		if (!g->has_other)
			continue;
		if (first)
			printf("#\n# the puts that freed the objects of the rows above, %s\n#\n",
			       "or found nothing to release");
		first = false;
		printf("  %s %s at ", refcnt_finding_kind__name(g->kind),
		       refcnt_type_specs[g->type].name);
		refcnt_sym__fprintf_ref(stdout, &rep->sym, &g->ref);
		printf(": %s at ", g->kind == REFCNT_FINDING__OVER_RELEASE ?
		       "the put that found nothing to release" : "the put that freed it");
		refcnt_sym__fprintf_ref(stdout, &rep->sym, &g->other);
		printf("\n");
		refcnt_sym__fprintf_stack(stdout, &rep->sym, g->other.stack, "            ", max);
		printf("\n");
	}
}

/* Rows [@first, @first + @nr) of the findings, the TUI's table, with hists__fprintf(). */
static int refcnt_report__print_table(struct refcnt_report *rep, u32 first, u32 nr, u32 max)
{
	struct refcnt_hists rh;
	int err;

	refcnt_hists__init(&rh, &rep->findings, &rep->sym, max == UINT_MAX ? 0 : max);
	err = refcnt_hists__fill(&rh, first, nr);
	if (!err)
		hists__fprintf(&rh.hists, true, 0, 0, 0, stdout, rep->quiet);
	refcnt_hists__exit(&rh);
	return err;
}

/*
 * The findings, through the table the TUI browses: the rows that need a
 * look, then those still referenced at exit under a header of their own,
 * then the other puts of the rows that have one.
 */
int refcnt_report__print_findings(struct refcnt_report *rep)
{
	u32 max = rep->full_callchain ? UINT_MAX : REFCNT_STDIO_FRAMES;
	u32 split = 0;
	int err = 0;

	while (split < rep->findings.nr &&
	       rep->findings.groups[split]->kind != REFCNT_FINDING__STILL_REFERENCED)
		split++;
	/* the column headers even when there is no row at all */
	if (split || !rep->findings.nr)
		err = refcnt_report__print_table(rep, 0, split, max);
	if (err || split == rep->findings.nr)
		goto out;
	printf("#\n# still referenced at exit, not bugs: %" PRIu64
	       " references, pointed to by reachable memory\n#\n",
	       rep->findings.totals[REFCNT_FINDING__STILL_REFERENCED]);
	err = refcnt_report__print_table(rep, split, rep->findings.nr - split, max);
out:
	if (!err && !rep->quiet)
		refcnt_report__print_other_puts(rep, max);
	return err;
}

static int refcnt_balance__cmp(const void *a, const void *b)
{
	const struct refcnt_balance *ba = *(const struct refcnt_balance **)a;
	const struct refcnt_balance *bb = *(const struct refcnt_balance **)b;
	s64 na = ba->gets - ba->puts, nb = bb->gets - bb->puts;

	if (llabs(na) != llabs(nb))
		return llabs(na) > llabs(nb) ? -1 : 1;
	if (ba->gets + ba->puts != bb->gets + bb->puts)
		return ba->gets + ba->puts > bb->gets + bb->puts ? -1 : 1;
	return ba->site < bb->site ? -1 : ba->site > bb->site;
}

/* seed 003's allocation profile, for references: net per call site */
int refcnt_report__print_balance(struct refcnt_report *rep)
{
	struct refcnt_balance **all;
	struct hashmap_entry *cur;
	size_t bkt, n = 0, nr = hashmap__size(rep->balance);

	all = calloc(nr ?: 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	hashmap__for_each_entry(rep->balance, cur, bkt)
		all[n++] = cur->pvalue;
	qsort(all, nr, sizeof(*all), refcnt_balance__cmp);

	printf("# %10s %10s %10s  %-8s %s\n", "Gets", "Puts", "Net", "Type", "Site");
	for (size_t i = 0; i < nr; i++) {
		printf("  %10" PRIu64 " %10" PRIu64 " %+10" PRId64 "  %-8s ", all[i]->gets,
		       all[i]->puts, (s64)(all[i]->gets - all[i]->puts),
		       refcnt_type_specs[all[i]->type].name);
		refcnt_sym__fprintf_addr(stdout, &rep->sym, all[i]->space, all[i]->site, true);
		putchar('\n');
	}
	free(all);
	return 0;
}

int refcnt_report__browse(struct refcnt_report *rep)
{
	const struct refcnt_engine_stats *st = refcnt_engine__stats(rep->engine);
	char title[256] = "";
	FILE *fp;
	struct refcnt_browse rb = {
		.findings = &rep->findings,
		.sym = &rep->sym,
		.title = title,
		.history = refcnt_report__history_text,
		.priv = rep,
	};

	fp = fmemopen(title, sizeof(title), "w");
	if (!fp)
		return -errno;
	fprintf(fp, "%" PRIu64 " events, ", st->events);
	/* hists' browser title holds 160 characters: the kinds found only */
	refcnt_report__fprintf_totals(fp, rep->findings.totals, true);
	fprintf(fp, ", uncertain: %" PRIu64 ", lost: %" PRIu64, rep->findings.uncertain,
		rep->lost + rep->lost_samples);
	fclose(fp);
	return refcnt__tui_browse(&rb);
}
