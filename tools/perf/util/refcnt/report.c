// SPDX-License-Identifier: GPL-2.0
/*
 * perf refcnt report's replay: a recording through perf_session's
 * ordered-events queue into the decoder and the pairing engine, the
 * findings they yield, the balance per site, the history of one object,
 * --fail-on's verdict on them, and their summary by names that perf
 * refcnt diff compares (diff.h). What is shown of them: report_print.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/time64.h>
#include <linux/zalloc.h>

#include "../debug.h"
#include "../event.h"
#include "../hashmap.h"
#include "../machine.h"
#include "../session.h"
#include "../strbuf.h"
#include "../symbol.h"
#include "../thread.h"
#include "decode.h"
#include "diff.h"
#include "findings.h"
#include "hash.h"
#include "layout.h"
#include "pairing.h"
#include "report.h"
#include "scan.h"
#include "scan_file.h"
#include "spec.h"
#include "suppress.h"
#include "symbolize.h"

static void refcnt_report__finding(const struct refcnt_finding *f, void *priv)
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

static const char *refcnt_report__op_name(u8 op)
{
	return op < REFCNT_OP__MAX ? refcnt_op__name(op) : "inherited";
}

static void refcnt_report__step(const struct refcnt_step *st, void *priv)
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
	fprintf(rep->out, " %-4s %3d -> %-3d live %-4s ", refcnt_report__op_name(ev->op),
		st->before, st->after, live);
	refcnt_sym__fprintf_ref(rep->out, &rep->sym, &at);
	if (ev->op == REFCNT_OP__PUT && st->confidence != REFCNT_PAIR__NONE) {
		fprintf(rep->out, "  releases %s at ", refcnt_report__op_name(st->paired.op));
		refcnt_sym__fprintf_ref(rep->out, &rep->sym, &st->paired);
		fprintf(rep->out, " (%s)", refcnt_confidence__name(st->confidence));
	}
	if (st->finding != REFCNT_FINDING__MAX)
		fprintf(rep->out, "  <== %s", refcnt_finding_kind__name(st->finding));
	fputc('\n', rep->out);
}

static int refcnt_report__balance_add(struct refcnt_report *rep, const struct refcnt_event *ev)
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

static int refcnt_report__process_sample(const struct perf_tool *tool,
					 union perf_event *event __maybe_unused,
					 struct perf_sample *sample, struct evsel *evsel,
					 struct machine *machine __maybe_unused)
{
	struct refcnt_report *rep = container_of(tool, struct refcnt_report, tool);
	struct refcnt_event ev;
	struct refcnt_free f;
	int ret;

	rep->samples++;
	ret = rep->decoder.has_frees ? refcnt_decoder__decode_free(&rep->decoder, evsel, sample,
								   &f) : 1;
	if (ret != 1) {
		rep->free_samples++;
		if (ret || rep->no_slots)
			return 0;
		return refcnt_engine__freed(rep->engine, &f) ?: rep->err;
	}
	ret = refcnt_decoder__decode(&rep->decoder, evsel, sample, &ev);
	if (ret == 2 && (rep->type_mask & (1UL << ev.type)))
		refcnt_engine__missed(rep->engine, ev.time, ev.type);
	if (ret)
		return ret < 0 ? ret : 0;
	rep->slot_samples += !!ev.slot_op;
	if (!(rep->type_mask & (1UL << ev.type)) || (ev.slot_op && rep->no_slots))
		return 0;
	if (rep->balance && !ev.slot_op && refcnt_report__balance_add(rep, &ev))
		return -ENOMEM;
	ret = refcnt_engine__event(rep->engine, &ev);
	return ret ?: rep->err;
}

/*
 * An exec starts a new address space: objects in it are new ones, and the
 * image that held the sites of the old one is kept to name them.
 */
