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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/string.h>
#include <subcmd/parse-options.h>

#include "builtin.h"
#include "util/callchain.h"
#include "util/debug.h"
#include "util/refcnt/diff.h"
#include "util/refcnt/diff_print.h"
#include "util/refcnt/findings.h"
#include "util/refcnt/pairing.h"
#include "util/refcnt/record.h"
#include "util/refcnt/report.h"
#include "util/refcnt/spec.h"
#include "util/symbol.h"
#include "util/util.h"
#include "ui/ui.h"

#define REFCNT_DEFAULT_OUTPUT	"refcnt.data"

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
		   "frames of a -g fp callchain (default: 16)"),
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
	OPT_BOOLEAN(0, "probe-at-entry", &opts.at_entry,
		    "probe every get and put where it starts: none past its NULL check (slower)"),
	OPT_BOOLEAN(0, "slots", &opts.slots,
		    "probe where references are stored and loaded: exact pairs (slower)"),
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

/* perf refcnt report's options that struct refcnt_report does not hold */
struct refcnt_report_opts {
	const char	*input;
	const char	*types;
	const char	*sort;
	const char	*history;
	const char	*field_sep;
	const char	*fail_on;
	bool		stdio;
	bool		tui;
	bool		balance;
	bool		scan;
	bool		slots;
	bool		gen_suppressions;
	bool		folded;
	bool		fail_uncertain;
	u32		fail_kinds;	/* --fail-on's, a mask of 1 << kind */
	u64		follow;		/* --history's object */
};

/*
 * The checks of report's options, once parsed: -t's types in @rep, then
 * its suppressions read and its findings grouped as --sort says.
 */
static int refcnt__report_check(struct refcnt_report *rep, struct refcnt_report_opts *o)
{
	char bad[64];
	int ret;

	if (refcnt_type_specs__parse(o->types, &rep->type_mask, bad, sizeof(bad))) {
		pr_err("Unknown refcount type '%s': use one of %s\n", bad,
		       refcnt_type_specs__names());
		return -EINVAL;
	}
	if (o->stdio && o->tui) {
		pr_err("Give either --stdio or --tui, not both\n");
		return -EINVAL;
	}
	if (o->history) {
		o->follow = strtoull(o->history, NULL, 0);
		if (!o->follow) {
			pr_err("--history takes an object address, e.g. 0x55d1e2f3a000\n");
			return -EINVAL;
		}
	}
	if (o->fail_on && refcnt_finding_kinds__parse(o->fail_on, &o->fail_kinds, bad,
						      sizeof(bad))) {
		pr_err("Unknown finding kind '%s' in --fail-on: use bugs, or kinds such as leak,double-put,over-release,use-after-put\n",
		       bad);
		return -EINVAL;
	}
	if (rep->suppressions_path) {
		ret = refcnt_report__read_suppressions(rep);
		if (ret)
			return ret;
	}
	if (refcnt_findings__init(&rep->findings, o->sort)) {
		pr_err("Unknown --sort '%s': use keys of type, site, object, comm\n", o->sort);
		return -EINVAL;
	}
	return 0;
}

/* as perf report: the TUI on a terminal, else (or without slang) stdio */
static int refcnt__report_setup_browser(const struct refcnt_report_opts *o)
{
	if (o->stdio || o->history || o->balance || o->field_sep || o->folded ||
	    o->gen_suppressions)
		use_browser = 0;
	else if (o->tui)
		use_browser = 1;
	setup_browser(true);
	if (o->tui && use_browser != 1) {
		pr_err("No TUI: perf was built without slang (libslang2-dev), or stdout is not a terminal; use --stdio\n");
		return -EINVAL;
	}
	return 0;
}

/* --stdio: the header, the table, the suppression lines asked for */
static int refcnt__report_stdio(struct refcnt_report *rep, const struct refcnt_report_opts *o)
{
	int ret;

	if (!rep->quiet)
		refcnt_report__print_header(rep, o->input);
	symbol_conf.use_callchain = !rep->quiet;
	ret = callchain_register_param(&callchain_param) ?: refcnt_report__print_findings(rep);
	if (ret)
		return ret;
	if (o->gen_suppressions)
		refcnt_report__print_gen_suppressions(rep);
	refcnt_report__warn_missed(rep);
	return 0;
}

/* The replayed recording, shown as the options say; --fail-on's status. */
static int refcnt__report_show(struct refcnt_report *rep, const struct refcnt_report_opts *o)
{
	int ret;

	if (o->balance)
		return refcnt_report__print_balance(rep);
	ret = rep->suppressions.nr ? refcnt_report__suppress(rep) : 0;
	if (!ret)
		ret = refcnt_findings__sort(&rep->findings);
	if (ret)
		return ret;
	if (use_browser == 1) {
		ret = refcnt_report__browse(rep);
	} else if (o->folded) {
		u32 outstanding = 0;

		for (int k = 0; k < REFCNT_FINDING__MAX; k++) {
			if (refcnt_finding__outstanding(k))
				outstanding |= 1U << k;
		}
		ret = refcnt_report__print_folded(rep, o->fail_kinds ?: outstanding);
		refcnt_report__warn_missed(rep);
	} else if (o->field_sep) {
		refcnt_report__print_findings_sep(rep, o->field_sep);
		refcnt_report__warn_missed(rep);
	} else {
		ret = refcnt__report_stdio(rep, o);
		if (ret)
			return ret;
	}
	if (!ret && o->fail_kinds)
		ret = refcnt_report__fail_on(rep, o->fail_kinds, o->fail_uncertain);
	return ret;
}

