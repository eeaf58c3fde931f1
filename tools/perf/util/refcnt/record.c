// SPDX-License-Identifier: GPL-2.0
/*
 * perf refcnt record's glue: the perf binary to audit, its uprobes placed
 * and handed to the guardian, perf record run on the workload, the scan
 * at exit kept in the recording, and nothing left registered at the end.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kernel.h>
#include <api/fs/tracing_path.h>

#include "../../builtin.h"
#include "../debug.h"
#include "../event.h"
#include "../evlist.h"
#include "../util.h"
#include "exit_scan.h"
#include "guardian.h"
#include "pin.h"
#include "probe.h"
#include "record.h"
#include "scan.h"
#include "scan_file.h"
#include "slot_code.h"
#include "spec.h"

/* record lists this many uncovered sites, -v all of them */
#define REFCNT_UNCOVERED_SHOWN	10
/*
 * The most arguments record passes to perf record before the workload's:
 * record -o F -e E --filter F -e S --filter F -e H --filter F -e U -m N
 * --clockid monotonic -z --call-graph G --user-callchains, then -p PID or
 * -- (perf stat's are fewer).
 */
#define REFCNT_RECORD_MAX_ARGS	29

static struct refcnt_probes refcnt_probes;
/* keep the breakpoints in forked children: see util/refcnt/pin.h */
static struct evlist *refcnt_pins;

/* the recorder: atexit() handlers also run in a forked child that exits */
static pid_t refcnt_recorder;
/* removes the uprobes if the recorder is killed, ends them if not */
static struct refcnt_guardian refcnt_guardian = { .sock = -1 };

/* Nothing may be left behind, whatever way record ends. */
static void refcnt_record__uninstall(void)
{
	/*
	 * perf record's workload child exits without exec'ing the workload
	 * if it cannot: the uprobes are the recorder's, which still runs
	 */
	if (refcnt_recorder && getpid() != refcnt_recorder)
		return;
	/* an open event keeps its uprobe event from being removed */
	evlist__delete(refcnt_pins);
	refcnt_pins = NULL;
	/* the guardian holds them: it closes them and removes the uprobes */
	if (refcnt_guardian__end(&refcnt_guardian))
		return;
	if (refcnt_probes.nr_installed && refcnt_probes__uninstall(&refcnt_probes))
		pr_err("Could not remove the uprobes of group %s: remove them with 'perf probe -d %s:*'\n",
		       refcnt_probes.group, refcnt_probes.group);
}

/* The workload's executable: as given with a '/', else through PATH. */
static char *refcnt_record__find_exe(const char *cmd)
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

static int refcnt_record__check_uprobes(void)
{
	char *path;
	int ret = 0;

	if (geteuid() != 0) {
		pr_err("perf refcnt record places uprobes through tracefs, which needs root: run it as root (perf_event_paranoid=%d does not lift this)\n",
		       perf_event_paranoid());
		return -EPERM;
	}
	if (!tracing_path_mount()) {
		pr_err("tracefs is not mounted and cannot be: mount it with 'mount -t tracefs nodev /sys/kernel/tracing'\n");
		return -ENOENT;
	}
	path = get_tracing_file("uprobe_events");
	if (!path)
		return -ENOMEM;
	if (access(path, W_OK)) {
		pr_err("This kernel has no uprobe events (%s): build it with CONFIG_UPROBE_EVENTS=y\n",
		       path);
		ret = -ENOTSUP;
	}
	put_tracing_file(path);
	return ret;
}

/*
 * Let the guardian hold the pins too, so that no close of ours or of perf
 * record's is the last one, which waits for a grace period (guardian.h).
 */
static void refcnt_record__hand_pins(struct evlist *pins, int nr)
{
	int *fds = calloc(nr ?: 1, sizeof(*fds));

	if (fds)
		refcnt_guardian__hold(&refcnt_guardian, fds, refcnt_pins__fds(pins, fds, nr));
	free(fds);
}

/* How many inlined copies of spec function @fn are probed; probes name @fn by pointer. */
static void refcnt_record__print_inline_coverage(const struct refcnt_probes *rp, const char *fn)
{
	int covered = 0, uncovered = 0;

	for (int i = 0; i < rp->nr; i++)
		covered += rp->probes[i].inlined && rp->probes[i].func == fn;
	for (int i = 0; i < rp->nr_uncovered; i++)
		uncovered += rp->uncovered[i].func == fn;
	if (covered + uncovered)
		pr_info("perf refcnt: %s: %d of %d inlined copies covered\n",
			fn, covered, covered + uncovered);
}

