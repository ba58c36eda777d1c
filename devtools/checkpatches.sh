#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Checks commits the way the project reviews them (in the spirit of DPDK's checkpatches.sh).
#   devtools/checkpatches.sh [RANGE]   commits of RANGE (default origin/main..HEAD when
#                                      origin/main exists, else HEAD~1..HEAD)
#   devtools/checkpatches.sh --tree    every tracked file, no commits
# Commit checks: the subject is "area: summary" (area: lower-case words of [a-z0-9_/.-],
# separated by ", " if several), at most 72 characters, no trailing period; the body is
# not empty.
# File checks (files the range adds or changes, or every tracked file with --tree):
#  - an SPDX-License-Identifier tag in the first 5 lines of *.c *.cpp *.h *.py *.sh *.rst,
#    meson.build, meson_options.txt and executable scripts (#!);
#  - C/C++ lines (*.c *.cpp *.h) at most 100 columns, a tab counting up to the next
#    multiple of 8; in RANGE mode only the lines the range adds are measured.
# test/vectors/ holds recorded data and is not checked. Exit status 1 on any finding.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

mode=range
range=
case "${1:-}" in
-h|--help) sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
--tree) mode=tree ;;
"")
	if git rev-parse -q --verify origin/main >/dev/null; then
		range=origin/main..HEAD
	else
		range=HEAD~1..HEAD
	fi ;;
*) range=$1 ;;
esac

exec python3 - "$mode" "$range" <<'PY'
import re
import subprocess
import sys

mode, rng = sys.argv[1], sys.argv[2]
MAX_SUBJECT = 72
MAX_COLS = 100
SPDX_LINES = 5
SUBJECT_RE = re.compile(r"^[a-z0-9_/.-]+(, [a-z0-9_/.-]+)*: \S")
SPDX_SUFFIXES = (".c", ".cpp", ".h", ".py", ".sh", ".rst")
SPDX_NAMES = ("meson.build", "meson_options.txt")
C_SUFFIXES = (".c", ".cpp", ".h")
SKIP_PREFIXES = ("test/vectors/",)
problems = 0


def git(*args):
    return subprocess.run(("git",) + args, check=True, capture_output=True).stdout


def report(where, msg):
    global problems
    problems += 1
    print(f"{where}: {msg}")


def columns(line):
    col = 0
    for ch in line:
        col = (col // 8 + 1) * 8 if ch == "\t" else col + 1
    return col


def needs_spdx(path, head):
    name = path.rsplit("/", 1)[-1]
    return (path.endswith(SPDX_SUFFIXES) or name in SPDX_NAMES
            or head.startswith(b"#!"))


def check_file(path, blob, lines_to_measure=None):
    """blob: file contents; lines_to_measure: {lineno: text} or None for all lines."""
    if path.startswith(SKIP_PREFIXES):
        return
    if needs_spdx(path, blob[:2]):
        head = blob.decode("utf-8", "replace").splitlines()[:SPDX_LINES]
        if not any("SPDX-License-Identifier:" in l for l in head):
            report(path, f"no SPDX-License-Identifier tag in the first {SPDX_LINES} lines")
    if path.endswith(C_SUFFIXES):
        if lines_to_measure is None:
            text = blob.decode("utf-8", "replace").splitlines()
            lines_to_measure = dict(enumerate(text, 1))
        for no, line in sorted(lines_to_measure.items()):
            n = columns(line)
            if n > MAX_COLS:
                report(f"{path}:{no}", f"line is {n} columns (limit {MAX_COLS})")


def added_lines(rng, path):
    out = {}
    no = 0
    diff = git("diff", "-U0", "--no-color", rng, "--", path).decode("utf-8", "replace")
    for l in diff.splitlines():
        m = re.match(r"^@@ -\S+ \+(\d+)", l)
        if m:
            no = int(m.group(1))
        elif l.startswith("+") and not l.startswith("+++"):
            out[no] = l[1:]
            no += 1
    return out


if mode == "tree":
    files = git("ls-files", "-z").decode().split("\0")
    for path in filter(None, files):
        try:
            with open(path, "rb") as f:
                check_file(path, f.read())
        except (IsADirectoryError, FileNotFoundError):
            pass  # a submodule or a file deleted in the work tree
    print(f"checkpatches: {len([f for f in files if f])} tracked files, {problems} problem(s)")
else:
    commits = git("rev-list", "--no-merges", "--reverse", rng).decode().split()
    for c in commits:
        subject = git("log", "-1", "--format=%s", c).decode().rstrip("\n")
        body = git("log", "-1", "--format=%b", c).decode().strip()
        where = f"commit {c[:12]} \"{subject}\""
        if not SUBJECT_RE.match(subject):
            report(where, "subject is not 'area: summary' (lower-case area)")
        if len(subject) > MAX_SUBJECT:
            report(where, f"subject is {len(subject)} characters (limit {MAX_SUBJECT})")
        if subject.endswith("."):
            report(where, "subject ends with a period")
        if not body:
            report(where, "no body saying why")
    files = git("diff", "--name-only", "--diff-filter=AM", "-z", rng).decode().split("\0")
    end = rng.split("..")[-1] or "HEAD"
    for path in filter(None, files):
        blob = git("show", f"{end}:{path}")
        check_file(path, blob, added_lines(rng, path))
    print(f"checkpatches: {len(commits)} commit(s) in {rng}, "
          f"{len([f for f in files if f])} file(s), {problems} problem(s)")
sys.exit(1 if problems else 0)
PY
