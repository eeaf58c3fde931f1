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
#include <linux/zalloc.h>

#include "../debug.h"
#include "../debuginfo.h"
#include "../dwarf-aux.h"
#include "../hashmap.h"
#include "handoff.h"
#include "hash.h"
#include "spec.h"

struct refcnt_handoff {
	struct hashmap	*types;		/* function's address -> types it hands on */
};

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

u16 refcnt_die__handoff(Dwarf_Die *sp)
{
	Dwarf_Die type, param;
	u16 mask = 0;
	int t;

	if (die_get_real_type(sp, &type)) {
		t = refcnt_die__pointed_type(&type, 1);
		if (t >= 0)
			mask |= 1U << t;
	}
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

static int handoff__scan_cu(struct refcnt_handoff *h, Dwarf_Die *cu)
{
	Dwarf_Die die;
	Dwarf_Addr lo;
	u16 mask;

	if (dwarf_child(cu, &die))
		return 0;
	do {
		/* the entry: low_pc, or the first range of a split function */
		if (dwarf_tag(&die) != DW_TAG_subprogram || die_entrypc(&die, &lo))
			continue;
		mask = refcnt_die__handoff(&die);
		if (mask && hashmap__set(h->types, lo, mask, NULL, NULL))
			return -ENOMEM;
	} while (!dwarf_siblingof(&die, &die));
	return 0;
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
	h->types = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
	if (IS_ERR(h->types)) {
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
	pr_debug("perf refcnt: %zu functions of %s hand a reference to their caller\n",
		 h ? hashmap__size(h->types) : 0, path);
out:
	debuginfo__delete(dinfo);
	return h;
}

void refcnt_handoff__delete(struct refcnt_handoff *h)
{
	if (!h)
		return;
	hashmap__free(h->types);
	free(h);
}

u16 refcnt_handoff__types(const struct refcnt_handoff *h, u64 start)
{
	long mask = 0;

	if (h)
		hashmap__find(h->types, start, &mask);
	return mask;
}
