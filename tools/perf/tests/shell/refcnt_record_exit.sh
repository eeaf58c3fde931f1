#!/bin/bash
# refcnt record: no uprobe left behind on any exit path (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# Normal exit, a failing workload, SIGINT, SIGTERM and SIGKILL of the
# recorder: afterwards no uprobe of the recorder's group is registered, and
# what was recorded still reads.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt record exit"

events=/sys/kernel/tracing/uprobe_events

refcnt_need_root
perf refcnt record -x "$target" -o "$tmpdir/probe.data" -- true > /dev/null 2>&1

# no group refcnt_<pid> in tracefs, waiting up to 60 s for the guardian,
# which closes the events (some 80 ms each) before it removes the uprobes
no_leftover() {
	local pid=$1 what=$2

	for _ in $(seq 600); do
		grep -q "^[pr]:refcnt_$pid/" $events || return 0
		sleep 0.1
	done
	fail "$what: uprobes of refcnt_$pid left behind"
	grep "^[pr]:refcnt_$pid/" $events | head -n 2
	return 1
}

# the group is registered once the recorder prints its probe summary
wait_installed() {
	local pid=$1

	for _ in $(seq 100); do
		grep -q "^[pr]:refcnt_$pid/" $events && return 0
		sleep 0.1
	done
	return 1
}

perf refcnt record -x "$target" -o "$tmpdir/n.data" -- true > /dev/null 2>&1 ||
	fail "normal exit: exit code $?"
[ -n "$(refcnt_leftovers)" ] && fail "normal exit: uprobes left behind: $(refcnt_leftovers)"

perf refcnt record -o "$tmpdir/f.data" -- "$target" report -i /nonexistent > /dev/null 2>&1
[ -n "$(refcnt_leftovers)" ] && fail "failing workload: uprobes left behind: $(refcnt_leftovers)"

for sig in INT TERM KILL HUP; do
	perf refcnt record -o "$tmpdir/$sig.data" -- "$target" test -w noploop 20 \
		> /dev/null 2>&1 &
	pid=$!
	if ! wait_installed $pid; then
		fail "SIG$sig: the recorder never installed its uprobes"
		kill -KILL $pid
		continue
	fi
	sleep 0.5
	# the workload the recorder forked: it outlives a killed recorder
	workload=$(pgrep -P $pid -f "test -w noploop 20")
	kill -$sig $pid
	wait $pid 2> /dev/null
	no_leftover $pid "SIG$sig" && echo "refcnt record exit: SIG$sig: nothing left behind"
	[ -n "$workload" ] && kill $workload 2> /dev/null
done

# A record returns while its guardian still closes the events: a record
# started meanwhile leaves that group alone (no removal, no error), and the
# guardian removes it after.
perf refcnt record -x "$target" -o "$tmpdir/a.data" -- true > /dev/null 2>&1 &
first=$!
wait $first || fail "first of two: exit code $?"
busy=$(pgrep -x "refcnt-$first")
perf refcnt record -x "$target" -o "$tmpdir/b.data" -- true > /dev/null 2> "$tmpdir/b.err" ||
	fail "second of two: exit code $?"
if grep -E "left behind|Failed to delete" "$tmpdir/b.err"; then
	fail "a record started while refcnt_$first was ending touched it"
fi
no_leftover $first "two records" &&
	echo "refcnt record exit: a second record left the first one's ending alone${busy:+ (its guardian $busy was busy)}"

# SIGINT ends the recording cleanly: the file reads
if ! perf script -i "$tmpdir/INT.data" > /dev/null 2>&1; then
	fail "the recording interrupted by SIGINT does not read"
fi

exit $err
