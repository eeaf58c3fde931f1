#!/bin/bash
# refcnt report: damaged recordings: no crash, no hang, one-line errors
# SPDX-License-Identifier: GPL-2.0
#
# A real recording of the buggy workload, compressed and not, damaged by
# lib/refcnt_mutate.py (truncation, bit flips in the file header, in event
# headers and in payloads, events out of order, a damaged scan at exit):
# perf refcnt report must
# either report or exit non-zero saying why, never crash, hang or trip
# ASan. Truncated or reordered recordings must not yield a confident
# finding the intact one does not have. REFCNT_FUZZ_CASES sets the number
# of cases (300; make fuzz runs 1000 on an ASan build).

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt fuzz"

refcnt_need_root
if ! command -v python3 > /dev/null; then
	echo "refcnt fuzz: skip: no python3 for the mutator"
	exit 2
fi
mutate=$(dirname "$0")/lib/refcnt_mutate.py
cases=${REFCNT_FUZZ_CASES:-300}

for z in z no-z; do
	opt=-z
	[ $z = no-z ] && opt=--no-compress
	if ! perf refcnt record $opt -o "$tmpdir/$z.data" -- "$target" test -w refcnt buggy \
		> /dev/null 2> "$tmpdir/record.err"; then
		fail "record $opt: $(tail -n 2 "$tmpdir/record.err")"
		exit 1
	fi
	refcnt_findings "$tmpdir/$z.data" | grep ',0,' > "$tmpdir/$z.certain"
done

declare -A ran crashed reported refused confident
for ((i = 0; i < cases; i++)); do
	z=z
	[ $((i / 5 % 2)) -eq 1 ] && z=no-z
	what=$(python3 "$mutate" "$tmpdir/$z.data" "$tmpdir/m.data" "$i") || {
		fail "mutator failed on seed $i"
		continue
	}
	case $what in
	scan-*)	kind=scan ;;
	*)	kind=${what%% *} ;;
	esac
	ran[$kind]=$((${ran[$kind]:-0} + 1))
	timeout -s KILL 60 perf refcnt report -i "$tmpdir/m.data" -x, \
		> "$tmpdir/m.out" 2> "$tmpdir/m.err"
	rc=$?
	# killed by SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGKILL (timeout), SIGSEGV
	if [[ " 132 133 134 135 136 137 139 " == *" $rc "* ]] || grep -q "AddressSanitizer\|LeakSanitizer\|runtime error" "$tmpdir/m.err"; then
		crashed[$kind]=$((${crashed[$kind]:-0} + 1))
		fail "seed $i ($z, $what): exit $rc: $(grep -m 3 -E 'Sanitizer|ERROR|runtime error' "$tmpdir/m.err")"
		cp "$tmpdir/m.data" "/tmp/perf-refcnt-fuzz-$i.data"
		continue
	fi
	if [ $rc -ne 0 ]; then
		refused[$kind]=$((${refused[$kind]:-0} + 1))
		if [ ! -s "$tmpdir/m.err" ]; then
			fail "seed $i ($z, $what): exit $rc without a word"
		fi
		continue
	fi
	reported[$kind]=$((${reported[$kind]:-0} + 1))
	refcnt_findings_of < "$tmpdir/m.out" | grep ',0,' > "$tmpdir/m.certain"
	if [ -n "$(comm -13 "$tmpdir/$z.certain" "$tmpdir/m.certain")" ]; then
		confident[$kind]=$((${confident[$kind]:-0} + 1))
		case $kind in
		truncate|swap)
			fail "seed $i ($z, $what): confident findings the intact recording lacks:"
			comm -13 "$tmpdir/$z.certain" "$tmpdir/m.certain" | head -n 3
			;;
		esac
	fi
done

for kind in truncate header-flip event-header-flip payload-flip swap scan; do
	printf "refcnt fuzz: %-18s %4d cases: %4d reported, %4d refused with an error, %d crashed; %d with new confident findings\n" \
		"$kind" "${ran[$kind]:-0}" "${reported[$kind]:-0}" "${refused[$kind]:-0}" \
		"${crashed[$kind]:-0}" "${confident[$kind]:-0}"
done
exit $err
