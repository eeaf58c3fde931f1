#!/bin/bash
# refcnt record: probes past a NULL check or on a jump, the same as at their start (exclusive)
# SPDX-License-Identifier: GPL-2.0
#
# record moves an out-of-line get's or put's probe past its NULL check, and
# an inlined get's onto the jump after its first instruction, where the
# kernel runs it without a trap on NULL or a single step. --probe-at-entry
# keeps every probe where its function or copy starts. The buggy workload,
# recorded both ways: the same events per type and operation, and exactly
# its injected findings each time.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt record placement"

refcnt_need_root
refcnt_need_uprobes

for how in moved entry; do
	args=()
	[ $how = entry ] && args=(--probe-at-entry)
	if ! perf refcnt record "${args[@]}" -o "$tmpdir/$how.data" -- \
		"$target" test -w refcnt buggy > /dev/null 2> "$tmpdir/$how.err"; then
		fail "record ($how) failed: $(tail -n 2 "$tmpdir/$how.err")"
		exit 1
	fi
	perf script -i "$tmpdir/$how.data" -F event 2> /dev/null |
		sed -n 's/.*refcnt_[0-9]*:\([a-z_]*__[a-z]*\)__.*/\1/p' | sort | uniq -c \
		> "$tmpdir/$how.counts"
	refcnt_findings "$tmpdir/$how.data" > "$tmpdir/$how.found"
done

moved=$(sed -n 's/^perf refcnt: \([0-9]*\) gets and puts probed past.*/\1/p' "$tmpdir/moved.err")
[ "${moved:-0}" -ge 1 ] || fail "no get or put probed past its NULL check"
if grep -q "probed past\|probed on the jump" "$tmpdir/entry.err"; then
	fail "--probe-at-entry moved probes"
fi
[ -s "$tmpdir/moved.counts" ] || fail "no event recorded"
diff -u "$tmpdir/entry.counts" "$tmpdir/moved.counts" ||
	fail "events per type and operation differ (- at their start, + moved)"
refcnt_buggy_findings > "$tmpdir/expected"
diff -u "$tmpdir/expected" "$tmpdir/moved.found" ||
	fail "moved: findings differ from the injected bugs (- expected, + found)"
diff -u "$tmpdir/expected" "$tmpdir/entry.found" ||
	fail "at their start: findings differ from the injected bugs (- expected, + found)"
[ $err -ne 0 ] || echo "refcnt record placement: $moved moved, the same $(awk '{ n += $1 } END { print n }' \
	"$tmpdir/moved.counts") events and $(wc -l < "$tmpdir/expected") findings as at their start"

leftovers=$(refcnt_leftovers)
[ -z "$leftovers" ] || fail "uprobes left behind: $leftovers"
exit $err
