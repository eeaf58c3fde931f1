// SPDX-License-Identifier: GPL-2.0
/*
 * perf test refcnt: which function a finding names, on synthetic event
 * streams of the shapes that real refcount bugs take. Each case fails with
 * the attribution rule it is about taken out.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>

#include "tests.h"
#include "debug.h"
#include "refcnt-tests.h"
#include "refcnt-stream.h"
#include "util/refcnt/slot_code.h"
#include "util/refcnt/findings.h"
#include "util/refcnt/handoff.h"
#include "util/refcnt/call_site.h"
#include "util/refcnt/inline_scope.h"
#include "util/addr_location.h"
#include "util/event.h"
#include "util/machine.h"
#include "util/map_symbol.h"
#include "util/maps.h"
#include "util/thread.h"

/*
 * A container's remove releases the reference its insert took, and a
 * lookup's caller never puts what the lookup returned (perf lock report's
 * kernel map): G inserts, P removes, F looks up for X, which keeps it.
 * B and C teach the engine that P releases G's references where P has one
 * choice. On A, P's put then releases G's reference, not F's, which is more
 * recent: F's is the one left, a leak at F's get, not at the insert.
 */
int test__refcnt_attribution_learnt(struct test_suite *test __maybe_unused,
				    int subtest __maybe_unused)
{
	static const struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_B, MAIN, 0x10, 1, 1),
		EV(11, GET,  OBJ_B, G, 0x10, 1, 1),
		EV(12, PUT,  OBJ_B, MAIN, 0x20, 1, 2),
		EV(13, PUT,  OBJ_B, P, 0x10, 1, 1),
		EV(14, DIES, OBJ_B, P, 0x10, 1, 0),
		EV(20, BORN, OBJ_C, MAIN, 0x10, 1, 1),
		EV(21, GET,  OBJ_C, G, 0x10, 1, 1),
		EV(22, PUT,  OBJ_C, MAIN, 0x20, 1, 2),
		EV(23, PUT,  OBJ_C, P, 0x10, 1, 1),
		EV(24, DIES, OBJ_C, P, 0x10, 1, 0),
		EV(30, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(31, GET,  OBJ_A, G, 0x10, 1, 1),
		EV(32, PUT,  OBJ_A, MAIN, 0x20, 1, 2),
		EV(33, GET,  OBJ_A, F, 0x10, 1, 1),
		EV(34, PUT,  OBJ_A, P, 0x10, 1, 2),
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_A, .generation = 1,
		  .site = FN_F + 0x10, .op = REFCNT_OP__GET },
	};
	struct refcnt_engine_stats stats;
	struct collect c;

	TEST_ASSERT_VAL("findings", stream__run(evs, ARRAY_SIZE(evs), OBJ_A, &c, exp,
						ARRAY_SIZE(exp), &stats) == TEST_OK);
	TEST_ASSERT_EQUAL("steps of A", c.nr_steps, 5);
	TEST_ASSERT_VAL("remove paired by what it released before",
			c.steps[4].confidence == REFCNT_PAIR__LEARNT &&
			stream__ref_is(&c.steps[4].paired, FN_G + 0x10));
	TEST_ASSERT_VAL("confidence name",
			!strcmp(refcnt_confidence__name(REFCNT_PAIR__LEARNT), "learnt"));
	return TEST_OK;
}

/*
 * Feed @evs twice, as a report replays: to an engine that learns, then to
 * one that pairs as the first learnt from the whole stream, following
 * @follow. @c gets what the second collected.
 */
static int stream__run_taught(const struct refcnt_event *evs, size_t nr, u64 follow,
			      struct collect *c)
{
	struct refcnt_engine *teacher = refcnt_engine__new(NULL, NULL);
	struct refcnt_engine *engine = refcnt_engine__new(&stream__ops, c);
	int err = -ENOMEM;

	memset(c, 0, sizeof(*c));
	if (teacher && engine)
		err = stream__feed(teacher, evs, nr);
	if (!err) {
		refcnt_engine__learn_from(engine, teacher);
		err = refcnt_engine__follow(engine, follow) ?: stream__feed(engine, evs, nr);
	}
	if (!err)
		refcnt_engine__end(engine);
	refcnt_engine__delete(teacher);
	refcnt_engine__delete(engine);
	TEST_ASSERT_EQUAL("feeding", err, 0);
	return TEST_OK;
}

/*
 * A teardown pairs as the whole recording teaches: the same objects as in
 * the case above, but P tears A down first, before B and C show what P
 * releases (a list's teardown puts its entries in the list's order; those
 * with one reference left teach, those a lookup leaked are ambiguous). In
 * one pass, A's put would be decided by recency and release F's reference,
 * leaving G's insert as the leak; replayed as a report does, by what P
 * released where it had one choice, later in the stream.
 */
int test__refcnt_attribution_learnt_later(struct test_suite *test __maybe_unused,
					  int subtest __maybe_unused)
{
	static const struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, GET,  OBJ_A, G, 0x10, 1, 1),
		EV(12, PUT,  OBJ_A, MAIN, 0x20, 1, 2),
		EV(13, GET,  OBJ_A, F, 0x10, 1, 1),
		EV(20, BORN, OBJ_B, MAIN, 0x10, 1, 1),
		EV(21, GET,  OBJ_B, G, 0x10, 1, 1),
		EV(22, PUT,  OBJ_B, MAIN, 0x20, 1, 2),
		EV(30, BORN, OBJ_C, MAIN, 0x10, 1, 1),
		EV(31, GET,  OBJ_C, G, 0x10, 1, 1),
		EV(32, PUT,  OBJ_C, MAIN, 0x20, 1, 2),
		/* the teardown */
		EV(40, PUT,  OBJ_A, P, 0x10, 1, 2),
		EV(41, PUT,  OBJ_B, P, 0x10, 1, 1),
		EV(42, DIES, OBJ_B, P, 0x10, 1, 0),
		EV(43, PUT,  OBJ_C, P, 0x10, 1, 1),
		EV(44, DIES, OBJ_C, P, 0x10, 1, 0),
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_A, .generation = 1,
		  .site = FN_F + 0x10, .op = REFCNT_OP__GET },
	};
	struct collect c;

	TEST_ASSERT_VAL("run", stream__run_taught(evs, ARRAY_SIZE(evs), OBJ_A, &c) == TEST_OK);
	TEST_ASSERT_VAL("findings", stream__check(&c, exp, ARRAY_SIZE(exp)) == TEST_OK);
	TEST_ASSERT_EQUAL("steps of A", c.nr_steps, 5);
	TEST_ASSERT_VAL("teardown paired by what it released later",
			c.steps[4].confidence == REFCNT_PAIR__LEARNT &&
			stream__ref_is(&c.steps[4].paired, FN_G + 0x10));
	return TEST_OK;
}

/*
 * A leaked holder outranks what it keeps alive (a thread that was never
 * put holds its maps, which hold dsos that the dsos list keeps too): B is
 * leaked, unreachable at exit; A is reachable through one word of the
 * program's, but B's memory points to it twice. A's two references beyond
 * what reachable memory accounts for are held by B's leak, not leaks of
 * their own: the one leak is B's. C, which B points to too, is accounted
 * for by reachable memory: still referenced, held by no leak.
 */
int test__refcnt_attribution_held(struct test_suite *test __maybe_unused,
				  int subtest __maybe_unused)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, GET,  OBJ_A, F, 0x10, 1, 1),
		EV(12, GET,  OBJ_A, F, 0x10, 1, 2),
		EV(20, BORN, OBJ_B, MAIN, 0x20, 1, 1),
		EV(21, GET,  OBJ_B, X, 0x20, 1, 1),
		EV(22, PUT,  OBJ_B, MAIN, 0x28, 1, 2),
		EV(30, BORN, OBJ_C, MAIN, 0x30, 1, 1),
		EV(31, GET,  OBJ_C, F, 0x30, 1, 1),
	};
	static struct refcnt_scan_object scanned[] = {
		{ .addr = OBJ_A, .words = 1, .reachable = 1, .refcnt = 3,
		  .holder = OBJ_B, .held_words = 2 },
		{ .addr = OBJ_B, .refcnt = 1 },
		{ .addr = OBJ_C, .words = 2, .reachable = 1, .refcnt = 2,
		  .holder = OBJ_B, .held_words = 1 },
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_B, .generation = 1,
		  .site = FN_X + 0x20, .op = REFCNT_OP__GET },
		{ .kind = REFCNT_FINDING__STILL_REFERENCED, .obj = OBJ_C, .generation = 1,
		  .site = FN_F + 0x30, .op = REFCNT_OP__GET },
		{ .kind = REFCNT_FINDING__STILL_REFERENCED, .obj = OBJ_C, .generation = 1,
		  .site = FN_MAIN + 0x30, .op = REFCNT_OP__BORN },
		{ .kind = REFCNT_FINDING__HELD_BY_LEAK, .obj = OBJ_A, .generation = 1,
		  .site = FN_F + 0x10, .op = REFCNT_OP__GET },
		{ .kind = REFCNT_FINDING__HELD_BY_LEAK, .obj = OBJ_A, .generation = 1,
		  .site = FN_F + 0x10, .op = REFCNT_OP__GET },
		{ .kind = REFCNT_FINDING__STILL_REFERENCED, .obj = OBJ_A, .generation = 1,
		  .site = FN_MAIN + 0x10, .op = REFCNT_OP__BORN },
	};
	struct refcnt_scan scan = {
		.result = { .status = REFCNT_SCAN__DONE, .nr_objects = ARRAY_SIZE(scanned) },
		.objects = scanned,
	};
	struct collect c;

	TEST_ASSERT_VAL("run", stream__run_scanned(evs, ARRAY_SIZE(evs), &scan, &c) == TEST_OK);
	TEST_ASSERT_VAL("findings", stream__check(&c, exp, ARRAY_SIZE(exp)) == TEST_OK);
	TEST_ASSERT_VAL("held by B", !c.findings[1].holder && !c.findings[2].holder &&
			c.findings[3].holder == OBJ_B && c.findings[4].holder == OBJ_B &&
			!c.findings[5].holder);
	return TEST_OK;
}

/*
 * The put that releases nothing: of an object's puts, one too many
 * released no reference; a remove (P) releases what an insert (G) took
 * on every object, and B, which died clean, shows it. X's put released no
 * reference of its own function either, and no clean lifetime saw X do
 * that: A's over-release and D's double put are X's, not P's, although P's
 * put came first (the first put not its own, which is what is left when
 * every such put is known from clean lifetimes).
 */
int test__refcnt_attribution_releases_nothing(struct test_suite *test __maybe_unused,
					      int subtest __maybe_unused)
{
	static const struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_B, MAIN, 0x10, 1, 1),
		EV(11, GET,  OBJ_B, G, 0x10, 1, 1),
		EV(12, PUT,  OBJ_B, MAIN, 0x20, 1, 2),
		EV(13, PUT,  OBJ_B, P, 0x10, 1, 1),
		EV(14, DIES, OBJ_B, P, 0x10, 1, 0),
		EV(20, BORN, OBJ_A, MAIN, 0x30, 1, 1),
		EV(21, GET,  OBJ_A, G, 0x10, 1, 1),
		EV(22, GET,  OBJ_A, G, 0x10, 1, 2),
		EV(23, PUT,  OBJ_A, P, 0x10, 1, 3),
		EV(24, PUT,  OBJ_A, X, 0x10, 1, 2),
		EV(25, PUT,  OBJ_A, MAIN, 0x40, 1, 1),
		EV(26, PUT,  OBJ_A, P, 0x10, 1, 0),
		EV(30, BORN, OBJ_D, MAIN, 0x50, 1, 1),
		EV(31, GET,  OBJ_D, G, 0x10, 1, 1),
		EV(32, GET,  OBJ_D, G, 0x10, 1, 2),
		EV(33, PUT,  OBJ_D, P, 0x10, 1, 3),
		EV(34, PUT,  OBJ_D, X, 0x10, 1, 2),
		EV(35, PUT,  OBJ_D, MAIN, 0x60, 1, 1),
		EV(36, DIES, OBJ_D, MAIN, 0x60, 1, 0),
		EV(37, PUT,  OBJ_D, P, 0x10, 1, 0),
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__OVER_RELEASE, .obj = OBJ_A, .generation = 1,
		  .site = FN_P + 0x10, .op = REFCNT_OP__PUT, .culprit = FN_X + 0x10 },
		{ .kind = REFCNT_FINDING__DOUBLE_PUT, .obj = OBJ_D, .generation = 1,
		  .site = FN_P + 0x10, .op = REFCNT_OP__PUT, .other = FN_MAIN + 0x60,
		  .culprit = FN_X + 0x10 },
	};
	struct refcnt_engine_stats stats;
	struct collect c;

	TEST_ASSERT_VAL("findings", stream__run(evs, ARRAY_SIZE(evs), 0, &c, exp,
						ARRAY_SIZE(exp), &stats) == TEST_OK);
	TEST_ASSERT_VAL("why", c.findings[0].why == REFCNT_WHY__RELEASES_NOTHING &&
			c.findings[1].why == REFCNT_WHY__RELEASES_NOTHING);
	TEST_ASSERT_VAL("why name",
			!strcmp(refcnt_site_why__name(REFCNT_WHY__RELEASES_NOTHING),
				"releases nothing"));
	return TEST_OK;
}

/* The address in this binary of perf's own function at @fn, or 0. */
static u64 handoff__addr(void *fn)
{
	struct link_map *lm = NULL;
	Dl_info info;

	/* the load bias: the function's address in the binary is fn - bias */
	if (!dladdr1(fn, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return 0;
	return (u64)(uintptr_t)fn - lm->l_addr;
}

/* The types perf's own function at @fn hands on, from this binary's DWARF. */
static int handoff__own(const struct refcnt_handoff *h, void *fn, u16 *types)
{
	u64 addr = handoff__addr(fn);

	if (!addr)
		return -1;
	*types = refcnt_handoff__types(h, addr);
	return 0;
}

/* The holders of @type of perf's own function at @fn. */
static u64 handoff__own_holders(const struct refcnt_handoff *h, void *fn, u8 type)
{
	u64 addr = handoff__addr(fn);
	const u64 *holders = addr ? refcnt_handoff__holders(h, addr) : NULL;

	return holders ? holders[type] : 0;
}

/*
 * What perf's own DWARF says: maps__find() and machine__findnew_thread()
 * hand a reference to their caller, machine__process_comm_event() does
 * not (it returns int, and has no pointer-to-pointer parameter). Of a map,
 * thread__find_map() and addr_location__exit() take a pointer to the same
 * holder, an addr_location; map_symbol__exit() to another, a map_symbol.
 */
static int test__handoff_dwarf(void)
{
	const u8 map = refcnt_type_spec__index(refcnt_type_spec__find("map"));
	const u8 thread = refcnt_type_spec__index(refcnt_type_spec__find("thread"));
	struct refcnt_handoff *h = refcnt_handoff__new("/proc/self/exe");
	u64 fill, al_exit, ms_exit;
	u16 find = 0, findnew = 0, comm = 0;
	int err;

	if (!h) {
		pr_debug("no DWARF in this perf (build it with EXTRA_CFLAGS=-g)\n");
		return TEST_SKIP;
	}
	err = handoff__own(h, maps__find, &find) ||
	      handoff__own(h, machine__findnew_thread, &findnew) ||
	      handoff__own(h, machine__process_comm_event, &comm);
	fill = handoff__own_holders(h, thread__find_map, map);
	al_exit = handoff__own_holders(h, addr_location__exit, map);
	ms_exit = handoff__own_holders(h, map_symbol__exit, map);
	refcnt_handoff__delete(h);
	pr_debug("holders of a map: thread__find_map %#" PRIx64 ", addr_location__exit %#" PRIx64
		 ", map_symbol__exit %#" PRIx64 "\n", fill, al_exit, ms_exit);
	TEST_ASSERT_VAL("an addr_location holds a map", al_exit && (fill & al_exit));
	TEST_ASSERT_VAL("a map_symbol is another holder", ms_exit && !(ms_exit & al_exit));
	TEST_ASSERT_VAL("addresses", !err);
	pr_debug("maps__find %#x, machine__findnew_thread %#x, machine__process_comm_event %#x\n",
		 find, findnew, comm);
	TEST_ASSERT_VAL("maps__find hands a map on", find == 1U << map);
	TEST_ASSERT_VAL("machine__findnew_thread hands a thread on", findnew == 1U << thread);
	TEST_ASSERT_VAL("machine__process_comm_event hands nothing on", !comm);
	return TEST_OK;
}

/*
 * A caller that never puts a lookup's result: F looks an object up for X
 * (F returns the type: DWARF says it hands it on), and X neither returns
 * it nor puts it. The leak is X's, named at its call of F; the finding's
 * ref stays the lookup's get. Of two references one call took (a cached
 * lookup's extra get, on B), the second is the lookup's own: no owner.
 */
int test__refcnt_attribution_owner(struct test_suite *test __maybe_unused,
				   int subtest __maybe_unused)
{
	/* the frames above F's get: X (hands nothing on), MAIN */
	static const u64 fns[] = { FN_X, FN_MAIN };
	static const u16 hands_none[] = { 0, 0 }, hands_all[] = { 0xffff, 0xffff };
	const u8 type = refcnt_type_spec__index(refcnt_type_spec__find("map"));
	const u32 map = 1U << type;
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, GET,  OBJ_A, F, 0x10, 1, 1),
		EV(12, PUT,  OBJ_A, MAIN, 0x18, 1, 2),
		EV(20, BORN, OBJ_B, MAIN, 0x20, 1, 1),
		EV(21, GET,  OBJ_B, F, 0x20, 1, 1),
		EV(22, GET,  OBJ_B, F, 0x28, 1, 2),
		EV(23, PUT,  OBJ_B, X, 0x50, 1, 3),
		EV(24, PUT,  OBJ_B, MAIN, 0x28, 1, 2),
	};
	struct collect c;
	u32 frame;

	frame = refcnt_handoff__owner(type, map, fns, hands_none, ARRAY_SIZE(fns));
	TEST_ASSERT_EQUAL("X owns what F hands on", (int)frame, 1);
	TEST_ASSERT_EQUAL("F owns what it hands nobody",
			  (int)refcnt_handoff__owner(type, 0, fns, hands_none, 2), 0);
	TEST_ASSERT_EQUAL("no owner known when all hand it on",
			  (int)refcnt_handoff__owner(type, map, fns, hands_all, 2), 0);

	for (unsigned int i = 0; i < ARRAY_SIZE(evs); i++) {
		evs[i].type = type;
		if (evs[i].op == REFCNT_OP__GET) {
			evs[i].owner = fns[frame - 1];
			evs[i].owner_site = fns[frame - 1] + 0x40;
		}
	}
	TEST_ASSERT_VAL("feed", !stream__collect(evs, ARRAY_SIZE(evs), 0, &c));

	TEST_ASSERT_EQUAL("leaks", c.nr_findings, 2);
	TEST_ASSERT_VAL("A leaks", c.findings[0].kind == REFCNT_FINDING__LEAK &&
			c.findings[0].obj == OBJ_A &&
			stream__ref_is(&c.findings[0].ref, FN_F + 0x10));
	TEST_ASSERT_VAL("named at its owner", c.findings[0].has_culprit &&
			c.findings[0].why == REFCNT_WHY__OWNER &&
			c.findings[0].culprit.site == FN_X + 0x40 &&
			c.findings[0].culprit.caller == FN_X);
	TEST_ASSERT_VAL("shown at its owner",
			refcnt_finding__site(&c.findings[0])->site == FN_X + 0x40);
	TEST_ASSERT_VAL("B's second reference of one call", c.findings[1].obj == OBJ_B &&
			c.findings[1].kind == REFCNT_FINDING__LEAK &&
			stream__ref_is(&c.findings[1].ref, FN_F + 0x28) &&
			c.findings[1].why == REFCNT_WHY__ONE_CALL_TWO &&
			!c.findings[1].has_culprit);
	return test__handoff_dwarf();
}

