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
 * An object is keyed by its address space and address: the same address in
 * two processes (a forked child's copy of its parent's heap) or in two
 * images of one process (an exec) is two objects.
 *
 * A lifetime is keyed by (object, generation): born..dies is one lifetime,
 * and an address reborn after it died starts the next generation, so reused
 * addresses never mix. An object first seen at a get or put (born before
 * recording, or by a path that was not probed) starts from its recorded live
 * refcount, with references of unknown origin (one if the count was not read).
 * A get or put on a dead lifetime reading a live count above what the gets
 * since its death added is such a birth too: freed objects read zero.
 *
 * A birth on a live lifetime whose only event is its birth, on the same
 * thread, is a constructor returning what an inner one made (dso__new and
 * dso__new_id): the birth moves to the outer call site. Any other birth on a
 * live lifetime, or an operation of another type at its address, ends it as
 * if its free had been seen (stats.missed_dies) and starts the next.
 *
 * Pairing: without a cookie per reference (ref_tracker, RC_CHK) the put that
 * releases a given reference cannot be known for sure. The engine is exact
 * where the history leaves one choice; otherwise it prefers, in order:
 *  - with slot events (slot_code.h), the reference stored last, on the
 *    put's thread, to the word the put's argument was loaded from;
 *  - for a put in an inlined function, one that function took and kept,
 *    wherever it was inlined (as if it had been called: see @scope);
 *  - one taken in the put's calling function (but not one that another
 *    inlined function in it keeps), or in a call made from it (the put's
 *    @caller found in the reference's @caller or @up frames, closest
 *    first, a birth before a get: GNOME Camel's "same caller frames" rule);
 *  - one taken by the function whose references the put's function
 *    released most often where it had one choice (the recording's exact
 *    pairs, pair_model.h);
 *  - one taken below the closest function above the put that the
 *    reference's call was also made from, on the same thread (the lowest
 *    common caller: a put made for add_callchain_ip() releases what
 *    add_callchain_ip()'s calls took, not what another subtree of the same
 *    sample took); of those as close, one an inlined function kept last;
 *    never one a lookup handed to a function that has returned since (its
 *    owner), unless the put's caller called that owner (a struct the owner
 *    filled for it: an addr_location);
 *  - the oldest one stored in a holder of a kind the put's function takes
 *    a pointer to (@holders, handoff.h: a remove releases what an insert
 *    into a struct of the same kind stored, a destructor what a
 *    constructor did: a teardown, far from the calls that filled it);
 *  - the most recent one taken by the same thread, one a lookup handed to
 *    an owner that has returned since last (it stored it or leaked it;
 *    an insert's, a birth's, an inlined keeper's are kept by design), then
 *    the most recent.
 * The pair's confidence says which rule decided. The last four rules pass
 * over a reference that a function still running above the put took (it
 * releases its own: a put in its callees releases another), and, while
 * there is another, over the second of two references one call took on the
 * object at once (an extra get is the likely leak). At the end, those are
 * also the first references told leaked; then, where the scan at exit
 * counts fewer pointers than references, the gets of the sites that
 * released the least share of theirs (release_share.h), births last.
 *
 * The likely extra put of a lifetime (named by its over-release or double
 * put) is a put by a function that has just released the reference it took
 * on the object, on the same thread, nothing in between; else a put by a
 * function whose callee puts the object again at once; else the put that
 * releases nothing: the first put that released no reference its own
 * function took, by a function that no lifetime dying clean saw do that
 * (destructors and removes put what others took, on every object of their
 * kind: suspects.h); else the first put that released none its function
 * took.
 *
 * A get on a dead lifetime is a use after put, not a resurrection; the put
 * that balances it is not reported again as a double put.
 *
 * Memory grows with live objects and their outstanding references, plus a
 * fixed summary per freed address (the put that freed it, the likely extra
 * put) kept until the address is reborn; never with the number of events.
 */

#include <limits.h>
#include <stdbool.h>
#include <linux/types.h>

#include "heap_free.h"
#include "scan.h"
#include "spec.h"

#define REFCNT_LIVE_UNKNOWN	INT_MIN	/* the live refcount could not be read */
/*
 * A live refcount above this is no count: the word of freed memory that
 * malloc reused, or a damaged recording. perf holds a few thousand
 * references on its busiest object (the kernel maps of a -g report); a
 * count taken as true adds references the end tells one by one.
 */
#define REFCNT_LIVE_MAX		1048576
/*
 * The different uses after put of a dead lifetime that are kept until a
 * double put, a rebirth or the end tells whether they are consequences of
 * an extra put. Past that many, a new one is told at once, uncertain.
 */
#define REFCNT_DEFERRED_USES_MAX	256
#define REFCNT_UP_FRAMES	3	/* caller frames above the call site kept */
#define REFCNT_ABOVE_FRAMES	16	/* caller frames an event looks at */
#define REFCNT_HAND_SITES	4	/* calls a reference is handed back through */

/* One refcount operation, as decoded from a sample. */
struct refcnt_event {
	u64	time;
	u64	obj;		/* object address; 0 (NULL) is never an object */
	u64	space;		/* the address space @obj is in, any value
				 * that is unique to it (e.g. from the pid and
				 * the number of its execs)
				 */
	u64	site;		/* call site: return address of the call, or the
				 * address of an inlined get/put
				 */
	u64	caller;		/* key of the function holding @site (e.g. its
				 * symbol's start), 0 if unknown
				 */
	/*
	 * The innermost inlined function in @caller that holds @site, by a
	 * key no function's is (inline_scope.h); 0 if none. Pairing does not
	 * depend on what the compiler inlined: a put there first releases
	 * what that function took, wherever it was inlined.
	 */
	u64	scope;
	u64	up[REFCNT_UP_FRAMES];	/* keys of the functions above it */
	/*
	 * and of up to REFCNT_ABOVE_FRAMES of them, @up first, valid during
	 * the call (NULL: only @up is known)
	 */
	const u64 *above;
	u8	nr_above;
	u32	stack;		/* interned callchain id, 0 if none */
	/*
	 * A birth or a get: the function that owns the reference, when not
	 * @caller (the first one above @caller that does not hand it on to
	 * its own caller: a lookup's caller), and the return address in its
	 * frame; 0 if @caller owns it or who does is not known.
	 */
	u64	owner;
	u64	owner_site;
	u64	owner_scope;	/* the inlined function there (@scope's kind) */
	/*
	 * A birth or a get in a function that hands it on (a lookup): the
	 * return addresses of the calls it comes back through, the lookup's
	 * first, up to its owner's (0: no more). A store right after one of
	 * those calls says where the reference lives, as one after a get's.
	 */
	u64	hand_sites[REFCNT_HAND_SITES];
	u32	tid;
	s32	live;		/* live refcount before the op (after it for
				 * born), or REFCNT_LIVE_UNKNOWN
				 */
	u8	type;		/* index in refcnt_type_specs */
	u8	op;		/* enum refcnt_op */
	bool	hands_on;	/* @caller hands @type on to its own caller
				 * (returns it: a lookup), per handoff.h
				 */
	bool	scope_keeps;	/* a birth or get in @scope, which hands
				 * @type on to nobody (DWARF): not @caller's
				 * to put, nor handed to its callers
				 */
	/*
	 * The holders of @type that the function keeping the reference takes
	 * pointers to (handoff.h: structs that hold the type, as ids): for a
	 * birth or a get, @owner's if set, else @caller's, which may store it
	 * there; for a put, @caller's, which may release what one held
	 */
	u64	holders;
	/*
	 * A slot event (slot_code.h: not an operation): @obj was stored to
	 * (REFCNT_SLOT__STORE) or loaded from (__LOAD) the word at @slot,
	 * next to the call whose return address is @site; 0 for an operation
	 */
	u8	slot_op;
	u64	slot;
	u8	slot_where;	/* a store's: enum refcnt_slot_where */
	/*
	 * A store's slot in the frame of a function above the storing one
	 * (an addr_location that machine__resolve() fills, in its caller's
	 * frame): that function's key, and the return address in it; 0 if
	 * not, or not known. The reference is that function's: its frame
	 * dies when it returns.
	 */
	u64	slot_home;
	u64	slot_home_site;
	/*
	 * A birth by a copy constructor (handoff.h: map__clone()), its key;
	 * 0 for another birth, or an operation
	 */
	u64	born_clone;
};

/*
 * Where a store's slot is (refcnt_event.slot_where). A reference whose
 * slot in memory is stored over by another call while it is outstanding
 * (in a static variable, by any call) was lost there: if it leaks, that
 * call leaked it (REFCNT_WHY__OVERWRITTEN).
 * A local of the storing function's own frame is not evidence: the frame
 * dies when the function returns, and the next call's frame reuses the
 * word (a lookup's result kept in a local, returned to its caller).
 */
enum refcnt_slot_where {
	REFCNT_SLOT_WHERE__UNKNOWN,	/* a recording that does not say */
	REFCNT_SLOT_WHERE__MEMORY,	/* through a pointer: a heap object, a caller's local */
	REFCNT_SLOT_WHERE__FRAME,	/* a local of the storing function's frame */
	REFCNT_SLOT_WHERE__STATIC,	/* a static variable: nothing moves what it holds */
};

/* Where a reference was taken or released. */
struct refcnt_ref {
	u64	time;
	u64	space;		/* of the event: where @site and @stack are */
	u64	site;
	u64	caller;
	u64	scope;
	u64	up[REFCNT_UP_FRAMES];
	u32	stack;
	u64	owner;		/* as in struct refcnt_event */
	u64	owner_site;
	u64	owner_scope;
	u64	holders;	/* as in struct refcnt_event */
	u64	slot;		/* where it was stored, if a slot probe saw it */
	/*
	 * The store over @slot (its call's site and caller key) while this
	 * reference was outstanding, of another call than the one that
	 * stored it, or any in a static variable (refcnt_slot_where); 0 if
	 * none was seen
	 */
	u64	lost_site;
	u64	lost_caller;
	u32	tid;
	bool	lost_freed;	/* @lost_site freed a block that held it instead
				 * (heap_free.h): REFCNT_WHY__FREED_HOLDING
				 */
	/*
	 * The free (its call's site and caller key) of the block holding
	 * @slot while this reference was outstanding; 0 if none was seen.
	 * Whether that lost it is told at the end: if its object leaks, and
	 * that function never put it (refcnt_engine__end()).
	 */
	u64	freed_site;
	u64	freed_caller;
	/*
	 * The function whose frame a store put it in (refcnt_event.slot_home),
	 * and the return address in it, while the word holds it; 0 if none
	 */
	u64	home;
	u64	home_site;
	/*
	 * The first put, by another function than the one that stored this
	 * reference, of a reference that function's call stored in a word
	 * beside @slot (a member of the same struct), while this one was
	 * still there: its site and function; 0 if none. A struct one
	 * function filled and another tore down, one member missed:
	 * REFCNT_WHY__NEIGHBOURS_PUT
	 */
	u64	kin_site;
	u64	kin_caller;
	bool	scope_keeps;	/* as in struct refcnt_event */
	bool	twin;		/* a get that follows one at another site of
				 * its function (or in its body, one in a
				 * lookup inlined in it) on the same object
				 * and thread, nothing in between but gets of
				 * inserts it called: the second of two
				 * references one call took
				 */
	bool	static_slot;	/* @slot is a static variable's */
	u8	op;		/* REFCNT_OP__BORN or __GET for a reference,
				 * __PUT/__DIES for a release; REFCNT_OP__MAX
				 * for a reference of unknown origin, whose
				 * other fields are those of the event where
				 * the engine learnt of it (first seen, or
				 * resynced to the live refcount)
				 */
};

enum refcnt_confidence {
	REFCNT_PAIR__EXACT,		/* only one reference could be released */
	REFCNT_PAIR__SLOT,		/* the one stored where the put's
					 * argument was loaded from (slot_code.h)
					 */
	REFCNT_PAIR__SAME_CALLER,	/* taken in the put's calling function */
	REFCNT_PAIR__LEARNT,		/* by a function whose references the
					 * put's released where it had one choice
					 */
	REFCNT_PAIR__COMMON_CALLER,	/* in the closest call tree that holds
					 * the put: below the function, a few
					 * frames above the put, that both were
					 * made from
					 */
	REFCNT_PAIR__HOLDER,		/* the oldest that a function taking a
					 * pointer to a holder the put's
					 * function takes one to stored (an
					 * insert's, for a remove)
					 */
	REFCNT_PAIR__SAME_THREAD,	/* most recent taken by the put's thread */
	REFCNT_PAIR__MOST_RECENT,	/* most recent outstanding reference */
	REFCNT_PAIR__NONE,		/* nothing to pair with */
};

enum refcnt_finding_kind {
	/*
	 * A reference never put. With a scan at exit of the object's address
	 * space (refcnt_engine__exit_scan()): one that no reachable memory
	 * accounts for, the object being unreachable, or reachable through
	 * fewer pointer words than its references. Without: a get
	 * outstanding at the end.
	 */
	REFCNT_FINDING__LEAK,
	/* without a scan: only the birth (or an unknown-origin) reference
	 * left at the end, e.g. a cache perf keeps on purpose
	 */
	REFCNT_FINDING__OWNED_AT_EXIT,
	/* a put on a live lifetime with no reference left to release */
	REFCNT_FINDING__OVER_RELEASE,
	/* a put on a lifetime that died, before the address was reborn */
	REFCNT_FINDING__DOUBLE_PUT,
	/* a get on a lifetime that died, before the address was reborn */
	REFCNT_FINDING__USE_AFTER_PUT,
	/*
	 * a use after put on a lifetime that a double put shows died early:
	 * a consequence of the extra put that the double put names, as a
	 * use after free follows a double free
	 */
	REFCNT_FINDING__AFTER_EXTRA_PUT,
	/*
	 * our count of references differs from the live refcount by more
	 * than the gets and puts other threads may still have in flight (a
	 * probe reads the count before the atomic operation; a thread's last
	 * one is in flight until the thread is seen again), and the next
	 * read differs as much, or a put finds nothing we counted while the
	 * live refcount says there is; or the object dies while we count
	 * references. At most one per lifetime.
	 */
	REFCNT_FINDING__MISMATCH,
	/* scanned: a reference on an unreachable object that a leaked object
	 * (@holder) reaches, LSan's indirect leak: a consequence of that leak
	 */
	REFCNT_FINDING__HELD_BY_LEAK,
	/* scanned: alive at exit and accounted for by a pointer word of
	 * reachable memory: not a bug
	 */
	REFCNT_FINDING__STILL_REFERENCED,
	REFCNT_FINDING__MAX,
};

/* Why a finding's site (refcnt_finding__site()) is the one shown. */
enum refcnt_site_why {
	REFCNT_WHY__EVENT,		/* the offending event itself: exact */
	REFCNT_WHY__LEFT,		/* the reference the pairing left outstanding */
	REFCNT_WHY__ONE_CALL_TWO,	/* the second of two references one call took */
	REFCNT_WHY__NOT_ITS_OWN,	/* the first put that released none its function took */
	REFCNT_WHY__TWO_AT_ONCE,	/* a put whose callee put the object again at once */
	REFCNT_WHY__ONE_MORE,		/* a put after its function had released its own */
	REFCNT_WHY__OWNER,		/* a leak's owner: the first function above the
					 * get that hands the reference to no caller
					 */
	REFCNT_WHY__RELEASES_NOTHING,	/* the first put that released none its function
					 * took, by a function no lifetime that died
					 * clean saw do that (suspects.h)
					 */
	REFCNT_WHY__LEAST_RELEASED,	/* a leak the scan counted, told at the site that
					 * released the smallest share of the references
					 * it took (release_share.h)
					 */
	REFCNT_WHY__OVERWRITTEN,	/* a leak whose slot another call stored over while
					 * it was outstanding: that call's
					 */
	REFCNT_WHY__BORROWED,		/* an over-release after a put of what a word
					 * held that a copy stored with no get (a
					 * borrowed pointer kept): the copy's
					 */
	REFCNT_WHY__FREED_HOLDING,	/* a leak whose address is in a block freed
					 * by a function that never put it (a holder
					 * torn down without its puts): that free's
					 */
	REFCNT_WHY__COPIED,		/* an over-release after a put of what a copy
					 * points to, with no get: named at a copy
					 * constructor (map__clone()), or at the
					 * function that took the copied struct's
					 * other members
					 */
	REFCNT_WHY__NEIGHBOURS_PUT,	/* a leak stored beside references another
					 * function put, which one call stored with
					 * it (refcnt_ref.kin_site): that put's
					 */
	REFCNT_WHY__MAX,
};

struct refcnt_finding {
	enum refcnt_finding_kind kind;
	enum refcnt_site_why why;
	u8	type;
	u64	obj;
	u64	space;		/* as in the events */
	u64	generation;	/* 1 for the first lifetime seen at @obj */
	/*
	 * LEAK, OWNED_AT_EXIT: the reference left outstanding.
	 * OVER_RELEASE, DOUBLE_PUT, USE_AFTER_PUT, MISMATCH: the offending
	 * event (for MISMATCH the first of the reads that disagreed, or the
	 * dies).
	 */
	struct refcnt_ref ref;
	/*
	 * DOUBLE_PUT, USE_AFTER_PUT: the put that freed the lifetime (its
	 * last put before dies), or the dies itself (op REFCNT_OP__DIES) when
	 * no put of that lifetime was seen. Zero for the other kinds.
	 * OVER_RELEASE, DOUBLE_PUT: @culprit is the earliest put of the
	 * lifetime that was neither the only choice (EXACT) nor matched a
	 * reference taken in its calling function (the likely extra put),
	 * when there is one; has_culprit says so.
	 */
	struct refcnt_ref other;
	struct refcnt_ref culprit;
	bool	has_culprit;
	u64	holder;		/* HELD_BY_LEAK: the leaked object holding it */
	int	expected;	/* MISMATCH: references we counted */
	int	live;		/* MISMATCH: the recorded live refcount (0 at
				 * a dies that did not read it)
				 */
	bool	uncertain;	/* the lifetime was live across a lost-events
				 * window, or its start was not seen and either
				 * its live count was not read or events had
				 * been lost; for DOUBLE_PUT and USE_AFTER_PUT
				 * also: events were lost since it died (the
				 * rebirth may be among them). Not to be
				 * reported as a bug; never set on MISMATCH,
				 * which uncertain lifetimes do not report.
				 */
};

/* One step of one object's history, for perf refcnt report --history. */
struct refcnt_step {
	const struct refcnt_event *ev;	/* the event fed, valid in the callback */
	u64	generation;	/* of the lifetime the event went to */
	int	before;		/* references we counted before the op: for an
				 * object first seen, the inferred ones; before
				 * a resync to the live refcount (the step that
				 * confirms a MISMATCH carries it)
				 */
	int	after;		/* 0 once dead */
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
	u64	missed_ops;	/* refcnt_engine__missed() calls */
	u64	out_of_order;	/* events older than one fed before them */
	u64	uncertain;	/* findings delivered with uncertain set */
	u64	missed_dies;	/* lifetimes ended by a new one at their
				 * address, their dies not seen
				 */
	u64	model_full;	/* exact pairs the pairs model could not allocate for */
	u64	duplicates;	/* events seen twice (same time, thread, op
				 * and site on one object), ignored
				 */
	u64	scan_missed;	/* live at the end, not found by a scan that
				 * looked for their type
				 */
	u64	stack_only;	/* references only the exiting thread's stack
				 * or registers may account for, told leaks
				 */
	u64	uses_unkept;	/* uses after put told before their kind was
				 * known (REFCNT_DEFERRED_USES_MAX)
				 */
	u64	slots_stored;	/* references whose slot a store showed */
	u64	slot_loads;	/* puts whose argument a load showed the slot of */
	u64	slot_pairs;	/* of those, paired by the slot */
	u64	members_copied;	/* of those, of a member copied with its struct */
	u64	overwritten;	/* references whose slot was stored over */
	u64	slots_homed;	/* of those stored, in a caller's frame */
	u64	slot_words_full;	/* stores not followed: too many words */
	u64	frees;		/* free() events (refcnt_engine__freed()) */
	u64	frees_dropped;	/* of their blocks, not kept: too many */
	u64	freed_holding;	/* leaks told at a free of a block that held them */
};

struct refcnt_engine;

/*
 * Callbacks get pointers valid only during the call: copy what is kept.
 * Either may be NULL.
 */
struct refcnt_engine_ops {
	/* every finding, as soon as it is known (leaks at refcnt_engine__end) */
	void (*finding)(const struct refcnt_finding *f, void *priv);
	/* every step of the objects passed to refcnt_engine__follow() */
	void (*step)(const struct refcnt_step *s, void *priv);
};

struct refcnt_engine *refcnt_engine__new(const struct refcnt_engine_ops *ops, void *priv);
void refcnt_engine__delete(struct refcnt_engine *engine);

/*
 * Pair as @teacher, which was fed the same events, learnt: its model of
 * the exact pairs of the whole stream (pair_model.h) moves to @engine,
 * which learns no more. A put early in the stream is then decided by the
 * exact pairs that come after it too. Call it before the first event.
 */
void refcnt_engine__learn_from(struct refcnt_engine *engine, struct refcnt_engine *teacher);

/*
 * Index a lifetime's references from @nr of them (default 32): the
 * pairings are the same either way; tests compare the two.
 */
void refcnt_engine__set_index_min(struct refcnt_engine *engine, u32 nr);

/*
 * Report every step of the object at @obj (all its generations) from now
 * on: call it before feeding events. Returns 0 or -ENOMEM.
 */
int refcnt_engine__follow(struct refcnt_engine *engine, u64 obj);

/*
 * Feed one operation; events must come in timestamp order (older ones are
 * counted in stats.out_of_order and processed as they come). Operations on
 * NULL are ignored. Returns 0, -EINVAL for a bad op or type, or -ENOMEM.
 */
int refcnt_engine__event(struct refcnt_engine *engine,
			 const struct refcnt_event *ev);

/*
 * Thread @tid exited at @time: its last get or put has landed, and can no
 * longer explain a live refcount that disagrees with our count. Returns 0
 * or -ENOMEM.
 */
int refcnt_engine__thread_exit(struct refcnt_engine *engine, u64 time, u32 tid);

/*
 * Events were lost at @time: every lifetime live then, and every object
 * first seen afterwards without a birth, is uncertain.
 */
void refcnt_engine__lost(struct refcnt_engine *engine, u64 time, u64 nr);

/*
 * An operation on an object of @type was seen without its object (an
 * uncovered inlined site): like lost events, but for that type only.
 */
void refcnt_engine__missed(struct refcnt_engine *engine, u64 time, u8 type);

/*
 * What the scan at exit of address space @space found (scan.h): at
 * refcnt_engine__end(), the references outstanding on its objects are
 * leaked, held by a leaked object or still referenced. @scan must live
 * until then. References that only the exiting thread's stack or
 * registers account for (REFCNT_SCAN_REACH__STACK, stack_words) are leaks
 * marked uncertain: a local of a frame that called exit(), or a stale word
 * (the scan cannot tell); when a signal killed the process, what its
 * interrupted work held and would have put. An object the scan did not find
 * keeps the findings of an unscanned space, uncertain if the scan looked
 * for its type; every leak the scan classes is uncertain when the scan was
 * partial. Returns 0 or -ENOMEM.
 */
int refcnt_engine__exit_scan(struct refcnt_engine *engine, u64 space,
			     const struct refcnt_scan *scan);

/*
 * The recording has the audited process's free() calls (heap_free.h):
 * follow which functions put each object, from the first event on. Call
 * before any event.
 */
int refcnt_engine__follow_frees(struct refcnt_engine *engine);
/*
 * A free() of the audited process, in time order with the events. A leak
 * the scan at exit finds the address of in freed memory is that of the
 * function whose call last freed that block, if that function never put
 * the object: it dropped the block's reference (REFCNT_WHY__FREED_HOLDING).
 */
int refcnt_engine__freed(struct refcnt_engine *engine, const struct refcnt_free *f);

/*
 * End of the stream: report what is still outstanding, lifetime by lifetime
 * in the order they started, those held by a leaked object last. Only the
 * first call reports.
 */
void refcnt_engine__end(struct refcnt_engine *engine);

const struct refcnt_engine_stats *
refcnt_engine__stats(const struct refcnt_engine *engine);

const char *refcnt_finding_kind__name(enum refcnt_finding_kind kind);
const char *refcnt_confidence__name(enum refcnt_confidence conf);
const char *refcnt_site_why__name(enum refcnt_site_why why);

#endif /* __PERF_REFCNT_PAIRING_H */
