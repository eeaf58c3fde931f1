#!/bin/bash
# refcnt record: perf top under a terminal, quit with q (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# perf refcnt record -- perf top in a tmux terminal: perf top's TUI shows,
# q quits it, the recording ends cleanly and reports with no model mismatch,
# and nothing is left behind.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh

err=0
tmpdir=$(mktemp -d /tmp/perf-test-refcnt-top.XXXXXX)
session=perf-test-refcnt-top-$$
perf=$(command -v perf)

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

tmux new-session -d -s "$session" -x 120 -y 40 \
	"$perf refcnt record -o $tmpdir/top.data -- $perf top -d 1 2> $tmpdir/record.err; echo \$? > $tmpdir/rc"

if ! wait_for 'Samples: ' 30; then
	fail "perf top's screen never showed"
	tmux capture-pane -p -t "$session" | head -n 5
fi
sleep 2
tmux send-keys -t "$session" q
for _ in $(seq 100); do
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
	grep '^# events:\|^# leaks:' "$tmpdir/report" | sed 's/^/refcnt top: /'
	grep -q '^# leaks: .* mismatches: 0,' "$tmpdir/report" ||
		fail "model mismatch on the perf top recording"
fi

leftovers=$(refcnt_leftovers)
[ -n "$leftovers" ] && fail "uprobes left behind: $leftovers"
exit $err
