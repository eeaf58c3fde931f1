// SPDX-License-Identifier: GPL-2.0
/*
 * Decode the samples of a perf refcnt recording.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/string.h>
#include <linux/zalloc.h>
#include <traceevent/event-parse.h>

#include "../addr_location.h"
#include "../debug.h"
#include "../debuginfo.h"
#include "../event.h"
#include "../evlist.h"
#include "../evsel.h"
#include "../hashmap.h"
#include "../machine.h"
#include "../map.h"
#include "../sample.h"
#include "../symbol.h"
#include "../thread.h"
#include "../dso.h"
#include "decode.h"
#include "slot_code.h"
#include "handoff.h"
#include "hash.h"
#include "heap_free.h"
#include "scan.h"
#include "call_site.h"
#include "inline_scope.h"
#include "spec.h"
#include "symbolize.h"

/* What an evsel of the recording is: evsel->priv. */
struct refcnt_evsel {
	u8			type;
	u8			op;
	struct tep_format_field	*obj;
	struct tep_format_field	*live;
	struct tep_format_field	*site;		/* entry probes: return address */
	struct tep_format_field	*ret_ip;	/* return probes: the call site */
	struct tep_format_field	*func;		/* return probes: the function */
	int			uncovered;	/* index in decoder->uncovered, or -1 */
	u8			slot_op;	/* a slot probe's: slot_code.h */
	struct tep_format_field	*slot, *disp, *rel;
	struct tep_format_field	*frame;		/* not in recordings made before */
	/* a store's frame pointers, and the return addresses above (slot_code.h) */
	struct tep_format_field	*fp[REFCNT_SLOT_FRAMES + 1];
	struct tep_format_field	*ret[REFCNT_SLOT_FRAMES + 1];
	struct tep_format_field	*param_ret;	/* a setter's: its return address */
	/* a free() (REFCNT_FREE_EVENT): the block, its chunk's size, @site, and above */
	bool			heap_free;
	struct tep_format_field	*block, *size, *up;
};

/* What the decoder knows of a binary's DWARF: d->handoffs */
struct refcnt_dso_handoff {
	struct dso		*dso;		/* a reference held */
	struct refcnt_handoff	*handoff;
	/*
	 * Its DWARF, for its inlined functions (inline_scope.h) and its call
	 * sites (call_site.h): read once one of them is asked for
	 */
	struct debuginfo	*dinfo;
	bool			dinfo_tried;
};

/* a frame is no bigger than this: a chain that jumps further is no chain */
#define REFCNT_SLOT_FRAME_MAX	0x100000ULL

/* A store's frame pointers and return addresses, if its recording has them. */
static void decoder__frame_fields(struct refcnt_evsel *re, struct evsel *evsel)
{
	for (int k = 0; k <= REFCNT_SLOT_FRAMES; k++) {
		re->fp[k] = evsel__field(evsel, refcnt_slot_fp_fields[k]);
		re->ret[k] = refcnt_slot_ret_fields[k] ?
			     evsel__field(evsel, refcnt_slot_ret_fields[k]) : NULL;
	}
}

/* A free()'s evsel: 0, 1 if its fields are not all there, or -ENOMEM. */
static int decoder__free_evsel(struct evsel *evsel)
{
	struct refcnt_evsel *re = zalloc(sizeof(*re));

	if (!re)
		return -ENOMEM;
	re->heap_free = true;
	re->uncovered = -1;
	re->block = evsel__field(evsel, "block");
	re->size = evsel__field(evsel, "size");
	re->site = evsel__field(evsel, "site");
	re->up = evsel__field(evsel, "up");
	if (!re->block || !re->size || !re->site || !re->up) {
		free(re);
		return 1;
	}
	evsel->priv = re;
	return 0;
}

/* The decoder's tables: 0, or an error (what was made is freed at exit). */
static int decoder__new_maps(struct refcnt_decoder *d)
{
	d->callers = hashmap__new(refcnt_space_addr__hash, refcnt_space_addr__equal, NULL);
	if (IS_ERR(d->callers))
		return PTR_ERR(d->callers);
	d->execs = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
	if (IS_ERR(d->execs))
		return PTR_ERR(d->execs);
	d->scope_names = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
	if (IS_ERR(d->scope_names))
		return PTR_ERR(d->scope_names);
	d->handoffs = hashmap__new(refcnt_addr__hash, refcnt_addr__equal, NULL);
	if (IS_ERR(d->handoffs))
		return PTR_ERR(d->handoffs);
	return 0;
}

