#!/bin/bash
# refcnt record: the recorder killed while its scan holds the workload (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# The scan at exit holds the audited process in its exit stop, from a
# helper process. The helper is stopped (SIGSTOP) so that it holds it as
# long as the test needs, the workload exits into that stop, and the
# recorder is killed with SIGKILL: the helper must end (the recorder's end
# ends it), the workload must go on to its end instead of staying stopped,
# and no uprobe of the recorder may be left registered.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt record kill scan"

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

# the workload sleeps in sigwait() until SIGUSR1
waiting() {
	grep -q sigtimedwait "/proc/$1/wchan" 2> /dev/null
}

# the state letter of process $1 (t: stopped by its tracer), none if gone
state() {
	sed -n 's/^[0-9]* (.*) \([A-Za-z]\) .*/\1/p' "/proc/$1/stat" 2> /dev/null
}

stopped_by_tracer() {
	[ "$(state "$1")" = t ]
}

# gone, or a zombie no one waits for yet
gone() {
	case "$(state "$1")" in
	"" | Z | X) return 0 ;;
	*) return 1 ;;
	esac
}

no_uprobes_of() {
	! grep -q "^[pr]:refcnt_$1/" "$refcnt_uprobe_events" 2> /dev/null
}

cleanup() {
	[ -n "${helper:-}" ] && kill -CONT "$helper" 2> /dev/null
	[ -n "${workload:-}" ] && kill -KILL "$workload" 2> /dev/null
	[ -n "${recorder:-}" ] && kill -KILL "$recorder" 2> /dev/null
}

perf refcnt record -o "$tmpdir/k.data" -- "$target" test -w refcnt buggy wait \
	> /dev/null 2> "$tmpdir/err" &
recorder=$!
workload=
wait_for 60 pgrep -P $recorder -f "^[^ ]*perf test -w refcnt buggy wait$" > /dev/null
workload=$(pgrep -P $recorder -f "^[^ ]*perf test -w refcnt buggy wait$")
if [ -z "$workload" ] || ! wait_for 30 waiting "$workload"; then
	fail "the workload did not start waiting: $(tail -n 2 "$tmpdir/err")"
	cleanup
	exit 1
fi
# the scan's helper traces the workload from the start
helper=$(sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$workload/status")
if [ -z "$helper" ] || [ "$helper" = 0 ]; then
	fail "no helper traces the workload"
	cleanup
	exit 1
fi

kill -STOP "$helper"
kill -USR1 "$workload"
if ! wait_for 30 stopped_by_tracer "$workload"; then
	fail "the workload did not stop at its exit: state $(state "$workload")"
	cleanup
	exit 1
fi
kill -KILL $recorder
wait $recorder 2> /dev/null

wait_for 10 gone "$helper" ||
	fail "the helper $helper still runs (state $(state "$helper")) after the recorder was killed"
wait_for 10 gone "$workload" ||
	fail "the workload $workload is left in state $(state "$workload")"
# the guardian closes the events (some 80 ms each), then removes the uprobes
wait_for 60 no_uprobes_of $recorder ||
	fail "uprobes of refcnt_$recorder left behind"
[ $err -eq 0 ] &&
	echo "refcnt record kill scan: helper and workload ended, no uprobe left, after SIGKILL of the recorder"
cleanup
exit $err
