// SPDX-License-Identifier: GPL-2.0
/*
 * perf test refcnt: unit tests of perf refcnt, on data the tests make.
 */
#include <string.h>
#include <linux/kernel.h>

#include "tests.h"
#include "refcnt-tests.h"
#include "debug.h"
#include "util/refcnt/slot_code.h"
#include "util/refcnt/spec.h"

static int test__refcnt_type_specs(struct test_suite *test __maybe_unused,
				   int subtest __maybe_unused)
{
	unsigned long mask, all = (1UL << refcnt_type_specs__nr) - 1;
	const struct refcnt_type_spec *spec;
	int dso, cpu_map, type, op, ret;
	u64 uncovered;
	char bad[32];

	TEST_ASSERT_EQUAL("six audited types", (int)refcnt_type_specs__nr, 6);

	/* every type names all four operations and its refcount member */
	for (unsigned int i = 0; i < refcnt_type_specs__nr; i++) {
		spec = &refcnt_type_specs[i];
		TEST_ASSERT_VAL("member", spec->member && *spec->member);
		for (int o = 0; o < REFCNT_OP__MAX; o++)
			TEST_ASSERT_VAL(spec->name, spec->funcs[o][0]);
		TEST_ASSERT_VAL("find", refcnt_type_spec__find(spec->name) == spec);
	}

	spec = refcnt_type_spec__find("map");
	TEST_ASSERT_VAL("map", spec && !strcmp(spec->funcs[REFCNT_OP__GET][0], "map__get"));
	TEST_ASSERT_VAL("map born", !strcmp(spec->funcs[REFCNT_OP__BORN][2], "map__clone"));
	TEST_ASSERT_VAL("no such type", !refcnt_type_spec__find("mapz"));

	TEST_ASSERT_VAL("default", !refcnt_type_specs__parse(NULL, &mask, bad, sizeof(bad)));
	TEST_ASSERT_VAL("default is all", mask == all);
	TEST_ASSERT_VAL("all", !refcnt_type_specs__parse("all", &mask, bad, sizeof(bad)));
	TEST_ASSERT_VAL("all is all", mask == all);

	TEST_ASSERT_VAL("list", !refcnt_type_specs__parse("dso, cpu_map", &mask, bad,
							  sizeof(bad)));
	dso = refcnt_type_spec__index(refcnt_type_spec__find("dso"));
	cpu_map = refcnt_type_spec__index(refcnt_type_spec__find("cpu_map"));
	TEST_ASSERT_VAL("list mask", mask == (1UL << dso | 1UL << cpu_map));

	TEST_ASSERT_VAL("unknown", refcnt_type_specs__parse("dso,bogus,map", &mask, bad,
							    sizeof(bad)) == -1);
	TEST_ASSERT_VAL("unknown named", !strcmp(bad, "bogus"));
	TEST_ASSERT_VAL("empty", refcnt_type_specs__parse(",", &mask, bad, sizeof(bad)) == -1);

	TEST_ASSERT_VAL("op names", refcnt_op__from_name("put") == REFCNT_OP__PUT);
	TEST_ASSERT_VAL("op round trip",
			!strcmp(refcnt_op__name(REFCNT_OP__DIES), "dies"));
	TEST_ASSERT_VAL("bad op", refcnt_op__from_name("free") == -1);

	ret = refcnt_event_name__parse("map__get__12", &type, &op, &uncovered);
	TEST_ASSERT_VAL("event name", !ret);
	TEST_ASSERT_VAL("event name fields",
			type == (int)refcnt_type_spec__index(refcnt_type_spec__find("map")) &&
			op == REFCNT_OP__GET && !uncovered);
	ret = refcnt_event_name__parse("cpu_map__put__u4a3f20", &type, &op, &uncovered);
	TEST_ASSERT_VAL("uncovered name", !ret);
	TEST_ASSERT_VAL("uncovered address", type == cpu_map && op == REFCNT_OP__PUT &&
			uncovered == 0x4a3f20);
	ret = refcnt_event_name__parse("map__get__u4x", &type, &op, &uncovered);
	TEST_ASSERT_VAL("bad address", ret == -1);
	ret = refcnt_event_name__parse("map_get", &type, &op, &uncovered);
	TEST_ASSERT_VAL("not ours", ret == -1);
	ret = refcnt_event_name__parse("cpu_map__putslot__l4a3f20", &type, &op, &uncovered);
	TEST_ASSERT_VAL("slot name", !ret && type == cpu_map && op == REFCNT_OP__PUT &&
			!uncovered);
	TEST_ASSERT_VAL("a load's slot",
			refcnt_event_name__slot("cpu_map__putslot__l4a3f20") == REFCNT_SLOT__LOAD);
	TEST_ASSERT_VAL("a store's slot",
			refcnt_event_name__slot("map__getslot__s4a3f20") == REFCNT_SLOT__STORE);
	ret = refcnt_event_name__parse("maps__copyslot__c4a3f20", &type, &op, &uncovered);
	TEST_ASSERT_VAL("a copy's slot", !ret && !uncovered &&
			refcnt_event_name__slot("maps__copyslot__c4a3f20") == REFCNT_SLOT__COPY);
	ret = refcnt_event_name__parse("nsinfo__paramslot__p190330", &type, &op, &uncovered);
	TEST_ASSERT_VAL("a setter's slot", !ret && !uncovered &&
			refcnt_event_name__slot("nsinfo__paramslot__p190330") ==
			REFCNT_SLOT__PARAM);
	ret = refcnt_event_name__parse("maps__copy__4", &type, &op, &uncovered);
	TEST_ASSERT_VAL("a copy is no operation", ret == -1);
	ret = refcnt_event_name__parse("maps__param__4", &type, &op, &uncovered);
	TEST_ASSERT_VAL("nor a setter's", ret == -1);
	TEST_ASSERT_VAL("no slot", !refcnt_event_name__slot("map__get__12") &&
			!refcnt_event_name__slot("map__get__s4a3f20") &&
			!refcnt_event_name__slot("map__getslot__s4x"));
	return TEST_OK;
}

