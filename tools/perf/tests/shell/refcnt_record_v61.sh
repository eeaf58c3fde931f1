#!/bin/bash
# refcnt record: the perf of linux 6.1, another target: audited, every type, no bug (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# The perf of Debian's linux-source-6.1 (make perf-6.1 builds it into
# build/v6.1) is a target perf refcnt was not written against: its probes
# resolve, its perf report is recorded and reported with objects of every
# type, and no over-release, double put or use after put.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt record 6.1"

refcnt_need_root

perf61=${REFCNT_PERF_6_1:-$(dirname "$(readlink -f "$target")")/../v6.1/perf}
if [ ! -x "$perf61" ]; then
	fail "no perf of linux 6.1 at $perf61: 'make perf-6.1' builds it"
	exit 1
fi
"$perf61" record -q -o "$tmpdir/w61.data" -- "$perf61" bench sched messaging -l 5 \
	> /dev/null 2>&1 || fail "perf 6.1 could not record the input of its report"
perf refcnt record -o "$tmpdir/v61.data" -- "$perf61" report --stdio -i "$tmpdir/w61.data" \
	> /dev/null 2> "$tmpdir/v61.err"
rc=$?
if [ $rc -ne 0 ]; then
	fail "recording perf report 6.1 exited $rc: $(tail -n 2 "$tmpdir/v61.err")"
elif ! perf refcnt report -i "$tmpdir/v61.data" --stdio > "$tmpdir/v61.out" 2>&1; then
	fail "the report of perf report 6.1 failed: $(tail -n 2 "$tmpdir/v61.out")"
else
	grep "^# \(perf\|events\|objects\|leaks\)" "$tmpdir/v61.out"
	grep -q "^perf refcnt: [0-9]* probes on $(readlink -f "$perf61")" "$tmpdir/v61.err" ||
		fail "record did not say the probes it placed on perf 6.1"
	# built without patchable entries: every probe traps, and record says so
	grep -q "^perf refcnt: 0 of them sit on a 5-byte nop .*, [1-9][0-9]* trap$" \
		"$tmpdir/v61.err" || fail "record did not say that every probe on perf 6.1 traps"
	# 6.1's perf report drops no reference twice; its machine__exit()
	# deletes the kernel maps with one reference left, which shows as a
	# mismatch, a true report of 6.1
	grep -q "over-releases: 0, double puts: 0, use after put: 0," "$tmpdir/v61.out" ||
		fail "over-releases, double puts or uses after put in perf report 6.1"
	grep -q "^# objects: dso [1-9][0-9]* map [1-9][0-9]* maps [1-9][0-9]* thread [1-9][0-9]* nsinfo [1-9][0-9]* cpu_map [1-9]" \
		"$tmpdir/v61.out" || fail "not every type has objects"
fi
[ -z "$(refcnt_leftovers)" ] || fail "uprobes left behind: $(refcnt_leftovers)"
exit $err
