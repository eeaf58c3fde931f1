// SPDX-License-Identifier: GPL-2.0
/*
 * perf test refcnt: the pairing engine on synthetic event streams. Every
 * case states the exact findings it expects and fails on one missing, one
 * extra or one wrong. The streams' made-up program: refcnt-stream.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>

#include "tests.h"
#include "debug.h"
#include "refcnt-tests.h"
#include "refcnt-stream.h"
#include "util/refcnt/findings.h"
#include "util/refcnt/pairing.h"

static void collect__finding(const struct refcnt_finding *f, void *priv)
{
	struct collect *c = priv;

	pr_debug("  finding %s obj %#" PRIx64 " gen %" PRIu64 " ref %s@%#" PRIx64
		 " other %#" PRIx64 " culprit %#" PRIx64 "%s%s\n",
		 refcnt_finding_kind__name(f->kind), f->obj, f->generation,
		 f->ref.op < REFCNT_OP__MAX ? refcnt_op__name(f->ref.op) : "inherited",
		 f->ref.site, f->other.site, f->culprit.site,
		 f->has_culprit ? "" : " (none)", f->uncertain ? " uncertain" : "");
	if (c->nr_findings < MAX_COLLECT)
		c->findings[c->nr_findings] = *f;
	c->nr_findings++;
}

static void collect__step(const struct refcnt_step *s, void *priv)
{
	struct collect *c = priv;

	pr_debug("  step %s gen %" PRIu64 " %d -> %d paired %#" PRIx64 " (%s)%s%s\n",
		 refcnt_op__name(s->ev->op), s->generation, s->before, s->after,
		 s->paired.site, refcnt_confidence__name(s->confidence),
		 s->finding != REFCNT_FINDING__MAX ? " <== " : "",
		 s->finding != REFCNT_FINDING__MAX ? refcnt_finding_kind__name(s->finding) : "");
	if (c->nr_steps < MAX_COLLECT) {
		c->steps[c->nr_steps] = *s;
		c->events[c->nr_steps] = *s->ev;
		c->steps[c->nr_steps].ev = &c->events[c->nr_steps];
	}
	c->nr_steps++;
}

const struct refcnt_engine_ops stream__ops = {
	.finding = collect__finding,
	.step = collect__step,
};

int stream__feed(struct refcnt_engine *engine, const struct refcnt_event *evs, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		int err = refcnt_engine__event(engine, &evs[i]);

		if (err)
			return err;
	}
	return 0;
}

bool stream__ref_is(const struct refcnt_ref *ref, u64 site)
{
	/* FUNC(0) is 0: a zeroed ref matches site 0 */
	return ref->site == site && ref->caller == FUNC(site) &&
	       ref->stack == (u32)(FUNC(site) >> 4);
}

int stream__check(const struct collect *c, const struct expect *exp, int nr)
{
	TEST_ASSERT_EQUAL("number of findings", c->nr_findings, nr);
	for (int i = 0; i < nr; i++) {
		const struct refcnt_finding *f = &c->findings[i];
		const struct expect *e = &exp[i];

		pr_debug("  checking finding %d\n", i);
		TEST_ASSERT_EQUAL("kind", (int)f->kind, (int)e->kind);
		TEST_ASSERT_EQUAL("type", f->type, e->type);
		TEST_ASSERT_VAL("obj", f->obj == e->obj);
		TEST_ASSERT_EQUAL("generation", (int)f->generation, (int)e->generation);
		TEST_ASSERT_VAL("ref site, caller and stack", stream__ref_is(&f->ref, e->site));
		TEST_ASSERT_EQUAL("ref op", f->ref.op, e->op);
		TEST_ASSERT_VAL("other", stream__ref_is(&f->other, e->other));
		TEST_ASSERT_EQUAL("has culprit", f->has_culprit, !!e->culprit);
		TEST_ASSERT_VAL("culprit", stream__ref_is(&f->culprit, e->culprit));
		TEST_ASSERT_EQUAL("uncertain", f->uncertain, e->uncertain);
		TEST_ASSERT_EQUAL("expected", f->expected, e->expected);
		TEST_ASSERT_EQUAL("live", f->live, e->live);
	}
	return TEST_OK;
}

int stream__collect(const struct refcnt_event *evs, size_t nr, u64 follow, struct collect *c)
{
	struct refcnt_engine *engine;
	int err;

	memset(c, 0, sizeof(*c));
	engine = refcnt_engine__new(&stream__ops, c);
	if (!engine)
		return -ENOMEM;
	err = follow ? refcnt_engine__follow(engine, follow) : 0;
	if (!err)
		err = stream__feed(engine, evs, nr);
	refcnt_engine__end(engine);
	refcnt_engine__delete(engine);
	return err;
}

/*
 * Feed @evs to a new engine following @follow (if not 0), end the stream
 * and check the findings. @c gets what was collected.
 */
int stream__run(const struct refcnt_event *evs, size_t nr, u64 follow, struct collect *c,
		const struct expect *exp, int nr_exp, struct refcnt_engine_stats *stats)
{
	struct refcnt_engine *engine = refcnt_engine__new(&stream__ops, c);
	int err;

	TEST_ASSERT_VAL("engine", engine);
	memset(c, 0, sizeof(*c));
	err = follow ? refcnt_engine__follow(engine, follow) : 0;
	if (!err)
		err = stream__feed(engine, evs, nr);
	refcnt_engine__end(engine);
	*stats = *refcnt_engine__stats(engine);
	refcnt_engine__delete(engine);
	TEST_ASSERT_EQUAL("feeding", err, 0);
	TEST_ASSERT_VAL("events", stats->events == nr);
	return stream__check(c, exp, nr_exp);
}

u64 stream__total(const struct refcnt_engine_stats *stats)
{
	u64 n = 0;

	for (int k = 0; k < REFCNT_FINDING__MAX; k++)
		n += stats->findings[k];
	return n;
}

/* Two objects, gets and puts on two threads, everything put, both freed. */
int test__refcnt_pairing_balanced(struct test_suite *test __maybe_unused,
				  int subtest __maybe_unused)
{
	static const struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, BORN, OBJ_B, MAIN, 0x18, 2, 1),
		EV(20, GET,  OBJ_A, F, 0x10, 1, 1),
		EV(21, GET,  OBJ_B, F, 0x10, 2, 1),
		EV(30, GET,  OBJ_A, G, 0x10, 2, 2),
		EV(31, PUT,  OBJ_A, F, 0x20, 1, 3),
		EV(32, PUT,  OBJ_B, F, 0x20, 2, 2),
		EV(40, PUT,  OBJ_A, G, 0x20, 2, 2),
		EV(50, PUT,  OBJ_A, MAIN, 0x20, 1, 1),
		EV(51, DIES, OBJ_A, MAIN, 0x20, 1, 0),
		EV(60, PUT,  OBJ_B, MAIN, 0x28, 2, 1),
		EV(61, DIES, OBJ_B, MAIN, 0x28, 2, UNK),
	};
	struct refcnt_engine_stats stats;
	struct collect c;

	TEST_ASSERT_VAL("findings", stream__run(evs, ARRAY_SIZE(evs), 0, &c, NULL, 0,
						&stats) == TEST_OK);
	TEST_ASSERT_VAL("no findings counted", stream__total(&stats) == 0);
	TEST_ASSERT_VAL("lifetimes", stats.objects[0] == 2 && stats.objects[1] == 0);
	TEST_ASSERT_VAL("none live", stats.live_lifetimes == 0);
	TEST_ASSERT_VAL("in order", stats.out_of_order == 0 && stats.lost_windows == 0);
	TEST_ASSERT_VAL("no steps unless followed", c.nr_steps == 0);
	return TEST_OK;
}

/*
 * A get in X is never put; the put in F releases the reference taken in F
 * (not the more recent one taken in G), main's put the birth reference.
 * B is made in F, which hands a reference to a cache (a get, also in F)
 * and puts its own: that put releases the birth, and the cache's get is
 * what is left.
 */
int test__refcnt_pairing_leak(struct test_suite *test __maybe_unused,
			      int subtest __maybe_unused)
{
	static const struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(20, GET,  OBJ_A, F, 0x10, 1, 1),
		EV(30, GET,  OBJ_A, X, 0x10, 1, 2),
		EV(40, GET,  OBJ_A, G, 0x10, 1, 3),
		EV(50, PUT,  OBJ_A, F, 0x20, 1, 4),
		EV(60, PUT,  OBJ_A, G, 0x20, 1, 3),
		EV(70, PUT,  OBJ_A, MAIN, 0x20, 1, 2),
		EV(80, BORN, OBJ_B, F, 0x30, 1, 1),
		EV(81, GET,  OBJ_B, F, 0x40, 1, 1),
		EV(82, PUT,  OBJ_B, F, 0x50, 1, 2),
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_A, .generation = 1,
		  .site = FN_X + 0x10, .op = REFCNT_OP__GET },
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_B, .generation = 1,
		  .site = FN_F + 0x40, .op = REFCNT_OP__GET },
	};
	/* what each put released */
	static const u64 paired[] = { FN_F + 0x10, FN_G + 0x10, FN_MAIN + 0x10 };
	struct refcnt_engine_stats stats;
	struct collect c;

	TEST_ASSERT_VAL("findings", stream__run(evs, ARRAY_SIZE(evs), OBJ_A, &c, exp,
						ARRAY_SIZE(exp), &stats) == TEST_OK);
	TEST_ASSERT_VAL("two leaks", stats.findings[REFCNT_FINDING__LEAK] == 2);
	TEST_ASSERT_VAL("two findings", stream__total(&stats) == 2);
	TEST_ASSERT_VAL("still live", stats.live_lifetimes == 2);
	TEST_ASSERT_EQUAL("steps of A", c.nr_steps, 7);
	for (int i = 0; i < 3; i++) {
		const struct refcnt_step *s = &c.steps[4 + i];

		TEST_ASSERT_VAL("put", s->ev->op == REFCNT_OP__PUT);
		TEST_ASSERT_VAL("put paired by caller", s->confidence == REFCNT_PAIR__SAME_CALLER);
		TEST_ASSERT_VAL("put released its function's ref", stream__ref_is(&s->paired,
										  paired[i]));
	}
	TEST_ASSERT_VAL("birth released", c.steps[6].paired.op == REFCNT_OP__BORN);
	return TEST_OK;
}

/* A put after the object was freed. */
int test__refcnt_pairing_double_put(struct test_suite *test __maybe_unused,
				    int subtest __maybe_unused)
{
	static const struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(20, GET,  OBJ_A, H, 0x10, 1, 1),
		EV(30, PUT,  OBJ_A, H, 0x20, 1, 2),
		EV(40, PUT,  OBJ_A, MAIN, 0x20, 1, 1),
		EV(41, DIES, OBJ_A, MAIN, 0x20, 1, 0),
		EV(50, PUT,  OBJ_A, X, 0x20, 1, 0),
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__DOUBLE_PUT, .obj = OBJ_A, .generation = 1,
		  .site = FN_X + 0x20, .op = REFCNT_OP__PUT, .other = FN_MAIN + 0x20 },
	};
	struct refcnt_engine_stats stats;
	struct collect c;

	TEST_ASSERT_VAL("findings", stream__run(evs, ARRAY_SIZE(evs), 0, &c, exp, ARRAY_SIZE(exp),
						&stats) == TEST_OK);
	TEST_ASSERT_VAL("the freeing put", c.findings[0].other.op == REFCNT_OP__PUT);
	TEST_ASSERT_VAL("counted", stats.findings[REFCNT_FINDING__DOUBLE_PUT] == 1);
	TEST_ASSERT_VAL("one finding", stream__total(&stats) == 1);
	TEST_ASSERT_VAL("dead", stats.live_lifetimes == 0);
	return TEST_OK;
}

/*
 * An extra put in X takes the reference H holds: main's put frees the
 * object, and H's put comes after. The culprit is X's put, the first one
 * that matched no reference of its own function.
 */
