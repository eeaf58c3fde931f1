#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job: audit the reference counts of real perf commands.
#   1. record a small perf.data to report on;
#   2. perf refcnt record -- perf report --stdio -i that file;
#   3. perf refcnt report --stdio: perf report is clean, the report says
#      what the scan at exit found;
#   4. the same on perf kwork report, which leaks a reference of the
#      kernel's map per work item resolved (a real bug of perf 6.12,
#      make survey finds it, the ASan perf agrees): the first row names
#      the lookup, its callchain machine__resolve_kernel_addr, which
#      never puts the map it is handed.
# Usage: demo.sh PERF
set -euo pipefail

perf=$(realpath "${1:?usage: demo.sh PERF}")
dir=${REFCNT_DEMO_DIR:-$(pwd)/build/demo}
mkdir -p "$dir"
cd "$dir"

echo "== perf record a workload to report on"
"$perf" record -q -o workload.data -- "$perf" test -w noploop 1 2>/dev/null

echo "== perf refcnt record -- perf report --stdio -i workload.data"
"$perf" refcnt record -o refcnt.data -- "$perf" report --stdio -i workload.data > report.out

echo "== perf refcnt report --stdio -i refcnt.data"
"$perf" refcnt report --stdio -i refcnt.data

echo
echo '== perf kwork record -o kwork.data -- bash -c "sync; sleep 1"'
"$perf" kwork record -o kwork.data -- bash -c "sync; sleep 1" > /dev/null 2>&1

echo "== perf refcnt record -o kwork.refcnt -- perf kwork report -i kwork.data"
"$perf" refcnt record -o kwork.refcnt -- "$perf" kwork report -i kwork.data > kwork.out

echo "== perf refcnt report --stdio -i kwork.refcnt"
"$perf" refcnt report --stdio -i kwork.refcnt