static void refcnt_record__print_probes(const struct refcnt_probes *rp, const char *uncover)
{
	int inlined = 0, moved = 0, on_branch = 0, past_null = 0, nop5;

	for (int i = 0; i < rp->nr; i++) {
		inlined += rp->probes[i].inlined;
		moved += rp->probes[i].moved;
		pr_debug("probe %-22s %-14s %#8" PRIx64 " off=%#" PRIx64
			 " obj=%s%+ld live@%d %s %s:%d\n",
			 rp->probes[i].event, rp->probes[i].func, rp->probes[i].vaddr,
			 rp->probes[i].offset,
			 rp->probes[i].obj.reg ?: "$retval", rp->probes[i].obj.offset,
			 rp->probes[i].live_offset, rp->probes[i].in_func ?: "",
			 rp->probes[i].call_file ?: "", rp->probes[i].call_line);
	}
	pr_info("perf refcnt: %d probes on %s (%d on inlined copies, %d of them past the copy's entry)\n",
		rp->nr, rp->exe, inlined, moved);
	for (int i = 0; i < rp->nr; i++) {
		on_branch += rp->probes[i].on_branch;
		past_null += rp->probes[i].past_null;
	}
	if (on_branch)
		pr_info("perf refcnt: %d inlined gets probed on the jump after their first instruction: the kernel emulates it, no single step\n",
			on_branch);
	if (past_null)
		pr_info("perf refcnt: %d gets and puts probed past their NULL check: none traps on NULL\n",
			past_null);
	if (rp->want_slots && !rp->nr_slots)
		pr_warning("perf refcnt: --slots found no slot: it reads x86-64 code with capstone; build perf with libcapstone-dev\n");
	if (rp->nr_slots) {
		int loads = 0, lookups = 0, deferred = 0, copies = 0, params = 0;

		for (int i = 0; i < rp->nr_slots; i++) {
			const struct refcnt_probe *p = &rp->slots[i];

			loads += p->slot.op == REFCNT_SLOT__LOAD;
			copies += p->slot.op == REFCNT_SLOT__COPY;
			params += p->slot.op == REFCNT_SLOT__PARAM;
			lookups += p->slot.op == REFCNT_SLOT__STORE && !p->func;
			deferred += p->slot.op == REFCNT_SLOT__STORE && p->slot.emulated;
		}
		pr_info("perf refcnt: %d slots probed where a call's reference is stored (%d) or loaded (%d): a put pairs with what was stored where it loaded from\n",
			rp->nr_slots - copies - params, rp->nr_slots - loads - copies - params,
			loads);
		pr_info("perf refcnt: %d of the stores follow a lookup's call; %d are probed on the call or jump after them: no single step\n",
			lookups, deferred);
		pr_info("perf refcnt: %d more where an inlined setter, or a local kept across calls, stores a pointer read from a struct, with no get\n",
			copies);
		pr_info("perf refcnt: %d more where a setter out of line stores the pointer it was passed\n",
			params);
	}
	if (rp->heap.lib)
		pr_info("perf refcnt: free() probed in %s: a block freed with a leak's address in it names the teardown\n",
			rp->heap.lib);
	nop5 = refcnt_probes__count_nop5(rp);
	if (nop5 >= 0)
		pr_info("perf refcnt: %d of them sit on a 5-byte nop (the kernel may run those without a trap), %d trap\n",
			nop5, rp->nr - nop5);

	/* per spec function with inlined copies: how many of them are covered */
	for (unsigned int t = 0; t < refcnt_type_specs__nr; t++) {
		for (int op = 0; op < REFCNT_OP__MAX; op++) {
			for (int f = 0; f < REFCNT_SPEC__MAX_FUNCS; f++) {
				const char *fn = refcnt_type_specs[t].funcs[op][f];

				if (!fn)
					break;
				refcnt_record__print_inline_coverage(rp, fn);
			}
		}
	}
	for (int i = 0; i < rp->nr; i++) {
		const struct refcnt_probe *p = &rp->probes[i];

		if (p->op == REFCNT_OP__BORN && p->moved)
			pr_info("perf refcnt: %s() inlined in %s(): probed at the return of %s()\n",
				p->func, p->in_func, p->in_func);
	}
	for (int i = 0; i < rp->nr_uncovered; i++) {
		const struct refcnt_probe *u = &rp->uncovered[i];

		if (i == REFCNT_UNCOVERED_SHOWN && !verbose) {
			pr_warning("perf refcnt: uncovered: %d more, -v lists them\n",
				   rp->nr_uncovered - i);
			break;
		}
		pr_warning("perf refcnt: uncovered: %s() inlined in %s() at %s:%d: %s%s\n",
			   u->func, u->in_func ?: "?", u->call_file ?: "?", u->call_line,
			   uncover && strstr(uncover, u->func) ? "--uncover" :
			   u->op == REFCNT_OP__BORN ?
			   "an inlined constructor has no return to probe" :
			   "the object is in no fetchable location",
			   u->has_offset ? " (its hits are recorded)" : "");
	}
}