int test__refcnt_pairing_over_release(struct test_suite *test __maybe_unused,
				      int subtest __maybe_unused)
{
	static const struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(20, GET,  OBJ_A, H, 0x10, 1, 1),
		EV(30, PUT,  OBJ_A, X, 0x20, 1, 2),
		EV(40, PUT,  OBJ_A, MAIN, 0x20, 1, 1),
		EV(41, DIES, OBJ_A, MAIN, 0x20, 1, 0),
		EV(50, PUT,  OBJ_A, H, 0x20, 1, 0),
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__DOUBLE_PUT, .obj = OBJ_A, .generation = 1,
		  .site = FN_H + 0x20, .op = REFCNT_OP__PUT, .other = FN_MAIN + 0x20,
		  .culprit = FN_X + 0x20 },
	};
	struct refcnt_engine_stats stats;
	struct collect c;

	TEST_ASSERT_VAL("findings", stream__run(evs, ARRAY_SIZE(evs), 0, &c, exp, ARRAY_SIZE(exp),
						&stats) == TEST_OK);
	TEST_ASSERT_VAL("culprit is a put", c.findings[0].culprit.op == REFCNT_OP__PUT);
	TEST_ASSERT_VAL("one finding", stream__total(&stats) == 1);
	return TEST_OK;
}

/*
 * An object born before recording, holding one reference: two puts and no
 * dies. The first put releases the inherited reference, the second finds
 * nothing to release.
 */
int test__refcnt_pairing_over_release_live(struct test_suite *test __maybe_unused,
					   int subtest __maybe_unused)
{
	static const struct refcnt_event evs[] = {
		EV(10, PUT, OBJ_A, F, 0x20, 1, 1),
		EV(20, PUT, OBJ_A, X, 0x20, 1, 0),
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__OVER_RELEASE, .obj = OBJ_A, .generation = 1,
		  .site = FN_X + 0x20, .op = REFCNT_OP__PUT },
	};
	struct refcnt_engine_stats stats;
	struct collect c;

	TEST_ASSERT_VAL("findings", stream__run(evs, ARRAY_SIZE(evs), OBJ_A, &c, exp,
						ARRAY_SIZE(exp), &stats) == TEST_OK);
	TEST_ASSERT_VAL("one finding", stream__total(&stats) == 1);
	TEST_ASSERT_VAL("one live lifetime", stats.objects[0] == 1 && stats.live_lifetimes == 1);
	TEST_ASSERT_EQUAL("steps", c.nr_steps, 2);
	TEST_ASSERT_VAL("inherited ref released exactly",
			c.steps[0].confidence == REFCNT_PAIR__EXACT &&
			c.steps[0].paired.op == REFCNT_OP__MAX &&
			c.steps[0].before == 1 && c.steps[0].after == 0);
	TEST_ASSERT_VAL("nothing to release", c.steps[1].confidence == REFCNT_PAIR__NONE &&
			c.steps[1].finding == REFCNT_FINDING__OVER_RELEASE);
	return TEST_OK;
}

/*
 * A get after the object was freed; the put that balances it is not a
 * second finding.
 */
int test__refcnt_pairing_use_after_put(struct test_suite *test __maybe_unused,
				       int subtest __maybe_unused)
{
	static const struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(20, PUT,  OBJ_A, MAIN, 0x20, 1, 1),
		EV(21, DIES, OBJ_A, MAIN, 0x20, 1, 0),
		EV(30, GET,  OBJ_A, X, 0x10, 2, 0),
		EV(40, PUT,  OBJ_A, X, 0x20, 2, 1),
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__USE_AFTER_PUT, .obj = OBJ_A, .generation = 1,
		  .site = FN_X + 0x10, .op = REFCNT_OP__GET, .other = FN_MAIN + 0x20 },
	};
	struct refcnt_engine_stats stats;
	struct collect c;

	TEST_ASSERT_VAL("findings", stream__run(evs, ARRAY_SIZE(evs), 0, &c, exp, ARRAY_SIZE(exp),
						&stats) == TEST_OK);
	TEST_ASSERT_VAL("not resurrected", stats.live_lifetimes == 0 && stats.objects[0] == 1);
	TEST_ASSERT_VAL("one finding", stream__total(&stats) == 1);
	return TEST_OK;
}

/* How many findings of @c are of @kind on @obj. */
static int collect__count(const struct collect *c, u64 obj, enum refcnt_finding_kind kind)
{
	int n = 0;

	for (int i = 0; i < c->nr_findings; i++)
		n += c->findings[i].obj == obj && c->findings[i].kind == kind;
	return n;
}

/*
 * A use after put on a lifetime that a double put shows died early is a
 * consequence of the extra put, as a use after free follows a double free:
 * X puts A twice, Y's get (before the double put that tells it) and its
 * second one (after) are A's. B dies clean, and Y's get on it is a bug of
 * its own. Without a double put, nothing tells B's death was early.
 */
int test__refcnt_pairing_after_extra_put(struct test_suite *test __maybe_unused,
					 int subtest __maybe_unused)
{
	static const struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, GET,  OBJ_A, X, 0x10, 1, 1),
		EV(12, PUT,  OBJ_A, X, 0x20, 1, 2),
		EV(13, PUT,  OBJ_A, X, 0x28, 1, 1),
		EV(14, DIES, OBJ_A, X, 0x28, 1, 0),
		EV(20, GET,  OBJ_A, Y, 0x10, 2, 0),
		EV(21, PUT,  OBJ_A, Y, 0x20, 2, 1),
		EV(30, PUT,  OBJ_A, MAIN, 0x20, 1, 0),
		EV(40, GET,  OBJ_A, Y, 0x10, 2, 0),
		EV(50, BORN, OBJ_B, MAIN, 0x30, 1, 1),
		EV(51, PUT,  OBJ_B, MAIN, 0x38, 1, 1),
		EV(52, DIES, OBJ_B, MAIN, 0x38, 1, 0),
		EV(60, GET,  OBJ_B, Y, 0x10, 2, 0),
	};
	struct collect c;

	TEST_ASSERT_VAL("feed", !stream__collect(evs, ARRAY_SIZE(evs), 0, &c));

	TEST_ASSERT_EQUAL("A's double put", collect__count(&c, OBJ_A, REFCNT_FINDING__DOUBLE_PUT),
			  1);
	TEST_ASSERT_EQUAL("A's uses, its consequences",
			  collect__count(&c, OBJ_A, REFCNT_FINDING__AFTER_EXTRA_PUT), 2);
	TEST_ASSERT_EQUAL("A's uses, no bugs",
			  collect__count(&c, OBJ_A, REFCNT_FINDING__USE_AFTER_PUT), 0);
	TEST_ASSERT_EQUAL("B's use, a bug",
			  collect__count(&c, OBJ_B, REFCNT_FINDING__USE_AFTER_PUT), 1);
	TEST_ASSERT_EQUAL("findings", c.nr_findings, 4);
	TEST_ASSERT_VAL("kind name",
			!strcmp(refcnt_finding_kind__name(REFCNT_FINDING__AFTER_EXTRA_PUT),
				"after an extra put"));
	TEST_ASSERT_VAL("no bug", !refcnt_finding__is_bug(REFCNT_FINDING__AFTER_EXTRA_PUT));
	return TEST_OK;
}

/*
 * The engine keeps the uses after put of a dead lifetime until a double
 * put tells what they are. X's put frees A early; Y gets and puts the dead
 * A from more different stacks than the engine keeps, and 300 times from
 * one more, which it keeps once; MAIN's put, a double put, shows A died
 * early. The kept ones, all 300 repeats too, are its consequences; those
 * past the bound were told at once, before it, as uncertain uses after
 * put, and the report's counter says how many.
 */
int test__refcnt_pairing_deferred_uses_bound(struct test_suite *test __maybe_unused,
					     int subtest __maybe_unused)
{
	/* one kept for the repeats, the others for a stack each */
	const int extra = 3, stacks = REFCNT_DEFERRED_USES_MAX - 1 + extra, repeats = 300;
	struct refcnt_engine_stats before, stats;
	struct refcnt_event *evs;
	struct refcnt_engine *engine;
	struct collect c;
	int nr = 0, err;

	evs = calloc(4 + 2 * (stacks + repeats), sizeof(*evs));
	TEST_ASSERT_VAL("events", evs);
	evs[nr++] = (struct refcnt_event)EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1);
	evs[nr++] = (struct refcnt_event)EV(11, PUT, OBJ_A, X, 0x28, 1, 1);
	evs[nr++] = (struct refcnt_event)EV(12, DIES, OBJ_A, X, 0x28, 1, 0);
	for (int i = 0; i < repeats + stacks; i++) {
		/* the first ones from one stack again and again, then each from one */
		u32 stack = 1000 + max(i - repeats, -1);

		evs[nr] = (struct refcnt_event)EV(20 + 2 * i, GET, OBJ_A, Y, 0x10, 2, 0);
		evs[nr++].stack = stack;
		evs[nr] = (struct refcnt_event)EV(21 + 2 * i, PUT, OBJ_A, Y, 0x20, 2, 1);
		evs[nr++].stack = stack;
	}
	evs[nr++] = (struct refcnt_event)EV(30 + 2 * (stacks + repeats), PUT, OBJ_A, MAIN, 0x20,
					    1, 0);

	memset(&c, 0, sizeof(c));
	engine = refcnt_engine__new(&stream__ops, &c);
	if (!engine) {
		free(evs);
		TEST_ASSERT_VAL("engine", engine);
	}
	/* all but the double put */
	err = stream__feed(engine, evs, nr - 1);
	before = *refcnt_engine__stats(engine);
	if (!err)
		err = stream__feed(engine, evs + nr - 1, 1);
	free(evs);
	if (!err)
		refcnt_engine__end(engine);
	stats = *refcnt_engine__stats(engine);
	refcnt_engine__delete(engine);
	TEST_ASSERT_VAL("feed", !err);

	TEST_ASSERT_EQUAL("past the bound, told at once",
			  (int)before.findings[REFCNT_FINDING__USE_AFTER_PUT], extra);
	TEST_ASSERT_EQUAL("and counted", (int)before.uses_unkept, extra);
	TEST_ASSERT_EQUAL("the others kept",
			  (int)before.findings[REFCNT_FINDING__AFTER_EXTRA_PUT], 0);
	TEST_ASSERT_EQUAL("the double put", (int)stats.findings[REFCNT_FINDING__DOUBLE_PUT], 1);
	TEST_ASSERT_EQUAL("kept, repeats too, its consequences",
			  (int)stats.findings[REFCNT_FINDING__AFTER_EXTRA_PUT],
			  repeats + REFCNT_DEFERRED_USES_MAX - 1);
	TEST_ASSERT_EQUAL("no more uses after put",
			  (int)stats.findings[REFCNT_FINDING__USE_AFTER_PUT], extra);
	TEST_ASSERT_EQUAL("those uncertain", (int)stats.uncertain, extra);
	return TEST_OK;
}

/*
 * Two lifetimes at one address: the first is clean, the second leaks. The
 * leak is the second generation's only.
 */
int test__refcnt_pairing_address_reuse(struct test_suite *test __maybe_unused,
				       int subtest __maybe_unused)
{
	static const struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(20, GET,  OBJ_A, X, 0x10, 1, 1),
		EV(30, PUT,  OBJ_A, X, 0x20, 1, 2),
		EV(40, PUT,  OBJ_A, MAIN, 0x20, 1, 1),
		EV(41, DIES, OBJ_A, MAIN, 0x20, 1, 0),
		EV(50, BORN, OBJ_A, G, 0x10, 1, 1),
		EV(60, GET,  OBJ_A, X, 0x10, 1, 1),
		EV(70, PUT,  OBJ_A, G, 0x20, 1, 2),
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_A, .generation = 2,
		  .site = FN_X + 0x10, .op = REFCNT_OP__GET },
	};
	struct refcnt_engine_stats stats;
	struct collect c;

	TEST_ASSERT_VAL("findings", stream__run(evs, ARRAY_SIZE(evs), OBJ_A, &c, exp,
						ARRAY_SIZE(exp), &stats) == TEST_OK);
	TEST_ASSERT_VAL("two lifetimes", stats.objects[0] == 2 && stats.live_lifetimes == 1);
	TEST_ASSERT_VAL("no missed dies", stats.missed_dies == 0);
	TEST_ASSERT_EQUAL("steps", c.nr_steps, (int)ARRAY_SIZE(evs));
	for (int i = 0; i < c.nr_steps; i++)
		TEST_ASSERT_EQUAL("generation", (int)c.steps[i].generation, (i < 5 ? 1 : 2));
	TEST_ASSERT_VAL("gen 2 born from zero", c.steps[5].before == 0 && c.steps[5].after == 1);
	return TEST_OK;
}

