#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build another perf to audit: the perf of Debian's linux-source-VERSION,
# untouched, with symbols and debug info (EXTRA_CFLAGS=-g), into OUTDIR/perf.
# It is a target of perf refcnt record, not a perf refcnt.
#
# Usage: build-target.sh VERSION OUTDIR
set -euo pipefail

version=${1:?usage: build-target.sh VERSION OUTDIR}
out=${2:?usage: build-target.sh VERSION OUTDIR}
top=linux-source-$version
tarball=/usr/src/$top.tar.xz
mkdir -p "$out"
out=$(cd "$out" && pwd)

if ! dpkg-query -W -f='${Status}' "$top" 2>/dev/null | grep -q 'ok installed'; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "build-target: $top is not installed; run as root or: sudo apt-get install $top" >&2
		exit 1
	fi
	echo "build-target: installing $top"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$top" \
		> /dev/null
fi

if [ ! -e "$out/src/.unpacked" ]; then
	echo "  UNPACK   $tarball"
	mkdir -p "$out/src"
	tar -xJf "$tarball" -C "$out/src" --strip-components=1 --wildcards \
		"$top/tools/perf/MANIFEST" "$top/Makefile" "$top/scripts/Makefile*" \
		"$top/scripts/Kbuild.include" "$top/scripts/subarch.include" \
		"$top/arch/*/Makefile*"
	mapfile -t manifest < <(sed -e '/^[[:space:]]*$/d' -e "s|^|$top/|" \
				 "$out/src/tools/perf/MANIFEST")
	tar -xJf "$tarball" -C "$out/src" --strip-components=1 --wildcards "${manifest[@]}"
	touch "$out/src/.unpacked"
fi

mkdir -p "$out/obj"
make -s -C "$out/src/tools/perf" O="$out/obj" EXTRA_CFLAGS=-g NO_LIBBPF=1 NO_JVMTI=1 NO_LIBLLVM=1 \
	PYTHON=/usr/bin/python3 PYTHON_CONFIG=/usr/bin/python3-config NO_LIBTRACEEVENT=0 \
	NO_SHELLCHECK=1 WERROR=0 > "$out/build.log" 2>&1 || {
	echo "build-target: the perf of $top does not build: see $out/build.log" >&2
	tail -n 5 "$out/build.log" >&2
	exit 1
}
ln -sfn obj/perf "$out/perf"
echo "build-target: $("$out/perf" version) in $out/perf"
