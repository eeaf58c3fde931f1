#!/bin/bash
# refcnt record: how many probes sit on a 5-byte nop, counted right (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# record says how many of its probes sit on x86's 5-byte nop, which a kernel
# with optimized uprobes runs without a trap, and how many trap. A copy of
# the audited perf gets a 5-byte nop written at three of its out-of-line
# probes, which held none: the copy (audited with -x, never run) must count
# three more, and three fewer that trap.

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

# three out-of-line probes (no function they are inlined in) not on one yet
cp "$target" "$tmpdir/perf-nop5"
patched=0
for off in $(sed -n 's/^probe .* off=\(0x[0-9a-f]*\) .* live@-*[0-9]*  :0$/\1/p' "$tmpdir/a.err" |
	     sort -u); do
	[ "$(od -An -tx1 -N5 -j $((off)) "$target" | tr -d ' ')" = 0f1f440000 ] && continue
	printf '\x0f\x1f\x44\x00\x00' |
		dd of="$tmpdir/perf-nop5" bs=1 seek=$((off)) conv=notrunc status=none
	patched=$((patched + 1))
	[ $patched -eq 3 ] && break
done
[ $patched -eq 3 ] || fail "only $patched out-of-line probes to write a nop at"

if ! perf refcnt record --no-scan -x "$tmpdir/perf-nop5" -o "$tmpdir/b.data" -- true \
	> /dev/null 2> "$tmpdir/b.err"; then
	fail "record of the copy failed: $(tail -n 2 "$tmpdir/b.err")"
else
	read -r nop5 trap5 < <(counts "$tmpdir/b.err")
	if [ "${nop5:-}" != $((nop + 3)) ] || [ "${trap5:-}" != $((trap - 3)) ]; then
		fail "the copy: ${nop5:-?} on a nop, ${trap5:-?} trap; wanted $((nop + 3)), $((trap - 3))"
	else
		echo "refcnt record nop5: $nop of $((nop + trap)) probes on a 5-byte nop, $((nop + 3)) with three written"
	fi
fi
[ -z "$(refcnt_leftovers)" ] || fail "uprobes left behind: $(refcnt_leftovers)"
exit $err
