#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch --strict on every C source and header the project adds.
# Usage: lint.sh CHECKPATCH
set -euo pipefail

checkpatch=${1:?usage: lint.sh CHECKPATCH}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

mapfile -t files < <(git ls-files -co --exclude-standard 'tools/*.c' 'tools/*.h')
[ ${#files[@]} -gt 0 ] || exit 0
# CAMELCASE: the only mixed-case names we use are libelf's, libdw's and
# capstone's types and <inttypes.h>'s PRIx64, as perf's own code does.
perl "$checkpatch" --no-tree --strict --quiet --show-types --ignore CAMELCASE \
	-f "${files[@]}"
echo "lint: checkpatch --strict clean on ${#files[@]} files"
