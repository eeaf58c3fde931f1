#!/bin/bash
# refcnt diff: new, changed and gone findings of two recordings (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# perf refcnt diff compares two recordings by names. The buggy refcnt
# workload against the clean one: the new rows are exactly the bug rows
# perf refcnt report shows of the buggy one (a use after put by the put
# that freed the object), nothing changed or gone, and the stdio header
# counts them; the clean one against a second clean run:
# no row (refcnt_diff_stable.sh: a real perf report against itself, ten
# times). --fail-on exits 23 when the new recording has rows of its kinds
# the baseline lacks, 0 when not, 24 when those are all uncertain (map__get
# left uncovered), 0 then with --no-fail-on-uncertain. -x';' keeps its
# fields however many ';' the callchains hold. Bad arguments are one-line
# errors.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt diff"

refcnt_need_root

refcnt_record clean -- "$target" test -w refcnt clean || exit 1
refcnt_record clean2 -- "$target" test -w refcnt clean || exit 1
refcnt_record buggy -- "$target" test -w refcnt buggy || exit 1

bug_kinds='^(leak|double put|over-release|use after put),'

# buggy against clean: the new rows are the buggy report's bug rows
# (a use after put by the put that freed the object, the report's seventh
# field, where it knows it)
perf refcnt report -i "$tmpdir/buggy.data" -x, | grep -E "$bug_kinds" |
	awk -F, -v OFS=, '{ f = $5; if ($1 == "use after put" && $7 != "-") f = $7; print $1, $2, f }' |
	sort -u > "$tmpdir/injected"
grep -q '^use after put,' "$tmpdir/injected" ||
	fail "the buggy workload's report has no use after put row"
if ! perf refcnt diff -x, "$tmpdir/clean.data" "$tmpdir/buggy.data" > "$tmpdir/diff.x" \
	2> "$tmpdir/diff.err"; then
	fail "diff clean buggy failed: $(cat "$tmpdir/diff.err")"
fi
grep '^finding,new,' "$tmpdir/diff.x" | cut -d, -f3,4,5 | sort -u > "$tmpdir/new"
if [ ! -s "$tmpdir/injected" ]; then
	fail "the buggy workload's report has no bug rows"
elif ! diff -u "$tmpdir/injected" "$tmpdir/new"; then
	fail "diff clean buggy: the new rows are not the injected bugs (- injected, + new)"
fi
if grep -v '^finding,new,' "$tmpdir/diff.x" | grep -q '^finding,'; then
	fail "diff clean buggy: rows other than new ones:"
	grep -v '^finding,new,' "$tmpdir/diff.x" | grep '^finding,' | head -n 3
fi
# each callchain ends in its site (or the refcount function it called)
awk -F, '$1 == "finding" { n = split($9, f, ";"); if (f[n] != $5 && f[n - 1] != $5) print }' \
	"$tmpdir/diff.x" > "$tmpdir/bad-chains"
[ -s "$tmpdir/bad-chains" ] && fail "callchains that do not end in their site: $(head -n 1 "$tmpdir/bad-chains")"

perf refcnt diff "$tmpdir/clean.data" "$tmpdir/buggy.data" > "$tmpdir/diff.out" 2>&1
nr=$(wc -l < "$tmpdir/injected")
if ! grep -q "^# findings: $nr new, 0 changed, 0 gone$" "$tmpdir/diff.out"; then
	fail "diff clean buggy: the header does not say $nr new: $(grep '^# findings' "$tmpdir/diff.out")"
fi
# -x lists the rows in the order stdio shows them
grep -E '^ +[0-9]+ +[0-9]+ +[-+][0-9]+  ' "$tmpdir/diff.out" |
	awk '{ $1 = $2 = $3 = $4 = ""; print }' | sed 's/^ *//' > "$tmpdir/stdio-rows"
awk -F, '$1 == "finding" { print $4 " " $3 " " $5 }' "$tmpdir/diff.x" | uniq > "$tmpdir/x-rows"
if ! diff -u <(tr -s ' ' < "$tmpdir/stdio-rows") "$tmpdir/x-rows"; then
	fail "diff: -x lists the rows in another order than stdio (- stdio, + -x)"
fi
echo "refcnt diff: clean -> buggy: $nr new rows, the injected bugs"