static int refcnt__report(int argc, const char **argv)
{
	struct refcnt_report rep = { .out = stdout };
	struct refcnt_report_opts o = {
		.input = REFCNT_DEFAULT_OUTPUT, .scan = true, .fail_uncertain = true,
		.slots = true,
	};
	char types_help[128], callchain_defaults[] = REFCNT_CALLCHAIN_DEFAULT;
	int ret;
	const struct option options[] = {
	OPT_STRING('i', "input", &o.input, "file",
		   "input file name (default: " REFCNT_DEFAULT_OUTPUT ")"),
	OPT_BOOLEAN(0, "stdio", &o.stdio, "use the stdio interface"),
	OPT_BOOLEAN(0, "tui", &o.tui, "use the TUI (the default on a terminal)"),
	OPT_STRING('t', "type", &o.types, "type[,type...]", types_help),
	OPT_STRING('s', "sort", &o.sort, "key[,key...]",
		   "group findings by: type, site, object, comm (default: type,site)"),
	OPT_CALLBACK_DEFAULT('g', "call-graph", &rep.full_callchain,
			     "print_type,threshold[,print_limit],order,sort_key[,branch],value",
			     "whole callchains, shown as perf report's -g says (default: fractal,0,callee)",
			     refcnt__parse_callchain, refcnt_callchain_default),
	OPT_STRING(0, "history", &o.history, "addr",
		   "show every operation on the object at addr, paired"),
	OPT_BOOLEAN(0, "balance", &o.balance, "gets, puts and net per call site"),
	OPT_BOOLEAN(0, "scan", &o.scan,
		    "use the recording's scan at exit (default: on; off: leaks are gets left)"),
	OPT_BOOLEAN(0, "slots", &o.slots,
		    "pair a put with what was stored where it loaded from (default: on)"),
	OPT_BOOLEAN('q', "quiet", &rep.quiet, "findings only, no callchains"),
	OPT_STRING('x', "field-separator", &o.field_sep, "separator",
		   "one line per finding group, fields separated by <separator>"),
	OPT_STRING(0, "suppressions", &rep.suppressions_path, "file",
		   "hide the findings that a KIND:PATTERN line of file matches"),
	OPT_BOOLEAN(0, "gen-suppressions", &o.gen_suppressions,
		    "print a suppression line for each bug row shown"),
	OPT_STRING(0, "fail-on", &o.fail_on, "kind[,kind...]",
		   "exit with status 23 if a finding of these kinds remains (bugs: all bug kinds)"),
	OPT_BOOLEAN(0, "fail-on-uncertain", &o.fail_uncertain,
		    "--fail-on: exit with status 24 if only uncertain ones remain (default: on)"),
	OPT_BOOLEAN(0, "folded", &o.folded,
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

	ret = refcnt__report_check(&rep, &o);
	if (ret)
		return ret;
	ret = refcnt__report_setup_browser(&o);
	if (ret) {
		refcnt_findings__exit(&rep.findings);
		return ret;
	}

	if (o.follow)
		refcnt_report__print_history_header(stdout, o.follow);
	ret = o.balance ? refcnt_report__count_balance(&rep) : 0;
	rep.no_scan = !o.scan;
	rep.no_slots = !o.slots;
	if (!ret)
		ret = refcnt_report__replay(&rep, o.input, o.follow);
	if (!ret && !o.history)
		ret = refcnt__report_show(&rep, &o);
	refcnt_report__exit(&rep);
	return ret;
}

static const char * const refcnt_diff_usage[] = {
	"perf refcnt diff [<options>] [<base.data> <new.data>]",
	NULL
};

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

	ret = refcnt_report__summarize(base, type_mask, !scan, &sb, base_why, sizeof(base_why));
	if (!ret)
		ret = refcnt_report__summarize(new, type_mask, !scan, &sn, why, sizeof(why));
	if (!ret)
		ret = refcnt_diff__compute(&d, &sb, &sn);
	if (ret)
		goto out;

	if (fail_kinds)
		ret = refcnt_diff__fail_on(&d, fail_kinds, fail_uncertain, new, why, base_why);
	if (field_sep)
		refcnt_diff__print_sep(&d, field_sep);
	else if (refcnt_diff__print(&d, base, new, rows_only,
				    full_callchain ? UINT_MAX : REFCNT_STDIO_FRAMES))
		ret = -ENOMEM;
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