int refcnt_decoder__init(struct refcnt_decoder *d, struct evlist *evlist,
			 struct machine *machine)
{
	struct evsel *evsel;
	int nr = 0, err;

	memset(d, 0, sizeof(*d));
	d->machine = machine;
	err = refcnt_stacks__init(&d->stacks) ?: decoder__new_maps(d);
	if (err)
		return err;

	evlist__for_each_entry(evlist, evsel) {
		const char *name = strchr(evsel__name(evsel), ':');
		struct refcnt_evsel *re;
		u64 uncovered;
		int type, op;

		/* a damaged attr may name no event of the tracing data */
		if (!name || !strstarts(evsel__name(evsel), "refcnt_") || !evsel->tp_format)
			continue;
		if (!strcmp(name + 1, REFCNT_FREE_EVENT)) {
			err = decoder__free_evsel(evsel);
			if (err < 0)
				return err;
			d->has_frees |= !err;
			continue;
		}
		if (refcnt_event_name__parse(name + 1, &type, &op, &uncovered))
			continue;

		re = zalloc(sizeof(*re));
		if (!re)
			return -ENOMEM;
		re->type = type;
		re->op = op;
		re->uncovered = -1;
		if (uncovered) {
			struct refcnt_uncovered *u;

			u = reallocarray(d->uncovered, d->nr_uncovered + 1, sizeof(*u));
			if (!u) {
				free(re);
				return -ENOMEM;
			}
			d->uncovered = u;
			u += d->nr_uncovered;
			memset(u, 0, sizeof(*u));
			u->type = type;
			u->op = op;
			u->vaddr = uncovered;
			re->uncovered = d->nr_uncovered++;
			evsel->priv = re;
			nr++;
			continue;
		}
		re->slot_op = refcnt_event_name__slot(name + 1);
		re->slot = evsel__field(evsel, "slot");
		re->disp = evsel__field(evsel, "disp");
		re->rel = evsel__field(evsel, "rel");
		re->frame = evsel__field(evsel, "frame");
		re->param_ret = evsel__field(evsel, REFCNT_PARAM_RET_FIELD);
		decoder__frame_fields(re, evsel);
		if (re->slot_op && (!re->slot || !re->disp || !re->rel ||
				    (re->slot_op == REFCNT_SLOT__PARAM && !re->param_ret))) {
			free(re);	/* damaged: neither a slot event nor an operation */
			continue;
		}
		re->obj = evsel__field(evsel, "obj");
		re->live = evsel__field(evsel, "live");
		re->site = evsel__field(evsel, "site");
		re->ret_ip = evsel__field(evsel, "__probe_ret_ip");
		re->func = evsel__field(evsel, "__probe_func");
		if (!re->obj) {
			free(re);
			continue;
		}
		evsel->priv = re;
		d->type_mask |= 1UL << type;
		nr++;
	}
	return nr;
}

void refcnt_decoder__exit(struct refcnt_decoder *d, struct evlist *evlist)
{
	struct evsel *evsel;

	if (evlist) {
		evlist__for_each_entry(evlist, evsel)
			zfree(&evsel->priv);
	}
	refcnt_stacks__exit(&d->stacks);
	zfree(&d->uncovered);
	d->nr_uncovered = 0;
	zfree(&d->ups);
	d->nr_ups = 0;
	if (!IS_ERR_OR_NULL(d->callers)) {
		struct hashmap_entry *cur;
		size_t bkt;

		hashmap__for_each_entry(d->callers, cur, bkt)
			free((void *)cur->key);
		hashmap__free(d->callers);
	}
	d->callers = NULL;
	if (!IS_ERR_OR_NULL(d->execs))
		hashmap__free(d->execs);
	d->execs = NULL;
	refcnt_hashmap__free_values(d->scope_names);
	d->scope_names = NULL;
	if (!IS_ERR_OR_NULL(d->handoffs)) {
		struct hashmap_entry *cur;
		size_t bkt;

		hashmap__for_each_entry(d->handoffs, cur, bkt) {
			struct refcnt_dso_handoff *dh = cur->pvalue;

			refcnt_handoff__delete(dh->handoff);
			debuginfo__delete(dh->dinfo);
			dso__put(dh->dso);
			free(dh);
		}
		hashmap__free(d->handoffs);
	}
	d->handoffs = NULL;
}

