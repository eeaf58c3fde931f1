/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_SUPPRESS_H
#define __PERF_REFCNT_SUPPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "pairing.h"

/*
 * Suppressions: the findings a developer has understood, hidden from the
 * report, as LSan's suppressions= file hides leaks. One KIND:PATTERN per
 * line, '#' starts a comment: KIND is a finding kind (leak, double-put,
 * ...; dashes and underscores stand for spaces), PATTERN a glob matched
 * against the function of each frame of the finding's callchain, its site
 * first.
 */
struct refcnt_suppression {
	char	*pattern;
	u8	kind;		/* enum refcnt_finding_kind */
	u64	hits;		/* references it hid */
};

struct refcnt_suppressions {
	struct refcnt_suppression	*s;
	u32				nr;
};

/*
 * The kind named @name, or -1; with @bugs, "bugs" is REFCNT_FINDING__MAX,
 * every kind that is a bug.
 */
int refcnt_finding_kind__parse(const char *name, bool bugs);

/* "KIND[,KIND...]", "bugs" for all bugs, into a mask of 1 << kind; @bad: the first unknown */
int refcnt_finding_kinds__parse(const char *list, u32 *mask, char *bad, size_t bad_sz);

/*
 * Add the suppressions of @text, NUL-terminated; on a line it cannot use,
 * -EINVAL with its number in @line.
 */
int refcnt_suppressions__parse(struct refcnt_suppressions *sup, const char *text, int *line);

/* The same, of file @path; -errno if it cannot be read. */
int refcnt_suppressions__read(struct refcnt_suppressions *sup, const char *path, int *line);

void refcnt_suppressions__exit(struct refcnt_suppressions *sup);

/*
 * The first suppression of @kind whose pattern matches one of the @nr
 * function names @frames, or NULL.
 */
struct refcnt_suppression *
refcnt_suppressions__match(const struct refcnt_suppressions *sup,
			   enum refcnt_finding_kind kind, const char * const *frames, u32 nr);

#endif /* __PERF_REFCNT_SUPPRESS_H */
