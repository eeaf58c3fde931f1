// SPDX-License-Identifier: GPL-2.0
/*
 * perf test refcnt: grouping findings for the report (util/refcnt/findings.c):
 * one row per sort key, however many findings share it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/err.h>
#include <linux/kernel.h>

#include "tests.h"
#include "debug.h"
#include "refcnt-tests.h"
#include "util/hashmap.h"
#include "util/machine.h"
#include "util/refcnt/findings.h"
#include "util/refcnt/hash.h"
#include "util/refcnt/inline_scope.h"
#include "util/refcnt/suppress.h"
#include "util/refcnt/symbolize.h"

#define FINDINGS_SITES	40
#define FINDINGS_EACH	25

/*
 * 1000 findings on 40 sites, interleaved, added among others: 40 groups of
 * 25 references each, whatever the allocator left in the memory of a key
 * (a key hashed before it was filled in split one site into many rows).
 */
int test__refcnt_findings_groups(struct test_suite *test __maybe_unused,
				 int subtest __maybe_unused)
{
	struct refcnt_findings f;
	int ret = TEST_FAIL;

	if (refcnt_findings__init(&f, NULL))
		return TEST_FAIL;
	for (int i = 0; i < FINDINGS_SITES * FINDINGS_EACH; i++) {
		struct refcnt_finding finding = {
			.kind = REFCNT_FINDING__STILL_REFERENCED,
			.obj = 0x1000 + (i % 7) * 0x100,
			.space = 1,
			.generation = 1,
			.ref = { .site = 0x400000 + (i % FINDINGS_SITES) * 0x10,
				 .op = REFCNT_OP__GET },
		};

		if (refcnt_findings__add(&f, &finding, NULL))
			goto out;
	}
	if (refcnt_findings__sort(&f))
		goto out;
	pr_debug("%u groups\n", f.nr);
	if (f.nr != FINDINGS_SITES)
		goto out;
	for (u32 i = 0; i < f.nr; i++) {
		if (f.groups[i]->refs != FINDINGS_EACH)
			goto out;
	}
	ret = TEST_OK;
out:
	refcnt_findings__exit(&f);
	return ret;
}

/*
 * Suppressions (util/refcnt/suppress.c): the file's lines, what they
 * match, and the references they hide from a group, callchain by
 * callchain: a group left with none is no row.
 */