u64 refcnt_decoder__space(const struct refcnt_decoder *d, u32 pid)
{
	long execs;

	if (hashmap__find(d->execs, pid, &execs))
		return (u64)execs << 32 | pid;
	return pid;
}

int refcnt_decoder__exec(struct refcnt_decoder *d, u32 pid)
{
	long execs = 0;

	hashmap__find(d->execs, pid, &execs);
	return hashmap__set(d->execs, pid, execs + 1, NULL, NULL);
}

/* The function of a call site, as the pairing engine knows it. */
struct refcnt_caller {
	struct refcnt_space_addr site;	/* first: the hashmap's key */
	u64	key;			/* its start, 0 if unknown */
	u16	handoff;		/* the types it hands its caller */
	bool	frees;			/* a free wrapper's (refcnt_free_wrapper()) */
	u16	clones;			/* the types it copies (handoff.h) */
	bool	freer_known;		/* @freer was looked up */
	u64	freer;			/* a free() returning here: its caller's key, if
					 * not this function's (call_site.h); 0 if not known
					 */
	bool	audited;		/* in a binary whose DWARF was read */
	const u64 *holders;		/* per type, the handoff table's: handoff.h */
	u16	holds;			/* the types @holders has any of */
	bool	inlines_known;		/* @scope was looked up */
	/* the innermost inlined function holding the site; key 0: none */
	struct refcnt_inline_frame scope;
};

/* The holders of type @type of @c's function, per handoff.h. */
static u64 caller__holders(const struct refcnt_caller *c, u8 type)
{
	return c && c->holders && type < REFCNT_TYPE__MAX_NR ? c->holders[type] : 0;
}

/* The types that @c's function has holders of (refcnt_free.holds). */
static u16 caller__holds(const struct refcnt_caller *c)
{
	u16 holds = 0;

	BUILD_BUG_ON(REFCNT_TYPE__MAX_NR > 16);
	for (u8 type = 0; type < REFCNT_TYPE__MAX_NR; type++) {
		if (caller__holders(c, type))
			holds |= 1U << type;
	}
	return holds;
}

/* @dh's DWARF, once: NULL if it has none */
static struct debuginfo *dso_handoff__read_dwarf(struct refcnt_dso_handoff *dh)
{
	if (!dh->dinfo_tried) {
		dh->dinfo = debuginfo__new(dso__long_name(dh->dso));
		dh->dinfo_tried = true;
	}
	return dh->dinfo;
}

/*
 * What the decoder reads of @dso's DWARF: once per binary, NULL if none;
 * the DWARF itself (inlined functions, call sites) only once asked for
 * (@inlines): the binaries of frames above the sites (libc) need only the
 * table.
 */
static struct refcnt_dso_handoff *decoder__dso(struct refcnt_decoder *d, struct dso *dso,
					       bool inlines)
{
	/* the dso itself, not an RC_CHK indirection of it (a new one per get) */
	long key = (long)RC_CHK_ACCESS(dso);
	struct refcnt_dso_handoff *dh;

	if (hashmap__find(d->handoffs, key, &dh)) {
		if (inlines)
			dso_handoff__read_dwarf(dh);
		return dh;
	}
	/* read once per binary; NULL tables (no DWARF) are kept too */
	dh = zalloc(sizeof(*dh));
	if (!dh)
		return NULL;
	/* held: no other dso comes at this address while we key by it */
	dh->dso = dso__get(dso);
	dh->handoff = refcnt_handoff__new(dso__long_name(dso));
	if (inlines)
		dso_handoff__read_dwarf(dh);
	if (hashmap__add(d->handoffs, key, dh)) {
		dso__put(dh->dso);
		refcnt_handoff__delete(dh->handoff);
		debuginfo__delete(dh->dinfo);
		free(dh);
		return NULL;
	}
	return dh;
}

/*
 * Keep the name of inlined function @f, which a reference's site shows
 * beside the symbol (refcnt_sym__fprintf_ref()).
 */
