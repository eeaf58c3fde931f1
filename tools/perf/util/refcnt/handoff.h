/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_HANDOFF_H
#define __PERF_REFCNT_HANDOFF_H

/*
 * Which functions hand a reference to their caller, from the audited
 * binary's DWARF: those that return a pointer to an audited type (lookups,
 * constructors: maps__find(), machine__findnew_thread()) and those with a
 * pointer to a pointer to one among their parameters (an out-parameter:
 * struct map **). A reference taken below such a function is its caller's
 * to put; the first function above the get that hands nothing on owns it
 * (a lookup's result that its caller never put is that caller's leak, not
 * the lookup's).
 */

#include <linux/compiler.h>
#include <linux/types.h>

struct refcnt_handoff;

#ifdef HAVE_DWARF_SUPPORT
#include <elfutils/libdw.h>

/* The table of the binary at @path; NULL if it has no DWARF (or -g). */
struct refcnt_handoff *refcnt_handoff__new(const char *path);
void refcnt_handoff__delete(struct refcnt_handoff *h);

/*
 * The types (1 << type index) that the function at @start (its address
 * in the binary, as its symbol has it) hands to its caller; 0 if none or
 * unknown.
 */
u16 refcnt_handoff__types(const struct refcnt_handoff *h, u64 start);

/* Of those, the types it returns (a lookup's, a constructor's result). */
u16 refcnt_handoff__returns(const struct refcnt_handoff *h, u64 start);

/*
 * Of those, the types it also takes a pointer to: it makes a copy of one
 * (map__clone()), and what the copy points to it may copy with no get.
 */
u16 refcnt_handoff__clones(const struct refcnt_handoff *h, u64 start);

/*
 * The holders of the function at @start, per type (REFCNT_TYPE__MAX_NR
 * of them, in the table, as long as it lives): of the structs its
 * parameters point to (and those they embed), the ones with a member that
 * points to an object of the type or to an array of such pointers, as a
 * mask of ids of the table's own (one per struct name, up to 64). A
 * reference of the type that the function takes and hands to nobody it
 * may store in one of them (an insert: __maps__insert(struct maps *, ...);
 * machine__resolve() filling an addr_location); one that it puts without
 * having taken it, it may release from one (a remove, a destructor:
 * __maps__remove(), addr_location__exit()). NULL if none or unknown.
 */
const u64 *refcnt_handoff__holders(const struct refcnt_handoff *h, u64 start);

/*
 * The audited type (its index in refcnt_type_specs) that type DIE @die
 * points to through @depth pointers (1: struct map *, 2: struct map **),
 * or -1. Also what probe.c asks of a constructor's caller.
 */
int refcnt_die__pointed_type(Dwarf_Die *die, int depth);

/*
 * The types (1 << type index) that the function of subprogram DIE @sp
 * returns, or hands on through a parameter.
 */
u16 refcnt_die__handoff(Dwarf_Die *sp);

#else
static inline struct refcnt_handoff *refcnt_handoff__new(const char *path __maybe_unused)
{
	return NULL;
}

static inline void refcnt_handoff__delete(struct refcnt_handoff *h __maybe_unused)
{
}

static inline u16 refcnt_handoff__types(const struct refcnt_handoff *h __maybe_unused,
					u64 start __maybe_unused)
{
	return 0;
}

static inline u16 refcnt_handoff__returns(const struct refcnt_handoff *h __maybe_unused,
					  u64 start __maybe_unused)
{
	return 0;
}

static inline u16 refcnt_handoff__clones(const struct refcnt_handoff *h __maybe_unused,
					 u64 start __maybe_unused)
{
	return 0;
}

static inline const u64 *refcnt_handoff__holders(const struct refcnt_handoff *h __maybe_unused,
						 u64 start __maybe_unused)
{
	return NULL;
}
#endif

/*
 * Who owns a reference taken at a site: the first function from the
 * site's own up that does not hand @type on. @site_handoff is what the
 * site's function hands on; @fns and @handoff are the @nr frames above it,
 * closest first: their functions (0: not known) and what each hands on.
 * Returns the owner's frame index + 1, or 0 when the site's own function
 * owns it or who does is not known.
 */
static inline u32 refcnt_handoff__owner(u8 type, u32 site_handoff, const u64 *fns,
					const u16 *handoff, u32 nr)
{
	u32 mask = 1U << type;

	if (!(site_handoff & mask))
		return 0;
	for (u32 i = 0; i < nr; i++) {
		if (!fns[i])
			return 0;
		if (!(handoff[i] & mask))
			return i + 1;
	}
	return 0;
}

#endif /* __PERF_REFCNT_HANDOFF_H */
