// SPDX-License-Identifier: GPL-2.0
/*
 * The inlined functions holding an address of the audited binary (see
 * inline_scope.h), from libdw: the compilation unit of the address
 * (.debug_aranges), the real function holding it there, then each inlined
 * copy holding it in the one before (perf's cu_walk_functions_at()).
 */
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>

#include "../debuginfo.h"
#include "../dwarf-aux.h"
#include "handoff.h"
#include "inline_scope.h"
#include "spec.h"

/* abstract origins followed from an inlined copy to its function's DIE */
#define INLINE_ORIGIN_HOPS	8

/* The DIE that inlined copy @die is a copy of: its origin's origin... */
static bool inline__origin(Dwarf_Die *die, Dwarf_Die *origin)
{
	Dwarf_Attribute attr;
	bool found = false;

	*origin = *die;
	for (int i = 0; i < INLINE_ORIGIN_HOPS; i++) {
		if (!dwarf_attr(origin, DW_AT_abstract_origin, &attr) ||
		    !dwarf_formref_die(&attr, origin))
			break;
		found = true;
	}
	return found;
}

/* The inlined copies holding an address, outermost first */
struct inline_chain {
	struct refcnt_inline_frame	frames[REFCNT_INLINE_CHAIN];
	int				nr;
};

static int inline_chain__add(Dwarf_Die *die, void *arg)
{
	struct inline_chain *chain = arg;
	Dwarf_Die origin;

	/* the real function first: not an inlined copy, not kept */
	if (dwarf_tag(die) != DW_TAG_inlined_subroutine)
		return 0;
	if (!inline__origin(die, &origin) || chain->nr == REFCNT_INLINE_CHAIN)
		return 1;
	/*
	 * A copy of the refcount API, and what is inlined in it, are the
	 * probe's (an inlined map__get()), or the API's own calls.
	 */
	if (refcnt_type_specs__has_func(dwarf_diename(&origin)))
		return 1;
	chain->frames[chain->nr].key = REFCNT_INLINE_KEY | dwarf_dieoffset(&origin);
	chain->frames[chain->nr].handoff = refcnt_die__handoff(&origin);
	chain->frames[chain->nr].name = dwarf_diename(&origin);
	chain->nr++;
	return 0;
}

int refcnt_inline_scopes__at(struct debuginfo *dinfo, u64 addr,
			     struct refcnt_inline_frame *frames, int max)
{
	struct inline_chain chain = { .nr = 0 };
	Dwarf_Die cu;
	int nr = 0;

	if (!dinfo || !dwarf_addrdie(dinfo->dbg, addr, &cu))
		return 0;
	/* outermost first, each inlined copy looked for in the one before */
	cu_walk_functions_at(&cu, addr, inline_chain__add, &chain);
	while (chain.nr > 0 && nr < max)
		frames[nr++] = chain.frames[--chain.nr];
	return nr;
}