static int event__cmp_time(const void *a, const void *b)
{
	const struct refcnt_event *ea = a, *eb = b;

	return ea->time < eb->time ? -1 : ea->time > eb->time;
}

/*
 * A reference handed over between threads: taken in P on thread 1, put in
 * C on thread 2; and one taken in H and put in G, both on thread 2. The
 * events come shuffled, as per-CPU buffers give them, and one of them
 * twice: fed as they are, the engine counts them out of order; sorted by
 * time, it pairs them, and ignores the duplicate.
 */
int test__refcnt_pairing_threads(struct test_suite *test __maybe_unused,
				 int subtest __maybe_unused)
{
	static const struct refcnt_event shuffled[] = {
		EV(40, PUT,  OBJ_A, W, 0x20, 2, 3),
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(30, GET,  OBJ_A, W, 0x10, 2, 2),
		EV(20, GET,  OBJ_A, P, 0x10, 1, 1),
		EV(50, PUT,  OBJ_A, C, 0x20, 2, 2),
		EV(50, PUT,  OBJ_A, C, 0x20, 2, 2),	/* the same sample twice */
		EV(15, BORN, OBJ_B, MAIN, 0x18, 1, 1),
		EV(60, PUT,  OBJ_A, MAIN, 0x20, 1, 1),
		EV(61, DIES, OBJ_A, MAIN, 0x20, 1, 0),
		EV(35, GET,  OBJ_B, H, 0x10, 2, 1),
		EV(45, PUT,  OBJ_B, G, 0x20, 2, 2),
		EV(70, PUT,  OBJ_B, MAIN, 0x28, 1, 1),
		EV(71, DIES, OBJ_B, MAIN, 0x28, 1, 0),
	};
	/* what each put released, and how sure, in time order */
	static const struct {
		u64	obj;
		u64	site;
		u32	tid;
		enum refcnt_confidence conf;
	} puts[] = {
		{ OBJ_A, FN_W + 0x10,    2, REFCNT_PAIR__SAME_CALLER },
		{ OBJ_B, FN_H + 0x10,    2, REFCNT_PAIR__SAME_THREAD },
		{ OBJ_A, FN_P + 0x10,    1, REFCNT_PAIR__MOST_RECENT },
		{ OBJ_A, FN_MAIN + 0x10, 1, REFCNT_PAIR__EXACT },
		{ OBJ_B, FN_MAIN + 0x18, 1, REFCNT_PAIR__EXACT },
	};
	struct refcnt_event evs[ARRAY_SIZE(shuffled)];
	struct refcnt_engine_stats stats;
	struct refcnt_engine *engine;
	struct collect c;
	int p = 0, err;

	/* unsorted: 40 then 10, 30, 20; 50 then 15; 61 then 35, 45 */
	engine = refcnt_engine__new(&stream__ops, &c);
	TEST_ASSERT_VAL("engine", engine);
	memset(&c, 0, sizeof(c));
	err = stream__feed(engine, shuffled, ARRAY_SIZE(shuffled));
	refcnt_engine__end(engine);
	stats = *refcnt_engine__stats(engine);
	refcnt_engine__delete(engine);
	TEST_ASSERT_EQUAL("fed unsorted", err, 0);
	TEST_ASSERT_EQUAL("out of order", (int)stats.out_of_order, 6);
	TEST_ASSERT_VAL("all processed", stats.events == ARRAY_SIZE(shuffled));

	memcpy(evs, shuffled, sizeof(evs));
	qsort(evs, ARRAY_SIZE(evs), sizeof(evs[0]), event__cmp_time);

	engine = refcnt_engine__new(&stream__ops, &c);
	TEST_ASSERT_VAL("engine", engine);
	memset(&c, 0, sizeof(c));
	err = refcnt_engine__follow(engine, OBJ_A);
	if (!err)
		err = refcnt_engine__follow(engine, OBJ_B);
	if (!err)
		err = stream__feed(engine, evs, ARRAY_SIZE(evs));
	refcnt_engine__end(engine);
	stats = *refcnt_engine__stats(engine);
	refcnt_engine__delete(engine);
	TEST_ASSERT_EQUAL("fed sorted", err, 0);
	TEST_ASSERT_EQUAL("in order", (int)stats.out_of_order, 0);
	TEST_ASSERT_EQUAL("duplicate ignored", (int)stats.duplicates, 1);
	TEST_ASSERT_VAL("no findings", stream__check(&c, NULL, 0) == TEST_OK);
	TEST_ASSERT_VAL("no findings counted", stream__total(&stats) == 0);
	TEST_ASSERT_VAL("both freed", stats.live_lifetimes == 0 && stats.objects[0] == 2);

	TEST_ASSERT_EQUAL("a step per event but the duplicate", c.nr_steps,
			  (int)ARRAY_SIZE(evs) - 1);
	for (int i = 0; i < c.nr_steps; i++) {
		const struct refcnt_step *s = &c.steps[i];

		if (s->ev->op != REFCNT_OP__PUT)
			continue;
		pr_debug("  put %d\n", p);
		TEST_ASSERT_VAL("put", p < (int)ARRAY_SIZE(puts));
		TEST_ASSERT_VAL("obj", s->ev->obj == puts[p].obj);
		TEST_ASSERT_EQUAL("confidence", (int)s->confidence, (int)puts[p].conf);
		TEST_ASSERT_VAL("paired", stream__ref_is(&s->paired, puts[p].site));
		TEST_ASSERT_EQUAL("paired tid", (int)s->paired.tid, (int)puts[p].tid);
		p++;
	}
	TEST_ASSERT_EQUAL("puts", p, (int)ARRAY_SIZE(puts));
	return TEST_OK;
}

/*
 * Objects born before recording: first seen at a get with live 3, balanced
 * gets and puts are no leak, and what they held when we first saw them is
 * owned at exit, of unknown origin. One first seen without a live count is
 * the same, but uncertain: we guessed its count.
 */
int test__refcnt_pairing_born_before(struct test_suite *test __maybe_unused,
				     int subtest __maybe_unused)
{
	static const struct refcnt_event evs[] = {
		EV(10, GET, OBJ_A, G, 0x10, 1, 3),
		EV(20, GET, OBJ_B, F, 0x10, 1, UNK),
		EV(30, PUT, OBJ_A, G, 0x20, 1, 4),
		EV(40, GET, OBJ_A, H, 0x10, 2, 3),
		EV(50, PUT, OBJ_A, H, 0x20, 2, 4),
		EV(60, PUT, OBJ_B, F, 0x20, 1, UNK),
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__OWNED_AT_EXIT, .obj = OBJ_A, .generation = 1,
		  .site = FN_G + 0x10, .op = REFCNT_OP__MAX },
		{ .kind = REFCNT_FINDING__OWNED_AT_EXIT, .obj = OBJ_B, .generation = 1,
		  .site = FN_F + 0x10, .op = REFCNT_OP__MAX, .uncertain = true },
	};
	struct refcnt_engine_stats stats;
	struct collect c;

	TEST_ASSERT_VAL("findings", stream__run(evs, ARRAY_SIZE(evs), OBJ_A, &c, exp,
						ARRAY_SIZE(exp), &stats) == TEST_OK);
	TEST_ASSERT_VAL("no leak", stats.findings[REFCNT_FINDING__LEAK] == 0);
	TEST_ASSERT_VAL("counted", stats.findings[REFCNT_FINDING__OWNED_AT_EXIT] == 2 &&
			stats.uncertain == 1);
	TEST_ASSERT_EQUAL("steps", c.nr_steps, 4);
	TEST_ASSERT_VAL("inherited 3", c.steps[0].before == 3 && c.steps[0].after == 4);
	TEST_ASSERT_VAL("its get released", c.steps[1].confidence == REFCNT_PAIR__SAME_CALLER &&
			stream__ref_is(&c.steps[1].paired,
				       FN_G + 0x10) && c.steps[1].paired.op == REFCNT_OP__GET);
	TEST_ASSERT_VAL("back to 3", c.steps[3].after == 3);
	return TEST_OK;
}

/*
 * Events are lost while A and D are live: A's count disagrees with the live
 * refcount afterwards (a put was lost) and is resynced without a mismatch;
 * its leak is uncertain. B, first seen after the loss, is uncertain too;
 * C, born after it, is not. E died before the loss: a put on it after the
 * loss may be on a rebirth we lost, so the double put is uncertain.
 */
int test__refcnt_pairing_lost(struct test_suite *test __maybe_unused,
			      int subtest __maybe_unused)
{
	static const struct refcnt_event before[] = {
		EV(5,  BORN, OBJ_E, MAIN, 0x10, 1, 1),
		EV(6,  PUT,  OBJ_E, MAIN, 0x20, 1, 1),
		EV(7,  DIES, OBJ_E, MAIN, 0x20, 1, 0),
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(20, GET,  OBJ_A, X, 0x10, 1, 1),
		EV(25, BORN, OBJ_D, MAIN, 0x18, 1, 1),
	};
	static const struct refcnt_event after[] = {
		EV(40, GET,  OBJ_A, G, 0x10, 1, 1),	/* we count 2 */
		EV(50, PUT,  OBJ_A, G, 0x20, 1, 2),
		EV(55, GET,  OBJ_D, F, 0x10, 1, 5),	/* we count 1 */
		EV(60, GET,  OBJ_B, H, 0x10, 1, 2),
		EV(70, PUT,  OBJ_B, H, 0x20, 1, 3),
		EV(80, BORN, OBJ_C, MAIN, 0x10, 1, 1),
		EV(90, GET,  OBJ_C, X, 0x10, 1, 1),
		EV(95, PUT,  OBJ_E, X, 0x20, 1, 0),
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__DOUBLE_PUT, .obj = OBJ_E, .generation = 1,
		  .site = FN_X + 0x20, .op = REFCNT_OP__PUT, .other = FN_MAIN + 0x20,
		  .uncertain = true },
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_A, .generation = 1,
		  .site = FN_X + 0x10, .op = REFCNT_OP__GET, .uncertain = true },
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_D, .generation = 1,
		  .site = FN_F + 0x10, .op = REFCNT_OP__GET, .uncertain = true },
		{ .kind = REFCNT_FINDING__OWNED_AT_EXIT, .obj = OBJ_B, .generation = 1,
		  .site = FN_H + 0x10, .op = REFCNT_OP__MAX, .uncertain = true },
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_C, .generation = 1,
		  .site = FN_X + 0x10, .op = REFCNT_OP__GET },
	};
	struct refcnt_engine_stats stats;
	struct refcnt_engine *engine;
	struct collect c;
	int err;

	engine = refcnt_engine__new(&stream__ops, &c);
	TEST_ASSERT_VAL("engine", engine);
	memset(&c, 0, sizeof(c));
	err = stream__feed(engine, before, ARRAY_SIZE(before));
	refcnt_engine__lost(engine, 30, 2);
	if (!err)
		err = stream__feed(engine, after, ARRAY_SIZE(after));
	refcnt_engine__end(engine);
	stats = *refcnt_engine__stats(engine);
	refcnt_engine__delete(engine);

	TEST_ASSERT_EQUAL("feeding", err, 0);
	TEST_ASSERT_VAL("findings", stream__check(&c, exp, ARRAY_SIZE(exp)) == TEST_OK);
	TEST_ASSERT_VAL("no mismatch", stats.findings[REFCNT_FINDING__MISMATCH] == 0);
	TEST_ASSERT_VAL("uncertain counted", stats.uncertain == 4);
	TEST_ASSERT_VAL("one window", stats.lost_windows == 1);
	return TEST_OK;
}

/*
 * A: the live refcount says 3 where we count 2 (a get was missed), and
 * the next read confirms it: one mismatch, then the count follows the live
 * one and balanced operations find nothing more. B: two confirmed
 * disagreements, one mismatch. C: freed while we count references. D: X's
 * put was missed; the oldest reference is dropped and, main's put
 * releasing what is left, nothing leaks. E: two reads on thread 1 do not
 * see the get thread 2's probe fired just before, not yet done: a race
 * that explains them, no mismatch; the same reads once thread 2 has been
 * seen again (C's second lifetime), in E's second lifetime, are a missed
 * get. F: a put finds nothing we
 * counted while the live refcount says 1: a mismatch at once, not an
 * over-release.
 */
