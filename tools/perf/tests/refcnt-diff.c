// SPDX-License-Identifier: GPL-2.0
/*
 * perf test refcnt: perf refcnt diff's comparison of two summaries
 * (util/refcnt/diff.c), built by hand as two recordings would make them.
 */
#include <inttypes.h>
#include <string.h>
#include <linux/kernel.h>

#include "tests.h"
#include "debug.h"
#include "refcnt-tests.h"
#include "util/refcnt/diff.h"
#include "util/refcnt/suppress.h"

#define T_DSO		0
#define T_MAP		1
#define T_MAPS		2
#define T_THREAD	3

static int add(struct refcnt_summary *s, enum refcnt_finding_kind kind, u8 type,
	       const char *site, const char *chain, u64 refs)
{
	return refcnt_summary__add_finding(s, kind, type, false, site, chain, refs);
}

/* base, then new, of the test below */
static int summaries(struct refcnt_summary *base, struct refcnt_summary *new)
{
	int err = refcnt_summary__init(base) ?: refcnt_summary__init(new);

	/* a leak seen twice on one callchain, added in two steps */
	err = err ?: add(base, REFCNT_FINDING__LEAK, T_DSO, "a", "main;x;a", 1);
	err = err ?: add(base, REFCNT_FINDING__LEAK, T_DSO, "a", "main;x;a", 1);
	err = err ?: add(base, REFCNT_FINDING__STILL_REFERENCED, T_MAP, "b", "main;b", 3);
	err = err ?: add(base, REFCNT_FINDING__DOUBLE_PUT, T_THREAD, "c", "main;c", 1);
	/* the leak at a again, and on a callchain of its own */
	err = err ?: add(new, REFCNT_FINDING__LEAK, T_DSO, "a", "main;x;a", 2);
	err = err ?: add(new, REFCNT_FINDING__LEAK, T_DSO, "a", "main;y;a", 1);
	err = err ?: add(new, REFCNT_FINDING__STILL_REFERENCED, T_MAP, "b", "main;b", 3);
	err = err ?: add(new, REFCNT_FINDING__USE_AFTER_PUT, T_MAP, "d", "main;d", 1);
	/* two callchains of one new row, and a row of another type at the same site */
	err = err ?: add(new, REFCNT_FINDING__LEAK, T_MAPS, "e", "main;p;e", 3);
	err = err ?: add(new, REFCNT_FINDING__LEAK, T_MAPS, "e", "main;q;e", 2);
	err = err ?: add(new, REFCNT_FINDING__STILL_REFERENCED, T_DSO, "e", "main;p;e", 9);

	/* f: one reference per call, then two, at a second site */
	err = err ?: refcnt_summary__add_site(base, T_MAP, "f", 10, 0);
	err = err ?: refcnt_summary__add_site(new, T_MAP, "f", 10, 0);
	err = err ?: refcnt_summary__add_site(new, T_MAP, "f", 10, 0);
	/* g: a longer run, as balanced per call: net +50 */
	err = err ?: refcnt_summary__add_site(base, T_MAP, "g", 100, 0);
	err = err ?: refcnt_summary__add_site(base, T_MAP, "g", 0, 50);
	err = err ?: refcnt_summary__add_site(new, T_MAP, "g", 200, 0);
	err = err ?: refcnt_summary__add_site(new, T_MAP, "g", 0, 100);
	/* h: the same in both; and f of another type, gone */
	err = err ?: refcnt_summary__add_site(base, T_DSO, "h", 7, 7);
	err = err ?: refcnt_summary__add_site(new, T_DSO, "h", 7, 7);
	err = err ?: refcnt_summary__add_site(base, T_DSO, "f", 1, 0);
	return err;
}

