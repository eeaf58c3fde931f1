#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The main job: audit the reference counts of a real `perf report` run.
#   1. record a small perf.data to report on;
#   2. perf refcnt record -- perf report --stdio -i that file;
#   3. perf refcnt report --stdio.
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