/*
 * A cached lookup's references (threads__find()): F hands the type on to
 * its caller and keeps a second reference in its cache, the put of whose
 * old one comes in a later call. X and Y call F; G stores a reference of
 * its own (thread__find_map() in an addr_location), W puts it.
 *  - W, called by X, puts G's reference, not the one X holds from F
 *    (X, its owner, is still running above the put);
 *  - Y puts the reference F handed it, not G's, nor F's cached one;
 *  - F's own put, in a later call, releases the reference its cache kept,
 *    not the one it has just taken to return.
 * What is left, X's, is X's leak at its call of F.
 */
int test__refcnt_attribution_cached_lookup(struct test_suite *test __maybe_unused,
					   int subtest __maybe_unused)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, GET,  OBJ_A, G, 0x10, 1, 1),	/* X: stores one */
		EV(12, GET,  OBJ_A, F, 0x10, 1, 2),	/* X: the lookup's result */
		EV(13, GET,  OBJ_A, F, 0x30, 1, 3),	/*    and its cache's */
		EV(14, PUT,  OBJ_A, W, 0x10, 1, 4),	/* X: drops the stored one */
		EV(20, GET,  OBJ_A, F, 0x10, 1, 3),	/* Y: the result */
		EV(21, GET,  OBJ_A, F, 0x30, 1, 4),	/*    the cache's */
		EV(22, GET,  OBJ_A, G, 0x10, 1, 5),	/* Y: stores one */
		EV(23, PUT,  OBJ_A, Y, 0x50, 1, 6),	/* Y: puts the result */
		EV(30, GET,  OBJ_A, F, 0x10, 1, 5),	/* X: the result */
		EV(31, PUT,  OBJ_A, F, 0x20, 1, 6),	/*    the cache's old one */
		EV(32, GET,  OBJ_A, F, 0x30, 1, 5),	/*    and new one */
	};
	const u8 type = refcnt_type_spec__index(refcnt_type_spec__find("thread"));
	struct collect c;
	int leaks = 0;

	for (unsigned int i = 0; i < ARRAY_SIZE(evs); i++) {
		/* the caller of the first two calls of F is X, of the next Y, then X */
		u64 above = evs[i].time < 20 || evs[i].time >= 30 ? FN_X : FN_Y;

		evs[i].type = type;
		if (evs[i].caller == FN_Y) {
			evs[i].up[0] = FN_MAIN;
		} else if (evs[i].caller != FN_MAIN) {
			evs[i].up[0] = above;
			evs[i].up[1] = FN_MAIN;
		}
		evs[i].hands_on = evs[i].caller == FN_F;
		if (evs[i].hands_on && evs[i].op == REFCNT_OP__GET) {
			evs[i].owner = above;
			evs[i].owner_site = above + 0x40;
		}
	}
	TEST_ASSERT_VAL("engine", !stream__collect(evs, ARRAY_SIZE(evs), OBJ_A, &c));
	TEST_ASSERT_EQUAL("steps of A", c.nr_steps, (int)ARRAY_SIZE(evs));
	TEST_ASSERT_VAL("W puts G's, not what X holds",
			stream__ref_is(&c.steps[4].paired, FN_G + 0x10));
	TEST_ASSERT_VAL("Y puts what F handed it",
			stream__ref_is(&c.steps[8].paired, FN_F + 0x10) &&
			c.steps[8].paired.owner == FN_Y);
	TEST_ASSERT_VAL("F's put releases what its cache kept",
			stream__ref_is(&c.steps[10].paired, FN_F + 0x30));
	for (int i = 0; i < c.nr_findings; i++) {
		const struct refcnt_finding *f = &c.findings[i];

		pr_debug("finding %d: %s at %#" PRIx64 " why %d\n", i,
			 refcnt_finding_kind__name(f->kind), refcnt_finding__site(f)->site, f->why);
		if (f->kind != REFCNT_FINDING__LEAK || !stream__ref_is(&f->ref, FN_F + 0x10))
			continue;
		TEST_ASSERT_VAL("the result is X's leak", f->has_culprit &&
				f->why == REFCNT_WHY__OWNER && f->culprit.caller == FN_X);
		leaks++;
	}
	TEST_ASSERT_EQUAL("results left", leaks, 2);
	return TEST_OK;
}

/* The setter of the cache below, where it is inlined: an inlined function's key */
#define SCOPE_S	(REFCNT_INLINE_KEY | 0x100)

/*
 * The stream of cached_inline below, with the setter S called (FN_W), or
 * inlined into the function that calls it (@inlined). Each event is
 * { time, op, obj, function, site, function S is in (0: not S's) }.
 */
static size_t cached_inline__events(struct refcnt_event *evs, bool inlined)
{
	static const struct {
		u64 time;
		u8 op;
		u64 obj, fn, off, in;
	} ops[] = {
		{ 10, REFCNT_OP__BORN, OBJ_A, FN_F, 0x10, 0 },	/* F: the table's */
		{ 11, REFCNT_OP__GET,  OBJ_A, FN_F, 0x20, 0 },	/*    the result */
		{ 12, REFCNT_OP__GET,  OBJ_A, FN_W, 0x40, FN_F },	/* S: the cache's */
		{ 13, REFCNT_OP__PUT,  OBJ_A, FN_X, 0x10, 0 },	/* X puts the result */
		{ 20, REFCNT_OP__GET,  OBJ_A, FN_G, 0x10, 0 },	/* G: the result */
		{ 21, REFCNT_OP__PUT,  OBJ_A, FN_W, 0x20, FN_G },	/* S: the old cache's */
		{ 22, REFCNT_OP__GET,  OBJ_A, FN_W, 0x40, FN_G },	/*    the new one */
		{ 23, REFCNT_OP__PUT,  OBJ_A, FN_X, 0x10, 0 },
		{ 30, REFCNT_OP__BORN, OBJ_B, FN_F, 0x10, 0 },
		{ 31, REFCNT_OP__GET,  OBJ_B, FN_F, 0x20, 0 },
		{ 32, REFCNT_OP__GET,  OBJ_B, FN_F, 0x28, 0 },	/* the extra get */
		{ 33, REFCNT_OP__PUT,  OBJ_A, FN_W, 0x20, FN_F },
		{ 34, REFCNT_OP__GET,  OBJ_B, FN_W, 0x40, FN_F },
		{ 35, REFCNT_OP__PUT,  OBJ_B, FN_X, 0x10, 0 },
		{ 40, REFCNT_OP__PUT,  OBJ_B, FN_W, 0x20, FN_MAIN },	/* teardown */
		{ 41, REFCNT_OP__PUT,  OBJ_A, FN_MAIN, 0x20, 0 },
		{ 42, REFCNT_OP__DIES, OBJ_A, FN_MAIN, 0x20, 0 },
		{ 43, REFCNT_OP__PUT,  OBJ_B, FN_MAIN, 0x20, 0 },
	};
	const u8 type = refcnt_type_spec__index(refcnt_type_spec__find("thread"));

	for (size_t i = 0; i < ARRAY_SIZE(ops); i++) {
		struct refcnt_event *ev = &evs[i];
		u64 fn = ops[i].in && inlined ? ops[i].in : ops[i].fn;
		/* the function that S is in, or the event's */
		u64 outer = ops[i].in ?: ops[i].fn;
		int n = 0;

		memset(ev, 0, sizeof(*ev));
		ev->time = ops[i].time;
		ev->op = ops[i].op;
		ev->obj = ops[i].obj;
		ev->type = type;
		ev->tid = 1;
		ev->live = UNK;
		/* an inlined copy is at another address of each function */
		ev->site = fn + ops[i].off + (fn != ops[i].fn ? 0x800 : 0);
		ev->caller = fn;
		ev->stack = fn >> 4;
		if (ops[i].in && inlined)
			ev->scope = SCOPE_S;
		/* the frames above: S's caller if S is called, X above F and G, MAIN */
		if (ops[i].in && !inlined)
			ev->up[n++] = ops[i].in;
		if (outer == FN_F || outer == FN_G)
			ev->up[n++] = FN_X;
		if (outer != FN_MAIN)
			ev->up[n++] = FN_MAIN;
		/* F and G hand their result to X; S hands nothing on */
		ev->hands_on = fn == FN_F || fn == FN_G;
		ev->scope_keeps = ev->scope && ev->op == REFCNT_OP__GET;
		if (ev->hands_on && ev->op == REFCNT_OP__GET) {
			ev->owner = FN_X;
			ev->owner_site = FN_X + 0x40;
		}
	}
	return ARRAY_SIZE(ops);
}

#ifdef HAVE_DWARF_SUPPORT
#include <dwarf.h>
#include <elfutils/libdw.h>
#include "util/debuginfo.h"

/* What the DWARF walk below found: an inlined copy and the one around it */
struct inline_find {
	bool	api;		/* look for a copy of map__get(), else any */
	u64	pc;		/* the copy's entry */
	u64	key, outer;	/* its function's key, the one around it */
};

static u64 inline__key(Dwarf_Die *die, const char **name)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin = *die;

	for (int i = 0; i < 8 && dwarf_attr(&origin, DW_AT_abstract_origin, &attr); i++) {
		if (!dwarf_formref_die(&attr, &origin))
			return 0;
	}
	*name = dwarf_diename(&origin);
	return REFCNT_INLINE_KEY | dwarf_dieoffset(&origin);
}

/* Does @die hold an inlined copy, at most @depth scopes down? */
static bool inline__has_inlines(Dwarf_Die *die, int depth)
{
	Dwarf_Die child;

	if (depth < 0 || dwarf_child(die, &child))
		return false;
	do {
		if (dwarf_tag(&child) == DW_TAG_inlined_subroutine ||
		    inline__has_inlines(&child, depth - 1))
			return true;
	} while (!dwarf_siblingof(&child, &child));
	return false;
}

/*
 * Below @die, inside the inlined function @outer (0: none), the first
 * inlined copy of map__get() (@f->api), or of a leaf function that
 * inlines nothing more (else), in a non-API function. Bounded by @depth.
 */
static bool inline__find(Dwarf_Die *die, Dwarf_Die *outer_die, u64 outer,
			 struct inline_find *f, int depth)
{
	Dwarf_Die child;
	Dwarf_Addr pc;

	if (depth > 12 || dwarf_child(die, &child))
		return false;
	do {
		const char *name = NULL;
		u64 key = 0, inner = outer;
		Dwarf_Die *inner_die = outer_die;
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_inlined_subroutine) {
			key = inline__key(&child, &name);
			if (!key || !name)
				continue;
			/* a concrete copy: its entry in it and in the one around it */
			if (outer && dwarf_entrypc(&child, &pc) == 0 &&
			    dwarf_haspc(&child, pc) > 0 && dwarf_haspc(outer_die, pc) > 0 &&
			    (f->api ? !strcmp(name, "map__get") :
			     !refcnt_type_specs__has_func(name) &&
			     !inline__has_inlines(&child, 8))) {
				f->pc = pc;
				f->key = key;
				f->outer = outer;
				return true;
			}
			inner = refcnt_type_specs__has_func(name) ? 0 : key;
			inner_die = &child;
		}
		if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) &&
		    inline__find(&child, inner_die, inner, f, depth + 1))
			return true;
	} while (!dwarf_siblingof(&child, &child));
	return false;
}

/*
 * On perf's own DWARF: at the entry of an inlined leaf function inside
 * another, the innermost is the leaf, then the other; at an inlined
 * map__get(), the copy is the probe's: the innermost is the function
 * around it.
 */
static int test__inline_scopes_dwarf(void)
{
	struct debuginfo *dinfo = debuginfo__new("/proc/self/exe");
	struct inline_find leaf = { .api = false }, api = { .api = true };
	struct refcnt_inline_frame frames[REFCNT_INLINE_DEPTH];
	Dwarf_Off off = 0, next;
	size_t header;
	int nr, ret = TEST_OK;

	if (!dinfo) {
		pr_debug("no DWARF in this perf (build it with EXTRA_CFLAGS=-g)\n");
		ret = TEST_SKIP;
		goto out;
	}
	while ((!leaf.pc || !api.pc) &&
	       !dwarf_nextcu(dinfo->dbg, off, &next, &header, NULL, NULL, NULL)) {
		Dwarf_Die cu;

		if (dwarf_offdie(dinfo->dbg, off + header, &cu)) {
			Dwarf_Die sp;

			if (!dwarf_child(&cu, &sp)) {
				do {
					if (dwarf_tag(&sp) != DW_TAG_subprogram)
						continue;
					if (!leaf.pc)
						inline__find(&sp, NULL, 0, &leaf, 0);
					if (!api.pc)
						inline__find(&sp, NULL, 0, &api, 0);
				} while ((!leaf.pc || !api.pc) && !dwarf_siblingof(&sp, &sp));
			}
		}
		off = next;
	}
	pr_debug("leaf copy at %#" PRIx64 ", map__get() copy at %#" PRIx64 "\n", leaf.pc, api.pc);
	if (!leaf.pc || !api.pc)
		goto out;	/* nothing inlined that way in this build */
	nr = refcnt_inline_scopes__at(dinfo, leaf.pc, frames, REFCNT_INLINE_DEPTH);
	if (nr < 2 || frames[0].key != leaf.key || frames[1].key != leaf.outer) {
		pr_debug("leaf: %d frames, %#" PRIx64 " %#" PRIx64 "\n", nr,
			 nr ? frames[0].key : 0, nr > 1 ? frames[1].key : 0);
		ret = TEST_FAIL;
	}
	nr = refcnt_inline_scopes__at(dinfo, api.pc, frames, REFCNT_INLINE_DEPTH);
	if (nr < 1 || frames[0].key != api.outer) {
		pr_debug("map__get(): %d frames, %#" PRIx64 "\n", nr, nr ? frames[0].key : 0);
		ret = TEST_FAIL;
	}
out:
	debuginfo__delete(dinfo);
	return ret;
}

/*
 * A teardown whose last act is free() jumps to it (a tail call), and one
 * that ends in a call of another jumps there: free() returns past them,
 * to where the first was called. refcnt_tail_free() notes that address.
 */
static void *refcnt_tail_ret;

noinline void refcnt_tail_free(void *p)
{
	refcnt_tail_ret = __builtin_return_address(0);
	free(p);
}

noinline void refcnt_tail_hop(void *p)
{
	refcnt_tail_free(p);
}

static bool tail__is_free(const char *name)
{
	return !strcmp(name, "free");
}

static u64 tail__resolve(const char *name, void *arg __maybe_unused)
{
	if (!strcmp(name, "refcnt_tail_free"))
		return handoff__addr(refcnt_tail_free);
	return !strcmp(name, "refcnt_tail_hop") ? handoff__addr(refcnt_tail_hop) : 0;
}

/* free()'s caller, when it returned to where refcnt_tail_free() says */
static u64 tail__caller(struct debuginfo *dinfo)
{
	return refcnt_call_sites__tail_caller(dinfo, handoff__addr(refcnt_tail_ret),
					      tail__is_free, tail__resolve, NULL);
}

/*
 * On perf's own DWARF call sites: free() called at the end of
 * refcnt_tail_free() is its, whether refcnt_tail_free() was called, or
 * jumped to from refcnt_tail_hop(); after an indirect call, not known.
 */
static int test__call_sites_dwarf(void)
{
	struct debuginfo *dinfo = debuginfo__new("/proc/self/exe");
	void (*indirect)(void *p) = refcnt_tail_free;
	u64 want = handoff__addr(refcnt_tail_free), direct, hop, unknown;

	if (!dinfo) {
		pr_debug("no DWARF in this perf (build it with EXTRA_CFLAGS=-g)\n");
		return TEST_SKIP;
	}
	refcnt_tail_free(malloc(8));
	direct = tail__caller(dinfo);
	if (!direct) {
		debuginfo__delete(dinfo);
		pr_debug("no call sites in this perf's DWARF (built without optimization?)\n");
		return TEST_SKIP;
	}
	refcnt_tail_hop(malloc(8));
	hop = tail__caller(dinfo);
	/* an indirect call, whatever the compiler knows of the pointer */
	asm volatile("" : "+r" (indirect));
	indirect(malloc(8));
	unknown = tail__caller(dinfo);
	debuginfo__delete(dinfo);
	pr_debug("refcnt_tail_free at %#" PRIx64 ": called %#" PRIx64 ", through a jump %#" PRIx64
		 ", indirectly %#" PRIx64 "\n", want, direct, hop, unknown);
	TEST_ASSERT_VAL("called", want && direct == want);
	TEST_ASSERT_VAL("through refcnt_tail_hop()'s tail call", hop == want);
	TEST_ASSERT_VAL("an indirect call says nothing", !unknown);
	return TEST_OK;
}
#else
static int test__inline_scopes_dwarf(void)
{
	return TEST_SKIP;
}

static int test__call_sites_dwarf(void)
{
	return TEST_SKIP;
}
#endif

/*
 * Pairing does not depend on what the compiler inlined: a cache setter S
 * that puts the cache's old reference and takes its new one, called from
 * a lookup G, a lookup-or-create F (which also takes an extra reference
 * by mistake) and a teardown, pairs the same whether S is a function of
 * its own or inlined into each caller (threads__find(), threads__findnew(),
 * threads__remove_all_threads()). Inlined, S's put releases the reference
 * S kept, wherever S took it, not the result its caller has just taken,
 * nor its caller's table's; the only leak is the extra get, in F.
 */
int test__refcnt_attribution_cached_inline(struct test_suite *test __maybe_unused,
					   int subtest __maybe_unused)
{
	struct refcnt_event evs[32];

	for (int inlined = 0; inlined < 2; inlined++) {
		size_t nr = cached_inline__events(evs, inlined);
		u64 cache_fn = inlined ? FN_F : FN_W, cache = cache_fn + 0x40;
		struct collect c;

		if (inlined)
			cache += 0x800;
		pr_debug("setter %s\n", inlined ? "inlined" : "called");
		TEST_ASSERT_VAL("engine", !stream__collect(evs, nr, OBJ_A, &c));
		for (int i = 0; i < c.nr_steps; i++)
			pr_debug("step %d: time %" PRIu64 " releases %#" PRIx64 "\n", i,
				 c.events[i].time, c.steps[i].paired.site);
		TEST_ASSERT_EQUAL("steps of A", c.nr_steps, 11);
		TEST_ASSERT_VAL("X puts F's result",
				stream__ref_is(&c.steps[3].paired, FN_F + 0x20));
		TEST_ASSERT_VAL("S puts the cache's, taken in F",
				stream__ref_is(&c.steps[5].paired, cache));
		TEST_ASSERT_VAL("X puts G's result",
				stream__ref_is(&c.steps[7].paired, FN_G + 0x10));
		TEST_ASSERT_VAL("S in F puts the cache's, taken in G",
				c.steps[8].paired.site == (inlined ? FN_G + 0x840 : FN_W + 0x40));
		for (int i = 0; i < c.nr_findings; i++)
			pr_debug("finding %d: %s of %#" PRIx64 " at %#" PRIx64 " why %d\n", i,
				 refcnt_finding_kind__name(c.findings[i].kind), c.findings[i].obj,
				 refcnt_finding__site(&c.findings[i])->site, c.findings[i].why);
		TEST_ASSERT_EQUAL("one finding", c.nr_findings, 1);
		TEST_ASSERT_VAL("F's extra get leaks",
				c.findings[0].kind == REFCNT_FINDING__LEAK &&
				c.findings[0].obj == OBJ_B &&
				stream__ref_is(&c.findings[0].ref, FN_F + 0x28) &&
				c.findings[0].why == REFCNT_WHY__ONE_CALL_TWO);
	}
	return test__inline_scopes_dwarf();
}