static bool row_is(const struct refcnt_diff_group *g, enum refcnt_diff_status status,
		   enum refcnt_finding_kind kind, u8 type, const char *site, u64 base, u64 new,
		   u32 nr)
{
	pr_debug("row %s %s type %u at %s: %" PRIu64 " -> %" PRIu64 ", %u callchains\n",
		 refcnt_diff_status__name(g->status), refcnt_finding_kind__name(g->key->kind),
		 g->key->type, g->key->site, g->base, g->new, g->nr);
	return g->status == status && g->key->kind == kind && g->key->type == type &&
	       !strcmp(g->key->site, site) && g->base == base && g->new == new && g->nr == nr;
}

/*
 * --fail-on against @base (summaries()'s) of a run of the same perf: leaks
 * at a on other callchains, many more of them, and an uncertain one at u,
 * a key the baseline lacks. Then that run as the baseline: a new leak of a
 * dso, which its uncertain dso leaks may have missed, and one of a map.
 */
static int worse_keys(const struct refcnt_summary *base)
{
	struct refcnt_summary s, t;
	struct refcnt_diff d;
	struct refcnt_diff_worse w;
	int ret = TEST_FAIL;

	memset(&d, 0, sizeof(d));
	memset(&t, 0, sizeof(t));
	if (refcnt_summary__init(&s) ||
	    add(&s, REFCNT_FINDING__LEAK, T_DSO, "a", "main;x;a", 1) ||
	    add(&s, REFCNT_FINDING__LEAK, T_DSO, "a", "main;z;a", 40) ||
	    refcnt_summary__add_finding(&s, REFCNT_FINDING__LEAK, T_DSO, true, "u", "main;u", 4) ||
	    refcnt_diff__compute(&d, base, &s))
		goto out;
	TEST_ASSERT_EQUAL("rows: more leaks at a, an uncertain one at u, b and c gone",
			  (int)d.nr_groups, 4);
	TEST_ASSERT_EQUAL("leaks that drift at a key the baseline has are not worse",
			  (int)refcnt_diff__worse(&d, ~0U, &w), 0);
	TEST_ASSERT_VAL("an uncertain new key: not judged (exit 24)",
			w.uncertain == 1 && w.uncertain_kinds == 1U << REFCNT_FINDING__LEAK);
	refcnt_diff__exit(&d);
	if (refcnt_summary__init(&t) ||
	    add(&t, REFCNT_FINDING__LEAK, T_DSO, "w", "main;w", 1) ||
	    add(&t, REFCNT_FINDING__LEAK, T_MAP, "x", "main;x", 1) ||
	    refcnt_diff__compute(&d, &s, &t))
		goto out;
	TEST_ASSERT_EQUAL("a new map leak is worse", (int)refcnt_diff__worse(&d, ~0U, &w), 1);
	TEST_ASSERT_VAL("a new dso leak, where the baseline's are uncertain: not judged",
			w.uncertain == 1 && w.base_uncertain == 1);
	ret = TEST_OK;
out:
	refcnt_diff__exit(&d);
	refcnt_summary__exit(&s);
	refcnt_summary__exit(&t);
	return ret;
}

/*
 * The baseline: an uncertain leak at u, a leak of a map at m, and f that
 * takes a map per call, @calls times. The new run: u certain, more leaks at
 * m, an uncertain one at k, f takes two per call; @m_certain: m certain.
 */
static int per_call(struct refcnt_summary *base, struct refcnt_summary *new, u64 calls,
		    bool m_certain)
{
	return refcnt_summary__init(base) ?: refcnt_summary__init(new) ?:
	       refcnt_summary__add_finding(base, REFCNT_FINDING__LEAK, T_DSO, true, "u", "u", 1) ?:
	       add(base, REFCNT_FINDING__LEAK, T_MAP, "m", "main;m", 1) ?:
	       refcnt_summary__add_site(base, T_MAP, "f", calls, 0) ?:
	       add(new, REFCNT_FINDING__LEAK, T_DSO, "u", "main;u", 2) ?:
	       refcnt_summary__add_finding(new, REFCNT_FINDING__LEAK, T_MAP, !m_certain, "m",
					   "main;m", 5) ?:
	       refcnt_summary__add_finding(new, REFCNT_FINDING__LEAK, T_MAP, true, "k", "k", 1) ?:
	       refcnt_summary__add_site(new, T_MAP, "f", calls, 0) ?:
	       refcnt_summary__add_site(new, T_MAP, "f", calls, 0);
}