/* Take the helper's scan at exit into the recording, and say what it did. */
static void refcnt_record__scan(struct refcnt_exit_scan *es, const char *output)
{
	struct refcnt_scan scan;
	const struct refcnt_scan_result *r = &scan.result;
	int err = refcnt_exit_scan__finish(es, &scan);

	if (!err && r->status == REFCNT_SCAN__DONE) {
		pr_info("perf refcnt: scan at exit of pid %u: %.1f MiB read in %.3f s, %" PRIu64
			" blocks in use, %" PRIu64 " reachable, %u objects of the audited types\n",
			r->pid, r->bytes / 1048576.0, r->ns / 1e9, r->blocks, r->reached,
			r->nr_objects);
		if (r->partial)
			pr_warning("perf refcnt: the scan at exit is partial (%s): the leaks it tells are marked uncertain\n",
				   refcnt_scan_partial__names(r->partial));
	} else if (!err)
		pr_warning("perf refcnt: no scan at exit: %s: leaks will be the references outstanding at exit\n",
			   refcnt_scan_status__name(r->status));
	if (!err && output)
		err = refcnt_scan__append(output, &scan);
	if (err)
		pr_warning("perf refcnt: the scan at exit could not be kept in %s: %s\n",
			   output, strerror(-err));
	refcnt_scan__exit(&scan);
}

/*
 * The perf binary to audit: -x's, else the process's with -p, else the
 * workload's, @argv[0]. Returns 0 with its path in @exe_path, or a
 * negative error after saying why there is none.
 */
static int refcnt_record__exe(const struct refcnt_record_opts *opts, const char **argv,
			      char **exe_path)
{
	const char *exe = opts->exe, *pid = opts->pid;

	if (pid) {
		char proc[64];

		snprintf(proc, sizeof(proc), "/proc/%s/exe", pid);
		if (kill(atoi(pid), 0) && errno == ESRCH) {
			pr_err("No process with pid %s: give the pid of a running perf\n", pid);
			return -ESRCH;
		}
		*exe_path = exe ? realpath(exe, NULL) : realpath(proc, NULL);
	} else {
		*exe_path = exe ? realpath(exe, NULL) : refcnt_record__find_exe(argv[0]);
	}
	if (!*exe_path && (exe || pid)) {
		pr_err("Cannot find %s: give the perf binary to audit with -x\n",
		       exe ?: "the process's executable");
		return -ENOENT;
	} else if (!*exe_path) {
		pr_err("Cannot find the workload %s in PATH: check the command, or give its path\n",
		       argv[0]);
		return -ENOENT;
	}
	return 0;
}

/*
 * Place the uprobes of @opts' types on @exe_path, saying what they cover,
 * in the tracefs group written in @group, with the guardian that removes
 * them started first.
 */
static int refcnt_record__install(const struct refcnt_record_opts *opts, const char *exe_path,
				  char *group, size_t size)
{
	int ret = refcnt_record__check_uprobes();

	if (ret)
		return ret;

	refcnt_probes__remove_stale();

	refcnt_probes.want_slots = opts->slots;
	ret = refcnt_probes__resolve(&refcnt_probes, exe_path, opts->type_mask, opts->uncover,
				     opts->at_entry);
	if (ret)
		return ret;
	refcnt_record__print_probes(&refcnt_probes, opts->uncover);
	for (unsigned int t = 0; t < refcnt_type_specs__nr; t++) {
		const struct refcnt_scan_type *st = &refcnt_probes.scan_types[t];

		pr_debug("scan: %s: %u bytes, refcount at %d, flexible array of %u-byte elements, length at %d, %u arrays, length at %u of %u\n",
			 refcnt_type_specs[t].name, st->size, st->refcnt_offset, st->elem_size,
			 st->nr_offset, st->nr_arrays, st->array_nr_offset, st->array_alloc_offset);
	}

	snprintf(group, size, REFCNT_GROUP_PREFIX "%d", getpid());
	ret = refcnt_guardian__start(&refcnt_guardian, group);
	if (ret) {
		pr_err("Cannot start the process that removes the uprobes if perf refcnt is killed: %s\n",
		       strerror(-ret));
		return ret;
	}
	refcnt_recorder = getpid();
	atexit(refcnt_record__uninstall);
	return refcnt_probes__install(&refcnt_probes, group);
}

