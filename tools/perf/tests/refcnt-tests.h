/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_TESTS_REFCNT_H
#define __PERF_TESTS_REFCNT_H

/* The cases of the "perf refcnt" suite that live outside tests/refcnt.c. */

struct test_suite;

/* tests/refcnt-pairing.c: the pairing engine on synthetic streams */
int test__refcnt_pairing_balanced(struct test_suite *test, int subtest);
int test__refcnt_pairing_leak(struct test_suite *test, int subtest);
int test__refcnt_pairing_double_put(struct test_suite *test, int subtest);
int test__refcnt_pairing_over_release(struct test_suite *test, int subtest);
int test__refcnt_pairing_over_release_live(struct test_suite *test, int subtest);
int test__refcnt_pairing_use_after_put(struct test_suite *test, int subtest);
int test__refcnt_pairing_after_extra_put(struct test_suite *test, int subtest);
int test__refcnt_pairing_deferred_uses_bound(struct test_suite *test, int subtest);
int test__refcnt_pairing_address_reuse(struct test_suite *test, int subtest);
int test__refcnt_pairing_threads(struct test_suite *test, int subtest);
int test__refcnt_pairing_born_before(struct test_suite *test, int subtest);
int test__refcnt_pairing_lost(struct test_suite *test, int subtest);
int test__refcnt_pairing_mismatch(struct test_suite *test, int subtest);
int test__refcnt_pairing_follow(struct test_suite *test, int subtest);
int test__refcnt_pairing_rebirth(struct test_suite *test, int subtest);
int test__refcnt_pairing_racing_reads(struct test_suite *test, int subtest);
int test__refcnt_pairing_preempted_put(struct test_suite *test, int subtest);
int test__refcnt_pairing_missed(struct test_suite *test, int subtest);
int test__refcnt_pairing_address_spaces(struct test_suite *test, int subtest);
int test__refcnt_pairing_thread_exit(struct test_suite *test, int subtest);
int test__refcnt_pairing_exit_scan(struct test_suite *test, int subtest);
int test__refcnt_pairing_exit_scan_stack(struct test_suite *test, int subtest);
int test__refcnt_pairing_exit_scan_held(struct test_suite *test, int subtest);
int test__refcnt_pairing_implausible_live(struct test_suite *test, int subtest);
int test__refcnt_pairing_attribution(struct test_suite *test, int subtest);
int test__refcnt_pairing_indexed(struct test_suite *test, int subtest);
int test__refcnt_pairing_stress(struct test_suite *test, int subtest);

/* tests/refcnt-attribution.c: which function a finding names */
int test__refcnt_attribution_learnt(struct test_suite *test, int subtest);
int test__refcnt_attribution_learnt_later(struct test_suite *test, int subtest);
int test__refcnt_attribution_held(struct test_suite *test, int subtest);
int test__refcnt_attribution_least_released(struct test_suite *test, int subtest);
int test__refcnt_attribution_escaped(struct test_suite *test, int subtest);
int test__refcnt_attribution_caller_not_kept(struct test_suite *test, int subtest);
int test__refcnt_attribution_handed_site(struct test_suite *test, int subtest);
int test__refcnt_findings_inlined(struct test_suite *test, int subtest);
int test__refcnt_attribution_scope_keeper(struct test_suite *test, int subtest);
int test__refcnt_attribution_common_not_kept(struct test_suite *test, int subtest);
int test__refcnt_attribution_holder_teardown(struct test_suite *test, int subtest);
int test__refcnt_attribution_slot(struct test_suite *test, int subtest);
int test__refcnt_attribution_slot_lookup(struct test_suite *test, int subtest);
int test__refcnt_attribution_slot_overwritten(struct test_suite *test, int subtest);
int test__refcnt_attribution_insert_then_get(struct test_suite *test, int subtest);
int test__refcnt_attribution_static_cache(struct test_suite *test, int subtest);
int test__refcnt_attribution_slot_borrowed(struct test_suite *test, int subtest);
int test__refcnt_attribution_slot_borrowed_dead(struct test_suite *test, int subtest);
int test__refcnt_attribution_slot_home(struct test_suite *test, int subtest);
int test__refcnt_attribution_copied(struct test_suite *test, int subtest);
int test__refcnt_attribution_member_copied(struct test_suite *test, int subtest);
int test__refcnt_attribution_copied_sized(struct test_suite *test, int subtest);
int test__refcnt_attribution_earlier_word(struct test_suite *test, int subtest);
int test__refcnt_attribution_freed_holder(struct test_suite *test, int subtest);
int test__refcnt_attribution_neighbours_put(struct test_suite *test, int subtest);
int test__refcnt_attribution_param_store(struct test_suite *test, int subtest);
int test__refcnt_attribution_freed_holders(struct test_suite *test, int subtest);
int test__refcnt_attribution_freed_stored(struct test_suite *test, int subtest);
int test__refcnt_attribution_word_holds(struct test_suite *test, int subtest);
int test__refcnt_attribution_tail_calls(struct test_suite *test, int subtest);
/* the tail calls of refcnt_attribution_tail_calls: not static, never cloned */
void refcnt_tail_free(void *p);
void refcnt_tail_hop(void *p);
int test__refcnt_attribution_releases_nothing(struct test_suite *test, int subtest);
int test__refcnt_attribution_owner(struct test_suite *test, int subtest);
int test__refcnt_attribution_cached_lookup(struct test_suite *test, int subtest);
int test__refcnt_attribution_cached_inline(struct test_suite *test, int subtest);
int test__refcnt_attribution_inline_init(struct test_suite *test, int subtest);
int test__refcnt_attribution_inline_twin(struct test_suite *test, int subtest);
int test__refcnt_attribution_common_caller(struct test_suite *test, int subtest);

/* tests/refcnt-scan.c: the scan at exit on a child's heaps, and on synthetic ones */
int test__refcnt_scan_heaps(struct test_suite *test, int subtest);
/* perf test -w refcnt scan NAME: the heaps it scans, made by perf run afresh */
int refcnt_scan_child(const char *name);
int test__refcnt_scan_well_formed(struct test_suite *test, int subtest);
int test__refcnt_scan_past_region(struct test_suite *test, int subtest);
int test__refcnt_scan_bad_size(struct test_suite *test, int subtest);
int test__refcnt_scan_negative_size(struct test_suite *test, int subtest);
int test__refcnt_scan_fastbin_cycle(struct test_suite *test, int subtest);
int test__refcnt_scan_damaged_arena(struct test_suite *test, int subtest);
int test__refcnt_scan_arrays(struct test_suite *test, int subtest);
int test__refcnt_scan_out_of_time(struct test_suite *test, int subtest);
int test__refcnt_scan_coverage(struct test_suite *test, int subtest);

/* tests/refcnt-findings.c: grouping findings for the report */
int test__refcnt_findings_groups(struct test_suite *test, int subtest);
int test__refcnt_findings_suppressions(struct test_suite *test, int subtest);
int test__refcnt_findings_field(struct test_suite *test, int subtest);

/* tests/refcnt-diff.c: perf refcnt diff's comparison of two recordings */
int test__refcnt_diff(struct test_suite *test, int subtest);

/* tests/refcnt-zstd.c: a compressed recording keeps its end */
int test__refcnt_zstd_end(struct test_suite *test, int subtest);

/* tests/refcnt-probe.c: where record places a probe */
int test__refcnt_probe_past_null(struct test_suite *test, int subtest);
int test__refcnt_probe_slots(struct test_suite *test, int subtest);

#endif /* __PERF_TESTS_REFCNT_H */