int test__refcnt_pairing_mismatch(struct test_suite *test __maybe_unused,
				  int subtest __maybe_unused)
{
	static const struct refcnt_event evs[] = {
		EV(10,  BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(20,  GET,  OBJ_A, F, 0x10, 1, 1),
		EV(30,  GET,  OBJ_A, G, 0x10, 1, 3),
		EV(40,  PUT,  OBJ_A, G, 0x20, 1, 4),
		EV(50,  PUT,  OBJ_A, F, 0x20, 1, 3),
		EV(60,  PUT,  OBJ_A, MAIN, 0x20, 1, 2),
		EV(70,  PUT,  OBJ_A, X, 0x20, 1, 1),
		EV(71,  DIES, OBJ_A, X, 0x20, 1, 0),
		EV(100, BORN, OBJ_B, MAIN, 0x10, 1, 1),
		EV(110, GET,  OBJ_B, F, 0x10, 1, 1),
		EV(120, GET,  OBJ_B, F, 0x10, 1, 5),
		EV(125, GET,  OBJ_B, F, 0x10, 1, 6),
		EV(130, PUT,  OBJ_B, F, 0x20, 1, 3),
		EV(135, PUT,  OBJ_B, F, 0x20, 1, 2),
		EV(140, PUT,  OBJ_B, F, 0x20, 1, 1),
		EV(141, DIES, OBJ_B, F, 0x20, 1, 0),
		EV(200, BORN, OBJ_C, MAIN, 0x10, 1, 1),
		EV(210, GET,  OBJ_C, F, 0x10, 1, 1),
		EV(220, DIES, OBJ_C, X, 0x30, 1, UNK),
		EV(300, BORN, OBJ_D, MAIN, 0x10, 1, 1),
		EV(310, GET,  OBJ_D, X, 0x10, 1, 1),
		EV(320, GET,  OBJ_D, G, 0x10, 1, 1),
		EV(330, PUT,  OBJ_D, G, 0x20, 1, 2),
		EV(340, PUT,  OBJ_D, MAIN, 0x20, 1, 1),
		EV(400, BORN, OBJ_E, MAIN, 0x10, 1, 1),
		EV(410, GET,  OBJ_E, F, 0x10, 1, 1),
		EV(420, GET,  OBJ_E, G, 0x10, 2, 2),
		EV(430, PUT,  OBJ_E, F, 0x20, 1, 2),	/* G's get not landed yet */
		EV(435, GET,  OBJ_E, F, 0x30, 1, 1),	/* still not */
		EV(440, PUT,  OBJ_E, G, 0x20, 2, 3),
		EV(445, PUT,  OBJ_E, F, 0x40, 1, 2),
		EV(450, PUT,  OBJ_E, MAIN, 0x20, 1, 1),
		EV(451, DIES, OBJ_E, MAIN, 0x20, 1, 0),
		EV(500, BORN, OBJ_F, MAIN, 0x10, 1, 1),
		EV(510, PUT,  OBJ_F, MAIN, 0x20, 1, 1),
		EV(520, PUT,  OBJ_F, X, 0x20, 1, 1),
		EV(521, DIES, OBJ_F, X, 0x20, 1, 0),
		/* E's reads after thread 2 is seen again are no race: it was missed */
		EV(600, BORN, OBJ_E, MAIN, 0x10, 1, 1),
		EV(610, GET,  OBJ_E, F, 0x10, 1, 1),
		EV(620, GET,  OBJ_E, G, 0x10, 2, 2),
		EV(650, BORN, OBJ_C, G, 0x10, 2, 1),
		EV(651, PUT,  OBJ_C, G, 0x20, 2, 1),
		EV(652, DIES, OBJ_C, G, 0x20, 2, 0),
		EV(1000700, PUT,  OBJ_E, F, 0x20, 1, 2),
		EV(1000705, GET,  OBJ_E, F, 0x30, 1, 1),
		EV(1000710, PUT,  OBJ_E, F, 0x40, 1, 2),
		EV(1000720, PUT,  OBJ_E, G, 0x20, 2, 1),
		EV(1000721, DIES, OBJ_E, G, 0x20, 2, 0),
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__MISMATCH, .obj = OBJ_A, .generation = 1,
		  .site = FN_G + 0x10, .op = REFCNT_OP__GET, .expected = 2, .live = 3 },
		{ .kind = REFCNT_FINDING__MISMATCH, .obj = OBJ_B, .generation = 1,
		  .site = FN_F + 0x10, .op = REFCNT_OP__GET, .expected = 2, .live = 5 },
		{ .kind = REFCNT_FINDING__MISMATCH, .obj = OBJ_C, .generation = 1,
		  .site = FN_X + 0x30, .op = REFCNT_OP__DIES, .expected = 2, .live = 0 },
		{ .kind = REFCNT_FINDING__MISMATCH, .obj = OBJ_D, .generation = 1,
		  .site = FN_G + 0x10, .op = REFCNT_OP__GET, .expected = 2, .live = 1 },
		{ .kind = REFCNT_FINDING__MISMATCH, .obj = OBJ_F, .generation = 1,
		  .site = FN_X + 0x20, .op = REFCNT_OP__PUT, .expected = 0, .live = 1 },
		{ .kind = REFCNT_FINDING__MISMATCH, .obj = OBJ_E, .generation = 2,
		  .site = FN_F + 0x20, .op = REFCNT_OP__PUT, .expected = 3, .live = 2 },
	};
	struct refcnt_engine_stats stats;
	struct collect c;

	TEST_ASSERT_VAL("findings", stream__run(evs, ARRAY_SIZE(evs), OBJ_A, &c, exp,
						ARRAY_SIZE(exp), &stats) == TEST_OK);
	TEST_ASSERT_VAL("counted", stats.findings[REFCNT_FINDING__MISMATCH] == 6 &&
			stream__total(&stats) == 6);
	TEST_ASSERT_VAL("all freed but D", stats.live_lifetimes == 1);
	TEST_ASSERT_EQUAL("steps", c.nr_steps, 8);
	TEST_ASSERT_VAL("first disagreement", c.steps[2].finding == REFCNT_FINDING__MAX &&
			c.steps[2].before == 2 && c.steps[2].after == 3);
	TEST_ASSERT_VAL("confirmed", c.steps[3].finding == REFCNT_FINDING__MISMATCH &&
			c.steps[3].before == 3 && c.steps[3].after == 3);
	TEST_ASSERT_VAL("resynced: the last put releases the missed get's ref",
			c.steps[6].confidence == REFCNT_PAIR__EXACT &&
			c.steps[6].paired.op == REFCNT_OP__MAX && c.steps[6].after == 0);
	return TEST_OK;
}

/*
 * --history: every step of A, through two generations, with the counts
 * before and after and how each put was paired; B's steps are not given.
 * In generation 2, the reference taken in H, called from F, is released by
 * the put in F: F is one frame above H's get.
 */
int test__refcnt_pairing_follow(struct test_suite *test __maybe_unused,
				int subtest __maybe_unused)
{
	static const struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, BORN, OBJ_B, MAIN, 0x18, 1, 1),
		EV(20, GET,  OBJ_A, F, 0x10, 1, 1),
		EV(30, GET,  OBJ_A, X, 0x10, 1, 2),
		EV(31, GET,  OBJ_B, X, 0x10, 1, 1),
		EV(40, PUT,  OBJ_A, F, 0x20, 1, 3),
		EV(50, PUT,  OBJ_A, X, 0x20, 1, 2),
		EV(60, PUT,  OBJ_A, MAIN, 0x20, 1, 1),
		EV(61, DIES, OBJ_A, MAIN, 0x20, 1, 0),
		EV(70, PUT,  OBJ_A, G, 0x20, 1, 0),
		EV(80, BORN, OBJ_A, MAIN, 0x30, 1, 1),
		{ .time = 90, .op = REFCNT_OP__GET, .obj = OBJ_A, .site = FN_H + 0x10,
		  .caller = FN_H, .up = { FN_F }, .stack = FN_H >> 4, .tid = 1,
		  .live = 1 },
		EV(100, PUT, OBJ_A, F, 0x40, 1, 2),
	};
	static const struct {
		enum refcnt_op op;
		int gen, before, after;
		enum refcnt_confidence conf;
		u64 paired;
		enum refcnt_finding_kind finding;
	} steps[] = {
		STEP(BORN, 1, 0, 1, NONE, 0, MAX),
		STEP(GET, 1, 1, 2, NONE, 0, MAX),
		STEP(GET, 1, 2, 3, NONE, 0, MAX),
		STEP(PUT, 1, 3, 2, SAME_CALLER, FN_F + 0x10, MAX),
		STEP(PUT, 1, 2, 1, SAME_CALLER, FN_X + 0x10, MAX),
		STEP(PUT, 1, 1, 0, EXACT, FN_MAIN + 0x10, MAX),
		STEP(DIES, 1, 0, 0, NONE, 0, MAX),
		STEP(PUT, 1, 0, 0, NONE, 0, DOUBLE_PUT),
		STEP(BORN, 2, 0, 1, NONE, 0, MAX),
		STEP(GET, 2, 1, 2, NONE, 0, MAX),
		STEP(PUT, 2, 2, 1, SAME_CALLER, FN_H + 0x10, MAX),
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__DOUBLE_PUT, .obj = OBJ_A, .generation = 1,
		  .site = FN_G + 0x20, .op = REFCNT_OP__PUT, .other = FN_MAIN + 0x20 },
		/* at the end, by start of lifetime: B's before A's second */
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_B, .generation = 1,
		  .site = FN_X + 0x10, .op = REFCNT_OP__GET },
		{ .kind = REFCNT_FINDING__OWNED_AT_EXIT, .obj = OBJ_A, .generation = 2,
		  .site = FN_MAIN + 0x30, .op = REFCNT_OP__BORN },
	};
	struct refcnt_engine_stats stats;
	struct collect c;

	TEST_ASSERT_VAL("findings", stream__run(evs, ARRAY_SIZE(evs), OBJ_A, &c, exp,
						ARRAY_SIZE(exp), &stats) == TEST_OK);
	TEST_ASSERT_EQUAL("steps of A only", c.nr_steps, (int)ARRAY_SIZE(steps));
	for (int i = 0; i < c.nr_steps; i++) {
		const struct refcnt_step *s = &c.steps[i];

		pr_debug("  checking step %d\n", i);
		TEST_ASSERT_VAL("obj", s->ev->obj == OBJ_A);
		TEST_ASSERT_EQUAL("op", (int)s->ev->op, (int)steps[i].op);
		TEST_ASSERT_EQUAL("generation", (int)s->generation, steps[i].gen);
		TEST_ASSERT_EQUAL("before", s->before, steps[i].before);
		TEST_ASSERT_EQUAL("after", s->after, steps[i].after);
		TEST_ASSERT_EQUAL("confidence", (int)s->confidence, (int)steps[i].conf);
		if (steps[i].paired)
			TEST_ASSERT_VAL("paired", stream__ref_is(&s->paired, steps[i].paired));
		TEST_ASSERT_EQUAL("finding", (int)s->finding, (int)steps[i].finding);
	}
	TEST_ASSERT_VAL("paired through the frame above",
			c.steps[10].paired.site == FN_H + 0x10 && c.steps[10].paired.up[0] == FN_F);
	TEST_ASSERT_VAL("confidence name",
			!strcmp(refcnt_confidence__name(REFCNT_PAIR__SAME_CALLER), "same caller"));
	TEST_ASSERT_VAL("finding name", !strcmp(refcnt_finding_kind__name(REFCNT_FINDING__LEAK),
						"leak"));
	return TEST_OK;
}

/*
 * A constructor returning what an inner one made is one birth, at the
 * outer call site. A birth at a live address, or another type's object
 * there, ends the lifetime as if its dies had been seen, silently.
 */
