#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Checks the C and C++ sources against .clang-format (clang-format 14, Debian package
# clang-format; devtools/setup.sh installs it). Changes nothing.
#   devtools/check-format.sh [-v] [FILE...]
# Without FILE: every tracked *.c, *.cpp and *.h file (git ls-files). Prints each file
# clang-format would change and exits 1 if there is one; -v also prints clang-format's
# report of the first offending lines. To fix a file: clang-format -i FILE.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
verbose=0
if [ "${1:-}" = -v ]; then
	verbose=1
	shift
fi
clang_format=${CLANG_FORMAT:-clang-format}
command -v "$clang_format" >/dev/null ||
	{ echo "check-format: $clang_format not found (apt-get install clang-format)" >&2; exit 2; }

if [ $# -gt 0 ]; then
	files=("$@")
else
	mapfile -t files < <(git ls-files -- '*.c' '*.cpp' '*.h')
fi

bad=0
for f in "${files[@]}"; do
	if ! out=$("$clang_format" --style=file --dry-run -Werror "$f" 2>&1); then
		echo "$f"
		[ "$verbose" = 1 ] && printf '%s\n' "$out" | head -n 20
		bad=$((bad + 1))
	fi
done
if [ "$bad" -gt 0 ]; then
	echo "check-format: $bad of ${#files[@]} files are not formatted as .clang-format says" >&2
	exit 1
fi
echo "check-format: ${#files[@]} files formatted"
