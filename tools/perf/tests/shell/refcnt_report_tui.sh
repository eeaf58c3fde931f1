#!/bin/bash
# refcnt report: the TUI in tmux: totals, rows in --stdio order, callchain, timeline
# SPDX-License-Identifier: GPL-2.0
#
# A person's session: perf refcnt report on a terminal (tmux, 240x50) opens
# perf's hists browser on a recording of the buggy workload. The title has
# the totals, the rows are the findings --stdio prints, in its order; ENTER
# expands the selected row's callchain, 't' opens the object's timeline, 'q'
# goes back, 'q' quits with exit code 0.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt report TUI"

refcnt_need_root
if ! command -v tmux > /dev/null; then
	echo "refcnt report TUI: skip: tmux is not installed (scripts/deps.sh installs it)"
	exit 2
fi

session=perf-test-refcnt-$$
cleanup() {
	tmux kill-session -t "$session" 2> /dev/null
	rm -rf "$tmpdir"
}
trap cleanup EXIT

screen() {
	tmux capture-pane -p -t "$session"
}

# wait_screen REGEX: until the screen shows REGEX, at most 20 s
wait_screen() {
	for _ in $(seq 200); do
		screen | grep -qE "$1" && return 0
		sleep 0.1
	done
	fail "the screen never showed '$1'; it shows:"
	screen | head -n 20
	return 1
}

if ! perf refcnt record -o "$tmpdir/buggy.data" -- "$target" test -w refcnt buggy \
	> /dev/null 2> "$tmpdir/record.err"; then
	fail "record: $(tail -n 2 "$tmpdir/record.err")"
	exit 1
fi

# without a terminal, --tui is an error
if perf refcnt report --tui -i "$tmpdir/buggy.data" > /dev/null 2> "$tmpdir/tui.err"; then
	fail "--tui without a terminal exited 0"
fi

tmux new-session -d -s "$session" -x 240 -y 50 \
	"$perf refcnt report -i $tmpdir/buggy.data; echo \$? > $tmpdir/rc; sleep 60"

if ! wait_screen "^perf refcnt: [0-9]+ events, leaks: "; then
	exit 1
fi
# the totals the injected findings make: each is one reference
refcnt_buggy_findings > "$tmpdir/expected"
total() {
	grep -c "^$1," "$tmpdir/expected"
}
held=$(refcnt_buggy_held_expected | awk -F, '{ n += $3 } END { print n }')
# the title says the kinds found only: no over-release, mismatch, owned
# or still referenced object in the buggy workload
want="leaks: $(total leak), double puts: $(total 'double put'), use after put: $(total 'use after put'), held by a leak: $held, uncertain: 0, lost: 0"
title=$(screen | head -n 1)
if ! echo "$title" | grep -qF "$want"; then
	fail "title totals: $title, want $want"
fi
if ! screen | sed -n 2p | grep -qE "Refs +Objects +Type +Finding +Site"; then
	fail "no column headers: $(screen | sed -n 2p)"
fi

# the rows, as type,finding,site function, against --stdio's -x order
screen | sed -n '3,$p' | sed -nE \
	's/^[+ -] +[0-9]+ +[0-9]+ +([a-z_]+) +([a-z ]+[a-z]) +([A-Za-z0-9_.]+)\+0x[0-9a-f]+( .*)?$/\1,\2,\3/p' \
	> "$tmpdir/rows"
perf refcnt report -i "$tmpdir/buggy.data" -x, | awk -F, '{ print $2 "," $1 "," $5 }' \
	> "$tmpdir/stdio"
if [ "$(wc -l < "$tmpdir/stdio")" -ne "$(wc -l < "$tmpdir/expected")" ] ||
   ! diff -u "$tmpdir/stdio" "$tmpdir/rows"; then
	fail "TUI rows differ from --stdio's findings (- stdio, + TUI), or are not one per injected finding"
else
	echo "refcnt report TUI: $(wc -l < "$tmpdir/rows") rows in --stdio order, first: $(head -n 1 "$tmpdir/rows")"
fi
# --stdio prints the TUI's table: the same rows, the same text
perf refcnt report -i "$tmpdir/buggy.data" --stdio -q | sed -nE \
	's/^ +[0-9]+ +[0-9]+ +([a-z_]+) +([a-z ]+[a-z]) +([A-Za-z0-9_.]+)\+0x[0-9a-f]+( .*)?$/\1,\2,\3/p' \
	> "$tmpdir/stdio-rows"
if ! diff -u "$tmpdir/stdio-rows" "$tmpdir/rows"; then
	fail "the TUI's rows differ from those of --stdio's table (- stdio, + TUI)"
fi

# ENTER expands the first row's callchain: the site, then its callers
tmux send-keys -t "$session" Enter
if wait_screen "^ +refcnt_dso_buggy"; then
	screen | sed -n 3,6p
	if ! screen | sed -n 4,5p | grep -q "refcnt_dso_over_release"; then
		fail "the expanded callchain does not start at the site"
	fi
fi

# 't': the timeline of the double-put dso, ending with the extra put
tmux send-keys -t "$session" t
if wait_screen "^Timeline of the dso at 0x[0-9a-f]+ \(double put\)"; then
	screen | grep -E " (born|get|put|dies) " | sed 's/ *[▒◆]$//' > "$tmpdir/timeline"
	cat "$tmpdir/timeline"
	if ! grep -q " born .*0 -> 1" "$tmpdir/timeline" ||
	   ! grep -q " dies " "$tmpdir/timeline" ||
	   ! grep -q "put .*refcnt_dso_drop.*<== double put" "$tmpdir/timeline"; then
		fail "the timeline misses the birth, the death or the double put"
	fi
fi

tmux send-keys -t "$session" q
wait_screen "^perf refcnt: [0-9]+ events" > /dev/null
tmux send-keys -t "$session" q
for _ in $(seq 100); do
	[ -s "$tmpdir/rc" ] && break
	sleep 0.1
done
rc=$(cat "$tmpdir/rc" 2> /dev/null)
if [ "$rc" != 0 ]; then
	fail "the report exited '${rc:-still running}' after q"
fi
exit $err