int test__refcnt_pairing_rebirth(struct test_suite *test __maybe_unused,
				 int subtest __maybe_unused)
{
	static const struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, G, 0x10, 1, 1),
		EV(11, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(20, GET,  OBJ_A, X, 0x10, 1, 1),
		EV(30, PUT,  OBJ_A, X, 0x20, 1, 2),
		EV(40, BORN, OBJ_A, MAIN, 0x20, 1, 1),
		EV(50, BORN, OBJ_B, MAIN, 0x18, 1, 1),
		EV(60, GET,  OBJ_B, F, 0x10, 1, 1),
		{ .time = 70, .op = REFCNT_OP__GET, .obj = OBJ_B, .site = FN_H + 0x10,
		  .caller = FN_H, .stack = FN_H >> 4, .tid = 1, .live = 1, .type = 2 },
		{ .time = 80, .op = REFCNT_OP__PUT, .obj = OBJ_B, .site = FN_H + 0x20,
		  .caller = FN_H, .stack = FN_H >> 4, .tid = 1, .live = 2, .type = 2 },
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__OWNED_AT_EXIT, .obj = OBJ_A, .generation = 2,
		  .site = FN_MAIN + 0x20, .op = REFCNT_OP__BORN },
		{ .kind = REFCNT_FINDING__OWNED_AT_EXIT, .type = 2, .obj = OBJ_B, .generation = 2,
		  .site = FN_H + 0x10, .op = REFCNT_OP__MAX },
	};
	struct refcnt_engine_stats stats;
	struct collect c;

	TEST_ASSERT_VAL("findings", stream__run(evs, ARRAY_SIZE(evs), OBJ_A, &c, exp,
						ARRAY_SIZE(exp), &stats) == TEST_OK);
	TEST_ASSERT_EQUAL("missed dies", (int)stats.missed_dies, 2);
	TEST_ASSERT_VAL("lifetimes", stats.objects[0] == 3 && stats.objects[2] == 1);
	TEST_ASSERT_VAL("live", stats.live_lifetimes == 2);
	TEST_ASSERT_EQUAL("steps", c.nr_steps, 5);
	TEST_ASSERT_VAL("outer birth", c.steps[1].generation == 1 && c.steps[1].before == 1 &&
			c.steps[1].after == 1);
	TEST_ASSERT_VAL("X's put released the get", stream__ref_is(&c.steps[3].paired,
								   FN_X + 0x10));
	TEST_ASSERT_VAL("reborn", c.steps[4].generation == 2 && c.steps[4].before == 0 &&
			c.steps[4].after == 1);
	return TEST_OK;
}

/*
 * Reads racing with other threads: in a burst, a get's read on thread 2
 * lags thread 1's get, and thread 2's put lags it again, by the same
 * difference, which would confirm a mismatch; but thread 1 has not been
 * seen since its get, which may not have landed, so A has no finding. B's
 * get on thread 2 really was missed: read when no other thread's operation
 * can be in flight, the difference is confirmed by the next read and
 * reported once.
 */
int test__refcnt_pairing_racing_reads(struct test_suite *test __maybe_unused,
				      int subtest __maybe_unused)
{
	static const struct refcnt_event evs[] = {
		EV(1000,     BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(2000,     GET,  OBJ_A, F, 0x10, 1, 1),
		EV(2100,     GET,  OBJ_A, G, 0x10, 2, 1),	/* F's get in flight */
		EV(2200,     PUT,  OBJ_A, G, 0x20, 2, 2),	/* still in flight */
		EV(5000000,  PUT,  OBJ_A, F, 0x20, 1, 2),
		EV(6000000,  PUT,  OBJ_A, MAIN, 0x20, 1, 1),
		EV(6000001,  DIES, OBJ_A, MAIN, 0x20, 1, 0),
		EV(10000000, BORN, OBJ_B, MAIN, 0x10, 1, 1),
		EV(20000000, GET,  OBJ_B, F, 0x10, 2, 2),	/* a get was missed */
		EV(30000000, PUT,  OBJ_B, F, 0x20, 2, 3),
		EV(40000000, PUT,  OBJ_B, MAIN, 0x20, 1, 2),
		EV(50000000, PUT,  OBJ_B, X, 0x20, 1, 1),
		EV(50000001, DIES, OBJ_B, X, 0x20, 1, 0),
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__MISMATCH, .obj = OBJ_B, .generation = 1,
		  .site = FN_F + 0x10, .op = REFCNT_OP__GET, .expected = 1, .live = 2 },
	};
	struct refcnt_engine_stats stats;
	struct collect c;

	TEST_ASSERT_VAL("findings", stream__run(evs, ARRAY_SIZE(evs), 0, &c, exp, ARRAY_SIZE(exp),
						&stats) == TEST_OK);
	TEST_ASSERT_VAL("only the real mismatch", stream__total(&stats) == 1);
	TEST_ASSERT_VAL("all freed", stats.live_lifetimes == 0);
	return TEST_OK;
}

/*
 * An uncovered inlined site of type 1 was hit at time 30: the lifetimes of
 * that type live then (B) are uncertain, those of other types (A) and those
 * born after it (C) are not.
 */
/*
 * A put preempted between its probe and its decrement (seen in perf top):
 * thread 2's put of A lands milliseconds and several reads of thread 1
 * later, all one above our count, which would confirm a mismatch. Thread 2
 * is not seen again until its get of B, so its put may be in flight until
 * then: no finding. Its next read of A agrees with our count.
 */
int test__refcnt_pairing_preempted_put(struct test_suite *test __maybe_unused,
				       int subtest __maybe_unused)
{
	static const struct refcnt_event evs[] = {
		EV(100,     BORN, OBJ_B, MAIN, 0x10, 2, 1),
		EV(1000,    BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(2000,    GET,  OBJ_A, F, 0x10, 1, 1),
		EV(3000,    GET,  OBJ_A, F, 0x18, 1, 2),
		EV(4000,    PUT,  OBJ_A, G, 0x20, 2, 3),	/* lands at ~3.4 ms */
		EV(5000,    GET,  OBJ_A, F, 0x20, 1, 3),
		EV(2000000, GET,  OBJ_A, F, 0x28, 1, 4),
		EV(3000000, PUT,  OBJ_A, F, 0x30, 1, 5),
		EV(3500000, GET,  OBJ_B, G, 0x10, 2, 1),	/* thread 2 again */
		EV(3600000, PUT,  OBJ_B, G, 0x28, 2, 2),
		EV(3700000, PUT,  OBJ_B, MAIN, 0x20, 2, 1),
		EV(3700001, DIES, OBJ_B, MAIN, 0x20, 2, 0),
		EV(4000000, PUT,  OBJ_A, F, 0x30, 1, 3),
		EV(5000000, PUT,  OBJ_A, F, 0x30, 1, 2),
		EV(6000000, PUT,  OBJ_A, MAIN, 0x20, 1, 1),
		EV(6000001, DIES, OBJ_A, MAIN, 0x20, 1, 0),
	};
	struct refcnt_engine_stats stats;
	struct collect c;

	TEST_ASSERT_VAL("findings", stream__run(evs, ARRAY_SIZE(evs), 0, &c, NULL, 0,
						&stats) == TEST_OK);
	TEST_ASSERT_VAL("all freed", stats.live_lifetimes == 0);
	return TEST_OK;
}

int test__refcnt_pairing_missed(struct test_suite *test __maybe_unused,
				int subtest __maybe_unused)
{
	struct refcnt_event before[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, BORN, OBJ_B, MAIN, 0x20, 1, 1),
		EV(20, GET,  OBJ_A, X, 0x10, 1, 1),
		EV(21, GET,  OBJ_B, X, 0x10, 1, 1),
	};
	struct refcnt_event after[] = {
		EV(40, PUT,  OBJ_A, MAIN, 0x30, 1, 2),
		EV(41, PUT,  OBJ_B, MAIN, 0x30, 1, 2),
		EV(50, BORN, OBJ_C, MAIN, 0x40, 1, 1),
		EV(60, GET,  OBJ_C, X, 0x10, 1, 1),
		EV(70, PUT,  OBJ_C, MAIN, 0x50, 1, 2),
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_A, .generation = 1,
		  .site = FN_X + 0x10, .op = REFCNT_OP__GET },
		{ .kind = REFCNT_FINDING__LEAK, .type = 1, .obj = OBJ_B, .generation = 1,
		  .site = FN_X + 0x10, .op = REFCNT_OP__GET, .uncertain = true },
		{ .kind = REFCNT_FINDING__LEAK, .type = 1, .obj = OBJ_C, .generation = 1,
		  .site = FN_X + 0x10, .op = REFCNT_OP__GET },
	};
	struct refcnt_engine_stats stats;
	struct refcnt_engine *engine;
	struct collect c;
	int err;

	before[1].type = 1;
	before[3].type = 1;
	for (size_t i = 1; i < ARRAY_SIZE(after); i++)
		after[i].type = 1;

	engine = refcnt_engine__new(&stream__ops, &c);
	TEST_ASSERT_VAL("engine", engine);
	memset(&c, 0, sizeof(c));
	err = stream__feed(engine, before, ARRAY_SIZE(before));
	refcnt_engine__missed(engine, 30, 1);
	if (!err)
		err = stream__feed(engine, after, ARRAY_SIZE(after));
	refcnt_engine__end(engine);
	stats = *refcnt_engine__stats(engine);
	refcnt_engine__delete(engine);

	TEST_ASSERT_EQUAL("feeding", err, 0);
	TEST_ASSERT_VAL("findings", stream__check(&c, exp, ARRAY_SIZE(exp)) == TEST_OK);
	TEST_ASSERT_VAL("one missed op", stats.missed_ops == 1 && stats.lost_windows == 0);
	return TEST_OK;
}

/*
 * A forked child (thread 101, address space 2) has its parent's heap
 * (thread 1, space 1) at the same addresses. The child puts the two
 * references of A it inherited and frees it: the parent's own puts of A
 * are no double puts. Both then make a B at the same address: no missed
 * dies; the child's get of its B is a leak of that B only.
 */
int test__refcnt_pairing_address_spaces(struct test_suite *test __maybe_unused,
					int subtest __maybe_unused)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(20, GET,  OBJ_A, X, 0x10, 1, 1),
		EV(30, PUT,  OBJ_A, C, 0x10, 101, 2),
		EV(31, PUT,  OBJ_A, C, 0x20, 101, 1),
		EV(32, DIES, OBJ_A, C, 0x20, 101, 0),
		EV(40, PUT,  OBJ_A, X, 0x20, 1, 2),
		EV(50, PUT,  OBJ_A, MAIN, 0x20, 1, 1),
		EV(51, DIES, OBJ_A, MAIN, 0x20, 1, 0),
		EV(60, BORN, OBJ_B, C, 0x30, 101, 1),
		EV(61, BORN, OBJ_B, MAIN, 0x30, 1, 1),
		EV(70, GET,  OBJ_B, X, 0x10, 101, 1),
		EV(80, PUT,  OBJ_B, MAIN, 0x40, 1, 1),
		EV(81, DIES, OBJ_B, MAIN, 0x40, 1, 0),
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_B, .generation = 1,
		  .site = FN_X + 0x10, .op = REFCNT_OP__GET },
	};
	struct refcnt_engine_stats stats;
	struct collect c;

	for (size_t i = 0; i < ARRAY_SIZE(evs); i++)
		evs[i].space = evs[i].tid > 100 ? 2 : 1;

	TEST_ASSERT_VAL("findings", stream__run(evs, ARRAY_SIZE(evs), OBJ_A, &c, exp,
						ARRAY_SIZE(exp), &stats) == TEST_OK);
	TEST_ASSERT_EQUAL("the leak is the child's B", (int)c.findings[0].space, 2);
	TEST_ASSERT_VAL("A and B in each space", stats.objects[0] == 4);
	TEST_ASSERT_VAL("no missed dies", stats.missed_dies == 0);
	/* --history of an address follows it in every space */
	TEST_ASSERT_EQUAL("steps of A", c.nr_steps, 8);
	TEST_ASSERT_VAL("the child's first put starts from its live count",
			c.steps[2].before == 2 && c.steps[2].after == 1);
	return TEST_OK;
}

/*
 * Thread 2's get of A is in flight until thread 2 is seen again, or exits
 * (PERF_RECORD_EXIT): after its exit it explains nothing. Thread 1 then
 * reads one below our count twice: a get was missed, a mismatch. Without
 * the exit, thread 2's get would explain the difference forever.
 */
