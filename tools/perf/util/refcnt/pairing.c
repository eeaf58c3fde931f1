// SPDX-License-Identifier: GPL-2.0
/*
 * The pairing engine of perf refcnt: see pairing.h for what it does.
 *
 * One struct refcnt_object per address ever seen in an address space, in a
 * hashmap keyed by both: the
 * generation of its current (or last) lifetime and, once it died, what the
 * findings on a later put or get need (the put that freed it, the likely
 * extra put). The references of a live lifetime are in a struct
 * refcnt_lifetime, freed when it dies: a refset (refset.h) of the
 * references taken by a birth or a get, oldest first, indexed once there
 * are many, and a count of those of unknown origin. Live lifetimes are
 * also on a list, oldest first, so that the end of the stream visits only
 * them, in a stable order. A put costs the same however many references
 * its object holds, and a lost-events window the same however many
 * lifetimes are live.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/zalloc.h>
#include <tools/libc_compat.h>

#include "../hashmap.h"
#include "hash.h"
#include "pair_model.h"
#include "pairing.h"
#include "refset.h"
#include "slot_code.h"
#include "slot_track.h"
#include "release_share.h"
#include "suspects.h"

/*
 * A probe reads the live refcount before the atomic operation, and the
 * operation lands after it: microseconds later, or milliseconds if the
 * thread is preempted in between (seen in perf top). A read on one thread
 * may not see the get or put another thread's probe fired before it. But
 * a thread's next probe, on any object, comes after the operation of its
 * previous one: only a thread's last operation may be in flight, and only
 * until that thread is seen again, or exits. A lifetime keeps the last get
 * or put of each of the last REFCNT_RECENT threads that worked on it: more
 * than perf runs on one object at once (perf top: its event and display
 * threads), few enough to scan at every read; when full, one that landed
 * is replaced, else the oldest.
 */
#define REFCNT_RECENT		8

/*
 * A lifetime's references are indexed (refset.h) from this many: below, a
 * scan is cheaper than the lookups.
 */
#define REFCNT_INDEX_MIN	32

struct refcnt_recent {
	u64	time;
	u32	tid;
	u8	op;
};

/*
 * A reference a lookup handed to its owner (refcnt_event.owner), while the
 * owner's call that received it may still be running: until an event on
 * the object, on the same thread, runs outside the owner.
 */
struct refcnt_handed {
	u64	time;
	u64	site;
	u64	caller;
	u64	owner;
	u32	tid;
};

#define REFCNT_HANDED_RUNNING	4

struct refcnt_object;

/*
 * The last birth or get on an object (@valid: no put since), and whether
 * only gets by inserts that its function called came after it on its
 * thread (lifetime__take()).
 */
struct lifetime_take {
	u64	caller;
	u64	site;
	u64	up[REFCNT_UP_FRAMES];
	u32	tid;
	bool	keeps;		/* refcnt_ref.scope_keeps */
	bool	valid;
	bool	inserted;
};

struct refcnt_lifetime {
	struct list_head	node;		/* in engine->live, oldest first */
	struct refcnt_object	*object;
	struct refcnt_refset	refs;		/* births and gets outstanding, oldest first */
	u32			unknown;	/* references of unknown origin outstanding */
	struct refcnt_ref	unknown_ref;	/* where we learnt of the first of them */
	struct refcnt_recent	recent[REFCNT_RECENT];	/* last get or put per thread */
	u32			nr_recent;
	/* a disagreement with the live refcount, until the next read */
	struct refcnt_ref	pending_ref;
	int			pending_expected;
	int			pending_live;
	bool			pending;
	bool			mismatched;	/* a mismatch was reported */
	bool			only_born;	/* no event but its birth yet */
	u64			missed_at_start; /* engine->missed[type] then */
	/*
	 * The last get or put (op GET or PUT; none while it is BORN, as
	 * zeroed), and for a put whether it released its function's own
	 */
	struct refcnt_ref	last;
	bool			last_own;
	/* the last birth or get, then the inserts its function called */
	struct lifetime_take	take;
	/* the last references handed to owners that may still be running */
	struct refcnt_handed	handed[REFCNT_HANDED_RUNNING];
	u8			nr_handed;
	/*
	 * a put was paired by a guess, or the count resynced to the live
	 * refcount: a later put with one choice left is no exact pair
	 */
	bool			guessed;
	/*
	 * with the free() calls: the functions that put the object, and
	 * those that called a put of it or called what did, each with the
	 * word whose reference its puts released, where one says
	 */
	struct refcnt_putters	put_by, put_below;
};

/* An earlier lifetime's likeliest extra put (refcnt_object.prev) */
struct prev_culprit {
	struct refcnt_ref	culprit;
	u8			level;		/* enum culprit_level */
};

/* A use after put kept until its kind is known, and how many times it was made. */
struct deferred_use {
	struct refcnt_finding	f;
	u32			times;
};

struct refcnt_object {
	struct refcnt_space_addr key;	/* the hashmap's key points here */
	u64			generation;	/* 0: never seen */
	struct refcnt_lifetime	*live;		/* NULL unless live */
	/*
	 * Live: the last put. Dead: the put that freed it, or the dies if
	 * no put was seen (has_release is then true).
	 */
	struct refcnt_ref	release;
	struct refcnt_ref	culprit;	/* earliest put not EXACT nor SAME_CALLER */
	struct refcnt_suspects	suspects;	/* puts that released nothing their own */
	/* the last event: a thread does not do two operations at once */
	u64			last_time;
	u64			last_site;
	u32			last_tid;
	u8			last_op;
	u64			lost_at_death;	/* engine's lost windows when it died */
	u32			dead_gets;	/* gets after death not yet put */
	/*
	 * the uses after put of the dead lifetime, told when it is known
	 * whether a double put shows it died early (@extra_put): at its
	 * rebirth or the end; the same use repeated is kept once, and no
	 * more than REFCNT_DEFERRED_USES_MAX different ones
	 */
	struct deferred_use	*uses;
	u32			nr_uses, alloc_uses;
	bool			extra_put;	/* dead, and put again since */
	u8			type;
	bool			dead;		/* died, summary valid until reborn */
	bool			uncertain;
	bool			has_release;
	bool			has_culprit;
	bool			over_released;	/* this lifetime, while live */
	u8			culprit_level;	/* enum culprit_level of @culprit */
	bool			followed;
	/* born last by a copy constructor (refcnt_event.born_clone), and when */
	u64			clone_fn;
	u64			clone_time;
	/*
	 * When this lifetime started, and the likeliest extra put of the one
	 * before at the address (above CULPRIT__NOT_ITS_OWN), if it had one
	 */
	u64			born_time;
	struct prev_culprit	*prev;
	bool			await_free;	/* died: its block's free is next */
};

/* How likely a put is the extra one, least first (see engine__put()). */
enum culprit_level {
	CULPRIT__NONE,
	CULPRIT__NOT_ITS_OWN,	/* released no reference its function took */
	CULPRIT__TWO_AT_ONCE,	/* a function put it, then a callee one more */
	CULPRIT__ONE_MORE,	/* a function put its own, then one more */
	/*
	 * What the word a put loaded says outweighs when the puts came: a
	 * teardown that drops two references it holds, at once, is no news
	 * if a put before released what a word never held
	 */
	CULPRIT__MEMBER,	/* a put of a member copied with its struct, no get */
	CULPRIT__BORROWED,	/* a put of a pointer copied with no get */
	CULPRIT__COPIED,	/* ... by a copy constructor: the whole struct */
};

struct refcnt_engine {
	struct refcnt_engine_ops ops;
	void			*priv;
	/* struct refcnt_space_addr * -> struct refcnt_object */
	struct hashmap		*objects;
	struct hashmap		*follow;	/* addresses followed -> 1 */
	struct hashmap		*threads;	/* tid -> time of its last event */
	struct list_head	live;		/* struct refcnt_lifetime, by start */
	struct refcnt_engine_stats stats;
	/* lost-events windows, and hits of uncovered sites, per type */
	u64			missed[REFCNT_TYPE__MAX_NR];
	u64			last_time;
	/* the scan at exit of one address space: address -> its object */
	struct hashmap		*scan;
	u64			scan_space;
	const struct refcnt_scan_result *scan_result;
	struct refcnt_refset_index refindex;	/* of the lifetimes' references */
	struct refcnt_pair_model *model;	/* of the exact pairs */
	struct refcnt_release_share *shares;	/* what each site's references became */
	struct refcnt_slot_track *slot_track;	/* what the slot events say */
	/* with the free() calls: the last of each block (heap_free.h) */
	struct refcnt_frees	*frees;
	/* the scan's words of freed memory, by the object they point to */
	struct refcnt_scan_freed *scan_freed;
	u32			nr_scan_freed;
	/*
	 * The biggest block an object of each type was freed from: its
	 * struct's size, at most (what a free says of its chunk); 0: none seen
	 */
	u64			type_bytes[REFCNT_TYPE__MAX_NR];
	bool			ended;
};

static const char * const finding_names[REFCNT_FINDING__MAX] = {
	[REFCNT_FINDING__LEAK]		= "leak",
	[REFCNT_FINDING__OWNED_AT_EXIT]	= "owned at exit",
	[REFCNT_FINDING__OVER_RELEASE]	= "over-release",
	[REFCNT_FINDING__DOUBLE_PUT]	= "double put",
	[REFCNT_FINDING__USE_AFTER_PUT]	= "use after put",
	[REFCNT_FINDING__AFTER_EXTRA_PUT] = "after an extra put",
	[REFCNT_FINDING__MISMATCH]	= "mismatch",
	[REFCNT_FINDING__HELD_BY_LEAK]	= "held by a leak",
	[REFCNT_FINDING__STILL_REFERENCED] = "still referenced",
};

static const char * const confidence_names[REFCNT_PAIR__NONE + 1] = {
	[REFCNT_PAIR__EXACT]		= "exact",
	[REFCNT_PAIR__SLOT]		= "slot",
	[REFCNT_PAIR__SAME_CALLER]	= "same caller",
	[REFCNT_PAIR__LEARNT]		= "learnt",
	[REFCNT_PAIR__COMMON_CALLER]	= "common caller",
	[REFCNT_PAIR__HOLDER]		= "holder",
	[REFCNT_PAIR__SAME_THREAD]	= "same thread",
	[REFCNT_PAIR__MOST_RECENT]	= "most recent",
	[REFCNT_PAIR__NONE]		= "none",
};

static const char * const why_names[REFCNT_WHY__MAX] = {
	[REFCNT_WHY__EVENT]		= "the event",
	[REFCNT_WHY__LEFT]		= "left outstanding",
	[REFCNT_WHY__ONE_CALL_TWO]	= "one call took two",
	[REFCNT_WHY__NOT_ITS_OWN]	= "not its own",
	[REFCNT_WHY__TWO_AT_ONCE]	= "two puts at once",
	[REFCNT_WHY__ONE_MORE]		= "one more than it took",
	[REFCNT_WHY__OWNER]		= "its owner's",
	[REFCNT_WHY__RELEASES_NOTHING]	= "releases nothing",
	[REFCNT_WHY__LEAST_RELEASED]	= "least released",
	[REFCNT_WHY__OVERWRITTEN]	= "stored over",
	[REFCNT_WHY__BORROWED]		= "stored without a get",
	[REFCNT_WHY__FREED_HOLDING]	= "freed holding it",
	[REFCNT_WHY__COPIED]		= "copied without a get",
	[REFCNT_WHY__NEIGHBOURS_PUT]	= "neighbours put",
};

const char *refcnt_site_why__name(enum refcnt_site_why why)
{
	return (unsigned int)why < REFCNT_WHY__MAX ? why_names[why] : "?";
}

const char *refcnt_finding_kind__name(enum refcnt_finding_kind kind)
{
	return (unsigned int)kind < REFCNT_FINDING__MAX ? finding_names[kind] : "none";
}

const char *refcnt_confidence__name(enum refcnt_confidence conf)
{
	return (unsigned int)conf <= REFCNT_PAIR__NONE ? confidence_names[conf] : "?";
}

struct refcnt_engine *refcnt_engine__new(const struct refcnt_engine_ops *ops, void *priv)
{
	struct refcnt_engine *engine = zalloc(sizeof(*engine));

	if (!engine)
		return NULL;
	if (ops)
		engine->ops = *ops;
	engine->priv = priv;
	INIT_LIST_HEAD(&engine->live);
	engine->objects = hashmap__new(refcnt_space_addr__hash, refcnt_space_addr__equal, NULL);
	engine->follow = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
	engine->threads = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
	engine->model = refcnt_pair_model__new();
	engine->shares = refcnt_release_share__new();
	engine->slot_track = refcnt_slot_track__new();
	if (IS_ERR(engine->objects) || IS_ERR(engine->follow) || IS_ERR(engine->threads) ||
	    !engine->model || !engine->shares || !engine->slot_track ||
	    refcnt_refset_index__init(&engine->refindex, REFCNT_INDEX_MIN)) {
		if (!IS_ERR(engine->objects))
			hashmap__free(engine->objects);
		if (!IS_ERR(engine->follow))
			hashmap__free(engine->follow);
		if (!IS_ERR(engine->threads))
			hashmap__free(engine->threads);
		refcnt_pair_model__delete(engine->model);
		refcnt_release_share__delete(engine->shares);
		refcnt_slot_track__delete(engine->slot_track);
		refcnt_refset_index__exit(&engine->refindex);
		free(engine);
		return NULL;
	}
	return engine;
}

void refcnt_engine__learn_from(struct refcnt_engine *engine, struct refcnt_engine *teacher)
{
	struct refcnt_pair_model *model = engine->model;

	engine->model = teacher->model;
	teacher->model = model;
	refcnt_pair_model__freeze(engine->model);
}

static void lifetime__free(struct refcnt_lifetime *lt)
{
	list_del_init(&lt->node);
	refcnt_refset__exit(&lt->refs);
	refcnt_putters__exit(&lt->put_by);
	refcnt_putters__exit(&lt->put_below);
	free(lt);
}

void refcnt_engine__delete(struct refcnt_engine *engine)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!engine)
		return;
	hashmap__for_each_entry(engine->objects, cur, bkt) {
		struct refcnt_object *object = cur->pvalue;

		if (object->live)
			lifetime__free(object->live);
		refcnt_suspects__exit(&object->suspects);
		free(object->uses);
		free(object->prev);
		free(object);
	}
	hashmap__free(engine->objects);
	hashmap__free(engine->follow);
	hashmap__free(engine->threads);
	hashmap__free(engine->scan);
	refcnt_frees__delete(engine->frees);
	free(engine->scan_freed);
	refcnt_pair_model__delete(engine->model);
	refcnt_release_share__delete(engine->shares);
	refcnt_slot_track__delete(engine->slot_track);
	refcnt_refset_index__exit(&engine->refindex);
	free(engine);
}

void refcnt_engine__set_index_min(struct refcnt_engine *engine, u32 nr)
{
	engine->refindex.index_min = nr;
}

const struct refcnt_engine_stats *refcnt_engine__stats(const struct refcnt_engine *engine)
{
	return &engine->stats;
}

int refcnt_engine__follow(struct refcnt_engine *engine, u64 obj)
{
	struct hashmap_entry *cur;
	size_t bkt;
	int err;

	/* in every address space */
	hashmap__for_each_entry(engine->objects, cur, bkt) {
		struct refcnt_object *object = cur->pvalue;

		if (object->key.addr == obj)
			object->followed = true;
	}
	err = hashmap__add(engine->follow, obj, 1);
	return err == -EEXIST ? 0 : err;
}