static void decoder__name_scope(struct refcnt_decoder *d, const struct refcnt_inline_frame *f)
{
	char *name;

	if (!f->name || hashmap__find(d->scope_names, f->key, NULL))
		return;
	name = strdup(f->name);
	if (name && hashmap__add(d->scope_names, f->key, name))
		free(name);
}

/*
 * Look up the function holding @c's site, and with @inlines the innermost
 * inlined function holding it, while the maps of @sample's thread are
 * current.
 */
static void decoder__lookup(struct refcnt_decoder *d, struct perf_sample *sample,
			    struct refcnt_caller *c, bool return_address, bool inlines)
{
	u64 addr = refcnt_sym__lookup_addr(c->site.addr, return_address);
	struct refcnt_dso_handoff *dh;
	struct addr_location al;
	struct thread *thread;

	thread = machine__findnew_thread(d->machine, sample->pid, sample->tid);
	if (!thread)
		return;
	addr_location__init(&al);
	if (thread__find_symbol(thread, PERF_RECORD_MISC_USER, addr, &al) && al.map) {
		dh = decoder__dso(d, map__dso(al.map), inlines);
		c->key = map__unmap_ip(al.map, al.sym->start);
		c->frees = refcnt_free_wrapper(al.sym->name);
		c->audited = dh && dh->handoff;
		c->handoff = dh ? refcnt_handoff__types(dh->handoff, al.sym->start) : 0;
		c->clones = dh ? refcnt_handoff__clones(dh->handoff, al.sym->start) : 0;
		c->holders = dh ? refcnt_handoff__holders(dh->handoff, al.sym->start) : NULL;
		c->holds = caller__holds(c);
		if (inlines && dh) {
			/* the address in the binary, as its DWARF has it */
			u64 vaddr = map__rip_2objdump(al.map, map__map_ip(al.map, addr));

			/* the engine asks only for the innermost one */
			if (refcnt_inline_scopes__at(dh->dinfo, vaddr, &c->scope, 1) != 1)
				c->scope.key = 0;
			else
				decoder__name_scope(d, &c->scope);
			c->scope.name = NULL;	/* libdw's: kept as a copy, not a pointer */
		}
	}
	c->inlines_known |= inlines;
	addr_location__exit(&al);
	thread__put(thread);
}

/*
 * The pairing engine's view of a call site: the function holding it, the
 * types that function hands its caller and, with @inlines, the innermost
 * inlined function holding it. Looked up once per site of an address space
 * (another image may hold another function at the same address). NULL
 * only when out of memory.
 */
static struct refcnt_caller *decoder__site(struct refcnt_decoder *d,
					   struct perf_sample *sample, u64 space, u64 site,
					   bool return_address, bool inlines)
{
	struct refcnt_space_addr lookup = { .space = space, .addr = site };
	struct refcnt_caller *c = NULL;

	if (hashmap__find(d->callers, &lookup, &c)) {
		if (inlines && !c->inlines_known)
			decoder__lookup(d, sample, c, return_address, true);
		return c;
	}
	c = zalloc(sizeof(*c));
	if (!c)
		return NULL;
	c->site = lookup;
	decoder__lookup(d, sample, c, return_address, inlines);
	if (hashmap__add(d->callers, &c->site, c)) {
		free(c);
		return NULL;
	}
	return c;
}

/*
 * The pairing engine's caller key of a call site, and the types that
 * function hands its caller in @handoff if not NULL.
 */
static u64 decoder__caller(struct refcnt_decoder *d, struct perf_sample *sample,
			   u64 space, u64 site, bool return_address, u16 *handoff)
{
	const struct refcnt_caller *c = NULL;

	if (site)
		c = decoder__site(d, sample, space, site, return_address, false);
	if (handoff)
		*handoff = c ? c->handoff : 0;
	return c ? c->key : 0;
}

/*
 * The functions of the frames above the call site, for the pairing engine:
 * the site is the first frame of a return or inlined probe, the second of an
 * entry probe (whose first is the probed function).
 */
static void decoder__up(struct refcnt_decoder *d, struct perf_sample *sample,
			struct refcnt_event *ev, u32 site_frame)
{
	const struct refcnt_stack *stack = refcnt_stacks__get(&d->stacks, ev->stack);
	struct refcnt_stack_up *up;

	if (!stack)
		return;

