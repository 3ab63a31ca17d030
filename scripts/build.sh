#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# build.sh [BUILDDIR [configure options...]] — install the Debian packages,
# generate the build system, configure out of tree and build. Idempotent.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
[ $# -gt 0 ] && shift
"$src/scripts/install-deps.sh"
if [ ! -x "$src/configure" ] || [ "$src/configure.ac" -nt "$src/configure" ]; then
	(cd "$src" && ./autogen.sh >/dev/null 2>&1) || (cd "$src" && ./autogen.sh)
fi
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ] || [ "$src/configure" -nt config.status ]; then
	"$src/configure" -q "$@"
fi
make -j"$(nproc)" >/dev/null
echo "build.sh: built in $build"
