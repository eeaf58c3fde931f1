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

double_free_report() {
	echo '==1==ERROR: AddressSanitizer: attempting double-free on 0x6020 in thread T0:'
	frames free map__put addr_location__exit hists__find_annotations main
	echo 'freed by thread T0 here:'
	frames free map__put maps__find_ams call__parse main
	echo 'SUMMARY: AddressSanitizer: double-free'
}

# references only leaked memory holds; two functions leak as many
indirect_report() {
	echo '==1==ERROR: LeakSanitizer: detected memory leaks'
	echo
	echo 'Indirect leak of 24 byte(s) in 3 object(s) allocated from:'
	frames malloc maps__get fill_node add_child main
	echo 'Indirect leak of 8 byte(s) in 1 object(s) allocated from:'
	frames malloc map__get merge_chain_branch main
}

tie_report() {
	echo '==1==ERROR: LeakSanitizer: detected memory leaks'
	echo
	echo 'Direct leak of 16 byte(s) in 2 object(s) allocated from:'
	frames malloc map__get zeta_lookup main
	echo 'Direct leak of 16 byte(s) in 2 object(s) allocated from:'
	frames malloc map__get alpha_lookup main
}

segv_report() {
	echo '==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000'
	frames perf_session__process_user_event reader__read_event main
}

# a lookup's leaks under two callers, and one leak of another function
two_leaks_report() {
	echo '==1==ERROR: LeakSanitizer: detected memory leaks'
	echo
	echo 'Direct leak of 24 byte(s) in 3 object(s) allocated from:'
	frames malloc map__get maps__find caller_a main
	echo 'Direct leak of 8 byte(s) in 1 object(s) allocated from:'
	frames malloc map__get other_lookup caller_b main
}

leak_report > "$tmp/leak_report"
two_leaks_report > "$tmp/two_leaks_report"
uaf_report > "$tmp/uaf_report"
segv_report > "$tmp/segv_report"
double_free_report > "$tmp/double_free_report"
indirect_report > "$tmp/indirect_report"
tie_report > "$tmp/tie_report"

# A fake audit's findings: kind,type,refs,objects,site,uncertain,freed by,...
leak_row='leak,map,2,1,maps__find,0,-,0x1,perf,0,left outstanding'
other_leak='leak,map,1,1,machine__process_kernel_mmap_event,0,-,0x1,perf,0,left outstanding'
owner_leak='leak,map,2,1,report_lock_contention_begin_event,0,-,0x1,perf,0,its owner'"'"'s'
caller_a_leak='leak,map,3,1,caller_a,0,-,0x1,perf,0,its owner'"'"'s'
caller_a_left='leak,map,3,1,caller_a,0,-,0x1,perf,0,left outstanding'
caller_b_leak='leak,map,1,1,caller_b,0,-,0x1,perf,0,its owner'"'"'s'
not_on_stack='leak,map,2,1,thread__find_map,0,-,0x1,perf,0,its owner'"'"'s'
uncertain_leak='leak,map,2,1,maps__find,1,-,0x1,perf,0,left outstanding'
double_put='double put,cpu_map,200,1,perf_pmu__delete,0,perf_pmu__delete,0x2,perf,0,the event'
double_put_elsewhere='double put,cpu_map,1,1,addr_location__exit,0,perf_pmu__delete,0x2,perf,0,the event'
wrong_type='double put,map,1,1,perf_pmu__delete,0,perf_pmu__delete,0x2,perf,0,the event'
over_release='over-release,map,2,1,maps__find,0,-,0x1,perf,0,the event'
owned='owned at exit,dso,1,1,dso__new,0,-,0x3,perf,0,its birth reference'
extra_put='double put,map,1,1,addr_location__exit,0,maps__find_ams,0x1,perf,0,the event'
freed_there='double put,map,1,1,hist_entry__delete,0,addr_location__exit,0x1,perf,0,the event'
indirect_row='leak,maps,3,1,fill_node,0,-,0x4,perf,0,left outstanding'
alpha_row='leak,map,2,1,alpha_lookup,0,-,0x5,perf,0,left outstanding'
zeta_row='leak,map,2,1,zeta_lookup,0,-,0x5,perf,0,left outstanding'
mismatch='mismatch,map,1,1,maps__find,0,-,0x1,perf,0,the event'
split_a='leak,map,2,1,maps__find,0,-,0x1,perf,0,left outstanding'
split_b='leak,map,3,1,maps__find,0,-,0x6,perf,0,one call took two'

