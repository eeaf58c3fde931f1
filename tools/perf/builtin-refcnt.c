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
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <api/fs/tracing_path.h>
#include <linux/string.h>
#include <subcmd/parse-options.h>

#include "builtin.h"
#include "util/debug.h"
#include "util/refcnt/probe.h"
#include "util/refcnt/spec.h"
#include "util/event.h"
#include "util/util.h"

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

static struct refcnt_probes refcnt_probes;

/* Nothing may be left behind, whatever way record ends. */
static void refcnt__uninstall(void)
{
	if (refcnt_probes.nr_installed && refcnt_probes__uninstall(&refcnt_probes))
		pr_err("Could not remove the uprobes of group %s: remove them with 'perf probe -d %s:*'\n",
		       refcnt_probes.group, refcnt_probes.group);
}

/* The workload's executable: as given with a '/', else through PATH. */
static char *refcnt__find_exe(const char *cmd)
{
	char *path, *dir, *saveptr = NULL, buf[PATH_MAX];

	if (strchr(cmd, '/'))
		return realpath(cmd, NULL);

	path = strdup(getenv("PATH") ?: "/usr/bin:/bin");
	for (dir = strtok_r(path, ":", &saveptr); dir; dir = strtok_r(NULL, ":", &saveptr)) {
		snprintf(buf, sizeof(buf), "%s/%s", dir, cmd);
		if (!access(buf, X_OK))
			break;
	}
	free(path);
	return dir ? realpath(buf, NULL) : NULL;
}

static int refcnt__check_uprobes(void)
{
	const char *tracing = tracing_path_mount();
	char path[PATH_MAX];

	if (geteuid() != 0) {
		pr_err("perf refcnt record places uprobes through tracefs, which needs root: run it as root (perf_event_paranoid=%d does not lift this)\n",
		       perf_event_paranoid());
		return -EPERM;
	}
	if (!tracing) {
		pr_err("tracefs is not mounted and cannot be: mount it with 'mount -t tracefs nodev /sys/kernel/tracing'\n");
		return -ENOENT;
	}
	snprintf(path, sizeof(path), "%s/uprobe_events", tracing);
	if (access(path, W_OK)) {
		pr_err("This kernel has no uprobe events (%s): build it with CONFIG_UPROBE_EVENTS=y\n",
		       path);
		return -ENOTSUP;
	}
	return 0;
}

/*
 * A recorder killed by SIGKILL or SIGHUP cannot remove its uprobes, and
 * tracefs keeps them. A guardian process, forked before they are installed,
 * waits until the recorder is gone (its end of a pipe closes, whatever the
 * way it ends) and removes what is left of the group.
 */
static int refcnt__start_guardian(const char *group)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;

	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (pid == 0) {
		char c;

		close(fds[1]);
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		while (read(fds[0], &c, 1) < 0 && errno == EINTR)
			;
		/* the events may still be closing: try for a second */
		for (int i = 0; i < 10; i++) {
			int nr = refcnt_probes__remove_group(group);

			if (nr > 0)
				pr_warning("perf refcnt: removed %d uprobes of group %s left by the recorder\n",
					   nr, group);
			if (nr >= 0)
				break;
			usleep(100000);
		}
		_exit(0);
	}
	close(fds[0]);
	/* fds[1] stays open until this process ends; O_CLOEXEC keeps it from the workload */
	return 0;
}

static void refcnt__print_probes(const struct refcnt_probes *rp)
{
	int inlined = 0, moved = 0;

	for (int i = 0; i < rp->nr; i++) {
		inlined += rp->probes[i].inlined;
		moved += rp->probes[i].moved;
		pr_debug("probe %-22s %-14s %#8" PRIx64 " obj=%s%+ld live@%d %s %s:%d\n",
			 rp->probes[i].event, rp->probes[i].func, rp->probes[i].vaddr,
			 rp->probes[i].obj.reg ?: "$retval", rp->probes[i].obj.offset,
			 rp->probes[i].live_offset, rp->probes[i].in_func ?: "",
			 rp->probes[i].call_file ?: "", rp->probes[i].call_line);
	}
	pr_info("perf refcnt: %d probes on %s (%d on inlined copies, %d of them past the copy's entry)\n",
		rp->nr, rp->exe, inlined, moved);

	/* per function with inlined copies: how many of them are covered */
	for (int i = 0; i < rp->nr + rp->nr_uncovered; i++) {
		const struct refcnt_probe *p = i < rp->nr ? &rp->probes[i] :
					       &rp->uncovered[i - rp->nr];
		int covered = 0, total = 0, first = -1;

		if (!p->inlined)
			continue;
		for (int j = 0; j < rp->nr + rp->nr_uncovered; j++) {
			const struct refcnt_probe *q = j < rp->nr ? &rp->probes[j] :
						       &rp->uncovered[j - rp->nr];

			if (!q->inlined || strcmp(q->func, p->func))
				continue;
			if (first < 0)
				first = j;
			total++;
			covered += j < rp->nr;
		}
		if (first == i)
			pr_info("perf refcnt: %s: %d of %d inlined copies covered\n",
				p->func, covered, total);
	}
	for (int i = 0; i < rp->nr_uncovered; i++) {
		const struct refcnt_probe *u = &rp->uncovered[i];

		pr_warning("perf refcnt: uncovered: %s() inlined in %s() at %s:%d: %s\n",
			   u->func, u->in_func ?: "?", u->call_file ?: "?", u->call_line,
			   u->op == REFCNT_OP__BORN ?
			   "an inlined constructor has no return to probe" :
			   "the object is in no fetchable location");
	}
}

