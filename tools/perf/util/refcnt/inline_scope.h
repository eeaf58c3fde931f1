/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_INLINE_SCOPE_H
#define __PERF_REFCNT_INLINE_SCOPE_H

/*
 * The inlined functions that hold an address of the audited binary, from
 * its DWARF. A get or put in a function that the compiler inlined is that
 * function's, as if it had been called: pairing must not depend on what
 * the compiler chose to inline. threads.c's last-match setter, inlined
 * into both threads__find() and threads__findnew(), puts the reference
 * that the setter took in the other function, not the one the function
 * around it has just taken to return.
 *
 * An inlined function is keyed by its abstract DIE (the one all its
 * inlined copies name as their origin), tagged with the top bit so that
 * no key is a function's address. Keys are offsets in one binary's DWARF:
 * perf's refcount API and its callers live in one binary. A static
 * function of a .c file has one abstract DIE; a static inline of a
 * header has one per compilation unit that inlines it, so its copies in
 * two units are two functions here.
 */

#include <stdbool.h>
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/types.h>

#define REFCNT_INLINE_DEPTH	4	/* inlined functions kept per address */
#define REFCNT_INLINE_CHAIN	16	/* nested inlined copies followed */
#define REFCNT_INLINE_KEY	BIT_ULL(63)

struct refcnt_inline_frame {
	u64		key;		/* the inlined function: REFCNT_INLINE_KEY | its DIE */
	u16		handoff;	/* the types it hands its caller (handoff.h) */
	const char	*name;		/* its name, while the DWARF read is open */
};

struct debuginfo;

#ifdef HAVE_DWARF_SUPPORT
/*
 * The inlined functions that hold @addr (an address of the binary whose
 * DWARF @dinfo reads, as its symbols have it; NULL: none), innermost
 * first, at most @max of them, in @frames.
 * Only those around the outermost copy of a refcount function of an
 * audited type (spec.h), if @addr is in one: a probe on an inlined
 * map__get() is in the copy, which is the probe's, not the code's.
 * Returns how many: 0 when @addr is in no inlined function, or unknown.
 */
int refcnt_inline_scopes__at(struct debuginfo *dinfo, u64 addr,
			     struct refcnt_inline_frame *frames, int max);
#else
static inline int refcnt_inline_scopes__at(struct debuginfo *dinfo __maybe_unused,
					   u64 addr __maybe_unused,
					   struct refcnt_inline_frame *frames __maybe_unused,
					   int max __maybe_unused)
{
	return 0;
}
#endif

#endif /* __PERF_REFCNT_INLINE_SCOPE_H */
