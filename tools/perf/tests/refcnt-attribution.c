// SPDX-License-Identifier: GPL-2.0
/*
 * perf test refcnt: which function a finding names, on synthetic event
 * streams of the shapes that real refcount bugs take. Each case fails with
 * the attribution rule it is about taken out.
 */
#include <string.h>
#include <linux/kernel.h>

#include "tests.h"
#include "debug.h"
#include "refcnt-tests.h"
#include "refcnt-stream.h"

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
