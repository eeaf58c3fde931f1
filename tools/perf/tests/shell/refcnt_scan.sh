#!/bin/bash
# refcnt scan: clean perf commands scanned at exit: no leak, what is alive still referenced (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# perf refcnt record scans the audited perf's memory at its exit, as LSan
# does, and the report tells a leak (a reference no reachable memory
# accounts for) from a reference still held at exit. On a clean perf, real
# commands on a perf record -a -g file of its own leave no leak, no
# over-release, no double put, no mismatch: whatever they keep alive at
# exit (perf annotate skips its teardown) is still referenced, and the
# scan said what it read. The one use after put allowed is perf 6.12's
# own, in perf annotate: maps__find_ams() puts the map call__parse() lent
# it, then looks it up again (it can crash annotate).

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt scan"

refcnt_need_root

if ! perf record -q -a -g -o "$tmpdir/w.data" -- "$target" test -w noploop 1 \
	> /dev/null 2>&1; then
	fail "cannot record the perf.data the commands read"
	exit 1
fi

# audit NAME COMMAND...: record COMMAND (a perf command) and check its report
audit() {
	local name=$1 out uaf

	shift
	out=$tmpdir/$name
	# a command may fail on its own (annotate crashes on some inputs)
	perf refcnt record -o "$out.data" -- "$target" "$@" > /dev/null 2> "$out.err"
	if ! grep -q "^perf refcnt: scan at exit of pid [0-9]*: " "$out.err"; then
		fail "$name: no scan at exit: $(grep 'scan at exit' "$out.err")"
		return
	fi
	if ! perf refcnt report -i "$out.data" --stdio > "$out.out" 2>&1; then
		fail "$name: report failed: $(tail -n 2 "$out.out")"
		return
	fi
	grep -q "^# scan at exit of pid [0-9]*: .* MiB read in " "$out.out" ||
		fail "$name: the report does not say what the scan read"
	uaf=0
	if grep -q "^# the process was killed by signal" "$out.out"; then
		# perf annotate 6.12 crashes on some profiles: what its
		# interrupted work held is no leak of a clean exit
		echo "refcnt scan: $name: $(grep '^# the process was killed' "$out.out" | cut -c3-), not checked"
		return
	fi
	if [ "$name" = annotate ]; then
		# perf 6.12's own bug, the one allowed
		uaf=$(perf refcnt report -i "$out.data" -x, |
		      awk -F, '$1 == "use after put" && $2 == "map" && $5 == "maps__find" &&
			       $7 ~ /^maps__find_ams/ { n += $3 } END { print n + 0 }')
	fi
	if ! grep -q "^# leaks: 0, over-releases: 0, double puts: 0, use after put: $uaf, mismatches: 0, " \
		"$out.out"; then
		fail "$name: bugs reported on a clean perf:"
		grep "^# leaks" "$out.out"
		perf refcnt report -i "$out.data" -x, | grep -v "^still referenced," | head -n 5
		return
	fi
	echo "refcnt scan: $name: $(sed -n 's/^# leaks: \([0-9]*\),.*held by a leak: \([0-9]*\), still referenced: \([0-9]*\),.*/\1 leaked, \2 held by a leak, \3 still referenced/p' "$out.out")$([ "$uaf" -gt 0 ] && echo ", perf's use after put in maps__find_ams"); $(sed -n 's/^# scan at exit of pid [0-9]*: \([^,]*\),.*/\1/p' "$out.out")"
}

audit report report --stdio -i "$tmpdir/w.data"
audit script script -i "$tmpdir/w.data"
audit annotate annotate --stdio -i "$tmpdir/w.data"
audit stat stat -- true
audit record record -q -o "$tmpdir/record-input.data" -- true
audit sched sched record -o "$tmpdir/sched-input.data" -- sleep 0.1

[ -z "$(refcnt_leftovers)" ] || fail "uprobes left behind: $(refcnt_leftovers)"
exit $err
