/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_PAIRING_H
#define __PERF_REFCNT_PAIRING_H

/*
 * The pairing engine of perf refcnt: a plain C unit that knows nothing of
 * perf_session. It is fed refcount operations in timestamp order, follows
 * each object's lifetimes, pairs every reference (the one an object is born
 * with, and one per get) with the put that releases it, and reports what
 * does not add up.
 *
 * A lifetime is keyed by (address, generation): born..dies is one lifetime,
 * and an address reborn after it died starts the next generation, so reused
 * addresses never mix. An object first seen at a get or put (born before
 * recording, or by a path that was not probed) starts from its recorded live
 * refcount, with references of unknown origin.
 *
 * Pairing: without a cookie per reference (ref_tracker, RC_CHK) the put that
 * releases a given reference cannot be known for sure. The engine is exact
 * where the history leaves one choice; otherwise it prefers, in order, an
 * outstanding reference taken in the same calling function as the put
 * (matching @caller, GNOME Camel's "same caller frames" rule), then the most
 * recent one taken by the same thread, then the most recent one; the pair's
 * confidence says which rule decided.
 */

#include <limits.h>
#include <stdbool.h>
#include <linux/types.h>

#include "spec.h"

#define REFCNT_LIVE_UNKNOWN	INT_MIN	/* the live refcount could not be read */

/* One refcount operation, as decoded from a sample. */
struct refcnt_event {
	u64	time;
	u64	obj;		/* object address; 0 (NULL) is never an object */
	u64	site;		/* call site: return address of the call, or the
				 * address of an inlined get/put
				 */
	u64	caller;		/* key of the function holding @site (e.g. its
				 * symbol's start), 0 if unknown
				 */
	u32	stack;		/* interned callchain id, 0 if none */
	u32	tid;
	s32	live;		/* live refcount before the op (after it for
				 * born), or REFCNT_LIVE_UNKNOWN
				 */
	u8	type;		/* index in refcnt_type_specs */
	u8	op;		/* enum refcnt_op */
};

/* Where a reference was taken or released. */
struct refcnt_ref {
	u64	time;
	u64	site;
	u64	caller;
	u32	stack;
	u32	tid;
	u8	op;		/* REFCNT_OP__BORN or __GET for a reference,
				 * __PUT/__DIES for a release; REFCNT_OP__MAX
				 * for a reference of unknown origin
				 */
};

enum refcnt_confidence {
	REFCNT_PAIR__EXACT,		/* only one reference could be released */
	REFCNT_PAIR__SAME_CALLER,	/* taken in the put's calling function */
	REFCNT_PAIR__SAME_THREAD,	/* most recent taken by the put's thread */
	REFCNT_PAIR__MOST_RECENT,	/* most recent outstanding reference */
	REFCNT_PAIR__NONE,		/* nothing to pair with */
};

enum refcnt_finding_kind {
	/* a get whose reference was never put (object alive at the end) */
	REFCNT_FINDING__LEAK,
	/* only the birth (or an unknown-origin) reference left at the end:
	 * owned at exit, e.g. by a cache perf keeps on purpose
	 */
	REFCNT_FINDING__OWNED_AT_EXIT,
	/* a put on a live lifetime with no reference left to release */
	REFCNT_FINDING__OVER_RELEASE,
	/* a put on a lifetime that died, before the address was reborn */
	REFCNT_FINDING__DOUBLE_PUT,
	/* a get on a lifetime that died, before the address was reborn */
	REFCNT_FINDING__USE_AFTER_PUT,
	/* our count of references differs from the live refcount */
	REFCNT_FINDING__MISMATCH,
	REFCNT_FINDING__MAX,
};

struct refcnt_finding {
	enum refcnt_finding_kind kind;
	u8	type;
	u64	obj;
	u64	generation;	/* 1 for the first lifetime seen at @obj */
	/*
	 * LEAK, OWNED_AT_EXIT: the reference left outstanding.
	 * OVER_RELEASE, DOUBLE_PUT, USE_AFTER_PUT, MISMATCH: the offending
	 * event (for MISMATCH the first event where counts disagreed).
	 */
	struct refcnt_ref ref;
	/*
	 * DOUBLE_PUT, USE_AFTER_PUT: the put that freed the lifetime.
	 * OVER_RELEASE, DOUBLE_PUT: @culprit is the earliest put of the
	 * lifetime that matched no reference taken in its calling function
	 * (the likely extra put), when there is one; has_culprit says so.
	 */
	struct refcnt_ref other;
	struct refcnt_ref culprit;
	bool	has_culprit;
	int	expected;	/* MISMATCH: references we counted */
	int	live;		/* MISMATCH: the recorded live refcount */
	bool	uncertain;	/* the lifetime was live across a lost-events
				 * window, or its start was not seen: not to be
				 * reported as a bug
				 */
};

/* One step of one object's history, for perf refcnt report --history. */
struct refcnt_step {
	const struct refcnt_event *ev;
	u64	generation;
	int	before;		/* references we counted before the op */
	int	after;
	/* for a put: the reference it released and how sure that is */
	struct refcnt_ref paired;
	enum refcnt_confidence confidence;
	enum refcnt_finding_kind finding;	/* REFCNT_FINDING__MAX if none */
};

struct refcnt_engine_stats {
	u64	events;
	u64	objects[REFCNT_TYPE__MAX_NR];	/* lifetimes, per type */
	u64	live_lifetimes;
	u64	findings[REFCNT_FINDING__MAX];
	u64	lost_windows;
	u64	out_of_order;	/* events older than the previous one */
};

struct refcnt_engine;

struct refcnt_engine_ops {
	/* every finding, as soon as it is known (leaks at refcnt_engine__end) */
	void (*finding)(const struct refcnt_finding *f, void *priv);
	/* every step of the objects passed to refcnt_engine__follow() */
	void (*step)(const struct refcnt_step *s, void *priv);
};

struct refcnt_engine *refcnt_engine__new(const struct refcnt_engine_ops *ops,
					  void *priv);
void refcnt_engine__delete(struct refcnt_engine *engine);

/* Report every step of the object at @obj (all its generations). */
int refcnt_engine__follow(struct refcnt_engine *engine, u64 obj);

/* Feed one operation; events must come in timestamp order. */
int refcnt_engine__event(struct refcnt_engine *engine,
			 const struct refcnt_event *ev);

/*
 * Events were lost at @time: every lifetime live then, and every object
 * first seen afterwards without a birth, is uncertain.
 */
void refcnt_engine__lost(struct refcnt_engine *engine, u64 time, u64 nr);

/* End of the stream: report what is still outstanding. */
void refcnt_engine__end(struct refcnt_engine *engine);

const struct refcnt_engine_stats *
refcnt_engine__stats(const struct refcnt_engine *engine);

const char *refcnt_finding_kind__name(enum refcnt_finding_kind kind);
const char *refcnt_confidence__name(enum refcnt_confidence conf);

#endif /* __PERF_REFCNT_PAIRING_H */
