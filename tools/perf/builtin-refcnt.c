// SPDX-License-Identifier: GPL-2.0
/*
 * builtin-refcnt.c: audit the reference counts of perf's own objects
 * (dso, map, maps, thread, nsinfo, perf_cpu_map) on an unmodified perf
 * binary, with uprobes on its refcount API.
 *
 *   perf refcnt record [<options>] -- <command>
 *   perf refcnt report [<options>]
 *   perf refcnt diff [<options>] <base.data> <new.data>
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/err.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/zalloc.h>
#include <subcmd/parse-options.h>

#include "builtin.h"
#include "util/addr_location.h"
#include "util/callchain.h"
#include "util/data.h"
#include "util/debug.h"
#include "util/event.h"
#include "util/evlist.h"
#include "util/hashmap.h"
#include "util/machine.h"
#include "util/map.h"
#include "util/refcnt/decode.h"
#include "util/refcnt/diff.h"
#include "util/refcnt/findings.h"
#include "util/refcnt/hists.h"
#include "util/refcnt/hash.h"
#include "util/refcnt/layout.h"
#include "util/refcnt/pairing.h"
#include "util/refcnt/record.h"
#include "util/refcnt/scan_file.h"
#include "util/refcnt/spec.h"
#include "util/refcnt/suppress.h"
#include "util/refcnt/symbolize.h"
#include "util/session.h"
#include "util/strbuf.h"
#include "util/symbol.h"
#include "util/thread.h"
#include "util/tool.h"
#include "util/util.h"
#include "ui/browsers/refcnt.h"
#include "ui/ui.h"

#define REFCNT_DEFAULT_OUTPUT	"refcnt.data"
/* the frames of a finding's callchain --stdio shows without -g */
#define REFCNT_STDIO_FRAMES	5
/* perf refcnt report --fail-on: a finding of those kinds remains (LSan's exitcode) */
#define REFCNT_EXIT_FINDINGS	23
/* --fail-on: none certain, but uncertain ones remain: the recording could not be judged */
#define REFCNT_EXIT_UNCERTAIN	24

static const char * const refcnt_record_usage[] = {
	"perf refcnt record [<options>] -- <command> [<args>]",
	"perf refcnt record [<options>] -p <pid>",
	NULL
};

static const char * const refcnt_report_usage[] = {
	"perf refcnt report [<options>]",
	NULL
};

/* The checks of record's options, once parsed: -t's types in @opts. */
static int refcnt__record_check(struct refcnt_record_opts *opts, const char *types, int argc)
{
	char bad[64], *end;

	if (refcnt_type_specs__parse(types, &opts->type_mask, bad, sizeof(bad))) {
		pr_err("Unknown refcount type '%s': use one of %s\n", bad,
		       refcnt_type_specs__names());
		return -EINVAL;
	}
	if (!argc && !opts->pid) {
		pr_err("No workload given: use 'perf refcnt record -- <command>' or -p <pid>\n");
		return -EINVAL;
	}
	if (argc && opts->pid) {
		pr_err("Give either a workload or -p <pid>, not both\n");
		return -EINVAL;
	}
	if (strcmp(opts->call_graph, "fp") && strcmp(opts->call_graph, "dwarf") &&
	    strcmp(opts->call_graph, "no")) {
		pr_err("Unknown --call-graph '%s': use fp, dwarf or no\n", opts->call_graph);
		return -EINVAL;
	}
	if (opts->max_stack && (strcmp(opts->call_graph, "fp") ||
				strtoul(opts->max_stack, &end, 10) < 1 || *end)) {
		pr_err("--max-stack takes a number of frames, and -g fp: not '%s' with -g %s\n",
		       opts->max_stack, opts->call_graph);
		return -EINVAL;
	}
	return 0;
}

static int refcnt__record(int argc, const char **argv)
{
	struct refcnt_record_opts opts = {
		.call_graph = "fp", .mmap_pages = "2048", .compress = true, .scan = true,
	};
	const char *types = NULL;
	char types_help[128];
	int ret;
	const struct option options[] = {
	OPT_STRING('o', "output", &opts.output, "file",
		   "output file name (default: " REFCNT_DEFAULT_OUTPUT ")"),
	OPT_STRING('t', "type", &types, "type[,type...]", types_help),
	OPT_STRING('x', "exe", &opts.exe, "path",
		   "perf binary to audit (default: the workload's, or /proc/PID/exe)"),
	OPT_STRING('g', "call-graph", &opts.call_graph, "fp|dwarf|no",
		   "user callchain of every operation (default: fp)"),
	OPT_STRING(0, "max-stack", &opts.max_stack, "n",
		   "frames of a -g fp callchain (default: kernel.perf_event_max_stack)"),
	OPT_STRING('m', "mmap-pages", &opts.mmap_pages, "pages",
		   "ring buffer size (default: 2048)"),
	OPT_BOOLEAN('z', "compress", &opts.compress,
		    "compress the recording with zstd (default: on; --no-compress)"),
	OPT_STRING('p', "pid", &opts.pid, "pid", "record an existing process"),
	OPT_BOOLEAN(0, "scan", &opts.scan,
		    "scan the workload at its exit: leaks from references held (default: on)"),
	OPT_BOOLEAN(0, "count", &opts.count,
		    "only count the hits of every probe with perf stat (CSV to -o, or stderr)"),
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	/* perf 6.12 built with -g has no uncovered site: this shows what they do */
	OPT_STRING(0, "uncover", &opts.uncover, "func[,func...]",
		   "probe the inlined copies of these functions as uncovered sites"),
	OPT_END()
	};

	snprintf(types_help, sizeof(types_help), "types to audit: %s (default: all)",
		 refcnt_type_specs__names());
	argc = parse_options(argc, argv, options, refcnt_record_usage,
			     PARSE_OPT_STOP_AT_NON_OPTION);
	if (!opts.output && !opts.count)
		opts.output = REFCNT_DEFAULT_OUTPUT;

	ret = refcnt__record_check(&opts, types, argc);
	if (ret)
		return ret;
	return refcnt_record__run(&opts, argc, argv);
}

struct refcnt_report {
	struct perf_tool	tool;
	struct perf_data	data;
	struct perf_session	*session;
	struct refcnt_decoder	decoder;
	struct refcnt_engine	*engine;
	struct refcnt_findings	findings;
	struct refcnt_symbolizer sym;
	struct refcnt_scan	scan;		/* at exit; status NOT_RUN if none */
	char			scan_why[128];	/* why the scan is not used */
	struct hashmap		*balance;	/* (type, site) -> gets, puts */
	struct refcnt_suppressions suppressions;
	const char		*suppressions_path;
	FILE			*out;		/* of --history steps */
	event_op4		decompress;	/* perf_session's zstd handler */
	unsigned long		type_mask;
	bool			no_scan;	/* --no-scan: leave the scan out */
	bool			scan_pid_exited; /* the scanned process's exit is recorded */
	bool			full_callchain;
	bool			quiet;
	int			err;
	u64			samples;
	u64			lost;
	u64			lost_samples;
};