/* The uncovered copies probed: those whose offset could be found. */
static int refcnt_record__nr_uncovered_installed(const struct refcnt_probes *rp)
{
	int nr = 0;

	for (int i = 0; i < rp->nr_uncovered; i++)
		nr += rp->uncovered[i].has_offset;
	return nr;
}

/* The slot probes placed that load (@loads), or that store or copy. */
static int refcnt_record__nr_slots(const struct refcnt_probes *rp, bool loads)
{
	int nr = 0;

	for (int i = 0; i < rp->nr_slots; i++)
		nr += (rp->slots[i].slot.op == REFCNT_SLOT__LOAD) == loads;
	return nr;
}

/* The perf record (or perf stat) command line record runs. */
struct refcnt_record_cmd {
	const char	**argv;
	int		argc;
	char		event[48];		/* the uprobe events, "group:*" */
	char		covered[48];		/* those that fetch the object */
	char		uncovered[48];		/* those that cannot */
	char		slots[64];		/* the stores' and copies' (slot_code.h) */
	char		loads[64];		/* the loads' */
	char		frees[64];		/* free()'s (heap_probe.h) */
	char		call_graph_fp[32];	/* -g fp with --max-stack: "fp,<n>" */
};

/* perf record's --call-graph: an fp callchain's depth goes as "fp,<n>" */
static const char *refcnt_record__call_graph(struct refcnt_record_cmd *cmd,
					     const struct refcnt_record_opts *opts)
{
	if (strcmp(opts->call_graph, "fp"))
		return opts->call_graph;
	if (opts->max_stack)
		snprintf(cmd->call_graph_fp, sizeof(cmd->call_graph_fp), "fp,%s",
			 opts->max_stack);
	else
		snprintf(cmd->call_graph_fp, sizeof(cmd->call_graph_fp), "fp,%d",
			 min(REFCNT_MAX_STACK, sysctl__max_stack()));
	return cmd->call_graph_fp;
}

/* perf record's arguments, then -p's or the workload's, @argc of @argv. */
static void refcnt_record__cmd_args(struct refcnt_record_cmd *cmd,
				    const struct refcnt_record_opts *opts,
				    int argc, const char **argv)
{
	const char **rec_argv = cmd->argv;
	int i = 0;

	rec_argv[i++] = opts->count ? "stat" : "record";
	if (opts->output) {
		rec_argv[i++] = "-o";
		rec_argv[i++] = opts->output;
	}
	/*
	 * perf puts NULL as freely as free() takes it, four puts in ten in
	 * perf report: the kernel's tracepoint filter drops them before a
	 * sample, and its callchain, is made. perf stat counts the same.
	 */
	if (refcnt_probes.nr) {
		rec_argv[i++] = "-e";
		rec_argv[i++] = cmd->covered;
		rec_argv[i++] = "--filter";
		rec_argv[i++] = "obj != 0";
	}
	/* a load of NULL says the word holds no reference any more: kept */
	if (refcnt_record__nr_slots(&refcnt_probes, true)) {
		rec_argv[i++] = "-e";
		rec_argv[i++] = cmd->loads;
	}
	if (refcnt_record__nr_slots(&refcnt_probes, false)) {
		rec_argv[i++] = "-e";
		rec_argv[i++] = cmd->slots;
		rec_argv[i++] = "--filter";
		rec_argv[i++] = "obj != 0";
	}
	if (refcnt_probes.heap.lib) {
		rec_argv[i++] = "-e";
		rec_argv[i++] = cmd->frees;
		rec_argv[i++] = "--filter";
		rec_argv[i++] = "block != 0";
	}
	if (refcnt_record__nr_uncovered_installed(&refcnt_probes)) {
		rec_argv[i++] = "-e";
		rec_argv[i++] = cmd->uncovered;
	}
	if (opts->count) {
		/* one CSV line per probe: the uprobe floor of the bench */
		rec_argv[i++] = "-x";
		rec_argv[i++] = ",";
	} else {
		rec_argv[i++] = "-m";
		rec_argv[i++] = opts->mmap_pages;
		/*
		 * One clock for all CPUs: perf's default local_clock can be
		 * skewed between CPUs by more than the time between a put on
		 * one thread and a get on another, and pairing follows order.
		 */
		rec_argv[i++] = "--clockid";
		rec_argv[i++] = "monotonic";
	}
	if (opts->compress && !opts->count)
		rec_argv[i++] = "-z";
	if (strcmp(opts->call_graph, "no") && !opts->count) {
		rec_argv[i++] = "--call-graph";
		rec_argv[i++] = refcnt_record__call_graph(cmd, opts);
		rec_argv[i++] = "--user-callchains";
	}
	if (opts->pid) {
		rec_argv[i++] = "-p";
		rec_argv[i++] = opts->pid;
	} else {
		rec_argv[i++] = "--";
		for (int j = 0; j < argc; j++)
			rec_argv[i++] = argv[j];
	}
	cmd->argc = i;
}

