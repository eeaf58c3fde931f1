/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_SYMBOLIZE_H
#define __PERF_REFCNT_SYMBOLIZE_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "pairing.h"

/*
 * Names for the addresses of a perf refcnt recording: call sites,
 * references and interned callchains, resolved through the threads and
 * maps of the replayed session. An address belongs to an address space
 * (see struct refcnt_event): the image a process had before an exec is
 * kept when it execs, so that what happened in it is named after that
 * image, not after the one that replaced it at the same addresses.
 */
struct addr_location;
struct hashmap;
struct machine;
struct refcnt_ref;
struct refcnt_stacks;
struct thread;

struct refcnt_symbolizer {
	struct machine			*machine;
	const struct refcnt_stacks	*stacks;
	/* space -> a struct thread holding a copy of its maps at its exec */
	struct hashmap			*images;
	/* an inlined function's key -> its name (the decoder's), or NULL */
	const struct hashmap		*scope_names;
};

/*
 * The address to look up for @addr: a return address (every frame but the
 * probed one) is looked up by the call before it, as a function may end
 * with a call.
 */
static inline u64 refcnt_sym__lookup_addr(u64 addr, bool return_address)
{
	return addr - return_address;
}

/*
 * The process of @space is about to exec: keep a copy of its maps, the
 * image its addresses are in until then. Returns 0 or -ENOMEM.
 */
int refcnt_sym__exec(struct refcnt_symbolizer *s, u64 space);
void refcnt_sym__exit(struct refcnt_symbolizer *s);

/*
 * A thread whose maps are those of @space: the kept image of an exec, or
 * the process's main thread. A reference the caller puts; NULL if unknown.
 */
struct thread *refcnt_sym__thread(const struct refcnt_symbolizer *s, u64 space);

/*
 * The symbol holding @addr in @space, its name in @buf and the offset of
 * @addr in it; NULL if unknown.
 */
const char *refcnt_sym__addr_sym(const struct refcnt_symbolizer *s, u64 space, u64 addr,
				 bool return_address, u64 *offset, char *buf, size_t sz);

/* "function+0xoff", or "[unknown] 0xaddr" */
int refcnt_sym__fprintf_addr(FILE *fp, const struct refcnt_symbolizer *s, u64 space,
			     u64 addr, bool return_address);

/* The function holding @addr, or the address in hex: stable across runs. */
const char *refcnt_sym__addr_func(const struct refcnt_symbolizer *s, u64 space, u64 addr,
				  bool return_address, char *buf, size_t sz);

/* Where a reference was taken or released: "function+0xoff". */
int refcnt_sym__fprintf_ref(FILE *fp, const struct refcnt_symbolizer *s,
			    const struct refcnt_ref *ref);
const char *refcnt_sym__ref_func(const struct refcnt_symbolizer *s, const struct refcnt_ref *ref,
				 char *buf, size_t sz);
/* The function a finding's row names, @why its site was chosen (findings.h). */
const char *refcnt_sym__row_func(const struct refcnt_symbolizer *s, const struct refcnt_ref *ref,
				 enum refcnt_site_why why, char *buf, size_t sz);

/* The callchain @id, callee first, at most @max frames, each line @indent. */
void refcnt_sym__fprintf_stack(FILE *fp, const struct refcnt_symbolizer *s, u32 id,
			       const char *indent, u32 max);

/* The number of frames of callchain @id, 0 if there is none. */
u32 refcnt_sym__stack_nr(const struct refcnt_symbolizer *s, u32 id);

/*
 * The function of frame @i (0: the innermost) of callchain @id in @buf,
 * its address if it has no symbol; NULL past its last frame.
 */
const char *refcnt_sym__stack_func(const struct refcnt_symbolizer *s, u32 id, u32 i,
				   char *buf, size_t sz);

#endif /* __PERF_REFCNT_SYMBOLIZE_H */