# clean against clean: nothing
perf refcnt diff -x, "$tmpdir/clean.data" "$tmpdir/clean2.data" > "$tmpdir/same.x" 2>&1
if grep -q '^finding,' "$tmpdir/same.x"; then
	fail "diff clean clean lists findings:"
	head -n 3 "$tmpdir/same.x"
fi
echo "refcnt diff: clean -> clean: no rows, $(grep -c '^balance,' "$tmpdir/same.x") balance rows"

# --fail-on: 23 when the new recording has rows of its kinds the baseline
# lacks, 0 otherwise (the bugs gone, or the same); and only its kinds
fail_on() {
	local want=$1 rc
	shift
	perf refcnt diff -q "$@" > /dev/null 2> "$tmpdir/err"
	rc=$?
	[ $rc -eq "$want" ] || fail "diff $*: exit $rc, not $want: $(cat "$tmpdir/err")"
}
fail_on 23 --fail-on=bugs "$tmpdir/clean.data" "$tmpdir/buggy.data"
fail_on 23 -x, --fail-on=leak "$tmpdir/clean.data" "$tmpdir/buggy.data"
fail_on 0 --fail-on=bugs "$tmpdir/buggy.data" "$tmpdir/clean.data"
fail_on 0 --fail-on=bugs "$tmpdir/clean.data" "$tmpdir/clean2.data"
fail_on 0 --fail-on=bugs "$tmpdir/buggy.data" "$tmpdir/buggy.data"
# the buggy workload has double puts, no over-release nor mismatch
fail_on 23 --fail-on=double-put "$tmpdir/clean.data" "$tmpdir/buggy.data"
fail_on 0 --fail-on=over-release,mismatch "$tmpdir/clean.data" "$tmpdir/buggy.data"
echo "refcnt diff: --fail-on=bugs: 23 on clean -> buggy, 0 on buggy -> clean and clean -> clean"

# uncertain new rows: 24, the recording could not be judged, unless let pass
if perf refcnt record -o "$tmpdir/unc.data" -t map --uncover map__get -- \
	"$target" test -w refcnt buggy > /dev/null 2> "$tmpdir/unc.err"; then
	fail_on 24 --fail-on=bugs "$tmpdir/clean.data" "$tmpdir/unc.data"
	grep -q "uncertain row.*worse in $tmpdir/unc.data" "$tmpdir/err" ||
		fail "diff --fail-on=bugs of uncertain rows does not say why: $(cat "$tmpdir/err")"
	fail_on 0 --fail-on=bugs --no-fail-on-uncertain "$tmpdir/clean.data" "$tmpdir/unc.data"
	fail_on 23 --fail-on=bugs "$tmpdir/unc.data" "$tmpdir/buggy.data"
	echo "refcnt diff: --fail-on=bugs: 24 on uncertain new rows, 0 with --no-fail-on-uncertain"
else
	fail "unc: record failed: $(tail -n 2 "$tmpdir/unc.err")"
fi

# -x';': callchains are ';' separated: theirs are replaced, the fields stay
perf refcnt diff -x';' "$tmpdir/clean.data" "$tmpdir/buggy.data" > "$tmpdir/semi.x"
if [ ! -s "$tmpdir/semi.x" ] ||
   awk -F';' '($1 == "finding" && NF != 9) || ($1 == "balance" && NF != 12)' "$tmpdir/semi.x" |
   grep -q .; then
	fail "diff -x';': lines with other field counts than 9 and 12:"
	head -n 3 "$tmpdir/semi.x"
fi

# errors: one line each, and a failure
for args in "$tmpdir/clean.data" "$tmpdir/clean.data $tmpdir/none.data" \
	    "$tmpdir/clean.data $tmpdir/buggy.data -t dsos" \
	    "--fail-on=leaks $tmpdir/clean.data $tmpdir/buggy.data"; do
	# shellcheck disable=SC2086
	perf refcnt diff $args > /dev/null 2> "$tmpdir/err"
	rc=$?
	if [ $rc -eq 0 ] || [ "$(wc -l < "$tmpdir/err")" -ne 1 ]; then
		fail "diff $args: exit $rc, said: $(cat "$tmpdir/err")"
	fi
done

exit $err