static void ref__from_event(struct refcnt_ref *ref, const struct refcnt_event *ev, u8 op)
{
	ref->time = ev->time;
	ref->space = ev->space;
	ref->site = ev->site;
	ref->caller = ev->caller;
	ref->scope = ev->scope;
	memcpy(ref->up, ev->up, sizeof(ref->up));
	ref->stack = ev->stack;
	ref->owner = ev->owner;
	ref->owner_site = ev->owner_site;
	ref->owner_scope = ev->owner_scope;
	ref->tid = ev->tid;
	ref->scope_keeps = ev->scope_keeps;
	ref->holders = ev->holders;
	ref->slot = 0;
	ref->lost_site = 0;
	ref->lost_caller = 0;
	ref->lost_freed = false;
	ref->freed_site = 0;
	ref->freed_caller = 0;
	ref->home = 0;
	ref->home_site = 0;
	ref->kin_site = 0;
	ref->kin_caller = 0;
	ref->twin = false;
	ref->static_slot = false;
	ref->op = op;
}

/*
 * Was @ref taken by the function of @ev: the same function, and the same
 * inlined function in it or none; or the same inlined function, wherever
 * the compiler inlined it (inline_scope.h)?
 */
static bool ref__same_function(const struct refcnt_ref *ref, const struct refcnt_event *ev)
{
	return ref->scope == ev->scope && (ev->scope || ref->caller == ev->caller);
}

/*
 * Did the call of @ev's function take @ref, just before: in the same
 * function (ref__same_function()), or, for a get in its own body, in a
 * lookup inlined in it that hands the reference on to it (not one that
 * keeps it): the function took one more than the lookup gave it.
 */
static bool ref__follows_in_call(const struct refcnt_ref *ref, const struct refcnt_event *ev)
{
	return ref__same_function(ref, ev) ||
	       (!ev->scope && ref->scope && !ref->scope_keeps && ref->caller == ev->caller);
}

static bool live__known(int live)
{
	/* a saturated refcount_t reads negative: not a count either */
	return live != REFCNT_LIVE_UNKNOWN && live >= 0 && live <= REFCNT_LIVE_MAX;
}

/* References we count on a live lifetime. */
static int lifetime__count(const struct refcnt_lifetime *lt)
{
	return lt->refs.live + lt->unknown;
}

/*
 * Was @object's lifetime live across a lost-events window or an uncovered
 * hit of its type, or did it start uncertain? Counted, not marked on every
 * live lifetime at each window: O(1) however many are live.
 */
static bool object__uncertain(const struct refcnt_engine *engine,
			      const struct refcnt_object *object)
{
	return object->uncertain ||
	       (object->live && object->live->missed_at_start != engine->missed[object->type]);
}

static void engine__report(struct refcnt_engine *engine, const struct refcnt_object *object,
			   struct refcnt_finding *f, bool uncertain)
{
	f->type = object->type;
	f->obj = object->key.addr;
	f->space = object->key.space;
	f->generation = object->generation;
	f->uncertain = uncertain;
	engine->stats.findings[f->kind]++;
	if (uncertain)
		engine->stats.uncertain++;
	if (engine->ops.finding)
		engine->ops.finding(f, engine->priv);
}

/* The call a reference's share is counted for (release_share.h). */
static u64 ref__share_site(const struct refcnt_ref *ref)
{
	return ref->owner_site ?: ref->site;
}

/* @ref is outstanding on @lt from now on, and its site took one more. */
static int engine__push(struct refcnt_engine *engine, struct refcnt_lifetime *lt,
			const struct refcnt_ref *ref)
{
	int err = refcnt_release_share__take(engine->shares, lt->object->type,
					     ref__share_site(ref));

	return err ?: refcnt_refset__push(&lt->refs, ref);
}

/* @lt's reference at @pick is released, and its site released one more. */
static void engine__remove(struct refcnt_engine *engine, struct refcnt_lifetime *lt, u32 pick)
{
	refcnt_release_share__release(engine->shares, lt->object->type,
				      ref__share_site(refcnt_refset__at(&lt->refs, pick)));
	refcnt_refset__remove(&lt->refs, pick);
}

/* Accept any reference (refcnt_refset__pick_recent()). */
static bool ref__any(const struct refcnt_ref *ref __maybe_unused, const void *arg __maybe_unused)
{
	return true;
}

/* The most recent reference outstanding, REFSET_NONE if none. */
static u32 lifetime__last(struct refcnt_lifetime *lt)
{
	return refcnt_refset__pick_recent(&lt->refs, -1, ref__any, NULL);
}

static void lifetime__add_unknown(struct refcnt_lifetime *lt, const struct refcnt_event *ev,
				  int n)
{
	if (n <= 0)
		return;
	if (!lt->unknown)
		ref__from_event(&lt->unknown_ref, ev, REFCNT_OP__MAX);
	lt->unknown += n;
}

/* A use after put of @object's dead lifetime is the consequence of an extra put, if one showed. */
static void object__use_kind(const struct refcnt_object *object, struct refcnt_finding *f)
{
	if (object->extra_put)
		f->kind = REFCNT_FINDING__AFTER_EXTRA_PUT;
}

/*
 * Tell the uses after put of @object's dead lifetime: consequences of an
 * extra put if a double put followed its death, else bugs of their own.
 */
static void engine__tell_uses(struct refcnt_engine *engine, struct refcnt_object *object)
{
	for (u32 i = 0; i < object->nr_uses; i++) {
		struct deferred_use *use = &object->uses[i];

		object__use_kind(object, &use->f);
		for (u32 n = 0; n < use->times; n++)
			engine__report(engine, object, &use->f, use->f.uncertain);
	}
	zfree(&object->uses);
	object->nr_uses = 0;
	object->alloc_uses = 0;
	object->extra_put = false;
}

/* The kept use that @f repeats: the same call, stack, thread and freeing put. */
static struct deferred_use *object__kept_use(struct refcnt_object *object,
					     const struct refcnt_finding *f)
{
	for (u32 i = 0; i < object->nr_uses; i++) {
		const struct refcnt_finding *k = &object->uses[i].f;

		if (k->ref.site == f->ref.site && k->ref.stack == f->ref.stack &&
		    k->ref.tid == f->ref.tid && k->ref.op == f->ref.op &&
		    k->other.site == f->other.site && k->uncertain == f->uncertain)
			return &object->uses[i];
	}
	return NULL;
}

static int object__grow_uses(struct refcnt_object *object)
{
	struct deferred_use *uses;
	u32 alloc;

	if (object->nr_uses < object->alloc_uses)
		return 0;
	alloc = object->alloc_uses ? object->alloc_uses * 2 : 4;
	uses = reallocarray(object->uses, alloc, sizeof(*uses));
	if (!uses)
		return -ENOMEM;
	object->uses = uses;
	object->alloc_uses = alloc;
	return 0;
}

/*
 * A use after put of @object, told at once if its lifetime is known to have
 * died early, else kept until that is known. A hot object freed early is
 * used again by the same calls: each is kept once, with how many times. A
 * damaged or pathological recording can still use a dead object from
 * without end of different places: past REFCNT_DEFERRED_USES_MAX of them,
 * a use is told at once, uncertain, as the use after put it may be (the
 * report says how many: uses_unkept).
 */
static int engine__use_after_put(struct refcnt_engine *engine, struct refcnt_object *object,
				 struct refcnt_finding *f, bool uncertain)
{
	struct deferred_use *use;

	f->uncertain = uncertain;
	if (object->extra_put) {
		object__use_kind(object, f);
		engine__report(engine, object, f, uncertain);
		return 0;
	}
	use = object__kept_use(object, f);
	if (use && use->times < ~0U) {
		use->times++;
		return 0;
	}
	if (object->nr_uses >= REFCNT_DEFERRED_USES_MAX) {
		engine->stats.uses_unkept++;
		engine__report(engine, object, f, true);
		return 0;
	}
	if (object__grow_uses(object))
		return -ENOMEM;
	object->uses[object->nr_uses].f = *f;
	object->uses[object->nr_uses++].times = 1;
	return 0;
}

/* Start the next lifetime at @object's address. */
/*
 * A new lifetime starts at @object's address: keep the last one's
 * likeliest extra put, if it had a likely one, for a put of a reference
 * that lifetime stored (engine__earlier_word()). Returns 0 or -ENOMEM.
 */
static int object__keep_culprit(struct refcnt_object *object)
{
	if (!object->generation || object->culprit_level <= CULPRIT__NOT_ITS_OWN) {
		zfree(&object->prev);
		return 0;
	}
	if (!object->prev) {
		object->prev = malloc(sizeof(*object->prev));
		if (!object->prev)
			return -ENOMEM;
	}
	object->prev->culprit = object->culprit;
	object->prev->level = object->culprit_level;
	return 0;
}

static int engine__start(struct refcnt_engine *engine, struct refcnt_object *object,
			 const struct refcnt_event *ev)
{
	struct refcnt_lifetime *lt = zalloc(sizeof(*lt));

	if (!lt || object__keep_culprit(object)) {
		free(lt);
		return -ENOMEM;
	}
	engine__tell_uses(engine, object);
	lt->object = object;
	lt->missed_at_start = engine->missed[ev->type];
	refcnt_refset__init(&lt->refs, &engine->refindex);
	list_add_tail(&lt->node, &engine->live);
	object->live = lt;
	object->generation++;
	object->type = ev->type;
	object->dead = false;
	object->uncertain = false;
	object->has_release = false;
	object->has_culprit = false;
	object->over_released = false;
	object->culprit_level = CULPRIT__NONE;
	refcnt_suspects__reset(&object->suspects);
	object->dead_gets = 0;
	object->clone_fn = 0;	/* a birth sets it after */
	object->born_time = ev->time;
	object->await_free = false;
	engine->stats.objects[ev->type]++;
	engine->stats.live_lifetimes++;
	return 0;
}

/* The lifetime ends: keep only what findings on a later put or get need. */
static void engine__end_lifetime(struct refcnt_engine *engine, struct refcnt_object *object)
{
	object->uncertain = object__uncertain(engine, object);
	lifetime__free(object->live);
	object->live = NULL;
	object->dead = true;
	object->await_free = true;
	object->lost_at_death = engine->missed[object->type];
	engine->stats.live_lifetimes--;
}

/* A new lifetime is starting at a live address: its dies went unseen. */
static void engine__drop_lifetime(struct refcnt_engine *engine, struct refcnt_object *object)
{
	engine__end_lifetime(engine, object);
	object->dead = false;
	engine->stats.missed_dies++;
}

/*
 * An object we did not see born: it starts with its live refcount in
 * references of unknown origin, or one if that was not read.
 */
static int engine__start_unseen(struct refcnt_engine *engine, struct refcnt_object *object,
				const struct refcnt_event *ev)
{
	bool known = live__known(ev->live);
	int err = engine__start(engine, object, ev);

	if (err)
		return err;
	object->uncertain = !known || engine->missed[ev->type];
	lifetime__add_unknown(object->live, ev, known ? ev->live : 1);
	return 0;
}

/*
 * A birth or a get (@ref, of @ev): was it one more that a call took after
 * an insert it called took the table's reference, its own or its inlined
 * lookup's birth or get before that (dsos__findnew_id(): dso__new(), then
 * __dsos__add()'s get, then a get of its own)? That is the second of two
 * references the call took, as if nothing came between: the insert's is
 * the table's. An insert is a function that takes a holder of the type and
 * hands the reference on to nobody, called by the function that took.
 * Anything else starts anew. The events say no more of a call than its
 * function and the functions above it: a call of the function from the
 * same callers that takes again, with nothing between but such inserts,
 * is taken for the same call.
 */
static bool lifetime__take(struct refcnt_lifetime *lt, const struct refcnt_event *ev,
			   const struct refcnt_ref *ref)
{
	struct lifetime_take *take = &lt->take;
	bool same_tid = take->valid && take->caller && ev->caller && take->tid == ev->tid;
	bool more = false;

	if (same_tid && ev->op == REFCNT_OP__GET && ev->up[0] == take->caller &&
	    ev->caller != take->caller && ev->holders && !ev->hands_on) {
		take->inserted = true;
		return false;
	}
	if (same_tid && take->inserted && ev->op == REFCNT_OP__GET && !ev->scope &&
	    !take->keeps && take->caller == ev->caller && take->site != ev->site &&
	    !memcmp(take->up, ev->up, sizeof(take->up)))
		more = true;
	take->caller = ref->caller;
	take->site = ref->site;
	memcpy(take->up, ref->up, sizeof(take->up));
	take->tid = ref->tid;
	take->keeps = ref->scope_keeps;
	take->valid = true;
	take->inserted = false;
	return more;
}

static int engine__born(struct refcnt_engine *engine, struct refcnt_object *object,
			const struct refcnt_event *ev, struct refcnt_step *step)
{
	struct refcnt_lifetime *lt = object->live;
	struct refcnt_ref ref;
	int err;

	ref__from_event(&ref, ev, REFCNT_OP__BORN);
	if (lt && lt->only_born && lt->refs.live == 1 && !lt->unknown &&
	    object->type == ev->type &&
	    refcnt_refset__at(&lt->refs, lifetime__last(lt))->tid == ev->tid) {
		/* an outer constructor returns what an inner one made: no release */
		refcnt_refset__remove(&lt->refs, lifetime__last(lt));
		step->before = 1;
		lifetime__take(lt, ev, &ref);
		return engine__push(engine, lt, &ref);
	}
	if (lt)
		engine__drop_lifetime(engine, object);
	step->before = 0;
	err = engine__start(engine, object, ev);
	if (err)
		return err;
	lt = object->live;
	lt->only_born = true;
	lifetime__take(lt, ev, &ref);
	return engine__push(engine, lt, &ref);
}

/* Has the thread of @r been seen since @r: has @r's operation landed? */
static bool engine__landed(const struct refcnt_engine *engine, const struct refcnt_recent *r)
{
	long last;

	return hashmap__find(engine->threads, r->tid, &last) && (u64)last > r->time;
}

static void engine__add_recent(const struct refcnt_engine *engine, struct refcnt_lifetime *lt,
			       const struct refcnt_event *ev)
{
	struct refcnt_recent *r = NULL;

	for (u32 i = 0; i < lt->nr_recent && !r; i++) {
		if (lt->recent[i].tid == ev->tid)
			r = &lt->recent[i];
	}
	if (!r && lt->nr_recent < REFCNT_RECENT)
		r = &lt->recent[lt->nr_recent++];
	if (!r) {
		/* full: one that landed, else the oldest */
		r = &lt->recent[0];
		for (u32 i = 0; i < lt->nr_recent; i++) {
			if (engine__landed(engine, &lt->recent[i])) {
				r = &lt->recent[i];
				break;
			}
			if (lt->recent[i].time < r->time)
				r = &lt->recent[i];
		}
	}
	r->time = ev->time;
	r->tid = ev->tid;
	r->op = ev->op;
}

/*
 * Can a read by @ev, @delta off our count, be explained by the gets (it
 * reads fewer) and puts (more) of other threads that may not have landed?
 */
static bool engine__race(const struct refcnt_engine *engine, const struct refcnt_lifetime *lt,
			 const struct refcnt_event *ev, int delta)
{
	int gets = 0, puts = 0;

	for (u32 i = 0; i < lt->nr_recent; i++) {
		const struct refcnt_recent *r = &lt->recent[i];

		if (r->tid == ev->tid || engine__landed(engine, r))
			continue;
		if (r->op == REFCNT_OP__GET)
			gets++;
		else
			puts++;
	}
	return delta >= -gets && delta <= puts;
}

/*
 * Our count disagrees with the live refcount read before a get or put:
 * events were missed, or the read raced with a get or put of another
 * thread. A race that recent operations explain is no disagreement. Any
 * race leaves no trace, a missed event a lasting difference: a
 * disagreement is confirmed when the next read differs by as much, or at
 * once by a put finding nothing we counted to release.
 * Then say so, once per lifetime, with the first read, and take
 * the live count as the truth so that one missed event does not cascade:
 * add references of unknown origin, or drop the oldest ones (of unknown
 * origin first).
 */