/* An initializer that stores what it takes, where it is inlined */
#define SCOPE_I	(REFCNT_INLINE_KEY | 0x200)
#define SCOPE_L	(REFCNT_INLINE_KEY | 0x300)	/* a lookup inlined in F, that hands on */

/*
 * Pairing does not depend on what the compiler inlined, take two: F makes
 * an object that holds A (map__new()): a lookup-or-create G hands F a
 * new A (born), which a table H also took; F's initializer I stores a
 * reference of its own in the object (map__init(), called as FN_Y or
 * inlined into F), and F puts what G handed it. W (map__delete()) puts
 * the object's. What the initializer stored is not F's to put, inlined
 * or not: F's put releases the birth, W's the initializer's, and the
 * table's is what is left (its teardown skipped it).
 */
int test__refcnt_attribution_inline_init(struct test_suite *test __maybe_unused,
					 int subtest __maybe_unused)
{
	const u8 type = refcnt_type_spec__index(refcnt_type_spec__find("dso"));

	for (int inlined = 0; inlined < 2; inlined++) {
		struct refcnt_event evs[] = {
			EV(10, BORN, OBJ_A, G, 0x10, 1, 1),
			EV(11, GET,  OBJ_A, H, 0x10, 1, 1),
			EV(12, GET,  OBJ_A, Y, 0x10, 1, 2),	/* I: the object's */
			EV(13, PUT,  OBJ_A, F, 0x20, 1, 3),
			EV(20, PUT,  OBJ_A, W, 0x10, 1, 2),
		};
		u64 stored = inlined ? FN_F + 0x810 : FN_Y + 0x10;
		struct collect c;

		for (unsigned int i = 0; i < ARRAY_SIZE(evs); i++) {
			struct refcnt_event *ev = &evs[i];
			int n = 0;

			ev->type = type;
			if (ev->caller == FN_Y && inlined) {
				ev->site = stored;
				ev->caller = FN_F;
				ev->stack = FN_F >> 4;
				ev->scope = SCOPE_I;
				ev->scope_keeps = true;
			}
			/* G, H and I are called by F, F and W by MAIN */
			if (ev->caller != FN_F && ev->caller != FN_W)
				ev->up[n++] = FN_F;
			ev->up[n] = FN_MAIN;
			/* G hands what it makes to F */
			ev->hands_on = ev->caller == FN_G;
			if (ev->hands_on) {
				ev->owner = FN_F;
				ev->owner_site = FN_F + 0x40;
			}
		}
		pr_debug("initializer %s\n", inlined ? "inlined" : "called");
		TEST_ASSERT_VAL("engine", !stream__collect(evs, ARRAY_SIZE(evs), OBJ_A, &c));
		TEST_ASSERT_EQUAL("steps of A", c.nr_steps, (int)ARRAY_SIZE(evs));
		TEST_ASSERT_VAL("F puts what G handed it",
				stream__ref_is(&c.steps[3].paired, FN_G + 0x10));
		TEST_ASSERT_VAL("W puts what I stored", c.steps[4].paired.site == stored);
		TEST_ASSERT_EQUAL("one finding", c.nr_findings, 1);
		TEST_ASSERT_VAL("H's is left", c.findings[0].kind == REFCNT_FINDING__LEAK &&
				stream__ref_is(&c.findings[0].ref, FN_H + 0x10));
	}
	return TEST_OK;
}

/*
 * A put releases what was taken in the closest call tree that holds it.
 * Each sample of a handler S (process_sample_event()) resolves one
 * callchain node below R (thread__resolve_callchain_sample()): A
 * (add_callchain_ip()) has T (thread__find_map()) fill its location, takes
 * one for its own map_symbol, has C (callchain_cursor_append()) store one
 * in the cursor, then E (addr_location__exit()) and M (map_symbol__exit())
 * put two; the next sample's reset Z (callchain_cursor_reset()) puts the
 * cursor's. Beside them, I (fill_callchain_info(), called by S) takes one
 * per sample that nothing puts. The most recent reference is I's when Z
 * puts, and one of A's calls' when E and M do: what is left must be I's.
 */
int test__refcnt_attribution_common_caller(struct test_suite *test __maybe_unused,
					   int subtest __maybe_unused)
{
#define FN_S	FN_MAIN
#define FN_R	FN_F
#define FN_A	FN_X
#define FN_T	FN_H
#define FN_E	FN_G
#define FN_M	FN_P
#define FN_Z	FN_W
#define FN_I	FN_Y
	/* what one sample does: function, site, its callers (closest first) */
	static const struct {
		u8 op;
		u64 fn, off, up[3];
	} sample[] = {
		{ REFCNT_OP__PUT, FN_M, 0x10, { FN_Z, FN_R, FN_S } },	/* the last node's */
		{ REFCNT_OP__GET, FN_T, 0x10, { FN_A, FN_R, FN_S } },
		{ REFCNT_OP__GET, FN_A, 0x10, { FN_R, FN_S } },
		{ REFCNT_OP__GET, FN_C, 0x10, { FN_A, FN_R, FN_S } },
		{ REFCNT_OP__PUT, FN_E, 0x10, { FN_A, FN_R, FN_S } },
		{ REFCNT_OP__PUT, FN_M, 0x10, { FN_A, FN_R, FN_S } },
		{ REFCNT_OP__GET, FN_I, 0x10, { FN_S } },	/* never put */
	};
	const u8 type = refcnt_type_spec__index(refcnt_type_spec__find("maps"));
	struct refcnt_event evs[64];
	u64 t = 10;
	size_t nr = 0;
	struct collect c;
	int leaks = 0;

	memset(evs, 0, sizeof(evs));
	evs[nr++] = (struct refcnt_event)EV(1, BORN, OBJ_A, MAIN, 0x10, 1, 1);
	for (int k = 0; k < 4; k++) {
		/* the first sample has no node to reset, the last only resets */
		for (size_t i = !k; i < (k == 3 ? 1 : ARRAY_SIZE(sample)); i++) {
			struct refcnt_event *ev = &evs[nr++];

			ev->time = t++;
			ev->op = sample[i].op;
			ev->obj = OBJ_A;
			ev->site = sample[i].fn + sample[i].off;
			ev->caller = sample[i].fn;
			ev->stack = sample[i].fn >> 4;
			ev->tid = 1;
			ev->live = UNK;
			memcpy(ev->up, sample[i].up, sizeof(ev->up));
		}
	}
	for (size_t i = 0; i < nr; i++)
		evs[i].type = type;
	TEST_ASSERT_VAL("engine", !stream__collect(evs, nr, OBJ_A, &c));
	for (int i = 0; i < c.nr_findings; i++) {
		const struct refcnt_finding *f = &c.findings[i];

		pr_debug("finding %d: %s at %#" PRIx64 "\n", i,
			 refcnt_finding_kind__name(f->kind), f->ref.site);
		if (f->kind != REFCNT_FINDING__LEAK)
			continue;
		TEST_ASSERT_VAL("I's left", stream__ref_is(&f->ref, FN_I + 0x10));
		leaks++;
	}
	TEST_ASSERT_EQUAL("one leak a sample", leaks, 3);
	return TEST_OK;
#undef FN_S
#undef FN_R
#undef FN_A
#undef FN_T
#undef FN_E
#undef FN_M
#undef FN_Z
#undef FN_I
}

/*
 * Two gets one call takes on an object, one after the other, are "one
 * call took two" (the second a twin, the likely extra get) when the same
 * function took both; a get in F's body, then one in an inlined function
 * S in F that keeps it (a cache setter), are not: S is another function.
 * S's put, inlined elsewhere, releases what S kept. A get in an inlined
 * lookup L that hands it to F, then one in F's body, are (@inlined 2): F's
 * call took both, L's for F to hand on, and one more of its own.
 */
int test__refcnt_attribution_inline_twin(struct test_suite *test __maybe_unused,
					 int subtest __maybe_unused)
{
	for (int inlined = 0; inlined < 3; inlined++) {
		struct refcnt_event evs[] = {
			EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
			EV(11, GET,  OBJ_A, F, 0x10, 1, 1),
			EV(12, GET,  OBJ_A, F, 0x40, 1, 2),	/* S's, inlined in F, or F's */
			EV(13, PUT,  OBJ_A, G, 0x20, 1, 3),	/* S's, inlined in G, or G's */
		};
		struct collect c;

		for (unsigned int i = 0; i < ARRAY_SIZE(evs); i++) {
			evs[i].type = refcnt_type_spec__index(refcnt_type_spec__find("thread"));
			evs[i].up[0] = FN_MAIN;
		}
		if (inlined == 1) {
			evs[2].scope = SCOPE_S;
			evs[2].scope_keeps = true;
			evs[3].scope = SCOPE_S;
		}
		if (inlined == 2)
			evs[1].scope = SCOPE_L;
		TEST_ASSERT_VAL("engine", !stream__collect(evs, ARRAY_SIZE(evs), OBJ_A, &c));
		TEST_ASSERT_EQUAL("steps of A", c.nr_steps, (int)ARRAY_SIZE(evs));
		pr_debug("%s: the put releases %#" PRIx64 ", twin %d\n",
			 inlined ? "inlined" : "in F", c.steps[3].paired.site,
			 c.steps[3].paired.twin);
		if (inlined == 1) {
			TEST_ASSERT_VAL("S's put releases what S kept",
					c.steps[3].paired.site == FN_F + 0x40);
			TEST_ASSERT_VAL("S's get is no twin of F's", !c.steps[3].paired.twin);
		} else {
			TEST_ASSERT_VAL("F's second get is a twin",
					c.findings[0].kind == REFCNT_FINDING__LEAK &&
					c.findings[0].ref.site == FN_F + 0x40 &&
					c.findings[0].why == REFCNT_WHY__ONE_CALL_TWO);
		}
	}
	return TEST_OK;
}

/*
 * F (a find-or-add, which hands the dso on to P) makes A, then W (an
 * insert into a table, which F calls) takes the table's reference, then
 * F takes one more (@extra; else the table's insert and F's birth only).
 * P puts what F returned, and H (a remove from the table) puts the
 * table's. F's get is one more than its call gave P: the leak is F's,
 * one call took two, not W's, whose reference the table held, nor P's.
 * @other: F's get is another call's, from MAIN (its callers differ), or
 * (@other 2) F's birth was in a function inlined in it that keeps it: no
 * one more, whatever it leaks.
 */
static int insert_then_get(bool extra, int other, struct collect *c)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, F, 0x10, 1, 1),
		EV(11, GET,  OBJ_A, W, 0x10, 1, 1),
		EV(12, GET,  OBJ_A, F, 0x20, 1, 2),
		EV(13, PUT,  OBJ_A, P, 0x30, 1, 3),
		EV(20, PUT,  OBJ_A, H, 0x10, 1, 2),
	};
	u8 type = refcnt_type_spec__index(refcnt_type_spec__find("dso"));

	for (unsigned int i = 0; i < ARRAY_SIZE(evs); i++) {
		struct refcnt_event *ev = &evs[i];

		ev->type = type;
		ev->up[0] = ev->caller == FN_W ? FN_F : ev->caller == FN_F ? FN_P : FN_MAIN;
		if (ev->caller == FN_F) {
			ev->owner = FN_P;
			ev->owner_site = FN_P + 0x08;
			ev->hands_on = true;
		}
		/* F, W and H take a pointer to the table */
		if (ev->caller != FN_P)
			ev->holders = 1;
	}
	if (other == 1)
		evs[2].up[0] = FN_MAIN;
	if (other == 2) {
		evs[0].scope = SCOPE_S;
		evs[0].scope_keeps = true;
	}
	if (!extra) {
		memmove(&evs[2], &evs[3], 2 * sizeof(evs[0]));
		evs[2].live = 2;
		evs[3].live = 1;
	}
	return stream__collect(evs, ARRAY_SIZE(evs) - !extra, OBJ_A, c);
}

int test__refcnt_attribution_insert_then_get(struct test_suite *test __maybe_unused,
					     int subtest __maybe_unused)
{
	struct collect c;

	TEST_ASSERT_VAL("engine", !insert_then_get(true, 0, &c));
	pr_debug("%d findings, the first at %#" PRIx64 "\n", c.nr_findings,
		 c.nr_findings ? c.findings[0].ref.site : 0);
	TEST_ASSERT_VAL("F's get leaked, one call took two", c.nr_findings == 1 &&
			c.findings[0].kind == REFCNT_FINDING__LEAK &&
			c.findings[0].ref.site == FN_F + 0x20 &&
			c.findings[0].why == REFCNT_WHY__ONE_CALL_TWO);
	TEST_ASSERT_VAL("engine", !insert_then_get(false, 0, &c));
	TEST_ASSERT_VAL("no extra get: no finding", c.nr_findings == 0);
	for (int other = 1; other <= 2; other++) {
		TEST_ASSERT_VAL("engine", !insert_then_get(true, other, &c));
		TEST_ASSERT_VAL("another call's get, or a keeper's birth: no twin",
				c.nr_findings == 1 && !c.steps[3].paired.twin &&
				!c.steps[4].paired.twin && !c.findings[0].ref.twin &&
				c.findings[0].why != REFCNT_WHY__ONE_CALL_TWO);
	}
	return TEST_OK;
}

/*
 * The scan at exit counts one of A's three references that no reachable
 * memory accounts for, never which one. F's get (a callchain cursor's,
 * which keeps its last one) is the most recent, but F released 4 of the 5
 * references it took, on A and on B; X's lookup, whose result X never put,
 * released none: the leak is X's, told "least released". A's birth, which
 * released none either, comes after the gets: its owner keeps it by
 * design. With two references counted leaked, F's is the second, and X's
 * was told first for no site that released more being accounted for.
 */
int test__refcnt_attribution_least_released(struct test_suite *test __maybe_unused,
					    int subtest __maybe_unused)
{
	for (u32 words = 2; words > 0; words--) {
		struct refcnt_event evs[] = {
			EV(10, BORN, OBJ_B, MAIN, 0x20, 1, 1),
			EV(11, GET,  OBJ_B, F, 0x10, 1, 1),
			EV(12, PUT,  OBJ_B, F, 0x18, 1, 2),
			EV(13, GET,  OBJ_B, F, 0x10, 1, 1),
			EV(14, PUT,  OBJ_B, F, 0x18, 1, 2),
			EV(15, GET,  OBJ_B, F, 0x10, 1, 1),
			EV(16, PUT,  OBJ_B, F, 0x18, 1, 2),
			EV(17, PUT,  OBJ_B, MAIN, 0x28, 1, 1),
			EV(18, DIES, OBJ_B, MAIN, 0x28, 1, 0),
			EV(20, BORN, OBJ_A, MAIN, 0x30, 1, 1),
			EV(21, GET,  OBJ_A, X, 0x30, 1, 1),
			EV(22, GET,  OBJ_A, F, 0x10, 1, 2),
			EV(23, PUT,  OBJ_A, F, 0x18, 1, 3),
			EV(24, GET,  OBJ_A, F, 0x10, 1, 2),
		};
		struct refcnt_scan_object scanned[] = {
			{ .addr = OBJ_A, .words = words, .reachable = 1, .refcnt = 3 },
		};
		const struct expect exp[] = {
			{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_A, .generation = 1,
			  .site = FN_X + 0x30, .op = REFCNT_OP__GET },
			{ .kind = words == 2 ? REFCNT_FINDING__STILL_REFERENCED :
				  REFCNT_FINDING__LEAK,
			  .obj = OBJ_A, .generation = 1, .site = FN_F + 0x10,
			  .op = REFCNT_OP__GET },
			{ .kind = REFCNT_FINDING__STILL_REFERENCED, .obj = OBJ_A, .generation = 1,
			  .site = FN_MAIN + 0x30, .op = REFCNT_OP__BORN },
		};
		struct refcnt_scan scan = {
			.result = { .status = REFCNT_SCAN__DONE,
				    .nr_objects = ARRAY_SIZE(scanned) },
			.objects = scanned,
		};
		struct collect c;

		TEST_ASSERT_VAL("run",
				stream__run_scanned(evs, ARRAY_SIZE(evs), &scan, &c) == TEST_OK);
		TEST_ASSERT_VAL("findings", stream__check(&c, exp, ARRAY_SIZE(exp)) == TEST_OK);
		TEST_ASSERT_VAL("why", c.findings[0].why == (words == 2 ?
				REFCNT_WHY__LEAST_RELEASED : REFCNT_WHY__LEFT));
	}
	TEST_ASSERT_VAL("why's name", !strcmp(refcnt_site_why__name(REFCNT_WHY__LEAST_RELEASED),
					      "least released"));
	return TEST_OK;
}

/*
 * A teardown with nothing to go by (perf lock report's kernel map): G
 * inserts A in a container, F looks A up for X twice, and X, which has
 * returned since, never put either. P's teardown puts, below neither X nor
 * any function that took a reference, and no pairs taught what P
 * releases. The most recent references are X's, but X is gone: it stored
 * what F handed it, or leaked it, and no event says which; G's insert and
 * A's birth keep theirs by design. P releases those, and X's two are what
 * is left: leaks named at X, its owner. The same when C called X, and W,
 * which called P (perf kmem's printing, and its teardown deep below
 * cmd_kmem()): sharing C says nothing of a reference whose call tree
 * closed at X. But when C called both X and P, X may have filled C's
 * struct (an addr_location), which P, its destructor, releases. A frame
 * not known above X is no caller of X's.
 */