cases=0

# verdict NAME WANT SAID AUDIT FINDINGS...: the judge's verdict on what the
# sanitizer SAID (sanitizer-top.awk's line) and the audit; it must be WANT,
# or start with it if WANT is a no-verdict (whose reason follows)
verdict() {
	local name=$1 want=$2 said=$3 audit=$4 got row

	shift 4
	printf '%s\n' "$@" > "$tmp/findings"
	IFS=$'\t' read -r got row < <(awk -v sanitizer="$said" -v audit="$audit" \
		-v also="${also:-}" -f "$root/scripts/survey-judge.awk" "$tmp/findings")
	cases=$((cases + 1))
	if [ "$got" = "$want" ] || { [[ $want == no-verdict:* ]] && [[ $got == "$want"* ]]; }; then
		last_row=$row
		return 0
	fi
	echo "FAILED: $name: sanitizer '$said', audit $audit: '$got', not $want"
	err=1
}

# judge CASE WANT REPORT STATUS AUDIT FINDINGS...: the same, the
# sanitizer's line made by sanitizer-top.awk of REPORT (one written above,
# or - for none), of a run that exited with STATUS
judge() {
	local name=$1 want=$2 report=$3 status=$4 audit=$5 said

	shift 5
	if [ "$report" = - ]; then : > "$tmp/report"; else cp "$tmp/$report" "$tmp/report"; fi
	said=$(awk -v status="$status" -f "$root/scripts/sanitizer-top.awk" "$tmp/report")
	verdict "$name" "$want" "$said" "$audit" "$@"
}

judge "a leak at the same site" agree leak_report 23 ok "$owned" "$leak_row"
judge "a leak at another site" disagree leak_report 23 ok "$other_leak" "$leak_row"
# the owner of a lookup's result: on the stack of what LSan names
also=$(awk -v status=23 -v also=report_lock_contention_begin_event \
	-f "$root/scripts/sanitizer-top.awk" "$tmp/leak_report" | paste -sd';')
judge "a leak at its owner, on LSan's stack" agree leak_report 23 ok "$owner_leak"
# the row's type is LSan's, but its function is on the stack of another type's leaks
also='also leak dso report_lock_contention_begin_event 2'
judge "a leak at its owner, on another type's stack" disagree leak_report 23 ok "$owner_leak"
# on the stack of another leak than the one LSan names
also=$(awk -v status=23 -v also=caller_b -v under=maps__find \
	-f "$root/scripts/sanitizer-top.awk" "$tmp/two_leaks_report" | paste -sd';')
judge "a leak at a function on another leak's stack" disagree two_leaks_report 23 ok \
	"$caller_b_leak"
also=$(awk -v status=23 -v also=caller_a -v under=maps__find \
	-f "$root/scripts/sanitizer-top.awk" "$tmp/two_leaks_report" | paste -sd';')
judge "a leak at a function on the named leak's stack" agree two_leaks_report 23 ok \
	"$caller_a_leak"
judge "a leak on that stack, not named as its owner" disagree two_leaks_report 23 ok \
	"$caller_a_left"
also=$(awk -v status=23 -v also=thread__find_map \
	-f "$root/scripts/sanitizer-top.awk" "$tmp/leak_report" | paste -sd';')
judge "a leak at a function on no stack of LSan's" disagree leak_report 23 ok \
	"$not_on_stack"
