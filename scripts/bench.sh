#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: what an audit costs, measured against its natural anchors in
# one run (this machine drifts: compare only within a run).
#
# W1 is perf report --stdio on a perf.data recorded here from perf test -w
# workloads. Each row is the median of REPS runs.
#   target: bare; under the uprobes counting only (perf refcnt record
#   --count: perf stat on the same probes, the floor); under perf refcnt
#   record with full user callchains (the default), without the scan at exit
#   (--no-scan), and call-site only (-g no); what the scan read, and its time
#   report: perf refcnt report --stdio vs perf script on the same recording
# W2 is the callchain-heavy one: perf report --stdio (and -g) on a perf
# record -a -g file of noploop, made here at 1x, 2x and 4x W2_SECONDS: the
# kernel maps and hot maps hold thousands of references at once. The report's
# time per event must not grow with the recording (no quadratic term).
# W3 is the audit end to end: of perf version and of W2's perf report at
# 1x, on a copy of PERF.
#
# Usage: bench.sh PERF [SAMPLE_FREQ] [SECONDS] [REPS]
#   W2_SECONDS (environment): the 1x length of W2's recording, default 2
set -euo pipefail

perf=$(realpath "${1:?usage: bench.sh PERF [SAMPLE_FREQ] [SECONDS] [REPS]}")
top=$(cd "$(dirname "$0")/.." && pwd)
freq=${2:-4000}
secs=${3:-1}
reps=${4:-3}
dir=$(mktemp -d /tmp/perf-refcnt-bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cd "$dir"

# wall seconds and peak RSS (KiB) of a command: "secs kib"
# An audit's guardian closes its uprobe events after it returns (7 s of
# grace periods, guardian.h): each run waits for the last one's to end, so
# that none pays for another's.
settle() {
	local g rec busy

	for _ in $(seq 600); do
		busy=
		for g in $(pgrep -x 'refcnt-[0-9]+'); do
			rec=$(cat "/proc/$g/comm" 2> /dev/null)
			rec=${rec#refcnt-}
			# a guardian whose recorder is gone: it is closing events
			[ -n "$rec" ] && [ ! -d "/proc/$rec" ] && busy=1
		done
		[ -z "$busy" ] && return 0
		sleep 0.1
	done
	echo "bench: guardians still closing their events after 60 s" >&2
}

measure() {
	settle
	/usr/bin/time -f '%e %M' -o "$dir/time" "$@" > /dev/null 2> "$dir/stderr" || {
		echo "bench: '$*' failed: $(tail -n 2 "$dir/stderr")" >&2
		exit 1
	}
	cat "$dir/time"
}

# median of REPS runs: "secs kib"
median() {
	for _ in $(seq "$reps"); do measure "$@"; done |
		sort -n | awk -v n="$reps" 'NR == int((n + 1) / 2) { print }'
}

echo "# making W1: perf record -F $freq -g -- perf test -w noploop $secs"
"$perf" record -q -F "$freq" -g -o w1.data -- "$perf" test -w noploop "$secs" > /dev/null 2>&1
w1=("$perf" report --stdio -i "$dir/w1.data")

bare=$(median "${w1[@]}")
floor=$(median "$perf" refcnt record --count -o floor.csv -- "${w1[@]}")
events=$(grep -v '^#' floor.csv | awk -F, 'NF > 2 { n += $1 } END { print n + 0 }')
full=$(median "$perf" refcnt record -o full.data -- "${w1[@]}")
# the last run's: "scan at exit of pid N: X MiB read in Y s, ..."
scan=$(sed -n 's/^perf refcnt: scan at exit of pid [0-9]*: \([0-9.]*\) MiB read in \([0-9.]*\) s.*/\1 \2/p' \
	"$dir/stderr")
noscan=$(median "$perf" refcnt record --no-scan -o noscan.data -- "${w1[@]}")
site=$(median "$perf" refcnt record -g no -o site.data -- "${w1[@]}")

lost() {
	"$perf" refcnt report -i "$1" --stdio 2> /dev/null |
		sed -n 's/^# events: .*lost: \([0-9]*\) events, \([0-9]*\) samples.*/\1 \2/p' |
		awk '{ print $1 + $2 }'
}

report=$(median "$perf" refcnt report --stdio -i full.data)
script=$(median "$perf" script -i full.data)

awk -v bare="$bare" -v floor="$floor" -v full="$full" -v site="$site" \
    -v noscan="$noscan" -v scan="${scan:-0 0}" \
    -v report="$report" -v script="$script" -v events="$events" \
    -v full_size="$(stat -c %s full.data)" -v site_size="$(stat -c %s site.data)" \
    -v full_lost="$(lost full.data)" -v site_lost="$(lost site.data)" \
    -v reps="$reps" -v nproc="$(nproc)" -v kernel="$(uname -r)" '
function s(x) { split(x, a, " "); return a[1] }
function kb(x) { split(x, a, " "); return a[2] }
BEGIN {
	printf "perf refcnt bench: W1 = perf report --stdio, %d refcount events; median of %d runs; %d cpus, kernel %s\n\n",
	       events, reps, nproc, kernel
	printf "| %-34s | %8s | %9s | %11s | %6s |\n", "target run", "wall s", "x floor", "bytes/event", "lost"
	printf "|%s|%s|%s|%s|%s|\n", "------------------------------------", "----------", "-----------", "-------------", "--------"
	printf "| %-34s | %8.2f | %9.2f | %11s | %6s |\n", "bare", s(bare), s(bare) / s(floor), "-", "-"
	printf "| %-34s | %8.2f | %9.2f | %11s | %6s |\n", "uprobes counting only (floor)", s(floor), 1, "-", "-"
	printf "| %-34s | %8.2f | %9.2f | %11.2f | %6d |\n", "refcnt record (full callchains)", s(full), s(full) / s(floor), full_size / events, full_lost
	printf "| %-34s | %8.2f | %9.2f | %11s | %6s |\n", "refcnt record --no-scan", s(noscan), s(noscan) / s(floor), "-", "-"
	printf "| %-34s | %8.2f | %9.2f | %11.2f | %6d |\n", "refcnt record -g no (call site)", s(site), s(site) / s(floor), site_size / events, site_lost
	split(scan, sc, " ")
	printf "\nscan at exit (full callchains run): %.1f MiB read in %.3f s, %.1f%% of the run\n", sc[1], sc[2], 100 * sc[2] / s(full)
	printf "\n| %-34s | %8s | %12s | %12s |\n", "reading the recording", "wall s", "events/s", "peak RSS MiB"
	printf "|%s|%s|%s|%s|\n", "------------------------------------", "----------", "--------------", "--------------"
	printf "| %-34s | %8.2f | %12.0f | %12.1f |\n", "perf refcnt report --stdio", s(report), events / s(report), kb(report) / 1024
	printf "| %-34s | %8.2f | %12.0f | %12.1f |\n", "perf script", s(script), events / s(script), kb(script) / 1024
	printf "| %-34s | %8.2f | %12.2f | %12.2f |\n", "report / script", s(report) / s(script), s(script) / s(report), kb(report) / kb(script)
}'

# W2: callchain-heavy, at 1x, 2x and 4x the recording length
w2secs=${W2_SECONDS:-2}
w2_events() {
	"$perf" refcnt report -i "$1" --stdio 2> /dev/null |
		sed -n 's/^# events: \([0-9]*\) .*/\1/p'
}
w2_rows=""
for mult in 1 2 4; do
	"$perf" record -q -a -g -o "w2-$mult.data" -- "$perf" test -w noploop $((w2secs * mult)) \
		> /dev/null 2>&1
	measure "$perf" refcnt record -o "w2-$mult.refcnt" -- \
		"$perf" report --stdio -i "$dir/w2-$mult.data" > /dev/null
	r=$(median "$perf" refcnt report --stdio -i "w2-$mult.refcnt")
	w2_rows="$w2_rows $mult $(w2_events "w2-$mult.refcnt") $r"
done
measure "$perf" refcnt record -o w2g.refcnt -- \
	"$perf" report -g --stdio -i "$dir/w2-1.data" > /dev/null
w2g=$(median "$perf" refcnt report --stdio -i w2g.refcnt)
w2g_events=$(w2_events w2g.refcnt)
w2script=$(median "$perf" script -i w2-1.refcnt)

echo
awk -v rows="$w2_rows" -v script="$w2script" -v g="$w2g" -v g_events="$w2g_events" \
    -v secs="$w2secs" -v reps="$reps" '
function per(s, n) { return 1e9 * s / n }
BEGIN {
	n = split(rows, r, " ")
	printf "W2 = perf report --stdio of a perf record -a -g file of noploop (%d s at 1x); median of %d runs\n\n", secs, reps
	printf "| %-34s | %10s | %8s | %8s | %12s |\n", "perf refcnt report --stdio of", "events", "wall s", "ns/event", "peak RSS MiB"
	printf "|%s|%s|%s|%s|%s|\n", "------------------------------------", "------------", "----------", "----------", "--------------"
	for (i = 1; i <= n; i += 4) {
		ev[r[i]] = r[i + 1]; sec[r[i]] = r[i + 2]; rss[r[i]] = r[i + 3]
		printf "| %-34s | %10d | %8.2f | %8.0f | %12.1f |\n", "W2 at " r[i] "x", r[i + 1], r[i + 2], per(r[i + 2], r[i + 1]), r[i + 3] / 1024
	}
	split(g, gg, " ")
	printf "| %-34s | %10d | %8.2f | %8.0f | %12.1f |\n", "W2 at 1x, perf report -g --stdio", g_events, gg[1], per(gg[1], g_events), gg[2] / 1024
	split(script, sc, " ")
	printf "| %-34s | %10d | %8.2f | %8.0f | %12.1f |\n", "perf script of W2 at 1x", ev[1], sc[1], per(sc[1], ev[1]), sc[2] / 1024
	printf "\nW2 at 1x: report is %.1fx perf script in events/s, at %.0f%% of its peak RSS; ns/event at 4x is %.2fx that at 1x\n",
	       sc[1] / sec[1], 100 * rss[1] / sc[2], per(sec[4], ev[4]) / per(sec[1], ev[1])
}'

# W3: audits end to end, of perf version, of W2's perf report at 1x and of
# perf top for TOP_SECONDS, on two targets: a copy of PERF (so that the
# recorder never runs the audited file: its CPU-wide pins would make it trap
# on its own probes), and linux 6.1's perf (V61, if given: make perf-6.1).
# For the report, where the time goes: the probes' traps alone (--count),
# the samples without callchains (-g no), the callchains (the rest). The
# recorder returns once the recording is written; the guardians' closes of
# the uprobe events follow in the background (measure() waits for them).
audit() {
	median "$perf" refcnt record -o w3.refcnt -- "$@"
}

# cpu seconds (user + sys, children too) and wall of a command: "wall cpu"
cpu() {
	settle
	/usr/bin/time -f '%e %U %S' -o "$dir/time" "$@" > /dev/null 2> "$dir/stderr" || true
	# the last line: time says first how a command that failed exited
	tail -n 1 "$dir/time" | awk '{ print $1, $2 + $3 }'
}

# perf top --stdio for TOP_SECONDS, bare and audited: "wall cpu wall cpu events"
top_secs=${TOP_SECONDS:-30}
top_row() {
	local t=$1 bare audited

	bare=$(sleep $((top_secs + 10)) | cpu timeout -s INT "$top_secs" "$t" top --stdio -d 2)
	audited=$(sleep $((top_secs + 10)) |
		  cpu "$perf" refcnt record --no-scan -x "$t" -o top.refcnt -- \
			timeout -s INT "$top_secs" "$t" top --stdio -d 2)
	echo "$bare $audited $(w2_events top.refcnt)"
}

# w3_target NAME TARGET W2: W2 is W2's recording at 1x, as TARGET reads it
w3_target() {
	local name=$1 t=$2 w2=$3 v_bare v_audit r_bare r_audit r_count r_site probes past top events

	v_bare=$(median "$t" version)
	v_audit=$(audit "$t" version)
	r_bare=$(median "$t" report --stdio -i "$w2")
	r_count=$(median "$perf" refcnt record --count -o w3.csv -- "$t" report --stdio -i "$w2")
	r_site=$(median "$perf" refcnt record -g no -o w3.refcnt -- "$t" report --stdio -i "$w2")
	r_audit=$(audit "$t" report --stdio -i "$w2")
	probes=$(sed -n 's/^perf refcnt: \([0-9]*\) probes on .*/\1/p' "$dir/stderr")
	past=$(sed -n 's/^perf refcnt: \([0-9]*\) gets and puts probed past.*/\1/p' "$dir/stderr")
	events=$(w2_events w3.refcnt)
	top=$(top_row "$t")
	awk -v name="$name" -v v_bare="$v_bare" -v v_audit="$v_audit" -v r_bare="$r_bare" \
	    -v r_audit="$r_audit" -v r_count="$r_count" -v r_site="$r_site" -v top="$top" \
	    -v probes="${probes:-?}" -v past="${past:-0}" -v events="${events:-0}" \
	    -v secs="$top_secs" '
	function s(x) { split(x, a, " "); return a[1] }
	function row(what, bare, audit, evs) {
		printf "| %-12s | %-30s | %8.2f | %8.2f | %8.1f | %10s |\n", name, what, bare, audit,
		       audit / (bare ? bare : 0.01), evs ? sprintf("%.0f", evs / audit) : "-"
	}
	BEGIN {
		split(top, t, " ")
		row("perf version", s(v_bare), s(v_audit), 0)
		row("perf report --stdio of W2 at 1x", s(r_bare), s(r_audit), events)
		printf "| %-12s | %-30s | %8.2f | %8.2f | %8.1f | %10.0f |\n", name,
		       "perf top " secs " s, CPU s", t[2], t[4], t[4] / (t[2] ? t[2] : 0.01), t[5] / t[3]
		where = where sprintf("%s: %s probes, %s past their NULL check; W2 report audit %.2f s = bare %.2f + traps %.2f + samples %.2f + callchains %.2f\n",
			name, probes, past, s(r_audit), s(r_bare), s(r_count) - s(r_bare),
			s(r_site) - s(r_count), s(r_audit) - s(r_site))
		printf "%s", where > "/dev/stderr"
	}' 2>> "$dir/where"
}

cp "$perf" "$dir/perf-audited"
: > "$dir/where"
echo
echo "W3 = audits end to end (perf refcnt record -- TARGET ...); median of $reps runs (perf top: one)"
echo
printf "| %-12s | %-30s | %8s | %8s | %8s | %10s |\n" target "audited command" "bare s" "audit s" ratio events/s
echo "|--------------|--------------------------------|----------|----------|----------|------------|"
w3_target "6.12 (make)" "$dir/perf-audited" "$dir/w2-1.data"
if [ -n "${V61:-}" ] && [ -x "$V61" ]; then
	# perf 6.1 reads no file of 6.12's perf record: W2 again, recorded by it
	"$V61" record -q -a -g -o w2-61.data -- "$perf" test -w noploop "$w2secs" \
		> /dev/null 2>&1
	w3_target "6.1" "$(realpath "$V61")" "$dir/w2-61.data"
fi
settle
echo
cat "$dir/where"
