/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_CALL_SITE_H
#define __PERF_REFCNT_CALL_SITE_H

/*
 * What a call reached, from the audited binary's DWARF call sites
 * (DW_TAG_call_site; DW_TAG_GNU_call_site before DWARF 5). A function
 * whose last act is a call ends in a jump instead (a tail call), and
 * leaves no frame: free() returns to the caller of the function that
 * called it. map__put() jumps to map__delete(), which jumps to free():
 * free() returns into map__put()'s caller. The call site there says that
 * it called map__put(), and the tail call sites of map__put() and of
 * map__delete() say where the jumps went.
 */

#include <errno.h>
#include <linux/compiler.h>
#include <linux/types.h>

/* tail calls followed from one function to the next */
#define REFCNT_TAIL_HOPS	4
/* tail call sites read of one function */
#define REFCNT_TAIL_SITES	16

/* The function a call site called: its entry, or only its name. */
struct refcnt_call_origin {
	u64		entry;	/* in the binary, as its symbols have it; 0: not known */
	const char	*name;	/* the DWARF's; NULL: an indirect call */
};

struct debuginfo;

/* Is the function named @name free(), or what calls it (__zfree())? */
typedef bool (*refcnt_call_is_free_t)(const char *name);
/* The entry of the function named @name (one of another unit): 0 if none */
typedef u64 (*refcnt_call_resolve_t)(const char *name, void *arg);

#ifdef HAVE_DWARF_SUPPORT
/*
 * The function called by the call that returns to @ret (an address of the
 * binary whose DWARF @dinfo reads): 0 and @origin set, or -ENOENT if no
 * call site of the DWARF returns there (or @dinfo is NULL).
 */
int refcnt_call_sites__at(struct debuginfo *dinfo, u64 ret,
			  struct refcnt_call_origin *origin);

/*
 * The tail calls of the function whose entry is @entry: up to @max of the
 * functions it jumps to, in @origins; how many (indirect ones too, with
 * no name), or -ENOENT if the DWARF has no such function.
 */
int refcnt_call_sites__tails(struct debuginfo *dinfo, u64 entry,
			     struct refcnt_call_origin *origins, int max);

/*
 * Which function called free() when it returned to @ret: the one that
 * the call at @ret reached, at the end of its tail calls (each followed
 * while it is the function's only tail call, up to REFCNT_TAIL_HOPS; the
 * last one reached where they stop, or where the DWARF shows none); its
 * entry. 0 when the call at @ret called free() itself, when it was
 * indirect, or when no call site of the DWARF returns to @ret.
 */
u64 refcnt_call_sites__tail_caller(struct debuginfo *dinfo, u64 ret,
				   refcnt_call_is_free_t is_free,
				   refcnt_call_resolve_t resolve, void *arg);
#else
static inline int refcnt_call_sites__at(struct debuginfo *dinfo __maybe_unused,
					u64 ret __maybe_unused,
					struct refcnt_call_origin *origin __maybe_unused)
{
	return -ENOENT;
}

static inline int refcnt_call_sites__tails(struct debuginfo *dinfo __maybe_unused,
					   u64 entry __maybe_unused,
					   struct refcnt_call_origin *origins __maybe_unused,
					   int max __maybe_unused)
{
	return -ENOENT;
}

static inline u64 refcnt_call_sites__tail_caller(struct debuginfo *dinfo __maybe_unused,
						 u64 ret __maybe_unused,
						 refcnt_call_is_free_t is_free __maybe_unused,
						 refcnt_call_resolve_t resolve __maybe_unused,
						 void *arg __maybe_unused)
{
	return 0;
}
#endif

#endif /* __PERF_REFCNT_CALL_SITE_H */