static void engine__check_live(struct refcnt_engine *engine, struct refcnt_object *object,
			       const struct refcnt_event *ev, struct refcnt_step *step)
{
	struct refcnt_lifetime *lt = object->live;
	int count = lifetime__count(lt), drop;

	if (!live__known(ev->live))
		return;
	if (ev->live == count || engine__race(engine, lt, ev, ev->live - count)) {
		lt->pending = false;
		return;
	}
	if (!lt->pending || lt->pending_live - lt->pending_expected != ev->live - count) {
		ref__from_event(&lt->pending_ref, ev, ev->op);
		lt->pending_expected = count;
		lt->pending_live = ev->live;
		lt->pending = true;
		if (ev->op != REFCNT_OP__PUT || count)
			return;
	}

	lt->pending = false;
	if (!lt->mismatched && !object__uncertain(engine, object)) {
		struct refcnt_finding f = {
			.kind = REFCNT_FINDING__MISMATCH,
			.ref = lt->pending_ref,
			.expected = lt->pending_expected,
			.live = lt->pending_live,
		};

		lt->mismatched = true;
		engine__report(engine, object, &f, false);
		step->finding = REFCNT_FINDING__MISMATCH;
	}

	if (ev->live > count) {
		lifetime__add_unknown(lt, ev, ev->live - count);
		lt->guessed = true;
		return;
	}
	drop = count - ev->live;
	if (lt->unknown) {
		u32 n = min_t(u32, lt->unknown, drop);

		lt->unknown -= n;
		drop -= n;
	}
	if (drop) {
		refcnt_refset__drop_oldest(&lt->refs, drop);
		lt->guessed = true;
	}
}

static bool ref__same(const struct refcnt_ref *a, const struct refcnt_ref *b)
{
	return a->time == b->time && a->tid == b->tid && a->site == b->site;
}

static bool ref__not_twin(const struct refcnt_ref *ref, const void *arg __maybe_unused)
{
	return !ref->twin;
}

/* The second of two references one call took: the one its function keeps. */
static bool ref__twin(const struct refcnt_ref *ref, const void *arg __maybe_unused)
{
	return ref->twin;
}

/*
 * What a function kept, or was handed and still holds, is among its most
 * recent references: look at no more of them than this, so that a put
 * that finds none costs the same whatever else its callees stored.
 */
#define REFCNT_HANDED_RECENT	64

/* Is @ref the one handed as @arg says (struct refcnt_handed)? */
static bool ref__is_handed(const struct refcnt_ref *ref, const void *arg)
{
	const struct refcnt_handed *h = arg;

	return ref->time == h->time && ref->site == h->site && ref->tid == h->tid;
}

/* Was @ref handed to @fn by a call that @fn, still running, made? */
static bool lifetime__handed_running(const struct refcnt_lifetime *lt,
				     const struct refcnt_ref *ref, u64 fn)
{
	for (u8 i = 0; i < lt->nr_handed; i++) {
		const struct refcnt_handed *h = &lt->handed[i];

		if (h->owner == fn && ref__is_handed(ref, h))
			return true;
	}
	return false;
}

struct handed_arg {
	const struct refcnt_lifetime	*lt;
	const struct refcnt_event	*ev;
	int				pass;
	/* it came back there, to the running call (0: anywhere, any call) */
	u64				hand_site;
};

/*
 * Was @ref handed to the put's function: taken below it by functions that
 * all hand the type on to their callers (its owner, handoff.h)? What the
 * function it called kept (the second of two, or one an inlined function
 * there took and hands nobody) it was not handed, nor a birth that a table
 * took (threads__findnew() keeps the new thread and returns a get) while
 * there is another: passes 0 and 1 pass those over.
 */
static bool ref__handed_to(const struct refcnt_ref *ref, const void *arg)
{
	const struct handed_arg *h = arg;

	if (!ref->owner || ref->owner != h->ev->caller || ref->tid != h->ev->tid ||
	    (h->hand_site && (ref->owner_site != h->hand_site ||
			      !lifetime__handed_running(h->lt, ref, h->ev->caller))))
		return false;
	return h->pass > 1 ||
	       (!ref->twin && !ref->scope_keeps && (h->pass || ref->op != REFCNT_OP__BORN));
}

struct kept_arg {
	const struct refcnt_lifetime	*lt;
	const struct refcnt_event	*ev;
};

/*
 * Of the references a function that hands the type on took, is @ref one
 * it may release? Not the one it took last, on the put's thread with
 * nothing in between, unless it keeps it: that is the one this call
 * returns (threads__find() takes the thread it returns, then puts its
 * cache's old reference and takes the cache's new one).
 */
static bool ref__kept(const struct refcnt_ref *ref, const void *arg)
{
	const struct kept_arg *k = arg;
	const struct refcnt_ref *last = &k->lt->last;

	return !ref__same(ref, last) || last->op != REFCNT_OP__GET || last->twin ||
	       last->tid != k->ev->tid || last->caller != k->ev->caller;
}

/*
 * Is @ref the put's function's own: not kept by an inlined function in it
 * other than the put's (a map__init() inlined in map__new() stores the
 * dso it takes in the map)?
 */
static bool ref__own(const struct refcnt_ref *ref, const void *arg)
{
	const struct refcnt_event *ev = arg;

	return !ref->scope_keeps || ref->scope == ev->scope;
}

static bool ref__own_not_twin(const struct refcnt_ref *ref, const void *arg)
{
	return !ref->twin && ref__own(ref, arg);
}

/*
 * The reference taken in the function of the put (@ev's caller): by a
 * function that hands the type on, one it keeps, else one it may release
 * (ref__kept()); by others the birth if it is one, else the most recent,
 * passing over the second reference of a call that took two; never one
 * that an inlined function in it keeps (ref__own()).
 */
static u32 lifetime__pick_own(struct refcnt_lifetime *lt, const struct refcnt_event *ev)
{
	struct kept_arg kept = { .lt = lt, .ev = ev };
	u32 pick = REFSET_NONE;

	if (ev->hands_on) {
		pick = refcnt_refset__pick_frame_recent(&lt->refs, 0, ev->caller, ref__twin, NULL,
							REFCNT_HANDED_RECENT);
		if (pick == REFSET_NONE)
			pick = refcnt_refset__pick_frame(&lt->refs, 0, ev->caller, ref__kept,
							 &kept);
	}
	if (pick == REFSET_NONE)
		pick = refcnt_refset__pick_frame(&lt->refs, 0, ev->caller, ref__own_not_twin, ev);
	if (pick == REFSET_NONE)
		pick = refcnt_refset__pick_frame(&lt->refs, 0, ev->caller, ref__own, ev);
	return pick;
}

/*
 * The only reference still outstanding that the running call of the put's
 * function was handed, on the put's thread: its position, else REFSET_NONE,
 * also when that one is what the call kept (ref__handed_to()'s pass 1).
 * The list keeps the last REFCNT_HANDED_RUNNING handed: one dropped from
 * it is not counted (a call handed that many of one object is rare).
 */
static u32 lifetime__handed_only(struct refcnt_lifetime *lt, const struct refcnt_event *ev)
{
	u32 only = REFSET_NONE;

	for (u8 i = 0; i < lt->nr_handed; i++) {
		const struct refcnt_handed *h = &lt->handed[i];
		u32 pos;

		if (h->owner != ev->caller || h->tid != ev->tid)
			continue;
		pos = refcnt_refset__pick_frame_recent(&lt->refs, 0, h->caller, ref__is_handed, h,
						       REFCNT_HANDED_RECENT);
		if (pos == REFSET_NONE)
			continue;
		if (only != REFSET_NONE)
			return REFSET_NONE;
		only = pos;
	}
	if (only != REFSET_NONE) {
		const struct refcnt_ref *ref = refcnt_refset__at(&lt->refs, only);

		if (ref->twin || ref->scope_keeps)
			return REFSET_NONE;
	}
	return only;
}

/* One handed to the put's function as @h says, from the closest call first. */
static u32 lifetime__pick_handed_pass(struct refcnt_lifetime *lt, const struct handed_arg *h)
{
	u32 pick = REFSET_NONE;

	for (int depth = 1; pick == REFSET_NONE && depth <= REFCNT_UP_FRAMES; depth++)
		pick = refcnt_refset__pick_frame_recent(&lt->refs, depth, h->ev->caller,
							ref__handed_to, h, REFCNT_HANDED_RECENT);
	return pick;
}

/*
 * One handed to the put's function: one that came back to its running
 * call through a call site that the recording showed this put site
 * releasing what came back there (pair_model.h), else from the closest
 * call first, the most recent (ref__handed_to()). If the running call was
 * handed only one that is still outstanding, the site it came back
 * through is what @teach gets: what the model learns, whatever the pick.
 */
static u32 lifetime__pick_handed(struct refcnt_lifetime *lt, const struct refcnt_pair_model *model,
				 const struct refcnt_event *ev, u64 *teach)
{
	u32 pick = REFSET_NONE, only;
	u64 sites[REFCNT_PAIR_MODEL_WAYS];
	struct handed_arg h = { .lt = lt, .ev = ev };
	int nr;

	/*
	 * Only while the model learns: a frozen one teaches the replay. What
	 * a static variable holds is no more handed to the call than it is
	 * released by it (lifetime__pick()): the only one is of the others.
	 */
	if (refcnt_pair_model__learns(model)) {
		only = lifetime__handed_only(lt, ev);
		if (only != REFSET_NONE)
			*teach = refcnt_refset__at(&lt->refs, only)->owner_site;
	}
	nr = refcnt_pair_model__site_releases(model, ev->type, ev->site, sites,
					      REFCNT_PAIR_MODEL_WAYS);
	/* as it learns: not one the call kept */
	h.pass = 1;
	for (int i = 0; pick == REFSET_NONE && i < nr; i++) {
		h.hand_site = sites[i];
		pick = lifetime__pick_handed_pass(lt, &h);
	}
	if (pick != REFSET_NONE)
		return pick;
	h.hand_site = 0;
	for (h.pass = 0; pick == REFSET_NONE && h.pass < 3; h.pass++)
		pick = lifetime__pick_handed_pass(lt, &h);
	return pick;
}

/* Did the put's inlined function keep @ref, on the put's thread? */
static bool ref__scope_kept(const struct refcnt_ref *ref, const void *arg)
{
	const struct refcnt_event *ev = arg;

	return ref->scope_keeps && ref->tid == ev->tid;
}

/*
 * Neither the second of two one call took (the one its function keeps),
 * nor one an inlined function kept.
 */
static bool ref__not_twin_not_kept(const struct refcnt_ref *ref, const void *arg __maybe_unused)
{
	return !ref->twin && !ref->scope_keeps;
}

/*
 * The reference taken in the function of the put, else one handed to it
 * (machine__resolve() puts the thread machine__findnew_thread() returned
 * it, not the one thread__find_map() stored in its addr_location), else
 * one taken in the closest call made from it, passing over the second
 * reference of a call that took two while that call made another, and
 * first over what an inlined function kept (stored) in any of its calls,
 * and over such second references in any of them (a call keeps it too):
 * a put that did not load it releases what its own calls were handed
 * (machine__process_kernel_mmap_event() puts the kernel dso its lookup
 * returned, not the one map__new2() stored in the new map, though
 * map__new2() is the closer call).
 */
static bool lifetime__pick_caller(struct refcnt_lifetime *lt, const struct refcnt_pair_model *model,
				  const struct refcnt_event *ev, u32 *pick, u64 *teach)
{
	u64 caller = ev->caller;

	if (!caller)
		return false;
	/* a put in an inlined function releases what that function kept */
	*pick = REFSET_NONE;
	if (ev->scope)
		*pick = refcnt_refset__pick_frame(&lt->refs, REFSET_SCOPE, ev->scope,
						  ref__scope_kept, ev);
	if (*pick == REFSET_NONE)
		*pick = lifetime__pick_own(lt, ev);
	if (*pick == REFSET_NONE)
		*pick = lifetime__pick_handed(lt, model, ev, teach);
	for (int depth = 1; *pick == REFSET_NONE && depth <= REFCNT_UP_FRAMES; depth++)
		*pick = refcnt_refset__pick_frame(&lt->refs, depth, caller,
						  ref__not_twin_not_kept, NULL);
	for (int depth = 1; *pick == REFSET_NONE && depth <= REFCNT_UP_FRAMES; depth++) {
		*pick = refcnt_refset__pick_frame(&lt->refs, depth, caller, ref__not_twin, NULL);
		if (*pick == REFSET_NONE)
			*pick = refcnt_refset__pick_frame(&lt->refs, depth, caller, NULL, NULL);
	}
	return *pick != REFSET_NONE;
}

/* Is function @fn one of those running above @ev's (its caller frames)? */
static bool event__runs_above(const struct refcnt_event *ev, u64 fn)
{
	const u64 *above = ev->above ?: ev->up;
	u32 nr = ev->above ? ev->nr_above : REFCNT_UP_FRAMES;

	for (u32 i = 0; i < nr; i++) {
		if (above[i] == fn)
			return true;
	}
	return false;
}

/*
 * An event on @lt's object: the owners it runs outside of, on its thread,
 * have returned (what their calls were handed is theirs no more); then a
 * reference it hands to its owner is the owner's while it runs.
 */
static void lifetime__track_handed(struct refcnt_lifetime *lt, const struct refcnt_event *ev)
{
	u8 n = 0;

	for (u8 i = 0; i < lt->nr_handed; i++) {
		const struct refcnt_handed *h = &lt->handed[i];

		if (h->tid == ev->tid && h->owner != ev->caller && !event__runs_above(ev, h->owner))
			continue;
		lt->handed[n++] = *h;
	}
	lt->nr_handed = n;
	if ((ev->op != REFCNT_OP__GET && ev->op != REFCNT_OP__BORN) || !ev->owner)
		return;
	if (lt->nr_handed == REFCNT_HANDED_RUNNING) {
		memmove(lt->handed, lt->handed + 1,
			sizeof(lt->handed[0]) * (REFCNT_HANDED_RUNNING - 1));
		lt->nr_handed--;
	}
	lt->handed[lt->nr_handed++] = (struct refcnt_handed){
		.time = ev->time, .site = ev->site, .caller = ev->caller, .owner = ev->owner,
		.tid = ev->tid,
	};
}

/*
 * Was @ref taken, on the put's thread, by a function that is still running
 * above the put (one of its caller frames)? That function releases it
 * itself, or hands it on: a put in one of its callees is releasing
 * something else (a callchain cursor reset inside hist_entry_iter__add()
 * does not put the map hist_entry_iter__add() holds).
 */
static bool ref__held_above(const struct refcnt_ref *ref, const struct refcnt_event *ev)
{
	if (!ref->caller || ref->tid != ev->tid || ref->caller == ev->caller)
		return false;
	return event__runs_above(ev, ref->caller);
}

static bool ref__held_above_arg(const struct refcnt_ref *ref, const void *arg)
{
	return ref__held_above(ref, arg);
}

/* Does a function running above the put hold a reference it took? */
static bool lifetime__held_above(struct refcnt_lifetime *lt, const struct refcnt_event *ev)
{
	const u64 *above = ev->above ?: ev->up;
	u32 nr = ev->above ? ev->nr_above : REFCNT_UP_FRAMES;

	for (u32 i = 0; i < nr; i++) {
		if (above[i] && refcnt_refset__pick_frame(&lt->refs, 0, above[i],
							  ref__held_above_arg, ev) != REFSET_NONE)
			return true;
	}
	return false;
}

/*
 * Was @ref handed, on the put's thread, to a function still running above
 * the put (its owner, handoff.h)? As for one it took itself (above), that
 * function releases it or hands it on: a lookup's result that a sched
 * switch handler holds is not what the addr_location__exit() it calls puts.
 */
static bool ref__owned_above(const struct refcnt_ref *ref, const struct refcnt_event *ev)
{
	if (!ref->owner || ref->tid != ev->tid || ref->owner == ev->caller)
		return false;
	return event__runs_above(ev, ref->owner);
}

/*
 * How unlikely a weak rule should release @ref: 0 for most, 1 for the
 * second reference of a call that took two (the likely extra get, kept for
 * the leak it may be), 2 for one a function above the put holds (took
 * itself, or was handed by its callees).
 */
static int ref__keep(const struct refcnt_ref *ref, const struct refcnt_event *ev)
{
	return ref__held_above(ref, ev) || ref__owned_above(ref, ev) ? 2 : ref->twin;
}