	/* a stack's frames are the same at every event: look them up once */
	if (ev->stack > d->nr_ups) {
		u32 nr = max(ev->stack, d->nr_ups * 2);
		struct refcnt_stack_up *ups = reallocarray(d->ups, nr, sizeof(*ups));

		if (!ups)
			return;
		memset(ups + d->nr_ups, 0, (nr - d->nr_ups) * sizeof(*ups));
		d->ups = ups;
		d->nr_ups = nr;
	}
	up = &d->ups[ev->stack - 1];
	if (!up->known) {
		const u64 *above = stack->ips + site_frame + 1;

		for (u32 i = 0; i < REFCNT_ABOVE_FRAMES && site_frame + 1 + i < stack->nr; i++) {
			up->up[i] = decoder__caller(d, sample, ev->space, above[i], true,
						    &up->handoff[i]);
			up->nr = i + 1;
		}
		up->known = true;
	}
	memcpy(ev->up, up->up, sizeof(ev->up));
	ev->above = up->up;
	ev->nr_above = up->nr;
}

/*
 * Who owns the reference a birth or a get takes: the first function from
 * the site up that does not hand the type to its caller (@handoff: what
 * the site's own function hands on), and the return address in its frame.
 * Left 0 when it is the site's own function, or not known.
 */
static void decoder__owner(struct refcnt_decoder *d, struct refcnt_event *ev, u16 handoff,
			   u32 site_frame)
{
	const struct refcnt_stack *stack = refcnt_stacks__get(&d->stacks, ev->stack);
	const struct refcnt_stack_up *up;
	u32 nr, frame;

	if (!stack || ev->stack > d->nr_ups || stack->nr <= site_frame + 1)
		return;
	up = &d->ups[ev->stack - 1];
	if (!up->known)
		return;
	nr = min_t(u32, up->nr, stack->nr - site_frame - 1);
	/* the calls it is handed back through: the last one's is its owner's */
	for (u32 i = 0; (handoff & (1U << ev->type)) && i < nr && i < REFCNT_HAND_SITES; i++) {
		ev->hand_sites[i] = stack->ips[site_frame + 1 + i];
		if (!up->up[i] || !(up->handoff[i] & (1U << ev->type)))
			break;
	}
	frame = refcnt_handoff__owner(ev->type, handoff, up->up, up->handoff, nr);
	if (frame) {
		ev->owner = up->up[frame - 1];
		ev->owner_site = stack->ips[site_frame + frame];
	}
}

/*
 * A reference handed to its owner is stored in the owner's holders, if
 * anywhere; the inlined function at the owner's call owns it, unless it
 * hands it on (to the function it is inlined in).
 */
static void decoder__owner_holders(struct refcnt_decoder *d, struct perf_sample *sample,
				   struct refcnt_event *ev)
{
	const struct refcnt_caller *c = decoder__site(d, sample, ev->space, ev->owner_site,
						      true, true);

	ev->holders = caller__holders(c, ev->type);
	if (c && !(c->scope.handoff & (1U << ev->type)))
		ev->owner_scope = c->scope.key;
}

static u32 decoder__stack(struct refcnt_decoder *d, struct perf_sample *sample, u64 space)
{
	struct ip_callchain *chain = sample->callchain;
	u64 ips[PERF_MAX_STACK_DEPTH];
	u32 nr = 0;

	if (!chain)
		return 0;
	for (u64 i = 0; i < chain->nr && nr < ARRAY_SIZE(ips); i++) {
		if (chain->ips[i] >= PERF_CONTEXT_MAX)
			continue;	/* a context marker */
		ips[nr++] = chain->ips[i];
	}
	return refcnt_stacks__intern(&d->stacks, ips, nr, space);
}

/*
 * The function of @ev's site (its caller key), and the inlined function
 * there (its scope, inline_scope.h). Returns the types that the caller
 * hands on.
 */
static u16 decoder__function(struct refcnt_decoder *d, struct perf_sample *sample,
			     struct refcnt_event *ev, bool return_address)
{
	const struct refcnt_caller *c;
	bool takes = ev->op == REFCNT_OP__BORN || ev->op == REFCNT_OP__GET;

