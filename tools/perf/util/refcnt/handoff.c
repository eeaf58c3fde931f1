// SPDX-License-Identifier: GPL-2.0
/*
 * Which functions hand a reference to their caller (see handoff.h): one
 * walk of the binary's compilation units, at the first lookup. Functions
 * are keyed by their DWARF low_pc, the address of the binary that their
 * ELF symbol has too (not debuginfo's bias, which is libdwfl's placement).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <linux/err.h>
#include <linux/string.h>
#include <linux/zalloc.h>

#include "../debug.h"
#include "../debuginfo.h"
#include "../dwarf-aux.h"
#include "../hashmap.h"
#include "handoff.h"
#include "hash.h"
#include "spec.h"

/* struct ids of holders, by name: more structs than that hold nothing */
#define HANDOFF_MAX_HOLDERS	64
/* levels of structs embedded in a holder that are holders too */
#define HANDOFF_EMBED_DEPTH	2

/* What the table knows of one function. */
struct handoff_fn {
	u16	handoff;			/* the types it hands on */
	u16	returns;			/* of those, the ones it returns */
	u16	clones;				/* of those, the ones it copies */
	u64	holders[REFCNT_TYPE__MAX_NR];	/* per type: ids of its holders */
};

/* What a struct a parameter points to holds (handoff__struct()). */
struct handoff_struct {
	u16	types;
	u64	held[REFCNT_TYPE__MAX_NR];
};

struct refcnt_handoff {
	struct hashmap	*fns;		/* function's address -> struct handoff_fn * */
	/* while the table is made: struct name (DWARF's string) -> id + 1 */
	struct hashmap	*ids;
	u32		nr_ids;
	/* and -> struct handoff_struct *: each struct walked once, not per parameter */
	struct hashmap	*structs;
};

static size_t handoff__name_hash(long key, void *ctx __maybe_unused)
{
	return str_hash((const char *)key);
}

static bool handoff__name_equal(long a, long b, void *ctx __maybe_unused)
{
	return !strcmp((const char *)a, (const char *)b);
}

int refcnt_die__pointed_type(Dwarf_Die *die, int depth)
{
	Dwarf_Die mem;
	const char *name;

	for (int i = 0; i < depth; i++) {
		if (dwarf_tag(die) != DW_TAG_pointer_type || !die_get_real_type(die, &mem))
			return -1;
		die = &mem;
	}
	if (dwarf_tag(die) != DW_TAG_structure_type)
		return -1;
	name = dwarf_diename(die);
	for (unsigned int t = 0; name && t < refcnt_type_specs__nr; t++) {
		if (!strcmp(name, refcnt_type_specs[t].struct_name))
			return t;
	}
	return -1;
}

/* The types (1 << type index) that the function of subprogram DIE @sp returns. */
static u16 handoff__die_returns(Dwarf_Die *sp)
{
	Dwarf_Die type;
	int t;

	if (!die_get_real_type(sp, &type))
		return 0;
	t = refcnt_die__pointed_type(&type, 1);
	return t >= 0 ? 1U << t : 0;
}

u16 refcnt_die__handoff(Dwarf_Die *sp)
{
	Dwarf_Die type, param;
	u16 mask = handoff__die_returns(sp);
	int t;

	if (dwarf_child(sp, &param))
		return mask;
	do {
		if (dwarf_tag(&param) != DW_TAG_formal_parameter ||
		    !die_get_real_type(&param, &type))
			continue;
		t = refcnt_die__pointed_type(&type, 2);
		if (t >= 0)
			mask |= 1U << t;
	} while (!dwarf_siblingof(&param, &param));
	return mask;
}

/*
 * Of the types @returns, those the function of subprogram DIE @sp also
 * takes a pointer to: a copy constructor (map__clone(struct map *)).
 */
static u16 handoff__die_clones(Dwarf_Die *sp, u16 returns)
{
	Dwarf_Die type, param;
	u16 mask = 0;
	int t;

	if (!returns || dwarf_child(sp, &param))
		return 0;
	do {
		if (dwarf_tag(&param) != DW_TAG_formal_parameter ||
		    !die_get_real_type(&param, &type))
			continue;
		t = refcnt_die__pointed_type(&type, 1);
		if (t >= 0 && (returns & (1U << t)))
			mask |= 1U << t;
	} while (!dwarf_siblingof(&param, &param));
	return mask;
}

