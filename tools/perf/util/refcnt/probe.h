/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_PROBE_H
#define __PERF_REFCNT_PROBE_H

#include <stdbool.h>
#include <linux/types.h>

#include "heap_probe.h"
#include "scan.h"
#include "slot_code.h"
#include "spec.h"

/*
 * Where perf refcnt puts its uprobes: resolved from a target binary's ELF
 * symbol table (out-of-line functions) and DWARF (inlined copies of them,
 * and the offset of each type's refcount member).
 */

/* How the object pointer is fetched at the probe point. */
enum refcnt_loc_kind {
	REFCNT_LOC__NONE,	/* not fetchable: the site is uncovered */
	REFCNT_LOC__REG,	/* in a register */
	REFCNT_LOC__MEM,	/* in memory at reg + offset */
	REFCNT_LOC__RETVAL,	/* the function's return value */
};

struct refcnt_loc {
	enum refcnt_loc_kind kind;
	const char *reg;	/* uprobe register name, e.g. "%di" */
	long offset;
};

#define REFCNT_COPY_RANGES	4

struct refcnt_probe {
	u8		type;		/* index in refcnt_type_specs */
	u8		op;		/* enum refcnt_op */
	bool		inlined;	/* an inlined copy, probed in its caller */
	bool		moved;		/* not at the copy's entry: the pointer
					 * is fetchable only further in
					 */
	bool		on_branch;	/* moved onto the direct jump after its
					 * first instruction: emulated, not
					 * single-stepped
					 */
	bool		past_null;	/* out of line, moved past its NULL
					 * check: the return address is at
					 * 8(%bp), not at (%sp)
					 */
	const char	*func;		/* the spec's function name */
	char		*in_func;	/* inlined: the function it is inlined in */
	char		*call_file;	/* inlined: where it is called */
	int		call_line;
	/* inlined: the ends of its code's address ranges, lowest first, or 0 */
	u64		copy_ends[REFCNT_COPY_RANGES];
	u64		vaddr;		/* probe address in the binary */
	u64		offset;		/* its file offset, for the uprobe */
	bool		has_offset;	/* uncovered: the offset could be found */
	struct refcnt_loc obj;		/* the object pointer */
	/*
	 * A slot probe (slot_code.h): on the store of a get's result or the
	 * load of a put's argument, next to the call of @func at @slot.call
	 */
	struct refcnt_slot_insn slot;
	int		live_offset;	/* refcount offset in the object, or -1 */
	char		*event;		/* tracefs event name */
};

struct refcnt_probes {
	char			*exe;
	unsigned long		type_mask;
	struct refcnt_probe	*probes;
	int			nr;
	/*
	 * Inlined copies whose object cannot be fetched: probed at their entry
	 * without it, so that the recording holds them and counts their hits.
	 */
	struct refcnt_probe	*uncovered;
	int			nr_uncovered;
	/* the slots references are stored to and loaded from (slot_code.h) */
	struct refcnt_probe	*slots;
	int			nr_slots;
	bool			want_slots;	/* set before resolving: find them (kept) */
	/* with the slots, the C library's free() (heap_probe.h); lib NULL: none */
	struct refcnt_heap_probe heap;
	bool			has_dwarf;
	/* what an object of each type looks like, for the scan at exit */
	struct refcnt_scan_type	scan_types[REFCNT_TYPE__MAX_NR];
	const char		*sp_reg;	/* uprobe name of the stack pointer,
						 * where an entry probe finds the
						 * return address
						 */
	char			*group;		/* tracefs group, once installed */
	int			nr_installed;
};

/*
 * Resolve every probe of the types in @type_mask in @exe; the inlined
 * copies of the functions in @uncover ("f1,f2", or NULL) are taken as
 * uncovered, to test that path. With @at_entry, no probe moves onto a
 * jump past its start (the same events, slower: to compare). Returns 0,
 * or a negative error after saying with pr_err what is missing and how
 * to fix it.
 */
int refcnt_probes__resolve(struct refcnt_probes *rp, const char *exe,
			   unsigned long type_mask, const char *uncover, bool at_entry);
void refcnt_probes__exit(struct refcnt_probes *rp);

/*
 * How many of the probes sit on x86's 5-byte nop: a kernel with optimized
 * uprobes (6.18) turns such a probe, after its first hit, into a call of
 * its uprobe trampoline, about 1 us against 16 for a trap and a single
 * step. Returns a negative errno if the binary cannot be read.
 */
int refcnt_probes__count_nop5(const struct refcnt_probes *rp);

/*
 * What slot probe @p adds to its base register: its displacement, or for a
 * static word (slot.static_word, based at the probe's %ip) the word's
 * address less the probe's own.
 */
long refcnt_slot_probe__disp(const struct refcnt_probe *p);

/* Register the probes as uprobe events in tracefs group @group. */
int refcnt_probes__install(struct refcnt_probes *rp, const char *group);
/* Unregister what refcnt_probes__install() registered. */
int refcnt_probes__uninstall(struct refcnt_probes *rp);
/* Unregister every uprobe event of @group; returns how many. */
int refcnt_probes__remove_group(const char *group);

/*
 * Remove the uprobe events of perf refcnt recorders that are gone (killed
 * before they could clean up). Returns how many events were removed.
 */
int refcnt_probes__remove_stale(void);

/*
 * The file offset a uprobe wants for virtual address @vaddr of the
 * executable code of ELF file @elf: 0, or -1 if no segment loads it.
 */
struct Elf;
int refcnt_elf__file_offset(struct Elf *elf, u64 vaddr, u64 *offset);

/* The tracefs group prefix; a recorder uses REFCNT_GROUP_PREFIX<pid>. */
#define REFCNT_GROUP_PREFIX	"refcnt_"

/*
 * x86-64: in a function whose code is @code, @size bytes at @vaddr, that
 * sets its frame up (push %rbp; mov %rsp,%rbp), tests its first argument
 * (%rdi) for NULL and leaves forward, then runs straight to a direct jump
 * or call, the address of that jump or call: where its probe runs once per
 * call with an object and the kernel emulates it. 0 when the code is not
 * so: an instruction before it branches, locks, writes %rdi, %rbp or
 * memory but the frame's, or code of the function jumps into what it
 * passes over. Without capstone, 0.
 */
u64 refcnt_probe__past_null(const u8 *code, size_t size, u64 vaddr);

#endif /* __PERF_REFCNT_PROBE_H */
