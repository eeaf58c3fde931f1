#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run every perf refcnt test and end with one line "N passed, N failed,
# N skipped". perf test's exit code says nothing of single cases, so its
# result lines are counted, and held to what the tree holds: one result per
# case of the perf refcnt suite (tests/refcnt.c) and per refcnt shell test
# (tests/shell/refcnt*.sh), plus lint, this runner's own test, the
# survey's judging test, make survey on REFCNT_SURVEY_COMMANDS and, when
# REFCNT_ACCURACY_VARIANTS names some, make accuracy on them (or the make
# target REFCNT_ACCURACY_TARGET names: accuracy-asan). Fewer
# results, a result line not understood, or perf test ending by a signal or
# with an error of its own fail the run; so does a failed or missing test.
#
# Usage: run-tests.sh PERF
#   REFCNT_RUNNER_SELFTEST=1: only perf test's results (no lint, no
#   self-test): scripts/test-run-tests.sh runs it so on fake perfs.
set -uo pipefail

perf=${1:?usage: run-tests.sh PERF}
root=$(cd "$(dirname "$0")/.." && pwd)
selftest=${REFCNT_RUNNER_SELFTEST:-}
log=$(mktemp /tmp/refcnt-tests.XXXXXX)
trap 'rm -f "$log"' EXIT

passed=0 failed=0 skipped=0 results=0

# one result: "NAME : Ok|FAILED!|Skip..."
count() {
	local name=$1 result=$2

	results=$((results + 1))
	case "$result" in
	Ok)		passed=$((passed + 1)) ;;
	Skip*)		skipped=$((skipped + 1)) ;;
	*)		failed=$((failed + 1)); echo "FAILED: $name" ;;
	esac
}

# the tests the tree holds; perf test finds the shell tests in ./tests/shell
tests_dir=$root/tools/perf/tests
cases=$(grep -c '^[[:space:]]*TEST_CASE(' "$tests_dir/refcnt.c")
shells=$(find "$tests_dir/shell" -maxdepth 1 -name 'refcnt*.sh' | wc -l)
expected=$((cases + shells))

# step NAME FROM CMD...: CMD is one test, NAME, its output shown from the
# first line that matches FROM (- for all of it), and its last lines too
# if it failed
step() {
	local name=$1 from=$2 result=Ok

	shift 2
	expected=$((expected + 1))
	"$@" > "$log" 2>&1 || result=FAILED
	if [ "$from" = - ]; then
		cat "$log"
	else
		sed -n "/$from/,\$p" "$log"
		[ $result = Ok ] || tail -n 5 "$log"
	fi
	count "$name" "$result"
}

if [ -z "$selftest" ]; then
	expected=$((expected + 1))
	# checkpatch is a test of every file we add
	if make -s -C "$root" lint > "$log" 2>&1; then
		count lint Ok
	else
		cat "$log"
		count lint FAILED
	fi
	# the runner fails on a perf that runs nothing, dies or fails a test
	step "runner self-test" - "$root/scripts/test-run-tests.sh"
	# the survey's judging: fake sanitizer reports and audits
	step "survey self-test" - "$root/scripts/test-survey.sh"
fi

# make survey on the commands REFCNT_SURVEY_COMMANDS names (check: those
# where the sanitizer finds a refcount bug): each verdict as the list
# says; a run of perf that should take seconds takes at most 5 minutes
if [ -z "$selftest" ] && [ -n "${REFCNT_SURVEY_COMMANDS:-}" ]; then
	step survey '^command ' env REFCNT_SURVEY_TIMEOUT=300 make -s -C "$root" survey \
		SURVEY_COMMANDS="$REFCNT_SURVEY_COMMANDS"
fi

# seeded-bug perf builds (make accuracy): the top bug row names each bug
if [ -z "$selftest" ] && [ -n "${REFCNT_ACCURACY_VARIANTS:-}" ]; then
	# every variant built and recorded afresh, whatever the environment
	step accuracy '^variant ' make -s -C "$root" "${REFCNT_ACCURACY_TARGET:-accuracy}" \
		ACCURACY_VARIANTS="$REFCNT_ACCURACY_VARIANTS" ACCURACY_REREPORT= ACCURACY_SET=
fi

# the shell tests run `perf` from PATH: make it the one under test
perf=$(realpath -s "$perf")
PATH=$(dirname "$perf"):$PATH
export PATH
(cd "$root/tools/perf" && "$perf" test -v refcnt) > "$log" 2>&1
rc=$?
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
	failed=$((failed + 1))
fi
if [ $rc -ge 128 ]; then
	echo "FAILED: perf test was killed by signal $((rc - 128))"
	failed=$((failed + 1))
elif [ $rc -ne 0 ]; then
	echo "FAILED: perf test exited $rc: its harness failed"
	failed=$((failed + 1))
fi
if [ "$results" -ne "$expected" ]; then
	echo "FAILED: $results results, the tree holds $expected tests" \
	     "($cases suite cases, $shells shell tests${selftest:+; self-test mode})"
	failed=$((failed + 1))
fi

echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
