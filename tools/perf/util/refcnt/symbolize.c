// SPDX-License-Identifier: GPL-2.0
/*
 * Names for the addresses of a perf refcnt recording.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/err.h>

#include "../addr_location.h"
#include "../event.h"
#include "../hashmap.h"
#include "../machine.h"
#include "../map.h"
#include "../maps.h"
#include "../symbol.h"
#include "../thread.h"
#include "decode.h"
#include "hash.h"
#include "pairing.h"
#include "stacks.h"
#include "symbolize.h"

int refcnt_sym__exec(struct refcnt_symbolizer *s, u64 space)
{
	u32 pid = refcnt_space__pid(space);
	struct thread *cur, *img;
	int err = -ENOMEM;

	if (!s->images) {
		s->images = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
		if (IS_ERR(s->images)) {
			s->images = NULL;
			return -ENOMEM;
		}
	}
	cur = machine__find_thread(s->machine, pid, pid);
	if (!cur || !thread__maps(cur) || !maps__nr_maps(thread__maps(cur))) {
		thread__put(cur);
		return 0;	/* no image seen: nothing to name in it */
	}
	/* a thread of no machine list, holding a copy of the maps */
	img = thread__new(pid, pid);
	if (img && !thread__init_maps(img, s->machine) &&
	    !maps__copy_from(thread__maps(img), thread__maps(cur)))
		err = hashmap__add(s->images, space, img);
	if (err)
		thread__put(img);
	thread__put(cur);
	return err;
}

void refcnt_sym__exit(struct refcnt_symbolizer *s)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!s->images)
		return;
	hashmap__for_each_entry(s->images, cur, bkt)
		thread__put(cur->pvalue);
	hashmap__free(s->images);
	s->images = NULL;
}

struct thread *refcnt_sym__thread(const struct refcnt_symbolizer *s, u64 space)
{
	u32 pid = refcnt_space__pid(space);
	struct thread *img;

	if (s->images && hashmap__find(s->images, space, &img))
		return thread__get(img);
	return machine__find_thread(s->machine, pid, pid);
}

const char *refcnt_sym__addr_sym(const struct refcnt_symbolizer *s, u64 space, u64 addr,
				 bool return_address, u64 *offset, char *buf, size_t sz)
{
	struct thread *thread = refcnt_sym__thread(s, space);
	struct addr_location al;
	const char *name = NULL;

	addr_location__init(&al);
	if (thread && thread__find_symbol(thread, PERF_RECORD_MISC_USER,
					  refcnt_sym__lookup_addr(addr, return_address), &al)) {
		snprintf(buf, sz, "%s", al.sym->name);
		*offset = map__map_ip(al.map, addr) - al.sym->start;
		name = buf;
	}
	addr_location__exit(&al);
	thread__put(thread);
	return name;
}

int refcnt_sym__fprintf_addr(FILE *fp, const struct refcnt_symbolizer *s, u64 space,
			     u64 addr, bool return_address)
{
	char name[256];
	u64 offset;

	if (!refcnt_sym__addr_sym(s, space, addr, return_address, &offset, name, sizeof(name)))
		return fprintf(fp, "[unknown] %#" PRIx64, addr);
	return fprintf(fp, "%s+0x%" PRIx64, name, offset);
}

const char *refcnt_sym__addr_func(const struct refcnt_symbolizer *s, u64 space, u64 addr,
				  bool return_address, char *buf, size_t sz)
{
	u64 offset;

	if (!refcnt_sym__addr_sym(s, space, addr, return_address, &offset, buf, sz))
		snprintf(buf, sz, "%#" PRIx64, addr);
	return buf;
}

/*
 * The inlined function that holds @ref's site, if the decoder named it:
 * a birth's or a get's only if it keeps the reference (a lookup inlined
 * in its caller hands it on: the reference is the caller's).
 */
static const char *refcnt_sym__ref_inlined(const struct refcnt_symbolizer *s,
					   const struct refcnt_ref *ref)
{
	const char *name;

	if (!ref->scope || !ref->caller || !s->scope_names ||
	    ((ref->op == REFCNT_OP__BORN || ref->op == REFCNT_OP__GET) && !ref->scope_keeps) ||
	    !hashmap__find(s->scope_names, ref->scope, &name))
		return NULL;
	return name;
}

