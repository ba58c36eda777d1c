#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds the guides (doc/guides) as HTML with Sphinx; any warning is an error.
#   devtools/build-doc.sh [OUTPUT_DIR]       default build/doc/html
# Needs python3-sphinx (devtools/setup.sh installs it); uses python3-sphinx-rtd-theme
# when installed, else Sphinx's default theme. Fetches nothing from the network.
# Environment: SPHINX_BUILD (command to run, default sphinx-build), BUILD_DIR.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=${1:-${BUILD_DIR:-build}/doc/html}

# Debian's sphinx-build runs under /usr/bin/python3 whatever python3 the PATH has.
if [ -n "${SPHINX_BUILD:-}" ]; then
	read -r -a sphinx <<<"$SPHINX_BUILD"
elif command -v sphinx-build >/dev/null; then
	sphinx=(sphinx-build)
elif python3 -c 'import sphinx' 2>/dev/null; then
	sphinx=(python3 -m sphinx)
else
	echo "build-doc: Sphinx not found (apt-get install python3-sphinx)" >&2
	exit 2
fi
# -W: warnings are errors; --keep-going: report all of them; -n: nitpicky references;
# -E: read every file again, so no warning hides behind a cached environment.
"${sphinx[@]}" -W --keep-going -n -E -q -b html -d "$out/../doctrees" doc/guides "$out"
echo "build-doc: guides built in $out"
