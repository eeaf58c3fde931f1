#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the perf refcnt shell tests.

refcnt_uprobe_events=/sys/kernel/tracing/uprobe_events

# The uprobe groups left behind: refcnt_<pid> of recorders that are gone.
# Groups of recorders still running (another test, another user) are theirs.
refcnt_leftovers() {
	local group pid

	grep -o '^[pr]:refcnt_[0-9]*' "$refcnt_uprobe_events" 2> /dev/null | sort -u |
	while read -r group; do
		pid=${group#*refcnt_}
		[ -d "/proc/$pid" ] || echo "${group#*:}"
	done
}

# refcnt_test_init NAME: the common start of a perf refcnt shell test: a
# temporary directory removed at exit ($tmpdir), fail() that prints NAME and
# marks the test failed ($err), and $perf, the perf under test.
refcnt_test_init() {
	refcnt_test_name=$1
	err=0
	perf=$(command -v perf)
	tmpdir=$(mktemp -d "/tmp/perf-test-refcnt.XXXXXX")
	trap 'rm -rf "$tmpdir"' EXIT
}

fail() {
	echo "$refcnt_test_name: FAILED: $*"
	err=1
}

# refcnt_need_root: uprobes need root; skip otherwise
refcnt_need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "$refcnt_test_name: skip: uprobes need root"
		exit 2
	fi
}