/*
 * Was @ref handed to a function (its owner, handoff.h) that has returned
 * since, on the put's thread, without putting it? It stored it, or it
 * leaked it. A put with nothing else to go by releases first a reference
 * that the function which took it keeps by design (an insert's, a
 * birth's, one an inlined function kept: maps__sort_by_name()'s in the
 * lookup maps__find_by_name()): whether the owner stored the lookup's
 * result, no event says.
 */
static bool ref__escaped(const struct refcnt_ref *ref, const struct refcnt_event *ev)
{
	return ref->owner && !ref->scope_keeps && ref->tid == ev->tid &&
	       ref->owner != ev->caller && !event__runs_above(ev, ref->owner);
}

struct keep_arg {
	const struct refcnt_event *ev;
	int keep;
	bool not_escaped;	/* and not one ref__escaped() says */
	u64 frame;		/* the put's caller, as the common caller looked
				 * for (ref__common()), or 0
				 */
};

static bool ref__kept_no_more(const struct refcnt_ref *ref, const void *arg)
{
	const struct keep_arg *k = arg;

	return ref__keep(ref, k->ev) <= k->keep &&
	       !(k->not_escaped && ref__escaped(ref, k->ev));
}

/*
 * The most recent reference taken by the put's thread (@same_thread), or
 * by any, that is kept no more than @keep.
 */
static bool lifetime__pick_recent(struct refcnt_lifetime *lt, const struct refcnt_event *ev,
				  bool same_thread, int keep, u32 *pick)
{
	struct keep_arg arg = { .ev = ev, .keep = keep, .not_escaped = same_thread && !keep };

	/*
	 * Not bounded as the common caller's pick is: the keepers are the
	 * oldest (a birth, an insert), under as many gone owners' references
	 * as a leak left; the pick below walks as far for what it passes over
	 */
	if (arg.not_escaped) {
		*pick = refcnt_refset__pick_recent(&lt->refs, ev->tid, ref__kept_no_more, &arg);
		if (*pick != REFSET_NONE)
			return true;
		arg.not_escaped = false;
	}

	*pick = refcnt_refset__pick_recent(&lt->refs, same_thread ? (s64)ev->tid : -1,
					   ref__kept_no_more, &arg);
	return *pick != REFSET_NONE;
}

/*
 * A reference taken by a function whose references the put's function
 * released where it had one choice, the most often first, that no rule
 * keeps (see ref__keep(): not the second of two one call took, nor one
 * held above the put).
 */
static bool lifetime__pick_learnt(struct refcnt_lifetime *lt, const struct refcnt_pair_model *model,
				  const struct refcnt_event *ev, u32 *pick)
{
	u64 get_fns[REFCNT_PAIR_MODEL_WAYS];
	int nr = refcnt_pair_model__releases(model, ev->type, ev->caller, get_fns,
					     REFCNT_PAIR_MODEL_WAYS);
	struct keep_arg arg = { .ev = ev, .keep = 0 };

	for (int i = 0; i < nr; i++) {
		*pick = refcnt_refset__pick_frame(&lt->refs, 0, get_fns[i], ref__kept_no_more,
						  &arg);
		if (*pick != REFSET_NONE)
			return true;
	}
	return false;
}

/* frames above a put searched for a caller it shares with a reference */
#define REFCNT_COMMON_FRAMES	6

/*
 * Is @fn the caller of @ref's owner, among the frames kept above its site?
 * The owner may have filled a struct of its caller's (an addr_location:
 * an out-parameter the handoff's DWARF does not see), which that caller's
 * call tree then puts.
 */
static bool ref__owner_called_by(const struct refcnt_ref *ref, u64 fn)
{
	if (!fn)
		return false;	/* not the put's caller; up[] may hold 0s */
	for (int i = 0; i + 1 < REFCNT_UP_FRAMES; i++) {
		if (ref->up[i] == ref->owner)
			return ref->up[i + 1] == fn;
	}
	return false;
}

/*
 * One taken on the put's thread that no rule keeps (ref__keep()); one that
 * a lookup handed to a function which has returned since (ref__escaped())
 * only when the put's caller called that function, the owner, and the put
 * releases what the owner filled for it (addr_location__exit() of the
 * addr_location machine__resolve() filled). Else its call tree closed at
 * the owner, and sharing a function further above says nothing of which
 * put releases it (perf kmem's teardown, deep below cmd_kmem(), and the
 * kernel map lookups that cmd_kmem()'s printing never put).
 */
static bool ref__common(const struct refcnt_ref *ref, const void *arg)
{
	const struct keep_arg *k = arg;

	return ref->tid == k->ev->tid && ref__kept_no_more(ref, arg) &&
	       (!ref__escaped(ref, k->ev) || ref__owner_called_by(ref, k->frame));
}

/* The same, and not one an inlined function kept (stored). */
static bool ref__common_not_kept(const struct refcnt_ref *ref, const void *arg)
{
	return !ref->scope_keeps && ref__common(ref, arg);
}

/*
 * A reference taken below the closest function above the put that also
 * made the reference's call: the put's caller frames, closest first,
 * each looked up among the frames of the references, closest first: the
 * most recent taken on the put's thread that no rule keeps (ref__keep():
 * not one a function above the put holds).
 * What the calls below that function took, the puts made for it release:
 * the balance of a call tree stays in it. Of those as close, one that an
 * inlined function kept comes last: what a function stores leaves its
 * call tree (threads__find()'s last-match cache, which its next call
 * releases, beside the thread an addr_location holds).
 */
static bool lifetime__pick_common(struct refcnt_lifetime *lt, const struct refcnt_event *ev,
				  u32 *pick)
{
	const u64 *above = ev->above ?: ev->up;
	u32 nr = ev->above ? ev->nr_above : REFCNT_UP_FRAMES;
	struct keep_arg arg = { .ev = ev, .keep = 0 };

	for (u32 i = 0; i < nr && i < REFCNT_COMMON_FRAMES && above[i]; i++) {
		/* only the put's own caller's struct: see ref__common() */
		arg.frame = i ? 0 : above[i];
		for (int depth = 0; depth <= REFCNT_UP_FRAMES; depth++) {
			*pick = refcnt_refset__pick_frame_recent(&lt->refs, depth, above[i],
								 ref__common_not_kept, &arg,
								 REFCNT_HANDED_RECENT);
			if (*pick == REFSET_NONE)
				*pick = refcnt_refset__pick_frame_recent(&lt->refs, depth,
									 above[i], ref__common,
									 &arg,
									 REFCNT_HANDED_RECENT);
			if (*pick != REFSET_NONE)
				return true;
		}
	}
	return false;
}

/*
 * Was @ref stored in a holder of a kind the put's function takes a pointer
 * to (handoff.h)? Not one a rule keeps (ref__keep()).
 */
static bool ref__in_holder(const struct refcnt_ref *ref, const void *arg)
{
	const struct keep_arg *k = arg;

	return (ref->holders & k->ev->holders) && ref__kept_no_more(ref, arg);
}

static bool ref__in_holder_thread(const struct refcnt_ref *ref, const void *arg)
{
	const struct keep_arg *k = arg;

	return ref->tid == k->ev->tid && ref__in_holder(ref, arg);
}

/*
 * What a holder keeps is among an object's oldest references: look at no
 * more of them, so that a put that finds none costs a bounded time.
 */
#define REFCNT_HOLDER_OLDEST	256

/*
 * A put whose function takes a pointer to a holder (a remove, a
 * destructor: __maps__remove(struct maps *, struct map *),
 * thread__delete()) releases what a function taking a pointer to a holder
 * of that kind stored: an insert's (__maps__insert()), a constructor's
 * (thread__init_maps()). The oldest first: a holder keeps its references
 * longest. Only where the call trees say nothing: a teardown, far from
 * the calls that filled the holder.
 */
static bool lifetime__pick_holder(struct refcnt_lifetime *lt, const struct refcnt_event *ev,
				  u32 *pick)
{
	struct keep_arg arg = { .ev = ev, .keep = 0 };

	if (!ev->holders)
		return false;
	/* the put's thread's first: perf top's threads fill holders of their own */
	*pick = refcnt_refset__pick_oldest(&lt->refs, ref__in_holder_thread, &arg,
					   REFCNT_HOLDER_OLDEST);
	if (*pick == REFSET_NONE)
		*pick = refcnt_refset__pick_oldest(&lt->refs, ref__in_holder, &arg,
						   REFCNT_HOLDER_OLDEST);
	return *pick != REFSET_NONE;
}

/* Was @ref taken on the put's thread? */
static bool ref__same_thread(const struct refcnt_ref *ref, const void *arg)
{
	const struct refcnt_event *ev = arg;

	return ref->tid == ev->tid;
}

/*
 * The reference stored to the slot the put's argument was loaded from
 * (slot_code.h): the most recent store there, if more than one (what the
 * first stored was overwritten). On the put's thread only: a stack slot
 * is reused by the thread's later frames, and another thread's store
 * there, long gone, says nothing of this put.
 */
static bool lifetime__pick_slot(struct refcnt_lifetime *lt, const struct refcnt_event *ev,
				u64 slot, u32 *pick)
{
	if (!slot)
		return false;
	*pick = refcnt_refset__pick_frame_recent(&lt->refs, REFSET_SLOT, slot, ref__same_thread,
						 ev, (u32)-1);
	return *pick != REFSET_NONE;
}

/*
 * Which outstanding reference a put releases, and how sure that is: its
 * position in lt->refs, or REFSET_NONE for one of unknown origin. @teach
 * gets the call site it was handed through if it was the only one handed
 * to the put's function (lifetime__pick_handed()).
 */
static enum refcnt_confidence lifetime__pick_among(struct refcnt_lifetime *lt,
						   const struct refcnt_pair_model *model,
						   const struct refcnt_event *ev, u32 *pick,
						   u64 *teach)
{
	if (lifetime__pick_caller(lt, model, ev, pick, teach))
		return REFCNT_PAIR__SAME_CALLER;
	if (lifetime__pick_learnt(lt, model, ev, pick))
		return REFCNT_PAIR__LEARNT;
	if (lifetime__pick_common(lt, ev, pick))
		return REFCNT_PAIR__COMMON_CALLER;
	if (lifetime__pick_holder(lt, ev, pick))
		return REFCNT_PAIR__HOLDER;
	for (int keep = 0; keep < 2; keep++) {
		if (lifetime__pick_recent(lt, ev, true, keep, pick))
			return REFCNT_PAIR__SAME_THREAD;
	}
	/* then any thread's; one of unknown origin before one held above */
	if (!lifetime__pick_recent(lt, ev, false, 1, pick) &&
	    (lt->unknown || !lifetime__pick_recent(lt, ev, false, 2, pick)))
		*pick = REFSET_NONE;
	return REFCNT_PAIR__MOST_RECENT;
}

/*
 * The put did not load its argument from a slot (lifetime__pick_slot()):
 * of several references, one a static variable holds is the last choice,
 * and so is one stored over there by another function than the put's.
 * Nothing moves a static variable's word unseen (a heap word can move with
 * its array), and code that drops what one holds reads it from there, or
 * copies it, stores over it, and puts the copy: a cache of one that keeps
 * a reference of what its lookup returns is not released by the caller's
 * put of the returned one, then or after the cache moved on.
 */
static enum refcnt_confidence lifetime__pick(struct refcnt_lifetime *lt,
					     const struct refcnt_pair_model *model,
					     const struct refcnt_event *ev, u32 *pick, u64 *teach)
{
	enum refcnt_confidence confidence;

	if (lifetime__count(lt) == 1) {
		/* the one in refs, or of unknown origin if none */
		*pick = lifetime__last(lt);
		return REFCNT_PAIR__EXACT;
	}
	lt->refs.hide_static = true;
	lt->refs.hide_unless_lost_by = ev->caller;
	confidence = lifetime__pick_among(lt, model, ev, pick, teach);
	lt->refs.hide_static = false;
	/* none picked: one of unknown origin, if any, before a static one */
	if (*pick == REFSET_NONE && !lt->unknown)
		confidence = lifetime__pick_among(lt, model, ev, pick, teach);
	return confidence;
}

/* @put is the likely extra put of @object's lifetime if none likelier came first. */
/* Why a finding names @object's culprit. */
static enum refcnt_site_why culprit_level__why(u8 level)
{
	switch (level) {
	case CULPRIT__BORROWED:		return REFCNT_WHY__BORROWED;
	case CULPRIT__MEMBER:
	case CULPRIT__COPIED:		return REFCNT_WHY__COPIED;
	case CULPRIT__ONE_MORE:		return REFCNT_WHY__ONE_MORE;
	case CULPRIT__TWO_AT_ONCE:	return REFCNT_WHY__TWO_AT_ONCE;
	case CULPRIT__NOT_ITS_OWN:	return REFCNT_WHY__NOT_ITS_OWN;
	case CULPRIT__NONE:
	default:			return REFCNT_WHY__EVENT;
	}
}

static void object__culprit(struct refcnt_object *object, const struct refcnt_ref *put,
			    enum culprit_level level)
{
	if (level <= object->culprit_level)
		return;
	object->culprit = *put;
	object->has_culprit = true;
	object->culprit_level = level;
}

/*
 * Who the over-release of @object by @put (f->ref) is blamed on: a put
 * whose word says it released nothing (engine__word_culprit()); else a
 * put by a function that released its own and at once one more, or whose
 * callee put it again at once; else the put that releases nothing
 * (suspects.h); else the first put that released none its function took.
 * Naming @put itself, the event is the site.
 */
static void engine__blame(const struct refcnt_engine *engine,
			  const struct refcnt_object *object, struct refcnt_finding *f)
{
	const struct refcnt_ref *culprit = NULL;

	f->why = REFCNT_WHY__EVENT;
	if (object->culprit_level > CULPRIT__NOT_ITS_OWN) {
		culprit = &object->culprit;
		f->why = culprit_level__why(object->culprit_level);
	} else {
		culprit = refcnt_suspects__pick(&object->suspects, engine->model, object->type);
		if (culprit) {
			f->why = REFCNT_WHY__RELEASES_NOTHING;
		} else if (object->has_culprit) {
			culprit = &object->culprit;
			f->why = REFCNT_WHY__NOT_ITS_OWN;
		}
	}
	if (!culprit || ref__same(culprit, &f->ref)) {
		/* releasing nothing is not news: the event is the site */
		if (f->why == REFCNT_WHY__NOT_ITS_OWN || f->why == REFCNT_WHY__RELEASES_NOTHING)
			f->why = REFCNT_WHY__EVENT;
		return;
	}
	f->culprit = *culprit;
	f->has_culprit = true;
}

/*
 * Does @w hold @object, stored there by a copy with no get, for put @put?
 * A copy into the copier's own frame only for a put below that function:
 * its frame still runs.
 */
static bool word__borrowed_for(const struct refcnt_slot_word *w,
			       const struct refcnt_object *object, const struct refcnt_ref *put)
{
	bool below = !w->frame || put->caller == w->caller;

	for (int i = 0; !below && i < REFCNT_UP_FRAMES; i++)
		below = put->up[i] == w->caller;
	return w->borrowed && below && w->space == object->key.space &&
	       w->obj == object->key.addr;
}

/* Does the word at @slot hold @object, stored there by a copy with no get, for @put? */
static bool engine__borrowed_word(const struct refcnt_engine *engine,
				  const struct refcnt_object *object, u64 slot,
				  const struct refcnt_ref *put)
{
	struct refcnt_slot_word w;

	return slot && refcnt_slot_track__word(engine->slot_track, slot, &w) &&
	       word__borrowed_for(&w, object, put);
}

/*
 * A put of what the word at @slot held, which a copy stored there with no
 * get (a borrowed pointer kept): the reference it releases was never that
 * word's, and the copy is the likeliest cause of an over-release. Named at
 * the copy, with the put's callchain.
 */
static void engine__borrowed_put(struct refcnt_object *object, const struct refcnt_ref *put,
				 const struct refcnt_slot_word *w)
{
	struct refcnt_ref culprit;

	if (!w || !word__borrowed_for(w, object, put))
		return;
	culprit = *put;
	culprit.site = w->site;
	culprit.caller = w->caller;
	culprit.scope = 0;
	object__culprit(object, &culprit, CULPRIT__BORROWED);
}

