// SPDX-License-Identifier: GPL-2.0
/*
 * What a call reached (see call_site.h), from libdw: the compilation unit
 * of an address (.debug_aranges), the function holding it there, and the
 * call site DIEs in that function's tree. perf's dwarf-aux walks
 * functions and inlined copies but not call sites.
 */
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>

#include "../debuginfo.h"
#include "../dwarf-aux.h"
#include "call_site.h"

/* a function's tree is walked this deep, and this many DIEs of it */
#define CALL_SITE_DEPTH		32
#define CALL_SITE_DIES		65536U

static bool die__is_call_site(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	return tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site;
}

/* The address a call site returns to: DWARF 5's attribute, or the GNU one's low_pc. */
static bool call_site__return(Dwarf_Die *die, u64 *ret)
{
	Dwarf_Attribute attr;
	Dwarf_Addr addr;

	if ((!dwarf_attr(die, DW_AT_call_return_pc, &attr) &&
	     !dwarf_attr(die, DW_AT_low_pc, &attr)) || dwarf_formaddr(&attr, &addr))
		return false;
	*ret = addr;
	return true;
}

static bool call_site__is_tail(Dwarf_Die *die)
{
	return dwarf_hasattr(die, DW_AT_call_tail_call) || dwarf_hasattr(die, DW_AT_GNU_tail_call);
}

/* The function a call site calls: none named for an indirect call. */
static void call_site__origin(Dwarf_Die *die, struct refcnt_call_origin *origin)
{
	Dwarf_Attribute attr;
	Dwarf_Die callee;
	Dwarf_Addr entry;

	origin->entry = 0;
	origin->name = NULL;
	if ((!dwarf_attr(die, DW_AT_call_origin, &attr) &&
	     !dwarf_attr(die, DW_AT_abstract_origin, &attr)) || !dwarf_formref_die(&attr, &callee))
		return;
	/* the name through the abstract origin or the declaration */
	origin->name = dwarf_diename(&callee);
	if (!dwarf_hasattr(&callee, DW_AT_declaration) && !die_entrypc(&callee, &entry))
		origin->entry = entry;
}

/* The function of @cu whose code holds @addr, or whose entry is @addr (@entry). */
static bool cu__function(Dwarf_Die *cu, u64 addr, bool entry, Dwarf_Die *func)
{
	Dwarf_Addr lo;

	if (dwarf_child(cu, func))
		return false;
	do {
		if (dwarf_tag(func) != DW_TAG_subprogram)
			continue;
		if (entry ? !die_entrypc(func, &lo) && lo == addr : dwarf_haspc(func, addr) > 0)
			return true;
	} while (!dwarf_siblingof(func, func));
	return false;
}

struct call_site_walk {
	u64				ret;	/* the call site returning here, or 0: tail calls */
	struct refcnt_call_origin	*origins;
	int				max;
	int				nr;
	u32				dies;
};

/* One call site: the one returning to @w->ret, or a tail call. Returns true to stop. */
static bool call_site_walk__visit(struct call_site_walk *w, Dwarf_Die *die)
{
	u64 ret;

	if (w->ret) {
		if (!call_site__return(die, &ret) || ret != w->ret)
			return false;
		call_site__origin(die, &w->origins[0]);
		w->nr = 1;
		return true;
	}
	if (!call_site__is_tail(die))
		return false;
	if (w->nr < w->max)
		call_site__origin(die, &w->origins[w->nr]);
	w->nr++;
	return false;
}

/* The call sites of @die's tree, bounded in depth and in DIEs. Returns true to stop. */
static bool call_site_walk__tree(struct call_site_walk *w, Dwarf_Die *die, int depth)
{
	Dwarf_Die child;

	if (depth > CALL_SITE_DEPTH || dwarf_child(die, &child))
		return false;
	do {
		if (++w->dies > CALL_SITE_DIES)
			return true;
		if (die__is_call_site(&child) ? call_site_walk__visit(w, &child) :
		    call_site_walk__tree(w, &child, depth + 1))
			return true;
	} while (!dwarf_siblingof(&child, &child));
	return false;
}

int refcnt_call_sites__at(struct debuginfo *dinfo, u64 ret,
			  struct refcnt_call_origin *origin)
{
	struct call_site_walk w = { .ret = ret, .origins = origin, .max = 1 };
	Dwarf_Die cu, func;

	/* the call instruction is before the address it returns to */
	if (!dinfo || !ret || !dwarf_addrdie(dinfo->dbg, ret - 1, &cu) ||
	    !cu__function(&cu, ret - 1, false, &func))
		return -ENOENT;
	call_site_walk__tree(&w, &func, 0);
	return w.nr ? 0 : -ENOENT;
}

int refcnt_call_sites__tails(struct debuginfo *dinfo, u64 entry,
			     struct refcnt_call_origin *origins, int max)
{
	struct call_site_walk w = { .origins = origins, .max = max };
	Dwarf_Die cu, func;

	if (!dinfo || !dwarf_addrdie(dinfo->dbg, entry, &cu) ||
	    !cu__function(&cu, entry, true, &func))
		return -ENOENT;
	call_site_walk__tree(&w, &func, 0);
	return w.nr;
}

/* The entry of the function @o names: its own, or its symbol's by name; 0 if none. */
static u64 call_origin__entry(const struct refcnt_call_origin *o, refcnt_call_resolve_t resolve,
			      void *arg)
{
	if (o->entry || !o->name)
		return o->entry;
	return resolve(o->name, arg);
}

/*
 * Where the tail calls of the function at @entry lead: the function that
 * one of them makes to free() is the caller; one tail call (to one
 * function, however many sites) is followed; else it is @entry's.
 */
static u64 call_sites__tail_end(struct debuginfo *dinfo, u64 entry,
				refcnt_call_is_free_t is_free, refcnt_call_resolve_t resolve,
				void *arg)
{
	struct refcnt_call_origin tails[REFCNT_TAIL_SITES];

	for (int hop = 0; hop < REFCNT_TAIL_HOPS; hop++) {
		int nr = refcnt_call_sites__tails(dinfo, entry, tails, REFCNT_TAIL_SITES);
		const char *next = NULL;
		u64 to;

		if (nr <= 0 || nr > REFCNT_TAIL_SITES)
			break;
		for (int i = 0; i < nr; i++) {
			if (tails[i].name && is_free(tails[i].name))
				return entry;
			/* an indirect one, or two functions: which one ran is not known */
			if (!tails[i].name || (next && strcmp(next, tails[i].name)))
				return entry;
			next = tails[i].name;
		}
		to = call_origin__entry(&tails[0], resolve, arg);
		if (!to || to == entry)
			break;
		entry = to;
	}
	return entry;
}

u64 refcnt_call_sites__tail_caller(struct debuginfo *dinfo, u64 ret,
				   refcnt_call_is_free_t is_free,
				   refcnt_call_resolve_t resolve, void *arg)
{
	struct refcnt_call_origin o;
	u64 entry;

	if (refcnt_call_sites__at(dinfo, ret, &o) || !o.name || is_free(o.name))
		return 0;
	entry = call_origin__entry(&o, resolve, arg);
	return entry ? call_sites__tail_end(dinfo, entry, is_free, resolve, arg) : 0;
}
