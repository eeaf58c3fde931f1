/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_REPORT_H
#define __PERF_REFCNT_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "../data.h"
#include "../tool.h"
#include "decode.h"
#include "findings.h"
#include "scan.h"
#include "suppress.h"
#include "symbolize.h"

/*
 * perf refcnt report: a recording replayed in timestamp order through the
 * decoder (decode.h) into the pairing engine (pairing.h), its findings
 * grouped (findings.h), and what is shown of them. report.c replays,
 * report_print.c prints (--stdio, -x, --folded, --balance) and hands the
 * findings to the TUI.
 */
struct hashmap;
struct perf_session;
struct refcnt_engine;
struct refcnt_ref;
struct refcnt_summary;

/* perf refcnt report --fail-on: a finding of those kinds remains (LSan's exitcode) */
#define REFCNT_EXIT_FINDINGS	23
/* --fail-on: none certain, but uncertain ones remain: the recording could not be judged */
#define REFCNT_EXIT_UNCERTAIN	24
/* the frames of a finding's callchain --stdio shows without -g */
#define REFCNT_STDIO_FRAMES	5

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
	bool			no_slots;	/* --no-slots: leave the slot events out */
	bool			scan_pid_exited; /* the scanned process's exit is recorded */
	bool			full_callchain;
	bool			quiet;
	int			err;
	u64			samples;
	u64			slot_samples;	/* of them, slot events (slot_code.h) */
	u64			free_samples;	/* of them, free() events (heap_free.h) */
	u64			lost;
	u64			lost_samples;
};

/* --balance: the gets and puts of a site on objects of a type */
struct refcnt_balance {
	u64	site;
	u64	space;		/* of its first event: to name the site */
	u8	type;
	u64	gets;
	u64	puts;
};

#define REFCNT_MAX_FRAMES	128
#define REFCNT_FUNC_SZ		128

/* The functions of a callchain's frames, innermost first (17 KiB: allocate it). */
struct refcnt_funcs {
	const char	*names[REFCNT_MAX_FRAMES];
	char		buf[REFCNT_MAX_FRAMES][REFCNT_FUNC_SZ];
};

/* report.c: the replay */

/*
 * Replay @input through the ordered-events queue into the decoder and the
 * pairing engine, following the object at @follow (0: none) with a line
 * per operation on rep->out. The findings are in rep->findings when it
 * returns 0; else it said with pr_err why the recording cannot be read.
 */
int refcnt_report__replay(struct refcnt_report *rep, const char *input, u64 follow);
/* --suppressions: read rep->suppressions_path; 0, or an error after saying why. */
int refcnt_report__read_suppressions(struct refcnt_report *rep);
/* --balance: count the gets and puts of every site as the replay goes. */
int refcnt_report__count_balance(struct refcnt_report *rep);
void refcnt_report__exit(struct refcnt_report *rep);

/*
 * The functions of callchain @stack in @f, @site's function when the
 * callchain has none: the number of them.
 */
u32 refcnt_report__stack_funcs(const struct refcnt_report *rep, const struct refcnt_ref *site,
			       u32 stack, struct refcnt_funcs *f);
/* Hide what the suppressions match, callchain by callchain of each row. */
int refcnt_report__suppress(struct refcnt_report *rep);

/*
 * --fail-on's status: REFCNT_EXIT_FINDINGS if a certain finding of @kinds
 * remains, else REFCNT_EXIT_UNCERTAIN if an uncertain one does and
 * @fail_uncertain, saying why; 0 otherwise.
 */
int refcnt_report__fail_on(const struct refcnt_report *rep, u32 kinds, bool fail_uncertain);
/* Why findings are uncertain, as far as the report knows: ", " separated, in @buf */
void refcnt_report__uncertain_why(const struct refcnt_report *rep, char *buf, size_t size);
/*
 * --fail-on found, of its kinds, no certain row but @nr uncertain ones, of
 * @kinds: say why they stop the gate and what to do, in one line.
 */
void refcnt_report__warn_uncertain(const char *what, u32 nr, u32 kinds, const char *why);
/* What the findings could not see, said last, whatever the output. */
void refcnt_report__warn_missed(const struct refcnt_report *rep);

/* --history: the header of the lines of the object at @addr */
void refcnt_report__print_history_header(FILE *fp, u64 addr);
/* The TUI's timeline of one object: a second replay that follows it. */
char *refcnt_report__history_text(void *priv, u64 obj);

/*
 * perf refcnt diff's side: replay @input and summarize it by names in @s
 * (diff.h); why its uncertain rows are in @why.
 */
int refcnt_report__summarize(const char *input, unsigned long type_mask, bool no_scan,
			     struct refcnt_summary *s, char *why, size_t why_size);

/* report_print.c: what is shown */

/* --stdio: the totals, what the scan did, what the findings could not see */
void refcnt_report__print_header(struct refcnt_report *rep, const char *input);
/* --stdio: the table the TUI browses, then the other puts of its rows */
int refcnt_report__print_findings(struct refcnt_report *rep);
/* --gen-suppressions: a suppression line per bug row shown */
void refcnt_report__print_gen_suppressions(const struct refcnt_report *rep);
/* -x: one line per group, fields separated by @sep */
void refcnt_report__print_findings_sep(struct refcnt_report *rep, const char *sep);
/* --folded: the callchains of the findings of @kinds (a mask of 1 << kind) */
int refcnt_report__print_folded(const struct refcnt_report *rep, u32 kinds);
/* --balance: gets, puts and net per call site */
int refcnt_report__print_balance(struct refcnt_report *rep);
/* The TUI: the findings in perf's hists browser. */
int refcnt_report__browse(struct refcnt_report *rep);
/* -x: @s as one field (refcnt_field__escape()), then @end */
void refcnt_field__print(const char *s, const char *sep, const char *end);

#endif /* __PERF_REFCNT_REPORT_H */