int test__refcnt_attribution_escaped(struct test_suite *test __maybe_unused,
				     int subtest __maybe_unused)
{
	for (int common = 0; common < 4; common++) {
		struct refcnt_event evs[] = {
			EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
			EV(11, GET,  OBJ_A, G, 0x10, 1, 1),
			EV(12, GET,  OBJ_A, F, 0x10, 1, 2),	/* for X, at X+0x40 */
			EV(13, GET,  OBJ_A, F, 0x10, 1, 3),	/* for X, at X+0x48 */
			EV(20, PUT,  OBJ_A, P, 0x20, 1, 4),
			EV(21, PUT,  OBJ_A, P, 0x28, 1, 3),
		};
		struct collect c;

		for (unsigned int i = 0; i < ARRAY_SIZE(evs); i++) {
			evs[i].type = refcnt_type_spec__index(refcnt_type_spec__find("map"));
			evs[i].up[0] = evs[i].op == REFCNT_OP__PUT ? FN_C : FN_MAIN;
			if (evs[i].op == REFCNT_OP__PUT && (common & 1)) {
				evs[i].up[0] = FN_W;
				evs[i].up[1] = FN_C;
			}
			if (evs[i].caller == FN_F) {
				evs[i].up[0] = FN_X;
				/* 3: a frame not known between X and C */
				evs[i].up[1] = common == 3 ? 0 : common ? FN_C : 0;
				evs[i].up[2] = common == 3 ? FN_C : 0;
				evs[i].owner = FN_X;
				evs[i].owner_site = FN_X + 0x40 + 8 * (i - 2);
			}
		}
		TEST_ASSERT_VAL("engine", !stream__collect(evs, ARRAY_SIZE(evs), OBJ_A, &c));
		TEST_ASSERT_EQUAL("steps of A", c.nr_steps, (int)ARRAY_SIZE(evs));
		if (common == 2) {
			TEST_ASSERT_VAL("C's tree releases what X filled for C",
					c.steps[4].confidence == REFCNT_PAIR__COMMON_CALLER &&
					stream__ref_is(&c.steps[4].paired, FN_F + 0x10));
			continue;
		}
		TEST_ASSERT_VAL("P releases G's, then the birth's",
				c.steps[4].confidence == REFCNT_PAIR__SAME_THREAD &&
				stream__ref_is(&c.steps[4].paired, FN_G + 0x10) &&
				c.steps[5].paired.op == REFCNT_OP__BORN);
		TEST_ASSERT_EQUAL("leaks", c.nr_findings, 2);
		for (int i = 0; i < 2; i++) {
			TEST_ASSERT_VAL("X's leak",
					c.findings[i].kind == REFCNT_FINDING__LEAK &&
					stream__ref_is(&c.findings[i].ref, FN_F + 0x10) &&
					c.findings[i].why == REFCNT_WHY__OWNER &&
					refcnt_finding__site(&c.findings[i])->caller == FN_X);
		}
	}
	return TEST_OK;
}

/*
 * Of the references a common caller's call tree took, one an inlined
 * function kept comes last (perf sched timehist): F calls H, which calls
 * G (thread__find_map() filling an addr_location), and Y, whose inlined
 * S keeps the latest result in a cache (threads__find()'s last match):
 * both at the same depth below F, S's the more recent. W, F's
 * addr_location__exit(), releases G's; S's stays for S's next call.
 */
int test__refcnt_attribution_common_not_kept(struct test_suite *test __maybe_unused,
					     int subtest __maybe_unused)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, GET,  OBJ_A, G, 0x10, 1, 1),
		EV(12, GET,  OBJ_A, Y, 0x30, 1, 2),	/* S's, inlined in Y */
		EV(13, PUT,  OBJ_A, W, 0x10, 1, 3),
	};
	struct collect c;

	for (unsigned int i = 0; i < ARRAY_SIZE(evs); i++) {
		evs[i].type = refcnt_type_spec__index(refcnt_type_spec__find("thread"));
		evs[i].up[0] = FN_MAIN;
	}
	evs[1].up[0] = FN_H;
	evs[1].up[1] = FN_F;
	evs[2].up[0] = FN_X;
	evs[2].up[1] = FN_F;
	evs[2].scope = SCOPE_S;
	evs[2].scope_keeps = true;
	evs[3].up[0] = FN_F;
	TEST_ASSERT_VAL("engine", !stream__collect(evs, ARRAY_SIZE(evs), OBJ_A, &c));
	TEST_ASSERT_EQUAL("steps of A", c.nr_steps, (int)ARRAY_SIZE(evs));
	TEST_ASSERT_VAL("W releases G's",
			c.steps[3].confidence == REFCNT_PAIR__COMMON_CALLER &&
			stream__ref_is(&c.steps[3].paired, FN_G + 0x10));
	return TEST_OK;
}

/*
 * A put in F that did not load what it releases (no slot) releases what a
 * call of F's was handed before what an inlined function kept in a
 * closer one: H, three frames below F, returned a lookup's reference
 * (dsos__find_kernel_dso()), then G, F's own callee, took one that its
 * inlined S stored in the object it made (map__new2()'s map__init()).
 * F puts one: H's. Without passing kept ones over, the closer G's would be
 * released, and H's reference, a lookup result F never puts, would be the
 * one left when F leaks another (the leak row names the lookup instead of
 * what F lost).
 */
int test__refcnt_attribution_caller_not_kept(struct test_suite *test __maybe_unused,
					     int subtest __maybe_unused)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, GET,  OBJ_A, H, 0x10, 1, 1),	/* F -> X -> Y -> H */
		EV(12, GET,  OBJ_A, G, 0x30, 1, 2),	/* F -> G, S inlined in G keeps it */
		EV(13, PUT,  OBJ_A, F, 0x10, 1, 3),
	};
	struct collect c;

	for (unsigned int i = 0; i < ARRAY_SIZE(evs); i++)
		evs[i].type = refcnt_type_spec__index(refcnt_type_spec__find("dso"));
	evs[0].up[0] = FN_W;
	evs[1].up[0] = FN_Y;
	evs[1].up[1] = FN_X;
	evs[1].up[2] = FN_F;
	evs[2].up[0] = FN_F;
	evs[2].scope = SCOPE_S;
	evs[2].scope_keeps = true;
	evs[3].up[0] = FN_MAIN;
	TEST_ASSERT_VAL("engine", !stream__collect(evs, ARRAY_SIZE(evs), OBJ_A, &c));
	TEST_ASSERT_EQUAL("steps of A", c.nr_steps, (int)ARRAY_SIZE(evs));
	TEST_ASSERT_VAL("F releases H's, not the kept G's",
			c.steps[3].confidence == REFCNT_PAIR__SAME_CALLER &&
			stream__ref_is(&c.steps[3].paired, FN_H + 0x10));

	/* nothing but a kept one in F's calls: that one */
	evs[1].up[2] = FN_P;
	TEST_ASSERT_VAL("engine", !stream__collect(evs, ARRAY_SIZE(evs), OBJ_A, &c));
	TEST_ASSERT_VAL("F releases G's",
			c.steps[3].confidence == REFCNT_PAIR__SAME_CALLER &&
			stream__ref_is(&c.steps[3].paired, FN_G + 0x30));
	return TEST_OK;
}

/* handed_site(): A's history, then B's, at @t0 */
static void handed_site__events(struct refcnt_event *evs, u64 obj, u64 t0, bool put_g)
{
	const struct refcnt_event tmpl[] = {
		EV(0, BORN, 0, X, 0x10, 1, 1),	/* X's birth, handed to F */
		EV(1, GET,  0, H, 0x10, 1, 1),	/* X's table keeps one */
		EV(2, GET,  0, G, 0x10, 1, 2),	/* G's lookup, handed to F */
		EV(3, PUT,  0, F, 0x60, 1, 3),	/* G's result */
		EV(4, PUT,  0, F, 0x70, 1, 2),	/* X's result */
		EV(5, PUT,  0, W, 0x10, 1, 1),	/* the table's teardown */
	};
	int n = 0;

	for (unsigned int i = 0; i < ARRAY_SIZE(tmpl); i++) {
		struct refcnt_event *ev = &evs[n];

		if (tmpl[i].site == FN_F + 0x60 && !put_g)
			continue;
		*ev = tmpl[i];
		ev->obj = obj;
		ev->time += t0;
		ev->live += !put_g && ev->op == REFCNT_OP__PUT;	/* G's result still counts */
		ev->type = refcnt_type_spec__index(refcnt_type_spec__find("dso"));
		ev->up[0] = ev->caller == FN_H ? FN_X : ev->caller == FN_X || ev->caller == FN_G ?
			    FN_F : FN_MAIN;
		ev->up[1] = ev->caller == FN_H ? FN_F : FN_MAIN;
		if (ev->caller == FN_X || ev->caller == FN_G) {
			ev->hands_on = true;
			ev->owner = FN_F;
			ev->owner_site = ev->caller == FN_X ? FN_F + 0x40 : FN_F + 0x50;
		}
		n++;
	}
}

/*
 * Two calls hand F a reference each (map__new(): the dso its lookup
 * X, machine__findnew_dso_id(), made; the one its later lookup G,
 * dsos__find(), found), and X's table keeps one. F puts G's result at
 * F+0x60 and X's at F+0x70. Object A shows it: at F+0x70 only the
 * reference X handed was left of those handed to F. B's G result is
 * never put (the bug): its put at F+0x70 releases what came back
 * through X's call, as A taught, and G's is the leak. By the closest
 * call, or the birth passed over as a table's (threads__findnew()), G's
 * would be released and X's birth left, as if owned.
 */
int test__refcnt_attribution_handed_site(struct test_suite *test __maybe_unused,
					 int subtest __maybe_unused)
{
	struct refcnt_event evs[11];
	const struct refcnt_finding *f;
	struct collect c;

	handed_site__events(evs, OBJ_A, 10, true);
	handed_site__events(evs + 6, OBJ_B, 20, false);
	TEST_ASSERT_VAL("engine", !stream__collect(evs, ARRAY_SIZE(evs), OBJ_B, &c));
	TEST_ASSERT_EQUAL("steps of B", c.nr_steps, 5);
	TEST_ASSERT_VAL("F+0x70 releases what X handed, as A showed",
			c.steps[3].confidence == REFCNT_PAIR__SAME_CALLER &&
			c.steps[3].paired.op == REFCNT_OP__BORN &&
			stream__ref_is(&c.steps[3].paired, FN_X + 0x10));
	TEST_ASSERT_EQUAL("leaks", c.nr_findings, 1);
	f = &c.findings[0];
	TEST_ASSERT_VAL("G's result, F's leak",
			f->kind == REFCNT_FINDING__LEAK && f->obj == OBJ_B &&
			stream__ref_is(&f->ref, FN_G + 0x10) && f->why == REFCNT_WHY__OWNER &&
			refcnt_finding__site(f)->caller == FN_F);
	return TEST_OK;
}

/*
 * What an inlined function keeps is a keeper's at a teardown (perf kwork's
 * kernel map): F is a lookup, and S, inlined in F, fills a by-name array
 * with references of its own (maps__sort_by_name() in
 * maps__find_by_name()). The decoder names X, F's caller, the owner of
 * every reference taken in F, S's too: which of F's callees' stores flow
 * to F's return, DWARF does not say (a lookup's inlined callback stores
 * its result in its caller's struct). Y's two lookups, by H, were never
 * put. The teardown's three puts release the array's, the insert's and
 * the birth's references; Y's two are the leaks. Were S's reference one
 * that X stored or leaked, X gone, it would be passed over: one of Y's
 * would be released in its place, and X blamed.
 */
int test__refcnt_attribution_scope_keeper(struct test_suite *test __maybe_unused,
					  int subtest __maybe_unused)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, GET,  OBJ_A, G, 0x10, 1, 1),	/* insert */
		EV(12, GET,  OBJ_A, F, 0x30, 1, 2),	/* S's, inlined in F, for X */
		EV(13, GET,  OBJ_A, H, 0x10, 1, 3),	/* for Y */
		EV(14, GET,  OBJ_A, H, 0x10, 1, 4),	/* for Y */
		EV(20, PUT,  OBJ_A, P, 0x20, 1, 5),
		EV(21, PUT,  OBJ_A, P, 0x28, 1, 4),
		EV(22, PUT,  OBJ_A, C, 0x30, 1, 3),
	};
	struct collect c;

	for (unsigned int i = 0; i < ARRAY_SIZE(evs); i++) {
		evs[i].type = refcnt_type_spec__index(refcnt_type_spec__find("map"));
		evs[i].up[0] = evs[i].op == REFCNT_OP__PUT ? FN_W : FN_MAIN;
	}
	evs[2].scope = SCOPE_S;
	evs[2].scope_keeps = true;
	evs[2].up[0] = FN_X;
	evs[2].owner = FN_X;
	evs[2].owner_site = FN_X + 0x40;
	for (unsigned int i = 3; i < 5; i++) {
		evs[i].up[0] = FN_Y;
		evs[i].owner = FN_Y;
		evs[i].owner_site = FN_Y + 0x40;
	}
	TEST_ASSERT_VAL("engine", !stream__collect(evs, ARRAY_SIZE(evs), OBJ_A, &c));
	TEST_ASSERT_EQUAL("steps of A", c.nr_steps, (int)ARRAY_SIZE(evs));
	TEST_ASSERT_VAL("the array's first", stream__ref_is(&c.steps[5].paired, FN_F + 0x30));
	TEST_ASSERT_EQUAL("leaks", c.nr_findings, 2);
	for (int i = 0; i < 2; i++) {
		TEST_ASSERT_VAL("Y's leak", c.findings[i].kind == REFCNT_FINDING__LEAK &&
				stream__ref_is(&c.findings[i].ref, FN_H + 0x10) &&
				c.findings[i].why == REFCNT_WHY__OWNER &&
				refcnt_finding__site(&c.findings[i])->caller == FN_Y);
	}
	return TEST_OK;
}

/*
 * A teardown releases what a holder its function takes a pointer to holds:
 * R (__maps__remove()) puts the reference I (__maps__insert()) stored in
 * a holder of the same kind (bit 1), not the one H stored elsewhere after
 * it, though nothing else, no call tree, relates the put to either; nor
 * the one J stored in such a holder later: the oldest first. The birth's,
 * H's and J's are left.
 */
int test__refcnt_attribution_holder_teardown(struct test_suite *test __maybe_unused,
					     int subtest __maybe_unused)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, GET,  OBJ_A, X, 0x10, 1, 1),	/* I, inserting */
		EV(12, GET,  OBJ_A, H, 0x10, 1, 2),
		EV(13, GET,  OBJ_A, Y, 0x10, 1, 3),	/* J, inserting */
		EV(20, PUT,  OBJ_A, P, 0x10, 1, 4),	/* R, removing */
	};
	struct collect c;

	for (unsigned int i = 0; i < ARRAY_SIZE(evs); i++) {
		evs[i].type = refcnt_type_spec__index(refcnt_type_spec__find("map"));
		evs[i].up[0] = evs[i].op == REFCNT_OP__PUT ? FN_W : FN_MAIN;
	}
	evs[1].holders = 2;
	evs[2].holders = 4;
	evs[3].holders = 2;
	evs[4].holders = 2 | 8;
	TEST_ASSERT_VAL("engine", !stream__collect(evs, ARRAY_SIZE(evs), OBJ_A, &c));
	TEST_ASSERT_EQUAL("steps of A", c.nr_steps, (int)ARRAY_SIZE(evs));
	TEST_ASSERT_VAL("R releases I's",
			c.steps[4].confidence == REFCNT_PAIR__HOLDER &&
			stream__ref_is(&c.steps[4].paired, FN_X + 0x10));
	TEST_ASSERT_VAL("named", !strcmp(refcnt_confidence__name(REFCNT_PAIR__HOLDER), "holder"));
	return TEST_OK;
}

/* a slot event (slot_code.h) next to the operation at offset @_off of FN_@_fn */
#define SLOT_EV(_time, _op, _obj, _fn, _off, _tid, _slot) {			\
	.time = _time, .slot_op = REFCNT_SLOT__##_op, .obj = _obj,		\
	.site = FN_##_fn + (_off), .tid = _tid, .slot = _slot,			\
}

#define SLOT_LOCAL	0x7ffc1000ULL	/* F's map_symbol, on its stack */
#define SLOT_NODE	0x55501000ULL	/* a cursor node's, in the heap */

int test__refcnt_attribution_slot(struct test_suite *test __maybe_unused,
				  int subtest __maybe_unused)
{
	/*
	 * F takes a reference into its local struct, then calls G, which
	 * stores one in a node that outlives the call; F's teardown helper H
	 * puts the local's. By the call trees, H releases G's: F still runs
	 * above it and releases its own later, says the common caller. The
	 * slots say H loaded the local's. Later, W resets the node: G's.
	 */
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, GET, OBJ_A, F, 0x10, 1, 1),
		SLOT_EV(12, STORE, OBJ_A, F, 0x10, 1, SLOT_LOCAL),
		EV(13, GET, OBJ_A, G, 0x10, 1, 2),
		SLOT_EV(14, STORE, OBJ_A, G, 0x10, 1, SLOT_NODE),
		SLOT_EV(15, LOAD, OBJ_A, H, 0x10, 1, SLOT_LOCAL),
		EV(16, PUT, OBJ_A, H, 0x10, 1, 3),
		SLOT_EV(20, LOAD, OBJ_A, H, 0x10, 1, SLOT_NODE),
		EV(21, GET, OBJ_B, Y, 0x10, 1, 1),	/* in between: not the put's load */
		EV(22, PUT, OBJ_A, H, 0x10, 1, 2),
		EV(30, PUT, OBJ_A, MAIN, 0x20, 1, 1),
	};
	static const u64 up_f[] = { FN_MAIN }, up_g[] = { FN_F, FN_MAIN },
		up_w[] = { FN_W, FN_MAIN };
	struct collect c;

	for (unsigned int i = 0; i < ARRAY_SIZE(evs); i++) {
		evs[i].type = refcnt_type_spec__index(refcnt_type_spec__find("maps"));
		evs[i].space = 1;
	}
	memcpy(evs[1].up, up_f, sizeof(up_f));
	memcpy(evs[3].up, up_g, sizeof(up_g));
	memcpy(evs[6].up, up_g, sizeof(up_g));	/* H called by F */
	memcpy(evs[9].up, up_w, sizeof(up_w));	/* H called by W, after F */
	TEST_ASSERT_VAL("engine", !stream__collect(evs, ARRAY_SIZE(evs), OBJ_A, &c));
	TEST_ASSERT_EQUAL("steps of A", c.nr_steps, 6);
	TEST_ASSERT_VAL("H releases F's, by its slot",
			c.steps[3].confidence == REFCNT_PAIR__SLOT &&
			stream__ref_is(&c.steps[3].paired, FN_F + 0x10));
	TEST_ASSERT_VAL("a load is the next operation's only",
			c.steps[4].confidence != REFCNT_PAIR__SLOT);
	TEST_ASSERT_VAL("named", !strcmp(refcnt_confidence__name(REFCNT_PAIR__SLOT), "slot"));
	return TEST_OK;
}

