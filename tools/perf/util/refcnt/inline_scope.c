// SPDX-License-Identifier: GPL-2.0
/*
 * The inlined functions holding an address of the audited binary (see
 * inline_scope.h), from libdw: the compilation unit of the address
 * (.debug_aranges), then the scopes that hold it in that unit.
 */
#include <stdlib.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <linux/zalloc.h>

#include "../debuginfo.h"
#include "handoff.h"
#include "inline_scope.h"

/* abstract origins followed from an inlined copy to its function's DIE */
#define INLINE_ORIGIN_HOPS	8

struct refcnt_inline_scopes {
	struct debuginfo	*dinfo;
};

struct refcnt_inline_scopes *refcnt_inline_scopes__new(const char *path)
{
	struct refcnt_inline_scopes *s;
	struct debuginfo *dinfo = debuginfo__new(path);

	if (!dinfo)
		return NULL;
	s = zalloc(sizeof(*s));
	if (!s) {
		debuginfo__delete(dinfo);
		return NULL;
	}
	s->dinfo = dinfo;
	return s;
}

void refcnt_inline_scopes__delete(struct refcnt_inline_scopes *s)
{
	if (!s)
		return;
	debuginfo__delete(s->dinfo);
	free(s);
}

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

int refcnt_inline_scopes__at(struct refcnt_inline_scopes *s, u64 addr,
			     struct refcnt_inline_frame *frames, int max)
{
	Dwarf_Die cu, *scopes = NULL, origin;
	int nr_scopes, nr = 0;

	if (!s || !dwarf_addrdie(s->dinfo->dbg, addr, &cu))
		return 0;
	nr_scopes = dwarf_getscopes(&cu, addr, &scopes);
	/* innermost first, up to the function the copies were inlined into */
	for (int i = 0; i < nr_scopes && nr < max; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine || !inline__origin(&scopes[i], &origin))
			continue;
		frames[nr].key = REFCNT_INLINE_KEY | dwarf_dieoffset(&origin);
		frames[nr].handoff = refcnt_die__handoff(&origin);
		nr++;
	}
	free(scopes);
	return nr;
}
