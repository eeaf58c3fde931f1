#!/bin/bash
# refcnt record: workloads that crash, abort, fail, fork or exec (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# The buggy workload dying of SIGSEGV or abort() after its work, exiting 1
# after it (its scan at exit is kept, with its status), running it
# in a forked child, or exec'ing perf to run it: every time the recorder
# ends, leaves no uprobe registered, and its recording reports exactly
# the injected findings. The forked child runs threads while its parent's
# threads come and go: it is recorded to its end only because record keeps
# the breakpoints in it (util/refcnt/pin.h), and its objects are told from
# its parent's at the same addresses by the report. Last, the buggy work
# is done before an exec of another perf at the same addresses (ASLR off):
# the findings must be named after the image that ran them, not the next.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt record ends"

refcnt_need_root
# the scan at exit covers the buggy work but in a forked child (not traced)
refcnt_buggy_findings > "$tmpdir/expected"
refcnt_buggy_findings_unscanned > "$tmpdir/expected-unscanned"

# how the scanned process ended, as the report's header says it
refcnt_end_line() {
	case $1 in
	segv)	echo "# the process was killed by signal 11 " ;;
	abort)	echo "# the process was killed by signal 6 " ;;
	fail)	echo "# the process exited with status 1" ;;
	*)	echo "# the process exited with status 0" ;;
	esac
}

for end in segv abort fail exec fork; do
	perf refcnt record -o "$tmpdir/$end.data" -- "$target" test -w refcnt buggy $end \
		> /dev/null 2> "$tmpdir/$end.err"
	rc=$?
	leftovers=$(refcnt_leftovers)
	if [ -n "$leftovers" ]; then
		fail "$end: uprobes left behind: $leftovers"
	fi
	if ! refcnt_findings "$tmpdir/$end.data" > "$tmpdir/$end.found" 2> "$tmpdir/$end.rep"; then
		fail "$end: the recording does not report: $(head -n 2 "$tmpdir/$end.rep")"
		continue
	fi
	expected=$tmpdir/expected
	[ $end = fork ] && expected=$tmpdir/expected-unscanned
	line=$(refcnt_end_line $end)
	if ! perf refcnt report -i "$tmpdir/$end.data" --stdio 2> /dev/null | grep -qF "$line"; then
		fail "$end: the header does not say '$line'"
	fi
	if ! diff -u "$expected" "$tmpdir/$end.found"; then
		fail "$end: the findings are not the injected ones (- missing, + extra)"
	else
		echo "refcnt record ends: $end: recorder exit $rc, exactly the $(wc -l < "$expected") injected findings"
	fi
done
# exec into another program mapped where perf was: the perf of linux 6.1
perf61=${REFCNT_PERF_6_1:-$(dirname "$(readlink -f "$target")")/../v6.1/perf}
if [ ! -x "$perf61" ]; then
	fail "no perf of linux 6.1 at $perf61 to exec into: 'make perf-6.1' builds it"
elif ! command -v setarch > /dev/null; then
	fail "setarch (util-linux) is not installed: cannot turn ASLR off"
else
	perf refcnt record -x "$target" -o "$tmpdir/exec-other.data" -- \
		setarch -R "$target" test -w refcnt buggy exec "$perf61" version \
		> /dev/null 2> "$tmpdir/exec-other.err" ||
		fail "exec into 6.1: record exited $?: $(tail -n 2 "$tmpdir/exec-other.err")"
	refcnt_findings "$tmpdir/exec-other.data" > "$tmpdir/exec-other.found"
	# the scan at exit is of perf 6.1's image, the buggy work was before
	if ! diff -u "$tmpdir/expected-unscanned" "$tmpdir/exec-other.found"; then
		fail "exec into 6.1: findings not named after the image that made them"
	else
		echo "refcnt record ends: exec into perf 6.1 at the same addresses: the $(wc -l < "$tmpdir/expected-unscanned") findings named after the image that ran them"
	fi
fi
exit $err