static struct test_case refcnt_tests[] = {
	TEST_CASE("refcnt type specs and --type parsing", refcnt_type_specs),
	TEST_CASE("refcnt pairing: balanced use, no findings", refcnt_pairing_balanced),
	TEST_CASE("refcnt pairing: leak, puts released by caller", refcnt_pairing_leak),
	TEST_CASE("refcnt pairing: double put after the free", refcnt_pairing_double_put),
	TEST_CASE("refcnt pairing: over-release, holder left", refcnt_pairing_over_release),
	TEST_CASE("refcnt pairing: over-release, none left", refcnt_pairing_over_release_live),
	TEST_CASE("refcnt pairing: use after put", refcnt_pairing_use_after_put),
	TEST_CASE("refcnt pairing: a use after an extra put is its consequence",
		  refcnt_pairing_after_extra_put),
	TEST_CASE("refcnt pairing: uses after put kept are bounded",
		  refcnt_pairing_deferred_uses_bound),
	TEST_CASE("refcnt pairing: address reuse across generations", refcnt_pairing_address_reuse),
	TEST_CASE("refcnt pairing: threads, out of order then sorted", refcnt_pairing_threads),
	TEST_CASE("refcnt pairing: object born before recording", refcnt_pairing_born_before),
	TEST_CASE("refcnt pairing: lost events, uncertain", refcnt_pairing_lost),
	TEST_CASE("refcnt pairing: mismatch, then resync", refcnt_pairing_mismatch),
	TEST_CASE("refcnt pairing: --history steps of one object", refcnt_pairing_follow),
	TEST_CASE("refcnt pairing: nested births, missed dies", refcnt_pairing_rebirth),
	TEST_CASE("refcnt pairing: reads racing other threads", refcnt_pairing_racing_reads),
	TEST_CASE("refcnt pairing: a put preempted before it lands",
		  refcnt_pairing_preempted_put),
	TEST_CASE("refcnt pairing: uncovered sites, per type", refcnt_pairing_missed),
	TEST_CASE("refcnt pairing: one address in two address spaces",
		  refcnt_pairing_address_spaces),
	TEST_CASE("refcnt pairing: a thread's exit lands its last operation",
		  refcnt_pairing_thread_exit),
	TEST_CASE("refcnt pairing: leaked, held by a leak, still referenced at exit",
		  refcnt_pairing_exit_scan),
	TEST_CASE("refcnt pairing: the exiting stack's words, a fatal signal, a partial scan",
		  refcnt_pairing_exit_scan_stack),
	TEST_CASE("refcnt pairing: a leak holds only the references it points to",
		  refcnt_pairing_exit_scan_held),
	TEST_CASE("refcnt pairing: a live refcount no object has is no count",
		  refcnt_pairing_implausible_live),
	TEST_CASE("refcnt pairing: held above, extra puts, two references in one call",
		  refcnt_pairing_attribution),
	TEST_CASE("refcnt pairing: indexed references pair as scanned ones",
		  refcnt_pairing_indexed),
	TEST_CASE("refcnt pairing: 10^5 references on one object, released in random order",
		  refcnt_pairing_stress),
	TEST_CASE("refcnt attribution: a remove releases what it released with one choice",
		  refcnt_attribution_learnt),
	TEST_CASE("refcnt attribution: a teardown pairs as the whole recording teaches",
		  refcnt_attribution_learnt_later),
	TEST_CASE("refcnt attribution: a leaked holder's references on others are held by it",
		  refcnt_attribution_held),
	TEST_CASE("refcnt attribution: an extra put is the put that releases nothing",
		  refcnt_attribution_releases_nothing),
	TEST_CASE("refcnt attribution: a lookup's result never put is its owner's leak",
		  refcnt_attribution_owner),
	TEST_CASE("refcnt attribution: a cached lookup's result, its cache's and a stored one",
		  refcnt_attribution_cached_lookup),
	TEST_CASE("refcnt attribution: an inlined cache setter pairs as a called one",
		  refcnt_attribution_cached_inline),
	TEST_CASE("refcnt attribution: what an inlined initializer stores is not its caller's",
		  refcnt_attribution_inline_init),
	TEST_CASE("refcnt attribution: two gets are twins only in the same inlined function",
		  refcnt_attribution_inline_twin),
	TEST_CASE("refcnt attribution: a get after its call's insert took one is one more",
		  refcnt_attribution_insert_then_get),
	TEST_CASE("refcnt attribution: a put releases what its closest call tree took",
		  refcnt_attribution_common_caller),
	TEST_CASE("refcnt attribution: a counted leak is the site's that released least",
		  refcnt_attribution_least_released),
	TEST_CASE("refcnt attribution: a teardown releases a keeper's before a gone owner's",
		  refcnt_attribution_escaped),
	TEST_CASE("refcnt attribution: a put releases what its calls were handed, not kept",
		  refcnt_attribution_caller_not_kept),
	TEST_CASE("refcnt attribution: a put site releases what came back where it did before",
		  refcnt_attribution_handed_site),
	TEST_CASE("refcnt attribution: what an inlined function keeps is a keeper's",
		  refcnt_attribution_scope_keeper),
	TEST_CASE("refcnt attribution: a common caller's tree releases what is kept last",
		  refcnt_attribution_common_not_kept),
	TEST_CASE("refcnt attribution: a remove releases what an insert in its holder kept",
		  refcnt_attribution_holder_teardown),
	TEST_CASE("refcnt attribution: a put releases what was stored where it loaded from",
		  refcnt_attribution_slot),
	TEST_CASE("refcnt attribution: a lookup's result stored by its caller is a slot too",
		  refcnt_attribution_slot_lookup),
	TEST_CASE("refcnt attribution: a leak is the call's that stored over its slot",
		  refcnt_attribution_slot_overwritten),
	TEST_CASE("refcnt attribution: a put that loaded nothing leaves what a static word kept",
		  refcnt_attribution_static_cache),
	TEST_CASE("refcnt attribution: a reference in a caller's frame is that caller's",
		  refcnt_attribution_slot_home),
	TEST_CASE("refcnt attribution: a double put is the copy constructor's that took no get",
		  refcnt_attribution_copied),
	TEST_CASE("refcnt attribution: a double put is the copy's of a struct that got its members",
		  refcnt_attribution_member_copied),
	TEST_CASE("refcnt attribution: a cloned object is no bigger than its type's freed blocks",
		  refcnt_attribution_copied_sized),
	TEST_CASE("refcnt attribution: a put of what a word kept of a dead lifetime is that one's",
		  refcnt_attribution_earlier_word),
	TEST_CASE("refcnt attribution: a double put is the copy's that kept a pointer, no get",
		  refcnt_attribution_slot_borrowed),
	TEST_CASE("refcnt attribution: a put of a copy's word is a double put; a use, its result",
		  refcnt_attribution_slot_borrowed_dead),
	TEST_CASE("refcnt attribution: a leak is the free's of a holder that never put it",
		  refcnt_attribution_freed_holder),
	TEST_CASE("refcnt attribution: a leak its struct's teardown left, putting its neighbours",
		  refcnt_attribution_neighbours_put),
	TEST_CASE("refcnt attribution: a setter's store keeps what its caller took for it",
		  refcnt_attribution_param_store),
	TEST_CASE("refcnt attribution: each holder a free dropped is one leak of the free's",
		  refcnt_attribution_freed_holders),
	TEST_CASE("refcnt attribution: a leak is the free's of the block it was stored in",
		  refcnt_attribution_freed_stored),
	TEST_CASE("refcnt attribution: a reference a word still holds is not the leak",
		  refcnt_attribution_word_holds),
	TEST_CASE("refcnt attribution: free()'s caller through tail calls, by DWARF call sites",
		  refcnt_attribution_tail_calls),
	TEST_CASE("refcnt probe: a get or put past its NULL check, on fixed code",
		  refcnt_probe_past_null),
	TEST_CASE("refcnt probe: where a get's result is stored, a put's argument loaded",
		  refcnt_probe_slots),
	TEST_CASE("refcnt scan: arenas grown past a heap, mmapped chunks side by side",
		  refcnt_scan_heaps),
	TEST_CASE("refcnt scan: a well-formed synthetic heap: found, reachable when pointed to",
		  refcnt_scan_well_formed),
	TEST_CASE("refcnt scan: a damaged heap: chunk size past its region, the rest a root",
		  refcnt_scan_past_region),
	TEST_CASE("refcnt scan: a damaged heap: chunk size 0, too small or misaligned",
		  refcnt_scan_bad_size),
	TEST_CASE("refcnt scan: a damaged heap: negative chunk sizes (-0x40, ~0) do not wrap",
		  refcnt_scan_negative_size),
	TEST_CASE("refcnt scan: a damaged heap: a fastbin list that cycles or links nowhere",
		  refcnt_scan_fastbin_cycle),
	TEST_CASE("refcnt scan: a damaged arena heap keeps its blocks before the damage",
		  refcnt_scan_damaged_arena),
	TEST_CASE("refcnt scan: an array's slots past its length in use are no references",
		  refcnt_scan_arrays),
	TEST_CASE("refcnt scan: out of time (1 ns, 1 ms): done, with what it had",
		  refcnt_scan_out_of_time),
	TEST_CASE("refcnt scan: unreadable and over-budget mappings left out, and said",
		  refcnt_scan_coverage),
	TEST_CASE("refcnt findings: one group per sort key", refcnt_findings_groups),
	TEST_CASE("refcnt findings: suppressions hide what they match",
		  refcnt_findings_suppressions),
	TEST_CASE("refcnt findings: -x, a separator in a field does not shift the others",
		  refcnt_findings_field),
	TEST_CASE("refcnt findings: a row's site says the inlined function that holds it",
		  refcnt_findings_inlined),
	TEST_CASE("refcnt diff: rows new, changed, gone; references per call",
		  refcnt_diff),
	TEST_CASE("refcnt record: a compressed push leaves nothing in the stream",
		  refcnt_zstd_end),
	{ .name = NULL, }
};

struct test_suite suite__refcnt = {
	.desc = "perf refcnt",
	.test_cases = refcnt_tests,
};
