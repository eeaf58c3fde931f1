/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_DIFF_PRINT_H
#define __PERF_REFCNT_DIFF_PRINT_H

#include <stdbool.h>
#include <linux/types.h>

/*
 * What perf refcnt diff shows of two recordings compared (diff.h): its
 * table of findings with their callchains and its balance per function,
 * or a line per row with -x, and what --fail-on says of them.
 */
struct refcnt_diff;

/*
 * The rows of @d, baseline @base and new recording @new, each with its
 * callchains (@max frames) unless @rows_only, then the balance. Returns 0
 * or -ENOMEM.
 */
int refcnt_diff__print(const struct refcnt_diff *d, const char *base, const char *new,
		       bool rows_only, u32 max);

/* -x: a line per row of @d, its fields separated by @sep */
void refcnt_diff__print_sep(const struct refcnt_diff *d, const char *sep);

/*
 * diff --fail-on's status: REFCNT_EXIT_FINDINGS if the new recording @new
 * made a row or function of @kinds worse (refcnt_diff__worse()), else
 * REFCNT_EXIT_UNCERTAIN if it did with uncertain rows only (of @new, or of
 * the baseline) and @fail_uncertain, saying why (@why, @base_why); 0
 * otherwise.
 */
int refcnt_diff__fail_on(const struct refcnt_diff *d, u32 kinds, bool fail_uncertain,
			 const char *new, const char *why, const char *base_why);

#endif /* __PERF_REFCNT_DIFF_PRINT_H */
