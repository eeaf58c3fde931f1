#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the perf refcnt shell tests.

refcnt_uprobe_events=/sys/kernel/tracing/uprobe_events

# Is the guardian of a gone recorder's group refcnt_<pid> still ending its
# events? It is named refcnt-<pid>, and takes some 80 ms per uprobe (the
# kernel's grace period at each last close) after the recorder returned.
refcnt_guardians_busy() {
	local group pid

	for group in $(grep -o '^[pr]:refcnt_[0-9]*' "$refcnt_uprobe_events" 2> /dev/null |
		       sort -u); do
		pid=${group#*refcnt_}
		[ -d "/proc/$pid" ] && continue
		pgrep -x "refcnt-$pid" > /dev/null && return 0
	done
	return 1
}

# The uprobe groups left behind: refcnt_<pid> of recorders that are gone,
# once their guardians are done (waiting up to 60 s for them). Groups of
# recorders still running (another test, another user) are theirs.
refcnt_leftovers() {
	local group pid

	for _ in $(seq 600); do
		refcnt_guardians_busy || break
		sleep 0.1
	done
	grep -o '^[pr]:refcnt_[0-9]*' "$refcnt_uprobe_events" 2> /dev/null | sort -u |
	while read -r group; do
		pid=${group#*refcnt_}
		[ -d "/proc/$pid" ] || echo "${group#*:}"
	done
}

# refcnt_test_init NAME: the common start of a perf refcnt shell test: a
# temporary directory removed at exit ($tmpdir), fail() that prints NAME and
# marks the test failed ($err), $perf, the perf under test, and $target, the
# perf it audits: $REFCNT_TARGET, or itself (an ASan perf under test audits a
# normal one: ASan builds turn on RC_CHK, whose pointer per reference is what
# perf refcnt does without).
refcnt_test_init() {
	refcnt_test_name=$1
	err=0
	perf=$(command -v perf)
	target=${REFCNT_TARGET:-$perf}
	tmpdir=$(mktemp -d "/tmp/perf-test-refcnt.XXXXXX")
	trap 'rm -rf "$tmpdir"' EXIT
}

fail() {
	echo "$refcnt_test_name: FAILED: $*"
	err=1
}

# refcnt_record NAME -- COMMAND...: perf refcnt record COMMAND into
# $tmpdir/NAME.data, its stderr in $tmpdir/NAME.err; fail() and 1 if it fails
refcnt_record() {
	local name=$1 rc

	shift 2
	perf refcnt record -o "$tmpdir/$name.data" -- "$@" > /dev/null 2> "$tmpdir/$name.err"
	rc=$?
	[ $rc -eq 0 ] && return 0
	fail "$name: record exited $rc: $(tail -n 2 "$tmpdir/$name.err")"
	return 1
}

# refcnt_need_root: uprobes need root; skip otherwise
refcnt_need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "$refcnt_test_name: skip: uprobes need root"
		exit 2
	fi
}

# refcnt_need_uprobes: skip on a kernel without uprobe events, the one
# reason a perf refcnt record test may not run as root
refcnt_need_uprobes() {
	if [ ! -e /sys/kernel/tracing/uprobe_events ] &&
	   [ ! -e /sys/kernel/debug/tracing/uprobe_events ] &&
	   ! grep -q tracefs /proc/filesystems; then
		echo "$refcnt_test_name: skip: the kernel has no uprobe events (CONFIG_UPROBE_EVENTS)"
		exit 2
	fi
}

# refcnt_findings FILE: the findings of a recording, one per line, sorted:
# finding,type,function of its site,uncertain,function of the freeing put;
# compiler clone suffixes (.constprop.0, .isra.0) are dropped
refcnt_findings() {
	perf refcnt report -i "$1" -x, | refcnt_findings_of
}

# refcnt_findings_of: the same, of -x output already made, on stdin
refcnt_findings_of() {
	awk -F, '{
		for (i = 5; i <= 7; i += 2) sub(/\..*/, "", $i)
		print $1 "," $2 "," $5 "," $6 "," $7
	}' | sort
}

# refcnt_buggy_findings: what refcnt_findings must say of a recording of
# perf test -w refcnt buggy, scanned at its exit: its injected bugs. The
# leaked map still holds the reference map__new2 took on its dso, and the
# leaked thread the nsinfo thread__new made for it: both are unreachable
# but from those leaked objects, held by a leak, told in their rows
# (refcnt_buggy_held), not rows of their own.
refcnt_buggy_findings() {
	{
		for t in dso map maps thread nsinfo; do
			echo "leak,$t,refcnt_${t}_leak,0,-"
			echo "double put,$t,refcnt_${t}_over_release,0,refcnt_${t}_buggy"
			echo "use after put,$t,refcnt_${t}_use_after_put,0,refcnt_${t}_buggy"
		done
		# perf_cpu_map keeps its count where free() writes: a leak only
		echo "leak,cpu_map,refcnt_cpu_map_leak,0,-"
	} | sort
}

# refcnt_buggy_held_expected: what refcnt_buggy_held must say of it
refcnt_buggy_held_expected() {
	printf 'map,refcnt_map_leak,1\nthread,refcnt_thread_leak,1\n'
}

# refcnt_buggy_held FILE: the leak rows that hold references, with how
# many: "type,site function,held references"
refcnt_buggy_held() {
	perf refcnt report -i "$1" -x, | awk -F, '$1 == "leak" && $10 > 0 {
		sub(/\..*/, "", $5); print $2 "," $5 "," $10 }' | sort
}

# refcnt_buggy_findings_unscanned: the same where no scan at exit covers
# the buggy work (a forked child, the image before an exec, a perf
# without DWARF to say what its objects look like): the references the
# leaked map and thread hold are a leak and an object owned at exit
refcnt_buggy_findings_unscanned() {
	{
		refcnt_buggy_findings
		echo "leak,dso,map__new2,0,-"
		echo "owned at exit,nsinfo,thread__new,0,-"
	} | sort
}