	if (!ev->site)
		return 0;
	c = decoder__site(d, sample, ev->space, ev->site, return_address, true);
	if (!c)
		return 0;
	ev->caller = c->key;
	ev->hands_on = c->handoff & (1U << ev->type);
	ev->holders = caller__holders(c, ev->type);
	if (c->scope.key) {
		ev->scope = c->scope.key;
		ev->scope_keeps = takes && !(c->scope.handoff & (1U << ev->type));
	}
	return c->handoff;
}

static bool field__in(const struct tep_format_field *field, const struct perf_sample *sample)
{
	return !field || (sample->raw_data && field->size >= 0 && field->offset >= 0 &&
			  (u32)field->offset + field->size <= sample->raw_size);
}

/*
 * A store's slot in the frame of a function above the storing one, by the
 * frame pointers its probe read: that function's key and the return address
 * in it, in @ev (refcnt_event.slot_home). A frame's locals are below its
 * frame pointer and above the one below it, its callee's saved frame
 * pointer and return address; a chain that does not climb is no chain.
 */
static void decoder__slot_home(struct refcnt_decoder *d, const struct refcnt_evsel *re,
			       struct evsel *evsel, struct perf_sample *sample,
			       struct refcnt_event *ev)
{
	u64 fp[REFCNT_SLOT_FRAMES + 1];

	for (int k = 0; k <= REFCNT_SLOT_FRAMES; k++) {
		if (!re->fp[k] || !field__in(re->fp[k], sample) ||
		    (k && (!re->ret[k] || !field__in(re->ret[k], sample))))
			return;
		fp[k] = format_field__intval(re->fp[k], sample, evsel->needs_swap);
	}
	for (int k = 1; k <= REFCNT_SLOT_FRAMES; k++) {
		u64 ret;

		if (fp[k] <= fp[k - 1] || fp[k] - fp[k - 1] > REFCNT_SLOT_FRAME_MAX)
			return;
		/* above the frame below's saved frame pointer and return address */
		if (ev->slot <= fp[k - 1] || ev->slot - fp[k - 1] < 2 * sizeof(u64) ||
		    ev->slot >= fp[k])
			continue;
		ret = format_field__intval(re->ret[k], sample, evsel->needs_swap);
		ev->slot_home = ret ? decoder__caller(d, sample, ev->space, ret, true, NULL) : 0;
		ev->slot_home_site = ev->slot_home ? ret : 0;
		return;
	}
}

/*
 * A slot probe's event: the slot's address, and the site of the call it
 * belongs to (the get's or the put's return address; a copy's own), @rel
 * from the probe; for a store or a copy, the function of that call, and
 * whether the slot is a local of its frame.
 */
static int decoder__slot(struct refcnt_decoder *d, const struct refcnt_evsel *re,
			 struct evsel *evsel, struct perf_sample *sample,
			 struct refcnt_event *ev)
{
	if (!field__in(re->slot, sample) || !field__in(re->disp, sample) ||
	    !field__in(re->rel, sample) || !field__in(re->frame, sample))
		return 1;
	ev->slot_op = re->slot_op;
	ev->slot = format_field__intval(re->slot, sample, evsel->needs_swap) +
		   (s64)format_field__intval(re->disp, sample, evsel->needs_swap);
	ev->site = sample->ip + (s64)format_field__intval(re->rel, sample, evsel->needs_swap);
	ev->live = REFCNT_LIVE_UNKNOWN;
	if (ev->slot_op == REFCNT_SLOT__LOAD || !re->frame)
		return 0;
	switch (format_field__intval(re->frame, sample, evsel->needs_swap)) {
	case 0:
		ev->slot_where = REFCNT_SLOT_WHERE__MEMORY;
		break;
	case 1:
		ev->slot_where = REFCNT_SLOT_WHERE__FRAME;
		break;
	case 2:
		ev->slot_where = REFCNT_SLOT_WHERE__STATIC;
		break;
	default:
		ev->slot_where = REFCNT_SLOT_WHERE__UNKNOWN;
		break;
	}
	if (ev->slot_op == REFCNT_SLOT__STORE && ev->slot_where == REFCNT_SLOT_WHERE__MEMORY)
		decoder__slot_home(d, re, evsel, sample, ev);
	/* a store's site is a call's return address; a copy's and a setter's, their own */
	ev->caller = decoder__caller(d, sample, ev->space, ev->site,
				     ev->slot_op == REFCNT_SLOT__STORE, NULL);
	/* a setter's caller, who passed it what it stores */
	if (ev->slot_op == REFCNT_SLOT__PARAM && field__in(re->param_ret, sample))
		ev->up[0] = decoder__caller(d, sample, ev->space,
					    format_field__intval(re->param_ret, sample,
								 evsel->needs_swap),
					    true, NULL);
	return 0;
}