/* words below a slot searched for the object that holds it */
#define REFCNT_HOLDER_WORDS	32

/*
 * The object (of the audited types) that starts closest below @slot in
 * @space, within REFCNT_HOLDER_WORDS words: the struct that holds the word,
 * live or dying (map__delete() puts its dso after the map's death). Not
 * if the word lies past the biggest block an object of its type was
 * freed from: then the word is in another block, beside it.
 */
static struct refcnt_object *engine__holder_at(const struct refcnt_engine *engine, u64 space,
					       u64 slot)
{
	u64 word = slot & ~(u64)(sizeof(u64) - 1);

	for (u64 k = 0; k < REFCNT_HOLDER_WORDS && word >= k * sizeof(u64); k++) {
		struct refcnt_space_addr key = { .space = space, .addr = word - k * sizeof(u64) };
		struct refcnt_object *object;

		if (!hashmap__find(engine->objects, &key, &object) || !object->generation)
			continue;
		if (object->type < REFCNT_TYPE__MAX_NR && engine->type_bytes[object->type] &&
		    slot - key.addr >= engine->type_bytes[object->type])
			return NULL;
		return object;
	}
	return NULL;
}

/*
 * A put of what the word at @slot held, in an object a copy constructor
 * made (map__clone(): memdup() of the original, then a get of what the
 * copy points to), when no store put @object there since that birth (a
 * store probe sees the get's): a copy without that get, which makes the
 * copy's put one too many. Named at the copy constructor, with the put's
 * callchain.
 */
static void engine__cloned_put(struct refcnt_engine *engine, struct refcnt_object *object,
			       const struct refcnt_ref *put, u64 slot,
			       const struct refcnt_slot_word *w)
{
	struct refcnt_object *holder;
	struct refcnt_ref culprit;

	if (!slot || engine->stats.slot_words_full)
		return;
	holder = engine__holder_at(engine, object->key.space, slot);
	if (!holder || holder == object || !holder->clone_fn || holder->clone_time > put->time)
		return;
	/*
	 * A store of it there by the constructor (its get, before the birth
	 * returned), or by anyone since
	 */
	if (w && w->space == object->key.space && w->obj == object->key.addr &&
	    (w->caller == holder->clone_fn || w->ref_time >= holder->clone_time))
		return;
	culprit = *put;
	culprit.site = holder->clone_fn;
	culprit.caller = holder->clone_fn;
	culprit.scope = 0;
	object__culprit(object, &culprit, CULPRIT__COPIED);
}

/* Is @ref the reference the word's last store joined (@arg)? */
static bool ref__stored_last(const struct refcnt_ref *ref, const void *arg)
{
	const struct refcnt_slot_word *w = arg;

	return ref->time == w->ref_time && ref->site == w->ref_site;
}

/*
 * The reference that the store which filled word @slot joined (@w), if
 * its object lives and it is still outstanding: its position in the
 * lifetime set in @ltp, else REFSET_NONE.
 */
static u32 engine__word_ref(const struct refcnt_engine *engine, const struct refcnt_slot_word *w,
			    u64 slot, struct refcnt_lifetime **ltp)
{
	struct refcnt_space_addr key = { .space = w->space, .addr = w->obj };
	struct refcnt_object *object;

	if (!w->ref_time || !hashmap__find(engine->objects, &key, &object) || !object->live ||
	    object->type != w->type)
		return REFSET_NONE;
	*ltp = object->live;
	return refcnt_refset__pick_frame_recent(&object->live->refs, REFSET_SLOT, slot,
						ref__stored_last, w, REFSET_ALL);
}

/* How far from a word the other members of its struct are looked for, in words */
#define REFCNT_NEIGHBOUR_WORDS	3

/*
 * Each word within REFCNT_NEIGHBOUR_WORDS of @slot that a store of @space
 * filled with an object not of @type (an array's entries are of one type:
 * a struct's members are not), to @member, until it returns false.
 */
static void engine__members_beside(struct refcnt_engine *engine, u64 slot, u64 space, u8 type,
				   bool (*member)(u64 word, const struct refcnt_slot_word *n,
						  void *arg),
				   void *arg)
{
	for (int d = -REFCNT_NEIGHBOUR_WORDS; d <= REFCNT_NEIGHBOUR_WORDS; d++) {
		u64 word = slot + d * (s64)sizeof(u64);
		struct refcnt_slot_word n;

		if (d && refcnt_slot_track__word(engine->slot_track, word, &n) &&
		    n.space == space && n.type != type && !member(word, &n, arg))
			return;
	}
}

/* What engine__neighbours_put() looks for beside a word: its filler's other stores. */
struct neighbours_put {
	struct refcnt_engine		*engine;
	const struct refcnt_event	*ev;
	u64				filler;
};

static bool neighbour__put_by(u64 word, const struct refcnt_slot_word *n, void *arg)
{
	struct neighbours_put *np = arg;
	struct refcnt_lifetime *lt;
	u32 pos;

	if (n->caller != np->filler || n->borrowed)
		return true;
	pos = engine__word_ref(np->engine, n, word, &lt);
	if (pos != REFSET_NONE)
		refcnt_refset__set_kin(&lt->refs, pos, np->ev->site, np->ev->caller);
	return true;
}

/*
 * Put @ev released the reference stored in the word at @slot: those that
 * the function which stored it stored beside it (a struct's members),
 * still outstanding there, were left by @ev's function, if that is
 * another function (a struct filled by thread__find_map() and torn down
 * by addr_location__exit(), which puts each member it knows of). A
 * function that puts what it stored before it stores again is no
 * teardown of what it filled; the entries of an array beside it, of its
 * type, are no members.
 */
static void engine__neighbours_put(struct refcnt_engine *engine, const struct refcnt_event *ev,
				   u64 slot)
{
	struct neighbours_put np = { .engine = engine, .ev = ev };
	struct refcnt_slot_word w;

	if (!refcnt_slot_track__word(engine->slot_track, slot, &w) || w.space != ev->space ||
	    !w.caller || w.caller == ev->caller || w.borrowed)
		return;
	np.filler = w.caller;
	engine__members_beside(engine, slot, ev->space, ev->type, neighbour__put_by, &np);
}

/*
 * Is @n, a word beside the one put @put loaded its object from (what a
 * store put there last: @w, or NULL), a member the function that filled
 * the struct stored since, with a get (a copy joins none, unless a get of
 * what it copied came next), before the put? (engine__members_beside()
 * passes only words of another type than the object's.)
 */
static bool word__filled_beside(const struct refcnt_slot_word *n, const struct refcnt_ref *put,
				const struct refcnt_slot_word *w)
{
	return n->ref_time && n->caller && n->time <= put->time && (!w || w->time < n->time);
}

/* What engine__member_put() looks for beside a word: the one function that filled them. */
struct member_fill {
	const struct refcnt_ref		*put;
	const struct refcnt_slot_word	*w;
	struct refcnt_slot_word		fill;
	bool				found, two;
};

static bool member__filled_by(u64 word __maybe_unused, const struct refcnt_slot_word *n,
			      void *arg)
{
	struct member_fill *mf = arg;

	if (!word__filled_beside(n, mf->put, mf->w))
		return true;
	/* filled by two functions (a setter since, another block): no one filler */
	if (mf->found && n->caller != mf->fill.caller) {
		mf->two = true;
		return false;
	}
	if (!mf->found || n->time > mf->fill.time)
		mf->fill = *n;
	mf->found = true;
	return true;
}

/*
 * A put of what the word at @slot held, where no store put @object since
 * the function that filled its struct stored the members beside it, each
 * with its get (a struct copied whole, then a get of each member it
 * keeps: callchain_cursor_append(), hist_entry__init()): this member was
 * copied with the struct and no get, and its put is one too many. Named
 * at that function, with the put's callchain. The entries of an array
 * beside it, of its type, are no members (engine__neighbours_put()); nor
 * is a struct on the stack evidence: what a frame stores in its own
 * locals is not followed (add_callchain_ip()'s map_symbol, next to the
 * addr_location that thread__find_map() filled); nor are members that two
 * functions stored (a setter since, the block next door), nor those the
 * putting function stored (it replaces one member, then puts another).
 * Returns whether it named one.
 */
static bool engine__member_put(struct refcnt_engine *engine, struct refcnt_object *object,
			       const struct refcnt_ref *put, u64 slot,
			       const struct refcnt_slot_word *w)
{
	struct member_fill mf = { .put = put };
	struct refcnt_ref culprit;

	if (!slot || engine->stats.slot_words_full ||
	    refcnt_slot_track__on_stack(engine->slot_track, put->tid, slot))
		return false;
	if (w && w->space != object->key.space)
		w = NULL;	/* another process's word: nothing stored there for this one */
	if (w && w->obj == object->key.addr)
		return false;
	mf.w = w;
	engine__members_beside(engine, slot, object->key.space, object->type,
			       member__filled_by, &mf);
	/* a function that stores one member, then puts another, replaces it */
	if (!mf.found || mf.two || mf.fill.caller == put->caller)
		return false;
	culprit = *put;
	culprit.site = mf.fill.site;
	culprit.caller = mf.fill.caller;
	culprit.scope = 0;
	object__culprit(object, &culprit, CULPRIT__MEMBER);
	engine->stats.members_copied++;
	return true;
}

/*
 * What the word at @slot, that put @put loaded @object from, says of the
 * reference it released: none, if a copy put the object there without a
 * get (culprits above, in the order of their evidence).
 */
static void engine__word_culprit(struct refcnt_engine *engine, struct refcnt_object *object,
				 const struct refcnt_ref *put, u64 slot)
{
	struct refcnt_slot_word stored;
	const struct refcnt_slot_word *w;

	if (!slot)
		return;
	w = refcnt_slot_track__word(engine->slot_track, slot, &stored) ? &stored : NULL;
	engine__borrowed_put(object, put, w);
	/* the struct its neighbours say, not whatever audited object lies below */
	if (!engine__member_put(engine, object, put, slot, w))
		engine__cloned_put(engine, object, put, slot, w);
}

/*
 * The function of put @ev put @lt's object; it and those above it had it
 * put. If the put released the reference stored in the word at @slot
 * that it loaded (0: not known), they put that one.
 */
static int lifetime__add_putters(struct refcnt_lifetime *lt, const struct refcnt_event *ev,
				 u64 slot)
{
	int err;

	err = refcnt_putters__add(&lt->put_by, ev->caller, slot) ?:
	      refcnt_putters__add(&lt->put_below, ev->caller, slot);
	for (int i = 0; i < REFCNT_UP_FRAMES && !err; i++)
		err = refcnt_putters__add(&lt->put_below, ev->up[i], slot);
	return err;
}

/*
 * A put paired with no choice (@step EXACT), or with the only reference
 * handed to its function (@teach: the call site it came back through),
 * none guessed before: what the recording teaches about the others.
 */
static void engine__learn(struct refcnt_engine *engine, const struct refcnt_object *object,
			  const struct refcnt_lifetime *lt, const struct refcnt_step *step,
			  u64 teach)
{
	const struct refcnt_event *ev = step->ev;

	if (lt->guessed || object__uncertain(engine, object))
		return;
	if (step->confidence == REFCNT_PAIR__EXACT &&
	    refcnt_pair_model__learn(engine->model, ev->type, step->paired.caller, ev->caller))
		engine->stats.model_full++;
	if (teach && refcnt_pair_model__learn_site(engine->model, ev->type, teach, ev->site))
		engine->stats.model_full++;
}

/*
 * What put @ev (@put) releases, unless it is one too many (@over): the
 * reference stored in the word it loaded its argument from, if that
 * says, else the pairing's pick (@step); who put it, and what that
 * teaches. Returns 0 or -ENOMEM.
 */
static int engine__put_pair(struct refcnt_engine *engine, struct refcnt_object *object,
			    const struct refcnt_event *ev, struct refcnt_step *step,
			    const struct refcnt_ref *put, bool over)
{
	struct refcnt_lifetime *lt = object->live;
	u64 slot, teach = 0;
	u32 pick = 0;

	slot = refcnt_slot_track__loaded(engine->slot_track, ev);
	engine->stats.slot_loads += !!slot;
	engine__word_culprit(engine, object, put, slot);
	if (!over && lifetime__count(lt) > 1 && lifetime__pick_slot(lt, ev, slot, &pick)) {
		step->confidence = REFCNT_PAIR__SLOT;
		engine->stats.slot_pairs++;
	} else if (!over) {
		step->confidence = lifetime__pick(lt, engine->model, ev, &pick, &teach);
	}
	if (engine->frees &&
	    lifetime__add_putters(lt, ev, step->confidence == REFCNT_PAIR__SLOT ? slot : 0))
		return -ENOMEM;
	if (!over) {
		if (pick == REFSET_NONE) {
			step->paired = lt->unknown_ref;
			lt->unknown--;
		} else {
			step->paired = *refcnt_refset__at(&lt->refs, pick);
			engine__remove(engine, lt, pick);
			engine__learn(engine, object, lt, step, teach);
		}
		if (step->confidence > REFCNT_PAIR__SAME_CALLER)
			lt->guessed = true;
		if (slot && pick != REFSET_NONE && step->paired.slot == slot)
			engine__neighbours_put(engine, ev, slot);
	}
	return 0;
}

static int engine__put(struct refcnt_engine *engine, struct refcnt_object *object,
		       const struct refcnt_event *ev, struct refcnt_step *step)
{
	struct refcnt_lifetime *lt = object->live;
	bool over = !lifetime__count(lt);
	struct refcnt_ref put;
	bool own;

	ref__from_event(&put, ev, REFCNT_OP__PUT);
	if (engine__put_pair(engine, object, ev, step, &put, over))
		return -ENOMEM;

	/*
	 * The likely extra put, the first of the likeliest kind, after what
	 * the put's word said (engine__put_pair()): a function
	 * that released the reference it took, and at once one more (the
	 * same thread, nothing in between); a function that put one, then
	 * had a callee put another (hist_entry__delete() and its
	 * map_symbol__exit()); the first put that did not release a
	 * reference its function took (EXACT or SAME_CALLER), or one a lookup
	 * handed that call of it.
	 */
	own = step->confidence <= REFCNT_PAIR__SAME_CALLER &&
	      (ref__same_function(&step->paired, ev) ||
	       lifetime__handed_running(lt, &step->paired, ev->caller));
	if (lt->last.op == REFCNT_OP__PUT && lt->last.tid == ev->tid && ev->caller) {
		if (lt->last_own && !own && lt->last.caller == ev->caller)
			object__culprit(object, &put, CULPRIT__ONE_MORE);
		else if (!own && ev->up[0] == lt->last.caller && lt->last.caller != ev->caller)
			object__culprit(object, &lt->last, CULPRIT__TWO_AT_ONCE);
	}
	if (step->confidence > REFCNT_PAIR__SAME_CALLER)
		object__culprit(object, &put, CULPRIT__NOT_ITS_OWN);
	if (!own && refcnt_suspects__wants(&object->suspects, engine->model, ev->type,
					   ev->caller) &&
	    !lifetime__held_above(lt, ev) &&
	    refcnt_suspects__add(&object->suspects, engine->model, ev->type, &put))
		return -ENOMEM;
	/* this put may be the likeliest extra one: report after the above */
	if (over) {
		struct refcnt_finding f = {
			.kind = REFCNT_FINDING__OVER_RELEASE,
			.ref = put,
		};

		object->over_released = true;
		engine__blame(engine, object, &f);
		engine__report(engine, object, &f, object__uncertain(engine, object));
		step->finding = REFCNT_FINDING__OVER_RELEASE;
	}
	lt->last = put;
	lt->last_own = own;
	object->release = put;
	object->has_release = true;
	return 0;
}