/* The id of holder struct @name, or -1 (no name, or too many). */
static int handoff__id(struct refcnt_handoff *h, const char *name)
{
	long id;

	if (!name)
		return -1;
	if (hashmap__find(h->ids, name, &id))
		return id - 1;
	if (h->nr_ids >= HANDOFF_MAX_HOLDERS) {
		pr_debug("perf refcnt: more than %d holder structs, %s not told apart\n",
			 HANDOFF_MAX_HOLDERS, name);
		return -1;
	}
	if (hashmap__add(h->ids, name, (long)h->nr_ids + 1))
		return -1;
	return h->nr_ids++;
}

/*
 * The audited types struct @die holds: members that point to one (struct
 * map *) or to an array of such pointers (struct map **), and those of the
 * structs it embeds (an addr_location's, a map_symbol's), to @depth
 * levels. Each struct that holds a type, embedded ones too, is one of its
 * holders: its id in @held[type].
 */
static u16 handoff__struct(struct refcnt_handoff *h, Dwarf_Die *die, int depth, u64 *held)
{
	Dwarf_Die member, type;
	u16 types = 0;
	int t, id;

	if (dwarf_child(die, &member))
		return 0;
	do {
		if (dwarf_tag(&member) != DW_TAG_member || !die_get_real_type(&member, &type))
			continue;
		t = refcnt_die__pointed_type(&type, 1);
		if (t < 0)
			t = refcnt_die__pointed_type(&type, 2);
		if (t >= 0) {
			types |= 1U << t;
			continue;
		}
		/* an array of structs holds what one does */
		if (dwarf_tag(&type) == DW_TAG_array_type && !die_get_real_type(&type, &type))
			continue;
		if (depth > 0 && dwarf_tag(&type) == DW_TAG_structure_type)
			types |= handoff__struct(h, &type, depth - 1, held);
	} while (!dwarf_siblingof(&member, &member));

	id = types ? handoff__id(h, dwarf_diename(die)) : -1;
	for (t = 0; id >= 0 && t < REFCNT_TYPE__MAX_NR; t++) {
		if (types & (1U << t))
			held[t] |= 1ULL << id;
	}
	return types;
}

/*
 * handoff__struct() of a parameter's struct @die, walked once per name:
 * the same struct in every compilation unit that defines it.
 */
static void handoff__param_struct(struct refcnt_handoff *h, Dwarf_Die *die, u64 *held)
{
	const char *name = dwarf_diename(die);
	struct handoff_struct *hs = NULL;
	bool kept = name && hashmap__find(h->structs, name, &hs);

	if (!kept) {
		hs = zalloc(sizeof(*hs));
		if (!hs)
			return;
		hs->types = handoff__struct(h, die, HANDOFF_EMBED_DEPTH, hs->held);
		/* a declaration (no members here) is walked again where defined */
		kept = name && hs->types && !hashmap__add(h->structs, name, hs);
	}
	for (int t = 0; t < REFCNT_TYPE__MAX_NR; t++)
		held[t] |= hs->held[t];
	if (!kept)
		free(hs);
}

/* The holders of the function of subprogram DIE @sp, per type, in @held. */
static void handoff__holders(struct refcnt_handoff *h, Dwarf_Die *sp, u64 *held)
{
	Dwarf_Die param, type, target;

	if (dwarf_child(sp, &param))
		return;
	do {
		if (dwarf_tag(&param) != DW_TAG_formal_parameter ||
		    !die_get_real_type(&param, &type) || dwarf_tag(&type) != DW_TAG_pointer_type ||
		    !die_get_real_type(&type, &target) ||
		    dwarf_tag(&target) != DW_TAG_structure_type)
			continue;
		handoff__param_struct(h, &target, held);
	} while (!dwarf_siblingof(&param, &param));
}