int test__refcnt_pairing_thread_exit(struct test_suite *test __maybe_unused,
				     int subtest __maybe_unused)
{
	static const struct refcnt_event before[] = {
		EV(100, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(200, GET,  OBJ_A, G, 0x10, 2, 1),
	};
	static const struct refcnt_event after[] = {
		EV(400, GET,  OBJ_A, F, 0x10, 1, 1),	/* our count 2 */
		EV(500, PUT,  OBJ_A, F, 0x20, 1, 2),	/* our count 3 */
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__MISMATCH, .obj = OBJ_A, .generation = 1,
		  .site = FN_F + 0x10, .op = REFCNT_OP__GET, .expected = 2, .live = 1 },
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_A, .generation = 1,
		  .site = FN_G + 0x10, .op = REFCNT_OP__GET },
	};
	struct refcnt_engine *engine;
	struct collect c;

	for (int exits = 0; exits < 2; exits++) {
		int err;

		engine = refcnt_engine__new(&stream__ops, &c);
		TEST_ASSERT_VAL("engine", engine);
		memset(&c, 0, sizeof(c));
		err = stream__feed(engine, before, ARRAY_SIZE(before));
		if (!err && exits)
			err = refcnt_engine__thread_exit(engine, 300, 2);
		if (!err)
			err = stream__feed(engine, after, ARRAY_SIZE(after));
		refcnt_engine__end(engine);
		refcnt_engine__delete(engine);
		TEST_ASSERT_EQUAL("feeding", err, 0);
		if (exits) {
			TEST_ASSERT_VAL("findings", stream__check(&c, exp, 2) == TEST_OK);
		} else {
			/* the get of thread 2 may be in flight: the leak only */
			TEST_ASSERT_VAL("findings", stream__check(&c, exp + 1, 1) == TEST_OK);
		}
	}
	return TEST_OK;
}

/*
 * Feed @evs (each in the address space of its thread) to a new engine, give
 * it @scan of address space 1 and end the stream: @c gets the findings.
 */
int stream__run_scanned(struct refcnt_event *evs, size_t nr, const struct refcnt_scan *scan,
			struct collect *c)
{
	struct refcnt_engine *engine;
	int err;

	for (size_t i = 0; i < nr; i++)
		evs[i].space = evs[i].tid;
	engine = refcnt_engine__new(&stream__ops, c);
	TEST_ASSERT_VAL("engine", engine);
	memset(c, 0, sizeof(*c));
	err = stream__feed(engine, evs, nr);
	if (!err)
		err = refcnt_engine__exit_scan(engine, 1, scan);
	refcnt_engine__end(engine);
	refcnt_engine__delete(engine);
	TEST_ASSERT_EQUAL("feeding", err, 0);
	return TEST_OK;
}

/*
 * The scan at exit of address space 1 (refcnt_engine__exit_scan): A is
 * pointed to by as many words as it has references, all still referenced;
 * B by one word for three references, its two gets leaked (most recent
 * first), its birth still referenced; C is unreachable, all leaked; D is
 * reached only from C, which points to it: held by that leak. E, in space
 * 2, and F, which the scan did not find, are reported as without a scan.
 */
int test__refcnt_pairing_exit_scan(struct test_suite *test __maybe_unused,
				   int subtest __maybe_unused)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, GET,  OBJ_A, X, 0x10, 1, 1),
		EV(20, BORN, OBJ_B, MAIN, 0x20, 1, 1),
		EV(21, GET,  OBJ_B, X, 0x20, 1, 1),
		EV(22, GET,  OBJ_B, G, 0x20, 1, 2),
		EV(30, BORN, OBJ_C, MAIN, 0x30, 1, 1),
		EV(31, GET,  OBJ_C, H, 0x30, 1, 1),
		EV(40, BORN, OBJ_D, MAIN, 0x40, 1, 1),
		EV(50, BORN, OBJ_E, MAIN, 0x50, 2, 1),
		EV(51, GET,  OBJ_E, X, 0x50, 2, 1),
		EV(60, BORN, OBJ_F, MAIN, 0x60, 1, 1),
	};
	static struct refcnt_scan_object scanned[] = {
		{ .addr = OBJ_A, .words = 2, .reachable = 1, .refcnt = 2 },
		{ .addr = OBJ_B, .words = 1, .reachable = 1, .refcnt = 3 },
		{ .addr = OBJ_C, .refcnt = 2 },
		{ .addr = OBJ_D, .holder = OBJ_C, .held_words = 1, .refcnt = 1 },
		{ .addr = OBJ_E, .words = 2, .reachable = 1, .refcnt = 2 },	/* not its space */
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__STILL_REFERENCED, .obj = OBJ_A, .generation = 1,
		  .site = FN_X + 0x10, .op = REFCNT_OP__GET },
		{ .kind = REFCNT_FINDING__STILL_REFERENCED, .obj = OBJ_A, .generation = 1,
		  .site = FN_MAIN + 0x10, .op = REFCNT_OP__BORN },
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_B, .generation = 1,
		  .site = FN_G + 0x20, .op = REFCNT_OP__GET },
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_B, .generation = 1,
		  .site = FN_X + 0x20, .op = REFCNT_OP__GET },
		{ .kind = REFCNT_FINDING__STILL_REFERENCED, .obj = OBJ_B, .generation = 1,
		  .site = FN_MAIN + 0x20, .op = REFCNT_OP__BORN },
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_C, .generation = 1,
		  .site = FN_H + 0x30, .op = REFCNT_OP__GET },
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_C, .generation = 1,
		  .site = FN_MAIN + 0x30, .op = REFCNT_OP__BORN },
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_E, .generation = 1,
		  .site = FN_X + 0x50, .op = REFCNT_OP__GET },
		{ .kind = REFCNT_FINDING__OWNED_AT_EXIT, .obj = OBJ_F, .generation = 1,
		  .site = FN_MAIN + 0x60, .op = REFCNT_OP__BORN },
		{ .kind = REFCNT_FINDING__HELD_BY_LEAK, .obj = OBJ_D, .generation = 1,
		  .site = FN_MAIN + 0x40, .op = REFCNT_OP__BORN },
	};
	struct refcnt_scan scan = {
		.result = { .status = REFCNT_SCAN__DONE, .nr_objects = ARRAY_SIZE(scanned) },
		.objects = scanned,
	};
	struct collect c;

	TEST_ASSERT_VAL("run", stream__run_scanned(evs, ARRAY_SIZE(evs), &scan, &c) == TEST_OK);
	TEST_ASSERT_VAL("findings", stream__check(&c, exp, ARRAY_SIZE(exp)) == TEST_OK);
	TEST_ASSERT_VAL("D held by C", c.findings[9].holder == OBJ_C);
	return TEST_OK;
}

/*
 * A leak holds as many of an unreachable object's references as words of
 * leaked memory point to its start (a reference is such a pointer). A is
 * a leak; B is reached from A only through a word into its middle (a list
 * linked through it, or stale bytes): its reference is a leak of its own,
 * not A's. C, two references, has one word of A's pointing to it: one is
 * held by A, the other is a leak.
 */
int test__refcnt_pairing_exit_scan_held(struct test_suite *test __maybe_unused,
					int subtest __maybe_unused)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(20, BORN, OBJ_B, MAIN, 0x20, 1, 1),
		EV(21, GET,  OBJ_B, X, 0x20, 1, 1),
		EV(22, PUT,  OBJ_B, MAIN, 0x28, 1, 2),
		EV(30, BORN, OBJ_C, F, 0x30, 1, 1),
		EV(31, GET,  OBJ_C, G, 0x30, 1, 1),
	};
	static struct refcnt_scan_object scanned[] = {
		{ .addr = OBJ_A, .refcnt = 1 },
		{ .addr = OBJ_B, .holder = OBJ_A, .refcnt = 1 },
		{ .addr = OBJ_C, .holder = OBJ_A, .held_words = 1, .refcnt = 2 },
	};
	static const struct expect exp[] = {
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_A, .generation = 1,
		  .site = FN_MAIN + 0x10, .op = REFCNT_OP__BORN },
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_B, .generation = 1,
		  .site = FN_X + 0x20, .op = REFCNT_OP__GET },
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_C, .generation = 1,
		  .site = FN_G + 0x30, .op = REFCNT_OP__GET },
		{ .kind = REFCNT_FINDING__HELD_BY_LEAK, .obj = OBJ_C, .generation = 1,
		  .site = FN_F + 0x30, .op = REFCNT_OP__BORN },
	};
	struct refcnt_scan scan = {
		.result = { .status = REFCNT_SCAN__DONE, .nr_objects = ARRAY_SIZE(scanned) },
		.objects = scanned,
	};
	struct collect c;

	TEST_ASSERT_VAL("run", stream__run_scanned(evs, ARRAY_SIZE(evs), &scan, &c) == TEST_OK);
	TEST_ASSERT_VAL("findings", stream__check(&c, exp, ARRAY_SIZE(exp)) == TEST_OK);
	TEST_ASSERT_VAL("holders", !c.findings[1].holder && !c.findings[2].holder &&
			c.findings[3].holder == OBJ_A);
	return TEST_OK;
}

/*
 * What the stack of the exiting thread is worth (refcnt_engine__exit_scan):
 * G is reached only from it, one word for its two references; H from data
 * by one word and from the stack by one more, for two references; F is
 * alive in the stream but the scan, which looked for its type, did not
 * find it. At a normal exit the references only stack words account for
 * are leaks marked uncertain (a local of a live frame or a stale word:
 * which one depends on the machine's C library); when a signal killed the
 * process too (its interrupted work held them, and would have put them had
 * it run on); a partial scan makes every leak it tells uncertain.
 */
static int exit_scan_stack(u32 signal, u32 partial, const struct expect *exp, int nr_exp)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, GET,  OBJ_A, X, 0x10, 1, 1),
		EV(20, BORN, OBJ_B, MAIN, 0x20, 1, 1),
		EV(21, GET,  OBJ_B, G, 0x20, 1, 1),
		EV(30, BORN, OBJ_F, MAIN, 0x30, 1, 1),
	};
	struct refcnt_scan_object scanned[] = {
		{ .addr = OBJ_A, .words = 1, .stack_words = 1, .refcnt = 2,
		  .reachable = REFCNT_SCAN_REACH__STACK },
		{ .addr = OBJ_B, .words = 2, .stack_words = 1, .refcnt = 2,
		  .reachable = REFCNT_SCAN_REACH__DATA },
	};
	struct refcnt_scan scan = {
		.result = { .status = REFCNT_SCAN__DONE, .nr_objects = ARRAY_SIZE(scanned),
			    .signal = signal, .partial = partial, .types = 1 },
		.objects = scanned,
	};
	struct collect c;

	TEST_ASSERT_VAL("run", stream__run_scanned(evs, ARRAY_SIZE(evs), &scan, &c) == TEST_OK);
	return stream__check(&c, exp, nr_exp);
}