static int engine__dies(struct refcnt_engine *engine, struct refcnt_object *object,
			const struct refcnt_event *ev, struct refcnt_step *step)
{
	int count = lifetime__count(object->live);

	/* died clean: its puts that released nothing their own are how the code works */
	if (!count && !object->over_released && !object->live->mismatched &&
	    !object__uncertain(engine, object) &&
	    refcnt_suspects__teach(&object->suspects, engine->model, object->type, true))
		return -ENOMEM;

	/* freed with references we counted: we missed their puts */
	if (count && !object->live->mismatched && !object__uncertain(engine, object)) {
		struct refcnt_finding f = {
			.kind = REFCNT_FINDING__MISMATCH,
			.expected = count,
			.live = live__known(ev->live) ? ev->live : 0,
		};

		ref__from_event(&f.ref, ev, REFCNT_OP__DIES);
		engine__report(engine, object, &f, false);
		step->finding = REFCNT_FINDING__MISMATCH;
	}
	if (!object->has_release) {
		ref__from_event(&object->release, ev, REFCNT_OP__DIES);
		object->has_release = true;
	}
	engine__end_lifetime(engine, object);
	return 0;
}

/*
 * Double put @f of @object's dead lifetime released what the word at
 * @slot held, stored there with a reference taken before that lifetime
 * started: a reference of the lifetime before, whose block malloc gave
 * the new object while the word still pointed there (a map freed under
 * its maps, then a clone born at its address). Named at that lifetime's
 * likeliest extra put, not at this one's.
 */
static void engine__earlier_word(struct refcnt_engine *engine, const struct refcnt_object *object,
				 struct refcnt_finding *f, u64 slot)
{
	struct refcnt_slot_word w;

	if (!slot || !object->prev || !refcnt_slot_track__word(engine->slot_track, slot, &w) ||
	    w.space != object->key.space || w.obj != object->key.addr || w.borrowed ||
	    !w.ref_time || w.ref_time >= object->born_time)
		return;
	f->culprit = object->prev->culprit;
	f->has_culprit = true;
	f->why = culprit_level__why(object->prev->level);
}

/*
 * A use after put of @object, one of whose puts released no reference by
 * what its word said (a put of what a copy stored with no get, or of a
 * clone's member its constructor did not take): the object died early of
 * that put, as a double put would show. Reported once, as a double put
 * named where the word says; the uses are its consequences. Not where an
 * over-release was reported already: that row names the put. Not on the
 * member rule's word alone (the stores beside it): a guess from its
 * neighbours would turn a use after put of another cause into its own.
 */
static void engine__died_early(struct refcnt_engine *engine, struct refcnt_object *object,
			       bool uncertain)
{
	struct refcnt_finding f = {
		.kind = REFCNT_FINDING__DOUBLE_PUT,
		.other = object->release,
	};

	if (object->extra_put || object->culprit_level < CULPRIT__BORROWED)
		return;
	if (object->over_released) {
		object->extra_put = true;
		return;
	}
	f.ref = object->culprit;
	f.culprit = object->culprit;
	f.has_culprit = true;
	f.why = culprit_level__why(object->culprit_level);
	engine__report(engine, object, &f, uncertain);
	object->extra_put = true;
}

/* A get or put on a lifetime that died, before its address was reborn. */
static int engine__dead_op(struct refcnt_engine *engine, struct refcnt_object *object,
			   const struct refcnt_event *ev, struct refcnt_step *step)
{
	bool uncertain = object->uncertain ||
			 object->lost_at_death != engine->missed[object->type];
	struct refcnt_finding f = { .other = object->release };
	u64 slot = ev->op == REFCNT_OP__PUT ? refcnt_slot_track__loaded(engine->slot_track, ev) : 0;

	ref__from_event(&f.ref, ev, ev->op);
	/*
	 * It balances a use after put, already reported; not if it put what
	 * a copy stored with no get: that word held no reference at all.
	 */
	if (ev->op == REFCNT_OP__PUT && object->dead_gets &&
	    !engine__borrowed_word(engine, object, slot, &f.ref)) {
		object->dead_gets--;
		return 0;
	}
	if (ev->op == REFCNT_OP__GET) {
		f.kind = REFCNT_FINDING__USE_AFTER_PUT;
		object->dead_gets++;
		step->finding = f.kind;
		engine__died_early(engine, object, uncertain);
		return engine__use_after_put(engine, object, &f, uncertain);
	}
	f.kind = REFCNT_FINDING__DOUBLE_PUT;
	/* a put of what a copy stored after its death, as before it */
	engine__word_culprit(engine, object, &f.ref, slot);
	/* it did not die clean after all */
	if (refcnt_suspects__teach(&object->suspects, engine->model, object->type, false))
		return -ENOMEM;
	engine__blame(engine, object, &f);
	engine__earlier_word(engine, object, &f, slot);
	engine__report(engine, object, &f, uncertain);
	object->extra_put = true;
	step->finding = f.kind;
	return 0;
}

static struct refcnt_object *engine__object(struct refcnt_engine *engine,
					    const struct refcnt_event *ev)
{
	struct refcnt_space_addr key = { .space = ev->space, .addr = ev->obj };
	struct refcnt_object *object;

	if (hashmap__find(engine->objects, &key, &object))
		return object;

	object = zalloc(sizeof(*object));
	if (!object)
		return NULL;
	object->key = key;
	object->followed = hashmap__find(engine->follow, ev->obj, NULL);
	if (hashmap__add(engine->objects, &object->key, object)) {
		free(object);
		return NULL;
	}
	return object;
}

static int engine__get(struct refcnt_engine *engine, struct refcnt_object *object,
		       const struct refcnt_event *ev, struct refcnt_step *step)
{
	struct refcnt_lifetime *lt = object->live;
	struct refcnt_ref ref;

	engine__check_live(engine, object, ev, step);
	engine__add_recent(engine, lt, ev);
	lifetime__track_handed(lt, ev);
	ref__from_event(&ref, ev, REFCNT_OP__GET);
	/*
	 * At another site of the function: a call that takes one reference,
	 * made in a loop (add_child() for each node of a callchain), repeats
	 * its site.
	 */
	ref.twin = lt->last.op == REFCNT_OP__GET && lt->last.tid == ev->tid &&
		   ref__follows_in_call(&lt->last, ev) && ev->caller &&
		   ev->site != lt->last.site;
	ref.twin |= lifetime__take(lt, ev, &ref);
	lt->last = ref;
	return engine__push(engine, lt, &ref);
}

static int engine__op(struct refcnt_engine *engine, struct refcnt_object *object,
		      const struct refcnt_event *ev, struct refcnt_step *step)
{
	int err;

	if (ev->op == REFCNT_OP__BORN) {
		err = engine__born(engine, object, ev, step);
		if (!err && object->live)
			lifetime__track_handed(object->live, ev);
		object->clone_fn = ev->born_clone;
		object->clone_time = ev->time;
		return err;
	}

	if (object->generation && object->type != ev->type) {
		/* another type's object at this address: this one was freed */
		if (object->live)
			engine__drop_lifetime(engine, object);
		object->dead = false;
	}

	/*
	 * A freed object reads zero, or what the gets after its death added:
	 * reading more, it is a new object born unseen at the address.
	 */
	if (object->dead && ev->op != REFCNT_OP__DIES && live__known(ev->live) &&
	    (u32)ev->live > object->dead_gets)
		object->dead = false;

	if (object->dead) {
		if (ev->op != REFCNT_OP__DIES)
			return engine__dead_op(engine, object, ev, step);
		return 0;
	}

	if (!object->live) {
		/* born before recording, or by a path that was not probed */
		if (ev->op == REFCNT_OP__DIES) {
			err = engine__start(engine, object, ev);
			if (err)
				return err;
			object->uncertain = engine->missed[ev->type];
			return engine__dies(engine, object, ev, step);
		}
		err = engine__start_unseen(engine, object, ev);
		if (err)
			return err;
		step->before = lifetime__count(object->live);
	}

	object->live->only_born = false;
	switch (ev->op) {
	case REFCNT_OP__GET:
		return engine__get(engine, object, ev, step);
	case REFCNT_OP__PUT:
		object->live->take.valid = false;
		engine__check_live(engine, object, ev, step);
		engine__add_recent(engine, object->live, ev);
		lifetime__track_handed(object->live, ev);
		return engine__put(engine, object, ev, step);
	case REFCNT_OP__DIES:
		return engine__dies(engine, object, ev, step);
	default:
		return -EINVAL;
	}
}

/*
 * A store to memory over a word whose reference, of the same type, another
 * call stored and is still outstanding: that reference was lost here
 * (refcnt_slot_where). Only the reference the last store there joined:
 * one stored before it was stored over by that store, or was released
 * since (a caller's frame reused). A call that stores again where it
 * stored before is told only for a static variable (a cache of one that
 * stores over what it kept): a heap word's reference may have moved with
 * a memmove(), a realloc() or a qsort() unseen (an array refilled at an
 * index), a caller's local with the next call of that caller; a setter's
 * is always told (dso__set_nsinfo() storing over the nsinfo it held).
 */
static int engine__slot_overwrite(struct refcnt_engine *engine, const struct refcnt_event *ev)
{
	struct refcnt_slot_word prev;
	struct refcnt_lifetime *lt;
	u32 pos;
	int ret;

	if (ev->slot_where == REFCNT_SLOT_WHERE__UNKNOWN)
		return 0;
	ret = refcnt_slot_track__overwrite(engine->slot_track, ev, &prev);
	if (ret == -E2BIG)
		engine->stats.slot_words_full++;
	if (ret <= 0)
		return ret == -ENOMEM ? ret : 0;
	if (prev.space != ev->space || prev.type != ev->type)
		return 0;
	pos = engine__word_ref(engine, &prev, ev->slot, &lt);
	if (pos == REFSET_NONE)
		return 0;
	/* stored over while its frame lived: not that frame's to lose any more */
	refcnt_refset__set_home(&lt->refs, pos, 0, 0);
	/* a setter's store is to a struct's member: nothing moves it unseen */
	if (prev.site == ev->site && ev->slot_where != REFCNT_SLOT_WHERE__STATIC &&
	    ev->slot_op != REFCNT_SLOT__PARAM)
		return 0;
	if (refcnt_refset__set_lost(&lt->refs, pos, ev->site, ev->caller, false))
		engine->stats.overwritten++;
	return 0;
}

/*
 * The reference a setter's store (REFCNT_SLOT__PARAM) of @lt's object
 * keeps: the last one its thread took before, if the setter's caller took
 * it (or a lookup for it) and no store put it anywhere yet; REFSET_NONE
 * if not (a pointer borrowed, or the caller unknown). The last one: the
 * caller's older references are its own, or went elsewhere already.
 */
static u32 lifetime__param_ref(const struct refcnt_lifetime *lt, const struct refcnt_event *ev)
{
	const struct refcnt_ref *r, *last = NULL;
	u32 pick = REFSET_NONE;

	if (!ev->up[0])
		return REFSET_NONE;
	for (u32 i = 0; i < refcnt_refset__slots(&lt->refs); i++) {
		r = refcnt_refset__at(&lt->refs, i);
		if (!r || r->tid != ev->tid || r->time > ev->time ||
		    (r->op != REFCNT_OP__GET && r->op != REFCNT_OP__BORN))
			continue;
		if (!last || r->time >= last->time) {
			last = r;
			pick = i;
		}
	}
	if (!last || last->slot || (last->caller != ev->up[0] && last->owner != ev->up[0]))
		return REFSET_NONE;
	return pick;
}

/*
 * A setter stored what its caller passed it (dso__set_nsinfo(dso, nsi)):
 * the word now holds the reference the caller took for it.
 */
static int engine__param_store(struct refcnt_engine *engine, const struct refcnt_event *ev)
{
	struct refcnt_space_addr key = { .space = ev->space, .addr = ev->obj };
	const struct refcnt_ref *ref;
	struct refcnt_object *object;
	int err = engine__slot_overwrite(engine, ev);
	u32 pos;

	if (err || !hashmap__find(engine->objects, &key, &object) || !object->live ||
	    object->type != ev->type)
		return err;
	pos = lifetime__param_ref(object->live, ev);
	ref = pos == REFSET_NONE ? NULL : refcnt_refset__at(&object->live->refs, pos);
	if (!ref)
		return 0;
	engine->stats.slots_stored++;
	refcnt_slot_track__word_ref(engine->slot_track, ev->slot, ref->time, ref->site);
	if (ev->slot_where == REFCNT_SLOT_WHERE__STATIC)
		refcnt_refset__set_static_slot(&object->live->refs, pos);
	return refcnt_refset__set_slot(&object->live->refs, pos, ev->slot);
}

/*
 * A slot event: a store says where the reference just taken lives; a copy
 * that the word holds a pointer with no reference of its own; a load of
 * NULL that what was stored there is not (memset() cleared it).
 */
static int engine__slot(struct refcnt_engine *engine, const struct refcnt_event *ev)
{
	struct refcnt_space_addr key = { .space = ev->space, .addr = ev->obj };
	const struct refcnt_ref *ref;
	struct refcnt_object *object;
	u64 time, site;
	u32 pos;
	int err;

	if (ev->slot_op == REFCNT_SLOT__LOAD && !ev->obj) {
		refcnt_slot_track__cleared(engine->slot_track, ev);
		return 0;
	}
	if (!ev->obj)
		return 0;
	if (ev->slot_op == REFCNT_SLOT__LOAD)
		return refcnt_slot_track__load(engine->slot_track, ev);
	if (ev->slot_op == REFCNT_SLOT__COPY)
		return ev->slot ? engine__slot_overwrite(engine, ev) ?:
				  refcnt_slot_track__copied(engine->slot_track, ev) : 0;
	if (ev->slot_op == REFCNT_SLOT__PARAM)
		return ev->slot ? engine__param_store(engine, ev) : 0;
	if (ev->slot_op != REFCNT_SLOT__STORE || !ev->slot)
		return 0;
	err = engine__slot_overwrite(engine, ev);
	if (err)
		return err;
	if (!refcnt_slot_track__store(engine->slot_track, ev, &pos, &time, &site) ||
	    !hashmap__find(engine->objects, &key, &object) || !object->live)
		return 0;
	/* still the reference taken: another thread's push may have compacted the set */
	ref = refcnt_refset__at(&object->live->refs, pos);
	if (!ref || ref->time != time || ref->tid != ev->tid || ref->site != site)
		return 0;
	engine->stats.slots_stored++;
	refcnt_slot_track__word_ref(engine->slot_track, ev->slot, time, site);
	if (ev->slot_home && ev->slot_home_site &&
	    refcnt_refset__set_home(&object->live->refs, pos, ev->slot_home, ev->slot_home_site))
		engine->stats.slots_homed++;
	/* the first store's slot is the reference's (a copy keeps it) */
	if (ev->slot_where == REFCNT_SLOT_WHERE__STATIC && !ref->slot)
		refcnt_refset__set_static_slot(&object->live->refs, pos);
	return refcnt_refset__set_slot(&object->live->refs, pos, ev->slot);
}

/*
 * After an operation: a get or a birth that pushed a reference may have
 * a store next that says its slot; anything else ends what the thread's
 * slot events said.
 */
static int engine__slot_op(struct refcnt_engine *engine, const struct refcnt_object *object,
			   const struct refcnt_event *ev)
{
	struct refcnt_lifetime *lt = object->live;
	bool took = false;
	u32 pos = 0;

	if (lt && (ev->op == REFCNT_OP__GET || ev->op == REFCNT_OP__BORN) &&
	    refcnt_refset__slots(&lt->refs)) {
		const struct refcnt_ref *ref;

		pos = refcnt_refset__slots(&lt->refs) - 1;
		ref = refcnt_refset__at(&lt->refs, pos);
		took = ref && ref->time == ev->time && ref->tid == ev->tid &&
		       ref->site == ev->site;
	}
	return refcnt_slot_track__op(engine->slot_track, ev, took, pos);
}

