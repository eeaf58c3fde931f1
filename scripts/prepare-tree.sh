#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Prepare the perf source tree that perf refcnt builds in:
#   1. unpack from Debian's linux-source-6.12 what tools/perf/MANIFEST lists,
#      plus the top-level Makefile (perf version) and scripts/checkpatch.pl;
#   2. apply patches/*.patch (the small registration edits to upstream files);
#   3. overlay our tools/ tree.
# Each step is redone only when needed, so an edit of one of our files costs
# a copy of that file and an incremental build, never a new unpack.
#
# Usage: prepare-tree.sh ROOT SRCDIR OBJDIR
set -euo pipefail

root=$(cd "$1" && pwd)
src=$2
obj=$3
tarball=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
top=linux-source-6.12

die() { echo "prepare-tree: $*" >&2; exit 1; }

[ -r "$tarball" ] || die "$tarball not found; run scripts/deps.sh (apt-get install linux-source-6.12)"
mkdir -p "$src" "$obj"
src=$(cd "$src" && pwd)
pristine=$src/.pristine

# 1. unpack once
if [ ! -e "$src/.unpacked" ]; then
	echo "  UNPACK   $tarball"
	# the top-level Makefile answers `make kernelversion` for perf
	# version; it includes these at parse time
	tar -xJf "$tarball" -C "$src" --strip-components=1 --wildcards \
		"$top/tools/perf/MANIFEST" "$top/Makefile" \
		"$top/scripts/Makefile*" "$top/scripts/Kbuild.include" \
		"$top/scripts/subarch.include" "$top/arch/*/Makefile*" \
		"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch"
	mapfile -t manifest < <(sed -e '/^[[:space:]]*$/d' -e "s|^|$top/|" \
				 "$src/tools/perf/MANIFEST")
	tar -xJf "$tarball" -C "$src" --strip-components=1 --wildcards \
		"${manifest[@]}"
	touch "$src/.unpacked"
fi

# 2. (re)apply patches/ when they changed: restore the files the previous
# series touched (new mtime, so make rebuilds them), then apply in order.
shopt -s nullglob
patches=("$root"/patches/*.patch)
sum=$(cat /dev/null "${patches[@]}" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$src/.patches-applied" 2>/dev/null)" != "$sum" ]; then
	command -v patch > /dev/null ||
		die "patch is not installed: run scripts/deps.sh (or apt-get install patch)"
	if [ -d "$pristine" ]; then
		(cd "$pristine" && find . -type f) | while read -r f; do
			cp "$pristine/$f" "$src/$f"
		done
	fi
	for p in "${patches[@]}"; do
		name=${p#"$root"/}
		patch -p1 -d "$src" --dry-run -s -f < "$p" >/dev/null ||
			die "$name does not apply to $top; refresh it against $tarball"
		grep -E '^\+\+\+ b/' "$p" | sed 's|^+++ b/||; s|\t.*||' |
		while read -r f; do
			[ -e "$pristine/$f" ] && continue
			mkdir -p "$(dirname "$pristine/$f")"
			cp -p "$src/$f" "$pristine/$f"
		done
		echo "  PATCH    $name"
		patch -p1 -d "$src" -s -f --no-backup-if-mismatch < "$p"
	done
	echo "$sum" > "$src/.patches-applied"
fi

# 3. overlay our tools/: copy what is newer or changed mode, keeping its
# mtime so that make sees the edit; drop files we no longer have.
(cd "$root" && git ls-files -co --exclude-standard tools 2>/dev/null ||
	find tools -type f) | sort > "$src/.overlay-files.new"
if [ -e "$src/.overlay-files" ]; then
	comm -23 "$src/.overlay-files" "$src/.overlay-files.new" |
	while read -r f; do rm -f "$src/$f"; done
fi
while read -r f; do
	[ -f "$root/$f" ] || continue
	if [ ! -e "$src/$f" ] || [ "$root/$f" -nt "$src/$f" ] ||
	   [ "$root/$f" -ot "$src/$f" ] ||
	   [ "$(stat -c %a "$root/$f")" != "$(stat -c %a "$src/$f")" ]; then
		mkdir -p "$(dirname "$src/$f")"
		cp -p "$root/$f" "$src/$f"
	fi
done < "$src/.overlay-files.new"
mv "$src/.overlay-files.new" "$src/.overlay-files"

# perf test looks for its shell tests beside the binary.
mkdir -p "$obj/tests"
ln -sfn "$src/tools/perf/tests/shell" "$obj/tests/shell"
