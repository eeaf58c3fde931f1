// SPDX-License-Identifier: GPL-2.0
/*
 * Names for the addresses of a perf refcnt recording.
 */
#include <inttypes.h>
#include <limits.h>

#include "../addr_location.h"
#include "../event.h"
#include "../machine.h"
#include "../map.h"
#include "../symbol.h"
#include "../thread.h"
#include "pairing.h"
#include "stacks.h"
#include "symbolize.h"

const char *refcnt_sym__addr_sym(const struct refcnt_symbolizer *s, u32 pid, u64 addr,
				 bool return_address, u64 *offset, char *buf, size_t sz)
{
	struct thread *thread = machine__find_thread(s->machine, pid, pid);
	struct addr_location al;
	const char *name = NULL;

	addr_location__init(&al);
	if (thread && thread__find_symbol(thread, PERF_RECORD_MISC_USER,
					  addr - return_address, &al)) {
		snprintf(buf, sz, "%s", al.sym->name);
		*offset = map__map_ip(al.map, addr) - al.sym->start;
		name = buf;
	}
	addr_location__exit(&al);
	thread__put(thread);
	return name;
}

int refcnt_sym__fprintf_addr(FILE *fp, const struct refcnt_symbolizer *s, u32 pid, u64 addr,
			     bool return_address)
{
	char name[256];
	u64 offset;

	if (!refcnt_sym__addr_sym(s, pid, addr, return_address, &offset, name, sizeof(name)))
		return fprintf(fp, "[unknown] %#" PRIx64, addr);
	return fprintf(fp, "%s+0x%" PRIx64, name, offset);
}

const char *refcnt_sym__addr_func(const struct refcnt_symbolizer *s, u32 pid, u64 addr,
				  bool return_address, char *buf, size_t sz)
{
	u64 offset;

	if (!refcnt_sym__addr_sym(s, pid, addr, return_address, &offset, buf, sz))
		snprintf(buf, sz, "%#" PRIx64, addr);
	return buf;
}

u32 refcnt_sym__ref_pid(const struct refcnt_symbolizer *s, const struct refcnt_ref *ref)
{
	const struct refcnt_stack *stack = refcnt_stacks__get(s->stacks, ref->stack);

	return stack ? stack->pid : ref->tid;
}

/*
 * The function of a reference's site is the caller key the decoder
 * resolved (exact for inlined sites, which are no return addresses), the
 * offset that of the call site in it.
 */
int refcnt_sym__fprintf_ref(FILE *fp, const struct refcnt_symbolizer *s,
			    const struct refcnt_ref *ref)
{
	u32 pid = refcnt_sym__ref_pid(s, ref);
	char func[256];

	if (!ref->caller)
		return refcnt_sym__fprintf_addr(fp, s, pid, ref->site, true);
	refcnt_sym__addr_func(s, pid, ref->caller, false, func, sizeof(func));
	return fprintf(fp, "%s+0x%" PRIx64, func, ref->site - ref->caller);
}

const char *refcnt_sym__ref_func(const struct refcnt_symbolizer *s, const struct refcnt_ref *ref,
				 char *buf, size_t sz)
{
	return refcnt_sym__addr_func(s, refcnt_sym__ref_pid(s, ref), ref->caller ?: ref->site,
				     !ref->caller, buf, sz);
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
		refcnt_sym__fprintf_addr(fp, s, stack->pid, stack->ips[i], i > 0);
		fputc('\n', fp);
	}
	if (stack->nr > max)
		fprintf(fp, "%s   ... %u more frames (-g shows them)\n", indent, stack->nr - max);
}