int test__refcnt_attribution_slot_lookup(struct test_suite *test __maybe_unused,
					 int subtest __maybe_unused)
{
	/*
	 * F calls lookup X, which takes a reference and returns it: F stores
	 * it in its local struct, right after the call (X's hand site). F
	 * then calls G, which takes one and returns without a put: G's leak.
	 * F's teardown helper H loads the local's and puts it. By the call
	 * trees, H's put releases the reference G took last in a call F made;
	 * the store next to X's call says H released X's, so G's is left.
	 */
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, GET, OBJ_A, X, 0x10, 1, 1),
		SLOT_EV(12, STORE, OBJ_A, F, 0x30, 1, SLOT_LOCAL),
		EV(13, GET, OBJ_A, G, 0x10, 1, 2),
		SLOT_EV(15, LOAD, OBJ_A, H, 0x10, 1, SLOT_LOCAL),
		EV(16, PUT, OBJ_A, H, 0x10, 1, 3),
		EV(30, PUT, OBJ_A, MAIN, 0x20, 1, 2),
	};
	static const u64 up_f[] = { FN_F, FN_MAIN };
	struct collect c;

	for (unsigned int i = 0; i < ARRAY_SIZE(evs); i++) {
		evs[i].type = refcnt_type_spec__index(refcnt_type_spec__find("map"));
		evs[i].space = 1;
	}
	memcpy(evs[1].up, up_f, sizeof(up_f));
	evs[1].hands_on = true;		/* X returns it to F, its owner */
	evs[1].owner = FN_F;
	evs[1].owner_site = FN_F + 0x30;
	evs[1].hand_sites[0] = FN_F + 0x30;
	memcpy(evs[3].up, up_f, sizeof(up_f));
	memcpy(evs[5].up, up_f, sizeof(up_f));	/* H called by F */
	TEST_ASSERT_VAL("engine", !stream__collect(evs, ARRAY_SIZE(evs), OBJ_A, &c));
	TEST_ASSERT_EQUAL("steps of A", c.nr_steps, 5);
	TEST_ASSERT_VAL("H releases X's, stored by F after X's call",
			c.steps[3].confidence == REFCNT_PAIR__SLOT &&
			stream__ref_is(&c.steps[3].paired, FN_X + 0x10));
	TEST_ASSERT_VAL("one leak", c.nr_findings == 1 &&
			c.findings[0].kind == REFCNT_FINDING__LEAK);
	TEST_ASSERT_VAL("G's", stream__ref_is(&c.findings[0].ref, FN_G + 0x10));
	return TEST_OK;
}

/* @evs, all of type @name, in address space 1 */
static void slot_stream__type(struct refcnt_event *evs, size_t nr, const char *name)
{
	u8 type = refcnt_type_spec__index(refcnt_type_spec__find(name));

	for (size_t i = 0; i < nr; i++) {
		evs[i].type = type;
		evs[i].space = 1;
	}
}

/* Feed @evs: 0 with @obj's finding in @f if it has just one, else -1. */
static int slot_stream__finding(const struct refcnt_event *evs, size_t nr, u64 obj,
				struct refcnt_finding *f)
{
	struct collect c;

	if (stream__collect(evs, nr, obj, &c) || c.nr_findings != 1)
		return -1;
	*f = c.findings[0];
	return 0;
}

/* A store event (SLOT_EV) to memory, by a call of FN_@_fn: what it stored over is lost there. */
#define STORE_EV(_time, _obj, _fn, _off, _slot) {				\
	.time = _time, .slot_op = REFCNT_SLOT__STORE, .obj = _obj,		\
	.site = FN_##_fn + (_off), .caller = FN_##_fn, .tid = 1, .slot = _slot,	\
	.slot_where = REFCNT_SLOT_WHERE__MEMORY,				\
}

/*
 * X stores the reference it took in a holder's field; later F stores the
 * one it took in the same field, without putting X's first; H loads the
 * field and puts what it holds, F's. X's is left: the leak is F's, which
 * lost it (REFCNT_WHY__OVERWRITTEN), not X's, which took it and stored it
 * where it belongs. @variant 1: F's store is to a local of its own frame;
 * 2: F's store is X's own call again (the same site: a loop refilling a
 * caller's struct); 3: a recording that does not say where slots are;
 * 4: F's store is a probe of another type's (a word that changed hands).
 * Then nothing says X's was lost, and the leak stays X's. @variant 5: the
 * same site as in 2, to a static variable (a cache of one): X lost it.
 */
static int slot_overwritten(int variant, struct refcnt_finding *f)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, GET, OBJ_A, X, 0x10, 1, 1),
		STORE_EV(12, OBJ_A, X, 0x10, SLOT_NODE),
		EV(13, GET, OBJ_A, F, 0x10, 1, 2),
		STORE_EV(14, OBJ_A, F, 0x10, SLOT_NODE),
		SLOT_EV(20, LOAD, OBJ_A, H, 0x10, 1, SLOT_NODE),
		EV(21, PUT, OBJ_A, H, 0x10, 1, 3),
		EV(30, PUT, OBJ_A, MAIN, 0x20, 1, 2),
	};
	slot_stream__type(evs, ARRAY_SIZE(evs), "map");
	if (variant == 1)
		evs[4].slot_where = REFCNT_SLOT_WHERE__FRAME;
	if (variant == 2 || variant == 5) {
		for (int i = 3; i <= 4; i++) {
			evs[i].site = FN_X + 0x10;
			evs[i].caller = FN_X;
		}
	}
	if (variant == 5) {
		evs[2].slot_where = REFCNT_SLOT_WHERE__STATIC;
		evs[4].slot_where = REFCNT_SLOT_WHERE__STATIC;
	}
	if (variant == 3) {
		evs[2].slot_where = REFCNT_SLOT_WHERE__UNKNOWN;
		evs[4].slot_where = REFCNT_SLOT_WHERE__UNKNOWN;
	}
	if (variant == 4)
		evs[4].type = refcnt_type_spec__index(refcnt_type_spec__find("dso"));
	return slot_stream__finding(evs, ARRAY_SIZE(evs), OBJ_A, f);
}

/*
 * F stores a reference to a word twice from the same call, a loop
 * refilling a caller's struct: the first is lost there, by F itself. H
 * puts what the word holds last, then X stores there (the struct's frame
 * reused by the next call): X stored over nothing outstanding, and does
 * not take the blame for F's first reference.
 */
static int slot_overwritten_reused(struct refcnt_finding *f)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, GET, OBJ_A, F, 0x10, 1, 1),
		STORE_EV(12, OBJ_A, F, 0x10, SLOT_NODE),
		EV(13, GET, OBJ_A, F, 0x10, 1, 2),
		STORE_EV(14, OBJ_A, F, 0x10, SLOT_NODE),
		SLOT_EV(20, LOAD, OBJ_A, H, 0x10, 1, SLOT_NODE),
		EV(21, PUT, OBJ_A, H, 0x10, 1, 3),
		EV(22, GET, OBJ_A, X, 0x10, 1, 2),
		STORE_EV(23, OBJ_A, X, 0x10, SLOT_NODE),
		SLOT_EV(24, LOAD, OBJ_A, H, 0x10, 1, SLOT_NODE),
		EV(25, PUT, OBJ_A, H, 0x10, 1, 3),
		EV(30, PUT, OBJ_A, MAIN, 0x20, 1, 2),
	};
	slot_stream__type(evs, ARRAY_SIZE(evs), "map");
	return slot_stream__finding(evs, ARRAY_SIZE(evs), OBJ_A, f);
}

int test__refcnt_attribution_slot_overwritten(struct test_suite *test __maybe_unused,
					      int subtest __maybe_unused)
{
	struct refcnt_finding f;

	TEST_ASSERT_VAL("engine", !slot_overwritten_reused(&f));
	TEST_ASSERT_VAL("F's first leaked, not lost at X's store",
			f.kind == REFCNT_FINDING__LEAK && stream__ref_is(&f.ref, FN_F + 0x10) &&
			f.why != REFCNT_WHY__OVERWRITTEN);

	TEST_ASSERT_VAL("engine", !slot_overwritten(0, &f));
	TEST_ASSERT_VAL("X's reference leaked", f.kind == REFCNT_FINDING__LEAK &&
			stream__ref_is(&f.ref, FN_X + 0x10));
	TEST_ASSERT_VAL("lost where F stored over it",
			f.why == REFCNT_WHY__OVERWRITTEN && f.has_culprit &&
			refcnt_finding__site(&f)->caller == FN_F &&
			refcnt_finding__site(&f)->site == FN_F + 0x10);
	TEST_ASSERT_VAL("named", !strcmp(refcnt_site_why__name(REFCNT_WHY__OVERWRITTEN),
					 "stored over"));
	for (int variant = 1; variant <= 4; variant++) {
		TEST_ASSERT_VAL("engine", !slot_overwritten(variant, &f));
		pr_debug("variant %d: the leak is at %#" PRIx64 "\n", variant,
			 refcnt_finding__site(&f)->site);
		TEST_ASSERT_VAL("nothing says it was lost", f.kind == REFCNT_FINDING__LEAK &&
				f.why != REFCNT_WHY__OVERWRITTEN &&
				refcnt_finding__site(&f)->caller != FN_F);
	}
	TEST_ASSERT_VAL("engine", !slot_overwritten(5, &f));
	TEST_ASSERT_VAL("a static cache of one: X's first lost at X's own store",
			f.kind == REFCNT_FINDING__LEAK && stream__ref_is(&f.ref, FN_X + 0x10) &&
			f.why == REFCNT_WHY__OVERWRITTEN &&
			refcnt_finding__site(&f)->caller == FN_X &&
			refcnt_finding__site(&f)->site == FN_X + 0x10);
	return TEST_OK;
}

/* A setter's store (REFCNT_SLOT__PARAM) at offset @_off of FN_@_fn, called by FN_@_up */
#define PARAM_EV(_time, _obj, _fn, _off, _up, _slot) {				\
	.time = _time, .slot_op = REFCNT_SLOT__PARAM, .obj = _obj,		\
	.site = FN_##_fn + (_off), .caller = FN_##_fn, .tid = 1, .slot = _slot,	\
	.slot_where = REFCNT_SLOT_WHERE__MEMORY, .up = { FN_##_up },		\
}

/*
 * P takes A for G, a setter, which stores it in a holder's member; P takes
 * A again for the next call of G, which stores it over the first without
 * putting that (dso__set_nsinfo() without its nsinfo__put()). H puts what
 * the member holds last, MAIN its own. P's first is left: lost at G's
 * store (REFCNT_WHY__OVERWRITTEN), not P's, which handed it on. @variant
 * 1: G's caller is X, which took nothing (a pointer borrowed): nothing
 * says where P's went; 2: G puts what the member held before it stores
 * (the setter as perf has it): no leak.
 */
static int param_store(int variant, struct collect *c)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, GET, OBJ_A, P, 0x10, 1, 1),
		PARAM_EV(12, OBJ_A, G, 0x08, P, SLOT_NODE),
		EV(13, GET, OBJ_A, P, 0x10, 1, 2),
		SLOT_EV(14, LOAD, OBJ_A, G, 0x04, 1, SLOT_NODE),
		EV(15, PUT, OBJ_A, G, 0x04, 1, 3),
		PARAM_EV(16, OBJ_A, G, 0x08, P, SLOT_NODE),
		SLOT_EV(20, LOAD, OBJ_A, H, 0x10, 1, SLOT_NODE),
		EV(21, PUT, OBJ_A, H, 0x10, 1, 2),
		EV(30, PUT, OBJ_A, MAIN, 0x20, 1, 1),
	};
	size_t nr = 0;

	for (size_t i = 0; i < ARRAY_SIZE(evs); i++) {
		/* the setter's put of the old one only in @variant 2 */
		if (variant != 2 && (evs[i].time == 14 || evs[i].time == 15))
			continue;
		if (variant == 1 && evs[i].slot_op == REFCNT_SLOT__PARAM)
			evs[i].up[0] = FN_X;
		if (variant != 2 && evs[i].time >= 21 && evs[i].op == REFCNT_OP__PUT)
			evs[i].live++;
		evs[nr++] = evs[i];
	}
	slot_stream__type(evs, nr, "nsinfo");
	return stream__collect(evs, nr, OBJ_A, c);
}

/* The leaks of @obj in @c: how many, the first in @f */
static int collect__first_leak(const struct collect *c, u64 obj, struct refcnt_finding *f)
{
	int n = 0;

	for (int i = 0; i < c->nr_findings; i++) {
		if (c->findings[i].kind == REFCNT_FINDING__LEAK && c->findings[i].obj == obj &&
		    !n++)
			*f = c->findings[i];
	}
	return n;
}

int test__refcnt_attribution_param_store(struct test_suite *test __maybe_unused,
					 int subtest __maybe_unused)
{
	struct refcnt_finding f;
	struct collect c;

	TEST_ASSERT_VAL("engine", !param_store(0, &c));
	TEST_ASSERT_VAL("one leak", collect__first_leak(&c, OBJ_A, &f) == 1);
	TEST_ASSERT_VAL("P's first reference", stream__ref_is(&f.ref, FN_P + 0x10) &&
			f.ref.time == 11);
	TEST_ASSERT_VAL("lost where the setter stored over it",
			f.why == REFCNT_WHY__OVERWRITTEN && f.has_culprit &&
			refcnt_finding__site(&f)->caller == FN_G &&
			refcnt_finding__site(&f)->site == FN_G + 0x08);
	TEST_ASSERT_VAL("engine", !param_store(1, &c));
	TEST_ASSERT_VAL("a borrowed pointer stored: not the setter's",
			collect__first_leak(&c, OBJ_A, &f) == 1 &&
			f.why != REFCNT_WHY__OVERWRITTEN &&
			refcnt_finding__site(&f)->caller != FN_G);
	TEST_ASSERT_VAL("engine", !param_store(2, &c));
	TEST_ASSERT_VAL("a setter that puts the old one first: no leak",
			!collect__first_leak(&c, OBJ_A, &f));
	return TEST_OK;
}

#define SLOT_STRUCT	0x55502000ULL	/* a struct's first member, in the heap */

/*
 * X fills a struct: it takes A (a map) and stores it in a member, takes B
 * (a thread) and stores it in the member before. H tears the struct down:
 * it loads B's member and puts B, but never A's. A's reference is left
 * in the struct: H left it (REFCNT_WHY__NEIGHBOURS_PUT), not X, which
 * stored it where it belongs. @variant 1: another function, F, stored B
 * (two structs side by side); 2: B is a map too (an array's entries); 3:
 * X itself put B (a function that puts before it fills again): then the
 * leak is not H's.
 */
static int neighbours_put(int variant, struct refcnt_finding *f)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, BORN, OBJ_B, MAIN, 0x20, 1, 1),
		EV(12, GET, OBJ_A, X, 0x10, 1, 1),
		STORE_EV(13, OBJ_A, X, 0x10, SLOT_STRUCT + 0x10),
		EV(14, GET, OBJ_B, X, 0x18, 1, 1),
		STORE_EV(15, OBJ_B, X, 0x18, SLOT_STRUCT),
		SLOT_EV(20, LOAD, OBJ_B, H, 0x10, 1, SLOT_STRUCT),
		EV(21, PUT, OBJ_B, H, 0x10, 1, 2),
		EV(30, PUT, OBJ_A, MAIN, 0x30, 1, 2),
		EV(31, PUT, OBJ_B, MAIN, 0x40, 1, 1),
	};
	u8 map = refcnt_type_spec__index(refcnt_type_spec__find("map"));
	u8 thread = refcnt_type_spec__index(refcnt_type_spec__find("thread"));

	for (size_t i = 0; i < ARRAY_SIZE(evs); i++) {
		evs[i].type = evs[i].obj == OBJ_A || variant == 2 ? map : thread;
		evs[i].space = 1;
	}
	if (variant == 1) {
		for (int i = 4; i <= 5; i++) {
			evs[i].site = FN_F + 0x18;
			evs[i].caller = FN_F;
		}
	}
	if (variant == 3) {
		evs[6].site = FN_X + 0x40;
		evs[7].site = FN_X + 0x40;
		evs[7].caller = FN_X;
	}
	return slot_stream__finding(evs, ARRAY_SIZE(evs), OBJ_A, f);
}

int test__refcnt_attribution_neighbours_put(struct test_suite *test __maybe_unused,
					    int subtest __maybe_unused)
{
	struct refcnt_finding f;

	TEST_ASSERT_VAL("engine", !neighbours_put(0, &f));
	TEST_ASSERT_VAL("X's reference leaked", f.kind == REFCNT_FINDING__LEAK &&
			stream__ref_is(&f.ref, FN_X + 0x10));
	TEST_ASSERT_VAL("left by the teardown that put its neighbour",
			f.why == REFCNT_WHY__NEIGHBOURS_PUT && f.has_culprit &&
			refcnt_finding__site(&f)->caller == FN_H &&
			refcnt_finding__site(&f)->site == FN_H + 0x10);
	TEST_ASSERT_VAL("named", !strcmp(refcnt_site_why__name(REFCNT_WHY__NEIGHBOURS_PUT),
					 "neighbours put"));
	for (int variant = 1; variant <= 3; variant++) {
		TEST_ASSERT_VAL("engine", !neighbours_put(variant, &f));
		pr_debug("variant %d: the leak is at %#" PRIx64 "\n", variant,
			 refcnt_finding__site(&f)->site);
		TEST_ASSERT_VAL("no teardown of its struct", f.kind == REFCNT_FINDING__LEAK &&
				f.why != REFCNT_WHY__NEIGHBOURS_PUT &&
				refcnt_finding__site(&f)->caller != FN_H);
	}
	return TEST_OK;
}

#define SLOT_STATIC	0x55500800ULL	/* a static variable of the binary's */

/*
 * A cache of one in a static variable: F, called by P, takes A, keeps it
 * in the static word, takes A again and returns that; P
 * puts what F returned, loading nothing. Later F stores B over the word:
 * the reference it kept of A is lost there, F's leak. @late: P's put comes
 * after the store over (another call of F stored over it, not P's). Whether
 * the word's reference is first or second of F's two, P released the one
 * F returned: a put that did not load from a static word does not release
 * what it holds, or held till another function stored over it.
 */
static int static_cache(bool late, struct refcnt_finding *f)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, GET, OBJ_A, F, 0x10, 1, 1),
		STORE_EV(12, OBJ_A, F, 0x10, SLOT_STATIC),
		EV(13, GET, OBJ_A, F, 0x20, 1, 2),
		EV(14, PUT, OBJ_A, P, 0x30, 1, 3),
		EV(20, BORN, OBJ_B, MAIN, 0x30, 1, 1),
		EV(21, GET, OBJ_B, F, 0x10, 1, 1),
		STORE_EV(22, OBJ_B, F, 0x10, SLOT_STATIC),
		EV(30, PUT, OBJ_A, MAIN, 0x20, 1, 2),
		EV(31, PUT, OBJ_B, MAIN, 0x40, 1, 2),
		EV(32, PUT, OBJ_B, MAIN, 0x50, 1, 1),
	};

	slot_stream__type(evs, ARRAY_SIZE(evs), "dso");
	for (size_t i = 0; i < ARRAY_SIZE(evs); i++) {
		if (evs[i].caller == FN_F)
			evs[i].up[0] = FN_P;
		if (evs[i].slot_op == REFCNT_SLOT__STORE)
			evs[i].slot_where = REFCNT_SLOT_WHERE__STATIC;
	}
	if (late) {
		struct refcnt_event put = evs[4];

		memmove(&evs[4], &evs[5], 3 * sizeof(evs[0]));
		put.time = 25;
		evs[7] = put;
	}
	return slot_stream__finding(evs, ARRAY_SIZE(evs), OBJ_A, f);
}