static bool name__frees(const char *name)
{
	return !strcmp(name, REFCNT_FREE_FUNC) || refcnt_free_wrapper(name);
}

/* The entry of a function of @arg's map (its dso's symbols), by name: DWARF's address. */
static u64 map__entry_by_name(const char *name, void *arg)
{
	struct map *map = arg;
	struct symbol *sym;

	dso__sort_by_name(map__dso(map));
	sym = dso__find_symbol_by_name(map__dso(map), name, NULL);
	return sym ? map__rip_2objdump(map, sym->start) : 0;
}

/*
 * free() returned to @c's site, of an audited binary: the key of the
 * function that called it, if a tail call made it another one than @c's
 * (call_site.h); 0 if not, or not known.
 */
static u64 decoder__freer(struct refcnt_decoder *d, struct perf_sample *sample,
			  struct refcnt_caller *c)
{
	u64 addr = refcnt_sym__lookup_addr(c->site.addr, true), entry;
	struct refcnt_dso_handoff *dh;
	struct addr_location al;
	struct thread *thread;

	if (c->freer_known)
		return c->freer;
	c->freer_known = true;
	thread = machine__findnew_thread(d->machine, sample->pid, sample->tid);
	if (!thread)
		return 0;
	addr_location__init(&al);
	dh = thread__find_map(thread, PERF_RECORD_MISC_USER, addr, &al) ?
	     decoder__dso(d, map__dso(al.map), false) : NULL;
	if (dh && dso_handoff__read_dwarf(dh)) {
		u64 ret = map__rip_2objdump(al.map, map__map_ip(al.map, c->site.addr));

		entry = refcnt_call_sites__tail_caller(dh->dinfo, ret, name__frees,
						       map__entry_by_name, al.map);
		/* a function's start, as the engine keys functions */
		if (entry)
			c->freer = map__objdump_2mem(al.map, entry);
	}
	addr_location__exit(&al);
	thread__put(thread);
	if (c->freer &&
	    decoder__caller(d, sample, c->site.space, c->freer, false, NULL) != c->freer)
		c->freer = 0;
	if (c->freer == c->key)
		c->freer = 0;
	return c->freer;
}

/* The function whose entry is @entry (not one that holds it), or NULL. */
static struct refcnt_caller *decoder__function_at(struct refcnt_decoder *d,
						  struct perf_sample *sample, u64 space, u64 entry)
{
	struct refcnt_caller *c = entry ? decoder__site(d, sample, space, entry, false, false) :
				  NULL;

	return c && c->key == entry ? c : NULL;
}

int refcnt_decoder__decode_free(struct refcnt_decoder *d, struct evsel *evsel,
				struct perf_sample *sample, struct refcnt_free *f)
{
	struct refcnt_evsel *re = evsel->priv;
	struct refcnt_caller *c = NULL, *upc;
	u64 size, up, freer;