/* --fail-on: a function that takes more per call, on a type that leaks */
static int worse_per_call(u64 calls, bool m_certain, u32 certain, u32 uncertain)
{
	struct refcnt_summary base, new;
	struct refcnt_diff d;
	struct refcnt_diff_worse w;
	int ret = TEST_FAIL;

	memset(&d, 0, sizeof(d));
	memset(&base, 0, sizeof(base));
	memset(&new, 0, sizeof(new));
	if (!per_call(&base, &new, calls, m_certain) && !refcnt_diff__compute(&d, &base, &new)) {
		refcnt_diff__worse(&d, 1U << REFCNT_FINDING__LEAK, &w);
		pr_debug("f called %" PRIu64 " times, m %s: %u worse, %u uncertain\n", calls,
			 m_certain ? "certain" : "uncertain", w.certain, w.uncertain);
		if (w.certain == certain && w.uncertain == uncertain)
			ret = TEST_OK;
	}
	refcnt_diff__exit(&d);
	refcnt_summary__exit(&base);
	refcnt_summary__exit(&new);
	return ret;
}

/*
 * Rows new, changed, gone, in report's order of kinds, then the most
 * changed first; only the callchains that changed under a row; the
 * function whose references per call doubled first among the balances,
 * before the one that only ran longer.
 */