int test__refcnt_pairing_exit_scan_stack(struct test_suite *test __maybe_unused,
					 int subtest __maybe_unused)
{
#define EXP(_kind, _obj, _fn, _off, _op, _unc) \
	{ .kind = REFCNT_FINDING__##_kind, .obj = _obj, .generation = 1, \
	  .site = FN_##_fn + (_off), .op = REFCNT_OP__##_op, .uncertain = _unc }
	static const struct expect at_exit[] = {
		EXP(LEAK, OBJ_A, X, 0x10, GET, false),
		EXP(LEAK, OBJ_A, MAIN, 0x10, BORN, true),
		EXP(LEAK, OBJ_B, G, 0x20, GET, true),
		EXP(STILL_REFERENCED, OBJ_B, MAIN, 0x20, BORN, false),
		EXP(OWNED_AT_EXIT, OBJ_F, MAIN, 0x30, BORN, true),
	};
	static const struct expect killed[] = {
		EXP(LEAK, OBJ_A, X, 0x10, GET, false),
		EXP(LEAK, OBJ_A, MAIN, 0x10, BORN, true),
		EXP(LEAK, OBJ_B, G, 0x20, GET, true),
		EXP(STILL_REFERENCED, OBJ_B, MAIN, 0x20, BORN, false),
		EXP(OWNED_AT_EXIT, OBJ_F, MAIN, 0x30, BORN, true),
	};
	static const struct expect partial[] = {
		EXP(LEAK, OBJ_A, X, 0x10, GET, true),
		EXP(LEAK, OBJ_A, MAIN, 0x10, BORN, true),
		EXP(LEAK, OBJ_B, G, 0x20, GET, true),
		EXP(STILL_REFERENCED, OBJ_B, MAIN, 0x20, BORN, false),
		EXP(OWNED_AT_EXIT, OBJ_F, MAIN, 0x30, BORN, true),
	};
#undef EXP

	pr_debug("normal exit\n");
	TEST_ASSERT_VAL("exit", exit_scan_stack(0, 0, at_exit, ARRAY_SIZE(at_exit)) == TEST_OK);
	pr_debug("killed by SIGABRT\n");
	TEST_ASSERT_VAL("signal", exit_scan_stack(6, 0, killed, ARRAY_SIZE(killed)) == TEST_OK);
	pr_debug("partial scan\n");
	TEST_ASSERT_VAL("partial",
			exit_scan_stack(0, REFCNT_SCAN_PARTIAL__UNREADABLE, partial,
					ARRAY_SIZE(partial)) == TEST_OK);
	return TEST_OK;
}

/*
 * A live refcount no object has (a freed chunk malloc reused, a damaged
 * recording): C, first seen through a get reading 0x3fffffff, starts with
 * one reference of unknown origin, uncertain, not 2^30 of them for the end
 * to tell one by one; A's read of it is no disagreement.
 */
int test__refcnt_pairing_implausible_live(struct test_suite *test __maybe_unused,
					  int subtest __maybe_unused)
{
	struct refcnt_event evs[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(11, GET,  OBJ_A, X, 0x10, 1, 0x3fffffff),
		EV(20, GET,  OBJ_C, G, 0x20, 1, 0x3fffffff),
	};
	struct refcnt_scan_object scanned[] = {
		{ .addr = OBJ_A, .words = 2, .refcnt = 2, .reachable = REFCNT_SCAN_REACH__DATA },
		{ .addr = OBJ_C, .refcnt = 1 },
	};
	struct refcnt_scan scan = {
		.result = { .status = REFCNT_SCAN__DONE, .nr_objects = ARRAY_SIZE(scanned) },
		.objects = scanned,
	};
	struct collect c;

	TEST_ASSERT_VAL("run", stream__run_scanned(evs, ARRAY_SIZE(evs), &scan, &c) == TEST_OK);
	/* A: two still referenced; C: its get and the one it had, leaked, uncertain */
	TEST_ASSERT_EQUAL("findings", c.nr_findings, 4);
	for (int i = 0; i < 2; i++) {
		TEST_ASSERT_VAL("A", c.findings[i].obj == OBJ_A &&
				c.findings[i].kind == REFCNT_FINDING__STILL_REFERENCED);
		TEST_ASSERT_VAL("C", c.findings[2 + i].obj == OBJ_C &&
				c.findings[2 + i].kind == REFCNT_FINDING__LEAK &&
				c.findings[2 + i].uncertain);
	}
	return TEST_OK;
}

/*
 * Attribution without cookies, three rules (pairing.h):
 * - held above: F takes a reference on A and calls P, which puts one; P
 *   releases X's reference, not the one F holds, and F's own put then
 *   releases F's (same caller);
 * - the extra put: F puts the reference it took, then one more (H's). X's
 *   put before it released a reference of another function too, but F's
 *   second put is the one the double put names; the same when that second
 *   put is itself the over-release (main's); the same when what F put
 *   first was handed to it by a lookup C (machine__findnew_thread()'s
 *   result, put twice by machine__process_fork_event()), but not when X
 *   worked on it in between, outside F: F's call that C handed it to had
 *   returned;
 * - two references in one call: H takes two on B at once, C one; the
 *   destructor D puts two, not H's second: that one is the leak. A loop
 *   of calls that take one each (C's three) is not that: each repeats its
 *   site, where the second of H's is at another;
 * - two puts at once: W puts C, then its callee P puts C again, which
 *   frees it under main's reference. X's put came first and released a
 *   reference of another function, but the double put names W's;
 * - two references in one call, and a put in the caller: F calls C, which
 *   takes one on B, then H, which takes two (machine__resolve() calling
 *   threads__find() and thread__find_map()). F's put releases H's first,
 *   not its second (same caller, at the same depth); W's then C's: H's
 *   second is the leak.
 */
int test__refcnt_pairing_attribution(struct test_suite *test __maybe_unused,
				     int subtest __maybe_unused)
{
	struct refcnt_event held[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(20, GET,  OBJ_A, X, 0x10, 1, 1),
		EV(30, GET,  OBJ_A, F, 0x10, 1, 2),
		EV(40, PUT,  OBJ_A, P, 0x20, 1, 3),	/* called by F */
		EV(50, PUT,  OBJ_A, F, 0x20, 1, 2),
		EV(60, PUT,  OBJ_A, MAIN, 0x20, 1, 1),
		EV(61, DIES, OBJ_A, MAIN, 0x20, 1, 0),
	};
	static const struct refcnt_event extra_put[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(20, GET,  OBJ_A, H, 0x10, 1, 1),
		EV(30, GET,  OBJ_A, G, 0x10, 1, 2),
		EV(40, PUT,  OBJ_A, X, 0x20, 1, 3),
		EV(50, GET,  OBJ_A, F, 0x10, 1, 2),
		EV(60, PUT,  OBJ_A, F, 0x20, 1, 3),
		EV(61, PUT,  OBJ_A, F, 0x28, 1, 2),
		EV(70, PUT,  OBJ_A, MAIN, 0x20, 1, 1),
		EV(71, DIES, OBJ_A, MAIN, 0x20, 1, 0),
		EV(80, PUT,  OBJ_A, H, 0x20, 1, 0),
	};
	static const struct refcnt_event twin[] = {
		EV(10, BORN, OBJ_B, MAIN, 0x10, 1, 1),
		EV(20, GET,  OBJ_B, C, 0x10, 1, 1),
		EV(30, GET,  OBJ_B, H, 0x10, 1, 2),
		EV(31, GET,  OBJ_B, H, 0x18, 1, 3),
		EV(40, PUT,  OBJ_B, W, 0x20, 1, 4),
		EV(41, PUT,  OBJ_B, W, 0x20, 1, 3),
	};
	struct refcnt_event extra_put_handed[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(20, GET,  OBJ_A, G, 0x10, 1, 1),
		EV(30, GET,  OBJ_A, C, 0x10, 1, 2),	/* called by F, hands it on */
		EV(40, PUT,  OBJ_A, F, 0x20, 1, 3),
		EV(41, PUT,  OBJ_A, F, 0x28, 1, 2),
		EV(50, PUT,  OBJ_A, MAIN, 0x20, 1, 1),
		EV(51, DIES, OBJ_A, MAIN, 0x20, 1, 0),
		EV(60, PUT,  OBJ_A, G, 0x20, 1, 0),
	};
	static const struct expect exp_extra_put_handed[] = {
		{ .kind = REFCNT_FINDING__DOUBLE_PUT, .obj = OBJ_A, .generation = 1,
		  .site = FN_G + 0x20, .op = REFCNT_OP__PUT, .other = FN_MAIN + 0x20,
		  .culprit = FN_F + 0x28 },
	};
	static const struct refcnt_event over_one_more[] = {
		EV(10, BORN, OBJ_A, MAIN, 0x10, 1, 1),
		EV(20, GET,  OBJ_A, G, 0x10, 1, 1),
		EV(30, PUT,  OBJ_A, X, 0x20, 1, 2),
		EV(40, PUT,  OBJ_A, MAIN, 0x20, 1, 1),
		EV(41, PUT,  OBJ_A, MAIN, 0x28, 1, 0),
	};
	/* C takes one per call, three calls; H two per call, two calls */
	static const struct refcnt_event twin_calls[] = {
		EV(10, BORN, OBJ_B, MAIN, 0x10, 1, 1),
		EV(20, GET,  OBJ_B, C, 0x10, 1, 1),
		EV(21, GET,  OBJ_B, C, 0x10, 1, 2),
		EV(22, GET,  OBJ_B, C, 0x10, 1, 3),
		EV(30, GET,  OBJ_B, H, 0x10, 1, 4),
		EV(31, GET,  OBJ_B, H, 0x18, 1, 5),
		EV(32, PUT,  OBJ_B, W, 0x20, 1, 6),
		EV(33, GET,  OBJ_B, H, 0x10, 1, 5),
		EV(34, GET,  OBJ_B, H, 0x18, 1, 6),
		EV(40, PUT,  OBJ_B, W, 0x20, 1, 7),
		EV(41, PUT,  OBJ_B, W, 0x20, 1, 6),
		EV(42, PUT,  OBJ_B, W, 0x20, 1, 5),
		EV(43, PUT,  OBJ_B, W, 0x20, 1, 4),
	};
	struct refcnt_event twin_caller[] = {
		EV(10, BORN, OBJ_B, MAIN, 0x10, 1, 1),
		EV(20, GET,  OBJ_B, C, 0x10, 1, 1),	/* called by F */
		EV(30, GET,  OBJ_B, H, 0x10, 1, 2),	/* called by F */
		EV(31, GET,  OBJ_B, H, 0x18, 1, 3),	/* called by F */
		EV(40, PUT,  OBJ_B, F, 0x20, 1, 4),
		EV(50, PUT,  OBJ_B, W, 0x20, 1, 3),
		EV(60, PUT,  OBJ_B, MAIN, 0x20, 1, 2),
	};
	struct refcnt_event two_at_once[] = {
		EV(10, BORN, OBJ_C, MAIN, 0x10, 1, 1),
		EV(20, GET,  OBJ_C, H, 0x10, 1, 1),
		EV(30, GET,  OBJ_C, G, 0x10, 1, 2),
		EV(40, PUT,  OBJ_C, X, 0x20, 1, 3),
		EV(50, PUT,  OBJ_C, W, 0x20, 1, 2),
		EV(51, PUT,  OBJ_C, P, 0x20, 1, 1),	/* called by W */
		EV(52, DIES, OBJ_C, P, 0x20, 1, 0),
		EV(60, PUT,  OBJ_C, MAIN, 0x20, 1, 0),
	};
	static const struct expect exp_two_at_once[] = {
		{ .kind = REFCNT_FINDING__DOUBLE_PUT, .obj = OBJ_C, .generation = 1,
		  .site = FN_MAIN + 0x20, .op = REFCNT_OP__PUT, .other = FN_P + 0x20,
		  .culprit = FN_W + 0x20 },
	};
	static const struct expect exp_over_one_more[] = {
		{ .kind = REFCNT_FINDING__OVER_RELEASE, .obj = OBJ_A, .generation = 1,
		  .site = FN_MAIN + 0x28, .op = REFCNT_OP__PUT },
	};
	static const struct expect exp_twin_calls[] = {
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_B, .generation = 1,
		  .site = FN_H + 0x18, .op = REFCNT_OP__GET },
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_B, .generation = 1,
		  .site = FN_H + 0x18, .op = REFCNT_OP__GET },
	};
	static const struct expect exp_extra_put[] = {
		{ .kind = REFCNT_FINDING__DOUBLE_PUT, .obj = OBJ_A, .generation = 1,
		  .site = FN_H + 0x20, .op = REFCNT_OP__PUT, .other = FN_MAIN + 0x20,
		  .culprit = FN_F + 0x28 },
	};
	static const struct expect exp_twin[] = {
		{ .kind = REFCNT_FINDING__LEAK, .obj = OBJ_B, .generation = 1,
		  .site = FN_H + 0x18, .op = REFCNT_OP__GET },
	};
	struct refcnt_engine_stats stats;
	struct collect c;

	held[3].up[0] = FN_F;
	TEST_ASSERT_VAL("held: findings", stream__run(held, ARRAY_SIZE(held), OBJ_A, &c, NULL, 0,
						      &stats) == TEST_OK);
	TEST_ASSERT_VAL("held: P's put releases X's reference",
			c.steps[3].confidence == REFCNT_PAIR__SAME_THREAD &&
			stream__ref_is(&c.steps[3].paired, FN_X + 0x10));
	TEST_ASSERT_VAL("held: F's put releases its own",
			c.steps[4].confidence == REFCNT_PAIR__SAME_CALLER &&
			stream__ref_is(&c.steps[4].paired, FN_F + 0x10));

	TEST_ASSERT_VAL("extra put: findings",
			stream__run(extra_put, ARRAY_SIZE(extra_put), 0, &c, exp_extra_put,
				    ARRAY_SIZE(exp_extra_put), &stats) == TEST_OK);
	TEST_ASSERT_VAL("extra put: why", c.findings[0].why == REFCNT_WHY__ONE_MORE);

	extra_put_handed[2].hands_on = true;
	extra_put_handed[2].up[0] = FN_F;
	extra_put_handed[2].owner = FN_F;
	extra_put_handed[2].owner_site = FN_F + 0x8;
	TEST_ASSERT_VAL("extra put of a lookup's result: findings",
			stream__run(extra_put_handed, ARRAY_SIZE(extra_put_handed), 0, &c,
				    exp_extra_put_handed, ARRAY_SIZE(exp_extra_put_handed),
				    &stats) == TEST_OK);
	TEST_ASSERT_VAL("extra put of a lookup's result: why",
			c.findings[0].why == REFCNT_WHY__ONE_MORE);
	{
		struct refcnt_event later[ARRAY_SIZE(extra_put_handed) + 2];

		memcpy(later, extra_put_handed, 3 * sizeof(later[0]));
		later[3] = (struct refcnt_event)EV(32, GET, OBJ_A, X, 0x10, 1, 3);
		later[4] = (struct refcnt_event)EV(33, PUT, OBJ_A, X, 0x20, 1, 4);
		memcpy(later + 5, extra_put_handed + 3, 5 * sizeof(later[0]));
		TEST_ASSERT_VAL("a lookup's result handed to an earlier call: findings",
				!stream__collect(later, ARRAY_SIZE(later), 0, &c));
		TEST_ASSERT_VAL("a lookup's result handed to an earlier call: not one more",
				c.nr_findings && c.findings[0].why != REFCNT_WHY__ONE_MORE);
	}

	TEST_ASSERT_VAL("over-release, one more: findings",
			stream__run(over_one_more, ARRAY_SIZE(over_one_more), 0, &c,
				    exp_over_one_more, ARRAY_SIZE(exp_over_one_more),
				&stats) == TEST_OK);
	TEST_ASSERT_VAL("over-release, one more: why", c.findings[0].why == REFCNT_WHY__ONE_MORE);

	TEST_ASSERT_VAL("twin: findings", stream__run(twin, ARRAY_SIZE(twin), 0, &c, exp_twin,
						      ARRAY_SIZE(exp_twin), &stats) == TEST_OK);
	TEST_ASSERT_VAL("twin: why", c.findings[0].why == REFCNT_WHY__ONE_CALL_TWO);

	TEST_ASSERT_VAL("twin calls: findings",
			stream__run(twin_calls, ARRAY_SIZE(twin_calls), 0, &c, exp_twin_calls,
				    ARRAY_SIZE(exp_twin_calls), &stats) == TEST_OK);

	for (int i = 1; i <= 3; i++)
		twin_caller[i].up[0] = FN_F;
	TEST_ASSERT_VAL("twin, same caller: findings",
			stream__run(twin_caller, ARRAY_SIZE(twin_caller), OBJ_B, &c, exp_twin,
				    ARRAY_SIZE(exp_twin), &stats) == TEST_OK);
	TEST_ASSERT_VAL("twin, same caller: F's put releases H's first",
			c.steps[4].confidence == REFCNT_PAIR__SAME_CALLER &&
			stream__ref_is(&c.steps[4].paired, FN_H + 0x10));
	TEST_ASSERT_VAL("twin, same caller: W's releases C's",
			stream__ref_is(&c.steps[5].paired, FN_C + 0x10));

	two_at_once[5].up[0] = FN_W;
	TEST_ASSERT_VAL("two at once: findings",
			stream__run(two_at_once, ARRAY_SIZE(two_at_once), 0, &c, exp_two_at_once,
				    ARRAY_SIZE(exp_two_at_once), &stats) == TEST_OK);
	TEST_ASSERT_VAL("two at once: why", c.findings[0].why == REFCNT_WHY__TWO_AT_ONCE);
	return TEST_OK;
}