/*
 * Run perf record (or perf stat) on the workload with the uprobes of
 * @group placed, the scan at exit's helper started and the pins handed
 * to the guardian; keep the scan in the recording.
 */
static int refcnt_record__workload(const struct refcnt_record_opts *opts, const char *group,
				   int argc, const char **argv)
{
	struct refcnt_exit_scan exit_scan = { .helper = -1 };
	struct refcnt_record_cmd cmd;
	int ret;

	/* perf record's arguments and the workload's, and the terminating NULL */
	cmd.argv = calloc(REFCNT_RECORD_MAX_ARGS + argc + 1, sizeof(*cmd.argv));
	if (!cmd.argv)
		return -ENOMEM;
	snprintf(cmd.event, sizeof(cmd.event), "%s:*", group);
	/* probes end in their number, uncovered copies in their address */
	snprintf(cmd.covered, sizeof(cmd.covered), "%s:*__[0-9]*", group);
	snprintf(cmd.uncovered, sizeof(cmd.uncovered), "%s:*__" REFCNT_UNCOVERED_PREFIX "*",
		 group);
	/* a slot event needs no callchain: it is joined to the operation next to it */
	snprintf(cmd.slots, sizeof(cmd.slots), "%s:*" REFCNT_SLOT_SUFFIX "__[" REFCNT_STORE_PREFIX
		 REFCNT_COPY_PREFIX REFCNT_PARAM_PREFIX "]*/call-graph=no/", group);
	snprintf(cmd.loads, sizeof(cmd.loads),
		 "%s:*" REFCNT_SLOT_SUFFIX "__" REFCNT_LOAD_PREFIX "*/call-graph=no/", group);
	/* nor a free(): it fetches its two return addresses */
	snprintf(cmd.frees, sizeof(cmd.frees), "%s:" REFCNT_FREE_EVENT "/call-graph=no/", group);
	/* before the pins are open: the helper must not hold them */
	if (opts->scan && !opts->count)
		refcnt_exit_scan__start(&exit_scan, opts->pid ? atoi(opts->pid) : 0,
					refcnt_guardian.pid, refcnt_probes.scan_types);
	refcnt_pins = refcnt_pins__open(cmd.event);
	refcnt_record__hand_pins(refcnt_pins, refcnt_pins ? refcnt_pins->core.nr_entries : 0);

	refcnt_record__cmd_args(&cmd, opts, argc, argv);
	ret = opts->count ? cmd_stat(cmd.argc, cmd.argv) : cmd_record(cmd.argc, cmd.argv);
	free(cmd.argv);
	/*
	 * perf record returns the workload's exit status: a command that
	 * fails, or dies, is scanned all the same, its status in the scan
	 */
	if (exit_scan.helper > 0)
		refcnt_record__scan(&exit_scan, ret < 0 ? NULL : opts->output);
	return ret;
}

int refcnt_record__run(const struct refcnt_record_opts *opts, int argc, const char **argv)
{
	char group[32], *exe_path = NULL;
	int ret = refcnt_record__exe(opts, argv, &exe_path);

	if (ret)
		return ret;
	ret = refcnt_record__install(opts, exe_path, group, sizeof(group));
	if (!ret)
		ret = refcnt_record__workload(opts, group, argc, argv);
	refcnt_record__uninstall();
	refcnt_probes__exit(&refcnt_probes);
	free(exe_path);
	return ret;
}
