/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_TESTS_REFCNT_STREAM_H
#define __PERF_TESTS_REFCNT_STREAM_H

/*
 * Synthetic event streams for the pairing engine's unit cases
 * (tests/refcnt-pairing.c, tests/refcnt-attribution.c).
 *
 * Call sites are made up so that the function holding a site is the site
 * with its low 12 bits cleared: 0x2010 and 0x2020 are both in "function"
 * 0x2000. The callchain id of an event is its function >> 4, so that the
 * tests also see that stacks are carried along.
 */
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "util/refcnt/pairing.h"

#define FUNC(site)	((u64)(site) & ~0xfffULL)
#define UNK		REFCNT_LIVE_UNKNOWN

/* functions of the made-up program */
#define FN_MAIN	0x1000ULL
#define FN_F	0x2000ULL
#define FN_X	0x3000ULL
#define FN_H	0x4000ULL
#define FN_G	0x5000ULL
#define FN_P	0x6000ULL
#define FN_C	0x7000ULL
#define FN_W	0x8000ULL
#define FN_Y	0x9000ULL

/* objects */
#define OBJ_A	0xa000ULL
#define OBJ_B	0xb000ULL
#define OBJ_C	0xc000ULL
#define OBJ_D	0xd000ULL
#define OBJ_E	0xe000ULL
#define OBJ_F	0xf000ULL

/* an operation at offset @_off of function FN_@_fn */
#define EV(_time, _op, _obj, _fn, _off, _tid, _live) {			\
	.time = _time, .op = REFCNT_OP__##_op, .obj = _obj,		\
	.site = FN_##_fn + (_off), .caller = FN_##_fn,			\
	.stack = FN_##_fn >> 4, .tid = _tid, .live = _live,		\
}

/* one step of a followed object, as expected */
#define STEP(_op, _gen, _before, _after, _conf, _paired, _finding) {		\
	REFCNT_OP__##_op, _gen, _before, _after, REFCNT_PAIR__##_conf, _paired,	\
	REFCNT_FINDING__##_finding,						\
}

#define MAX_COLLECT	32

struct collect {
	struct refcnt_finding	findings[MAX_COLLECT];
	int			nr_findings;
	struct refcnt_step	steps[MAX_COLLECT];
	struct refcnt_event	events[MAX_COLLECT];	/* step->ev is only lent */
	int			nr_steps;
};

/* A finding as expected: sites of 0 for other and culprit mean none. */
struct expect {
	enum refcnt_finding_kind kind;
	u8	type;
	u64	obj;
	u64	generation;
	u64	site;		/* of ref */
	u8	op;		/* of ref */
	u64	other;
	u64	culprit;
	bool	uncertain;
	int	expected;	/* MISMATCH */
	int	live;		/* MISMATCH */
};

extern const struct refcnt_engine_ops stream__ops;

int stream__feed(struct refcnt_engine *engine, const struct refcnt_event *evs, size_t nr);
/*
 * Feed @evs to a new engine that follows @follow (if not 0), and end the
 * stream into @c: 0, or the error of the feed.
 */
int stream__collect(const struct refcnt_event *evs, size_t nr, u64 follow, struct collect *c);
bool stream__ref_is(const struct refcnt_ref *ref, u64 site);
int stream__check(const struct collect *c, const struct expect *exp, int nr);
int stream__run(const struct refcnt_event *evs, size_t nr, u64 follow, struct collect *c,
		const struct expect *exp, int nr_exp, struct refcnt_engine_stats *stats);
u64 stream__total(const struct refcnt_engine_stats *stats);
/*
 * Feed @evs (each in the address space of its thread) to a new engine, give
 * it @scan of address space 1 and end the stream: @c gets the findings.
 */
int stream__run_scanned(struct refcnt_event *evs, size_t nr, const struct refcnt_scan *scan,
			struct collect *c);

#endif /* __PERF_TESTS_REFCNT_STREAM_H */