int test__refcnt_findings_suppressions(struct test_suite *test __maybe_unused,
				       int subtest __maybe_unused)
{
	static const char text[] = "# understood\nleak:thread__*\n\n"
				   "  double-put : hist_entry__delete  # a comment\n";
	static const char * const leak_frames[] = { "maps__get", "thread__find_map",
						    "add_callchain_ip" };
	static const char * const put_frames[] = { "map__put", "hist_entry__delete" };
	struct refcnt_suppressions sup = { .s = NULL };
	struct refcnt_findings f;
	struct refcnt_group *a;
	char bad[32];
	u32 mask;
	int line;

	TEST_ASSERT_EQUAL("parse", refcnt_suppressions__parse(&sup, text, &line), 0);
	TEST_ASSERT_EQUAL("two lines", (int)sup.nr, 2);
	TEST_ASSERT_VAL("leak", sup.s[0].kind == REFCNT_FINDING__LEAK);
	TEST_ASSERT_VAL("double put", sup.s[1].kind == REFCNT_FINDING__DOUBLE_PUT &&
			!strcmp(sup.s[1].pattern, "hist_entry__delete"));
	TEST_ASSERT_VAL("a leak frame matches",
			refcnt_suppressions__match(&sup, REFCNT_FINDING__LEAK, leak_frames,
						   ARRAY_SIZE(leak_frames)) == &sup.s[0]);
	TEST_ASSERT_VAL("of its kind only",
			!refcnt_suppressions__match(&sup, REFCNT_FINDING__DOUBLE_PUT, leak_frames,
						    ARRAY_SIZE(leak_frames)));
	TEST_ASSERT_VAL("a double put frame matches",
			refcnt_suppressions__match(&sup, REFCNT_FINDING__DOUBLE_PUT, put_frames,
						   ARRAY_SIZE(put_frames)) == &sup.s[1]);
	refcnt_suppressions__exit(&sup);

	TEST_ASSERT_VAL("no colon", refcnt_suppressions__parse(&sup, "\nleak thread", &line) ==
			-EINVAL && line == 2);
	TEST_ASSERT_VAL("no such kind", refcnt_suppressions__parse(&sup, "lek:x", &line) ==
			-EINVAL && line == 1);
	TEST_ASSERT_VAL("no pattern", refcnt_suppressions__parse(&sup, "leak:", &line) ==
			-EINVAL);
	refcnt_suppressions__exit(&sup);

	TEST_ASSERT_VAL("bugs", !refcnt_finding_kinds__parse("bugs", &mask, bad, sizeof(bad)) &&
			mask == ((1U << REFCNT_FINDING__LEAK) |
				 (1U << REFCNT_FINDING__OVER_RELEASE) |
				 (1U << REFCNT_FINDING__DOUBLE_PUT) |
				 (1U << REFCNT_FINDING__USE_AFTER_PUT)));
	TEST_ASSERT_VAL("kinds", !refcnt_finding_kinds__parse("leak, use_after_put", &mask, bad,
							      sizeof(bad)) &&
			mask == ((1U << REFCNT_FINDING__LEAK) |
				 (1U << REFCNT_FINDING__USE_AFTER_PUT)));
	TEST_ASSERT_VAL("bad kind", refcnt_finding_kinds__parse("leak,leek", &mask, bad,
								sizeof(bad)) == -EINVAL &&
			!strcmp(bad, "leek"));

	/* site 0x10: callchains 1, 1, 2; site 0x20: callchain 3 */
	TEST_ASSERT_EQUAL("init", refcnt_findings__init(&f, NULL), 0);
	for (int i = 0; i < 4; i++) {
		struct refcnt_finding finding = {
			.kind = REFCNT_FINDING__LEAK,
			.obj = 0x1000 + i * 0x100,
			.space = 1,
			.generation = 1,
			.ref = { .site = i < 3 ? 0x10 : 0x20, .stack = i < 2 ? 1 : i,
				 .op = REFCNT_OP__GET },
		};

		TEST_ASSERT_EQUAL("add", refcnt_findings__add(&f, &finding, NULL), 0);
	}
	TEST_ASSERT_EQUAL("sort", refcnt_findings__sort(&f), 0);
	TEST_ASSERT_EQUAL("two rows", (int)f.nr, 2);
	a = f.groups[0];
	TEST_ASSERT_VAL("site 0x10 first", a->ref.site == 0x10 && a->refs == 3);
	refcnt_findings__hide(&f, a, 1, 2);
	TEST_ASSERT_VAL("one left, its callchain shown", a->refs == 1 && a->ref.stack == 2);
	refcnt_findings__hide(&f, f.groups[1], 3, 1);
	TEST_ASSERT_VAL("totals", f.totals[REFCNT_FINDING__LEAK] == 1 && f.outstanding == 1);
	TEST_ASSERT_EQUAL("sort", refcnt_findings__sort(&f), 0);
	TEST_ASSERT_VAL("the hidden row is gone", f.nr == 1 && f.groups[0] == a);
	refcnt_findings__exit(&f);
	return TEST_OK;
}

/*
 * -x: a comm, a function or a callchain that holds the separator must not
 * shift the fields after it: its characters of the separator are replaced.
 */
