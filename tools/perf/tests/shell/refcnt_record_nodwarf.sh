#!/bin/bash
# refcnt record: a perf without DWARF: types it cannot follow said, the rest exact (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# A perf with symbols but no DWARF: the types whose API is partly inlined
# (map__get, maps__delete, ...) cannot be followed and are left out, each
# said by name; dso and thread, all out of line, still give exactly the
# injected findings.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt record no DWARF"

refcnt_need_root
if ! command -v objcopy > /dev/null; then
	echo "refcnt record no DWARF: skip: objcopy (binutils) is not installed to strip DWARF from perf"
	exit 2
fi

objcopy --strip-debug "$target" "$tmpdir/perf-nodwarf"
if ! perf refcnt record -o "$tmpdir/nodwarf.data" -- "$tmpdir/perf-nodwarf" test -w refcnt \
	buggy > /dev/null 2> "$tmpdir/nodwarf.err"; then
	fail "record failed: $(tail -n 2 "$tmpdir/nodwarf.err")"
else
	for t in map maps nsinfo cpu_map; do
		grep -q "is inlined only and .* has no DWARF: type $t is left out" \
			"$tmpdir/nodwarf.err" || fail "type $t not said to be left out"
	done
	# no DWARF, no object sizes: the scan at exit finds no object
	refcnt_buggy_findings_unscanned | grep -E '^[^,]*,(dso|thread),' > "$tmpdir/nodwarf.expected"
	refcnt_findings "$tmpdir/nodwarf.data" > "$tmpdir/nodwarf.found"
	if ! diff -u "$tmpdir/nodwarf.expected" "$tmpdir/nodwarf.found"; then
		fail "dso and thread findings differ from the injected ones"
	else
		echo "refcnt record no DWARF: map, maps, nsinfo, cpu_map left out, said; the $(wc -l < "$tmpdir/nodwarf.expected") dso and thread findings exact"
	fi
fi
[ -z "$(refcnt_leftovers)" ] || fail "uprobes left behind: $(refcnt_leftovers)"
exit $err
