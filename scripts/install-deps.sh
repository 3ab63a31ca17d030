#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# install-deps.sh — install every Debian package that building, testing and
# running the demo of hpcrun-comm needs. Idempotent and non-interactive:
# packages already present are left alone; apt-get update runs only when
# something is missing. Needs root (or sudo).
set -eu

PKGS="build-essential autoconf automake pkg-config make gcc g++ \
libzydis-dev libzycore-dev libunwind-dev libdw-dev libelf-dev libpfm4-dev \
libxml2-dev libxml2-utils libhwloc-dev hwloc-nox zlib1g-dev libiberty-dev libscotch-dev \
gfortran \
clang libclang-rt-14-dev libomp-14-dev \
chromium chromium-driver python3 file \
pigz zstd xz-utils time gnuplot-nox \
libopenmpi-dev openmpi-bin"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	echo "install-deps: all packages present"
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
		echo "install-deps: missing packages:$missing" >&2
		echo "install-deps: run as root, or: apt-get install$missing" >&2
		exit 1
	fi
fi
echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
