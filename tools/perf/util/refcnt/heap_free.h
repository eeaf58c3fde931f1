/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_HEAP_FREE_H
#define __PERF_REFCNT_HEAP_FREE_H
/*
 * The heap blocks the audited process freed, and the functions that put
 * each object: the evidence of a holder freed without its puts.
 *
 * A teardown that frees an array of references (or of structs that hold
 * one) without putting them leaves no event of its own: the references
 * are just never released. Two things show it. The scan at exit finds the
 * leaked object's address in freed heap memory (scan.h's
 * refcnt_scan_freed), and libc's free(), probed with --slots, says which
 * call last freed the block that word is in. If the function of that
 * call never put the object, it dropped what the block held: the leak is
 * that function's. If it did put it (a clean teardown, the object leaked
 * by an extra get elsewhere), the block is no evidence.
 */
#include <stdbool.h>
#include <linux/types.h>

/* a free()'s chunk size word (scan.h's REFCNT_CHUNK_*) above this is damage */
#define REFCNT_CHUNK_PLAUSIBLE	0x10000000000ULL	/* 1 TiB: a size above is damage */

/* One free() of the audited process. */
struct refcnt_free {
	u64	time;
	u64	space;		/* as in struct refcnt_event */
	u64	block;		/* the address freed */
	u64	size;		/* its bytes, as its chunk says: at most */
	u64	site;		/* the call's return address: its function's */
	u64	caller;		/* that function's key, as refcnt_event.caller */
	u64	up_caller;	/* the function above it, 0 if not known */
	u64	up_site;	/* the return address in that one, 0 if not known */
	u32	tid;
	bool	audited;	/* @caller is in a binary with DWARF, as the audited
				 * perf is: not the C library's own (qsort()'s buffer)
				 */
	/*
	 * The types (1 << type index) that @caller has holders of: a struct
	 * its parameters point to has a member pointing to one (handoff.h:
	 * thread__delete(struct thread *) of maps and nsinfo); 0: none known
	 */
	u16	holds;
	u16	up_holds;	/* those @up_caller has holders of */
};

/* The frees kept: the last one of each block address. */
struct refcnt_frees;

struct refcnt_frees *refcnt_frees__new(void);
void refcnt_frees__delete(struct refcnt_frees *fs);
/* Keep @f, the last free of its block so far: 0, or -ENOMEM. */
int refcnt_frees__add(struct refcnt_frees *fs, const struct refcnt_free *f);
/*
 * The last free of a block of @space that held the word at @word, or
 * NULL (also once a block could not be kept: the answer could be stale).
 * Once asked, no more frees are kept.
 */
const struct refcnt_free *refcnt_frees__find(struct refcnt_frees *fs, u64 space, u64 word);
/* How many block addresses could not be kept (the cap): the answers may be stale. */
u64 refcnt_frees__dropped(const struct refcnt_frees *fs);

/*
 * Functions that put an object (the callers of its puts, or those and the
 * functions above them), each with the word whose reference its puts
 * released, where a put loaded the object from a word that a store filled
 * (slot_code.h): up to REFCNT_PUTTERS_MAX; past that, every function may
 * have, from any word, as far as it can tell. A put of what a word outside
 * a freed block held released that word's reference, not the block's: the
 * table's reference that threads__remove_all_threads() dropped with its
 * hashmap's entry, though it put the table's cache (last_match) of the
 * same thread.
 */
#define REFCNT_PUTTERS_MAX	128

struct refcnt_putter {
	u64	key;
	u64	slot;	/* 0: a put from no known word, or from several */
};

struct refcnt_putters {
	struct refcnt_putter	*putters;
	u16			nr, alloc;
	bool			full;
};

/* @key put the object, from the word at @slot (0: not known). */
int refcnt_putters__add(struct refcnt_putters *p, u64 key, u64 slot);
/* Did @key put the object, from any word? */
bool refcnt_putters__has(const struct refcnt_putters *p, u64 key);
/* Did @key put the object from a word in [@lo, @lo + @size), or one not known? */
bool refcnt_putters__in(const struct refcnt_putters *p, u64 key, u64 lo, u64 size);
void refcnt_putters__exit(struct refcnt_putters *p);

#endif /* __PERF_REFCNT_HEAP_FREE_H */