int test__refcnt_findings_field(struct test_suite *test __maybe_unused,
				int subtest __maybe_unused)
{
	char buf[32];

	TEST_ASSERT_VAL("a comm with a comma",
			!strcmp(refcnt_field__escape(buf, sizeof(buf), "a,b c", ","), "a_b c"));
	TEST_ASSERT_VAL("a callchain, -x';'",
			!strcmp(refcnt_field__escape(buf, sizeof(buf), "main;x;a", ";"),
				"main_x_a"));
	TEST_ASSERT_VAL("a kind, -x' '",
			!strcmp(refcnt_field__escape(buf, sizeof(buf), "double put", " "),
				"double_put"));
	TEST_ASSERT_VAL("every character of the separator",
			!strcmp(refcnt_field__escape(buf, sizeof(buf), "a:b|c", "|:"), "a_b_c"));
	TEST_ASSERT_VAL("'_' in the separator: '.'",
			!strcmp(refcnt_field__escape(buf, sizeof(buf), "a_b,c", ",_"), "a.b.c"));
	TEST_ASSERT_VAL("nothing to replace",
			!strcmp(refcnt_field__escape(buf, sizeof(buf), "perf-top", ","),
				"perf-top"));
	TEST_ASSERT_VAL("cut to the buffer",
			!strcmp(refcnt_field__escape(buf, 4, "a,bcdef", ","), "a_b"));
	return TEST_OK;
}

/* The site of @ref as a row shows it, in @buf. */
static const char *inlined__site(const struct refcnt_symbolizer *sym, const struct refcnt_ref *ref,
				 char *buf, size_t sz)
{
	FILE *fp = fmemopen(buf, sz, "w");

	buf[0] = '\0';
	if (fp) {
		refcnt_sym__fprintf_ref(fp, sym, ref);
		fclose(fp);
	}
	return buf;
}

/*
 * A row's site says the function inlined there (a put in
 * hist_entry__init(), inlined in hist_entry__new()); a birth's or a get's
 * only if that function keeps the reference (a lookup inlined in its
 * caller hands it on: the caller's). The row's function stays the symbol,
 * as perf report names it (unknown here: hex), but for an owner's row: the
 * function that made the lookup's call and never put what it returned is
 * the inlined one there (the decoder keeps only one that hands nothing on).
 */
int test__refcnt_findings_inlined(struct test_suite *test __maybe_unused,
				  int subtest __maybe_unused)
{
	struct refcnt_symbolizer sym = { .machine = NULL };
	struct refcnt_ref put = {
		.space = 1, .site = 0x401010, .caller = 0x401000,
		.scope = REFCNT_INLINE_KEY | 0x100, .op = REFCNT_OP__PUT,
	};
	struct refcnt_ref get = put;
	struct machines machines;
	struct hashmap *names;
	char buf[128];
	int ret = TEST_FAIL;

	names = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
	if (IS_ERR(names))
		return TEST_FAIL;
	machines__init(&machines);
	sym.machine = &machines.host;
	if (hashmap__add(names, put.scope, "inlined_fn"))
		goto out;
	sym.scope_names = names;
	get.op = REFCNT_OP__GET;
	if (!strstr(inlined__site(&sym, &put, buf, sizeof(buf)), "(inlined_fn inlined)")) {
		pr_debug("a put in an inlined function: %s\n", buf);
		goto out;
	}
	if (strstr(refcnt_sym__ref_func(&sym, &put, buf, sizeof(buf)), "inlined_fn")) {
		pr_debug("the row's function is the symbol: %s\n", buf);
		goto out;
	}
	if (strstr(inlined__site(&sym, &get, buf, sizeof(buf)), "inlined_fn")) {
		pr_debug("a get an inlined lookup hands on: %s\n", buf);
		goto out;
	}
	get.scope_keeps = true;
	if (!strstr(inlined__site(&sym, &get, buf, sizeof(buf)), "(inlined_fn inlined)")) {
		pr_debug("a get an inlined function keeps: %s\n", buf);
		goto out;
	}
	if (strstr(refcnt_sym__row_func(&sym, &get, REFCNT_WHY__EVENT, buf, sizeof(buf)),
		   "inlined_fn") ||
	    strcmp(refcnt_sym__row_func(&sym, &get, REFCNT_WHY__OWNER, buf, sizeof(buf)),
		   "inlined_fn")) {
		pr_debug("the row of the owner's call in an inlined function: %s\n", buf);
		goto out;
	}
	put.scope = REFCNT_INLINE_KEY | 0x200;	/* not named */
	if (strstr(inlined__site(&sym, &put, buf, sizeof(buf)), "inlined"))
		goto out;
	ret = TEST_OK;
out:
	machines__exit(&machines);
	hashmap__free(names);
	return ret;
}
