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