struct refcnt_balance {
	u64	site;
	u64	space;		/* of its first event: to name the site */
	u8	type;
	u64	gets;
	u64	puts;
};

static void refcnt__finding(const struct refcnt_finding *f, void *priv)
{
	struct refcnt_report *rep = priv;
	const struct refcnt_ref *site = refcnt_finding__site(f);
	struct thread *thread;
	const char *comm = NULL;

	thread = machine__find_thread(&rep->session->machines.host, -1, site->tid);
	if (thread) {
		comm = thread__comm_str(thread);
		thread__put(thread);
	}
	if (refcnt_findings__add(&rep->findings, f, comm))
		rep->err = -ENOMEM;
}

static const char *refcnt__op_name(u8 op)
{
	return op < REFCNT_OP__MAX ? refcnt_op__name(op) : "inherited";
}

static void refcnt__step(const struct refcnt_step *st, void *priv)
{
	struct refcnt_report *rep = priv;
	const struct refcnt_event *ev = st->ev;
	struct refcnt_ref at = {
		.space = ev->space, .site = ev->site, .caller = ev->caller, .stack = ev->stack,
		.tid = ev->tid,
	};
	char live[16] = "?";

	if (ev->live != REFCNT_LIVE_UNKNOWN)
		snprintf(live, sizeof(live), "%d", ev->live);
	/* an address can hold objects of several processes: say whose */
	fprintf(rep->out, "%10" PRIu64 ".%09" PRIu64 " %7u/%-7u gen %-3" PRIu64,
		ev->time / NSEC_PER_SEC, ev->time % NSEC_PER_SEC, refcnt_space__pid(ev->space),
		ev->tid, st->generation);
	fprintf(rep->out, " %-4s %3d -> %-3d live %-4s ", refcnt__op_name(ev->op), st->before,
		st->after, live);
	refcnt_sym__fprintf_ref(rep->out, &rep->sym, &at);
	if (ev->op == REFCNT_OP__PUT && st->confidence != REFCNT_PAIR__NONE) {
		fprintf(rep->out, "  releases %s at ", refcnt__op_name(st->paired.op));
		refcnt_sym__fprintf_ref(rep->out, &rep->sym, &st->paired);
		fprintf(rep->out, " (%s)", refcnt_confidence__name(st->confidence));
	}
	if (st->finding != REFCNT_FINDING__MAX)
		fprintf(rep->out, "  <== %s", refcnt_finding_kind__name(st->finding));
	fputc('\n', rep->out);
}

static int refcnt__balance_add(struct refcnt_report *rep, const struct refcnt_event *ev)
{
	struct refcnt_balance *b;
	long key = (long)(ev->site ^ ((u64)ev->type << 56));

	if (ev->op != REFCNT_OP__GET && ev->op != REFCNT_OP__PUT && ev->op != REFCNT_OP__BORN)
		return 0;
	if (!hashmap__find(rep->balance, key, &b)) {
		b = zalloc(sizeof(*b));
		if (!b || hashmap__add(rep->balance, key, b)) {
			free(b);
			return -ENOMEM;
		}
		b->site = ev->site;
		b->type = ev->type;
		b->space = ev->space;
	}
	if (ev->op == REFCNT_OP__PUT)
		b->puts++;
	else
		b->gets++;
	return 0;
}

static int refcnt__process_sample(const struct perf_tool *tool,
				  union perf_event *event __maybe_unused,
				  struct perf_sample *sample, struct evsel *evsel,
				  struct machine *machine __maybe_unused)
{
	struct refcnt_report *rep = container_of(tool, struct refcnt_report, tool);
	struct refcnt_event ev;
	int ret;

	rep->samples++;
	ret = refcnt_decoder__decode(&rep->decoder, evsel, sample, &ev);
	if (ret == 2 && (rep->type_mask & (1UL << ev.type)))
		refcnt_engine__missed(rep->engine, ev.time, ev.type);
	if (ret)
		return ret < 0 ? ret : 0;
	if (!(rep->type_mask & (1UL << ev.type)))
		return 0;
	if (rep->balance && refcnt__balance_add(rep, &ev))
		return -ENOMEM;
	ret = refcnt_engine__event(rep->engine, &ev);
	return ret ?: rep->err;
}

/*
 * An exec starts a new address space: objects in it are new ones, and the
 * image that held the sites of the old one is kept to name them.
 */
static int refcnt__process_comm(const struct perf_tool *tool, union perf_event *event,
				struct perf_sample *sample, struct machine *machine)
{
	struct refcnt_report *rep = container_of(tool, struct refcnt_report, tool);
	u32 pid = event->comm.pid;

	if ((event->header.misc & PERF_RECORD_MISC_COMM_EXEC) &&
	    (refcnt_sym__exec(&rep->sym, refcnt_decoder__space(&rep->decoder, pid)) ||
	     refcnt_decoder__exec(&rep->decoder, pid)))
		return -ENOMEM;
	return perf_event__process_comm(tool, event, sample, machine);
}

/* A thread's exit: its last get or put has landed (see pairing.h). */
static int refcnt__process_exit(const struct perf_tool *tool, union perf_event *event,
				struct perf_sample *sample, struct machine *machine)
{
	struct refcnt_report *rep = container_of(tool, struct refcnt_report, tool);

	if (refcnt_engine__thread_exit(rep->engine, sample->time, event->fork.tid))
		return -ENOMEM;
	if (event->fork.pid == rep->scan.result.pid && event->fork.tid == event->fork.pid)
		rep->scan_pid_exited = true;
	return perf_event__process_exit(tool, event, sample, machine);
}

static int refcnt__process_lost(const struct perf_tool *tool, union perf_event *event,
				struct perf_sample *sample, struct machine *machine)
{
	struct refcnt_report *rep = container_of(tool, struct refcnt_report, tool);

	rep->lost += event->lost.lost;
	refcnt_engine__lost(rep->engine, sample->time, event->lost.lost);
	return perf_event__process_lost(tool, event, sample, machine);
}

static int refcnt__process_lost_samples(const struct perf_tool *tool,
					union perf_event *event,
					struct perf_sample *sample,
					struct machine *machine __maybe_unused)
{
	struct refcnt_report *rep = container_of(tool, struct refcnt_report, tool);

	rep->lost_samples += event->lost_samples.lost;
	refcnt_engine__lost(rep->engine, sample->time, event->lost_samples.lost);
	return 0;
}

/* Inlined sites recorded without their object: what they may hide. */
static void refcnt__print_uncovered(struct refcnt_report *rep)
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
static void refcnt__fprintf_totals(FILE *fp, const u64 *t, bool nonzero)
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
static void refcnt__print_engine_counters(const struct refcnt_engine_stats *st)
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
	};

	for (size_t i = 0; i < ARRAY_SIZE(counters); i++) {
		if (counters[i].nr || verbose > 0)
			printf("# %s: %" PRIu64 "\n", counters[i].what, counters[i].nr);
	}
}