/*
 * The function of a reference's site is the caller key the decoder
 * resolved (exact for inlined sites, which are no return addresses), the
 * offset that of the call site in it; the inlined function there, if
 * any, after it.
 */
int refcnt_sym__fprintf_ref(FILE *fp, const struct refcnt_symbolizer *s,
			    const struct refcnt_ref *ref)
{
	const char *inlined = refcnt_sym__ref_inlined(s, ref);
	char func[256];

	if (!ref->caller)
		return refcnt_sym__fprintf_addr(fp, s, ref->space, ref->site, true);
	refcnt_sym__addr_func(s, ref->space, ref->caller, false, func, sizeof(func));
	if (inlined)
		return fprintf(fp, "%s+0x%" PRIx64 " (%s inlined)", func, ref->site - ref->caller,
			       inlined);
	return fprintf(fp, "%s+0x%" PRIx64, func, ref->site - ref->caller);
}

/*
 * A reference's function is the symbol holding its site, as perf report
 * names it: not the function inlined there, which refcnt_sym__fprintf_ref()
 * shows beside it. Which of the two holds a bug, neither says: an
 * inlined constructor's extra get is the constructor's, a missing put
 * after an inlined helper its caller's.
 */
const char *refcnt_sym__ref_func(const struct refcnt_symbolizer *s, const struct refcnt_ref *ref,
				 char *buf, size_t sz)
{
	return refcnt_sym__addr_func(s, ref->space, ref->caller ?: ref->site, !ref->caller,
				     buf, sz);
}

/*
 * An owner's row (REFCNT_WHY__OWNER: a function that never put what a
 * lookup handed it) names the function whose code made the lookup's call:
 * the inlined function there, if the decoder kept it (one that hands the
 * reference on to the function it is inlined in is not kept: the owner is
 * the outer function). Others name the symbol (refcnt_sym__ref_func()).
 */
const char *refcnt_sym__row_func(const struct refcnt_symbolizer *s, const struct refcnt_ref *ref,
				 enum refcnt_site_why why, char *buf, size_t sz)
{
	/* an owner's culprit keeps its scope (scope_keeps): the name shown beside it */
	const char *name = why == REFCNT_WHY__OWNER ? refcnt_sym__ref_inlined(s, ref) : NULL;

	if (name) {
		snprintf(buf, sz, "%s", name);
		return buf;
	}
	return refcnt_sym__ref_func(s, ref, buf, sz);
}

/*
 * The first frame of an entry probe is the probed function itself: say it
 * once, then its callers.
 */
void refcnt_sym__fprintf_stack(FILE *fp, const struct refcnt_symbolizer *s, u32 id,
			       const char *indent, u32 max)
{
	const struct refcnt_stack *stack = refcnt_stacks__get(s->stacks, id);

	if (!stack)
		return;
	for (u32 i = 0; i < stack->nr && i < max; i++) {
		fprintf(fp, "%s%s", indent, i ? "   " : "---");
		refcnt_sym__fprintf_addr(fp, s, stack->space, stack->ips[i], i > 0);
		fputc('\n', fp);
	}
	if (stack->nr > max)
		fprintf(fp, "%s   ... %u more frames (-g shows them)\n", indent, stack->nr - max);
}

u32 refcnt_sym__stack_nr(const struct refcnt_symbolizer *s, u32 id)
{
	const struct refcnt_stack *stack = refcnt_stacks__get(s->stacks, id);

	return stack ? stack->nr : 0;
}

const char *refcnt_sym__stack_func(const struct refcnt_symbolizer *s, u32 id, u32 i,
				   char *buf, size_t sz)
{
	const struct refcnt_stack *stack = refcnt_stacks__get(s->stacks, id);

	if (!stack || i >= stack->nr)
		return NULL;
	return refcnt_sym__addr_func(s, stack->space, stack->ips[i], i > 0, buf, sz);
}
