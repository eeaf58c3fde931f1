#!/bin/bash
# refcnt record: how many probes sit on a 5-byte nop, counted right (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# record says how many of its probes sit on x86's 5-byte nop, which a kernel
# with optimized uprobes runs without a trap, and how many trap. A copy of
# the audited perf gets three of its out-of-line probes' entries flipped (a
# 5-byte nop made five 1-byte ones, another instruction made a 5-byte nop):
# the copy, audited with -x and never run, must count as many more or fewer.

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

# the out-of-line probes of constructors and destructors (no function they
# are inlined in): function entries (an entry and a return probe of one
# function share theirs). A get's or put's moves past its NULL check.
sed -n 's/^probe [a-z_]*__\(born\|dies\)__[0-9]* .* off=\(0x[0-9a-f]*\) .* live@-*[0-9]*  :0$/\2/p' \
	"$tmpdir/a.err" \
	> "$tmpdir/probes"
sort -u "$tmpdir/probes" > "$tmpdir/entries"

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
[ -z "$(refcnt_leftovers)" ] || fail "uprobes left behind: $(refcnt_leftovers)"
exit $err