/* How the scanned process ended: its status, or the signal that killed it. */
static void refcnt__print_scan_end(const struct refcnt_scan_result *r)
{
	if (r->signal)
		printf("# the process was killed by signal %u (%s): %s\n", r->signal,
		       strsignal(r->signal),
		       "references only its stack held are leaks of its interrupted work");
	else
		printf("# the process exited with status %u\n", r->exit_code);
}

/* What the scan at exit did, or why the leaks are what is outstanding. */
static void refcnt__print_scan(const struct refcnt_report *rep)
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
	refcnt__print_scan_end(r);
}

#define REFCNT_MAX_FRAMES	128
#define REFCNT_FUNC_SZ		128

/* The functions of a callchain's frames, innermost first (17 KiB: allocate it). */
struct refcnt_funcs {
	const char	*names[REFCNT_MAX_FRAMES];
	char		buf[REFCNT_MAX_FRAMES][REFCNT_FUNC_SZ];
};

/*
 * The functions of callchain @stack in @f, @site's function when the
 * callchain has none: the number of them.
 */
static u32 refcnt__stack_funcs(const struct refcnt_report *rep, const struct refcnt_ref *site,
			       u32 stack, struct refcnt_funcs *f)
{
	u32 nr = min_t(u32, refcnt_sym__stack_nr(&rep->sym, stack), REFCNT_MAX_FRAMES);

	for (u32 i = 0; i < nr; i++)
		f->names[i] = refcnt_sym__stack_func(&rep->sym, stack, i, f->buf[i],
						     REFCNT_FUNC_SZ);
	if (!nr)
		f->names[nr++] = refcnt_sym__ref_func(&rep->sym, site, f->buf[0], REFCNT_FUNC_SZ);
	return nr;
}

/* Hide what the suppressions match, callchain by callchain of each row. */
static int refcnt__suppress(struct refcnt_report *rep)
{
	struct refcnt_funcs *f = zalloc(sizeof(*f));
	struct hashmap_entry *cur, *scur, *tmp;
	size_t bkt, sbkt;

	if (!f)
		return -ENOMEM;
	hashmap__for_each_entry(rep->findings.map, cur, bkt) {
		struct refcnt_group *g = cur->pvalue;

		if (!g->stacks)
			continue;
		hashmap__for_each_entry_safe(g->stacks, scur, tmp, sbkt) {
			u32 stack = scur->key, nr;
			u64 refs = scur->value;
			struct refcnt_suppression *sup;

			nr = refcnt__stack_funcs(rep, &g->ref, stack, f);
			sup = refcnt_suppressions__match(&rep->suppressions, g->kind, f->names, nr);
			if (!sup)
				continue;
			sup->hits += refs;
			refcnt_findings__hide(&rep->findings, g, stack, refs);
		}
	}
	free(f);
	return 0;
}

/* LSan's "Suppressions used:": how many references each one hid. */
static void refcnt__print_suppressions_used(const struct refcnt_report *rep)
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
static void refcnt__print_gen_suppressions(const struct refcnt_report *rep)
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
		printf("%s:%s\n", kind, refcnt_sym__ref_func(&rep->sym, &g->ref, func,
							     sizeof(func)));
	}
}

/* One folded callchain, outermost first, with its references. */
static void refcnt__print_folded_stack(const struct refcnt_report *rep,
				       const struct refcnt_ref *site, u32 stack, u64 refs,
				       struct refcnt_funcs *f)
{
	u32 nr = refcnt__stack_funcs(rep, site, stack, f);

	while (nr--)
		printf("%s%c", f->names[nr], nr ? ';' : ' ');
	printf("%" PRIu64 "\n", refs);
}

/*
 * --folded: the callchains of the findings of @kinds (a mask of 1 << kind),
 * one line each, "frame;frame;... references", for flamegraph.pl.
 */
static int refcnt__print_folded(const struct refcnt_report *rep, u32 kinds)
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
			refcnt__print_folded_stack(rep, &g->ref, cur->key, cur->value, f);
	}
	if (kinds & (1U << REFCNT_FINDING__HELD_BY_LEAK)) {
		hashmap__for_each_entry(rep->findings.held_stacks, cur, bkt)
			refcnt__print_folded_stack(rep, &none, cur->key, cur->value, f);
	}
	free(f);
	return 0;
}

/* Why findings are uncertain, as far as the report knows: ", " separated, in @buf */
static void refcnt__uncertain_why(const struct refcnt_report *rep, char *buf, size_t size)
{
	const struct refcnt_engine_stats *st = refcnt_engine__stats(rep->engine);
	const struct refcnt_scan_result *r = &rep->scan.result;
	u64 hits = 0;
	int n = 0;

	for (u32 i = 0; i < rep->decoder.nr_uncovered; i++)
		hits += rep->decoder.uncovered[i].hits;
	buf[0] = '\0';
	if (rep->lost + rep->lost_samples)
		n += scnprintf(buf + n, size - n, ", %" PRIu64 " events lost",
			       rep->lost + rep->lost_samples);
	if (rep->decoder.bad_samples)
		n += scnprintf(buf + n, size - n, ", %" PRIu64 " damaged samples",
			       rep->decoder.bad_samples);
	if (hits)
		n += scnprintf(buf + n, size - n, ", %" PRIu64 " hits on uncovered inlined sites",
			       hits);
	if (r->status == REFCNT_SCAN__DONE && r->partial)
		n += scnprintf(buf + n, size - n, ", a partial scan at exit (%s)",
			       refcnt_scan_partial__names(r->partial));
	if (st->scan_missed)
		n += scnprintf(buf + n, size - n, ", %" PRIu64 " objects the scan at exit missed",
			       st->scan_missed);
	if (st->stack_only)
		n += scnprintf(buf + n, size - n, ", %" PRIu64 " %s", st->stack_only,
			       "references only the exiting stack held");
	if (n)
		memmove(buf, buf + 2, n - 1);
	else
		scnprintf(buf, size, "events the recording missed");
}

/*
 * --fail-on found, of its kinds, no certain row but @nr uncertain ones, of
 * @kinds: say why they stop the gate and what to do, in one line.
 */
static void refcnt__warn_uncertain(const char *what, u32 nr, u32 kinds, const char *why)
{
	char names[128];
	int n = 0;

	names[0] = '\0';
	for (int k = 0; k < REFCNT_FINDING__MAX; k++) {
		if (kinds & (1U << k))
			n += scnprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "",
				       refcnt_finding_kind__name(k));
	}
	pr_err("perf refcnt: --fail-on: %u uncertain row(s) of %s %s (%s): the recording could not be judged (exit %d); record it again, or let them pass with --no-fail-on-uncertain\n",
	       nr, names, what, why, REFCNT_EXIT_UNCERTAIN);
}

/*
 * --fail-on's status: REFCNT_EXIT_FINDINGS if a certain finding of @kinds
 * remains, else REFCNT_EXIT_UNCERTAIN if an uncertain one does and
 * @fail_uncertain, saying why; 0 otherwise.
 */
