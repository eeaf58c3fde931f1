#!/bin/bash
# refcnt record: one-line errors and non-zero exit codes
# SPDX-License-Identifier: GPL-2.0
#
# Every error a user can hit says what happened and what to do, in one
# line, and exits non-zero.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt record errors"

# expect_error NAME REGEX COMMAND...: non-zero exit, REGEX on stderr
expect_error() {
	local name=$1 regex=$2 rc

	shift 2
	"$@" > /dev/null 2> "$tmpdir/err"
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "refcnt record errors: FAILED: $name: exit code 0"
		err=1
	elif ! grep -qE -e "$regex" "$tmpdir/err"; then
		echo "refcnt record errors: FAILED: $name: no '$regex' in:"
		head -n 5 "$tmpdir/err"
		err=1
	else
		echo "refcnt record errors: $name: exit $rc: $(grep -E -e "$regex" "$tmpdir/err" | head -n 1)"
	fi
}

expect_error "unknown type" "Unknown refcount type 'bogus'" \
	perf refcnt record -t dso,bogus -- true
expect_error "no workload" "No workload given" \
	perf refcnt record
expect_error "workload not found" "Cannot find the workload no-such-command-here" \
	perf refcnt record -- no-such-command-here
expect_error "missing pid" "No process with pid 999999999" \
	perf refcnt record -p 999999999
expect_error "unknown call graph" "Unknown --call-graph 'lbr'" \
	perf refcnt record -g lbr -- true
expect_error "max-stack with dwarf" "--max-stack takes a number of frames, and -g fp: not '8' with -g dwarf" \
	perf refcnt record -g dwarf --max-stack 8 -- true
if printf 'int main(void) { return 0; }\n' | cc -g -x c -o "$tmpdir/hello" - 2> /dev/null; then
	expect_error "not a perf binary" "no dso__new_id\(\) for type dso: not a perf 6.12 binary" \
		perf refcnt record -x "$tmpdir/hello" -- true
fi

# a perf of another architecture: the ELF header's e_machine made AArch64's
cp "$perf" "$tmpdir/perf-aarch64"
printf '\267\000' | dd of="$tmpdir/perf-aarch64" bs=1 seek=18 conv=notrunc 2> /dev/null
expect_error "another architecture" \
	"is a binary for ELF machine 183 \(64-bit\): perf refcnt record supports x86_64 only" \
	perf refcnt record -x "$tmpdir/perf-aarch64" -- true

if command -v strip > /dev/null; then
	strip -o "$tmpdir/perf-stripped" "$perf"
	expect_error "stripped target" "has no symbol table \(stripped\?\)" \
		perf refcnt record -x "$tmpdir/perf-stripped" -- true
fi

# A kernel without CONFIG_UPROBE_EVENTS has a tracefs without uprobe_events,
# as a tracefs instance directory is: mount one over the tracefs, in a mount
# namespace of the test's own.
instance=/sys/kernel/tracing/instances/perf_test_refcnt_$$
if [ "$(id -u)" -eq 0 ] && command -v unshare > /dev/null && mkdir "$instance" 2> /dev/null; then
	expect_error "kernel without uprobe events" \
		"This kernel has no uprobe events \(/sys/kernel/tracing/uprobe_events\): build it with CONFIG_UPROBE_EVENTS=y" \
		unshare -m --propagation private sh -c '
			mount --bind "$1" /sys/kernel/tracing || exit 0
			if mountpoint -q /sys/kernel/debug/tracing; then
				mount --bind "$1" /sys/kernel/debug/tracing || exit 0
			fi
			exec "$2" refcnt record -o /tmp/none.data -- "$2" test -w refcnt' \
		sh "$instance" "$perf"
	rmdir "$instance"
fi

if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
	expect_error "not privileged" "needs root: run it as root" \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$perf" refcnt record -x "$perf" -o /tmp/none.data -- true
fi

exit $err
