/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_FINDINGS_H
#define __PERF_REFCNT_FINDINGS_H

#include <stdbool.h>
#include <linux/types.h>

#include "pairing.h"

/*
 * Findings grouped for the user: one line per (finding, type, call site)
 * rather than one per reference, as ref_tracker prints "N users at <stack>".
 * The site of a group is the acquiring site for leaks and owned-at-exit
 * objects, the extra put (the culprit) or else the offending put for
 * over-releases and double puts, the offending get for use after put, and
 * the first disagreeing operation for mismatches.
 */
enum refcnt_sort_key {
	REFCNT_SORT__TYPE,
	REFCNT_SORT__SITE,
	REFCNT_SORT__OBJECT,
	REFCNT_SORT__COMM,
	REFCNT_SORT__MAX,
};

struct refcnt_group {
	enum refcnt_finding_kind kind;
	enum refcnt_site_why why;	/* of the first finding of the group */
	u8		type;
	bool		uncertain;	/* lost events: not reported as bugs */
	struct refcnt_ref ref;		/* of the first finding of the group */
	struct refcnt_ref other;	/* freeing put, for double put/uap */
	bool		has_other;
	u64		obj;		/* first object */
	const char	*comm;		/* command of the first finding's thread */
	u64		refs;		/* findings (references) in the group */
	u64		objects;	/* distinct lifetimes */
	u64		last_obj, last_space, last_gen;
	int		expected, live;	/* mismatch: of the first */
	/* leak: references on objects only it reaches (held by a leak) */
	u64		held_refs, held_objects, held_last_obj;
	/* the callchains of its references: stack id -> references */
	struct hashmap	*stacks;
};

struct refcnt_findings {
	struct hashmap		*map;		/* key -> group */
	/* struct refcnt_space_addr * of a leaked object -> its leak's group */
	struct hashmap		*leaked;
	struct refcnt_group	**groups;	/* sorted by refcnt_findings__sort */
	u32			nr;
	bool			sort_by[REFCNT_SORT__MAX];
	u64			totals[REFCNT_FINDING__MAX];	/* certain, per kind */
	u64			uncertain;
	/* references alive at the end, certain or not (outstanding__is()) */
	u64			outstanding;
	/* those held by a leak, told under its row: stack id -> references */
	struct hashmap		*held_stacks;
};

/* @sort: "type,site,object,comm" keys that make a group, NULL for type,site */
int refcnt_findings__init(struct refcnt_findings *f, const char *sort);
void refcnt_findings__exit(struct refcnt_findings *f);

/*
 * @comm: the command of the thread of the finding's site, a string that
 * lives as long as the findings (perf's interned comm strings do), or NULL.
 */
int refcnt_findings__add(struct refcnt_findings *f, const struct refcnt_finding *finding,
			 const char *comm);

/* Sort the groups: bugs first, then by references, objects and site. */
int refcnt_findings__sort(struct refcnt_findings *f);

/*
 * Hide @refs references of @g whose callchain is @stack (the group is
 * left with none: it is no longer one of the groups sorted)
 */
void refcnt_findings__hide(struct refcnt_findings *f, struct refcnt_group *g, u32 stack,
			   u64 refs);

/* Is a finding of @kind a reference alive at the end: leaked, owned, held, referenced? */
bool refcnt_finding__outstanding(enum refcnt_finding_kind kind);

/* Is a finding of @kind a bug: a leak, an over-release, a double put, a use after put? */
bool refcnt_finding__is_bug(enum refcnt_finding_kind kind);

/*
 * Where rows of @kind come, 0 first: bugs (double put, over-release, use
 * after put, leak), then what needs a look, then what perf keeps on purpose.
 */
int refcnt_finding_kind__rank(enum refcnt_finding_kind kind);

/* The site a finding is grouped and shown by. */
const struct refcnt_ref *refcnt_finding__site(const struct refcnt_finding *finding);

/*
 * -x: @s as one field of lines whose fields @sep separates, in @buf of
 * @size: each of its characters that @sep has is replaced by '_' (by the
 * first of ".?!" that @sep has not, when it has '_'), so that a comm, a
 * function or a callchain holding the separator does not shift the fields
 * after it. Returns @buf.
 */
char *refcnt_field__escape(char *buf, size_t size, const char *s, const char *sep);

#endif /* __PERF_REFCNT_FINDINGS_H */