int refcnt_engine__event(struct refcnt_engine *engine, const struct refcnt_event *ev)
{
	struct refcnt_step step = {
		.ev = ev,
		.confidence = REFCNT_PAIR__NONE,
		.finding = REFCNT_FINDING__MAX,
	};
	struct refcnt_object *object;
	bool in_order;
	long last;
	int err;

	if (ev->op >= REFCNT_OP__MAX || ev->type >= REFCNT_TYPE__MAX_NR)
		return -EINVAL;
	if (ev->slot_op)
		return engine__slot(engine, ev);
	if (!ev->obj)
		return 0;

	engine->stats.events++;
	in_order = ev->time >= engine->last_time;
	if (in_order)
		engine->last_time = ev->time;
	else
		engine->stats.out_of_order++;
	/*
	 * When its thread was last seen: an event in order is the latest of
	 * its thread, set it in one lookup; an older one must not move it back.
	 */
	if (in_order || !hashmap__find(engine->threads, ev->tid, &last) ||
	    (u64)last < ev->time) {
		err = hashmap__set(engine->threads, ev->tid, ev->time, NULL, NULL);
		if (err)
			return err;
	}

	object = engine__object(engine, ev);
	if (!object)
		return -ENOMEM;
	if (object->generation && ev->time == object->last_time && ev->tid == object->last_tid &&
	    ev->op == object->last_op && ev->site == object->last_site) {
		engine->stats.duplicates++;
		return 0;
	}
	object->last_time = ev->time;
	object->last_site = ev->site;
	object->last_tid = ev->tid;
	object->last_op = ev->op;

	step.before = object->live ? lifetime__count(object->live) : 0;
	err = engine__op(engine, object, ev, &step) ?: engine__slot_op(engine, object, ev);

	if (object->followed && engine->ops.step) {
		step.generation = object->generation;
		step.after = object->live ? lifetime__count(object->live) : 0;
		engine->ops.step(&step, engine->priv);
	}
	return err;
}

int refcnt_engine__thread_exit(struct refcnt_engine *engine, u64 time, u32 tid)
{
	long last;

	/* its exit comes after its last operation landed: seen, for good */
	if (hashmap__find(engine->threads, tid, &last) && (u64)last >= time)
		return 0;
	return hashmap__set(engine->threads, tid, time, NULL, NULL);
}

void refcnt_engine__lost(struct refcnt_engine *engine, u64 time __maybe_unused,
			 u64 nr __maybe_unused)
{
	engine->stats.lost_windows++;
	/* every lifetime live now is uncertain: object__uncertain() */
	for (unsigned int t = 0; t < REFCNT_TYPE__MAX_NR; t++)
		engine->missed[t]++;
}

void refcnt_engine__missed(struct refcnt_engine *engine, u64 time __maybe_unused, u8 type)
{
	if (type >= REFCNT_TYPE__MAX_NR)
		return;
	engine->stats.missed_ops++;
	engine->missed[type]++;	/* see object__uncertain() */
}

int refcnt_engine__follow_frees(struct refcnt_engine *engine)
{
	if (!engine->frees)
		engine->frees = refcnt_frees__new();
	return engine->frees ? 0 : -ENOMEM;
}

/*
 * The function that dropped what free @f's block held of @type, and the
 * site in it: the freeing function if it has holders of the type
 * (handoff.h), else the one that called it if that one has. A helper of
 * a container that knows nothing of the type (hashmap_delete()) frees an
 * entry for the function that holds the container and decides what its
 * entries' references become (threads__remove_all_threads()). Only for a
 * block the scan found the object's address in: the words stores put in
 * a block are no evidence past a function with holders of the type
 * (engine__block_freed()).
 */
static void free__dropper(const struct refcnt_free *f, u8 type, u64 *site, u64 *caller)
{
	u16 bit = type < REFCNT_TYPE__MAX_NR ? 1U << type : 0;

	*site = f->site;
	*caller = f->caller;
	if (!(f->holds & bit) && (f->up_holds & bit) && f->up_caller && f->up_site) {
		*site = f->up_site;
		*caller = f->up_caller;
	}
}

/* free__dropper()'s function */
static u64 free__dropper_of(const struct refcnt_free *f, u8 type)
{
	u64 site, caller;

	free__dropper(f, type, &site, &caller);
	return caller;
}

/* The words of a freed block looked at for references stored there, at most */
#define REFCNT_FREED_WORDS	1024

/*
 * Block @f was freed: the references that stores put in its words (not
 * copies, which hold none of their own) and that are still outstanding
 * were in it when it went; the words are followed no more (the memory is
 * malloc's again: a store there later is to another block). This
 * evidence needs no trace of the pointer in freed memory: a teardown
 * that clears a word (thread__set_maps(thread, NULL)) before it frees
 * the block leaves none for the scan. Only a function with a holder of
 * the type frees a holder (handoff.h): memory that realloc() moved keeps
 * its words here (realloc() calls no free()), and another function may
 * free the block malloc() made of it later (dso__set_basename()'s name).
 */
static void engine__block_freed(struct refcnt_engine *engine, const struct refcnt_free *f)
{
	u64 words = min(f->size, (u64)REFCNT_FREED_WORDS * sizeof(u64)) / sizeof(u64);
	/* a function of the audited binary with holders may free a holder */
	bool holder = f->caller && f->audited && f->holds;
	struct refcnt_slot_word w;

	if (!refcnt_slot_track__has_words(engine->slot_track))
		return;
	for (u64 i = 0; i < words; i++) {
		u64 slot = f->block + i * sizeof(u64);
		struct refcnt_lifetime *lt;
		u32 pos;

		if (!refcnt_slot_track__forget(engine->slot_track, f->space, slot, &w))
			continue;
		/* a copy holds no reference; one of a type it has no holder of is not its */
		if (!holder || w.borrowed || w.type >= REFCNT_TYPE__MAX_NR ||
		    !(f->holds & (1U << w.type)))
			continue;
		pos = engine__word_ref(engine, &w, slot, &lt);
		if (pos != REFSET_NONE)
			refcnt_refset__set_freed(&lt->refs, pos, f->site, f->caller);
	}
}

/*
 * Block @f was freed: if it is the first free of an object's address
 * since it died, that object's block, how big it is. A later free there
 * is of another block malloc made of the memory, maybe a bigger one.
 */
static void engine__type_freed(struct refcnt_engine *engine, const struct refcnt_free *f)
{
	struct refcnt_space_addr key = { .space = f->space, .addr = f->block };
	struct refcnt_object *object;

	if (!hashmap__find(engine->objects, &key, &object) || !object->await_free)
		return;
	object->await_free = false;
	if (object->type < REFCNT_TYPE__MAX_NR && f->size > engine->type_bytes[object->type])
		engine->type_bytes[object->type] = f->size;
}

int refcnt_engine__freed(struct refcnt_engine *engine, const struct refcnt_free *f)
{
	if (!engine->frees)
		return 0;
	engine->stats.frees++;
	engine__type_freed(engine, f);
	engine__block_freed(engine, f);
	return refcnt_frees__add(engine->frees, f);
}

static int scan_freed__cmp(const void *pa, const void *pb)
{
	const struct refcnt_scan_freed *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->word < b->word ? -1 : a->word > b->word;
}

/* The scan's words of freed memory, by the object they point to. */
static int engine__scan_freed(struct refcnt_engine *engine, const struct refcnt_scan *scan)
{
	u32 nr = scan->freed ? scan->result.nr_freed : 0;

	zfree(&engine->scan_freed);
	engine->nr_scan_freed = 0;
	if (!nr || !engine->frees)
		return 0;
	engine->scan_freed = calloc(nr, sizeof(*engine->scan_freed));
	if (!engine->scan_freed)
		return -ENOMEM;
	memcpy(engine->scan_freed, scan->freed, nr * sizeof(*engine->scan_freed));
	qsort(engine->scan_freed, nr, sizeof(*engine->scan_freed), scan_freed__cmp);
	engine->nr_scan_freed = nr;
	return 0;
}

/*
 * Did free @f come from a function of the audited binary that never put
 * @lt's object, nor had it put by a callee, and did the function that
 * called it never put it either (threads__remove() puts the thread whose
 * entry hashmap_delete() freed)? A put of what a word outside the block
 * held, loaded from it, released that word's reference, not the block's.
 */
static bool free__never_put(const struct refcnt_free *f, const struct refcnt_lifetime *lt)
{
	return f->caller && f->audited &&
	       !refcnt_putters__in(&lt->put_below, f->caller, f->block, f->size) &&
	       (!f->up_caller || !refcnt_putters__in(&lt->put_by, f->up_caller, f->block, f->size));
}

/*
 * Did the function that called free @f put @lt's object? Not if it only
 * put what words outside the block held (free__never_put()).
 */
static bool free__put_by(const struct refcnt_free *f, const struct refcnt_lifetime *lt)
{
	return refcnt_putters__in(&lt->put_by, f->caller, f->block, f->size);
}

/*
 * The blocks freed with @lt's object's address in them (their words the
 * scan found in freed memory), by functions of the audited binary: their
 * last frees, each once, the latest first, in @frees (up to
 * REFCNT_SCAN_FREED_PER_OBJECT, as many as the scan keeps); how many.
 */
