#!/bin/bash
# refcnt diff stable: the same perf audited again is never worse (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# diff --fail-on judges what two runs of one perf on one input agree on:
# which (kind, type, site function) rows there are and the references per
# call of each function, not their counts nor their callchains, which
# drift. A real perf report of a small recording, audited once as the
# baseline, then $REFCNT_DIFF_RUNS (10) times more: diff --fail-on=bugs of
# the baseline and each run exits 0 every time, and no bug row shows.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt diff stable"

refcnt_need_root

runs=${REFCNT_DIFF_RUNS:-10}
bug_rows='^finding,[a-z]+,(leak|double put|over-release|use after put),'

if ! perf record -o "$tmpdir/perf.data" -g -F 500 -- "$target" test -w noploop 1 \
	> /dev/null 2>&1; then
	fail "cannot record the perf.data to report"
	exit $err
fi
refcnt_record base -- "$target" report --stdio -i "$tmpdir/perf.data" || exit $err

exits=""
rows=0
for i in $(seq "$runs"); do
	refcnt_record "run$i" -- "$target" report --stdio -i "$tmpdir/perf.data" || continue
	perf refcnt diff -x, --fail-on=bugs "$tmpdir/base.data" "$tmpdir/run$i.data" \
		> "$tmpdir/run$i.x" 2> "$tmpdir/run$i.derr"
	rc=$?
	exits="$exits $rc"
	rows=$((rows + $(grep -c '^finding,' "$tmpdir/run$i.x")))
	[ $rc -eq 0 ] || fail "run $i: diff --fail-on=bugs exits $rc: $(cat "$tmpdir/run$i.derr")"
	if grep -qE "$bug_rows" "$tmpdir/run$i.x"; then
		fail "run $i: bug rows:"
		grep -E "$bug_rows" "$tmpdir/run$i.x" | head -n 3
	fi
done
echo "refcnt diff stable: perf report -> perf report, $runs runs: exits$exits; $rows rows, none a bug"

exit $err
