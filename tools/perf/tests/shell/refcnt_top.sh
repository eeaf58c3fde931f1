#!/bin/bash
# refcnt record: perf top under a terminal for a minute, quit with q (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# perf refcnt record -- perf top in a tmux terminal for REFCNT_TOP_SECONDS
# (60): perf top's TUI shows, the recorder's memory stays bounded, q quits,
# the recording ends cleanly and reports no bug and no mismatch, its lost
# events (if any) said, and nothing is left behind.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh

err=0
tmpdir=$(mktemp -d /tmp/perf-test-refcnt-top.XXXXXX)
session=perf-test-refcnt-top-$$
perf=$(command -v perf)
target=${REFCNT_TARGET:-$perf}

cleanup() {
	tmux kill-session -t "$session" 2> /dev/null
	rm -rf "$tmpdir"
}
trap cleanup EXIT

fail() {
	echo "refcnt top: FAILED: $*"
	err=1
}

if [ "$(id -u)" -ne 0 ] || ! command -v tmux > /dev/null; then
	echo "refcnt top: skip: needs root and tmux"
	exit 2
fi

# wait_for PATTERN SECONDS: the pattern on the screen
wait_for() {
	for _ in $(seq $(($2 * 10))); do
		tmux capture-pane -p -t "$session" 2> /dev/null | grep -q "$1" && return 0
		sleep 0.1
	done
	return 1
}

# scanned at its exit: perf top's event thread allocates in an arena of
# its own, grown past its first heap in a minute (the scan once missed the
# objects there, and called them leaks)
tmux new-session -d -s "$session" -x 120 -y 40 \
	"$perf refcnt record -o $tmpdir/top.data -- $target top -d 1 2> $tmpdir/record.err; echo \$? > $tmpdir/rc"

if ! wait_for 'Samples: ' 30; then
	fail "perf top's screen never showed"
	tmux capture-pane -p -t "$session" | head -n 5
fi
# the recorder's RSS (KiB) after 10 s and at the end: bounded, not growing
# with the events
seconds=${REFCNT_TOP_SECONDS:-60}
rss() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2> /dev/null
}
recorder=$(pgrep -f "^$perf refcnt record -o $tmpdir/top.data" | head -n 1)
sleep 10
rss10=$(rss "$recorder")
sleep $((seconds > 10 ? seconds - 10 : 0))
rss_end=$(rss "$recorder")
if [ -z "$rss10" ] || [ -z "$rss_end" ]; then
	fail "cannot read the recorder's memory (pid '$recorder')"
elif [ "$rss_end" -gt $((rss10 * 3 / 2 + 16384)) ]; then
	fail "the recorder grew from $rss10 KiB at 10 s to $rss_end KiB at $seconds s"
else
	echo "refcnt top: recorder RSS $rss10 KiB at 10 s, $rss_end KiB at $seconds s"
fi
tmux send-keys -t "$session" q
# a minute of perf top is a gigabyte of events: the last of them are
# compressed and written, and the scan kept, after q
for _ in $(seq 600); do
	[ -s "$tmpdir/rc" ] && break
	sleep 0.1
done

if [ "$(cat "$tmpdir/rc" 2> /dev/null)" != 0 ]; then
	fail "the recording did not end cleanly after q: exit '$(cat "$tmpdir/rc" 2> /dev/null)'"
	tail -n 3 "$tmpdir/record.err"
elif ! grep -q 'Captured and wrote' "$tmpdir/record.err"; then
	fail "the recorder did not say what it wrote"
fi

if ! perf refcnt report -i "$tmpdir/top.data" --stdio > "$tmpdir/report" 2>&1; then
	fail "report of the perf top recording failed"
else
	grep '^# events:\|^# leaks:\|^# scan at exit' "$tmpdir/report" | sed 's/^/refcnt top: /'
	grep -q '^# scan at exit of pid [0-9]*: .* MiB read in ' "$tmpdir/report" ||
		fail "perf top was not scanned at its exit: $(grep '^# scan\|^# no scan' "$tmpdir/report")"
	# perf top has no refcount bug and its probes miss nothing: no bug and
	# no mismatch may be reported (a put preempted before its decrement
	# once showed as one: the engine now waits for its thread)
	grep -q '^# leaks: 0, over-releases: 0, double puts: 0, use after put: 0, mismatches: 0,' \
		"$tmpdir/report" || fail "refcount bugs or mismatches reported in perf top"
	# a finding on an object live while events were lost is uncertain,
	# and not counted as a bug: "no bug" means something only if nothing
	# was lost and no finding is uncertain
	lost=$(sed -n 's/^# events: .*lost: \([0-9]*\) events, \([0-9]*\) samples/\1 \2/p' \
		"$tmpdir/report" | awk '{ print $1 + $2 }')
	uncertain=$(sed -n 's/^# leaks: .*, uncertain (lost or uncovered events, a partial scan, the exiting stack): \([0-9]*\)$/\1/p' \
		"$tmpdir/report")
	if [ -z "$lost" ] || [ -z "$uncertain" ]; then
		fail "the report's header does not say what was lost and what is uncertain"
	elif [ "$lost" -gt 0 ]; then
		fail "$lost events lost: the findings on what was live then are uncertain, and 'no bug' would not mean no bug (a bigger -m would keep them)"
		grep -q "events lost" "$tmpdir/report" || fail "$lost events lost and not said"
	elif [ "$uncertain" -gt 0 ]; then
		fail "$uncertain findings uncertain with no event lost: $(grep -E '^# (references only|objects alive at the end|scan covered|perf refcnt: uncovered)' "$tmpdir/report" | tr '\n' ' ')"
	fi
fi

leftovers=$(refcnt_leftovers)
[ -n "$leftovers" ] && fail "uprobes left behind: $leftovers"
exit $err
