#!/bin/bash
# refcnt workflow: one row per site, --fail-on, suppressions, --folded (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# What a developer does with findings, on the clean and the buggy refcnt
# workload: gate CI on them (--fail-on exits 23 on buggy, 0 on clean, 24
# when its findings are all uncertain: map__get's inlined copies left
# uncovered, and 0 then with --no-fail-on-uncertain; run as "perf,x", whose
# comma -x, must not take for a separator), hide
# the ones understood (a suppression file hides exactly the rows it names,
# and the header counts what each hid; --gen-suppressions writes a file
# that hides every bug row), and draw them (--folded: "frame;... count"
# lines that add up to the header's outstanding references). On a real
# perf report, each (finding, type, site) is one row.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt workflow"

refcnt_need_root

# report NAME OPTIONS...: the exit status of perf refcnt report, its
# output in $tmpdir/NAME.out
report() {
	local name=$1

	shift
	perf refcnt report --stdio "$@" > "$tmpdir/$name.out" 2> "$tmpdir/$name.rerr"
}

refcnt_record clean -- "$target" test -w refcnt clean || exit 1
refcnt_record buggy -- "$target" test -w refcnt buggy || exit 1
buggy=$tmpdir/buggy.data
clean=$tmpdir/clean.data

# --fail-on: 23 when a bug remains, 0 when none; a bad kind is an error, not 23
report fail-buggy -i "$buggy" --fail-on=bugs
rc=$?
[ $rc -eq 23 ] || fail "--fail-on=bugs on buggy exited $rc, not 23"
report fail-clean -i "$clean" --fail-on=bugs
rc=$?
[ $rc -eq 0 ] || fail "--fail-on=bugs on clean exited $rc, not 0"
report fail-leak -i "$buggy" --fail-on=use-after-put,leak
rc=$?
[ $rc -eq 23 ] || fail "--fail-on=use-after-put,leak on buggy exited $rc, not 23"
report fail-owned -i "$buggy" --fail-on=owned-at-exit
rc=$?
[ $rc -eq 0 ] || fail "--fail-on=owned-at-exit on buggy (none) exited $rc, not 0"
report fail-bad -i "$buggy" --fail-on=leek
rc=$?
if [ $rc -eq 0 ] || [ $rc -eq 23 ] || [ "$(wc -l < "$tmpdir/fail-bad.rerr")" -ne 1 ]; then
	fail "--fail-on=leek exited $rc (not an error) or said more than one line"
fi
echo "refcnt workflow: --fail-on=bugs: buggy 23, clean 0"

# --fail-on never passes silently over uncertain findings: with map__get's
# inlined copies uncovered, the buggy workload's map findings all are
ln -s "$(readlink -f "$target")" "$tmpdir/perf,x"
unc=$tmpdir/uncertain.data
if ! perf refcnt record -o "$unc" -t map --uncover map__get -- "$tmpdir/perf,x" test -w refcnt buggy \
	> /dev/null 2> "$tmpdir/uncertain.err"; then
	fail "uncertain: record failed: $(tail -n 2 "$tmpdir/uncertain.err")"
else
	report fail-unc -i "$unc" --fail-on=bugs
	rc=$?
	if [ $rc -ne 24 ] || [ "$(wc -l < "$tmpdir/fail-unc.rerr")" -ne 1 ] ||
	   ! grep -q "uncertain row.* hits on uncovered inlined sites.*--no-fail-on-uncertain" \
		"$tmpdir/fail-unc.rerr"; then
		fail "--fail-on=bugs on uncertain bugs only exited $rc, not 24 with one line: $(cat "$tmpdir/fail-unc.rerr")"
	fi
	report fail-unc-ok -i "$unc" --fail-on=bugs --no-fail-on-uncertain
	rc=$?
	[ $rc -eq 0 ] || fail "--fail-on=bugs --no-fail-on-uncertain exited $rc, not 0"
	# -x,: the comma of the command "perf,x" shifts no field
	perf refcnt report -i "$unc" -x, > "$tmpdir/unc.x"
	if [ ! -s "$tmpdir/unc.x" ] || awk -F, 'NF != 11 || $9 != "perf_x"' "$tmpdir/unc.x" | grep -q .; then
		fail "-x, of the command perf,x: lines not of 11 fields with perf_x:"
		head -n 3 "$tmpdir/unc.x"
	fi
	echo "refcnt workflow: --fail-on=bugs: uncertain only 24, 0 with --no-fail-on-uncertain"
fi

