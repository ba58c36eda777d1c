#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Checks MAINTAINERS against the tracked files.
#   devtools/check-maintainers.sh
# Fails (exit 1) when a tracked file is covered by no F: pattern of any section, or is
# left only by X: exclusions. F: patterns that match no tracked file are listed as
# warnings (a section may be ready before its first file, e.g. examples/).
# Pattern rules (as MAINTAINERS says): "dir/" covers everything below dir; a pattern
# with * ? [ is a shell glob matched against the whole path; anything else is one file.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

git ls-files -z | exec python3 -c '
import fnmatch
import re
import sys

files = [f for f in sys.stdin.read().split("\0") if f]
sections = []  # [name, [F patterns], [X patterns]]
name = None
for no, line in enumerate(open("MAINTAINERS", encoding="utf-8"), 1):
    line = line.rstrip("\n")
    m = re.match(r"^([FX]): *(\S+)\s*$", line)
    if m:
        if not sections or sections[-1][0] != name:
            sections.append([name, [], []])
        sections[-1][1 if m.group(1) == "F" else 2].append((no, m.group(2)))
    elif line and not line.startswith(("\t", " ", "-", "=")) and ":" not in line[:3]:
        name = line


def covers(pat, path):
    if pat.endswith("/"):
        return path.startswith(pat)
    if any(c in pat for c in "*?["):
        return fnmatch.fnmatchcase(path, pat)
    return path == pat


uncovered = []
used = set()
for path in files:
    hit = False
    for sec, fpats, xpats in sections:
        f = [p for p in fpats if covers(p[1], path)]
        if f and not any(covers(x[1], path) for x in xpats):
            hit = True
            used.update(p[0] for p in f)
    if not hit:
        uncovered.append(path)

for sec, fpats, xpats in sections:
    for no, pat in fpats:
        if not any(covers(pat, p) for p in files):
            print(f"warning: MAINTAINERS:{no}: F: {pat} ({sec}) matches no tracked file")
for path in uncovered:
    print(f"{path}: covered by no F: line of MAINTAINERS")
print(f"check-maintainers: {len(files)} tracked files, {len(sections)} sections, "
      f"{len(uncovered)} uncovered")
sys.exit(1 if uncovered else 0)
'
