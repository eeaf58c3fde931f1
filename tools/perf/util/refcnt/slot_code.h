/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_SLOT_CODE_H
#define __PERF_REFCNT_SLOT_CODE_H
/*
 * Where a reference lives, from the code around the calls of the refcount
 * API: the slot (a word of memory, a struct member or a local) that a get
 * stores its result to right after it returns, and the slot that a put's
 * argument is loaded from right before the call. A put that loads from the
 * slot a get stored to releases that get's reference: a cookie per
 * reference where the code shows one, with no rebuild (RC_CHK gives one by
 * allocating each reference).
 *
 * Only straight code counts: the store within a few instructions after the
 * return, the load within a few before the call, no branch between, the
 * value passed through register moves only; elsewhere there is no slot.
 * The calls are those of the API's gets, births and puts, and of the
 * lookups that return a reference (the caller stores what maps__find()
 * returns). A store is probed on the call or jump after it where the slot
 * is still there to read, as a load is on its call: the kernel emulates
 * them, where it single-steps a store.
 * x86-64 only (capstone): elsewhere nothing is found.
 */
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/*
 * A store to a slot that is no local of its own frame fetches the frame
 * pointers of the store's function and of this many above it, and the
 * return address in each of those (probe.c): the function whose frame the
 * slot is in owns what is stored there (an addr_location that
 * machine__resolve() fills is its caller's).
 */
#define REFCNT_SLOT_FRAMES	3

enum refcnt_slot_op {
	REFCNT_SLOT__NONE,
	REFCNT_SLOT__STORE,	/* after a call returning a reference */
	REFCNT_SLOT__LOAD,	/* before a call putting one */
	REFCNT_SLOT__COPY,	/* a pointer copied from a word to another: no get */
	REFCNT_SLOT__PARAM,	/* a function's store of a pointer it was passed
				 * (a setter's): the reference its caller holds
				 */
};

struct refcnt_slot_insn {
	u8		op;		/* enum refcnt_slot_op */
	u64		vaddr;		/* the probe point: the store or the load, or
					 * the call or jump after a store or at a load
					 */
	u64		load;		/* a load's own address */
	u64		store;		/* a store's own address */
	const char	*store_value;	/* the register it stores, NULL: a vector's lane */
	bool		emulated;	/* a store probed on a call or jump after it */
	bool		frame_gone;	/* ... after the frame pointer was restored */
	u64		call;		/* the call's return address (its site) */
	const char	*base;		/* uprobe name of the slot's base register */
	long		disp;		/* the slot is at base + disp; a static
					 * word's vaddr (x86-64: a long holds it)
					 */
	/*
	 * A setter's store (REFCNT_SLOT__PARAM): where its return address is,
	 * above the stack pointer at the store (the pushes and the frame it
	 * made since its entry), to say its caller
	 */
	long		ret_depth;
	bool		frame;		/* a store's slot is a local of its own frame */
	bool		static_word;	/* a store's or a load's slot is a static
					 * variable (%rip-relative): @base is
					 * "%ip", @disp the word's vaddr
					 */
	const char	*value;		/* the register stored, or passed to the put
					 * by a load probed at the call (the kernel
					 * emulates a call: no single step); NULL:
					 * the reference read from the slot (at the
					 * load, or past the store)
					 */
};

/*
 * For each direct call in the function at @start (@size bytes of @code)
 * whose target @kind says is a get (REFCNT_SLOT__STORE) or a put
 * (REFCNT_SLOT__LOAD), the slot instruction, if the code shows one, is
 * passed to @found. Returns 0, or the first negative value @found returns.
 */
int refcnt_slot__scan(const u8 *code, size_t size, u64 start,
		      int (*kind)(u64 target, void *arg),
		      int (*found)(u64 target, const struct refcnt_slot_insn *si, void *arg),
		      void *arg);

/*
 * Where the code at @vaddr (@size bytes of @code) stores the pointer in
 * register @reg (a uprobe name: "%cx"), or a copy of it, first: the store
 * after an inlined get. Sets all of @si but @si->call.
 */
bool refcnt_slot__store_from(const u8 *code, size_t size, u64 vaddr, const char *reg,
			     struct refcnt_slot_insn *si);

/*
 * Where the function at @vaddr (@size bytes of @code), passed a pointer in
 * register @reg (a uprobe name) at its entry, first stores it, or a copy
 * of it, into a struct another of its parameters points to (the base
 * register holds that parameter still: not an array's entry, a local, a
 * static word, nor the object itself): a setter's store
 * (REFCNT_SLOT__PARAM), which may come after calls (dso__set_nsinfo()
 * puts the old pointer first) while a callee-saved register holds both;
 * no jump between, and the stack pointer moved only by pushes and
 * constant subtractions, to say where the return address is. Sets all of
 * @si.
 */
bool refcnt_slot__param_store(const u8 *code, size_t size, u64 vaddr, const char *reg,
			      struct refcnt_slot_insn *si);

/*
 * Where the code of an inlined copy at [@lo, @hi), where DWARF says its
 * parameter is in register @reg (a uprobe name), stores it to memory, the
 * register loaded from another word just before (REFCNT_SLOT__COPY: a
 * setter passed a pointer read from a struct, no get between); @code is
 * the @size bytes of the function at @start that holds the copy. Sets all
 * of @si.
 */
bool refcnt_slot__copy_in(const u8 *code, size_t size, u64 start, u64 lo, u64 hi,
			  const char *reg, struct refcnt_slot_insn *si);

/*
 * Code where a parameter is in a register (refcnt_slot__copies()), or a
 * local kept in a callee-saved one (@kept): its every store of a pointer
 * that the function's one write of that register loaded from another
 * word, however many calls and branches lie between (a borrowed pointer
 * kept: al->maps = maps, with maps = thread__maps(thread) at the top).
 */
struct refcnt_slot_range {
	u64		lo, hi;
	const char	*reg;		/* a uprobe name: "%dx" */
	bool		kept;
};

/*
 * refcnt_slot__copy_in() for each of @nr ranges in the same function,
 * with one disassembly of it: @found gets each range's copy (its index),
 * a kept local's every one.
 * Returns 0, or the first negative value @found returns.
 */
int refcnt_slot__copies(const u8 *code, size_t size, u64 start,
			const struct refcnt_slot_range *ranges, size_t nr,
			int (*found)(size_t range, const struct refcnt_slot_insn *si, void *arg),
			void *arg);

#ifdef HAVE_LIBCAPSTONE_SUPPORT
#include <capstone/capstone.h>

/* The uprobe name of a 64-bit general register ("%ax"), or NULL (%rsp too). */
const char *refcnt_x86_reg_name(x86_reg reg);
/* The 64-bit register that @reg (64, 32, or a few 16 and 8 bits) is part of. */
x86_reg refcnt_x86_reg64(x86_reg reg);
/* Does @insn write register @reg (or a part of it; an xmm: or its ymm, zmm)? Unknown: yes. */
bool refcnt_x86_insn_writes(csh handle, const cs_insn *insn, x86_reg reg);
#endif

#endif /* __PERF_REFCNT_SLOT_CODE_H */