# suppressions: exactly the rows they name go, the others stay as they were
perf refcnt report -i "$buggy" -x, > "$tmpdir/all.x"
printf '# understood\nleak:refcnt_dso_leak\ndouble-put:refcnt_map_over*\n' > "$tmpdir/sup"
perf refcnt report -i "$buggy" -x, --suppressions "$tmpdir/sup" > "$tmpdir/sup.x"
grep -v -e '^leak,dso,[0-9]*,[0-9]*,refcnt_dso_leak,' \
	-e '^double put,map,[0-9]*,[0-9]*,refcnt_map_over_release,' "$tmpdir/all.x" > "$tmpdir/left.x"
if [ "$(wc -l < "$tmpdir/left.x")" -ne "$(($(wc -l < "$tmpdir/all.x") - 2))" ]; then
	fail "suppressions: the buggy report has no rows refcnt_dso_leak and refcnt_map_over_release"
elif ! diff -u "$tmpdir/left.x" "$tmpdir/sup.x"; then
	fail "suppressions: hid other rows than the two they name (- expected, + found)"
fi
report sup -i "$buggy" --suppressions "$tmpdir/sup"
if ! grep -q "^# suppressions of $tmpdir/sup: 2, 2 references hidden$" "$tmpdir/sup.out" ||
   ! grep -qE '^#+[ ]+1 leak:refcnt_dso_leak$' "$tmpdir/sup.out" ||
   ! grep -qE '^#[ ]+1 double put:refcnt_map_over\*$' "$tmpdir/sup.out"; then
	fail "suppressions: the header does not count what each hid"
	grep '^# suppressions' -A 2 "$tmpdir/sup.out"
fi
printf 'leak thread\n' > "$tmpdir/bad-sup"
report bad-sup -i "$buggy" --suppressions "$tmpdir/bad-sup"
rc=$?
if [ $rc -eq 0 ] || ! grep -q "bad-sup:1: not a suppression" "$tmpdir/bad-sup.rerr"; then
	fail "a bad suppression line: exit $rc, $(cat "$tmpdir/bad-sup.rerr")"
fi

# --gen-suppressions: a file that hides every bug row
report gen -i "$buggy" --gen-suppressions
sed -n '/^# suppressions for the bug rows above/,$p' "$tmpdir/gen.out" > "$tmpdir/gen.sup"
if [ "$(grep -vc '^#' "$tmpdir/gen.sup")" -ne "$(grep -cE '^(leak|double put|over-release|use after put),' "$tmpdir/all.x")" ]; then
	fail "--gen-suppressions: not one line per bug row"
	cat "$tmpdir/gen.sup"
fi
report gen-used -i "$buggy" --suppressions "$tmpdir/gen.sup" --fail-on=bugs
rc=$?
[ $rc -eq 0 ] || fail "--gen-suppressions' file leaves bugs: --fail-on=bugs exited $rc"
echo "refcnt workflow: suppressions hide the rows they name, and count them"

# --folded: frame;frame;... count, adding up to the outstanding references
for data in "$buggy" "$clean"; do
	report folded -i "$data" --folded
	report header -i "$data"
	want=$(sed -n 's/^# outstanding at the end: \([0-9]*\) references.*/\1/p' "$tmpdir/header.out")
	if grep -qvE '^[^ ;]+(;[^ ;]+)* [0-9]+$' "$tmpdir/folded.out"; then
		fail "--folded: a line is not 'frame;frame;... count':"
		grep -vE '^[^ ;]+(;[^ ;]+)* [0-9]+$' "$tmpdir/folded.out" | head -n 3
	fi
	got=$(awk '{ n += $NF } END { print n + 0 }' "$tmpdir/folded.out")
	if [ -z "$want" ] || [ "$got" -ne "$want" ]; then
		fail "--folded of $(basename "$data"): $got references, the header says ${want:-nothing}"
	fi
done
report folded-bugs -i "$buggy" --folded --fail-on=leak
grep -q 'refcnt_dso_leak;dso__get ' "$tmpdir/folded-bugs.out" ||
	fail "--folded --fail-on=leak: no callchain ending in refcnt_dso_leak;dso__get"
echo "refcnt workflow: --folded adds up to the outstanding references"

# one row per (finding, type, site) on a real perf command
if perf record -o "$tmpdir/perf.data" -g -- "$target" test -w noploop 1 > /dev/null 2>&1 &&
   refcnt_record report -- "$target" report --stdio -i "$tmpdir/perf.data"; then
	report rows -i "$tmpdir/report.data" -q
	grep -E '^ +[0-9]+ +[0-9]+  ' "$tmpdir/rows.out" | awk '{ $1 = $2 = ""; print }' |
		sort | uniq -d > "$tmpdir/dups"
	if [ -s "$tmpdir/dups" ]; then
		fail "rows repeat a (type, finding, site):"
		head -n 3 "$tmpdir/dups"
	else
		echo "refcnt workflow: perf report: one row per (finding, type, site)"
	fi
fi

exit $err
