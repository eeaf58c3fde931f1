#!/bin/bash
# refcnt record: workloads that crash, abort, fork or exec (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# The buggy workload dying of SIGSEGV or abort() after its work, running it
# in a forked child, or exec'ing perf to run it: every time the recorder
# ends, leaves no uprobe registered, and its recording reports. Where the
# buggy shapes ran in the recorded process itself, all their findings are
# there.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt record ends"

refcnt_need_root
refcnt_buggy_findings > "$tmpdir/expected"

for end in segv abort exec fork; do
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
	missing=$(comm -23 "$tmpdir/expected" "$tmpdir/$end.found")
	case $end in
	fork)
		# a forked child's events stop when its first thread exits (seen on
		# kernel 6.18): report what there is, say what is missing
		echo "refcnt record ends: fork: recorder exit $rc, $(wc -l < "$tmpdir/$end.found") findings, $(echo -n "$missing" | grep -c .) of the child's missing"
		;;
	*)
		if [ -n "$missing" ]; then
			fail "$end: findings missing:"
			echo "$missing"
		else
			echo "refcnt record ends: $end: recorder exit $rc, all $(wc -l < "$tmpdir/expected") injected findings"
		fi
		;;
	esac
done
exit $err