int test__refcnt_attribution_static_cache(struct test_suite *test __maybe_unused,
					  int subtest __maybe_unused)
{
	struct refcnt_finding f;

	for (int late = 0; late < 2; late++) {
		TEST_ASSERT_VAL("engine", !static_cache(late, &f));
		pr_debug("late %d: the leak is at %#" PRIx64 ", why %d\n", late,
			 refcnt_finding__site(&f)->site, f.why);
		TEST_ASSERT_VAL("the reference the static word kept leaked, stored over by F",
				f.kind == REFCNT_FINDING__LEAK &&
				stream__ref_is(&f.ref, FN_F + 0x10) &&
				f.why == REFCNT_WHY__OVERWRITTEN &&
				refcnt_finding__site(&f)->site == FN_F + 0x10);
	}
	return TEST_OK;
}

#define SLOT_AL		0x7ffc2000ULL	/* P's addr_location, in its frame */

/*
 * F's lookup result stored in the frame of P, its caller's caller (an
 * addr_location that machine__resolve() fills in process_sample_event()'s
 * frame): P owns it (@homed: the store's probe read the frames). P
 * returned without putting it; its next call cleared the word (memset():
 * a load then reads NULL there, if @cleared) and F stored the next one
 * there: no store over the first. Both are P's leaks, at its call.
 */
static int slot_home(bool homed, bool cleared, struct collect *c)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, GET, OBJ_A, F, 0x10, 1, 1),
		STORE_EV(12, OBJ_A, F, 0x10, SLOT_AL),
		EV(15, GET, OBJ_A, X, 0x10, 1, 2),	/* X's, in between */
		EV(16, PUT, OBJ_A, X, 0x18, 1, 3),
		SLOT_EV(20, LOAD, 0, F, 0x08, 1, SLOT_AL),
		EV(21, GET, OBJ_A, F, 0x20, 1, 2),	/* another path of F */
		STORE_EV(22, OBJ_A, F, 0x20, SLOT_AL),
	};

	if (homed) {
		for (int i = 2; i < (int)ARRAY_SIZE(evs); i += 5) {
			evs[i].slot_home = FN_P;
			evs[i].slot_home_site = FN_P + 0x30;
		}
	}
	if (!cleared)
		evs[5].slot_op = REFCNT_SLOT__NONE;	/* an event on NULL: none */
	slot_stream__type(evs, ARRAY_SIZE(evs), "map");
	return stream__collect(evs, ARRAY_SIZE(evs), OBJ_A, c);
}

/* How many of @c's findings are leaks told at P's call, as its owner's. */
static int slot_home__ps(const struct collect *c)
{
	int nr = 0;

	for (int i = 0; i < c->nr_findings; i++) {
		const struct refcnt_finding *f = &c->findings[i];

		nr += f->kind == REFCNT_FINDING__LEAK && f->why == REFCNT_WHY__OWNER &&
		      refcnt_finding__site(f)->site == FN_P + 0x30 &&
		      refcnt_finding__site(f)->caller == FN_P;
	}
	return nr;
}

int test__refcnt_attribution_slot_home(struct test_suite *test __maybe_unused,
				       int subtest __maybe_unused)
{
	struct collect c;

	TEST_ASSERT_VAL("engine", !slot_home(true, true, &c));
	pr_debug("%d findings, %d P's\n", c.nr_findings, slot_home__ps(&c));
	TEST_ASSERT_VAL("two leaks, both P's", c.nr_findings == 2 && slot_home__ps(&c) == 2);
	TEST_ASSERT_VAL("engine", !slot_home(false, true, &c));
	TEST_ASSERT_VAL("frames not read: F's lookup results, none P's",
			c.nr_findings == 2 && !slot_home__ps(&c));
	TEST_ASSERT_VAL("engine", !slot_home(true, false, &c));
	TEST_ASSERT_VAL("not cleared: the first stored over by F",
			c.nr_findings == 2 && slot_home__ps(&c) == 1 &&
			(c.findings[0].why == REFCNT_WHY__OVERWRITTEN ||
			 c.findings[1].why == REFCNT_WHY__OVERWRITTEN));
	return TEST_OK;
}

/*
 * A map B holds A (G's get, stored in it); C copies B (a copy constructor:
 * memdup(), then a get of the dso, map__clone()), and when @got_it, C
 * takes its own reference and stores it in the copy (at that word), before
 * its birth returns. Both maps die, each putting the word it holds (W
 * loads it), then MAIN puts its own: a double put unless C took its
 * reference. Without it, C is the culprit ("copied without a get"); with
 * C no copy constructor (@clone false), or with C's store, it is not, even
 * with an extra put of MAIN's (@extra).
 */
static int copied(bool clone, bool got_it, bool extra, struct collect *c)
{
	const u8 dso = refcnt_type_spec__index(refcnt_type_spec__find("dso"));
	const u8 map = refcnt_type_spec__index(refcnt_type_spec__find("map"));
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, BORN, OBJ_B, MAIN, 0x20, 1, 1),
		EV(12, GET, OBJ_A, G, 0x10, 1, 1),
		STORE_EV(13, OBJ_A, G, 0x10, OBJ_B + 0x20),
		EV(20, GET, OBJ_A, C, 0x10, 1, 2),
		STORE_EV(21, OBJ_A, C, 0x10, OBJ_C + 0x20),
		EV(22, BORN, OBJ_C, MAIN, 0x30, 1, 1),
		SLOT_EV(30, LOAD, OBJ_A, W, 0x40, 1, OBJ_C + 0x20),
		EV(31, PUT, OBJ_A, W, 0x40, 1, 3),
		SLOT_EV(40, LOAD, OBJ_A, W, 0x40, 1, OBJ_B + 0x20),
		EV(41, PUT, OBJ_A, W, 0x40, 1, 2),
		EV(50, PUT, OBJ_A, MAIN, 0x18, 1, 1),
		EV(51, DIES, OBJ_A, MAIN, 0x18, 1, 0),
		EV(52, PUT, OBJ_A, MAIN, 0x28, 1, 0),	/* @extra */
	};

	for (size_t i = 0; i < ARRAY_SIZE(evs); i++) {
		evs[i].space = 1;
		evs[i].type = evs[i].obj == OBJ_A ? dso : map;
	}
	if (clone)
		evs[6].born_clone = FN_C;
	if (!got_it) {
		evs[4].obj = 0;		/* left out: the engine ignores them */
		evs[5].obj = 0;
		evs[8].live = 2;
		evs[10].live = 1;
		evs[11].live = 0;	/* a put on a freed dso */
		evs[12].obj = 0;
	}
	if (!extra)
		evs[13].obj = 0;
	return stream__collect(evs, ARRAY_SIZE(evs), OBJ_A, c);
}

/* @c's first over-release or double put of OBJ_A, or NULL. */
static const struct refcnt_finding *copied__finding(const struct collect *c)
{
	for (int i = 0; i < c->nr_findings; i++) {
		const struct refcnt_finding *f = &c->findings[i];

		if (f->obj == OBJ_A && (f->kind == REFCNT_FINDING__DOUBLE_PUT ||
					f->kind == REFCNT_FINDING__OVER_RELEASE))
			return f;
	}
	return NULL;
}

int test__refcnt_attribution_copied(struct test_suite *test __maybe_unused,
				    int subtest __maybe_unused)
{
	const struct refcnt_finding *f;
	struct collect c;

	TEST_ASSERT_VAL("engine", !copied(true, false, false, &c));
	f = copied__finding(&c);
	pr_debug("a copy without its get: %s at %#" PRIx64 "\n",
		 f ? refcnt_site_why__name(f->why) : "none", f ? refcnt_finding__site(f)->site : 0);
	TEST_ASSERT_VAL("the copy constructor's", f && f->why == REFCNT_WHY__COPIED &&
			f->has_culprit && refcnt_finding__site(f)->caller == FN_C);
	TEST_ASSERT_VAL("named", !strcmp(refcnt_site_why__name(REFCNT_WHY__COPIED),
					 "copied without a get"));
	TEST_ASSERT_VAL("engine", !copied(false, false, false, &c));
	f = copied__finding(&c);
	TEST_ASSERT_VAL("no copy constructor: not the copy's",
			f && f->why != REFCNT_WHY__COPIED);
	TEST_ASSERT_VAL("engine", !copied(true, true, false, &c));
	TEST_ASSERT_VAL("the copy took its reference: no double put", !copied__finding(&c));
	TEST_ASSERT_VAL("engine", !copied(true, true, true, &c));
	f = copied__finding(&c);
	TEST_ASSERT_VAL("an extra put elsewhere: not the copy's",
			f && f->why != REFCNT_WHY__COPIED);
	return TEST_OK;
}

/*
 * X fills a struct (at SLOT_STRUCT, not an audited object): it takes B
 * (a thread) and stores it in the first member, and copies A (a map) into
 * the next with the struct, no get. MAIN holds A's one reference. H tears
 * the struct down: it loads A's member and puts A, freeing it, then B's.
 * MAIN's put of A is a double put, caused by X's copy (REFCNT_WHY__COPIED,
 * at X's store of B). @variant
 * 1: X took its reference of A and stored it, and W puts A once too often
 *    at the end: the double put is not X's;
 * 2: B is a map too (an array's entries, no members);
 * 3: G stored another object in A's word after X's fill;
 * 4: the struct is on the thread's stack, near a local X stored to (a
 *    frame's stores to its own locals are not followed: no evidence);
 * 5: MAIN puts A first, and H's put comes after A's death: X's still;
 * 6: F stored a third member, C, with its get: two functions filled it;
 * 7: X stored B without a get of its own;
 * 8: X's store of B was a copy (a borrowed pointer);
 * 9: H stored B itself (it replaces one member, then puts another).
 */
static int member_copied(int variant, struct collect *c)
{
	const u8 dso = refcnt_type_spec__index(refcnt_type_spec__find("dso"));
	const u8 map = refcnt_type_spec__index(refcnt_type_spec__find("map"));
	const u8 thread = refcnt_type_spec__index(refcnt_type_spec__find("thread"));
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, BORN, OBJ_B, MAIN, 0x20, 1, 1),
		EV(12, GET, OBJ_B, X, 0x18, 1, 1),			/* not 7 */
		STORE_EV(13, OBJ_B, X, 0x18, SLOT_STRUCT),
		EV(14, BORN, OBJ_C, MAIN, 0x50, 1, 1),			/* 6 */
		EV(15, GET, OBJ_C, F, 0x10, 1, 1),			/* 6 */
		STORE_EV(16, OBJ_C, F, 0x10, SLOT_STRUCT + 16),		/* 6 */
		EV(17, GET, OBJ_A, X, 0x20, 1, 1),			/* 1 */
		STORE_EV(18, OBJ_A, X, 0x20, SLOT_STRUCT + 8),		/* 1 */
		STORE_EV(19, OBJ_D, G, 0x10, SLOT_STRUCT + 8),		/* 3 */
		STORE_EV(20, OBJ_B, X, 0x30, SLOT_STRUCT + 0x100),	/* 4 */
		EV(21, PUT, OBJ_A, MAIN, 0x30, 1, 1),			/* 5 */
		EV(22, DIES, OBJ_A, MAIN, 0x30, 1, 0),			/* 5 */
		SLOT_EV(30, LOAD, OBJ_A, H, 0x10, 1, SLOT_STRUCT + 8),
		EV(31, PUT, OBJ_A, H, 0x10, 1, 1),
		EV(32, DIES, OBJ_A, H, 0x10, 1, 0),			/* not 1, 5 */
		SLOT_EV(33, LOAD, OBJ_B, H, 0x18, 1, SLOT_STRUCT),
		EV(34, PUT, OBJ_B, H, 0x18, 1, 2),
		EV(40, PUT, OBJ_A, MAIN, 0x30, 1, 0),			/* not 5 */
		EV(41, PUT, OBJ_B, MAIN, 0x40, 1, 1),			/* not 7 */
		EV(42, DIES, OBJ_B, MAIN, 0x40, 1, 0),
		EV(43, DIES, OBJ_A, MAIN, 0x30, 1, 0),			/* 1 */
		EV(44, PUT, OBJ_A, W, 0x50, 1, 0),			/* 1 */
	};

	for (size_t i = 0; i < ARRAY_SIZE(evs); i++) {
		evs[i].space = 1;
		evs[i].type = evs[i].obj == OBJ_A || (variant == 2 && evs[i].obj == OBJ_B) ? map :
			      evs[i].obj == OBJ_B ? thread : dso;
		/* what a variant leaves out, the engine ignores */
		if ((i >= 4 && i <= 6 && variant != 6) || (i >= 7 && i <= 8 && variant != 1) ||
		    (i == 9 && variant != 3) || (i == 10 && variant != 4) ||
		    (i >= 11 && i <= 12 && variant != 5) || (i >= 21 && variant != 1))
			evs[i].obj = 0;
	}
	evs[10].slot_where = REFCNT_SLOT_WHERE__FRAME;
	if (variant == 1) {
		evs[14].live = 2;	/* H's put leaves MAIN's */
		evs[15].obj = 0;
		evs[18].live = 1;
	} else if (variant == 5) {
		evs[14].live = 0;	/* a put on a freed map */
		evs[15].obj = 0;
		evs[18].obj = 0;
	} else if (variant == 7) {
		evs[2].obj = 0;
		evs[17].live = 1;
		evs[19].obj = 0;
	} else if (variant == 8) {
		evs[3].slot_op = REFCNT_SLOT__COPY;
	} else if (variant == 9) {
		for (int i = 2; i <= 3; i++) {
			evs[i].site = FN_H + 0x18;
			evs[i].caller = FN_H;
		}
	}
	return stream__collect(evs, ARRAY_SIZE(evs), OBJ_A, c);
}

/*
 * As member_copied(): H puts A from the word X copied it to with the
 * struct, releasing nothing. Later P puts its own reference, and at once
 * its callee Y puts the one G stored in Y's struct: two puts at once, each
 * of a reference taken, and MAIN's put is a double put. The word says
 * which put released nothing: X's copy, not P's two puts at once.
 */
static int member_copied_at_once(struct collect *c)
{
	const u8 map = refcnt_type_spec__index(refcnt_type_spec__find("map"));
	const u8 thread = refcnt_type_spec__index(refcnt_type_spec__find("thread"));
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, BORN, OBJ_B, MAIN, 0x20, 1, 1),
		EV(12, GET, OBJ_A, P, 0x10, 1, 1),
		EV(13, GET, OBJ_A, G, 0x10, 1, 2),
		STORE_EV(14, OBJ_A, G, 0x10, SLOT_STRUCT + 0x40),
		EV(15, GET, OBJ_B, X, 0x18, 1, 1),
		STORE_EV(16, OBJ_B, X, 0x18, SLOT_STRUCT),
		SLOT_EV(20, LOAD, OBJ_A, H, 0x10, 1, SLOT_STRUCT + 8),
		EV(21, PUT, OBJ_A, H, 0x10, 1, 3),
		EV(30, PUT, OBJ_A, P, 0x20, 1, 2),
		SLOT_EV(31, LOAD, OBJ_A, Y, 0x10, 1, SLOT_STRUCT + 0x40),
		EV(32, PUT, OBJ_A, Y, 0x10, 1, 1),
		EV(33, DIES, OBJ_A, Y, 0x10, 1, 0),
		EV(40, PUT, OBJ_A, MAIN, 0x30, 1, 0),
	};

	for (size_t i = 0; i < ARRAY_SIZE(evs); i++) {
		evs[i].space = 1;
		evs[i].type = evs[i].obj == OBJ_A ? map : thread;
	}
	evs[11].up[0] = FN_P;	/* Y called by P */
	return stream__collect(evs, ARRAY_SIZE(evs), OBJ_A, c);
}

#define SLOT_TABLE	0x55505000ULL	/* a table's entry, in the heap */

/*
 * F makes A (a map); Y inserts it in a table, storing its own reference
 * in the entry; F puts its own, then one more (Y's): A dies with the
 * table's entry still pointing at it. malloc gives the block to B, a map
 * G makes and puts (it dies). W then tears the table down: it loads the
 * entry and puts what it points to, a double put of the address. The
 * entry was filled before B was born: the put is A's table reference,
 * lost by F's extra put (REFCNT_WHY__ONE_MORE), not B's. With @refilled,
 * G stored B in the entry itself, and the put is of B's.
 */
static int earlier_word(bool refilled, struct collect *c)
{
	const u8 map = refcnt_type_spec__index(refcnt_type_spec__find("map"));
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, F, 0x10, 1, 1),
		EV(11, GET, OBJ_A, Y, 0x10, 1, 1),
		STORE_EV(12, OBJ_A, Y, 0x10, SLOT_TABLE),
		EV(13, PUT, OBJ_A, F, 0x20, 1, 2),
		EV(14, PUT, OBJ_A, F, 0x28, 1, 1),
		EV(15, DIES, OBJ_A, F, 0x28, 1, 0),
		EV(20, BORN, OBJ_A, G, 0x10, 1, 1),
		EV(21, GET, OBJ_A, G, 0x18, 1, 1),			/* @refilled */
		STORE_EV(22, OBJ_A, G, 0x18, SLOT_TABLE),		/* @refilled */
		EV(23, PUT, OBJ_A, G, 0x20, 1, 1),
		EV(24, DIES, OBJ_A, G, 0x20, 1, 0),
		SLOT_EV(30, LOAD, OBJ_A, W, 0x10, 1, SLOT_TABLE),
		EV(31, PUT, OBJ_A, W, 0x10, 1, 0),
	};

	for (size_t i = 0; i < ARRAY_SIZE(evs); i++) {
		evs[i].space = 1;
		evs[i].type = map;
	}
	evs[0].up[0] = FN_MAIN;
	evs[3].up[0] = FN_MAIN;
	evs[4].up[0] = FN_MAIN;
	if (refilled) {
		evs[9].live = 2;	/* G's put leaves the entry's */
		evs[10].obj = 0;	/* left out: the engine ignores them */
		evs[12].live = 1;
	} else {
		evs[7].obj = 0;
		evs[8].obj = 0;
	}
	return stream__collect(evs, ARRAY_SIZE(evs), OBJ_A, c);
}

int test__refcnt_attribution_earlier_word(struct test_suite *test __maybe_unused,
					  int subtest __maybe_unused)
{
	const struct refcnt_finding *f;
	struct collect c;

	TEST_ASSERT_VAL("engine", !earlier_word(false, &c));
	f = copied__finding(&c);
	pr_debug("a put of an earlier lifetime's entry: %s at %#" PRIx64 "\n",
		 f ? refcnt_site_why__name(f->why) : "none", f ? refcnt_finding__site(f)->site : 0);
	TEST_ASSERT_VAL("the earlier lifetime's extra put", f &&
			f->kind == REFCNT_FINDING__DOUBLE_PUT && f->has_culprit &&
			f->why == REFCNT_WHY__ONE_MORE &&
			refcnt_finding__site(f)->site == FN_F + 0x28);
	TEST_ASSERT_VAL("engine", !earlier_word(true, &c));
	TEST_ASSERT_VAL("the entry refilled with B: no double put", !copied__finding(&c));
	return TEST_OK;
}