static int refcnt__fail_on(const struct refcnt_report *rep, u32 kinds, bool fail_uncertain)
{
	u32 uncertain = 0, uncertain_kinds = 0;
	char why[256];

	for (u32 i = 0; i < rep->findings.nr; i++) {
		const struct refcnt_group *g = rep->findings.groups[i];

		if (!(kinds & (1U << g->kind)))
			continue;
		if (!g->uncertain)
			return REFCNT_EXIT_FINDINGS;
		uncertain++;
		uncertain_kinds |= 1U << g->kind;
	}
	if (!uncertain || !fail_uncertain)
		return 0;
	refcnt__uncertain_why(rep, why, sizeof(why));
	refcnt__warn_uncertain("remain", uncertain, uncertain_kinds, why);
	return REFCNT_EXIT_UNCERTAIN;
}

static void refcnt__print_header(struct refcnt_report *rep, const char *input)
{
	const struct refcnt_engine_stats *st = refcnt_engine__stats(rep->engine);

	printf("# perf refcnt report of %s\n", input);
	printf("# events: %" PRIu64 " (%" PRIu64 " on NULL, not objects), lost: %" PRIu64
	       " events, %" PRIu64 " samples\n",
	       rep->samples, rep->decoder.null_ops, rep->lost, rep->lost_samples);
	if (rep->decoder.bad_samples)
		printf("# %" PRIu64 " samples skipped: %s\n", rep->decoder.bad_samples,
		       "their fields are not in them (damaged recording)");
	printf("# objects:");
	for (unsigned int i = 0; i < refcnt_type_specs__nr; i++) {
		if (rep->decoder.type_mask & rep->type_mask & (1UL << i))
			printf(" %s %" PRIu64, refcnt_type_specs[i].name, st->objects[i]);
	}
	printf("\n# ");
	refcnt__fprintf_totals(stdout, rep->findings.totals, false);
	printf(", uncertain (%s): %" PRIu64 "\n",
	       "lost or uncovered events, a partial scan, the exiting stack",
	       rep->findings.uncertain);
	printf("# outstanding at the end: %" PRIu64 " references %s\n",
	       rep->findings.outstanding, "(--folded writes their callchains)");
	refcnt__print_suppressions_used(rep);
	refcnt__print_engine_counters(st);
	refcnt__print_scan(rep);
	printf("#\n");
	refcnt__print_uncovered(rep);
}

/* -x: @s as one field (refcnt_field__escape()), then @end */
static void refcnt__print_field(const char *s, const char *sep, const char *end)
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
static void refcnt__print_findings_sep(struct refcnt_report *rep, const char *sep)
{
	for (u32 i = 0; i < rep->findings.nr; i++) {
		const struct refcnt_group *g = rep->findings.groups[i];
		char site[256], other[256] = "-";

		refcnt_sym__ref_func(&rep->sym, &g->ref, site, sizeof(site));
		if (g->has_other)
			refcnt_sym__ref_func(&rep->sym, &g->other, other, sizeof(other));
		refcnt__print_field(refcnt_finding_kind__name(g->kind), sep, sep);
		refcnt__print_field(refcnt_type_specs[g->type].name, sep, sep);
		printf("%" PRIu64 "%s%" PRIu64 "%s", g->refs, sep, g->objects, sep);
		refcnt__print_field(site, sep, sep);
		printf("%d%s", g->uncertain, sep);
		refcnt__print_field(other, sep, sep);
		printf("%#" PRIx64 "%s", g->obj, sep);
		refcnt__print_field(g->comm ?: "-", sep, sep);
		printf("%" PRIu64 "%s", g->held_refs, sep);
		refcnt__print_field(refcnt_site_why__name(g->why), sep, "\n");
	}
}

/*
 * The puts that freed the objects of the rows that have one (double put,
 * use after put) or found nothing to release (over-release), with their
 * callchains: what the table cannot show in a row.
 */
static void refcnt__print_other_puts(struct refcnt_report *rep, u32 max)
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
static int refcnt__print_table(struct refcnt_report *rep, u32 first, u32 nr, u32 max)
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
static int refcnt__print_findings(struct refcnt_report *rep)
{
	u32 max = rep->full_callchain ? UINT_MAX : REFCNT_STDIO_FRAMES;
	u32 split = 0;
	int err = 0;

	while (split < rep->findings.nr &&
	       rep->findings.groups[split]->kind != REFCNT_FINDING__STILL_REFERENCED)
		split++;
	/* the column headers even when there is no row at all */
	if (split || !rep->findings.nr)
		err = refcnt__print_table(rep, 0, split, max);
	if (err || split == rep->findings.nr)
		goto out;
	printf("#\n# still referenced at exit, not bugs: %" PRIu64
	       " references, pointed to by reachable memory\n#\n",
	       rep->findings.totals[REFCNT_FINDING__STILL_REFERENCED]);
	err = refcnt__print_table(rep, split, rep->findings.nr - split, max);
out:
	if (!err && !rep->quiet)
		refcnt__print_other_puts(rep, max);
	return err;
}

