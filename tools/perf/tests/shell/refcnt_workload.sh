#!/bin/bash
# refcnt workload: exact findings on perf test -w refcnt clean and buggy (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# The ground truth: the refcnt workload calls perf's real refcount API with
# known bugs, each in a function of its own. Recorded with perf refcnt
# record, the report must find exactly those bugs, each attributed to the
# function that made it, and nothing in the clean run.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt workload"

refcnt_need_root

# finding,type,function of its site,uncertain,function of the freeing put;
# compiler clone suffixes (.constprop.0, .isra.0) are dropped
findings() {
	perf refcnt report -i "$1" -x, | awk -F, '{
		for (i = 5; i <= 7; i += 2) sub(/\..*/, "", $i)
		print $1 "," $2 "," $5 "," $6 "," $7
	}' | sort
}

record() {
	local mode=$1 rc

	perf refcnt record -o "$tmpdir/$mode.data" -- perf test -w refcnt "$mode" \
		> /dev/null 2> "$tmpdir/$mode.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$mode: record exited $rc: $(tail -n 2 "$tmpdir/$mode.err")"
		return 1
	fi
	findings "$tmpdir/$mode.data" > "$tmpdir/$mode.found"
}

if record clean; then
	if [ -s "$tmpdir/clean.found" ]; then
		fail "clean: findings where there is no bug:"
		cat "$tmpdir/clean.found"
	else
		echo "refcnt workload: clean: no finding"
	fi
fi

if record buggy; then
	{
		for t in dso map maps thread nsinfo; do
			echo "leak,$t,refcnt_${t}_leak,0,-"
			echo "double put,$t,refcnt_${t}_over_release,0,refcnt_${t}_buggy"
			echo "use after put,$t,refcnt_${t}_use_after_put,0,refcnt_${t}_buggy"
		done
		# perf_cpu_map keeps its count where free() writes: a leak only
		echo "leak,cpu_map,refcnt_cpu_map_leak,0,-"
		# the leaked map still holds the reference map__new2 took on its dso
		echo "leak,dso,map__new2,0,-"
		# the leaked thread still owns the nsinfo thread__new made for it
		echo "owned at exit,nsinfo,thread__new,0,-"
	} | sort > "$tmpdir/buggy.expected"
	if ! diff -u "$tmpdir/buggy.expected" "$tmpdir/buggy.found"; then
		fail "buggy: findings differ from the injected bugs (- expected, + found)"
	else
		echo "refcnt workload: buggy: exactly the $(wc -l < "$tmpdir/buggy.expected") injected findings"
	fi
fi

leftovers=$(refcnt_leftovers)
if [ -n "$leftovers" ]; then
	fail "uprobes left behind: $leftovers"
fi
exit $err
