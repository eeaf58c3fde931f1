#!/bin/bash
# refcnt record: other targets: a perf without DWARF, the perf of linux 6.1 (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# A perf with symbols but no DWARF: the types whose API is partly inlined
# (map__get, maps__delete, ...) cannot be followed and are left out, each
# said by name; dso and thread, all out of line, still give exactly the
# injected findings. The perf of Debian's linux-source-6.1 (make builds it
# into build/v6.1): its perf report is audited, or record names every
# function it cannot find.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt record targets"

refcnt_need_root

if command -v objcopy > /dev/null; then
	objcopy --strip-debug "$target" "$tmpdir/perf-nodwarf"
	if ! perf refcnt record -o "$tmpdir/nodwarf.data" -- "$tmpdir/perf-nodwarf" test -w refcnt \
		buggy > /dev/null 2> "$tmpdir/nodwarf.err"; then
		fail "no DWARF: record failed: $(tail -n 2 "$tmpdir/nodwarf.err")"
	else
		for t in map maps nsinfo cpu_map; do
			grep -q "is inlined only and .* has no DWARF: type $t is left out" \
				"$tmpdir/nodwarf.err" || fail "no DWARF: type $t not said to be left out"
		done
		refcnt_buggy_findings | grep -E '^[^,]*,(dso|thread),' > "$tmpdir/nodwarf.expected"
		refcnt_findings "$tmpdir/nodwarf.data" > "$tmpdir/nodwarf.found"
		if ! diff -u "$tmpdir/nodwarf.expected" "$tmpdir/nodwarf.found"; then
			fail "no DWARF: dso and thread findings differ from the injected ones"
		else
			echo "refcnt record targets: no DWARF: map, maps, nsinfo, cpu_map left out, said; the $(wc -l < "$tmpdir/nodwarf.expected") dso and thread findings exact"
		fi
	fi
else
	echo "refcnt record targets: objcopy is not installed: no DWARF-less perf to try"
fi

perf61=${REFCNT_PERF_6_1:-$(dirname "$(readlink -f "$target")")/../v6.1/perf}
if [ ! -x "$perf61" ]; then
	fail "no perf of linux 6.1 at $perf61: 'make perf-6.1' builds it"
	exit 1
fi
"$perf61" record -q -o "$tmpdir/w61.data" -- "$perf61" bench sched messaging -l 5 \
	> /dev/null 2>&1
perf refcnt record -o "$tmpdir/v61.data" -- "$perf61" report --stdio -i "$tmpdir/w61.data" \
	> /dev/null 2> "$tmpdir/v61.err"
rc=$?
if [ $rc -ne 0 ]; then
	# then it must say which functions it could not find, in one line
	if grep -qE "^.*: no [a-z_]+\(\)(, [a-z_]+\(\))* for type" "$tmpdir/v61.err"; then
		echo "refcnt record targets: 6.1: $(grep -m 1 -E ': no [a-z_]+\(\)' "$tmpdir/v61.err")"
	else
		fail "6.1: record exited $rc without naming what it misses: $(tail -n 2 "$tmpdir/v61.err")"
	fi
else
	perf refcnt report -i "$tmpdir/v61.data" --stdio > "$tmpdir/v61.out" 2>&1
	head -n 5 "$tmpdir/v61.out"
	# 6.1's perf report drops no reference twice; its machine__exit()
	# deletes the kernel maps with one reference left, which shows as a
	# mismatch, a true report of 6.1
	grep -q "over-releases: 0, double puts: 0, use after put: 0," "$tmpdir/v61.out" ||
		fail "6.1: over-releases, double puts or uses after put in perf report 6.1"
	grep -q "^# objects: dso [1-9][0-9]* map [1-9][0-9]* maps [1-9][0-9]* thread [1-9][0-9]* nsinfo [1-9][0-9]* cpu_map [1-9]" \
		"$tmpdir/v61.out" || fail "6.1: not every type has objects"
fi
[ -z "$(refcnt_leftovers)" ] || fail "uprobes left behind: $(refcnt_leftovers)"
exit $err
