#!/bin/bash
# refcnt record: -p PID of a running perf, exact findings (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# perf refcnt record -p attaches to a perf that is already running: the
# buggy workload, made to wait for SIGUSR1 until the probes are in. The
# recording must end when that process does and hold exactly its bugs.
# -p with -o, --max-stack, compression and callchains is the most arguments
# record passes to perf record: under make asan-check, the ASan perf
# records, and would say so if they did not fit. The callchains are cut at
# --max-stack frames.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt record -p"

refcnt_need_root

# wait_for SECONDS COMMAND...: poll COMMAND every 0.1 s until it succeeds
wait_for() {
	local tries=$(($1 * 10))

	shift
	while ! "$@"; do
		tries=$((tries - 1))
		[ $tries -gt 0 ] || return 1
		sleep 0.1
	done
}

# the workload sleeps in sigwait(): sigtimedwait unblocks the signal it
# waits for while it waits, so SigBlk cannot tell; wchan can
waiting() {
	grep -q sigtimedwait "/proc/$1/wchan" 2> /dev/null
}

# as many perf_event fds open in the recorder as it placed probes
recording() {
	local probes

	probes=$(sed -n 's/^perf refcnt: \([0-9]*\) probes on .*/\1/p' "$tmpdir/err")
	[ -n "$probes" ] &&
	[ "$(find "/proc/$1/fd" -lname 'anon_inode:\[perf_event\]' 2> /dev/null | wc -l)" \
		-ge "$probes" ]
}

"$target" test -w refcnt buggy wait &
workload=$!
if ! wait_for 10 waiting $workload; then
	kill $workload 2> /dev/null
	fail "the workload did not start waiting"
	exit 1
fi

perf refcnt record -p $workload -o "$tmpdir/pid.data" --max-stack 6 -z -g fp \
	> /dev/null 2> "$tmpdir/err" &
recorder=$!
if ! wait_for 30 recording $recorder; then
	fail "the recorder did not open its events: $(tail -n 2 "$tmpdir/err")"
	# a background job ignores SIGINT: the workload needs another signal
	kill -INT $recorder 2> /dev/null
	kill -KILL $workload 2> /dev/null
	wait
	exit 1
fi
# the events are enabled once all are open
sleep 0.5
kill -USR1 $workload
wait $workload
rc=$?
[ $rc -eq 0 ] || fail "the workload exited $rc"

# the recording ends by itself when the process is gone
if ! wait_for 30 eval '! kill -0 '$recorder' 2> /dev/null'; then
	fail "the recorder still runs after its target exited"
	kill -INT $recorder
fi
wait $recorder
rc=$?
if [ $rc -ne 0 ]; then
	fail "record -p exited $rc; its stderr:"
	cat "$tmpdir/err"
else
	refcnt_buggy_findings > "$tmpdir/expected"
	refcnt_findings "$tmpdir/pid.data" > "$tmpdir/found"
	if ! diff -u "$tmpdir/expected" "$tmpdir/found"; then
		fail "findings differ from the injected bugs (- expected, + found)"
	else
		echo "refcnt record -p: exactly the $(wc -l < "$tmpdir/expected") injected findings"
	fi
	# a callchain and its probed function: at most 6 frames
	frames=$(perf script -i "$tmpdir/pid.data" -F ip 2> /dev/null |
		 awk 'NF == 0 { if (n > max) max = n; n = 0; next } { n++ }
		      END { if (n > max) max = n; print max + 0 }')
	[ "$frames" -ge 2 ] && [ "$frames" -le 6 ] ||
		fail "--max-stack 6: callchains of up to $frames frames"
fi

leftovers=$(refcnt_leftovers)
if [ -n "$leftovers" ]; then
	fail "uprobes left behind: $leftovers"
fi
exit $err
