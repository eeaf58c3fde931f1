#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The test of make survey's judging: fake sanitizer reports go through
# scripts/sanitizer-top.awk, fake audits (perf refcnt report -x, lines)
# and their status through scripts/survey-judge.awk, and each verdict
# must be the one written here. A run that crashed, was killed or failed
# must never come out as agreement; a bug at another function, of
# another kind or type, or on one side only must come out as
# disagreement; uncertain rows claim nothing.
#
# Usage: test-survey.sh
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/refcnt-survey-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
err=0

# frames NAME...: an ASan stack whose frames are the functions NAME...
frames() {
	local i=0 f

	for f in "$@"; do
		printf '    #%d 0x%x in %s util/x.c:%d\n' "$i" $((0x1000 + i * 16)) "$f" $((i + 1))
		i=$((i + 1))
	done
	echo
}

leak_report() {
	echo '==1==ERROR: LeakSanitizer: detected memory leaks'
	echo
	echo 'Direct leak of 16 byte(s) in 2 object(s) allocated from:'
	frames malloc map__get maps__find report_lock_contention_begin_event main
	echo 'SUMMARY: AddressSanitizer: 16 byte(s) leaked in 2 allocation(s).'
}

uaf_report() {
	echo '==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x6020 at pc 0x1'
	echo 'READ of size 8 at 0x6020 thread T0'
	frames perf_cpu_map__put perf_pmu__delete perf_pmus__destroy main
	echo 'freed by thread T0 here:'
	frames free cpu_map__delete perf_cpu_map__put perf_pmu__delete save_result main
	echo 'previously allocated by thread T0 here:'
	frames malloc perf_cpu_map__get pmu_cpumask main
	echo 'SUMMARY: AddressSanitizer: heap-use-after-free'
}

segv_report() {
	echo '==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000'
	frames perf_session__process_user_event reader__read_event main
}

leak_report > "$tmp/leak_report"
uaf_report > "$tmp/uaf_report"
segv_report > "$tmp/segv_report"

# A fake audit's findings: kind,type,refs,objects,site,uncertain,freed by,...
leak_row='leak,map,2,1,maps__find,0,-,0x1,perf,0,left outstanding'
other_leak='leak,map,1,1,machine__process_kernel_mmap_event,0,-,0x1,perf,0,left outstanding'
uncertain_leak='leak,map,2,1,maps__find,1,-,0x1,perf,0,left outstanding'
double_put='double put,cpu_map,200,1,perf_pmu__delete,0,perf_pmu__delete,0x2,perf,0,the event'
double_put_elsewhere='double put,cpu_map,1,1,addr_location__exit,0,perf_pmu__delete,0x2,perf,0,the event'
wrong_type='double put,map,1,1,perf_pmu__delete,0,perf_pmu__delete,0x2,perf,0,the event'
over_release='over-release,map,2,1,maps__find,0,-,0x1,perf,0,the event'
owned='owned at exit,dso,1,1,dso__new,0,-,0x3,perf,0,its birth reference'

# judge CASE WANT REPORT STATUS AUDIT FINDINGS...: the sanitizer's report
# (one written above, or - for none) of a run that exited with STATUS, the
# audit's status and findings; the verdict must start with WANT
judge() {
	local name=$1 want=$2 report=$3 status=$4 audit=$5 said verdict

	shift 5
	if [ "$report" = - ]; then : > "$tmp/report"; else cp "$tmp/$report" "$tmp/report"; fi
	printf '%s\n' "$@" > "$tmp/findings"
	said=$(awk -v status="$status" -f "$root/scripts/sanitizer-top.awk" "$tmp/report")
	verdict=$(awk -v sanitizer="$said" -v audit="$audit" \
		-f "$root/scripts/survey-judge.awk" "$tmp/findings" | cut -f 1)
	if [[ $verdict != "$want"* ]]; then
		echo "FAILED: $name: sanitizer '$said', audit $audit: '$verdict', not $want"
		err=1
	fi
}

judge "a leak at the same site" agree leak_report 23 ok "$owned" "$leak_row"
judge "a leak at another site" disagree leak_report 23 ok "$other_leak" "$leak_row"
judge "a leak, an over-release in its function" disagree leak_report 23 ok "$over_release"
judge "a leak the audit misses" disagree leak_report 23 ok "$owned"
judge "a leak the audit is unsure of" uncertain leak_report 23 ok "$uncertain_leak"
judge "the first certain row, past an uncertain" agree leak_report 23 ok \
	"$uncertain_leak" "$leak_row"
judge "a use after free, its put a double put" agree uaf_report 1 ok "$double_put"
judge "a use after free, the same freeing put" agree uaf_report 1 ok "$double_put_elsewhere"
judge "a use after free of another type" disagree uaf_report 1 ok "$wrong_type"
judge "a use after free, a leak" disagree uaf_report 1 ok "$leak_row"
judge "nothing on either side" agree - 0 ok "$owned"
judge "a bug only the audit sees" disagree - 0 ok "$leak_row"
judge "only uncertain rows on a clean run" uncertain - 0 ok "$uncertain_leak"
judge "the sanitizer's run crashed" no-verdict segv_report 1 ok "$leak_row"
judge "the sanitizer's run was killed" no-verdict - 137 ok
judge "the sanitizer's run died after a leak" no-verdict leak_report 134 ok "$leak_row"
judge "the audit failed" no-verdict - 0 failed
judge "the audit failed, the sanitizer found" no-verdict leak_report 23 failed
judge "the audit was killed" no-verdict - 0 killed
judge "an unknown audit status" no-verdict - 0 "" "$leak_row"

if [ $err -eq 0 ]; then
	echo "survey self-test: 20 cases pass"
fi
exit $err
