#!/bin/bash
# refcnt report: real perf commands: totals, no mismatch, objects alive at exit listed (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# perf refcnt report on recordings of real perf commands (perf report
# --stdio, perf script, perf record -- true) and of the buggy workload: it
# completes, prints its header totals, finds no model mismatch (no missed
# get or put), and every object that perf script shows alive at the end
# (born or first seen, never freed) is listed as leaked or owned at exit.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt report"

refcnt_need_root

# "<type> <obj>" of every object alive at the end of a recording
alive_at_end() {
	perf script -i "$1" -F event,trace 2> /dev/null |
	sed -n 's/.*refcnt_[0-9]*:\([a-z_]*\)__\([a-z]*\)__[0-9]*:.*obj=\(0x[0-9a-f]*\)\( live=\(-*[0-9]*\)\)*.*/\1 \2 \3 \5/p' |
	awk '$3 == "0x0" { next }
	     { k = $1 " " $3 }
	     $2 == "dies" { alive[k] = 0; next }
	     # born, first seen, or a live count on a freed address (reborn unseen);
	     # a get or put reading 0 on a freed object does not revive it
	     $2 == "born" || !(k in alive) || $4 > 0 { alive[k] = 1 }
	     END { for (k in alive) if (alive[k]) print k }' | sort
}

check() {
	local name=$1 data=$2 rc

	perf refcnt report -i "$data" --stdio > "$tmpdir/$name.out" 2> "$tmpdir/$name.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$name: report exited $rc: $(tail -n 2 "$tmpdir/$name.err")"
		return
	fi
	for total in '^# events: [0-9]+' '^# objects:( [a-z_]+ [0-9]+)+' \
		     '^# leaks: [0-9]+, over-releases: [0-9]+, double puts: [0-9]+'; do
		grep -qE "$total" "$tmpdir/$name.out" || fail "$name: no header line '$total'"
	done
	# the replay's counters: said when not zero, always with -v
	if [ "$(perf refcnt report -i "$data" --stdio -v 2> /dev/null |
		grep -cE '^# (lifetimes ended by a new object|events older than|events seen twice).*: [0-9]+$')" -ne 3 ]; then
		fail "$name: -v does not say the replay's three counters"
	fi

	if perf refcnt report -i "$data" -x, 2> /dev/null | grep -q '^mismatch,'; then
		fail "$name: model mismatch: a get or put was not seen"
		perf refcnt report -i "$data" -x, | grep '^mismatch,' | head -n 3
	fi

	grep -q "^# scan at exit of pid [0-9]*: " "$tmpdir/$name.out" ||
		fail "$name: no scan at exit: $(grep '^# scan at exit' "$tmpdir/$name.out")"

	# every object alive at the end is a row of its own without the scan
	alive_at_end "$data" > "$tmpdir/$name.alive"
	perf refcnt report -i "$data" -x, -s type,object --no-scan 2> /dev/null |
		awk -F, '$1 == "leak" || $1 == "owned at exit" { print $2, $8 }' |
		sort -u > "$tmpdir/$name.listed"
	if ! diff -u "$tmpdir/$name.alive" "$tmpdir/$name.listed"; then
		fail "$name: objects alive at the end (-) differ from those listed as leaked or owned (+)"
	else
		echo "refcnt report: $name: $(wc -l < "$tmpdir/$name.alive") objects alive at exit, all listed"
	fi
}

perf record -q -o "$tmpdir/w.data" -- "$target" test -w noploop 1 > /dev/null 2>&1
perf refcnt record -o "$tmpdir/report.data" -- "$target" report --stdio -i "$tmpdir/w.data" \
	> /dev/null 2>&1 || fail "recording perf report failed"
check "perf report" "$tmpdir/report.data"

perf refcnt record -o "$tmpdir/script.data" -- "$target" script -i "$tmpdir/w.data" \
	> /dev/null 2>&1 || fail "recording perf script failed"
check "perf script" "$tmpdir/script.data"

perf refcnt record -o "$tmpdir/record.data" -- "$target" record -q -o "$tmpdir/true.data" -- true \
	> /dev/null 2>&1 || fail "recording perf record failed"
check "perf record" "$tmpdir/record.data"

perf refcnt record -o "$tmpdir/buggy.data" -- "$target" test -w refcnt buggy > /dev/null 2>&1 ||
	fail "recording the buggy workload failed"
check "buggy workload" "$tmpdir/buggy.data"

exit $err