static u32 engine__holder_frees(struct refcnt_engine *engine, const struct refcnt_lifetime *lt,
				const struct refcnt_free **frees)
{
	const struct refcnt_scan_freed *sf = engine->scan_freed;
	u64 addr = lt->object->key.addr, space = lt->object->key.space;
	u32 lo = 0, hi = engine->nr_scan_freed, nr = 0;

	if (!sf || !engine->frees || space != engine->scan_space)
		return 0;
	while (lo < hi) {
		u32 mid = (lo + hi) / 2;

		if (sf[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < engine->nr_scan_freed && sf[lo].addr == addr; lo++) {
		const struct refcnt_free *f = refcnt_frees__find(engine->frees, space, sf[lo].word);
		u32 i;

		if (!f || !f->caller || !f->audited || nr == REFCNT_SCAN_FREED_PER_OBJECT)
			continue;
		/* two words of one block: one free */
		for (i = 0; i < nr && frees[i] != f; i++)
			;
		if (i < nr)
			continue;
		for (i = nr++; i > 0 && frees[i - 1]->time < f->time; i--)
			frees[i] = frees[i - 1];
		frees[i] = f;
	}
	return nr;
}

/* A block may look like objects of several types: one entry each. */
int refcnt_engine__exit_scan(struct refcnt_engine *engine, u64 space,
			     const struct refcnt_scan *scan)
{
	if (!engine->scan) {
		engine->scan = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
		if (IS_ERR(engine->scan)) {
			engine->scan = NULL;
			return -ENOMEM;
		}
	}
	engine->scan_space = space;
	engine->scan_result = &scan->result;
	if (engine__scan_freed(engine, scan))
		return -ENOMEM;
	for (u32 i = 0; i < scan->result.nr_objects; i++) {
		const struct refcnt_scan_object *so = &scan->objects[i];
		int err;

		if (so->type >= REFCNT_TYPE__MAX_NR)
			continue;	/* a damaged recording's */
		err = hashmap__set(engine->scan, refcnt_type_addr__key(so->addr, so->type), so,
				   NULL, NULL);
		if (err)
			return err;
	}
	return 0;
}

/* What the scan found at @object's address, if it is of its type. */
static const struct refcnt_scan_object *
engine__scanned(const struct refcnt_engine *engine, const struct refcnt_object *object)
{
	long key = refcnt_type_addr__key(object->key.addr, object->type);
	const struct refcnt_scan_object *so;

	if (!engine->scan || object->key.space != engine->scan_space ||
	    !hashmap__find(engine->scan, key, &so))
		return NULL;
	return so;
}

/* @uncertain: what made the finding cannot tell, beside what the object's history says */
static void engine__report_ref(struct refcnt_engine *engine, const struct refcnt_object *object,
			       enum refcnt_finding_kind kind, const struct refcnt_ref *ref,
			       u64 holder, bool uncertain, bool least_released)
{
	struct refcnt_finding f = {
		.kind = kind,
		.why = ref->twin ? REFCNT_WHY__ONE_CALL_TWO :
		       least_released ? REFCNT_WHY__LEAST_RELEASED : REFCNT_WHY__LEFT,
		.ref = *ref,
		.holder = holder,
	};

	/*
	 * A leak is the call's that stored over its slot, or freed the
	 * block that held it, where it was lost;
	 * else its owner's, the function that never put what a lookup
	 * handed it; but of two references one call took, the second is
	 * the call's own extra get.
	 */
	if (kind == REFCNT_FINDING__LEAK && ref->lost_site) {
		f.culprit = *ref;
		f.culprit.site = ref->lost_site;
		f.culprit.caller = ref->lost_caller;
		f.culprit.scope = 0;
		f.has_culprit = true;
		f.why = ref->lost_freed ? REFCNT_WHY__FREED_HOLDING : REFCNT_WHY__OVERWRITTEN;
	} else if (kind == REFCNT_FINDING__LEAK && ref->kin_site) {
		/* the teardown that put its neighbours in the struct, not it */
		f.culprit = *ref;
		f.culprit.site = ref->kin_site;
		f.culprit.caller = ref->kin_caller;
		f.culprit.scope = 0;
		f.has_culprit = true;
		f.why = REFCNT_WHY__NEIGHBOURS_PUT;
	} else if (kind == REFCNT_FINDING__LEAK && !ref->twin && (ref->home || ref->owner_site) &&
		   (ref->op == REFCNT_OP__BORN || ref->op == REFCNT_OP__GET)) {
		/* the frame it was stored in is its owner's, if it is still there */
		f.culprit = *ref;
		f.culprit.site = ref->home ? ref->home_site : ref->owner_site;
		f.culprit.caller = ref->home ?: ref->owner;
		f.culprit.scope = ref->home ? 0 : ref->owner_scope;
		f.culprit.scope_keeps = !!f.culprit.scope;
		f.has_culprit = true;
		f.why = REFCNT_WHY__OWNER;
	}

	engine__report(engine, object, &f, uncertain || object__uncertain(engine, object));
}

/*
 * Without a scan: the gets left, and the births stored over, are leaks,
 * else what is left is owned;
 * @uncertain if a scan looked for the object and did not find it.
 */
static void engine__end_unscanned(struct refcnt_engine *engine, struct refcnt_lifetime *lt,
				  bool uncertain)
{
	const struct refcnt_ref *owned = NULL;
	bool leaked = false;

	for (u32 i = 0; i < refcnt_refset__slots(&lt->refs); i++) {
		const struct refcnt_ref *r = refcnt_refset__at(&lt->refs, i);

		if (!r)
			continue;
		if (r->op != REFCNT_OP__GET && !r->lost_site) {
			owned = owned ?: r;
			continue;
		}
		engine__report_ref(engine, lt->object, REFCNT_FINDING__LEAK, r, 0, uncertain,
				   false);
		leaked = true;
	}
	if (leaked)
		return;
	if (!owned && lt->unknown)
		owned = &lt->unknown_ref;
	if (owned)
		engine__report_ref(engine, lt->object, REFCNT_FINDING__OWNED_AT_EXIT, owned, 0,
				   uncertain, false);
}

/* How a scanned object's references left are told (engine__end_scanned()). */
struct scanned_refs {
	u32	leaked;		/* the first ones: no reachable memory accounts for them */
	u32	held;		/* of those, the last: leaked memory accounts for them */
	u32	doubtful;	/* the next: leaks only the stack or registers may account for */
	bool	uncertain;	/* the scan was partial: every leak it tells is */
	u64	holder;		/* the leaked object that holds them (all, or @held) */
	u32	told;
};

/* The kind of the next reference told, and the leak that holds it if one does. */
static enum refcnt_finding_kind scanned_refs__next(struct scanned_refs *sr, bool *uncertain,
						   u64 *holder)
{
	u32 n = sr->told++;

	*uncertain = sr->uncertain;
	*holder = 0;
	if (n < sr->leaked - sr->held)
		return REFCNT_FINDING__LEAK;
	if (n < sr->leaked) {
		*holder = sr->holder;
		return REFCNT_FINDING__HELD_BY_LEAK;
	}
	if (n - sr->leaked < sr->doubtful) {
		*uncertain = true;
		return REFCNT_FINDING__LEAK;
	}
	*uncertain = false;
	return REFCNT_FINDING__STILL_REFERENCED;
}

/* A reference left at exit, to be told as the scan says (engine__end_scanned()). */
struct left_ref {
	const struct refcnt_ref *ref;
	u32	taken, released;	/* by its site (release_share.h) */
	u32	slot;			/* in the refset: the higher, the more recent */
	u8	pass;			/* 0: stored over or a call's second, 1: a get,
					 * 2: a birth, 3: one a word still holds
					 */
};

/* Did @a's site release a smaller share of its references than @b's? */
static bool left_ref__less_released(const struct left_ref *a, const struct left_ref *b)
{
	/* exact: u32 counts, and every site of a reference took one */
	return (u64)a->released * b->taken < (u64)b->released * a->taken;
}

/*
 * Does the word a store put @r in still hold it at the end: no store over
 * it, no free of its block, no NULL read from it since (slot_track.h)?
 * Then memory holds it, whether that memory is reachable (still
 * referenced) or leaked itself (held by a leak): it is no leak of its own.
 */
static bool engine__word_holds(const struct refcnt_engine *engine,
			       const struct refcnt_lifetime *lt, const struct refcnt_ref *r)
{
	struct refcnt_slot_word w;

	/* without the frees, a freed block's words would still seem to hold theirs */
	return engine->frees && r->slot &&
	       refcnt_slot_track__word(engine->slot_track, r->slot, &w) &&
	       w.space == lt->object->key.space && w.obj == lt->object->key.addr &&
	       !w.borrowed && ref__stored_last(r, &w);
}

/*
 * Which references are told leaked first: those whose slot was stored
 * over while they were outstanding, and the second references of calls
 * that took two; then the other gets, those of the sites that released
 * the least share of theirs first; the births (an object's owner keeps
 * its birth by design); last those a word still holds
 * (engine__word_holds()); the most recent first where that is equal.
 */
static int left_ref__cmp(const void *pa, const void *pb)
{
	const struct left_ref *a = pa, *b = pb;

	if (a->pass != b->pass)
		return a->pass - b->pass;
	if (left_ref__less_released(a, b))
		return -1;
	if (left_ref__less_released(b, a))
		return 1;
	return a->slot == b->slot ? 0 : a->slot < b->slot ? 1 : -1;
}

/* @lt's references, in the order they are told (NULL without memory). */
static struct left_ref *engine__left_refs(const struct refcnt_engine *engine,
					  const struct refcnt_lifetime *lt, u32 *nr)
{
	struct left_ref *left = calloc(lt->refs.live ?: 1, sizeof(*left));

	*nr = 0;
	if (!left)
		return NULL;
	for (u32 i = 0; i < refcnt_refset__slots(&lt->refs) && *nr < lt->refs.live; i++) {
		const struct refcnt_ref *r = refcnt_refset__at(&lt->refs, i);
		struct left_ref *l = &left[*nr];

		if (!r)
			continue;
		l->ref = r;
		l->slot = i;
		/*
		 * Lost, the second of a call's two, or in a frame that died
		 * with its function: leaks first
		 */
		l->pass = r->lost_site || r->home || r->twin ? 0 :
			  engine__word_holds(engine, lt, r) ? 3 :
			  r->op != REFCNT_OP__GET ? 2 : 1;
		refcnt_release_share__get(engine->shares, lt->object->type, ref__share_site(r),
					  &l->taken, &l->released);
		(*nr)++;
	}
	qsort(left, *nr, sizeof(*left), left_ref__cmp);
	return left;
}

/*
 * Scanned: the references left, told as @sr says. Which ones leaked is
 * inferred, not known: those that their sites' share says (left_ref__cmp()).
 * A leak whose site released a smaller share of its references than a
 * reference told accounted for says so (REFCNT_WHY__LEAST_RELEASED).
 */
static void engine__end_scanned(struct refcnt_engine *engine, struct refcnt_lifetime *lt,
				struct scanned_refs *sr)
{
	enum refcnt_finding_kind kind;
	const struct left_ref *kept;
	struct left_ref *left;
	bool uncertain;
	u64 holder;
	u32 nr;

	left = engine__left_refs(engine, lt, &nr);
	/* the get told accounted for whose site released the largest share */
	kept = NULL;
	for (u32 i = sr->leaked + sr->doubtful; left && i < nr; i++) {
		if (left[i].pass == 1)
			kept = &left[i];
	}
	for (u32 i = 0; left && i < nr; i++) {
		bool least = kept && left[i].pass == 1 && left_ref__less_released(&left[i], kept);

		kind = scanned_refs__next(sr, &uncertain, &holder);
		engine__report_ref(engine, lt->object, kind, left[i].ref, holder, uncertain,
				   least && kind == REFCNT_FINDING__LEAK);
	}
	/* without memory to order them: the most recent first */
	for (u32 i = refcnt_refset__slots(&lt->refs); !left && i-- > 0;) {
		const struct refcnt_ref *r = refcnt_refset__at(&lt->refs, i);

		if (!r)
			continue;
		kind = scanned_refs__next(sr, &uncertain, &holder);
		engine__report_ref(engine, lt->object, kind, r, holder, uncertain, false);
	}
	free(left);
	for (u32 i = 0; i < lt->unknown; i++) {
		kind = scanned_refs__next(sr, &uncertain, &holder);
		engine__report_ref(engine, lt->object, kind, &lt->unknown_ref, holder, uncertain,
				   false);
	}
}

/*
 * What the scan says of the @count references left on object @so (see
 * refcnt_engine__exit_scan()): the pointer words of reachable memory
 * account for as many; those of the exiting thread's stack and registers
 * only doubtfully, also when a signal killed it (its interrupted work's:
 * a function killed in its middle never reached its puts).
 */
static void engine__scanned_refs(const struct refcnt_engine *engine,
				 const struct refcnt_scan_object *so, u32 count,
				 struct scanned_refs *sr)
{
	const struct refcnt_scan_result *res = engine->scan_result;
	u32 words = so->words, stack = min(so->stack_words, so->words);
	u32 data = words - stack;

	memset(sr, 0, sizeof(*sr));
	sr->uncertain = res && res->partial;
	if (!so->reachable) {
		data = 0;
		words = 0;
	}
	sr->leaked = count > words ? count - words : 0;
	/*
	 * Of those, the references that leaked memory holds, a consequence:
	 * one per word of it that points to the object's start, as a
	 * reference does. A leak that reaches an object only through stale
	 * bytes or a pointer into its middle (the list a thread's comms are
	 * linked on) holds none of its references: they are leaks of their own.
	 */
	sr->held = min_t(u32, sr->leaked, so->held_words);
	if (sr->held)
		sr->holder = so->holder;
	/* those that the stack's words alone account for */
	sr->doubtful = min(count, words) - min(count, data);
}

/* Did the scan of @lt's space look for objects of its type, and not find it? */
static bool engine__scan_missed(const struct refcnt_engine *engine,
				const struct refcnt_lifetime *lt)
{
	const struct refcnt_scan_result *res = engine->scan_result;

	return res && lt->object->key.space == engine->scan_space &&
	       lt->object->type < 32 && (res->types & (1U << lt->object->type));
}

/* Did a store put @r in the block that @f freed? */
static bool ref__in_block(const struct refcnt_ref *r, const struct refcnt_free *f)
{
	return r->slot && r->slot - f->block < f->size;
}

/*
 * The reference of @lt that free @f dropped: one a store put in the block
 * (slot_code.h), else the last one taken before it (at @site if not 0)
 * that is not lost already; REFSET_NONE if none.
 */
static u32 lifetime__freed_ref(const struct refcnt_lifetime *lt, const struct refcnt_free *f,
			       u64 site)
{
	u32 pick = REFSET_NONE;
	bool stored = false;

	for (u32 i = 0; i < refcnt_refset__slots(&lt->refs); i++) {
		const struct refcnt_ref *r = refcnt_refset__at(&lt->refs, i);
		bool in = false;

		if (!r || r->lost_site || r->time >= f->time || (site && r->site != site))
			continue;
		in = ref__in_block(r, f);
		if (stored && !in)
			continue;
		if (pick == REFSET_NONE || in > stored ||
		    r->time >= refcnt_refset__at(&lt->refs, pick)->time)
			pick = i;
		stored |= in;
	}
	return pick;
}

/* What refcnt_engine__freed() frees name by the site of what they dropped. */
#define FREE_AMBIGUOUS	((const struct refcnt_free *)1)

/*
 * A leaked object's address is in freed blocks: each of those frees
 * dropped a reference its block held, while @budget (leaks not told yet)
 * lasts. Which one: one that a store put in the block (slot_code.h),
 * still outstanding, is; else, if the function that freed it never put
 * the object, the last one taken before the free (refcnt_engine__freed()).
 * They are told leaked first, at the free; @sites keeps each free by the
 * site that took the reference.
 */
static int engine__freed_holder(struct refcnt_engine *engine, struct refcnt_lifetime *lt,
				struct hashmap *sites, u32 *budget)
{
	const struct refcnt_free *frees[REFCNT_SCAN_FREED_PER_OBJECT], *f, *other;
	u32 nr = engine__holder_frees(engine, lt, frees);
	const struct refcnt_ref *r;
	u64 site, caller;
	u32 pick;
	long key;
	int err;

	for (u32 i = 0; i < nr && *budget; i++) {
		f = frees[i];
		pick = lifetime__freed_ref(lt, f, 0);
		r = pick == REFSET_NONE ? NULL : refcnt_refset__at(&lt->refs, pick);
		free__dropper(f, lt->object->type, &site, &caller);
		if (!r || !(ref__in_block(r, f) ? !free__put_by(f, lt) : free__never_put(f, lt)) ||
		    !refcnt_refset__set_lost(&lt->refs, pick, site, caller, true))
			continue;
		engine->stats.freed_holding++;
		(*budget)--;
		key = refcnt_type_addr__key(r->site, lt->object->type);
		/* the references of a site that two functions dropped: siblings of neither */
		if (hashmap__find(sites, key, &other) &&
		    (other == FREE_AMBIGUOUS ||
		     free__dropper_of(other, lt->object->type) != caller))
			f = FREE_AMBIGUOUS;
		err = hashmap__set(sites, key, f, NULL, NULL);
		if (err)
			return err;
	}
	return 0;
}

/*
 * A leak that no free names (malloc writes its links over a freed block's
 * first words, where its word was; the scan keeps a few words an object)
 * whose reference was taken where leaked ones were that a free dropped,
 * all by one function: the same holder's, if that function never put
 * this object either, or if a store put the reference in a block that
 * function freed last, after; while @budget (its leaks not told yet) lasts.
 */
static void engine__freed_sibling(struct refcnt_engine *engine, struct refcnt_lifetime *lt,
				  struct hashmap *sites, u32 budget)
{
	for (u32 i = 0; i < refcnt_refset__slots(&lt->refs) && budget; i++) {
		const struct refcnt_ref *r = refcnt_refset__at(&lt->refs, i);
		const struct refcnt_free *f, *own;
		u64 site, caller;

		if (!r || r->lost_site ||
		    !hashmap__find(sites, refcnt_type_addr__key(r->site, lt->object->type), &f) ||
		    f == FREE_AMBIGUOUS)
			continue;
		own = r->slot ? refcnt_frees__find(engine->frees, lt->object->key.space, r->slot) :
		      NULL;
		free__dropper(f, lt->object->type, &site, &caller);
		/* the block a store put it in: its own free, named where it was called */
		if (own && own->caller == f->caller && own->time > r->time &&
		    ref__in_block(r, own)) {
			site = own->site;
			caller = own->caller;
		} else if (r->time >= f->time || !free__never_put(f, lt)) {
			continue;
		}
		if (refcnt_refset__set_lost(&lt->refs, i, site, caller, true)) {
			engine->stats.freed_holding++;
			budget--;
		}
	}
}

/*
 * The leaks of @lt's object of its own (not held by a leak), as the scan
 * at exit sees them, less those told lost already; 0 if its history
 * missed an event (a put not seen is a put not known).
 */
static u32 engine__leaks_untold(struct refcnt_engine *engine, struct refcnt_lifetime *lt)
{
	const struct refcnt_scan_object *so = engine__scanned(engine, lt->object);
	struct scanned_refs sr;
	u32 n;

	if (!so || object__uncertain(engine, lt->object))
		return 0;
	engine__scanned_refs(engine, so, max(lifetime__count(lt), 0), &sr);
	n = sr.leaked > sr.held ? sr.leaked - sr.held : 0;
	for (u32 i = 0; i < refcnt_refset__slots(&lt->refs) && n; i++) {
		const struct refcnt_ref *r = refcnt_refset__at(&lt->refs, i);

		if (r && r->lost_site)
			n--;
	}
	return n;
}

/*
 * The leaks of @lt that were in a block when it was freed (the words a
 * store put them in: engine__block_freed()), by a function that never
 * put the object, nor had a callee put it (thread__delete() puts the maps
 * through thread__exit()): lost at that free, while @budget lasts.
 */
static void engine__freed_stored(struct refcnt_engine *engine, struct refcnt_lifetime *lt,
				 u32 budget)
{
	for (u32 i = 0; i < refcnt_refset__slots(&lt->refs) && budget; i++) {
		const struct refcnt_ref *r = refcnt_refset__at(&lt->refs, i);

		if (!r || r->lost_site || !r->freed_site ||
		    refcnt_putters__has(&lt->put_below, r->freed_caller))
			continue;
		if (refcnt_refset__set_lost(&lt->refs, i, r->freed_site, r->freed_caller, true)) {
			engine->stats.freed_holding++;
			budget--;
		}
	}
}

/*
 * Before anything is told: the leaks that a free dropped, by their words
 * in freed memory, then by the words they were stored to, then their
 * siblings. Returns 0 or -ENOMEM.
 */
static int engine__freed_holders(struct refcnt_engine *engine)
{
	struct refcnt_lifetime *lt;
	struct hashmap *sites;
	int err = 0;

	if (!engine->frees)
		return 0;
	sites = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
	if (IS_ERR(sites))
		return -ENOMEM;
	list_for_each_entry(lt, &engine->live, node) {
		u32 budget = engine->nr_scan_freed ? engine__leaks_untold(engine, lt) : 0;

		if (budget && !err)
			err = engine__freed_holder(engine, lt, sites, &budget);
	}
	list_for_each_entry(lt, &engine->live, node) {
		u32 budget = err ? 0 : engine__leaks_untold(engine, lt);

		if (budget)
			engine__freed_stored(engine, lt, budget);
	}
	/* siblings of the leaks the scan's freed words named */
	list_for_each_entry(lt, &engine->live, node) {
		u32 budget = err || !hashmap__size(sites) ? 0 : engine__leaks_untold(engine, lt);

		if (budget)
			engine__freed_sibling(engine, lt, sites, budget);
	}
	hashmap__free(sites);
	return err;
}

void refcnt_engine__end(struct refcnt_engine *engine)
{
	struct refcnt_lifetime *lt;
	struct hashmap_entry *cur;
	size_t bkt;

	if (engine->ended)
		return;
	engine->ended = true;
	if (engine->frees)
		engine->stats.frees_dropped = refcnt_frees__dropped(engine->frees);

	hashmap__for_each_entry(engine->objects, cur, bkt)
		engine__tell_uses(engine, cur->pvalue);
	/* out of memory, the leaks are told without that evidence */
	engine__freed_holders(engine);

	/* the objects a leaked object holds last, to be told under it */
	for (int held = 0; held < 2; held++) {
		list_for_each_entry(lt, &engine->live, node) {
			const struct refcnt_scan_object *so = engine__scanned(engine, lt->object);
			struct scanned_refs sr;

			if (!so) {
				bool missed = engine__scan_missed(engine, lt);

				engine->stats.scan_missed += missed && !held;
				if (!held)
					engine__end_unscanned(engine, lt, missed);
				continue;
			}
			engine__scanned_refs(engine, so, max(lifetime__count(lt), 0), &sr);
			engine->stats.stack_only += !!sr.holder == held ? sr.doubtful : 0;
			if (!!sr.holder == held)
				engine__end_scanned(engine, lt, &sr);
		}
	}
}