static int refcnt__record(int argc, const char **argv)
{
	const char *output = NULL;
	const char *types = NULL, *exe = NULL, *call_graph = "fp", *pid = NULL;
	const char *mmap_pages = "2048", *max_stack = NULL;
	bool compress = true, count = false;
	const char **rec_argv;
	char group[32], event[48], *exe_path = NULL, bad[64];
	unsigned long type_mask;
	int ret, i = 0;
	const struct option options[] = {
	OPT_STRING('o', "output", &output, "file",
		   "output file name (default: " REFCNT_DEFAULT_OUTPUT ")"),
	OPT_STRING('t', "type", &types, "type[,type...]",
		   "types to audit: dso,map,maps,thread,nsinfo,cpu_map (default: all)"),
	OPT_STRING('x', "exe", &exe, "path",
		   "perf binary to audit (default: the workload's, or /proc/PID/exe)"),
	OPT_STRING('g', "call-graph", &call_graph, "fp|dwarf|no",
		   "user callchain of every operation (default: fp)"),
	OPT_STRING(0, "max-stack", &max_stack, "n", "callchain depth (default: 127)"),
	OPT_STRING('m', "mmap-pages", &mmap_pages, "pages",
		   "ring buffer size (default: 2048)"),
	OPT_BOOLEAN('z', "compress", &compress,
		    "compress the recording with zstd (default: on; --no-compress)"),
	OPT_STRING('p', "pid", &pid, "pid", "record an existing process"),
	OPT_BOOLEAN(0, "count", &count,
		    "only count the hits of every probe with perf stat (CSV to -o, or stderr)"),
	OPT_INCR('v', "verbose", &verbose, "be more verbose"),
	OPT_END()
	};

	argc = parse_options(argc, argv, options, refcnt_record_usage,
			     PARSE_OPT_STOP_AT_NON_OPTION);
	if (!output && !count)
		output = REFCNT_DEFAULT_OUTPUT;

	if (refcnt_type_specs__parse(types, &type_mask, bad, sizeof(bad))) {
		pr_err("Unknown refcount type '%s': use one of dso,map,maps,thread,nsinfo,cpu_map\n",
		       bad);
		return -EINVAL;
	}
	if (!argc && !pid) {
		pr_err("No workload given: use 'perf refcnt record -- <command>' or -p <pid>\n");
		return -EINVAL;
	}
	if (argc && pid) {
		pr_err("Give either a workload or -p <pid>, not both\n");
		return -EINVAL;
	}
	if (strcmp(call_graph, "fp") && strcmp(call_graph, "dwarf") && strcmp(call_graph, "no")) {
		pr_err("Unknown --call-graph '%s': use fp, dwarf or no\n", call_graph);
		return -EINVAL;
	}

	if (pid) {
		char proc[64];

		snprintf(proc, sizeof(proc), "/proc/%s/exe", pid);
		if (kill(atoi(pid), 0) && errno == ESRCH) {
			pr_err("No process with pid %s: give the pid of a running perf\n", pid);
			return -ESRCH;
		}
		exe_path = exe ? realpath(exe, NULL) : realpath(proc, NULL);
	} else {
		exe_path = exe ? realpath(exe, NULL) : refcnt__find_exe(argv[0]);
	}
	if (!exe_path && (exe || pid)) {
		pr_err("Cannot find %s: give the perf binary to audit with -x\n",
		       exe ?: "the process's executable");
		return -ENOENT;
	} else if (!exe_path) {
		pr_err("Cannot find the workload %s in PATH: check the command, or give its path\n",
		       argv[0]);
		return -ENOENT;
	}

	ret = refcnt__check_uprobes();
	if (ret)
		goto out;

	refcnt_probes__remove_stale();

	ret = refcnt_probes__resolve(&refcnt_probes, exe_path, type_mask);
	if (ret)
		goto out;
	refcnt__print_probes(&refcnt_probes);

	snprintf(group, sizeof(group), REFCNT_GROUP_PREFIX "%d", getpid());
	ret = refcnt__start_guardian(group);
	if (ret) {
		pr_err("Cannot start the process that removes the uprobes if perf refcnt is killed: %s\n",
		       strerror(-ret));
		goto out;
	}
	atexit(refcnt__uninstall);
	ret = refcnt_probes__install(&refcnt_probes, group);
	if (ret)
		goto out;

	rec_argv = calloc(argc + 16, sizeof(*rec_argv));
	if (!rec_argv) {
		ret = -ENOMEM;
		goto out;
	}
	snprintf(event, sizeof(event), "%s:*", group);
	rec_argv[i++] = count ? "stat" : "record";
	if (output) {
		rec_argv[i++] = "-o";
		rec_argv[i++] = output;
	}
	rec_argv[i++] = "-e";
	rec_argv[i++] = event;
	if (count) {
		/* one CSV line per probe: the uprobe floor of the bench */
		rec_argv[i++] = "-x";
		rec_argv[i++] = ",";
	} else {
		rec_argv[i++] = "-m";
		rec_argv[i++] = mmap_pages;
	}
	if (compress && !count)
		rec_argv[i++] = "-z";
	if (strcmp(call_graph, "no") && !count) {
		rec_argv[i++] = "--call-graph";
		rec_argv[i++] = call_graph;
		rec_argv[i++] = "--user-callchains";
		if (max_stack) {
			rec_argv[i++] = "--max-stack";
			rec_argv[i++] = max_stack;
		}
	}
	if (pid) {
		rec_argv[i++] = "-p";
		rec_argv[i++] = pid;
	} else {
		rec_argv[i++] = "--";
		for (int j = 0; j < argc; j++)
			rec_argv[i++] = argv[j];
	}

	ret = count ? cmd_stat(i, rec_argv) : cmd_record(i, rec_argv);
	free(rec_argv);
out:
	refcnt__uninstall();
	refcnt_probes__exit(&refcnt_probes);
	free(exe_path);
	return ret;
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
