/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_SPEC_H
#define __PERF_REFCNT_SPEC_H

#include <stdbool.h>
#include <linux/types.h>

/*
 * What perf refcnt knows of a reference counted type: the names of the
 * functions that make, get, put and destroy it and of its refcount member.
 * A type is data; another perf version or another program's API is a new
 * table, not new code.
 */
enum refcnt_op {
	REFCNT_OP__BORN,	/* returns a new object holding one reference */
	REFCNT_OP__GET,		/* takes a reference */
	REFCNT_OP__PUT,		/* drops a reference */
	REFCNT_OP__DIES,	/* frees the object */
	REFCNT_OP__MAX,
};

#define REFCNT_SPEC__MAX_FUNCS	4
#define REFCNT_SPEC__MAX_ARRAYS	2
#define REFCNT_TYPE__MAX_NR	16	/* types a recording can hold */

struct refcnt_type_spec {
	const char *name;		/* as given to --type */
	const char *struct_name;	/* DWARF structure holding the count */
	const char *member;		/* its refcount_t member */
	const char *nr_member;		/* the length of its flexible array, if any */
	const char *tail_struct;	/* a struct some objects are allocated with */
	/*
	 * Arrays of pointers the object keeps, each its own allocation of
	 * @arrays_alloc elements, of which the first @arrays_nr are in use
	 * (unsigned int members): removing an element slides the later ones
	 * down and leaves the last slot as it was, a stale pointer that is no
	 * reference.
	 */
	const char *arrays[REFCNT_SPEC__MAX_ARRAYS];
	const char *arrays_nr, *arrays_alloc;
	const char *funcs[REFCNT_OP__MAX][REFCNT_SPEC__MAX_FUNCS];
	/*
	 * Inline helpers around them (a zput: the put, then the pointer
	 * cleared): code inlined from one is the API's, not a function of
	 * its own (inline_scope.h); never probed.
	 */
	const char *wrappers[REFCNT_SPEC__MAX_FUNCS];
};

extern const struct refcnt_type_spec refcnt_type_specs[];
extern const unsigned int refcnt_type_specs__nr;

const char *refcnt_op__name(enum refcnt_op op);
int refcnt_op__from_name(const char *name);

/* "dso,map,...": every type's name, for help texts and error messages */
const char *refcnt_type_specs__names(void);

const struct refcnt_type_spec *refcnt_type_spec__find(const char *name);
int refcnt_type_spec__index(const struct refcnt_type_spec *spec);

/* Is @name a refcount function (funcs) or a wrapper of one, of any audited type? */
bool refcnt_type_specs__has_func(const char *name);

/*
 * Parse a --type list ("dso,map") into a bitmask of refcnt_type_specs
 * indexes. NULL or "all" selects every type. Returns 0, or -1 with the
 * unknown name copied into @bad (of @bad_sz bytes).
 */
int refcnt_type_specs__parse(const char *list, unsigned long *mask,
			     char *bad, unsigned int bad_sz);

/*
 * Event names say what a probe is, so that a recording decodes without the
 * target binary: "<type>__<op>" or "<type>__<op>__<n>", and for an inlined
 * copy whose object could not be fetched (uncovered, probed to count its
 * hits) "<type>__<op>__u<hex address in the binary>". Returns 0 and sets
 * @type, @op and @uncovered (the address, or 0), or -1 for a name that is
 * not perf refcnt's.
 */
#define REFCNT_UNCOVERED_PREFIX	"u"
int refcnt_event_name__parse(const char *name, int *type, int *op, u64 *uncovered);

/*
 * A slot probe (slot_code.h) is "<type>__<op>slot__s<hex address>" where a
 * get's (or born's) result is stored, "<type>__<op>slot__l<hex address>"
 * where a put's argument is loaded, "<type>__copyslot__c<hex address>"
 * where a pointer is copied from a word to another, with no get,
 * "<type>__paramslot__p<hex address>" where a setter stores the pointer
 * it was passed: an op a perf refcnt without slots (or, "copy" and
 * "param", without those) does not know, and leaves out. Returns enum
 * refcnt_slot_op: 0 if none.
 */
#define REFCNT_SLOT_SUFFIX	"slot"
#define REFCNT_STORE_PREFIX	"s"
#define REFCNT_LOAD_PREFIX	"l"
#define REFCNT_COPY_PREFIX	"c"
#define REFCNT_COPY_OP		"copy"
#define REFCNT_PARAM_PREFIX	"p"
#define REFCNT_PARAM_OP		"param"
/* a setter's store's field: the return address in its caller */
#define REFCNT_PARAM_RET_FIELD	"ret"
int refcnt_event_name__slot(const char *name);

/*
 * A store's fields that say the frames above it (slot_code.h): the frame
 * pointers "fp0" (its own) to "fp<REFCNT_SLOT_FRAMES>", and the return
 * addresses "ret1" (in its caller) on: NULL where there is none.
 */
extern const char * const refcnt_slot_fp_fields[];
extern const char * const refcnt_slot_ret_fields[];

/*
 * The allocator's side (heap_free.h), probed with --slots: libc's free()
 * as event "heap__free", which fetches the block, its chunk's size word,
 * the return address and the one above it (8(%bp): the frame of the
 * function that called free()). A call from one of the free wrappers
 * below is its caller's: tools/lib's __zfree() is what zfree() calls.
 */
#define REFCNT_FREE_EVENT	"heap__free"
#define REFCNT_FREE_FUNC	"free"
bool refcnt_free_wrapper(const char *func);

#endif /* __PERF_REFCNT_SPEC_H */
