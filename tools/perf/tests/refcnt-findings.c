// SPDX-License-Identifier: GPL-2.0
/*
 * perf test refcnt: grouping findings for the report (util/refcnt/findings.c):
 * one row per sort key, however many findings share it.
 */
#include <linux/kernel.h>

#include "tests.h"
#include "debug.h"
#include "refcnt-tests.h"
#include "util/refcnt/findings.h"

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
