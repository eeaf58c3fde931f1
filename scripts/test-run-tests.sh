#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The test of scripts/run-tests.sh: a green run must mean every test of the
# tree ran and passed. Fake perfs print perf test's result lines for the
# tests the tree holds, as they see it (the suite's TEST_CASE names, the
# shell tests' descriptions), or print nothing, miss one, fail one, or die;
# the runner must pass only the first.
#
# Usage: test-run-tests.sh
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/refcnt-runner-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
err=0

# the result lines of a perf test run of every refcnt test, all Ok
{
	grep -o 'TEST_CASE("[^"]*"' "$root/tools/perf/tests/refcnt.c" |
		sed 's/TEST_CASE("\(.*\)"/\1/' | awk '{ printf " 69.%d: %s : Ok\n", NR, $0 }'
	for t in "$root"/tools/perf/tests/shell/refcnt*.sh; do
		sed -n '2s/^# //p' "$t"
	done | awk '{ printf "%d: %s : Ok\n", 100 + NR, $0 }'
} > "$tmp/all-ok"

# fake_perf NAME SCRIPT: a perf whose "test" runs SCRIPT (bash)
fake_perf() {
	mkdir -p "$tmp/$1"
	printf '#!/bin/bash\n[ "$1" = test ] || exit 1\n%s\n' "$2" > "$tmp/$1/perf"
	chmod +x "$tmp/$1/perf"
}

# expect NAME RC_WANTED: the runner's verdict on fake perf NAME
expect() {
	local name=$1 want=$2 rc

	REFCNT_RUNNER_SELFTEST=1 "$root/scripts/run-tests.sh" "$tmp/$name/perf" \
		> "$tmp/$name.out" 2>&1
	rc=$?
	if { [ "$want" = pass ] && [ $rc -ne 0 ]; } || { [ "$want" = fail ] && [ $rc -eq 0 ]; }; then
		echo "runner self-test: FAILED: perf that $name: exit $rc, wanted $want:"
		tail -n 3 "$tmp/$name.out"
		err=1
	else
		echo "runner self-test: perf that $name: $want ($(tail -n 1 "$tmp/$name.out"))"
	fi
}

fake_perf "runs every test" "cat $tmp/all-ok"
fake_perf "prints nothing" "exit 0"
fake_perf "misses a test" "head -n -1 $tmp/all-ok"
fake_perf "fails a test" "sed '\$s/: Ok\$/: FAILED!/' $tmp/all-ok"
fake_perf "dies of SIGSEGV" "cat $tmp/all-ok; kill -SEGV \$\$"
fake_perf "fails in its harness" "cat $tmp/all-ok; exit 255"

expect "runs every test" pass
expect "prints nothing" fail
expect "misses a test" fail
expect "fails a test" fail
expect "dies of SIGSEGV" fail
expect "fails in its harness" fail
exit $err
