#!/bin/bash
# refcnt record: all types, counts as perf stat's, live refcounts, inline coverage (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# perf refcnt record on a deterministic workload, perf report --stdio on a
# perf.data made here, held to what perf stat counts on the same uprobes and
# to the refcount API's semantics.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt record"

refcnt_need_root
refcnt_need_uprobes

# the workload: perf report on a recording of its own
if ! perf record -q -o "$tmpdir/w.data" -- "$target" test -w noploop 1 > /dev/null 2>&1; then
	echo "refcnt record: cannot make the perf.data to report on"
	exit 1
fi
workload=("$target" report --stdio -i "$tmpdir/w.data")

# the (type, op) of an event name refcnt_<pid>:<type>__<op>__<n>
type_op() {
	sed -n 's/.*refcnt_[0-9]*:\([a-z_]*__[a-z]*\)__[0-9]*.*/\1/p'
}

test_counts() {
	local rc nulls depth

	perf refcnt record -o "$tmpdir/r.data" -- "${workload[@]}" > /dev/null 2> "$tmpdir/record.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "record exited $rc: $(tail -n 3 "$tmpdir/record.err")"
		return
	fi
	perf script -i "$tmpdir/r.data" -F event 2> /dev/null | type_op | sort | uniq -c |
		awk '{ print $2, $1 }' > "$tmpdir/script.counts"
	# perf report puts NULL often: the kernel's filter keeps them out
	perf script -i "$tmpdir/r.data" -F trace > "$tmpdir/trace" 2> /dev/null ||
		fail "perf script cannot read the recording"
	nulls=$(grep -c 'obj=0x0\( \|$\)' "$tmpdir/trace")
	if [ ! -s "$tmpdir/trace" ] || [ "$nulls" -ne 0 ]; then
		fail "$nulls operations on NULL recorded"
	fi
	# callchains of 16 frames by default, or the kernel's limit if lower
	depth=$(( $(cat /proc/sys/kernel/perf_event_max_stack) < 16 ?
		  $(cat /proc/sys/kernel/perf_event_max_stack) : 16 ))
	perf evlist -v -i "$tmpdir/r.data" 2> /dev/null | grep -q "sample_max_stack: $depth\b" ||
		fail "the events do not record $depth callchain frames: $(perf evlist -v -i \
		      "$tmpdir/r.data" 2>&1 | grep -o 'sample_max_stack: [0-9]*' | sort -u)"

	perf refcnt record --count -o "$tmpdir/stat.csv" -- "${workload[@]}" > /dev/null 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "record --count exited $rc"
		return
	fi
	grep -v '^#' "$tmpdir/stat.csv" | awk -F, 'NF > 2 && $1 > 0 { print $3, $1 }' |
		while read -r ev n; do echo "$(echo "$ev" | type_op) $n"; done |
		awk '{ c[$1] += $2 } END { for (k in c) print k, c[k] }' |
		sort > "$tmpdir/stat.counts"

	if ! diff -u "$tmpdir/stat.counts" "$tmpdir/script.counts"; then
		fail "per (type, op), perf script of the recording differs from perf stat"
	fi
	for type in dso map maps thread nsinfo cpu_map; do
		grep -q "^${type}__" "$tmpdir/script.counts" ||
			fail "no event of type $type in the recording"
	done
	echo "refcnt record: per (type, op) counts equal perf stat's:" \
	     "$(awk '{ n += $2 } END { print n }' "$tmpdir/script.counts") events"
}

test_inline_coverage() {
	local line covered total

	line=$(grep 'map__get: .* inlined copies covered' "$tmpdir/record.err")
	covered=$(echo "$line" | awk '{ print $4 }')
	total=$(echo "$line" | awk '{ print $6 }')
	if [ -z "$line" ] || [ "$total" -lt 1 ] || [ "$covered" != "$total" ]; then
		fail "inlined map__get copies not all covered: '$line'"
	else
		echo "refcnt record: $line"
	fi
}

# Per object, the live refcount read before each operation follows from the
# one before: a get sees n, the next operation sees n + 1; a put sees n, the
# next sees n - 1.
test_live_refcounts() {
	perf script -i "$tmpdir/r.data" -F event,trace 2> /dev/null | type_op_live > "$tmpdir/live"
	awk '
	$3 == "0x0" || $4 == "" { next }
	{
		key = $1 " " $3
		if (key in want && want[key] != $4) {
			bad++
			if (bad <= 5)
				print "refcnt record: " key " " $2 " sees " $4 ", expected " want[key]
		}
		checked += key in want
		if ($2 == "get") want[key] = $4 + 1
		else if ($2 == "put") want[key] = $4 - 1
		else if ($2 == "born") want[key] = $4
		else delete want[key]
	}
	END {
		print "refcnt record: " checked " consecutive operations checked, " bad + 0 " disagree"
		exit !(checked > 100 && bad == 0)
	}' "$tmpdir/live" || fail "live refcounts do not follow the API semantics"
}

# "<type> <op> <obj> <live>" per event, in time order
type_op_live() {
	sed -n 's/.*refcnt_[0-9]*:\([a-z_]*\)__\([a-z]*\)__[0-9]*:.*obj=\(0x[0-9a-f]*\)\( live=\(-*[0-9]*\)\)*.*/\1 \2 \3 \5/p'
}

# Only the workload is traced: not the recorder (its pid names the group),
# not another process running the same binary meanwhile.
test_only_workload() {
	local other recorder

	"$target" test -w noploop 3 > /dev/null 2>&1 &
	other=$!
	perf refcnt record -o "$tmpdir/o.data" -- "${workload[@]}" > /dev/null 2>&1
	wait $other
	recorder=$(perf script -i "$tmpdir/o.data" -F event 2> /dev/null | head -n 1 |
		   sed -n 's/.*refcnt_\([0-9]*\):.*/\1/p')
	perf script -i "$tmpdir/o.data" -F pid 2> /dev/null | sort -u > "$tmpdir/pids"
	if [ -z "$recorder" ] || [ "$(wc -l < "$tmpdir/pids")" -lt 1 ]; then
		fail "the second recording is empty"
	elif grep -qx " *\($recorder\|$other\)" "$tmpdir/pids"; then
		fail "events from the recorder ($recorder) or another perf ($other)"
	fi
}

test_counts
test_inline_coverage
test_live_refcounts
test_only_workload

leftovers=$(refcnt_leftovers)
if [ -n "$leftovers" ]; then
	fail "uprobes left behind: $leftovers"
fi
exit $err