static int balance__cmp(const void *a, const void *b)
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
static int refcnt__print_balance(struct refcnt_report *rep)
{
	struct refcnt_balance **all;
	struct hashmap_entry *cur;
	size_t bkt, n = 0, nr = hashmap__size(rep->balance);

	all = calloc(nr ?: 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	hashmap__for_each_entry(rep->balance, cur, bkt)
		all[n++] = cur->pvalue;
	qsort(all, nr, sizeof(*all), balance__cmp);

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

/*
 * perf_session keeps every decompressed chunk of a zstd recording until it
 * is deleted, because the ordered-events queue may point into them: its
 * memory grows with the file. The report has the queue copy what it holds
 * (copy_on_queue), so a chunk is done with once the next one is made (its
 * unprocessed tail is copied into the next): free those here, and memory
 * follows the queue, the live objects and the stacks, not the file. The
 * first one done is handed back as the next chunk's memory
 * (patches/0004): no fresh pages to fault in for every chunk.
 */
static int refcnt__process_compressed(struct perf_session *session, union perf_event *event,
				      u64 file_offset, const char *file_path)
{
	struct refcnt_report *rep = container_of(session->tool, struct refcnt_report, tool);
	struct decomp_data *dd = session->active_decomp;
	int ret = rep->decompress(session, event, file_offset, file_path);

	while (!ret && dd->decomp && dd->decomp != dd->decomp_last) {
		struct decomp *done = dd->decomp;

		dd->decomp = done->next;
		/* the larger one is kept: chunks grow by the tail they carry */
		if (dd->spare && dd->spare->mmap_len >= done->mmap_len) {
			munmap(done, done->mmap_len);
			continue;
		}
		if (dd->spare)
			munmap(dd->spare, dd->spare->mmap_len);
		done->next = NULL;
		dd->spare = done;
	}
	return ret;
}

/*
 * Replay @input through the ordered-events queue into the decoder and the
 * pairing engine, following the object at @follow (0: none). The findings
 * are in rep->findings when it returns 0.
 */
static int refcnt__replay(struct refcnt_report *rep, const char *input, u64 follow)
{
	static const struct refcnt_engine_ops ops = {
		.finding = refcnt__finding,
		.step = refcnt__step,
	};
	char why[160];
	int ret;

	perf_tool__init(&rep->tool, /*ordered_events=*/true);
	rep->tool.sample = refcnt__process_sample;
	rep->tool.comm = refcnt__process_comm;
	rep->tool.mmap = perf_event__process_mmap;
	rep->tool.mmap2 = perf_event__process_mmap2;
	rep->tool.fork = perf_event__process_fork;
	rep->tool.exit = refcnt__process_exit;
	rep->tool.lost = refcnt__process_lost;
	rep->tool.lost_samples = refcnt__process_lost_samples;
	rep->tool.namespaces = perf_event__process_namespaces;
	if (!perf_tool__compressed_is_stub(&rep->tool)) {
		rep->decompress = rep->tool.compressed;
		rep->tool.compressed = refcnt__process_compressed;
	}

	if (access(input, R_OK)) {
		ret = -errno;
		pr_err("Cannot read %s: %s; record one with 'perf refcnt record'\n", input,
		       strerror(-ret));
		return ret;
	}
	if (refcnt_recording__check_layout(input, why, sizeof(why))) {
		pr_err("Cannot read %s: %s; record it again with 'perf refcnt record'\n",
		       input, why);
		return -EINVAL;
	}
	ret = rep->no_scan ? 1 :
	      refcnt_scan__read(input, &rep->scan, rep->scan_why, sizeof(rep->scan_why));
	if (ret == 1 && rep->no_scan) {
		rep->scan.result.status = REFCNT_SCAN__NOT_RUN;
		snprintf(rep->scan_why, sizeof(rep->scan_why), "--no-scan");
	} else if (ret == 1) {
		rep->scan.result.status = REFCNT_SCAN__NOT_RUN;
		snprintf(rep->scan_why, sizeof(rep->scan_why), "the recording has none");
	} else if (ret < 0) {
		if (ret == -ENOMEM)
			return ret;
		/* a damaged scan: the findings of a recording without one */
		pr_warning("perf refcnt: %s: %s; its leaks are the references outstanding at exit\n",
			   input, rep->scan_why);
		rep->scan.result.status = REFCNT_SCAN__FAILED;
	} else if (rep->scan.result.status != REFCNT_SCAN__DONE) {
		snprintf(rep->scan_why, sizeof(rep->scan_why), "%s",
			 refcnt_scan_status__name(rep->scan.result.status));
	}

	/* findings are symbolized after the replay, when the workload has exited */
	symbol_conf.keep_exited_threads = true;
	rep->data.path = input;
	rep->data.mode = PERF_DATA_MODE_READ;
	rep->session = perf_session__new(&rep->data, &rep->tool);
	if (IS_ERR(rep->session)) {
		ret = PTR_ERR(rep->session);
		rep->session = NULL;
		/* perf_session__new() says -1 (-EPERM) for a header it cannot use */
		pr_err("Cannot read %s: %s; record one with 'perf refcnt record'\n", input,
		       ret == -EPERM ? "not a perf.data file, or its header is damaged" :
		       strerror(-ret));
		return ret;
	}
	symbol__init(&rep->session->header.env);

	ordered_events__set_copy_on_queue(&rep->session->ordered_events, true);

	ret = refcnt_decoder__init(&rep->decoder, rep->session->evlist,
				   &rep->session->machines.host);
	if (ret == 0) {
		pr_err("%s holds no perf refcnt events: record one with 'perf refcnt record'\n",
		       input);
		return -EINVAL;
	} else if (ret < 0) {
		return ret;
	}
	rep->sym.machine = &rep->session->machines.host;
	rep->sym.stacks = &rep->decoder.stacks;

	rep->engine = refcnt_engine__new(&ops, rep);
	if (!rep->engine || (follow && refcnt_engine__follow(rep->engine, follow)))
		return -ENOMEM;

	ret = perf_session__process_events(rep->session);
	if (ret) {
		pr_err("Cannot process %s: %s: the recording is damaged; record it again\n",
		       input, strerror(-ret));
		return ret;
	}
	if (rep->scan.result.status == REFCNT_SCAN__DONE && !rep->scan_pid_exited) {
		/*
		 * The scan is of the process at its exit: events up to there
		 * are missing, and what they freed would look leaked. What is
		 * live is uncertain, as after lost events.
		 */
		pr_warning("perf refcnt: %s ends before the exit of pid %u: its last events are lost, what is live at its end is uncertain; record it again\n",
			   input, rep->scan.result.pid);
		refcnt_engine__lost(rep->engine, ~0ULL, 0);
		rep->scan.result.status = REFCNT_SCAN__FAILED;
		snprintf(rep->scan_why, sizeof(rep->scan_why),
			 "the recording ends before the exit of pid %u", rep->scan.result.pid);
	}
	if (rep->scan.result.status == REFCNT_SCAN__DONE &&
	    refcnt_engine__exit_scan(rep->engine,
				     refcnt_decoder__space(&rep->decoder, rep->scan.result.pid),
				     &rep->scan))
		return -ENOMEM;
	refcnt_engine__end(rep->engine);
	return rep->err;
}

/* What the findings could not see, said last, whatever the output. */
static void refcnt__warn_missed(const struct refcnt_report *rep)
{
	if (rep->decoder.bad_samples)
		pr_warning("perf refcnt: %" PRIu64 " samples skipped (damaged recording): %s\n",
			   rep->decoder.bad_samples,
			   "findings on objects of their types are marked uncertain");
	if (rep->lost || rep->lost_samples)
		pr_warning("perf refcnt: %" PRIu64 " events lost: %s\n",
			   rep->lost + rep->lost_samples,
			   "findings on objects live then are marked uncertain");
}

static void refcnt__report_exit(struct refcnt_report *rep)
{
	if (rep->balance) {
		struct hashmap_entry *cur;
		size_t bkt;

		hashmap__for_each_entry(rep->balance, cur, bkt)
			free(cur->pvalue);
		hashmap__free(rep->balance);
		rep->balance = NULL;
	}
	refcnt_engine__delete(rep->engine);
	rep->engine = NULL;
	refcnt_decoder__exit(&rep->decoder, rep->session ? rep->session->evlist : NULL);
	refcnt_findings__exit(&rep->findings);
	refcnt_suppressions__exit(&rep->suppressions);
	refcnt_sym__exit(&rep->sym);
	refcnt_scan__exit(&rep->scan);
	if (rep->session)
		perf_session__delete(rep->session);
	rep->session = NULL;
}

static void refcnt__print_history_header(FILE *fp, u64 addr)
{
	fprintf(fp, "# history of the object at %#" PRIx64 "\n", addr);
	fprintf(fp, "# %19s %7s/%-7s %7s %-4s %-9s %-9s %s\n", "time", "pid", "tid", "gen",
		"op", "refs", "live", "site");
}

/* The TUI's timeline of one object: a second replay that follows it. */
static char *refcnt__history_text(void *priv, u64 obj)
{
	const struct refcnt_report *rep = priv;
	struct refcnt_report h = { .type_mask = rep->type_mask, .no_scan = rep->no_scan };
	char *text = NULL;
	size_t size;
	int ret;

	h.out = open_memstream(&text, &size);
	if (!h.out)
		return NULL;
	refcnt__print_history_header(h.out, obj);
	ret = refcnt_findings__init(&h.findings, NULL);
	if (!ret)
		ret = refcnt__replay(&h, rep->data.path, obj);
	refcnt__report_exit(&h);
	fclose(h.out);
	if (ret)
		zfree(&text);
	return text;
}

static int refcnt__browse(struct refcnt_report *rep)
{
	const struct refcnt_engine_stats *st = refcnt_engine__stats(rep->engine);
	char title[256] = "";
	FILE *fp;
	struct refcnt_browse rb = {
		.findings = &rep->findings,
		.sym = &rep->sym,
		.title = title,
		.history = refcnt__history_text,
		.priv = rep,
	};

	fp = fmemopen(title, sizeof(title), "w");
	if (!fp)
		return -errno;
	fprintf(fp, "%" PRIu64 " events, ", st->events);
	/* hists' browser title holds 160 characters: the kinds found only */
	refcnt__fprintf_totals(fp, rep->findings.totals, true);
	fprintf(fp, ", uncertain: %" PRIu64 ", lost: %" PRIu64, rep->findings.uncertain,
		rep->lost + rep->lost_samples);
	fclose(fp);
	return refcnt__tui_browse(&rb);
}

/*
 * How the report shows a row's callchains: relative to the row, all of
 * them. parse_callchain_report_opt() writes in what it parses: -g's
 * default is an array, as perf report's, and the defaults set at start a
 * copy of their own.
 */
#define REFCNT_CALLCHAIN_DEFAULT	"fractal,0,callee"
static char refcnt_callchain_default[] = REFCNT_CALLCHAIN_DEFAULT;

/* -g, as perf report's: whole callchains, shown as @arg says */
static int refcnt__parse_callchain(const struct option *opt, const char *arg, int unset)
{
	bool *full = opt->value;

	*full = !unset;
	return unset ? 0 : parse_callchain_report_opt(arg);
}

static int refcnt__report(int argc, const char **argv)
{
	const char *input = REFCNT_DEFAULT_OUTPUT, *types = NULL, *sort = NULL;
	const char *history = NULL, *field_sep = NULL, *fail_on = NULL;
	struct refcnt_report rep = { .out = stdout };
	bool stdio = false, tui = false, balance = false, scan = true;
	bool gen_suppressions = false, folded = false, fail_uncertain = true;
	u32 fail_kinds = 0;
	u64 follow = 0;
	char bad[64], types_help[128], callchain_defaults[] = REFCNT_CALLCHAIN_DEFAULT;
	int ret;
	const struct option options[] = {
	OPT_STRING('i', "input", &input, "file",
		   "input file name (default: " REFCNT_DEFAULT_OUTPUT ")"),
	OPT_BOOLEAN(0, "stdio", &stdio, "use the stdio interface"),
	OPT_BOOLEAN(0, "tui", &tui, "use the TUI (the default on a terminal)"),
	OPT_STRING('t', "type", &types, "type[,type...]", types_help),
	OPT_STRING('s', "sort", &sort, "key[,key...]",
		   "group findings by: type, site, object, comm (default: type,site)"),
	OPT_CALLBACK_DEFAULT('g', "call-graph", &rep.full_callchain,
			     "print_type,threshold[,print_limit],order,sort_key[,branch],value",
			     "whole callchains, shown as perf report's -g says (default: fractal,0,callee)",
			     refcnt__parse_callchain, refcnt_callchain_default),
	OPT_STRING(0, "history", &history, "addr",
		   "show every operation on the object at addr, paired"),
	OPT_BOOLEAN(0, "balance", &balance, "gets, puts and net per call site"),
	OPT_BOOLEAN(0, "scan", &scan,
		    "use the recording's scan at exit (default: on; off: leaks are gets left)"),
	OPT_BOOLEAN('q', "quiet", &rep.quiet, "findings only, no callchains"),
	OPT_STRING('x', "field-separator", &field_sep, "separator",
		   "one line per finding group, fields separated by <separator>"),
	OPT_STRING(0, "suppressions", &rep.suppressions_path, "file",
		   "hide the findings that a KIND:PATTERN line of file matches"),
	OPT_BOOLEAN(0, "gen-suppressions", &gen_suppressions,
		    "print a suppression line for each bug row shown"),
	OPT_STRING(0, "fail-on", &fail_on, "kind[,kind...]",
		   "exit with status 23 if a finding of these kinds remains (bugs: all bug kinds)"),
	OPT_BOOLEAN(0, "fail-on-uncertain", &fail_uncertain,
		    "--fail-on: exit with status 24 if only uncertain ones remain (default: on)"),
	OPT_BOOLEAN(0, "folded", &folded,
		    "write the callchains of the outstanding references (or --fail-on's) folded"),
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_END()
	};

	snprintf(types_help, sizeof(types_help), "only these types: %s",
		 refcnt_type_specs__names());
	parse_callchain_report_opt(callchain_defaults);
	argc = parse_options(argc, argv, options, refcnt_report_usage, 0);
	if (argc)
		usage_with_options(refcnt_report_usage, options);

	if (refcnt_type_specs__parse(types, &rep.type_mask, bad, sizeof(bad))) {
		pr_err("Unknown refcount type '%s': use one of %s\n", bad,
		       refcnt_type_specs__names());
		return -EINVAL;
	}
	if (stdio && tui) {
		pr_err("Give either --stdio or --tui, not both\n");
		return -EINVAL;
	}
	if (history) {
		follow = strtoull(history, NULL, 0);
		if (!follow) {
			pr_err("--history takes an object address, e.g. 0x55d1e2f3a000\n");
			return -EINVAL;
		}
	}
	if (fail_on && refcnt_finding_kinds__parse(fail_on, &fail_kinds, bad, sizeof(bad))) {
		pr_err("Unknown finding kind '%s' in --fail-on: use bugs, or kinds such as leak,double-put,over-release,use-after-put\n",
		       bad);
		return -EINVAL;
	}
	if (rep.suppressions_path) {
		int line;

		ret = refcnt_suppressions__read(&rep.suppressions, rep.suppressions_path, &line);
		if (ret == -EINVAL) {
			pr_err("%s:%d: not a suppression: write KIND:PATTERN, e.g. leak:thread__find_map\n",
			       rep.suppressions_path, line);
		} else if (ret) {
			pr_err("Cannot read suppressions %s: %s\n", rep.suppressions_path,
			       strerror(-ret));
		}
		if (ret) {
			refcnt_suppressions__exit(&rep.suppressions);
			return ret;
		}
	}
	if (refcnt_findings__init(&rep.findings, sort)) {
		pr_err("Unknown --sort '%s': use keys of type, site, object, comm\n", sort);
		return -EINVAL;
	}

	/* as perf report: the TUI on a terminal, else (or without slang) stdio */
	if (stdio || history || balance || field_sep || folded || gen_suppressions)
		use_browser = 0;
	else if (tui)
		use_browser = 1;
	setup_browser(true);
	if (tui && use_browser != 1) {
		pr_err("No TUI: perf was built without slang (libslang2-dev), or stdout is not a terminal; use --stdio\n");
		refcnt_findings__exit(&rep.findings);
		return -EINVAL;
	}

	if (follow)
		refcnt__print_history_header(stdout, follow);
	if (balance) {
		rep.balance = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
		if (IS_ERR(rep.balance)) {
			ret = PTR_ERR(rep.balance);
			rep.balance = NULL;
			goto out;
		}
	}

	rep.no_scan = !scan;
	ret = refcnt__replay(&rep, input, follow);
	if (ret || history)
		goto out;
	if (balance) {
		ret = refcnt__print_balance(&rep);
		goto out;
	}
	ret = rep.suppressions.nr ? refcnt__suppress(&rep) : 0;
	if (!ret)
		ret = refcnt_findings__sort(&rep.findings);
	if (ret)
		goto out;
	if (use_browser == 1) {
		ret = refcnt__browse(&rep);
	} else if (folded) {
		u32 outstanding = 0;

		for (int k = 0; k < REFCNT_FINDING__MAX; k++) {
			if (refcnt_finding__outstanding(k))
				outstanding |= 1U << k;
		}
		ret = refcnt__print_folded(&rep, fail_kinds ?: outstanding);
		refcnt__warn_missed(&rep);
	} else if (field_sep) {
		refcnt__print_findings_sep(&rep, field_sep);
		refcnt__warn_missed(&rep);
	} else {
		if (!rep.quiet)
			refcnt__print_header(&rep, input);
		symbol_conf.use_callchain = !rep.quiet;
		ret = callchain_register_param(&callchain_param) ?: refcnt__print_findings(&rep);
		if (ret)
			goto out;
		if (gen_suppressions)
			refcnt__print_gen_suppressions(&rep);
		refcnt__warn_missed(&rep);
	}
	if (!ret && fail_kinds)
		ret = refcnt__fail_on(&rep, fail_kinds, fail_uncertain);
out:
	refcnt__report_exit(&rep);
	return ret;
}

static const char * const refcnt_diff_usage[] = {
	"perf refcnt diff [<options>] [<base.data> <new.data>]",
	NULL
};

/* The folded callchain of @stack, outermost first, in @chain. */
static int refcnt__fold_stack(const struct refcnt_report *rep, const struct refcnt_ref *site,
			      u32 stack, struct refcnt_funcs *f, struct strbuf *chain)
{
	u32 nr = refcnt__stack_funcs(rep, site, stack, f);
	int err = strbuf_setlen(chain, 0);

	while (nr-- && !err) {
		err = strbuf_addstr(chain, f->names[nr]);
		if (nr && !err)
			err = strbuf_addch(chain, ';');
	}
	return err;
}

/*
 * A replayed recording by names: its findings per kind, type, site function
 * and folded callchain, and its balance per type and function.
 */
static int refcnt__summarize(const struct refcnt_report *rep, struct refcnt_summary *s)
{
	struct refcnt_funcs *f = zalloc(sizeof(*f));
	struct strbuf chain = STRBUF_INIT;
	struct hashmap_entry *cur, *scur;
	char site[REFCNT_FUNC_SZ];
	size_t bkt, sbkt;
	int err = 0;

	if (!f)
		return -ENOMEM;
	hashmap__for_each_entry(rep->findings.map, cur, bkt) {
		const struct refcnt_group *g = cur->pvalue;

		refcnt_sym__ref_func(&rep->sym, &g->ref, site, sizeof(site));
		if (!g->stacks) {
			err = g->refs ? refcnt_summary__add_finding(s, g->kind, g->type,
					g->uncertain, site, "", g->refs) : 0;
			if (err)
				goto out;
			continue;
		}
		hashmap__for_each_entry(g->stacks, scur, sbkt) {
			err = refcnt__fold_stack(rep, &g->ref, scur->key, f, &chain) ?:
			      refcnt_summary__add_finding(s, g->kind, g->type, g->uncertain, site,
							  chain.buf, scur->value);
			if (err)
				goto out;
		}
	}
	hashmap__for_each_entry(rep->balance, cur, bkt) {
		const struct refcnt_balance *b = cur->pvalue;

		refcnt_sym__addr_func(&rep->sym, b->space, b->site, false, site, sizeof(site));
		err = refcnt_summary__add_site(s, b->type, site, b->gets, b->puts);
		if (err)
			goto out;
	}
out:
	strbuf_release(&chain);
	free(f);
	return err;
}

/* Replay @input and summarize it in @s; why its uncertain rows are in @why. */
static int refcnt__diff_side(const char *input, unsigned long type_mask, bool no_scan,
			     struct refcnt_summary *s, char *why, size_t why_size)
{
	struct refcnt_report rep = { .out = stdout, .type_mask = type_mask, .no_scan = no_scan };
	int ret;

	ret = refcnt_summary__init(s);
	if (!ret)
		ret = refcnt_findings__init(&rep.findings, NULL);
	if (ret)
		return ret;
	rep.balance = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
	if (IS_ERR(rep.balance)) {
		rep.balance = NULL;
		ret = -ENOMEM;
	}
	if (!ret)
		ret = refcnt__replay(&rep, input, 0);
	if (!ret)
		ret = refcnt__summarize(&rep, s);
	if (!ret) {
		refcnt__warn_missed(&rep);
		refcnt__uncertain_why(&rep, why, why_size);
	}
	refcnt__report_exit(&rep);
	return ret;
}

struct refcnt_frame {
	const char	*name;
	int		len;
};

/* The frames of a folded callchain, innermost first: how many. */
static u32 refcnt__chain_frames(const char *chain, struct refcnt_frame *frames)
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
static u32 refcnt__common_frames(const struct refcnt_frame *a, u32 na,
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
static int refcnt__print_diff_chains(const struct refcnt_diff *d,
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
		u32 nr = refcnt__chain_frames(f->chain, frames), show = max;

		for (u32 j = g->first; j < g->first + g->nr; j++) {
			const struct refcnt_summary_finding *o = d->findings[j].new ?:
								 d->findings[j].base;
			u32 no = refcnt__chain_frames(o->chain, other);

			if (j != i)
				show = max(show, refcnt__common_frames(frames, nr, other, no) + 1);
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

static int refcnt__print_diff_findings(const struct refcnt_diff *d, bool rows_only, u32 max)
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
		if (refcnt__print_diff_chains(d, g, max))
			return -ENOMEM;
		printf("\n");
	}
	return 0;
}

static void refcnt__print_diff_balance(const struct refcnt_diff *d)
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

/* -x: a callchain of a row, as refcnt__print_diff_sep() says */
static void refcnt__print_diff_chain_sep(const struct refcnt_diff_finding *r, const char *sep)
{
	const struct refcnt_summary_finding *f = r->new ?: r->base;

	printf("finding%s%s%s", sep, refcnt_diff_status__name(r->status), sep);
	refcnt__print_field(refcnt_finding_kind__name(f->kind), sep, sep);
	refcnt__print_field(refcnt_type_specs[f->type].name, sep, sep);
	refcnt__print_field(f->site, sep, sep);
	printf("%" PRIu64 "%s%" PRIu64 "%s%" PRId64 "%s", r->base ? r->base->refs : 0, sep,
	       r->new ? r->new->refs : 0, sep, r->delta, sep);
	refcnt__print_field(f->chain, sep, "\n");
}

/*
 * -x: a line per row, its first field what it is. "finding", status, kind,
 * type, site function, references in base and new, delta, the folded
 * callchain; "balance", status, type, function, gets, puts and calls in
 * base, then in new, net references per call in base and new.
 */
static void refcnt__print_diff_sep(const struct refcnt_diff *d, const char *sep)
{
	for (u32 i = 0; i < d->nr_groups; i++) {
		for (u32 c = d->groups[i].first; c < d->groups[i].first + d->groups[i].nr; c++)
			refcnt__print_diff_chain_sep(&d->findings[c], sep);
	}
	for (u32 i = 0; i < d->nr_balance; i++) {
		const struct refcnt_diff_balance *r = &d->balance[i];
		const struct refcnt_summary_balance *b = r->new ?: r->base;
		const struct refcnt_summary_balance none = { .type = 0 };
		const struct refcnt_summary_balance *o = r->base ?: &none, *n = r->new ?: &none;

		printf("balance%s%s%s", sep, refcnt_diff_status__name(r->status), sep);
		refcnt__print_field(refcnt_type_specs[b->type].name, sep, sep);
		refcnt__print_field(b->func, sep, "");
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
static int refcnt__diff_fail_on(const struct refcnt_diff *d, u32 kinds, bool fail_uncertain,
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
	refcnt__warn_uncertain(what, w.uncertain, w.uncertain_kinds, whys);
	return REFCNT_EXIT_UNCERTAIN;
}

/*
 * perf refcnt diff: what changed from one recording to another, two builds
 * of perf running the same command, or one build on two inputs.
 */
static int refcnt__diff(int argc, const char **argv)
{
	const char *base = REFCNT_DEFAULT_OUTPUT ".old", *new = REFCNT_DEFAULT_OUTPUT;
	const char *types = NULL, *field_sep = NULL, *fail_on = NULL;
	struct refcnt_summary sb = { NULL }, sn = { NULL };
	struct refcnt_diff d = { NULL };
	bool stdio = true, scan = true, rows_only = false, full_callchain = false;
	bool fail_uncertain = true;
	unsigned long type_mask;
	u32 fail_kinds = 0;
	char bad[64], types_help[128], base_why[256], why[256];
	int ret;
	const struct option options[] = {
	OPT_BOOLEAN(0, "stdio", &stdio, "use the stdio interface (the only one)"),
	OPT_STRING('t', "type", &types, "type[,type...]", types_help),
	OPT_BOOLEAN(0, "scan", &scan,
		    "use the recordings' scans at exit (default: on; off: leaks are gets left)"),
	OPT_BOOLEAN('g', "call-graph", &full_callchain, "show whole callchains"),
	OPT_BOOLEAN('q', "quiet", &rows_only, "rows only, no callchains"),
	OPT_STRING('x', "field-separator", &field_sep, "separator",
		   "one line per row, fields separated by <separator>"),
	OPT_STRING(0, "fail-on", &fail_on, "kind[,kind...]",
		   "exit with status 23 if findings of these kinds are new or take more per call"),
	OPT_BOOLEAN(0, "fail-on-uncertain", &fail_uncertain,
		    "--fail-on: exit with status 24 if only uncertain ones are (default: on)"),
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_END()
	};

	snprintf(types_help, sizeof(types_help), "only these types: %s",
		 refcnt_type_specs__names());
	argc = parse_options(argc, argv, options, refcnt_diff_usage, 0);
	if (argc == 2) {
		base = argv[0];
		new = argv[1];
	} else if (argc) {
		pr_err("perf refcnt diff takes two recordings, the baseline then the new one, or none for %s.old and %s\n",
		       REFCNT_DEFAULT_OUTPUT, REFCNT_DEFAULT_OUTPUT);
		return -EINVAL;
	}
	if (refcnt_type_specs__parse(types, &type_mask, bad, sizeof(bad))) {
		pr_err("Unknown refcount type '%s': use one of %s\n", bad,
		       refcnt_type_specs__names());
		return -EINVAL;
	}
	if (fail_on && refcnt_finding_kinds__parse(fail_on, &fail_kinds, bad, sizeof(bad))) {
		pr_err("Unknown finding kind '%s' in --fail-on: use bugs, or kinds such as leak,double-put,over-release,use-after-put\n",
		       bad);
		return -EINVAL;
	}

	ret = refcnt__diff_side(base, type_mask, !scan, &sb, base_why, sizeof(base_why));
	if (!ret)
		ret = refcnt__diff_side(new, type_mask, !scan, &sn, why, sizeof(why));
	if (!ret)
		ret = refcnt_diff__compute(&d, &sb, &sn);
	if (ret)
		goto out;

	if (fail_kinds)
		ret = refcnt__diff_fail_on(&d, fail_kinds, fail_uncertain, new, why, base_why);
	if (field_sep) {
		refcnt__print_diff_sep(&d, field_sep);
		goto out;
	}
	printf("# perf refcnt diff of %s (baseline) and %s\n", base, new);
	printf("# findings: %u new, %u changed, %u gone\n", d.nr[REFCNT_DIFF__NEW],
	       d.nr[REFCNT_DIFF__CHANGED], d.nr[REFCNT_DIFF__GONE]);
	printf("#\n");
	if (refcnt__print_diff_findings(&d, rows_only,
					full_callchain ? UINT_MAX : REFCNT_STDIO_FRAMES)) {
		ret = -ENOMEM;
		goto out;
	}
	printf("#\n# balance: %u functions whose references changed, %s\n", d.nr_balance,
	       "the most changed per call first (calls: the most events at one of its sites)");
	printf("#\n");
	refcnt__print_diff_balance(&d);
out:
	refcnt_diff__exit(&d);
	refcnt_summary__exit(&sb);
	refcnt_summary__exit(&sn);
	return ret;
}

/* filled by parse_options_subcommand() from the subcommand list */
static const char *refcnt_usage[2];

int cmd_refcnt(int argc, const char **argv)
{
	static const char * const refcnt_subcommands[] = {
		"record", "report", "diff", NULL
	};
	const struct option refcnt_options[] = {
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_END()
	};
	int ret;

	argc = parse_options_subcommand(argc, argv, refcnt_options,
					refcnt_subcommands, refcnt_usage,
					PARSE_OPT_STOP_AT_NON_OPTION);
	if (!argc)
		usage_with_options(refcnt_usage, refcnt_options);

	if (strlen(argv[0]) > 2 && strstarts("record", argv[0]))
		ret = refcnt__record(argc, argv);
	else if (strlen(argv[0]) > 2 && strstarts("report", argv[0]))
		ret = refcnt__report(argc, argv);
	else if (!strcmp(argv[0], "diff"))
		ret = refcnt__diff(argc, argv);
	else
		usage_with_options(refcnt_usage, refcnt_options);

	/* free the usage string allocated by parse_options_subcommand */
	free((void *)refcnt_usage[0]);
	return ret;
}