static int handoff__scan_cu(struct refcnt_handoff *h, Dwarf_Die *cu)
{
	struct handoff_fn fn, *copy, *old;
	Dwarf_Die die;
	Dwarf_Addr lo;

	if (dwarf_child(cu, &die))
		return 0;
	do {
		bool any = false;

		/* the entry: low_pc, or the first range of a split function */
		if (dwarf_tag(&die) != DW_TAG_subprogram || die_entrypc(&die, &lo))
			continue;
		memset(&fn, 0, sizeof(fn));
		fn.handoff = refcnt_die__handoff(&die);
		fn.returns = handoff__die_returns(&die);
		fn.clones = handoff__die_clones(&die, fn.returns);
		handoff__holders(h, &die, fn.holders);
		for (int t = 0; t < REFCNT_TYPE__MAX_NR; t++)
			any |= !!fn.holders[t];
		if (!fn.handoff && !any)
			continue;
		copy = memdup(&fn, sizeof(fn));
		if (!copy)
			return -ENOMEM;
		old = NULL;
		if (hashmap__set(h->fns, lo, copy, NULL, &old)) {
			free(copy);
			return -ENOMEM;
		}
		free(old);	/* the one it replaced, if any */
	} while (!dwarf_siblingof(&die, &die));
	return 0;
}

static void handoff__free_structs(struct refcnt_handoff *h)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!h->structs)
		return;
	hashmap__for_each_entry(h->structs, cur, bkt)
		free(cur->pvalue);
	hashmap__free(h->structs);
	h->structs = NULL;
}

struct refcnt_handoff *refcnt_handoff__new(const char *path)
{
	struct debuginfo *dinfo = debuginfo__new(path);
	struct refcnt_handoff *h;
	Dwarf_Off off = 0, next;
	size_t header;

	if (!dinfo)
		return NULL;
	h = zalloc(sizeof(*h));
	if (!h)
		goto out;
	h->fns = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
	h->ids = hashmap__new(handoff__name_hash, handoff__name_equal, NULL);
	h->structs = hashmap__new(handoff__name_hash, handoff__name_equal, NULL);
	if (IS_ERR(h->fns) || IS_ERR(h->ids) || IS_ERR(h->structs)) {
		if (!IS_ERR(h->fns))
			hashmap__free(h->fns);
		if (!IS_ERR(h->ids))
			hashmap__free(h->ids);
		if (!IS_ERR(h->structs))
			hashmap__free(h->structs);
		free(h);
		h = NULL;
		goto out;
	}
	/* bounded by the file: each unit's header says where the next is */
	while (!dwarf_nextcu(dinfo->dbg, off, &next, &header, NULL, NULL, NULL)) {
		Dwarf_Die cu;

		if (dwarf_offdie(dinfo->dbg, off + header, &cu) &&
		    handoff__scan_cu(h, &cu)) {
			refcnt_handoff__delete(h);
			h = NULL;
			break;
		}
		off = next;
	}
	/* their keys are the debuginfo's strings */
	if (h) {
		handoff__free_structs(h);
		hashmap__free(h->ids);
		h->ids = NULL;
	}
	pr_debug("perf refcnt: %zu functions of %s hand a reference to their caller or take a holder's pointer, %u holder structs\n",
		 h ? hashmap__size(h->fns) : 0, path, h ? h->nr_ids : 0);
out:
	debuginfo__delete(dinfo);
	return h;
}

void refcnt_handoff__delete(struct refcnt_handoff *h)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!h)
		return;
	hashmap__for_each_entry(h->fns, cur, bkt)
		free(cur->pvalue);
	hashmap__free(h->fns);
	handoff__free_structs(h);
	hashmap__free(h->ids);
	free(h);
}

static const struct handoff_fn *handoff__fn(const struct refcnt_handoff *h, u64 start)
{
	struct handoff_fn *fn = NULL;

	if (h)
		hashmap__find(h->fns, start, &fn);
	return fn;
}

u16 refcnt_handoff__types(const struct refcnt_handoff *h, u64 start)
{
	const struct handoff_fn *fn = handoff__fn(h, start);

	return fn ? fn->handoff : 0;
}

u16 refcnt_handoff__returns(const struct refcnt_handoff *h, u64 start)
{
	const struct handoff_fn *fn = handoff__fn(h, start);

	return fn ? fn->returns : 0;
}

u16 refcnt_handoff__clones(const struct refcnt_handoff *h, u64 start)
{
	const struct handoff_fn *fn = handoff__fn(h, start);

	return fn ? fn->clones : 0;
}

const u64 *refcnt_handoff__holders(const struct refcnt_handoff *h, u64 start)
{
	const struct handoff_fn *fn = handoff__fn(h, start);

	return fn ? fn->holders : NULL;
}
