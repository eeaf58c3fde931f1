#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what building and testing perf refcnt needs, from Debian's packages.
# Non-interactive and idempotent: a second run installs nothing.
set -euo pipefail

pkgs=(
	linux-source-6.12 linux-source-6.1 xz-utils
	gcc make flex bison pkg-config perl git binutils util-linux patch
	libelf-dev libdw-dev libtraceevent-dev libslang2-dev python3-dev
	python3-setuptools
	libzstd-dev libcap-dev libnuma-dev libunwind-dev libcapstone-dev
	zlib1g-dev liblzma-dev libbabeltrace-dev libssl-dev
	tmux procps time man-db
	asciidoc-base xmlto docbook-xsl docbook-xml
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages (${missing[*]}); run as root or: sudo $0" >&2
	exit 1
fi

echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