int test__refcnt_attribution_member_copied(struct test_suite *test __maybe_unused,
					   int subtest __maybe_unused)
{
	const struct refcnt_finding *f;
	struct collect c;

	TEST_ASSERT_VAL("engine", !member_copied(0, &c));
	f = copied__finding(&c);
	pr_debug("a member copied without its get: %s at %#" PRIx64 "\n",
		 f ? refcnt_site_why__name(f->why) : "none", f ? refcnt_finding__site(f)->site : 0);
	TEST_ASSERT_VAL("the struct's filler's", f && f->why == REFCNT_WHY__COPIED &&
			f->has_culprit && refcnt_finding__site(f)->caller == FN_X &&
			refcnt_finding__site(f)->site == FN_X + 0x18);
	for (int variant = 1; variant <= 9; variant++) {
		TEST_ASSERT_VAL("engine", !member_copied(variant, &c));
		f = copied__finding(&c);
		pr_debug("variant %d: %s at %#" PRIx64 "\n", variant,
			 f ? refcnt_site_why__name(f->why) : "none",
			 f ? refcnt_finding__site(f)->site : 0);
		if (variant == 5) {
			TEST_ASSERT_VAL("a put after the death: X's too", f &&
					f->why == REFCNT_WHY__COPIED &&
					refcnt_finding__site(f)->caller == FN_X);
			continue;
		}
		TEST_ASSERT_VAL("no copy's", f && f->why != REFCNT_WHY__COPIED &&
				refcnt_finding__site(f)->caller != FN_X &&
				refcnt_finding__site(f)->caller != FN_F);
	}
	TEST_ASSERT_VAL("engine", !member_copied_at_once(&c));
	f = copied__finding(&c);
	pr_debug("two puts at once after the copy's: %s at %#" PRIx64 "\n",
		 f ? refcnt_site_why__name(f->why) : "none", f ? refcnt_finding__site(f)->site : 0);
	TEST_ASSERT_VAL("the copy's word outweighs two puts at once", f &&
			f->why == REFCNT_WHY__COPIED && refcnt_finding__site(f)->caller == FN_X);
	return TEST_OK;
}

#define SLOT_COPY	0x55502000ULL	/* another holder's field, in the heap */

/*
 * G takes a reference and stores it in a holder (the leader's maps); F
 * copies that pointer into another holder with no get (a thread sharing
 * its leader's maps: thread__init_maps() without its maps__get()); H puts
 * what the second holder held, P what the first did: the object dies, and
 * the birth's put comes after. The double put is F's copy: H's put
 * released what the word F stored to never held a reference for. With
 * @copy false, F's store follows a get of its own, and nothing says so.
 * With @counted, F gets what it copied right after (a counted copy), and
 * Y puts one too many: the double put is not the copy's.
 */
static int slot_borrowed(bool copy, bool counted, struct refcnt_finding *f)
{
	struct refcnt_event evs[] = {
		EV(30, BORN, OBJ_D, MAIN, 0x50, 1, 1),
		EV(31, GET, OBJ_D, G, 0x10, 1, 1),
		STORE_EV(32, OBJ_D, G, 0x10, SLOT_NODE),
		STORE_EV(33, OBJ_D, F, 0x40, SLOT_COPY),
		EV(34, GET, OBJ_D, F, 0x48, 1, 2),	/* counted: else none */
		SLOT_EV(35, LOAD, OBJ_D, H, 0x10, 1, SLOT_COPY),
		EV(36, PUT, OBJ_D, H, 0x10, 1, 2),
		EV(37, PUT, OBJ_D, Y, 0x10, 1, 2),	/* counted: else none */
		SLOT_EV(38, LOAD, OBJ_D, P, 0x10, 1, SLOT_NODE),
		EV(39, PUT, OBJ_D, P, 0x10, 1, 1),
		EV(40, DIES, OBJ_D, P, 0x10, 1, 0),
		EV(41, PUT, OBJ_D, MAIN, 0x60, 1, 0),
	};
	slot_stream__type(evs, ARRAY_SIZE(evs), "maps");
	if (copy)
		evs[3].slot_op = REFCNT_SLOT__COPY;
	if (!counted) {
		evs[4].obj = 0;		/* left out: the engine ignores them */
		evs[7].obj = 0;
	} else {
		evs[6].live = 3;
	}
	if (slot_stream__finding(evs, ARRAY_SIZE(evs), OBJ_D, f) ||
	    f->kind != REFCNT_FINDING__DOUBLE_PUT)
		return -1;
	return 0;
}

int test__refcnt_attribution_slot_borrowed(struct test_suite *test __maybe_unused,
					   int subtest __maybe_unused)
{
	struct refcnt_finding f;

	TEST_ASSERT_VAL("a double put", !slot_borrowed(true, false, &f));
	TEST_ASSERT_VAL("F's copy with no get",
			f.why == REFCNT_WHY__BORROWED && f.has_culprit &&
			refcnt_finding__site(&f)->caller == FN_F &&
			refcnt_finding__site(&f)->site == FN_F + 0x40);
	TEST_ASSERT_VAL("named", !strcmp(refcnt_site_why__name(REFCNT_WHY__BORROWED),
					 "stored without a get"));
	TEST_ASSERT_VAL("a double put", !slot_borrowed(false, false, &f));
	pr_debug("a store, not a copy: named at %#" PRIx64 "\n", refcnt_finding__site(&f)->site);
	TEST_ASSERT_VAL("a store is no copy", f.why != REFCNT_WHY__BORROWED &&
			refcnt_finding__site(&f)->caller != FN_F);
	TEST_ASSERT_VAL("a double put", !slot_borrowed(true, true, &f));
	pr_debug("a counted copy: named at %#" PRIx64 "\n", refcnt_finding__site(&f)->site);
	TEST_ASSERT_VAL("a copy counted right after is no borrowed pointer",
			f.why != REFCNT_WHY__BORROWED && refcnt_finding__site(&f)->caller != FN_F);
	return TEST_OK;
}

/*
 * @early: the object dies of H's put of what F copied into a word with
 * no get (a lookup that keeps its holder's pointer in its result with no
 * get, put by the result's exit); Y gets it after the death: it died
 * early of H's put, a double put named at F's copy. Else it dies of its
 * own put; Y gets it (a use after put); F copies the dead pointer, and
 * H puts what that copy stored: a double put, not H's put balancing Y's
 * get, since the word held no reference. With @copy false, F's stores
 * follow gets of their own and nothing says so: a use after put only.
 */
static int slot_borrowed_dead(bool early, bool copy, struct collect *c)
{
	struct refcnt_event evs[] = {
		EV(30, BORN, OBJ_D, MAIN, 0x50, 1, 1),
		STORE_EV(31, OBJ_D, MAIN, 0x50, SLOT_NODE),
		STORE_EV(32, OBJ_D, F, 0x40, SLOT_COPY),	/* !early: left out */
		SLOT_EV(33, LOAD, OBJ_D, H, 0x10, 1, SLOT_COPY),
		EV(34, PUT, OBJ_D, H, 0x10, 1, 1),
		EV(35, DIES, OBJ_D, H, 0x10, 1, 0),
		EV(36, GET, OBJ_D, Y, 0x20, 1, 0),
		STORE_EV(37, OBJ_D, F, 0x40, SLOT_COPY),	/* early: left out */
		SLOT_EV(38, LOAD, OBJ_D, H, 0x10, 1, SLOT_COPY),	/* early: out */
		EV(39, PUT, OBJ_D, H, 0x10, 1, 0),		/* early: left out */
	};
	slot_stream__type(evs, ARRAY_SIZE(evs), "maps");
	evs[2].slot_op = copy ? REFCNT_SLOT__COPY : REFCNT_SLOT__STORE;
	evs[7].slot_op = evs[2].slot_op;
	if (early) {
		for (int i = 7; i <= 9; i++)
			evs[i].obj = 0;		/* the engine ignores them */
	} else {
		evs[2].obj = 0;
		evs[3].slot = SLOT_NODE;	/* its own reference's put */
	}
	return stream__collect(evs, ARRAY_SIZE(evs), OBJ_D, c);
}

/*
 * F copies the object's pointer with no get into a struct of its own
 * frame (node_al.map = map), and H, which F calls (@below) or another
 * function calls, puts what that local held (addr_location__exit()): the
 * object dies, and Y gets it after. Below F, the put released nothing
 * (a double put named at F's copy); from elsewhere, F's frame is gone and
 * its word says nothing: a use after put only.
 */
static int slot_borrowed_frame(bool below, struct collect *c)
{
	struct refcnt_event evs[] = {
		EV(30, BORN, OBJ_D, MAIN, 0x50, 1, 1),
		STORE_EV(31, OBJ_D, MAIN, 0x50, SLOT_NODE),
		STORE_EV(32, OBJ_D, F, 0x40, SLOT_LOCAL),
		SLOT_EV(33, LOAD, OBJ_D, H, 0x10, 1, SLOT_LOCAL),
		EV(34, PUT, OBJ_D, H, 0x10, 1, 1),
		EV(35, DIES, OBJ_D, H, 0x10, 1, 0),
		EV(36, GET, OBJ_D, Y, 0x20, 1, 0),
	};
	slot_stream__type(evs, ARRAY_SIZE(evs), "maps");
	evs[2].slot_op = REFCNT_SLOT__COPY;
	evs[2].slot_where = REFCNT_SLOT_WHERE__FRAME;
	evs[4].up[0] = below ? FN_F : FN_W;
	return stream__collect(evs, ARRAY_SIZE(evs), OBJ_D, c);
}

/* The first finding of @kind in @c, if any. */
static const struct refcnt_finding *collect__first(const struct collect *c,
						   enum refcnt_finding_kind kind)
{
	for (int i = 0; i < c->nr_findings; i++) {
		if (c->findings[i].kind == kind)
			return &c->findings[i];
	}
	return NULL;
}

int test__refcnt_attribution_slot_borrowed_dead(struct test_suite *test __maybe_unused,
						int subtest __maybe_unused)
{
	const struct refcnt_finding *f;
	struct collect c;

	for (int early = 1; early >= 0; early--) {
		TEST_ASSERT_VAL("engine", !slot_borrowed_dead(early, true, &c));
		f = collect__first(&c, REFCNT_FINDING__DOUBLE_PUT);
		pr_debug("%s: %s\n", early ? "died of a copy's put, then used" :
			 "a copy's put after a use after put",
			 f ? refcnt_site_why__name(f->why) : "no double put");
		TEST_ASSERT_VAL("a double put named at the copy with no get",
				f && f->why == REFCNT_WHY__BORROWED &&
				refcnt_finding__site(f)->caller == FN_F &&
				refcnt_finding__site(f)->site == FN_F + 0x40);
		TEST_ASSERT_VAL("the use: its consequence",
				!collect__first(&c, REFCNT_FINDING__USE_AFTER_PUT));
		TEST_ASSERT_VAL("engine", !slot_borrowed_dead(early, false, &c));
		TEST_ASSERT_VAL("stores with a get: a use after put only",
				!collect__first(&c, REFCNT_FINDING__DOUBLE_PUT) &&
				collect__first(&c, REFCNT_FINDING__USE_AFTER_PUT));
	}
	TEST_ASSERT_VAL("engine", !slot_borrowed_frame(true, &c));
	f = collect__first(&c, REFCNT_FINDING__DOUBLE_PUT);
	TEST_ASSERT_VAL("a put below the copy into its frame: the copy's double put",
			f && f->why == REFCNT_WHY__BORROWED &&
			refcnt_finding__site(f)->caller == FN_F);
	TEST_ASSERT_VAL("engine", !slot_borrowed_frame(false, &c));
	TEST_ASSERT_VAL("a put from elsewhere: its frame is gone, a use after put only",
			!collect__first(&c, REFCNT_FINDING__DOUBLE_PUT) &&
			collect__first(&c, REFCNT_FINDING__USE_AFTER_PUT));
	return TEST_OK;
}

#define HOLDER_BLOCK	0x55503000ULL	/* a holder's array, in the heap */
#define CACHE_WORD	0x55504000ULL	/* a word outside it: a cache of one */

/*
 * Feed @evs, and between them, in time order, the free() calls @frees, to
 * an engine that follows them if @follow; give it @scan of address space
 * 1 (the threads') and end the stream: @c gets the findings.
 */
static int freed_stream__run(struct refcnt_event *evs, size_t nr,
			     const struct refcnt_free *frees, size_t nr_frees,
			     const struct refcnt_scan *scan, bool follow, struct collect *c)
{
	struct refcnt_engine *engine = refcnt_engine__new(&stream__ops, c);
	size_t j = 0;
	int err = 0;

	if (!engine)
		return -ENOMEM;
	memset(c, 0, sizeof(*c));
	if (follow)
		err = refcnt_engine__follow_frees(engine);
	for (size_t i = 0; i <= nr && !err; i++) {
		for (; j < nr_frees && (i == nr || frees[j].time < evs[i].time) && !err; j++)
			err = refcnt_engine__freed(engine, &frees[j]);
		if (i < nr && !err) {
			evs[i].space = evs[i].tid;
			err = stream__feed(engine, &evs[i], 1);
		}
	}
	if (!err)
		err = refcnt_engine__exit_scan(engine, 1, scan);
	refcnt_engine__end(engine);
	refcnt_engine__delete(engine);
	return err;
}

/* The first leak of @obj that @c holds, or NULL. */
static const struct refcnt_finding *collect__leak(const struct collect *c, u64 obj)
{
	for (int i = 0; i < c->nr_findings; i++) {
		if (c->findings[i].kind == REFCNT_FINDING__LEAK && c->findings[i].obj == obj)
			return &c->findings[i];
	}
	return NULL;
}

/*
 * As copied() without C's get: a map C, born of a copy constructor, lies
 * 0x20 bytes below the word that W puts A from. Before, a map D was
 * freed from a block of @bytes: a word past that is in another block,
 * not in C, and the double put is not C's copy. Then, with @reused, a
 * block of that many bytes that malloc made at D's address was freed:
 * not a map's.
 */
static int copied_sized(u64 bytes, u64 reused, struct collect *c)
{
	const u8 dso = refcnt_type_spec__index(refcnt_type_spec__find("dso"));
	const u8 map = refcnt_type_spec__index(refcnt_type_spec__find("map"));
	struct refcnt_event evs[] = {
		EV(5, BORN, OBJ_D, MAIN, 0x50, 1, 1),
		EV(6, PUT, OBJ_D, MAIN, 0x58, 1, 1),
		EV(7, DIES, OBJ_D, MAIN, 0x58, 1, 0),
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, BORN, OBJ_B, MAIN, 0x20, 1, 1),
		EV(12, GET, OBJ_A, G, 0x10, 1, 1),
		STORE_EV(13, OBJ_A, G, 0x10, OBJ_B + 0x20),
		EV(22, BORN, OBJ_C, MAIN, 0x30, 1, 1),
		SLOT_EV(30, LOAD, OBJ_A, W, 0x40, 1, OBJ_C + 0x20),
		EV(31, PUT, OBJ_A, W, 0x40, 1, 2),
		SLOT_EV(40, LOAD, OBJ_A, W, 0x40, 1, OBJ_B + 0x20),
		EV(41, PUT, OBJ_A, W, 0x40, 1, 1),
		EV(42, DIES, OBJ_A, W, 0x40, 1, 0),
		EV(50, PUT, OBJ_A, MAIN, 0x18, 1, 0),
	};
	const struct refcnt_free frees[] = {
		{ .time = 8, .space = 1, .block = OBJ_D, .size = bytes, .site = FN_MAIN + 0x60,
		  .caller = FN_MAIN, .tid = 1, .audited = true },
		{ .time = 9, .space = 1, .block = OBJ_D, .size = reused, .site = FN_MAIN + 0x68,
		  .caller = FN_MAIN, .tid = 1, .audited = true },
	};

	const struct refcnt_scan scan = { .result = { .status = REFCNT_SCAN__DONE } };

	for (size_t i = 0; i < ARRAY_SIZE(evs); i++)
		evs[i].type = evs[i].obj == OBJ_A ? dso : map;
	evs[7].born_clone = FN_C;
	return freed_stream__run(evs, ARRAY_SIZE(evs), frees, reused ? 2 : 1, &scan, true, c);
}

int test__refcnt_attribution_copied_sized(struct test_suite *test __maybe_unused,
					  int subtest __maybe_unused)
{
	const struct refcnt_finding *f;
	struct collect c;

	TEST_ASSERT_VAL("engine", !copied_sized(0x28, 0, &c));
	f = copied__finding(&c);
	TEST_ASSERT_VAL("in a map's block: the copy constructor's", f &&
			f->why == REFCNT_WHY__COPIED && refcnt_finding__site(f)->caller == FN_C);
	for (u64 reused = 0; reused <= 0x100; reused += 0x100) {
		TEST_ASSERT_VAL("engine", !copied_sized(0x20, reused, &c));
		f = copied__finding(&c);
		TEST_ASSERT_VAL("past a map's block: not the copy's", f &&
				f->why != REFCNT_WHY__COPIED &&
				refcnt_finding__site(f)->caller != FN_C);
	}
	return TEST_OK;
}

/* Is @f's culprit F's free() of the holder's array? */
static bool freed_by_f(const struct refcnt_finding *f)
{
	return f && f->why == REFCNT_WHY__FREED_HOLDING && f->has_culprit &&
	       refcnt_finding__site(f)->site == FN_F + 0x40 &&
	       refcnt_finding__site(f)->caller == FN_F;
}

/* Is @f's culprit P's call of the free()'s function (freed_holder()'s 7)? */
static bool freed_by_p(const struct refcnt_finding *f)
{
	return f && f->why == REFCNT_WHY__FREED_HOLDING && f->has_culprit &&
	       refcnt_finding__site(f)->site == FN_P + 0x50 &&
	       refcnt_finding__site(f)->caller == FN_P;
}

/*
 * A teardown that frees a holder's array without putting what it holds: G
 * inserts A and B in the holder (a get each, their creator's put follows),
 * and F frees the array, putting neither. Nothing else happens to them:
 * their leaks are G's references, but the bug is F's. The scan at exit
 * finds A's address in the freed array; B's word there malloc wrote over
 * (a freed block's first words are its links): B's reference was taken
 * where A's was, and F never put B either. @variant 1: F put A before the
 * free (a clean teardown; X's extra get is the leak); 2: the block was
 * freed before the references were taken (what a free of the memory's
 * earlier use left); 3: the free() calls are not followed; 4: F put B
 * (X's extra get on B is its leak), and B is no sibling; 5: P, which
 * called F, put A (a table's entry freed by its hashmap, the value put by
 * the caller); 6: P only called H, which put A: F's all the same; 7: F
 * has no holder of the type and P has (a container's helper, called by
 * the teardown that holds the container): P's, at P's call of F; 8: F
 * has holders of it too: F's; 9: F put A, but the reference X stored in
 * a word outside the block, loaded from it (a table's cache of an entry):
 * F's all the same.
 */
