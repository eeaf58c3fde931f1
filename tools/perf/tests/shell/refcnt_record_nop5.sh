#!/bin/bash
# refcnt record: how many probes sit on a 5-byte nop, counted right (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# record says how many of its probes sit on x86's 5-byte nop, which a kernel
# with optimized uprobes runs without a trap, and how many trap. A perf
# built with patchable entries (make's: -fpatchable-function-entry=5 and
# scripts/nop5.py) has one at each out-of-line probe. A copy of the audited
# perf gets three of those entries flipped (a 5-byte nop made five 1-byte
# ones, another instruction made a 5-byte nop): the copy, audited with -x
# and never run, must count as many more or fewer.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt record nop5"

refcnt_need_root
if [ "$(uname -m)" != x86_64 ]; then
	echo "refcnt record nop5: skip: the 5-byte nop is x86's"
	exit 2
fi

# "N M": the probes on a 5-byte nop and those that trap, as record says
counts() {
	sed -n 's/^perf refcnt: \([0-9]*\) of them sit on a 5-byte nop .*, \([0-9]*\) trap$/\1 \2/p' "$1"
}

if ! perf refcnt record -v --no-scan -x "$target" -o "$tmpdir/a.data" -- true \
	> /dev/null 2> "$tmpdir/a.err"; then
	fail "record of $target failed: $(tail -n 2 "$tmpdir/a.err")"
	exit 1
fi
read -r nop trap < <(counts "$tmpdir/a.err")
if [ -z "${nop:-}" ]; then
	fail "no count of the probes on a 5-byte nop"
	exit 1
fi

# the out-of-line probes (no function they are inlined in): function entries
# (an entry and a return probe of one function share theirs)
sed -n 's/^probe .* off=\(0x[0-9a-f]*\) .* live@-*[0-9]*  :0$/\1/p' "$tmpdir/a.err" \
	> "$tmpdir/probes"
sort -u "$tmpdir/probes" > "$tmpdir/entries"
# a perf built with -fpatchable-function-entry (make's): a nop at each of them
if command -v readelf > /dev/null &&
   readelf -SW "$target" | grep -q __patchable_function_entries &&
   [ "$nop" -lt "$(wc -l < "$tmpdir/probes")" ]; then
	fail "$target has patchable entries, but only $nop of its probes are on a 5-byte nop, for $(wc -l < "$tmpdir/probes") out of line"
fi
# and every probe's offset (an inlined copy may sit at its caller's entry)
sed -n 's/^probe .* off=\(0x[0-9a-f]*\) .*/\1/p' "$tmpdir/a.err" | sort -u > "$tmpdir/all"

# three entries flipped: a 5-byte nop made five 1-byte ones, or one written
cp "$target" "$tmpdir/perf-nop5"
want=$nop
for off in $(head -n 3 "$tmpdir/entries"); do
	probes=$(grep -cx "$off" "$tmpdir/probes")
	if [ "$(od -An -tx1 -N5 -j $((off)) "$target" | tr -d ' ')" = 0f1f440000 ]; then
		insn='\x90\x90\x90\x90\x90'
		want=$((want - probes))
	else
		insn='\x0f\x1f\x44\x00\x00'
		want=$((want + probes))
	fi
	printf '%b' "$insn" | dd of="$tmpdir/perf-nop5" bs=1 seek=$((off)) conv=notrunc status=none
done
[ "$(wc -l < "$tmpdir/entries")" -ge 3 ] || fail "fewer than three out-of-line probes"

if ! perf refcnt record --no-scan -x "$tmpdir/perf-nop5" -o "$tmpdir/b.data" -- true \
	> /dev/null 2> "$tmpdir/b.err"; then
	fail "record of the copy failed: $(tail -n 2 "$tmpdir/b.err")"
else
	read -r nop5 trap5 < <(counts "$tmpdir/b.err")
	if [ "${nop5:-}" != $want ] || [ "${trap5:-}" != $((nop + trap - want)) ]; then
		fail "the copy: ${nop5:-?} on a nop, ${trap5:-?} trap; wanted $want, $((nop + trap - want))"
	else
		echo "refcnt record nop5: $nop of $((nop + trap)) probes on a 5-byte nop, $want with three entries flipped"
	fi
fi
# The same perf with every probe trapping (each 5-byte nop at a probe made
# five 1-byte ones): the same findings on the workload's injected bugs
if [ "$nop" -gt 0 ]; then
	cp "$target" "$tmpdir/perf-traps"
	while read -r off; do
		[ "$(od -An -tx1 -N5 -j $((off)) "$target" | tr -d ' ')" = 0f1f440000 ] &&
			printf '\x90\x90\x90\x90\x90' |
			dd of="$tmpdir/perf-traps" bs=1 seek=$((off)) conv=notrunc status=none
	done < "$tmpdir/all"
	for t in nop5:"$target" traps:"$tmpdir/perf-traps"; do
		perf refcnt record -o "$tmpdir/${t%%:*}.data" -- "${t#*:}" test -w refcnt buggy \
			> /dev/null 2> "$tmpdir/${t%%:*}.err" ||
			fail "${t%%:*}: record failed: $(tail -n 2 "$tmpdir/${t%%:*}.err")"
		refcnt_findings "$tmpdir/${t%%:*}.data" > "$tmpdir/${t%%:*}.found"
	done
	grep -q "^perf refcnt: 0 of them sit on a 5-byte nop" "$tmpdir/traps.err" ||
		fail "the copy made to trap still has probes on a 5-byte nop"
	if [ ! -s "$tmpdir/nop5.found" ] ||
	   ! diff -u "$tmpdir/traps.found" "$tmpdir/nop5.found"; then
		fail "the findings with 5-byte nops differ from those with traps (- traps, + nops)"
	else
		echo "refcnt record nop5: the same $(wc -l < "$tmpdir/nop5.found") findings with $nop probes on 5-byte nops as with all trapping"
	fi
fi
[ -z "$(refcnt_leftovers)" ] || fail "uprobes left behind: $(refcnt_leftovers)"
exit $err