int test__refcnt_diff(struct test_suite *test __maybe_unused, int subtest __maybe_unused)
{
	struct refcnt_summary base, new, none;
	struct refcnt_diff d, same;
	struct refcnt_diff_worse w;
	const struct refcnt_diff_group *g;
	char bad[16];
	u32 bugs;
	int ret = TEST_FAIL;

	memset(&d, 0, sizeof(d));
	memset(&same, 0, sizeof(same));
	memset(&base, 0, sizeof(base));
	memset(&new, 0, sizeof(new));
	memset(&none, 0, sizeof(none));
	if (summaries(&base, &new) || refcnt_summary__init(&none) ||
	    refcnt_diff__compute(&d, &base, &new) || refcnt_diff__compute(&same, &new, &new))
		goto out;

	TEST_ASSERT_VAL("a recording against itself differs", !same.nr_groups);
	TEST_ASSERT_VAL("a recording against itself has balance rows", !same.nr_balance);

	TEST_ASSERT_EQUAL("rows", (int)d.nr_groups, 5);
	TEST_ASSERT_EQUAL("new rows", (int)d.nr[REFCNT_DIFF__NEW], 3);
	TEST_ASSERT_EQUAL("changed rows", (int)d.nr[REFCNT_DIFF__CHANGED], 1);
	TEST_ASSERT_EQUAL("gone rows", (int)d.nr[REFCNT_DIFF__GONE], 1);
	g = d.groups;
	TEST_ASSERT_VAL("1st: use after put map d, new (report's order of kinds)",
			row_is(&g[0], REFCNT_DIFF__NEW, REFCNT_FINDING__USE_AFTER_PUT, T_MAP, "d",
			       0, 1, 1));
	TEST_ASSERT_VAL("2nd: leak maps e, new, 2 callchains",
			row_is(&g[1], REFCNT_DIFF__NEW, REFCNT_FINDING__LEAK, T_MAPS, "e", 0, 5,
			       2));
	TEST_ASSERT_VAL("its callchains, most first",
			!strcmp(d.findings[g[1].first].new->chain, "main;p;e") &&
			!strcmp(d.findings[g[1].first + 1].new->chain, "main;q;e"));
	TEST_ASSERT_VAL("3rd: still referenced dso e, new",
			row_is(&g[2], REFCNT_DIFF__NEW, REFCNT_FINDING__STILL_REFERENCED, T_DSO,
			       "e", 0, 9, 1));
	TEST_ASSERT_VAL("4th: leak dso a, changed, the new callchain only",
			row_is(&g[3], REFCNT_DIFF__CHANGED, REFCNT_FINDING__LEAK, T_DSO, "a", 2, 3,
			       1));
	TEST_ASSERT_VAL("the changed callchain is the new one",
			!strcmp(d.findings[g[3].first].new->chain, "main;y;a") &&
			!d.findings[g[3].first].base);
	TEST_ASSERT_VAL("5th: double put thread c, gone",
			row_is(&g[4], REFCNT_DIFF__GONE, REFCNT_FINDING__DOUBLE_PUT, T_THREAD, "c",
			       1, 0, 1));

	TEST_ASSERT_EQUAL("balance rows", (int)d.nr_balance, 3);
	TEST_ASSERT_VAL("1st balance: f, 1 -> 2 per call",
			d.balance[0].new && !strcmp(d.balance[0].new->func, "f") &&
			d.balance[0].base_per_call == 1 && d.balance[0].new_per_call == 2 &&
			d.balance[0].status == REFCNT_DIFF__CHANGED);
	TEST_ASSERT_VAL("2nd balance: dso f, gone (-1 per call)",
			!d.balance[1].new && d.balance[1].base->type == T_DSO &&
			d.balance[1].status == REFCNT_DIFF__GONE);
	TEST_ASSERT_VAL("3rd balance: g, 0.5 per call in both, net +50",
			!strcmp(d.balance[2].new->func, "g") && d.balance[2].delta == 50 &&
			d.balance[2].base_per_call == d.balance[2].new_per_call);

	TEST_ASSERT_VAL("bugs", !refcnt_finding_kinds__parse("bugs", &bugs, bad, sizeof(bad)));
	TEST_ASSERT_EQUAL("worse bugs: d, e (new keys); not a (more, a key the baseline has), c",
			  (int)refcnt_diff__worse(&d, bugs, &w), 2);
	TEST_ASSERT_VAL("none uncertain", !w.uncertain);
	TEST_ASSERT_EQUAL("worse double puts: c is gone",
			  (int)refcnt_diff__worse(&d, 1U << REFCNT_FINDING__DOUBLE_PUT, &w), 0);
	TEST_ASSERT_EQUAL("worse still referenced: e; b is the same; f takes one more map per call",
			  (int)refcnt_diff__worse(&d, 1U << REFCNT_FINDING__STILL_REFERENCED, &w),
			  2);
	TEST_ASSERT_EQUAL("a recording against itself is not worse",
			  (int)refcnt_diff__worse(&same, ~0U, &w) + (int)w.uncertain, 0);
	refcnt_diff__exit(&same);
	TEST_ASSERT_VAL("a key the baseline has, drifting; a new uncertain one",
			worse_keys(&base) == TEST_OK);
	/* u was uncertain: a key the baseline has; k: new, uncertain */
	TEST_ASSERT_VAL("f 1 -> 2 per call on leaking maps: worse",
			worse_per_call(10, true, 1, 1) == TEST_OK);
	TEST_ASSERT_VAL("f 1 -> 2 per call on maps whose leaks are uncertain: not judged",
			worse_per_call(10, false, 0, 2) == TEST_OK);
	TEST_ASSERT_VAL("f called too few times to be judged",
			worse_per_call(REFCNT_DIFF_WORSE_CALLS - 1, true, 0, 1) == TEST_OK);
	refcnt_summary__exit(&none);
	TEST_ASSERT_VAL("summary", !refcnt_summary__init(&none));

	refcnt_diff__exit(&same);
	TEST_ASSERT_VAL("no recording against a new one",
			!refcnt_diff__compute(&same, &none, &new));
	TEST_ASSERT_VAL("everything new", same.nr[REFCNT_DIFF__NEW] == same.nr_groups &&
			same.nr_groups == 5);
	ret = TEST_OK;
out:
	refcnt_diff__exit(&d);
	refcnt_diff__exit(&same);
	refcnt_summary__exit(&base);
	refcnt_summary__exit(&new);
	refcnt_summary__exit(&none);
	return ret;
}
