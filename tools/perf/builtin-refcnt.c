// SPDX-License-Identifier: GPL-2.0
/*
 * builtin-refcnt.c: audit the reference counts of perf's own objects
 * (dso, map, maps, thread, nsinfo, perf_cpu_map) on an unmodified perf
 * binary, with uprobes on its refcount API.
 *
 *   perf refcnt record [<options>] -- <command>
 *   perf refcnt report [<options>]
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/string.h>
#include <subcmd/parse-options.h>

#include "builtin.h"
#include "util/debug.h"
#include "util/refcnt/spec.h"

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

static int refcnt__record(int argc, const char **argv)
{
	const char *output = REFCNT_DEFAULT_OUTPUT;
	const char *types = NULL;
	unsigned long type_mask;
	char bad[64];
	const struct option options[] = {
	OPT_STRING('o', "output", &output, "file",
		   "output file name (default: " REFCNT_DEFAULT_OUTPUT ")"),
	OPT_STRING('t', "type", &types, "type[,type...]",
		   "types to audit: dso,map,maps,thread,nsinfo,cpu_map (default: all)"),
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_END()
	};

	argc = parse_options(argc, argv, options, refcnt_record_usage,
			     PARSE_OPT_STOP_AT_NON_OPTION);

	if (refcnt_type_specs__parse(types, &type_mask, bad, sizeof(bad))) {
		pr_err("Unknown refcount type '%s': use one of dso,map,maps,thread,nsinfo,cpu_map\n",
		       bad);
		return -EINVAL;
	}
	if (!argc) {
		pr_err("No workload given: use 'perf refcnt record -- <command>'\n");
		return -EINVAL;
	}

	pr_err("perf refcnt record: not implemented yet\n");
	return -1;
}

static int refcnt__report(int argc, const char **argv)
{
	const char *input = REFCNT_DEFAULT_OUTPUT;
	const struct option options[] = {
	OPT_STRING('i', "input", &input, "file",
		   "input file name (default: " REFCNT_DEFAULT_OUTPUT ")"),
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_END()
	};

	argc = parse_options(argc, argv, options, refcnt_report_usage, 0);
	if (argc)
		usage_with_options(refcnt_report_usage, options);

	pr_err("perf refcnt report: not implemented yet\n");
	return -1;
}

/* filled by parse_options_subcommand() from the subcommand list */
static const char *refcnt_usage[2];

int cmd_refcnt(int argc, const char **argv)
{
	static const char * const refcnt_subcommands[] = {
		"record", "report", NULL
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
	else
		usage_with_options(refcnt_usage, refcnt_options);

	/* free the usage string allocated by parse_options_subcommand */
	free((void *)refcnt_usage[0]);
	return ret;
}