	if (!re || !re->heap_free)
		return 1;
	if (!field__in(re->block, sample) || !field__in(re->size, sample) ||
	    !field__in(re->site, sample) || !field__in(re->up, sample)) {
		d->bad_samples++;
		return 2;
	}
	memset(f, 0, sizeof(*f));
	f->time = sample->time;
	f->tid = sample->tid;
	f->space = refcnt_decoder__space(d, sample->pid);
	f->block = format_field__intval(re->block, sample, evsel->needs_swap);
	size = format_field__intval(re->size, sample, evsel->needs_swap) & ~REFCNT_CHUNK_FLAGS;
	f->site = format_field__intval(re->site, sample, evsel->needs_swap);
	up = format_field__intval(re->up, sample, evsel->needs_swap);
	/* the chunk's size word, as the process's heap says: a damaged one is no block */
	if (!f->block || size < REFCNT_CHUNK_MIN || size > REFCNT_CHUNK_PLAUSIBLE)
		return 2;
	/* its user data runs into the next chunk's prev_size: a word less than the chunk */
	f->size = size - sizeof(u64);
	if (f->site)
		c = decoder__site(d, sample, f->space, f->site, true, false);
	/* a wrapper's call is its caller's: the one above, or none known */
	if (c && c->frees) {
		f->site = up;
		c = up ? decoder__site(d, sample, f->space, up, true, false) : NULL;
		up = 0;
	}
	f->caller = c ? c->key : 0;
	f->audited = c && c->audited;
	upc = up ? decoder__site(d, sample, f->space, up, true, false) : NULL;
	/* a tail call: free()'s caller left no frame, the site's function called it */
	freer = f->audited ? decoder__freer(d, sample, c) : 0;
	if (freer) {
		upc = c;
		up = f->site;
		f->caller = freer;
		f->site = freer;
		c = decoder__function_at(d, sample, f->space, freer);
	}
	f->holds = c ? c->holds : 0;
	f->up_caller = upc ? upc->key : 0;
	f->up_site = upc ? up : 0;
	f->up_holds = upc ? upc->holds : 0;
	return 0;
}

/* The constructor at @entry, if it copies @ev's type (handoff.h): its key; else 0. */
static u64 decoder__clone(struct refcnt_decoder *d, struct perf_sample *sample,
			  const struct refcnt_event *ev, u64 entry)
{
	const struct refcnt_caller *c = decoder__function_at(d, sample, ev->space, entry);

	return c && (c->clones & (1U << ev->type)) ? c->key : 0;
}

int refcnt_decoder__decode(struct refcnt_decoder *d, struct evsel *evsel,
			   struct perf_sample *sample, struct refcnt_event *ev)
{
	struct refcnt_evsel *re = evsel->priv;
	bool return_address = true;
	u16 handoff;

	if (!re || re->heap_free)
		return 1;

	memset(ev, 0, sizeof(*ev));
	ev->type = re->type;
	ev->op = re->op;
	ev->time = sample->time;
	ev->tid = sample->tid;
	ev->space = refcnt_decoder__space(d, sample->pid);
	/* the fields must be in the sample: a damaged file may say otherwise */
	if (!field__in(re->obj, sample) || !field__in(re->live, sample) ||
	    !field__in(re->site, sample) || !field__in(re->ret_ip, sample)) {
		d->bad_samples++;
		return 2;	/* an operation of this type, missed */
	}
	if (re->uncovered >= 0) {
		struct refcnt_uncovered *u = &d->uncovered[re->uncovered];

		if (!u->hits++) {
			u->ip = sample->ip;
			u->space = ev->space;
		}
		ev->site = sample->ip;
		return 2;
	}
	ev->obj = format_field__intval(re->obj, sample, evsel->needs_swap);
	/* a load of NULL says the word holds no reference now: the engine's */
	if (!ev->obj && re->slot_op != REFCNT_SLOT__LOAD) {
		d->null_ops++;
		return 1;
	}
	ev->live = re->live ? (s32)format_field__intval(re->live, sample, evsel->needs_swap)
			    : REFCNT_LIVE_UNKNOWN;
	if (re->slot_op && decoder__slot(d, re, evsel, sample, ev)) {
		d->bad_samples++;
		return 1;
	}
	if (re->slot_op)
		return 0;

	if (re->site) {
		ev->site = format_field__intval(re->site, sample, evsel->needs_swap);
	} else if (re->ret_ip) {
		ev->site = format_field__intval(re->ret_ip, sample, evsel->needs_swap);
	} else {
		/* an inlined copy: the probe is in the caller */
		ev->site = sample->ip;
		return_address = false;
	}
	handoff = decoder__function(d, sample, ev, return_address);
	if (ev->op == REFCNT_OP__BORN && re->func && field__in(re->func, sample))
		ev->born_clone = decoder__clone(d, sample, ev,
						format_field__intval(re->func, sample,
								     evsel->needs_swap));
	ev->stack = decoder__stack(d, sample, ev->space);
	decoder__up(d, sample, ev, re->site ? 1 : 0);
	if (ev->op == REFCNT_OP__BORN || ev->op == REFCNT_OP__GET)
		decoder__owner(d, ev, handoff, re->site ? 1 : 0);
	if (ev->owner)
		decoder__owner_holders(d, sample, ev);
	return 0;
}