also=
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
judge "a double free, the extra put" agree double_free_report 1 ok "$extra_put"
judge "a double free, the put that freed it" disagree double_free_report 1 ok "$freed_there"
judge "references only leaked memory holds" agree indirect_report 23 ok "$indirect_row"
judge "a tie, the first function in order" agree tie_report 23 ok "$alpha_row" "$zeta_row"
judge "a tie, the other function" disagree tie_report 23 ok "$zeta_row" "$alpha_row"
judge "counts that do not match, nothing else" uncertain - 0 ok "$mismatch"
judge "a site's rows, one count" agree leak_report 23 ok "$split_a" "$owned" "$split_b"
if [ "$last_row" != "leak map maps__find 5" ]; then
	echo "FAILED: a site's rows: '$last_row', not the 5 references of both rows"
	err=1
fi
judge "an exit status of the ASan perf's own" no-verdict:"the sanitizer's run crashed (exit-255" \
	- 255 ok
judge "the sanitizer's run crashed" no-verdict:"the sanitizer's run crashed (SEGV" \
	segv_report 1 ok "$leak_row"
judge "the sanitizer's run was killed" no-verdict:"the sanitizer's run crashed (signal-9" \
	- 137 ok
judge "the sanitizer's run died after a leak" no-verdict:"the sanitizer's run crashed (signal-6" \
	leak_report 134 ok "$leak_row"
verdict "a sanitizer's line not understood" no-verdict:"the sanitizer's line is not" \
	"heap-buffer-overflow map x" ok "$leak_row"
judge "the command failed" no-verdict:"the command failed (exit 255)" \
	leak_report 23 "exit 255" "$leak_row"
judge "the audit failed" no-verdict:"the audit failed" - 0 failed
judge "the audit failed, the sanitizer found" no-verdict:"the audit failed" leak_report 23 failed
judge "the audit was killed" no-verdict:"the audit was killed" - 0 killed
judge "an unknown audit status" no-verdict:"the audit's status is unknown" - 0 "" "$leak_row"

# The second and third rows (survey-false-rows.sh): a report's rows
# after a first one that agrees, each backed by the sanitizer or false.
top=$root
# shellcheck source=scripts/survey-false-rows.sh
. "$root/scripts/survey-false-rows.sh"

# rows CASE WANT REPORT SAID FINDINGS...: false_rows() of an audit with
# FINDINGS and the sanitizer's REPORT, whose first line was SAID, is WANT
rows() {
	local name=$1 want=$2 report=$3 said=$4 got

	shift 4
	mkdir -p "$tmp/rows/audit" "$tmp/rows/asan"
	printf '%s\n' "$@" > "$tmp/rows/audit/findings"
	cp "$tmp/$report" "$tmp/rows/asan/report"
	got=$(false_rows "$tmp/rows" "$said")
	cases=$((cases + 1))
	[ "$got" = "$want" ] && return 0
	echo "FAILED: $name: false rows '$got', not '$want'"
	err=1
}

said_leak='leak map maps__find 2 2'
rows "a second row LSan names" "" leak_report "$said_leak" "$owner_leak" "$leak_row"
rows "a second row, an owner on LSan's stack" "" leak_report "$said_leak" \
	"$leak_row" "$owner_leak"
rows "a second row on no stack of LSan's" "leak map thread__find_map" leak_report \
	"$said_leak" "$leak_row" "$not_on_stack"
rows "a second row on LSan's stack, not its owner" \
	"leak map report_lock_contention_begin_event" leak_report "$said_leak" \
	"$leak_row" "${owner_leak%,*},left outstanding"
# a site's second row is no row of its own; main is on LSan's stack
rows "a fourth row is not judged" "" leak_report "$said_leak" "$leak_row" "$owner_leak" \
	"$split_b" "${owner_leak/report_lock_contention_begin_event/main}" "$not_on_stack"
rows "a double put after a leak ASan did not see" "double put cpu_map perf_pmu__delete" \
	leak_report "$said_leak" "$leak_row" "$double_put"
rows "after an ASan error, nothing judged" "" uaf_report \
	"use after free cpu_map perf_pmu__delete - -" "$double_put" "$not_on_stack"

if [ $err -eq 0 ]; then
	echo "survey self-test: $cases cases pass"
fi
exit $err