static int refcnt_report__process_comm(const struct perf_tool *tool, union perf_event *event,
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
static int refcnt_report__process_exit(const struct perf_tool *tool, union perf_event *event,
				       struct perf_sample *sample, struct machine *machine)
{
	struct refcnt_report *rep = container_of(tool, struct refcnt_report, tool);

	if (refcnt_engine__thread_exit(rep->engine, sample->time, event->fork.tid))
		return -ENOMEM;
	if (event->fork.pid == rep->scan.result.pid && event->fork.tid == event->fork.pid)
		rep->scan_pid_exited = true;
	return perf_event__process_exit(tool, event, sample, machine);
}

static int refcnt_report__process_lost(const struct perf_tool *tool, union perf_event *event,
				       struct perf_sample *sample, struct machine *machine)
{
	struct refcnt_report *rep = container_of(tool, struct refcnt_report, tool);

	rep->lost += event->lost.lost;
	refcnt_engine__lost(rep->engine, sample->time, event->lost.lost);
	return perf_event__process_lost(tool, event, sample, machine);
}

static int refcnt_report__process_lost_samples(const struct perf_tool *tool,
					       union perf_event *event,
					       struct perf_sample *sample,
					       struct machine *machine __maybe_unused)
{
	struct refcnt_report *rep = container_of(tool, struct refcnt_report, tool);

	rep->lost_samples += event->lost_samples.lost;
	refcnt_engine__lost(rep->engine, sample->time, event->lost_samples.lost);
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
static int refcnt_report__process_compressed(struct perf_session *session, union perf_event *event,
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

/* The session's events into the decoder and the engine, as perf report's tool. */
static void refcnt_report__tool_init(struct refcnt_report *rep)
{
	perf_tool__init(&rep->tool, /*ordered_events=*/true);
	rep->tool.sample = refcnt_report__process_sample;
	rep->tool.comm = refcnt_report__process_comm;
	rep->tool.mmap = perf_event__process_mmap;
	rep->tool.mmap2 = perf_event__process_mmap2;
	rep->tool.fork = perf_event__process_fork;
	rep->tool.exit = refcnt_report__process_exit;
	rep->tool.lost = refcnt_report__process_lost;
	rep->tool.lost_samples = refcnt_report__process_lost_samples;
	rep->tool.namespaces = perf_event__process_namespaces;
	if (!perf_tool__compressed_is_stub(&rep->tool)) {
		rep->decompress = rep->tool.compressed;
		rep->tool.compressed = refcnt_report__process_compressed;
	}
}

/*
 * Can @input be read as perf refcnt's, and its scan at exit, if it has
 * one and it is used, in rep->scan; why not in rep->scan_why. Returns 0,
 * or a negative error after saying why the recording cannot be read.
 */
static int refcnt_report__read_scan(struct refcnt_report *rep, const char *input)
{
	char why[160];
	int ret;

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
	return 0;
}

/* The session of @input, and the decoder and the symbolizer of its events. */
static int refcnt_report__open(struct refcnt_report *rep, const char *input)
{
	int ret;

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
	rep->sym.scope_names = rep->decoder.scope_names;
	return 0;
}

/* The events of @input are replayed: the scan at exit, if usable, then the end. */
static int refcnt_report__end(struct refcnt_report *rep, const char *input)
{
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

/* Replay rep->session's events; 0, or an error after saying the recording is damaged. */
static int refcnt_report__process(struct refcnt_report *rep, const char *input)
{
	int ret = perf_session__process_events(rep->session);

	if (ret)
		pr_err("Cannot process %s: %s: the recording is damaged; record it again\n",
		       input, strerror(-ret));
	return ret;
}

/*
 * The first replay of @input: an engine fed every event, for the exact
 * pairs of the whole recording (pair_model.h), in *teacher. Nothing is
 * counted nor reported. Returns 0, or a negative error after saying why.
 */
static int refcnt_report__learn(const struct refcnt_report *rep, const char *input,
				struct refcnt_engine **teacher)
{
	struct refcnt_report pass = {
		.type_mask = rep->type_mask, .no_scan = true, .no_slots = rep->no_slots,
	};
	int ret;

	refcnt_report__tool_init(&pass);
	/* what perf warns of the events, the second replay says */
	pass.tool.no_warn = true;
	ret = refcnt_report__open(&pass, input);
	if (!ret) {
		pass.engine = refcnt_engine__new(NULL, &pass);
		ret = pass.engine ? refcnt_report__process(&pass, input) : -ENOMEM;
	}
	if (!ret) {
		*teacher = pass.engine;
		pass.engine = NULL;
	}
	refcnt_report__exit(&pass);
	return ret;
}

/*
 * Replay @input through the ordered-events queue into the decoder and the
 * pairing engine, following the object at @follow (0: none). The findings
 * are in rep->findings when it returns 0.
 */
int refcnt_report__replay(struct refcnt_report *rep, const char *input, u64 follow)
{
	static const struct refcnt_engine_ops ops = {
		.finding = refcnt_report__finding,
		.step = refcnt_report__step,
	};
	struct refcnt_engine *teacher = NULL;
	int ret;

	refcnt_report__tool_init(rep);
	ret = refcnt_report__read_scan(rep, input);
	if (!ret)
		ret = refcnt_report__open(rep, input);
	if (ret)
		return ret;

	ret = refcnt_report__learn(rep, input, &teacher);
	if (ret)
		return ret;
	rep->engine = refcnt_engine__new(&ops, rep);
	if (rep->engine)
		refcnt_engine__learn_from(rep->engine, teacher);
	refcnt_engine__delete(teacher);
	if (!rep->engine || (follow && refcnt_engine__follow(rep->engine, follow)))
		return -ENOMEM;
	/* the free() events, evidence of a holder freed without its puts */
	if (rep->decoder.has_frees && !rep->no_slots && refcnt_engine__follow_frees(rep->engine))
		return -ENOMEM;

	ret = refcnt_report__process(rep, input);
	if (ret)
		return ret;
	return refcnt_report__end(rep, input);
}

/* --suppressions: read rep->suppressions_path; 0, or an error after saying why. */
int refcnt_report__read_suppressions(struct refcnt_report *rep)
{
	int line, ret;

	ret = refcnt_suppressions__read(&rep->suppressions, rep->suppressions_path, &line);
	if (ret == -EINVAL) {
		pr_err("%s:%d: not a suppression: write KIND:PATTERN, e.g. leak:thread__find_map\n",
		       rep->suppressions_path, line);
	} else if (ret) {
		pr_err("Cannot read suppressions %s: %s\n", rep->suppressions_path,
		       strerror(-ret));
	}
	if (ret)
		refcnt_suppressions__exit(&rep->suppressions);
	return ret;
}

/* --balance: count the gets and puts of every site as the replay goes. */
int refcnt_report__count_balance(struct refcnt_report *rep)
{
	int err;

	rep->balance = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
	if (!IS_ERR(rep->balance))
		return 0;
	err = PTR_ERR(rep->balance);
	rep->balance = NULL;
	return err;
}

/*
 * The functions of callchain @stack in @f, @site's function when the
 * callchain has none: the number of them.
 */
u32 refcnt_report__stack_funcs(const struct refcnt_report *rep, const struct refcnt_ref *site,
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
int refcnt_report__suppress(struct refcnt_report *rep)
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

			nr = refcnt_report__stack_funcs(rep, &g->ref, stack, f);
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

/* Why findings are uncertain, as far as the report knows: ", " separated, in @buf */
void refcnt_report__uncertain_why(const struct refcnt_report *rep, char *buf, size_t size)
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
	if (st->uses_unkept)
		n += scnprintf(buf + n, size - n, ", %" PRIu64 " %s", st->uses_unkept,
			       "uses after put of one object from too many places to keep");
	if (n)
		memmove(buf, buf + 2, n - 1);
	else
		scnprintf(buf, size, "events the recording missed");
}

/*
 * --fail-on found, of its kinds, no certain row but @nr uncertain ones, of
 * @kinds: say why they stop the gate and what to do, in one line.
 */
void refcnt_report__warn_uncertain(const char *what, u32 nr, u32 kinds, const char *why)
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
int refcnt_report__fail_on(const struct refcnt_report *rep, u32 kinds, bool fail_uncertain)
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
	refcnt_report__uncertain_why(rep, why, sizeof(why));
	refcnt_report__warn_uncertain("remain", uncertain, uncertain_kinds, why);
	return REFCNT_EXIT_UNCERTAIN;
}

/* What the findings could not see, said last, whatever the output. */
void refcnt_report__warn_missed(const struct refcnt_report *rep)
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

void refcnt_report__exit(struct refcnt_report *rep)
{
	refcnt_hashmap__free_values(rep->balance);
	rep->balance = NULL;
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

void refcnt_report__print_history_header(FILE *fp, u64 addr)
{
	fprintf(fp, "# history of the object at %#" PRIx64 "\n", addr);
	fprintf(fp, "# %19s %7s/%-7s %7s %-4s %-9s %-9s %s\n", "time", "pid", "tid", "gen",
		"op", "refs", "live", "site");
}

/* The TUI's timeline of one object: a second replay that follows it. */
char *refcnt_report__history_text(void *priv, u64 obj)
{
	const struct refcnt_report *rep = priv;
	struct refcnt_report h = {
		.type_mask = rep->type_mask, .no_scan = rep->no_scan, .no_slots = rep->no_slots,
	};
	char *text = NULL;
	size_t size;
	int ret;

	h.out = open_memstream(&text, &size);
	if (!h.out)
		return NULL;
	refcnt_report__print_history_header(h.out, obj);
	ret = refcnt_findings__init(&h.findings, NULL);
	if (!ret)
		ret = refcnt_report__replay(&h, rep->data.path, obj);
	refcnt_report__exit(&h);
	fclose(h.out);
	if (ret)
		zfree(&text);
	return text;
}

/* The folded callchain of @stack, outermost first, in @chain. */
static int refcnt_report__fold_stack(const struct refcnt_report *rep, const struct refcnt_ref *site,
				     u32 stack, struct refcnt_funcs *f, struct strbuf *chain)
{
	u32 nr = refcnt_report__stack_funcs(rep, site, stack, f);
	int err = strbuf_setlen(chain, 0);

	while (nr-- && !err) {
		err = strbuf_addstr(chain, f->names[nr]);
		if (nr && !err)
			err = strbuf_addch(chain, ';');
	}
	return err;
}

/*
 * A use after put by the put that freed the object (its row's other put):
 * the use is where it shows, the put is what the fix changes, as ASan's
 * use after free names the free. Keyed by its uses, one early put would
 * be a new row per function that happened to use the object next.
 */
static int refcnt_report__summarize_freed(const struct refcnt_report *rep,
					  const struct refcnt_group *g, struct refcnt_funcs *f,
					  struct strbuf *chain, struct refcnt_summary *s)
{
	char site[REFCNT_FUNC_SZ];

	if (!g->refs)	/* all its uses suppressed */
		return 0;
	refcnt_sym__ref_func(&rep->sym, &g->other, site, sizeof(site));
	return refcnt_report__fold_stack(rep, &g->other, g->other.stack, f, chain) ?:
	       refcnt_summary__add_finding(s, g->kind, g->type, g->uncertain, site, chain->buf,
					   g->refs);
}

/*
 * A replayed recording by names: its findings per kind, type, site function
 * and folded callchain, and its balance per type and function.
 */
static int refcnt_report__to_summary(const struct refcnt_report *rep, struct refcnt_summary *s)
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

		if (g->kind == REFCNT_FINDING__USE_AFTER_PUT && g->has_other) {
			err = refcnt_report__summarize_freed(rep, g, f, &chain, s);
			if (err)
				goto out;
			continue;
		}
		refcnt_sym__row_func(&rep->sym, &g->ref, g->why, site, sizeof(site));
		if (!g->stacks) {
			err = g->refs ? refcnt_summary__add_finding(s, g->kind, g->type,
					g->uncertain, site, "", g->refs) : 0;
			if (err)
				goto out;
			continue;
		}
		hashmap__for_each_entry(g->stacks, scur, sbkt) {
			err = refcnt_report__fold_stack(rep, &g->ref, scur->key, f, &chain) ?:
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
int refcnt_report__summarize(const char *input, unsigned long type_mask, bool no_scan,
			     struct refcnt_summary *s, char *why, size_t why_size)
{
	struct refcnt_report rep = { .out = stdout, .type_mask = type_mask, .no_scan = no_scan };
	int ret;

	ret = refcnt_summary__init(s);
	if (!ret)
		ret = refcnt_findings__init(&rep.findings, NULL);
	if (ret)
		return ret;
	ret = refcnt_report__count_balance(&rep);
	if (!ret)
		ret = refcnt_report__replay(&rep, input, 0);
	if (!ret)
		ret = refcnt_report__to_summary(&rep, s);
	if (!ret) {
		refcnt_report__warn_missed(&rep);
		refcnt_report__uncertain_why(&rep, why, why_size);
	}
	refcnt_report__exit(&rep);
	return ret;
}
