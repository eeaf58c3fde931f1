#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run every perf refcnt test and end with one line "N passed, N failed,
# N skipped"; exit non-zero if a test failed or none ran. perf test's exit
# code says nothing of single cases, so its result lines are counted.
#
# Usage: run-tests.sh PERF
set -uo pipefail

perf=${1:?usage: run-tests.sh PERF}
root=$(cd "$(dirname "$0")/.." && pwd)
log=$(mktemp /tmp/refcnt-tests.XXXXXX)
trap 'rm -f "$log"' EXIT

passed=0 failed=0 skipped=0

# one result: "NAME : Ok|FAILED!|Skip..."
count() {
	local name=$1 result=$2
	case "$result" in
	Ok)		passed=$((passed + 1)) ;;
	Skip*)		skipped=$((skipped + 1)) ;;
	*)		failed=$((failed + 1)); echo "FAILED: $name" ;;
	esac
}

# checkpatch is a test of every file we add
if make -s -C "$root" lint > "$log" 2>&1; then
	count lint Ok
else
	cat "$log"
	count lint FAILED
fi

# the shell tests run `perf` from PATH: make it the one under test
PATH=$(dirname "$(realpath -s "$perf")"):$PATH
export PATH
"$perf" test -v refcnt > "$log" 2>&1
cat "$log"
while IFS= read -r line; do
	# " 93.1: Type specs and --type parsing : Ok"; a name as long as perf
	# test's column has no space before its ':'
	if [[ $line =~ ^[[:space:]]*[0-9]+(\.[0-9]+)?:\ (.*[^ ])\ *:\ (Ok|FAILED!|Skip.*)$ ]]; then
		# a suite with several cases prints a header line without result
		count "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}"
	fi
done < <(sed 's/\x1b\[[0-9;]*m//g' "$log")

# a failure whose line the pattern above missed still fails the run
if [ "$failed" -eq 0 ] && sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -q ': FAILED!$'; then
	echo "FAILED: a test whose result line was not understood:"
	sed 's/\x1b\[[0-9;]*m//g' "$log" | grep ': FAILED!$'
	failed=1
fi

echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
