#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds the whole tree with clang (Debian's clang 14, which devtools/setup.sh installs
# for the fuzzers) and warnings as errors, tests included; runs nothing. gcc is the
# project's compiler, and a GCC extension or attribute slips in unnoticed without this.
#   devtools/build-clang.sh [BUILD_DIR]       default build-clang
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
dir=${1:-build-clang}
command -v clang++ >/dev/null ||
	{ echo "build-clang: clang++ not installed (devtools/setup.sh --all installs it)" >&2; exit 1; }
if [ ! -f "$dir/build.ninja" ]; then
	CC=clang CXX=clang++ meson setup "$dir" --buildtype=debugoptimized -Dwerror=true \
		>/dev/null
fi
ninja -C "$dir" >/dev/null || { ninja -C "$dir" 2>&1 | grep -E "error" | head -20; exit 1; }
echo "build-clang: the tree builds with clang, warnings as errors"