/* Every step, for comparing two engines' pairings. */
struct step_log {
	struct refcnt_step	*steps;
	u32			nr;
	u32			alloc;
	u32			wrong;		/* stress: pairings not as expected */
};

static void step_log__step(const struct refcnt_step *s, void *priv)
{
	struct step_log *log = priv;

	if (log->nr < log->alloc)
		log->steps[log->nr++] = *s;
}

static u32 xorshift(u32 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

#define INDEXED_EVENTS	6000
#define INDEXED_FUNCS	24

/* Feed @evs to an engine that indexes from @index_min references; log its steps. */
static int indexed__run(const struct refcnt_event *evs, u32 nr, u32 index_min,
			struct step_log *log, struct refcnt_engine_stats *stats)
{
	static const struct refcnt_engine_ops ops = { .step = step_log__step };
	struct refcnt_engine *engine = refcnt_engine__new(&ops, log);
	int err;

	if (!engine)
		return -ENOMEM;
	refcnt_engine__set_index_min(engine, index_min);
	err = refcnt_engine__follow(engine, OBJ_A) ?: refcnt_engine__follow(engine, OBJ_B);
	for (u32 i = 0; i < nr && !err; i++)
		err = refcnt_engine__event(engine, &evs[i]);
	refcnt_engine__end(engine);
	*stats = *refcnt_engine__stats(engine);
	refcnt_engine__delete(engine);
	return err;
}

/*
 * Indexed references pair as scanned ones do: a random stream of gets and
 * puts on two objects (24 functions, three threads, calls two deep,
 * references taken twice in a call, puts in callees of the takers), fed to
 * an engine that indexes from the first reference and to one that never
 * does: every step the same, the same findings.
 */
int test__refcnt_pairing_indexed(struct test_suite *test __maybe_unused,
				 int subtest __maybe_unused)
{
	struct refcnt_event *evs = calloc(INDEXED_EVENTS, sizeof(*evs));
	struct step_log a = { .alloc = INDEXED_EVENTS }, b = { .alloc = INDEXED_EVENTS };
	struct refcnt_engine_stats sa, sb;
	int count[2] = { 0, 0 }, ret = TEST_FAIL;
	u32 x = 88172645, nr = 0;

	a.steps = calloc(a.alloc, sizeof(*a.steps));
	b.steps = calloc(b.alloc, sizeof(*b.steps));
	if (!evs || !a.steps || !b.steps)
		goto out;
	for (int o = 0; o < 2; o++) {
		u64 obj = o ? OBJ_B : OBJ_A;

		evs[nr] = (struct refcnt_event)EV(nr + 1, BORN, obj, MAIN, 0x10, 1, 1);
		nr++;
		count[o] = 1;
	}
	while (nr < INDEXED_EVENTS - 2) {
		int o = xorshift(&x) % 2, put = count[o] > 1 && xorshift(&x) % 5 < 2;
		u64 fn = 0x10000ULL * (1 + xorshift(&x) % INDEXED_FUNCS);
		struct refcnt_event *ev = &evs[nr];

		ev->time = nr + 1;
		ev->obj = o ? OBJ_B : OBJ_A;
		ev->op = put ? REFCNT_OP__PUT : REFCNT_OP__GET;
		ev->caller = fn;
		ev->site = fn + 0x10 + (xorshift(&x) % 4) * 8;
		ev->up[0] = 0x10000ULL * (1 + xorshift(&x) % INDEXED_FUNCS);
		ev->up[1] = 0x10000ULL * (1 + xorshift(&x) % INDEXED_FUNCS);
		ev->tid = 1 + xorshift(&x) % 3;
		ev->stack = fn >> 4;
		ev->live = count[o];
		count[o] += put ? -1 : 1;
		nr++;
		/* sometimes the same call takes another */
		if (!put && xorshift(&x) % 8 == 0 && nr < INDEXED_EVENTS - 2) {
			evs[nr] = *ev;
			evs[nr].time = nr + 1;
			evs[nr].site += 0x40;
			evs[nr].live = count[o]++;
			nr++;
		}
	}
	if (indexed__run(evs, nr, UINT_MAX, &a, &sa) || indexed__run(evs, nr, 1, &b, &sb))
		goto out;
	pr_debug("%u events, %u steps; %d and %d references left\n", nr, a.nr, count[0], count[1]);
	if (a.nr != nr || b.nr != nr) {
		pr_debug("steps: %u scanned, %u indexed, of %u events\n", a.nr, b.nr, nr);
		goto out;
	}
	for (u32 i = 0; i < nr; i++) {
		const struct refcnt_step *sa_ = &a.steps[i], *sb_ = &b.steps[i];

		if (sa_->confidence != sb_->confidence || sa_->finding != sb_->finding ||
		    sa_->before != sb_->before || sa_->after != sb_->after ||
		    sa_->paired.time != sb_->paired.time || sa_->paired.site != sb_->paired.site) {
			pr_debug("step %u differs: %s %#" PRIx64 " (%s) vs %s %#" PRIx64 " (%s)\n",
				 i, refcnt_op__name(evs[i].op), sa_->paired.site,
				 refcnt_confidence__name(sa_->confidence),
				 refcnt_op__name(evs[i].op), sb_->paired.site,
				 refcnt_confidence__name(sb_->confidence));
			goto out;
		}
	}
	if (memcmp(sa.findings, sb.findings, sizeof(sa.findings))) {
		pr_debug("findings differ\n");
		goto out;
	}
	ret = TEST_OK;
out:
	free(evs);
	free(a.steps);
	free(b.steps);
	return ret;
}

#define STRESS_REFS	100000

static void stress__step(const struct refcnt_step *s, void *priv)
{
	struct step_log *log = priv;

	/* each put names the function whose reference it releases */
	if (s->ev->op == REFCNT_OP__PUT &&
	    (s->confidence > REFCNT_PAIR__SAME_CALLER || s->paired.caller != s->ev->caller))
		log->wrong++;
	log->nr++;
}

/*
 * One object, 10^5 references outstanding, each taken by a function of its
 * own, released in a random order by the function that took it: every put
 * pairs with its own function's reference, and nothing is left.
 */
int test__refcnt_pairing_stress(struct test_suite *test __maybe_unused,
				int subtest __maybe_unused)
{
	static const struct refcnt_engine_ops ops = { .step = stress__step };
	u32 *order = calloc(STRESS_REFS, sizeof(*order)), x = 2463534242U;
	struct step_log log = { 0 };
	struct refcnt_engine *engine = refcnt_engine__new(&ops, &log);
	struct refcnt_event ev = EV(1, BORN, OBJ_A, MAIN, 0x10, 1, 1);
	const struct refcnt_engine_stats *st;
	int err = -ENOMEM, ret = TEST_FAIL;
	u64 t = 1;

	if (!order || !engine)
		goto out;
	err = refcnt_engine__follow(engine, OBJ_A) ?: refcnt_engine__event(engine, &ev);
	for (u32 i = 0; i < STRESS_REFS && !err; i++) {
		ev.time = ++t;
		ev.op = REFCNT_OP__GET;
		ev.caller = 0x100000ULL + (u64)i * 0x1000;
		ev.site = ev.caller + 0x10;
		ev.live = i + 1;
		err = refcnt_engine__event(engine, &ev);
		order[i] = i;
	}
	for (u32 i = STRESS_REFS; i > 1; i--) {
		u32 j = xorshift(&x) % i, tmp = order[i - 1];

		order[i - 1] = order[j];
		order[j] = tmp;
	}
	for (u32 i = 0; i < STRESS_REFS && !err; i++) {
		ev.time = ++t;
		ev.op = REFCNT_OP__PUT;
		ev.caller = 0x100000ULL + (u64)order[i] * 0x1000;
		ev.site = ev.caller + 0x20;
		ev.live = STRESS_REFS + 1 - i;
		err = refcnt_engine__event(engine, &ev);
	}
	refcnt_engine__end(engine);
	st = refcnt_engine__stats(engine);
	pr_debug("%u steps, %u puts not paired with their function's reference\n",
		 log.nr, log.wrong);
	if (!err && !log.wrong && log.nr == 2 * STRESS_REFS + 1 &&
	    st->findings[REFCNT_FINDING__OWNED_AT_EXIT] == 1 &&
	    st->findings[REFCNT_FINDING__LEAK] == 0)
		ret = TEST_OK;
out:
	refcnt_engine__delete(engine);
	free(order);
	return ret;
}
