/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_SYMBOLIZE_H
#define __PERF_REFCNT_SYMBOLIZE_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

/*
 * Names for the addresses of a perf refcnt recording: call sites,
 * references and interned callchains, resolved through the threads and
 * maps of the replayed session.
 */
struct machine;
struct refcnt_ref;
struct refcnt_stacks;

struct refcnt_symbolizer {
	struct machine			*machine;
	const struct refcnt_stacks	*stacks;
};

/* The process a reference's addresses belong to. */
u32 refcnt_sym__ref_pid(const struct refcnt_symbolizer *s, const struct refcnt_ref *ref);

/*
 * The symbol holding @addr in process @pid, its name in @buf and the
 * offset of @addr in it; NULL if unknown. A return address is looked up by
 * the byte before it (a function may end with a call).
 */
const char *refcnt_sym__addr_sym(const struct refcnt_symbolizer *s, u32 pid, u64 addr,
				 bool return_address, u64 *offset, char *buf, size_t sz);

/* "function+0xoff", or "[unknown] 0xaddr" */
int refcnt_sym__fprintf_addr(FILE *fp, const struct refcnt_symbolizer *s, u32 pid, u64 addr,
			     bool return_address);

/* The function holding @addr, or the address in hex: stable across runs. */
const char *refcnt_sym__addr_func(const struct refcnt_symbolizer *s, u32 pid, u64 addr,
				  bool return_address, char *buf, size_t sz);

/* Where a reference was taken or released: "function+0xoff". */
int refcnt_sym__fprintf_ref(FILE *fp, const struct refcnt_symbolizer *s,
			    const struct refcnt_ref *ref);
const char *refcnt_sym__ref_func(const struct refcnt_symbolizer *s, const struct refcnt_ref *ref,
				 char *buf, size_t sz);

/* The callchain @id, callee first, at most @max frames, each line @indent. */
void refcnt_sym__fprintf_stack(FILE *fp, const struct refcnt_symbolizer *s, u32 id,
			       const char *indent, u32 max);

#endif /* __PERF_REFCNT_SYMBOLIZE_H */
