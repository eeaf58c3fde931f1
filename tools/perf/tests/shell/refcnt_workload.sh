#!/bin/bash
# refcnt workload: exact findings on perf test -w refcnt clean and buggy (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# The ground truth: the refcnt workload calls perf's real refcount API with
# known bugs, each in a function of its own. Recorded with perf refcnt
# record, the report must find exactly those bugs, each attributed to the
# function that made it, and nothing in the clean run. With map__get's
# inlined copies left uncovered, their hits are recorded and make the map
# findings uncertain, never confident, while the dso findings stay exact.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt workload"

refcnt_need_root

# record NAME MODE [OPTIONS...]
record() {
	local name=$1 mode=$2 rc

	shift 2
	perf refcnt record -o "$tmpdir/$name.data" "$@" -- "$target" test -w refcnt "$mode" \
		> /dev/null 2> "$tmpdir/$name.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$name: record exited $rc: $(tail -n 2 "$tmpdir/$name.err")"
		return 1
	fi
	refcnt_findings "$tmpdir/$name.data" > "$tmpdir/$name.found"
}

if record clean clean; then
	if [ -s "$tmpdir/clean.found" ]; then
		fail "clean: findings where there is no bug:"
		cat "$tmpdir/clean.found"
	else
		echo "refcnt workload: clean: no finding"
	fi
fi

if record buggy buggy; then
	refcnt_buggy_findings > "$tmpdir/buggy.expected"
	if ! diff -u "$tmpdir/buggy.expected" "$tmpdir/buggy.found"; then
		fail "buggy: findings differ from the injected bugs (- expected, + found)"
	else
		echo "refcnt workload: buggy: exactly the $(wc -l < "$tmpdir/buggy.expected") injected findings"
	fi
	# the dso of the leaked map and the nsinfo of the leaked thread are
	# held by those leaks, one reference each
	refcnt_buggy_held_expected > "$tmpdir/held.expected"
	if ! diff -u "$tmpdir/held.expected" <(refcnt_buggy_held "$tmpdir/buggy.data"); then
		fail "buggy: the references held by leaked objects are not under their leaks"
	fi
	# without the scan, they are rows of their own, as before it
	perf refcnt report -i "$tmpdir/buggy.data" -x, --no-scan | refcnt_findings_of \
		> "$tmpdir/noscan.found"
	if ! diff -u <(refcnt_buggy_findings_unscanned) "$tmpdir/noscan.found"; then
		fail "buggy: --no-scan findings differ"
	fi
fi

# probing where the references are stored and loaded: the same exact
# findings, and puts paired by their slots
if ! perf version --build-options | grep -q "libcapstone: \[ on"; then
	echo "refcnt workload: slots: skipped, this perf is built without capstone"
elif record slots buggy --slots; then
	if ! grep -qE "^perf refcnt: [1-9][0-9]* slots probed" "$tmpdir/slots.err"; then
		fail "slots: record probed no slot"
	fi
	if ! diff -u "$tmpdir/buggy.expected" "$tmpdir/slots.found"; then
		fail "slots: findings differ from the injected bugs (- expected, + found)"
	fi
	if ! perf refcnt report -i "$tmpdir/slots.data" --stdio 2> /dev/null |
		grep -qE "^# slots: [0-9]+ events; [1-9][0-9]* references stored .* [1-9][0-9]* of them paired by it"; then
		fail "slots: no put paired by its slot"
	else
		echo "refcnt workload: slots: the same findings, puts paired by their slots"
	fi
fi

# a holder's array freed without its puts: with --slots, free() is probed
# and the scan reads freed memory: the leak is the teardown's that freed
# it, not the get's that filled it (the two dsos whose words malloc wrote
# over are named there too, as their references were taken where the
# others' were); then four entries that hold one dso, each freed by a
# teardown whose free() is a tail call (its caller's loop is where free()
# returns): four leaks of one dso, the entries' teardown's
if ! perf version --build-options | grep -q "libcapstone: \[ on"; then
	echo "refcnt workload: holder: skipped, this perf is built without capstone"
elif record holder holder --slots; then
	if ! grep -q "free() probed in" "$tmpdir/holder.err"; then
		fail "holder: record did not probe free()"
	elif ! diff -u <(printf '%s\n' "leak,dso,8,8,refcnt_holder_exit,freed holding it" \
			"leak,dso,4,1,refcnt_holder_entry_delete,freed holding it") \
		<(perf refcnt report -i "$tmpdir/holder.data" -x, 2> /dev/null |
		  awk -F, '$1 == "leak" { sub(/\..*/, "", $5)
			print $1 "," $2 "," $3 "," $4 "," $5 "," $11 }'); then
		fail "holder: the leaks are not the teardown's that freed their holder"
	else
		echo "refcnt workload: holder: 8 + 4 dso leaks, freed holding them by their teardowns"
	fi
fi

if record uncovered buggy -t dso,map --uncover map__get; then
	if ! grep -q "uncovered: map__get() inlined in refcnt_map_take() .*its hits are recorded" \
		"$tmpdir/uncovered.err"; then
		fail "uncovered: record does not list refcnt_map_take's map__get as uncovered"
	fi
	perf refcnt report -i "$tmpdir/uncovered.data" --stdio > "$tmpdir/uncovered.out" 2>&1
	if ! grep -qE "^#   [0-9]+ hits: map get at 0x[0-9a-f]+ in refcnt_map_take" \
		"$tmpdir/uncovered.out"; then
		fail "uncovered: the report does not show the hits of refcnt_map_take's map__get"
	fi
	if grep -q "^[^,]*,map,[^,]*,0," "$tmpdir/uncovered.found"; then
		fail "uncovered: confident map findings with map__get uncovered:"
		grep "^[^,]*,map,[^,]*,0," "$tmpdir/uncovered.found"
	fi
	if ! grep -q ",map," "$tmpdir/uncovered.found"; then
		fail "uncovered: the missed gets made no (uncertain) map finding"
	fi
	# the leaked map's extra get is unseen: it has no leak row of its
	# own, and the reference it holds on its dso shows alone
	if ! diff -u <(grep ",dso," "$tmpdir/buggy.expected") \
		<(grep ",dso," "$tmpdir/uncovered.found" | grep -v "^held by a leak,"); then
		fail "uncovered: the dso findings changed with map__get uncovered"
	else
		echo "refcnt workload: uncovered map__get: map findings uncertain, dso findings exact"
	fi
fi

leftovers=$(refcnt_leftovers)
if [ -n "$leftovers" ]; then
	fail "uprobes left behind: $leftovers"
fi
exit $err