static int freed_holder(int variant, struct collect *c)
{
	const struct refcnt_event a_extra[] = {
		EV(13, GET, OBJ_A, X, 0x10, 1, 1),
		EV(38, PUT, OBJ_A, F, 0x30, 1, 2),
	}, b_extra[] = {
		EV(23, GET, OBJ_B, X, 0x10, 1, 1),
		EV(39, PUT, OBJ_B, F, 0x30, 1, 2),
	}, above[] = {
		EV(13, GET, OBJ_A, X, 0x10, 1, 1),
		EV(38, PUT, OBJ_A, P, 0x30, 1, 2),
	}, cached[] = {
		EV(13, GET, OBJ_A, X, 0x10, 1, 1),
		STORE_EV(14, OBJ_A, X, 0x10, CACHE_WORD),
		SLOT_EV(37, LOAD, OBJ_A, F, 0x30, 1, CACHE_WORD),
		EV(38, PUT, OBJ_A, F, 0x30, 1, 2),
	};
	struct refcnt_event evs[12] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, GET, OBJ_A, G, 0x10, 1, 1),
		EV(12, PUT, OBJ_A, MAIN, 0x18, 1, 2),
		EV(20, BORN, OBJ_B, MAIN, 0x20, 1, 1),
		EV(21, GET, OBJ_B, G, 0x10, 1, 1),
		EV(22, PUT, OBJ_B, MAIN, 0x28, 1, 2),
	};
	struct refcnt_free frees[] = {
		{ .time = 40, .space = 1, .block = HOLDER_BLOCK, .size = 0x48,
		  .site = FN_F + 0x40, .caller = FN_F, .tid = 1, .audited = true },
	};
	struct refcnt_scan_object objects[] = {
		{ .addr = OBJ_A, .refcnt = 1 },
		{ .addr = OBJ_B, .refcnt = 1 },
	};
	struct refcnt_scan_freed freed[] = {
		{ .addr = OBJ_A, .word = HOLDER_BLOCK + 0x20 },
	};
	struct refcnt_scan scan = {
		.result = { .status = REFCNT_SCAN__DONE, .nr_objects = ARRAY_SIZE(objects),
			    .nr_freed = ARRAY_SIZE(freed) },
		.objects = objects,
		.freed = freed,
	};
	size_t nr = 6;

	if (variant == 1) {
		memcpy(&evs[nr], a_extra, sizeof(a_extra));
		nr += ARRAY_SIZE(a_extra);
	}
	if (variant == 4) {
		memcpy(&evs[nr], b_extra, sizeof(b_extra));
		nr += ARRAY_SIZE(b_extra);
	}
	if (variant == 5 || variant == 6) {
		memcpy(&evs[nr], above, sizeof(above));
		nr += ARRAY_SIZE(above);
		frees[0].up_caller = FN_P;
	}
	if (variant == 9) {
		memcpy(&evs[nr], cached, sizeof(cached));
		nr += ARRAY_SIZE(cached);
	}
	if (variant == 6) {
		evs[nr - 1].site = FN_H + 0x30;
		evs[nr - 1].caller = FN_H;
		evs[nr - 1].up[0] = FN_P;
	}
	/* in time order */
	for (size_t i = 1; i < nr; i++) {
		for (size_t j = i; j > 0 && evs[j - 1].time > evs[j].time; j--) {
			struct refcnt_event t = evs[j];

			evs[j] = evs[j - 1];
			evs[j - 1] = t;
		}
	}
	if (variant == 2)
		frees[0].time = 5;
	if (variant == 7 || variant == 8) {
		frees[0].up_caller = FN_P;
		frees[0].up_site = FN_P + 0x50;
		frees[0].up_holds = 1U << evs[0].type;
		frees[0].holds = variant == 8 ? 1U << evs[0].type : 0;
	}
	return freed_stream__run(evs, nr, frees, ARRAY_SIZE(frees), &scan, variant != 3, c);
}

/*
 * The frees kept: the last one of each block address; a word is held by
 * the last free, of those that started below it, whose block spans it
 * (malloc merges and splits chunks, so a bigger block freed later may
 * span a smaller one freed before), in its own address space.
 */
static int frees_index(void)
{
	static const struct refcnt_free frees[] = {
		{ .time = 1, .space = 1, .block = 0x1000, .size = 0x18, .caller = FN_X },
		{ .time = 2, .space = 1, .block = 0xff0, .size = 0x100, .caller = FN_F },
		{ .time = 3, .space = 2, .block = 0x1000, .size = 0x100, .caller = FN_G },
		{ .time = 4, .space = 1, .block = 0x1000, .size = 0x18, .caller = FN_H },
	};
	struct refcnt_frees *fs = refcnt_frees__new();
	const struct refcnt_free *f;
	int ret = TEST_FAIL;

	if (!fs)
		return TEST_FAIL;
	for (size_t i = 0; i < ARRAY_SIZE(frees); i++) {
		if (refcnt_frees__add(fs, &frees[i]))
			goto out;
	}
	f = refcnt_frees__find(fs, 1, 0x1008);
	if (!f || f->caller != FN_H)	/* 0x1000 freed again last */
		goto out;
	f = refcnt_frees__find(fs, 1, 0x1020);
	if (!f || f->caller != FN_F)	/* past 0x1000's, in the bigger one's */
		goto out;
	f = refcnt_frees__find(fs, 2, 0x1020);
	if (!f || f->caller != FN_G)
		goto out;
	if (refcnt_frees__find(fs, 1, 0x10f0) || refcnt_frees__find(fs, 1, 0xf00))
		goto out;
	ret = TEST_OK;
out:
	refcnt_frees__delete(fs);
	return ret;
}

/* How many of @obj's leaks @c holds, and of those F's frees named (@by_f). */
static int collect__leaks(const struct collect *c, u64 obj, int *by_f)
{
	int nr = 0;

	*by_f = 0;
	for (int i = 0; i < c->nr_findings; i++) {
		if (c->findings[i].kind != REFCNT_FINDING__LEAK || c->findings[i].obj != obj)
			continue;
		nr++;
		*by_f += freed_by_f(&c->findings[i]);
	}
	return nr;
}

/*
 * One object in three holders: G takes a reference to C for each of three
 * entries (their blocks), and F frees the three without putting C. The
 * scan at exit finds C's address in two of the freed blocks (malloc wrote
 * over the third's word): each of the three frees dropped one reference,
 * all F's, the third by its site. With @reachable words pointing to C in
 * live memory, as many of its references are accounted for: only the rest
 * are leaks, and only those are F's. With @p_calls_f, P made C, put its
 * own reference, and called F: a put by the free's caller's caller, which
 * may have been the block's (threads__remove() puts the thread whose entry
 * hashmap_delete() freed), unless @stored: stores put G's references in
 * the blocks, and they were still outstanding when F freed them.
 */
static int freed_holders(u32 reachable, bool p_calls_f, bool stored, struct collect *c)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_C, MAIN, 0x10, 1, 1),
		EV(11, GET, OBJ_C, G, 0x10, 1, 1),
		STORE_EV(12, OBJ_C, G, 0x10, HOLDER_BLOCK + 0x10),
		EV(13, GET, OBJ_C, G, 0x10, 1, 2),
		STORE_EV(14, OBJ_C, G, 0x10, HOLDER_BLOCK + 0x110),
		EV(15, GET, OBJ_C, G, 0x10, 1, 3),
		STORE_EV(16, OBJ_C, G, 0x10, HOLDER_BLOCK + 0x210),
		EV(17, PUT, OBJ_C, MAIN, 0x18, 1, 4),
	};
	struct refcnt_free frees[3];
	struct refcnt_scan_object objects[] = {
		{ .addr = OBJ_C, .refcnt = 3, .words = reachable,
		  .reachable = reachable ? REFCNT_SCAN_REACH__DATA : REFCNT_SCAN_REACH__NONE },
	};
	struct refcnt_scan_freed freed[] = {
		{ .addr = OBJ_C, .word = HOLDER_BLOCK + 0x10 },
		{ .addr = OBJ_C, .word = HOLDER_BLOCK + 0x110 },
	};
	struct refcnt_scan scan = {
		.result = { .status = REFCNT_SCAN__DONE, .nr_objects = ARRAY_SIZE(objects),
			    .nr_freed = ARRAY_SIZE(freed) },
		.objects = objects,
		.freed = freed,
	};

	for (int i = 0; i < 3; i++) {
		frees[i] = (struct refcnt_free){
			.time = 40 + i, .space = 1, .block = HOLDER_BLOCK + 0x100 * i,
			.size = 0x18, .site = FN_F + 0x40, .caller = FN_F, .tid = 1,
			.audited = true, .up_caller = p_calls_f ? FN_P : 0,
		};
		if (!stored)
			evs[2 + 2 * i].obj = 0;		/* left out: the engine ignores them */
	}
	if (p_calls_f) {
		evs[0].site = FN_P + 0x10;
		evs[0].caller = FN_P;
		evs[7].site = FN_P + 0x18;
		evs[7].caller = FN_P;
	}
	return freed_stream__run(evs, ARRAY_SIZE(evs), frees, ARRAY_SIZE(frees), &scan, true, c);
}

/*
 * A teardown that clears a word and frees its block without a put
 * (thread__delete() doing thread__set_maps(thread, NULL) with no
 * maps__put()): G made C and stored it in the holder's block; H took and
 * put one of its own; F freed the block. The word was cleared first, so
 * the scan finds no trace of C in freed memory: only the store says that
 * the block held C's reference when F freed it. C's leak is F's. Not if
 * @variant 1: no store was seen; 2: F put C itself (another reference of
 * it, a put the engine paired elsewhere); 3: the block was freed before
 * the store (it held nothing of C's yet); 4: F has no holder of C's type
 * (the memory realloc() moved, malloc()ed again for a string F frees).
 */
static int freed_stored(int variant, struct collect *c)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_C, G, 0x10, 1, 1),
		STORE_EV(11, OBJ_C, G, 0x10, HOLDER_BLOCK + 0x10),
		EV(12, GET, OBJ_C, H, 0x10, 1, 1),
		EV(13, PUT, OBJ_C, H, 0x18, 1, 2),
		EV(30, GET, OBJ_C, X, 0x10, 1, 1),
		EV(31, PUT, OBJ_C, X, 0x18, 1, 2),
	};
	struct refcnt_free frees[] = {
		{ .time = 20, .space = 1, .block = HOLDER_BLOCK, .size = 0x40,
		  .site = FN_F + 0x40, .caller = FN_F, .tid = 1, .audited = true },
	};
	struct refcnt_scan_object objects[] = {
		{ .addr = OBJ_C, .refcnt = 1, .reachable = REFCNT_SCAN_REACH__NONE },
	};
	struct refcnt_scan scan = {
		.result = { .status = REFCNT_SCAN__DONE, .nr_objects = ARRAY_SIZE(objects) },
		.objects = objects,
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(evs); i++)
		evs[i].type = refcnt_type_spec__index(refcnt_type_spec__find("dso"));
	frees[0].holds = 1U << evs[0].type;
	if (variant == 1)
		evs[1].obj = 0;		/* left out: the engine ignores it */
	if (variant == 2) {
		evs[2].site = FN_F + 0x10;
		evs[2].caller = FN_F;
		evs[3].site = FN_F + 0x18;
		evs[3].caller = FN_F;
	}
	if (variant == 3)
		frees[0].time = 5;
	if (variant == 4)
		frees[0].holds = 0;
	return freed_stream__run(evs, ARRAY_SIZE(evs), frees, ARRAY_SIZE(frees), &scan, true, c);
}

int test__refcnt_attribution_freed_stored(struct test_suite *test __maybe_unused,
					  int subtest __maybe_unused)
{
	struct collect c;

	TEST_ASSERT_VAL("engine", !freed_stored(0, &c));
	TEST_ASSERT_VAL("C's leak is F's free", freed_by_f(collect__leak(&c, OBJ_C)));
	TEST_ASSERT_VAL("of G's birth", stream__ref_is(&collect__leak(&c, OBJ_C)->ref,
						       FN_G + 0x10));
	for (int variant = 1; variant <= 4; variant++) {
		TEST_ASSERT_VAL("engine", !freed_stored(variant, &c));
		pr_debug("variant %d: %d findings\n", variant, c.nr_findings);
		TEST_ASSERT_VAL("C leaked, not F's", collect__leak(&c, OBJ_C) &&
				!freed_by_f(collect__leak(&c, OBJ_C)));
	}
	return TEST_OK;
}

/*
 * Two references left at the end, one leaked (the scan at exit accounts
 * for one by a reachable word): G's birth, which G's caller never put,
 * and H's get, which H stored in a holder that still holds it (no store
 * over the word, no free of its block). The leak is G's: memory holds
 * H's. With @variant 1 (no store seen), nothing tells them apart but the
 * order that left_ref__cmp() keeps: a get before a birth, H's. With 2,
 * the block was freed (by P, no holder of the type) and its memory given
 * to another block, where X stored D over the word: the word holds H's
 * no more, and X stored over nothing of C's (H's is told first again,
 * "left outstanding", not X's).
 */
static int word_holds(int variant, struct collect *c)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_C, G, 0x10, 1, 1),
		EV(11, GET, OBJ_C, H, 0x10, 1, 1),
		STORE_EV(12, OBJ_C, H, 0x10, HOLDER_BLOCK + 0x10),
		EV(30, BORN, OBJ_D, X, 0x10, 1, 1),
		STORE_EV(31, OBJ_D, X, 0x10, HOLDER_BLOCK + 0x10),
	};
	struct refcnt_free frees[] = {
		{ .time = 20, .space = 1, .block = HOLDER_BLOCK, .size = 0x40,
		  .site = FN_P + 0x40, .caller = FN_P, .tid = 1, .audited = true },
	};
	struct refcnt_scan_object objects[] = {
		{ .addr = OBJ_C, .refcnt = 2, .words = 1, .reachable = REFCNT_SCAN_REACH__DATA },
	};
	struct refcnt_scan scan = {
		.result = { .status = REFCNT_SCAN__DONE, .nr_objects = ARRAY_SIZE(objects) },
		.objects = objects,
	};

	if (variant == 1)
		evs[2].obj = 0;		/* left out: the engine ignores them */
	if (variant != 2) {
		evs[3].obj = 0;
		evs[4].obj = 0;
	}
	return freed_stream__run(evs, ARRAY_SIZE(evs), frees, variant == 2 ? 1 : 0, &scan, true,
				 c);
}

int test__refcnt_attribution_word_holds(struct test_suite *test __maybe_unused,
					int subtest __maybe_unused)
{
	const struct refcnt_finding *leak;
	struct collect c;

	TEST_ASSERT_VAL("engine", !word_holds(0, &c));
	leak = collect__leak(&c, OBJ_C);
	TEST_ASSERT_VAL("one leak: G's birth", leak && leak->ref.op == REFCNT_OP__BORN &&
			stream__ref_is(&leak->ref, FN_G + 0x10));
	TEST_ASSERT_VAL("engine", !word_holds(1, &c));
	leak = collect__leak(&c, OBJ_C);
	TEST_ASSERT_VAL("no store: H's get first", leak && stream__ref_is(&leak->ref, FN_H + 0x10));
	TEST_ASSERT_VAL("engine", !word_holds(2, &c));
	leak = collect__leak(&c, OBJ_C);
	TEST_ASSERT_VAL("block freed: H's get first, not stored over by X",
			leak && stream__ref_is(&leak->ref, FN_H + 0x10) &&
			leak->why != REFCNT_WHY__OVERWRITTEN);
	return TEST_OK;
}

int test__refcnt_attribution_tail_calls(struct test_suite *test __maybe_unused,
					int subtest __maybe_unused)
{
	return test__call_sites_dwarf();
}

int test__refcnt_attribution_freed_holders(struct test_suite *test __maybe_unused,
					   int subtest __maybe_unused)
{
	struct collect c;
	int by_f;

	TEST_ASSERT_VAL("engine", !freed_holders(0, false, false, &c));
	TEST_ASSERT_VAL("three leaks", collect__leaks(&c, OBJ_C, &by_f) == 3);
	pr_debug("F's frees named %d of C's 3 leaks\n", by_f);
	TEST_ASSERT_VAL("all three F's: one per block it freed, the third by its site",
			by_f == 3);
	TEST_ASSERT_VAL("engine", !freed_holders(2, false, false, &c));
	TEST_ASSERT_VAL("one leak", collect__leaks(&c, OBJ_C, &by_f) == 1);
	TEST_ASSERT_VAL("F's, no more than the leaks", by_f == 1);
	TEST_ASSERT_VAL("engine", !freed_holders(0, true, false, &c));
	TEST_ASSERT_VAL("three leaks", collect__leaks(&c, OBJ_C, &by_f) == 3);
	TEST_ASSERT_VAL("P put C and called F: not F's", !by_f);
	TEST_ASSERT_VAL("engine", !freed_holders(0, true, true, &c));
	TEST_ASSERT_VAL("three leaks", collect__leaks(&c, OBJ_C, &by_f) == 3);
	pr_debug("stored in the blocks: F's frees named %d of C's 3 leaks\n", by_f);
	TEST_ASSERT_VAL("stored in the blocks F freed: F's all the same", by_f == 3);
	return TEST_OK;
}

int test__refcnt_attribution_freed_holder(struct test_suite *test __maybe_unused,
					  int subtest __maybe_unused)
{
	struct collect c;

	TEST_ASSERT_VAL("the last free of a block that held a word", frees_index() == TEST_OK);

	TEST_ASSERT_VAL("engine", !freed_holder(0, &c));
	TEST_ASSERT_VAL("A's leak is F's free", freed_by_f(collect__leak(&c, OBJ_A)));
	TEST_ASSERT_VAL("of G's reference", stream__ref_is(&collect__leak(&c, OBJ_A)->ref,
							   FN_G + 0x10));
	TEST_ASSERT_VAL("B's, taken where A's was, too", freed_by_f(collect__leak(&c, OBJ_B)));
	TEST_ASSERT_VAL("named", !strcmp(refcnt_site_why__name(REFCNT_WHY__FREED_HOLDING),
					 "freed holding it"));
	for (int variant = 1; variant <= 3; variant++) {
		TEST_ASSERT_VAL("engine", !freed_holder(variant, &c));
		pr_debug("variant %d: %d findings\n", variant, c.nr_findings);
		TEST_ASSERT_VAL("A leaked", collect__leak(&c, OBJ_A));
		TEST_ASSERT_VAL("not F's", !freed_by_f(collect__leak(&c, OBJ_A)) &&
				!freed_by_f(collect__leak(&c, OBJ_B)));
	}
	TEST_ASSERT_VAL("engine", !freed_holder(4, &c));
	TEST_ASSERT_VAL("A's is F's", freed_by_f(collect__leak(&c, OBJ_A)));
	TEST_ASSERT_VAL("F put B: no sibling", collect__leak(&c, OBJ_B) &&
			!freed_by_f(collect__leak(&c, OBJ_B)));
	TEST_ASSERT_VAL("engine", !freed_holder(5, &c));
	TEST_ASSERT_VAL("F's caller put A", collect__leak(&c, OBJ_A) &&
			!freed_by_f(collect__leak(&c, OBJ_A)));
	TEST_ASSERT_VAL("engine", !freed_holder(6, &c));
	TEST_ASSERT_VAL("F's caller only called a put", freed_by_f(collect__leak(&c, OBJ_A)));
	TEST_ASSERT_VAL("engine", !freed_holder(7, &c));
	TEST_ASSERT_VAL("a helper's free is its caller's", freed_by_p(collect__leak(&c, OBJ_A)) &&
			freed_by_p(collect__leak(&c, OBJ_B)));
	TEST_ASSERT_VAL("engine", !freed_holder(8, &c));
	TEST_ASSERT_VAL("a holder's free is its own", freed_by_f(collect__leak(&c, OBJ_A)));
	TEST_ASSERT_VAL("engine", !freed_holder(9, &c));
	TEST_ASSERT_VAL("F put A from another word", freed_by_f(collect__leak(&c, OBJ_A)));
	return TEST_OK;
}
